"""Delivery: how a pre-tool warning reaches the model *before* the call runs.

Measured on claude-code 2.1.197, codex 0.171.0 and gemini-cli 0.61.0:
context a pre-tool hook returns (``additionalContext``; Gemini drops it and
twiceshy carries it to AfterTool) reaches the model only together with the
result of the call it warned about, i.e. after the mistake ran. Only a deny
stops a call before it runs, and its reason reaches the model at once.

So ``retrieval.warn`` chooses what a (non-rule) warning becomes:

``hold`` (default)
    The first call that matches a lesson is denied **once**, in the agent's
    native deny form, with the lesson and its fix as the reason. The model's
    identical retry (same normalised call, same session) passes, so the
    agent and its user stay in charge. The decision says ``hold=True`` so
    benches, the judge and ``twiceshy stats`` can tell it from a rule's deny
    (which blocks every time and is left untouched here).
``context``
    Today's ``additionalContext`` warning. On the agents in
    :data:`LATE_CONTEXT_AGENTS` it is recorded as *late* (it arrives with the
    result): the judge never calls a late warning FOLLOWED.
``off``
    The model is told nothing; the match is still recorded (kind ``silent``,
    never judged, never counted as shown by ``stats``).

:func:`deliver` runs once per pre-tool call, after every plugin's decision
has been merged (``twiceshy.engine.dispatch``). It rewrites the recall
plugin's ``shown_log`` entries of this call with how they were delivered
(``hold`` / ``late`` / ``warn`` / ``silent``), which is what the judge reads.

Held calls are remembered per session in memory and in
``<data dir>/holds/<session>.json``, so an engine restart between the hold
and the retry cannot hold the same call twice (a hold that never lets go
would trap the agent). Never raises: on any error of ours the decision goes
out as it came in.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import CoreEvent, Decision, LessonMatch, Tier

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

MODES = ("hold", "context", "off")
DEFAULT_MODE = "hold"

# Agents whose pre-tool context reaches the model with the tool's result, not
# before the call (measured: claude-code 2.1.197, codex 0.171.0, gemini-cli
# 0.61.0). Cursor is unmeasured (no headless Cursor): assumed the same until
# shown otherwise, since counting a warning as "seen in time" is the error
# that inflated "mistakes avoided" before.
# OpenCode 1.18.33 and Copilot CLI 1.0.102: measured the same (docs/agents-new.md).
# Qwen Code 0.24.4 and Droid 0.225.2: Claude Code's contract, held by default (docs/agents.md).
LATE_CONTEXT_AGENTS = frozenset(
    {"claude-code", "codex", "gemini", "cursor", "opencode", "copilot", "qwen-code", "droid"}
)

# The first line of the recall plugin's warning block (twiceshy.builtins.recall.HEADER):
# how its block is told apart from other plugins' context in a merged decision.
RECALL_BLOCK_PREFIX = "twiceshy — lessons from earlier sessions"

HOLD_HEAD = (
    "Held once by twiceshy: this call has NOT run. It repeats a mistake from an earlier session "
    "(lessons are advice learned from past experience, not instructions):"
)
HOLD_TAIL = (
    "Do what the lesson says instead. If you have checked and the call is right as written, "
    "send the identical call again: it will run this time."
)
HOLD_TTL_S = 3 * 86400  # hold records of older sessions are pruned
PRUNE_EVERY_S = 3600.0  # at most one sweep of the holds folder per hour (per process)
MAX_CALLS = 512  # pre-tool calls whose order a session remembers (for the judge)

_lock = threading.Lock()
_last = threading.local()  # the lessons of the decision this thread delivered last (the engine's event log)
_dry: contextvars.ContextVar[bool] = contextvars.ContextVar("twiceshy_delivery_dry", default=False)


@contextmanager
def dry_run() -> Iterator[None]:
    """Decide as the hook does, with no lasting trace: no hold record is written
    and the recall plugin counts no hits (``twiceshy why``)."""
    token = _dry.set(True)
    try:
        yield
    finally:
        _dry.reset(token)


def is_dry() -> bool:
    """Inside :func:`dry_run`?"""
    return _dry.get()


def last_lessons() -> list[str]:
    """Ids of the lessons behind the last warn / hold / deny this thread delivered
    (read by the engine right after the hook call, for its event log)."""
    return list(getattr(_last, "ids", None) or [])


# -- the call's identity ------------------------------------------------------


def call_fingerprint(event: CoreEvent) -> str:
    """The normalised call: tool plus what it does, whitespace collapsed.

    Only what the call *does* counts (a shell command, or a file path and the
    edit): Claude Code's ``description`` of a Bash call may change between
    the held call and its retry without changing the call.
    """
    text = " ".join(event.action_text(limit=100_000).split())
    return hashlib.sha1(f"{event.tool_name}\0{text}".encode("utf-8", "replace")).hexdigest()[:20]


# -- the order of calls, per session ------------------------------------------
#
# post_tool events are spooled and applied in the background, so the result of
# a call that ran *before* a warning can be applied after it. The judge must not
# take such a call for the agent's reaction: every pre-tool call gets a sequence
# number here, each shown_log entry the number of its call, and the judge
# compares the two (``twiceshy.recall.judge.make_items``).


def _order(session: Any) -> dict[str, Any]:
    plugins = session.setdefault("plugins", {})
    return plugins.setdefault("delivery", {"seq": 0, "calls": {}})


def note_call(ctx: EngineContext, event: CoreEvent) -> int:
    """Number this pre-tool call in its session (the latest number wins for a repeated call key)."""
    from twiceshy.recall.judge import call_key

    order = _order(ctx.session(event.session_id))
    key = call_key(event)
    with _lock:
        order["seq"] += 1
        calls = order["calls"]
        calls.pop(key, None)
        calls[key] = order["seq"]
        while len(calls) > MAX_CALLS:
            calls.pop(next(iter(calls)))
        return int(order["seq"])


# -- held calls, per session --------------------------------------------------


def _holds_dir() -> Path:
    from twiceshy.base.paths import data_dir

    return data_dir() / "holds"


def _holds_file(session_id: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id or "-")[:120]
    return _holds_dir() / f"{safe}.json"


def _held(session: dict[str, Any], session_id: str) -> dict[str, float]:
    """The session's held calls (fingerprint -> time), loaded from disk once per session state."""
    held = session.get("held")
    if held is None:
        held = {}
        try:
            data = json.loads(_holds_file(session_id).read_text(encoding="utf-8"))
            if isinstance(data, dict):
                held = {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))}
        except (OSError, ValueError):
            pass
        session["held"] = held
    return held


_pruned_at = 0.0  # monotonic time of the last sweep of old hold records


def release_holds(session: dict[str, Any], session_id: str, fingerprints: list[str]) -> None:
    """Forget holds that never reached the model (its client gave up waiting and the
    call ran): the same call is held again next time, instead of passing as a retry."""
    with _lock:
        held = _held(session, session_id)
        removed = [f for f in fingerprints if held.pop(f, None) is not None]
        snapshot = dict(held)
    if removed:
        _save_held(session_id, snapshot)


def _save_held(session_id: str, held: dict[str, float]) -> None:
    """Write the session's hold record (temp file + rename: a reader sees the
    old record or the new one).

    Not fsynced: the record only has to outlive the engine *process* (a
    restart between the hold and the model's retry), and a written page
    survives that; an fsync cost 18 ms per hold on a machine whose disk was
    busy, on the hot path. Old records are swept at most once per
    :data:`PRUNE_EVERY_S` (the sweep stats every record)."""
    from twiceshy.base.fileio import write_atomic

    global _pruned_at
    if is_dry():
        return
    folder = _holds_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(_holds_file(session_id), json.dumps(held), private=True, durable=False)
    except OSError as exc:
        record_error("delivery.save_hold", exc)
        return
    now = time.monotonic()
    if _pruned_at and now - _pruned_at < PRUNE_EVERY_S:
        return
    _pruned_at = now
    cutoff = time.time() - HOLD_TTL_S
    try:
        for entry in os.scandir(folder):
            if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
    except OSError:
        pass


def was_held(ctx: EngineContext, event: CoreEvent) -> bool:
    """Whether this very call (normalised) was held earlier in its session."""
    session = ctx.session(event.session_id)
    with _lock:
        return call_fingerprint(event) in _held(session, event.session_id)


# -- the reason -------------------------------------------------------------


# An error -> fix lesson as the offline extractor words it: "`X` failed (...); `Y` worked instead."
_WORKED = re.compile(r"`([^`]+)`\s+worked instead")


def fix_of(exp: Any) -> str:
    """The corrected call or edit a lesson names: its structured fix when it has
    one, else the "`Y` worked instead" of an error -> fix lesson's text."""
    structured = getattr(exp, "structured", None)
    if isinstance(structured, dict):
        for holder in (structured, structured.get("signature")):
            if not isinstance(holder, dict):
                continue
            fix = holder.get("fix")
            if isinstance(fix, dict):
                fix = fix.get("call") or fix.get("command") or fix.get("text") or fix.get("edit") or ""
            if isinstance(fix, str) and fix.strip():
                return fix.strip()
    found = _WORKED.search(getattr(exp, "text", "") or "")
    return found.group(1).strip() if found else ""


def fixes_of(ctx: EngineContext, matches: list[LessonMatch]) -> dict[str, str]:
    """Lesson id -> its fix ("" when it names none). The lessons the recall
    plugin just matched are still in hand (``ranking.matched_lesson``); only
    another plugin's lesson costs a store read (a Chroma get: 3-17 ms)."""
    from twiceshy.recall.ranking import matched_lesson

    out: dict[str, str] = {}
    missing = []
    for m in matches:
        exp = matched_lesson(m.experience_id, m.text)
        if exp is None:
            missing.append(m.experience_id)
        else:
            out[m.experience_id] = fix_of(exp)
    if not missing:
        return out
    try:
        out.update({exp.id: fix_of(exp) for exp in ctx.store.get_many(missing)})
    except Exception as exc:  # the lesson text alone still tells the model
        record_error("delivery.fix", exc)
    return out


def hold_reason(matches: list[LessonMatch], fixes: dict[str, str]) -> str:
    """The lesson(s) and their fix, as the reason of the hold."""
    lines = [HOLD_HEAD]
    for m in matches:
        try:
            label = Tier(m.tier).label
        except ValueError:
            label = str(m.tier)
        lines.append(f"- {m.text} [{label}; {m.evidence}]" if m.evidence else f"- {m.text}")
        fix = fixes.get(m.experience_id, "")
        if fix and " ".join(fix.split()) not in " ".join(m.text.split()):
            lines.append(f"  Fix: {fix}")
    lines.append(HOLD_TAIL)
    return "\n".join(lines)


def _without_recall_block(context: str) -> str:
    """Other plugins' context from a merged decision, the recall plugin's block removed."""
    # Plugins' contexts are joined with blank lines (Decision.merge); the recall
    # block is one paragraph: its header line, then one line per lesson.
    blocks = [b for b in context.split("\n\n") if b.strip()]
    return "\n\n".join(b for b in blocks if not b.startswith(RECALL_BLOCK_PREFIX))


# -- shown_log --------------------------------------------------------------


def _stop_facts(event: CoreEvent, matches: list[LessonMatch], fixes: dict[str, str]) -> dict[str, dict[str, Any]]:
    """For a call that is held or denied, per lesson: its signature, kind and fix, and
    whether the stopped call was itself the fix (a *false hold*, ``twiceshy.recall.outcomes``).
    Lessons still in hand only (``ranking.matched_lesson``): microseconds, no store read."""
    from twiceshy.recall.outcomes import is_fix
    from twiceshy.recall.ranking import lesson_signature, matched_lesson

    out: dict[str, dict[str, Any]] = {}
    action = event.action_text(limit=100_000)
    for m in matches:
        exp = matched_lesson(m.experience_id, m.text)
        sig = lesson_signature(exp) if exp is not None else None
        fix = fixes.get(m.experience_id) or (fix_of(exp) if exp is not None else "")
        out[m.experience_id] = {
            "signature": sig,
            "lesson_kind": getattr(exp, "kind", "") if exp is not None else "",
            "fix": fix,
            "false_hold": is_fix(sig, fix, event.tool_name, event.tool_input or {}, action),
        }
    return out


def _mark(
    session: Any,
    event: CoreEvent,
    ids: set[str],
    delivery: str,
    seq: int,
    fixes: dict[str, str] | None = None,
    facts: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Record how this call's warnings were delivered on the recall plugin's
    ``shown_log`` entries (the judge reads ``kind``, and for a stopped call
    the lesson's ``signature``, ``fix``, ``lesson_kind`` and ``false_hold``)."""
    from twiceshy.recall.judge import call_key

    key = call_key(event)
    fingerprint = call_fingerprint(event)
    for entry in session.get("shown_log") or []:
        if entry.get("exp_id") in ids and entry.get("call_id") == key and "delivery" not in entry:
            entry["delivery"] = delivery
            entry["kind"] = delivery
            entry["fingerprint"] = fingerprint
            entry["seq"] = seq
            if fixes and fixes.get(entry["exp_id"]):
                entry["fix"] = fixes[entry["exp_id"]]
            if facts and entry["exp_id"] in facts:
                entry.update({k: v for k, v in facts[entry["exp_id"]].items() if v or k == "false_hold"})
            if delivery == "silent":
                entry["closed"] = True  # the model never saw it: nothing to judge


# -- the entry point ----------------------------------------------------------


def warn_mode(ctx: EngineContext) -> str:
    try:
        mode = str(ctx.config.get("retrieval", "warn") or DEFAULT_MODE).strip().lower()
    except Exception:
        return DEFAULT_MODE
    if mode not in MODES:
        record_error("delivery.mode", f"retrieval.warn: unknown mode {mode!r}; using {DEFAULT_MODE}")
        return DEFAULT_MODE
    return mode


def deliver(ctx: EngineContext, event: CoreEvent, decision: Decision) -> Decision:
    """The merged pre-tool decision as it should reach the agent (see the module docstring)."""
    if event.kind != "pre_tool":
        return decision
    _last.ids = []
    try:
        seq = note_call(ctx, event)
        if decision.action != "warn" or not decision.matches:
            ids = {m.experience_id for m in decision.matches}
            facts = _stop_facts(event, decision.matches, {}) if decision.action == "deny" and ids else None
            _mark(ctx.session(event.session_id), event, ids, "deny", seq, facts=facts)
            out = decision  # allow, a rule's deny (blocks every time), or a plugin's own lesson-less note
        else:
            out = _deliver(ctx, event, decision, seq)
        if out.action in ("warn", "deny"):
            _last.ids = [m.experience_id for m in out.matches]
        return out
    except Exception as exc:
        record_error("delivery", exc)
        if os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1":
            raise
        return decision


def _context_only(match: LessonMatch) -> bool:
    from twiceshy.recall.outcomes import context_only
    from twiceshy.recall.ranking import matched_lesson

    exp = matched_lesson(match.experience_id, match.text)
    return exp is not None and context_only(exp)


def _deliver(ctx: EngineContext, event: CoreEvent, decision: Decision, seq: int) -> Decision:
    mode = warn_mode(ctx)
    session = ctx.session(event.session_id)
    ids = {m.experience_id for m in decision.matches}
    late = "late" if event.agent in LATE_CONTEXT_AGENTS else "warn"
    if mode == "off":
        _mark(session, event, ids, "silent", seq)
        rest = _without_recall_block(decision.context)
        return Decision(action="warn" if rest else "allow", context=rest)
    if mode == "context":
        _mark(session, event, ids, late, seq)
        return decision
    if not any(m.signed for m in decision.matches):
        # Only similarity says these lessons apply: too weak to block a call that
        # may be the fix. They go along as context.
        _mark(session, event, ids, late, seq)
        return decision
    # A lesson its own outcomes corrected down to context (twiceshy.recall.outcomes) no longer holds.
    quiet = {m.experience_id for m in decision.matches if _context_only(m)}
    if quiet == ids:
        _mark(session, event, ids, late, seq)
        return decision
    fingerprint = call_fingerprint(event)
    with _lock:
        held = _held(session, event.session_id)
        retry = fingerprint in held
        if not retry:
            held[fingerprint] = round(time.time(), 3)
            snapshot = dict(held)
    if retry:
        # The model saw the hold and sent the same call again: it is in charge. Any
        # lesson that is new on this call goes along as (late) context.
        _mark(session, event, ids, late, seq)
        return decision
    _save_held(event.session_id, snapshot)
    fixes = fixes_of(ctx, decision.matches)
    if quiet:
        _mark(session, event, quiet, late, seq)
    _mark(session, event, ids - quiet, "hold", seq, fixes, _stop_facts(event, decision.matches, fixes))
    return Decision(
        action="deny",
        hold=True,
        reason=hold_reason(decision.matches, fixes),
        context=_without_recall_block(decision.context),
        matches=decision.matches,
    )


__all__ = [
    "DEFAULT_MODE",
    "LATE_CONTEXT_AGENTS",
    "MODES",
    "call_fingerprint",
    "deliver",
    "dry_run",
    "fix_of",
    "fixes_of",
    "hold_reason",
    "is_dry",
    "last_lessons",
    "release_holds",
    "note_call",
    "warn_mode",
    "was_held",
]
