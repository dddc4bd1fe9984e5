"""Run a bench script on another commit's code: the "before" of a change, measured in the same run conditions.

``git archive`` of the commit's core/, plugins/ and hooks/, laid out as the
installed ``twiceshy`` package in a temp dir. The child runs on an interpreter
made for it (a venv without pip whose ``.pth`` names that dir first, then this
interpreter's site-packages for the dependencies), so every process it starts
imports that code: the engine and the hook client are started ``python -I``,
which ignores ``PYTHONPATH`` (with ``PYTHONPATH`` alone they ran the installed
code, and a "before" measured the working tree's engine).
"""

from __future__ import annotations

import os
import shutil
import site
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
        python = python_for(tmp / "venv", tmp / "pkg")
        print(f"measuring the code of {commit} ({pkg})", flush=True)
        return subprocess.run([str(python), str(Path(script).resolve()), *argv], env=env).returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def python_for(venv: Path, pkg_dir: Path) -> Path:
    """An interpreter that imports ``twiceshy`` from ``pkg_dir`` in every process, ``-I`` ones too."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    ours = [p for p in site.getsitepackages() if os.path.isdir(p)]
    Path(site_dir, "00-other-code.pth").write_text("\n".join([str(pkg_dir), *ours]) + "\n")
    return python
