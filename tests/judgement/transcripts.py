"""Session-1 transcripts and pre-tool probe payloads in each agent's real format.

* Claude Code: the session-log shapes of ``tests/fixtures/transcripts/build_fixtures.py``
  (copied from a real 2.1.197 log): one line per assistant content block,
  tool results as ``user`` lines with ``tool_result`` blocks and
  ``toolUseResult``, ``Exit code N`` first in a failed Bash result, a rejected
  call as the rejection text (with ``To tell you how to proceed, the user
  said:`` and the typed reason, or followed by ``[Request interrupted by user
  for tool use]``), ``uuid``/``parentUuid`` chained.
* Codex: the rollout shapes of ``tests/fixtures/codex/rollout*.jsonl``
  (0.171.0): ``session_meta``, ``event_msg`` (``task_started``,
  ``item_completed`` UserMessage / AgentMessage / CommandExecution,
  ``task_complete``), ``response_item`` (``message``, ``function_call``
  ``exec_command`` with its ``function_call_output`` "…Process exited with code
  N…Output:", ``custom_tool_call`` ``apply_patch``), a declined command as
  ``exec command rejected by user``.
* Gemini: the chat shapes of ``tests/fixtures/gemini/chat_*.jsonl`` (0.61.0):
  metadata line, ``$set`` of the session context, ``user`` / ``gemini``
  records (a gemini record written again once it has ``toolCalls``), the
  function responses echoed as a ``user`` record, ``Exit Code: N`` in a failed
  shell output, a declined call ``cancelled`` with "[Operation Cancelled]".

Probe payloads copy ``tests/fixtures/{claude_code,codex,gemini}/payload_PreToolUse*.json``
/ ``payload_BeforeTool_*.json``. Everything is deterministic (ids are derived
from the session id and a counter; the clock starts at a fixed time).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .spec import CC, CODEX, GEMINI, Action, ActionLike, Incident, Step

REJECTED = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
    "the new_string was NOT written to the file)."
)
REJECTED_STOP = REJECTED + " STOP what you are doing and wait for the user to tell you how to proceed."
REJECTED_SAID = REJECTED + " To tell you how to proceed, the user said:\n"
INTERRUPTED = "[Request interrupted by user for tool use]"
CC_VERSION = "2.1.197"
CODEX_VERSION = "0.171.0"
GEMINI_MODEL = "gemini-3.1-pro-preview"
START = "2026-03-02T09:00:00"


def _hex(seed: str, n: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _cat_n(content: str) -> str:
    """A file as Claude Code's Read tool shows it (``cat -n`` style)."""
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(content.splitlines(), 1))


class _Clock:
    def __init__(self, start: str = START) -> None:
        self.now = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)

    def tick(self, seconds: float = 2.0) -> str:
        self.now += timedelta(seconds=seconds)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def ms(self) -> int:
        return int(self.now.timestamp() * 1000)


# --------------------------------------------------------------------------
# Claude Code
# --------------------------------------------------------------------------


class ClaudeSession:
    """One Claude Code session log, line by line (build_fixtures.Session's shapes)."""

    def __init__(self, session_id: str, cwd: str) -> None:
        self.session_id, self.cwd = session_id, cwd
        self.clock = _Clock()
        self.lines: list[dict] = []
        self.parent: str | None = None
        self.msg = 0
        self.tool = 0

    def _line(self, kind: str, message: dict, seconds: float = 1.0, **extra) -> None:
        line_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.lines)}"))
        self.lines.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "type": kind,
                "message": message,
                "uuid": line_id,
                "timestamp": self.clock.tick(seconds),
                "userType": "external",
                "entrypoint": "cli",
                "cwd": self.cwd,
                "sessionId": self.session_id,
                "version": CC_VERSION,
                "gitBranch": "main",
                **extra,
            }
        )
        self.parent = line_id

    def user(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text}, 5.0)
        self.msg += 1

    def _assistant(self, block: dict) -> None:
        message = {
            "id": f"msg_{self.session_id[:8]}_{self.msg}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [block],
            "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 100, "output_tokens": 20},
        }
        self._line("assistant", message, 1.0)

    def say(self, text: str) -> None:
        self._assistant({"type": "text", "text": text})

    def call(self, name: str, tool_input: dict, output: str, is_error: bool = False, result: Any = None) -> None:
        self.tool += 1
        tool_id = f"toolu_{self.session_id[:6]}{self.tool:03d}"
        self._assistant({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        assistant_uuid = self.parent
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": is_error}
        if result is None:
            result = f"Error: {output}" if is_error else {"stdout": output, "stderr": "", "interrupted": False}
        self._line(
            "user",
            {"role": "user", "content": [block]},
            3.0,
            toolUseResult=result,
            sourceToolAssistantUUID=assistant_uuid,
        )
        self.msg += 1

    def interrupted(self) -> None:
        self._line("user", {"role": "user", "content": [{"type": "text", "text": INTERRUPTED}]}, 1.0)

    def text(self) -> str:
        out = [json.dumps({"type": "summary", "summary": "session", "leafUuid": self.parent})]
        out += [json.dumps(record, ensure_ascii=False) for record in self.lines]
        return "\n".join(out) + "\n"


def _claude(inc: Incident, root: Path) -> str:
    s = ClaudeSession(inc.session_id, str(root))
    for step in inc.session:
        path = str(root / step.path) if step.path else ""
        if step.kind == "user":
            s.user(step.text)
        elif step.kind == "say":
            s.say(step.text)
        elif step.kind == "bash":
            tool_input = {"command": step.text, "description": step.text[:40]}
            if step.error:
                output = (
                    step.output
                    if step.output.startswith("Command timed out")
                    else f"Exit code {step.reason}\n{step.output}"
                )
                s.call("Bash", tool_input, output, is_error=True)
            else:
                s.call("Bash", tool_input, step.output)
        elif step.kind == "edit":
            tool_input = {"file_path": path, "old_string": step.old, "new_string": step.new, "replace_all": False}
            s.call("Edit", tool_input, f"The file {path} has been updated successfully.")
        elif step.kind == "write":
            s.call("Write", {"file_path": path, "content": step.new}, f"File created successfully at: {path}")
        elif step.kind == "read":
            s.call("Read", {"file_path": path}, _cat_n(step.output))
        elif step.kind in ("reject", "reject_edit"):
            if step.kind == "reject":
                name, tool_input = "Bash", {"command": step.text, "description": step.text[:40]}
            else:
                name = "Edit"
                tool_input = {"file_path": path, "old_string": step.old, "new_string": step.new, "replace_all": False}
            text = REJECTED_SAID + step.reason if step.reason else REJECTED_STOP
            s.call(name, tool_input, text, is_error=True, result="User rejected tool use")
            if not step.reason:
                s.interrupted()
        else:
            raise ValueError(f"{inc.id}: unknown step {step.kind}")
    return s.text()


# --------------------------------------------------------------------------
# Codex
# --------------------------------------------------------------------------


def apply_patch_text(action: Action | Step) -> str:
    """An ``apply_patch`` envelope for an edit (Update File) or a write (Add File); relative paths."""
    path = action.path
    if isinstance(action, Action) and action.tool == "Write" or isinstance(action, Step) and action.kind == "write":
        body = "".join(f"+{line}\n" for line in action.new.splitlines())
        return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n"
    minus = "".join(f"-{line}\n" for line in action.old.splitlines())
    plus = "".join(f"+{line}\n" for line in action.new.splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch\n"


class CodexRollout:
    def __init__(self, session_id: str, cwd: str) -> None:
        self.session_id, self.cwd = session_id, cwd
        self.clock = _Clock()
        self.records: list[dict] = []
        self.call = 0
        self.turn: str | None = None
        self.turns = 0
        self._meta()

    def _rec(self, kind: str, payload: dict) -> None:
        self.records.append(
            {"timestamp": self.clock.tick(0.4), "ordinal": len(self.records), "type": kind, "payload": payload}
        )

    def _meta(self) -> None:
        self._rec(
            "session_meta",
            {
                "account_scoped": True,
                "session_id": self.session_id,
                "id": self.session_id,
                "timestamp": self.clock.tick(0),
                "cwd": self.cwd,
                "runtime_workspace_roots": [self.cwd],
                "originator": "codex_cli_rs",
                "cli_version": CODEX_VERSION,
                "source": "cli",
                "thread_source": "user",
                "model_provider": "openai",
                "history_mode": "paginated",
            },
        )

    def _end_turn(self, last: str = "") -> None:
        if self.turn:
            self._rec("event_msg", {"type": "task_complete", "turn_id": self.turn, "root_turn_id": self.turn,
                                    "last_agent_message": last})  # fmt: skip
        self.turn = None

    def user(self, text: str) -> None:
        self._end_turn()
        self.turns += 1
        self.turn = f"{self.session_id[:8]}-turn-{self.turns:04d}"
        self._rec("event_msg", {"type": "task_started", "turn_id": self.turn, "root_turn_id": self.turn,
                                "model_context_window": 258400, "collaboration_mode_kind": "default"})  # fmt: skip
        if self.turns == 1:
            env = (
                f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>2026-03-02</current_date>\n"
                "  <timezone>Etc/UTC</timezone>\n</environment_context>"
            )
            self._rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": env}],
                                        "internal_chat_message_metadata_passthrough": {"turn_id": self.turn,
                                        "content_item_kinds": ["environment_context"]}})  # fmt: skip
        self._rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}],
                                    "internal_chat_message_metadata_passthrough": {"turn_id": self.turn,
                                    "content_item_kinds": ["user.text"], "content_item_metadata": [{"provenance": {"type": "user"}}]}})  # fmt: skip
        self._rec("event_msg", {"type": "item_completed", "thread_id": self.session_id, "turn_id": self.turn,
                                "item": {"type": "UserMessage", "id": _hex(f"{self.session_id}/u{self.turns}", 12),
                                         "content": [{"type": "text", "text": text, "text_elements": []}]}})  # fmt: skip

    def say(self, text: str) -> None:
        mid = f"msg_{len(self.records)}"
        self._rec("event_msg", {"type": "item_completed", "thread_id": self.session_id, "turn_id": self.turn,
                                "item": {"type": "AgentMessage", "id": mid, "content": [{"type": "Text", "text": text}]}})  # fmt: skip
        self._rec("response_item", {"type": "message", "id": mid, "role": "assistant",
                                    "content": [{"type": "output_text", "text": text, "annotations": []}]})  # fmt: skip

    def exec(self, command: str, output: str, code: int, rejected: bool = False) -> None:
        self.call += 1
        call_id = f"call_{_hex(self.session_id, 6)}{self.call:03d}"
        self._rec("response_item", {"type": "function_call", "name": "exec_command", "call_id": call_id,
                                    "arguments": json.dumps({"cmd": command, "workdir": self.cwd})})  # fmt: skip
        if rejected:
            text = "exec command rejected by user"
        else:
            tokens = max(1, len(output) // 4)
            text = (f"Chunk ID: {_hex(f'{call_id}/chunk', 6)}\nWall time: 0.{(self.call * 1237) % 10000:04d} seconds\n"
                    f"Process exited with code {code}\nOriginal token count: {tokens}\nOutput:\n{output}\n")  # fmt: skip
            self._rec("event_msg", {"type": "item_completed", "thread_id": self.session_id, "turn_id": self.turn,
                                    "item": {"type": "CommandExecution", "id": call_id, "command": ["/bin/bash", "-lc", command],
                                             "cwd": f"file://{self.cwd}", "status": "completed" if code == 0 else "failed",
                                             "aggregated_output": output, "exit_code": code}})  # fmt: skip
        self._rec("response_item", {"type": "function_call_output", "call_id": call_id, "output": text})

    def patch(self, patch: str, files: list[str], rejected: bool = False) -> None:
        self.call += 1
        call_id = f"call_{_hex(self.session_id, 6)}{self.call:03d}"
        self._rec("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                    "name": "apply_patch", "input": patch})  # fmt: skip
        if rejected:
            out = "patch rejected by user"
        else:
            out = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n" + "".join(
                f"M {f}\n" for f in files
            )
        self._rec("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": out})

    def text(self) -> str:
        self._end_turn()
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in self.records) + "\n"


def _codex(inc: Incident, root: Path) -> str:
    r = CodexRollout(inc.session_id, str(root))
    for step in inc.session:
        if step.kind == "user":
            r.user(step.text)
        elif step.kind == "say":
            r.say(step.text)
        elif step.kind == "bash":
            r.exec(step.text, step.output, int(step.reason) if step.error else 0)
        elif step.kind in ("edit", "write"):
            r.patch(apply_patch_text(step), [step.path])
        elif step.kind == "read":
            r.exec(f"sed -n '1,200p' {step.path}", step.output, 0)
        elif step.kind == "reject":
            r.exec(step.text, "", 1, rejected=True)
            if step.reason:  # Codex's approval prompt takes no reason: the user types it next
                r.user(step.reason)
        elif step.kind == "reject_edit":
            r.patch(
                apply_patch_text(Step("edit", path=step.path, old=step.old, new=step.new)), [step.path], rejected=True
            )
            if step.reason:
                r.user(step.reason)
        else:
            raise ValueError(f"{inc.id}: unknown step {step.kind}")
    return r.text()


# --------------------------------------------------------------------------
# Gemini
# --------------------------------------------------------------------------


class GeminiChat:
    def __init__(self, session_id: str, cwd: str) -> None:
        self.session_id, self.cwd = session_id, cwd
        self.clock = _Clock()
        self.lines: list[dict] = []
        self.n = 0
        start = self.clock.tick(0)
        self.lines.append({"sessionId": session_id, "projectHash": _hex(cwd, 64), "startTime": start, "lastUpdated": start,
                           "kind": "main"})  # fmt: skip
        context = (
            "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
            "Today's date is Monday, March 2, 2026 (formatted according to the user's locale).\nMy operating system is: linux\n"
            f"- **Workspace Directories:**\n  - {cwd}\n</session_context>"
        )
        self.lines.append({"$set": {"messages": [{"id": _hex(f"{session_id}/ctx", 32), "timestamp": start, "type": "user",
                                                  "content": [{"text": context}]}], "lastUpdated": start}})  # fmt: skip

    def _id(self) -> str:
        self.n += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/g{self.n}"))

    def _touch(self, stamp: str) -> None:
        self.lines.append({"$set": {"lastUpdated": stamp}})

    def user(self, text: str) -> None:
        stamp = self.clock.tick(5)
        self.lines.append({"id": self._id(), "timestamp": stamp, "type": "user", "content": [{"text": text}]})
        self._touch(stamp)

    def _turn(self, content: str) -> dict:
        return {"id": self._id(), "timestamp": self.clock.tick(1), "type": "gemini", "content": content, "thoughts": [],
                "tokens": {"input": 10, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 15}, "model": GEMINI_MODEL}  # fmt: skip

    def say(self, text: str) -> None:
        turn = self._turn(text)
        self.lines.append(turn)
        self._touch(turn["timestamp"])

    def tool(self, name: str, args: dict, response: dict, status: str, display: str, description: str) -> None:
        turn = self._turn("")
        self.lines.append(dict(turn))
        self._touch(turn["timestamp"])
        call_id = f"{name}__{name}_{self.clock.ms()}_0"
        result = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
        stamp = self.clock.tick(2)
        turn["toolCalls"] = [{"id": call_id, "name": name, "args": args, "result": result, "status": status, "timestamp": stamp,
                              "resultDisplay": display, "description": description, "displayName": name,
                              "renderOutputAsMarkdown": name != "run_shell_command"}]  # fmt: skip
        self.lines.append(turn)
        self.lines.append({"id": self._id(), "timestamp": self.clock.tick(0.5), "type": "user", "content": result})
        self._touch(stamp)

    def shell(self, command: str, output: str, code: int) -> None:
        body = f"Output: {output or '(empty)'}\n" + (f"Exit Code: {code}\n" if code else "")
        text = f"<untrusted_context>\n{body}Process Group PGID: {40000 + self.n}\n</untrusted_context>"
        self.tool(
            "run_shell_command",
            {"command": command, "description": command[:60]},
            {"output": text},
            "success",
            output,
            command,
        )

    def rejected(self, name: str, args: dict, description: str) -> None:
        response = {"error": "[Operation Cancelled] Reason: User did not allow tool call"}
        self.tool(name, args, response, "cancelled", "User did not allow tool call", description)

    def text(self) -> str:
        return "\n".join(json.dumps(line, ensure_ascii=False) for line in self.lines) + "\n"


def _gemini(inc: Incident, root: Path) -> str:
    g = GeminiChat(inc.session_id, str(root))
    for step in inc.session:
        path = str(root / step.path) if step.path else ""
        if step.kind == "user":
            g.user(step.text)
        elif step.kind == "say":
            g.say(step.text)
        elif step.kind == "bash":
            g.shell(step.text, step.output, int(step.reason) if step.error else 0)
        elif step.kind == "edit":
            args = {
                "file_path": path,
                "old_string": step.old,
                "new_string": step.new,
                "instruction": "apply the change",
            }
            g.tool("replace", args, {"output": f"Successfully modified file: {path} (1 replacements)."}, "success",
                   f"Edited {step.path}", f"Editing {step.path}")  # fmt: skip
        elif step.kind == "write":
            out = f"Successfully created and wrote to new file: {path}. Here is the updated code:\n{step.new}"
            g.tool("write_file", {"file_path": path, "content": step.new}, {"output": out}, "success",
                   f"Wrote {step.path}", f"Writing to {step.path}")  # fmt: skip
        elif step.kind == "read":
            g.tool("read_file", {"file_path": path}, {"output": step.output}, "success", "", step.path)
        elif step.kind == "reject":
            g.rejected("run_shell_command", {"command": step.text, "description": step.text[:60]}, step.text)
            if step.reason:  # Gemini's confirmation takes no reason: the user types it next
                g.user(step.reason)
        elif step.kind == "reject_edit":
            args = {
                "file_path": path,
                "old_string": step.old,
                "new_string": step.new,
                "instruction": "apply the change",
            }
            g.rejected("replace", args, f"Editing {step.path}")
            if step.reason:
                g.user(step.reason)
        else:
            raise ValueError(f"{inc.id}: unknown step {step.kind}")
    return g.text()


# --------------------------------------------------------------------------
# Public
# --------------------------------------------------------------------------

WRITERS = {CC: _claude, CODEX: _codex, GEMINI: _gemini}


def transcript_name(inc: Incident) -> str:
    if inc.agent == CODEX:
        return f"rollout-2026-03-02T09-00-00-{inc.session_id}.jsonl"
    if inc.agent == GEMINI:
        return f"session-2026-03-02T09-00-{inc.session_id[:8]}.jsonl"
    return f"{inc.session_id}.jsonl"


def write_transcript(inc: Incident, root: Path, folder: Path) -> Path:
    """Write ``inc``'s session 1 in its agent's format under ``folder``; return the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / transcript_name(inc)
    path.write_text(WRITERS[inc.agent](inc, root), encoding="utf-8")
    return path


def session_end_payload(inc: Incident, transcript: Path, root: Path) -> tuple[str, dict]:
    """(native event, payload) of the agent's session-end hook for ``inc``."""
    payload: dict[str, Any] = {"session_id": inc.session_id, "transcript_path": str(transcript), "cwd": str(root),
                               "hook_event_name": "SessionEnd"}  # fmt: skip
    if inc.agent == GEMINI:
        payload.update(timestamp="2026-03-02T10:00:00.000Z", reason="exit")
    else:
        payload.update(reason="other")
    return "SessionEnd", payload


def pre_tool_payload(agent: str, action: ActionLike, root: Path, session_id: str, call: int) -> tuple[str, dict]:
    """(native event, payload) of the agent's pre-tool hook for one probe."""
    transcript = str(root / ".transcripts" / f"{session_id}.jsonl")
    if agent == CODEX:
        if isinstance(action, str):
            name, tool_input = "Bash", {"command": action}
        elif action.tool == "Read":
            name, tool_input = "Bash", {"command": f"sed -n '1,200p' {action.path}"}
        else:
            name, tool_input = "apply_patch", {"command": apply_patch_text(action)}
        return "PreToolUse", {"session_id": session_id, "turn_id": f"{session_id[:8]}-turn-0001", "transcript_path": transcript,
                              "cwd": str(root), "hook_event_name": "PreToolUse", "model": "gpt-5.1-codex",
                              "permission_mode": "bypassPermissions", "tool_name": name, "tool_input": tool_input,
                              "tool_use_id": f"call_{call}"}  # fmt: skip
    if agent == GEMINI:
        if isinstance(action, str):
            name, tool_input = "run_shell_command", {"command": action, "description": action[:60]}
        elif action.tool == "Edit":
            name = "replace"
            tool_input = {"file_path": str(root / action.path), "old_string": action.old, "new_string": action.new,
                          "instruction": "apply the change"}  # fmt: skip
        elif action.tool == "Write":
            name, tool_input = "write_file", {"file_path": str(root / action.path), "content": action.new}
        else:
            name, tool_input = "read_file", {"file_path": str(root / action.path)}
        return "BeforeTool", {"session_id": session_id, "transcript_path": transcript, "cwd": str(root),
                              "hook_event_name": "BeforeTool", "timestamp": "2026-03-09T10:00:00.000Z",
                              "tool_name": name, "tool_input": tool_input}  # fmt: skip
    if isinstance(action, str):
        name, tool_input = "Bash", {"command": action, "description": action[:40]}
    elif action.tool == "Edit":
        name = "Edit"
        tool_input = {"file_path": str(root / action.path), "old_string": action.old, "new_string": action.new,
                      "replace_all": False}  # fmt: skip
    elif action.tool == "Write":
        name, tool_input = "Write", {"file_path": str(root / action.path), "content": action.new}
    else:
        name, tool_input = "Read", {"file_path": str(root / action.path)}
    return "PreToolUse", {"session_id": session_id, "transcript_path": transcript, "cwd": str(root), "permission_mode": "default",
                          "hook_event_name": "PreToolUse", "tool_name": name, "tool_input": tool_input,
                          "tool_use_id": f"toolu_probe{call:05d}"}  # fmt: skip


def dump(out: Path) -> list[Path]:
    """Write every incident's transcript under ``out/<agent>/`` (projects under ``out/projects``), for inspection."""
    from .corpus import load

    written = []
    for inc in load().incidents:
        root = out / "projects" / inc.project
        written.append(write_transcript(inc, root, out / inc.agent))
    return written


if __name__ == "__main__":
    import sys

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "judgement-transcripts")
    for p in dump(target):
        print(p)
