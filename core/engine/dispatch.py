"""One hook call, start to finish: native payload in, native output out.

Used by the resident engine for every request and by ``twiceshy hook`` (the
in-process path). Never raises: any failure of ours is logged and the agent
gets the empty output, which every agent reads as "carry on" (fail open).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.engine.context import EngineContext
from twiceshy.plugin.manager import call_each
from twiceshy.recall.delivery import deliver
from twiceshy.recall.readonly import is_read_only_event

FAIL_OPEN = NativeOutput()


def scrub_surrogates(value: Any) -> Any:
    """``value`` with lone UTF-16 surrogates (``"\\ud800"`` is valid JSON but not
    encodable text) replaced by U+FFFD, so no plugin crashes on ``.encode()``."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {scrub_surrogates(k): scrub_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_surrogates(v) for v in value]
    return value


def parse_event(ctx: EngineContext, agent: str, native_event: str, payload: Any) -> CoreEvent | None:
    payload = scrub_surrogates(payload)
    if not isinstance(payload, dict):
        raise ValueError(f"payload must be a JSON object, got {type(payload).__name__}")
    return ctx.pm.hook.agent_parse_payload(agent=agent, native_event=native_event, payload=payload)


def handle_event(ctx: EngineContext, event: CoreEvent) -> Decision:
    """Run the lifecycle hooks for one parsed event; return what to tell the agent."""
    if event.kind == "pre_tool":
        if ctx.config.get("hook", "readonly_skip") and is_read_only_event(event):
            return Decision.allow()  # cannot mutate: no search at all (twiceshy.recall.readonly)
        merged = Decision.merge(call_each(ctx.pm, "pre_tool", event=event, ctx=ctx))
        # Issue 16 delivery: a warning becomes a one-time hold (deny once, the identical
        # retry passes), stays context, or is silenced, per retrieval.warn. Rule denies pass through.
        return deliver(ctx, event, merged)
    if event.kind == "post_tool":
        call_each(ctx.pm, "post_tool", event=event, ctx=ctx)
        return Decision.allow()
    if event.kind in ("session_start", "prompt"):
        texts = [t for t in call_each(ctx.pm, "session_start", event=event, ctx=ctx) if t]
        return Decision(action="allow", context="\n\n".join(texts))
    if event.kind in ("session_end", "stop"):
        run_session_end(ctx, event)
        return Decision.allow()
    return Decision.allow()


def run_session_end(ctx: EngineContext, event: CoreEvent) -> int:
    """Read the transcript, pool every extractor's lessons, store them. Returns lessons stored."""
    from twiceshy.learning.ingest import ingest_candidates

    transcript: list[Any] = []
    if event.transcript_path:
        path = Path(event.transcript_path).expanduser()
        if path.is_file():
            transcript = ctx.pm.hook.agent_read_transcript(agent=event.agent, path=path) or []
    pooled = []
    for result in call_each(ctx.pm, "session_end", event=event, ctx=ctx, transcript=transcript):
        pooled.extend(result)
    stored = ingest_candidates(ctx, pooled, event)
    from twiceshy.learning.evolve import after_session  # promote/demote/decay/generalise; fails open

    after_session(ctx, event)
    if ctx.config.get("context", "auto_write") and event.cwd:
        _refresh_context_files(ctx, event)
    return stored


def _refresh_context_files(ctx: EngineContext, event: CoreEvent) -> None:
    """Rewrite the managed block of every agent installed in this project, so
    the next session starts with what this one taught. Fails open."""
    from twiceshy.base.project import project_root
    from twiceshy.guidance.render import write_agent_contexts

    try:
        root = project_root(event.cwd)
        if root.is_dir():
            for row in write_agent_contexts(ctx, root, only_if_content=True):
                if "error" in row:
                    record_error("context.auto_write", row["error"], agent=row["agent"], path=str(row["path"]))
    except Exception as exc:
        record_error("context.auto_write", exc)


def handle_hook(
    ctx: EngineContext, agent: str, native_event: str, payload: Any, info: dict[str, Any] | None = None
) -> NativeOutput:
    """``info``, when given, receives ``kind`` and ``action`` (for the engine's event log)."""
    try:
        event = parse_event(ctx, agent, native_event, payload)
        if event is None:
            record_error("dispatch.parse", f"no plugin handles agent {agent!r}", native_event=native_event)
            return FAIL_OPEN
        decision = handle_event(ctx, event)
        if info is not None:
            info.update(kind=event.kind, action="hold" if decision.hold else decision.action)  # stats tell holds apart
        output = ctx.pm.hook.agent_format_decision(agent=agent, event=event, decision=decision)
        return output if isinstance(output, NativeOutput) else FAIL_OPEN
    except Exception as exc:
        record_error("dispatch", exc, agent=agent, native_event=native_event)
        return FAIL_OPEN
