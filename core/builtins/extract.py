"""session_end: extract lesson candidates from the transcript; record the trajectory.

The extractors themselves are pure functions in :mod:`twiceshy.learning.extractors`;
the core redacts, deduplicates and stores what this returns
(:func:`twiceshy.learning.ingest.ingest_candidates`).
"""

from __future__ import annotations

from twiceshy.base.errorlog import record_error
from twiceshy.base.faults import fault_point
from twiceshy.base.types import CoreEvent, LessonCandidate, TranscriptEntry
from twiceshy.engine.context import EngineContext
from twiceshy.learning.extractors import EXTRACTORS
from twiceshy.learning.trajectory import record_trajectory
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import _raise_in_tests


@hookimpl
def session_end(
    event: CoreEvent, ctx: EngineContext, transcript: list[TranscriptEntry]
) -> list[LessonCandidate] | None:
    entries = [e for e in (transcript or []) if isinstance(e, TranscriptEntry)]
    if not entries:
        return None
    try:
        record_trajectory(event, entries)
        fault_point("session_end.trajectory")
    except Exception as exc:  # the trajectory is a by-product: never lose the lessons over it
        record_error("extract.trajectory", exc, session_id=event.session_id)
        if _raise_in_tests():
            raise
    pooled: list[LessonCandidate] = []
    seen: set[tuple[str, str]] = set()
    for name, extractor in EXTRACTORS.items():
        try:
            found = extractor(entries)
        except Exception as exc:  # one broken signal costs only its own lessons
            record_error(f"extract.{name}", exc, session_id=event.session_id)
            if _raise_in_tests():
                raise
            continue
        for cand in found:
            key = (cand.kind, " ".join(cand.trigger.lower().split()))
            if key not in seen:
                seen.add(key)
                pooled.append(cand)
    fault_point("session_end.extracted")
    return pooled
