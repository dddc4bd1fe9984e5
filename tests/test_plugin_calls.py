"""Hooks are called the way pluggy calls them, with one plugin's failure isolated.

Order (last registered first, ``tryfirst`` / ``trylast``), new-style wrappers
and old-style hookwrappers all go through pluggy's own call loop; a raising
implementation costs only its own answer. Then every lifecycle hook on its
own (``test_hook_<name>``, checked by tests/test_hookspecs.py), the trace,
entry-point selection, ``twiceshy plugins`` and a plugin's config section.
Everything runs through the real dispatcher and agent adapters; the store is
a real Chroma on disk (hash embedder, for speed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from twiceshy.base.config import ConfigError, load_config
from twiceshy.base.errorlog import recent_errors
from twiceshy.base.types import ContextSection, CoreEvent, Decision, Experience, LessonCandidate
from twiceshy.engine.context import EngineContext, make_context
from twiceshy.engine.dispatch import handle_event, handle_hook, run_session_end
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, PluginManager, call_each, make_manager

AGENTS = ("claude-code", "codex", "gemini", "cursor")
BEHAVIOUR = [n for n in BUILTIN_PLUGINS if n not in AGENTS]
REPO = Path(__file__).resolve().parent.parent


def pre(command: str, cwd: str = "/tmp/proj", session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def deny_reason(stdout: str) -> str | None:
    """The reason of a Claude Code deny, or None when the output is not a deny."""
    if not stdout:
        return None
    out = json.loads(stdout)["hookSpecificOutput"]
    return out["permissionDecisionReason"] if out.get("permissionDecision") == "deny" else None


def adapters_only(tmp_path: Path, *plugins: object) -> EngineContext:
    """A context with the agent adapters and ``plugins`` (registered in this order)."""
    pm = make_manager(disabled=BEHAVIOUR, load_entry_points=False)
    for plugin in plugins:
        pm.register(plugin, name=getattr(plugin, "name", None))
    return EngineContext(config=load_config(tmp_path), pm=pm)


# --------------------------------------------------------------------------
# Plugins used below
# --------------------------------------------------------------------------


class Recorder:
    """Answers ``answer`` and notes its name in ``calls``."""

    def __init__(self, name: str, calls: list[str], answer: Decision | None = None) -> None:
        self.name, self.calls, self.answer = name, calls, answer

    @hookimpl
    def pre_tool(self, event, ctx):
        self.calls.append(self.name)
        return self.answer


class First(Recorder):
    @hookimpl(tryfirst=True)
    def pre_tool(self, event, ctx):
        self.calls.append(self.name)
        return self.answer


class Last(Recorder):
    @hookimpl(trylast=True)
    def pre_tool(self, event, ctx):
        self.calls.append(self.name)
        return self.answer


class Denier:
    name = "denier"

    @hookimpl
    def pre_tool(self, event, ctx):
        return Decision(action="deny", reason="no force-push to main")


class Exploding:
    name = "exploding"

    @hookimpl
    def pre_tool(self, event, ctx):
        raise RuntimeError("plugin bug")


class PassThrough:
    name = "pass-through"

    @hookimpl(wrapper=True)
    def pre_tool(self, event, ctx):
        return (yield)


class OldPassThrough:
    name = "old-pass-through"

    @hookimpl(hookwrapper=True)
    def pre_tool(self, event, ctx):
        yield


class Adder:
    name = "adder"

    @hookimpl(wrapper=True)
    def pre_tool(self, event, ctx):
        decisions = yield
        return [*decisions, Decision(action="warn", context="added by a wrapper")]


class Veto:
    """Overrides every deny (an "I know what I am doing" plugin)."""

    name = "veto"

    @hookimpl(wrapper=True)
    def pre_tool(self, event, ctx):
        decisions = yield
        return [d for d in decisions if d.action != "deny"]


class OldForce:
    name = "old-force"

    @hookimpl(hookwrapper=True)
    def pre_tool(self, event, ctx):
        outcome = yield
        outcome.force_result([Decision(action="deny", reason="forced by an old-style hookwrapper")])


class BrokenBeforeYield:
    name = "broken-before"

    @hookimpl(wrapper=True)
    def pre_tool(self, event, ctx):
        raise RuntimeError("wrapper bug before yield")
        yield  # pragma: no cover


class BrokenAfterYield:
    name = "broken-after"

    @hookimpl(wrapper=True)
    def pre_tool(self, event, ctx):
        yield
        raise RuntimeError("wrapper bug after yield")


# --------------------------------------------------------------------------
# Order, wrappers, isolation
# --------------------------------------------------------------------------


def test_calls_follow_pluggys_order_last_registered_first(tmp_path: Path) -> None:
    calls: list[str] = []
    ctx = adapters_only(tmp_path, Recorder("a", calls), Recorder("b", calls), Recorder("c", calls))
    handle_hook(ctx, "claude-code", "PreToolUse", pre("make deploy"))
    assert calls == ["c", "b", "a"]


def test_tryfirst_runs_first_and_trylast_runs_last(tmp_path: Path) -> None:
    calls: list[str] = []
    ctx = adapters_only(tmp_path, First("first", calls), Recorder("plain", calls), Last("last", calls))
    ctx.pm.register(Recorder("late-plain", calls), name="late-plain")
    handle_hook(ctx, "claude-code", "PreToolUse", pre("make deploy"))
    assert calls == ["first", "late-plain", "plain", "last"]


@pytest.mark.parametrize("wrapper", [PassThrough, OldPassThrough])
def test_a_pass_through_wrapper_keeps_a_deny_a_deny(tmp_path: Path, wrapper: type) -> None:
    ctx = adapters_only(tmp_path, Denier(), wrapper())
    out = handle_hook(ctx, "claude-code", "PreToolUse", pre("git push --force origin main"))
    assert deny_reason(out.stdout) == "no force-push to main"


def test_a_wrapper_can_add_to_the_result(tmp_path: Path) -> None:
    ctx = adapters_only(tmp_path, Denier(), Adder())
    out = json.loads(handle_hook(ctx, "claude-code", "PreToolUse", pre("git push --force")).stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["additionalContext"] == "added by a wrapper"


def test_a_wrapper_can_veto_a_result(tmp_path: Path) -> None:
    ctx = adapters_only(tmp_path, Denier(), Veto())
    assert handle_hook(ctx, "claude-code", "PreToolUse", pre("git push --force")).stdout == ""
    assert call_each(ctx.pm, "pre_tool", event=_event("git push --force"), ctx=ctx) == []


def test_an_old_style_hookwrapper_can_force_the_result(tmp_path: Path) -> None:
    ctx = adapters_only(tmp_path, OldForce())
    out = handle_hook(ctx, "claude-code", "PreToolUse", pre("ls -la && make"))
    assert deny_reason(out.stdout) == "forced by an old-style hookwrapper"


def test_a_raising_plugin_between_two_good_ones_costs_only_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "0")
    calls: list[str] = []
    good_deny = Recorder("good-deny", calls, Decision(action="deny", reason="rule"))
    good_warn = Recorder("good-warn", calls, Decision(action="warn", context="careful"))
    ctx = adapters_only(tmp_path, good_deny, Exploding(), good_warn)
    out = json.loads(handle_hook(ctx, "claude-code", "PreToolUse", pre("make deploy")).stdout)
    assert calls == ["good-warn", "good-deny"]
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["additionalContext"] == "careful"
    errors = [e for e in recent_errors() if e["where"] == "plugin exploding.pre_tool"]
    assert len(errors) == 1 and "plugin bug" in errors[0]["error"]


def test_a_raising_plugin_fails_loudly_under_tests(tmp_path: Path) -> None:
    ctx = adapters_only(tmp_path, Exploding())
    with pytest.raises(RuntimeError, match="plugin bug"):
        call_each(ctx.pm, "pre_tool", event=_event("make"), ctx=ctx)
    # The hook path itself still fails open (the dispatcher catches everything).
    assert handle_hook(ctx, "claude-code", "PreToolUse", pre("make")).stdout == ""


@pytest.mark.parametrize("broken", [BrokenBeforeYield, BrokenAfterYield])
def test_a_raising_wrapper_leaves_the_result_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: type
) -> None:
    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "0")
    ctx = adapters_only(tmp_path, Denier(), broken())
    out = handle_hook(ctx, "claude-code", "PreToolUse", pre("git push --force"))
    assert deny_reason(out.stdout) == "no force-push to main"
    assert any(e["where"] == f"plugin {broken.name}.pre_tool" for e in recent_errors())


def test_agent_adapter_hooks_are_not_guarded(tmp_path: Path) -> None:
    """An adapter's ValueError is its way to say "unreadable payload": it must reach the dispatcher."""
    ctx = adapters_only(tmp_path)
    with pytest.raises(ValueError):
        ctx.pm.hook.agent_parse_payload(agent="claude-code", native_event="PreToolUse", payload={"x": 1})


def _event(command: str, **kw: Any) -> CoreEvent:
    return CoreEvent(kind="pre_tool", agent="claude-code", native_event="PreToolUse", tool_name="Bash",
                     tool_input={"command": command}, **kw)  # fmt: skip


# --------------------------------------------------------------------------
# One test per lifecycle hook
# --------------------------------------------------------------------------


class Spy:
    """Records every event it sees."""

    name = "spy"

    def __init__(self) -> None:
        self.events: list[CoreEvent] = []

    @hookimpl
    def pre_tool(self, event, ctx):
        self.events.append(event)

    @hookimpl
    def post_tool(self, event, ctx):
        self.events.append(event)


def test_hook_pre_tool_sees_read_only_calls_which_recall_skips(tmp_path: Path) -> None:
    ctx = make_context(tmp_path)
    spy = Spy()
    ctx.pm.register(spy, name="spy")
    assert handle_hook(ctx, "claude-code", "PreToolUse", pre("cat .env", cwd=str(tmp_path))).stdout == ""
    assert [(e.command, e.read_only) for e in spy.events] == [("cat .env", True)]
    assert ctx._store is None  # recall returned before any search: the store was never opened
    handle_hook(ctx, "claude-code", "PreToolUse", pre("rm -rf build", cwd=str(tmp_path)))
    assert [(e.command, e.read_only) for e in spy.events][1] == ("rm -rf build", False)
    assert ctx._store is not None  # a mutating call is searched


def test_hook_post_tool(tmp_path: Path) -> None:
    spy = Spy()
    ctx = adapters_only(tmp_path, spy)
    payload = {**pre("pytest -q"), "hook_event_name": "PostToolUse", "tool_response": {"stdout": "3 passed"}}
    assert handle_hook(ctx, "claude-code", "PostToolUse", payload).stdout == ""
    assert spy.events[0].kind == "post_tool" and "3 passed" in (spy.events[0].tool_output or "")


class Greeter:
    name = "greeter"

    @hookimpl
    def session_start(self, event, ctx):
        return f"Project rules for {event.cwd}: run make check before committing."


def test_hook_session_start(tmp_path: Path) -> None:
    ctx = adapters_only(tmp_path, Greeter())
    payload = {"session_id": "s1", "cwd": "/tmp/proj", "hook_event_name": "SessionStart", "source": "startup"}
    out = json.loads(handle_hook(ctx, "claude-code", "SessionStart", payload).stdout)
    assert "run make check before committing" in out["hookSpecificOutput"]["additionalContext"]


class Teacher:
    name = "teacher"

    @hookimpl
    def session_end(self, event, ctx, transcript):
        return [
            LessonCandidate(text="Use --force-with-lease, never --force", trigger="git push --force", kind="manual")
        ]


class Listener:
    name = "listener"

    def __init__(self) -> None:
        self.learned: list[list[Experience]] = []

    @hookimpl
    def session_learned(self, lessons, event, ctx):
        self.learned.append(list(lessons))


@pytest.fixture
def learning_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EngineContext:
    monkeypatch.setenv("TWICESHY_EMBEDDING__BACKEND", "hash")
    return make_context(tmp_path)


def _end(cwd: Path, kind: str = "session_end") -> CoreEvent:
    return CoreEvent(kind=kind, agent="claude-code", native_event="SessionEnd", session_id="s1", cwd=str(cwd))  # type: ignore[arg-type]


def test_hook_session_end_candidates_are_stored(learning_ctx: EngineContext, tmp_path: Path) -> None:
    learning_ctx.pm.register(Teacher(), name="teacher")
    assert run_session_end(learning_ctx, _end(tmp_path)) == 1
    [exp] = learning_ctx.store.all()
    assert (exp.text, exp.trigger) == ("Use --force-with-lease, never --force", "git push --force")


def test_hook_session_learned(learning_ctx: EngineContext, tmp_path: Path) -> None:
    from twiceshy.learning.evolve import load_state

    listener = Listener()
    learning_ctx.pm.register(Teacher(), name="teacher")
    learning_ctx.pm.register(listener, name="listener")
    order = [i.plugin_name for i in reversed(learning_ctx.pm.hook.session_learned.get_hookimpls())]
    assert order == ["listener", "evolve", "context-files"]  # context files are written after evolve (trylast)
    handle_event(learning_ctx, _end(tmp_path))
    [lessons] = listener.learned
    assert [e.text for e in lessons] == ["Use --force-with-lease, never --force"]
    assert learning_ctx.store.get(lessons[0].id) is not None
    assert load_state().get("last_run")  # the evolve builtin ran its cycle
    # The same session ending again teaches nothing new, and session_learned still fires.
    handle_event(learning_ctx, _end(tmp_path, "stop"))
    assert listener.learned[1] == []


class Elsewhere:
    name = "elsewhere"

    def __init__(self) -> None:
        self.got: list[LessonCandidate] = []

    @hookimpl(tryfirst=True)
    def store_lessons(self, candidates, event, ctx):
        self.got.extend(candidates)
        return [Experience(text=c.text, trigger=c.trigger) for c in candidates]


def test_hook_store_lessons_first_result_wins(learning_ctx: EngineContext, tmp_path: Path) -> None:
    elsewhere, listener = Elsewhere(), Listener()
    for plugin in (Teacher(), elsewhere, listener):
        learning_ctx.pm.register(plugin, name=plugin.name)
    assert run_session_end(learning_ctx, _end(tmp_path)) == 1
    assert [c.trigger for c in elsewhere.got] == ["git push --force"]
    assert learning_ctx.store.count() == 0  # the builtin ingest never ran
    assert [e.trigger for e in listener.learned[0]] == ["git push --force"]


class Section:
    name = "section"

    @hookimpl
    def render_context(self, ctx, agent, project, budget_tokens):
        return [ContextSection(title="House rules", lines=["- Run make check before committing"], priority=1)]


def test_hook_render_context(tmp_path: Path) -> None:
    from twiceshy.guidance.render import collect_sections, render_sections

    ctx = adapters_only(tmp_path, Section())
    sections = collect_sections(ctx, "claude-code", None, 500)
    assert "Run make check before committing" in render_sections(sections, 500)


class Hello:
    name = "hello"

    @hookimpl
    def register_commands(self, cli):
        @cli.command()
        def hello() -> None:
            click.echo("hello from a plugin")


class BrokenCommands:
    name = "broken-commands"

    @hookimpl
    def register_commands(self, cli):
        raise RuntimeError("cannot register")


def test_hook_register_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "0")
    pm = PluginManager()
    pm.register(Hello(), name="hello")
    pm.register(BrokenCommands(), name="broken-commands")
    group = click.Group("twiceshy")
    pm.hook.register_commands(cli=group)
    result = CliRunner().invoke(group, ["hello"])
    assert result.exit_code == 0 and result.output == "hello from a plugin\n"


class Ticker:
    name = "ticker"

    def __init__(self) -> None:
        self.started = threading.Event()
        self.stopped = threading.Event()

    def tick(self, ctx, stop) -> None:
        self.started.set()
        stop.wait()
        self.stopped.set()

    @hookimpl
    def register_workers(self, ctx):
        return [self.tick]


def test_hook_register_workers(learning_ctx: EngineContext, twiceshy_home: Path) -> None:
    from twiceshy.builtins.judge import judge_worker
    from twiceshy.engine import server as engine_mod
    from twiceshy.memory.team import drain_worker

    ticker = Ticker()
    learning_ctx.pm.register(ticker, name="ticker")
    workers = learning_ctx.workers()
    assert judge_worker in workers and ticker.tick in workers
    assert drain_worker not in workers  # the team outbox worker only runs for a team store
    learning_ctx.config["store"]["mode"] = "server"
    assert drain_worker in learning_ctx.workers()
    learning_ctx.config["store"]["mode"] = "embedded"
    # A real engine starts the plugin's worker and stops it on shutdown.
    eng = engine_mod.Engine(twiceshy_home, ctx=learning_ctx, idle_timeout_s=0)
    thread = threading.Thread(target=eng.run, daemon=True)
    thread.start()
    try:
        assert ticker.started.wait(60)
        # Generous timeouts (2 s by default): a loaded box answers a warming engine late.
        status = engine_mod.call(twiceshy_home, "ping", timeout=20)
        assert status is not None and "tick" in status["workers"]
    finally:
        engine_mod.call(twiceshy_home, "stop", timeout=20)
        thread.join(30)
    assert ticker.stopped.is_set() and not thread.is_alive()


# --------------------------------------------------------------------------
# Trace
# --------------------------------------------------------------------------


def test_trace_logs_every_call_with_each_answer_and_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.log"
    monkeypatch.setenv("TWICESHY_TRACE_PLUGINS", str(trace))
    calls: list[str] = []
    ctx = adapters_only(tmp_path, Denier(), Recorder("quiet", calls), PassThrough())
    out = handle_hook(ctx, "claude-code", "PreToolUse", pre("git push --force"))
    assert deny_reason(out.stdout)
    lines = [line for line in trace.read_text().splitlines() if " pre_tool " in line]
    assert any("plugin=denier" in line and "ms -> deny: no force-push to main" in line for line in lines)
    assert any("plugin=quiet" in line and "-> None" in line for line in lines)
    assert any("wrapper=pass-through" in line for line in lines)
    [call] = [line for line in lines if "call order=" in line]
    assert "order=pass-through,quiet,denier" in call
    assert capsys.readouterr().out == ""  # never on stdout: that is the agent's protocol


def test_trace_in_a_real_hook_process_goes_to_stderr_or_the_data_dir(tmp_path: Path, twiceshy_home: Path) -> None:
    env = {**os.environ, "TWICESHY_EMBEDDING__BACKEND": "hash", "TWICESHY_TRACE_PLUGINS": "stderr"}
    payload = json.dumps(pre("git status", cwd=str(tmp_path))).encode()
    cmd = [sys.executable, "-m", "twiceshy", "hook", "claude-code", "PreToolUse"]
    run = subprocess.run(cmd, input=payload, capture_output=True, env=env, timeout=120)
    assert run.returncode == 0 and run.stdout == b""
    assert b"pre_tool plugin=recall" in run.stderr and b"pre_tool call order=" in run.stderr
    env["TWICESHY_TRACE_PLUGINS"] = "1"
    run = subprocess.run(cmd, input=payload, capture_output=True, env=env, timeout=120)
    assert run.returncode == 0 and run.stdout == b"" and b"pre_tool" not in run.stderr
    assert "pre_tool plugin=recall" in (twiceshy_home / "plugin-trace.log").read_text()


# --------------------------------------------------------------------------
# Entry points: TWICESHY_LOAD_PLUGINS, plugins.disabled, twiceshy plugins
# --------------------------------------------------------------------------

PLUGIN_BODY = """\
from twiceshy import hookimpl
from twiceshy.base.types import Decision


@hookimpl(tryfirst=True)
def pre_tool(event, ctx):
    if event.command and "{word}" in event.command:
        return Decision(action="deny", reason="{name} says no")
"""


def make_dist(folder: Path, name: str, version: str = "1.0", body: str | None = None) -> None:
    """An installed-looking distribution ``tsplug-<name>`` with entry point ``<name>``."""
    module = f"tsplug_{name}"
    (folder / f"{module}.py").write_text(body if body is not None else PLUGIN_BODY.format(word=name, name=name))
    info = folder / f"tsplug_{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tsplug-{name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[twiceshy]\n{name} = {module}\n")


@pytest.fixture
def dists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    make_dist(folder, "alpha", "1.2.3")
    make_dist(folder, "beta")
    make_dist(folder, "broken", body="raise ImportError('half-installed plugin')\n")
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    for name in ("alpha", "beta", "broken"):
        sys.modules.pop(f"tsplug_{name}", None)


def _infos(pm: PluginManager) -> dict[str, Any]:
    return {i.name: i for i in pm.plugin_infos()}


def test_entry_points_load_each_in_its_own_try(dists: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "0")
    infos = _infos(make_manager())
    assert infos["alpha"].status == "enabled" and infos["beta"].status == "enabled"
    assert (infos["alpha"].source, infos["alpha"].distribution, infos["alpha"].version) == (
        "entry point",
        "tsplug-alpha",
        "1.2.3",
    )
    assert infos["alpha"].hooks == ["pre_tool(tryfirst)"]
    assert infos["broken"].status == "failed" and "half-installed plugin" in infos["broken"].error
    assert infos["recall"].source == "builtin" and infos["recall"].status == "enabled"


def test_load_plugins_selects_entry_points_and_disabled_blocks_them(
    dists: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TWICESHY_LOAD_PLUGINS", "alpha, gamma")
    pm = make_manager(disabled=["recall"])
    infos = _infos(pm)
    assert infos["alpha"].status == "enabled" and pm.get_plugin("alpha") is not None
    assert infos["beta"].status == "not selected" and pm.get_plugin("beta") is None
    assert infos["broken"].status == "not selected"  # never imported: nothing failed
    assert infos["gamma"].status == "missing"
    assert infos["recall"].status == "disabled" and pm.get_plugin("recall") is None
    assert infos["claude-code"].status == "enabled"  # builtins are not affected by the selection
    monkeypatch.setenv("TWICESHY_LOAD_PLUGINS", "")
    assert not [i for i in make_manager().plugin_infos() if i.source == "entry point" and i.status == "enabled"]
    monkeypatch.delenv("TWICESHY_LOAD_PLUGINS")
    pm = make_manager(disabled=["alpha", "broken"])
    assert pm.get_plugin("alpha") is None and _infos(pm)["alpha"].status == "disabled"
    assert pm.get_plugin("beta") is not None


def test_twiceshy_plugins_lists_source_hooks_and_status(dists: Path, twiceshy_home: Path, tmp_path: Path) -> None:
    config = twiceshy_home / "config"
    config.mkdir()
    (config / "config.yaml").write_text("plugins:\n  disabled: [beta, broken]\n")
    env = {**os.environ, "PYTHONPATH": f"{dists}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    env.pop("TWICESHY_RAISE_PLUGIN_ERRORS")
    cmd = [sys.executable, "-m", "twiceshy", "plugins"]
    run = subprocess.run([*cmd, "--json"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = {row["name"]: row for row in json.loads(run.stdout)}
    assert rows["alpha"] == {
        "name": "alpha",
        "source": "entry point",
        "module": "tsplug_alpha",
        "status": "enabled",
        "distribution": "tsplug-alpha",
        "version": "1.2.3",
        "hooks": ["pre_tool(tryfirst)"],
        "error": "",
    }
    assert rows["beta"]["status"] == "disabled" and rows["broken"]["status"] == "disabled"
    assert rows["recall"]["hooks"] == ["pre_tool"] and rows["context-files"]["hooks"] == ["session_learned(trylast)"]
    text = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120).stdout
    [alpha] = [line for line in text.splitlines() if line.startswith("alpha ")]
    assert "entry point: tsplug-alpha 1.2.3" in alpha and "enabled" in alpha and "pre_tool(tryfirst)" in alpha
    assert "disabled: beta, broken" in text


# --------------------------------------------------------------------------
# A plugin's own config section
# --------------------------------------------------------------------------


def test_plugin_config_section(tmp_path: Path, twiceshy_home: Path) -> None:
    config = twiceshy_home / "config"
    config.mkdir()
    (config / "config.yaml").write_text("plugins:\n  disabled: [demo]\n  guard:\n    allow: [/tmp]\n    strict: true\n")
    ctx = make_context(tmp_path)
    assert ctx.plugin_config("guard") == {"allow": ["/tmp"], "strict": True}
    ctx.plugin_config("guard")["strict"] = False  # a copy: a plugin cannot change another's view
    assert ctx.plugin_config("guard")["strict"] is True
    assert ctx.plugin_config("nobody") == {} and ctx.plugin_config("disabled") == {}
    assert ctx.pm.get_plugin("demo") is None
    (config / "config.yaml").write_text("plugins:\n  guard: [not, a, mapping]\n")
    with pytest.raises(ConfigError, match=r"plugins\.guard must be a mapping"):
        load_config(tmp_path)


# --------------------------------------------------------------------------
# docs/plugins.md: the complete plugin is complete, short, and works
# --------------------------------------------------------------------------


def test_the_plugin_in_the_docs_works_and_is_under_30_lines(tmp_path: Path, twiceshy_home: Path) -> None:
    import re
    import types

    doc = (REPO / "docs" / "plugins.md").read_text(encoding="utf-8")
    toml = re.search(r"```toml\n(# pyproject.toml\n.*?)```", doc, re.S)
    code = re.search(r"```python\n(# twiceshy_no_dotenv.py\n.*?)```", doc, re.S)
    assert toml and code
    assert len(toml.group(1).splitlines()) + len(code.group(1).splitlines()) < 30
    assert 'no-dotenv = "twiceshy_no_dotenv"' in toml.group(1)
    module = types.ModuleType("twiceshy_no_dotenv")
    exec(compile(code.group(1), "twiceshy_no_dotenv.py", "exec"), module.__dict__)
    config = twiceshy_home / "config"
    config.mkdir()
    (config / "config.yaml").write_text("plugins:\n  no-dotenv:\n    allow: [.env.example]\n")
    ctx = adapters_only(tmp_path)
    ctx.pm.register(module, name="no-dotenv")
    assert deny_reason(handle_hook(ctx, "claude-code", "PreToolUse", pre("cat .env")).stdout)
    read = {**pre(""), "tool_name": "Read", "tool_input": {"file_path": "/tmp/proj/.env.local"}}
    assert deny_reason(handle_hook(ctx, "claude-code", "PreToolUse", read).stdout)
    for fine in ("cat .env.example", "cat .envrc", "ls -la"):
        assert handle_hook(ctx, "claude-code", "PreToolUse", pre(fine)).stdout == "", fine
