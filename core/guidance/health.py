"""A health score for the memory: is learning being fed?

0-100, the sum of four parts of up to 25 points each, every part shown with
the figures behind it:

* **depth** — how much has been learned: up to 15 points for the number of
  live lessons (log scale, full at 100) and up to 10 for the share that has
  matured past raw (qa, rule, principle; full at 30%).
* **quality** — how useful the lessons are when shown: half adherence
  (followed / (followed + ignored)), half relevance (1 - irrelevant / all
  verdicts). No verdicts yet: 0, with a note.
* **activity** — whether it is still learning: up to 15 points for sessions in
  the last 14 days (trajectories, full at 10) and up to 10 for lessons learned
  or seen again in that window (``last_seen``; full at 5).
* **feedback** — whether the judge closes the loop: verdicts per lesson shown
  (all verdicts / hits, full at 1), plus pattern observations as a small
  bonus (up to 5 of the 25 when there are no hits yet).

Lesson figures are counts and sums from the metadata indexes; no lesson is
read (100k lessons cost what 100 do).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Tier

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

WINDOW_S = 14 * 86400


@dataclass
class Part:
    name: str
    score: float
    max: float
    detail: str


@dataclass
class HealthReport:
    score: int
    parts: list[Part] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clip(x: float) -> float:
    return max(0.0, min(1.0, x))


_SUMMED = ("follows", "ignores", "irrelevant", "hits")


def _live_figures(source: Any, recent_from: float) -> dict[str, int]:
    """Counts and sums over the live (not superseded) lessons, from the metadata
    indexes (:mod:`twiceshy.memory.census`): figures over all lessons minus the
    superseded ones' own (read by id: cost in proportion to them, not to the store).

    A lesson is recent when its ``last_seen`` is within the window: it is set when
    the lesson is learned and each time it is seen again."""
    from twiceshy.memory.census import open_census

    keys = ("tier", "superseded_by", "last_seen", *_SUMMED)
    with open_census(source, keys) as census:
        out = {
            "lessons": census.size(),
            "matured": census.count("tier", "<=", int(Tier.QA)),
            "recent": census.count("last_seen", ">=", float(recent_from)),
            **{key: int(census.total(key)) for key in _SUMMED},
        }
        gone = census.ids("superseded_by", "!=", "")
        rows = census.rows(gone, ("tier", "last_seen", *_SUMMED)) if gone else {}
    for exp_id in gone:
        row = rows.get(exp_id, {})
        out["lessons"] -= 1
        tier, seen = row.get("tier"), row.get("last_seen")
        out["matured"] -= isinstance(tier, (int, float)) and tier <= int(Tier.QA)
        out["recent"] -= isinstance(seen, (int, float)) and seen >= recent_from
        for key in _SUMMED:
            value = row.get(key)
            out[key] -= int(value) if isinstance(value, (int, float)) else 0
    return out


def compute_health(ctx: EngineContext, now: float | None = None) -> HealthReport:
    """Score the memory in ``ctx.store`` plus trajectories and patterns under the data dir."""
    from twiceshy.guidance.distill import load_trajectories, trajectory_time
    from twiceshy.guidance.patterns import PatternStore

    now = time.time() if now is None else now
    live = _live_figures(ctx, now - WINDOW_S)
    trajs = load_trajectories()
    observations = PatternStore(config=ctx.config).all()
    notes: list[str] = []

    # depth
    n = live["lessons"]
    matured = live["matured"]
    size_pts = 15 * _clip(math.log1p(n) / math.log1p(100))
    mature_pts = 10 * _clip((matured / n) / 0.3) if n else 0.0
    depth = Part("depth", size_pts + mature_pts, 25, f"{n} lessons, {matured} past raw")
    if not n:
        notes.append("No lessons yet: run a few sessions with the hooks installed, or `twiceshy learn`.")

    # quality
    follows, ignores, irrelevant = live["follows"], live["ignores"], live["irrelevant"]
    verdicts = follows + ignores + irrelevant
    if verdicts:
        adherence = follows / (follows + ignores) if follows + ignores else 0.0
        relevance = 1 - irrelevant / verdicts
        quality = Part(
            "quality",
            25 * (0.5 * adherence + 0.5 * relevance),
            25,
            f"followed {follows}/{follows + ignores}, irrelevant {irrelevant}/{verdicts}",
        )
    else:
        quality = Part("quality", 0.0, 25, "no verdicts yet")
        notes.append("No FOLLOWED/IGNORED verdicts yet: quality is unknown until the judge runs.")

    # activity
    times = [trajectory_time(t) for t in trajs]
    recent_sessions = sum(1 for ts in times if ts is not None and now - ts <= WINDOW_S)
    recent_lessons = live["recent"]
    activity = Part(
        "activity",
        15 * _clip(recent_sessions / 10) + 10 * _clip(recent_lessons / 5),
        25,
        f"{recent_sessions} sessions and {recent_lessons} lessons learned/seen in 14 days",
    )
    if not recent_sessions and not recent_lessons:
        notes.append("Nothing learned in 14 days: check `twiceshy doctor` that the hooks still fire.")

    # feedback
    hits = live["hits"]
    obs_bonus = 5 * _clip(len(observations) / 5)
    if hits:
        fb = 25 * _clip(verdicts / hits)
        detail = f"{verdicts} verdicts for {hits} lessons shown"
    else:
        fb = obs_bonus
        detail = "no lessons shown yet"
    if observations:
        detail += f"; {len(observations)} patterns observed"
    feedback = Part("feedback", min(25.0, fb), 25, detail)
    if hits and verdicts < hits / 2:
        notes.append("Fewer than half the warnings got a verdict: is the judge (llm.model) configured?")

    parts = [depth, quality, activity, feedback]
    for p in parts:
        p.score = round(p.score, 1)
    return HealthReport(score=int(round(sum(p.score for p in parts))), parts=parts, notes=notes)


__all__ = ["HealthReport", "Part", "compute_health"]
