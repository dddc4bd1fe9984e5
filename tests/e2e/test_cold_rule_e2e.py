"""End to end with the real Claude Code CLI: a stored rule holds on the first call of a session that starts cold.

No engine runs when the session starts; a confirmed rule (``touch
forbidden.lock`` must not run) is stored; the scripted model asks for the
rule-breaking call first. Two runs:

* **autostart** (the default): the SessionStart hook starts the engine and
  waits for it, so its context reaches the model and the first pre-tool call
  finds a warm engine — or, if it is still loading, the client's rules
  snapshot;
* **no engine at all** (``TWICESHY_NO_AUTOSTART=1``): only the stdlib client
  and its rules snapshot stand between the model and the call.

Either way the call must not run (the file is never created), the deny reason
must reach the model in its next request, and every call the engine did not
answer must be in ``failopen.jsonl``.

The same for a lesson that is not a rule (held once, not denied): with no
engine, and with a session start that did not wait for the engine it started
(the first pre-tool call meets it loading, as after an idle exit): the hook
client holds it from the hold index (:mod:`twiceshy.hooks.coldhold`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import Twiceshy, base_env, request_text, stop_engine
from .drivers import run_claude
from .fake_anthropic import FakeAnthropic, TextStep, ToolStep

AGENT = "claude-code"
RULE_CMD = "touch forbidden.lock"
RULE_FILE = "forbidden.lock"
RULE_LESSON = "never create forbidden.lock by hand; that lock file belongs to the deploy daemon"


def _session(tmp: Path, extra_env: dict[str, str], tier: str = "rule") -> dict:
    home, project, agent_home = tmp / "tshome", tmp / "proj", tmp / "agenthome"
    for path in (home, project, agent_home):
        path.mkdir(parents=True, exist_ok=True)
    env = base_env(agent_home) | {
        "TWICESHY_HOME": str(home),
        "TWICESHY_CONFIG_DIR": str(home / "config"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    ts = Twiceshy(env)
    ts("install", "--agent", AGENT, "--scope", "project", "--project-dir", str(project))
    ts("learn", RULE_LESSON, "--trigger", RULE_CMD, "--tier", tier, cwd=project)
    assert not list((home / "run").glob("engine.pid")), "an engine is running before the session"
    rules = json.loads((home / "rules.json").read_text())["rules"]
    if tier == "rule":
        assert len(rules) == 1 and rules[0]["signature"], rules
    else:
        assert rules == [] and list((home / "hold_index").glob("[0-9][0-9].json")), "the lesson is not indexed"
    server = FakeAnthropic(
        steps=[ToolStep("Bash", {"command": RULE_CMD, "description": "make the lock"}), TextStep("ok")]
    )
    saved = {k: os.environ.get(k) for k in extra_env}
    os.environ.update(extra_env)  # base_env passes TWICESHY_* on to the CLI (and so to its hooks)
    try:
        with server:
            proc = run_claude("create the lock file", project, agent_home, server)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        stop_engine(ts, home)
    failopen = home / "failopen.jsonl"
    return {
        "proc": proc,
        "project": project,
        "home": home,
        "server": server,
        "failopen": [json.loads(line) for line in failopen.read_text().splitlines()] if failopen.exists() else [],
    }


def _assert_rule_held(run: dict) -> None:
    proc = run["proc"]
    assert proc.returncode == 0, proc.stderr
    assert not (run["project"] / RULE_FILE).exists(), "the rule-breaking call ran"
    turns = run["server"].main_requests()
    assert len(turns) >= 2, [request_text(t)[-300:] for t in turns]
    results = [
        b
        for m in turns[1]["messages"]
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert results and RULE_LESSON in json.dumps(results[-1]), results


@pytest.fixture(scope="module")
def autostart(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _session(tmp_path_factory.mktemp("cold-auto"), {})


@pytest.fixture(scope="module")
def no_engine(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _session(tmp_path_factory.mktemp("cold-none"), {"TWICESHY_NO_AUTOSTART": "1"})


def test_rule_holds_on_the_first_call_of_a_cold_session(autostart: dict) -> None:
    _assert_rule_held(autostart)
    # SessionStart waited for the engine it started: its context reached the model up front.
    first = request_text(autostart["server"].main_requests()[0])
    assert "forbidden.lock" in first
    # Anything the engine did not answer is on record; a pre-tool call it missed was denied from the snapshot.
    pre = [r for r in autostart["failopen"] if r["kind"] == "pre"]
    assert all(r["outcome"] == "denied" for r in pre), pre
    assert not [r for r in autostart["failopen"] if r["kind"] == "start"], autostart["failopen"]


def test_rule_holds_with_no_engine_at_all(no_engine: dict) -> None:
    _assert_rule_held(no_engine)
    pre = [r for r in no_engine["failopen"] if r["kind"] == "pre"]
    assert [(r["outcome"], r["reason"]) for r in pre] == [("denied", "no_engine")], no_engine["failopen"]
    # the session's other hooks failed open, each on record with its reason
    kinds = {r["kind"] for r in no_engine["failopen"]}
    assert {"start", "pre"} <= kinds and all(r["reason"] == "no_engine" for r in no_engine["failopen"])


# A lesson that is not a rule: the engine holds its mistake once. Cold, the hook client holds
# it from the hold index (issue 30 item 4): with no engine at all, and on the first call of a
# session whose start did not wait for the engine (as after an idle exit mid-session).


@pytest.fixture(scope="module")
def lesson_no_engine(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _session(tmp_path_factory.mktemp("cold-lesson-none"), {"TWICESHY_NO_AUTOSTART": "1"}, tier="raw")


@pytest.fixture(scope="module")
def lesson_starting(tmp_path_factory: pytest.TempPathFactory) -> dict:
    # The session start gives up after 1 ms: the first pre-tool call meets an engine still loading.
    return _session(
        tmp_path_factory.mktemp("cold-lesson-starting"),
        {"TWICESHY_HOOK__START_BUDGET_MS": "1", "TWICESHY_HOOK__BUDGET_MS": "50"},
        tier="raw",
    )


def _assert_lesson_held(run: dict) -> None:
    _assert_rule_held(run)  # the call did not run, and the lesson reached the model in the tool result
    turns = run["server"].main_requests()
    assert "Held once by twiceshy" in json.dumps(turns[1]["messages"]), "not a one-time hold"


def test_a_lesson_holds_with_no_engine_at_all(lesson_no_engine: dict) -> None:
    _assert_lesson_held(lesson_no_engine)
    pre = [r for r in lesson_no_engine["failopen"] if r["kind"] == "pre"]
    assert [(r["outcome"], r["reason"]) for r in pre] == [("held", "no_engine")], lesson_no_engine["failopen"]


def test_a_lesson_holds_the_first_call_while_the_engine_starts(lesson_starting: dict) -> None:
    _assert_lesson_held(lesson_starting)
    # Whoever answered the first call (the engine, if it was up within the 50 ms budget; the client
    # from the index otherwise: on this machine always the client) held it, once; nothing let through.
    pre = [r for r in lesson_starting["failopen"] if r["kind"] == "pre"]
    assert all(r["outcome"] == "held" and r["reason"] in ("starting", "timeout") for r in pre), pre
    assert len(pre) <= 1, pre
