"""Factory Droid plugin: recorded droid 0.225.2 payloads in (tests/fixtures/droid/), Claude Code's
output shape out, the session log read, install into the bare-map hooks.json (or into the
``hooks`` of settings.json when the user's hooks live there), and the real dispatcher."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from twiceshy.base.config import load_config
from twiceshy.base.types import CoreEvent, Decision
from twiceshy.engine.context import EngineContext
from twiceshy.engine.dispatch import handle_hook
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, make_manager
from twiceshy.plugin.settings import InstallError, our_events
from twiceshy.plugins.droid import adapter, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "droid"
AGENT = "droid"
MISTAKE = "./deploy.sh --env staging"
FIX_CMD = "./deploy.sh --env staging --region eu-west-1"
SESSION = "db579b55-d071-420c-8453-54e9f78c4c4e"


def payload(name: str) -> dict:
    return json.loads((FIX / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager(load_entry_points=False)


def parse(pm, name: str, data: dict | None = None) -> CoreEvent:
    data = data or payload(name)
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=data["hook_event_name"], payload=data)


def out(pm, event: CoreEvent, decision: Decision) -> dict:
    text = pm.hook.agent_format_decision(agent=AGENT, event=event, decision=decision).stdout
    return json.loads(text) if text else {}


# -- payloads in ----------------------------------------------------------------------


def test_recorded_fixtures_cover_every_event_droid_exec_sends():
    recorded = {payload(p.stem[len("payload_") :])["hook_event_name"] for p in FIX.glob("payload_*.json")}
    assert recorded == set(settings.EVENTS) - {"UserPromptSubmit"}  # droid exec sends none


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("SessionStart", "session_start"),
        ("PreToolUse", "pre_tool"),
        ("PostToolUse", "post_tool"),
        ("Stop", "stop"),
        ("SessionEnd", "session_end"),
    ],
)
def test_parse_every_recorded_event(pm, name: str, kind: str):
    event = parse(pm, name)
    assert (event.agent, event.kind, event.session_id, event.cwd) == (AGENT, kind, SESSION, "/home/user/proj")
    assert event.transcript_path == f"/home/user/.factory/sessions/-home-user-proj/{SESSION}.jsonl"


def test_execute_is_read_as_the_command(pm):
    event = parse(pm, "PreToolUse")
    assert event.tool_name == "Execute" and event.command == MISTAKE and event.action_text() == MISTAKE


def test_post_tool_use_reads_the_exit_code_from_the_result_text(pm):
    ok = parse(pm, "PostToolUse")
    assert ok.success is True and ok.command == FIX_CMD
    assert ok.tool_output.endswith("[Process exited with code 0]")
    failed = payload("PostToolUse")
    failed["tool_response"] = "error: missing --region\n\n\n[Process exited with code 1]"
    assert parse(pm, "PostToolUse", failed).success is False
    assert adapter.exit_code("a\n[Process exited with code 0]\nb\n[Process exited with code 3]") == 3
    assert adapter.exit_code("no marker") is None


def test_edit_old_str_and_new_str_are_also_given_the_usual_names(pm):
    pre = parse(pm, "PreToolUse_Edit")
    assert pre.tool_name == "Edit" and pre.file_path == "/home/user/proj/notes.txt"
    assert pre.tool_input["old_str"] == pre.tool_input["old_string"] == "none"
    assert pre.tool_input["new_str"] == pre.tool_input["new_string"] == "eu-west-1"
    post = parse(pm, "PostToolUse_Edit")
    assert post.success is True and '"success":true' in post.tool_output


def test_unknown_event_and_bad_payload_are_refused():
    with pytest.raises(ValueError, match="unsupported"):
        adapter.parse_payload("Notification", {**payload("Stop"), "hook_event_name": "Notification"})
    with pytest.raises(ValueError, match="JSON object"):
        adapter.parse_payload("Stop", "text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tool_name"):
        adapter.parse_payload("PreToolUse", {k: v for k, v in payload("PreToolUse").items() if k != "tool_name"})


# -- decisions out ----------------------------------------------------------------------


def test_deny_is_permission_decision_deny_with_the_reason(pm):
    got = out(pm, parse(pm, "PreToolUse"), Decision(action="deny", reason="add --region eu-west-1"))
    assert got["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert got["hookSpecificOutput"]["permissionDecisionReason"] == "add --region eu-west-1"


def test_session_start_context_and_silent_ends(pm):
    got = out(pm, parse(pm, "SessionStart"), Decision(context="lesson: add --region"))
    assert got == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "lesson: add --region"}}
    for name in ("Stop", "SessionEnd"):
        assert out(pm, parse(pm, name), Decision(context="x")) == {}
    assert out(pm, parse(pm, "PreToolUse"), Decision.allow()) == {}


# -- transcript -------------------------------------------------------------------------


def test_session_log_reads_calls_results_and_the_users_words_only():
    entries = transcript.read_transcript(FIX / "session.jsonl")
    assert [(e.source, e.tool_name) for e in entries] == [
        ("user", ""),
        ("tool_call", "Execute"),
        ("tool_result", "Execute"),
        ("tool_call", "Execute"),
        ("tool_result", "Execute"),
        ("tool_call", "Edit"),
        ("tool_result", "Edit"),
        ("assistant", ""),
    ]
    user, call, failed, fix, ok = entries[:5]
    assert user.text == "deploy the app to staging"  # not the <system-reminder> context, not hook runs
    assert call.text == MISTAKE and call.tool_use_id == failed.tool_use_id == "call_fake1"
    assert failed.is_error and "missing --region" in failed.text  # the failure no hook reported
    assert fix.text == FIX_CMD and not ok.is_error
    assert all("twiceshy hook droid" not in e.text for e in entries)


def test_broken_lines_are_skipped(tmp_path: Path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "message"}\nnot json\n' + (FIX / "session.jsonl").read_text())
    assert len(transcript.read_transcript(path)) == 8


# -- install ----------------------------------------------------------------------------


def fake_command(event: str) -> str:
    return f"twiceshy hook droid {event}"


def test_install_writes_a_bare_event_map_and_uninstall_removes_the_file(pm, tmp_path: Path):
    project = tmp_path / "proj"
    project.mkdir()
    first = inst.install(pm, AGENT, scope="project", project_dir=project)
    path = project / ".factory" / "hooks.json"
    assert first.changed and first.path == path
    data = json.loads(path.read_text())
    assert set(data) == set(settings.EVENTS)  # no "hooks" wrapper: Droid reads hooks.json bare
    assert data["PreToolUse"] == [
        {
            "matcher": settings.TOOL_MATCHER,
            "hooks": [{"type": "command", "command": "twiceshy hook droid PreToolUse", "timeout": 10}],
        }
    ]
    assert set(our_events(data)) == set(settings.EVENTS)
    assert not inst.install(pm, AGENT, scope="project", project_dir=project).changed
    removed = inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert removed.changed and not path.exists()


def test_the_users_hooks_json_is_kept_byte_for_byte(pm, tmp_path: Path):
    project = tmp_path / "proj"
    path = project / ".factory" / "hooks.json"
    path.parent.mkdir(parents=True)
    mine = '{"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh"}]}]}\n'
    path.write_text(mine)
    inst.install(pm, AGENT, scope="project", project_dir=project)
    data = json.loads(path.read_text())
    assert data["Stop"][0] == {"hooks": [{"type": "command", "command": "./notify.sh"}]}
    assert data["Stop"][1]["hooks"][0]["command"] == "twiceshy hook droid Stop"
    inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert path.read_text() == mine


def test_hooks_in_settings_json_get_ours_beside_them(tmp_path: Path):
    project = tmp_path / "proj"
    folder = project / ".factory"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({"model": "x", "hooks": {"Stop": [{"hooks": []}]}}))
    # A hooks.json would win over settings.json per event and switch the user's Stop hook off.
    assert settings.settings_file("project", project) == folder / "settings.json"
    merged = settings.install_hooks(json.loads((folder / "settings.json").read_text()), fake_command)
    assert merged["model"] == "x" and set(merged["hooks"]) == set(settings.EVENTS)
    assert settings.uninstall_hooks(merged) == {"model": "x", "hooks": {"Stop": [{"hooks": []}]}}
    (folder / "hooks.json").write_text("{}")
    assert settings.settings_file("project", project) == folder / "hooks.json"


def test_a_hooks_json_that_is_not_an_event_map_is_refused():
    with pytest.raises(InstallError, match="matcher groups"):
        settings.install_hooks({"PreToolUse": {"command": "x"}}, fake_command)


def test_matcher_and_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    matcher = re.compile(settings.TOOL_MATCHER)
    assert all(matcher.search(t) for t in ("Execute", "Create", "Edit", "MultiEdit", "ApplyPatch", "mcp__gh__x"))
    assert not any(matcher.search(t) for t in ("Read", "LS", "Grep", "Glob", "ExecuteX"))
    monkeypatch.setenv("FACTORY_HOME_OVERRIDE", str(tmp_path / "fh"))
    assert settings.settings_file("user", tmp_path) == tmp_path / "fh" / ".factory" / "hooks.json"
    assert settings.context_file(tmp_path / "p") == tmp_path / "p" / "AGENTS.md"


# -- the real dispatcher ----------------------------------------------------------------


class Policy:
    def __init__(self) -> None:
        self.post: list[CoreEvent] = []
        self.ends: list[tuple[str, list]] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        return Decision(action="deny", reason="add --region eu-west-1") if event.command == MISTAKE else None

    @hookimpl
    def post_tool(self, event, ctx):
        self.post.append(event)

    @hookimpl
    def session_start(self, event, ctx):
        return "twiceshy: 1 lesson for this project"

    @hookimpl
    def session_end(self, event, ctx, transcript):
        self.ends.append((event.kind, transcript))
        return []


def test_dispatch_both_directions(tmp_path: Path):
    behaviour = [n for n in BUILTIN_PLUGINS if n not in ("claude-code", AGENT)]
    pm = make_manager(disabled=behaviour, load_entry_points=False)
    policy = Policy()
    pm.register(policy, name="policy")
    ctx = EngineContext(config=load_config(tmp_path), pm=pm)
    start = json.loads(handle_hook(ctx, AGENT, "SessionStart", payload("SessionStart")).stdout)
    assert "1 lesson" in start["hookSpecificOutput"]["additionalContext"]
    deny = json.loads(handle_hook(ctx, AGENT, "PreToolUse", payload("PreToolUse")).stdout)["hookSpecificOutput"]
    assert deny["permissionDecision"] == "deny" and deny["permissionDecisionReason"] == "add --region eu-west-1"
    assert handle_hook(ctx, AGENT, "PreToolUse", payload("PreToolUse_fix")).stdout == ""
    assert handle_hook(ctx, AGENT, "PostToolUse", payload("PostToolUse")).stdout == ""
    assert [e.success for e in policy.post] == [True]
    log = tmp_path / "session.jsonl"
    shutil.copy(FIX / "session.jsonl", log)
    end = handle_hook(ctx, AGENT, "SessionEnd", {**payload("SessionEnd"), "transcript_path": str(log)})
    assert end.stdout == "" and end.exit_code == 0
    kind, entries = policy.ends[-1]
    assert kind == "session_end" and [e.text for e in entries if e.source == "tool_call"][:2] == [MISTAKE, FIX_CMD]
