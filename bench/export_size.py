"""Export size: bytes per lesson and wall time of ``twiceshy export`` and
``twiceshy list --all --json`` at ``--size`` lessons, next to the floor.

The store (built here, once per run) is shaped like a used memory, not a
synthetic one: most lessons are command lessons as ``twiceshy learn
--trigger`` stores them (a structured lesson with its parsed mistake and
signature), a fifth are seeded instruction bullets (the trigger is the
text), a tenth have tags, a few are superseded; vectors are real MiniLM
vectors of a few hundred triggers plus noise, as in ``bench/scale.py``.

Each command runs as a whole process (``python -m twiceshy …``, the engine
not running) ``--repeat`` times, alternating with a bare ``python -I -S -c
pass`` (the floor, measured in the same run: the machine is shared). With
``--old DIR`` (a folder holding an older ``twiceshy/`` package, put first on
``PYTHONPATH``) the same commands run with that version too, interleaved, for
a before figure in the same window (a version without ``export --vectors``
runs ``export`` as it is: before schema 2 it always carried vectors).

At 10,000 lessons on a loaded 2-core machine (load average 3-4), floor 12 ms,
``--old`` the commit before schema 2: ``export --all`` 1,987 -> 731 bytes a
lesson, 6.8 -> 3.4 s; ``export --all --vectors`` 1,769 bytes a lesson;
``list --all --json`` 1,165 -> 817 bytes a lesson, 2.7 -> 1.7 s.

Run::

    python bench/export_size.py                      # 10,000 lessons
    python bench/export_size.py --old /tmp/oldpkg    # before and after
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from hook_latency import ADVICE, TOOLS  # noqa: E402

PY = sys.executable


def env_for(home: Path, pythonpath: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_NO_AUTOSTART="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def build(home: Path, size: int, seed: int = 7) -> float:
    """A store of ``size`` lessons shaped as the module docstring says; returns seconds taken."""
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context
    from twiceshy.learning.ingest import _from_trigger

    started = time.perf_counter()
    ctx = make_context(None)
    store = ctx.store
    rng = np.random.default_rng(seed)
    triggers = [f"{tool} {arg}" for tool, args in TOOLS.items() for arg in args]
    base = np.asarray(store.embedder.embed(triggers), dtype=np.float32)
    projects = [None, None, None, "proj-a", "proj-b"]
    exps: list[Experience] = []
    vecs: list[np.ndarray] = []
    for i in range(size):
        j = i % len(triggers)
        noise = np.asarray(rng.normal(size=base.shape[1]), dtype=np.float32)
        noise *= 0.75 / np.linalg.norm(noise)
        vec = base[j] + noise
        advice = ADVICE[i % len(ADVICE)]
        if i % 5 == 4:  # a seeded bullet: the trigger is the text
            text = f"Always {advice} before changing the {triggers[j].split()[0]} setup (item {i})"
            exp = Experience(text=text, trigger=text, kind="seed", source=f"seed:CLAUDE.md:{i}", tags=["seed"])
        else:
            trigger = f"{triggers[j]} --case={i}"
            text = f"When running `{triggers[j]}`: {advice} (#{i})"
            exp = Experience(
                text=text,
                trigger=trigger,
                kind="correction",
                source=f"claude-code:s{i % 97}",
                structured=_from_trigger(trigger, text),
                tags=["deploy", "infra"] if i % 10 == 0 else [],
            )
        exp.tier = (3, 3, 2, 2, 1)[i % 5]
        exp.project = projects[i % len(projects)]
        exp.topic = triggers[j].split()[0]
        exp.seen_count, exp.hits, exp.follows = 1 + i % 3, i % 4, i % 2
        exps.append(exp)
        vecs.append(vec / np.linalg.norm(vec))
    for k in range(0, size - 1, 50):  # a few superseded lessons
        exps[k].superseded_by = exps[k + 1].id
    for start in range(0, size, 5000):
        store.add_vectors(exps[start : start + 5000], np.asarray(vecs[start : start + 5000]))
    assert store.count() == size, store.count()
    return time.perf_counter() - started


def timed(argv: list[str], env: dict[str, str] | None, cwd: Path) -> tuple[float, int, int]:
    """(wall seconds, stdout bytes, exit code) of one whole process."""
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=str(cwd), capture_output=True, timeout=900)
    took = time.perf_counter() - started
    if proc.returncode:
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    return took, len(proc.stdout), proc.returncode


COMMANDS = [
    ("export --all", ["export", "--all", "--include-superseded"]),
    ("export --all --vectors", ["export", "--all", "--include-superseded", "--vectors"]),
    ("list --all --json", ["list", "--all", "--json"]),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--old", type=Path, help="a folder holding an older twiceshy/ package (the before figures)")
    parser.add_argument("--home", type=Path, help="use this store instead of building one (it is only read)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="twiceshy-export-size-"))
    print(f"python {sys.version.split()[0]} on {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    if args.home:
        home = args.home.resolve()
    else:
        home = root / "home"
        home.mkdir()
        print(f"build: {args.size:,} lessons in {build(home, args.size):.1f} s", flush=True)
    versions = [("after", None)]
    if args.old:
        versions.insert(0, ("before", str(args.old.resolve())))
    floor: list[float] = []
    rows: dict[tuple[str, str], list[tuple[float, int, int]]] = {}
    for _ in range(args.repeat):
        for label, cmd in COMMANDS:
            for version, path in versions:
                argv = [PY, "-m", "twiceshy", *cmd]
                if version == "before" and "--vectors" in cmd:
                    argv.remove("--vectors")  # the old export always carried vectors
                rows.setdefault((label, version), []).append(timed(argv, env_for(home, path), root))
            floor.append(timed([PY, "-I", "-S", "-c", "pass"], None, root)[0])
    lessons = args.size
    floor_ms = statistics.median(floor) * 1000
    print(f"store: {lessons:,} lessons; {args.repeat} runs each; load average now {os.getloadavg()[0]:.2f}")
    print(f"floor     python -I -S -c pass   {floor_ms:8.1f} ms (median)")
    print(f"{'command':<26} {'version':<7} {'bytes/lesson':>12} {'total MB':>9} {'wall ms':>9} {'x floor':>8}")
    for (label, version), runs in rows.items():
        if any(rc for _, _, rc in runs):
            print(f"{label:<26} {version:<7} failed (exit {[rc for _, _, rc in runs]})")
            continue
        wall = statistics.median(t for t, _, _ in runs) * 1000
        size = runs[-1][1]
        print(f"{label:<26} {version:<7} {size / lessons:12.0f} {size / 1e6:9.2f} {wall:9.0f} {wall / floor_ms:8.1f}")
    import shutil

    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
