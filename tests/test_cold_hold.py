"""A lesson's mistake is held on the first call even when the engine cannot answer (issues 30, 31).

Real parts: a real store on disk (``twiceshy learn``), the real stdlib hook
client in a subprocess with no engine at all (``TWICESHY_NO_AUTOSTART=1``:
only the rules snapshot and the hold index stand between the model and the
call), then a real engine that replays the client's hold into the session.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_kit import serve_pids
from twiceshy.engine import server as engine_mod
from twiceshy.hooks import coldhold, wire

CLIENT = str(Path(wire.__file__).with_name("client.py"))
PY = sys.executable

MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
LESSON = "deploy.sh needs --region: `./deploy.sh --env staging` fails with missing --region; add --region eu-west-1"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_NO_AUTOSTART="1")
    env.update(extra)
    return env


def _learn(home: Path, project: Path, text: str, trigger: str, *args: str) -> str:
    out = subprocess.run(
        [PY, "-m", "twiceshy", "learn", text, "--trigger", trigger, "--project", *args],
        env=_env(home),
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[1]  # "new: <id> [raw] ..."


def _twiceshy(home: Path, *args: str, cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "twiceshy", *args], env=_env(home, **extra), cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _pre(home: Path, command: str, cwd: Path, session: str = "s1", **extra: str) -> subprocess.CompletedProcess[str]:
    payload = {"session_id": session, "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": "Bash"}
    payload["tool_input"] = {"command": command}
    return subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", "15000", "claude-code", "PreToolUse"],
        input=json.dumps(payload),
        env=_env(home, **extra),
        capture_output=True,
        text=True,
        timeout=60,
    )


def _failopen(home: Path) -> list[dict]:
    path = home / "failopen.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _index_ids(home: Path) -> set[str]:
    ids = set()
    for shard in (home / coldhold.FOLDER).glob("[0-9][0-9].json"):
        ids |= {e["id"] for e in json.loads(shard.read_text())["rules"]}
    return ids


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


@pytest.fixture
def taught(twiceshy_home: Path, project: Path) -> Iterator[tuple[Path, str]]:
    lesson = _learn(twiceshy_home, project, LESSON, MISTAKE)
    yield twiceshy_home, lesson
    for pid in serve_pids(twiceshy_home):
        os.kill(pid, 9)


def test_no_engine_holds_the_mistake_once_and_passes_the_fix(taught: tuple[Path, str], project: Path) -> None:
    home, lesson = taught
    held = _pre(home, MISTAKE, project)
    assert held.returncode == 2 and held.stdout == ""
    assert held.stderr.startswith("Held once by twiceshy") and "--region" in held.stderr, held.stderr
    assert _failopen(home)[-1]["outcome"] == "held" and _failopen(home)[-1]["lessons"] == [lesson]

    for fine in (FIX, "./deploy.sh --help", "ls -la", "git status"):
        got = _pre(home, fine, project)
        assert (got.returncode, got.stderr) == (0, ""), (fine, got.stderr)
    retry = _pre(home, MISTAKE, project)
    assert (retry.returncode, retry.stderr) == (0, "")  # the model saw the hold and insists: it runs
    assert _pre(home, MISTAKE, project, session="s2").returncode == 2  # a new session is held again

    elsewhere = project.parent / "other"
    elsewhere.mkdir()
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    assert _pre(home, MISTAKE, elsewhere, session="s3").returncode == 0  # a project lesson holds only there


def test_the_engine_replays_the_hold_into_the_session(taught: tuple[Path, str], project: Path) -> None:
    home, lesson = taught
    assert _pre(home, MISTAKE, project).returncode == 2
    engine_mod.spawn_detached(home, env=_env(home))
    assert engine_mod.wait_ready(home, timeout=60) is not None

    def replayed() -> bool:
        log = home / "events.jsonl"
        lines = log.read_text().splitlines() if log.exists() else []
        return any(json.loads(x).get("path") == "background" and json.loads(x).get("action") == "hold" for x in lines)

    import time

    deadline = time.monotonic() + 30
    while not replayed() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert replayed()
    # The engine knows the call was held: the identical retry runs, a new session is held live.
    assert _pre(home, MISTAKE, project).returncode == 0
    live = _pre(home, MISTAKE, project, session="s2")
    assert "permissionDecision" in live.stdout and "deny" in live.stdout, live.stdout
    stats = json.loads(_twiceshy(home, "stats", "--json").stdout)
    assert stats["hooks"]["held"] == 2 and stats["hooks"]["held_from_index"] == 1, stats["hooks"]
    assert stats["hooks"]["failed_open"] == 0, stats["hooks"]  # a hold from the index is not an unchecked call


def test_the_index_follows_the_lesson(taught: tuple[Path, str], project: Path) -> None:
    home, lesson = taught
    assert _index_ids(home) == {lesson}
    assert _twiceshy(home, "edit", lesson, "--tier", "rule").returncode == 0
    assert _index_ids(home) == set()  # a rule: the rules snapshot denies it every time
    denied = _pre(home, MISTAKE, project)
    assert denied.returncode == 2 and _failopen(home)[-1]["outcome"] == "denied"
    assert _twiceshy(home, "edit", lesson, "--tier", "raw").returncode == 0
    assert _index_ids(home) == {lesson}
    assert _twiceshy(home, "forget", lesson).returncode == 0
    assert _index_ids(home) == set()
    assert _pre(home, MISTAKE, project, session="s9").returncode == 0


def test_nothing_is_held_offline_when_holds_are_switched_off(twiceshy_home: Path, project: Path) -> None:
    (twiceshy_home / "config").mkdir()
    (twiceshy_home / "config" / "config.yaml").write_text("retrieval:\n  warn: context\n")
    _learn(twiceshy_home, project, LESSON, MISTAKE)
    assert _index_ids(twiceshy_home) == set()
    assert _pre(twiceshy_home, MISTAKE, project).returncode == 0


def test_the_engine_catches_up_what_a_writer_left_out(twiceshy_home: Path, project: Path) -> None:
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    store = make_context(None).store
    index = store.hold_index
    store.add(Experience(text="make release needs VERSION", trigger="make release", structured={}))
    assert index.ensure(store) == ("rebuilt", 1)  # no journal position recorded yet
    del store._write_listeners["hold_index"]  # a writer that died before it updated the index
    store.add(Experience(text=LESSON, trigger=MISTAKE, structured={}))
    assert len(_index_ids(twiceshy_home)) == 1
    assert index.ensure(store) == ("caught up", 1)  # only what the journal names
    assert len(_index_ids(twiceshy_home)) == 2
    shard = next((twiceshy_home / coldhold.FOLDER).glob("[0-9][0-9].json"))
    shard.write_bytes(b"\x00garbage")  # damaged: what it held is unknown, so everything is re-read
    assert index.ensure(store)[0] == "rebuilt"
    assert len(_index_ids(twiceshy_home)) == 2


def test_a_loading_engine_sends_the_call_back_at_once(taught: tuple[Path, str], project: Path) -> None:
    """Issue 31: an engine that is bound but still loading does not keep a pre-tool call
    waiting for the client's whole budget: it says "not ready" at once and the client
    answers from the hold index; a post-tool event is spooled, not lost."""
    home, lesson = taught
    env = _env(home, TWICESHY_FAULT_PAUSE="engine.warm:1")
    engine_mod.spawn_detached(home, env=env)
    marker = home / "fault-engine.warm"
    import time

    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), "the engine never reached its load"

    started = time.monotonic()
    held = _pre(home, MISTAKE, project)  # a 15 s budget: waiting for the engine would show
    waited = time.monotonic() - started
    assert held.returncode == 2 and "--region" in held.stderr, held.stderr
    assert waited < 5, waited
    record = _failopen(home)[-1]
    assert (record["outcome"], record["reason"], record["sent"]) == ("held", "starting", False), record

    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Bash"}
    payload |= {"tool_input": {"command": FIX}, "tool_response": {"stdout": "deployed", "stderr": ""}}
    started = time.monotonic()
    post = subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", "15000", "claude-code", "PostToolUse"],
        input=json.dumps(payload),
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert post.returncode == 0 and time.monotonic() - started < 5
    spooled = (home / "spool" / "events.jsonl").read_text()
    assert FIX in spooled and "PostToolUse" in spooled


def test_doctor_says_what_the_client_holds_alone(taught: tuple[Path, str], project: Path) -> None:
    home, _lesson = taught

    def check() -> dict:
        out = _twiceshy(home, "doctor", "--json", "--no-model", cwd=project)
        return {c["name"]: c for c in json.loads(out.stdout)["checks"]}["hold index"]

    ok = check()
    assert ok["level"] == "ok" and ok["data"]["lessons"] == 1, ok
    next((home / coldhold.FOLDER).glob("[0-9][0-9].json")).write_bytes(b"{broken")
    broken = check()
    assert broken["level"] == "warn" and "fail open" in broken["detail"], broken


def test_copilot_gets_the_offline_hold_in_its_own_deny_form(taught: tuple[Path, str], project: Path) -> None:
    """Copilot blocks on exit 2 but drops its stderr: the client answers it the way the
    Copilot plugin does (a permissionDecision deny on stdout), reason included."""
    from twiceshy.base.types import CoreEvent, Decision
    from twiceshy.plugins.copilot.adapter import format_decision

    home, _lesson = taught
    payload = {"sessionId": "c1", "cwd": str(project), "toolName": "bash"}
    payload["toolArgs"] = json.dumps({"command": MISTAKE})
    out = subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "copilot", "preToolUse"],
        input=json.dumps(payload),
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stderr == "", out
    reason = json.loads(out.stdout)["permissionDecisionReason"]
    assert reason.startswith("Held once by twiceshy") and "--region" in reason
    plugin = format_decision(
        CoreEvent(kind="pre_tool", agent="copilot", native_event="preToolUse"),
        Decision(action="deny", reason=reason),
    )
    assert json.loads(plugin.stdout) == json.loads(out.stdout)
