"""The judge: heuristic verdicts, the persistent idempotent queue, the worker,
the model as judge (real local server) and verdicts reaching the lesson."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from llm_server import FakeLLMServer, llm_env
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.brain import llm
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_event
from twiceshy.recall import judge, ranking


def event(kind: str, command: str, session: str = "s1", call: str | None = None, **kw) -> CoreEvent:
    return CoreEvent(
        kind=kind, agent="claude-code", native_event="PreToolUse" if kind == "pre_tool" else "PostToolUse",
        session_id=session, cwd="/tmp/proj", tool_name="Bash", tool_input={"command": command},
        raw={"tool_use_id": call} if call else {}, **kw,
    )  # fmt: skip


def run_call(ctx, command: str, call: str, session: str = "s1", output: str = "", success: bool = True):
    """One tool call through every plugin: pre_tool, then — as an agent does
    unless the call was denied (held or blocked) — post_tool."""
    decision = handle_event(ctx, event("pre_tool", command, session, call))
    if decision.action != "deny":
        handle_event(ctx, event("post_tool", command, session, call, tool_output=output, success=success))
    return decision


def context_mode(ctx) -> None:
    """retrieval.warn: context — the pre-tool warning as additionalContext, which
    every measured CLI delivers with the call's result (a *late* warning)."""
    ctx.config["retrieval"]["warn"] = "context"


def force_push_lesson(ctx) -> Experience:
    exp = Experience(text="Use --force-with-lease, never a bare --force", trigger="git push --force origin main")
    ctx.store.add(exp)
    return exp


@pytest.fixture(autouse=True)
def fresh_cache():
    ranking.clear_cache()


# -- heuristic -----------------------------------------------------------------

TRIGGER = "git push --force origin main"
LESSON = "Use --force-with-lease, never a bare --force"


@pytest.mark.parametrize(
    "action,same_call,expected",
    [
        ("git push --force origin main", True, "UNCLEAR"),  # the warned call itself: ran before any reaction
        ("npm install left-pad", True, "IRRELEVANT"),  # shown for something the lesson is not about
        ("git push --force origin main", False, "IGNORED"),  # did it again, verbatim
        ("git  push --force  origin main ", False, "IGNORED"),
        ("git push --force origin main -v", False, "IGNORED"),
        ("git push --force-with-lease origin main", False, "FOLLOWED"),
        ("git status", False, "UNCLEAR"),
        ("ls -la", False, "UNCLEAR"),
    ],
)
def test_heuristic_verdicts(action, same_call, expected) -> None:
    item = {"action": action, "trigger": TRIGGER, "lesson": LESSON, "shown_action": TRIGGER, "same_call": same_call}
    assert judge.heuristic_verdict(item) == expected


FIX = "git push --force-with-lease origin main"


@pytest.mark.parametrize(
    "action,expected",
    [
        (TRIGGER, "IGNORED"),  # the held call sent again unchanged
        ("git  push --force origin  main", "IGNORED"),
        ("git push -f origin main", "IGNORED"),  # the same mistake reworded
        (FIX, "FOLLOWED"),  # the fix the lesson names
        ("git push --force origin main --force-with-lease", "FOLLOWED"),  # only added to the mistake
        ("ls -la", "UNCLEAR"),  # says nothing yet: the window decides
    ],
)
def test_heuristic_verdicts_after_a_hold(action, expected) -> None:
    item = {"action": action, "trigger": TRIGGER, "lesson": LESSON, "shown_action": TRIGGER, "kind": "hold", "fix": FIX}
    assert judge.heuristic_verdict(item) == expected


@pytest.mark.parametrize(
    "kind,verdict,final,expected",
    [
        ("late", "FOLLOWED", False, "UNCLEAR"),  # arrived after the mistake ran: never avoided
        ("late", "FOLLOWED", True, "UNCLEAR"),
        ("late", "IGNORED", False, "IGNORED"),  # saw it, did it again
        ("hold", "UNCLEAR", True, "UNCLEAR"),  # held, nothing related followed: unclear, not avoided
        ("hold", "UNCLEAR", False, "UNCLEAR"),
        ("hold", "IGNORED", False, "IGNORED"),
        ("warn", "FOLLOWED", False, "FOLLOWED"),  # reached the model before the call
        ("warn", "UNCLEAR", True, "UNCLEAR"),
    ],
)
def test_delivery_bounds_the_verdict(kind, verdict, final, expected) -> None:
    assert judge.delivery_adjusted({"kind": kind, "final": final}, verdict, "heuristic")[0] == expected


def test_heuristic_sees_a_different_approach_as_followed() -> None:
    item = {
        "action": "python -m venv .venv && .venv/bin/pip install requests",
        "trigger": "sudo pip install requests",
        "lesson": "Install into a venv, never with sudo pip",
        "shown_action": "sudo pip install requests",
        "same_call": False,
    }
    assert judge.heuristic_verdict(item) == "FOLLOWED"


@pytest.mark.parametrize(
    "answer,expected",
    [("FOLLOWED", "FOLLOWED"), ("ignored.", "IGNORED"), ("Verdict: IRRELEVANT", "IRRELEVANT"),
     ("FOLLOWED or IGNORED", None), ("yes", None), (None, None)],
)  # fmt: skip
def test_parse_verdict(answer, expected) -> None:
    assert judge.parse_verdict(answer) == expected


# -- the loop through the plugins, heuristics only ----------------------------


def test_held_call_then_the_fix_is_followed(ctx) -> None:
    exp = force_push_lesson(ctx)
    held = run_call(ctx, "git push --force origin main", "t1", output="rejected")
    assert (held.action, held.hold) == ("deny", True) and LESSON in held.reason
    fix = run_call(ctx, "git push --force-with-lease origin main", "t2")
    assert fix.action != "deny"
    assert len(judge.pending()) == 1  # the held call never ran: only the call after it is judged
    assert judge.process_pending(ctx) == 1
    assert judge.pending() == []
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    assert [(v["verdict"], v["counted"], v["kind"]) for v in ledger] == [("FOLLOWED", 1, "hold")]
    assert ctx.store.get(exp.id).follows == 1


def test_late_warning_is_never_followed(ctx) -> None:
    context_mode(ctx)
    exp = force_push_lesson(ctx)
    warned = run_call(ctx, "git push --force origin main", "t1", output="rejected")
    assert warned.action == "warn" and not warned.hold
    run_call(ctx, "git push --force-with-lease origin main", "t2")
    assert len(judge.pending()) == 2  # the warned call itself (it ran), and the one after
    judge.process_pending(ctx)
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    assert [(v["verdict"], v["kind"]) for v in ledger] == [("UNCLEAR", "late"), ("UNCLEAR", "late")]
    got = ctx.store.get(exp.id)
    assert (got.follows, got.ignores) == (0, 0)


def test_late_warning_repeated_is_ignored(ctx) -> None:
    context_mode(ctx)
    exp = force_push_lesson(ctx)
    run_call(ctx, "git push --force origin main", "t1")
    run_call(ctx, "git push --force origin main", "t2")
    judge.process_pending(ctx)
    assert ctx.store.get(exp.id).ignores == 1


def test_silent_warning_is_not_judged(ctx) -> None:
    ctx.config["retrieval"]["warn"] = "off"
    exp = force_push_lesson(ctx)
    quiet = run_call(ctx, "git push --force origin main", "t1")
    assert quiet.is_silent
    run_call(ctx, "git push --force-with-lease origin main", "t2")
    assert judge.pending() == []
    log = ctx.session("s1")["shown_log"]  # still recorded
    assert [(e["exp_id"], e["kind"]) for e in log] == [(exp.id, "silent")]


def test_three_followed_verdicts_promote(ctx) -> None:
    exp = force_push_lesson(ctx)
    for n in range(3):
        session = f"s{n}"
        run_call(ctx, "git push --force origin main", f"a{n}", session=session)
        run_call(ctx, "git push --force-with-lease origin main", f"b{n}", session=session)
    judge.process_pending(ctx)
    got = ctx.store.get(exp.id)
    assert got.follows == 3 and got.ignores == 0
    assert got.tier < int(Tier.RAW)
    assert got.confidence > exp.confidence


def test_held_call_sent_again_is_ignored(ctx) -> None:
    exp = force_push_lesson(ctx)
    assert run_call(ctx, "git push --force origin main", "t1").hold
    retry = run_call(ctx, "git push --force origin main", "t2")  # the model insists: it passes
    assert retry.action != "deny"
    judge.process_pending(ctx)
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    assert [(v["verdict"], v["kind"]) for v in ledger] == [("IGNORED", "hold")]
    assert ctx.store.get(exp.id).ignores == 1


def test_a_result_applied_late_is_not_the_reaction_to_a_later_hold(ctx) -> None:
    """post_tool is spooled: the fix's result can be applied after the next call was held."""
    exp = force_push_lesson(ctx)
    fix = "git push --force-with-lease origin main"
    assert handle_event(ctx, event("pre_tool", fix, "s1", "t1")).action == "allow"
    assert handle_event(ctx, event("pre_tool", TRIGGER, "s1", "t2")).hold
    handle_event(ctx, event("post_tool", fix, "s1", "t1"))  # the fix ran first; its result arrives now
    assert judge.pending() == []
    handle_event(ctx, event("pre_tool", TRIGGER, "s1", "t3"))  # the identical retry passes and runs
    handle_event(ctx, event("post_tool", TRIGGER, "s1", "t3", success=False))
    judge.process_pending(ctx)
    assert [v["verdict"] for v in judge.verdicts(judge.warning_id("s1", exp.id))] == ["IGNORED"]


def test_a_hold_nothing_followed_is_unclear_at_session_end(ctx) -> None:
    exp = force_push_lesson(ctx)
    assert run_call(ctx, TRIGGER, "t1").hold
    stop = CoreEvent(kind="stop", agent="claude-code", native_event="Stop", session_id="s1", cwd="/tmp/proj")
    handle_event(ctx, stop)  # the end of a turn: the user may still say "run it anyway"
    assert judge.pending() == []
    end = CoreEvent(
        kind="session_end", agent="claude-code", native_event="SessionEnd", session_id="s1", cwd="/tmp/proj"
    )
    handle_event(ctx, end)
    judge.process_pending(ctx)
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    # Not "avoided": only a call that has what the fix adds shows the mistake was avoided.
    assert [(v["outcome"], v["verdict"], v["counted"]) for v in ledger] == [("unclear", "UNCLEAR", 1)]
    assert ctx.store.get(exp.id).follows == 0
    # A hold the model overrode stays what it was at session end.
    assert run_call(ctx, TRIGGER, "t2", session="s2").hold
    run_call(ctx, TRIGGER, "t3", session="s2")
    handle_event(ctx, CoreEvent(**{**end.to_dict(), "session_id": "s2"}))
    judge.process_pending(ctx)
    assert [v["outcome"] for v in judge.verdicts(judge.warning_id("s2", exp.id)) if v["counted"]] == ["ignored"]


def test_hold_window_closing_with_nothing_related_is_unclear(ctx, monkeypatch) -> None:
    monkeypatch.setitem(ctx.config["judge"], "window", 2)
    exp = force_push_lesson(ctx)
    assert run_call(ctx, "git push --force origin main", "t1").hold
    for i, cmd in enumerate(["ls -la", "cat README.md", "echo done"]):
        run_call(ctx, cmd, f"u{i}")
    assert len(judge.pending()) == 2  # 2 calls in the window; the third is past it
    judge.process_pending(ctx)
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    assert [(v["outcome"], v["counted"]) for v in ledger] == [("unclear", 0), ("unclear", 1)]
    assert ctx.store.get(exp.id).follows == 0


def test_window_closes_with_one_unclear(ctx, monkeypatch) -> None:
    context_mode(ctx)
    monkeypatch.setitem(ctx.config["judge"], "window", 2)
    exp = force_push_lesson(ctx)
    run_call(ctx, "git push --force origin main", "t1")
    for i, cmd in enumerate(["ls -la", "cat README.md", "echo done"]):
        run_call(ctx, cmd, f"u{i}")
    assert len(judge.pending()) == 3  # own call + 2 in the window; the third call is past it
    judge.process_pending(ctx)
    ledger = judge.verdicts(judge.warning_id("s1", exp.id))
    assert [(v["verdict"], v["counted"]) for v in ledger] == [("UNCLEAR", 0), ("UNCLEAR", 0), ("UNCLEAR", 1)]
    got = ctx.store.get(exp.id)
    assert (got.follows, got.ignores, got.irrelevant) == (0, 0, 0)


def test_only_the_first_decisive_verdict_counts(ctx) -> None:
    exp = force_push_lesson(ctx)
    run_call(ctx, "git push --force origin main", "t1")
    run_call(ctx, "git push --force-with-lease origin main", "t2")  # FOLLOWED
    run_call(ctx, "git push --force origin main", "t3")  # would be IGNORED: the warning is resolved
    judge.process_pending(ctx)
    got = ctx.store.get(exp.id)
    assert (got.follows, got.ignores) == (1, 0)


# -- the queue -------------------------------------------------------------------


def sample_item(key: str = "k1", exp_id: str = "e1", **kw) -> dict:
    item = {
        "key": key, "warning": f"s1:{exp_id}", "session_id": "s1", "exp_id": exp_id, "lesson": LESSON,
        "trigger": TRIGGER, "shown_action": TRIGGER, "action": "git push --force-with-lease origin main",
        "same_call": False, "final": False, "tool_name": "Bash", "shown_tool": "Bash",
    }  # fmt: skip
    item.update(kw)
    return item


def test_the_same_item_twice_counts_once(ctx) -> None:
    exp = force_push_lesson(ctx)
    item = sample_item(exp_id=exp.id)
    assert judge.enqueue([item]) == 1
    assert judge.enqueue([item]) == 0  # a hook firing twice
    judge.process_pending(ctx)
    assert judge.enqueue([item]) == 0  # replayed after it was applied
    assert judge.process_pending(ctx) == 0
    assert ctx.store.get(exp.id).follows == 1


def test_item_stays_until_its_verdict_is_applied(ctx, monkeypatch) -> None:
    exp = force_push_lesson(ctx)
    judge.enqueue([sample_item(exp_id=exp.id)])
    import twiceshy.learning.evolve as evolve

    def broken(*a, **k):
        raise RuntimeError("store is down")

    with monkeypatch.context() as patch:
        patch.setattr(evolve, "record_outcome", broken)
        assert judge.process_pending(ctx) == 0
        assert len(judge.pending()) == 1
    assert judge.process_pending(ctx) == 1
    assert judge.pending() == [] and ctx.store.get(exp.id).follows == 1


def test_a_verdict_that_never_applies_is_dropped_eventually(ctx, monkeypatch) -> None:
    judge.enqueue([sample_item(exp_id="e-missing")])
    import twiceshy.learning.evolve as evolve

    monkeypatch.setattr(evolve, "record_outcome", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("no")))
    for _ in range(judge.MAX_ATTEMPTS):
        judge.process_pending(ctx)
    assert judge.pending() == []


def test_queue_survives_a_restart(tmp_path: Path, twiceshy_home: Path) -> None:
    # Another process enqueues and exits without judging (an engine that stopped).
    code = textwrap.dedent(
        f"""
        from twiceshy.recall import judge
        judge.enqueue([{sample_item(exp_id="e1")!r}, {sample_item(key="k2", exp_id="e2")!r}])
        """
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert judge.queue_path().is_file()
    with sqlite3.connect(judge.queue_path()) as conn:
        assert conn.execute("SELECT COUNT(*) FROM queue").fetchone()[0] == 2
    ctx = make_context(tmp_path)
    assert {i["key"] for i in judge.pending()} == {"k1", "k2"}
    assert judge.process_pending(ctx) == 2  # record_verdict on unknown lessons is a no-op
    assert judge.pending() == []


def test_claimed_items_are_left_to_their_owner(ctx) -> None:
    judge.enqueue([sample_item(exp_id="e1")])
    with sqlite3.connect(judge.queue_path()) as conn:
        conn.execute("UPDATE queue SET claimed_by='other:1', claimed_at=?", (time.time(),))
    assert judge.process_pending(ctx) == 0
    with sqlite3.connect(judge.queue_path()) as conn:
        conn.execute("UPDATE queue SET claimed_at=?", (time.time() - judge.CLAIM_TTL_S - 1,))
    assert judge.process_pending(ctx) == 1  # a stale claim (crashed worker) is taken over


def test_worker_drains_the_queue(ctx) -> None:
    exp = force_push_lesson(ctx)
    thread = judge.start_worker(ctx, poll_s=0.2)
    try:
        assert judge.start_worker(ctx) is thread and thread.daemon
        judge.enqueue([sample_item(exp_id=exp.id)])
        deadline = time.monotonic() + 15
        while judge.pending() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert judge.pending() == []
    finally:
        judge.stop_worker()
    assert not thread.is_alive()
    assert ctx.store.get(exp.id).follows == 1


def test_judge_registers_an_engine_worker(ctx) -> None:
    from twiceshy.builtins import judge as judge_plugin

    assert judge_plugin.judge_worker in ctx.workers()  # through the register_workers hook, not at import


def test_nothing_secret_is_stored_in_the_queue(ctx) -> None:
    context_mode(ctx)
    force_push_lesson(ctx)
    secret = "hunter2-PLANTED"
    run_call(ctx, "git push --force origin main", "t1", output=f"password={secret}")
    run_call(ctx, f"PGPASSWORD={secret} psql postgres://app:{secret}@db/app && git push --force origin main", "t2")
    assert len(judge.pending()) == 2
    for path in judge.queue_path().parent.glob("judge.sqlite3*"):
        assert secret.encode() not in path.read_bytes()


# -- the model as judge ----------------------------------------------------------


@pytest.fixture
def server():
    with FakeLLMServer([("answer", "IGNORED")]) as srv:
        yield srv


def llm_ctx(monkeypatch, tmp_path, server, **overrides):
    llm.litellm_module()
    overrides.setdefault("timeout_s", 10.0)  # generous: a loaded CI box must not flake the answer paths
    for name, value in llm_env(server, **overrides).items():
        monkeypatch.setenv(name, value)
    return make_context(tmp_path)


def test_model_verdict_is_used(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    context_mode(ctx)
    exp = force_push_lesson(ctx)
    monkeypatch.setitem(ctx.config["ranking"], "llm_filter", False)  # judge requests only
    secret = "sk-proj-PLANTEDjudgeSECRET0123456789"
    run_call(ctx, "git push --force origin main", "t1", output=f"OPENAI_API_KEY={secret}")
    run_call(ctx, "git push --force-with-lease origin main", "t2")
    server.set_script([("answer", "UNCLEAR"), ("answer", "IGNORED")])
    judge.process_pending(ctx)
    assert [v["source"] for v in judge.verdicts()] == ["llm", "llm"]
    assert ctx.store.get(exp.id).ignores == 1  # the model overruled the heuristic's FOLLOWED
    prompts = server.prompts()
    assert "<lesson>Use --force-with-lease" in prompts[1] and "git push --force-with-lease" in prompts[1]
    assert "very call the lesson was shown for" in prompts[0]
    assert secret not in b"".join(server.raw_bodies).decode()


def test_model_is_asked_only_what_the_calls_leave_open(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    monkeypatch.setitem(ctx.config["ranking"], "llm_filter", False)  # judge requests only
    exp = force_push_lesson(ctx)
    # Held, then another way around the mistake: neither the held call nor the fix. The model decides.
    assert run_call(ctx, TRIGGER, "t1").hold
    run_call(ctx, "git pull --rebase origin main && git push origin main", "t2")
    server.set_script([("answer", "FOLLOWED")])
    judge.process_pending(ctx)
    assert [(v["outcome"], v["source"], v["kind"]) for v in judge.verdicts()] == [("avoided", "llm", "hold")]
    assert "was held (it did NOT run)" in server.prompts()[0]
    assert ctx.store.get(exp.id).follows == 1
    # Held, then the fix (the calls show it), or sent again unchanged: certain without a model.
    assert run_call(ctx, TRIGGER, "t3", session="s2").hold
    run_call(ctx, "git push --force-with-lease origin main", "t4", session="s2")
    assert run_call(ctx, TRIGGER, "t5", session="s3").hold
    run_call(ctx, TRIGGER, "t6", session="s3")
    judge.process_pending(ctx)
    assert len(server.prompts()) == 1
    assert judge.verdicts(judge.warning_id("s2", exp.id))[0]["outcome"] == "avoided"
    assert judge.verdicts(judge.warning_id("s3", exp.id))[0]["outcome"] == "ignored"


def test_the_model_cannot_overrule_what_the_calls_show(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    monkeypatch.setitem(ctx.config["ranking"], "llm_filter", False)
    exp = force_push_lesson(ctx)
    server.set_script([("answer", "FOLLOWED")] * 4)
    assert run_call(ctx, TRIGGER, "t1").hold
    run_call(ctx, TRIGGER + " -v", "t2")  # still the mistake (the check says so), and it ran
    judge.process_pending(ctx)
    assert [v["outcome"] for v in judge.verdicts()] == ["ignored"]
    assert server.prompts() == []
    assert ctx.store.get(exp.id).follows == 0


@pytest.mark.parametrize("mode", [("answer", "maybe?"), ("500",), ("slow", 3.0, "IGNORED")])
def test_model_failure_falls_back_to_the_heuristic(monkeypatch, tmp_path, server, mode) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server, max_retries=0)
    monkeypatch.setitem(ctx.config["judge"], "timeout_s", 0.5)
    exp = force_push_lesson(ctx)
    judge.enqueue([sample_item(exp_id=exp.id)])
    server.set_script([mode])
    judge.process_pending(ctx)
    assert [(v["verdict"], v["source"]) for v in judge.verdicts()] == [("FOLLOWED", "heuristic")]
    assert ctx.store.get(exp.id).follows == 1


def test_unrelated_calls_cost_no_tokens(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    judge.enqueue([sample_item(action="ls -la /tmp")])
    judge.process_pending(ctx)
    assert server.requests == []
    assert judge.verdicts()[0]["verdict"] == "UNCLEAR"


# -- inside the real engine ------------------------------------------------------


def test_the_engine_judges_in_its_background_worker(twiceshy_home: Path) -> None:
    import json

    import test_engine as eng  # its process helpers: start, hook client, kill

    home = twiceshy_home
    seed = (
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        f"store_lesson(make_context(None), {LESSON!r}, {TRIGGER!r})\n"
    )
    subprocess.run([sys.executable, "-c", seed], env=eng.env_for(home), check=True, timeout=90)
    status = eng.start_engine(home, TWICESHY_RETRIEVAL__WARN="hold")  # test_engine's helpers default to context
    try:
        assert "judge_worker" in status.get("workers", []), status

        def call(command: str, call_id: str):
            base = {
                "session_id": "live-1",
                "cwd": "/tmp",
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "tool_use_id": call_id,
            }
            pre = eng.hook(home, "PreToolUse", {**base, "hook_event_name": "PreToolUse"})
            eng.hook(home, "PostToolUse", {**base, "hook_event_name": "PostToolUse", "tool_response": {"stdout": "ok"}})
            return pre

        # Held; the PostToolUse sent for the held call itself (same tool-use id) is not a later call.
        warned = call(TRIGGER, "toolu_a")
        assert LESSON in warned.stdout.decode() + warned.stderr.decode() and b"Held once" in warned.stdout
        call("git push --force-with-lease origin main", "toolu_b")
        counted = eng.wait_for(lambda: [v for v in judge.verdicts() if v["counted"]], timeout=40, step=0.2)
        assert [v["verdict"] for v in counted] == ["FOLLOWED"], json.dumps(judge.verdicts())
        assert judge.pending() == []
        read = "from twiceshy.engine.context import make_context\nprint([e.follows for e in make_context(None).store.all()])"
        out = subprocess.run(
            [sys.executable, "-c", read], env=eng.env_for(home), capture_output=True, text=True, timeout=90
        )
        assert out.stdout.strip() == "[1]", out.stdout + out.stderr
    finally:
        eng.kill_engines(home)
