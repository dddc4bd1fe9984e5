"""``twiceshy why``: which lessons would fire on this tool call, how, and why.

Like ``git check-ignore -v`` for an ignore: give it a call — a command line,
or a hook payload as the agent sends it (JSON text, a file, or stdin, with
``--agent``) — and it answers what the pre-tool hook would do with it
(*hold*, *deny*, *context* or *nothing*), which lessons take part, what in the
call matched each (the signature check's own reason), and what would make
the call pass (what the fix adds, an exception, the identical retry).

The verdict is not re-implemented: :func:`explain` runs the hook's own
decision path (:func:`twiceshy.engine.dispatch.parse_event`, then what
:func:`twiceshy.engine.dispatch.handle_event` does for a pre-tool event:
every plugin's ``pre_tool``, the merge and the delivery step) on a copy of
the session's state, inside :func:`twiceshy.recall.delivery.dry_run`: no hold
is recorded, no hit is counted, no warning is marked shown, nothing reaches
the event log, and the engine's session registry (``twiceshy.engine.sweep``,
which ``handle_event`` feeds) never hears of the probe. With an engine
running the command is answered by it (``twiceshy.ops.readvia``), so it costs
the engine's time: one embedding and one search (~10-30 ms). The engine
answers on a fresh context: a ``--session`` is judged from its hold record on
disk (what a retry would pass), not from the engine's in-memory warnings.

The per-lesson detail next to the verdict (:func:`_candidates`) comes from
the same search, ranking and signature check the recall plugin runs, plus the
lessons the check turned down, with its reason.
"""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.recall.hold_index import known_good, look_may_hold

if TYPE_CHECKING:
    from twiceshy.base.types import CoreEvent, Decision
    from twiceshy.engine.context import EngineContext

#: The pre-tool hook event each agent's payload is parsed as, when the payload does not name one.
PRE_TOOL_EVENT = {
    "claude-code": "PreToolUse",
    "codex": "PreToolUse",
    "gemini": "BeforeTool",
    "cursor": "beforeShellExecution",
    "copilot": "preToolUse",
    "opencode": "tool.execute.before",
}
CANDIDATES = 16  # search hits explained (the recall plugin considers as many)


def command_payload(command: str, cwd: str, session_id: str = "") -> tuple[str, str, dict[str, Any]]:
    """(agent, native event, payload) for a bare command line: a Claude Code Bash call."""
    payload = {
        "session_id": session_id or "twiceshy-why",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": cwd,
    }
    return "claude-code", "PreToolUse", payload


def payload_event(payload: dict[str, Any], agent: str, native_event: str | None = None) -> str:
    """The native event a payload is for: given, else its ``hook_event_name``, else the agent's pre-tool event."""
    if native_event:
        return native_event
    named = payload.get("hook_event_name") or payload.get("hookEventName")
    if isinstance(named, str) and named:
        return named
    return PRE_TOOL_EVENT.get(agent, "PreToolUse")


def kind_of(decision: Decision) -> str:
    """hold / deny / context / nothing, as the agent would see it."""
    if decision.action == "deny":
        return "hold" if decision.hold else "deny"
    if decision.action == "warn" and (decision.context or "").strip():
        return "context"
    return "nothing"


def _decide(ctx: EngineContext, event: CoreEvent) -> Decision:
    """The hook's decision for ``event``, with no lasting trace (see the module docstring)."""
    from dataclasses import replace

    from twiceshy.base.types import Decision
    from twiceshy.engine.context import SessionState
    from twiceshy.engine.dispatch import _decisions
    from twiceshy.plugin.manager import call_each
    from twiceshy.recall import delivery

    real = ctx.sessions.get(event.session_id or "-")
    state = copy.deepcopy(real) if real is not None else SessionState()
    if state.held is None:
        delivery._held(state, event.session_id)  # the session's hold record, read (not written)
    shadow = f"twiceshy-why-{uuid.uuid4().hex}"
    ctx.sessions[shadow] = state
    probe = replace(event, session_id=shadow)
    try:
        with delivery.dry_run():
            # handle_event's pre-tool branch, without its sweep.note (a probe is no session).
            merged = Decision.merge(_decisions(call_each(ctx.pm, "pre_tool", event=probe, ctx=ctx)))
            return delivery.deliver(ctx, probe, merged)
    finally:
        ctx.sessions.pop(shadow, None)


def _passes_with(sig: dict[str, Any] | None, fix: str) -> str:
    """What would make a call this lesson matches pass, from its signature."""
    parts = []
    if isinstance(sig, dict):
        subs = sig.get("of") if sig.get("kind") == "any" else [sig]
        absent = [str(a) for s in subs or [] if isinstance(s, dict) for a in s.get("absent") or []]
        if absent:
            parts.append("carry " + " or ".join(dict.fromkeys(absent)))
    if fix:
        parts.append(f"the fix: {fix}")
    return "; ".join(parts)


def _candidates(ctx: EngineContext, event: CoreEvent, fired: dict[str, str]) -> list[dict[str, Any]]:
    """Every lesson the search brought up for this call, with what the check said."""
    from twiceshy.hooks.match import check
    from twiceshy.recall.delivery import fix_of
    from twiceshy.recall.outcomes import context_only, excepted
    from twiceshy.recall.ranking import SIG_MIN_SIMILARITY, event_project, lesson_signature, rank

    if event.read_only and ctx.config.get("hook", "readonly_skip") and not look_may_hold(event):
        return []
    cfg = ctx.config["retrieval"]
    hits = ctx.store.search(event.action_text(), k=max(int(cfg["top_k"]), CANDIDATES), project=event_project(event))
    ranked = {c.exp.id: c for c in rank(ctx, event, hits, min_score=-1e9)}
    worked_before = known_good(event)  # the call is a lesson's stored fix (asked once, not per lesson)
    out = []
    for exp, similarity in hits:
        cand = ranked.get(exp.id)
        sig = lesson_signature(exp)
        if sig is not None:
            matched, reason = check(sig, event.tool_name, event.tool_input or {})
        else:
            matched, reason = None, "no signature: similarity decides (warns at most, never blocks)"
        how = fired.get(exp.id, "nothing")
        if how == "nothing":
            if cand is None:
                reason = "held for review (twiceshy review)" if "review:held" in exp.tags else reason
            elif excepted(exp, event):
                reason = "an exception of this lesson (it passed after a hold: twiceshy correct --list)"
            elif sig is not None and matched and worked_before:
                reason = f"{reason}; but this very call worked here before (a lesson's stored fix): nothing holds it"
            elif sig is not None and matched and similarity < SIG_MIN_SIMILARITY:
                reason = f"similarity {similarity:.2f} below {SIG_MIN_SIMILARITY}"
            elif sig is not None and matched:
                reason = f"{reason}; not delivered on this call (already shown this session, budget, or the model)"
            elif sig is None and cand.score < cfg["min_score"]:
                reason = f"score {cand.score:.2f} below retrieval.min_score {cfg['min_score']}"
        fix = fix_of(exp)
        out.append(
            {
                "id": exp.id,
                "text": exp.text,
                "tier": exp.tier_label,
                "kind": exp.kind,
                "similarity": round(float(similarity), 4),
                "score": round(cand.score, 4) if cand is not None else None,
                "fires": how,
                "matched": matched,
                "why": reason,
                "context_only": context_only(exp),
                "exceptions": len((exp.structured or {}).get("except") or []),
                "passes_with": _passes_with(sig, fix) if matched else "",
            }
        )
    order = {"deny": 0, "hold": 1, "context": 2, "nothing": 3}
    out.sort(key=lambda r: (order.get(r["fires"], 4), -(r["score"] or -1.0)))
    return out


def explain(
    ctx: EngineContext, agent: str, native_event: str, payload: dict[str, Any], detail: bool = True
) -> dict[str, Any]:
    """What the pre-tool hook would answer to this payload, and why (JSON-ready).

    ``verdict``: hold / deny / context / nothing; ``lessons``: the lessons in the
    decision with how each is delivered; ``candidates`` (with ``detail``): every
    lesson the search brought up, with the signature check's reason and what
    would make the call pass."""
    from twiceshy.engine.dispatch import parse_event

    event = parse_event(ctx, agent, native_event, payload)
    if event is None:
        raise ValueError(f"no plugin reads a {native_event!r} payload of agent {agent!r}")
    if event.kind != "pre_tool":
        raise ValueError(f"{native_event!r} is not a pre-tool event of {agent!r} (it is {event.kind})")
    decision = _decide(ctx, event)
    verdict = kind_of(decision)
    fired = {m.experience_id: verdict for m in decision.matches} if verdict != "nothing" else {}
    if verdict == "hold":
        from twiceshy.recall.delivery import _context_only

        # A lesson corrected down to context rides along with another lesson's hold as context.
        fired.update({m.experience_id: "context" for m in decision.matches if _context_only(m)})
    lessons = [
        {"id": m.experience_id, "text": m.text, "tier": m.tier, "score": m.score, "fires": fired.get(m.experience_id)}
        for m in decision.matches
    ]
    retry = False
    if verdict in ("context", "nothing") and ctx.config.get("retrieval", "warn") == "hold":
        from twiceshy.recall.delivery import _held, call_fingerprint

        state = ctx.sessions.get(event.session_id or "-")
        held = state.held if state is not None and state.held is not None else None
        if held is None:
            from twiceshy.engine.context import SessionState

            held = _held(SessionState(), event.session_id)
        retry = call_fingerprint(event) in held
    return {
        "verdict": verdict,
        "action": event.action_text(),
        "tool_name": event.tool_name,
        "agent": agent,
        "read_only": bool(event.read_only) and not look_may_hold(event),
        "retry_of_a_held_call": retry,
        "reason": decision.reason or "",
        "lessons": lessons,
        "candidates": _candidates(ctx, event, fired) if detail else [],
    }


VERDICT_TEXT = {
    "hold": "held once: denied with the lesson and its fix; the identical retry runs",
    "deny": "denied by a confirmed rule, every time",
    "context": "passes, with the lesson as context",
    "nothing": "passes; no lesson fires",
}


def render(result: dict[str, Any]) -> str:
    """Plain text for ``twiceshy why`` (one line per lesson, its reason indented)."""
    lines = [f"{result['verdict']}: {VERDICT_TEXT.get(result['verdict'], '')}"]
    if result.get("read_only"):
        lines.append("  (a read-only call: lessons are not searched for it)")
    if result.get("retry_of_a_held_call"):
        lines.append("  (this exact call was held earlier in the session: its retry runs)")
    for row in result.get("candidates") or []:
        mark = row["fires"] if row["fires"] != "nothing" else "--"
        lines.append(f"{mark:8} {row['id']} [{row['tier']}; sim {row['similarity']:.2f}] {row['text'][:120]}")
        lines.append(f"         {row['why']}")
        if row.get("passes_with"):
            lines.append(f"         passes with: {row['passes_with']}")
        if row.get("context_only"):
            lines.append("         corrected by its outcomes: context only (twiceshy correct --list)")
    known = {row["id"] for row in result.get("candidates") or []}
    for lesson in result.get("lessons") or []:
        if lesson["id"] not in known:
            lines.append(
                f"{lesson['fires'] or '--':8} {lesson['id']} (not among the search's hits: the rules check of a long call, or another plugin) {lesson['text'][:120]}"
            )
    return "\n".join(lines)


def read_payload(text: str | None, path: str | None, cwd: Path) -> dict[str, Any]:
    """The payload given as JSON text or a file (relative to ``cwd``)."""
    if path is not None:
        file = Path(path) if Path(path).is_absolute() else cwd / path
        text = file.read_text(encoding="utf-8")
    data = json.loads(text or "")
    if not isinstance(data, dict):
        raise ValueError("a hook payload is a JSON object")
    return data


def route_argv(argv: list[str], stdin: Any) -> list[str]:
    """``why ... -`` (payload on stdin) as the engine can take it: the text inline
    (``--json``), since a routed command gets no stdin. Standard library only:
    the CLI's fast path calls it before anything is imported."""
    if not argv or argv[0] != "why" or "-" not in argv[1:]:
        return argv
    data = stdin.read()
    i = argv.index("-", 1)
    start = i - 1 if argv[i - 1] in ("--json", "--file") else i  # `--file -` / `--json -`: stdin as well
    return argv[:start] + ["--json", data] + argv[i + 1 :]


__all__ = ["PRE_TOOL_EVENT", "command_payload", "explain", "kind_of", "read_payload", "render", "route_argv"]
