"""Where OpenCode keeps its config and instructions, and our entry in it.

OpenCode has no hook commands; it loads plugins. We list our shipped plugin
file in the config's ``plugin`` array, with the hook-client commands as the
plugin's options (OpenCode passes a tuple entry's object to the plugin as its
second argument; recorded in 1.18.33)::

    {"plugin": [["file:///…/twiceshy/plugins/opencode/twiceshy.js",
                 {"home": "<data dir>",
                  "hooks": {"PreToolUse": {"command": "…client.py … opencode PreToolUse", "timeout": 10}, …}}]]}

For a project (``--scope project``) the entry must hold no path of this machine: install copies the
plugin into the project as :data:`PROJECT_PLUGIN` (:func:`project_files`, committed with it), the
entry names it relative to the config (``"./.opencode/twiceshy.js"``; OpenCode resolves a spec
starting with ``.`` against the config file's folder — read in 1.18.33's resolvePluginSpec) and the
commands are ``twiceshy hook opencode <Event>``; the plugin finds the data dir itself. Not in
``.opencode/plugins/``: OpenCode loads every file there without options, a second time.

Every other key and plugin entry is left as it is. OpenCode loads the same
plugin spec only once even when the user and the project config both list it
(the project's options win; recorded), so installing in both scopes does not
double every event.
"""

from __future__ import annotations

import copy
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import InstallError, is_our_command

PLUGIN_FILE = "twiceshy.js"

# Event -> how long the plugin lets one hook-client run take (seconds) before
# it gives up and carries on. SessionStart allows for a cold engine (the
# client waits up to 8 s there).
TIMEOUTS: dict[str, int] = {
    "PreToolUse": 10,
    "PostToolUse": 10,
    "PostToolUseFailure": 10,
    "SessionStart": 10,
    "UserPromptSubmit": 10,
    "Stop": 10,
    "SessionEnd": 10,
}

EVENTS: tuple[str, ...] = tuple(TIMEOUTS)

CONFIG_NAMES = ("opencode.json", "opencode.jsonc")
PROJECT_PLUGIN = ".opencode/twiceshy.js"  # the project's copy of the plugin, committed


def plugin_path() -> Path:
    """The shipped JS plugin (``twiceshy/plugins/opencode/twiceshy.js``)."""
    return (Path(__file__).resolve().parent / PLUGIN_FILE).resolve()


def plugin_spec() -> str:
    """The ``plugin`` entry's spec: a ``file://`` URL of the shipped plugin."""
    return plugin_path().as_uri()


def project_files(project_dir: Path) -> dict[Path, bytes]:
    """Files a project install writes beside the config, committed with it: the plugin's copy."""
    return {Path(project_dir) / PROJECT_PLUGIN: plugin_path().read_bytes()}


def config_dir() -> Path:
    """OpenCode's global config folder: ``$XDG_CONFIG_HOME/opencode`` or ``~/.config/opencode``."""
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base).expanduser() if base else Path.home() / ".config") / "opencode"


def _config_in(folder: Path) -> Path:
    """The config file OpenCode reads in ``folder``: an existing ``opencode.json``,
    else an existing ``opencode.jsonc``, else ``opencode.json``."""
    for name in CONFIG_NAMES:
        if (folder / name).is_file():
            return folder / name
    return folder / CONFIG_NAMES[0]


def settings_file(scope: str, project_dir: Path) -> Path:
    """User: ``~/.config/opencode/opencode.json`` (or the ``.jsonc`` OpenCode
    created there); project: ``<dir>/opencode.json`` (or ``opencode.jsonc``)."""
    if scope == "user":
        return _config_in(config_dir())
    if scope == "project":
        return _config_in(Path(project_dir))
    raise ValueError(f"unknown scope {scope!r} (use user or project)")


def context_file(project_dir: Path) -> Path:
    """OpenCode reads ``AGENTS.md`` (``CLAUDE.md`` only when there is no
    ``AGENTS.md``), found upward from the project directory."""
    return Path(project_dir) / "AGENTS.md"


def _spec_of(entry: Any) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, list) and entry and isinstance(entry[0], str):
        return entry[0]
    return ""


def is_our_entry(entry: Any) -> bool:
    """A ``plugin`` entry of ours: it names our plugin file, or its options
    carry one of our hook-client commands."""
    spec = _spec_of(entry).replace("\\", "/")
    if spec.endswith(f"/opencode/{PLUGIN_FILE}") and "twiceshy" in spec.lower():
        return True
    if spec == plugin_spec() or spec == "./" + PROJECT_PLUGIN:
        return True
    options = entry[1] if isinstance(entry, list) and len(entry) > 1 and isinstance(entry[1], dict) else {}
    hooks = options.get("hooks")
    return isinstance(hooks, dict) and any(
        isinstance(h, dict) and is_our_command(h.get("command")) for h in hooks.values()
    )


def _home_of(command: str) -> str:
    try:
        parts = shlex.split(command)
    except ValueError:
        return ""
    if "--home" in parts:
        index = parts.index("--home")
        if index + 1 < len(parts):
            return parts[index + 1]
    return ""


def our_entry(hook_command: Callable[[str], str]) -> list[Any]:
    hooks = {event: {"command": hook_command(event), "timeout": timeout} for event, timeout in TIMEOUTS.items()}
    options: dict[str, Any] = {}
    home = _home_of(hook_command("SessionEnd"))
    if home:
        options["home"] = home  # the plugin writes its transcript pointers under <home>/opencode-sessions
    options["hooks"] = hooks
    # A project's committed config: the copy in the project, named relative to the config.
    spec = "./" + PROJECT_PLUGIN if getattr(hook_command, "portable", False) else plugin_spec()
    return [spec, options]


def install_hooks(settings: dict[str, Any], hook_command: Callable[[str], str]) -> dict[str, Any]:
    """Put our plugin entry in the config's ``plugin`` array (new dict returned).

    Idempotent: an existing entry of ours is rewritten in place (first one
    kept, duplicates removed); every other entry and key stays, in order.
    """
    out = copy.deepcopy(settings)
    plugins = out.get("plugin")
    if plugins is None:
        plugins = out["plugin"] = []
    if not isinstance(plugins, list):
        raise InstallError(f'"plugin" must be a JSON list, found {type(plugins).__name__}; fix it by hand first')
    entry = our_entry(hook_command)
    ours = [i for i, p in enumerate(plugins) if is_our_entry(p)]
    if ours:
        plugins[ours[0]] = entry
        for index in reversed(ours[1:]):
            del plugins[index]
    else:
        plugins.append(entry)
    return out


def uninstall_hooks(settings: dict[str, Any]) -> dict[str, Any]:
    """Only our entry out; a ``plugin`` array we emptied is dropped (one the
    user had left empty stays)."""
    out = copy.deepcopy(settings)
    plugins = out.get("plugin")
    if not isinstance(plugins, list):
        return out
    kept = [p for p in plugins if not is_our_entry(p)]
    if len(kept) == len(plugins):
        return out
    if kept:
        out["plugin"] = kept
    else:
        del out["plugin"]
    return out


def our_events_in(settings: Any) -> set[str]:
    """Events our plugin entry in a parsed config wires (empty when it is not there)."""
    plugins = settings.get("plugin") if isinstance(settings, dict) else None
    found: set[str] = set()
    for entry in plugins if isinstance(plugins, list) else []:
        if is_our_entry(entry) and isinstance(entry, list) and len(entry) > 1 and isinstance(entry[1], dict):
            hooks = entry[1].get("hooks")
            if isinstance(hooks, dict):
                found |= {e for e, h in hooks.items() if isinstance(h, dict) and is_our_command(h.get("command"))}
    return found


def install_notes(scope: str, project_dir: Path) -> list[str]:
    """What a user should know after our plugin entry is written."""
    return [
        "OpenCode loads the twiceshy plugin at its next start (`opencode run --pure` runs without plugins).",
        "OpenCode npm-installs @opencode-ai/plugin into its config folders before loading plugins; "
        "offline that waits for npm to give up (about a minute) on the first start.",
    ]
