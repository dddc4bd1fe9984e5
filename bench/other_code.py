"""Run a bench script on another commit's code: the "before" of a change, measured in the same run conditions.

``git archive`` of the commit's core/, plugins/ and hooks/, laid out as the
installed ``twiceshy`` package in a temp dir that goes first on the child's
``PYTHONPATH`` (the engine and hook client it spawns import from there too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_other_code(commit: str, script: str | Path, argv: list[str]) -> int:
    """Re-run ``script`` with ``argv`` in a child whose ``twiceshy`` is ``commit``'s code."""
    tmp = Path(tempfile.mkdtemp(prefix="twiceshy-code-"))
    try:
        src = tmp / "src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "core", "plugins", "hooks"],
                                 check=True, capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        pkg = tmp / "pkg" / "twiceshy"
        shutil.copytree(src / "core", pkg)
        shutil.copytree(src / "plugins", pkg / "plugins")
        if (src / "hooks").is_dir():
            shutil.copytree(src / "hooks", pkg / "hooks")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp / "pkg"), os.environ.get("PYTHONPATH")])),
        }
        print(f"measuring the code of {commit} ({pkg})", flush=True)
        return subprocess.run([sys.executable, str(Path(script).resolve()), *argv], env=env).returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
