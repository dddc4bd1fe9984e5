"""``twiceshy doctor``'s checks of the agents' wiring: which settings files carry our hooks, whether
each hook command can run here (a committed ``twiceshy hook`` needs ``twiceshy`` on PATH; an absolute
one, its Python and client), double wiring (two scopes at once run every hook twice), Claude Code's
http transport, and the settings backups install keeps in the data dir."""

from __future__ import annotations

import os
import shlex
import shutil
import time
from typing import Any

from twiceshy.ops.doctor_report import ERROR_WINDOW_S, Check
from twiceshy.ops.doctor_report import DoctorState as _State


def _commands(value: Any) -> list[str]:
    from twiceshy.plugin.settings import is_our_command

    out: list[str] = []
    if isinstance(value, dict):
        command = value.get("command")
        if isinstance(command, str) and is_our_command(command):
            out.append(command)
        for v in value.values():
            if isinstance(v, (dict, list)):
                out.extend(_commands(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(_commands(v))
    return out


def _command_problems(command: str, home: str, local_home: str | None = None) -> list[str]:
    """What is wrong with one of our hook commands: for ``twiceshy hook …`` (a committed project
    file), no ``twiceshy`` on PATH; for an absolute one, a stale Python, client or data dir."""
    from twiceshy.hooks.client import norm_home
    from twiceshy.plugin.settings import PORTABLE_COMMAND

    try:
        parts = shlex.split(command)
    except ValueError:
        return [f"cannot parse {command!r}"]
    problems = []
    if PORTABLE_COMMAND.match(command.strip()):
        if shutil.which(parts[0]) is None:
            problems.append(
                f"its command `{parts[0]}` is not on PATH here (the agent's hooks fail, and every call runs unchecked)"
            )
        used = local_home or _hook_home()
        if norm_home(used) != norm_home(home):
            problems.append(f"it writes to data dir {used}, not {home} (the one doctor checks)")
        return problems
    if parts and not (os.path.isfile(parts[0]) and os.access(parts[0], os.X_OK)):
        problems.append(f"its Python {parts[0]} does not exist any more")
    client = next((p for p in parts if p.replace("\\", "/").endswith("hooks/client.py")), None)
    if client and not os.path.isfile(client):
        problems.append(f"its hook client {client} does not exist any more")
    if "--home" in parts:
        index = parts.index("--home")
        if index + 1 < len(parts) and norm_home(parts[index + 1]) != norm_home(home):
            problems.append(f"it writes to data dir {parts[index + 1]}, not {home} (the one doctor checks)")
    return problems


def _hook_home() -> str:
    from twiceshy.ops.cli import hook_home

    return hook_home()


def _env_home(settings: Any) -> str | None:
    env = settings.get("env") if isinstance(settings, dict) else None
    value = env.get("TWICESHY_HOME") if isinstance(env, dict) else None
    return value if isinstance(value, str) else None


def check_hooks(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir
    from twiceshy.ops.install import InstallError, hook_command, hook_files, our_events, read_settings, wired_events
    from twiceshy.plugin.manager import agent_names, make_manager

    if state.pm is None:
        from twiceshy.engine.readcmd import in_read

        if in_read():  # run by the engine for the CLI: its manager (same plugins: readcmd checks), ~75 ms saved
            from twiceshy.engine.context import make_context

            state.pm = make_context(None).pm
        else:
            disabled = state.config.get("plugins", "disabled") if state.config is not None else []
            state.pm = make_manager(disabled=disabled)
    pm = state.pm
    home = str(data_dir())
    checks: list[Check] = []
    wired_any = False
    preferred = ["claude-code", "codex", "gemini", "cursor"]
    names = agent_names(pm)
    for agent in sorted(names, key=lambda a: (preferred.index(a) if a in preferred else len(preferred), a)):
        expected = set(
            our_events(
                pm.hook.agent_install_hooks(
                    agent=agent, settings={}, hook_command=lambda ev, a=agent: hook_command(a, ev)
                )
                or {}
            )
        )
        found: list[str] = []
        problems: list[str] = []
        scopes: set[str] = set()
        events: set[str] = set()
        try:
            files = hook_files(pm, agent, state.project_dir)
        except InstallError as exc:
            files = []
            problems.append(exc.message)
        local_home = None
        for label, path in files:
            try:
                settings, _ = read_settings(path)
            except InstallError as exc:
                problems.append(exc.message)
                continue
            if label == "project-local":
                local_home = _env_home(settings)
            here = wired_events(path)
            if not here:
                continue
            found.append(f"{label} {path}")
            scopes.add("user" if label == "user" else "project")
            events |= set(here)
            for command in _commands(settings.get("hooks", settings.get("plugin"))):
                for problem in _command_problems(command, home, local_home if label != "user" else None):
                    if problem not in problems:
                        problems.append(problem)
        missing = expected - events
        install = f"twiceshy install --agent {agent}"
        name = f"hooks {agent}"
        data: dict[str, Any] = {"files": found}
        if problems:
            wired_any = wired_any or bool(found)
            checks.append(Check(name, "fail", "; ".join(problems), f"{install}  (rewrites only our entries)", data))
        elif not found:
            checks.append(Check(name, "info", "not installed", install, data))
        elif len(scopes) > 1:
            wired_any = True
            checks.append(
                Check(
                    name,
                    "fail",
                    f"wired twice ({'; '.join(found)}): the agent runs every twiceshy hook twice",
                    f"twiceshy uninstall --agent {agent} --scope user   (or --scope project; keep one)",
                    data,
                )
            )
        else:
            wired_any = True
            if missing:
                data["missing"] = sorted(missing)
                checks.append(
                    Check(
                        name,
                        "warn",
                        f"wired in {', '.join(found)} but missing {', '.join(sorted(missing))}",
                        f"{install}  (idempotent; adds the missing events)",
                        data,
                    )
                )
            else:
                checks.append(Check(name, "ok", f"wired in {', '.join(found)}", data=data))
    if not wired_any:
        checks.insert(
            0,
            Check(
                "hooks",
                "fail",
                "no agent has twiceshy's hooks: nothing is recorded or warned",
                "twiceshy install --agent claude-code   (or codex, gemini, cursor, all)",
            ),
        )
    return checks


def check_backups(state: _State) -> list[Check]:
    """The settings backups install keeps in the data dir (never beside the user's files)."""
    from twiceshy.ops.install_files import all_backups, backups_root

    rows = all_backups()
    if not rows:
        return [Check("settings backups", "ok", "none kept", data={"folder": str(backups_root())})]
    files = sum(r["files"] for r in rows)
    size = sum(r["bytes"] for r in rows)
    listed = ", ".join(f"{r['origin'] or r['folder']} ({r['files']})" for r in rows)
    return [
        Check(
            "settings backups",
            "info",
            f"{files} backup(s), {size / 1024:.0f} KiB, in {backups_root()}: {listed}",
            "twiceshy uninstall --agent all --purge   (deletes them; uninstall restores files from them)",
            {"folder": str(backups_root()), "backups": rows},
        )
    ]


def _proxied(port: int) -> str:
    """The proxy Claude Code would send a hook to 127.0.0.1:``port`` through (its rule: an
    ``HTTP(S)_PROXY`` unless ``NO_PROXY`` names the host, host:port or ``*``), or ''."""
    proxy = next(
        (os.environ[k] for k in ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY") if os.environ.get(k)), ""
    )
    if not proxy:
        return ""
    no_proxy = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    entries = [e.strip().lower() for e in no_proxy.replace(",", " ").split() if e.strip()]
    if "*" in entries or "127.0.0.1" in entries or f"127.0.0.1:{port}" in entries:
        return ""
    return proxy


def check_http_hooks(state: _State) -> list[Check]:
    """Claude Code installed with ``--transport http``: the tool events reach the engine only
    if the port, the token and the listener agree (every mismatch fails open, silently)."""
    from twiceshy.base.paths import data_dir
    from twiceshy.engine import http_hooks
    from twiceshy.ops.install import InstallError, hook_files, read_settings, token_env_file
    from twiceshy.plugin.manager import make_manager

    pm = state.pm or make_manager()
    home = data_dir()
    config = http_hooks.load_config(home)
    fix = "twiceshy install --agent claude-code --transport http  (add --scope project for a project)"
    problems: list[str] = []
    wired: list[str] = []
    for label, path in hook_files(pm, "claude-code", state.project_dir):
        scope = "user" if label == "user" else "project"
        try:
            settings, _ = read_settings(path)
        except InstallError:
            continue
        ours = http_hooks.our_http_hooks(settings)
        if not ours:
            continue
        wired.append(f"{label} {path}")
        if config is None:
            continue
        items = [item for found in ours.values() for item in found]
        if any(item.get("url") != config.url("claude-code", ev) for ev, found in ours.items() for item in found):
            problems.append(f"{path} posts to another port than {home}'s ({config.port})")
        if any(config.env_var not in (item.get("allowedEnvVars") or []) for item in items):
            problems.append(f"{path}: the token variable {config.env_var} is not in allowedEnvVars")
        env_file = token_env_file(path, scope)
        try:
            env = read_settings(env_file)[0].get("env") if env_file.exists() else None
        except InstallError:
            env = None
        value = (env or {}).get(config.env_var) if isinstance(env, dict) else None
        if value is None:
            value = os.environ.get(config.env_var)
        if value != config.token:
            problems.append(f"{env_file} does not give {config.env_var} this data dir's token (calls get 401)")
    if not wired:
        return []
    if config is None:
        return [
            Check(
                "http hooks",
                "fail",
                f"Claude Code posts tool events to the engine but {http_hooks.config_path(home)} is missing or "
                "unreadable: no listener starts and every tool call runs unchecked",
                fix,
            )
        ]
    data = {"port": config.port, "files": wired}
    if problems:
        return [Check("http hooks", "fail", "; ".join(problems) + " — those calls run unchecked", fix, data)]
    checks: list[Check] = []
    proxy = _proxied(config.port)
    if proxy:
        checks.append(
            Check(
                "http hooks proxy",
                "warn",
                f"HTTP(S)_PROXY is set ({proxy}) and NO_PROXY does not name 127.0.0.1: Claude Code would send "
                "the hooks, token included, through the proxy",
                "export NO_PROXY=127.0.0.1 (or add it to the list) before starting Claude Code",
            )
        )
    if not state.engine_running:
        checks.insert(
            0,
            Check(
                "http hooks",
                "warn",
                f"the engine is not running: Claude Code's HTTP hooks on 127.0.0.1:{config.port} fail open "
                "(tool calls run unchecked) until a session-start or prompt hook starts it",
                "twiceshy engine start",
                data,
            ),
        )
        return checks
    answer = http_hooks.ping(home, config)
    if answer is None:
        taken = not http_hooks.port_free(config.port)
        detail = (
            f"the engine runs but 127.0.0.1:{config.port} does not answer with this data dir's token"
            + (": another program holds the port" if taken else ": the engine started before the install")
            + " — tool calls run unchecked"
        )
        remedy = (
            f"free the port, or delete {http_hooks.config_path(home)} and reinstall ({fix})"
            if taken
            else "twiceshy engine stop (the next session starts it with the listener)"
        )
        checks.insert(0, Check("http hooks", "fail", detail, remedy, data))
        return checks
    detail = f"the engine (pid {answer.get('pid')}) answers on 127.0.0.1:{config.port} with the token"
    checks.insert(0, Check("http hooks", "ok", detail, data=data))
    return checks


_FAILOPEN_WHY = {
    "starting": "the engine was still starting",
    "timeout": "the engine answered after the hook's budget (hook.budget_ms)",
    "no_engine": "no engine ran and none was started (TWICESHY_NO_AUTOSTART?)",
    "error": "the engine's answer was broken or the socket failed",
    "too_big": "the payload was over the size limit",
    "stdin": "the agent never closed the hook's stdin",
}


def check_failopen(state: _State) -> list[Check]:
    """Calls the hook client let through unchecked in the last 24 h, and why."""
    from twiceshy.ops.stats import read_failopen

    now = time.time()
    records = read_failopen(now - ERROR_WINDOW_S)
    opened = [r for r in records if r.get("outcome") != "denied"]
    denied = len(records) - len(opened)
    if not opened:
        detail = "no call was let through unchecked in the last 24 h"
        if denied:
            detail += f"; {denied} denied from the rules snapshot while the engine was not answering"
        return [Check("fail-open", "ok", detail, data={"denied_from_snapshot": denied})]
    by_reason: dict[str, int] = {}
    for r in opened:
        by_reason[str(r.get("reason") or "unknown")] = by_reason.get(str(r.get("reason") or "unknown"), 0) + 1
    pre = sum(1 for r in opened if r.get("kind") == "pre")
    last = opened[-1]
    why = "; ".join(
        f"{n} x {reason} ({_FAILOPEN_WHY.get(reason, 'see the error log')})"
        for reason, n in sorted(by_reason.items(), key=lambda kv: -kv[1])
    )
    detail = (
        f"{len(opened)} hook calls ({pre} pre-tool) were let through unchecked in the last 24 h: {why}; "
        f"last {(now - float(last.get('ts') or now)) / 60:.0f} min ago ({last.get('agent')} {last.get('event')}). "
        "Confirmed rules were still applied from the rules snapshot"
        + (f" ({denied} calls denied)" if denied else "")
        + "; warnings were not"
    )
    if set(by_reason) <= {"starting"}:
        fix = "start the engine before sessions (`twiceshy engine start`); session start waits for it"
    elif "timeout" in by_reason:
        fix = "the machine may be overloaded: see `twiceshy engine status`, or raise hook.budget_ms"
    elif "no_engine" in by_reason:
        fix = "twiceshy engine start (and unset TWICESHY_NO_AUTOSTART)"
    else:
        fix = "see the recent errors below and the engine log"
    return [
        Check(
            "fail-open",
            "warn",
            detail,
            fix,
            {"count": len(opened), "pre_tool": pre, "by_reason": by_reason, "denied_from_snapshot": denied},
        )
    ]


def check_rules_snapshot(state: _State) -> list[Check]:
    """The rules the hook client enforces by itself when the engine cannot answer."""
    from twiceshy.base.paths import data_dir
    from twiceshy.memory import rules_snapshot

    path = rules_snapshot.snapshot_path(data_dir())
    data = rules_snapshot.read(path)
    if data is None:
        if path.exists():
            return [
                Check(
                    "rules snapshot",
                    "warn",
                    f"{path} is unreadable: rules fail open while the engine is cold",
                    "twiceshy engine start (it rebuilds the snapshot)",
                )
            ]
        return [Check("rules snapshot", "info", "no rules yet (nothing to enforce while the engine is cold)")]
    rules = [r for r in data["rules"] if isinstance(r, dict)]
    blind = sum(1 for r in rules if not isinstance(r.get("signature"), dict))
    detail = f"{len(rules)} rules enforced by the hook client while the engine is cold ({path})"
    if blind:
        return [
            Check(
                "rules snapshot",
                "info",
                detail + f"; {blind} without a signature are enforced only by the engine",
                data={"rules": len(rules), "without_signature": blind},
            )
        ]
    return [Check("rules snapshot", "ok", detail, data={"rules": len(rules)})]


def check_hold_index(state: _State) -> list[Check]:
    """The lessons the hook client holds by itself when the engine cannot answer
    (the running engine reads the shards when it answers doctor: O(lessons))."""
    from twiceshy.base.paths import data_dir
    from twiceshy.engine.doctor_query import hold_index_figures
    from twiceshy.ops.doctor_engine import figures_for
    from twiceshy.recall.hold_index import index_dir

    folder = index_dir(data_dir())
    figures = figures_for(state)
    held = figures.get("hold_index") if figures is not None else None
    if not isinstance(held, dict) or held.get("folder") != str(folder):
        held = hold_index_figures(folder)
    if not held["shards"]:
        return [Check("hold index", "info", "no lesson to hold yet while the engine is cold")]
    damaged = list(held["damaged"])
    if damaged:
        return [
            Check(
                "hold index",
                "warn",
                f"{len(damaged)} shard(s) of {folder} unreadable ({', '.join(damaged[:5])}): "
                "their lessons fail open while the engine is cold",
                "twiceshy engine stop && twiceshy engine start (its start-up check rebuilds the index)",
                {"damaged": damaged},
            )
        ]
    detail = f"{held['lessons']} lessons held by the hook client while the engine is cold ({folder})"
    return [Check("hold index", "ok", detail, data={"lessons": held["lessons"], "shards": held["shards"]})]
