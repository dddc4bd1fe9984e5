"""End to end with the real Claude Code CLI and ``twiceshy install --transport http``.

The tool events are ``type: "http"`` hooks: Claude Code POSTs them to the engine on
127.0.0.1 with the token from ``.claude/settings.local.json``'s ``env``; SessionStart,
UserPromptSubmit, Stop and SessionEnd stay command hooks. Three sessions, each with a
rule-tier lesson (``echo deploy > forbidden.lock``) and a raw lesson (``touch
warned.txt``) stored through the real CLI, and a scripted model that asks for the warned
call, then the forbidden one:

* **engine running**: the warned call is held (the default ``hold`` delivery: a deny that
  lets the retry through) and the forbidden call denied — both before they run, both
  reasons in the model's next request — and every tool event reached the engine over HTTP
  (its event log says ``transport: http``), none through a hook process;
* **engine cold, autostart**: SessionStart's command hook starts the engine and waits for
  it, so the first HTTP pre-tool call finds it and the rule holds;
* **engine down** (``TWICESHY_NO_AUTOSTART=1``, nothing listens on the port): Claude Code
  treats the refused connection as a non-blocking hook error and the session goes on —
  *both calls run*. That is the documented cost of the http transport (docs/engine.md);
* **engine hung**: a plugin in the engine blocks every pre-tool answer (until the test lets
  it go, after the session). The listener answers within the hook budget (400 ms) from the
  rules snapshot and the hold index, as the stdlib client would: the rule still denies its
  call, the raw lesson still holds its own (once), both are in ``failopen.jsonl``, and no
  call waits anywhere near Claude Code's own 1 s timeout.

``--debug-file`` is on: Claude Code's own log has a line when it POSTs and one when the
answer arrives, which bench/http_hooks.py reads for the latency Claude Code sees.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from .conftest import Twiceshy, base_env, require_cli, run_cli, stop_engine
from .fake_anthropic import FakeAnthropic, TextStep, ToolStep
from .scenario import DENY_CMD, DENY_FILE, DENY_LESSON, WARN_CMD, WARN_FILE, WARN_LESSON, wait_for_event

AGENT = "claude-code"


HANG_PLUGIN = """# Test plugin: every pre-tool answer waits until $TSHANG_RELEASE exists (at most 60 s).
import os
import time

from twiceshy.plugin.hookspecs import hookimpl


@hookimpl
def pre_tool(event, ctx):
    deadline = time.monotonic() + 60
    while not os.path.exists(os.environ["TSHANG_RELEASE"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return None
"""


def _hang_plugin(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tshang_plugin.py").write_text(HANG_PLUGIN)
    info = folder / "tshang_plugin-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tshang-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[twiceshy]\ntshang = tshang_plugin\n")
    return folder


def _session(tmp: Path, engine: str) -> dict[str, Any]:
    """``engine``: ``running`` (started before the session), ``cold`` (hooks start it),
    ``down`` (no engine, no autostart) or ``hung`` (running, every pre-tool answer blocked)."""
    require_cli("claude")
    home, project, agent_home = tmp / "tshome", tmp / "proj", tmp / "agenthome"
    for path in (home, project, agent_home):
        path.mkdir(parents=True, exist_ok=True)
    env = base_env(agent_home) | {
        "TWICESHY_HOME": str(home),
        "TWICESHY_CONFIG_DIR": str(home / "config"),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    ts = Twiceshy(env)
    install = ts(
        "install", "--agent", AGENT, "--scope", "project", "--project-dir", str(project), "--transport", "http"
    )
    ts("learn", WARN_LESSON, "--trigger", WARN_CMD, cwd=project)
    ts("learn", DENY_LESSON, "--trigger", DENY_CMD, "--tier", "rule", cwd=project)
    if engine == "running":
        ts("engine", "start")
    release = tmp / "release"
    hung: subprocess.Popen[bytes] | None = None
    if engine == "hung":
        # The engine module as hooks start it, minus -I so PYTHONPATH finds the plugin.
        plugins = _hang_plugin(tmp / "plugins")
        hang_env = env | {"PYTHONPATH": str(plugins), "TSHANG_RELEASE": str(release)}
        with open(home / "engine.log", "ab") as log:
            hung = subprocess.Popen(
                [sys.executable, "-m", "twiceshy.engine", "serve", "--home", str(home)],
                env=hang_env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        assert wait_for_event(home / "engine.log", "serving", timeout_s=120), (home / "engine.log").read_text()
    server = FakeAnthropic(
        steps=[
            ToolStep("Bash", {"command": WARN_CMD, "description": "make the file"}),
            ToolStep("Bash", {"command": DENY_CMD, "description": "write the lock"}),
            TextStep("done"),
        ]
    )
    debug = tmp / "claude-debug.log"
    cc_env = env | {
        "ANTHROPIC_BASE_URL": "",  # set below, once the server has a port
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    if engine == "down":
        cc_env["TWICESHY_NO_AUTOSTART"] = "1"
    try:
        with server:
            cc_env["ANTHROPIC_BASE_URL"] = server.url
            argv = [str(require_cli("claude")), "-p", "create the files", "--output-format", "json"]
            argv += ["--allowedTools", "Bash", "--debug-file", str(debug)]
            proc = run_cli(argv, project, cc_env)
        release.write_text("go")
        if engine != "down":
            wait_for_event(home / "events.jsonl", '"SessionEnd"')
            ts("engine", "stop")  # flushes the event log
    finally:
        release.write_text("go")
        stop_engine(ts, home)
        if hung is not None:
            hung.wait(60)
    events_file, failopen = home / "events.jsonl", home / "failopen.jsonl"
    return {
        "proc": proc,
        "project": project,
        "home": home,
        "server": server,
        "install": install.stdout,
        "debug": debug.read_text(errors="replace") if debug.exists() else "",
        "events": [json.loads(x) for x in events_file.read_text().splitlines()] if events_file.exists() else [],
        "failopen": [json.loads(x) for x in failopen.read_text().splitlines()] if failopen.exists() else [],
    }


def _result(run: dict[str, Any]) -> dict[str, Any]:
    assert run["proc"].returncode == 0, run["proc"].stderr[-3000:]
    return json.loads(run["proc"].stdout)


def _tool_results(run: dict[str, Any]) -> list[str]:
    """The text of each tool result the model was sent, in order (the last request holds all)."""
    last = run["server"].main_requests()[-1]
    return [
        json.dumps(b, ensure_ascii=False)
        for m in last["messages"]
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _session(tmp_path_factory.mktemp("http-running"), "running")


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _session(tmp_path_factory.mktemp("http-cold"), "cold")


@pytest.fixture(scope="module")
def hung(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _session(tmp_path_factory.mktemp("http-hung"), "hung")


@pytest.fixture(scope="module")
def down(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _session(tmp_path_factory.mktemp("http-down"), "down")


def test_install_wrote_http_hooks_and_the_token_only_in_the_local_file(running: dict[str, Any]) -> None:
    # http is this machine's (port, token): all of its hooks live in the per-machine file
    assert not (running["project"] / ".claude" / "settings.json").exists()
    local = json.loads((running["project"] / ".claude" / "settings.local.json").read_text())
    [(var, token)] = [(k, v) for k, v in local["env"].items() if k.startswith("TWICESHY_HOOK_TOKEN_")]
    assert token
    hooks = local["hooks"]
    pre = hooks["PreToolUse"][0]["hooks"][0]
    assert pre["type"] == "http" and pre["allowedEnvVars"] == [var], pre
    assert hooks["SessionStart"][0]["hooks"][0]["type"] == "command"


def test_hold_and_deny_reach_the_model_before_the_calls_run(running: dict[str, Any]) -> None:
    result = _result(running)
    project = running["project"]
    assert not (project / WARN_FILE).exists(), "the held call ran"
    assert not (project / DENY_FILE).exists(), "the denied call ran"
    denied = [d["tool_input"]["command"] for d in result.get("permission_denials") or []]
    assert denied == [WARN_CMD, DENY_CMD], result
    results = _tool_results(running)
    assert WARN_LESSON in results[0] and DENY_LESSON in results[1], results
    assert result["result"] == "done"


def test_tool_events_went_over_http_and_the_rest_through_the_client(running: dict[str, Any]) -> None:
    _result(running)
    by_event: dict[str, set[str]] = {}
    for e in running["events"]:
        if e.get("agent") == AGENT and e.get("path") != "background":
            by_event.setdefault(e["event"], set()).add(e.get("transport", "socket"))
    assert by_event.get("PreToolUse") == {"http"}, running["events"]
    assert {"SessionStart", "UserPromptSubmit", "SessionEnd"} <= set(by_event)
    assert all(by_event[e] == {"socket"} for e in ("SessionStart", "UserPromptSubmit")), by_event
    pre = [e for e in running["events"] if e.get("event") == "PreToolUse"]
    assert [(e["action"], e.get("transport")) for e in pre] == [("hold", "http"), ("deny", "http")], pre
    # Claude Code's own log: it POSTed to our URL and got a 200 each time.
    assert running["debug"].count("HTTP hook POST to http://127.0.0.1:") >= 2, running["debug"][-2000:]
    assert "HTTP hook response status 200" in running["debug"]
    assert "status 401" not in running["debug"]  # the token from settings.local.json arrived


def test_a_cold_session_starts_the_engine_and_the_rule_holds(cold: dict[str, Any]) -> None:
    _result(cold)
    assert not (cold["project"] / DENY_FILE).exists(), "the rule-breaking call ran"
    assert DENY_LESSON in _tool_results(cold)[-1]
    # SessionStart waited for the engine it started, so no session-start or pre-tool call failed open.
    assert not [r for r in cold["failopen"] if r["kind"] in ("start", "pre")], cold["failopen"]
    assert any(e.get("transport") == "http" and e.get("event") == "PreToolUse" for e in cold["events"])


def test_engine_down_fails_open_and_the_session_goes_on(down: dict[str, Any]) -> None:
    result = _result(down)
    project = down["project"]
    # Documented cost of the http transport: with no engine at all, nothing is enforced.
    assert (project / WARN_FILE).exists() and (project / DENY_FILE).exists()
    assert not result.get("permission_denials"), result
    assert result["result"] == "done"
    assert DENY_LESSON not in json.dumps(_tool_results(down))
    # Claude Code logged the refused connections as hook errors, and said nothing to the model.
    assert "HTTP hook error" in down["debug"] or "ECONNREFUSED" in down["debug"], down["debug"][-2000:]
    # The command hooks that ran recorded their fail-open; the HTTP ones cannot (nothing listened).
    kinds = {r["kind"] for r in down["failopen"]}
    assert "start" in kinds and "pre" not in kinds, down["failopen"]
    assert not os.path.exists(down["home"] / "run" / "engine.pid")


def _hook_waits_ms(debug: str) -> list[float]:
    """Per PreToolUse HTTP hook in Claude Code's debug log: ms from the POST to the next line."""
    stamps = re.compile(r"^(\S+)Z ")
    lines = [line for line in debug.splitlines() if stamps.match(line)]
    waits = []
    for i, line in enumerate(lines[:-1]):
        if "HTTP hook POST to" in line and "/PreToolUse" in line:
            t0 = datetime.fromisoformat(stamps.match(line).group(1))  # type: ignore[union-attr]
            t1 = datetime.fromisoformat(stamps.match(lines[i + 1]).group(1))  # type: ignore[union-attr]
            waits.append((t1 - t0).total_seconds() * 1000)
    return waits


def test_a_hung_engine_still_denies_the_rule_within_the_budget(hung: dict[str, Any]) -> None:
    result = _result(hung)
    project = hung["project"]
    assert not (project / WARN_FILE).exists(), "the lesson's mistake ran: the hold index should hold it"
    assert not (project / DENY_FILE).exists(), "the rule-breaking call ran"
    denied = [d["tool_input"]["command"] for d in result.get("permission_denials") or []]
    assert denied == [WARN_CMD, DENY_CMD], result
    results = _tool_results(hung)
    assert WARN_LESSON in results[0] and "Held once by twiceshy" in results[0], results
    assert DENY_LESSON in results[-1]
    pre = [(r["outcome"], r["reason"], r["transport"]) for r in hung["failopen"] if r["kind"] == "pre"]
    assert pre == [("held", "timeout", "http"), ("denied", "timeout", "http")], hung["failopen"]
    waits = _hook_waits_ms(hung["debug"])
    assert len(waits) == 2, hung["debug"][-3000:]
    assert all(w < 1000 for w in waits), waits  # answered by us, not cancelled by Claude Code
    assert "Hook cancelled" not in hung["debug"]
