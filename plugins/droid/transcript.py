"""Reading a Factory Droid session log (``~/.factory/sessions/<cwd, / as ->/<session>.jsonl``).

One JSON object per line (recorded with 0.225.2). ``{"type": "message",
"message": {"role": "user" | "assistant", "content": [...]}}`` carries
Claude-style content blocks (``text``, ``tool_use`` with ``id``/``name``/
``input``, ``tool_result`` with ``tool_use_id``/``is_error``/``content``), so
the blocks are read by Claude Code's reader. Skipped: hook bookkeeping
(``message.hookEventName``, with our own hook output in ``hookResults``),
``<system-reminder>`` context messages Droid injects, and the other line
types (``session_start``, ``agent_turn_outcome`` …).
"""

from __future__ import annotations

import json
from pathlib import Path

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry
from twiceshy.plugin.payload import text_field
from twiceshy.plugins.claude_code import transcript as claude


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Read a Droid session JSONL file into transcript entries, in order."""
    entries: list[TranscriptEntry] = []
    names: dict[str, str] = {}
    bad = 0
    first_error = ""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError(f"line is a JSON {type(record).__name__}, not an object")
                if record.get("type") != "message":
                    continue
                message = record.get("message")
                if not isinstance(message, dict):
                    raise ValueError("message line has no message object")
                if message.get("hookEventName") or message.get("visibility") == "user_only":
                    continue  # a hook run (ours among them): not the user's words
                stamp = text_field(record, "timestamp")
                content = message.get("content")
                role = message.get("role")
                if role == "user":
                    entries.extend(claude._user_entries(record, content, stamp, names))
                elif role == "assistant":
                    calls = claude._assistant_entries(content, stamp)
                    names.update((e.tool_use_id, e.tool_name) for e in calls if e.source == "tool_call")
                    entries.extend(calls)
            except (ValueError, TypeError, AttributeError) as exc:
                bad += 1
                first_error = first_error or f"line {number}: {exc}"
    if bad:
        record_error("droid.transcript", f"skipped {bad} malformed line(s) ({first_error})", path=str(path))
    return entries
