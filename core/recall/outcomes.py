"""Outcomes: what the calls after a hold show, and how a wrong hold corrects its lesson.

A hold (or a rule's deny) stops a call before it runs; what the agent does
next decides what the hold was worth (:func:`hold_outcome`), from the calls
themselves and not from what the model was shown:

``avoided``
    a different call that has what the lesson's fix adds
    (:func:`twiceshy.hooks.match.carries_fix`) ran and succeeded;
``ignored``
    the held call was sent again (the same call, or one that still repeats the
    mistake: :func:`twiceshy.hooks.match.check`) and ran: it failed, or it
    succeeded but success proves nothing for this lesson (below);
``overridden``
    the held call was sent again and succeeded, for a lesson whose mistake
    showed as a failure: the lesson was wrong for this call;
``false_hold``
    the held call was itself the fix (it carries what the fix adds, or is the
    fix the lesson names); decided from the held call alone, never FOLLOWED;
``unclear``
    nothing related followed (the window closed, or the session ended).

**Success is evidence only for lessons whose mistake showed as a failure**
(:data:`FAILURE_KINDS`: error -> fix, a retry loop, a failing test). A
force-push or ``npm audit fix --force`` succeeds and is still the mistake, so
a lesson from a user's correction, a marker line or ``twiceshy learn`` is not
corrected by a successful re-issue (that is *ignored*); it changes by the
user's word (``twiceshy correct``, ``edit``, ``forget``, a later correction)
or by a confirmed false hold.

**Wrong holds correct the lesson** (:func:`apply_outcome`), in steps, each
logged to ``<data dir>/corrections.jsonl`` with its evidence and undoable
(:func:`undo`):

1. *narrow*: the call that passed becomes an exception the lesson must not
   hold (``structured["except"]``, normalised call texts, checked by the
   recall plugin before anything is held). A false hold adds its call at
   once; an override adds its call once the same call was overridden in
   :data:`OVERRIDE_CONFIRM` sessions (a success once may be luck);
2. at :data:`CONTEXT_AT` corrections (a false hold is one, two overrides are
   one) the lesson stops holding and denying: it is given as context
   (``structured["deliver"] = "context"``);
3. from :data:`DEMOTE_AT` corrections on it is demoted one tier per further
   correction.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error

if TYPE_CHECKING:
    from twiceshy.base.types import CoreEvent, Experience
    from twiceshy.engine.context import EngineContext

HOLD_OUTCOMES = ("avoided", "ignored", "overridden", "false_hold", "unclear")
WARN_OUTCOMES = ("followed", "ignored", "irrelevant", "unclear")
#: The ledger verdict each outcome is filed under (older readers and the verdict counts).
VERDICT_OF = {
    "avoided": "FOLLOWED",
    "followed": "FOLLOWED",
    "ignored": "IGNORED",
    "overridden": "IRRELEVANT",
    "false_hold": "IRRELEVANT",
    "irrelevant": "IRRELEVANT",
    "unclear": "UNCLEAR",
}
OUTCOME_OF_VERDICT = {"FOLLOWED": "followed", "IGNORED": "ignored", "IRRELEVANT": "irrelevant", "UNCLEAR": "unclear"}
#: Deliveries that stopped the call before it ran.
STOPPING_KINDS = frozenset({"hold", "deny"})
#: Lesson kinds whose mistake showed as a failure: a success of the same call is evidence against them.
FAILURE_KINDS = frozenset({"error_fix", "retry_loop", "test_fix"})
OVERRIDE_CONFIRM = 2  # sessions in which the same call was overridden before it becomes an exception
CONTEXT_AT = 2  # corrections after which the lesson no longer holds (context instead)
DEMOTE_AT = 3  # corrections from which each further one demotes the lesson a tier
MAX_EXCEPTIONS = 64  # calls one lesson remembers as exceptions (oldest dropped)
MAX_CALL_CHARS = 500

_log_lock = threading.Lock()


# -- the calls ----------------------------------------------------------------


def norm_call(text: str) -> str:
    """A call as an exception stores it: whitespace collapsed, at most :data:`MAX_CALL_CHARS`."""
    return " ".join((text or "").split())[:MAX_CALL_CHARS]


def _structured(exp: Any) -> dict[str, Any]:
    value = getattr(exp, "structured", None)
    return value if isinstance(value, dict) else {}


def exceptions_of(exp: Any) -> list[str]:
    """The calls ``exp`` must not hold (normalised texts)."""
    value = _structured(exp).get("except")
    return [str(v) for v in value] if isinstance(value, list) else []


def excepted(exp: Any, event: CoreEvent) -> bool:
    """Is this call one of the lesson's exceptions (a call that passed after it was held)?"""
    found = exceptions_of(exp)
    return bool(found) and norm_call(event.action_text(limit=100_000)) in found


def context_only(exp: Any) -> bool:
    """Has the lesson been corrected down to context (it no longer holds or denies)?"""
    return _structured(exp).get("deliver") == "context"


def success_is_evidence(kind: str) -> bool:
    return str(kind or "") in FAILURE_KINDS


def is_fix(signature: dict[str, Any] | None, fix: str, tool_name: str, tool_input: dict[str, Any], action: str) -> bool:
    """Does this call have what the lesson's fix adds (or is it the fix the lesson names)?"""
    from twiceshy.hooks.match import carries_fix

    if fix and norm_call(action).lower() == norm_call(fix).lower():
        return True
    return bool(signature) and carries_fix(signature or {}, tool_name, tool_input or {})


def repeats(
    signature: dict[str, Any] | None, shown_action: str, tool_name: str, tool_input: dict[str, Any], action: str
) -> bool:
    """Is this call the held call again (the same normalised call, or one that still repeats the mistake)?"""
    from twiceshy.hooks.match import check

    if shown_action and norm_call(action).lower() == norm_call(shown_action).lower():
        return True
    return bool(signature) and check(signature or {}, tool_name, tool_input or {})[0]


def hold_outcome(item: dict[str, Any]) -> str | None:
    """The outcome one later call shows for a hold (or a rule's deny), or None when it shows nothing.

    ``item`` is a judge item (``twiceshy.recall.judge.make_items``): the held call
    (``shown_action``, ``false_hold``), the lesson's ``signature``, ``fix`` and
    ``lesson_kind``, and the later call (``tool_name``, ``tool_input``,
    ``action``, ``success``).
    """
    if item.get("false_hold"):
        return "false_hold"
    action = str(item.get("action") or "")
    if not action:
        return None  # the session ended: nothing followed
    sig = item.get("signature") if isinstance(item.get("signature"), dict) else None
    tool_name, tool_input = str(item.get("tool_name") or ""), item.get("tool_input") or {}
    success = item.get("success")
    fix = str(item.get("fix") or "")
    if is_fix(sig, fix, tool_name, tool_input, action) and not (
        norm_call(action).lower() == norm_call(str(item.get("shown_action") or "")).lower()
    ):
        return "avoided" if success is not False else None  # a fix that failed: keep watching
    if repeats(sig, str(item.get("shown_action") or ""), tool_name, tool_input, action):
        if success is True and success_is_evidence(str(item.get("lesson_kind") or "")):
            return "overridden"
        return "ignored"  # the mistake ran (failed, unknown, or success proves nothing here)
    return None


# -- corrections --------------------------------------------------------------


def corrections_path() -> Any:
    from twiceshy.base.paths import data_dir

    return data_dir() / "corrections.jsonl"


def _append(record: dict[str, Any]) -> None:
    path = corrections_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, separators=(",", ":"), default=str) + "\n").encode("utf-8")
    with _log_lock:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def read_corrections(exp_id: str | None = None) -> list[dict[str, Any]]:
    """Every change logged, oldest first, each with ``undone`` (True once undone)."""
    path = corrections_path()
    changes: list[dict[str, Any]] = []
    undone: set[str] = set()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if rec.get("undo"):
            undone.add(str(rec["undo"]))
        elif rec.get("id"):
            changes.append(rec)
    out = [dict(c, undone=c["id"] in undone) for c in changes]
    return [c for c in out if exp_id is None or c.get("exp_id") == exp_id]


def _snapshot(exp: Experience) -> dict[str, Any]:
    s = _structured(exp)
    return {"tier": int(exp.tier), "except": list(exceptions_of(exp)), "deliver": s.get("deliver")}


def _log_change(exp: Experience, change: str, value: Any, before: dict[str, Any], evidence: dict[str, Any]) -> str:
    change_id = uuid.uuid4().hex[:12]
    _append(
        {
            "id": change_id,
            "ts": round(time.time(), 3),
            "exp_id": exp.id,
            "change": change,
            "value": value,
            "before": before,
            "after": _snapshot(exp),
            "evidence": evidence,
        }
    )
    return change_id


def _add_exception(exp: Experience, call: str) -> bool:
    structured = dict(_structured(exp))
    found = exceptions_of(exp)
    call = norm_call(call)
    if not call or call in found:
        return False
    structured["except"] = (found + [call])[-MAX_EXCEPTIONS:]
    exp.structured = structured
    return True


def _state(exp: Experience) -> dict[str, Any]:
    value = _structured(exp).get("corrected")
    state = dict(value) if isinstance(value, dict) else {}
    state.setdefault("false_holds", 0)
    state.setdefault("overrides", 0)
    state.setdefault("calls", {})
    state.setdefault("demoted", 0)
    return state


def corrections_count(state: dict[str, Any]) -> int:
    """Corrections a lesson has had: each false hold, and each :data:`OVERRIDE_CONFIRM` overrides."""
    return int(state.get("false_holds", 0)) + int(state.get("overrides", 0)) // OVERRIDE_CONFIRM


def correct(ctx: EngineContext, exp: Experience, outcome: str, call: str, evidence: dict[str, Any]) -> list[str]:
    """Apply one ``false_hold`` / ``overridden`` to ``exp`` (in memory; the caller writes it).
    Returns the changes made ("except", "context", "demote"), each logged."""
    from twiceshy.learning.evolve import demote

    state = _state(exp)
    before = _snapshot(exp)
    made: list[str] = []
    call = norm_call(call)
    if outcome == "false_hold":
        state["false_holds"] += 1
        add = True
    else:
        state["overrides"] += 1
        calls = dict(state["calls"])
        calls[call] = int(calls.get(call, 0)) + 1
        state["calls"] = dict(list(calls.items())[-MAX_EXCEPTIONS:])
        add = calls[call] >= OVERRIDE_CONFIRM
    if add and _add_exception(exp, call):
        made.append("except")
    n = corrections_count(state)
    structured = dict(_structured(exp))
    if n >= CONTEXT_AT and structured.get("deliver") != "context":
        structured["deliver"] = "context"
        made.append("context")
    due = max(0, n - DEMOTE_AT + 1)
    while int(state["demoted"]) < due:
        state["demoted"] = int(state["demoted"]) + 1
        if demote(exp):
            made.append("demote")
    structured["corrected"] = state
    exp.structured = structured
    for change in made:
        value = call if change == "except" else ("context" if change == "context" else int(exp.tier))
        _log_change(exp, change, value, before, dict(evidence, corrections=n))
    return made


def correct_by_hand(
    ctx: EngineContext, exp_id: str, except_call: str | None = None, deliver: str | None = None
) -> list[str]:
    """The user's word, at once (``twiceshy correct``): add an exception, or set how
    the lesson is delivered (``context``: never holds; ``hold``: holds again). Logged, undoable."""
    exp = ctx.store.get(exp_id)
    if exp is None:
        raise KeyError(exp_id)
    before = _snapshot(exp)
    made = []
    if except_call and _add_exception(exp, except_call):
        made.append(("except", norm_call(except_call)))
    if deliver in ("context", "hold"):
        structured = dict(_structured(exp))
        current = structured.get("deliver") or "hold"
        if current != deliver:
            if deliver == "context":
                structured["deliver"] = "context"
            else:
                structured.pop("deliver", None)
            exp.structured = structured
            made.append(("deliver", deliver))
    if made:
        ctx.store.update(exp)
        for change, value in made:
            _log_change(exp, change, value, before, {"source": "user"})
    return [c for c, _ in made]


def undo(ctx: EngineContext, change_id: str) -> dict[str, Any]:
    """Put a lesson back as it was before one logged change (its tier, exceptions
    and delivery); the undo is logged too. Raises KeyError for an unknown id."""
    for change in read_corrections():
        if change["id"] != change_id:
            continue
        if change.get("undone"):
            return change
        exp = ctx.store.get(str(change["exp_id"]))
        if exp is not None:
            before = change.get("before") or {}
            structured = dict(_structured(exp))
            if change["change"] == "except":
                structured["except"] = [c for c in exceptions_of(exp) if c != change.get("value")]
            elif change["change"] in ("context", "deliver"):
                if before.get("deliver"):
                    structured["deliver"] = before["deliver"]
                else:
                    structured.pop("deliver", None)
            elif change["change"] == "demote" and isinstance(before.get("tier"), int):
                exp.tier = int(before["tier"])
            exp.structured = structured
            ctx.store.update(exp)
        _append({"undo": change_id, "ts": round(time.time(), 3)})
        return dict(change, undone=True)
    raise KeyError(change_id)


def apply_outcome(ctx: EngineContext, item: dict[str, Any], outcome: str) -> list[str]:
    """Apply one decided outcome of a hold or a warning to its lesson; returns the
    corrections it made. Promotion counts only ``avoided`` (and a warning
    ``followed``); a correction needs a false hold, or an override of a lesson
    whose mistake showed as a failure."""
    from twiceshy.learning.evolve import record_outcome

    exp = ctx.store.get(str(item.get("exp_id")))
    if exp is None:
        return []
    stopped = item.get("kind") in STOPPING_KINDS
    record_outcome(ctx, exp, "ignored_hold" if stopped and outcome == "ignored" else outcome, write=False)
    made: list[str] = []
    if outcome == "false_hold" or (outcome == "overridden" and success_is_evidence(exp.kind)):
        evidence = {
            "outcome": outcome,
            "session": item.get("session_id"),
            "held": item.get("shown_action"),
            "call": item.get("action"),
            "success": item.get("success"),
            "source": "calls",
        }
        # The call that passed: the held call itself for a false hold (it was the fix),
        # the re-issue that ran and succeeded for an override.
        held, ran = str(item.get("shown_action") or ""), str(item.get("action") or "")
        call = (held or ran) if outcome == "false_hold" else (ran or held)
        try:
            made = correct(ctx, exp, outcome, call, evidence)
        except Exception as exc:  # the outcome still counts; the correction is logged as failed
            record_error("outcomes.correct", exc, exp_id=exp.id)
    ctx.store.update(exp)
    return made


__all__ = [
    "CONTEXT_AT",
    "DEMOTE_AT",
    "FAILURE_KINDS",
    "HOLD_OUTCOMES",
    "OVERRIDE_CONFIRM",
    "STOPPING_KINDS",
    "VERDICT_OF",
    "WARN_OUTCOMES",
    "apply_outcome",
    "context_only",
    "correct",
    "correct_by_hand",
    "corrections_path",
    "excepted",
    "exceptions_of",
    "hold_outcome",
    "is_fix",
    "norm_call",
    "read_corrections",
    "repeats",
    "undo",
]
