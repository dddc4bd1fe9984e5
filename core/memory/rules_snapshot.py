"""The rules snapshot: every confirmed rule in one small private file the hook client applies alone.

A rule must hold while the engine is cold, busy, slow or down. The stdlib
hook client cannot search the store, so every process that writes the
store keeps ``<data dir>/rules.json`` (mode 0600, replaced atomically) in
step with it: the store calls :meth:`RulesSnapshot.on_write` after each
write, and the engine checks the file once it has the store open
(:meth:`RulesSnapshot.ensure`): the file records the store's change-journal
position it is complete to, so the engine re-reads only the lessons the
journal names since (that heals a snapshot some crashed writer left behind:
every write is named in the journal before it reaches Chroma), and rebuilds
in full, a page at a time, only when the file is missing, damaged, of other
block tiers, or the journal cannot say (rotated, another store). The client
(:mod:`twiceshy.hooks.wire`) reads it only when the engine did not answer,
and denies a call when a rule's contrastive signature matches — the same
:func:`twiceshy.hooks.match.matches` the engine applies.

File format (version 1)::

    {"v": 1, "written_at": <unix time>, "block_tiers": [1],
     "rules": [{"id": ..., "tier": 1, "project": "<fingerprint>" | null,
                "signature": {...} | null, "reason": "Blocked by twiceshy: ..."}],
     "journal": [<epoch>, <offset>]}   # optional: complete up to there (the engine's check)

A rule without a signature is listed (``twiceshy doctor`` can say so) but
never matches in the client: the client only denies what the engine would.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from twiceshy.base.locking import fcntl
from twiceshy.base.types import Experience
from twiceshy.lesson.evidence import lesson_advice
from twiceshy.memory.write_watch import watch_writes

VERSION = 1
FILE_NAME = "rules.json"
HOLD_TAG = "review:held"  # twiceshy.learning.review.HOLD_TAG (not imported: keep this module light)

CATCH_UP_MAX = 20_000  # lessons the start-up check re-reads at most (beyond: a paged rebuild)
ADVANCE_AFTER = 200  # a backlog this long moves the file's position even when no rule changed

DENY_HEADER = "Blocked by twiceshy: a confirmed rule from earlier sessions applies."


# An entry's id in the compact, key-sorted file (its first key in the rules snapshot; after
# "adds" and "drops" in a hold index shard, which shares this format).
_ENTRY_ID = re.compile(rb'[{,]"id":"((?:[^"\\]|\\.)*)"')
_TAIL = re.compile(rb'\],"v":(\d+),"written_at":[0-9.eE+-]+\}\s*$')


def _stat_key(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_ino, st.st_mtime_ns, st.st_size


def snapshot_path(home: str | Path | None = None) -> Path:
    """``<data dir>/rules.json`` (the hook client computes the same path from ``--home``)."""
    if home is None:
        from twiceshy.base.paths import data_dir

        home = data_dir()
    return Path(os.path.abspath(os.path.expanduser(str(home)))) / FILE_NAME


def rule_reason(exp: Experience, signature: dict[str, Any] | None) -> str:
    """The deny reason the client prints for ``exp``: the lesson, and the fix when the signature names one."""
    lines = [DENY_HEADER, f"- {lesson_advice(exp)} ({exp.evidence()})"]
    fix = (signature or {}).get("fix")
    if isinstance(fix, str) and fix.strip():
        lines.append(f"  Instead: {fix.strip()}")
    return "\n".join(lines)


def _signature(exp: Experience) -> dict[str, Any] | None:
    try:
        from twiceshy.lesson.signature import signature_of
    except ImportError:  # an install without the structured matcher: the stored signature only
        sig = (getattr(exp, "structured", None) or {}).get("signature")
        return sig if isinstance(sig, dict) and sig else None
    try:
        return signature_of(getattr(exp, "structured", None) or {}, exp.trigger, exp.text)
    except Exception:
        return None


def entry_for(exp: Experience, block_tiers: Iterable[int]) -> dict[str, Any] | None:
    """The snapshot entry of ``exp``, or None when it may not block (tier, superseded, held)."""
    if int(exp.tier) not in {int(t) for t in block_tiers} or exp.superseded_by or HOLD_TAG in (exp.tags or []):
        return None
    sig = _signature(exp)
    return {
        "id": exp.id,
        "tier": int(exp.tier),
        "project": exp.project or None,
        "signature": sig,
        "reason": rule_reason(exp, sig),
    }


def read(path: Path) -> dict[str, Any] | None:
    """The parsed snapshot, or None when missing or unreadable."""
    try:
        return parse(path.read_bytes())
    except OSError:
        return None


def parse(raw: bytes) -> dict[str, Any] | None:
    """A snapshot file's bytes parsed, or None when they are not a whole snapshot."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError included
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION or not isinstance(data.get("rules"), list):
        return None
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` atomically with a 0600 file (the data dir is private too)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, json.dumps(data, separators=(",", ":"), sort_keys=True).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


class RulesSnapshot:
    """Keeps ``path`` in step with the store's rules. One per store object."""

    def __init__(self, path: Path, block_tiers: Iterable[int] = (1,)) -> None:
        self.path = Path(path)
        self.block_tiers = sorted({int(t) for t in block_tiers})
        self._known: tuple[tuple[int, int, int], set[str]] | None = None  # (stat key, ids) of the file

    # -- locking -------------------------------------------------------------

    def _locked(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def ids_on_disk(self) -> set[str]:
        """Rule ids in the file now (cached by inode/mtime/size: a write is rare, a check is per store write).

        Read without parsing the file when it is in the form :func:`_write`
        gives it (compact, keys sorted: every entry starts ``{"id":"``), a
        regular-expression scan: a 20k-rule file is 6 MB, and every process that
        writes the store checks it once. A match inside a rule's nested data can
        only add an id (a needless merge later), never hide one."""
        try:
            st = os.stat(self.path)
        except OSError:
            return set()
        key = _stat_key(st)
        if self._known is None or self._known[0] != key:
            try:
                raw = self.path.read_bytes()
            except OSError:
                return set()
            if raw.startswith(b'{"block_tiers":') and raw.rstrip().endswith(b"}"):
                ids = {m.decode("utf-8", "replace") for m in _ENTRY_ID.findall(raw)}
            else:
                data = read(self.path) or {"rules": []}
                ids = {str(r.get("id")) for r in data["rules"] if isinstance(r, dict)}
            self._known = (key, ids)
        return self._known[1]

    def _fresh(self, rules: list[dict[str, Any]]) -> dict[str, Any]:
        return {"v": VERSION, "written_at": round(time.time(), 3), "block_tiers": self.block_tiers, "rules": rules}

    # -- the store's hook ----------------------------------------------------

    def on_write(self, op: str, items: Iterable[Any]) -> None:
        """After a store write: ``op`` "upsert" with Experiences, "delete" with ids.

        Touches the file only when a rule appeared, changed, stopped being a
        rule (demoted, superseded, held) or was deleted.
        """
        items = list(items)
        if not items:
            return
        known = self.ids_on_disk()
        if op == "delete":
            gone = {str(i) for i in items} & known
            if gone:
                self.merge({}, gone)
            return
        changed: dict[str, dict[str, Any] | None] = {}
        for exp in items:
            entry = entry_for(exp, self.block_tiers)
            if entry is not None or exp.id in known:
                changed[exp.id] = entry
        if changed or not self.path.exists():
            self.merge(changed, set())

    def merge(
        self,
        changed: dict[str, dict[str, Any] | None],
        gone: set[str],
        journal: list[Any] | None = None,
        position_alone: bool = True,
    ) -> bool:
        """Merge into the file under its lock; returns whether it was rewritten.
        ``journal``: the position the file is now complete to (the engine's
        check; otherwise the file keeps the one it had). ``position_alone``:
        whether a new position alone is worth rewriting the file for."""
        if journal is None and self.holds_already(changed, gone):
            return False  # what merging would find: nothing to write (a hit count changes no entry)
        fd = self._locked()
        try:
            data = read(self.path)
            if data is None or data.get("block_tiers") != self.block_tiers:
                data = self._fresh([])  # no position: the engine's next check rebuilds what this write cannot see
            rules = {str(r.get("id")): r for r in data["rules"] if isinstance(r, dict)}
            before = len(rules)
            moved = False
            for exp_id in gone:
                moved |= rules.pop(exp_id, None) is not None
            for exp_id, entry in changed.items():
                if entry is None:
                    moved |= rules.pop(exp_id, None) is not None
                elif rules.get(exp_id) != entry:
                    rules[exp_id] = entry
                    moved = True
            position = journal if journal is not None else data.get("journal")
            if not moved and before == len(rules) and self.path.exists():
                if position == data.get("journal") or not position_alone:
                    return False
            fresh = self._fresh(sorted(rules.values(), key=lambda r: r["id"]))
            if position:
                fresh["journal"] = list(position)
            _write(self.path, fresh)
            self._remember(set(rules))  # under the lock: the file is ours until we let go
        finally:
            os.close(fd)
        return True

    def holds_already(self, changed: dict[str, dict[str, Any] | None], gone: set[str]) -> bool:
        """Does the file already say exactly this: each changed entry, byte for byte as
        :func:`_write` writes it, and none of the ids to take out? Read, not parsed: a store
        write (a hit count flushed) names lessons whose entries rarely change, and parsing a
        large shard of the hold index to find that out cost ~70 ms per write at 100k lessons.
        Anything unsure (another layout, an id seen anywhere in the file) says no: the merge
        then decides, under the lock."""
        try:
            raw = self.path.read_bytes()
        except OSError:
            return False
        head = b'{"block_tiers":' + json.dumps(self.block_tiers, separators=(",", ":")).encode() + b","
        tail = _TAIL.search(raw, max(0, len(raw) - 128))
        if not raw.startswith(head) or tail is None or int(tail.group(1)) != VERSION:
            return False
        for exp_id, entry in changed.items():
            if entry is None:
                gone = gone | {exp_id}
            elif json.dumps(entry, separators=(",", ":"), sort_keys=True).encode() not in raw:
                return False
        return not any(b'"id":' + json.dumps(i).encode() in raw for i in gone)

    def _remember(self, ids: set[str]) -> None:
        try:
            self._known = (_stat_key(os.stat(self.path)), ids)
        except OSError:
            self._known = None

    def rebuild(self, store: Any) -> int:
        """Rewrite the file from every rule in ``store``, read a page at a time.
        Returns the number of rules."""
        # The journal position first: whatever is written after it is re-read by the next check.
        position = store.journal_position() if hasattr(store, "journal_position") else None
        where: dict[str, Any] = (
            {"tier": self.block_tiers[0]} if len(self.block_tiers) == 1 else {"tier": {"$in": self.block_tiers}}
        )
        pages = store.iter_pages(where=where) if hasattr(store, "iter_pages") else [store.all(where=where)]
        entries: list[dict[str, Any]] = []
        for page in pages:
            entries.extend(e for e in (entry_for(x, self.block_tiers) for x in page) if e is not None)
        self.replace(entries, list(position) if position and position[0] else None)
        return len(entries)

    def replace(self, entries: list[dict[str, Any]], journal: list[Any] | None = None) -> None:
        """Rewrite the file with exactly ``entries`` (complete up to ``journal`` when given)."""
        fresh = self._fresh(sorted(entries, key=lambda r: r["id"]))
        if journal:
            fresh["journal"] = list(journal)
        fd = self._locked()
        try:
            _write(self.path, fresh)
            self._remember({str(e["id"]) for e in entries})
        finally:
            os.close(fd)

    def catch_up(self, store: Any, since: list[Any] | tuple[str, int] | None = None) -> tuple[int, Any] | None:
        """Bring the file up to date from the lessons the store's change journal
        names since ``since`` (default: the position the file records).
        Returns (lessons re-read, the journal position now), or None when that
        cannot be done (file missing or damaged, other block tiers, no
        position, journal rotated or of another store, or so many changes
        that a rebuild is cheaper): then :meth:`rebuild`."""
        data = read(self.path)
        if data is None or data.get("block_tiers") != self.block_tiers or not (since or data.get("journal")):
            return None
        if not hasattr(store, "changed_since"):
            return None
        got = store.changed_since(since or data["journal"])
        if got is None:
            return None
        position, ids = got
        if len(ids) > CATCH_UP_MAX:
            return None
        if not ids:
            return 0, position
        found = {exp.id: exp for exp in store.get_many(ids)}
        changed = {exp_id: entry_for(exp, self.block_tiers) for exp_id, exp in found.items()}
        gone = {exp_id for exp_id in ids if exp_id not in found}
        # With no rule changed, the position alone is written only for a long
        # backlog: re-reading a few lessons at the next start beats a rewrite now.
        self.merge(changed, gone, list(position), position_alone=len(ids) >= ADVANCE_AFTER)
        return len(ids), position

    def ensure(self, store: Any) -> tuple[str, int]:
        """The engine's start-up check (:func:`ensure_caught_up`)."""
        return ensure_caught_up(self, store)


def ensure_caught_up(snapshot: Any, store: Any) -> tuple[str, int]:
    """The engine's start-up check of a file kept from the store's change journal
    (this rules snapshot, the hold index): catch up when the file can say where it
    stands, else rebuild. Returns ("caught up"|"rebuilt", lessons read).

    A second, short pass then re-reads what other processes wrote during the
    first: their own update of the file may have been overwritten by ours."""
    got = snapshot.catch_up(store)
    if got is None:
        position = store.journal_position() if hasattr(store, "journal_position") else None
        how, count = "rebuilt", snapshot.rebuild(store)
    else:
        (count, position), how = got, "caught up"
    if position and position[0]:
        snapshot.catch_up(store, since=position)
    return how, count


def block_tiers(config: Any) -> list[int]:
    """The tiers whose lessons deny every time (``retrieval.block_tiers``; rules by default)."""
    try:
        tiers = config.get("retrieval", "block_tiers")
    except Exception:
        tiers = [1]
    return list(tiers) if tiers is not None else [1]


def attach(store: Any, config: Any, home: str | Path | None = None) -> RulesSnapshot:
    """Keep the snapshot of ``home`` in step with every write through ``store``
    (:func:`twiceshy.memory.write_watch.watch_writes`: every process that writes the
    store — the engine, ``learn``/``forget``/``edit``, ``import``, the evolution pass —
    without the store knowing about the snapshot). A failure to write the snapshot is
    logged, never raised into the store's caller."""
    snap = RulesSnapshot(snapshot_path(home), block_tiers(config))
    watch_writes(store, "rules_snapshot", lambda op, items: snap.on_write(op, items))  # looked up per write
    store.rules_snapshot = snap
    return snap


__all__ = [
    "FILE_NAME",
    "RulesSnapshot",
    "attach",
    "block_tiers",
    "ensure_caught_up",
    "entry_for",
    "parse",
    "read",
    "rule_reason",
    "snapshot_path",
]
