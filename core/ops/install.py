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
* before the first byte changes a timestamped copy is made in twiceshy's data dir
  (``<data dir>/settings-backups/<key>/settings.json.20250101T120000``, never next to the
  file: :mod:`twiceshy.ops.install_files`), and uninstall restores the file from it byte
  for byte when what is left is the user's content;
* ``--scope project`` writes only what a team can commit into the project's settings file
  (``twiceshy hook AGENT EVENT``, found on PATH; no path of this machine), and what belongs
  to this machine (``TWICESHY_HOME``, Claude Code's http transport) into the agent's
  per-machine file when its settings module declares one (``local_settings_file``);
* a second wiring of the same agent (user scope and project scope at once) is refused
  unless ``force``: every hook would run twice;
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
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import data_dir
from twiceshy.ops.install_files import (
    BACKUP_INFIX,
    adopt_legacy_backups,
    all_backups,
    backup_file,
    backups_of,
    created_files,
    forget_created,
    git_exclude,
    make_parents,
    purge_backups,
    record_created,
    remove_context_blocks,
    remove_created_dirs,
    remove_exclude_lines,
    remove_project_files,
    set_by_us,
    was_created,
    write_project_files,
)
from twiceshy.ops.install_machine import (
    HOME_ENV,
    LOCAL_SETTINGS,
    HookTarget,
    TransportUnsupported,
    make_private,
    pinned_home,
    set_home_env,
    set_token_env,
    token_env_file,
)
from twiceshy.plugin.settings import (
    HookSpec,
    InstallError,
    client_path,
    is_our_command,
    merge_matcher_hooks,
    our_events,
    portable_command,
    remove_flat_hooks,
    remove_matcher_hooks,
)

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
    local_file: Path | None = None  # project scope: the per-machine settings file changed too
    removed_dirs: list[Path] = field(default_factory=list)  # uninstall: folders we created, now empty and gone


def settings_path(pm: Any, agent: str, scope: str, project_dir: Path) -> Path:
    """The agent's settings file for ``scope``, from its plugin (for a project: the committed one)."""
    if scope not in ("user", "project"):
        raise InstallError(f"scope must be 'user' or 'project', not {scope!r}")
    path = pm.hook.agent_settings_file(agent=agent, scope=scope, project_dir=Path(project_dir))
    if path is None:
        raise InstallError(f"no installed plugin handles agent {agent!r}")
    return Path(path).expanduser()


def settings_module(pm: Any, agent: str) -> Any:
    """The settings module of ``agent``'s :class:`~twiceshy.plugin.agent.AgentPlugin`, or None."""
    from twiceshy.plugin.agent import AgentPlugin

    for plugin in pm.get_plugins():
        if isinstance(plugin, AgentPlugin) and plugin.name == agent:
            return plugin.settings
    return None


def local_settings_path(pm: Any, agent: str, project_dir: Path) -> Path | None:
    """The agent's per-machine, uncommitted settings file in ``project_dir`` (Claude Code's
    ``.claude/settings.local.json``), or None when the agent has none: a settings module
    declares it with ``local_settings_file(project_dir)``."""
    declared = getattr(settings_module(pm, agent), "local_settings_file", None)
    path = declared(Path(project_dir)) if declared is not None else None
    return Path(path).expanduser() if path is not None else None


def hook_files(pm: Any, agent: str, project_dir: Path) -> list[tuple[str, Path]]:
    """Every file that can carry ``agent``'s hooks, labelled: ``user``, ``project``, ``project-local``."""
    files = [("project", settings_path(pm, agent, "project", project_dir))]
    local = local_settings_path(pm, agent, project_dir)
    if local is not None:
        files.append(("project-local", local))
    files.append(("user", settings_path(pm, agent, "user", project_dir)))
    return files


def wired_events(path: Path) -> list[str]:
    """Events that carry one of our hooks (command or http) in a settings file; [] when unreadable."""
    from twiceshy.engine.http_hooks import our_http_hooks

    try:
        settings, _ = read_settings(path)
    except InstallError:
        return []
    events = our_events(settings)
    return events + [e for e in our_http_hooks(settings) if e not in events]


def _refuse_double_wiring(pm: Any, agent: str, labels: tuple[str, ...], project_dir: Path, doing: str) -> None:
    """Our hooks for ``agent`` already in one of the files ``labels`` name: every hook would run twice."""
    for label, path in hook_files(pm, agent, project_dir):
        if label in labels and wired_events(path):
            scope = "user" if label == "user" else "project"
            undo = f"twiceshy uninstall --agent {agent} --scope {scope}" + (
                f" --project-dir {project_dir}" if scope == "project" else ""
            )
            raise InstallError(
                f"{agent} already has twiceshy's hooks in {path} ({label}); {doing} too would run every hook "
                f"twice. Remove those first (`{undo}`), or pass --force to install anyway"
            )


def _skeleton(pm: Any, agent: str) -> dict[str, Any]:
    """What our install puts in an empty file and our uninstall leaves of it (``{}``, or Copilot's
    ``{"version": 1, "hooks": {}}``): a file we created holding only this is ours to delete."""
    try:
        full = pm.hook.agent_install_hooks(agent=agent, settings={}, hook_command=lambda e: portable_command(agent, e))
        left = pm.hook.agent_uninstall_hooks(agent=agent, settings=full or {})
    except Exception:
        return {}
    return left if isinstance(left, dict) else {}


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
    if dry_run:
        return result
    adopt_legacy_backups(path)  # an older version's backups beside the file move to the data dir
    if not changed:
        return result
    _refuse_if_changed(path, text)
    if text is not None:
        result.backup = backup_file(path)
    else:
        make_parents(path, agent)
    write_atomic(path, new_text)
    if action == "install" and text is None:
        record_created(path, agent, "settings")
    return result


def _delete_if_ours_and_empty(pm: Any, agent: str, path: Path, result: InstallResult) -> None:
    """A file install created, holding nothing but what an empty install leaves: deleted."""
    if not was_created(path):
        return
    try:
        left, _ = read_settings(path)
    except InstallError:
        return
    if path.exists() and left not in ({}, _skeleton(pm, agent)):
        return
    path.unlink(missing_ok=True)
    forget_created(path)
    if path not in result.removed_files:
        result.removed_files.append(path)


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


def _merge(result: InstallResult, other: InstallResult) -> None:
    if other.changed:
        result.changed = True
        result.diff += other.diff
        result.local_file = other.path
    result.removed_files += [p for p in other.removed_files if p not in result.removed_files]


def install(
    pm: Any,
    agent: str,
    scope: str = "user",
    project_dir: Path | None = None,
    dry_run: bool = False,
    python: str | None = None,
    home: str | Path | None = None,
    transport: str = "command",
    force: bool = False,
) -> InstallResult:
    """Wire twiceshy's hooks into ``agent``'s settings for ``scope``.

    User scope: the hook commands name this interpreter and data dir (:func:`hook_command`).
    Project scope: the committed file gets ``twiceshy hook AGENT EVENT`` (found on PATH on each
    machine, no path of this one); a data dir other than the default goes into the agent's
    per-machine file as ``env.TWICESHY_HOME``, when it has one. ``transport="http"`` (Claude Code
    only) makes the tool events HTTP hooks answered by the engine on 127.0.0.1
    (:mod:`twiceshy.engine.http_hooks`): for a project, all of this machine's hooks then live in
    the per-machine file (the port and token are this machine's), the committed file is left alone.
    Refuses (:class:`InstallError`) a file it cannot edit safely, a twiceshy running from a tool
    runner's throw-away cache (``twiceshy`` would not be on PATH), and — unless ``force`` — our
    hooks already wired at the other scope. (The CLI refuses a ``--project-dir`` that does not exist.)
    """
    if transport not in TRANSPORTS:
        raise InstallError(f"transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}")
    root = Path(project_dir) if project_dir is not None else Path.cwd()
    path = settings_path(pm, agent, scope, root)
    local = local_settings_path(pm, agent, root) if scope == "project" else None
    if transport == "http" and scope == "project" and local is None:
        local = path.with_name(LOCAL_SETTINGS)
    if not force:
        others: tuple[str, ...] = ("project", "project-local") if scope == "user" else ("user",)
        if scope == "project" and transport == "http":
            others += ("project",)  # the committed hooks already run on this machine
        _refuse_double_wiring(pm, agent, others, root, f"installing at {scope} scope")
    wired: list[str] = []
    portable = scope == "project" and transport == "command"
    if portable and not dry_run:
        refuse_ephemeral(python or sys.executable)  # the committed `twiceshy hook` would find no twiceshy here

    def command_for(native_event: str) -> str:
        if native_event not in wired:
            wired.append(native_event)
        if portable:
            return portable_command(agent, native_event)
        return hook_command(agent, native_event, python=python, home=home)

    http = None
    if transport == "http":
        from twiceshy.engine.http_hooks import HttpHookConfig, ensure_config, load_config

        data_home = Path(home) if home is not None else data_dir()
        http = load_config(data_home) if dry_run else ensure_config(data_home)
        if http is None:  # a dry run writes nothing, not even the port file
            http = HttpHookConfig(0, "")
    target = HookTarget(agent, command_for, http, portable=portable)

    def transform(settings: dict[str, Any]) -> dict[str, Any] | None:
        after = pm.hook.agent_install_hooks(agent=agent, settings=settings, hook_command=target)
        if http is not None and after is not None:
            if not target.http_events:
                raise TransportUnsupported(f"{agent} has no HTTP hooks; use --transport command")
            after = set_token_env(http.env_var, http.token)(after)
        return after

    def events_of(after: dict[str, Any]) -> list[str]:
        return list(wired) + [e for e in target.http_events if e not in wired] or our_events(after)

    if scope == "project" and http is not None and local is not None:
        # This machine's hooks, all of them, in the per-machine file; the committed file stays as it is.
        pin = pinned_home(home)
        had_home = _has_home_env(local)
        result = _apply(agent, "install", local, lambda s: _pin(transform(s), pin), dry_run, events_of)
        if pin is not None and not had_home and not dry_run:
            record_created(local, agent, "env", HOME_ENV)
        result.token_file = local if result.changed else None
        result.local_file = local
    else:
        result = _apply(agent, "install", path, transform, dry_run, events_of)
        if http is not None and result.changed:
            result.token_file = path
        if local is not None:
            _merge(result, _install_local(pm, agent, local, pinned_home(home), dry_run))
    if portable:
        extra = write_project_files(_project_files(pm, agent, root), agent, dry_run)
        result.changed = result.changed or bool(extra)
        result.diff += extra
        if local is None and not dry_run:
            _redirect(agent, pinned_home(home))
    if result.local_file is not None and not dry_run and result.local_file.exists():
        result.git_exclude = git_exclude(result.local_file, agent)
    if result.token_file is not None and not dry_run:
        make_private(result.token_file)
    return result


def _project_files(pm: Any, agent: str, root: Path) -> dict[Path, bytes]:
    """Files besides the settings a project install writes, committed with them (OpenCode's plugin
    copy): a settings module declares them with ``project_files(project_dir) -> {path: bytes}``."""
    declared = getattr(settings_module(pm, agent), "project_files", None)
    return {Path(p): bytes(b) for p, b in (declared(root) if declared is not None else {}).items()}


def _redirect_file() -> Path:
    from twiceshy.ops.cli import REDIRECT, default_home

    return Path(default_home()) / REDIRECT


def _redirect(agent: str, pin: str | None) -> None:
    """An agent with no per-machine file, a data dir that is not the default: name it in
    ``<default data dir>/redirect`` (this machine's, outside the repository), so the committed
    ``twiceshy hook`` finds it even when the agent runs hooks without ``TWICESHY_HOME``."""
    if pin is None:
        return
    target = _redirect_file()
    try:
        if target.read_text(encoding="utf-8").strip() != pin:
            write_atomic(target, pin + "\n")
    except FileNotFoundError:
        make_parents(target, agent)
        write_atomic(target, pin + "\n")
    record_created(target, agent, "env", "redirect")


def _drop_redirect(agent: str) -> None:
    """Uninstall: the redirect goes with the last project install that needed it."""
    target = _redirect_file()
    forget_created(target, "env", "redirect") if set_by_us_for(target, agent) else None
    if any(r.get("line") == "redirect" for r in created_files() if r["path"] == str(target.absolute())):
        return
    try:
        if target.read_text(encoding="utf-8").strip() == str(data_dir()):
            target.unlink()
    except OSError:
        pass


def set_by_us_for(path: Path, agent: str) -> bool:
    key = str(Path(path).absolute())
    return any(r["path"] == key and r.get("line") == "redirect" and r.get("agent") == agent for r in created_files())


def _pin(settings: dict[str, Any] | None, home: str | None) -> dict[str, Any] | None:
    return None if settings is None else (set_home_env(home)(settings) if home is not None else settings)


def _install_local(pm: Any, agent: str, local: Path, pin: str | None, dry_run: bool) -> InstallResult:
    """The per-machine file beside a committed project install: ``TWICESHY_HOME`` when it is not
    the default; no hooks of ours (http ones from an earlier ``--transport http`` go) and no token."""
    if not local.exists() and pin is None:
        return InstallResult(agent, "install", local, changed=False, events=[], dry_run=dry_run)
    ours = set_by_us(local, HOME_ENV)
    had_home = _has_home_env(local)

    def transform(settings: dict[str, Any]) -> dict[str, Any] | None:
        out = pm.hook.agent_uninstall_hooks(agent=agent, settings=settings)
        if out is None:
            return None
        return set_home_env(pin, keep_users=not ours)(set_token_env(None, None)(out))

    out = _apply(agent, "install", local, transform, dry_run, lambda _a: [])
    if not dry_run:
        if pin is not None and not had_home:
            record_created(local, agent, "env", HOME_ENV)
        elif pin is None and ours:
            forget_created(local, "env", HOME_ENV)
        _delete_if_ours_and_empty(pm, agent, local, out)
    return out


def _has_home_env(path: Path) -> bool:
    try:
        env = read_settings(path)[0].get("env")
    except InstallError:
        return False
    return isinstance(env, dict) and HOME_ENV in env


def uninstall(
    pm: Any,
    agent: str,
    scope: str = "user",
    project_dir: Path | None = None,
    dry_run: bool = False,
) -> InstallResult:
    """Remove only twiceshy's entries from ``agent``'s settings for ``scope`` (for a project: the
    committed file and the per-machine one). A file left as the user had it is restored byte for
    byte from its backup; a file or folder install created goes once nothing of the user's is in it.

    ``events`` of the result lists the events we removed our hook from.
    """
    root = Path(project_dir) if project_dir is not None else Path.cwd()
    path = settings_path(pm, agent, scope, root)
    removed: list[str] = []

    def transform(settings: dict[str, Any]) -> dict[str, Any] | None:
        from twiceshy.engine.http_hooks import our_http_hooks

        removed.extend(e for e in our_events(settings) if e not in removed)
        removed.extend(e for e in our_http_hooks(settings) if e not in removed)
        return pm.hook.agent_uninstall_hooks(agent=agent, settings=settings)

    def events_of(after: dict[str, Any]) -> list[str]:
        from twiceshy.engine.http_hooks import our_http_hooks

        left = set(our_events(after)) | set(our_http_hooks(after))
        return [e for e in removed if e not in left]

    result = _apply(agent, "uninstall", path, transform, dry_run, events_of)
    local = token_env_file(path, scope) if scope == "project" else None
    declared = local_settings_path(pm, agent, root) if scope == "project" else None
    for extra in dict.fromkeys(p for p in (declared, local) if p is not None and p != path):
        if not extra.exists():
            continue
        keep = not set_by_us(extra, HOME_ENV)

        def local_transform(settings: dict[str, Any], keep: bool = keep) -> dict[str, Any] | None:
            out = transform(settings)
            return None if out is None else set_home_env(None, keep_users=keep)(set_token_env(None, None)(out))

        try:
            out = _apply(agent, "uninstall", extra, local_transform, dry_run, events_of)
        except InstallError:
            continue
        result.events = [e for e in removed if e in set(result.events) | set(out.events)] or result.events
        _merge(result, out)
        if not dry_run:
            forget_created(extra, "env", HOME_ENV)
            _delete_if_ours_and_empty(pm, agent, extra, result)
            remove_exclude_lines(agent, extra)
    if dry_run:
        return result
    _delete_if_ours_and_empty(pm, agent, path, result)
    if scope == "project":
        result.removed_files += remove_project_files(_project_files(pm, agent, root))
        _drop_redirect(agent)
    cleaned, deleted = remove_context_blocks(pm, agent, root)
    result.cleaned_files += cleaned
    result.removed_files += deleted
    result.removed_dirs = remove_created_dirs(agent)
    return result


__all__ = [
    "BACKUP_INFIX",
    "InstallError",
    "InstallResult",
    "HookSpec",
    "all_backups",
    "client_path",
    "created_files",
    "forget_created",
    "hook_command",
    "hook_files",
    "is_our_command",
    "local_settings_path",
    "merge_matcher_hooks",
    "portable_command",
    "purge_backups",
    "record_created",
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
    "was_created",
    "wired_events",
]
