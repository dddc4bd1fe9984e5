"""The Claude Code plugin channel, loaded by the real ``claude`` CLI.

The repository (its tracked files, as a user clones it, plus this tree's
``.claude-plugin/``) is added as a marketplace in a temp HOME; the plugin is
installed, listed and detailed; ``claude mcp list`` connects to the plugin's
MCP server (``twiceshy mcp``); and the installed copy's PreToolUse hook
command, run as Claude Code runs it (``sh -c`` with ``CLAUDE_PLUGIN_ROOT``),
reaches a real engine and returns the stored lesson as a hold."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .conftest import Twiceshy, base_env, require_cli, run_cli, stop_engine

REPO = Path(__file__).resolve().parents[2]


def _repo_copy(dest: Path) -> Path:
    """The tracked files of this working tree, as a clone would have them."""
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    shutil.copytree(REPO / ".claude-plugin", dest / ".claude-plugin", dirs_exist_ok=True)
    return dest


def test_plugin_installs_lists_connects_and_its_hook_holds(tmp_path: Path, agent_home: Path) -> None:
    claude = str(require_cli("claude"))
    repo = _repo_copy(tmp_path / "repo")
    env = base_env(agent_home)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]  # `twiceshy` on PATH, as pipx puts it
    env["TWICESHY_HOME"] = str(tmp_path / "tshome")
    env["TWICESHY_CONFIG_DIR"] = str(tmp_path / "tshome" / "config")

    for argv in (["plugin", "validate", str(repo)], ["plugin", "marketplace", "add", str(repo)]):
        proc = run_cli([claude, *argv], repo, env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli([claude, "plugin", "install", "twiceshy@twiceshy"], repo, env)
    assert proc.returncode == 0 and "Successfully installed" in proc.stdout + proc.stderr, proc.stdout + proc.stderr

    listed = run_cli([claude, "plugin", "list"], repo, env).stdout
    assert "twiceshy@twiceshy" in listed and "enabled" in listed, listed
    details = run_cli([claude, "plugin", "details", "twiceshy@twiceshy"], repo, env).stdout
    assert "Hooks (7)" in details and "PreToolUse" in details and "SessionEnd" in details, details
    mcp = run_cli([claude, "mcp", "list"], repo, env).stdout
    assert "plugin:twiceshy:twiceshy" in mcp and "Connected" in mcp, mcp

    # The installed copy's hook, as Claude Code runs it.
    cached = next((agent_home / ".claude" / "plugins" / "cache").rglob(".claude-plugin/plugin.json"))
    root = cached.parent.parent
    manifest = json.loads(cached.read_text(encoding="utf-8"))
    command = manifest["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    runner = Twiceshy(env)
    project = tmp_path / "proj"
    project.mkdir()
    runner("learn", "use `uv pip install`, never bare pip install", "--trigger", "pip install requests", cwd=project)
    payload = {
        "session_id": "plugin-1",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pip install requests"},
        "tool_use_id": "toolu_1",
    }
    hook_env = {**env, "CLAUDE_PLUGIN_ROOT": str(root)}
    answer = ""
    deadline = time.monotonic() + 90  # the first calls fail open while the engine loads
    try:
        while time.monotonic() < deadline:
            proc = subprocess.run(
                ["sh", "-c", command],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env=hook_env,
                cwd=project,
                timeout=30,
            )
            assert proc.returncode in (0, 2), proc.stderr
            answer = proc.stdout + proc.stderr
            if "uv pip install" in answer:
                break
            time.sleep(0.5)
    finally:
        stop_engine(runner, tmp_path / "tshome")
    assert "uv pip install" in answer, answer
