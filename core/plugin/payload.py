"""Pieces every agent adapter needs to read a hook payload and answer it.

Claude Code, Codex, Gemini CLI and Cursor all send a JSON object with
``session_id``, ``cwd``, ``transcript_path`` and (for prompt events)
``prompt``; each answers with one JSON object on stdout. Stdlib only: the
engine imports this on every request.
"""

from __future__ import annotations

import json
from typing import Any

from twiceshy.base.types import CoreEvent, NativeOutput


def text_field(payload: dict[str, Any], key: str) -> str:
    """``payload[key]`` if it is a string, else ``""`` (agents send nulls and numbers too)."""
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def hook_event(
    agent: str,
    kind: str,
    native_event: str,
    payload: dict[str, Any],
    tool_name: str = "",
    tool_input: dict[str, Any] | None = None,
    *,
    session_id: str | None = None,
    cwd: str | None = None,
    tool_output: str | None = None,
    success: bool | None = None,
) -> CoreEvent:
    """A :class:`CoreEvent` with the fields every agent names the same way.

    ``session_id`` and ``cwd`` default to the payload's keys of that name (an
    adapter whose agent spells them differently passes them in); a prompt
    event gets the payload's ``prompt``.
    """
    return CoreEvent(
        kind=kind,
        agent=agent,
        native_event=native_event,
        session_id=text_field(payload, "session_id") if session_id is None else session_id,
        cwd=text_field(payload, "cwd") if cwd is None else cwd,
        tool_name=tool_name,
        tool_input=tool_input if tool_input is not None else {},
        tool_output=tool_output,
        success=success,
        prompt=text_field(payload, "prompt") if kind == "prompt" else None,
        transcript_path=text_field(payload, "transcript_path") or None,
        raw=payload,
    )


def json_output(data: dict[str, Any]) -> NativeOutput:
    """One JSON object on stdout, exit 0: the answer shape every agent reads."""
    return NativeOutput(stdout=json.dumps(data, ensure_ascii=False) + "\n")
