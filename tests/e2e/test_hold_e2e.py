"""Issue 16, end to end with the real claude-code, codex, gemini, qwen, droid, opencode and copilot CLIs: a
mistake learned in one session is held before it runs in the next, the model
gets the fix, the fix runs unwarned, a rule denies only the mistake, and
``twiceshy stats`` counts a mistake avoided only when it was.

The sessions are described in ``tests/e2e/hold_scenario.py``; each agent runs
them once (module-scoped, ~1-2 minutes per agent on 2 cores) and every test
asserts one thing about the recorded outcome. ``-k claude`` / ``-k codex`` /
``-k gemini`` / ``-k qwen`` / ``-k droid`` / ``-k opencode`` / ``-k copilot`` runs one agent.
"""

from __future__ import annotations

import json

import pytest

from .conftest import request_text
from .hold_scenario import (
    ERROR,
    FIX,
    HELP,
    HOLD_MARK,
    MISTAKE,
    OTHER_ENV,
    SPECS,
    HoldOutcome,
    Session,
    added_after_last_call,
    deploy_lesson,
    finished_session,
    run_hold_scenario,
)


@pytest.fixture(scope="module", params=list(SPECS))
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> HoldOutcome:
    spec = SPECS[request.param]
    return run_hold_scenario(spec, tmp_path_factory.mktemp(f"hold-{spec.cli}"))


def _session(outcome: HoldOutcome, name: str) -> Session:
    return finished_session(outcome, name, "session 1 taught no error -> fix lesson about deploy.sh")


def _added(got: Session, turn: int) -> str:
    """What the model received after the call of step ``turn - 1``."""
    assert len(got.requests) > turn, [request_text(r)[-300:] for r in got.requests]
    return added_after_last_call(got.requests[turn])


def test_session_one_learns_from_error_then_fix(outcome: HoldOutcome) -> None:
    learn = outcome.sessions["learn"]
    assert learn.proc.returncode == 0, learn.proc.stderr[-3000:]
    assert learn.ran == [MISTAKE, FIX]  # the mistake really failed, the fix really ran
    added = _added(learn, 1)
    # Qwen 0.24.4 finishes a one-shot shell call on the child's "exit", not "close": on a busy box
    # the stderr of a command that fails at once can be lost ("Output: (empty)"); the failure is not.
    lost = outcome.spec.cli == "qwen" and "Output: (empty)" in added and "Exit Code: 1" in added
    assert ERROR in added or lost, added[-2000:]
    lesson = deploy_lesson(outcome.lessons_after_learn)
    assert lesson is not None, [(e.get("tier"), e.get("text")) for e in outcome.lessons_after_learn]
    assert lesson.get("project"), lesson  # scoped to the project it came from
    assert str(lesson.get("source", "")).startswith(f"{outcome.spec.agent}:"), lesson  # from this CLI's session


def test_the_cli_sent_each_of_its_hook_events(outcome: HoldOutcome) -> None:
    """The native events a headless session sends (docs/agents.md's table): session 1, a failed
    call, a call that works, the answer. A CLI that stops sending one fails here first."""
    learn = outcome.sessions["learn"]
    sent = {str(e.get("event")) for e in learn.events}
    assert sent == set(outcome.spec.events), sorted(sent)


def test_session_two_holds_the_mistake_and_the_model_gets_the_fix(outcome: HoldOutcome) -> None:
    avoid = _session(outcome, "avoid")
    assert avoid.pre_actions(outcome.spec.pre_event) == ["hold", "allow"], avoid.events
    assert MISTAKE not in avoid.ran  # it never ran
    reason = _added(avoid, 1)
    # In the CLI's own form of a blocked call (Copilot: "Denied by preToolUse hook: <reason>" …).
    assert f"{outcome.spec.held_as}{HOLD_MARK}" in reason and "eu-west-1" in reason, reason[:3000]


def test_session_two_gets_the_previous_sessions_lesson_before_it_plans(outcome: HoldOutcome) -> None:
    avoid = _session(outcome, "avoid")
    first = request_text(avoid.requests[0])
    assert "eu-west-1" in first and "twiceshy" in first, first[-3000:]


def test_the_fix_runs_with_no_warning(outcome: HoldOutcome) -> None:
    avoid = _session(outcome, "avoid")
    assert avoid.ran == [FIX]
    assert "twiceshy" not in _added(avoid, 2)
    # And on its own, before any mistake of the session (nothing to dedup against).
    insist = _session(outcome, "insist")
    assert insist.pre_actions(outcome.spec.pre_event)[:1] == ["allow"], insist.events
    assert insist.ran[:1] == [FIX]
    assert "twiceshy" not in _added(insist, 1)


def test_the_identical_retry_of_a_held_call_runs(outcome: HoldOutcome) -> None:
    insist = _session(outcome, "insist")
    assert insist.pre_actions(outcome.spec.pre_event) == ["allow", "hold", "allow"], insist.events
    assert HOLD_MARK in _added(insist, 2)
    assert insist.ran == [FIX, MISTAKE]  # held once, then run because the model insisted


def test_a_rule_denies_the_mistake_but_not_the_fix_help_or_another_env(outcome: HoldOutcome) -> None:
    assert outcome.promote is not None and outcome.promote.returncode == 0, outcome.promote
    rule = _session(outcome, "rule")
    assert rule.pre_actions(outcome.spec.pre_event) == ["deny", "allow", "allow", "allow"], rule.events
    assert rule.ran == [FIX, HELP, OTHER_ENV]
    denied = _added(rule, 1)
    assert "eu-west-1" in denied and HOLD_MARK not in denied, denied[:3000]
    for turn in (2, 3, 4):
        assert "twiceshy" not in _added(rule, turn), (turn, _added(rule, turn)[:2000])


def test_stats_count_the_avoided_mistake_only_when_it_was_avoided(outcome: HoldOutcome) -> None:
    _session(outcome, "rule")
    outcomes = outcome.stats.get("outcomes")
    assert outcomes is not None, json.dumps(outcome.stats)[:2000]
    # Session 2 avoided it (held, then the fix); session 3 held it but the model ran it anyway;
    # session 4's rule denied it and the fix ran: a rule's deny is a mistake avoided too (7e98c11).
    assert (outcomes["held"], outcomes["denied"]) == (2, 1), outcomes
    # Droid fires no hook for a failed call: session 3's ignored hold is never seen, so unclear.
    ignored, unclear = (1, 0) if outcome.spec.failed_call_hook else (0, 1)
    assert (outcomes["avoided"], outcomes["ignored"]) == (2, ignored), outcomes
    assert outcomes["holds"] == {"avoided": 2, "ignored": ignored, "overridden": 0, "false_hold": 0, "unclear": unclear}
    assert outcome.stats["mistakes_avoided"] == 2
