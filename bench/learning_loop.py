"""Cost of the learning loop's steps (median / p95), on the real store and embedder.

* extract: read a Claude Code session log and run every extractor;
* ingest: redact, dedup and store one session's candidates;
* one_hop: follow edges from 8 search hits (the retrieval add-on);
* cycle: one ``run_cycle`` over N lessons (no principles formed).

Run::

    python bench/learning_loop.py [N]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "transcripts" / "session1_pip_mistake.jsonl"


def stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered) * 1000:8.2f} ms   p95 {p95 * 1000:8.2f} ms   (n={len(ordered)})"


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    home = tempfile.mkdtemp(prefix="tsbench-")
    os.environ["TWICESHY_HOME"] = home
    os.environ["TWICESHY_CONFIG_DIR"] = os.path.join(home, "config")

    from twiceshy.base.types import CoreEvent, Experience, Tier
    from twiceshy.engine.context import make_context
    from twiceshy.learning.evolve import run_cycle
    from twiceshy.learning.extractors import extract_all
    from twiceshy.learning.ingest import ingest_candidates, one_hop

    ctx = make_context(Path(home))
    reader = ctx.pm.hook.agent_read_transcript
    samples = []
    for _ in range(50):
        t = time.perf_counter()
        cands = extract_all(reader(agent="claude-code", path=FIXTURE))
        samples.append(time.perf_counter() - t)
    print(f"extract (read + 5 extractors, {len(cands)} candidates)  {stats(samples)}")

    ctx.store.count()  # open the store and load the model outside the timings
    ctx.store.embedder.embed(["warm up"])
    samples = []
    for i in range(10):
        event = CoreEvent(
            kind="session_end", agent="claude-code", native_event="SessionEnd", session_id=f"s{i}", cwd=home
        )
        t = time.perf_counter()
        ingest_candidates(ctx, cands, event)
        samples.append(time.perf_counter() - t)
    print(f"ingest (one session's candidates)              {stats(samples)}")

    filler = [
        Experience(
            text=f"lesson {i}", trigger=f"tool-{i % 37} run --option {i}", tier=int(Tier.QA if i % 3 else Tier.RAW)
        )
        for i in range(n)
    ]
    ctx.store.add_many(filler)
    for a, b in zip(filler[::2], filler[1::2]):
        if int(a.id, 16) % 4 == 0:
            ctx.store.add_edge(a.id, b.id, "relates-to")
    hits = ctx.store.search("tool-3 run --option 3", k=8)
    samples = []
    for _ in range(30):
        t = time.perf_counter()
        one_hop(ctx, [(e.id, s) for e, s in hits])
        samples.append(time.perf_counter() - t)
    print(f"one_hop (8 seeds, {ctx.store.count()} lessons)           {stats(samples)}")

    samples = []
    for _ in range(5):
        t = time.perf_counter()
        run_cycle(ctx)
        samples.append(time.perf_counter() - t)
    print(f"run_cycle ({ctx.store.count()} lessons)                   {stats(samples)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
