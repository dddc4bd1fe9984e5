"""After a session ends, the context file of every agent installed in the
project is refreshed — and a project where nothing applies gets no new file."""

from __future__ import annotations

from pathlib import Path

from twiceshy.base.types import Tier
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_hook
from twiceshy.learning.ingest import store_lesson
from twiceshy.ops.install import install

FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"


def _session_end(ctx, project: Path) -> None:
    payload = {
        "session_id": "auto-1",
        "transcript_path": str(FIXTURES / "session1_pip_mistake.jsonl"),
        "cwd": str(project),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    assert handle_hook(ctx, "claude-code", "SessionEnd", payload).stdout == ""


def test_session_end_refreshes_installed_agents_context_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "CLAUDE.md").write_text("# My project\n\nHand-written notes.\n")
    ctx = make_context(project)
    install(ctx.pm, "claude-code", scope="project", project_dir=project)
    exp, _ = store_lesson(ctx, "Never force-push to main; open a PR", "git push --force origin main")
    exp.tier = int(Tier.RULE)
    ctx.store.update(exp)
    _session_end(ctx, project)
    text = (project / "CLAUDE.md").read_text()
    assert text.startswith("# My project\n\nHand-written notes.\n")
    assert "<!-- twiceshy:begin -->" in text and "Never force-push to main" in text


def test_no_agent_installed_means_no_file_written(tmp_path: Path) -> None:
    project = tmp_path / "bare"
    project.mkdir()
    ctx = make_context(project)
    _session_end(ctx, project)
    assert not (project / "CLAUDE.md").exists()
