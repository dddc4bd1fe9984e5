"""The parts of an install that belong to one machine: the settings ``env`` twiceshy writes
(the http transport's token, ``TWICESHY_HOME`` when it is not the default) and the http hook
target. For a project they go into the agent's per-machine file, never the committed one."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twiceshy.plugin.settings import InstallError

# Claude Code's own per-machine settings beside the project's: it keeps it out of git, and so do we.
LOCAL_SETTINGS = "settings.local.json"
# How long Claude Code waits for the engine's HTTP answer (seconds; past it the call runs).
HTTP_TIMEOUT_S = {"PreToolUse": 1.0, "PostToolUse": 5.0, "PostToolUseFailure": 5.0}
HOME_ENV = "TWICESHY_HOME"


class TransportUnsupported(InstallError):
    """The agent has no HTTP hooks (only Claude Code has)."""


class HookTarget:
    """``hook_command`` for the agent plugin: called with an event, gives the command. With
    the http transport it also has ``http_hook(event)``, the ``type: http`` item (a plugin
    that never asks for one has no HTTP hooks). ``portable`` is true for a project's committed
    file: a plugin that writes more than commands (OpenCode's plugin spec) must then name no
    path of this machine either."""

    def __init__(self, agent: str, command_for: Callable[[str], str], http: Any = None, portable: bool = False) -> None:
        self._agent = agent
        self._command_for = command_for
        self.portable = portable  # a project's committed file: no path of this machine may go in
        self.http_events: list[str] = []
        if http is not None:
            self._http = http
            self.http_hook = self._http_hook

    def __call__(self, native_event: str) -> str:
        return self._command_for(native_event)

    def _http_hook(self, native_event: str) -> dict[str, Any]:
        from twiceshy.engine.http_hooks import TIMEOUT_HEADER, TOKEN_HEADER

        if native_event not in self.http_events:
            self.http_events.append(native_event)
        timeout = HTTP_TIMEOUT_S.get(native_event, 5.0)
        return {
            "type": "http",
            "url": self._http.url(self._agent, native_event),
            "headers": {TOKEN_HEADER: "${%s}" % self._http.env_var, TIMEOUT_HEADER: str(int(timeout * 1000))},
            "allowedEnvVars": [self._http.env_var],
            "timeout": timeout,
        }


def token_env_file(path: Path, scope: str) -> Path:
    """Where the HTTP hook token goes (as settings ``env``): never a file a repository
    holds — the user settings themselves, or the project's ``.claude/settings.local.json``
    (which, for a project, also holds the http hooks)."""
    return path if scope == "user" else path.with_name(LOCAL_SETTINGS)


def set_token_env(var: str | None, token: str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A settings transform: our token variable set to ``token`` (or, with None, taken out)."""

    def transform(settings: dict[str, Any]) -> dict[str, Any]:
        from twiceshy.engine.http_hooks import TOKEN_ENV_PREFIX

        env = settings.get("env")
        if env is not None and not isinstance(env, dict):
            raise InstallError('"env" must be a JSON object; fix it by hand first')
        env = {k: v for k, v in (env or {}).items() if not str(k).startswith(TOKEN_ENV_PREFIX)}
        if var is not None:
            env[var] = token
        out = dict(settings)
        if env:
            out["env"] = env
        else:
            out.pop("env", None)
        return out

    return transform


def pinned_home(home: str | Path | None) -> str | None:
    """The data dir a project's per-machine file must name (``TWICESHY_HOME``), or None when it
    is the default one, which ``twiceshy hook`` finds by itself on every machine."""
    from twiceshy.hooks.wire import norm_home
    from twiceshy.ops.cli import default_home

    value = str(home) if home is not None else os.environ.get(HOME_ENV)
    if not value or norm_home(value) == norm_home(default_home()):
        return None
    return norm_home(value)


def set_home_env(value: str | None, keep_users: bool = False) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A settings transform: ``env.TWICESHY_HOME`` set to ``value`` (None: taken out, unless
    ``keep_users`` — the user had set it before twiceshy did)."""

    def transform(settings: dict[str, Any]) -> dict[str, Any]:
        env = settings.get("env")
        if env is not None and not isinstance(env, dict):
            raise InstallError('"env" must be a JSON object; fix it by hand first')
        env = dict(env or {})
        if value is not None:
            env[HOME_ENV] = value
        elif not keep_users:
            env.pop(HOME_ENV, None)
        out = dict(settings)
        if env:
            out["env"] = env
        else:
            out.pop("env", None)
        return out

    return transform


def make_private(path: Path) -> None:
    """The file now holds the token: readable by its owner only."""
    try:
        target = Path(os.path.realpath(path))
        if stat.S_IMODE(target.stat().st_mode) & 0o077:
            os.chmod(target, 0o600)
    except OSError:
        pass
