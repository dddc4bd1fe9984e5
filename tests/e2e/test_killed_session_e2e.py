"""Issue 33, "no session is lost", with every real CLI of ``hold_scenario.SPECS`` (Claude Code,
Codex, Gemini, Qwen Code, Droid, OpenCode, Copilot): session 1 makes the mistake and the fix, then
the CLI's whole process group is SIGKILLed while the model writes its last answer — no Stop, no
SessionEnd (nor Gemini's AfterAgent, Copilot's agentStop …) reaches twiceshy. Session 2 repeats
the mistake: it must be held before it runs (the project's next session start learned the killed
session from the transcript the CLI left), and the killed session's lesson is counted once.

One module-scoped run per CLI (~20-40 s each); every test asserts one thing about it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .conftest import CLI_TIMEOUT_S, Twiceshy, base_env, request_text, require_cli, run_cli, stop_engine
from .fake_anthropic import HangStep, TextStep
from .hold_scenario import (
    DEPLOY_SH,
    FIX,
    HOLD_MARK,
    MISTAKE,
    PROMPT,
    SPECS,
    AgentSpec,
    added_after_last_call,
    cli_environ,
    deploy_lesson,
)

SWEEP = "twiceshy.sweep"
FIX_OUTPUT = b"deployed: --env staging --region eu-west-1"  # what the fix printed (deploy.sh)
# How the fix's result shows in the CLI's own store: its output; Qwen Code 0.24.4 can lose the output
# of a quick command ("Output: (empty)", see test_hold_e2e), and then only its exit line is there.
FIX_RESULTS = {"qwen-code": (FIX_OUTPUT, b"Exit Code: 0")}
ENDS = ("stop", "session_end")  # the event kinds a session's end sends (Stop, SessionEnd, AfterAgent …)


@dataclass
class Killed:
    spec: AgentSpec
    ran_first: list[str] = field(default_factory=list)
    events_first: list[dict[str, Any]] = field(default_factory=list)
    lessons_after_kill: list[dict[str, Any]] = field(default_factory=list)
    second: subprocess.CompletedProcess[str] | None = None
    events_second: list[dict[str, Any]] = field(default_factory=list)
    requests_second: list[dict[str, Any]] = field(default_factory=list)
    ran_second: list[str] = field(default_factory=list)
    lessons_at_end: list[dict[str, Any]] = field(default_factory=list)
    persisted: bool = False  # the CLI's store held the fix's result before the kill
    persist_s: float = 0.0  # how long after its request for the last answer


def _events(home: Path) -> list[dict[str, Any]]:
    path = home / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _ran(project: Path) -> list[str]:
    log = project / "deploy.log"
    return [f"./deploy.sh {line}".strip() for line in log.read_text().splitlines()] if log.exists() else []


def _wait(predicate: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _holds(folder: Path, needle: bytes) -> bool:
    """Does any file under ``folder`` (the CLI's HOME: its transcripts, OpenCode's SQLite
    store and its WAL) hold ``needle``?"""
    for path in folder.rglob("*"):
        try:
            if path.is_file() and path.stat().st_size < 64 << 20 and needle in path.read_bytes():
                return True
        except OSError:
            continue
    return False


def _hook_events(events: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    """The CLI's own hook events and the sweeps, in order (not the engine's background replays
    of spooled events: the first session's spooled post-tool events are applied when the engine
    gets to them, which is no event of the second session)."""
    return [e for e in events if e.get("agent") == agent and e.get("path") != "background"]


def run_killed(spec: AgentSpec, tmp: Path) -> Killed:
    require_cli(spec.cli)
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
    env.pop("TWICESHY_RETRIEVAL__WARN", None)  # the default delivery (hold) is under test
    ts = Twiceshy(env)
    out = Killed(spec)
    try:
        ts("install", "--agent", spec.agent, "--scope", "project", "--project-dir", str(project))
        ts("engine", "start")
        hang = HangStep("done")
        server = spec.make_server([spec.step(MISTAKE), spec.step(FIX), hang])
        with server, cli_environ(env):
            argv, cli_env = spec.command(PROMPT, project, agent_home, server)
            proc = subprocess.Popen(
                argv,
                cwd=project,
                env=cli_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: the CLI and every hook it spawned
            )
            try:
                assert hang.reached.wait(CLI_TIMEOUT_S), "the CLI never asked for its last answer"
                # The fix ran; kill once the CLI's own store holds its result (Claude Code writes it
                # 30-55 ms, Copilot ~100 ms after the request for the next answer went out; the
                # others before it). A kill inside that window leaves nothing to learn from.
                reached = time.monotonic()
                needles = FIX_RESULTS.get(spec.agent, (FIX_OUTPUT,))
                out.persisted = _wait(lambda: any(_holds(agent_home, n) for n in needles), 30.0)
                out.persist_s = time.monotonic() - reached
                os.killpg(proc.pid, signal.SIGKILL)  # killed while the model writes its last answer
                proc.wait(30)
            finally:
                hang.release.set()
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(30)
        out.ran_first = _ran(project)
        seen = len(_events(home))
        out.events_first = _hook_events(_events(home), spec.agent)
        out.lessons_after_kill = ts.lessons(cwd=project)
        # Only the repeat, then the answer: a held call followed by the fix would be a sighting of
        # session 2's own (the hold's "Held once by twiceshy" is not read as ours by the extractor).
        second = spec.make_server([spec.step(MISTAKE), TextStep("done")])
        with second, cli_environ(env):
            argv, cli_env = spec.command(PROMPT, project, agent_home, second)
            out.second = run_cli(argv, project, cli_env)
        out.requests_second = second.main_requests()  # type: ignore[attr-defined]
        out.ran_second = _ran(project)[len(out.ran_first) :]
        # Gemini does not wait for its SessionEnd hook: let session 2's end reach the engine first.
        wait_for_end(home, spec, seen)
        ts("engine", "stop")  # drains the session-end work, flushes the event log
        out.events_second = _hook_events(_events(home)[seen:], spec.agent)
        out.lessons_at_end = ts.lessons(cwd=project)
    finally:
        stop_engine(ts, home)
    return out


def wait_for_end(home: Path, spec: AgentSpec, seen: int, timeout_s: float = 60.0) -> None:
    """Poll the event log until session 2's last hook (``spec.end_event``) is in it."""
    _wait(lambda: any(e.get("event") == spec.end_event for e in _events(home)[seen:]), timeout_s)


@pytest.fixture(scope="module", params=list(SPECS))
def killed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Killed:
    spec = SPECS[request.param]
    return run_killed(spec, tmp_path_factory.mktemp(f"killed-{spec.cli}"))


def _kinds(events: list[dict[str, Any]]) -> list[str]:
    return [str(e.get("kind")) for e in events]


def test_session_one_ran_the_mistake_and_the_fix_and_sent_no_end(killed: Killed) -> None:
    assert killed.ran_first == [MISTAKE, FIX]
    assert killed.persisted, f"the fix's result was not in the CLI's own store {killed.persist_s:.1f} s after"
    names = {e.get("event") for e in killed.events_first}
    assert killed.spec.pre_event in names, killed.events_first
    assert not set(_kinds(killed.events_first)) & set(ENDS), killed.events_first  # no end reached twiceshy
    assert deploy_lesson(killed.lessons_after_kill) is None  # nothing learned while it ran


def test_the_next_session_start_learned_the_killed_session(killed: Killed) -> None:
    events = killed.events_second
    swept = [e for e in events if e.get("event") == SWEEP]
    assert [e.get("trigger") for e in swept] == ["session_start"], events
    kinds = _kinds(events)
    start, first_pre = kinds.index("session_start"), kinds.index("pre_tool")
    assert events.index(swept[0]) < start < first_pre, events  # learned before the repeat


def test_session_two_holds_the_repeat_before_it_runs(killed: Killed) -> None:
    assert killed.second is not None and killed.second.returncode == 0, killed.second
    pre = [e.get("action") for e in killed.events_second if e.get("event") == killed.spec.pre_event]
    assert pre == ["hold"], killed.events_second
    assert killed.ran_second == []  # the mistake never ran
    assert len(killed.requests_second) > 1, [request_text(r)[-300:] for r in killed.requests_second]
    reason = added_after_last_call(killed.requests_second[1])
    assert HOLD_MARK in reason and "eu-west-1" in reason, reason[:3000]


def test_the_killed_sessions_lesson_is_counted_once(killed: Killed) -> None:
    lesson = deploy_lesson(killed.lessons_at_end)
    assert lesson is not None, [e.get("text") for e in killed.lessons_at_end]
    assert lesson["seen_count"] == 1, lesson  # the sweep's pass and nothing else
    assert sum(1 for e in killed.lessons_at_end if deploy_lesson([e])) == 1
    swept = [e for e in killed.events_first + killed.events_second if e.get("event") == SWEEP]
    assert [e.get("lessons") for e in swept] == [1], swept
