"""A call that worked here before is never held (issue 27, "the fix is never held"): when a call is,
part for part, the fix another lesson stored — the exact call that ran and worked in an earlier
session — no lesson holds it, in the engine and in the hook client alone. A confirmed rule still denies.

Real parts: lessons learned by the real extractor from a session's tool calls, a Chroma store on
disk with its hold index, the dispatcher every hook goes through, and the client's own index reader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from twiceshy.base.types import Experience, Tier, TranscriptEntry
from twiceshy.engine.dispatch import handle_hook
from twiceshy.hooks import coldhold, match
from twiceshy.learning import extractors as ex
from twiceshy.recall import ranking
from twiceshy.recall.hold_index import index_dir

_ids = iter(range(10**6))


def _bash(command: str, output: str, error: bool = False) -> list[TranscriptEntry]:
    tid = f"k{next(_ids)}"
    return [
        TranscriptEntry(role="assistant", source="tool_call", text=command, tool_name="Bash",
                        tool_input={"command": command}, tool_use_id=tid),
        TranscriptEntry(role="tool", source="tool_result", text=output, tool_name="Bash", tool_use_id=tid,
                        is_error=error),
    ]  # fmt: skip


def _learn(ctx: Any, mistake: str, output: str, fix: str, tier: Tier = Tier.RAW) -> Experience:
    entries = [TranscriptEntry(role="user", source="user", text="run the tests")]
    entries += _bash(mistake, output, error=True) + _bash(fix, "ok")
    (cand,) = ex.error_then_success(entries)
    exp = Experience(text=cand.text, trigger=cand.trigger, kind="error_fix", structured=cand.structured, tier=tier)
    ctx.store.add(exp)
    return exp


# One project, two sessions' lessons: every cargo test needs one test thread (an over-broad key),
# and the sync crate's tests need the s3 feature. The second lesson's fix is a call that worked.
THREADS = ("cargo test", "test net::bind ... port 7001 already in use", "cargo test -- --test-threads=1")
FEATURE = ("cargo test -p sync", "error[E0433]: failed to resolve: use of undeclared crate `s3`",
           "cargo test -p sync --features s3")  # fmt: skip


@pytest.fixture
def lessons(ctx: Any) -> tuple[Experience, Experience]:
    ranking.clear_cache()
    return _learn(ctx, *THREADS), _learn(ctx, *FEATURE)


def _held(ctx: Any, command: str, cwd: Path, session: str) -> bool:
    payload = {"session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "cwd": str(cwd)}  # fmt: skip
    out = handle_hook(ctx, "claude-code", "PreToolUse", payload)
    return '"deny"' in out.stdout


def _client_holds(command: str) -> list[dict]:
    home = str(index_dir().parent)
    return coldhold.find(home, match, "Bash", {"command": command}, lambda: None)


def test_the_call_that_worked_before_is_not_held_by_another_lesson(ctx: Any, lessons, tmp_path: Path) -> None:
    threads, _feature = lessons
    known = FEATURE[2]
    # The over-broad key matches it (it lacks --test-threads) ...
    assert match.matches(ranking.lesson_signature(threads), "Bash", {"command": known})
    # ... yet it is, part for part, what worked: neither the engine nor the client alone holds it.
    assert not _held(ctx, known, tmp_path, "s-known")
    assert _client_holds(known) == []
    # Flags in another order are the same call.
    assert not _held(ctx, "cargo test --features s3 -p sync", tmp_path, "s-known-2")


def test_calls_that_never_ran_are_still_held(ctx: Any, lessons, tmp_path: Path) -> None:
    # Not a stored fix: the lesson's key decides, as before (engine and client alike).
    for n, command in enumerate(["cargo test", "cargo test -p sync", "cargo test -p sync --features s3 --release"]):
        assert _held(ctx, command, tmp_path, f"s-new-{n}"), command
        assert _client_holds(command), command


def test_a_confirmed_rule_still_denies_a_call_that_worked(ctx: Any, tmp_path: Path) -> None:
    ranking.clear_cache()
    _learn(ctx, *THREADS, tier=Tier.RULE)
    _learn(ctx, *FEATURE)
    assert _held(ctx, FEATURE[2], tmp_path, "s-rule")


def test_the_lesson_that_saw_the_very_call_fail_still_holds_it(ctx: Any, tmp_path: Path) -> None:
    """A call can work once and fail another time: `npm install` was one session's fix and another's
    mistake. The lesson that saw it fail holds it; the known-good call shields it from no one else's."""
    ranking.clear_cache()
    _learn(ctx, "npm ci", "npm ERR! `npm ci` can only install with an existing package-lock.json", "npm install")
    peer = _learn(
        ctx, "npm install", "npm ERR! ERESOLVE unable to resolve dependency tree", "npm install --legacy-peer-deps"
    )
    assert _held(ctx, "npm install", tmp_path, "s-both")
    assert [e.get("id") for e in _client_holds("npm install")] == [peer.id]
