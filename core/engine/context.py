"""The object every hook receives as ``ctx``: config, store, plugin manager.

The store and embedder load lazily and once: the engine keeps one
EngineContext warm for its whole life, the CLI builds one per command.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy
from twiceshy.base.config import Config, load_config
from twiceshy.base.paths import store_dir

MAX_SESSIONS = 256  # sessions whose state the engine keeps in memory


@dataclass
class EngineContext:
    config: Config
    pm: pluggy.PluginManager
    _store: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Per-session state kept by the engine (warnings already shown, budgets).
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
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
        """Every write through this store keeps the client's rules snapshot in step (never fatal)."""
        try:
            from twiceshy.memory.rules_snapshot import attach

            attach(self._store, self.config)
        except Exception as exc:
            from twiceshy.base.errorlog import record_error

            record_error("rules_snapshot.attach", exc)

    def session(self, session_id: str) -> dict[str, Any]:
        """Per-session state (warnings shown, budget used). The engine lives for
        days, so the least recently used sessions are forgotten past a cap."""
        key = session_id or "-"
        record = self.sessions.pop(key, None)
        if record is None:
            record = {"shown": set(), "warnings": 0}
            while len(self.sessions) >= MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))
        self.sessions[key] = record  # re-inserted last: dicts keep insertion order, so this is an LRU
        return record


def make_context(project_dir: Path | None = None, config: Config | None = None) -> EngineContext:
    from twiceshy.plugin.manager import make_manager

    config = config or load_config(project_dir)
    pm = make_manager(disabled=config.get("plugins", "disabled"))
    return EngineContext(config=config, pm=pm)
