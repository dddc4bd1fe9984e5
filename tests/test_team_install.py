"""A project install a team can commit (issue 30), with real files, real git and real subprocesses.

For every agent with a project scope: in a fresh git repository whose settings file is committed,
``twiceshy install --scope project`` (the real console script) writes a committed file that names no
path of this machine; a second clone at another path, with another HOME and another data dir, runs
the hook command that file names and gets the rule's deny; ``uninstall`` leaves ``git status`` empty
and no twiceshy file in the agent's user folder, no backup anywhere but the data dir."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
TWICESHY = BIN / "twiceshy"  # the console script, as pip / pipx / uv tool install it
RULE_CMD = "git push --force origin main"
RULE_TEXT = "Never force-push to main; open a pull request"


def _claude(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd, "tool_name": "Bash",
            "tool_input": {"command": RULE_CMD}}  # fmt: skip


def _codex(cwd: str) -> dict[str, Any]:
    return {**_claude(cwd), "model": "gpt", "turn_id": "t1"}


def _gemini(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "BeforeTool", "session_id": "s1", "cwd": cwd, "tool_name": "run_shell_command",
            "tool_input": {"command": RULE_CMD}}  # fmt: skip


def _cursor(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "beforeShellExecution", "conversation_id": "c1", "generation_id": "g1",
            "command": RULE_CMD, "cwd": cwd, "workspace_roots": [cwd]}  # fmt: skip


def _copilot(cwd: str) -> dict[str, Any]:
    return {"timestamp": 1, "cwd": cwd, "toolName": "bash", "toolArgs": json.dumps({"command": RULE_CMD})}


def _opencode(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd, "tool_name": "bash",
            "tool_input": {"command": RULE_CMD}}  # fmt: skip


def _qwen(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd, "tool_name": "run_shell_command",
            "tool_input": {"command": RULE_CMD, "description": "push", "is_background": False}}  # fmt: skip


def _droid(cwd: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": cwd, "tool_name": "Execute",
            "tool_input": {"command": RULE_CMD}}  # fmt: skip


# agent -> (committed settings file, what the team had in it, the pre-tool event, its payload,
#           the agent's user folder under HOME)
AGENTS: dict[str, tuple[str, str, str, Any, str]] = {
    "claude-code": (".claude/settings.json", '{\n  "model": "sonnet"\n}\n', "PreToolUse", _claude, ".claude"),
    "codex": (".codex/hooks.json", '{"description": "team hooks", "hooks": {}}\n', "PreToolUse", _codex, ".codex"),
    "gemini": (".gemini/settings.json", '{\n    "ui": {"theme": "Dracula"}\n}\n', "BeforeTool", _gemini, ".gemini"),
    "cursor": (".cursor/hooks.json", '{"version": 1, "hooks": {}}\n', "beforeShellExecution", _cursor, ".cursor"),
    "copilot": (".github/hooks/team.json", '{"version": 1, "hooks": {}}\n', "preToolUse", _copilot, ".copilot"),
    "opencode": ("opencode.json", '{"$schema": "https://opencode.ai/config.json"}\n', "PreToolUse", _opencode,
                 ".config/opencode"),
    "qwen-code": (".qwen/settings.json", '{\n  "model": {"name": "qwen3-coder"}\n}\n', "PreToolUse", _qwen, ".qwen"),
    "droid": (".factory/hooks.json", '{}\n', "PreToolUse", _droid, ".factory"),
}  # fmt: skip
# Where the agent's committed hook file is, when it is not the team's file above (Copilot: our own file).
HOOK_FILE = {"copilot": ".github/hooks/twiceshy.json"}


def env_for(home: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TWICESHY_", "CLAUDE_", "CODEX_", "GEMINI_"))}
    env.pop("COPILOT_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    env.update(
        HOME=str(home),
        TWICESHY_HOME=str(data),
        TWICESHY_NO_AUTOSTART="1",  # the hook answers from the rules snapshot; no engine left behind
        TWICESHY_EMBEDDING__BACKEND="hash",
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",  # `twiceshy` on PATH
    )
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, **kw)


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def our_commands(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["command"]] if isinstance(value.get("command"), str) and "twiceshy" in value["command"] else []
        return found + [c for v in value.values() for c in our_commands(v)]
    if isinstance(value, list):
        return [c for v in value for c in our_commands(v)]
    return []


@pytest.mark.parametrize("agent", list(AGENTS))
def test_a_committed_project_install_works_from_another_clone_and_uninstall_leaves_nothing(
    agent: str, tmp_path: Path
) -> None:
    settings_rel, team_text, pre_event, payload, user_folder = AGENTS[agent]
    origin, home_a, data_a = tmp_path / "origin", tmp_path / "home-a", tmp_path / "data-a"
    home_a.mkdir()
    origin.mkdir()
    git(origin, "init", "-q")
    team_file = origin / settings_rel
    team_file.parent.mkdir(parents=True, exist_ok=True)
    team_file.write_text(team_text, encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-qm", "the team's settings")
    env_a = env_for(home_a, data_a)

    proc = run([str(TWICESHY), "install", "--agent", agent, "--scope", "project"], origin, env_a)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hook_file = origin / HOOK_FILE.get(agent, settings_rel)
    committed = hook_file.read_text(encoding="utf-8")
    for machine_path in (str(tmp_path), sys.prefix, str(BIN), str(Path.home()), "client.py", "file://"):
        assert machine_path not in committed, (machine_path, committed)
    commands = our_commands(json.loads(committed))
    assert commands and all(shlex.split(c)[:3] == ["twiceshy", "hook", agent] for c in commands), commands
    # What git sees is what a team commits: no backup, no per-machine file.
    changed = git(origin, "status", "--porcelain", "--untracked-files=all")
    assert "backup" not in changed and "local" not in changed, changed
    git(origin, "add", ".")
    git(origin, "commit", "-qm", "twiceshy hooks")

    # A teammate: another clone path, another HOME, another data dir, a rule of their own.
    clone, home_b, data_b = tmp_path / "elsewhere" / "clone", tmp_path / "home-b", tmp_path / "data-b"
    home_b.mkdir()
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    env_b = env_for(home_b, data_b)
    learned = run([str(TWICESHY), "learn", RULE_TEXT, "--trigger", RULE_CMD, "--tier", "rule"], clone, env_b)
    assert learned.returncode == 0, learned.stderr
    data = json.loads((clone / HOOK_FILE.get(agent, settings_rel)).read_text(encoding="utf-8"))
    [command] = [c for c in our_commands(data) if c.endswith(f" {pre_event}")]
    hook = run(["sh", "-c", command], clone, env_b, input=json.dumps(payload(str(clone))))
    answer = hook.stdout + hook.stderr
    assert RULE_TEXT in answer, (command, hook.returncode, answer)  # denied with the rule, from the clone
    assert hook.returncode in (0, 2), answer
    assert not data_a.joinpath("rules.json").exists() or RULE_TEXT not in data_a.joinpath("rules.json").read_text()

    # Uninstall in the first clone: the repository as it was, nothing in the agent's user folder.
    proc = run([str(TWICESHY), "uninstall", "--agent", agent, "--scope", "project"], origin, env_a)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(origin, "reset", "-q", "HEAD~1")  # back to the team's commit: the working tree must match it exactly
    assert git(origin, "status", "--porcelain", "--untracked-files=all") == ""
    assert team_file.read_text(encoding="utf-8") == team_text  # byte for byte
    user_dir = home_a / user_folder
    assert not user_dir.exists() or not [p for p in user_dir.rglob("*") if "twiceshy" in p.name], user_dir
    exclude = (origin / ".git" / "info" / "exclude").read_text(encoding="utf-8")
    assert "twiceshy" not in exclude and "settings.local" not in exclude


def test_install_refuses_a_second_scope_and_doctor_calls_double_wiring_a_problem(tmp_path: Path) -> None:
    project, home, data = tmp_path / "proj", tmp_path / "home", tmp_path / "data"
    project.mkdir()
    home.mkdir()
    env = env_for(home, data)
    assert run([str(TWICESHY), "install", "--agent", "claude-code"], project, env).returncode == 0
    refused = run([str(TWICESHY), "install", "--agent", "claude-code", "--scope", "project"], project, env)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "twice" in refused.stderr and "--force" in refused.stderr and "--scope user" in refused.stderr
    assert not (project / ".claude").exists()  # nothing written
    forced = run([str(TWICESHY), "install", "--agent", "claude-code", "--scope", "project", "--force"], project, env)
    assert forced.returncode == 0, forced.stderr
    doctor = run([str(TWICESHY), "doctor", "--no-model", "--json"], project, env)
    report = json.loads(doctor.stdout)
    [row] = [c for c in report["checks"] if c["name"] == "hooks claude-code"]
    assert row["level"] == "fail" and "wired twice" in row["detail"], row
    assert doctor.returncode == 1 and report["verdict"].split()[1] == "problem(s)"
    # Backups are listed by doctor and only in the data dir; --purge deletes them.
    [backups] = [c for c in report["checks"] if c["name"] == "settings backups"]
    assert backups["data"]["folder"].startswith(str(data))
    for scope in ("project", "user"):
        proc = run([str(TWICESHY), "uninstall", "--agent", "claude-code", "--scope", scope, "--purge"], project, env)
        assert proc.returncode == 0, proc.stderr
    assert not (data / "settings-backups").exists()
    assert not (home / ".claude").exists() and not (project / ".claude").exists()


def test_doctor_says_when_the_committed_hook_command_is_not_on_path(tmp_path: Path) -> None:
    project, home, data = tmp_path / "proj", tmp_path / "home", tmp_path / "data"
    project.mkdir()
    home.mkdir()
    env = env_for(home, data)
    assert run([str(TWICESHY), "install", "--agent", "codex", "--scope", "project"], project, env).returncode == 0
    ok = json.loads(run([str(TWICESHY), "doctor", "--no-model", "--json"], project, env).stdout)
    [row] = [c for c in ok["checks"] if c["name"] == "hooks codex"]
    assert row["level"] == "ok", row
    # The teammate whose PATH has no twiceshy: the hooks would fail, and doctor says so.
    no_path = {**env, "PATH": "/usr/bin:/bin"}
    proc = run([sys.executable, "-m", "twiceshy", "doctor", "--no-model", "--json"], project, no_path)
    [row] = [c for c in json.loads(proc.stdout)["checks"] if c["name"] == "hooks codex"]
    assert row["level"] == "fail" and "`twiceshy` is not on PATH" in row["detail"], row
