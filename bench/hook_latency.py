"""Whole-process latency of the hook, engine vs. in-process, at 1k/10k/100k lessons.

For each store size it builds a store (real MiniLM vectors for a few hundred
realistic command triggers; the bulk are noisy copies of those vectors, so
the HNSW index has the real size and shape), starts the engine and times the
hook process as an agent runs it (``python -I -S hooks/client.py …``, payload
on stdin, from spawn to exit):

* ``read-only``  — ``git status && git diff`` (answered without a search)
* ``hit``        — a command that matches a stored lesson (warning printed),
  a new text each call (``rm -rf build dist17``), so each is embedded
* ``no hit``     — a command no lesson is near (searched, silent), a new text each call
* ``… repeated`` — the same two with one text each time: the engine keeps the
  vectors of recent texts, as when an agent runs ``npm test`` again
* ``down``       — no engine, auto-start off: the fail-open path

and, in the same run, the in-process path (``python -m twiceshy hook``) for
the same calls, reported as a ratio of medians. Also the engine's RSS and its
own per-request time from ``events.jsonl``. Run::

    python bench/hook_latency.py                      # 1k, 10k, 100k
    python bench/hook_latency.py --sizes 1000 -n 50   # quick
    python bench/hook_latency.py --home /tmp/s18/home100k -n 200   # a copy of an existing store

``--home`` copies an existing data dir (``cp -a``; the original is never
written) instead of building one; its store must hold the lesson for
``rm -rf build`` (``bench/scale.py``'s ``build()`` adds it).

Memory: the engine's RSS right after it answers, after the scenarios (every
searched call touches lessons, so the store's generation moves and the
background threads keep the warm-start cache in step) and its peak
(``VmHWM``); and the RSS of an engine cold-started from the warm cache.

Targets (issue #18): searched p50 <= 25 ms and p99 <= 60 ms at 10k, p50 <= 35 ms,
p99 <= 80 ms and engine RSS <= 600 MB at 100k; fail-open p99 <= 60 ms.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402
from twiceshy.engine import server as engine_mod  # noqa: E402
from twiceshy.hooks import wire  # noqa: E402

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))

TOOLS = {
    "git": [
        "push --force origin main",
        "rebase -i HEAD~5",
        "reset --hard origin/main",
        "commit --amend",
        "clean -fdx",
        "stash pop",
        "merge feature",
        "cherry-pick abc123",
    ],
    "npm": ["install", "publish", "run build", "audit fix --force", "ci", "update", "link ../lib"],
    "pip": [
        "install requests",
        "install -e .",
        "uninstall numpy",
        "install -r requirements.txt",
        "install --upgrade pip",
    ],
    "docker": [
        "system prune -a --volumes",
        "build -t app .",
        "compose up -d",
        "run --privileged app",
        "push registry/app:latest",
        "volume rm data",
    ],
    "kubectl": [
        "apply -f deploy.yaml",
        "delete namespace prod",
        "rollout restart deploy/web",
        "scale deploy/web --replicas=0",
        "edit configmap app",
    ],
    "terraform": ["apply", "destroy", "apply -auto-approve", "state rm module.db", "import aws_s3_bucket.b b"],
    "pytest": ["tests/test_api.py", "-x -q", "--lf", "-k slow", "tests/db"],
    "cargo": ["build --release", "publish", "update", "clean", "test --all"],
    "rm": ["-rf node_modules", "-rf dist", "-rf ~/.cache", "-f db.sqlite3", "-rf migrations"],
    "psql": ["-c 'drop table users'", "-f schema.sql", "prod -c 'delete from orders'"],
    "make": ["deploy", "clean", "release", "migrate"],
    "chmod": ["-R 777 .", "+x deploy.sh"],
    "curl": ["-X DELETE https://api.example.com/v1/users/1", "https://get.example.sh | bash"],
    "sed": ["-i 's/foo/bar/g' config.yaml", "-i '' settings.py"],
    "alembic": ["upgrade head", "downgrade -1", "revision --autogenerate"],
}
ADVICE = [
    "run the tests first",
    "ask before doing this on main",
    "use the staging profile",
    "back up the data dir",
    "pin the version",
    "check the lock file",
    "read the migration notes",
]

HIT_TRIGGER = "rm -rf build"
HIT_COMMAND = "rm -rf build"
NO_HIT_COMMAND = "ffprobe -hide_banner holiday_video.mkv"
# The engine keeps the vectors of recently embedded texts, so a command repeated
# exactly costs no model run. "hit" and "no hit" give every call a text of its
# own (what a search costs); the "repeated" rows send one text over and over.
HIT_COMMAND_NEW = "rm -rf build dist{}"
NO_HIT_COMMAND_NEW = "ffprobe -hide_banner holiday_video_{}.mkv"
READ_ONLY_COMMAND = "git status && git diff --stat"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": pct(values, 0.5), "p95": pct(values, 0.95), "p99": pct(values, 0.99), "n": len(values)}


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), **extra)
    return env


def payload(command: str, session: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": "",
            "cwd": "/tmp",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def build_store(home: Path, size: int, seed: int = 7) -> float:
    """Fill ``home``'s store with ``size`` lessons; returns seconds taken."""
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    started = time.perf_counter()
    ctx = make_context(None)
    store = ctx.store
    rng = np.random.default_rng(seed)
    triggers = [f"{tool} {arg}" for tool, args in TOOLS.items() for arg in args]
    base = np.asarray(store.embedder.embed(triggers), dtype=np.float32)
    batch_ids, batch_vecs, batch_docs, batch_meta = [], [], [], []
    col = store._col  # bulk load: bypass per-item embedding (the bench measures search, not ingest)
    for i in range(size - 1):
        j = i % len(triggers)
        noise = rng.normal(size=base.shape[1]).astype(np.float32)
        noise *= 0.75 / np.linalg.norm(noise)  # cosine to the base vector ~0.8
        vec = base[j] + noise
        vec /= np.linalg.norm(vec)
        exp = Experience(
            text=f"When running `{triggers[j]}`: {ADVICE[i % len(ADVICE)]} (#{i})",
            trigger=triggers[j],
            tier=3 if i % 5 else 2,
        )
        batch_ids.append(exp.id)
        batch_vecs.append(vec.tolist())
        batch_docs.append(exp.text)
        batch_meta.append(exp.to_metadata())
        if len(batch_ids) == 2000:
            col.upsert(ids=batch_ids, embeddings=batch_vecs, documents=batch_docs, metadatas=batch_meta)
            batch_ids, batch_vecs, batch_docs, batch_meta = [], [], [], []
    if batch_ids:
        col.upsert(ids=batch_ids, embeddings=batch_vecs, documents=batch_docs, metadatas=batch_meta)
    store.add(
        Experience(
            text="Never rm -rf the build dir by hand; run `make clean` (it keeps the cache).",
            trigger=HIT_TRIGGER,
            tier=2,
        )
    )
    hit = store.search(HIT_COMMAND, k=1)
    miss = store.search(NO_HIT_COMMAND, k=1)
    min_score = ctx.config.get("retrieval", "min_score")
    assert hit and hit[0][1] >= min_score, hit
    assert not miss or miss[0][1] < min_score, f"no-hit query scores {miss[0][1]:.2f}"
    assert store.count() == size, store.count()
    return time.perf_counter() - started


def copy_store(source: Path, home: Path) -> float:
    """Copy an existing data dir (without its engine's runtime files); returns seconds taken."""
    started = time.perf_counter()
    if not (source / "store").is_dir():
        raise SystemExit(f"--home {source}: no store in it")
    home.rmdir()
    subprocess.run(["cp", "-a", str(source), str(home)], check=True)
    for name in ("engine.pid", "engine.sock", "engine.lock", "engine.starting", "events.jsonl"):
        (home / name).unlink(missing_ok=True)
    return time.perf_counter() - started


def store_size(home: Path) -> int:
    """Lessons in ``home``'s store; checks the hit and no-hit commands behave as the bench expects."""
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    from twiceshy.engine.context import make_context

    ctx = make_context(None)
    store = ctx.store
    min_score = ctx.config.get("retrieval", "min_score")
    hit = store.search(HIT_COMMAND, k=1)
    miss = store.search(NO_HIT_COMMAND, k=1)
    assert hit and hit[0][1] >= min_score, f"no lesson for {HIT_COMMAND!r} in {home}"
    assert not miss or miss[0][1] < min_score, f"no-hit query scores {miss[0][1]:.2f}"
    size = int(store.count())
    del ctx, store
    return size


def ensure_warm_cache(home: Path) -> float | None:
    """Write ``home``'s warm-start cache unless it is current; seconds taken (None: it was current)."""
    from twiceshy.engine import warmstart
    from twiceshy.engine.context import make_context

    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    store = make_context(None).store
    if warmstart.open_cache(store.path, store.embedder.name) is not None:
        return None
    started = time.perf_counter()
    while not warmstart.write_cache(store):
        pass
    return round(time.perf_counter() - started, 1)


def rss_timeline(home: Path, searches: int, session: itertools.count) -> list[tuple[str, float, float]]:
    """(moment, RSS MB, peak RSS MB) of one engine: warm start, hand-over to the
    real store, ``searches`` hook calls, three session ends applied."""
    out: list[tuple[str, float, float]] = []
    ensure_warm_cache(home)  # as an engine that idled would have left it
    engine_mod.spawn_detached(home, env=env_for(home))
    status = engine_mod.wait_ready(home, timeout=300)
    assert status is not None
    pid = status["pid"]

    def note(moment: str) -> None:
        out.append((moment, mb(engine_mod.rss_bytes(pid)), mb(peak_rss_bytes(pid))))

    note(f"ready ({status['store']})")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        current = engine_mod.call(home, "ping") or {}
        if current.get("store") != "warm cache" and current.get("index_rows") is not None:
            break
        time.sleep(0.5)
    time.sleep(5)  # the rules snapshot's rebuild follows the hand-over
    note("real store and index loaded")
    for i in range(searches):
        command = HIT_COMMAND if i % 2 else NO_HIT_COMMAND
        time_client(home, payload(command, f"r{next(session)}"), 1)
    note(f"after {searches} searches")
    fixtures = sorted(Path(__file__).resolve().parent.parent.glob("tests/fixtures/transcripts/session*.jsonl"))
    for n in range(3):
        body = json.dumps(
            {
                "session_id": f"rss-end-{n}",
                "transcript_path": str(fixtures[n % len(fixtures)]),
                "cwd": "/tmp",
                "hook_event_name": "SessionEnd",
                "reason": "exit",
            }
        ).encode()
        subprocess.run(
            [PY, "-I", "-S", CLIENT, "--home", str(home), "claude-code", "SessionEnd"],
            input=body,
            capture_output=True,
            env=env_for(home),
        )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        current = engine_mod.call(home, "ping") or {}
        if current.get("spool_pending") == 0:
            break
        time.sleep(0.5)
    note("after 3 session ends")
    engine_mod.stop(home)
    return out


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of ``pid`` so far (all its threads), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def peak_rss_bytes(pid: int) -> int | None:
    """Peak resident memory (``VmHWM``) of ``pid``, or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def mb(value: int | None) -> float:
    return round((value or 0) / 1e6, 1)


def time_client(
    home: Path, body: bytes, n: int, extra_env: dict[str, str] | None = None, expect: bytes | None = None
) -> tuple[list[float], int]:
    """Times of ``n`` hook processes; and how many printed ``expect``."""
    env = env_for(home, **(extra_env or {}))
    times, matched = [], 0
    for _ in range(n):
        started = time.perf_counter()
        proc = subprocess.run(
            [PY, "-I", "-S", CLIENT, "--home", str(home), "claude-code", "PreToolUse"],
            input=body,
            capture_output=True,
            env=env,
        )
        times.append((time.perf_counter() - started) * 1000)
        if expect is not None and expect in proc.stdout:
            matched += 1
    return times, matched


def time_inprocess(home: Path, body: bytes, n: int, expect: bytes | None = None) -> tuple[list[float], int]:
    env = env_for(home)
    times, matched = [], 0
    for _ in range(n):
        started = time.perf_counter()
        proc = subprocess.run(
            [PY, "-m", "twiceshy", "hook", "claude-code", "PreToolUse"],
            input=body,
            capture_output=True,
            env=env,
            cwd=str(home),
        )
        times.append((time.perf_counter() - started) * 1000)
        if expect is not None and expect in proc.stdout:
            matched += 1
    return times, matched


def engine_ms(home: Path, kind_filter) -> list[float]:
    path = home / "events.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if kind_filter(entry):
            out.append(float(entry["ms"]))
    return out


def time_floor(n: int) -> list[float]:
    """Bare interpreter start (``python -I -S -c pass``): the floor any hook process pays."""
    times = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run([PY, "-I", "-S", "-c", "pass"], capture_output=True)
        times.append((time.perf_counter() - started) * 1000)
    return times


def fmt(s: dict[str, float]) -> str:
    return f"{s['p50']:7.1f} {s['p95']:7.1f} {s['p99']:7.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("-n", type=int, default=200, help="hook calls per scenario (engine path)")
    parser.add_argument("--inproc-n", type=int, default=5, help="calls per scenario for the in-process path")
    parser.add_argument("--cold-n", type=int, default=2, help="cold starts timed per size")
    parser.add_argument("--json", dest="json_out", help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary data dirs")
    parser.add_argument("--home", type=Path, help="copy this existing data dir instead of building stores")
    parser.add_argument(
        "--rss-searches",
        type=int,
        default=0,
        help="then: engine RSS from a warm start, after N searches and 3 session ends",
    )
    parser.add_argument("--code", metavar="COMMIT", help="measure another commit's code (the before of a change)")
    args = parser.parse_args()
    if args.code:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from other_code import run_other_code

        argv = [a for a in sys.argv[1:] if a not in ("--code", args.code) and not a.startswith("--code=")]
        return run_other_code(args.code, __file__, argv)
    sizes = [0] if args.home else [int(s) for s in args.sizes.split(",") if s]

    print(
        f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; n={args.n}, in-process n={args.inproc_n}"
    )
    root = Path(tempfile.mkdtemp(prefix="twiceshy-bench-"))
    results: dict = {"cpus": os.cpu_count(), "sizes": {}}
    session = itertools.count()
    texts = itertools.count()  # distinct command texts (see HIT_COMMAND_NEW)
    expect = b"make clean"
    try:
        for size in sizes:
            home = root / f"h{size}"
            home.mkdir()
            if args.home:
                built = copy_store(args.home, home)
                size = store_size(home)
            else:
                built = build_store(home, size)
            engine_mod.spawn_detached(home, env=env_for(home))
            status = engine_mod.wait_ready(home, timeout=300)
            assert status is not None, (home / "engine.log").read_text()
            ready_s = status["uptime_s"]
            row: dict = {"build_s": round(built, 1), "engine_ready_s": ready_s, "copied": bool(args.home)}
            # warm-up (first calls after start pay one-off costs)
            time_client(home, payload(HIT_COMMAND, f"warm{next(session)}"), 5)
            row["rss_ready_mb"] = mb(engine_mod.rss_bytes(status["pid"]))
            scenarios = {
                "read-only": (lambda: payload(READ_ONLY_COMMAND, "ro"), None),
                "hit": (lambda: payload(HIT_COMMAND_NEW.format(next(texts)), f"s{next(session)}"), expect),
                "no hit": (lambda: payload(NO_HIT_COMMAND_NEW.format(next(texts)), f"s{next(session)}"), None),
                "hit, repeated": (lambda: payload(HIT_COMMAND, f"s{next(session)}"), expect),
                "no hit, repeated": (lambda: payload(NO_HIT_COMMAND, f"s{next(session)}"), None),
            }
            for name, (make, want) in scenarios.items():
                times, matched = [], 0
                cpu_before = cpu_seconds(status["pid"])
                for _ in range(args.n):
                    t, m = time_client(home, make(), 1, expect=want)
                    times += t
                    matched += m
                cpu_after = cpu_seconds(status["pid"])
                row[name] = summary(times)
                # CPU the engine burnt per call (busy-waiting threads count): on a
                # 2-core machine it is taken from the hook process waiting for it.
                row[name]["engine_cpu_ms"] = (
                    round((cpu_after - cpu_before) * 1000 / args.n, 2)
                    if cpu_before is not None and cpu_after is not None
                    else None
                )
                # the floor interleaved with each scenario: the machine's load drifts
                row[name]["floor_p50"] = pct(time_floor(max(5, args.n // 5)), 0.5)
                if want is not None:
                    row[name]["warned"] = matched
                time.sleep(1.2)  # the event log flushes once a second
                inside = engine_ms(home, lambda e: e.get("kind") == "pre_tool" and e.get("path") == "live")
                row[name]["engine_p50"] = pct(inside[-args.n :], 0.5)
            down_home = root / f"down{size}"
            down_home.mkdir()
            times, _ = time_client(down_home, payload(HIT_COMMAND, "down"), args.n, {"TWICESHY_NO_AUTOSTART": "1"})
            row["down"] = summary(times)
            row["engine_rss_mb"] = mb(engine_mod.rss_bytes(status["pid"]))
            row["engine_peak_rss_mb"] = mb(peak_rss_bytes(status["pid"]))
            row["warm_cache"] = (home / "store" / "warmstart.bin").exists()
            engine_mod.stop(home)
            # the in-process path, same calls
            inproc = {}
            for name, (make, want) in scenarios.items():
                times, matched = [], 0
                for _ in range(args.inproc_n):
                    t, m = time_inprocess(home, make(), 1, expect=want)
                    times += t
                    matched += m
                inproc[name] = summary(times)
                if want is not None:
                    inproc[name]["warned"] = matched
            row["in-process"] = inproc
            # cold start: the first hook finds no engine, spawns one and fails open. A
            # large store's warm-start cache is written when its engine idles (this
            # one never did): write it as that engine would, so the cold start is
            # the one a user gets.
            row["cache_write_s"] = ensure_warm_cache(home)
            first, ready, cold_rss = [], [], []
            for _ in range(args.cold_n):
                t, _ = time_client(home, payload(HIT_COMMAND, f"cold{next(session)}"), 1)
                started = time.perf_counter() - t[0] / 1000
                cold_status = engine_mod.wait_ready(home, timeout=300)
                assert cold_status is not None
                ready.append(time.perf_counter() - started)
                first += t
                time_client(home, payload(HIT_COMMAND, f"cold{next(session)}"), 5)
                cold_rss.append(mb(engine_mod.rss_bytes(cold_status["pid"])))
                engine_mod.stop(home)
            row["cold"] = {
                "first_call_ms": statistics.median(first) if first else None,
                "ready_s": statistics.median(ready) if ready else None,
                "rss_mb": statistics.median(cold_rss) if cold_rss else None,
            }
            if args.rss_searches:
                row["rss_timeline"] = rss_timeline(home, args.rss_searches, session)
            results["sizes"][size] = row
            print_size(size, row, args)
    finally:
        for home in root.iterdir():
            if home.is_dir():
                try:
                    engine_mod.stop(home, timeout=10)
                except Exception:
                    pass
        if not args.keep:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


def print_size(size: int, row: dict, args: argparse.Namespace) -> None:
    print(
        f"\n== {size:,} experiences (store {'copied' if row.get('copied') else 'built'} in {row['build_s']}s,"
        f" engine ready in {row['engine_ready_s']}s)"
    )
    print(
        f"engine RSS {row['rss_ready_mb']} MB when ready, {row['engine_rss_mb']} MB after the scenarios,"
        f" peak {row['engine_peak_rss_mb']} MB (warm-start cache written: {row['warm_cache']})"
    )
    print(
        f"{'whole hook process, ms':24s} {'p50':>7s} {'p95':>7s} {'p99':>7s} {'engine p50':>10s} {'engine cpu':>10s}"
        f" {'floor p50':>9s} {'/floor':>6s}   {'in-process p50':>14s} {'ratio':>6s}"
    )
    for name in ("read-only", "hit", "no hit", "hit, repeated", "no hit, repeated"):
        s = row[name]
        ip = row["in-process"][name]
        extra = f"  (warned {s['warned']}/{s['n']}; in-process {ip['warned']}/{ip['n']})" if "warned" in s else ""
        print(
            f"{name:24s} {fmt(s)} {s['engine_p50']:10.1f} {s.get('engine_cpu_ms') or float('nan'):10.1f}"
            f" {s['floor_p50']:9.1f} {s['p50'] / s['floor_p50']:5.1f}x"
            f"   {ip['p50']:14.0f} {ip['p50'] / s['p50']:5.0f}x{extra}"
        )
    print(f"{'down (fail open)':24s} {fmt(row['down'])}")
    print(
        "(hit / no hit: a new command text each call, so the model embeds each; repeated: one text, its vector"
        " from the engine's recent-queries cache. engine p50: time inside the engine per request, from"
        " events.jsonl; engine cpu: CPU ms the engine process used per call, all threads; floor:"
        " `python -I -S -c pass`)"
    )
    cold = row.get("cold") or {}
    if cold.get("first_call_ms") is not None:
        print(
            f"cold start: first call {cold['first_call_ms']:.0f} ms (spawns the engine, fails open); engine answering after"
            f" {cold['ready_s']:.1f} s, RSS {cold['rss_mb']} MB"
            + (f" (warm-start cache written first, {row['cache_write_s']} s)" if row.get("cache_write_s") else "")
        )
    for moment, rss, peak in row.get("rss_timeline") or []:
        print(f"engine RSS {moment:32s} {rss:7.1f} MB (peak so far {peak:.1f} MB)")
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
