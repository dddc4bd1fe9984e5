"""Evolution on the real on-disk store: verdicts, TTL, decay, promotion,
principles (deterministic and by a real LLM over HTTP), supersession, one-hop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import FakeLLMServer, llm_env
from twiceshy.base.types import Experience, LessonMatch, Tier
from twiceshy.engine.context import make_context
from twiceshy.learning import evolve
from twiceshy.learning.ingest import expand_hits, expand_one_hop, store_lesson

DAY = 86400.0


def add(ctx, text: str, trigger: str | None = None, **fields) -> Experience:
    exp = Experience(text=text, trigger=trigger or text, **fields)
    ctx.store.add(exp)
    return exp


# -- verdicts -------------------------------------------------------------------


def test_three_followed_promote_raw_to_rule(ctx) -> None:
    exp = add(ctx, "use a venv", "pip install requests")
    tiers = []
    for _ in range(3):
        evolve.record_verdict(ctx, exp.id, "FOLLOWED")
        tiers.append(ctx.store.get(exp.id).tier)
    assert tiers == [Tier.QA, Tier.QA, Tier.RULE]
    got = ctx.store.get(exp.id)
    assert got.follows == 3 and got.confidence == pytest.approx(0.8)


def test_three_ignored_demote_one_tier_and_reset_streak(ctx) -> None:
    exp = add(ctx, "never force push", "git push --force", tier=int(Tier.RULE), follows=5)
    evolve.record_verdict(ctx, exp.id, "IGNORED")
    evolve.record_verdict(ctx, exp.id, "IRRELEVANT")
    assert ctx.store.get(exp.id).tier == Tier.RULE  # two in a row: not yet
    evolve.record_verdict(ctx, exp.id, "IGNORED")
    got = ctx.store.get(exp.id)
    assert got.tier == Tier.QA and got.streak == 0 and got.ignores == 2 and got.irrelevant == 1


def test_a_followed_breaks_the_ignore_streak(ctx) -> None:
    exp = add(ctx, "x", "make deploy", tier=int(Tier.RULE))
    for verdict in ("IGNORED", "IGNORED", "FOLLOWED", "IGNORED", "IGNORED"):
        evolve.record_verdict(ctx, exp.id, verdict)
    assert ctx.store.get(exp.id).tier == Tier.RULE


def test_unclear_changes_nothing_and_bad_verdicts_raise(ctx) -> None:
    exp = add(ctx, "x", "ls")
    before = ctx.store.get(exp.id)
    evolve.record_verdict(ctx, exp.id, "UNCLEAR")
    assert ctx.store.get(exp.id) == before
    evolve.record_verdict(ctx, "no-such-id", "FOLLOWED")  # deleted meanwhile: no-op
    with pytest.raises(ValueError):
        evolve.record_verdict(ctx, exp.id, "MAYBE")


# -- the cycle --------------------------------------------------------------------


def test_raw_lessons_expire_after_ttl_unless_seen_again(ctx) -> None:
    now = time.time()
    lonely = add(ctx, "lonely", "cmd one")
    seen = add(ctx, "seen twice", "cmd two", seen_count=2)
    counts = evolve.run_cycle(ctx, now=now + 15 * DAY)  # raw_ttl_days = 14
    assert ctx.store.get(lonely.id) is None and counts["expired"] == 1
    assert ctx.store.get(seen.id).tier == Tier.QA and counts["promoted"] == 1


def test_decay_when_unseen_then_delete_at_zero(ctx) -> None:
    now = time.time()
    exp = add(ctx, "old rule", "terraform apply", tier=int(Tier.RULE), confidence=0.9, created_at=now, last_seen=now)
    evolve.run_cycle(ctx, now=now + 29 * DAY)  # inside decay_days (30): untouched
    assert ctx.store.get(exp.id).confidence == pytest.approx(0.9)
    counts = evolve.run_cycle(ctx, now=now + 45 * DAY)  # 15 stale days: -0.25
    assert counts["decayed"] == 1 and ctx.store.get(exp.id).confidence == pytest.approx(0.65)
    # Running often must not decay faster than running rarely.
    evolve.run_cycle(ctx, now=now + 50 * DAY)
    evolve.run_cycle(ctx, now=now + 55 * DAY)
    assert ctx.store.get(exp.id).confidence == pytest.approx(0.9 - 0.5 * 25 / 30)
    counts = evolve.run_cycle(ctx, now=now + 120 * DAY)
    assert ctx.store.get(exp.id) is None and counts["deleted"] == 1


def test_qa_seen_in_many_sessions_without_complaint_becomes_rule(ctx) -> None:
    exp = add(ctx, "x", "docker system prune -a", tier=int(Tier.QA), seen_count=6)
    noisy = add(ctx, "y", "docker volume prune", tier=int(Tier.QA), seen_count=6, ignores=1)
    evolve.run_cycle(ctx)
    assert ctx.store.get(exp.id).tier == Tier.RULE
    assert ctx.store.get(noisy.id).tier == Tier.QA


def _three_pip_rules(ctx) -> list[Experience]:
    triggers = ["pip install requests", "sudo pip install flask", "pip3 install --user numpy"]
    return [
        add(
            ctx,
            f"Do not {t}: the system Python is externally managed; use a venv.",
            t,
            tier=int(Tier.RULE),
            confidence=0.8,
        )
        for t in triggers
    ]


def test_cluster_of_rules_becomes_a_principle_once(ctx) -> None:
    rules = _three_pip_rules(ctx)
    add(ctx, "unrelated", "kubectl delete namespace prod", tier=int(Tier.RULE))
    counts = evolve.run_cycle(ctx)
    assert counts["principles"] == 1
    (principle,) = [e for e in ctx.store.all() if e.tier == Tier.PRINCIPLE]
    assert principle.trigger == "pip install" and principle.source == "cluster"
    assert "3 confirmed rules" in principle.text
    assert sorted(other for other, kind in ctx.store.neighbours(principle.id) if kind == "generalizes") == sorted(
        r.id for r in rules
    )
    assert evolve.run_cycle(ctx)["principles"] == 0  # already generalised: no duplicate


def test_principle_written_by_the_configured_llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = "Install Python packages into a virtualenv, never into the system interpreter."
    with FakeLLMServer([("answer", answer)]) as server:
        for name, value in llm_env(server, timeout_s=20).items():
            monkeypatch.setenv(name, value)
        ctx = make_context(tmp_path)
        _three_pip_rules(ctx)
        assert evolve.run_cycle(ctx)["principles"] == 1
        assert any("pip install" in p for p in server.prompts())
    (principle,) = [e for e in ctx.store.all() if e.tier == Tier.PRINCIPLE]
    assert principle.text == answer and principle.source == "llm"


def test_principle_falls_back_when_the_llm_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeLLMServer([("500",)]) as server:
        for name, value in llm_env(server, timeout_s=3, max_retries=0).items():
            monkeypatch.setenv(name, value)
        ctx = make_context(tmp_path)
        _three_pip_rules(ctx)
        assert evolve.run_cycle(ctx)["principles"] == 1
    (principle,) = [e for e in ctx.store.all() if e.tier == Tier.PRINCIPLE]
    assert principle.source == "cluster"


# -- supersession, timeline, one hop ------------------------------------------


def test_contradiction_supersedes_keeps_both_and_builds_a_timeline(ctx) -> None:
    old, outcome = store_lesson(
        ctx, "Use yarn instead of npm in this repo.", "npm install", tags=["prefer:yarn", "avoid:npm"]
    )
    assert outcome == "new"
    old.tier = int(Tier.RULE)
    ctx.store.update(old)
    time.sleep(0.01)
    new, outcome = store_lesson(
        ctx, "Use npm instead of yarn: package.json pins npm now.", "npm install", tags=["prefer:npm", "avoid:yarn"]
    )
    assert outcome == "supersedes" and new.id != old.id
    got_old = ctx.store.get(old.id)
    assert got_old.superseded_by == new.id and got_old.tier == Tier.QA  # no longer blocks
    assert (old.id, "supersedes") in ctx.store.neighbours(new.id)
    assert [e.id for e in evolve.timeline(ctx, got_old.topic)] == [old.id, new.id]
    # Same stance again is a repeat, not a contradiction.
    again, outcome = store_lesson(ctx, "npm, not yarn, here", "npm install", tags=["prefer:npm", "avoid:yarn"])
    assert outcome == "seen" and again.id == new.id and ctx.store.get(new.id).seen_count == 2


def test_dedup_keeps_commands_with_other_arguments_apart(ctx) -> None:
    a, _ = store_lesson(ctx, "stash first", "git stash")
    b, outcome = store_lesson(ctx, "pop conflicts: check status", "git stash pop")
    assert outcome == "related" and a.id != b.id
    assert (a.id, "relates-to") in ctx.store.neighbours(b.id)


def test_one_hop_brings_in_principle_successor_and_respects_scope(ctx) -> None:
    rule = add(ctx, "rule", "pip install x", tier=int(Tier.RULE))
    principle = add(ctx, "principle", "pip install", tier=int(Tier.PRINCIPLE))
    ctx.store.add_edge(principle.id, rule.id, "generalizes")
    old = add(ctx, "old view", "npm install", superseded_by="later")
    new = add(ctx, "new view", "npm ci")
    ctx.store.add_edge(new.id, old.id, "supersedes")
    other_project = add(ctx, "elsewhere", "pip install y", project="other-1234")
    ctx.store.add_edge(rule.id, other_project.id, "relates-to")
    matches = [LessonMatch(rule.id, "rule", "pip install x", 1, 0.8), LessonMatch(old.id, "old", "npm install", 3, 0.7)]
    out = expand_one_hop(ctx, matches, project="mine-0000")
    extra = {m.experience_id: m for m in out[2:]}
    assert set(extra) == {principle.id, new.id}
    assert extra[principle.id].score == pytest.approx(0.8 * 0.95) and "via generalizes" in extra[principle.id].evidence
    assert extra[new.id].score == pytest.approx(0.7)
    # The newer lesson does not pull in the one it replaced.
    assert [e.id for e, _ in expand_hits(ctx, [(new, 0.9)], None)] == [new.id]


# -- the command --------------------------------------------------------------


def test_evolve_command_runs_a_cycle(twiceshy_home: Path, tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    lonely = add(ctx, "lonely", "cmd", created_at=time.time() - 30 * DAY, last_seen=time.time() - 30 * DAY)
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-m", "twiceshy", "evolve", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts["expired"] == 1 and set(counts) >= {"promoted", "demoted", "decayed", "deleted", "principles"}
    ctx.store.refresh_if_stale()
    assert ctx.store.get(lonely.id) is None
