"""Distilled rules: the statistics against brute force, and rules only when significant."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest
from twiceshy.guidance.distill import (
    _fisher_exact,
    _mann_whitney_u,
    benjamini_hochberg,
    distill_rules,
    load_trajectories,
)


def _brute_u_pvalue(x: list[float], y: list[float]) -> float:
    """Exact two-sided permutation p-value of U by enumerating every split."""
    pooled = x + y
    m, n = len(x), len(y)

    def u_of(a: list[float], b: list[float]) -> float:
        return sum(1.0 if ai > bi else 0.5 if ai == bi else 0.0 for ai in a for bi in b)

    observed = u_of(x, y)
    dev = abs(observed - m * n / 2)
    hits = total = 0
    for idx in itertools.combinations(range(m + n), m):
        chosen = set(idx)
        a = [pooled[i] for i in idx]
        b = [pooled[i] for i in range(m + n) if i not in chosen]
        total += 1
        if abs(u_of(a, b) - m * n / 2) >= dev - 1e-9:
            hits += 1
    return hits / total


@pytest.mark.parametrize("seed", range(6))
def test_exact_mann_whitney_matches_enumeration(seed: int) -> None:
    rng = random.Random(seed)
    m, n = rng.randint(2, 6), rng.randint(2, 6)
    values = rng.sample(range(1000), m + n)  # distinct: the exact branch
    x, y = [v / 1000 for v in values[:m]], [v / 1000 for v in values[m:]]
    u, p = _mann_whitney_u(x, y)
    assert u == sum(1 for a in x for b in y if a > b)
    assert p == pytest.approx(_brute_u_pvalue(x, y), abs=1e-9)


def test_normal_mann_whitney_with_ties_is_close_to_enumeration() -> None:
    x = [0.9, 0.8, 0.8, 0.7, 0.9, 0.6, 0.8]
    y = [0.4, 0.5, 0.8, 0.3, 0.5, 0.4]
    _, p = _mann_whitney_u(x, y)
    assert p == pytest.approx(_brute_u_pvalue(x, y), abs=0.01)
    _, p_same = _mann_whitney_u([0.5] * 6, [0.5] * 6)
    assert p_same == 1.0


def test_fisher_exact_known_values() -> None:
    # Fisher's tea-tasting table and a textbook table (R: fisher.test).
    assert _fisher_exact(3, 1, 1, 3) == pytest.approx(0.4857142857, rel=1e-6)
    assert _fisher_exact(8, 2, 1, 5) == pytest.approx(0.0349650350, rel=1e-6)
    assert _fisher_exact(5, 0, 0, 5) == pytest.approx(2 / math.comb(10, 5), rel=1e-6)


def test_benjamini_hochberg() -> None:
    assert benjamini_hochberg([0.01, 0.03, 0.02, 0.5], 0.05) == [True, True, True, False]
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.5], 0.05) == [True, False, False, False]
    assert benjamini_hochberg([0.03, 0.04, 0.045, 0.05], 0.05) == [True, True, True, True]  # step-up
    assert benjamini_hochberg([0.02, 0.9], 0.05) == [True, False]
    assert benjamini_hochberg([0.04, 0.9], 0.05) == [False, False]


# -- trajectories -> rules ------------------------------------------------------------------


def _traj(i: int, **over) -> dict:
    base = {
        "session_id": f"s{i}",
        "agent": "claude-code",
        "project": "proj-1",
        "started": 1_700_000_000 + i * 5000,
        "ended": 1_700_000_000 + i * 5000 + 600,
        "duration_s": 600,
        "tool_counts": {"Bash": 3, "Read": 2},
        "files_read": ["a.py"],
        "files_edited": ["a.py"],
        "errors": 0,
        "tests_run": 1,
        "tests_failed_then_passed": False,
        "edits_before_read": 0,
        "verified_after_multi_edit": False,
        "domains": ["python"],
        "outcome_score": 0.7,
    }
    base.update(over)
    return base


def _write(home: Path, trajs: list[dict]) -> None:
    with open(home / "trajectories.jsonl", "w", encoding="utf-8") as handle:
        for t in trajs:
            handle.write(json.dumps(t) + "\n")


def _verification_world(rng: random.Random, n: int = 16) -> list[dict]:
    trajs = []
    for i in range(n):
        verified = i % 2 == 0
        trajs.append(
            _traj(
                i,
                files_edited=["a.py", "b.py", "c.py"],
                verified_after_multi_edit=verified,
                outcome_score=round(rng.uniform(0.75, 0.95) if verified else rng.uniform(0.2, 0.45), 3),
            )
        )
    return trajs


def test_verification_rule_from_trajectory_file(twiceshy_home: Path) -> None:
    rng = random.Random(1)
    _write(twiceshy_home, _verification_world(rng))
    with open(twiceshy_home / "trajectories.jsonl", "a") as handle:
        handle.write("{torn line\n")
    assert len(load_trajectories()) == 16  # the torn line is skipped
    rules = {r.key: r for r in distill_rules()}
    rule = rules["verify-after-multi-edit"]
    assert rule.polarity == "apply" and "run the tests" in rule.text
    assert "verified (8)" in rule.evidence and "unverified (8)" in rule.evidence and "p" in rule.evidence
    assert rule.p_value < 0.01 and rule.effect > 0.3
    assert rule.line().startswith("- After editing several files")


def test_read_before_edit_and_file_scope_rules(twiceshy_home: Path) -> None:
    rng = random.Random(2)
    trajs = []
    for i in range(20):
        blind = i % 2 == 1
        trajs.append(
            _traj(
                i,
                edits_before_read=2 if blind else 0,
                outcome_score=round(rng.uniform(0.1, 0.4) if blind else rng.uniform(0.7, 0.9), 3),
            )
        )
    _write(twiceshy_home, trajs)
    keys = {r.key: r for r in distill_rules()}
    assert keys["read-before-edit"].polarity == "avoid"
    assert "not read" in keys["read-before-edit"].text


def test_short_sessions_rule(twiceshy_home: Path) -> None:
    rng = random.Random(3)
    trajs = [
        _traj(
            i,
            duration_s=300 if i % 2 else 4 * 3600,
            outcome_score=round(rng.uniform(0.7, 0.9) if i % 2 else rng.uniform(0.1, 0.4), 3),
        )
        for i in range(20)
    ]
    _write(twiceshy_home, trajs)
    rule = {r.key: r for r in distill_rules()}["short-sessions"]
    assert rule.polarity == "apply" and "short and focused" in rule.text


def test_no_rule_without_a_real_difference(twiceshy_home: Path) -> None:
    rng = random.Random(4)
    trajs = [
        _traj(
            i,
            files_edited=["a", "b"] if i % 3 else ["a"],
            verified_after_multi_edit=bool(rng.getrandbits(1)),
            edits_before_read=rng.choice([0, 0, 1]),
            duration_s=rng.randint(60, 7200),
            tool_counts={"Bash": rng.randint(0, 3), "Grep": rng.randint(0, 2)},
            domains=[rng.choice(["python", "css"])],
            outcome_score=round(rng.uniform(0.3, 0.9), 3),
        )
        for i in range(40)
    ]
    _write(twiceshy_home, trajs)
    assert distill_rules() == []


def test_too_few_sessions_gives_no_rule_even_with_a_big_effect(twiceshy_home: Path) -> None:
    rng = random.Random(5)
    _write(twiceshy_home, _verification_world(rng, n=8))
    assert distill_rules() == []  # below distill.min_sessions (10)
    assert distill_rules(_verification_world(random.Random(5), n=16), project="another") == []  # filtered out


def test_domain_tool_preference_weak_domain_checklist(twiceshy_home: Path) -> None:
    rng = random.Random(6)
    trajs = []
    for i in range(24):  # python: Grep users do much better
        grep = i % 2 == 0
        trajs.append(
            _traj(
                i,
                domains=["python"],
                tool_counts={"Bash": 2, **({"Grep": 3} if grep else {})},
                outcome_score=round(rng.uniform(0.75, 0.95) if grep else rng.uniform(0.5, 0.6), 3),
            )
        )
    for i in range(24, 44):  # css: a weak domain; sessions that read first do better
        read_first = i % 4 == 0
        trajs.append(
            _traj(
                i,
                domains=["css"],
                edits_before_read=0 if read_first else 1,
                outcome_score=0.8 if read_first else round(rng.uniform(0.05, 0.3), 3),
            )
        )
    _write(twiceshy_home, trajs)
    rules = {r.key: r for r in distill_rules()}
    tool = rules["tool:python:Grep"]
    assert tool.polarity == "apply" and tool.text == "In python work, prefer Grep." and tool.domain == "python"
    weak = rules["weak:css"]
    assert "css is a weak domain" in weak.text and weak.checklist[0] == "read each file before editing it"
    assert "succeeded" in weak.evidence and "/20" in weak.evidence
    assert "checklist: read each file before editing it" in weak.line()
    # Only one tool preference per domain.
    assert sum(1 for k, r in rules.items() if k.startswith("tool:python:") and r.polarity == "apply") == 1


def test_distilled_rules_reach_the_context(ctx, twiceshy_home: Path) -> None:
    from twiceshy.guidance.render import render_context_text

    _write(twiceshy_home, _verification_world(random.Random(1)))
    text = render_context_text(ctx, "claude-code", "proj-1", 1000)
    apply = text.split("### Apply")[1]
    assert "After editing several files, run the tests before you finish." in apply
    assert "mean outcome" in apply
