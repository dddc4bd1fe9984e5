"""From candidate lessons to stored experiences: redact, deduplicate, store.

``ingest_candidates`` is the one door through which extracted lessons enter
the store. Similarity at or above ``learning.dedup_threshold`` counts as the
same lesson seen again (its ``seen_count`` and ``last_seen`` go up); between
``related_threshold`` and that, both are kept and linked ``relates-to``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .project import fingerprint
from .redact import redact
from .types import CoreEvent, Experience, LessonCandidate

if TYPE_CHECKING:
    from .context import EngineContext


def store_lesson(
    ctx: "EngineContext",
    text: str,
    trigger: str,
    kind: str = "manual",
    project: str | None = None,
    tags: list[str] | None = None,
    confidence: float = 0.5,
    source: str = "",
) -> tuple[Experience, str]:
    """Store one lesson with dedup. Returns (experience, "new"|"seen"|"related")."""
    store = ctx.store
    text, trigger = redact(text.strip()), redact((trigger or text).strip())
    dedup = ctx.config.get("learning", "dedup_threshold")
    related = ctx.config.get("learning", "related_threshold")
    # Dedup compares what the lesson is about, within the same scope.
    nearest = store.search(trigger, k=3, project=project)
    same_scope = [(e, s) for e, s in nearest if e.project == project]
    if same_scope and same_scope[0][1] >= dedup:
        existing = same_scope[0][0]
        existing.seen_count += 1
        existing.last_seen = time.time()
        existing.confidence = min(1.0, existing.confidence + 0.05)
        store.update(existing)
        return existing, "seen"
    exp = Experience(
        text=text, trigger=trigger, kind=kind, project=project, tags=list(tags or []), confidence=confidence, source=source
    )
    store.add(exp)
    if same_scope and same_scope[0][1] >= related:
        store.add_edge(exp.id, same_scope[0][0].id, "relates-to", weight=same_scope[0][1])
        return exp, "related"
    return exp, "new"


def ingest_candidates(ctx: "EngineContext", candidates: list[LessonCandidate], event: CoreEvent) -> int:
    project = fingerprint(event.cwd) if event.cwd else None
    stored = 0
    for cand in candidates:
        store_lesson(
            ctx,
            cand.text,
            cand.trigger,
            kind=cand.kind,
            project=project,
            tags=cand.tags,
            confidence=cand.confidence,
            source=f"{event.agent}:{event.session_id}",
        )
        stored += 1
    return stored
