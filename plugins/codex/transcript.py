"""Reading a Codex session rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl``).

One JSON object per line, ``{"timestamp", "type", "payload"}``. Read from a
real ``codex exec`` 0.171.0 run (``tests/fixtures/codex/rollout*.jsonl``):

* ``response_item`` — what the model saw and said. ``payload.type``:

  - ``message`` with ``role`` ``user`` / ``assistant`` / ``developer`` and
    ``content`` blocks (``input_text`` / ``output_text``). Codex puts a lot
    in *user* messages that the user never typed: the AGENTS.md text
    (``# AGENTS.md instructions for …``), ``<environment_context>`` and
    more. Hook ``additionalContext`` (ours included) arrives as a
    *developer* message with provenance ``{"type": "harness", "hook": true}``;
  - ``function_call`` (``name``, ``arguments`` as a JSON string, ``call_id``)
    — the shell tool is ``exec_command`` (``{"cmd"}``), older builds use
    ``shell`` (``{"command": [argv]}``) or ``shell_command``;
  - ``function_call_output`` (``call_id``, ``output`` a string such as
    ``"…Process exited with code 0…Output:\\n…"``, or an object / content list);
  - ``custom_tool_call`` / ``custom_tool_call_output`` (``apply_patch``
    with the patch in ``input``), ``local_shell_call``, ``web_search_call``.

* ``event_msg`` — UI events. The user's typed text is here: ``item_completed``
  with ``item.type == "UserMessage"`` (0.171) or ``user_message`` with
  ``message`` (older builds).
* ``session_meta``, ``turn_context``, ``world_state``, ``token_usage_record``
  … — bookkeeping, skipped.

Sources (the learning loop trusts only ``user`` and ``assistant``): user text
comes from the ``event_msg`` records when the file has any, so injected
instructions never count as typed. Only for a rollout without them do
``response_item`` user messages count, minus the known injected prefixes and
any block whose provenance is not ``user``. Every tool output is
``tool_result``. A rollout Codex has compressed (``.jsonl.zst``) cannot be
read with the standard library and yields ``[]``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import TranscriptEntry
from twiceshy.plugin.payload import text_field
from twiceshy.plugins.codex.adapter import normalise_tool_input

MAX_TEXT = 20_000

SHELL_TOOLS = frozenset({"exec_command", "shell", "shell_command", "container.exec", "local_shell"})

_INJECTED_PREFIXES = (
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<permissions instructions>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<hook_",
)

_EXIT_CODE = re.compile(r"Process exited with code (-?\d+)")
# What Codex writes as the output of a call the user rejected at the approval prompt.
_REJECTED = re.compile(r"\s*(?:exec command|patch) rejected by user", re.I)


def _texts(content: Any, kinds: tuple[str, ...]) -> list[tuple[str, dict[str, Any]]]:
    """(text, block) pairs of the blocks of the given types."""
    if isinstance(content, str):
        return [(content, {})]
    out = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") in kinds and isinstance(block.get("text"), str):
                out.append((block["text"], block))
    return out


def _provenance_types(payload: dict[str, Any]) -> list[str | None]:
    meta = payload.get("internal_chat_message_metadata_passthrough")
    items = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    if not isinstance(items, list):
        return []
    out: list[str | None] = []
    for item in items:
        prov = item.get("provenance") if isinstance(item, dict) else None
        out.append(prov.get("type") if isinstance(prov, dict) else None)
    return out


def _shell_input(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A shell call's arguments as ``{"command": "<string>", ...}`` (the hooks' Bash shape)."""
    command = args.get("cmd", args.get("command"))
    if isinstance(command, list):
        parts = [str(p) for p in command]
        # ["bash", "-lc", "<script>"] is how Codex wraps a script: keep the script.
        command = parts[2] if len(parts) == 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
    rest = {k: v for k, v in args.items() if k not in ("cmd", "command")}
    return {"command": command if isinstance(command, str) else "", **rest}


def _parse_args(arguments: Any) -> dict[str, Any]:
    if isinstance(arguments, dict):
        return arguments
    if isinstance(arguments, str):
        try:
            value = json.loads(arguments)
        except ValueError:
            return {"arguments": arguments}
        return value if isinstance(value, dict) else {"arguments": value}
    return {}


def _output_text(output: Any) -> tuple[str, bool]:
    """(text, is_error) of a function/custom tool call output."""
    is_error = False
    if isinstance(output, dict):
        if output.get("success") is False:
            is_error = True
        text, nested_error = _output_text(output.get("content", output.get("output", "")))
        return text, is_error or nested_error
    if isinstance(output, list):
        parts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
        text = "\n".join(parts)
    elif isinstance(output, str):
        text = output
    else:
        text = json.dumps(output, default=str) if output is not None else ""
    match = _EXIT_CODE.search(text)
    if match and int(match.group(1)) != 0:
        is_error = True
    if _REJECTED.match(text):
        is_error = True  # the user said no: the call never ran
    return text, is_error


def _read_lines(path: Path) -> list[dict[str, Any]]:
    records = []
    with path.open("r", encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                record_error("codex.transcript", exc, path=str(path), line=number)
                continue
            if isinstance(record, dict):
                records.append(record)
    return records


def _typed_user_text(payload: dict[str, Any]) -> str | None:
    """The user's own words from an ``event_msg`` payload, if it is one."""
    kind = payload.get("type")
    if kind == "user_message" and isinstance(payload.get("message"), str):
        return payload["message"]
    if kind == "item_completed":
        item = payload.get("item")
        if isinstance(item, dict) and item.get("type") == "UserMessage":
            return "\n".join(t for t, _ in _texts(item.get("content"), ("text", "Text", "input_text"))) or None
    return None


def read_transcript(path: Path) -> list[TranscriptEntry]:
    """Read one rollout file into transcript entries, in order.

    Malformed lines are logged and skipped; only an unreadable file raises.
    """
    path = Path(path)
    if path.suffix == ".zst":
        record_error("codex.transcript", "compressed rollout (.zst) is not readable without zstd", path=str(path))
        return []
    records = _read_lines(path)
    typed_mode = any(
        r.get("type") == "event_msg"
        and isinstance(r.get("payload"), dict)
        and _typed_user_text(r["payload"]) is not None
        for r in records
    )
    entries: list[TranscriptEntry] = []
    for record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        stamp = text_field(record, "timestamp")
        rtype = record.get("type")
        if rtype == "event_msg":
            if typed_mode:
                text = _typed_user_text(payload)
                if text and text.strip():
                    entries.append(TranscriptEntry(role="user", source="user", text=text[:MAX_TEXT], timestamp=stamp))
            continue
        if rtype != "response_item":
            continue
        entries.extend(_response_item(payload, stamp, typed_mode))
    return entries


def _response_item(payload: dict[str, Any], stamp: str, typed_mode: bool) -> list[TranscriptEntry]:
    kind = payload.get("type")
    if kind == "message":
        role = payload.get("role")
        if role == "assistant":
            text = "\n".join(t for t, _ in _texts(payload.get("content"), ("output_text", "text")))
            return (
                [TranscriptEntry(role="assistant", source="assistant", text=text[:MAX_TEXT], timestamp=stamp)]
                if text.strip()
                else []
            )
        if role == "user" and not typed_mode:
            blocks = _texts(payload.get("content"), ("input_text", "text"))
            provenance = _provenance_types(payload)
            kept = []
            for index, (text, _block) in enumerate(blocks):
                if index < len(provenance) and provenance[index] not in (None, "user"):
                    continue
                if text.lstrip().startswith(_INJECTED_PREFIXES):
                    continue
                kept.append(text)
            text = "\n".join(kept)
            return (
                [TranscriptEntry(role="user", source="user", text=text[:MAX_TEXT], timestamp=stamp)]
                if text.strip()
                else []
            )
        return []  # developer / system messages (instructions, hook context) are not anyone's words
    call_id = text_field(payload, "call_id")
    if kind == "function_call" or kind == "custom_tool_call":
        name = text_field(payload, "name")
        if kind == "custom_tool_call":
            raw_input: Any = payload.get("input")
            tool_input = (
                normalise_tool_input(name, {"command": raw_input}) if name == "apply_patch" else {"input": raw_input}
            )
        else:
            args = _parse_args(payload.get("arguments"))
            if name in SHELL_TOOLS:
                name, tool_input = "Bash", _shell_input(name, args)
            elif name == "apply_patch":
                tool_input = normalise_tool_input(name, {"command": args.get("input", args.get("patch", ""))})
            else:
                tool_input = args
        return [
            TranscriptEntry(
                role="assistant",
                source="tool_call",
                tool_name=name,
                tool_input=tool_input,
                tool_use_id=call_id,
                timestamp=stamp,
            )
        ]
    if kind == "local_shell_call":
        raw_action = payload.get("action")
        action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
        return [
            TranscriptEntry(
                role="assistant",
                source="tool_call",
                tool_name="Bash",
                tool_input=_shell_input("local_shell", action),
                tool_use_id=call_id or str(payload.get("id") or ""),
                timestamp=stamp,
            )
        ]
    if kind == "web_search_call":
        raw_action = payload.get("action")
        action = raw_action if isinstance(raw_action, dict) else {}
        return [
            TranscriptEntry(
                role="assistant",
                source="tool_call",
                tool_name="web_search",
                tool_input=action,
                tool_use_id=call_id,
                timestamp=stamp,
            )
        ]
    if kind in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
        text, is_error = _output_text(payload.get("output"))
        return [
            TranscriptEntry(
                role="tool",
                source="tool_result",
                text=text[:MAX_TEXT],
                tool_use_id=call_id,
                is_error=is_error,
                timestamp=stamp,
            )
        ]
    return []
