"""Import speed: ``twiceshy import`` of N lessons, where the time goes, and the
embedding throughput before and after in the same run.

Steps (the load average is printed before each):

1. **embedding** — the triggers of the file embedded two ways, alternating
   ``--rounds`` times on ``--sample`` triggers: *before*, the path import used
   until now (``embed()`` in length-sorted batches of 64 on the search
   session, two intra-op threads) and *after*, ``embed_many`` (its own
   single-threaded session from two worker threads, batches of 16). Texts/s
   (wall), ms of CPU per text (this process, all threads), and the largest
   deviation from ``embed()`` of each text alone (what learning and search use).
2. **import** — ``python -m twiceshy import FILE`` into an empty store, as a
   user runs it (vectors embedded): wall seconds, CPU seconds, peak RSS (from
   ``/usr/bin/time``). ``--old DIR`` runs the same import first with an older
   twiceshy package (a folder holding ``twiceshy/``, put first on
   ``PYTHONPATH``) for a before figure in the same window.
3. **breakdown** — the same import in a child process calling
   :func:`twiceshy.ops.portable.import_data` with step timings (start-up,
   JSON, parse, read store, embed, decide, write lessons, edges).
4. **carried** (``--vectors``) — that store exported (``export --all --vectors``, vectors
   carried) and imported into another empty store.

Rows (``--rows``): ``scale`` is ``bench/scale.py``'s ``import_rows`` (every
trigger ``<tool> <args> --case=N --shard=M``: 33-35 tokens, the long end);
``real`` mixes command shapes found in lessons (5-30 tokens, most 10-20).

``--file F`` imports an existing export file instead of generated rows
(steps 2-3; ``--repeat R`` alternates old and new R times with ``--old``).
An export of ``bench/scale.py``'s store carries vectors that are *not* of
their triggers (its build reuses a few hundred real vectors), so importing
it embeds every trigger: for a carried-vector figure use a file whose
vectors are real (an export of a store built by importing, or triggers
embedded with ``embed_many``).

Run::

    python bench/import_speed.py --file export.json --old /tmp/oldpkg --repeat 2
    python bench/import_speed.py --n 10000                      # scale rows, embed + breakdown
    python bench/import_speed.py --n 10000 --rows real --vectors
    python bench/import_speed.py --n 100000 --no-breakdown --vectors
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
PY = sys.executable


def load() -> str:
    return "load " + "/".join(f"{x:.1f}" for x in os.getloadavg())


def scale_rows(n: int) -> list[dict]:
    from scale import import_rows

    return import_rows(n)


WORDS = "api auth billing cache cart core db docs edge feed gateway infra jobs ledger mail media notify orders".split()
ENVS = ["dev", "staging", "prod", "qa", "eu-west-1", "us-east-2"]
ADVICE = [
    "Run the test suite first and read the failures",
    "Ask before doing this on the main branch",
    "Use the staging profile, never production credentials",
    "Back up the data directory before this",
    "Pin the exact version; the latest one broke the build",
    "Check the lock file is committed afterwards",
    "Read the migration notes: the schema changed",
]


def real_rows(n: int, seed: int = 11) -> list[dict]:
    """Distinct lessons whose triggers look like the commands agents run."""
    rng = random.Random(seed)

    def w() -> str:
        return rng.choice(WORDS)

    shapes = [
        lambda i: f"git push --force origin feature/{w()}-{i}",
        lambda i: f"git rebase -i HEAD~{i % 9 + 2}",
        lambda i: f"git reset --hard origin/{w()}-{i}",
        lambda i: f"npm install {w()}-client@{i % 7}.{i % 13}.0",
        lambda i: f"pytest tests/{w()}/test_{w()}_{i}.py -x -q",
        lambda i: f"kubectl delete pod {w()}-{i:x} -n {rng.choice(ENVS)}",
        lambda i: f"terraform apply -target=module.{w()}_{i}",
        lambda i: f"docker run --rm -v $PWD:/src {w()}/{w()}:{i % 20}.{i % 5}",
        lambda i: f"rm -rf build/{w()}_{i} dist",
        lambda i: f"./scripts/deploy.sh --env {rng.choice(ENVS)} --service {w()}{i}",
        lambda i: f"psql -h db-{i}.internal -U admin -c 'DROP TABLE {w()}_{i}'",
        lambda i: f"make {w()}-{i} -j4",
        lambda i: f"cargo build --release -p {w()}-{i}",
        lambda i: f"pip install -r requirements/{w()}-{i}.txt",
        lambda i: f"helm upgrade {w()}-{i} charts/{w()} --namespace {rng.choice(ENVS)} --atomic",
        lambda i: f"aws s3 rm s3://{w()}-bucket-{i}/ --recursive",
    ]
    rows = []
    for i in range(n):
        trigger = shapes[i % len(shapes)](i)
        rows.append(
            {"id": f"real{i}", "text": f"{ADVICE[i % len(ADVICE)]} ({i})", "trigger": trigger, "tier": 1 + i % 3}
        )
    return rows


def write_file(rows: list[dict], path: Path) -> None:
    doc = {"format": "twiceshy-export", "schema_version": 1, "lessons": rows, "edges": []}
    path.write_text(json.dumps(doc))


def env_for(home: Path, pythonpath: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_NO_AUTOSTART="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def embedding_step(triggers: list[str], rounds: int) -> dict:
    import numpy as np
    from twiceshy.memory.embedding import MiniLMEmbedder

    embedder = MiniLMEmbedder()

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def before() -> np.ndarray:
        order = sorted(range(len(triggers)), key=lambda i: len(triggers[i]))
        out = np.zeros((len(triggers), embedder.dim), dtype=np.float32)
        for s in range(0, len(order), 64):
            chunk = order[s : s + 64]
            out[chunk] = embedder.embed([triggers[i] for i in chunk])
        return out

    def after() -> np.ndarray:
        return embedder.embed_many(triggers)

    rows: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    got: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for name, fn in (("before", before), ("after", after)):
            wall, used = time.perf_counter(), cpu()
            got[name] = fn()
            wall, used = time.perf_counter() - wall, cpu() - used
            rows[name].append((len(triggers) / wall, 1000 * used / len(triggers)))
            print(
                f"  {name:6s}: {len(triggers) / wall:6.1f} texts/s, {1000 * used / len(triggers):5.2f} ms CPU/text  ({load()})"
            )
    alone = np.asarray([embedder.embed([t])[0] for t in triggers[:50]], dtype=np.float32)
    worst = float(1 - np.sum(got["after"][:50] * alone, axis=1).min())
    tokens = [len(e.ids) for e in embedder._bulk()[1].encode_batch(triggers)]
    embedder._bulk_session = None
    print(
        f"  1 - cosine(embed_many, embed alone), worst of 50: {worst:.2e}; tokens per trigger mean {np.mean(tokens):.1f}"
    )
    return {
        "texts": len(triggers),
        "tokens_mean": float(np.mean(tokens)),
        "before": rows["before"],
        "after": rows["after"],
        "worst_1_minus_cos": worst,
    }


def timed_cli(home: Path, args: list[str], pythonpath: str | None = None) -> dict:
    home.mkdir(parents=True, exist_ok=True)
    cmd = ["/usr/bin/time", "-f", "TIME %e %U %S %M", PY, "-m", "twiceshy", *args]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=env_for(home, pythonpath), cwd=str(home), timeout=7200)
    wall = time.perf_counter() - started
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    stats = next((line.split()[1:] for line in reversed(err) if line.startswith("TIME ")), ["0", "0", "0", "0"])
    out = proc.stdout.decode(errors="replace").strip().splitlines()
    return {
        "rc": proc.returncode,
        "s": round(wall, 1),
        "cpu_s": round(float(stats[1]) + float(stats[2]), 1),
        "rss_mb": round(int(stats[3]) / 1024),
        "summary": (out[-1:] or [line for line in err if not line.startswith("TIME ")][-1:] or [""])[0][:200],
    }


def child(home: str, path: str) -> None:
    """The import as the CLI does it, in this process, reporting step timings."""
    started = time.perf_counter()
    os.environ.update(TWICESHY_HOME=home, TWICESHY_CONFIG_DIR=home + "/config", TWICESHY_NO_AUTOSTART="1")
    from twiceshy.engine.context import make_context
    from twiceshy.ops.portable import import_file

    timings: dict[str, float] = {}
    ctx = make_context(None)
    ctx.store.count()
    timings["start-up"] = time.perf_counter() - started
    last = [-1]

    def progress(done: int, total: int) -> None:  # a line per 2 %, to follow a long run
        pct = 100 * done // max(total, 1)
        if pct >= last[0] + 2:
            last[0] = pct
            print(f"{time.perf_counter() - started:7.1f} s  {done}/{total}  {load()}", file=sys.stderr, flush=True)

    counts = import_file(ctx, Path(path), timings=timings, progress=progress)
    timings["total"] = time.perf_counter() - started
    print(json.dumps({"counts": counts, "timings": {k: round(v, 2) for k, v in timings.items()}}))


def breakdown(home: Path, path: Path) -> dict:
    home.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [PY, __file__, "--child", str(home), str(path)], capture_output=True, env=env_for(home), timeout=7200
    )
    if proc.returncode:
        return {"error": proc.stderr.decode(errors="replace").strip().splitlines()[-1:]}
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--rows", choices=("scale", "real"), default="scale")
    parser.add_argument("--sample", type=int, default=1024, help="triggers in the embedding step (0: skip it)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--old", help="a folder holding an older twiceshy package: its import runs first")
    parser.add_argument("--no-breakdown", action="store_true")
    parser.add_argument("--vectors", action="store_true", help="also import the export of the result (vectors carried)")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--keep", help="keep the stores and files in this folder")
    parser.add_argument("--file", help="import this export file instead of generated rows (steps 2-3 only)")
    parser.add_argument("--repeat", type=int, default=1, help="old/new import pairs, alternated (with --old)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="twiceshy-import-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; {load()}")
    if args.file:
        plain = Path(args.file).resolve()
        rows = []
        args.sample, args.rows = 0, f"file {plain.name}"
    else:
        rows = scale_rows(args.n) if args.rows == "scale" else real_rows(args.n)
        plain = root / f"import-{args.rows}-{args.n}.json"
        write_file(rows, plain)
    results: dict = {"n": args.n, "rows": args.rows, "cpus": os.cpu_count()}
    try:
        if args.sample:
            print(
                f"1. embedding {args.sample} triggers of the file (before: embed() x64, 2 threads; after: embed_many)"
            )
            step = sorted({r["trigger"] for r in rows})
            results["embedding"] = embedding_step(
                random.Random(3).sample(step, min(args.sample, len(step))), args.rounds
            )
        for turn in range(args.repeat):
            if args.old:
                print(f"2a. import {args.n:,} ({args.rows}), code at {args.old}  ({load()})")
                row = timed_cli(root / f"old{turn}", ["import", str(plain)], pythonpath=args.old)
                results.setdefault("import_old", []).append(row)
                print(
                    f"    {row['s']} s wall, {row['cpu_s']} s CPU, {row['rss_mb']} MB peak, rc {row['rc']}: "
                    f"{row['summary']}"
                )
            print(f"2. import {args.n:,} ({args.rows}) into an empty store  ({load()})")
            row = timed_cli(root / f"fresh{turn}" if turn else root / "fresh", ["import", str(plain)])
            results.setdefault("import", []).append(row)
            print(
                f"   {row['s']} s wall, {row['cpu_s']} s CPU, {row['rss_mb']} MB peak, rc {row['rc']}: {row['summary']}"
            )
            for name in (f"old{turn}", f"fresh{turn}"):
                if turn and not args.keep:
                    import shutil

                    shutil.rmtree(root / name, ignore_errors=True)
        if not args.no_breakdown:
            print(f"3. the same import with step timings (child process)  ({load()})")
            got = breakdown(root / "breakdown", plain)
            results["breakdown"] = got
            print("   " + ", ".join(f"{k} {v}" for k, v in got.get("timings", {}).items()) or str(got))
        if args.vectors:
            carried = root / f"export-{args.rows}-{args.n}.json"
            exp = timed_cli(root / "fresh", ["export", "--all", "--vectors", "-o", str(carried)])
            print(f"4. export --all --vectors: {exp['s']} s, {carried.stat().st_size / 1e6:.0f} MB  ({load()})")
            row = timed_cli(root / "second", ["import", str(carried)])
            results["import_carried"] = row
            print(
                f"   import {args.n:,} (vectors carried): {row['s']} s wall, {row['cpu_s']} s CPU, "
                f"{row['rss_mb']} MB peak, rc {row['rc']}: {row['summary']}"
            )
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
    print(load())
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
