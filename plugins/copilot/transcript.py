"""Reading a Copilot CLI session (``~/.copilot/session-state/<sessionId>/events.jsonl``).

One JSON object per line, ``{"type", "data", "id", "timestamp", "parentId"}``
(recorded from 1.0.102, ``tests/fixtures/copilot/events*.jsonl``):

* ``user.message`` — ``data.content`` is what the user typed;
  ``data.transformedContent`` is what the model got (with
  ``<current_datetime>`` and hook context in ``<system_reminder>``) — never read;
* ``assistant.message`` — ``data.content`` (the model's words, may be empty)
  and ``data.toolRequests[]`` (``toolCallId``, ``name``, ``arguments``);
* ``tool.execution_start`` / ``tool.execution_complete`` — ``toolCallId``,
  ``toolName``, ``success``, ``shellExecution.exitCode``, ``result.content``
  (with any postToolUse hook context appended);
* ``hook.start`` / ``hook.end`` (hook inputs and outputs, ours included),
  ``system.message``, ``session.*``, ``assistant.turn_*`` … — skipped.

Sources: ``user`` only from ``user.message.content``, ``assistant`` only from
``assistant.message.content``; tool calls and results are ``tool_call`` /
``tool_result``. Hook context therefore never reads as something the user or
the model said.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry
from twiceshy.plugins.copilot.adapter import tool_args

MAX_TEXT = 20_000


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Entries of one Copilot ``events.jsonl`` in order; unreadable lines are skipped."""
    entries: list[TranscriptEntry] = []
    names: dict[str, str] = {}
    try:
        handle = Path(path).open(encoding="utf-8", errors="replace")
    except OSError as exc:
        record_error("copilot.transcript", exc, path=str(path))
        return []
    with handle:
        for line in handle:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("data"), dict):
                continue
            kind, data, stamp = record.get("type"), record["data"], _str(record.get("timestamp"))
            if kind == "user.message":
                text = _str(data.get("content")).strip()
                if text:
                    entries.append(TranscriptEntry("user", "user", text[:MAX_TEXT], timestamp=stamp))
            elif kind == "assistant.message":
                text = _str(data.get("content")).strip()
                if text:
                    entries.append(TranscriptEntry("assistant", "assistant", text[:MAX_TEXT], timestamp=stamp))
                for call in data.get("toolRequests") or []:
                    if not isinstance(call, dict) or not _str(call.get("name")):
                        continue
                    call_id = _str(call.get("toolCallId"))
                    names[call_id] = call["name"]
                    entries.append(
                        TranscriptEntry(
                            "assistant",
                            "tool_call",
                            tool_name=call["name"],
                            tool_input=tool_args(call.get("arguments")),
                            tool_use_id=call_id,
                            timestamp=stamp,
                        )
                    )
            elif kind == "tool.execution_complete":
                call_id = _str(data.get("toolCallId"))
                result = data.get("result")
                text = _str(result.get("content")) if isinstance(result, dict) else _str(result)
                if not text and isinstance(data.get("error"), (str, dict)):
                    error = data["error"]
                    text = error if isinstance(error, str) else _str(error.get("message"))
                shell = data.get("shellExecution")
                code = shell.get("exitCode") if isinstance(shell, dict) else None
                failed = data.get("success") is False or (
                    isinstance(code, int) and not isinstance(code, bool) and code != 0
                )
                entries.append(
                    TranscriptEntry(
                        "tool",
                        "tool_result",
                        text[:MAX_TEXT],
                        tool_name=names.get(call_id, _str(data.get("toolName"))),
                        tool_use_id=call_id,
                        is_error=failed,
                        timestamp=stamp,
                    )
                )
    return entries
