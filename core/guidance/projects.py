"""Projects: the registry of projects seen and their counts.

A project is its fingerprint (``twiceshy.base.project.fingerprint``). Lessons learned
in a project are scoped to it (``Experience.project``); global lessons have
``project=None`` and show everywhere. Promotion of a lesson proven in several
projects to global is learning's job: :mod:`twiceshy.learning.cross_project`.

The registry ``<data_dir>/projects.json`` maps fingerprint -> root path and
last-seen time; the context plugin records a project at each session start.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Experience
from twiceshy.learning.cross_project import SEEN_IN, seen_in

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext


def registry_path() -> Path:
    from twiceshy.base.paths import data_dir

    return data_dir() / "projects.json"


def load_registry() -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(registry_path().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def record_project(cwd: str, now: float | None = None) -> str:
    """Note that a session ran in ``cwd``'s project; returns its fingerprint."""
    from twiceshy.base.fileio import open_private, write_atomic
    from twiceshy.base.locking import fcntl
    from twiceshy.base.paths import ensure_private_dir
    from twiceshy.base.project import fingerprint, project_root

    fp = fingerprint(str(cwd))
    path = registry_path()
    ensure_private_dir(path.parent)
    with open_private(path.with_suffix(".lock")) as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            reg = load_registry()
            entry = reg.setdefault(
                fp, {"root": str(project_root(cwd)), "first_seen": now or time.time(), "sessions": 0}
            )
            entry["last_seen"] = now or time.time()
            entry["sessions"] = int(entry.get("sessions", 0)) + 1
            write_atomic(path, json.dumps(reg, indent=1, sort_keys=True) + "\n", private=True)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return fp


def _lesson_counts(source: Any) -> tuple[dict[str | None, int], dict[str, int]]:
    """(lessons per project, None = global; global lessons with evidence per project),
    from the metadata indexes: only the lessons carrying ``seen-in:`` tags are read."""
    from twiceshy.memory.census import open_census

    lessons: dict[str | None, int] = {}
    cross: dict[str, int] = {}
    with open_census(source, ("project", "tags")) as census:
        total = census.size()
        for value, n in census.tally("project").items():
            scope = str(value) if value else None
            lessons[scope] = lessons.get(scope, 0) + n
        tagged = census.like("tags", f"%{SEEN_IN}%")
        scopes = census.rows(list(tagged), ("project",)) if tagged else {}
    lessons[None] = lessons.get(None, 0) + max(0, total - sum(lessons.values()))  # no project key: global
    for exp_id, tags in tagged.items():
        if scopes.get(exp_id, {}).get("project"):
            continue  # promotion evidence is carried by global lessons
        exp = Experience(text="", trigger="", id=exp_id, tags=_tags(tags))
        for fp in seen_in(exp):
            cross[fp] = cross.get(fp, 0) + 1
    return lessons, cross


def _tags(raw: Any) -> list[str]:
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw else []
    except ValueError:
        return []
    return [str(t) for t in value] if isinstance(value, list) else []


def project_table(ctx: EngineContext) -> list[dict[str, Any]]:
    """One row per known project: fingerprint, root, lessons, sessions, patterns, last seen.

    "global" is listed first with the lessons every project sees.
    """
    from twiceshy.guidance.distill import load_trajectories, trajectory_time
    from twiceshy.guidance.patterns import PatternStore

    reg = load_registry()
    lessons, cross = _lesson_counts(ctx)
    sessions: dict[str, int] = {}
    last: dict[str, float] = {}
    for t in load_trajectories():
        fp = t.get("project")
        if isinstance(fp, str) and fp:
            sessions[fp] = sessions.get(fp, 0) + 1
            ended = trajectory_time(t)
            if ended is not None:
                last[fp] = max(last.get(fp, 0.0), ended)
    patterns: dict[str | None, int] = {}
    for obs in PatternStore(config=ctx.config).all():
        patterns[obs.project] = patterns.get(obs.project, 0) + 1
    names = sorted({*reg, *(p for p in lessons if p), *sessions, *(p for p in patterns if p)})
    rows = [
        {
            "project": "global",
            "root": "",
            "lessons": lessons.get(None, 0),
            "promoted_from": 0,
            "sessions": sum(sessions.values()),
            "patterns": patterns.get(None, 0),
            "last_seen": None,
        }
    ]
    for fp in names:
        entry = reg.get(fp, {})
        seen = max(float(entry.get("last_seen") or 0), last.get(fp, 0.0)) or None
        rows.append(
            {
                "project": fp,
                "root": entry.get("root", ""),
                "lessons": lessons.get(fp, 0),
                "promoted_from": cross.get(fp, 0),  # global lessons with evidence from here
                "sessions": max(sessions.get(fp, 0), int(entry.get("sessions", 0))),
                "patterns": patterns.get(fp, 0),
                "last_seen": seen,
            }
        )
    return rows


__all__ = ["load_registry", "project_table", "record_project"]
