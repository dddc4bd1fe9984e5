"""Memory health: 0-100 from depth, quality, activity and feedback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from twiceshy.base.types import Experience
from twiceshy.guidance.health import compute_health
from twiceshy.guidance.patterns import PatternStore


def test_empty_memory_scores_zero_and_says_why(ctx) -> None:
    report = compute_health(ctx)
    assert report.score == 0
    assert [p.name for p in report.parts] == ["depth", "quality", "activity", "feedback"]
    assert all(p.max == 25 for p in report.parts)
    assert any("No lessons yet" in n for n in report.notes)
    assert any("verdicts" in n for n in report.notes)


def test_fed_memory_scores_high_and_parts_add_up(ctx, twiceshy_home: Path) -> None:
    now = time.time()
    for i in range(30):
        ctx.store.add(
            Experience(
                text=f"lesson {i}",
                trigger=f"action number {i}",
                tier=1 if i < 10 else 3,
                hits=4,
                follows=3,
                ignores=1,
                irrelevant=0,
            )
        )
    with open(twiceshy_home / "trajectories.jsonl", "w") as handle:
        for i in range(12):
            handle.write(
                json.dumps(
                    {
                        "session_id": f"s{i}",
                        "agent": "claude-code",
                        "project": "p",
                        "ended": now - i * 3600,
                        "outcome_score": 0.8,
                    }
                )
                + "\n"
            )
    PatternStore().observe("seq:test->fix->test")
    report = compute_health(ctx, now=now)
    parts = {p.name: p for p in report.parts}
    assert report.score == round(sum(p.score for p in report.parts))
    assert report.score >= 80
    assert parts["quality"].score == round(25 * (0.5 * 0.75 + 0.5 * 1.0), 1)
    assert parts["activity"].score == 25 and "12 sessions" in parts["activity"].detail
    assert parts["feedback"].score == 25 and "120 verdicts for 120 lessons shown" in parts["feedback"].detail
    assert parts["depth"].detail == "30 lessons, 10 past raw"
    # A memory nobody judges and nobody uses scores lower on feedback and activity.
    later = compute_health(ctx, now=now + 60 * 86400)
    assert {p.name: p for p in later.parts}["activity"].score == 0 and later.score < report.score


def test_unjudged_warnings_lower_feedback(ctx) -> None:
    ctx.store.add(Experience(text="shown often", trigger="t", hits=10, follows=1))
    report = compute_health(ctx)
    feedback = {p.name: p for p in report.parts}["feedback"]
    assert feedback.score == 2.5
    assert any("judge" in n for n in report.notes)


def test_cli_health_json(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "twiceshy", "health", "--json"],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["score"] == 0 and len(data["parts"]) == 4
