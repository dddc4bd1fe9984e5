"""OpenCode plugin: our JS plugin's payloads in, its answers out, the opencode.json plugin
entry installed and removed, OpenCode's SQLite store read as a transcript, the real
dispatcher — and the shipped ``twiceshy.js`` itself, run under Node against a fake hook
client (deny, context, failures, session events, and failing open on every error)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from twiceshy.base.config import load_config
from twiceshy.base.types import CoreEvent, Decision
from twiceshy.engine.context import EngineContext
from twiceshy.engine.dispatch import handle_hook
from twiceshy.hooks import wire
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, make_manager
from twiceshy.plugin.settings import InstallError, our_events
from twiceshy.plugins.opencode import adapter, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "opencode"
AGENT = "opencode"
SESSION = "ses_dc5615987ffeyI6p1S0vIQkFj4"

# Payloads as twiceshy.js sends them (field names from the recorded hook inputs in FIX).
PAYLOADS: dict[str, dict] = {
    "PreToolUse": {
        "tool_name": "bash",
        "tool_input": {"command": "touch warned.txt", "description": "touch"},
        "call_id": "call_3",
    },
    "PostToolUse": {
        "tool_name": "bash",
        "tool_input": {"command": "ls nonexistent_dir_xyz"},
        "call_id": "call_5",
        "tool_output": "ls: cannot access 'nonexistent_dir_xyz': No such file or directory\n",
        "exit_code": 2,
        "title": "ls nonexistent_dir_xyz",
    },
    "PostToolUseFailure": {
        "tool_name": "read",
        "tool_input": {"filePath": "missing.txt"},
        "call_id": "call_7",
        "error": "File not found: /tmp/proj/missing.txt",
    },
    "SessionStart": {"source": "startup"},
    "UserPromptSubmit": {"prompt": "create the files"},
    "Stop": {"transcript_path": "/tmp/home/.twiceshy/opencode-sessions/x.json"},
    "SessionEnd": {"reason": "exit"},
}


def payload(event: str) -> dict:
    return {"hook_event_name": event, "cwd": "/tmp/proj", "session_id": SESSION, **PAYLOADS[event]}


@pytest.fixture(scope="module")
def pm():
    return make_manager(load_entry_points=False)


def parse(pm, event: str, data: dict | None = None) -> CoreEvent:
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=event, payload=data or payload(event))


def answer(pm, event: CoreEvent, decision: Decision) -> dict:
    text = pm.hook.agent_format_decision(agent=AGENT, event=event, decision=decision).stdout
    return json.loads(text) if text else {}


# -- payloads -------------------------------------------------------------------


def test_recorded_hook_inputs_have_the_fields_the_plugin_reads():
    records = [json.loads(line) for line in (FIX / "hooks_deny_fail_context.jsonl").read_text().splitlines()]
    before = next(r for r in records if r["hook"] == "tool.execute.before")
    assert set(before["input"]) == {"tool", "sessionID", "callID"} and "args" in before["output"]
    after = next(r for r in records if r["hook"] == "tool.execute.after")
    assert {"tool", "sessionID", "callID", "args"} <= set(after["input"])
    assert {"output", "metadata", "title"} <= set(after["output"])
    errors = [
        r["input"]["properties"]["part"]
        for r in records
        if r["hook"] == "event"
        and r["input"]["type"] == "message.part.updated"
        and r["input"]["properties"]["part"].get("state", {}).get("status") == "error"
    ]
    assert {p["tool"] for p in errors} == {"read", "bash"}  # a failure and our deny, neither fired after
    assert "DENY-REASON-THROW from lab plugin" in [p["state"]["error"] for p in errors]
    assert not [r for r in records if r["hook"] == "tool.execute.after" and r["input"]["tool"] == "read"]


@pytest.mark.parametrize("event,kind", [(e, k) for e, k in adapter.EVENT_KINDS.items()])
def test_parse_every_event(pm, event: str, kind: str):
    parsed = parse(pm, event)
    assert parsed.agent == AGENT and parsed.kind == kind and parsed.native_event == event
    assert parsed.session_id == SESSION and parsed.cwd == "/tmp/proj"


def test_tool_prompt_and_outcome_fields(pm):
    pre = parse(pm, "PreToolUse")
    assert pre.tool_name == "bash" and pre.command == "touch warned.txt"
    post = parse(pm, "PostToolUse")
    assert post.success is False and "nonexistent_dir_xyz" in post.tool_output  # exit 2
    assert parse(pm, "PostToolUse", {**payload("PostToolUse"), "exit_code": 0}).success is True
    assert parse(pm, "PostToolUse", {**payload("PostToolUse"), "exit_code": None}).success is True  # non-shell tool
    failed = parse(pm, "PostToolUseFailure")
    assert failed.success is False and failed.tool_output.startswith("File not found")
    assert parse(pm, "UserPromptSubmit").prompt == "create the files"
    assert parse(pm, "Stop").transcript_path.endswith("x.json")


def test_unknown_event_and_bad_payload_refused():
    with pytest.raises(ValueError):
        adapter.parse_payload("tool.execute.before", {"session_id": "s"})
    with pytest.raises(ValueError):
        adapter.parse_payload("PreToolUse", {"session_id": "s"})  # no tool_name
    with pytest.raises(ValueError):
        adapter.parse_payload("PreToolUse", "text")  # type: ignore[arg-type]


def test_the_hook_client_classes_our_event_names():
    assert wire.event_class("PreToolUse") == "pre"
    assert wire.event_class("SessionStart") == "start"
    assert wire.event_class("UserPromptSubmit") == "prompt"
    for event in ("PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"):
        assert wire.event_class(event) == "async", event
    assert wire.call_of("PreToolUse", payload("PreToolUse"))[:2] == ("bash", PAYLOADS["PreToolUse"]["tool_input"])


# -- answers --------------------------------------------------------------------------


def test_deny_and_context_answers(pm):
    assert answer(pm, parse(pm, "PreToolUse"), Decision(action="deny", reason="never")) == {
        "decision": "deny",
        "reason": "never",
    }
    assert answer(pm, parse(pm, "PreToolUse"), Decision(action="deny"))["reason"] == "Blocked by twiceshy."
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "SessionStart", "UserPromptSubmit"):
        assert answer(pm, parse(pm, event), Decision(action="warn", context="c")) == {"context": "c"}, event
    for event in ("Stop", "SessionEnd"):
        assert answer(pm, parse(pm, event), Decision(action="warn", context="c")) == {}
    assert answer(pm, parse(pm, "PreToolUse"), Decision()) == {}
    assert answer(pm, parse(pm, "PostToolUse"), Decision(action="deny", reason="r")) == {"context": "r"}


# -- install ---------------------------------------------------------------------------


def fake_command(event: str) -> str:
    return f"/py -I -S /x/twiceshy/hooks/client.py --home /data/tw opencode {event}"


def test_install_adds_one_plugin_entry_and_keeps_everything_else():
    user = {"$schema": "https://opencode.ai/config.json", "plugin": ["opencode-foo@1.2.3"], "model": "x/y"}
    once = settings.install_hooks(user, fake_command)
    assert once["plugin"][0] == "opencode-foo@1.2.3" and once["model"] == "x/y" and once["$schema"] == user["$schema"]
    spec, options = once["plugin"][1]
    assert spec == settings.plugin_spec() and spec.startswith("file://") and spec.endswith("/opencode/twiceshy.js")
    assert options["home"] == "/data/tw"
    assert options["hooks"] == {e: {"command": fake_command(e), "timeout": 10} for e in settings.EVENTS}
    assert settings.install_hooks(once, fake_command) == once
    assert settings.uninstall_hooks(once) == user
    assert set(our_events(once)) == set(settings.EVENTS) == settings.our_events_in(once)


def test_reinstall_rewrites_ours_in_place_and_removes_duplicates():
    old = ["file:///old/site-packages/twiceshy/plugins/opencode/twiceshy.js", {"hooks": {}}]
    other = ["opencode-bar", {"key": "val"}]
    dup = ["file:///elsewhere/x.js", {"hooks": {"Stop": {"command": fake_command("Stop")}}}]
    new = settings.install_hooks({"plugin": [old, other, dup]}, fake_command)
    assert [p[0] for p in new["plugin"]] == [settings.plugin_spec(), "opencode-bar"]
    assert settings.uninstall_hooks(new) == {"plugin": [other]}
    assert settings.uninstall_hooks({"plugin": []}) == {"plugin": []}  # the user's own empty list stays
    assert settings.uninstall_hooks({"model": "x"}) == {"model": "x"}


def test_a_plugin_value_that_is_not_a_list_is_refused():
    with pytest.raises(InstallError):
        settings.install_hooks({"plugin": "opencode-foo"}, fake_command)


def test_settings_and_context_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert settings.settings_file("user", tmp_path) == tmp_path / "xdg" / "opencode" / "opencode.json"
    (tmp_path / "xdg" / "opencode").mkdir(parents=True)
    (tmp_path / "xdg" / "opencode" / "opencode.jsonc").write_text('{"$schema": "https://opencode.ai/config.json"}')
    assert settings.settings_file("user", tmp_path).name == "opencode.jsonc"  # the one OpenCode created
    project = tmp_path / "proj"
    assert settings.settings_file("project", project) == project / "opencode.json"
    assert settings.context_file(project) == project / "AGENTS.md"
    with pytest.raises(ValueError):
        settings.settings_file("global", project)


def test_install_into_a_real_file_and_uninstall_exactly(pm, tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    config = project / "opencode.json"
    original = '{\n  "$schema": "https://opencode.ai/config.json",\n  "model": "fake/gpt-fake"\n}\n'
    config.write_text(original, encoding="utf-8")
    first = inst.install(pm, AGENT, scope="project", project_dir=project)
    assert first.changed and first.backup is not None and set(first.events) == set(settings.EVENTS)
    data = json.loads(config.read_text())
    assert data["model"] == "fake/gpt-fake" and len(data["plugin"]) == 1
    assert all(h["command"].endswith(f" opencode {e}") for e, h in data["plugin"][0][1]["hooks"].items())
    assert not inst.install(pm, AGENT, scope="project", project_dir=project).changed
    removed = inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert removed.changed and set(removed.events) == set(settings.EVENTS)
    assert config.read_text() == original


def test_jsonc_config_is_refused_untouched(pm, tmp_path: Path):
    config = tmp_path / "opencode.jsonc"
    config.write_text('{\n  // mine\n  "model": "x/y"\n}\n', encoding="utf-8")
    with pytest.raises(InstallError, match="comments"):
        inst.install(pm, AGENT, scope="project", project_dir=tmp_path)
    assert config.read_text() == '{\n  // mine\n  "model": "x/y"\n}\n'


def test_shipped_plugin_file_exists_and_imports_nothing_but_node_builtins():
    source = settings.plugin_path().read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if line.startswith("import ")]
    assert imports and all('from "node:' in line for line in imports), imports
    assert "export const TwiceshyPlugin" in source and "export default" not in source


# -- transcript ---------------------------------------------------------------------------


def build_db(path: Path, dump: str) -> dict:
    data = json.loads((FIX / dump).read_text(encoding="utf-8"))
    con = sqlite3.connect(path)
    for statement in data["schema"]:
        con.execute(statement)
    for table in ("session", "message", "part"):
        for row in data[table]:
            cols = list(row)
            con.execute(
                f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", [row[c] for c in cols]
            )
    con.commit()
    con.close()
    return data


def pointer(tmp_path: Path, db: Path, session_id: str) -> Path:
    path = tmp_path / f"{session_id}.json"
    path.write_text(json.dumps({"opencode_db": str(db), "session_id": session_id}), encoding="utf-8")
    return path


def test_transcript_from_opencodes_store(tmp_path: Path):
    db = tmp_path / "opencode.db"
    data = build_db(db, "db_basic.json")
    entries = transcript.read_transcript(pointer(tmp_path, db, data["session"][0]["id"]))
    assert [e.source for e in entries] == ["user", "tool_call", "tool_result", "tool_call", "tool_result", "assistant"]
    assert entries[1].tool_name == "bash" and entries[1].tool_input["command"] == "touch warned.txt"
    assert entries[2].tool_use_id == entries[1].tool_use_id == "call_3" and not entries[2].is_error
    assert entries[4].is_error  # ls exited 2
    assert entries[5].text == "done\nLEARNING: lab line"
    assert [e.source for e in transcript.read_transcript(db)] == [e.source for e in entries]  # the db itself


def test_injected_context_and_our_deny_are_never_user_or_assistant_text(tmp_path: Path):
    db = tmp_path / "opencode.db"
    data = build_db(db, "db_deny_fail_context.json")
    entries = transcript.read_transcript(pointer(tmp_path, db, data["session"][0]["id"]))
    trusted = " ".join(e.text for e in entries if e.source in ("user", "assistant"))
    assert "CTX-" not in trusted and "DENY-REASON" not in trusted  # the synthetic part is skipped
    results = [e for e in entries if e.source == "tool_result"]
    assert [r.is_error for r in results] == [False, True, True]
    assert results[1].text.startswith("File not found") and results[2].text == "DENY-REASON-THROW from lab plugin"


def test_export_shape_and_unreadable_inputs(tmp_path: Path):
    export = {
        "info": {"id": SESSION},
        "messages": [
            {
                "info": {"role": "user"},
                "parts": [
                    {"type": "text", "text": "fix the build"},
                    {"type": "text", "text": "injected", "synthetic": True},
                ],
            },
            {
                "info": {"role": "assistant"},
                "parts": [{"type": "reasoning", "text": "hmm"}, {"type": "text", "text": "LEARNING: x"}],
            },
        ],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    assert [(e.source, e.text) for e in transcript.read_transcript(path)] == [
        ("user", "fix the build"),
        ("assistant", "LEARNING: x"),
    ]
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    assert transcript.read_transcript(bad) == []
    assert transcript.read_transcript(tmp_path / "missing.json") == []
    assert transcript.read_transcript(pointer(tmp_path, tmp_path / "no.db", "ses_x")) == []


# -- the real dispatcher -------------------------------------------------------------------


class Policy:
    def __init__(self) -> None:
        self.post: list[CoreEvent] = []
        self.transcripts: list[list] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        if "forbidden" in (event.command or ""):
            return Decision(action="deny", reason="never write forbidden.lock")
        return None

    @hookimpl
    def post_tool(self, event, ctx):
        self.post.append(event)

    @hookimpl
    def session_start(self, event, ctx):
        return "twiceshy: 2 rules for this project"

    @hookimpl
    def session_end(self, event, ctx, transcript):
        self.transcripts.append(transcript)
        return []


def test_dispatch_end_to_end(tmp_path: Path):
    behaviour = [
        n for n in BUILTIN_PLUGINS if n not in ("claude-code", "codex", "gemini", "cursor", "opencode", "copilot")
    ]
    pm = make_manager(disabled=behaviour, load_entry_points=False)
    policy = Policy()
    pm.register(policy, name="policy")
    ctx = EngineContext(config=load_config(tmp_path), pm=pm)
    deny = handle_hook(
        ctx, AGENT, "PreToolUse", {**payload("PreToolUse"), "tool_input": {"command": "echo > forbidden.lock"}}
    )
    assert json.loads(deny.stdout) == {"decision": "deny", "reason": "never write forbidden.lock"}
    start = handle_hook(ctx, AGENT, "SessionStart", payload("SessionStart"))
    assert "2 rules" in json.loads(start.stdout)["context"]
    assert handle_hook(ctx, AGENT, "PostToolUseFailure", payload("PostToolUseFailure")).stdout == ""
    assert policy.post[0].success is False
    db = tmp_path / "opencode.db"
    data = build_db(db, "db_basic.json")
    end = handle_hook(
        ctx,
        AGENT,
        "SessionEnd",
        {**payload("SessionEnd"), "transcript_path": str(pointer(tmp_path, db, data["session"][0]["id"]))},
    )
    assert end.stdout == "" and end.exit_code == 0
    assert [e.source for e in policy.transcripts[0]][:2] == ["user", "tool_call"]


# -- twiceshy.js under Node ----------------------------------------------------------------

NODE = shutil.which("node")

FAKE_CLIENT = textwrap.dedent(
    """
    import json, os, sys, time
    event = sys.argv[1]
    body = sys.stdin.read()
    with open(os.environ["FAKE_LOG"], "a") as fh:
        fh.write(json.dumps({"event": event, "payload": json.loads(body)}) + "\\n")
    spec = json.load(open(os.environ["FAKE_ANSWERS"])).get(event, {})
    time.sleep(spec.get("sleep", 0))
    sys.stderr.write(spec.get("stderr", ""))
    sys.stdout.write(spec["raw"] if "raw" in spec else (json.dumps(spec["answer"]) if "answer" in spec else ""))
    sys.exit(spec.get("exit", 0))
    """
)

HARNESS = textwrap.dedent(
    """
    import { TwiceshyPlugin } from %(plugin)s
    const spec = JSON.parse(process.argv[2])
    const hooks = await TwiceshyPlugin({ directory: spec.directory }, spec.options)
    const results = []
    for (const [name, input, output] of spec.steps) {
      const started = Date.now()
      try {
        if (name === "event") await hooks.event({ event: input })
        else if (name === "dispose") await hooks.dispose()
        else await hooks[name](input, output)
        results.push({ ok: true, output, ms: Date.now() - started })
      } catch (e) {
        results.push({ ok: false, error: String(e && e.message), ms: Date.now() - started })
      }
    }
    console.log(JSON.stringify(results))
    """
)


@pytest.fixture
def run_plugin(tmp_path: Path):
    if NODE is None:
        pytest.skip("node is not installed")
    client = tmp_path / "fake_client.py"
    client.write_text(FAKE_CLIENT, encoding="utf-8")
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS % {"plugin": json.dumps(settings.plugin_path().as_uri())}, encoding="utf-8")
    log = tmp_path / "calls.jsonl"
    home = tmp_path / "tw"

    def run(answers: dict, steps: list, hooks: dict | None = None, timeout: int = 10) -> tuple[list, list]:
        (tmp_path / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
        commands = {e: {"command": f"{sys.executable} {client} {e}", "timeout": timeout} for e in settings.EVENTS}
        spec = {
            "directory": str(tmp_path),
            "steps": steps,
            "options": {"home": str(home), "hooks": commands if hooks is None else hooks},
        }
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "FAKE_LOG": str(log),
            "FAKE_ANSWERS": str(tmp_path / "answers.json"),
            "XDG_DATA_HOME": str(tmp_path / "data"),
        }
        proc = subprocess.run(
            [NODE, str(harness), json.dumps(spec)], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
        )
        assert proc.returncode == 0, proc.stderr
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        log.unlink(missing_ok=True)
        return json.loads(proc.stdout), calls

    run.home = home  # type: ignore[attr-defined]
    run.tmp = tmp_path  # type: ignore[attr-defined]
    return run


def before(call_id: str, command: str) -> list:
    return [
        "tool.execute.before",
        {"tool": "bash", "sessionID": SESSION, "callID": call_id},
        {"args": {"command": command}},
    ]


def after(call_id: str, output: str, exit_code: int = 0) -> list:
    return [
        "tool.execute.after",
        {"tool": "bash", "sessionID": SESSION, "callID": call_id, "args": {"command": "x"}},
        {"title": "x", "output": output, "metadata": {"exit": exit_code}},
    ]


def tool_error(call_id: str, error: str) -> list:
    part = {
        "type": "tool",
        "tool": "bash",
        "callID": call_id,
        "sessionID": SESSION,
        "state": {"status": "error", "input": {"command": "x"}, "error": error},
    }
    return ["event", {"type": "message.part.updated", "properties": {"sessionID": SESSION, "part": part}}, None]


def test_js_deny_throws_the_reason_and_our_blocked_call_is_not_a_failure(run_plugin):
    results, calls = run_plugin(
        {"PreToolUse": {"answer": {"decision": "deny", "reason": "never write forbidden.lock"}}},
        [before("c1", "echo > forbidden.lock"), tool_error("c1", "never write forbidden.lock")],
    )
    assert results[0] == {"ok": False, "error": "never write forbidden.lock", "ms": results[0]["ms"]}
    assert [c["event"] for c in calls] == ["PreToolUse"]
    sent = calls[0]["payload"]
    assert sent["hook_event_name"] == "PreToolUse" and sent["session_id"] == SESSION and sent["call_id"] == "c1"
    assert sent["tool_name"] == "bash" and sent["tool_input"] == {"command": "echo > forbidden.lock"}


def test_js_warning_is_appended_to_the_same_calls_result(run_plugin):
    results, calls = run_plugin(
        {"PreToolUse": {"answer": {"context": "LESSON: warned.txt is generated"}}, "PostToolUse": {"answer": {}}},
        [before("c2", "touch warned.txt"), after("c2", "(no output)")],
    )
    assert results[0]["ok"] and results[1]["output"]["output"] == "(no output)\n\nLESSON: warned.txt is generated"
    post = calls[1]["payload"]
    assert calls[1]["event"] == "PostToolUse" and post["tool_output"] == "(no output)" and post["exit_code"] == 0


def test_js_failed_call_reports_once_and_its_warning_goes_to_the_next_system_prompt(run_plugin):
    system: dict = {"system": ["base"]}
    results, calls = run_plugin(
        {"PreToolUse": {"answer": {"context": "W"}}, "SessionStart": {"answer": {"context": "S"}}},
        [
            before("c3", "x"),
            tool_error("c3", "File not found"),
            tool_error("c3", "File not found"),
            ["experimental.chat.system.transform", {"sessionID": SESSION, "model": {}}, system],
        ],
    )
    events = [c["event"] for c in calls]
    assert events == ["PreToolUse", "PostToolUseFailure", "SessionStart"]
    assert calls[1]["payload"]["error"] == "File not found" and calls[1]["payload"]["call_id"] == "c3"
    assert results[3]["output"]["system"] == ["base", "S", "W"]


def test_js_prompt_and_session_context(run_plugin):
    message = {
        "message": {"id": "msg_1", "sessionID": SESSION, "role": "user"},
        "parts": [{"type": "text", "text": "create the files"}],
    }
    results, calls = run_plugin(
        {"SessionStart": {"answer": {"context": "S"}}, "UserPromptSubmit": {"answer": {"context": "P"}}},
        [
            ["event", {"type": "session.created", "properties": {"sessionID": SESSION, "info": {"id": SESSION}}}, None],
            ["chat.message", {"sessionID": SESSION}, message],
            ["experimental.chat.system.transform", {"sessionID": SESSION, "model": {}}, {"system": []}],
        ],
    )
    assert [c["event"] for c in calls] == ["SessionStart", "UserPromptSubmit"]  # session start once
    assert calls[1]["payload"]["prompt"] == "create the files"
    parts = results[1]["output"]["parts"]
    assert parts[1]["text"] == "P" and parts[1]["synthetic"] is True and parts[1]["messageID"] == "msg_1"
    assert results[2]["output"]["system"] == ["S"]


def test_js_stop_and_dispose_hand_over_a_pointer_to_the_session(run_plugin):
    results, calls = run_plugin(
        {},
        [
            ["event", {"type": "session.created", "properties": {"sessionID": SESSION}}, None],
            ["event", {"type": "session.idle", "properties": {"sessionID": SESSION}}, None],
            ["dispose", None, None],
            ["dispose", None, None],
        ],
    )
    assert [c["event"] for c in calls] == ["SessionStart", "Stop", "SessionEnd"]
    pointer_path = Path(calls[2]["payload"]["transcript_path"])
    assert pointer_path == run_plugin.home / "opencode-sessions" / f"{SESSION}.json"
    data = json.loads(pointer_path.read_text())
    assert data["session_id"] == SESSION
    assert data["opencode_db"] == str(run_plugin.tmp / "data" / "opencode" / "opencode.db")
    assert (pointer_path.stat().st_mode & 0o777) == 0o600


def test_js_prompt_and_tool_calls_name_the_pointer_before_the_session_ends(run_plugin, pm):
    """A session killed before session.idle / dispose sends no Stop and no SessionEnd: the engine
    learns it later only if an event before the end named where the session is."""
    message = {"message": {"id": "msg_1", "sessionID": SESSION, "role": "user"}, "parts": []}
    _, calls = run_plugin(
        {},
        [["chat.message", {"sessionID": SESSION}, message], before("k1", "ls"), before("k2", "ls -a")],
    )
    assert [c["event"] for c in calls] == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PreToolUse"]
    pointer_path = run_plugin.home / "opencode-sessions" / f"{SESSION}.json"
    assert [c["payload"].get("transcript_path") for c in calls[1:]] == [str(pointer_path)] * 3
    assert json.loads(pointer_path.read_text())["session_id"] == SESSION
    pre = pm.hook.agent_parse_payload(agent=AGENT, native_event="PreToolUse", payload=calls[2]["payload"])
    assert pre.kind == "pre_tool" and pre.transcript_path == str(pointer_path)


def test_js_fails_open_on_garbage_errors_timeouts_and_missing_commands(run_plugin):
    steps = [before("g1", "x"), after("g1", "out")]
    for answers in (
        {"PreToolUse": {"raw": "not json"}, "PostToolUse": {"raw": "[1"}},
        {
            "PreToolUse": {"exit": 3, "answer": {"decision": "deny", "reason": "r"}},
            "PostToolUse": {"exit": 1, "answer": {"context": "c"}},
        },
        {"PreToolUse": {"exit": 2, "stderr": ""}},
    ):
        results, _ = run_plugin(answers, steps)
        assert results[0]["ok"] and results[1]["ok"] and results[1]["output"]["output"] == "out", answers
    started = time.monotonic()
    # A client 8 s late against the plugin's 1 s timeout: a bound far from both (the
    # answer's 5 s against a 4 s bound left a loaded box 3 s for node's timer; the
    # harness itself waits for the late client to end, so the sleep is paid in full).
    results, _ = run_plugin(
        {"PreToolUse": {"sleep": 8, "answer": {"decision": "deny", "reason": "late"}}}, [before("t1", "x")], timeout=1
    )
    assert results[0]["ok"] and results[0]["ms"] < 5000 and time.monotonic() - started < 60
    results, calls = run_plugin({}, steps, hooks={"PreToolUse": {"command": "/nonexistent/client --home x"}})
    assert results[0]["ok"] and results[1]["output"]["output"] == "out" and calls == []
    results, calls = run_plugin({}, steps, hooks={})
    assert results[0]["ok"] and calls == []


def test_js_exit_2_from_the_clients_rule_snapshot_blocks(run_plugin):
    results, _ = run_plugin(
        {"PreToolUse": {"exit": 2, "stderr": "Blocked by twiceshy: a confirmed rule applies.\n"}},
        [before("s1", "git push --force")],
    )
    assert results[0]["ok"] is False and results[0]["error"] == "Blocked by twiceshy: a confirmed rule applies."
