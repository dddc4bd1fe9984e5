"""post_tool: queue a judgement for every warning shown earlier in the session.

Cheap on the hook path: it reads the session's ``shown_log`` (written by the
recall plugin) and inserts rows into the judge queue; the verdicts are
decided later by the engine's worker, which this plugin hands the engine
through the ``register_workers`` hook (outside an engine,
``twiceshy.recall.judge.process_pending`` drains the queue synchronously).
"""

from __future__ import annotations

import threading

from twiceshy.base.types import CoreEvent, TranscriptEntry
from twiceshy.engine.context import EngineContext, Worker
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.recall.judge import close_holds, enqueue, make_items, run_worker


def judge_worker(ctx: EngineContext, stop: threading.Event) -> None:
    """The engine runs this in its own thread: drain the verdict queue."""
    run_worker(ctx, stop)


@hookimpl
def register_workers(ctx: EngineContext) -> list[Worker]:
    return [judge_worker]


@hookimpl
def post_tool(event: CoreEvent, ctx: EngineContext) -> None:
    if not ctx.config.get("judge", "enabled"):
        return None
    session = ctx.session(event.session_id)
    if not session.shown_log:
        return None
    items = make_items(event, session, window=max(1, int(ctx.config.get("judge", "window"))))
    enqueue(items)
    return None


@hookimpl
def session_end(event: CoreEvent, ctx: EngineContext, transcript: list[TranscriptEntry]) -> None:
    """At the real end of a session (not a turn's Stop: the user may still say "run it
    anyway"), a hold whose call was never sent again counts as a mistake avoided.
    Extracts nothing (returns ``None``)."""
    if event.kind != "session_end" or not ctx.config.get("judge", "enabled"):
        return None
    enqueue(close_holds(event, ctx.session(event.session_id)))
    return None
