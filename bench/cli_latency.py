"""`twiceshy doctor` and `twiceshy engine stop` with the engine up, against the interpreter's floor.

A data dir of ``--size`` lessons is built (as :mod:`cold_start` builds it), the
engine is started and left to open its store, then each command is run ``-n``
times as a user runs it (the ``twiceshy`` console script, its own process):
``doctor`` against the running engine once its start-up upkeep is done (the
hold index check), ``engine stop`` each time on an engine
started afresh (the stop is what is timed). Printed: median / min / max wall
ms of each, and, measured in the same run, the floor ``python -I -S -c pass``.

    python bench/cli_latency.py                 # 5 runs, 2,000 lessons
    python bench/cli_latency.py -n 5 --size 10000
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

from twiceshy.engine import server as engine_mod  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_start import build_store  # noqa: E402

PY = sys.executable
TWICESHY = str(Path(PY).with_name("twiceshy"))


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    started = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, cwd=tempfile.gettempdir())
    return (time.perf_counter() - started) * 1000, out


def start_engine(home: Path, settle: bool = False) -> float:
    """Start the engine and wait until Chroma is open behind it (what a running engine is);
    ``settle``: also until its start-up upkeep is done (the rules snapshot and hold index
    checked: a rebuild of the hold index is seconds of CPU at a few thousand lessons).
    Returns the seconds waited."""
    started = time.monotonic()
    engine_mod.spawn_detached(home)
    deadline = started + 300
    while time.monotonic() < deadline:
        status = engine_mod.call(home, "ping", timeout=1.0)
        if status and status.get("ready", True) and status.get("store") == "chroma":
            upkept = any(k.startswith("hold index") for k in status.get("timing_ms", {}))
            if not settle or upkept:
                time.sleep(1.0)  # the read command tree, built in the background
                return time.monotonic() - started
        time.sleep(0.1)
    raise RuntimeError(f"engine not up: {(home / 'engine.log').read_text()[-2000:]}")


def line(label: str, ms: list[float]) -> str:
    return f"{label:<34} median {statistics.median(ms):7.1f} ms, min {min(ms):7.1f}, max {max(ms):7.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=5, help="runs of each command (median reported)")
    parser.add_argument("--size", type=int, default=2000, help="lessons in the store")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="twiceshy-cli-"))
    home = root / "home"
    home.mkdir(mode=0o700)
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    try:
        build_store(home, args.size)
        floor = [timed([PY, "-I", "-S", "-c", "pass"])[0] for _ in range(args.n)]
        settled = start_engine(home, settle=True)
        doctor = []
        for _ in range(args.n):
            ms, out = timed([TWICESHY, "doctor"])
            assert b"twiceshy doctor" in out.stdout, out
            doctor.append(ms)
        stop = []
        for _ in range(args.n):
            engine_mod.stop(home)
            start_engine(home)
            ms, out = timed([TWICESHY, "engine", "stop"])
            assert b"engine stopped" in out.stdout, out
            stop.append(ms)
        print(f"store: {args.size} lessons; runs: {args.n}; load average now {os.getloadavg()[0]:.2f}")
        print(line("baseline  python -I -S -c pass", floor))
        print(line("twiceshy doctor (engine up)", doctor) + f"  (engine settled {settled:.1f} s after start)")
        print(line("twiceshy engine stop", stop))
        log = (home / "engine.log").read_text(errors="replace").splitlines()
        for entry in [x for x in log if "shutdown ms" in x][-2:]:
            print("   ", entry)
    finally:
        engine_mod.stop(home, timeout=10)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
