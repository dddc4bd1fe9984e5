"""No session is lost (issue 33): a session whose CLI was killed — no Stop, no SessionEnd — is
learned from by a real engine with a real store, from the transcript the agent left: at the
project's next session start (before that session's context is built), or by the idle sweep;
and exactly once, when its end does arrive later.

Everything is real: ``twiceshy serve`` in its own process, the stdlib hook client as the agent
runs it, Qwen Code's recorded payloads and chat log (tests/fixtures/qwen_code/), Chroma on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import reliability_kit as kit

FIX = Path(__file__).parent / "fixtures" / "qwen_code"
AGENT = "qwen-code"


def cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


class Box:
    """One TWICESHY_HOME with a running engine, a project and the hook client."""

    def __init__(self, tmp: Path, plugin_config: dict[str, Any]) -> None:
        self.home, self.project = tmp / "tshome", tmp / "proj"
        self.project.mkdir(parents=True)
        (self.home / "config").mkdir(parents=True)
        (self.home / "config" / "config.yaml").write_text(json.dumps({"plugins": {"sweep": plugin_config}}))
        self.env = kit.env_for(self.home)
        self.proc = kit.start_engine(self.home, self.env)
        self.tmp = tmp

    def transcript(self, session: str) -> Path:
        """The chat log the agent left: the recorded error -> fix session."""
        path = self.tmp / "qwenhome" / "chats" / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIX / "session.jsonl", path)
        return path

    def send(self, name: str, session: str) -> dict[str, Any]:
        data = json.loads((FIX / f"payload_{name}.json").read_text())
        data.update(session_id=session, cwd=str(self.project), transcript_path=str(self.transcript_path(session)))
        proc = kit.hook(self.home, data["hook_event_name"], data, env=self.env, agent=AGENT, budget_ms=30_000)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout.decode().strip()
        return json.loads(out) if out else {}

    def transcript_path(self, session: str) -> Path:
        return self.tmp / "qwenhome" / "chats" / f"{session}.jsonl"

    def lessons(self) -> list[dict[str, Any]]:
        got = cli(self.env, self.project, "list", "--json")
        assert got.returncode == 0, got.stderr
        return json.loads(got.stdout or "[]")

    def deploy_lessons(self) -> list[dict[str, Any]]:
        return [
            e
            for e in self.lessons()
            if "./deploy.sh --env staging" in f"{e.get('text')} {e.get('trigger')}"
            and "eu-west-1" in str(e.get("text"))
        ]

    def events(self, event: str) -> list[dict[str, Any]]:
        path = self.home / "events.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        return [r for r in rows if r.get("event") == event]

    def killed_session(self, session: str) -> None:
        """A session that made the mistake and the fix, then its CLI died: no Stop, no SessionEnd."""
        self.transcript(session)
        for name in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUseFailure"):
            self.send(name, session)
        for name in ("PreToolUse_fix", "PostToolUse"):
            self.send(name, session)

    def close(self) -> None:
        kit.stop_engine(self.home, self.proc)


@pytest.fixture
def box_factory(tmp_path: Path, twiceshy_home: Path):
    boxes: list[Box] = []

    def make(**plugin_config: Any) -> Box:
        box = Box(tmp_path / f"box{len(boxes)}", plugin_config)
        boxes.append(box)
        return box

    yield make
    for box in boxes:
        box.close()


def test_a_killed_session_is_learned_at_the_next_session_start_and_once_only(box_factory) -> None:
    # idle sweep off (an hour): only the next session start may learn it
    box = box_factory(start_grace_s=0, idle_s=3600)
    box.killed_session("killed-1")
    assert box.deploy_lessons() == []  # nothing learned while the session ran, and no end came
    # The next session of the project starts: the killed one is learned before its context is built.
    start = box.send("SessionStart", "next-2")
    [lesson] = box.deploy_lessons()
    assert "eu-west-1" in start["hookSpecificOutput"]["additionalContext"]  # the new session is told at once
    swept = box.events("twiceshy.sweep")
    assert [(e["session"], e["trigger"]) for e in swept] == [("killed-1", "session_start")]
    assert swept[0]["lessons"] >= 1
    before = {e["id"]: e for e in box.lessons()}
    # Another session start sweeps nothing more: the killed session was learned.
    box.send("SessionStart", "next-3")
    assert len(box.events("twiceshy.sweep")) == 1
    # The killed session's end arrives late after all (a CLI that was only slow): it teaches nothing twice.
    box.send("Stop", "killed-1")
    end = {**json.loads((FIX / "payload_Stop.json").read_text()), "hook_event_name": "SessionEnd"}
    end.update(session_id="killed-1", cwd=str(box.project), transcript_path=str(box.transcript_path("killed-1")))
    kit.hook(box.home, "SessionEnd", end, env=box.env, agent=AGENT, budget_ms=30_000)
    kit.stop_engine(box.home, box.proc)  # drains the session-end work
    after = {e["id"]: e for e in box.lessons()}
    assert after.keys() == before.keys()
    assert before[lesson["id"]]["seen_count"] == after[lesson["id"]]["seen_count"] == 1, after[lesson["id"]]
    assert len(box.deploy_lessons()) == 1


def test_the_idle_sweep_learns_a_killed_session_with_no_new_session(box_factory) -> None:
    box = box_factory(idle_s=0.5)
    box.killed_session("killed-9")
    got = kit.wait_for(box.deploy_lessons, timeout=60)
    assert len(got) == 1 and got[0]["seen_count"] == 1, box.lessons()
    # On a loaded box a pause of idle_s between two of the session's calls is a sweep too; the
    # next pass covers the calls after it, and the lesson is still counted once.
    # The sweep's event is written once its pass is over, which can be after the lesson is stored.
    rows = kit.wait_for(lambda: box.events("twiceshy.sweep"), timeout=60)
    swept = {(e["session"], e["trigger"]) for e in rows}
    assert swept == {("killed-9", "idle")}


def test_a_session_that_ended_is_never_swept(box_factory) -> None:
    box = box_factory(start_grace_s=0, idle_s=3600)
    box.killed_session("ended-1")
    box.send("Stop", "ended-1")  # qwen -p's last event: the session is learned at its Stop
    assert kit.wait_for(box.deploy_lessons, timeout=60)
    box.send("SessionStart", "next-2")
    assert box.events("twiceshy.sweep") == []


def test_sweep_off_learns_nothing_at_the_next_start(box_factory) -> None:
    box = box_factory(start_grace_s=0, idle_s=3600)
    config = box.home / "config" / "config.yaml"
    config.write_text(json.dumps({"plugins": {"disabled": ["sweep"]}}))
    kit.stop_engine(box.home, box.proc)
    box.proc = kit.start_engine(box.home, box.env)
    box.killed_session("killed-1")
    box.send("SessionStart", "next-2")
    assert box.deploy_lessons() == [] and box.events("twiceshy.sweep") == []
    assert os.path.exists(box.transcript_path("killed-1"))
