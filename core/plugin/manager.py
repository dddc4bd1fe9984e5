"""The plugin manager: builtin plugins, third-party plugins, hooks called the way pluggy calls them.

Builtin behaviour is registered as ordinary plugins under stable names (like
pytest's), so a user can switch one off in config (``plugins.disabled``) and a
test can load one on its own. Third-party plugins come from the ``twiceshy``
entry-point group; ``TWICESHY_LOAD_PLUGINS=a,b`` loads only those (an empty
value loads none), and a disabled name is blocked before anything is imported.

Every hook call goes through pluggy's own call loop — its order (last
registered first, ``tryfirst`` / ``trylast``), new-style wrappers, old-style
hookwrappers, ``firstresult``. What twiceshy adds is isolation: each
implementation of a lifecycle hook is wrapped at registration
(:mod:`twiceshy.plugin.guard`), so one that raises is logged and costs only
its own answer. The agent-adapter hooks (``agent_*``) are not guarded: their
callers handle errors (a ``ValueError`` from ``agent_parse_payload`` is how an
adapter says "unreadable payload").
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy
from twiceshy.base.errorlog import record_error
from twiceshy.plugin import hookspecs
from twiceshy.plugin.guard import Tracer, describe, guard_impl, raise_in_tests

ENTRY_POINT_GROUP = "twiceshy"
LOAD_ENV = "TWICESHY_LOAD_PLUGINS"

# Stable name -> module (or "module:attribute" for one of several plugin
# objects in a module). pluggy calls the last registered first, so entry-point
# plugins run before builtins; order within a hook is set by tryfirst/trylast.
BUILTIN_PLUGINS: dict[str, str] = {
    # agent adapters
    "claude-code": "twiceshy.plugins.claude_code",
    "codex": "twiceshy.plugins.codex",
    "gemini": "twiceshy.plugins.gemini",
    "cursor": "twiceshy.plugins.cursor",
    "opencode": "twiceshy.plugins.opencode",
    "copilot": "twiceshy.plugins.copilot",
    "qwen-code": "twiceshy.plugins.qwen_code",
    "droid": "twiceshy.plugins.droid",
    # behaviour
    "recall": "twiceshy.builtins.recall",  # pre_tool: search and warn/deny
    "judge": "twiceshy.builtins.judge",  # post_tool: queue FOLLOWED/IGNORED verdicts; the judge worker
    "extract": "twiceshy.builtins.extract",  # session_end: lessons from transcripts
    "ingest": "twiceshy.builtins.session_end:ingest",  # store_lessons: redact, dedup, store
    "evolve": "twiceshy.builtins.evolve",  # session_learned: promote, demote, decay, supersede
    "context": "twiceshy.builtins.context",  # render_context + session-start context
    "context-files": "twiceshy.builtins.session_end:context_files",  # session_learned: rewrite context files
    "team": "twiceshy.builtins.team",  # register_workers: team-store outbox delivery
    "sweep": "twiceshy.engine.sweep:plugin",  # register_workers: learn from sessions whose end never came
    # CLI commands
    "commands": "twiceshy.builtins.commands",  # learn, list, show, forget, search, hook
    "setup": "twiceshy.builtins.setup",  # install, uninstall
    "engine": "twiceshy.builtins.engine",  # serve, engine start/stop/status
    "guidance": "twiceshy.builtins.guidance",  # observe, suggest, projects, health, mcp
    "operator": "twiceshy.builtins.operator",  # doctor, stats, export/import, ui
    "demo": "twiceshy.builtins.demo",  # the whole loop in a throwaway home
    "review": "twiceshy.builtins.review",  # review: held (possibly poisoned) lessons
    "trust": "twiceshy.builtins.trust",  # trust: let a project's .twiceshy.yaml set every key
    "plugins": "twiceshy.builtins.plugins_cmd",  # twiceshy plugins: what is loaded, from where
    "config": "twiceshy.builtins.config_cmd",  # twiceshy config: show (with sources), set, edit, path
}

# Hooks whose implementations are not guarded (see the module docstring).
UNGUARDED_PREFIX = "agent_"

# Kept for callers that import it from here.
_raise_in_tests = raise_in_tests


@dataclass
class PluginInfo:
    """Where a plugin came from and whether it runs (``twiceshy plugins``)."""

    name: str
    source: str  # "builtin" | "entry point"
    module: str
    status: str = "enabled"  # enabled | disabled | not selected | failed | missing
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PluginManager(pluggy.PluginManager):
    """A ``pluggy.PluginManager`` for twiceshy's hookspecs whose lifecycle-hook
    implementations are isolated (and traced when ``TWICESHY_TRACE_PLUGINS`` is set)."""

    def __init__(self, tracer: Tracer | None = None) -> None:
        super().__init__(hookspecs.PROJECT_NAME)
        self.tracer = tracer
        self.infos: dict[str, PluginInfo] = {}
        self.add_hookspecs(hookspecs)
        if tracer is not None:
            self._trace_calls(tracer)

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        plugin_name = super().register(plugin, name)
        if plugin_name is not None:
            self._guard(plugin)
        return plugin_name

    def add_hookspecs(self, module_or_class: Any) -> None:
        super().add_hookspecs(module_or_class)
        # Implementations registered before their spec existed get guarded now.
        for plugin in self.get_plugins():
            self._guard(plugin)

    def _guard(self, plugin: Any) -> None:
        for caller in self.get_hookcallers(plugin) or []:
            if caller.name.startswith(UNGUARDED_PREFIX):
                continue
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    guard_impl(impl, caller.name, self.tracer)

    def _trace_calls(self, tracer: Tracer) -> None:
        """One summary line per hook call: total time, call order, final result."""
        local = threading.local()

        def before(hook_name: str, impls: Any, kwargs: Any) -> None:
            stack = getattr(local, "stack", None)
            if stack is None:
                stack = local.stack = []
            stack.append(time.perf_counter())

        def after(outcome: Any, hook_name: str, impls: Any, kwargs: Any) -> None:
            started = local.stack.pop()
            order = ",".join(i.plugin_name for i in reversed(impls))  # pluggy calls the list back to front
            answer = describe(outcome.get_result()) if outcome.exception is None else f"raised {outcome.exception!r}"
            tracer.write(hook_name, f"call order={order}", (time.perf_counter() - started) * 1000, answer)

        self.add_hookcall_monitoring(before, after)

    def plugin_infos(self) -> list[PluginInfo]:
        """Every known plugin (loaded or not) with the hooks it implements."""
        out: list[PluginInfo] = []
        for name, info in self.infos.items():
            plugin = self.get_plugin(name)
            if plugin is not None:
                info.hooks = sorted(_describe_impl(caller.name, impl) for caller, impl in self._impls_of(plugin))
            out.append(info)
        for name, plugin in self.list_name_plugin():  # registered directly (tests, conftest-like use)
            if name not in self.infos and plugin is not None:
                module = getattr(plugin, "__name__", type(plugin).__module__)
                info = PluginInfo(name=name, source="registered", module=str(module))
                info.hooks = sorted(_describe_impl(caller.name, impl) for caller, impl in self._impls_of(plugin))
                out.append(info)
        return out

    def _impls_of(self, plugin: Any) -> list[tuple[Any, Any]]:
        return [
            (caller, impl)
            for caller in self.get_hookcallers(plugin) or []
            for impl in caller.get_hookimpls()
            if impl.plugin is plugin
        ]


def _describe_impl(hook: str, impl: Any) -> str:
    marks = [m for m in ("tryfirst", "trylast", "wrapper", "hookwrapper") if getattr(impl, m, False)]
    return f"{hook}({', '.join(marks)})" if marks else hook


def _load_builtin(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    module = importlib.import_module(module_name)
    if attribute:
        return getattr(module, attribute)
    # A module may expose its hooks on an object (agent plugins do: see
    # twiceshy.plugin.agent); otherwise the module itself is the plugin.
    return getattr(module, "plugin", module)


def selected_entry_points() -> set[str] | None:
    """Names from ``TWICESHY_LOAD_PLUGINS`` (None: load every entry point)."""
    value = os.environ.get(LOAD_ENV)
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def load_entry_point_plugins(pm: PluginManager) -> None:
    """Register the ``twiceshy`` entry points, each in its own try."""
    only = selected_entry_points()
    try:
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # a broken distribution's metadata must not stop us
        record_error("plugins.load", exc)
        if raise_in_tests():
            raise
        return
    for ep in found:
        if ep.name in pm.infos:
            continue  # the same distribution seen twice on sys.path, or a builtin's name
        dist = getattr(ep, "dist", None)
        info = PluginInfo(
            name=ep.name,
            source="entry point",
            module=ep.value,
            distribution=dist.metadata["Name"] if dist is not None else None,
            version=dist.version if dist is not None else None,
        )
        pm.infos[ep.name] = info
        if pm.is_blocked(ep.name):
            info.status = "disabled"
            continue
        if only is not None and ep.name not in only:
            info.status = "not selected"
            continue
        try:
            pm.register(ep.load(), name=ep.name)
        except Exception as exc:
            info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
            record_error("plugins.load", exc, plugin=ep.name)
            if raise_in_tests():
                raise
    for name in sorted((only or set()) - set(pm.infos)):
        pm.infos[name] = PluginInfo(name=name, source="entry point", module="", status="missing")


def make_manager(disabled: Iterable[str] = (), load_entry_points: bool = True) -> PluginManager:
    """A manager with every builtin (but ``disabled``) and, unless told not
    to, the installed entry-point plugins."""
    pm = PluginManager(tracer=Tracer.from_env())
    for name in disabled:
        pm.set_blocked(name)
    for name, spec in BUILTIN_PLUGINS.items():
        info = PluginInfo(name=name, source="builtin", module=spec.replace(":", "."))
        pm.infos[name] = info
        if pm.is_blocked(name):
            info.status = "disabled"
            continue
        module_name = spec.partition(":")[0]
        try:
            plugin = _load_builtin(spec)
        except ModuleNotFoundError as exc:
            # A builtin that is not written yet is not an error; a builtin that
            # fails to import for another reason is.
            if exc.name == module_name:
                info.status = "missing"
                continue
            raise
        pm.register(plugin, name=name)
    if load_entry_points:
        load_entry_point_plugins(pm)
    return pm


def call_each(pm: pluggy.PluginManager, hook_name: str, **kwargs: Any) -> list[Any]:
    """Call a non-firstresult hook through pluggy and return its answers.

    pluggy drops ``None`` answers and decides the order; wrappers may have
    replaced the list. Whatever a wrapper returned that is not a list counts
    as one answer (``None``: none).
    """
    result = getattr(pm.hook, hook_name)(**kwargs)
    if result is None:
        return []
    if not isinstance(result, list):
        return [result]
    return [r for r in result if r is not None]


def agent_names(pm: pluggy.PluginManager) -> list[str]:
    names: list[str] = []
    for group in pm.hook.agent_names():
        for name in group:
            if name not in names:
                names.append(name)
    return names
