"""Team memory costs: search on the embedded store vs a ``chroma run`` server on loopback.

Starts ``chroma run`` on a free 127.0.0.1 port (and reports how long it took
to answer its heartbeat), fills an embedded store and the server with the
same N lessons (hash embedder: the figures are about the stores, not the
model), then prints median/p95, in the same run, of:

* ``search`` (embed + query + project filter) on each store;
* a write (``update``: one count change) on each — on the server this is
  outbox journal + delivery;
* ``search`` on a team store whose server is down (fail open, no network).

Run::

    python bench/team_store.py [lessons=2000] [queries=200]
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _report(name: str, samples: list[float]) -> None:
    ms = [s * 1000 for s in samples]
    print(f"{name:<40} median {statistics.median(ms):8.2f} ms   p95 {_pct(ms, 0.95):8.2f} ms   (n={len(ms)})")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_chroma(path: Path, port: int) -> tuple[subprocess.Popen, float]:
    chroma = str(Path(sys.executable).with_name("chroma"))
    started = time.perf_counter()
    proc = subprocess.Popen(
        [chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    while True:
        if proc.poll() is not None:
            raise SystemExit("chroma run exited")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1):
                return proc, time.perf_counter() - started
        except OSError:
            time.sleep(0.05)


def _timed(fn, n: int) -> list[float]:
    out = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    n_lessons = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    n_queries = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    root = Path(tempfile.mkdtemp(prefix="ts-bench-team-"))
    os.environ["TWICESHY_HOME"] = str(root / "home")
    os.environ["TWICESHY_CONFIG_DIR"] = str(root / "home" / "config")
    port = _free_port()
    proc, up_s = _start_chroma(root / "server", port)
    print(f"chroma run answered its heartbeat after {up_s:.2f} s")
    try:
        from twiceshy.base.config import load_config
        from twiceshy.base.types import Experience
        from twiceshy.memory.embedding import make_embedder
        from twiceshy.memory.store import ExperienceStore, open_client
        from twiceshy.memory.team import open_team_store

        embedder = make_embedder("hash")
        rng = random.Random(0)
        words = (
            "git push force npm yarn pip install docker compose kubectl apply rm build test pytest cargo make".split()
        )
        projects = [f"proj{i}-{i:08x}" for i in range(4)] + [None]
        exps = [
            Experience(
                text=f"lesson {i}",
                trigger=" ".join(rng.choice(words) for _ in range(4)) + f" x{i}",
                project=rng.choice(projects),
            )
            for i in range(n_lessons)
        ]
        queries = [" ".join(rng.choice(words) for _ in range(3)) for _ in range(n_queries)]

        path = root / "embedded"
        embedded = ExperienceStore(open_client("embedded", path=path), embedder, path=path)
        base = {"TWICESHY_STORE__MODE": "server", "TWICESHY_STORE__PORT": str(port)}
        team = open_team_store(load_config(environ=base), embedder)
        for store in (embedded, team):
            store.add_many(exps)
        assert team.pending() == 0 and team.count() == n_lessons

        print(f"{n_lessons} lessons, {n_queries} queries, hash embedder")
        for name, store in (("embedded", embedded), ("server (loopback)", team)):
            store.search(queries[0], k=8, project=projects[0])  # warm
            _report(
                f"search, {name}",
                _timed(lambda i, s=store: s.search(queries[i], k=8, project=projects[i % 4]), n_queries),
            )
        for name, store in (("embedded", embedded), ("server (loopback)", team)):
            picks = store.get_many([exps[i].id for i in range(min(50, n_lessons))])

            def write(i: int, s=store, picks=picks) -> None:
                exp = picks[i % len(picks)]
                exp.hits += 1
                s.update(exp)

            _report(f"update (one count), {name}", _timed(write, min(100, n_queries)))

        down = open_team_store(load_config(environ={**base, "TWICESHY_STORE__PORT": str(_free_port())}), embedder)
        _report("search, server down (fail open)", _timed(lambda i: down.search(queries[i], k=8), n_queries))
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
