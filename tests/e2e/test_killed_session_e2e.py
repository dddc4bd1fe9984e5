"""Issue 33, "no session is lost", with the real Qwen Code and Factory Droid CLIs: session 1 makes
the mistake and the fix, then the CLI is SIGKILLed while the model writes its last answer — no
Stop, no SessionEnd reaches twiceshy. Session 2 repeats the mistake: it must be held before it
runs (the project's next session start learned the killed session from the transcript the CLI
left), and the killed session's lesson is counted once.

One module-scoped run per CLI (~20 s each); every test asserts one thing about it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .conftest import CLI_TIMEOUT_S, Twiceshy, base_env, require_cli, stop_engine
from .drivers import droid_command, qwen_command
from .fake_anthropic import HangStep, TextStep, ToolStep
from .fake_base import FakeServer
from .fake_chat import FakeChat
from .hold_scenario import DEPLOY_SH, FIX, HOLD_MARK, MISTAKE, PROMPT, cli_environ, deploy_lesson

CLIS = {
    "qwen-code": (
        "qwen",
        qwen_command,
        lambda cmd: ToolStep("run_shell_command", {"command": cmd, "description": "run it", "is_background": False}),
    ),
    "droid": ("droid", droid_command, lambda cmd: ToolStep("Execute", {"command": cmd})),
}


@dataclass
class Killed:
    agent: str
    ran_first: list[str] = field(default_factory=list)
    events_first: list[dict[str, Any]] = field(default_factory=list)
    lessons_after_kill: list[dict[str, Any]] = field(default_factory=list)
    second: subprocess.CompletedProcess[str] | None = None
    events_second: list[dict[str, Any]] = field(default_factory=list)
    requests_second: list[dict[str, Any]] = field(default_factory=list)
    ran_second: list[str] = field(default_factory=list)
    lessons_at_end: list[dict[str, Any]] = field(default_factory=list)


def _events(home: Path) -> list[dict[str, Any]]:
    path = home / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _ran(project: Path) -> list[str]:
    log = project / "deploy.log"
    return [f"./deploy.sh {line}".strip() for line in log.read_text().splitlines()] if log.exists() else []


def _wait(predicate: Any, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return bool(predicate())


def run_killed(agent: str, tmp: Path) -> Killed:
    cli, command, step = CLIS[agent]
    require_cli(cli)
    home, project, agent_home = tmp / "tshome", tmp / "proj", tmp / "agenthome"
    for path in (home / "config", project, agent_home):
        path.mkdir(parents=True, exist_ok=True)
    (project / "deploy.sh").write_text(DEPLOY_SH)
    (project / "deploy.sh").chmod(0o755)
    # No grace: session 2 starts the moment session 1 was killed (the default waits 1 s of quiet).
    (home / "config" / "config.yaml").write_text(json.dumps({"plugins": {"sweep": {"start_grace_s": 0}}}))
    env = base_env(agent_home) | {
        "TWICESHY_HOME": str(home),
        "TWICESHY_CONFIG_DIR": str(home / "config"),
        "TWICESHY_RAISE_PLUGIN_ERRORS": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    ts = Twiceshy(env)
    out = Killed(agent)
    try:
        ts("install", "--agent", agent, "--scope", "project", "--project-dir", str(project))
        ts("engine", "start")
        hang = HangStep("done")
        server: FakeServer = FakeChat(steps=[step(MISTAKE), step(FIX), hang])
        with server, cli_environ(env):
            argv, cli_env = command(PROMPT, agent_home, server)
            proc = subprocess.Popen(
                argv,
                cwd=project,
                env=cli_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            try:
                assert hang.reached.wait(CLI_TIMEOUT_S), "the CLI never asked for its last answer"
                os.killpg(proc.pid, signal.SIGKILL)  # killed while the model writes its last answer
                proc.wait(30)
            finally:
                hang.release.set()
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(30)
        out.ran_first = _ran(project)
        seen = len(_events(home))
        out.events_first = [e for e in _events(home) if e.get("agent") == agent]
        out.lessons_after_kill = ts.lessons(cwd=project)
        # Only the repeat, then the answer: a held call followed by the fix would be a sighting of
        # session 2's own (the hold's "Held once by twiceshy" is not read as ours by the extractor).
        second = FakeChat(steps=[step(MISTAKE), TextStep("done")])
        with second, cli_environ(env):
            argv, cli_env = command(PROMPT, agent_home, second)
            out.second = subprocess.run(
                argv,
                cwd=project,
                env=cli_env,
                capture_output=True,
                text=True,
                timeout=CLI_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        out.requests_second = second.main_requests()  # type: ignore[attr-defined]
        out.ran_second = _ran(project)[len(out.ran_first) :]
        ts("engine", "stop")  # drains the session-end work, flushes the event log
        out.events_second = [e for e in _events(home)[seen:] if e.get("agent") == agent]
        out.lessons_at_end = ts.lessons(cwd=project)
    finally:
        stop_engine(ts, home)
    return out


@pytest.fixture(scope="module", params=list(CLIS))
def killed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Killed:
    return run_killed(request.param, tmp_path_factory.mktemp(f"killed-{request.param}"))


def test_session_one_ran_the_mistake_and_the_fix_and_sent_no_end(killed: Killed) -> None:
    assert killed.ran_first == [MISTAKE, FIX]
    names = {e.get("event") for e in killed.events_first}
    assert "PreToolUse" in names and not names & {"Stop", "SessionEnd"}, names
    assert deploy_lesson(killed.lessons_after_kill) is None  # nothing learned while it ran


def test_the_next_session_start_learned_the_killed_session(killed: Killed) -> None:
    swept = [e for e in killed.events_second if e.get("event") == "twiceshy.sweep"]
    assert [e.get("trigger") for e in swept] == ["session_start"], killed.events_second
    start = next(i for i, e in enumerate(killed.events_second) if e.get("event") == "SessionStart")
    first_pre = next(i for i, e in enumerate(killed.events_second) if e.get("event") == "PreToolUse")
    assert killed.events_second.index(swept[0]) < start < first_pre  # learned before the repeat


def test_session_two_holds_the_repeat_before_it_runs(killed: Killed) -> None:
    assert killed.second is not None and killed.second.returncode == 0, killed.second
    pre = [e.get("action") for e in killed.events_second if e.get("event") == "PreToolUse"]
    assert pre == ["hold"], killed.events_second
    assert killed.ran_second == []  # the mistake never ran
    assert HOLD_MARK in json.dumps(killed.requests_second[1]) and "eu-west-1" in json.dumps(killed.requests_second[1])


def test_the_killed_sessions_lesson_is_counted_once(killed: Killed) -> None:
    lesson = deploy_lesson(killed.lessons_at_end)
    assert lesson is not None, [e.get("text") for e in killed.lessons_at_end]
    assert lesson["seen_count"] == 1, lesson  # the sweep's pass and nothing else
    assert sum(1 for e in killed.lessons_at_end if deploy_lesson([e])) == 1
    swept = [e for e in killed.events_first + killed.events_second if e.get("event") == "twiceshy.sweep"]
    assert [e.get("lessons") for e in swept] == [1], swept
