"""The plugin manager: builtin plugins, third-party plugins, isolated calls.

Builtin behaviour is registered as ordinary plugins under stable names (like
pytest's), so a user can switch one off in config (``plugins.disabled``) and
a test can load one on its own. Third-party plugins come from the
``twiceshy`` entry-point group.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Iterable
from typing import Any

import pluggy
from twiceshy.base.errorlog import record_error
from twiceshy.plugin import hookspecs

log = logging.getLogger("twiceshy.plugin.manager")

ENTRY_POINT_GROUP = "twiceshy"

# Stable name -> module. Order matters only for display; pre_tool decisions
# are merged, not short-circuited.
BUILTIN_PLUGINS: dict[str, str] = {
    # agent adapters
    "claude-code": "twiceshy.plugins.claude_code",
    "codex": "twiceshy.plugins.codex",
    "gemini": "twiceshy.plugins.gemini",
    "cursor": "twiceshy.plugins.cursor",
    # behaviour
    "recall": "twiceshy.builtins.recall",  # pre_tool: search and warn/deny
    "judge": "twiceshy.builtins.judge",  # post_tool: queue FOLLOWED/IGNORED verdicts
    "extract": "twiceshy.builtins.extract",  # session_end: lessons from transcripts
    "evolve": "twiceshy.builtins.evolve",  # tiers: promote, demote, decay, supersede
    "context": "twiceshy.builtins.context",  # render_context + session-start context
    # CLI commands
    "commands": "twiceshy.builtins.commands",  # learn, list, show, forget, search, hook
    "setup": "twiceshy.builtins.setup",  # install, uninstall
    "engine": "twiceshy.builtins.engine",  # serve, engine start/stop/status
    "guidance": "twiceshy.builtins.guidance",  # observe, suggest, projects, health, mcp
    "operator": "twiceshy.builtins.operator",  # doctor, stats, export/import, ui
    "demo": "twiceshy.builtins.demo",  # the whole loop in a throwaway home
    "review": "twiceshy.builtins.review",  # review: held (possibly poisoned) lessons
    "trust": "twiceshy.builtins.trust",  # trust: let a project's .twiceshy.yaml set every key
}


def _raise_in_tests() -> bool:
    # Under tests a broken builtin must fail loudly, not be silently skipped.
    return os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1"


def make_manager(disabled: Iterable[str] = (), load_entry_points: bool = True) -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    disabled_set = set(disabled)
    for name, module_name in BUILTIN_PLUGINS.items():
        if name in disabled_set:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            # A builtin that is not written yet is not an error; a builtin that
            # fails to import for another reason is.
            if exc.name == module_name:
                continue
            raise
        # A module may expose its hooks on an object (agent plugins do: see
        # twiceshy.plugin.agent); otherwise the module itself is the plugin.
        pm.register(getattr(module, "plugin", module), name=name)
    if load_entry_points:
        try:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
        except Exception as exc:  # a broken third-party plugin must not stop us
            record_error("plugins.load", exc)
            if _raise_in_tests():
                raise
        for name in disabled_set:
            plugin = pm.get_plugin(name)
            if plugin is not None:
                pm.unregister(plugin)
    return pm


def call_each(pm: pluggy.PluginManager, hook_name: str, **kwargs: Any) -> list[Any]:
    """Call every implementation of a lifecycle hook in its own try.

    pluggy stops a hook call at the first exception; for advisory hooks we
    want one plugin's bug to cost only that plugin's answer. Results that are
    ``None`` are dropped. Order follows pluggy's (last registered first).
    """
    caller = getattr(pm.hook, hook_name)
    results: list[Any] = []
    for impl in caller.get_hookimpls():
        args = {name: kwargs[name] for name in impl.argnames if name in kwargs}
        try:
            result = impl.function(**args)
        except Exception as exc:
            record_error(f"plugin {impl.plugin_name}.{hook_name}", exc)
            if _raise_in_tests():
                raise
            continue
        if result is not None:
            results.append(result)
    return results


def agent_names(pm: pluggy.PluginManager) -> list[str]:
    names: list[str] = []
    for group in pm.hook.agent_names():
        for name in group:
            if name not in names:
                names.append(name)
    return names
