"""Meta-tests on the plugin system (after datasette's): every hook is documented,
implemented and has its own ``test_hook_<name>``, every agent plugin is complete,
a failing plugin is isolated, a disabled builtin stays out, and pre_tool
decisions merge with deny winning. Call order and wrappers: tests/test_plugin_calls.py."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from twiceshy.base.types import CoreEvent, Decision
from twiceshy.plugin import hookspecs
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import BUILTIN_PLUGINS, PluginManager, agent_names, call_each, make_manager

SPECS = {
    name: fn for name, fn in vars(hookspecs).items() if callable(fn) and hasattr(fn, hookspecs.PROJECT_NAME + "_spec")
}
AGENT_HOOKS = sorted(n for n in SPECS if n.startswith("agent_"))


def test_every_hookspec_is_documented() -> None:
    assert {"pre_tool", "post_tool", "session_end", "render_context"} <= set(SPECS)
    for name, fn in SPECS.items():
        doc = inspect.getdoc(fn) or ""
        assert len(doc) > 60, f"hookspec {name} needs a docstring saying when it fires and what its return means"


def test_every_lifecycle_hookspec_has_its_own_test() -> None:
    """datasette's rule: a hook without a ``test_hook_<name>`` is a hook nobody checked."""
    tests = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tests |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_hook_")}
    missing = [
        name
        for name in SPECS
        if not name.startswith("agent_")
        and not any(t == f"test_hook_{name}" or t.startswith(f"test_hook_{name}_") for t in tests)
    ]
    assert not missing, f"hooks without a test_hook_<name> test: {missing}"


def test_every_hookspec_has_an_implementation() -> None:
    pm = make_manager(load_entry_points=False)
    for name in SPECS:
        assert getattr(pm.hook, name).get_hookimpls(), f"no builtin plugin implements {name}"


def test_every_agent_plugin_implements_every_adapter_hook() -> None:
    pm = make_manager(load_entry_points=False)
    agents = ("claude-code", "codex", "gemini", "cursor", "opencode", "copilot", "qwen-code", "droid")
    assert set(agent_names(pm)) == set(agents)
    for agent in agents:
        plugin = pm.get_plugin(agent)
        assert plugin is not None
        implemented = {impl.name for impl in pm.get_hookcallers(plugin) or []}
        missing = set(AGENT_HOOKS) - implemented - {"agent_install_notes"}
        assert not missing, f"{agent} lacks {sorted(missing)}"
        # firstresult adapter hooks must answer only for their own agent
        other = "definitely-not-an-agent"
        assert pm.hook.agent_context_file(agent=other, project_dir=Path("/tmp")) is None


def test_builtins_load_by_stable_name_and_can_be_disabled() -> None:
    pm = make_manager(load_entry_points=False)
    for name in ("recall", "extract", "evolve", "judge", "context", "commands", "setup", "engine"):
        assert pm.get_plugin(name) is not None, name
    assert set(BUILTIN_PLUGINS) >= {"recall", "claude-code"}
    pm2 = make_manager(disabled=["recall"], load_entry_points=False)
    assert pm2.get_plugin("recall") is None
    assert not [i for i in pm2.hook.pre_tool.get_hookimpls() if i.plugin_name == "recall"]


class Exploding:
    @hookimpl
    def pre_tool(self, event, ctx):
        raise RuntimeError("plugin bug")


class Warner:
    @hookimpl
    def pre_tool(self, event, ctx):
        return Decision(action="warn", context="careful")


class Denier:
    @hookimpl
    def pre_tool(self, event, ctx):
        return Decision(action="deny", reason="no")


def _bare_pm(*plugins: object) -> PluginManager:
    """A manager with the hookspecs and only ``plugins`` (no builtins)."""
    pm = PluginManager()
    for p in plugins:
        pm.register(p)
    return pm


def test_failing_plugin_is_isolated_and_logged(monkeypatch: pytest.MonkeyPatch, twiceshy_home: Path) -> None:
    from twiceshy.base.errorlog import recent_errors

    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "0")
    pm = _bare_pm(Exploding(), Warner())
    event = CoreEvent(kind="pre_tool", agent="claude-code", native_event="PreToolUse")
    results = call_each(pm, "pre_tool", event=event, ctx=None)
    assert [d.context for d in results] == ["careful"]
    assert any("plugin bug" in e["error"] for e in recent_errors())


def test_failing_plugin_raises_under_tests() -> None:
    pm = _bare_pm(Exploding())
    event = CoreEvent(kind="pre_tool", agent="claude-code", native_event="PreToolUse")
    with pytest.raises(RuntimeError):
        call_each(pm, "pre_tool", event=event, ctx=None)


def test_deny_wins_and_contexts_join() -> None:
    pm = _bare_pm(Warner(), Denier())
    event = CoreEvent(kind="pre_tool", agent="claude-code", native_event="PreToolUse")
    merged = Decision.merge(call_each(pm, "pre_tool", event=event, ctx=None))
    assert merged.action == "deny" and merged.reason == "no" and merged.context == "careful"


def test_error_log_is_redacted(twiceshy_home: Path) -> None:
    from twiceshy.base.errorlog import error_log_path, recent_errors, record_error

    record_error(
        "test",
        ValueError("bad url postgres://admin:hunter2hunter2@db/prod"),
        command="curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456'",
    )
    text = error_log_path().read_text()
    assert "hunter2hunter2" not in text and "abcdefghijklmnopqrstuvwxyz123456" not in text
    assert recent_errors()[-1]["where"] == "test"


def test_session_state_is_bounded_and_lru(ctx) -> None:
    from twiceshy.engine.context import MAX_SESSIONS

    first = ctx.session("s-0")
    first.warnings = 2
    for i in range(1, MAX_SESSIONS + 10):
        ctx.session(f"s-{i}")
        ctx.session("s-0")  # keep s-0 recently used
    assert len(ctx.sessions) == MAX_SESSIONS
    assert ctx.session("s-0").warnings == 2
    assert "s-1" not in ctx.sessions


def test_session_state_is_typed(ctx) -> None:
    state = ctx.session("typed")
    assert state.shown == set() and state.warnings == 0 and state.shown_log == [] and state.context_sent is False
    state.plugins["my-plugin"] = {"seen": 1}
    assert ctx.session("typed").plugins == {"my-plugin": {"seen": 1}}
    # Mapping-style access still reads the same fields, and a misspelt key fails instead of adding state.
    assert state["warnings"] == 0 and state.get("held") is None
    with pytest.raises(KeyError):
        state["shown_logs"] = []
