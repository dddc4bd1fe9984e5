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
  or seen again in that window (full at 5).
* **feedback** — whether the judge closes the loop: verdicts per lesson shown
  (all verdicts / hits, full at 1), plus pattern observations as a small
  bonus (up to 5 of the 25 when there are no hits yet).
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


def compute_health(ctx: EngineContext, now: float | None = None) -> HealthReport:
    """Score the memory in ``ctx.store`` plus trajectories and patterns under the data dir."""
    from twiceshy.guidance.distill import load_trajectories, trajectory_time
    from twiceshy.guidance.patterns import PatternStore

    now = time.time() if now is None else now
    exps = [e for e in ctx.store.all() if not e.superseded_by]
    trajs = load_trajectories()
    observations = PatternStore(config=ctx.config).all()
    notes: list[str] = []

    # depth
    n = len(exps)
    matured = sum(1 for e in exps if e.tier <= int(Tier.QA))
    size_pts = 15 * _clip(math.log1p(n) / math.log1p(100))
    mature_pts = 10 * _clip((matured / n) / 0.3) if n else 0.0
    depth = Part("depth", size_pts + mature_pts, 25, f"{n} lessons, {matured} past raw")
    if not n:
        notes.append("No lessons yet: run a few sessions with the hooks installed, or `twiceshy learn`.")

    # quality
    follows = sum(e.follows for e in exps)
    ignores = sum(e.ignores for e in exps)
    irrelevant = sum(e.irrelevant for e in exps)
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
    recent_lessons = sum(1 for e in exps if now - max(e.created_at, e.last_seen) <= WINDOW_S)
    activity = Part(
        "activity",
        15 * _clip(recent_sessions / 10) + 10 * _clip(recent_lessons / 5),
        25,
        f"{recent_sessions} sessions and {recent_lessons} lessons learned/seen in 14 days",
    )
    if not recent_sessions and not recent_lessons:
        notes.append("Nothing learned in 14 days: check `twiceshy doctor` that the hooks still fire.")

    # feedback
    hits = sum(e.hits for e in exps)
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
