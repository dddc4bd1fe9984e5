"""Cold start of the resident engine: spawn to the first answered search.

For each run the engine of a data dir holding ``--size`` lessons is spawned
exactly as the hook client spawns it (:func:`twiceshy.hooks.wire.spawn_engine`)
and a pre-tool request for a command that matches a stored lesson is sent
every few milliseconds (what an agent's next hook would do); the time from
the spawn to the first reply that carries the warning is the figure. The
engine is stopped between runs. Printed: median / min / max over ``-n`` runs
(default 10), the engine's RSS right after that first answer, and, measured
in the same run as a floor for comparison, the bare interpreter start
(``python -I -S -c pass``) and ``python -c "import twiceshy"``.

The very first start of a data dir has no warm-start cache yet (the engine
writes ``<store>/warmstart.bin`` once Chroma is open): it is timed and
printed on its own, then the ``-n`` timed starts follow (the steady state:
every later cold start of that data dir). Also printed: where the engine's
own milliseconds went (``timing ms`` in ``engine.log``).

    python bench/cold_start.py                  # 10 runs, 1,000 lessons
    python bench/cold_start.py -n 20 --size 10000
    python bench/cold_start.py -n 3 --window 5 [--code COMMIT]   # and the cold window as hooks meet it

``--window N``: N more starts, each met by the real hook client (its own
process, default budget) on the matching call every 50 ms until the engine
answers one: how many of those calls the client held alone (rules snapshot,
hold index), how many ran unchecked, and what each cost.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from twiceshy.engine import server as engine_mod  # noqa: E402
from twiceshy.hooks import wire  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from other_code import run_other_code  # noqa: E402

PY = sys.executable
HIT_TRIGGER = "rm -rf build"
HIT_TEXT = "Never rm -rf the build dir by hand; run `make clean` (it keeps the cache)."
EXPECT = b"make clean"


def build_store(home: Path, size: int) -> None:
    """``size`` lessons (one of them matches the probe) in ``home``'s store."""
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    ctx = make_context(None)
    programs = ["git", "npm", "pip", "docker", "kubectl", "terraform", "cargo", "make", "psql", "helm"]
    verbs = ["push", "install", "apply", "delete", "build", "publish", "reset", "update", "run", "clean"]
    lessons = [
        Experience(
            text=f"When running `{programs[i % 10]} {verbs[(i // 10) % 10]} item{i}`: check the target first (#{i})",
            trigger=f"{programs[i % 10]} {verbs[(i // 10) % 10]} item{i}",
            tier=3 if i % 5 else 2,
        )
        for i in range(max(0, size - 1))
    ]
    lessons.append(Experience(text=HIT_TEXT, trigger=HIT_TRIGGER, tier=2))
    ctx.store.add_many(lessons)
    assert ctx.store.count() == size


def probe(session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "cwd": "/tmp",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": HIT_TRIGGER},
        }
    ).encode()


def spawn_time(argv: list[str], n: int) -> float:
    """Median ms from spawn to exit of ``argv``."""
    times = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, cwd=tempfile.gettempdir())
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def one_run(home: Path, run: int, timeout: float = 60.0, wait_cache: bool = False) -> tuple[float, float | None, int]:
    """(seconds from spawn to the first answered search, engine RSS MB, replies before it)."""
    started = time.monotonic()
    pid = wire.spawn_engine(str(home))
    empty = 0
    while True:
        now = time.monotonic()
        if now - started > timeout:
            raise RuntimeError(f"no answer within {timeout}s; log: {(home / 'engine.log').read_text()[-2000:]}")
        try:
            reply = wire.request(str(home), "claude-code", "PreToolUse", f"cold{run}", probe(f"cold{run}"), now + 5.0)
        except (wire.EngineDown, OSError):
            reply = None
        if reply is not None and EXPECT in reply[1]:
            elapsed = time.monotonic() - started
            break
        if reply is not None:
            empty += 1  # answered, but without the search (still loading?)
        time.sleep(0.005)
    engine_pid = engine_mod.read_pid(engine_mod.EnginePaths(home)) or pid
    rss = engine_mod.rss_bytes(engine_pid)
    cache = home / "store" / "warmstart.bin"
    while wait_cache and not cache.exists() and time.monotonic() - started < 300:
        time.sleep(0.1)  # the engine writes it in the background once Chroma is open
    engine_mod.stop(home)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    return elapsed, (rss / 1e6 if rss else None), empty


CLIENT = Path(wire.__file__).with_name("client.py")


def window_run(home: Path, run: int, every_s: float = 0.05, timeout: float = 60.0) -> list[tuple[str, float]]:
    """The cold window as an agent meets it: spawn the engine as the client does, then run
    the real hook client (its own process, the default budget) on the matching call, a new
    session every ``every_s``, until the engine itself answers one. Each call:
    (``engine`` held or warned / ``client`` held or denied it alone / ``open``: ran unchecked, ms)."""
    started = time.monotonic()
    pid = wire.spawn_engine(str(home))
    calls: list[tuple[str, float]] = []
    while time.monotonic() - started < timeout:
        t0 = time.monotonic()
        out = subprocess.run(
            [PY, "-I", "-S", str(CLIENT), "--home", str(home), "claude-code", "PreToolUse"],
            input=probe(f"window{run}-{len(calls)}"),
            capture_output=True,
        )
        ms = (time.monotonic() - t0) * 1000
        if EXPECT in out.stdout:
            calls.append(("engine", ms))
            break
        calls.append(("client" if out.returncode == 2 else "open", ms))
        time.sleep(every_s)
    engine_mod.stop(home)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    return calls


def window_report(runs: list[list[tuple[str, float]]]) -> list[str]:
    before = [c for calls in runs for c in calls[:-1]]  # the calls before the engine's first answer
    engine = [ms for calls in runs for who, ms in calls if who == "engine"]
    lines = [f"cold window ({len(runs)} starts): {len(before)} calls before the engine's first answer"]
    for who, label in (("client", "held by the client alone"), ("open", "ran unchecked")):
        ms = [m for w, m in before if w == who]
        if ms:
            lines.append(
                f"          {label:<26} {len(ms):3d}  client ms median {statistics.median(ms):6.1f}, max {max(ms):6.1f}"
            )
        else:
            lines.append(f"          {label:<26}   0")
    if engine:
        lines.append(f"          first engine answer        client ms median {statistics.median(engine):6.1f}")
    return lines


def timing_lines(home: Path) -> list[str]:
    log = home / "engine.log"
    if not log.exists():
        return []
    return [line for line in log.read_text(errors="replace").splitlines() if "timing" in line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=10, help="cold starts (median reported)")
    parser.add_argument("--size", type=int, default=1000, help="lessons in the store")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data dir")
    parser.add_argument(
        "--window", type=int, default=0, metavar="N", help="also N starts met by hook calls (the cold window)"
    )
    parser.add_argument("--code", metavar="COMMIT", help="measure another commit's code (the before of a change)")
    args = parser.parse_args()
    if args.code:
        argv = [a for a in sys.argv[1:] if a not in ("--code", args.code) and not a.startswith("--code=")]
        return run_other_code(args.code, __file__, argv)

    root = Path(tempfile.mkdtemp(prefix="twiceshy-cold-"))
    home = root / "home"
    home.mkdir(mode=0o700)
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    os.environ["TWICESHY_ENGINE_TIMING"] = "1"
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    try:
        build_store(home, args.size)
        bare = spawn_time([PY, "-I", "-S", "-c", "pass"], args.n)
        pkg = spawn_time([PY, "-c", "import twiceshy"], max(3, args.n // 2))
        first, _, _ = one_run(home, -1, wait_cache=True) if hasattr(wire, "engine_argv") else (None, None, 0)
        results, rss, empties = [], [], 0
        for run in range(args.n):
            elapsed, mb, empty = one_run(home, run)
            results.append(elapsed)
            empties += empty
            if mb:
                rss.append(mb)
        print(f"store: {args.size} lessons; runs: {args.n}; load average now {os.getloadavg()[0]:.2f}")
        print(f"baseline  python -I -S -c pass      {bare:8.1f} ms (median)")
        print(f"baseline  python -c 'import twiceshy' {pkg:6.1f} ms (median)")
        if first is not None:
            print(f"engine    first start of the data dir (no warm-start cache yet): {first * 1000:.0f} ms")
        print(
            f"engine    spawn -> first answered search: median {statistics.median(results) * 1000:.0f} ms, "
            f"min {min(results) * 1000:.0f} ms, max {max(results) * 1000:.0f} ms"
        )
        if rss:
            print(f"engine    RSS after the first answer: median {statistics.median(rss):.0f} MB")
        if empties:
            print(f"          ({empties} empty replies before a searched one, over all runs)")
        if args.window:
            for line in window_report([window_run(home, run) for run in range(args.window)]):
                print(line)
        lines = timing_lines(home)
        if lines:
            print("engine's own timing (last run):")
            for line in lines[-12:]:
                print("   ", line)
    finally:
        engine_mod.stop(home, timeout=10)
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"kept {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
