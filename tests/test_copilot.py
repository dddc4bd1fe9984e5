"""GitHub Copilot CLI plugin: recorded copilot 1.0.102 payloads in, Copilot's output forms out,
our own hook file installed and removed, the Claude-path double fire, events.jsonl transcripts,
and the real dispatcher."""

from __future__ import annotations

import json
import shutil
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
from twiceshy.plugins.copilot import adapter, compat, settings, transcript

FIX = Path(__file__).parent / "fixtures" / "copilot"
AGENT = "copilot"


def payload(name: str) -> dict:
    return json.loads((FIX / f"payload_{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pm():
    return make_manager(load_entry_points=False)


@pytest.fixture
def copilot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "copilothome"
    monkeypatch.setenv("COPILOT_HOME", str(home))
    compat.INSTALLED._cache.clear()
    return home


def parse(pm, event: str, data: dict | None = None) -> CoreEvent:
    return pm.hook.agent_parse_payload(agent=AGENT, native_event=event, payload=data or payload(event))


def out(pm, event: CoreEvent, decision: Decision) -> dict:
    text = pm.hook.agent_format_decision(agent=AGENT, event=event, decision=decision).stdout
    return json.loads(text) if text else {}


# -- payloads -------------------------------------------------------------------


def test_recorded_fixtures_cover_every_installed_event():
    assert {p.stem[len("payload_") :] for p in FIX.glob("payload_*.json")} >= set(settings.EVENTS)


@pytest.mark.parametrize(
    "event,kind",
    [
        ("preToolUse", "pre_tool"),
        ("postToolUse", "post_tool"),
        ("postToolUseFailure", "post_tool"),
        ("sessionStart", "session_start"),
        ("userPromptSubmitted", "prompt"),
        ("agentStop", "stop"),
        ("sessionEnd", "session_end"),
    ],
)
def test_parse_every_recorded_event(pm, event: str, kind: str):
    parsed = parse(pm, event)
    assert parsed.agent == AGENT and parsed.kind == kind and parsed.native_event == event
    assert parsed.session_id == payload(event)["sessionId"] and parsed.cwd == "/tmp/proj"


def test_tool_prompt_and_outcome_fields(pm):
    pre = parse(pm, "preToolUse")
    assert pre.tool_name == "bash" and pre.command == "touch warned.txt"
    assert parse(pm, "userPromptSubmitted").prompt == "create the files"
    ok = parse(pm, "postToolUse")
    assert ok.success is True and "exit code 0" in ok.tool_output
    # Copilot calls a shell command that exited 2 a *successful* tool call; its text says otherwise.
    bad = parse(pm, "postToolUse", payload("postToolUse_exit2"))
    assert bad.success is False and "nonexistent_dir_xyz" in bad.tool_output
    failure = parse(pm, "postToolUseFailure")
    assert failure.success is False and failure.tool_name == "view" and failure.tool_output == "Path does not exist"
    assert parse(pm, "agentStop").transcript_path.endswith("/events.jsonl")


def test_tool_args_sent_as_json_text_are_read():
    data = {**payload("preToolUse"), "toolArgs": json.dumps({"command": "ls"})}
    assert adapter.parse_payload("preToolUse", data).command == "ls"


def test_session_end_finds_the_session_state_transcript(pm, copilot_home: Path):
    data = payload("sessionEnd")
    assert parse(pm, "sessionEnd", data).transcript_path is None  # no events.jsonl there yet
    folder = copilot_home / "session-state" / data["sessionId"]
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("", encoding="utf-8")
    assert parse(pm, "sessionEnd", data).transcript_path == str(folder / "events.jsonl")
    assert adapter.transcript_of({}, "../../etc") is None  # a session id is never a path


@pytest.mark.parametrize("event", ["preToolUse", "postToolUse", "userPromptSubmitted", "sessionStart"])
def test_every_event_names_the_transcript_once_it_exists(pm, copilot_home: Path, event: str):
    """Not only agentStop and sessionEnd: a session killed before its end is swept from events.jsonl,
    and the engine knows where it is only if an event before the end named it."""
    data = payload(event)
    assert parse(pm, event, data).transcript_path is None  # Copilot has not written it yet
    folder = copilot_home / "session-state" / data["sessionId"]
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("", encoding="utf-8")
    assert parse(pm, event, data).transcript_path == str(folder / "events.jsonl")


def test_unknown_event_and_bad_payload_refused():
    for event in ("errorOccurred", "permissionRequest", "userPromptTransformed", "nonsense"):
        with pytest.raises(ValueError):
            adapter.parse_payload(event, payload(event) if (FIX / f"payload_{event}.json").exists() else {})
    with pytest.raises(ValueError):
        adapter.parse_payload("preToolUse", {"sessionId": "s"})  # no toolName
    with pytest.raises(ValueError):
        adapter.parse_payload("preToolUse", ["not", "an", "object"])  # type: ignore[arg-type]


def test_other_agents_payloads_are_not_ours(pm):
    plugin = pm.get_plugin(AGENT)
    assert plugin.agent_parse_payload(agent="gemini", native_event="preToolUse", payload=payload("preToolUse")) is None
    claude = json.loads((Path(__file__).parent / "fixtures" / "claude_code" / "payload_PreToolUse.json").read_text())
    assert plugin.agent_parse_payload(agent="claude-code", native_event="PreToolUse", payload=claude) is None
    assert pm.hook.agent_settings_file(agent="other", scope="user", project_dir=Path("/tmp")) is None


def test_the_hook_client_classes_copilots_events():
    assert wire.event_class("preToolUse") == "pre"
    assert wire.event_class("sessionStart") == "start"
    assert wire.event_class("userPromptSubmitted") == "prompt"
    for event in ("postToolUse", "postToolUseFailure", "agentStop", "sessionEnd"):
        assert wire.event_class(event) == "async", event
    tool, args, cwd = wire.call_of("preToolUse", payload("preToolUse"))
    assert (tool, args["command"], cwd) == ("bash", "touch warned.txt", "/tmp/proj")


# -- output -----------------------------------------------------------------------


def test_deny_uses_permission_decision_with_the_reason(pm):
    answer = out(pm, parse(pm, "preToolUse"), Decision(action="deny", reason="never write forbidden.lock"))
    assert answer == {"permissionDecision": "deny", "permissionDecisionReason": "never write forbidden.lock"}
    empty = out(pm, parse(pm, "preToolUse"), Decision(action="deny", reason="  "))
    assert empty["permissionDecisionReason"] == "Blocked by twiceshy."


@pytest.mark.parametrize(
    "event", ["preToolUse", "postToolUse", "postToolUseFailure", "sessionStart", "userPromptSubmitted"]
)
def test_context_goes_to_additional_context(pm, event: str):
    assert out(pm, parse(pm, event), Decision(action="warn", context="check the lock")) == {
        "additionalContext": "check the lock"
    }


@pytest.mark.parametrize("event", ["agentStop", "sessionEnd"])
def test_stop_and_session_end_are_silent(pm, event: str):
    # A "decision" on agentStop would make Copilot continue the turn.
    assert out(pm, parse(pm, event), Decision(action="warn", context="x", reason="y")) == {}
    assert out(pm, parse(pm, event), Decision(action="deny", reason="y")) == {}


def test_silent_decision_is_empty_output(pm):
    assert pm.hook.agent_format_decision(agent=AGENT, event=parse(pm, "preToolUse"), decision=Decision()).stdout == ""


def test_deny_where_copilot_cannot_block_informs_the_model(pm):
    assert out(pm, parse(pm, "postToolUse"), Decision(action="deny", reason="stop that")) == {
        "additionalContext": "stop that"
    }


# -- Copilot running Claude Code's hooks --------------------------------------------


def claude_path(event: str) -> dict:
    return payload(f"claude_path_{event}")


def test_claude_path_payloads_are_recognised():
    for event in ("PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        assert compat.is_copilot_payload(claude_path(event)), event
    for real in (Path(__file__).parent / "fixtures" / "claude_code").glob("payload_*.json"):
        assert not compat.is_copilot_payload(json.loads(real.read_text())), real.name


def test_claude_path_fire_without_our_copilot_hook_is_read_as_copilot(pm, copilot_home: Path):
    event = pm.hook.agent_parse_payload(
        agent="claude-code", native_event="PreToolUse", payload=claude_path("PreToolUse")
    )
    assert event.agent == AGENT and event.kind == "pre_tool" and event.native_event == "PreToolUse"
    assert event.tool_name == "Bash" and event.command == "touch warned.txt"
    assert event.raw["twiceshy_via"] == "copilot-running-claude-code-hooks"
    # Answered by Claude Code's formatter, in the Claude shape Copilot honours on that path.
    answer = pm.hook.agent_format_decision(
        agent="claude-code", event=event, decision=Decision(action="deny", reason="no")
    )
    assert json.loads(answer.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    post = pm.hook.agent_parse_payload(
        agent="claude-code", native_event="PostToolUse", payload=claude_path("PostToolUse")
    )
    assert post.agent == AGENT and post.success is True
    stop = pm.hook.agent_parse_payload(agent="claude-code", native_event="Stop", payload=claude_path("Stop"))
    assert stop.kind == "stop" and stop.transcript_path.endswith("events.jsonl")


def test_claude_path_fire_is_dropped_when_our_copilot_hook_covers_it(pm, copilot_home: Path, tmp_path: Path):
    project = tmp_path / "proj"
    inst.install(pm, AGENT, scope="project", project_dir=project)
    data = {**claude_path("PreToolUse"), "cwd": str(project)}
    event = pm.hook.agent_parse_payload(agent="claude-code", native_event="PreToolUse", payload=data)
    assert event.kind == compat.IGNORE and event.agent == AGENT
    # The dispatcher runs nothing for it and the agent gets the empty answer.
    ctx = EngineContext(config=load_config(tmp_path), pm=pm)
    assert handle_hook(ctx, "claude-code", "PreToolUse", data).stdout == ""
    inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    compat.INSTALLED._cache.clear()
    assert pm.hook.agent_parse_payload(agent="claude-code", native_event="PreToolUse", payload=data).kind == "pre_tool"


def test_user_scope_copilot_hook_also_covers_it(pm, copilot_home: Path, tmp_path: Path):
    inst.install(pm, AGENT, scope="user", project_dir=tmp_path)
    assert (copilot_home / "hooks" / "twiceshy.json").is_file()
    event = pm.hook.agent_parse_payload(agent="claude-code", native_event="Stop", payload=claude_path("Stop"))
    assert event.kind == compat.IGNORE


# -- install ---------------------------------------------------------------------


def fake_command(event: str) -> str:
    return f"/py -I -S /x/twiceshy/hooks/client.py --home /h copilot {event}"


def test_install_merges_keeps_user_entries_and_is_idempotent():
    user = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./lint.sh"}]}, "note": "mine"}
    once = settings.install_hooks(user, fake_command)
    assert once["note"] == "mine" and once["version"] == 1
    assert once["hooks"]["preToolUse"][0] == {"type": "command", "bash": "./lint.sh"}
    assert once["hooks"]["preToolUse"][1] == {
        "type": "command",
        "command": fake_command("preToolUse"),
        "timeoutSec": 10,
    }
    assert set(once["hooks"]) == set(settings.EVENTS)
    assert settings.install_hooks(once, fake_command) == once
    assert settings.uninstall_hooks(once) == {
        "version": 1,
        "hooks": {"preToolUse": [{"type": "command", "bash": "./lint.sh"}]},
        "note": "mine",
    }
    assert set(our_events(once)) == set(settings.EVENTS)


def test_reinstall_rewrites_a_stale_entry_in_place_and_drops_duplicates_and_old_events():
    stale = {
        "version": 1,
        "hooks": {
            "preToolUse": [
                {"type": "command", "command": "/old/twiceshy/hooks/client.py x", "timeoutSec": 99},
                {"type": "command", "bash": "mine"},
                {"type": "command", "command": "/old/twiceshy/hooks/client.py dup"},
            ],
            "errorOccurred": [{"type": "command", "command": "/old/twiceshy/hooks/client.py copilot errorOccurred"}],
        },
    }
    new = settings.install_hooks(stale, fake_command)
    assert new["hooks"]["preToolUse"] == [
        {"type": "command", "command": fake_command("preToolUse"), "timeoutSec": 10},
        {"type": "command", "bash": "mine"},
    ]
    assert "errorOccurred" not in new["hooks"]


def test_wrong_shapes_are_refused():
    with pytest.raises(InstallError):
        settings.install_hooks({"hooks": []}, fake_command)
    with pytest.raises(InstallError):
        settings.install_hooks({"hooks": {"preToolUse": {}}}, fake_command)


def test_install_into_a_real_file_and_uninstall(pm, tmp_path: Path):
    project = tmp_path / "proj"
    first = inst.install(pm, AGENT, scope="project", project_dir=project)
    path = project / ".github" / "hooks" / "twiceshy.json"
    assert first.changed and first.created and first.path == path
    data = json.loads(path.read_text())
    assert data["version"] == 1 and set(data["hooks"]) == set(settings.EVENTS)
    assert all(
        item["command"] == f"twiceshy hook copilot {ev}" for ev, items in data["hooks"].items() for item in items
    )
    again = inst.install(pm, AGENT, scope="project", project_dir=project)
    assert not again.changed and inst.backups_of(path) == []
    removed = inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert removed.changed and set(removed.events) == set(settings.EVENTS)
    # The hook file was ours: it goes, and so do the folders made for it (issue 30).
    assert removed.removed_files == [path] and not path.exists()
    # (The default data dir, made for the redirect file that pins this test's data dir, may go too.)
    in_project = [d for d in removed.removed_dirs if project in (d, *d.parents)]
    assert in_project == [project / ".github" / "hooks", project / ".github", project], removed.removed_dirs
    assert not inst.uninstall(pm, AGENT, scope="project", project_dir=project).changed


def test_uninstall_keeps_a_hook_file_the_user_had(pm, tmp_path: Path):
    project = tmp_path / "proj"
    path = project / ".github" / "hooks" / "twiceshy.json"
    path.parent.mkdir(parents=True)
    mine = '{"version": 1, "hooks": {}}\n'  # theirs, already there (a no-op file)
    path.write_text(mine)
    inst.install(pm, AGENT, scope="project", project_dir=project)
    assert "twiceshy hook copilot preToolUse" in path.read_text()
    inst.uninstall(pm, AGENT, scope="project", project_dir=project)
    assert path.read_text() == mine and sorted(p.name for p in path.parent.iterdir()) == ["twiceshy.json"]


def test_settings_and_context_paths(tmp_path: Path, copilot_home: Path):
    assert settings.settings_file("user", tmp_path) == copilot_home / "hooks" / "twiceshy.json"
    assert settings.settings_file("project", tmp_path) == tmp_path / ".github" / "hooks" / "twiceshy.json"
    assert settings.context_file(tmp_path) == tmp_path / "AGENTS.md"
    with pytest.raises(ValueError):
        settings.settings_file("global", tmp_path)


def test_install_notes_mention_folder_trust(pm, tmp_path: Path):
    notes = pm.hook.agent_install_notes(agent=AGENT, scope="project", project_dir=tmp_path)
    assert any("trusted folder" in n and "--trust-folder" in n for n in notes)
    assert not any("trusted folder" in n for n in settings.install_notes("user", tmp_path))


# -- transcript -------------------------------------------------------------------


def test_events_jsonl_sources_in_order():
    entries = transcript.read_transcript(FIX / "events.jsonl")
    assert [e.source for e in entries] == ["user", "tool_call", "tool_result", "tool_call", "tool_result", "assistant"]
    assert entries[0].text == "create the files"
    assert entries[1].tool_name == "bash" and entries[1].tool_input["command"] == "touch warned.txt"
    assert entries[2].tool_use_id == entries[1].tool_use_id and not entries[2].is_error
    assert entries[4].is_error  # ls exited 2
    assert entries[5].text == "done\nLEARNING: lab line"


def test_hook_context_is_never_user_or_assistant_text():
    entries = transcript.read_transcript(FIX / "events_hook_context.jsonl")
    trusted = " ".join(e.text for e in entries if e.source in ("user", "assistant"))
    assert "CTX-" not in trusted and "system_reminder" not in trusted and "current_datetime" not in trusted
    assert any("CTX-POSTTOOL-000" in e.text for e in entries if e.source == "tool_result")


def test_broken_lines_are_skipped_and_a_missing_file_reads_empty(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    path.write_text("{not json\n" + (FIX / "events.jsonl").read_text() + "[]\n", encoding="utf-8")
    assert len(transcript.read_transcript(path)) == 6
    assert transcript.read_transcript(tmp_path / "missing.jsonl") == []


# -- the real dispatcher ------------------------------------------------------------


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
    pre = payload("preToolUse")
    deny = handle_hook(ctx, AGENT, "preToolUse", {**pre, "toolArgs": {"command": "echo x > forbidden.lock"}})
    assert json.loads(deny.stdout)["permissionDecision"] == "deny"
    start = handle_hook(ctx, AGENT, "sessionStart", payload("sessionStart"))
    assert "2 rules" in json.loads(start.stdout)["additionalContext"]
    assert handle_hook(ctx, AGENT, "postToolUse", payload("postToolUse")).stdout == ""
    assert policy.post[0].success is True
    events = tmp_path / "events.jsonl"
    shutil.copy(FIX / "events.jsonl", events)
    end = handle_hook(ctx, AGENT, "agentStop", {**payload("agentStop"), "transcriptPath": str(events)})
    assert end.stdout == "" and end.exit_code == 0
    assert [e.source for e in policy.transcripts[0]][:2] == ["user", "tool_call"]
