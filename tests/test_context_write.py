"""Files we write are the user's files.

The session-end context step (builtin ``context-files`` plugin) writes only the
memory file of the agent that ran, only where it exists (``context.write:
existing``, the default) or always/never as configured, never in ``$HOME`` or
outside a git project. ``uninstall`` removes our managed blocks, the files we
created and settings files we created and left empty. Real store, real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.base.types import CoreEvent
from twiceshy.builtins.session_end import ContextFiles
from twiceshy.engine.context import make_context
from twiceshy.learning.ingest import store_lesson
from twiceshy.ops.install import created_files

LESSON = "run pytest with -q before committing"
USER_TEXT = "# My notes\n\nKeep functions short.\n"


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from twiceshy.ops.cli import main; main()", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=os.environ.copy(),
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def session_end(root: Path, agent: str, cwd: Path | None = None) -> None:
    ctx = make_context(root)
    store_lesson(ctx, LESSON, "git commit", kind="manual", project=None, tags=[])
    event = CoreEvent(kind="session_end", agent=agent, native_event="SessionEnd", cwd=str(cwd or root / "src"))
    ContextFiles().session_learned(lessons=[], event=event, ctx=ctx)


def _set_write(mode: str) -> None:
    cfg = Path(os.environ["TWICESHY_CONFIG_DIR"])
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.yaml").write_text(f"context:\n  write: {mode}\n", encoding="utf-8")


def test_default_existing_writes_only_the_running_agents_existing_file(project: Path) -> None:
    session_end(project, "claude-code")
    assert not (project / "CLAUDE.md").exists()  # not there: not created
    (project / "CLAUDE.md").write_text(USER_TEXT, encoding="utf-8")
    (project / "AGENTS.md").write_text(USER_TEXT, encoding="utf-8")
    session_end(project, "claude-code")
    text = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert text.startswith(USER_TEXT) and LESSON in text
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == USER_TEXT  # codex did not run
    assert not (project / "GEMINI.md").exists()


def test_always_creates_and_records_never_writes_nothing(project: Path, twiceshy_home: Path) -> None:
    _set_write("never")
    (project / "CLAUDE.md").write_text(USER_TEXT, encoding="utf-8")
    session_end(project, "claude-code")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == USER_TEXT
    _set_write("always")
    session_end(project, "gemini")
    assert LESSON in (project / "GEMINI.md").read_text(encoding="utf-8")
    assert str((project / "GEMINI.md").absolute()) in [r["path"] for r in created_files()]


def test_never_in_home_or_outside_a_project(
    tmp_path: Path, twiceshy_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _set_write("always")
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)  # a dotfiles repo at $HOME is still $HOME
    monkeypatch.setenv("HOME", str(home))
    session_end(home, "claude-code", cwd=home)
    assert not (home / "CLAUDE.md").exists()
    loose = tmp_path / "loose"
    loose.mkdir()
    session_end(loose, "claude-code", cwd=loose)
    assert not (loose / "CLAUDE.md").exists()


def test_uninstall_removes_blocks_created_files_and_empty_settings(project: Path) -> None:
    (project / "AGENTS.md").write_text(USER_TEXT, encoding="utf-8")
    assert cli(["learn", LESSON], project).returncode == 0
    for agent in ("claude-code", "codex"):
        proc = cli(["install", "--agent", agent, "--scope", "project"], project)
        assert proc.returncode == 0, proc.stderr
    settings = project / ".claude" / "settings.json"
    assert settings.is_file()
    proc = cli(["context", "--write", "--agent", "claude-code", "--agent", "codex"], project)
    assert proc.returncode == 0, proc.stderr
    assert "twiceshy:begin" in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert "twiceshy:begin" in (project / "AGENTS.md").read_text(encoding="utf-8")

    for agent in ("claude-code", "codex"):
        proc = cli(["uninstall", "--agent", agent, "--scope", "project"], project)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (project / "CLAUDE.md").exists()  # we created it
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == USER_TEXT  # theirs, block gone
    assert not settings.exists()  # created by install, empty after uninstall
    assert [r["path"] for r in created_files()] == []  # nothing recorded is left behind


def test_uninstall_keeps_data_unless_asked_and_never_while_an_agent_uses_it(project: Path, twiceshy_home: Path) -> None:
    assert cli(["learn", LESSON], project).returncode == 0
    for agent in ("claude-code", "codex"):
        assert cli(["install", "--agent", agent, "--scope", "project"], project).returncode == 0
    kept = cli(["uninstall", "--agent", "claude-code", "--scope", "project", "--keep-data"], project)
    assert kept.returncode == 0 and (twiceshy_home / "store").is_dir()
    refused = cli(["uninstall", "--agent", "claude-code", "--scope", "project", "--remove-data"], project)
    assert refused.returncode == 1 and "codex still use" in refused.stderr  # codex is still wired
    assert (twiceshy_home / "store").is_dir()
    removed = cli(["uninstall", "--agent", "codex", "--scope", "project", "--remove-data"], project)
    assert removed.returncode == 0, removed.stderr
    assert not twiceshy_home.exists()
