"""Fixtures for the end-to-end tests: the real agent CLIs (installed by
``python tests/e2e/agents.py``), an isolated HOME so the user's real agent
config is never touched, and helpers to run ``python -m twiceshy``.

A missing CLI FAILS the test with the install command in the message: CI
installs the CLIs, so a skip would only hide a broken pipeline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from . import agents

# Hard ceilings per subprocess, so a wedged CLI fails the test instead of hanging CI.
CLI_TIMEOUT_S = 90
TWICESHY_TIMEOUT_S = 120


def require_cli(name: str) -> Path:
    """The installed CLI's path, or a test failure saying how to install it."""
    if agents.installed_version(name) is None:
        pytest.fail(agents.missing_message(name), pytrace=False)
    return agents.cli_path(name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory the agent runs in."""
    path = tmp_path / "proj"
    path.mkdir()
    return path


@pytest.fixture
def agent_home(tmp_path: Path) -> Path:
    """HOME for the agent CLI: a temp dir, never the real one."""
    path = tmp_path / "agenthome"
    path.mkdir()
    return path


def base_env(home: Path) -> dict[str, str]:
    """A minimal environment: PATH, HOME and the test's TWICESHY_* settings."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8"}
    for key, value in os.environ.items():
        if key.startswith("TWICESHY_") or key == "LITELLM_LOCAL_MODEL_COST_MAP":
            env[key] = value
    return env


class Twiceshy:
    """Runs ``python -m twiceshy ...`` as a real subprocess with the test's env."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, *args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "twiceshy", *args],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TWICESHY_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
        if check and proc.returncode != 0:
            pytest.fail(
                f"`twiceshy {' '.join(args)}` exited {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}",
                pytrace=False,
            )
        return proc

    def lessons(self, cwd: Path | None = None) -> list[dict[str, Any]]:
        return json.loads(self("list", "--json", cwd=cwd).stdout or "[]")


def _live_engine_pids(home: Path) -> list[int]:
    pids = []
    for pid_file in home.rglob("*.pid"):
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, 0)
        except (OSError, ValueError, IndexError):
            continue
        pids.append(pid)
    return pids


def stop_engine(runner: Twiceshy, home: Path) -> None:
    """``twiceshy engine stop`` if an engine still runs, then make sure none survives.

    An engine a hook has just spawned writes its pid file only once it holds its lock: while
    the start marker is fresh and no pid file exists yet, wait for one (a hook held from the
    hold index returns before the engine it started is up)."""
    marker = home / "run" / "starting"
    deadline = time.monotonic() + 15
    while marker.exists() and not _live_engine_pids(home) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not _live_engine_pids(home):
        return
    try:
        runner("engine", "stop", check=False)
    except subprocess.TimeoutExpired:
        pass
    for pid in _live_engine_pids(home):
        # Still alive after `engine stop`: a bug, but never leave it behind.
        try:
            os.kill(pid, 9)
        except OSError:
            pass


def run_cli(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run an agent CLI headless; stdin is /dev/null so none waits for input."""
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=CLI_TIMEOUT_S, stdin=subprocess.DEVNULL
    )


def request_text(body: Any) -> str:
    """A request body as one string, for "did this text reach the model" checks."""
    return json.dumps(body, ensure_ascii=False)
