"""Guidance costs: session-start context render, distilling trajectories, cross-project promotion.

Builds a throwaway data dir with N lessons (hash embedder, so the figures are
about our code and Chroma, not the model) and M trajectories, then prints
median/p95 of each step. Run::

    python bench/guidance.py [lessons=2000] [trajectories=500]
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _report(name: str, samples: list[float]) -> None:
    ms = [s * 1000 for s in samples]
    print(f"{name:<34} median {statistics.median(ms):8.1f} ms   p95 {_pct(ms, 0.95):8.1f} ms   (n={len(ms)})")


def main() -> None:
    n_lessons = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    n_traj = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    home = Path(tempfile.mkdtemp(prefix="ts-bench-guidance-"))
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    os.environ["TWICESHY_EMBEDDING__BACKEND"] = "hash"

    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context
    from twiceshy.guidance.distill import distill_rules
    from twiceshy.guidance.projects import promote_cross_project
    from twiceshy.guidance.render import render_context_text

    rng = random.Random(0)
    ctx = make_context(home)
    projects = [f"proj{i}-{i:08x}" for i in range(8)]
    exps = []
    for i in range(n_lessons):
        topic = rng.randrange(n_lessons // 4 or 1)
        exps.append(
            Experience(
                text=f"lesson {i} about topic {topic}",
                trigger=f"command topic{topic} --flag{topic % 7}",
                tier=rng.choice([0, 1, 2, 2, 3, 3, 3]),
                project=rng.choice(projects + [None]),
                seen_count=rng.randint(1, 6),
                follows=rng.randint(0, 4),
                ignores=rng.randint(0, 2),
            )
        )
    ctx.store.add_many(exps)
    with open(home / "trajectories.jsonl", "w") as handle:
        for i in range(n_traj):
            verified = rng.random() < 0.5
            handle.write(
                json.dumps(
                    {
                        "session_id": f"s{i}",
                        "agent": "claude-code",
                        "project": rng.choice(projects),
                        "ended": time.time() - i,
                        "duration_s": rng.randint(60, 7200),
                        "tool_counts": {"Bash": rng.randint(0, 9), "Read": rng.randint(0, 5)},
                        "files_edited": ["a", "b"] if rng.random() < 0.6 else ["a"],
                        "edits_before_read": rng.choice([0, 0, 1]),
                        "verified_after_multi_edit": verified,
                        "tests_run": rng.randint(0, 3),
                        "domains": [rng.choice(["python", "css", "go"])],
                        "outcome_score": round(min(1, max(0, rng.gauss(0.7 if verified else 0.5, 0.15))), 3),
                    }
                )
                + "\n"
            )

    samples = []
    for _ in range(15):
        t = time.perf_counter()
        distill_rules(config=ctx.config)
        samples.append(time.perf_counter() - t)
    _report(f"distill {n_traj} trajectories", samples)

    render_context_text(ctx, "claude-code", projects[0], 800)  # warm the distill cache
    samples = []
    for _ in range(15):
        t = time.perf_counter()
        render_context_text(ctx, "claude-code", projects[0], 800)
        samples.append(time.perf_counter() - t)
    _report(f"session context, {n_lessons} lessons", samples)
    samples = []
    for i in range(10):
        ctx.store.update(exps[i])  # a write elsewhere invalidates the lesson cache
        t = time.perf_counter()
        render_context_text(ctx, "claude-code", projects[0], 800)
        samples.append(time.perf_counter() - t)
    _report("  same, right after a store write", samples)

    from twiceshy.builtins.context import _allow_stale

    samples = []
    token = _allow_stale.set(True)  # what session_start does: serve stale, refresh behind
    for i in range(10):
        ctx.store.update(exps[i])
        t = time.perf_counter()
        render_context_text(ctx, "claude-code", projects[0], 800)
        samples.append(time.perf_counter() - t)
        time.sleep(1.5)  # let the background refresh finish, as between real sessions
    _allow_stale.reset(token)
    _report("  session start after a write", samples)

    t = time.perf_counter()
    promoted = promote_cross_project(ctx)
    _report(f"promote_cross_project ({promoted} promoted)", [time.perf_counter() - t])


if __name__ == "__main__":
    main()
