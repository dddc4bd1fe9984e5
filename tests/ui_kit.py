"""What the dashboard tests share: Debian's headless Chromium, and `twiceshy ui` run in its own process."""

from __future__ import annotations

import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def chromium() -> str:
    """The path of headless Chromium; fails (never skips) the test without it."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail(
            "headless Chromium is required for the dashboard tests and was not found. Install Debian's package: "
            "`apt-get install -y chromium` (.ci/run does this)."
        )
    return path


@contextmanager
def running_ui(cwd: Path, start_timeout: float = 120) -> Iterator[str]:
    """`twiceshy ui --port 0` in its own process, from ``cwd``; yields its URL once it prints it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "twiceshy", "ui", "--port", "0"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        deadline = time.monotonic() + start_timeout
        line = ""
        while time.monotonic() < deadline and "http://" not in line:
            # selectors, not select.select: in a long run this process can hold fds past 1024
            if sel.select(timeout=1.0):
                line = proc.stdout.readline()
                if not line and proc.poll() is not None:
                    break
        assert "http://127.0.0.1:" in line, (
            f"ui did not start: {line!r} {proc.stderr.read() if proc.poll() is not None else ''}"
        )
        yield line.split()[3]
    finally:
        sel.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
