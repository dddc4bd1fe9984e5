"""Every file twiceshy writes in its data dir is 0600, every folder 0700, under a
umask of 022 — after learn, ``config set``, feedback, the engine's start, a
session's hooks (pre/post tool, session end: the event spool, holds, the
trajectory log, learned keys), evolve, import and export.

Real CLI processes, a real engine and the real hook client (tests/reliability_kit.py).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import reliability_kit as kit


def _loose(root: Path) -> list[tuple[str, str]]:
    """Every path under ``root`` (and ``root``) whose mode lets anyone but the owner in."""
    out = []
    for folder, dirs, files in os.walk(root):
        for name in [".", *dirs, *files]:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode) or stat.S_ISSOCK(st.st_mode) or name == "engine.log":
                continue  # engine.log: the test kit's own capture of the engine's output
            want = 0o700 if stat.S_ISDIR(st.st_mode) else 0o600
            if stat.S_IMODE(st.st_mode) != want:
                out.append((os.path.normpath(path), oct(stat.S_IMODE(st.st_mode))))
    return sorted(set(out))


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what most shells give: every child inherits it
    try:
        yield
    finally:
        os.umask(old)


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        [kit.PY, "-m", "twiceshy", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=180
    )
    assert out.returncode == 0, (args, out.stderr[-2000:])
    return out


def _transcript(path: Path) -> Path:
    entries = [
        {"type": "user", "message": {"role": "user", "content": "ship it"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "./ship.sh --env prod"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "is_error": True, "content": "error: missing required flag --region"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "b2", "name": "Bash", "input": {"command": "./ship.sh --env prod --region eu"}}]}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b2", "content": "shipped"}]}},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def test_every_path_in_the_data_dir_is_private(tmp_path: Path, loose_umask: None) -> None:
    home = tmp_path / "data"  # not conftest's tshome: that one is made under the test's own umask
    env = kit.env_for(home)
    repo = tmp_path / "repo"
    repo.mkdir()
    learned = _cli(env, repo, "learn", "run make clean first", "--trigger", "rm -rf build", "--tier", "rule")
    lesson_id = learned.stdout.split()[1]
    _cli(env, repo, "config", "set", "retrieval.top_k", "6")
    _cli(env, repo, "feedback", lesson_id, "followed")
    _cli(env, repo, "observe", "seq:test->fix->test")
    assert _loose(home) == [], "after learn, config set, feedback, observe"

    proc = kit.start_engine(home, env)
    try:
        sid = "modes-1"
        for event, payload in (
            ("SessionStart", {"session_id": sid, "cwd": str(repo), "hook_event_name": "SessionStart"}),
            ("PreToolUse", kit.pre_tool_payload(sid, "rm -rf build", str(repo))),
            ("PreToolUse", kit.pre_tool_payload(sid, "./ship.sh --env prod", str(repo))),
            ("PostToolUse", {**kit.post_tool_payload(sid, "./ship.sh --env prod --region eu", 1), "cwd": str(repo)}),
            (
                "SessionEnd",
                {
                    "session_id": sid,
                    "cwd": str(repo),
                    "hook_event_name": "SessionEnd",
                    "reason": "exit",
                    "transcript_path": str(_transcript(tmp_path / "t.jsonl")),
                },
            ),
        ):
            out = kit.hook(home, event, payload, env, budget_ms=5000)
            assert out.returncode == 0, out.stderr
        assert kit.wait_for(lambda: kit.spool_pending(home) == 0, timeout=120)
    finally:
        kit.stop_engine(home, proc)
    _cli(env, repo, "evolve", "--json")
    _cli(env, repo, "export", "--all", "-o", str(tmp_path / "export.json"))  # outside: the user's file
    _cli(env, repo, "import", str(tmp_path / "export.json"))
    files = [p for p in home.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"config.yaml", "chroma.sqlite3", "patterns.json", "judge.sqlite3", "evolve_state.json"} <= names, (
        names
    )  # the test saw what it checks
    assert len(files) >= 8, names
    assert stat.S_IMODE(os.stat(home / "config" / "config.yaml").st_mode) == 0o600
    assert _loose(home) == [], ("after the engine, a session's hooks, evolve, export and import", _loose(home))
