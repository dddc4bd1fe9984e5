"""Engine background maintenance at scale: start, memory, rules snapshot, warm-cache rewrite.

On a copy of a big store (``bench/scale.py``'s ``build()``), for each code
tree given (``--code old=/path/to/a/tree`` whose ``twiceshy`` package is
imported instead of the installed one; ``new`` is the installed package):

1. a cold engine on a fresh copy (no warm cache): start to ready, RSS when
   ready, then until the rules snapshot and the warm cache are written (the
   cache waits for the engine's idle gap), and the peak RSS (``VmHWM``);
2. a second engine start on that copy (the cache is there now): start to
   ready, RSS when ready, peak RSS once its maintenance has settled;
3. in a separate process, the warm-cache rewrite after 1 and after 100
   lessons changed by another writer (``write_cache`` timed, peak RSS).

The trees run alternately (``--rounds``); the load average is printed with
every figure. Usage::

    python bench/warm_maintenance.py --home /tmp/s18/home100k --work /tmp/wm \\
        --code old=/tmp/old-tree --rounds 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def proc_kb(pid: int, key: str) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"))
    return env


def prelude(code: str | None) -> str:
    return "import sys; " + (f"sys.path.insert(0, {code!r}); " if code else "")


def spawn(home: Path, code: str | None) -> subprocess.Popen[bytes]:
    script = prelude(code) + "from twiceshy.engine.server import serve; sys.exit(serve(sys.argv[1]))"
    log = open(home / "engine.log", "ab")  # noqa: SIM115 - the child owns it
    return subprocess.Popen(
        [sys.executable, "-c", script, str(home)],
        stdout=log,
        stderr=log,
        stdin=subprocess.DEVNULL,
        cwd="/",
        env=env_for(home),
        start_new_session=True,
    )


def ping(home: Path) -> dict | None:
    from twiceshy.engine import server

    status = server.call(home, "ping", timeout=2.0)
    return status if status and status.get("ready") else None  # it answers status while loading


def rules_count(home: Path) -> int:
    try:
        return len(json.loads((home / "rules.json").read_text())["rules"])
    except (OSError, ValueError, KeyError):
        return -1


def engine_round(home: Path, code: str | None, wait_cache: bool, settle_s: float) -> dict:
    """Start an engine, time it to ready, then watch its maintenance."""
    cache = home / "store" / "warmstart.bin"
    cache_mtime = cache.stat().st_mtime_ns if cache.exists() else 0
    started = time.monotonic()
    proc = spawn(home, code)
    row: dict = {"load_at_start": load()}
    try:
        while time.monotonic() - started < 300:
            if proc.poll() is not None:
                raise SystemExit(f"engine exited {proc.returncode}; see {home / 'engine.log'}")
            if ping(home):
                break
            time.sleep(0.05)
        row["ready_s"] = round(time.monotonic() - started, 2)
        row["rss_ready_mb"] = proc_kb(proc.pid, "VmRSS")
        rules_seen = None
        deadline = time.monotonic() + (600 if wait_cache else settle_s)
        while time.monotonic() < deadline:
            if rules_seen is None and rules_count(home) > 0:
                rules_seen = round(time.monotonic() - started, 1)
            written = cache.exists() and cache.stat().st_mtime_ns != cache_mtime
            if wait_cache and written and rules_seen is not None:
                row["cache_written_after_s"] = round(time.monotonic() - started, 1)
                break
            time.sleep(0.25)
        row["rules_after_s"] = rules_seen
        row["rules"] = rules_count(home)
        row["rss_end_mb"] = proc_kb(proc.pid, "VmRSS")
        row["rss_peak_mb"] = proc_kb(proc.pid, "VmHWM")
        row["load_at_end"] = load()
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return row


REWRITE = r"""
import json, resource, sys, time
from twiceshy.engine.context import make_context
from twiceshy.engine import warmstart
n = int(sys.argv[1])
ctx = make_context(None)
store = ctx.store
col = store._col
got = col.get(limit=n, offset=5000 + n, include=["metadatas", "documents"])
from twiceshy.base.types import Experience
exps = [Experience.from_metadata(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]
for e in exps:
    e.hits = int(e.hits or 0) + 1
if exps:
    store.update_many(exps)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
ok = warmstart.write_cache(store)
took = time.perf_counter() - t
print(json.dumps({"changed": n, "ok": ok, "rewrite_s": round(took, 2),
                  "maxrss_before_mb": round(before, 1),
                  "maxrss_after_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def rewrite_round(home: Path, code: str | None, changed: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", prelude(code) + REWRITE, str(changed)],
        env=env_for(home),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"rewrite child failed: {out.stderr.strip().splitlines()[-1:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["load"] = load()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, required=True, help="the big store to copy (never written)")
    ap.add_argument("--work", type=Path, required=True, help="where the copies go")
    ap.add_argument("--code", action="append", default=[], help="NAME=TREE: a tree whose twiceshy package to run")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--settle", type=float, default=60.0, help="seconds to watch a warm restart")
    ap.add_argument("--skip-engine", action="store_true", help="only the rewrite timings")
    args = ap.parse_args()
    trees: list[tuple[str, str | None]] = [(n, p) for n, p in (c.split("=", 1) for c in args.code)]
    trees.append(("new", None))
    floor = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
    print(f"baseline  python -I -S -c pass {time.perf_counter() - floor:.3f} s, load {load()}", flush=True)
    for rnd in range(args.rounds):
        for name, code in trees:
            home = args.work / f"{name}-{rnd}"
            if home.exists():
                shutil.rmtree(home)
            subprocess.run(["cp", "-a", str(args.home), str(home)], check=True)
            if not args.skip_engine:
                cold = engine_round(home, code, wait_cache=True, settle_s=0)
                print(f"[{name} r{rnd}] cold engine (no cache): {json.dumps(cold)}", flush=True)
                warm = engine_round(home, code, wait_cache=False, settle_s=args.settle)
                print(f"[{name} r{rnd}] warm restart: {json.dumps(warm)}", flush=True)
            else:
                from twiceshy.engine import warmstart  # noqa: F401 - a first full cache for the rewrites

                rewrite_round(home, None, 0)
            for changed in (1, 100):
                row = rewrite_round(home, code, changed)
                print(f"[{name} r{rnd}] cache rewrite: {json.dumps(row)}", flush=True)
            shutil.rmtree(home)


if __name__ == "__main__":
    main()
