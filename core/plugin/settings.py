"""What every agent plugin's settings module shares: which hook entries are ours, and merging them.

An entry is *ours* when its command contains ``twiceshy`` and ``hooks/client.py``, or is the portable
``twiceshy hook <agent> <event>`` a project's committed settings name (the contract in
``docs/install.md``); :func:`is_our_command` is the one test for it. Agents whose settings share Claude
Code's shape (``{"hooks": {Event: [{"matcher", "hooks": [{"command"}]}]}}`` — Claude Code, Codex,
Gemini CLI) reuse :func:`merge_matcher_hooks` and :func:`remove_matcher_hooks`; flat lists of
``{"command": …}`` (Cursor) use :func:`remove_flat_hooks`. Reading, backing up and writing the file is
``twiceshy.ops.install``'s job.
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import click

MARKER = "twiceshy"


CLIENT_MARKER = "hooks/client.py"

# ``twiceshy hook <agent> <event>`` (the console script found on PATH, or a path ending in it).
PORTABLE_COMMAND = re.compile(r"^(?:\S*[/\\])?twiceshy(?:\.exe)?\s+hook\s+[\w.-]+\s+[\w.-]+\s*$")


def portable_command(agent: str, native_event: str) -> str:
    """The hook command a project's committed settings name: ``twiceshy hook AGENT EVENT``,
    found on PATH on every machine (no path of this one in it)."""
    return f"twiceshy hook {agent} {native_event}"


class InstallError(click.ClickException):
    """A settings file we will not edit (bad JSON, wrong shape, unknown agent).

    A :class:`click.ClickException`, so the CLI prints ``Error: <message>``
    and exits 1 without a traceback.
    """


def client_path() -> Path:
    """Absolute path of the installed stdlib-only hook client (``twiceshy/hooks/client.py``)."""
    return Path(str(resources.files("twiceshy.hooks").joinpath("client.py"))).resolve()


def is_our_command(command: Any) -> bool:
    """Whether a settings entry's command is one of ours.

    The contract: it mentions ``twiceshy`` and ``hooks/client.py``, or it is
    ``twiceshy hook AGENT EVENT`` (the portable command of a committed project
    file). A development checkout may live in a folder not named twiceshy, so
    the exact path of this installation's client counts as well.
    """
    if not isinstance(command, str):
        return False
    if "hook" in command and PORTABLE_COMMAND.match(command.strip()):
        return True
    if CLIENT_MARKER not in command.replace("\\", "/"):
        return False
    if MARKER in command.lower():
        return True
    try:
        return str(client_path()) in command
    except Exception:  # twiceshy.hooks not importable: only the marker counts
        return False


@dataclass
class HookSpec:
    """One event to wire in a matcher-group settings file.

    ``matcher`` is ``None`` for events that take none (the key is then left
    out); ``timeout`` is in the agent's unit (seconds for Claude Code and
    Codex, milliseconds for Gemini CLI); ``extra`` adds agent-specific keys
    to the hook item (e.g. ``{"name": "twiceshy"}``).
    """

    event: str
    matcher: str | None = None
    timeout: int | float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def merge_matcher_hooks(
    settings: dict[str, Any],
    specs: Iterable[HookSpec],
    hook_command: Callable[[str], str],
    key: str = "hooks",
) -> dict[str, Any]:
    """Merge our entries into ``{key: {Event: [{"matcher", "hooks": [item]}]}}``.

    Returns a new dict; ``settings`` is not modified. Idempotent: an event
    that already has our entry gets it updated in place (same position), so
    a second run yields an equal dict. Entries that are not ours are kept
    exactly, in order; a user group that also holds one of our items keeps
    its other items. Our entries for events not in ``specs`` are removed.
    """
    out = copy.deepcopy(settings)
    specs = list(specs)
    hooks = out.get(key)
    if hooks is None:
        hooks = out[key] = {}
    if not isinstance(hooks, dict):
        raise InstallError(f'"{key}" must be a JSON object, found {type(hooks).__name__}; fix it by hand first')
    wanted = {spec.event for spec in specs}
    for event in [e for e in hooks if e not in wanted]:
        hooks[event] = _strip_ours(hooks[event])
        if hooks[event] == [] and settings.get(key, {}).get(event) != []:
            del hooks[event]
    for spec in specs:
        item: dict[str, Any] = {"type": "command", "command": hook_command(spec.event)}
        if spec.timeout is not None:
            item["timeout"] = spec.timeout
        item.update(spec.extra)
        groups = hooks.get(spec.event)
        if groups is None:
            groups = hooks[spec.event] = []
        if not isinstance(groups, list):
            raise InstallError(f'"{key}.{spec.event}" must be a JSON list; fix it by hand first')
        placed = False
        emptied: list[int] = []
        for index, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            ours = [i for i, h in enumerate(group["hooks"]) if isinstance(h, dict) and is_our_command(h.get("command"))]
            if not ours:
                continue
            if not placed and len(group["hooks"]) == len(ours):
                # Our own group: rewrite it whole, in place (the matcher may have changed).
                groups[index] = _group(spec, item)
                placed = True
                continue
            # A duplicate of ours, or someone else's group that also carries ours.
            group["hooks"] = [h for i, h in enumerate(group["hooks"]) if i not in ours]
            if not group["hooks"]:
                emptied.append(index)
        for index in reversed(emptied):
            del groups[index]
        if not placed:
            groups.append(_group(spec, item))
    return out


def _group(spec: HookSpec, item: dict[str, Any]) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if spec.matcher is not None:
        group["matcher"] = spec.matcher
    group["hooks"] = [item]
    return group


def _strip_ours(groups: Any) -> Any:
    """Remove our items from a list of matcher groups; drop groups we emptied."""
    if not isinstance(groups, list):
        return groups
    kept = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            items = [h for h in group["hooks"] if not (isinstance(h, dict) and is_our_command(h.get("command")))]
            if len(items) != len(group["hooks"]):
                if not items:
                    continue  # the group only held ours
                group = {**group, "hooks": items}
        kept.append(group)
    return kept


def remove_matcher_hooks(settings: dict[str, Any], key: str = "hooks") -> dict[str, Any]:
    """Take our items out of a matcher-group settings dict (new dict returned).

    A group left empty by the removal is dropped, an event list left empty is
    dropped, and ``key`` itself is dropped if we emptied it — but a list or
    object the user had left empty on purpose stays.
    """
    out = copy.deepcopy(settings)
    hooks = out.get(key)
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        before = hooks[event]
        after = _strip_ours(before)
        if after == before:
            continue
        if after == []:
            del hooks[event]
        else:
            hooks[event] = after
    if hooks == {} and settings.get(key) != {}:
        del out[key]
    return out


def remove_flat_hooks(settings: dict[str, Any], key: str = "hooks") -> dict[str, Any]:
    """Take our entries out of ``{key: {event: [{"command": …}, …]}}`` (Cursor's shape)."""
    out = copy.deepcopy(settings)
    hooks = out.get(key)
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        items = hooks[event]
        if not isinstance(items, list):
            continue
        kept = [h for h in items if not (isinstance(h, dict) and is_our_command(h.get("command")))]
        if len(kept) == len(items):
            continue
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if hooks == {} and settings.get(key) != {}:
        del out[key]
    return out


def our_events(settings: Any) -> list[str]:
    """Events in a ``{"hooks": {...}}`` settings dict that carry one of our commands (any shape).

    OpenCode has no hook map of its own: ours sits in the options of a ``plugin``
    entry (``{"plugin": [[spec, {"hooks": {...}}]]}``), which is read the same way; a file
    with neither is read as a bare event map (Droid's ``hooks.json``).
    """
    if not isinstance(settings, dict):
        return []
    maps = [settings.get("hooks")]
    if not isinstance(maps[0], dict):
        plugins = settings.get("plugin")
        maps = (
            [p[1].get("hooks") for p in plugins if isinstance(p, list) and len(p) > 1 and isinstance(p[1], dict)]
            if isinstance(plugins, list)
            else [settings]  # a bare event map (Droid's hooks.json)
        )
    events: list[str] = []
    for hooks in maps:
        if isinstance(hooks, dict):
            events.extend(e for e, value in hooks.items() if _mentions_ours(value) and e not in events)
    return events


def _mentions_ours(value: Any) -> bool:
    if isinstance(value, dict):
        return is_our_command(value.get("command")) or any(_mentions_ours(v) for v in value.values())
    if isinstance(value, list):
        return any(_mentions_ours(v) for v in value)
    return False


class OurEventsCache:
    """Which events of one agent carry our hook, per settings file, re-read only when the file changes.

    Agents that also run another agent's hooks (Cursor and Copilot run Claude Code's) ask this on the hot
    path to decide whether a payload is a twin of one their own hook already handles; ``our_events_in``
    is the agent's reader of its parsed settings file.
    """

    def __init__(self, our_events_in: Callable[[Any], set[str]]) -> None:
        self._our_events_in = our_events_in
        self._cache: dict[str, tuple[int, set[str]]] = {}
        self._lock = threading.Lock()

    def events_in(self, path: Path) -> set[str]:
        key = str(path)
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            with self._lock:
                self._cache.pop(key, None)
            return set()
        with self._lock:
            hit = self._cache.get(key)
            if hit and hit[0] == mtime:
                return hit[1]
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        events = self._our_events_in(data)
        with self._lock:
            self._cache[key] = (mtime, events)
        return events
