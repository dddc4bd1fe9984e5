"""The hold index: every lesson that may hold a call, in small files the hook client reads alone.

The engine decides holds; the hook client (:mod:`twiceshy.hooks.coldhold`)
applies this index only when the engine did not answer (starting after an idle
exit or a reboot, stopped, slow). Without it, the first call of a new session
after the engine went down ran unheld, even when it repeated exactly the
mistake a lesson was learned for; rules had the rules snapshot
(:mod:`twiceshy.memory.rules_snapshot`), other lessons nothing.

What is in it: each lesson that would hold (not a rule — the rules snapshot
denies those —, not superseded, not held for review, not corrected down to
context by its outcomes, with a signature; nothing at all when ``retrieval.warn``
is not ``hold``), as ``{"id", "tier", "project", "keys", "signature", "adds",
"drops", "reason"}``: the programs a call must run to match (``@edit`` for a
code lesson), the parts the lesson's fix adds to its mistake and takes away
(the client passes a call that does what the fix does, as the engine does:
:func:`twiceshy.recall.ranking.does_what_the_fix_adds`), and the hold reason.
No evidence counts: an entry changes only when what it holds or says changes.

Layout: ``<data dir>/hold_index/NN.json`` (:data:`BUCKETS` shards by key, each
in the rules snapshot's file format and written by its merge, under its own
lock, 0600, replaced atomically) and ``meta.json`` (the block tiers and warn
mode it was built for, the store's change-journal position it is complete
to, and the size and CRC-32 of each shard as the engine last found it whole:
its start-up check parses only the shards written since, not ~60 MB of JSON
at 100k lessons). Kept like the rules snapshot: every write through the store updates the
shards it touches (a batch over :data:`BATCH_MAX` is left to the engine), and
the engine's start-up check catches up from the journal, or rebuilds.
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from twiceshy.base.types import Experience, Tier
from twiceshy.hooks import coldhold, match
from twiceshy.hooks.match import call_parts, signature_keys
from twiceshy.lesson.evidence import lesson_advice
from twiceshy.memory.rules_snapshot import (
    CATCH_UP_MAX,
    HOLD_TAG,
    RulesSnapshot,
    block_tiers,
    ensure_caught_up,
    parse,
)
from twiceshy.memory.write_watch import watch_writes
from twiceshy.recall.delivery import HOLD_HEAD, HOLD_TAIL, fix_of
from twiceshy.recall.outcomes import context_only
from twiceshy.recall.ranking import advice_of, event_project, fix_change, lesson_signature

VERSION = 1
META = "meta.json"
BUCKETS = coldhold.BUCKETS
BATCH_MAX = 500  # a bigger write (an import) is left to the engine's catch-up: seconds of signatures


def index_dir(home: str | Path | None = None) -> Path:
    if home is None:
        from twiceshy.base.paths import data_dir

        home = data_dir()
    return Path(coldhold.index_dir(home))


def hold_text(exp: Experience, fix: str) -> str:
    """The hold reason of one lesson, as the engine words it (without the evidence counts)."""
    text = lesson_advice(exp)
    try:
        label = Tier(int(exp.tier)).label
    except ValueError:
        label = str(exp.tier)
    lines = [HOLD_HEAD, f"- {text} [{label}]"]
    if fix and " ".join(fix.split()) not in " ".join(text.split()):
        lines.append(f"  Fix: {fix}")
    lines.append(HOLD_TAIL)
    return "\n".join(lines)


def entry_for(exp: Experience, block_tiers: Iterable[int], mode: str = "hold") -> dict[str, Any] | None:
    """The index entry of ``exp``, or None when it would not hold a call."""
    if mode != "hold" or int(exp.tier) in {int(t) for t in block_tiers}:
        return None
    if exp.superseded_by or HOLD_TAG in (exp.tags or []) or context_only(exp):
        return None
    sig = lesson_signature(exp)
    keys = sorted(signature_keys(sig or {}))
    if not sig or not keys:
        return None  # a lesson without a signature never holds (the engine's own rule)
    change = fix_change(exp, sig)
    added, dropped = change if change is not None else (set(), set())
    entry: dict[str, Any] = {
        "id": exp.id,
        "tier": int(exp.tier),
        "project": exp.project or None,
        "keys": keys,
        "signature": sig,
        "adds": sorted(added),
        "drops": sorted(dropped),
        "advice": advice_of(exp, sig),
        "reason": hold_text(exp, fix_of(exp)),
    }
    worked, failed = ran_parts(exp, "fix"), ran_parts(exp, "mistake")
    if worked:
        entry["worked"] = worked  # the call that worked: never held (coldhold.known_good) ...
    if failed:
        entry["failed"] = failed  # ... but by the lesson that saw this very call fail
    return entry


def ran_parts(exp: Experience, which: str) -> list[str]:
    """The parts (sorted) of the call the session ran as the lesson's ``fix`` or ``mistake``, or []."""
    structured = exp.structured if isinstance(exp.structured, dict) else {}
    call = structured.get(which)
    command = call.get("command") if isinstance(call, dict) else None
    if not isinstance(command, str) or not command.strip() or "\n" in command.strip():
        return []
    return sorted(call_parts(command))


def known_good(event: Any, home: str | Path | None = None) -> bool:
    """The call is, part for part, the fix a lesson of its project stored (it worked here before):
    the engine's side of :func:`twiceshy.hooks.coldhold.known_good`, over the same index."""
    return bool(
        coldhold.known_good(
            str(index_dir(home).parent), match, event.tool_name, event.tool_input or {}, lambda: event_project(event)
        )
    )


class HoldIndex:
    """Keeps ``folder`` in step with the store's lessons. One per store object."""

    def __init__(self, folder: Path, block_tiers: Iterable[int] = (1,), mode: str = "hold") -> None:
        self.folder = Path(folder)
        self.block_tiers = sorted({int(t) for t in block_tiers})
        self.mode = mode
        self._shards: dict[int, RulesSnapshot] = {}
        self._whole: dict[int, list[int]] = {}  # bucket -> [size, crc32] of a shard known whole here

    def shard(self, bucket: int) -> RulesSnapshot:
        if bucket not in self._shards:
            self._shards[bucket] = RulesSnapshot(
                Path(coldhold.shard_path(self.folder.parent, bucket)), self.block_tiers
            )
        return self._shards[bucket]

    def entry(self, exp: Experience) -> dict[str, Any] | None:
        return entry_for(exp, self.block_tiers, self.mode)

    # -- meta ------------------------------------------------------------------

    def _meta_path(self) -> Path:
        return self.folder / META

    def read_meta(self) -> dict[str, Any] | None:
        try:
            data = json.loads(self._meta_path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("v") != VERSION:
            return None
        if data.get("block_tiers") != self.block_tiers or data.get("mode") != self.mode:
            return None
        return data

    def _write_meta(self, journal: Any) -> None:
        from twiceshy.base.fileio import write_atomic

        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {
            "v": VERSION,
            "block_tiers": self.block_tiers,
            "mode": self.mode,
            "journal": list(journal or []),
            "sums": self._whole_sums(),
        }
        write_atomic(self._meta_path(), json.dumps(data), private=True, durable=False)

    def _sum_of(self, bucket: int) -> tuple[list[int], bytes] | None:
        try:
            raw = self.shard(bucket).path.read_bytes()
        except OSError:
            return None
        return [len(raw), zlib.crc32(raw)], raw

    def _check_shards(self, meta: dict[str, Any]) -> dict[str, list[int]] | None:
        """The sums of the shards, each found whole; None when one is damaged (what it held
        is unknown). A shard whose size and CRC-32 ``meta`` recorded is not parsed again."""
        given = meta.get("sums")
        recorded: dict[str, Any] = given if isinstance(given, dict) else {}
        sums: dict[str, list[int]] = {}
        for bucket in range(BUCKETS):
            got = self._sum_of(bucket)
            if got is None:
                continue  # no shard: nothing held there
            name = "%02d" % bucket
            if got[0] != recorded.get(name) and got[0] != self._whole.get(bucket) and parse(got[1]) is None:
                return None
            self._whole[bucket] = sums[name] = got[0]
        return sums

    def _whole_sums(self) -> dict[str, list[int]]:
        """Each shard's [size, CRC-32] now, for the shards known whole (parsed here when not)."""
        sums: dict[str, list[int]] = {}
        for bucket in range(BUCKETS):
            got = self._sum_of(bucket)
            if got is not None and (got[0] == self._whole.get(bucket) or parse(got[1]) is not None):
                self._whole[bucket] = sums["%02d" % bucket] = got[0]
        return sums

    # -- writing ---------------------------------------------------------------

    def apply(self, changed: dict[str, dict[str, Any] | None], gone: set[str]) -> int:
        """Route entries to their shards and take them out of every other shard
        (``None`` and ``gone``: no longer in the index). Returns the shards rewritten."""
        home: dict[str, set[int]] = {
            exp_id: {coldhold.bucket_of(k) for k in entry["keys"]} if entry else set()
            for exp_id, entry in changed.items()
        }
        per_shard: dict[int, tuple[dict[str, dict[str, Any] | None], set[str]]] = {}
        for exp_id, entry in changed.items():
            for bucket in home[exp_id]:
                per_shard.setdefault(bucket, ({}, set()))[0][exp_id] = entry
        if (
            not gone
            and all(changed.values())
            and all(self.shard(b).holds_already(c, set()) for b, (c, _) in per_shard.items())
        ):
            # Each entry is in its shards byte for byte, keys included: the writer that put it
            # there took it out of every other shard. Nothing to do, and no other shard read
            # (a flushed hit count: at 100k lessons the 64 shards are ~60 MB).
            return 0
        ids = set(changed) | gone
        if ids:
            for bucket in range(BUCKETS):
                for exp_id in ids & self.shard(bucket).ids_on_disk():  # a missing shard: none
                    if exp_id in gone or bucket not in home.get(exp_id, set()):
                        per_shard.setdefault(bucket, ({}, set()))[1].add(exp_id)
        rewritten = 0
        for bucket, (shard_changed, shard_gone) in sorted(per_shard.items()):
            rewritten += self.shard(bucket).merge(shard_changed, shard_gone, position_alone=False)
        return rewritten

    def on_write(self, op: str, items: Iterable[Any]) -> None:
        """After a store write: ``op`` "upsert" with Experiences, "delete" with ids."""
        items = list(items)
        if not items or len(items) > BATCH_MAX:
            return  # a big batch: the engine's start-up check catches up from the journal
        if op == "delete":
            self.apply({}, {str(i) for i in items})
        else:
            self.apply({exp.id: self.entry(exp) for exp in items}, set())

    def rebuild(self, store: Any) -> int:
        """Rewrite every shard from every lesson in ``store``, read a page at a time. Returns the entries."""
        position = store.journal_position() if hasattr(store, "journal_position") else None
        pages = store.iter_pages() if hasattr(store, "iter_pages") else [store.all()]
        shards: dict[int, list[dict[str, Any]]] = {b: [] for b in range(BUCKETS)}
        count = 0
        for page in pages:
            for exp in page:
                entry = self.entry(exp)
                if entry is None:
                    continue
                count += 1
                for bucket in {coldhold.bucket_of(k) for k in entry["keys"]}:
                    shards[bucket].append(entry)
        for bucket, entries in shards.items():
            if entries or os.path.exists(self.shard(bucket).path):
                self.shard(bucket).replace(entries)
                got = self._sum_of(bucket)  # written whole just now (another writer's is whole too)
                if got is not None:
                    self._whole[bucket] = got[0]
        self._write_meta(position if position and position[0] else None)
        return count

    def catch_up(self, store: Any, since: list[Any] | tuple[str, int] | None = None) -> tuple[int, Any] | None:
        """Re-read the lessons the store's change journal names since ``since`` (default:
        the position in ``meta.json``). None when that cannot be done: then :meth:`rebuild`."""
        meta = self.read_meta()
        if meta is None or not (since or meta.get("journal")) or not hasattr(store, "changed_since"):
            return None
        sums = self._check_shards(meta)
        if sums is None:
            return None  # a damaged shard: what it held is unknown
        got = store.changed_since(since or meta["journal"])
        if got is None:
            return None
        position, ids = got
        if len(ids) > CATCH_UP_MAX:
            return None
        if ids:
            found = {exp.id: exp for exp in store.get_many(ids)}
            self.apply({exp_id: self.entry(exp) for exp_id, exp in found.items()}, {i for i in ids if i not in found})
        if ids or list(position) != list(meta.get("journal") or []) or meta.get("sums") != sums:
            self._write_meta(position)
        return len(ids), position

    def ensure(self, store: Any) -> tuple[str, int]:
        """The engine's start-up check (:func:`twiceshy.memory.rules_snapshot.ensure_caught_up`)."""
        return ensure_caught_up(self, store)


def attach(store: Any, config: Any, home: str | Path | None = None) -> HoldIndex:
    """Keep the hold index of ``home`` in step with every write through ``store``."""
    try:
        mode = str(config.get("retrieval", "warn") or "hold").strip().lower()
    except Exception:
        mode = "hold"
    index = HoldIndex(index_dir(home), block_tiers(config), mode)
    watch_writes(store, "hold_index", lambda op, items: index.on_write(op, items))
    store.hold_index = index
    return index


def look_may_hold(event: Any, home: str | Path | None = None) -> bool:
    """Does a lesson whose mistake was itself a read-only call (``kubectl get pods`` against the
    wrong cluster: ``looks`` in its signature) hold this read-only call? The engine skips the
    search for read-only calls; this keeps that skip for every call no such lesson is about,
    at the cost of a stat per shard the call's programs name."""
    hits = coldhold.find(
        str(index_dir(home).parent),
        match,
        event.tool_name,
        event.tool_input or {},
        lambda: event_project(event),
        only=_is_about_a_look,
    )
    return bool(hits)


def _is_about_a_look(entry: dict[str, Any]) -> bool:
    """An index entry whose lesson is about a look: only these are checked against a read-only call
    (a shard's other entries, thousands in a large store, are never parsed into checks per call)."""
    signature = entry.get("signature")
    return isinstance(signature, dict) and about_a_look(signature)


def about_a_look(signature: dict) -> bool:
    """A signature about a read-only call, or an "any of" one with such a member (a retry loop)."""
    if signature.get("looks"):
        return True
    members = signature.get("of") if signature.get("kind") == "any" else None
    return isinstance(members, list) and any(isinstance(m, dict) and m.get("looks") for m in members)


__all__ = ["BUCKETS", "HoldIndex", "attach", "entry_for", "hold_text", "index_dir", "known_good", "look_may_hold"]
