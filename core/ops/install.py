"""Installing and removing twiceshy's hooks in an agent's settings file.

Agent-neutral: everything that differs per agent comes from the agent
plugin through three adapter hooks —

* ``agent_settings_file(agent, scope, project_dir)`` says *which* file,
* ``agent_install_hooks(agent, settings, hook_command)`` merges our entries
  into the parsed JSON (``hook_command(native_event)`` gives the command),
* ``agent_uninstall_hooks(agent, settings)`` takes only ours out again.

This module owns the file handling every agent shares:

* the file is read as plain JSON; invalid JSON (or JSON with comments) is
  refused with an :class:`InstallError` naming the file and the position, and
  the file is never touched in that case;
* a change is written atomically (temp file in the same folder, fsync,
  ``os.replace``) and keeps the file's permission bits;
* before the first byte changes a timestamped copy is made next to the file
  (``settings.json.twiceshy-backup-20250101T120000``);
* an install or uninstall that changes nothing writes nothing and makes no
  backup (so running it twice is a no-op);
* ``dry_run`` computes the same plan and returns a unified diff instead.

Which entries are ours, and merging them into each settings shape, is the agent
plugins' toolkit in :mod:`twiceshy.plugin.settings`.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import shlex
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import data_dir
from twiceshy.plugin.settings import (
    HookSpec,
    InstallError,
    client_path,
    is_our_command,
    merge_matcher_hooks,
    our_events,
    remove_flat_hooks,
    remove_matcher_hooks,
)

BACKUP_INFIX = ".twiceshy-backup-"


# --------------------------------------------------------------------------
# The hook command
# --------------------------------------------------------------------------


def hook_command(
    agent: str,
    native_event: str,
    python: str | None = None,
    home: str | Path | None = None,
) -> str:
    """The shell command an agent runs for one event (the fixed hook contract).

    ``<python> -I -S <client.py> --home <data_dir> <agent> <NativeEvent>``,
    every part shell-quoted. ``python`` defaults to the interpreter running
    this code (the one that has twiceshy installed), ``home`` to the data dir
    (``TWICESHY_HOME`` or the platform default).
    """
    python = python or sys.executable
    home = Path(home) if home is not None else data_dir()
    for path in (python, str(client_path())):
        refuse_ephemeral(path)
    parts = [python, "-I", "-S", str(client_path()), "--home", str(home), agent, native_event]
    return shlex.join(parts)


# Environments a tool runner builds for one run and deletes later: a hook command pointing
# there breaks the agent's hooks once the cache is pruned (`uv cache clean`, `pipx run` expiry).
_EPHEMERAL = (
    (re.compile(r"/uv/(?:cache/)?(?:archive|builds|environments)-v\d+/", re.IGNORECASE), "uvx"),
    (re.compile(r"/pipx/\.cache/", re.IGNORECASE), "pipx run"),
)


def refuse_ephemeral(path: str) -> None:
    """Raise :class:`InstallError` when ``path`` lies in a tool runner's throw-away cache."""
    norm = str(path).replace("\\", "/")
    cache = os.environ.get("UV_CACHE_DIR")
    for marker, runner in _EPHEMERAL:
        if marker.search(norm) or (cache and runner == "uvx" and norm.startswith(cache.rstrip("/") + "/")):
            raise InstallError(
                f"twiceshy is running from {runner}'s temporary cache ({path}); hooks pointing there break when "
                "the cache is cleaned. Install it for good, then run install again: "
                "`uv tool install twiceshy` or `pipx install twiceshy`, then `twiceshy install --agent ...`"
            )


# --------------------------------------------------------------------------
# Reusable merge helpers for the common settings shapes
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# Reading and writing settings files
# --------------------------------------------------------------------------


def _looks_like_jsonc(text: str) -> bool:
    stripped = "\n".join(line.strip() for line in text.splitlines())
    return "\n//" in "\n" + stripped or "/*" in text


def read_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """Parse a settings file. Returns ``(data, original_text)``.

    A missing or empty file reads as ``{}`` (text ``None`` when missing).
    Raises :class:`InstallError` for invalid JSON, JSON with comments, or a
    top level that is not an object — the file is left as it is.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except UnicodeDecodeError:
        raise InstallError(f"{path} is not UTF-8 text; twiceshy did not change it") from None
    except OSError as exc:
        raise InstallError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = (
            " It looks like JSON with comments; twiceshy only edits plain JSON. Remove the comments"
            " or add the hooks by hand (see `twiceshy install --dry-run`)."
            if _looks_like_jsonc(text)
            else " Fix the file (or move it away) and run the command again."
        )
        raise InstallError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            f"twiceshy did not change it.{hint}"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(
            f"{path} must hold a JSON object at the top level, found {type(data).__name__}; twiceshy did not change it"
        )
    return data, text


def _detect_indent(text: str | None) -> int | str:
    """Keep the user's indentation (2 by default) so the diff shows only real changes."""
    if text:
        for line in text.splitlines()[1:]:
            if line.strip():
                lead = line[: len(line) - len(line.lstrip())]
                if lead.startswith("\t"):
                    return "\t"
                if lead:
                    return len(lead)
                break
    return 2


def render_settings(data: dict[str, Any], like: str | None = None) -> str:
    """Serialise settings as JSON with a trailing newline, indented like ``like``."""
    return json.dumps(data, indent=_detect_indent(like), ensure_ascii=False) + "\n"


def backups_of(path: Path) -> list[Path]:
    """Our backups of ``path``, newest first."""
    return sorted(path.parent.glob(f"{path.name}{BACKUP_INFIX}*"), key=lambda p: p.stat().st_mtime_ns, reverse=True)


def _prune_hooks(data: Any) -> Any:
    """``data`` with empty lists/objects inside ``"hooks"`` dropped (they mean nothing to an agent)."""
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), (dict, list)):
        return data

    def prune(value: Any) -> Any:
        if isinstance(value, dict):
            pruned = {k: prune(v) for k, v in value.items()}
            return {k: v for k, v in pruned.items() if v not in ({}, [])}
        if isinstance(value, list):
            pruned_list = [prune(v) for v in value]
            return [v for v in pruned_list if v not in ({}, [])]
        return value

    out = dict(data)
    out["hooks"] = prune(data["hooks"])
    if out["hooks"] in ({}, []):
        del out["hooks"]
    return out


def _backup_text_equal_to(path: Path, data: dict[str, Any], limit: int = 20) -> str | None:
    """The text of a recent backup holding exactly the user's content ``data``, if any.

    Lets an uninstall restore the user's own file byte for byte (formatting,
    and an empty hook list they had, which removal cannot tell from one it
    emptied) instead of re-serialising. A backup qualifies only if it has
    none of our entries and differs from ``data`` at most by empty
    containers inside ``"hooks"``.
    """
    target = _prune_hooks(data)
    for candidate in backups_of(path)[:limit]:
        try:
            text = candidate.read_text(encoding="utf-8")
            saved = json.loads(text)
        except (OSError, ValueError):
            continue
        if isinstance(saved, dict) and not our_events(saved) and _prune_hooks(saved) == target:
            return text
    return None


def backup_file(path: Path) -> Path:
    """Copy ``path`` to ``<name>.twiceshy-backup-<UTC timestamp>`` beside it (never overwriting one)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}{BACKUP_INFIX}{stamp}-{counter}")
        counter += 1
    data = path.read_bytes()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(path.stat().st_mode))
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return target


# --------------------------------------------------------------------------
# Plan and apply
# --------------------------------------------------------------------------


@dataclass
class InstallResult:
    """What an install or uninstall did (or, with ``dry_run``, would do)."""

    agent: str
    action: str  # "install" | "uninstall"
    path: Path
    changed: bool
    events: list[str]  # events carrying our hook after the action
    backup: Path | None = None
    diff: str = ""
    dry_run: bool = False
    created: bool = False
    removed_files: list[Path] = field(default_factory=list)  # uninstall: files we created, now deleted
    cleaned_files: list[Path] = field(default_factory=list)  # uninstall: managed blocks taken out
    token_file: Path | None = None  # http transport: the settings file that got the token
    git_exclude: Path | None = None  # …and the .git/info/exclude that keeps it out of git


# --------------------------------------------------------------------------
# Files we created (so uninstall can take them away again)
# --------------------------------------------------------------------------


def _created_log() -> Path:
    return data_dir() / "created-files.json"


def created_files() -> list[dict[str, str]]:
    """Files twiceshy created: ``{"path", "agent", "kind"}`` (kind: settings | context)."""
    try:
        rows = json.loads(_created_log().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("path"), str)] if isinstance(rows, list) else []


def _save_created(rows: list[dict[str, str]]) -> None:
    from twiceshy.base.paths import ensure_private_dir

    ensure_private_dir(_created_log().parent)
    write_atomic(_created_log(), json.dumps(rows, indent=2) + "\n")


def record_created(path: Path, agent: str = "", kind: str = "context") -> None:
    """Remember that twiceshy created ``path`` (uninstall removes it when nothing else is in it)."""
    key = str(Path(path).absolute())
    rows = [r for r in created_files() if r["path"] != key]
    _save_created([*rows, {"path": key, "agent": agent, "kind": kind}])


def forget_created(path: Path) -> None:
    key = str(Path(path).absolute())
    rows = created_files()
    if any(r["path"] == key for r in rows):
        _save_created([r for r in rows if r["path"] != key])


def was_created(path: Path) -> bool:
    key = str(Path(path).absolute())
    return any(r["path"] == key for r in created_files())


def remove_context_blocks(pm: Any, agent: str, project_dir: Path) -> tuple[list[Path], list[Path]]:
    """Take our managed block out of ``agent``'s memory file in ``project_dir`` and out of every
    memory file we recorded creating for it. Returns (cleaned, deleted): a file left empty by
    the removal is deleted (``remove_managed_block``), a whole-file Cursor rule of ours too."""
    from twiceshy.guidance.context_file import is_mdc, remove_managed_block

    candidates: list[Path] = []
    own = pm.hook.agent_context_file(agent=agent, project_dir=Path(project_dir))
    if own is not None:
        candidates.append(Path(own))
    candidates += [Path(r["path"]) for r in created_files() if r.get("kind") == "context" and r.get("agent") == agent]
    cleaned: list[Path] = []
    deleted: list[Path] = []
    for path in dict.fromkeys(p.absolute() for p in candidates):
        try:
            if is_mdc(path):
                if path.is_file() and was_created(path):
                    path.unlink()
                    deleted.append(path)
            elif remove_managed_block(path):
                (cleaned if path.exists() else deleted).append(path)
        except OSError:
            continue  # a file we cannot edit stays; uninstall of the hooks still counts
        if not path.exists():
            forget_created(path)
    return cleaned, deleted


def settings_path(pm: Any, agent: str, scope: str, project_dir: Path) -> Path:
    """The agent's settings file for ``scope``, from its plugin."""
    if scope not in ("user", "project"):
        raise InstallError(f"scope must be 'user' or 'project', not {scope!r}")
    path = pm.hook.agent_settings_file(agent=agent, scope=scope, project_dir=Path(project_dir))
    if path is None:
        raise InstallError(f"no installed plugin handles agent {agent!r}")
    return Path(path).expanduser()


def _apply(
    agent: str,
    action: str,
    path: Path,
    transform: Callable[[dict[str, Any]], dict[str, Any] | None],
    dry_run: bool,
    events_of: Callable[[dict[str, Any]], list[str]],
) -> InstallResult:
    before, text = read_settings(path)
    after = transform(copy.deepcopy(before))
    if after is None:
        raise InstallError(f"no installed plugin can {action} hooks for agent {agent!r}")
    if action == "uninstall" and text is None:
        return InstallResult(agent, action, path, changed=False, events=[], dry_run=dry_run)
    changed = after != before or (text is None and action == "install")
    new_text = ""
    if changed:
        new_text = (_backup_text_equal_to(path, after) if action == "uninstall" else None) or render_settings(
            after, like=text
        )
    result = InstallResult(
        agent, action, path, changed=changed, events=events_of(after), dry_run=dry_run, created=text is None
    )
    if changed:
        result.diff = "".join(
            difflib.unified_diff(
                (text or "").splitlines(keepends=True),
                new_text.splitlines(keepends=True),
                fromfile=str(path) if text is not None else "/dev/null",
                tofile=str(path),
            )
        )
    if dry_run or not changed:
        return result
    _refuse_if_changed(path, text)
    if text is not None:
        result.backup = backup_file(path)
    write_atomic(path, new_text)
    if action == "install" and text is None:
        record_created(path, agent, "settings")
    return result


def _refuse_if_changed(path: Path, text: str | None) -> None:
    """Someone (an editor, another install) wrote the file since we read it:
    writing our version would throw their change away. Refuse instead."""
    try:
        now = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        now = None
    except (OSError, UnicodeDecodeError):
        now = ""
    if now != text:
        raise InstallError(
            f"{path} changed while twiceshy was editing it; twiceshy did not write it. Run the command again."
        )


TRANSPORTS = ("command", "http")
# Claude Code's own per-machine settings beside the project's: it keeps it out of git, and so do we.
LOCAL_SETTINGS = "settings.local.json"
# How long Claude Code waits for the engine's HTTP answer (seconds; past it the call runs).
HTTP_TIMEOUT_S = {"PreToolUse": 1.0, "PostToolUse": 5.0, "PostToolUseFailure": 5.0}


class TransportUnsupported(InstallError):
    """The agent has no HTTP hooks (only Claude Code has)."""


class _HookTarget:
    """``hook_command`` for the agent plugin: called with an event, gives the command. With
    the http transport it also has ``http_hook(event)``, the ``type: http`` item (a plugin
    that never asks for one has no HTTP hooks)."""

    def __init__(self, agent: str, command_for: Callable[[str], str], http: Any = None) -> None:
        self._agent = agent
        self._command_for = command_for
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
    holds — the user settings themselves, or the project's ``.claude/settings.local.json``."""
    return path if scope == "user" else path.with_name(LOCAL_SETTINGS)


def _git_exclude(path: Path) -> Path | None:
    """Add ``path`` to its repository's ``.git/info/exclude`` (local, never committed) unless
    already listed there; the exclude file, or None outside a plain git checkout."""
    folder = path.parent.resolve()
    for root in (folder, *folder.parents):
        git = root / ".git"
        if git.exists():
            if not git.is_dir():
                return None  # a worktree or submodule: its exclude lives elsewhere
            exclude = git / "info" / "exclude"
            # ``*``: our backups of it (settings.local.json.twiceshy-backup-…) hold the token too
            line = "/" + path.resolve().relative_to(root).as_posix() + "*"
            try:
                text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
                if line not in text.splitlines():
                    exclude.parent.mkdir(parents=True, exist_ok=True)
                    with open(exclude, "a", encoding="utf-8") as fh:
                        fh.write(("" if not text or text.endswith("\n") else "\n") + line + "\n")
            except OSError:
                return None
            return exclude
    return None


def _set_token_env(var: str | None, token: str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
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


def install(
    pm: Any,
    agent: str,
    scope: str = "user",
    project_dir: Path | None = None,
    dry_run: bool = False,
    python: str | None = None,
    home: str | Path | None = None,
    transport: str = "command",
) -> InstallResult:
    """Wire twiceshy's hooks into ``agent``'s settings file for ``scope``.

    ``python`` and ``home`` go into the hook command (see :func:`hook_command`).
    ``transport="http"`` (Claude Code only) makes the tool events HTTP hooks answered by the
    engine on 127.0.0.1 (:mod:`twiceshy.engine.http_hooks`); the port and token are the data
    dir's, created here, and the token goes in as settings ``env`` in
    :func:`token_env_file`. Raises :class:`InstallError` when the file cannot be edited
    safely, :class:`TransportUnsupported` when the agent has no HTTP hooks.
    """
    if transport not in TRANSPORTS:
        raise InstallError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
    path = settings_path(pm, agent, scope, project_dir or Path.cwd())
    wired: list[str] = []

    def command_for(native_event: str) -> str:
        if native_event not in wired:
            wired.append(native_event)
        return hook_command(agent, native_event, python=python, home=home)

    http = None
    if transport == "http":
        from twiceshy.engine.http_hooks import HttpHookConfig, ensure_config, load_config

        data_home = Path(home) if home is not None else data_dir()
        http = load_config(data_home) if dry_run else ensure_config(data_home)
        if http is None:  # a dry run writes nothing, not even the port file
            http = HttpHookConfig(0, "")
    target = _HookTarget(agent, command_for, http)
    env_file = token_env_file(path, scope)

    def transform(settings: dict[str, Any]) -> dict[str, Any] | None:
        after = pm.hook.agent_install_hooks(agent=agent, settings=settings, hook_command=target)
        if http is not None and after is not None:
            if not target.http_events:
                raise TransportUnsupported(f"{agent} has no HTTP hooks; use --transport command")
            if env_file == path:
                after = _set_token_env(http.env_var, http.token)(after)
        return after

    def events_of(after: dict[str, Any]) -> list[str]:
        return list(wired) + [e for e in target.http_events if e not in wired] or our_events(after)

    result = _apply(agent, "install", path, transform, dry_run, events_of)
    if http is not None and env_file == path and result.changed:
        result.token_file = path
    if env_file != path and (http is not None or env_file.exists()):
        # The token in the machine's own settings file (or, back to command hooks, out of it).
        var, token = (http.env_var, http.token) if http is not None else (None, None)
        try:
            local = _apply(agent, "install", env_file, _set_token_env(var, token), dry_run, lambda _a: [])
        except InstallError:
            if http is not None:
                raise
            local = None
        if local is not None and local.changed:
            result.changed = True
            result.diff += local.diff
            if http is not None:
                result.token_file = env_file
                if not dry_run:
                    result.git_exclude = _git_exclude(env_file)
            elif not dry_run and was_created(env_file) and read_settings(env_file)[0] == {}:
                env_file.unlink(missing_ok=True)  # back to command hooks: the file we made for the token goes
                forget_created(env_file)
                result.removed_files.append(env_file)
    if result.token_file is not None and not dry_run:
        _private(result.token_file)
    return result


def _private(path: Path) -> None:
    """The file now holds the token: readable by its owner only."""
    try:
        target = Path(os.path.realpath(path))
        if stat.S_IMODE(target.stat().st_mode) & 0o077:
            os.chmod(target, 0o600)
    except OSError:
        pass


def uninstall(
    pm: Any,
    agent: str,
    scope: str = "user",
    project_dir: Path | None = None,
    dry_run: bool = False,
) -> InstallResult:
    """Remove only twiceshy's entries from ``agent``'s settings file for ``scope``.

    ``events`` of the result lists the events we removed our hook from.
    """
    path = settings_path(pm, agent, scope, project_dir or Path.cwd())
    removed: list[str] = []

    def transform(settings: dict[str, Any]) -> dict[str, Any] | None:
        from twiceshy.engine.http_hooks import our_http_hooks

        removed.extend(our_events(settings))
        removed.extend(e for e in our_http_hooks(settings) if e not in removed)
        return pm.hook.agent_uninstall_hooks(agent=agent, settings=settings)

    def events_of(after: dict[str, Any]) -> list[str]:
        from twiceshy.engine.http_hooks import our_http_hooks

        left = set(our_events(after)) | set(our_http_hooks(after))
        return [e for e in removed if e not in left]

    result = _apply(agent, "uninstall", path, transform, dry_run, events_of)
    local = token_env_file(path, scope)
    if local != path and local.exists():
        try:  # the http transport's token (only our variable; the file is Claude Code's)
            token_out = _apply(agent, "uninstall", local, _set_token_env(None, None), dry_run, lambda _a: [])
            result.diff += token_out.diff
            if token_out.changed and not dry_run and was_created(local):
                if read_settings(local)[0] == {}:
                    local.unlink(missing_ok=True)
                    forget_created(local)
                    result.removed_files.append(local)
        except InstallError:
            pass
    if dry_run:
        return result
    # A settings file we created and that our removal left empty goes too.
    if was_created(path):
        try:
            left, _ = read_settings(path)
        except InstallError:
            left = None
        if left == {} or not path.exists():
            path.unlink(missing_ok=True)
            forget_created(path)
            result.removed_files.append(path)
    cleaned, deleted = remove_context_blocks(pm, agent, project_dir or Path.cwd())
    result.cleaned_files += cleaned
    result.removed_files += deleted
    return result


__all__ = [
    "InstallError",
    "InstallResult",
    "HookSpec",
    "client_path",
    "hook_command",
    "is_our_command",
    "merge_matcher_hooks",
    "remove_matcher_hooks",
    "remove_flat_hooks",
    "our_events",
    "read_settings",
    "render_settings",
    "write_atomic",
    "backup_file",
    "backups_of",
    "settings_path",
    "token_env_file",
    "TransportUnsupported",
    "install",
    "uninstall",
]
