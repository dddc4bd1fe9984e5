"""Issue 27's marker story, end to end with the real claude-code, codex, gemini, qwen, droid, opencode and
copilot CLIs.

Session 1 runs only the fix and ends with the agent's own line ``GOTCHA: ./deploy.sh --env staging
fails with 'missing --region'; always pass --region eu-west-1 for staging.`` The lesson must be keyed
to the call the line quotes (not to the sentence): in session 2 the mistake is held before it runs
with the fix in the reason, and the fix runs with no word from twiceshy — in session 2 after the hold
and in session 3 on its own. ``twiceshy stats`` then counts the one hold as a mistake avoided, not a
false hold. ``-k claude`` / ``-k codex`` … runs one agent.
"""

from __future__ import annotations

import json

import pytest

from .hold_scenario import (
    FIX,
    HOLD_MARK,
    MISTAKE,
    SPECS,
    HoldOutcome,
    Session,
    added_after_last_call,
    deploy_lesson,
    finished_session,
    run_marker_scenario,
)


@pytest.fixture(scope="module", params=list(SPECS))
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> HoldOutcome:
    spec = SPECS[request.param]
    return run_marker_scenario(spec, tmp_path_factory.mktemp(f"marker-{spec.cli}"))


def _session(outcome: HoldOutcome, name: str) -> Session:
    return finished_session(outcome, name, "the GOTCHA line taught no lesson about deploy.sh")


def test_session_one_ran_only_the_fix_and_learned_from_the_line(outcome: HoldOutcome) -> None:
    learn = outcome.sessions["learn"]
    assert learn.proc.returncode == 0, learn.proc.stderr[-3000:]
    assert learn.ran == [FIX]
    lesson = deploy_lesson(outcome.lessons_after_learn)
    assert lesson is not None, [(e.get("trigger"), e.get("text")) for e in outcome.lessons_after_learn]
    # Keyed to the call the line quotes: the trigger is the mistake, never the whole sentence.
    trigger = str(lesson.get("trigger", ""))
    assert MISTAKE in trigger and "GOTCHA" not in trigger and "always" not in trigger, lesson
    assert str(lesson.get("source", "")).startswith(f"{outcome.spec.agent}:"), lesson  # from this CLI's session


def test_session_two_holds_the_mistake_before_it_runs(outcome: HoldOutcome) -> None:
    avoid = _session(outcome, "avoid")
    assert avoid.pre_actions(outcome.spec.pre_event) == ["hold", "allow"], avoid.events
    assert avoid.ran == [FIX]  # the mistake never ran; the fix did
    reason = added_after_last_call(avoid.requests[1])
    assert HOLD_MARK in reason and "eu-west-1" in reason, reason[:3000]


def test_the_fix_runs_silently(outcome: HoldOutcome) -> None:
    avoid = _session(outcome, "avoid")
    assert "twiceshy" not in added_after_last_call(avoid.requests[2])
    fix = _session(outcome, "fix")
    assert fix.pre_actions(outcome.spec.pre_event) == ["allow"], fix.events
    assert fix.ran == [FIX]
    assert "twiceshy" not in added_after_last_call(fix.requests[1])


def test_stats_count_the_hold_as_avoided_not_as_a_false_hold(outcome: HoldOutcome) -> None:
    _session(outcome, "fix")
    outcomes = outcome.stats.get("outcomes")
    assert outcomes is not None, json.dumps(outcome.stats)[:2000]
    assert outcomes["held"] == 1, outcomes
    assert outcomes["holds"]["avoided"] == 1 and outcomes["holds"]["false_hold"] == 0, outcomes
    assert outcome.stats["mistakes_avoided"] == 1, outcome.stats
