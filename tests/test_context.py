"""Managed block writer, section rendering and budget, render_context and session-start guidance."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.base.types import ContextSection, CoreEvent, Experience
from twiceshy.guidance.context_file import (
    BEGIN,
    END,
    ManagedBlockError,
    installed_agents,
    remove_managed_block,
    settings_have_our_hooks,
    write_context,
    write_managed_block,
)
from twiceshy.guidance.render import estimate_tokens, render_context_text, render_sections, write_agent_contexts

OUR_HOOK = "/usr/bin/python3 -I -S /x/site-packages/twiceshy/hooks/client.py --home /h claude-code PreToolUse"


def _split(data: bytes) -> tuple[bytes, bytes, bytes]:
    start = data.index(BEGIN)
    end = data.index(END) + len(END)
    return data[:start], data[start:end], data[end:]


# -- managed block: bytes ---------------------------------------------------------


@pytest.mark.parametrize(
    "original",
    [
        b"# My notes\n\nKeep this.\n",
        b"# No trailing newline\nlast line stays open",
        b"# CRLF file\r\nline two\r\n",
        b"# CRLF, no trailing newline\r\nlast",
        b"   \n\n\t spaces and tabs  \n",
        "# unicode \u00e9\u00e8 \u2603\n".encode("utf-8"),
    ],
)
def test_append_preserves_user_bytes_and_is_idempotent(tmp_path: Path, original: bytes) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(original)
    assert write_managed_block(path, "## lessons\n- one\n- two") is True
    first = path.read_bytes()
    assert first.startswith(original)  # every user byte, in place
    before, block, after = _split(first)
    assert before[: len(original)] == original
    nl = b"\r\n" if b"\r\n" in original else b"\n"
    assert after == nl
    if nl == b"\r\n":
        assert block.count(b"\n") == block.count(b"\r\n")  # the block follows the file's line endings
    else:
        assert b"\r" not in block
    # Idempotent: same body, same bytes, file not rewritten.
    mtime = path.stat().st_mtime_ns
    assert write_managed_block(path, "## lessons\n- one\n- two") is False
    assert path.read_bytes() == first
    assert path.stat().st_mtime_ns == mtime


def test_update_in_middle_touches_only_the_block(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    head = b"# Project\r\n\r\nintro text \xe2\x98\x83\r\n\r\n"
    tail = b"\r\n## After our block\r\nuser text, no newline at end"
    path.write_bytes(head + BEGIN + b"\r\nold stuff\r\n" + END + tail)
    assert write_managed_block(path, "- new lesson") is True
    data = path.read_bytes()
    before, block, after = _split(data)
    assert before == head and after == tail
    assert b"old stuff" not in block and b"- new lesson" in block
    again = path.read_bytes()
    write_managed_block(path, "- new lesson")
    assert path.read_bytes() == again
    # Another body replaces the block, never the surroundings.
    write_managed_block(path, "- other\n- lines")
    before2, block2, after2 = _split(path.read_bytes())
    assert (before2, after2) == (head, tail) and b"- other\r\n- lines" in block2


def test_creates_missing_file_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "GEMINI.md"
    assert write_managed_block(path, "- a") is True
    data = path.read_bytes()
    assert data.startswith(BEGIN) and data.endswith(END + b"\n")
    assert write_managed_block(path, "- a") is False


def test_broken_markers_refuse_and_leave_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    for broken in (b"text\n" + BEGIN + b"\nno end\n", b"text\n" + END + b"\n", BEGIN + END + BEGIN + END):
        path.write_bytes(broken)
        with pytest.raises(ManagedBlockError):
            write_managed_block(path, "- x")
        assert path.read_bytes() == broken


def test_remove_restores_file_that_ended_with_newline(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    for original in (b"# a\nb\n", b"# crlf\r\nb\r\n"):
        path.write_bytes(original)
        write_managed_block(path, "- x")
        assert remove_managed_block(path) is True
        assert path.read_bytes() == original
    assert remove_managed_block(path) is False
    write_managed_block(tmp_path / "new.md", "- x")
    remove_managed_block(tmp_path / "new.md")
    assert not (tmp_path / "new.md").exists()  # we created it, nothing of the user's left


def test_write_keeps_file_mode(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(b"x\n")
    os.chmod(path, 0o640)
    write_managed_block(path, "- y")
    assert path.stat().st_mode & 0o777 == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_cursor_mdc_file_is_whole_and_has_frontmatter(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "rules" / "twiceshy.mdc"
    assert write_context(path, "## lessons\n- a") is True
    text = path.read_text()
    assert text.startswith("---\ndescription: ") and "\nalwaysApply: true\n---\n" in text
    assert text.rstrip().endswith("- a")
    assert BEGIN.decode() not in text
    assert write_context(path, "## lessons\n- a") is False


# -- rendering and budget ---------------------------------------------------------------


def test_estimate_tokens_is_chars_over_four() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 400) == 100


def test_render_orders_by_priority_and_cuts_to_budget() -> None:
    sections = [
        ContextSection("Consider", [f"- maybe {i} " + "z" * 60 for i in range(10)], priority=60),
        ContextSection("Rules", ["- rule one", "- rule two"], priority=20),
        ContextSection("Principles", ["- principle"], priority=10),
        ContextSection("Empty", [], priority=0),
    ]
    full = render_sections(sections, 10_000)
    assert full.index("### Principles") < full.index("### Rules") < full.index("### Consider")
    assert "### Empty" not in full
    small = render_sections(sections, 60)
    assert estimate_tokens(small) <= 60
    assert "- principle" in small and "- rule two" in small
    assert small.count("- maybe") < 10  # lowest priority is cut first
    assert render_sections(sections, 3) == ""  # not even the heading plus one line fits
    for budget in range(10, 400, 7):
        assert estimate_tokens(render_sections(sections, budget)) <= budget


# -- render_context from a real store ------------------------------------------------------


def _seed(ctx, project: str) -> dict[str, Experience]:
    exps = {
        "principle": Experience(text="Prefer small reversible steps", trigger="large refactor", tier=0, confidence=0.9),
        "rule": Experience(
            text="Run the tests before committing", trigger="git commit", tier=1, follows=4, ignores=1, seen_count=5
        ),
        "apply": Experience(
            text="Use uv run for scripts here",
            trigger="python script",
            tier=2,
            project=project,
            follows=3,
            seen_count=3,
        ),
        "avoid": Experience(text="Never edit files under gen/", trigger="edit gen/x.py", tier=2, seen_count=2),
        "consider": Experience(text="Check the CI logs first", trigger="ci failure", tier=3, seen_count=2),
        "raw_once": Experience(text="One-off raw note", trigger="something", tier=3, seen_count=1),
        "other": Experience(text="Other project's secret habit", trigger="deploy", tier=1, project="elsewhere-0000"),
        "superseded": Experience(text="Old superseded advice", trigger="git commit -n", tier=2, superseded_by="x"),
    }
    for exp in exps.values():
        ctx.store.add(exp)
    return exps


def test_render_context_groups_scope_and_evidence(ctx, tmp_path: Path) -> None:
    from twiceshy.base.project import fingerprint

    project = fingerprint(str(tmp_path))
    _seed(ctx, project)
    text = render_context_text(ctx, "claude-code", project, 2000)
    order = [text.index(h) for h in ("### Principles", "### Rules", "### Apply", "### Avoid", "### Consider")]
    assert order == sorted(order)
    assert "- Run the tests before committing (seen 5x, followed 4/5)" in text
    assert "Use uv run for scripts here (seen 3x, followed 3/3)" in text
    assert "Never edit files under gen/" in text.split("### Avoid")[1]
    assert "Check the CI logs first" in text.split("### Consider")[1]
    for absent in ("Other project's secret habit", "Old superseded advice", "One-off raw note"):
        assert absent not in text
    # Another project does not see this project's lesson, but sees the global ones.
    other = render_context_text(ctx, "claude-code", "stranger-1111", 2000)
    assert "Use uv run" not in other and "Run the tests before committing" in other
    # A small budget keeps the strongest sections.
    small = render_context_text(ctx, "claude-code", project, 40)
    assert estimate_tokens(small) <= 40 and "Prefer small reversible steps" in small and "### Consider" not in small


def test_session_start_once_per_session_even_after_restart(ctx, tmp_path: Path) -> None:
    from twiceshy.base.project import fingerprint
    from twiceshy.engine.context import make_context
    from twiceshy.engine.dispatch import handle_event
    from twiceshy.guidance.projects import load_registry

    _seed(ctx, fingerprint(str(tmp_path)))
    event = CoreEvent(
        kind="session_start", agent="claude-code", native_event="SessionStart", session_id="s-1", cwd=str(tmp_path)
    )
    first = handle_event(ctx, event)
    assert "Run the tests before committing" in first.context and "not instructions" in first.context
    assert handle_event(ctx, event).context == ""
    prompt = CoreEvent(
        kind="prompt", agent="claude-code", native_event="UserPromptSubmit", session_id="s-1", cwd=str(tmp_path)
    )
    assert handle_event(ctx, prompt).context == ""
    # A restarted engine (fresh context) still remembers the session got its guidance.
    assert handle_event(make_context(tmp_path), prompt).context == ""
    # A new session gets it; the first prompt counts as the start for agents without SessionStart.
    other = CoreEvent(
        kind="prompt", agent="cursor", native_event="beforeSubmitPrompt", session_id="s-2", cwd=str(tmp_path)
    )
    assert "Prefer small reversible steps" in handle_event(ctx, other).context
    reg = load_registry()
    assert reg[fingerprint(str(tmp_path))]["sessions"] == 2
    budget = ctx.config.get("context", "session_token_budget")
    assert estimate_tokens(first.context) <= budget


# -- installed agents and writing their files ------------------------------------------------------


def _claude_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    user = tmp_path / "userclaude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(user))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return user


def test_settings_ownership_check(tmp_path: Path) -> None:
    ours = tmp_path / "a.json"
    ours.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": OUR_HOOK}]}]}}))
    theirs = tmp_path / "b.json"
    theirs.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"command": "twiceshy-lookalike run"}]}]}}))
    toml = tmp_path / "config.toml"
    toml.write_text(f'[hooks]\ncommand = "{OUR_HOOK}"\n')
    assert settings_have_our_hooks(ours) and settings_have_our_hooks(toml)
    assert not settings_have_our_hooks(theirs) and not settings_have_our_hooks(tmp_path / "missing.json")


def test_write_agent_contexts_for_installed_agents(ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from twiceshy.base.project import fingerprint

    _claude_env(monkeypatch, tmp_path)
    project_dir = tmp_path / "proj"
    project_dir.mkdir()
    _seed(ctx, fingerprint(str(project_dir)))
    assert "claude-code" not in installed_agents(ctx.pm, project_dir)
    assert write_agent_contexts(ctx, project_dir) == [] or all(
        r["agent"] != "claude-code" for r in write_agent_contexts(ctx, project_dir)
    )
    settings = project_dir / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": OUR_HOOK}]}]}})
    )
    assert "claude-code" in installed_agents(ctx.pm, project_dir)
    claude_md = project_dir / "CLAUDE.md"
    claude_md.write_bytes(b"# House rules\r\nBe kind.")
    rows = [r for r in write_agent_contexts(ctx, project_dir) if r["agent"] == "claude-code"]
    assert rows == [{"agent": "claude-code", "path": str(claude_md), "changed": True}]
    data = claude_md.read_bytes()
    assert data.startswith(b"# House rules\r\nBe kind.") and b"Run the tests before committing" in data
    rows = [r for r in write_agent_contexts(ctx, project_dir) if r["agent"] == "claude-code"]
    assert rows[0]["changed"] is False and claude_md.read_bytes() == data


def test_cli_context_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, twiceshy_home: Path) -> None:
    from twiceshy.engine.context import make_context

    _claude_env(monkeypatch, tmp_path)
    project_dir = tmp_path / "cliproj"
    project_dir.mkdir()
    make_context(project_dir).store.add(Experience(text="Always pin the Node version", trigger="npm install", tier=1))
    env = dict(os.environ)
    shown = subprocess.run(
        [sys.executable, "-m", "twiceshy", "context"],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "Always pin the Node version" in shown.stdout
    done = subprocess.run(
        [sys.executable, "-m", "twiceshy", "context", "--write", "--agent", "claude-code"],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "updated" in done.stdout
    assert "Always pin the Node version" in (project_dir / "CLAUDE.md").read_text()
    # With no installed agent and no --agent, --write says so instead of pretending.
    nothing = subprocess.run(
        [sys.executable, "-m", "twiceshy", "context", "--write"],
        cwd=project_dir,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert nothing.returncode != 0 and "no agent" in nothing.stderr


def test_session_start_serves_stale_lessons_and_refreshes_behind(ctx, tmp_path: Path) -> None:
    import time as _time

    from twiceshy.builtins import context as plugin
    from twiceshy.engine.dispatch import handle_event

    def start(sid: str) -> str:
        ev = CoreEvent(
            kind="session_start", agent="claude-code", native_event="SessionStart", session_id=sid, cwd=str(tmp_path)
        )
        return handle_event(ctx, ev).context

    ctx.store.add(Experience(text="First lesson on disk", trigger="a", tier=1))
    assert "First lesson on disk" in start("w-1")
    ctx.store.add(Experience(text="Second lesson just written", trigger="b", tier=1))
    # An explicit render (CLI, --write) is always fresh.
    assert "Second lesson just written" in render_context_text(ctx, "claude-code", None, 1000)
    ctx.store.add(Experience(text="Third lesson just written", trigger="c", tier=1))
    stale = start("w-2")
    assert "First lesson on disk" in stale  # served at once from the cache
    deadline = _time.time() + 20
    while plugin._refreshing and _time.time() < deadline:
        _time.sleep(0.05)
    assert "Third lesson just written" in start("w-3")


def test_every_agent_plugin_gets_its_own_file(ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from twiceshy.plugin.manager import agent_names

    home = tmp_path / "home"
    for var, sub in (("HOME", ""), ("CLAUDE_CONFIG_DIR", ".claude"), ("CODEX_HOME", ".codex"), ("GEMINI_CLI_HOME", "")):
        monkeypatch.setenv(var, str(home / sub) if sub else str(home))
    project_dir = tmp_path / "multi"
    project_dir.mkdir()
    ctx.store.add(Experience(text="Check the lockfile into git", trigger="npm install", tier=1))
    agents = agent_names(ctx.pm)
    assert {"claude-code", "codex", "gemini", "cursor"} <= set(agents)
    for agent in agents:
        settings = ctx.pm.hook.agent_install_hooks(
            agent=agent,
            settings={},
            hook_command=lambda ev, a=agent: OUR_HOOK.replace("claude-code PreToolUse", f"{a} {ev}"),
        )
        path = ctx.pm.hook.agent_settings_file(agent=agent, scope="project", project_dir=project_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))
    assert set(installed_agents(ctx.pm, project_dir)) == set(agents)
    rows = {r["agent"]: r for r in write_agent_contexts(ctx, project_dir)}
    expected = {
        "claude-code": "CLAUDE.md",
        "codex": "AGENTS.md",
        "gemini": "GEMINI.md",
        "cursor": ".cursor/rules/twiceshy.mdc",
    }
    for agent, rel in expected.items():
        assert rows[agent]["path"] == str(project_dir / rel) and "error" not in rows[agent]
        text = (project_dir / rel).read_text()
        assert "Check the lockfile into git" in text
        assert text.startswith("---\n") == rel.endswith(".mdc")
