"""Session end after extraction, as two builtin plugins (see ``BUILTIN_PLUGINS``):

* ``ingest`` (:data:`ingest`) — ``store_lessons``: redact, deduplicate
  against the store, supersede contradicted lessons and store the session's
  candidates (:func:`twiceshy.learning.ingest.ingest_candidates`); returns the
  lessons stored or seen again.
* ``context-files`` (:data:`context_files`) — ``session_learned``, ``trylast``
  (after ``evolve`` has moved tiers): rewrite the managed block of every agent
  installed in the session's project, so the next session starts with what
  this one taught. Off with ``context.auto_write: false`` or by disabling it.

Extraction is the ``extract`` builtin (``session_end``); the evolve cycle is
the ``evolve`` builtin (``session_learned``).
"""

from __future__ import annotations

from twiceshy.base.errorlog import record_error
from twiceshy.base.project import project_root
from twiceshy.base.types import CoreEvent, Experience, LessonCandidate
from twiceshy.engine.context import EngineContext
from twiceshy.guidance.render import write_agent_contexts
from twiceshy.learning.ingest import ingest_candidates
from twiceshy.plugin.hookspecs import hookimpl


class Ingest:
    """The builtin ``ingest`` plugin."""

    @hookimpl
    def store_lessons(
        self, candidates: list[LessonCandidate], event: CoreEvent, ctx: EngineContext
    ) -> list[Experience] | None:
        learned: list[Experience] = []
        ingest_candidates(ctx, [c for c in candidates if isinstance(c, LessonCandidate)], event, learned=learned)
        return learned


class ContextFiles:
    """The builtin ``context-files`` plugin."""

    @hookimpl(trylast=True)
    def session_learned(self, lessons: list[Experience], event: CoreEvent, ctx: EngineContext) -> None:
        if not ctx.config.get("context", "auto_write") or not event.cwd:
            return
        root = project_root(event.cwd)
        if not root.is_dir():
            return
        for row in write_agent_contexts(ctx, root, only_if_content=True):
            if "error" in row:  # one agent's file failing is not a plugin failure: log it, carry on
                record_error("context.auto_write", row["error"], agent=row["agent"], path=str(row["path"]))


ingest = Ingest()
context_files = ContextFiles()
