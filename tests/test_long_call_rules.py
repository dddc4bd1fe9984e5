"""Issue 29 §2: a rule sees the whole call, however much comes before the ruled command.

The search embeds the first ~2,000 characters of a call; a rule whose command
comes later is checked from the rules snapshot (segment by segment up to
256 kB; past that, a line that names the rule's program is denied without a
parse). Real store on disk, the Claude Code payload through handle_hook.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from twiceshy.base.types import Experience, Tier
from twiceshy.engine.dispatch import handle_hook

RULE_CMD = "deploy-prod --now"
RULE = "Never deploy-prod --now from an agent; use the release pipeline"


def ask(ctx: Any, command: str, cwd: Path, session: str = "s-long") -> tuple[str, float]:
    payload = {
        "session_id": session, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "cwd": str(cwd),
    }  # fmt: skip
    info: dict[str, Any] = {}
    t0 = time.perf_counter()
    handle_hook(ctx, "claude-code", "PreToolUse", payload, info)
    return str(info.get("action") or "allow"), time.perf_counter() - t0


@pytest.fixture()
def ruled(ctx: Any) -> Any:
    ctx.store.add(Experience(text=RULE, trigger=RULE_CMD, tier=int(Tier.RULE), confidence=0.9))
    return ctx


@pytest.mark.parametrize("n", [0, 1_990, 2_000, 2_500, 10_000, 200_000, 300_000, 1_048_576])
def test_padding_before_the_ruled_command_never_lets_it_through(ruled: Any, tmp_path: Path, n: int) -> None:
    action, seconds = ask(ruled, f"echo {'a' * n} && {RULE_CMD}", tmp_path)
    assert action == "deny", n
    assert seconds < 2.0, seconds  # the hook's own budget is 0.4 s; a loaded CI box gets slack


@pytest.mark.parametrize(
    "shape",
    [
        "python -c '{pad}' && {cmd}",
        "{cmd}; echo '{pad}'",
        "true '{pad}' | {cmd}",
        "bash -lc 'echo {pad}; {cmd}'",
        "env A=1 {cmd} # {pad}",
        "cd /srv\necho {pad}\n{cmd}",
    ],
)
def test_every_segment_position_is_checked(ruled: Any, tmp_path: Path, shape: str) -> None:
    command = shape.format(pad="x" * 5_000, cmd=RULE_CMD)
    assert ask(ruled, command, tmp_path)[0] == "deny", command[:40]


def test_a_long_call_without_the_ruled_command_passes(ruled: Any, tmp_path: Path) -> None:
    assert ask(ruled, f"echo {'a' * 5_000} && deploy-prod --dry-run", tmp_path)[0] != "deny"
    assert ask(ruled, f"echo {'a' * 5_000} && make build", tmp_path)[0] != "deny"
    # Past the parse bound, a line that does not name the program is not denied either.
    assert ask(ruled, f"echo {'a' * 300_000} && make build", tmp_path)[0] != "deny"
