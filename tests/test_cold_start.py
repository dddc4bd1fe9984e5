"""A fast cold start: the warm-start cache answers like the store, and nothing heavy loads before the first answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_kit import serve_pids
from twiceshy.engine import server as engine_mod
from twiceshy.engine import warmstart
from twiceshy.hooks import wire

PY = sys.executable
CLIENT = str(Path(wire.__file__).with_name("client.py"))
REPO = Path(__file__).resolve().parent.parent


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TWICESHY_HOME=str(home), TWICESHY_CONFIG_DIR=str(home / "config"), TWICESHY_RETRIEVAL__WARN="context")
    env.update(extra)
    return env


def wait_for(predicate, timeout: float = 60.0, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def seeded_store(ctx):
    from twiceshy.base.types import Experience

    store = ctx.store
    programs = ["git", "npm", "docker", "kubectl", "terraform", "cargo", "make", "psql"]
    lessons = [
        Experience(text=f"lesson {i}: check before {p}", trigger=f"{p} {verb} thing{i}", tier=3 - i % 3)
        for i, (p, verb) in enumerate((p, v) for p in programs for v in ("push", "apply", "delete", "build"))
    ]
    lessons.append(Experience(text="Never rm -rf the build dir; run make clean", trigger="rm -rf build"))
    lessons.append(Experience(text="project-only: rebuild the db", trigger="psql -f schema.sql", project="proj-1"))
    lessons.append(Experience(text="other project", trigger="psql -f schema.sql --single", project="proj-2"))
    old = Experience(text="old advice on deploys", trigger="make deploy", superseded_by="x")
    lessons.append(old)
    store.add_many(lessons)
    store.add_edge(lessons[0].id, lessons[1].id, "relates-to")
    return store, lessons


QUERIES = ["rm -rf build", "git push --force", "psql -f schema.sql", "make deploy", "kubectl delete pod", "zzz qqq"]


def test_warm_cache_answers_like_the_store(ctx) -> None:
    store, lessons = seeded_store(ctx)
    assert warmstart.write_cache(store)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None and len(cache.ids) == len(lessons)
    assert os.stat(warmstart.cache_path(store.path)).st_mode & 0o777 == 0o600
    warm = warmstart.WarmStore(cache, store.embedder, store.path, lambda: store)
    for query in QUERIES:
        for project in (None, "proj-1"):
            for include_superseded in (True, False):
                want = store.search(query, k=5, project=project, include_superseded=include_superseded)
                got = warm.search(query, k=5, project=project, include_superseded=include_superseded)
                assert [e.id for e, _ in got] == [e.id for e, _ in want], (query, project)
                assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(got, want))
                assert [e.to_dict() for e, _ in got] == [e.to_dict() for e, _ in want]
    assert warm.count() == store.count()
    assert [e.id for e in warm.get_many([lessons[3].id, "nope"])] == [lessons[3].id]
    assert warm.neighbours(lessons[0].id) == store.neighbours(lessons[0].id)
    assert not warm.stale


def test_a_write_makes_the_cache_stale_and_reads_go_to_the_store(ctx) -> None:
    from twiceshy.base.types import Experience

    store, _ = seeded_store(ctx)
    assert warmstart.write_cache(store)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    loaded = []

    def loader():
        loaded.append(1)
        return store

    warm = warmstart.WarmStore(cache, store.embedder, store.path, loader)
    warm.load_real()
    new = store.add(Experience(text="Use the staging profile", trigger="terraform apply -var env=prod"))
    assert warmstart.open_cache(store.path, store.embedder.name) is None  # a new engine would not use it
    hits = warm.search("terraform apply -var env=prod", k=1)
    assert warm.stale and hits[0][0].id == new.id and loaded == [1]
    with pytest.raises(AttributeError):
        warm.__no_such_dunder__  # noqa: B018


def _start(home: Path, **extra: str) -> dict:
    engine_mod.spawn_detached(home, env=env_for(home, **extra))
    status = engine_mod.wait_ready(home, timeout=120)
    assert status is not None, (home / "engine.log").read_text()
    return status


def _pre_tool(home: Path, session: str, command: str, budget_ms: int = 20000) -> subprocess.CompletedProcess:
    """The stdlib hook client, run as an agent runs it, on one Bash call."""
    payload = {"session_id": session, "cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": command}}
    return subprocess.run(
        [PY, "-I", "-S", CLIENT, "--home", str(home), "--budget-ms", str(budget_ms), "claude-code", "PreToolUse"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env_for(home),
        timeout=60,
    )


def test_engine_answers_its_first_search_from_the_cache_with_nothing_heavy_loaded(twiceshy_home: Path) -> None:
    home = twiceshy_home
    seed = (
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        "store_lesson(make_context(None), 'Never rm -rf the build dir; run make clean', 'rm -rf build')\n"
    )
    subprocess.run([PY, "-c", seed], env=env_for(home), check=True, timeout=120)
    try:
        first = _start(home)
        assert first["store"] == first["started_from"] == "chroma"  # no cache yet
        cache = home / "store" / warmstart.FILE_NAME
        assert wait_for(cache.exists, timeout=60)  # written in the background once the store is open
        assert engine_mod.stop(home, timeout=60)  # polite: it writes the warm cache as it exits
        status = _start(home)
        # which store answers *now* is a race (the hand-over to Chroma runs in the background)
        assert status["started_from"] == "warm cache", status
        assert status["heavy_at_ready"] == [], status  # no chromadb, litellm, mcp, rich, dashboard, httpx
        out = _pre_tool(home, "c1", "rm -rf build", budget_ms=10000)
        assert b"make clean" in out.stdout, out
        # a lesson another process writes is found on the next search (the cache is stale by then)
        learn = subprocess.run(
            [PY, "-m", "twiceshy", "learn", "Pin the chart version", "--trigger", "helm upgrade --install web ./chart"],
            env=env_for(home),
            capture_output=True,
            timeout=120,
        )
        assert learn.returncode == 0, learn.stderr
        out = _pre_tool(home, "c1", "helm upgrade --install web ./chart")
        assert b"Pin the chart version" in out.stdout, out
    finally:
        engine_mod.stop(home, timeout=60)
        assert wait_for(lambda: not serve_pids(home), timeout=30)  # a SIGKILLed engine takes a moment to go


def test_a_warning_counted_before_stop_leaves_the_cache_current_for_the_next_start(twiceshy_home: Path) -> None:
    """The hit count a warning adds (kept in memory, written at exit) is written before the
    exit's cache write: the next start answers from the cache, and the count is kept."""
    home = twiceshy_home
    seed = (
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        "store_lesson(make_context(None), 'Never rm -rf the build dir; run make clean', 'rm -rf build')\n"
    )
    subprocess.run([PY, "-c", seed], env=env_for(home), check=True, timeout=120)
    cache = home / "store" / warmstart.FILE_NAME
    try:
        _start(home)
        assert wait_for(cache.exists, timeout=60)
        out = _pre_tool(home, "h1", "rm -rf build")
        assert b"make clean" in out.stdout, out  # shown: one hit, pending in the engine's memory
        assert engine_mod.stop(home, timeout=60)
        assert wait_for(lambda: not serve_pids(home), timeout=30)
        assert warmstart.WarmCache(cache).generation == warmstart.read_generation(home / "store")
        # This engine opens Chroma but never hands over to it (parked at a fault point): a hit
        # count waits for Chroma and goes to it while the warm cache still answers; shutdown
        # does not wait for the hand-over, and still brings the cache up to date.
        status = _start(home, TWICESHY_FAULT_PAUSE="engine.store_opened:1")
        assert status["started_from"] == "warm cache", status
        out = _pre_tool(home, "h2", "rm -rf build")
        assert b"make clean" in out.stdout, out
        assert wait_for((home / "fault-engine.store_opened").exists, timeout=60)  # Chroma open, not handed over
        assert engine_mod.stop(home, timeout=60)
        assert wait_for(lambda: not serve_pids(home), timeout=30)
        assert warmstart.WarmCache(cache).generation == warmstart.read_generation(home / "store")
        status = _start(home)
        assert status["started_from"] == "warm cache", status
    finally:
        engine_mod.stop(home, timeout=60)
        assert wait_for(lambda: not serve_pids(home), timeout=30)
    count = (
        "from twiceshy.engine.context import make_context\nprint(sum(e.hits for e in make_context(None).store.all()))\n"
    )
    hits = subprocess.run([PY, "-c", count], env=env_for(home), check=True, capture_output=True, text=True, timeout=120)
    assert hits.stdout.split()[-1] == "2", hits  # both counts were written, once each


def test_cold_start_bench_runs(tmp_path: Path) -> None:
    out = subprocess.run(
        [PY, str(REPO / "bench" / "cold_start.py"), "-n", "1", "--size", "30", "--window", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k not in ("TWICESHY_HOME", "TWICESHY_CONFIG_DIR")},
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "spawn -> first answered search: median" in out.stdout and "RSS" in out.stdout
    assert "python -I -S -c pass" in out.stdout  # the floor, measured in the same run
    # The cold window: every call before the engine's first answer was held by the client alone.
    window = out.stdout.split("cold window", 1)[1]
    assert "ran unchecked                0" in window, window
