"""Heuristic ranking, the LLM relevance filter (against a real local server)
and the recall plugin built on them: dedup, budget, deny, fail-open."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from llm_server import FakeLLMServer, llm_env, warm_litellm
from twiceshy.base.project import fingerprint
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.builtins import recall
from twiceshy.engine.context import make_context
from twiceshy.recall import ranking


@pytest.fixture(scope="module", autouse=True)
def litellm_imported():
    # The engine imports it at start; don't time the import (or the first
    # call's client set-up) here.
    warm_litellm()


@pytest.fixture(autouse=True)
def fresh_cache():
    ranking.clear_cache()


@pytest.fixture
def server():
    with FakeLLMServer([("answer", "1")]) as srv:
        yield srv


def bash(command: str, session: str = "s1", cwd: str = "/tmp/proj", **raw) -> CoreEvent:
    return CoreEvent(
        kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id=session, cwd=cwd,
        tool_name="Bash", tool_input={"command": command}, raw=raw,
    )  # fmt: skip


def with_llm(monkeypatch, tmp_path: Path, server: FakeLLMServer, **overrides):
    overrides.setdefault("timeout_s", 10.0)  # generous: a loaded CI box must not flake the answer paths
    for name, value in llm_env(server, **overrides).items():
        monkeypatch.setenv(name, value)
    return make_context(tmp_path)


# -- heuristic score ---------------------------------------------------------


def neutral(**kw) -> Experience:
    now = time.time()
    # recency 0.5 exactly: last seen one decay period ago
    defaults = dict(text="t", trigger="something", confidence=0.5, last_seen=now - 30 * 86400)
    defaults.update(kw)
    return Experience(**defaults)


def test_neutral_lesson_scores_its_similarity(ctx) -> None:
    # Score at the instant the lesson was built: with rank's own clock a few
    # microseconds later the recency part is ~-1e-12, outside approx(0.0)'s
    # tolerance (failed once in three runs on a loaded box).
    lesson = neutral()
    now = lesson.last_seen + 30 * 86400
    (cand,) = ranking.rank(ctx, bash("echo hi"), [(lesson, 0.8)], now=now, min_score=0.0)
    assert cand.score == pytest.approx(0.8)
    assert all(v == pytest.approx(0.0) for v in cand.parts.values())


@pytest.mark.parametrize(
    "change,direction",
    [
        (dict(confidence=0.9), +1),
        (dict(confidence=0.1), -1),
        (dict(last_seen=time.time()), +1),
        (dict(last_seen=time.time() - 365 * 86400), -1),
        (dict(follows=5), +1),
        (dict(irrelevant=5), -1),
        (dict(superseded_by="abc"), -1),
        (dict(trigger="pytest tests/test_x.py"), +1),  # python action, python lesson
        (dict(trigger="npm install left-pad"), -1),  # python action, javascript lesson
        (dict(project="__PROJECT__"), +1),
    ],
)
def test_each_signal_moves_the_score(ctx, change, direction) -> None:
    event = bash("python -m pytest tests/test_store.py", cwd="/tmp/proj")
    if change.get("project") == "__PROJECT__":
        change = {"project": fingerprint("/tmp/proj")}
    (cand,) = ranking.rank(ctx, event, [(neutral(**change), 0.7)], min_score=0.0)
    assert (cand.score - 0.7) * direction > 0, cand.parts


def test_rank_orders_and_cuts_at_min_score(ctx) -> None:
    event = bash("git push --force origin main")
    a, b, c = neutral(text="a"), neutral(text="b"), neutral(text="c", superseded_by="a")
    ranked = ranking.rank(ctx, event, [(b, 0.6), (a, 0.9), (c, 0.7)])
    assert [x.exp.text for x in ranked] == ["a", "b"]  # c: 0.7 - 0.2 < min_score 0.55


@pytest.mark.parametrize(
    "text,tags,expected",
    [
        ("pytest tests/db", [], {"python"}),
        ("sudo pip install requests && npm ci", [], {"python", "javascript"}),
        ("Edit src/app.tsx", [], {"javascript"}),
        ("FOO=1 cargo build --release", [], {"rust"}),
        ("echo hello", ["Python"], {"python"}),
        ("docker compose up", [], {"docker"}),
        ("echo hello", [], set()),
    ],
)
def test_languages(text, tags, expected) -> None:
    assert ranking.languages(text, tags) == expected


@pytest.mark.parametrize(
    "answer,n,expected",
    [
        ("2", 3, [2]),
        ("1, 3", 3, [1, 3]),
        ("Lessons 3 and 1 apply.", 3, [3, 1]),
        ("none", 3, []),
        ("None of them.", 3, []),
        ("0", 3, []),
        ("7", 3, None),  # out of range only: unreadable
        ("banana", 3, None),
        (None, 3, None),
    ],
)
def test_parse_numbers(answer, n, expected) -> None:
    assert ranking.parse_numbers(answer, n) == expected


# -- the recall plugin, heuristics only --------------------------------------


def add(ctx, text: str, trigger: str, tier: Tier = Tier.RAW, **kw) -> Experience:
    exp = Experience(text=text, trigger=trigger, tier=int(tier), **kw)
    ctx.store.add(exp)
    return exp


def test_warns_once_per_session(ctx) -> None:
    exp = add(ctx, "Use --force-with-lease, never a bare --force", "git push --force origin main")
    first = recall.pre_tool(bash("git push --force origin main"), ctx)
    assert first is not None and first.action == "warn"
    assert [m.experience_id for m in first.matches] == [exp.id]
    assert "not instructions" in first.context and exp.text in first.context
    assert recall.pre_tool(bash("git push --force origin main"), ctx) is None  # dedup
    again = recall.pre_tool(bash("git push --force origin main", session="s2"), ctx)
    assert again is not None and again.action == "warn"  # a new session sees it again
    assert ctx.store.get(exp.id).hits == 2
    shown = ctx.session("s1").shown_log
    assert shown[0]["exp_id"] == exp.id and shown[0]["action"] == "git push --force origin main"


def test_session_budget_limits_warnings(ctx, monkeypatch) -> None:
    monkeypatch.setitem(ctx.config["retrieval"], "session_warning_budget", 2)
    monkeypatch.setitem(ctx.config["retrieval"], "max_warnings", 5)
    for i in range(4):
        add(ctx, f"lesson {i} about docker pruning", f"docker system prune -a --volumes #{i}")
    first = recall.pre_tool(bash("docker system prune -a --volumes"), ctx)
    assert first is not None and len(first.matches) == 2
    assert recall.pre_tool(bash("docker system prune -a --volumes -f"), ctx) is None  # budget spent


def test_rule_blocks_every_time(ctx) -> None:
    add(ctx, "Never force-push to main", "git push --force origin main", tier=Tier.RULE, confidence=0.9)
    for _ in range(2):
        decision = recall.pre_tool(bash("git push --force origin main"), ctx)
        assert decision is not None and decision.action == "deny"
        assert "Never force-push to main" in decision.reason


def test_unrelated_action_gets_nothing(ctx) -> None:
    add(ctx, "Never force-push to main", "git push --force origin main", tier=Tier.RULE)
    assert recall.pre_tool(bash("ls -la /tmp"), ctx) is None


# -- the LLM relevance filter ------------------------------------------------


def seed_three(ctx) -> list[Experience]:
    return [
        add(ctx, "Run pytest with -x to stop at the first failure", "pytest tests/"),
        add(ctx, "Set DJANGO_SETTINGS_MODULE before running pytest", "pytest tests/ for django"),
        add(ctx, "pytest needs the venv activated", "pytest tests/ outside the venv"),
    ]


def test_model_picks_which_candidates_apply(monkeypatch, tmp_path, server) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server)
    seed_three(ctx)
    heuristic = recall.find_candidates(ctx, bash("pytest tests/"))
    assert len(heuristic) >= 2
    server.set_script([("answer", "2")])
    decision = recall.pre_tool(bash("pytest tests/"), ctx)
    assert decision is not None and [m.experience_id for m in decision.matches] == [heuristic[1].exp.id]
    prompt = server.prompts()[-1]
    assert "pytest tests/" in prompt and "1. when:" in prompt and "2. when:" in prompt
    assert server.requests[-1]["max_tokens"] <= 32


def test_model_cannot_lift_a_block(monkeypatch, tmp_path, server) -> None:
    # The relevance filter may drop warnings, never switch a confirmed rule off:
    # a strongly matching rule blocks without asking the model at all.
    ctx = with_llm(monkeypatch, tmp_path, server)
    add(ctx, "Never force-push to main", "git push --force origin main", tier=Tier.RULE, confidence=0.9)
    server.set_script([("answer", "none")])
    decision = recall.pre_tool(bash("git push --force origin main"), ctx)
    assert decision is not None and decision.action == "deny"
    assert not server.requests


@pytest.mark.parametrize("mode", [("slow", 8.0, "1"), ("500",), ("garbage",), ("answer", "banana")])
def test_filter_fails_open_to_the_heuristic_ranking(monkeypatch, tmp_path, server, mode) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server, timeout_s=0.5, max_retries=1)
    seed_three(ctx)
    expected = [c.exp.id for c in recall.find_candidates(ctx, bash("pytest tests/"))][:3]
    server.set_script([mode])
    start = time.monotonic()
    decision = recall.pre_tool(bash("pytest tests/"), ctx)
    elapsed = time.monotonic() - start
    assert decision is not None and [m.experience_id for m in decision.matches] == expected
    # The 0.5 s LLM budget plus a search (~0.6 s), never the slow answer's 8 s: the
    # bound leaves a loaded 2-core box seconds of slack (1.5 s left it 0.9 s).
    assert elapsed < 4.0, elapsed
    # The model was asked: the request may land after the caller stopped waiting
    # (a loaded box stretches litellm's request building past the 0.5 s budget).
    deadline = time.monotonic() + 30
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.requests


def test_rule_still_blocks_when_the_model_is_down(monkeypatch, tmp_path, server) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server, timeout_s=0.5, max_retries=0)
    add(ctx, "Never force-push to main", "git push --force origin main", tier=Tier.RULE, confidence=0.9)
    server.set_script([("500",)])
    decision = recall.pre_tool(bash("git push --force origin main"), ctx)
    assert decision is not None and decision.action == "deny"


def test_filter_answers_are_cached_per_action(monkeypatch, tmp_path, server) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server)
    seed_three(ctx)
    server.set_script([("answer", "1")])
    recall.pre_tool(bash("pytest tests/", session="a"), ctx)
    recall.pre_tool(bash("pytest tests/", session="b"), ctx)
    assert len(server.requests) == 1


def test_filter_off_switch_and_no_model(monkeypatch, tmp_path, server) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server)
    seed_three(ctx)
    monkeypatch.setitem(ctx.config["ranking"], "llm_filter", False)
    assert recall.pre_tool(bash("pytest tests/"), ctx) is not None
    assert server.requests == []


def test_no_prompt_contains_a_planted_secret(monkeypatch, tmp_path, server) -> None:
    ctx = with_llm(monkeypatch, tmp_path, server)
    secret = "hunter2-PLANTED-secret"
    key = "sk-proj-PLANTEDplantedPLANTED123456"
    add(ctx, f"connect with postgres://admin:{secret}@db/app, not localhost", f"psql postgres://admin:{secret}@db/app")
    server.set_script([("answer", "1")])
    decision = recall.pre_tool(bash(f"OPENAI_API_KEY={key} psql postgres://admin:{secret}@db/app -c 'select 1'"), ctx)
    assert decision is not None
    assert server.requests
    raw = b"".join(server.raw_bodies).decode()
    assert secret not in raw and key not in raw and "PLANTED" not in raw


# -- the structured check (issue 16) ---------------------------------------------


def learned(ctx, mistake: str, fix: str, text: str, tier: Tier = Tier.RULE) -> Experience:
    from twiceshy.learning.ingest import store_lesson
    from twiceshy.lesson import signature as sg

    sig = sg.derive_command(mistake, fix)
    structured = sg.structured(sg.describe_call(mistake), sg.describe_call(fix), "error", sig, "error_fix", "Bash")
    exp, _ = store_lesson(ctx, text, mistake, kind="error_fix", project=fingerprint("/tmp/proj"), structured=structured)
    exp.tier = int(tier)
    ctx.store.update(exp)
    return exp


def test_rule_denies_the_mistake_and_names_the_fix_but_never_the_fix_itself(ctx) -> None:
    learned(ctx, "./deploy.sh --env staging", "./deploy.sh --env staging --region eu-west-1", "deploy needs --region")
    deny = recall.pre_tool(bash("./deploy.sh --env staging"), ctx)
    assert deny is not None and deny.action == "deny" and deny.matches
    assert "Instead: ./deploy.sh --env staging --region eu-west-1" in deny.reason
    assert recall.pre_tool(bash("./deploy.sh --env prod", session="s2"), ctx).action == "deny"  # same mistake
    for call in (
        "./deploy.sh --env staging --region eu-west-1",
        "./deploy.sh --help",
        "./deploy.sh --env prod --region us-east-1",
    ):
        assert recall.pre_tool(bash(call, session="s3"), ctx) is None, call


def test_a_lesson_without_a_signature_never_blocks(ctx) -> None:
    # A prose trigger (not a call): similarity alone may warn, never deny.
    add(ctx, "Deploys need the region flag", "deploying to staging without a region flag fails", tier=Tier.RULE)
    decision = recall.pre_tool(bash("deploying to staging without a region flag fails"), ctx)
    assert decision is None or decision.action != "deny"


def test_rules_about_other_subcommands_neither_block_nor_fill_the_cap(ctx) -> None:
    own = learned(ctx, "git push --force origin main", "git push --force-with-lease origin main", "no plain --force")
    others = [
        ("git stash drop", "git stash pop"),
        ("git rebase -i HEAD~3", "GIT_EDITOR=true git rebase -i HEAD~3"),
        ("git clean -fdx", "git clean -fd"),
        ("git commit --amend --no-edit", "git commit --fixup HEAD"),
        ("git pull origin main", "git pull --rebase origin main"),
        ("git tag -d v1", "git tag -d v1 && git push --delete origin v1"),
    ]
    for mistake, fix in others:
        learned(ctx, mistake, fix, f"lesson about {mistake}")
    decision = recall.pre_tool(bash("git push --force origin release"), ctx)
    assert decision is not None and decision.action == "deny"
    assert [m.experience_id for m in decision.matches] == [own.id]
    assert recall.pre_tool(bash("git push origin main", session="s2"), ctx) is None
    assert recall.pre_tool(bash("git log --oneline -5", session="s3"), ctx) is None


def test_structured_check_keeps_only_matching_candidates(ctx) -> None:
    exp = learned(ctx, "npm install", "pnpm install", "pnpm workspace", tier=Tier.RAW)
    hits = [(exp, 0.9)]
    candidates = ranking.rank(ctx, bash("npm install zod"), hits, min_score=0.0)
    kept = ranking.structured_check(bash("npm install zod"), candidates, 0.55)
    assert [c.exp.id for c in kept] == [exp.id] and kept[0].matched is True and "npm install" in kept[0].reason
    candidates = ranking.rank(ctx, bash("pnpm install"), hits, min_score=0.0)
    assert ranking.structured_check(bash("pnpm install"), candidates, 0.55) == []
