"""Session end after extraction, as two builtin plugins (see ``BUILTIN_PLUGINS``):

* ``ingest`` (:data:`ingest`) — ``store_lessons``: redact, deduplicate
  against the store, supersede contradicted lessons and store the session's
  candidates (:func:`twiceshy.learning.ingest.ingest_candidates`); returns the
  lessons stored or seen again.
* ``context-files`` (:data:`context_files`) — ``session_learned``, ``trylast``
  (after ``evolve`` has moved tiers): rewrite the managed block of every agent
  installed in the session's project, so the next session starts with what
  this one taught. Off with ``context.auto_write: false``, ``context.write:
  never`` or by disabling it. Only the agent that ran (the event's agent) gets
  its file; with ``context.write: existing`` (the default) only a file that is
  already there is touched; ``always`` creates one, but only in a git project;
  never in ``$HOME``. A file
  this step creates is recorded (:func:`twiceshy.ops.install.record_created`)
  so ``twiceshy uninstall`` can remove it.

Extraction is the ``extract`` builtin (``session_end``); the evolve cycle is
the ``evolve`` builtin (``session_learned``).
"""

from __future__ import annotations

from pathlib import Path

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
        mode = str(ctx.config.get("context", "write") or "existing").lower()
        if not ctx.config.get("context", "auto_write") or mode == "never" or not event.cwd or not event.agent:
            return
        root = project_root(event.cwd)
        # A user-scope install runs wherever the agent ran: never the home folder (or one above
        # it) gets a memory file, and a new one only in a real project (a git root).
        home = Path.home().resolve()
        if not root.is_dir() or root == home or root in home.parents:
            return
        path = ctx.pm.hook.agent_context_file(agent=event.agent, project_dir=root)
        if path is None:
            return
        existed = Path(path).exists()
        if not existed and (mode != "always" or not (root / ".git").exists()):
            return  # `existing`: the user's own file, or one they asked for with `context --write`
        for row in write_agent_contexts(ctx, root, agents=[event.agent], only_if_content=True):
            if "error" in row:  # one agent's file failing is not a plugin failure: log it, carry on
                record_error("context.auto_write", row["error"], agent=row["agent"], path=str(row["path"]))
            elif not existed and Path(path).exists():
                from twiceshy.ops.install import record_created

                record_created(Path(path))


ingest = Ingest()
context_files = ContextFiles()
