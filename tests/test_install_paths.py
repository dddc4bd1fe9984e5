"""``twiceshy install`` refuses to write hook commands that point into a tool
runner's throw-away cache (uvx's ``~/.cache/uv/archive-v0/...``, ``pipx run``),
and says which command to use instead.

The CLI case runs the real ``twiceshy`` from an interpreter whose
``sys.executable`` lies in such a cache: a minimal venv (``pyvenv.cfg`` and a
``python`` symlink) under ``<tmp>/.cache/uv/archive-v0/<id>/`` that sees the
test venv's site-packages through a ``.pth`` file, as uvx's environments do."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.ops.install import InstallError, hook_command, refuse_ephemeral


@pytest.mark.parametrize(
    "path",
    [
        "/home/u/.cache/uv/archive-v0/Xy12/bin/python",
        "/home/u/.cache/uv/builds-v0/.tmpA/bin/python",
        "/Users/u/Library/Caches/uv/archive-v0/Xy12/bin/python3",
        "C:\\Users\\u\\AppData\\Local\\uv\\cache\\archive-v0\\Xy12\\Scripts\\python.exe",
        "/home/u/.local/pipx/.cache/5f0a/bin/python",
    ],
)
def test_ephemeral_interpreters_are_refused(path: str) -> None:
    with pytest.raises(InstallError) as caught:
        hook_command("claude-code", "PreToolUse", python=path)
    message = str(caught.value)
    assert "uv tool install twiceshy" in message and "pipx install twiceshy" in message


@pytest.mark.parametrize(
    "path",
    [
        "/home/u/.local/share/uv/tools/twiceshy/bin/python",  # uv tool install: permanent
        "/home/u/.local/pipx/venvs/twiceshy/bin/python",  # pipx install: permanent
        "/usr/bin/python3",
        sys.executable,
    ],
)
def test_permanent_interpreters_are_accepted(path: str) -> None:
    refuse_ephemeral(path)
    assert path in hook_command("claude-code", "PreToolUse", python=path) or " " in path


def _uvx_like_env(root: Path) -> Path:
    """A venv-shaped folder in a uvx-style cache whose python sees our site-packages."""
    env = root / ".cache" / "uv" / "archive-v0" / "AbC123"
    (env / "bin").mkdir(parents=True)
    base = Path(sys.base_prefix)
    (env / "pyvenv.cfg").write_text(
        f"home = {base / 'bin'}\ninclude-system-site-packages = false\nversion = {sys.version.split()[0]}\n",
        encoding="utf-8",
    )
    real = Path(os.path.realpath(sys.executable))
    (env / "bin" / "python").symlink_to(real)
    lib = env / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    lib.mkdir(parents=True)
    ours = [p for p in site.getsitepackages() if "site-packages" in p]
    (lib / "zz_twiceshy_test.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in ours) + "\n", encoding="utf-8"
    )
    return env / "bin" / "python"


def test_install_from_uvx_cache_is_refused_with_the_right_command(tmp_path: Path) -> None:
    python = _uvx_like_env(tmp_path)
    probe = subprocess.run(
        [str(python), "-c", "import sys, twiceshy; print(sys.executable)"], capture_output=True, text=True, timeout=60
    )
    assert probe.returncode == 0, probe.stderr
    assert "archive-v0" in probe.stdout  # the CLI really runs from the cache
    project = tmp_path / "proj"
    project.mkdir()
    proc = subprocess.run(
        [str(python), "-c", "from twiceshy.ops.cli import main; main()", "install", "--agent", "claude-code",
         "--scope", "project"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )  # fmt: skip
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert "uv tool install twiceshy" in proc.stderr and "uvx" in proc.stderr
    settings = project / ".claude" / "settings.json"
    assert not settings.exists() or "archive-v0" not in json.dumps(json.loads(settings.read_text()))
