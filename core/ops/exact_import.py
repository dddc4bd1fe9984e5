"""Import that loses nothing: every lesson of an export is kept as it was.

Session-end learning merges a new lesson into one it resembles (by meaning,
:mod:`twiceshy.learning.ingest`); an import must not. An export is a list of
lessons someone's memory already decided were distinct, and folding one into
another because their triggers are near (``deploy svc1 --env=prod`` and
``deploy svc7 --env=prod``) loses the second lesson's advice. So a record of
the file is, against the store and the records before it:

* **exists** (skipped) — the store has a lesson with the same id and the same
  text, trigger and scope, or any lesson whose text, trigger and scope are the
  same after folding case and whitespace: re-importing a file changes nothing;
* **seen** (merged) — the store has a lesson with the same id but other words:
  the same lesson, edited since; its count goes up once per run and it keeps
  the stronger of the two tiers (:meth:`twiceshy.ops.bulk._Bulk._write`);
* **new** — anything else, however similar its trigger: stored under the
  file's id (when that id is free and well formed), with its tier,
  confidence, counts, tags, topic, times, structured lesson and streak, and
  with the file's own supersession links and edges. **related** is a new
  lesson that also gets a ``relates-to`` edge to the nearest lesson the store
  held *before* the import (same scope, cosine at least
  ``learning.related_threshold``); no edge is made between two lessons of the
  file, and an import never supersedes a lesson: the file's own links say
  what superseded what.

So ``export`` → ``import`` into an empty store → ``export`` gives the same
lessons, ids, tiers, counts and edges (``tests/test_import_lossless.py``).
The poisoning guard still reads every lesson: one it holds is stored held,
whatever its tags in the file said.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Experience, Tier, new_id
from twiceshy.ops import bulk
from twiceshy.ops.bulk import _Bulk, _digest, _Item, _Known, _topic_of, _vectors

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

# An id a file may give its lesson: what twiceshy makes (16 hex digits) and any
# other plain token; never one that could be confused with an edge id (``a|b|c``).
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}\Z")
RELATED_K = 5  # store neighbours looked at for a new lesson's relates-to edge


def usable_id(ref: str) -> bool:
    """May a lesson be stored under the id ``ref`` it had in the file?"""
    return bool(_ID.match(ref))


class ExactImport(_Bulk):
    """A bulk run for ``import``: the store is read as for any bulk run (one
    paged read for a large file, a lookup per batch for a small one), and each
    record is decided by id and exact words only (see the module docstring)."""

    def __init__(
        self,
        ctx: EngineContext,
        total: int,
        progress: bulk.Progress | None = None,
        timings: dict[str, float] | None = None,
    ) -> None:
        super().__init__(ctx, total, progress, timings=timings)
        self.made: set[str] = set()  # ids this run stored: never a relates-to target
        self.bumped: set[str] = set()  # lessons counted seen in this run (once each)
        self.trusted: bool = True
        self.verify = True  # carried vectors sample-checked per batch (a large run checks once: check_carried)

    def _know(self, exp: Experience) -> None:
        key = _digest(exp.text, exp.trigger, exp.project)
        self.existing.setdefault(key, exp.id)
        self.known[exp.id] = _Known(exp.project, exp.trigger, exp.tags, bool(exp.superseded_by), key)

    def _look_up(self, items: list[_Item]) -> None:
        """A small run: what the store has under this batch's ids and triggers
        (exactly, not by meaning), without reading the whole store."""
        refs = [r for it in items for r in (it.ref, it.superseded_ref) if r and r not in self.known]
        for exp in self.store.get_many(refs) if refs else []:
            self._know(exp)
        triggers = sorted({it.trigger for it in items})
        if not triggers:
            return
        got = self.store._col.get(where={"trigger": {"$in": triggers}}, include=["documents", "metadatas"])
        for exp_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
            if exp_id not in self.known:
                self._know(Experience.from_metadata(exp_id, doc or "", meta or {}))

    def batch(self, items: list[_Item]) -> None:
        """Decide and store one batch (in file order after every earlier batch)."""
        from twiceshy.learning.review import classify, hold_tags

        counts, existing, known, id_map = self.counts, self.existing, self.known, self.id_map
        steps = self._steps(len(items))
        self.batches += 1
        if self.small:
            self._look_up(items)
        elif not self.read:
            self._read_store()
        self.clock.lap("read")
        todo: list[tuple[_Item, str]] = []  # (record, the id it is stored under)
        bumps: dict[str, list[_Item]] = {}
        for it in items:
            key = _digest(it.text, it.trigger, it.project)
            same_id = known.get(it.ref) if it.ref else None
            if same_id is not None:
                if it.ref:
                    id_map[it.ref] = it.ref
                if same_id.digest == key:
                    counts["exists"] += 1
                    continue
                counts["seen"] += 1  # the same lesson in other words: counted once per run
                if it.ref not in self.bumped:
                    bumps.setdefault(it.ref, []).append(it)
                    self.bumped.add(it.ref)
                continue
            if key in existing:
                counts["exists"] += 1
                if it.ref:
                    id_map[it.ref] = existing[key]
                continue
            exp_id = it.ref if usable_id(it.ref) else new_id()
            while exp_id in known:  # a generated id never collides, but do not trust that
                exp_id = new_id()
            existing[key] = exp_id
            known[exp_id] = _Known(it.project, it.trigger, it.tags, False, key)
            if it.ref:
                id_map[it.ref] = exp_id
            todo.append((it, exp_id))
        records = [it for it, _ in todo]
        if not self.trusted:
            for it in records:
                it.vector = None
        vectors, trusted = _vectors(self.store, records, steps, verify=self.verify)
        if not trusted:
            self.verify = self.trusted = False
        self.clock.lap("embed")
        near = self._nearest_before(records, vectors)
        new: dict[str, Experience] = {}
        rows: dict[str, int] = {}
        edges: list[tuple[str, str, str, float]] = []
        for row, (it, exp_id) in enumerate(todo):
            exp = self._experience(it, exp_id, hold_tags(classify(it.text)))
            new[exp_id], rows[exp_id] = exp, row
            self.made.add(exp_id)
            nearest = near[row]
            if nearest is not None:
                edges.append((exp_id, nearest[0], "relates-to", nearest[1]))
                counts["related"] += 1
            else:
                counts["new"] += 1
        steps(1, 1, 1)
        self.clock.lap("decide")
        for it, exp_id in todo:
            if it.superseded_ref:
                self._link(new[exp_id], it.superseded_ref)
        self._write(new, rows, vectors, bumps, [], edges, steps)
        self.done += len(items)

    def _nearest_before(self, records: list[_Item], vectors: Any) -> list[tuple[str, float] | None]:
        """For each record, the nearest lesson of its own scope the store held
        before this import, when at least ``related_threshold`` alike."""
        out: list[tuple[str, float] | None] = [None] * len(records)
        if not records:
            return out
        if self.small:
            hits = [
                [(e.id, float(s)) for e, s in self.store.search_vector(vec.tolist(), k=RELATED_K, project=it.project)]
                for it, vec in zip(records, vectors)
            ]
        else:  # the index holds the store as read at the start: nothing of this run
            hits = self.index.top(vectors, [it.project for it in records], RELATED_K, self.related)
        for row, (it, found) in enumerate(zip(records, hits)):
            for other, score in sorted(found, key=lambda h: -h[1]):
                if score < self.related:
                    break
                info = self.known.get(other)
                if other in self.made or info is None or info.superseded or info.project != it.project:
                    continue
                out[row] = (other, score)
                break
        return out

    def _experience(self, it: _Item, exp_id: str, held: list[str]) -> Experience:
        """The stored lesson for a record, as the file had it (the guard's hold added)."""
        now = self.now
        created = it.created_at if it.created_at is not None and 0 < it.created_at <= now else now
        seen = it.last_seen if it.last_seen is not None and created <= it.last_seen <= now else max(created, now)
        exp = Experience(
            text=it.text,
            trigger=it.trigger,
            id=exp_id,
            kind=it.kind,
            project=it.project,
            tags=list(dict.fromkeys(it.tags + held)),
            confidence=min(1.0, max(0.0, it.confidence)),
            source=it.source,
            topic=it.topic if it.topic is not None else _topic_of(it.trigger),
            created_at=float(created),
            last_seen=float(seen),
            structured=it.structured,
            streak=it.streak,
        )
        if it.tier is not None:
            exp.tier = it.tier
        for name in ("seen_count", "hits", "follows", "ignores", "irrelevant"):
            value = it.evidence.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                setattr(exp, name, max(value, 1) if name == "seen_count" else value)
        return exp

    def _link(self, exp: Experience, newer_ref: str) -> None:
        """``exp`` superseded by the lesson the file calls ``newer_ref``: one
        already stored or earlier in the file now, one later in it at the end."""
        newer = self.id_map.get(newer_ref) or (newer_ref if newer_ref in self.known else None)
        if newer is None:
            self.links.append((exp.id, newer_ref))
        elif newer != exp.id:
            exp.superseded_by = newer
            exp.tier = max(exp.tier, int(Tier.QA))  # a superseded rule never blocks


__all__ = ["ExactImport", "usable_id"]
