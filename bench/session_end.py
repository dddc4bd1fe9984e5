"""How long one session end takes to apply at 10k and 100k lessons, as the engine applies it.

A session end is the whole ``SessionEnd`` hook on the real store with the
in-memory index on (as in the engine): the transcript read and extracted,
the candidates stored, the evolution pass (``evolve.after_session``). Timed
with the hourly cross-project promotion due (its worst case) in three modes,
alternating in the same run on the same store:

* ``full``        — every scoped lesson clustered (what every pass did before:
                    ``cross_project.FULL_PASS_MAX`` raised past the store's size)
* ``catch-up sweep`` — what changed plus one page of the sweep that covers
                    every scoped lesson when the journal cannot say what changed
                    (the first passes on a large store)
* ``incremental`` — only what changed since the previous pass (the steady state)

and once without the cross-project pass (the common case: it runs at most
hourly). Also the engine-like process's RSS. Run::

    python bench/session_end.py --sizes 10000
    python bench/session_end.py --home /tmp/s18/home100k     # a copy of an existing store
    python bench/session_end.py --sizes 10000 --full-n 0      # skip the slow mode

Targets (issue #18): one session end applied in <= 1 s at 10k and <= 2 s at 100k.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def use_home(home: Path) -> None:
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")


def prepare(root: Path, size: int, source: Path | None) -> Path:
    home = root / f"h{size or 'copy'}"
    if source is not None:
        subprocess.run(["cp", "-a", str(source), str(home)], check=True)
        for name in ("engine.pid", "engine.sock", "engine.lock", "evolve_state.json", "cross_project_state.json"):
            (home / name).unlink(missing_ok=True)
        return home
    import scale  # 40 % of its lessons are scoped to one of two projects, as cross-project promotion needs

    home.mkdir()
    scale.build(home, size)
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--home", type=Path, help="copy this data dir instead of building a store")
    parser.add_argument("-n", type=int, default=3, help="session ends timed per incremental mode")
    parser.add_argument("--full-n", type=int, default=1, help="session ends timed with the full cross-project pass")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    root = Path(tempfile.mkdtemp(prefix="twiceshy-se-"))
    try:
        for size in [0] if args.home else [int(s) for s in args.sizes.split(",") if s]:
            home = prepare(root, size, args.home)
            run(home, args)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def run(home: Path, args: argparse.Namespace) -> None:
    use_home(home)
    from twiceshy.engine.context import make_context
    from twiceshy.engine.dispatch import handle_hook
    from twiceshy.learning import cross_project, evolve

    ctx = make_context(home)
    store = ctx.store
    started = time.perf_counter()
    store.enable_index()  # as the engine does: searches and counts from memory
    print(f"\n== {store.count():,} lessons (index loaded in {time.perf_counter() - started:.1f} s, RSS {rss_mb()} MB)")
    transcripts = sorted(FIXTURES.glob("session*.jsonl"))
    serial = iter(range(10**6))
    full_max = cross_project.FULL_PASS_MAX

    key = f"{getattr(store, 'path', '')}:{getattr(store, 'collection_name', '')}"
    sweep_at: list[object] = []  # where the catch-up sweep stands (restored for each "sweep" session end)

    def session_end(cross_due: bool, full: bool, sweep: bool = False) -> tuple[float, dict]:
        n = next(serial)
        state = evolve.load_state()
        if cross_due:
            state["last_cross"] = 0.0  # the hourly cross-project pass is due
        else:
            state["last_cross"] = time.time()
        evolve._save_state(state)
        entry = cross_project._load_state(key)
        if entry and sweep_at:
            # "sweep": the catch-up sweep goes on where it stands; otherwise it is
            # over (a store whose journal says what changed: the steady state)
            entry["sweep"] = sweep_at[0] if sweep else None
            cross_project._save_state(key, entry)
        cross_project.FULL_PASS_MAX = 10**12 if full else full_max
        payload = {
            "session_id": f"bench-{n}",
            "transcript_path": str(transcripts[n % len(transcripts)]),
            "cwd": str(home),
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
        t = time.perf_counter()
        handle_hook(ctx, "claude-code", "SessionEnd", payload)
        took = time.perf_counter() - t
        cross_project.FULL_PASS_MAX = full_max
        if sweep:
            sweep_at[:] = [cross_project._load_state(key).get("sweep")]
        return took, dict(cross_project.last_pass) if cross_due else {}

    # A first pass records where the journal stands (as the previous session end would have).
    took, info = session_end(cross_due=True, full=False)
    print(f"first session end (no state yet: catch-up sweep page)  {took:7.2f} s   {info}")
    sweep_at[:] = [cross_project._load_state(key).get("sweep")]
    rows: dict[str, list[float]] = {"catch-up sweep": [], "incremental": [], "full": [], "no cross pass": []}
    infos: dict[str, dict] = {}
    for i in range(max(args.n, args.full_n)):
        if i < args.full_n:
            took, infos["full"] = session_end(cross_due=True, full=True)
            rows["full"].append(took)
        if i < args.n:
            took, infos["catch-up sweep"] = session_end(cross_due=True, full=False, sweep=True)
            rows["catch-up sweep"].append(took)
            took, infos["incremental"] = session_end(cross_due=True, full=False)
            rows["incremental"].append(took)
            took, _ = session_end(cross_due=False, full=False)
            rows["no cross pass"].append(took)
    print(f"load average {os.getloadavg()[0]:.2f}; RSS after {rss_mb()} MB, peak {peak_mb()} MB")
    print(f"{'one session end, s':34s} {'median':>8s} {'max':>8s}  n   cross-project pass")
    for name, values in rows.items():
        if values:
            info = infos.get(name, {})
            what = {k: info[k] for k in ("mode", "read", "clustered") if k in info}
            print(f"{name:34s} {statistics.median(values):8.2f} {max(values):8.2f}  {len(values)}   {what}")


if __name__ == "__main__":
    raise SystemExit(main())
