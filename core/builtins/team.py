"""register_workers: in team mode (``store.mode: server``), the engine delivers the
outbox of writes the Chroma server missed and reconnects in the background
(:func:`twiceshy.memory.team.drain_worker`). Nothing to do for an embedded store."""

from __future__ import annotations

from twiceshy.engine.context import EngineContext, Worker
from twiceshy.plugin.hookspecs import hookimpl


@hookimpl
def register_workers(ctx: EngineContext) -> list[Worker] | None:
    if ctx.config.get("store", "mode") != "server":
        return None
    # Imported here: the team store pulls in the store and numpy (~350 ms), which the
    # CLI and an embedded-store engine must not pay for at plugin load.
    from twiceshy.memory.team import drain_worker

    return [drain_worker]
