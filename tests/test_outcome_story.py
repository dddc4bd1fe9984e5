"""Issue 28's scripted sessions: what followed a hold decides its outcome, and wrong holds correct
the lesson — through every plugin (``handle_event``), the judge's queue and a real store on disk.

* held, then the fix ran and worked -> *avoided* (and that alone counts towards promotion);
* held, the identical call sent again and it worked, in two sessions -> *overridden* twice; in a
  third session that call is no longer held, while the lesson still holds its mistake and another
  lesson still holds its own;
* held, sent again and it failed -> *ignored*; the lesson keeps holding;
* held the lesson's own fix -> *false hold*, never FOLLOWED; the fix passes from then on;
* the identical re-issue story never promotes a lesson.
"""

from __future__ import annotations

from typing import Any

import pytest
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.engine.dispatch import handle_event
from twiceshy.lesson import signature as sg
from twiceshy.ops.stats import compute_stats
from twiceshy.recall import judge, outcomes, ranking

MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
OTHER_MISTAKE = "make release"
OTHER_FIX = "make release VERSION=1.4.2"


def _event(kind: str, command: str, session: str, call: str, **kw: Any) -> CoreEvent:
    return CoreEvent(
        kind=kind, agent="claude-code", native_event="PreToolUse" if kind == "pre_tool" else "PostToolUse",
        session_id=session, cwd="/tmp/proj", tool_name="Bash", tool_input={"command": command},
        raw={"tool_use_id": call}, **kw,
    )  # fmt: skip


class Session:
    """One agent session: each call goes through pre_tool and, unless it was stopped, post_tool."""

    def __init__(self, ctx: Any, sid: str) -> None:
        self.ctx, self.sid, self.n = ctx, sid, 0

    def call(self, command: str, success: bool = True) -> str:
        self.n += 1
        uid = f"{self.sid}-{self.n}"
        decision = handle_event(self.ctx, _event("pre_tool", command, self.sid, uid))
        if decision.action == "deny":
            return "hold" if decision.hold else "deny"
        out = "done" if success else "error: missing --region"
        handle_event(self.ctx, _event("post_tool", command, self.sid, uid, tool_output=out, success=success))
        return decision.action

    def end(self) -> None:
        handle_event(self.ctx, CoreEvent(kind="session_end", agent="claude-code", native_event="SessionEnd",
                                         session_id=self.sid, cwd="/tmp/proj", raw={}))  # fmt: skip
        judge.process_pending(self.ctx)


def _lesson(ctx: Any, mistake: str, fix: str, signature: dict[str, Any] | None = None) -> Experience:
    sig = signature or sg.derive_command(mistake, fix, why="error: missing --region")
    assert sig is not None
    exp = Experience(
        text=f"`{mistake}` failed; `{fix}` worked instead.",
        trigger=mistake,
        kind="error_fix",
        structured=sg.structured(sg.describe_call(mistake), sg.describe_call(fix), "missing", sig, "error_fix", "Bash"),
    )
    ctx.store.add(exp)
    return exp


def _outcomes(exp_id: str) -> list[str]:
    return [v.get("outcome") or v["verdict"] for v in judge.verdicts() if v.get("exp_id") == exp_id and v["counted"]]


def _stats_holds(ctx: Any) -> dict[str, int]:
    """What `twiceshy stats` says of the holds' outcomes (from the judge's ledger)."""
    return compute_stats(ctx, since_s=None)["outcomes"]["holds"]


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    ranking.clear_cache()


def test_held_then_the_fix_is_avoided(ctx: Any) -> None:
    exp = _lesson(ctx, MISTAKE, FIX)
    s = Session(ctx, "a1")
    assert s.call(MISTAKE) == "hold"
    assert s.call(FIX) != "deny"  # the fix passes silently
    s.end()
    assert _outcomes(exp.id) == ["avoided"]
    assert _stats_holds(ctx) == {"avoided": 1, "ignored": 0, "overridden": 0, "false_hold": 0, "unclear": 0}


def test_two_overrides_narrow_the_lesson_and_others_still_hold(ctx: Any) -> None:
    exp = _lesson(ctx, MISTAKE, FIX)
    other = _lesson(ctx, OTHER_MISTAKE, OTHER_FIX)
    dry = f"{MISTAKE} --dry-run"  # held (it lacks --region), yet it works: the lesson is wrong for it
    for sid in ("b1", "b2"):
        s = Session(ctx, sid)
        assert s.call(dry) == "hold"
        assert s.call(dry, success=True) != "deny"  # the identical re-issue runs, and works
        s.end()
    assert _outcomes(exp.id) == ["overridden", "overridden"]
    assert _stats_holds(ctx)["overridden"] == 2 and _stats_holds(ctx)["avoided"] == 0
    after = ctx.store.get(exp.id)
    assert outcomes.norm_call(dry) in outcomes.exceptions_of(after)
    assert any(c["change"] == "except" for c in outcomes.read_corrections(exp.id))
    s = Session(ctx, "b3")
    assert s.call(dry) != "deny"  # no longer held
    assert s.call(MISTAKE) == "hold"  # the lesson still holds its mistake
    assert s.call(OTHER_MISTAKE) == "hold"  # and another lesson its own
    assert ctx.store.get(exp.id).tier == int(Tier.RAW)  # overrides never promote
    assert ctx.store.get(other.id).tier == int(Tier.RAW)


def test_held_sent_again_and_failing_is_ignored_and_keeps_holding(ctx: Any) -> None:
    exp = _lesson(ctx, MISTAKE, FIX)
    for sid in ("c1", "c2", "c3"):
        s = Session(ctx, sid)
        assert s.call(MISTAKE) == "hold"
        assert s.call(MISTAKE, success=False) != "deny"  # the mistake ran, and failed
        s.end()
    assert _outcomes(exp.id) == ["ignored", "ignored", "ignored"]
    assert _stats_holds(ctx)["ignored"] == 3 and _stats_holds(ctx)["avoided"] == 0
    assert outcomes.exceptions_of(ctx.store.get(exp.id)) == []
    assert Session(ctx, "c4").call(MISTAKE) == "hold"
    assert ctx.store.get(exp.id).tier == int(Tier.RAW)  # the identical re-issue story never promotes


def test_a_loose_signature_never_holds_the_fix_that_adds_what_it_lacks(ctx: Any) -> None:
    # The signature misses what the fix adds (--region): it matches the fix too. The fix still passes.
    loose = {"v": sg.SIG_VERSION, "kind": "command", "program": "deploy.sh", "present": ["--env"]}
    _lesson(ctx, MISTAKE, FIX, signature=loose)
    s = Session(ctx, "d0")
    assert s.call(FIX) != "deny"
    assert s.call(MISTAKE) == "hold"


def test_a_hold_of_the_lessons_own_fix_is_a_false_hold_and_the_fix_then_passes(ctx: Any) -> None:
    # A fix that only takes something away (--force), named by the lesson but never seen run (no
    # stored fix call: what worked before is never held, test_known_good.py), and a signature too
    # loose to tell: the fix is held.
    mistake, fix = "./deploy.sh --env staging --force", "./deploy.sh --env staging"
    loose = {"v": sg.SIG_VERSION, "kind": "command", "program": "deploy.sh", "present": ["--env"], "fix": fix}
    exp = Experience(
        text=f"`{mistake}` failed; run `{fix}` instead.",
        trigger=mistake,
        kind="error_fix",
        structured=sg.structured(sg.describe_call(mistake), None, "missing", loose, "error_fix", "Bash"),
    )
    ctx.store.add(exp)
    s = Session(ctx, "d1")
    assert s.call(fix) == "hold"  # wrong: this is the fix
    assert s.call(fix) != "deny"
    s.end()
    got = _outcomes(exp.id)
    assert got == ["false_hold"] and "FOLLOWED" not in got and "avoided" not in got
    assert _stats_holds(ctx)["false_hold"] == 1 and _stats_holds(ctx)["avoided"] == 0
    assert Session(ctx, "d2").call(fix) != "deny"  # narrowed at once: the fix passes
    assert Session(ctx, "d3").call(mistake) == "hold"  # and the mistake is still held
