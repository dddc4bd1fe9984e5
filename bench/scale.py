"""Scale: every read command of the CLI against a large store, import of 10k
lessons, and one session end's evolution pass at that size.

Steps, each timed (wall clock, whole process for CLI commands):

1. **build** — ``--size`` lessons (default 100,000) written with
   :meth:`ExperienceStore.add_vectors` in pages (the bulk path import uses);
   vectors are real MiniLM vectors of a few hundred command triggers plus
   noise, as in ``bench/hook_latency.py``, so the store has its real size and
   shape without embedding 100k texts here.
2. **read commands** — ``list`` (default page, ``--json``, ``--tier``, a page
   deep in the store), ``stats``, ``search``, ``show``, ``graph``,
   ``timeline``, ``health``, ``projects``, ``review``, ``context``,
   ``suggest``, ``export --all``, ``doctor`` as separate ``python -m twiceshy
   …`` processes, each twice: without an engine (every one in-process), then
   with a running engine (the read commands are answered by it,
   :mod:`twiceshy.ops.readvia`, ``doctor`` too; ``export`` still runs
   in-process). Exit code, seconds, output size and whether both runs printed
   the same bytes; the engine runs are the median of ``--repeat`` runs, each
   next to a bare ``python -I -S -c pass`` start (the floor, measured in the same
   run; the machine is shared).
3. **session end** — the evolution a session end applies
   (:func:`twiceshy.learning.evolve.after_session`) after a session that
   touched a handful of lessons (verdicts and one lesson learned).
4. **import** — ``--import-n`` (default 10,000) distinct lessons: an export
   file without vectors into an empty store (every trigger embedded), then
   the export of that store (vectors carried) into another empty store, then
   the same file into the large store (dedup against it).

Run::

    python bench/scale.py                       # 100k store, 10k import
    python bench/scale.py --size 10000 --import-n 2000
    # the read commands only, on a copy of an existing store (it is written to: hits, caches)
    cp -a /tmp/s18/home100k /tmp/copy && python bench/scale.py --home /tmp/copy --reads-only
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hook_latency import ADVICE, HIT_TRIGGER, TOOLS  # noqa: E402
from twiceshy.hooks.readroute import ROUTED  # noqa: E402

PY = sys.executable


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_NO_AUTOSTART="1")
    return env


def use_home(home: Path) -> None:
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")


def build(home: Path, size: int, seed: int = 7) -> tuple[float, str]:
    """A store of ``size`` lessons; returns (seconds, id of the lesson searched for)."""
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    use_home(home)
    ctx = make_context(None)
    store = ctx.store
    rng = np.random.default_rng(seed)
    triggers = [f"{tool} {arg}" for tool, args in TOOLS.items() for arg in args]
    base = np.asarray(store.embedder.embed(triggers), dtype=np.float32)
    projects = [None, None, None, "proj-a", "proj-b"]
    started = time.perf_counter()
    page_exps: list[Experience] = []
    page_vecs: list[np.ndarray] = []
    for i in range(size - 1):
        j = i % len(triggers)
        noise = np.asarray(rng.normal(size=base.shape[1]), dtype=np.float32)
        noise *= 0.75 / np.linalg.norm(noise)
        vec = base[j] + noise
        page_vecs.append(vec / np.linalg.norm(vec))
        page_exps.append(
            Experience(
                text=f"When running `{triggers[j]}`: {ADVICE[i % len(ADVICE)]} (#{i})",
                trigger=f"{triggers[j]} #{i}",
                tier=(3, 3, 2, 2, 1)[i % 5],
                project=projects[i % len(projects)],
                topic=triggers[j].split()[0],
                seen_count=1 + i % 3,
            )
        )
        if len(page_exps) == 5000:
            store.add_vectors(page_exps, np.asarray(page_vecs))
            page_exps, page_vecs = [], []
    if page_exps:
        store.add_vectors(page_exps, np.asarray(page_vecs))
    hit = Experience(text="Never rm -rf the build dir by hand; run `make clean`.", trigger=HIT_TRIGGER, tier=2)
    store.add(hit)
    took = time.perf_counter() - started
    assert store.count() == size, store.count()
    return took, hit.id


def run_cli(home: Path, args: list[str], timeout: float = 900, **extra: str) -> dict:
    env = env_for(home)
    env.update(extra)
    started = time.perf_counter()
    proc = subprocess.run([PY, "-m", "twiceshy", *args], capture_output=True, env=env, cwd=str(home), timeout=timeout)
    took = time.perf_counter() - started
    return {
        "cmd": " ".join(args),
        "rc": proc.returncode,
        "s": round(took, 3),
        "out_kb": round(len(proc.stdout) / 1024, 1),
        "err": proc.stderr.decode(errors="replace").strip().splitlines()[-1:] if proc.returncode else [],
        "digest": hashlib.sha256(proc.stdout + b"\0" + proc.stderr + b"\0%d" % proc.returncode).hexdigest(),
    }


def floor_s() -> float:
    """One bare interpreter start (``python -I -S -c pass``: the floor every benchmark prints)."""
    started = time.perf_counter()
    subprocess.run([PY, "-I", "-S", "-c", "pass"], check=True)
    return time.perf_counter() - started


def read_command_list(hit_id: str, out_dir: Path) -> list[list[str]]:
    return [
        ["list"],
        ["list", "--json"],
        ["list", "--tier", "rule"],
        ["list", "--offset", "50000", "--limit", "20"],
        ["stats"],
        ["search", "rm -rf build"],
        ["show", hit_id],
        ["graph", hit_id],
        ["timeline", "git"],
        ["health"],
        ["projects"],
        ["review"],
        ["context"],
        ["suggest"],
        ["export", "--all", "-o", str(out_dir / "export-all.json")],
        ["doctor", "--no-model"],
    ]


def start_engine(home: Path) -> dict:
    """An engine for ``home``, ready to answer reads (Chroma open, in-memory index loaded)."""
    from twiceshy.engine import server as engine_mod

    engine_mod.spawn_detached(home, env=env_for(home))
    status = engine_mod.wait_ready(home, timeout=600)
    if status is None:
        raise SystemExit(f"engine did not start: see {home / 'engine.log'}")
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:  # reads are declined until Chroma is open behind the warm cache
        status = engine_mod.call(home, "ping", timeout=5.0) or {}
        if status.get("store") == "chroma":
            break
        time.sleep(0.5)
    # The in-memory index loads in the background after that (from Chroma when the warm-start cache
    # is stale: a minute at 100k, competing with every read for the GIL): timed reads wait for it.
    while time.monotonic() < deadline:
        status = engine_mod.call(home, "ping", timeout=5.0) or {}
        if status.get("index_rows") is not None:
            break
        time.sleep(0.5)
    run_cli(home, ["search", "warm up"])
    return status


def read_commands(home: Path, hit_id: str, out_dir: Path, repeat: int = 3) -> list[dict]:
    """Every read command without an engine, then with one; the floor next to each engine run."""
    from twiceshy.engine import server as engine_mod

    commands = read_command_list(hit_id, out_dir)
    engine_mod.stop(home)
    print("  without an engine (each command in a fresh process, as before):", flush=True)
    rows = []
    for args in commands:
        row = run_cli(home, args, TWICESHY_READ_VIA_ENGINE="0")
        rows.append({"cmd": row["cmd"], "no_engine": row})
        flag = "" if row["rc"] == 0 else f"  EXIT {row['rc']}: {' '.join(row['err'])[:160]}"
        print(f"    {row['cmd'][:40]:40s} {row['s']:8.2f} s  {row['out_kb']:9.1f} KB{flag}", flush=True)
    status = start_engine(home)
    print(f"  with a running engine (pid {status.get('pid')}, RSS {(status.get('rss_bytes') or 0) / 2**20:.0f} MB;")
    print(f"  median of {repeat} runs; floor = bare `python -I -S -c pass` started next to each run):")
    print("  (in engine: the engine's own time for the command, from its status; the rest is the CLI process)")
    print(
        f"    {'command':40s} {'no engine':>10s} {'engine':>8s} {'in engine':>7s} {'floor':>7s}"
        f"  {'rc':>3s} {'KB':>9s}  same output"
    )
    try:
        for row, args in zip(rows, commands):
            runs, floors, inside = [], [], []
            for _ in range(repeat):
                floors.append(floor_s())
                runs.append(run_cli(home, args))
                last = ((engine_mod.call(home, "ping", timeout=5.0) or {}).get("reads") or {}).get("last_ms") or {}
                inside.append(sum(last.get(args[0], [0.0])) / 1000)
            runs.sort(key=lambda r: r["s"])
            best = runs[len(runs) // 2]
            best["floor_s"] = round(sorted(floors)[len(floors) // 2], 3)
            best["identical"] = all(r["digest"] == row["no_engine"]["digest"] for r in runs)
            best["in_engine_s"] = round(sorted(inside)[len(inside) // 2], 3) if args[0] in ROUTED else None
            row["engine"] = best
            inner = "     -" if best["in_engine_s"] is None else f"{best['in_engine_s']:6.3f}"
            print(
                f"    {row['cmd'][:40]:40s} {row['no_engine']['s']:9.2f}s {best['s']:7.3f}s {inner}s"
                f" {best['floor_s']:6.3f}s  {best['rc']:3d} {best['out_kb']:9.1f}  {'yes' if best['identical'] else 'NO'}",
                flush=True,
            )
        reads = (engine_mod.call(home, "ping", timeout=5.0) or {}).get("reads")
        print(f"  engine reads: {reads}; load average {os.getloadavg()[0]:.2f}")
    finally:
        engine_mod.stop(home)
    return rows


def hit_lesson_id(home: Path) -> str:
    """The id of the lesson ``build`` adds for ``HIT_TRIGGER`` (the top search hit)."""
    row = subprocess.run(
        [PY, "-m", "twiceshy", "search", HIT_TRIGGER, "-k", "1"],
        capture_output=True,
        text=True,
        env={**env_for(home), "TWICESHY_READ_VIA_ENGINE": "0"},
        cwd=str(home),
        timeout=300,
        check=True,
    )
    return row.stdout.split()[1]


def run_count(home: Path) -> int:
    code = "from twiceshy.engine.context import make_context; print(make_context(None).store.count())"
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=env_for(home), timeout=300, check=True)
    return int(out.stdout.split()[-1])


def session_end(home: Path) -> dict:
    """Time the evolution a session end applies, after a session that touched a few lessons."""
    from twiceshy.base.types import CoreEvent
    from twiceshy.engine.context import make_context
    from twiceshy.learning import evolve
    from twiceshy.learning.ingest import store_lesson

    use_home(home)
    ctx = make_context(None)
    store = ctx.store
    event = CoreEvent(kind="session_end", agent="claude-code", native_event="SessionEnd", session_id="bench")
    # a first pass records where the journal stands (as the engine's previous session end would)
    started = time.perf_counter()
    evolve.after_session(ctx, event)
    first = time.perf_counter() - started
    ids = [e.id for e, _ in store.search("git push --force origin main", k=5)]
    for exp_id in ids:
        evolve.record_verdict(ctx, exp_id, "FOLLOWED")
    store_lesson(ctx, "Run the migrations before the tests", "pytest tests/db --create-db")
    started = time.perf_counter()
    counts = evolve.after_session(ctx, event)
    took = time.perf_counter() - started
    return {"first_s": round(first, 2), "s": round(took, 2), "counts": counts}


def import_rows(n: int) -> list[dict]:
    """``n`` distinct lessons as export records (flags and values make each distinct)."""
    rows = []
    tools = list(TOOLS.items())
    for i in range(n):
        tool, args = tools[i % len(tools)]
        arg = args[(i // len(tools)) % len(args)]
        rows.append(
            {
                "id": f"imp{i}",
                "text": f"{ADVICE[i % len(ADVICE)]} before `{tool} {arg}` (case {i})",
                "trigger": f"{tool} {arg} --case={i} --shard={i % 17}",
                "tier": 1 + i % 3,
            }
        )
    return rows


def timed_import(home: Path, path: Path) -> dict:
    started = time.perf_counter()
    proc = subprocess.run(
        [PY, "-m", "twiceshy", "import", str(path)],
        capture_output=True,
        env=env_for(home),
        cwd=str(home),
        timeout=3600,
    )
    took = time.perf_counter() - started
    tail = proc.stdout.decode(errors="replace").strip().splitlines()[-1:] or proc.stderr.decode().splitlines()[-1:]
    return {"rc": proc.returncode, "s": round(took, 1), "summary": " ".join(tail)[:200]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--import-n", type=int, default=10_000)
    parser.add_argument("--skip-import", action="store_true")
    parser.add_argument("--only-import", action="store_true", help="skip the read commands and the session end")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--home", type=Path, help="use this store (a copy: it is written to) instead of building one")
    parser.add_argument("--hit-id", help="with --home: the id of the lesson searched for (default: looked up)")
    parser.add_argument("--reads-only", action="store_true", help="only the read commands")
    parser.add_argument("--repeat", type=int, default=3, help="engine runs per read command (median)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="twiceshy-scale-"))
    results: dict = {"size": args.size, "cpus": os.cpu_count()}
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    try:
        if args.home:
            home = args.home.resolve()
            hit_id = args.hit_id or hit_lesson_id(home)
            args.size = int(run_count(home))
            results["size"] = args.size
            print(f"store: {home} ({args.size:,} lessons)", flush=True)
        else:
            home = root / "big"
            home.mkdir()
            took, hit_id = build(home, args.size)
            results["build_s"] = round(took, 1)
            print(f"build: {args.size:,} lessons in {took:.1f} s (add_vectors, pages of 5,000)", flush=True)
        if not args.only_import:
            print(f"read commands against {args.size:,} lessons:")
            results["commands"] = read_commands(home, hit_id, root, repeat=args.repeat)
        if not args.only_import and not args.reads_only:
            results["session_end"] = session_end(home)
            se = results["session_end"]
            print(f"session end (evolution pass): {se['s']:.2f} s (first pass {se['first_s']:.2f} s); {se['counts']}")
        if not args.skip_import and not args.reads_only:
            n = args.import_n
            doc = {"format": "twiceshy-export", "schema_version": 1, "lessons": import_rows(n), "edges": []}
            plain = root / "import-plain.json"
            plain.write_text(json.dumps(doc))
            fresh = root / "fresh"
            fresh.mkdir()
            row = timed_import(fresh, plain)
            results["import_embed"] = row
            print(
                f"import {n:,} (every trigger embedded) into an empty store: {row['s']} s rc={row['rc']} {row['summary']}"
            )
            carried = root / "import-vectors.json"
            exp = run_cli(fresh, ["export", "--all", "--vectors", "-o", str(carried)])
            assert exp["rc"] == 0, exp
            second = root / "second"
            second.mkdir()
            row = timed_import(second, carried)
            results["import_vectors"] = row
            print(f"import {n:,} (vectors carried) into an empty store: {row['s']} s rc={row['rc']} {row['summary']}")
            row = timed_import(home, carried)
            results["import_into_big"] = row
            print(
                f"import {n:,} (vectors carried) into the {args.size:,} store: {row['s']} s rc={row['rc']} {row['summary']}"
            )
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
