"""One hook call, start to finish: native payload in, native output out.

Used by the resident engine for every request and by ``twiceshy hook`` (the
in-process path). Never raises: any failure of ours is logged and the agent
gets the empty output, which every agent reads as "carry on" (fail open).

The pipeline: the payload is parsed once, by the agent plugin, into a typed
:class:`CoreEvent` (:func:`parse_event`, which also marks ``read_only``);
:func:`handle_event` runs the lifecycle hooks through pluggy; the agent
plugin formats the decision. Every pre-tool call reaches every plugin's
``pre_tool`` — read-only ones too, with ``event.read_only`` set. Session end
is three hooks: ``session_end`` (extract), ``store_lessons`` (dedup, store),
``session_learned`` (evolve, context files, third-party).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.faults import fault_point
from twiceshy.base.types import CoreEvent, Decision, NativeOutput
from twiceshy.engine import sweep
from twiceshy.engine.context import EngineContext
from twiceshy.plugin.guard import raise_in_tests
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
    """The typed event for one native payload (``None``: no agent plugin claims ``agent``).

    Raises ``ValueError`` for a payload the agent plugin cannot read."""
    payload = scrub_surrogates(payload)
    if not isinstance(payload, dict):
        raise ValueError(f"payload must be a JSON object, got {type(payload).__name__}")
    event = ctx.pm.hook.agent_parse_payload(agent=agent, native_event=native_event, payload=payload)
    if isinstance(event, CoreEvent) and event.kind == "pre_tool":
        event.read_only = is_read_only_event(event)  # a fact about the call; each plugin decides what it means
    return event


def _decisions(answers: list[Any]) -> list[Decision]:
    """pre_tool answers that are decisions (a wrapper may have returned anything)."""
    good = [d for d in answers if isinstance(d, Decision)]
    if len(good) != len(answers):
        record_error("dispatch.pre_tool", f"ignored {len(answers) - len(good)} answer(s) that are not a Decision")
    return good


def handle_event(ctx: EngineContext, event: CoreEvent) -> Decision:
    """Run the lifecycle hooks for one parsed event; return what to tell the agent."""
    sweep.note(ctx, event)  # no session is lost: the engine remembers who has something to learn
    if event.kind == "pre_tool":
        merged = Decision.merge(_decisions(call_each(ctx.pm, "pre_tool", event=event, ctx=ctx)))
        # Issue 16 delivery: a warning becomes a one-time hold (deny once, the identical
        # retry passes), stays context, or is silenced, per retrieval.warn. Rule denies pass through.
        return deliver(ctx, event, merged)
    if event.kind == "post_tool":
        call_each(ctx.pm, "post_tool", event=event, ctx=ctx)
        return Decision.allow()
    if event.kind in ("session_start", "prompt"):
        if event.kind == "session_start":
            sweep.at_session_start(ctx, event)  # the project's sessions that never ended, first
        texts = [t for t in call_each(ctx.pm, "session_start", event=event, ctx=ctx) if isinstance(t, str) and t]
        return Decision(action="allow", context="\n\n".join(texts))
    if event.kind in ("session_end", "stop"):
        run_session_end(ctx, event)
        return Decision.allow()
    return Decision.allow()


def read_transcript(ctx: EngineContext, event: CoreEvent) -> list[Any]:
    """The session's transcript as the agent plugin reads it (``[]`` when there is none)."""
    if not event.transcript_path:
        return []
    path = Path(event.transcript_path).expanduser()
    if not path.is_file():
        return []
    try:
        return ctx.pm.hook.agent_read_transcript(agent=event.agent, path=path) or []
    except Exception as exc:  # an unreadable transcript: still evolve and refresh below
        record_error("dispatch.transcript", exc, agent=event.agent)
        if raise_in_tests():
            raise
        return []


def run_session_end(ctx: EngineContext, event: CoreEvent) -> int:
    """Extract (``session_end``), store (``store_lessons``), then ``session_learned``.
    Returns how many lessons the session taught (new or seen again). One pass per session
    at a time, its own end or a sweep of it (:func:`twiceshy.engine.sweep.learning`)."""
    with sweep.learning(ctx, event):
        return _session_end_pass(ctx, event)


def _session_end_pass(ctx: EngineContext, event: CoreEvent) -> int:
    transcript = read_transcript(ctx, event)
    pooled = []
    for result in call_each(ctx.pm, "session_end", event=event, ctx=ctx, transcript=transcript):
        pooled.extend(result if isinstance(result, list) else [result])
    lessons = ctx.pm.hook.store_lessons(candidates=pooled, event=event, ctx=ctx) if pooled else None
    learned = list(lessons) if isinstance(lessons, list) else []
    fault_point("session_end.stored")
    ctx.pm.hook.session_learned(lessons=learned, event=event, ctx=ctx)
    fault_point("session_end.learned")
    return len(learned)


def handle_hook(
    ctx: EngineContext,
    agent: str,
    native_event: str,
    payload: Any,
    info: dict[str, Any] | None = None,
    event: CoreEvent | None = None,
) -> NativeOutput:
    """``info``, when given, receives ``kind`` and ``action`` (for the engine's event log).
    ``event``, when the caller parsed the payload already, is used as is (parsed once)."""
    try:
        if event is None:
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
