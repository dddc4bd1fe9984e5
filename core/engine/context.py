"""The object every hook receives as ``ctx``: config, store, plugin manager, session state.

The store and embedder load lazily and once: the engine keeps one
EngineContext warm for its whole life, the CLI builds one per command.
Per-session state is a typed :class:`SessionState` (``ctx.session(id)``); a
plugin's own settings come from ``ctx.plugin_config(name)``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import pluggy
from twiceshy.base.config import Config, load_config
from twiceshy.base.paths import store_dir
from twiceshy.plugin.manager import make_manager

MAX_SESSIONS = 256  # sessions whose state the engine keeps in memory

#: A long-running engine worker, ``worker(ctx, stop_event)`` (see the ``register_workers`` hook).
Worker = Callable[["EngineContext", threading.Event], None]


@dataclass
class SessionState:
    """What the engine remembers about one agent session, in memory.

    Written by the builtin recall (``shown``, ``warnings``, ``shown_log``),
    read by the judge, the delivery step and the session-start context. A
    third-party plugin keeps its own per-session values under
    ``plugins[<its name>]``.
    """

    shown: set[str] = field(default_factory=set)  # lesson ids warned about (a warning is shown once a session)
    warnings: int = 0  # warnings shown, against retrieval.session_warning_budget
    # One dict per warning shown: the lesson and the action it was shown for
    # (exp_id, text, trigger, tier, kind, score, tool_name, action, call_id, ts,
    # calls_after, closed, ...); the judge reads and advances it.
    shown_log: list[dict[str, Any]] = field(default_factory=list)
    context_sent: bool = False  # session-start context already given
    held: dict[str, float] | None = None  # calls held once (twiceshy.recall.delivery), loaded lazily
    plugins: dict[str, Any] = field(default_factory=dict)  # third-party plugins' own state, by plugin name

    # Mapping-style access for code written against the old dict; only the
    # fields above exist, so a misspelt key fails instead of creating state.
    def _field(self, key: str) -> str:
        if key not in _SESSION_FIELDS:
            raise KeyError(key)
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._field(key))

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(self, self._field(key), value)

    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, self._field(key))
        return default if value is None else value

    def setdefault(self, key: str, default: Any = None) -> Any:
        if getattr(self, self._field(key)) is None:
            setattr(self, key, default)
        return getattr(self, key)


_SESSION_FIELDS = frozenset(f.name for f in fields(SessionState))


@dataclass
class EngineContext:
    config: Config
    pm: pluggy.PluginManager
    _store: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Per-session state kept by the engine (warnings already shown, budgets).
    sessions: dict[str, SessionState] = field(default_factory=dict)
    # An embedder built ahead of the store (the engine loads it in parallel with the rest).
    embedder: Any = None

    @property
    def store(self) -> Any:
        """The :class:`twiceshy.memory.store.ExperienceStore`, opened on first use."""
        if self._store is None:
            with self._lock:
                if self._store is None:
                    from twiceshy.memory.embedding import make_embedder
                    from twiceshy.memory.store import ExperienceStore, open_client

                    cfg = self.config["store"]
                    if cfg["mode"] == "server":  # team memory: bounded, offline outbox (docs/team.md)
                        from twiceshy.memory.team import open_team_store

                        self._store = open_team_store(
                            self.config, self.embedder or make_embedder(self.config.get("embedding", "backend"))
                        )
                        self._attach_rules_snapshot()
                        return self._store
                    path = Path(cfg["path"]).expanduser() if cfg["path"] else store_dir()
                    client = open_client(cfg["mode"], path=path, host=cfg["host"], port=cfg["port"])
                    embedder = self.embedder or make_embedder(self.config.get("embedding", "backend"))
                    embedded = cfg["mode"] == "embedded"
                    self._store = ExperienceStore(
                        client,
                        embedder,
                        cfg["collection"],
                        path=path if embedded else None,
                        reopen=(lambda: open_client("embedded", path=path, fresh=True)) if embedded else None,
                    )
                    self._attach_rules_snapshot()
        return self._store

    def _attach_rules_snapshot(self) -> None:
        """Every write through this store keeps the client's rules snapshot and hold
        index in step (never fatal)."""
        from twiceshy.base.errorlog import record_error

        try:
            from twiceshy.memory.rules_snapshot import attach

            attach(self._store, self.config)
        except Exception as exc:
            record_error("rules_snapshot.attach", exc)
        try:
            from twiceshy.recall.hold_index import attach as attach_hold_index

            attach_hold_index(self._store, self.config)
        except Exception as exc:
            record_error("hold_index.attach", exc)

    def session(self, session_id: str) -> SessionState:
        """Per-session state (warnings shown, budget used). The engine lives for
        days, so the least recently used sessions are forgotten past a cap."""
        key = session_id or "-"
        record = self.sessions.pop(key, None)
        if record is None:
            record = SessionState()
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
        self.sessions[key] = record  # re-inserted last: dicts keep insertion order, so this is an LRU
        return record

    def plugin_config(self, name: str) -> dict[str, Any]:
        """The ``plugins.<name>:`` section of the config (a copy; ``{}`` when absent).

        A plugin reads its own settings with ``ctx.plugin_config("my-plugin")``
        from the user's ``config.yaml`` (or a project's ``.twiceshy.yaml`` once
        the user ran ``twiceshy trust`` there: plugin settings can change what runs).
        """
        value = self.config["plugins"].get(name)
        return dict(value) if isinstance(value, dict) and name != "disabled" else {}

    def workers(self) -> list[Worker]:
        """The background workers plugins register (``register_workers``), each once."""
        out: list[Worker] = []
        for group in self.pm.hook.register_workers(ctx=self) or []:
            for worker in group if isinstance(group, (list, tuple)) else [group]:
                if callable(worker) and worker not in out:
                    out.append(worker)
        return out


def make_context(project_dir: Path | None = None, config: Config | None = None) -> EngineContext:
    config = config or load_config(project_dir)
    pm = make_manager(disabled=config.get("plugins", "disabled"))
    return EngineContext(config=config, pm=pm)
