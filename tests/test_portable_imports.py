"""``twiceshy --help`` and the read commands work where ``fcntl`` is missing (Windows).

A ``sitecustomize`` on the subprocess's PYTHONPATH puts a meta-path finder
first that makes ``import fcntl`` raise ImportError, as on Windows; the real
CLI then runs in that process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HIDE_FCNTL = """
import sys

class _HideFcntl:
    def find_spec(self, name, path=None, target=None):
        if name == "fcntl":
            raise ImportError("No module named 'fcntl' (hidden by the test)")
        return None

sys.modules.pop("fcntl", None)
sys.meta_path.insert(0, _HideFcntl())
"""

PROBE = "import sys\ntry:\n    import fcntl\nexcept ImportError:\n    print('hidden')\n"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(HIDE_FCNTL, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from twiceshy.ops.cli import main; main()", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )


def test_the_hook_really_hides_fcntl(env: dict[str, str]) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "hidden", proc.stderr


def test_help_and_read_commands_without_fcntl(env: dict[str, str], tmp_path: Path) -> None:
    proc = run(["--help"], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Daily use:" in proc.stdout and "Traceback" not in proc.stderr  # the grouped command list
    # Every command's own --help imports what the command module imports at top level.
    for command in ("list", "search", "stats", "doctor", "install", "backup", "serve", "engine", "ui", "export"):
        sub = run([command, "--help"], env, tmp_path)
        assert sub.returncode == 0 and "Traceback" not in sub.stderr, (command, sub.stderr)
    # A lesson stored with fcntl present is read back without it.
    learned = subprocess.run(
        [sys.executable, "-c", "from twiceshy.ops.cli import main; main()", "learn", "pin the lockfile version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert learned.returncode == 0, learned.stderr
    for args in (["list", "--json"], ["search", "lockfile"], ["stats"], ["export"]):
        got = run(args, env, tmp_path)
        assert got.returncode == 0 and "Traceback" not in got.stderr, (args, got.stderr)
        if args[0] in ("list", "search"):  # export holds only rule/principle lessons by default
            assert "pin the lockfile version" in got.stdout, (args, got.stdout)


def test_writing_without_fcntl_says_locking_is_off(env: dict[str, str], tmp_path: Path) -> None:
    from twiceshy.base.locking import NOTE

    # `backup` takes the data dir's write lock: with no fcntl that lock is a no-op, said once.
    assert run(["learn", "use uv for installs"], env, tmp_path).returncode == 0
    proc = run(["backup", "-o", str(tmp_path / "b.tar.gz")], env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b.tar.gz").is_file()
    assert proc.stderr.count(NOTE) == 1, proc.stderr
