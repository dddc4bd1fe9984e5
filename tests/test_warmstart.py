"""The warm-start cache at scale: written streaming, seeding the index, right after other processes' writes.

Real Chroma on disk; "another process" is a real subprocess writing to the
same store (its own writer token in the change journal).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from twiceshy.base.types import Experience
from twiceshy.engine import warmstart
from twiceshy.memory import index as index_mod

PY = sys.executable


def _lessons() -> list[Experience]:
    tools = ["git push --force", "npm publish", "docker system prune", "kubectl delete ns", "terraform destroy"]
    out = [
        Experience(text=f"lesson {i}: think before {t}", trigger=f"{t} target{i}", tier=1 + i % 3)
        for i, t in enumerate(t for t in tools for _ in range(3))
    ]
    out.append(Experience(text="scoped one", trigger="psql -f schema.sql", project="proj-1"))
    out.append(Experience(text="replaced advice", trigger="make deploy", superseded_by="x"))
    return out


def test_streaming_writer_pages_give_the_same_answers(ctx) -> None:
    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    store.add_edge(lessons[0].id, lessons[1].id, "relates-to")
    assert warmstart.write_cache(store, page=4)  # 17 lessons: five pages
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None and sorted(cache.ids) == sorted(e.id for e in lessons)
    assert os.stat(warmstart.cache_path(store.path)).st_mode & 0o777 == 0o600
    warm = warmstart.WarmStore(cache, store.embedder, store.path, lambda: store)
    for query in ("git push --force origin", "psql -f schema.sql", "make deploy", "zzz"):
        for project in (None, "proj-1"):
            for include_superseded in (True, False):
                want = store.search(query, k=6, project=project, include_superseded=include_superseded)
                got = warm.search(query, k=6, project=project, include_superseded=include_superseded)
                assert [e.to_dict() for e, _ in got] == [e.to_dict() for e, _ in want], (query, project)
    assert warm.edges_of([lessons[0].id, lessons[5].id]) == store.edges_of([lessons[0].id, lessons[5].id])
    assert warm.neighbours(lessons[1].id) == [(lessons[0].id, "relates-to")]
    assert not warm.stale


def test_an_aborted_or_raced_pass_keeps_the_old_cache_and_leaves_no_temp_file(ctx) -> None:
    store = ctx.store
    store.add_many(_lessons())
    assert warmstart.write_cache(store)
    before = warmstart.cache_path(store.path).read_bytes()
    calls = []

    def abort() -> bool:
        calls.append(1)
        return len(calls) > 2  # gives up before the third page

    store.add(Experience(text="newer", trigger="cargo publish"))
    assert not warmstart.write_cache(store, abort=abort, page=4, incremental=False)  # a full pass, by pages
    assert warmstart.cache_path(store.path).read_bytes() == before
    assert not warmstart.write_cache(store, abort=lambda: True)  # an incremental pass gives up too
    assert warmstart.cache_path(store.path).read_bytes() == before
    assert not [p.name for p in Path(store.path).iterdir() if p.name.endswith(".tmp")]
    assert warmstart.open_cache(store.path, store.embedder.name) is None  # stale: a new engine opens Chroma


WRITER = """
import sys
import time
from twiceshy.engine.context import make_context
from twiceshy.base.types import Experience
store = make_context(None).store
added, edited, gone = sys.argv[1:4]
store.add(Experience(id=added, text="Check the replica lag first", trigger="pg_ctl promote -D /data"))
exp = store.get(edited)
exp.project = "proj-9"
store.update(exp)
store.delete(gone)
"""


def test_index_seeded_from_the_cache_sees_what_another_process_wrote_after_it(
    ctx, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twiceshy.engine.context import make_context

    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    assert warmstart.write_cache(store)
    added, edited, gone = "feedfacecafe0001", lessons[3].id, lessons[6].id
    env = dict(os.environ)
    subprocess.run([PY, "-c", WRITER, added, edited, gone], env=env, check=True, timeout=120)

    cache = warmstart.WarmCache(warmstart.cache_path(store.path))  # stale now, still a valid seed
    assert warmstart.open_cache(store.path, store.embedder.name) is None

    def no_full_load(*_a, **_k):
        raise AssertionError("the index read every vector from Chroma instead of the cache")

    monkeypatch.setattr(index_mod.VectorIndex, "load", no_full_load)
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # as in a new process: nothing of Chroma's cached from before the writes
    fresh = make_context(tmp_path).store  # a restarted engine's store
    fresh.enable_index(background=False, seed=cache)
    assert fresh.index is not None and len(fresh.index) == len(lessons)  # +1 added, -1 forgotten
    hits = fresh.search("pg_ctl promote -D /data", k=1)
    assert hits and hits[0][0].id == added
    assert gone not in fresh.index.pos and fresh.get(gone) is None
    assert all(e.id != gone for e, _ in fresh.search(lessons[6].trigger, k=20))
    edited_trigger = lessons[3].trigger
    assert all(e.id != edited for e, _ in fresh.search(edited_trigger, k=20))  # now scoped to proj-9
    assert edited in [e.id for e, _ in fresh.search(edited_trigger, k=3, project="proj-9")]


def test_a_released_warm_store_reads_from_the_real_store(ctx) -> None:
    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    assert warmstart.write_cache(store)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    warm = warmstart.WarmStore(cache, store.embedder, store.path, lambda: store)
    warm.load_real()
    warm.release()
    assert warm.stale and warm.cache.ids == []
    assert warm.count() == store.count()
    assert [e.id for e, _ in warm.search("npm publish", k=2)] == [e.id for e, _ in store.search("npm publish", k=2)]


def test_edges_of_more_ids_than_sqlite_takes_in_one_query(ctx) -> None:
    from twiceshy.learning.ingest import _edges_of

    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    store.add_edge(lessons[0].id, lessons[1].id, "relates-to")
    store.add_edge(lessons[2].id, lessons[4].id, "generalizes")
    ids = [f"missing{i:05d}" for i in range(12_000)] + [lessons[1].id, lessons[2].id]
    want = {(lessons[0].id, "relates-to", lessons[1].id), (lessons[2].id, "generalizes", lessons[4].id)}
    got = {(e["src"], e["type"], e["dst"]) for e in store.edges_of(ids)}
    assert got == want
    assert {(e["src"], e["type"], e["dst"]) for e in _edges_of(ctx, ids)} == want
    store.enable_index()  # the engine: answers remembered per id until the next write
    assert {(e["src"], e["type"], e["dst"]) for e in store.edges_of(ids)} == want
    store.add_edge(lessons[1].id, lessons[3].id, "relates-to")
    got = {(e["src"], e["type"], e["dst"]) for e in store.edges_of(ids)}
    assert got == want | {(lessons[1].id, "relates-to", lessons[3].id)}


def test_near_finds_scoped_neighbours_above_the_threshold(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    base = rng.normal(size=(4, 32)).astype(np.float32)
    ids, vecs, metas = [], [], []
    for i in range(400):
        noise = rng.normal(size=32).astype(np.float32) * (0.05 if i < 8 else 1.0)
        vecs.append(base[i % 4] + noise)
        ids.append(f"r{i}")
        metas.append({"project": "" if i % 8 == 1 else f"p{i % 3}", "superseded_by": "x" if i == 4 else ""})
    for coarse_min in (10**9, 100):  # exact, then through the projection
        monkeypatch.setattr(index_mod, "COARSE_MIN", coarse_min)
        monkeypatch.setattr(index_mod, "COARSE_DIMS", 8)
        index = index_mod.VectorIndex()
        index.upsert(ids, np.asarray(vecs), metas)
        (found,) = index.near(base[:1], 0.95, k=10)
        # rows 0 and 4 are copies of base[0]; row 4 is superseded; global rows are never scoped neighbours
        assert found == ["r0"], (coarse_min, found)
        assert index.rows_of(["r0", "r2"]).shape == (2, 32) and index.rows_of(["r0", "nope"]) is None


def test_engine_seeds_its_index_from_a_stale_cache_and_finds_what_was_written_since(twiceshy_home: Path) -> None:
    import json

    from reliability_kit import serve_pids, wait_for
    from twiceshy.engine import server as engine_mod
    from twiceshy.hooks import wire

    home = twiceshy_home
    env = dict(os.environ, TWICESHY_RETRIEVAL__WARN="context")
    seed = (
        "from twiceshy.engine.context import make_context\n"
        "from twiceshy.engine import warmstart\n"
        "from twiceshy.learning.ingest import store_lesson\n"
        "ctx = make_context(None)\n"
        "store_lesson(ctx, 'Never rm -rf the build dir; run make clean', 'rm -rf build')\n"
        "assert warmstart.write_cache(ctx.store)\n"
    )
    subprocess.run([PY, "-c", seed], env=env, check=True, timeout=120)
    learn = subprocess.run(  # after the cache: it is stale now
        [PY, "-m", "twiceshy", "learn", "Pin the chart version", "--trigger", "helm upgrade --install web ./chart"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert learn.returncode == 0, learn.stderr
    try:
        engine_mod.spawn_detached(home, env=env)
        status = engine_mod.wait_ready(home, timeout=120)
        assert status is not None, (home / "engine.log").read_text()
        assert status["store"] == "chroma" and "index seeded from a stale cache" in status["timing_ms"], status
        client = str(Path(wire.__file__).with_name("client.py"))
        for command, want in (
            ("helm upgrade --install web ./chart", b"Pin the chart version"),
            ("rm -rf build", b"make clean"),
        ):
            out = subprocess.run(
                [PY, "-I", "-S", client, "--home", str(home), "--budget-ms", "20000", "claude-code", "PreToolUse"],
                input=json.dumps(
                    {"session_id": "c1", "cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": command}}
                ).encode(),
                capture_output=True,
                env=env,
                timeout=60,
            )
            assert want in out.stdout, out
    finally:
        engine_mod.stop(home, timeout=60)
        assert wait_for(lambda: not serve_pids(home), timeout=30)  # a SIGKILLed engine takes a moment to go


def _contents(store) -> dict[str, tuple[list[float], str, dict, str, bool]]:
    """What a cache file says about each lesson: vector, document, metadata, project, superseded."""
    cache = warmstart.WarmCache(warmstart.cache_path(store.path))
    out = {}
    for i, exp_id in enumerate(cache.ids):
        doc, meta = cache.row(i)
        code = int(cache.project_of[i])
        project = cache.project_names[code - 1] if code else ""
        out[exp_id] = ([round(float(x), 5) for x in cache.vectors[i]], doc, meta, project, bool(cache.superseded[i]))
    return out


class _CountingCollection:
    """Chroma's collection, with every ``get`` recorded (ids asked for, or a page)."""

    def __init__(self, col) -> None:
        self._col = col
        self.gets: list[dict] = []

    def get(self, *args, **kwargs):
        self.gets.append(kwargs)
        return self._col.get(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._col, name)


def test_incremental_rewrite_reads_only_what_changed_and_equals_a_full_one(ctx) -> None:
    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    store.add_edge(lessons[0].id, lessons[1].id, "relates-to")
    assert warmstart.write_cache(store)
    assert "merged" not in warmstart.WarmCache(warmstart.cache_path(store.path)).header  # the first one is full
    added, edited, gone = "feedfacecafe0002", lessons[3].id, lessons[6].id
    subprocess.run([PY, "-c", WRITER, added, edited, gone], env=dict(os.environ), check=True, timeout=120)
    store.refresh_if_stale()
    hit = store.get(lessons[9].id)
    hit.hits, hit.superseded_by = 7, lessons[8].id
    store.update(hit)
    store.add_edge(lessons[2].id, lessons[4].id, "generalizes")  # edges name no lesson in the journal

    counting = _CountingCollection(store._col)
    store._col = counting
    assert warmstart.write_cache(store)
    store._col = counting._col
    assert all("limit" not in g and set(g["ids"]) <= {added, edited, gone, hit.id} for g in counting.gets)
    header = warmstart.WarmCache(warmstart.cache_path(store.path)).header
    assert header["merged"] == 3  # added, edited, hit; the forgotten one is gone
    merged = _contents(store)
    assert warmstart.open_cache(store.path, store.embedder.name) is not None  # current
    assert warmstart.rewrite_cache(store)
    full = _contents(store)
    assert merged == full and added in merged and gone not in merged
    assert merged[edited][3] == "proj-9" and merged[hit.id][4] and merged[hit.id][2]["hits"] == 7
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    assert {(e["src"], e["type"]) for e in cache.edges or []} == {
        (lessons[0].id, "relates-to"),
        (lessons[2].id, "generalizes"),
    }
    stamp = warmstart.cache_path(store.path).stat().st_mtime_ns
    assert warmstart.update_cache(store) is True  # nothing changed since: nothing to do
    assert warmstart.cache_path(store.path).stat().st_mtime_ns == stamp


def test_incremental_rewrite_under_a_concurrent_writer_stays_consistent(ctx) -> None:
    """Another process writes while the pass reads: that pass gives up (the old
    cache stays), the next one takes the write in, and a seed built from it is right."""
    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    assert warmstart.write_cache(store)
    store.delete(lessons[0].id)  # something for the pass to read
    before = warmstart.cache_path(store.path).read_bytes()
    added, edited, gone = "feedfacecafe0003", lessons[3].id, lessons[6].id
    wrote: list[int] = []

    def write_meanwhile() -> bool:  # asked between the pass's reads: the other process writes right then
        if not wrote:
            subprocess.run([PY, "-c", WRITER, added, edited, gone], env=dict(os.environ), check=True, timeout=120)
            wrote.append(1)
        return False

    assert warmstart.write_cache(store, abort=write_meanwhile) is False
    assert wrote and warmstart.cache_path(store.path).read_bytes() == before
    assert not [p.name for p in Path(store.path).iterdir() if p.name.endswith(".tmp")]
    store.refresh_if_stale()
    assert warmstart.write_cache(store)
    assert warmstart.WarmCache(warmstart.cache_path(store.path)).header["merged"] == 2  # added, edited
    merged = _contents(store)
    assert added in merged and gone not in merged and lessons[0].id not in merged
    assert merged[edited][3] == "proj-9"
    assert warmstart.open_cache(store.path, store.embedder.name) is not None
    assert warmstart.rewrite_cache(store)
    assert _contents(store) == merged


def test_a_rotated_journal_falls_back_to_a_full_rewrite(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    assert warmstart.write_cache(store)
    monkeypatch.setattr(index_mod, "JOURNAL_MAX_BYTES", 1)  # the next append starts a new epoch
    store.delete(lessons[1].id)
    assert warmstart.update_cache(store) is None  # the journal cannot say what changed
    assert warmstart.write_cache(store)
    header = warmstart.WarmCache(warmstart.cache_path(store.path)).header
    assert "merged" not in header and header["journal"][0] == store.journal_position()[0]
    assert lessons[1].id not in header["ids"] and len(header["ids"]) == len(lessons) - 1


def test_a_float16_index_is_seeded_slice_by_slice_with_the_same_vectors(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    store = ctx.store
    lessons = _lessons()
    store.add_many(lessons)
    assert warmstart.write_cache(store)
    monkeypatch.setattr(index_mod, "COARSE_MIN", 4)  # a "large" store: the index keeps float16
    monkeypatch.setattr(index_mod, "COARSE_DIMS", 8)  # (a projection needs fewer dims than rows)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    index = index_mod.VectorIndex()
    assert cache.fill_index(index) is not None
    assert index._vecs.dtype == np.float16 and index.ids == cache.ids
    assert np.allclose(index._vecs.astype(np.float32), cache.vectors, atol=2e-3)  # the mapping still reads
    warm = warmstart.WarmStore(cache, store.embedder, store.path, lambda: store)
    assert warm.search(lessons[4].trigger, k=1)[0][0].id == lessons[4].id  # pages let go are mapped again


def test_a_cache_write_cut_short_leaves_no_temp_file_for_long(tmp_path: Path) -> None:
    """An engine does not wait for its upkeep at exit: a cache write cut short leaves its
    temp file, which the next engine removes once it is older than any live write."""
    store = tmp_path / "store"
    store.mkdir()
    old = store / f".{warmstart.FILE_NAME}.abc123.tmp"
    fresh = store / f".{warmstart.FILE_NAME}.def456.tmp"
    other = store / "chroma.sqlite3"
    for path in (old, fresh, other):
        path.write_bytes(b"x")
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    assert warmstart.remove_stale_temp(store) == 1
    assert not old.exists() and fresh.exists() and other.exists()
