"""Pattern observations with confidence: observe -> consolidate -> suggest -> decay.

A pattern is a short string naming a habit, with an optional kind prefix:
``seq:test->fix->test`` (a sequence of steps), ``tool:rg`` (a tool
preference), anything else free-form. Agents report them through
``twiceshy observe`` or the MCP ``observe`` tool.

Stored in ``<data_dir>/patterns.json`` (a small JSON file, not Chroma: there
are few patterns, they are matched by exact normalised key, and the file is
easy to inspect). Writers take an ``fcntl`` lock on ``patterns.lock`` and
replace the file atomically, so concurrent sessions don't lose updates.

Lifecycle (thresholds in config section ``patterns``):

* **observe** — count +1, ``confidence += (1 - confidence) * learn_rate``
  (starts at ``learn_rate``), ``last_seen`` = now. Status starts ``raw``.
* **consolidate** — merges observations whose normalised keys match (case,
  spaces, ``→``/``=>``/``>`` arrows), promotes ``raw -> mature`` at
  ``mature_count`` / ``mature_confidence`` and ``mature -> rule`` at
  ``rule_count`` / ``rule_confidence``; a project pattern seen in
  ``projects.promote_min_projects`` projects gains a global copy.
* **suggest** — mature and rule patterns for a project (its own + global).
* **decay --days N** — every full N-day period without a sighting multiplies
  confidence by ``decay_factor``; status is re-derived (a rule can fall back
  to mature or raw); below ``drop_confidence`` the pattern is forgotten.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from twiceshy.base.config import defaults

STATUSES = ("raw", "mature", "rule")


def patterns_path() -> Path:
    from twiceshy.base.paths import data_dir

    return data_dir() / "patterns.json"


def normalise(pattern: str) -> str:
    """The key two spellings of one pattern share."""
    text = pattern.strip().lower()
    text = re.sub(r"\s*(->|→|=>|>)\s*", "->", text)
    text = re.sub(r"\s*:\s*", ":", text, count=1)
    return re.sub(r"\s+", " ", text)


@dataclass
class Observation:
    """One pattern in one scope (``project`` fingerprint, or None for global)."""

    pattern: str
    key: str
    project: str | None = None
    count: int = 0
    confidence: float = 0.0
    status: str = "raw"
    first_seen: float = field(default_factory=time.time)
    last_seen: float = field(default_factory=time.time)
    projects: list[str] = field(default_factory=list)  # where it has been seen (global copies)
    decayed_to: float = 0.0  # decay has been applied for idle time up to this moment

    @property
    def kind(self) -> str:
        head, sep, _ = self.key.partition(":")
        return head if sep and " " not in head else "note"

    def evidence(self) -> str:
        where = f", in {len(self.projects)} projects" if len(self.projects) > 1 else ""
        return f"observed {self.count}x, confidence {self.confidence:.2f}{where}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _thresholds(config: Any) -> dict[str, Any]:
    if config is None:
        base = defaults()
        return {**base["patterns"], "promote_min_projects": base["projects"]["promote_min_projects"]}
    return {**config["patterns"], "promote_min_projects": config["projects"]["promote_min_projects"]}


def _status_for(obs: Observation, th: dict[str, Any]) -> str:
    if obs.count >= th["rule_count"] and obs.confidence >= th["rule_confidence"]:
        return "rule"
    if obs.count >= th["mature_count"] and obs.confidence >= th["mature_confidence"]:
        return "mature"
    return "raw"


class PatternStore:
    """The observations file. Every mutating method locks, reads, writes back."""

    def __init__(self, path: Path | None = None, config: Any = None) -> None:
        self.path = Path(path) if path is not None else patterns_path()
        self.th = _thresholds(config)

    # -- file handling -----------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[list[Observation]]:
        from twiceshy.base.fileio import open_private
        from twiceshy.base.locking import fcntl
        from twiceshy.base.paths import ensure_private_dir

        ensure_private_dir(self.path.parent)
        with open_private(self.path.with_suffix(".lock")) as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                items = self._read()
                yield items
                self._write(items)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _read(self) -> list[Observation]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            from twiceshy.base.errorlog import record_error

            record_error("patterns.read", f"unreadable {self.path}; starting empty")
            return []
        names = set(Observation.__dataclass_fields__)
        return [Observation(**{k: v for k, v in item.items() if k in names}) for item in data.get("observations", [])]

    def _write(self, items: list[Observation]) -> None:
        from twiceshy.base.fileio import write_atomic

        payload = {"version": 1, "observations": [o.to_dict() for o in items]}
        write_atomic(self.path, json.dumps(payload, indent=1, sort_keys=True) + "\n", private=True)

    def all(self) -> list[Observation]:
        return self._read()

    # -- lifecycle -----------------------------------------------------------------

    def observe(self, pattern: str, project: str | None = None, now: float | None = None) -> Observation:
        """Record one sighting of ``pattern`` in ``project`` (None: global)."""
        from twiceshy.base.redact import redact

        pattern = redact(pattern.strip())
        if not pattern:
            raise ValueError("empty pattern")
        key, now = normalise(pattern), time.time() if now is None else now
        with self._locked() as items:
            obs = next((o for o in items if o.key == key and o.project == project), None)
            if obs is None:
                obs = Observation(pattern=pattern, key=key, project=project, first_seen=now, last_seen=now)
                items.append(obs)
            obs.count += 1
            obs.confidence = min(1.0, obs.confidence + (1.0 - obs.confidence) * float(self.th["learn_rate"]))
            obs.last_seen = max(obs.last_seen, now)
            if project and project not in obs.projects:
                obs.projects.append(project)
            # Status only moves up at consolidate; a fresh sighting never demotes.
            return obs

    def consolidate(self) -> dict[str, int]:
        """Merge duplicates, promote by thresholds, lift cross-project patterns to global."""
        stats = {"merged": 0, "promoted": 0, "globalised": 0}
        order = {s: i for i, s in enumerate(STATUSES)}
        with self._locked() as items:
            merged: dict[tuple[str, str | None], Observation] = {}
            for obs in items:
                obs.key = normalise(obs.pattern)
                slot = (obs.key, obs.project)
                if slot in merged:
                    keep = merged[slot]
                    keep.count += obs.count
                    keep.confidence = max(keep.confidence, obs.confidence)
                    keep.first_seen = min(keep.first_seen, obs.first_seen)
                    keep.last_seen = max(keep.last_seen, obs.last_seen)
                    keep.projects = sorted(set(keep.projects) | set(obs.projects))
                    stats["merged"] += 1
                else:
                    merged[slot] = obs
            # Cross-project: a key seen in enough projects gets (or refreshes) a global copy.
            by_key: dict[str, list[Observation]] = {}
            for (key, project), obs in merged.items():
                if project is not None:
                    by_key.setdefault(key, []).append(obs)
            for key, scoped in by_key.items():
                projects = sorted({o.project for o in scoped if o.project})
                if len(projects) < int(self.th["promote_min_projects"]):
                    continue
                glob = merged.get((key, None))
                if glob is None:
                    glob = Observation(
                        pattern=scoped[0].pattern, key=key, project=None, first_seen=min(o.first_seen for o in scoped)
                    )
                    merged[(key, None)] = glob
                    stats["globalised"] += 1
                glob.count = max(glob.count, sum(o.count for o in scoped))
                glob.confidence = max(glob.confidence, max(o.confidence for o in scoped))
                glob.last_seen = max(glob.last_seen, max(o.last_seen for o in scoped))
                glob.projects = sorted(set(glob.projects) | set(projects))
            for obs in merged.values():
                new = _status_for(obs, self.th)
                if order[new] > order.get(obs.status, 0):
                    obs.status = new
                    stats["promoted"] += 1
            items[:] = list(merged.values())
        return stats

    def suggest(self, project: str | None = None, limit: int = 10, include_raw: bool = False) -> list[Observation]:
        """Mature and rule patterns for ``project`` (plus global ones), strongest first."""
        wanted = STATUSES if include_raw else ("mature", "rule")
        found = [o for o in self._read() if o.status in wanted and (o.project is None or o.project == project)]
        # One entry per key: the project's own wins over the global copy.
        best: dict[str, Observation] = {}
        for obs in sorted(found, key=lambda o: (o.project is None, -o.confidence)):
            best.setdefault(obs.key, obs)
        ranked = sorted(best.values(), key=lambda o: (STATUSES.index(o.status) * -1, -o.confidence, -o.count))
        return ranked[:limit]

    def decay(self, days: float, now: float | None = None) -> dict[str, int]:
        """Weaken patterns idle for ``days`` or more; forget the faint ones."""
        if days <= 0:
            raise ValueError("days must be positive")
        now = time.time() if now is None else now
        stats = {"decayed": 0, "demoted": 0, "dropped": 0}
        order = {s: i for i, s in enumerate(STATUSES)}
        with self._locked() as items:
            keep: list[Observation] = []
            for obs in items:
                base = max(obs.last_seen, obs.decayed_to)
                periods = int((now - base) // (days * 86400))
                if periods > 0:
                    obs.confidence *= float(self.th["decay_factor"]) ** periods
                    stats["decayed"] += 1
                    new = _status_for(obs, self.th)
                    if order[new] < order.get(obs.status, 0):
                        obs.status = new
                        stats["demoted"] += 1
                    # The same idle period is never charged twice.
                    obs.decayed_to = base + periods * days * 86400
                if obs.confidence < float(self.th["drop_confidence"]):
                    stats["dropped"] += 1
                    continue
                keep.append(obs)
            items[:] = keep
        return stats


__all__ = ["Observation", "PatternStore", "normalise", "patterns_path"]
