"""Install/uninstall of hook entries in real settings files (core/install.py + setup commands)."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.ops import install as inst
from twiceshy.plugin.manager import make_manager
from twiceshy.plugins.claude_code.settings import EVENTS
from twiceshy.plugins.claude_code.settings import TOOL_MATCHER as CLAUDE_TOOL_MATCHER

USER_SETTINGS = """{
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo user-hook"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi", "timeout": 5}]}],
        "Stop": []
    },
    "model": "sonnet",
    "env": {"FOO": "bär"}
}
"""


@pytest.fixture
def pm():
    return make_manager()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    (proj / ".claude" / "settings.json").write_text(USER_SETTINGS, encoding="utf-8")
    return proj


def settings_of(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def backups(path: Path) -> list[Path]:
    """Our backups of ``path``: in the data dir, never beside it (that would be an untracked file)."""
    assert not list(path.parent.glob(path.name + ".twiceshy-backup-*"))
    assert not [p for p in path.parent.iterdir() if "backup" in p.name]
    found = sorted(inst.backups_of(path))
    assert all(str(p).startswith(str(inst.data_dir())) for p in found)
    return found


def our_items(data: dict, event: str) -> list[dict]:
    return [
        h for g in data["hooks"].get(event, []) for h in g.get("hooks", []) if inst.is_our_command(h.get("command"))
    ]


def run_cli(*args: str, cwd: Path | None = None, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_hook_command_follows_contract_and_quotes(tmp_path: Path):
    home = tmp_path / "data dir"
    cmd = inst.hook_command("claude-code", "PreToolUse", python="/opt/my py/bin/python3", home=home)
    parts = shlex.split(cmd)
    assert parts == [
        "/opt/my py/bin/python3",
        "-I",
        "-S",
        str(inst.client_path()),
        "--home",
        str(home),
        "claude-code",
        "PreToolUse",
    ]
    assert inst.client_path().name == "client.py" and inst.client_path().parent.name == "hooks"
    assert inst.is_our_command(cmd)
    # defaults: this interpreter and TWICESHY_HOME
    assert shlex.split(inst.hook_command("codex", "Stop"))[0] == sys.executable
    assert shlex.split(inst.hook_command("codex", "Stop"))[5] == os.environ["TWICESHY_HOME"]


def test_is_our_command():
    assert inst.is_our_command(
        "/usr/bin/python3 -I -S /x/site-packages/twiceshy/hooks/client.py --home /h claude-code Stop"
    )
    assert not inst.is_our_command("python3 /somewhere/hooks/client.py Stop")  # not twiceshy
    assert inst.is_our_command("twiceshy hook claude-code Stop")  # the portable command of a committed file
    assert inst.is_our_command("/home/me/.local/bin/twiceshy hook codex PreToolUse")
    assert not inst.is_our_command("twiceshy hook claude-code Stop; curl evil")  # not only ours
    assert not inst.is_our_command("echo twiceshy hook claude-code Stop")
    assert not inst.is_our_command("twiceshy learn claude-code Stop")
    assert not inst.is_our_command(None)
    assert not inst.is_our_command(42)


def test_install_keeps_user_entries_and_keys(pm, project: Path):
    path = settings_of(project)
    original = json.loads(USER_SETTINGS)
    result = inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert result.changed and result.path == path
    assert result.events == list(EVENTS)
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in ("permissions", "model", "env"):
        assert data[key] == original[key]
    # The user's hooks are untouched and stay first; ours follow.
    assert data["hooks"]["PreToolUse"][0] == original["hooks"]["PreToolUse"][0]
    assert data["hooks"]["Notification"] == original["hooks"]["Notification"]
    for event in EVENTS:
        items = our_items(data, event)
        assert len(items) == 1, event
        assert items[0]["command"] == f"twiceshy hook claude-code {event}"  # no path of this machine
        assert items[0]["type"] == "command" and items[0]["timeout"] == 10
    pre = [g for g in data["hooks"]["PreToolUse"] if our_items({"hooks": {"x": [g]}}, "x")]
    assert pre[0]["matcher"] == CLAUDE_TOOL_MATCHER
    assert "matcher" not in [g for g in data["hooks"]["SessionEnd"]][0]
    # A backup of the original, in the data dir (next to the file it would be an untracked file).
    assert result.backup is not None and result.backup.parent.parent == inst.data_dir() / "settings-backups"
    assert result.backup.read_text(encoding="utf-8") == USER_SETTINGS
    assert backups(path) == [result.backup]


def test_second_install_is_a_no_op(pm, project: Path):
    path = settings_of(project)
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    before = path.read_bytes()
    mtime = path.stat().st_mtime_ns
    again = inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert not again.changed and again.backup is None
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert len(backups(path)) == 1


def test_reinstall_updates_stale_entry_in_place(pm, project: Path, tmp_path: Path):
    path = settings_of(project)
    # What an older twiceshy wrote into a project: absolute paths of that machine.
    old = inst.merge_matcher_hooks(
        json.loads(USER_SETTINGS),
        __import__("twiceshy.plugins.claude_code.settings", fromlist=["x"]).HOOK_SPECS,
        lambda ev: inst.hook_command("claude-code", ev, python="/old/python"),
    )
    path.write_text(json.dumps(old, indent=4) + "\n", encoding="utf-8")
    result = inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert result.changed
    data = json.loads(path.read_text(encoding="utf-8"))
    for event in EVENTS:
        items = our_items(data, event)
        assert len(items) == 1 and items[0]["command"] == f"twiceshy hook claude-code {event}", event
    assert "/old/python" not in path.read_text(encoding="utf-8")
    # User scope names this machine's interpreter; a new one rewrites our entries in place.
    home = tmp_path / "claude-home"
    user = home / "settings.json"
    os.environ["CLAUDE_CONFIG_DIR"] = str(home)
    try:
        inst.uninstall(pm, "claude-code", scope="project", project_dir=project)
        inst.install(pm, "claude-code", scope="user", project_dir=project, python="/old/python")
        assert inst.install(pm, "claude-code", scope="user", project_dir=project, python="/new/python").changed
        user_data = json.loads(user.read_text(encoding="utf-8"))
        for event in EVENTS:
            items = our_items(user_data, event)
            assert len(items) == 1 and items[0]["command"].startswith("/new/python "), event
    finally:
        del os.environ["CLAUDE_CONFIG_DIR"]
        inst.install(pm, "claude-code", scope="project", project_dir=project, force=True)
    # still after the user's group, not duplicated
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "echo user-hook"
    assert len(data["hooks"]["PreToolUse"]) == 2


def test_uninstall_restores_original_exactly(pm, project: Path):
    path = settings_of(project)
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    result = inst.uninstall(pm, "claude-code", scope="project", project_dir=project)
    assert result.changed and set(result.events) == set(EVENTS)
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(USER_SETTINGS)
    assert path.read_text(encoding="utf-8") == USER_SETTINGS  # formatting restored from the backup
    again = inst.uninstall(pm, "claude-code", scope="project", project_dir=project)
    assert not again.changed and again.backup is None


def test_uninstall_removes_only_our_item_from_a_shared_group(pm, project: Path):
    path = settings_of(project)
    ours = inst.hook_command("claude-code", "PreToolUse")
    data = json.loads(USER_SETTINGS)
    data["hooks"]["PreToolUse"][0]["hooks"].append({"type": "command", "command": ours})
    data["hooks"]["PostToolUse"] = [{"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier"}]}]
    path.write_text(json.dumps(data), encoding="utf-8")
    inst.uninstall(pm, "claude-code", scope="project", project_dir=project)
    after = json.loads(path.read_text(encoding="utf-8"))
    expected = json.loads(USER_SETTINGS)
    expected["hooks"]["PostToolUse"] = data["hooks"]["PostToolUse"]
    assert after == expected


def test_uninstall_after_install_into_new_file_removes_it(pm, tmp_path: Path):
    # issue 20: a settings file we created and left empty goes away with uninstall
    proj = tmp_path / "fresh"
    proj.mkdir()
    result = inst.install(pm, "claude-code", scope="project", project_dir=proj)
    assert result.created and result.backup is None
    local = proj / ".claude" / "settings.local.json"  # TWICESHY_HOME (the tests' own) is this machine's
    assert json.loads(local.read_text(encoding="utf-8")) == {"env": {"TWICESHY_HOME": os.environ["TWICESHY_HOME"]}}
    removed = inst.uninstall(pm, "claude-code", scope="project", project_dir=proj)
    assert not settings_of(proj).exists() and not local.exists()
    assert sorted(removed.removed_files) == sorted([settings_of(proj), local])
    assert removed.removed_dirs == [proj / ".claude"]  # the folder install made for them, empty now
    assert list(proj.iterdir()) == []


def test_uninstall_without_file_creates_nothing(pm, tmp_path: Path):
    result = inst.uninstall(pm, "claude-code", scope="project", project_dir=tmp_path)
    assert not result.changed
    assert not (tmp_path / ".claude").exists()


@pytest.mark.parametrize(
    "text, needle",
    [
        ('{"hooks": {,}}', "not valid JSON (line 1"),
        ('{\n  // my comment\n  "model": "x"\n}\n', "JSON with comments"),
        ('["not", "an", "object"]', "JSON object at the top level"),
    ],
)
def test_bad_settings_refused_and_untouched(pm, project: Path, text: str, needle: str):
    path = settings_of(project)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(inst.InstallError) as err:
        inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert needle in err.value.message and str(path) in err.value.message
    assert "did not change it" in err.value.message
    assert path.read_text(encoding="utf-8") == text
    assert backups(path) == []
    with pytest.raises(inst.InstallError):
        inst.uninstall(pm, "claude-code", scope="project", project_dir=project)
    assert path.read_text(encoding="utf-8") == text


def test_hooks_of_wrong_type_refused(pm, project: Path):
    path = settings_of(project)
    path.write_text('{"hooks": ["x"]}', encoding="utf-8")
    with pytest.raises(inst.InstallError, match='"hooks" must be a JSON object'):
        inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert path.read_text(encoding="utf-8") == '{"hooks": ["x"]}'


def test_dry_run_writes_nothing(pm, project: Path, tmp_path: Path):
    path = settings_of(project)
    result = inst.install(pm, "claude-code", scope="project", project_dir=project, dry_run=True)
    assert result.changed and result.dry_run and result.backup is None
    assert path.read_text(encoding="utf-8") == USER_SETTINGS and backups(path) == []
    assert result.diff.startswith(f"--- {path}\n+++ {path}\n")
    assert "+" in result.diff and "claude-code PreToolUse" in result.diff
    fresh = tmp_path / "none"
    fresh.mkdir()
    result = inst.install(pm, "claude-code", scope="project", project_dir=fresh, dry_run=True)
    assert result.diff.startswith("--- /dev/null")
    assert not (fresh / ".claude").exists()


def test_file_mode_kept(pm, project: Path):
    path = settings_of(project)
    os.chmod(path, 0o600)
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_unknown_agent_and_scope(pm, tmp_path: Path):
    with pytest.raises(inst.InstallError, match="no installed plugin handles agent"):
        inst.install(pm, "nope", scope="project", project_dir=tmp_path)
    with pytest.raises(inst.InstallError, match="scope"):
        inst.install(pm, "claude-code", scope="global", project_dir=tmp_path)


def test_merge_helpers_directly():
    spec = [inst.HookSpec("BeforeTool", matcher=".*", timeout=5000)]
    base = {"hooks": {"BeforeTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "theirs"}]}]}}
    merged = inst.merge_matcher_hooks(base, spec, lambda e: f"python twiceshy/hooks/client.py gemini {e}")
    assert base["hooks"]["BeforeTool"] == [{"matcher": "x", "hooks": [{"type": "command", "command": "theirs"}]}]
    assert merged["hooks"]["BeforeTool"][1]["hooks"][0]["timeout"] == 5000
    assert inst.merge_matcher_hooks(merged, spec, lambda e: f"python twiceshy/hooks/client.py gemini {e}") == merged
    assert inst.remove_matcher_hooks(merged) == base
    flat = {"version": 1, "hooks": {"stop": [{"command": "twiceshy/hooks/client.py cursor stop"}, {"command": "mine"}]}}
    assert inst.remove_flat_hooks(flat) == {"version": 1, "hooks": {"stop": [{"command": "mine"}]}}
    assert inst.our_events(merged) == ["BeforeTool"]


# ---------------------------------------------------------------- CLI, real subprocesses


def test_cli_install_project_scope(project: Path):
    path = settings_of(project)
    proc = run_cli("install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project))
    assert proc.returncode == 0, proc.stderr
    assert f"installed twiceshy hooks in {path}" in proc.stdout
    assert "events: PreToolUse, PostToolUse" in proc.stdout and "backup: " in proc.stdout
    assert len(our_items(json.loads(path.read_text(encoding="utf-8")), "SessionEnd")) == 1
    proc = run_cli("install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project))
    assert proc.returncode == 0 and "already installed" in proc.stdout
    assert len(backups(path)) == 1
    proc = run_cli("uninstall", "--agent", "claude-code", "--scope", "project", cwd=project)
    assert proc.returncode == 0 and "removed twiceshy hooks" in proc.stdout
    assert path.read_text(encoding="utf-8") == USER_SETTINGS


def test_cli_user_scope_uses_home(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    proc = run_cli("install", "--agent", "claude-code", env_extra=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    target = home / ".claude" / "settings.json"
    assert target.is_file() and str(target) in proc.stdout
    assert set(inst.our_events(json.loads(target.read_text(encoding="utf-8")))) == set(EVENTS)


def test_cli_dry_run_and_invalid_json(project: Path):
    path = settings_of(project)
    proc = run_cli(
        "install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project), "--dry-run"
    )
    assert proc.returncode == 0 and "[dry run]" in proc.stdout and "+++ " in proc.stdout
    assert path.read_text(encoding="utf-8") == USER_SETTINGS and backups(path) == []
    path.write_text("{broken", encoding="utf-8")
    proc = run_cli("install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project))
    assert proc.returncode == 1
    assert "Error:" in proc.stderr and "is not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert path.read_text(encoding="utf-8") == "{broken"


def test_cli_rejects_unknown_agent(tmp_path: Path):
    proc = run_cli("install", "--agent", "vim", "--scope", "project", "--project-dir", str(tmp_path))
    assert proc.returncode == 2 and "claude-code" in proc.stderr
    assert not (tmp_path / ".claude").exists()


def test_cli_agent_all(tmp_path: Path):
    from twiceshy.plugin.manager import agent_names

    proc = run_cli("install", "--agent", "all", "--scope", "project", "--project-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    for name in agent_names(make_manager()):
        assert f"{name}: installed twiceshy hooks" in proc.stdout
    assert (tmp_path / ".claude" / "settings.json").is_file()
    proc = run_cli("uninstall", "--agent", "all", "--scope", "project", "--project-dir", str(tmp_path))
    assert proc.returncode == 0 and "claude-code: removed twiceshy hooks" in proc.stdout


# -- matchers: a process only for the tools that can be a mistake ---------------------------


def _matches(matcher: str, tool: str) -> bool:
    """Claude Code's rule (2.1.197): only [A-Za-z0-9_|] is an exact list, else an
    unanchored JS regex; Gemini CLI: always a regex. Python's re agrees with JS here."""
    if re.fullmatch(r"[A-Za-z0-9_|]+", matcher):
        return tool in matcher.split("|")
    return re.search(matcher, tool) is not None


def test_claude_code_tool_hooks_skip_read_only_tools(pm, project: Path):
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    data = json.loads(settings_of(project).read_text(encoding="utf-8"))
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        (group,) = [g for g in data["hooks"][event] if our_items({"hooks": {"x": [g]}}, "x")]
        for tool in ("Bash", "Edit", "MultiEdit", "Write", "NotebookEdit", "mcp__github__create_issue"):
            assert _matches(group["matcher"], tool), (event, tool)
        for tool in ("Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "BashOutput", "TodoWrite", "Task"):
            assert not _matches(group["matcher"], tool), (event, tool)


def test_reinstall_narrows_an_old_match_all_group(pm, project: Path):
    """An install from before the matchers (``*``) is rewritten in place, not duplicated."""
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    path = settings_of(project)
    data = json.loads(path.read_text(encoding="utf-8"))
    for group in data["hooks"]["PreToolUse"]:
        if our_items({"hooks": {"x": [group]}}, "x"):
            group["matcher"] = "*"
    path.write_text(json.dumps(data), encoding="utf-8")
    inst.install(pm, "claude-code", scope="project", project_dir=project)
    data = json.loads(path.read_text(encoding="utf-8"))
    ours = [g for g in data["hooks"]["PreToolUse"] if our_items({"hooks": {"x": [g]}}, "x")]
    assert [g["matcher"] for g in ours] == [CLAUDE_TOOL_MATCHER]


def test_gemini_tool_hooks_skip_read_only_tools():
    from twiceshy.plugins.gemini.settings import HOOK_SPECS

    tool_specs = [s for s in HOOK_SPECS if s.event in ("BeforeTool", "AfterTool")]
    assert len(tool_specs) == 2
    for spec in tool_specs:
        for tool in ("run_shell_command", "write_file", "replace", "mcp_github_create_issue"):
            assert _matches(spec.matcher, tool), tool
        for tool in ("read_file", "read_many_files", "glob", "grep_search", "list_directory", "web_fetch"):
            assert not _matches(spec.matcher, tool), tool
    lifecycle = [s for s in HOOK_SPECS if s.event not in ("BeforeTool", "AfterTool")]
    assert all(s.matcher == "*" for s in lifecycle)
