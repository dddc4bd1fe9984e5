"""What a pre-tool hit costs beyond the search (issue 18): a hold states the
lesson's fix without reading the store again, writes its record without an
fsync, and sweeps old records at most once per ``PRUNE_EVERY_S``.

Real parts: a Chroma store on disk, the installed plugins, the dispatcher
every hook goes through, hold records on disk.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from twiceshy.base.types import Experience, LessonMatch
from twiceshy.engine.dispatch import handle_hook
from twiceshy.recall import delivery, ranking

MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
LESSON = f"`{MISTAKE}` failed (error: missing --region); `{FIX}` worked instead."


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    ranking.clear_cache()


def payload(command: str, session: str, cwd: Path) -> dict[str, Any]:
    return {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(cwd),
    }


def reason_of(stdout: str) -> str:
    specific = json.loads(stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", specific
    return str(specific["permissionDecisionReason"])


def test_a_hold_states_the_fix_without_reading_the_lesson_again(
    ctx: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exp = Experience(text=LESSON, trigger=MISTAKE, kind="error_fix")
    ctx.store.add(exp)
    asked: list[tuple[str, list[str]]] = []
    real = ctx.store.get_many

    def counting(ids: Any) -> Any:
        ids = list(ids)
        asked.append((sys._getframe(1).f_globals.get("__name__", ""), ids))
        return real(ids)

    monkeypatch.setattr(ctx.store, "get_many", counting)
    out = handle_hook(ctx, "claude-code", "PreToolUse", payload(MISTAKE, "s1", tmp_path))
    reason = reason_of(out.stdout)
    assert LESSON in reason and "Held once" in reason and FIX in reason
    assert [ids for caller, ids in asked if caller == delivery.__name__] == []  # the lesson in hand, not read again
    assert any(caller != delivery.__name__ for caller, _ in asked)  # (others do read: the counting works)


def test_a_lesson_edited_since_it_was_noted_is_read_from_the_store(ctx: Any) -> None:
    exp = Experience(text=LESSON, trigger=MISTAKE, kind="error_fix")
    ctx.store.add(exp)
    ranking._note_matched(exp)
    noted = LessonMatch(experience_id=exp.id, text=exp.text, trigger=exp.trigger, tier=exp.tier, score=0.9)
    assert delivery.fixes_of(ctx, [noted]) == {exp.id: FIX}
    other_fix = "./deploy.sh --env staging --region us-east-1"
    exp.text = f"`{MISTAKE}` failed (error: missing --region); `{other_fix}` worked instead."
    ctx.store.update(exp, reembed=True)
    edited = LessonMatch(experience_id=exp.id, text=exp.text, trigger=exp.trigger, tier=exp.tier, score=0.9)
    assert delivery.fixes_of(ctx, [edited]) == {exp.id: other_fix}
    # A match no note knows of (another plugin's lesson): read from the store too.
    unknown = Experience(text="`make deploy` failed; `make release` worked instead.", trigger="make deploy")
    ctx.store.add(unknown)
    theirs = LessonMatch(experience_id=unknown.id, text=unknown.text, trigger="make deploy", tier=3, score=0.9)
    assert delivery.fixes_of(ctx, [theirs]) == {unknown.id: "make release"}


def test_the_hold_record_is_written_whole_without_an_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    delivery._save_held("s/1", {"abc": 1.0})
    delivery._save_held("s/1", {"abc": 1.0, "def": 2.0})
    folder = delivery._holds_dir()
    assert synced == []
    assert sorted(p.name for p in folder.iterdir()) == ["s_1.json"]  # no temp file left behind
    record = folder / "s_1.json"
    assert json.loads(record.read_text()) == {"abc": 1.0, "def": 2.0}
    assert record.stat().st_mode & 0o077 == 0


def test_old_hold_records_are_swept_at_most_once_per_period(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = delivery._holds_dir()
    folder.mkdir(parents=True, exist_ok=True)
    old = time.time() - delivery.HOLD_TTL_S - 60

    def stale(name: str) -> Path:
        path = folder / name
        path.write_text("{}")
        os.utime(path, (old, old))
        return path

    monkeypatch.setattr(delivery, "_pruned_at", 0.0)
    first = stale("gone.json")
    delivery._save_held("s1", {"a": 1.0})
    assert not first.exists()
    second = stale("later.json")
    delivery._save_held("s1", {"a": 1.0, "b": 2.0})
    assert second.exists()  # swept less than PRUNE_EVERY_S ago: not again on this hold
    monkeypatch.setattr(delivery, "_pruned_at", time.monotonic() - delivery.PRUNE_EVERY_S - 1)
    delivery._save_held("s1", {"a": 1.0})
    assert not second.exists() and (folder / "s1.json").exists()
