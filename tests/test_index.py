"""The engine's in-memory index: exact search, project and superseded filters,
the two-stage path at size, and staying in step with writes by other processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from twiceshy.base.types import Experience
from twiceshy.memory import index as index_mod
from twiceshy.memory.embedding import HashEmbedder
from twiceshy.memory.index import Journal, VectorIndex
from twiceshy.memory.store import ExperienceStore, open_client


def make_store(path: Path, indexed: bool = True) -> ExperienceStore:
    store = ExperienceStore(
        open_client(path=path), HashEmbedder(), path=path, reopen=lambda: open_client(path=path, fresh=True)
    )
    if indexed:
        store.enable_index()
    return store


def other_process(path: Path, body: str) -> str:
    """Run ``body`` against the store at ``path`` in a fresh interpreter (as the CLI would)."""
    code = textwrap.dedent(
        f"""
        import json, sys
        from pathlib import Path
        from twiceshy.base.types import Experience
        from twiceshy.memory.embedding import HashEmbedder
        from twiceshy.memory.store import ExperienceStore, open_client
        path = Path({str(path)!r})
        store = ExperienceStore(open_client(path=path), HashEmbedder(), path=path)
        """
    ) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout


def brute_force(vecs: np.ndarray, q: np.ndarray, allowed: np.ndarray, k: int) -> list[int]:
    scores = vecs @ q
    scores[~allowed] = -np.inf
    return [int(i) for i in np.argsort(-scores)[:k] if np.isfinite(scores[i])]


def test_exact_search_matches_brute_force_with_project_and_superseded_filters() -> None:
    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(3000, 64)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    projects = [None, "p1", "p2"]
    metas = [{"project": projects[i % 3] or "", "superseded_by": "x" if i % 7 == 0 else ""} for i in range(3000)]
    idx = VectorIndex()
    idx.upsert([f"id{i}" for i in range(3000)], vecs, metas)
    for trial in range(20):
        q = vecs[trial * 13] + 0.3 * rng.normal(size=64).astype(np.float32)
        q /= np.linalg.norm(q)
        allowed = np.array([m["project"] in ("", "p1") and not m["superseded_by"] for m in metas])
        got = [int(i[2:]) for i, _ in idx.search(q, 10, project="p1", include_superseded=False)]
        assert got == brute_force(vecs, q, allowed, 10)
    # p2's lessons never reach a p1 search; global ones do
    hits = idx.search(vecs[2], 50, project="p1")
    assert all(metas[int(i[2:])]["project"] in ("", "p1") for i, _ in hits)
    assert idx.search(vecs[2], 1, project="p2")[0][0] == "id2"


def test_remove_and_replace_keep_rows_consistent() -> None:
    rng = np.random.default_rng(2)
    vecs = rng.normal(size=(500, 32)).astype(np.float32)
    idx = VectorIndex()
    idx.upsert([f"id{i}" for i in range(500)], vecs, [{}] * 500)
    idx.remove([f"id{i}" for i in range(0, 500, 2)])
    assert len(idx) == 250
    for i in range(1, 500, 2):  # each survivor still finds itself first
        assert idx.search(vecs[i], 1)[0][0] == f"id{i}"
    assert all(idx.search(vecs[i], 1)[0][0] != f"id{i}" for i in range(0, 500, 50))
    idx.upsert(["id1"], vecs[2:3], [{"project": "p"}])  # replaced: new vector, now project-scoped
    assert idx.search(vecs[2], 1, project="p")[0][0] == "id1"
    assert "id1" not in [i for i, _ in idx.search(vecs[2], 5, project="q")]


def test_two_stage_search_recall_at_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past COARSE_MIN rows the first pass runs on a projection: the exact
    top hits must still come back (clustered data, like lessons of one tool)."""
    monkeypatch.setattr(index_mod, "COARSE_MIN", 5000)
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(300, 384)).astype(np.float32)
    vecs = centres[rng.integers(0, 300, 20000)] + 0.8 * rng.normal(size=(20000, 384)).astype(np.float32) / np.sqrt(384)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    idx = VectorIndex()
    idx.upsert([f"id{i}" for i in range(20000)], vecs, [{}] * 20000)
    assert idx._proj is not None
    found = total = 0
    for trial in range(40):
        q = vecs[trial * 97] + 0.5 * rng.normal(size=384).astype(np.float32) / np.sqrt(384)
        q /= np.linalg.norm(q)
        want = brute_force(vecs, q, np.ones(20000, bool), 8)
        got = {int(i[2:]) for i, _ in idx.search(q, 8)}
        found += len(got & set(want))
        total += len(want)
    assert found / total >= 0.97, found / total
    # the top hit itself is always exact
    assert idx.search(vecs[5], 1)[0][0] == "id5"


def test_journal_lines_rotation_and_partial_line(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "changes.log")
    assert journal.read_since("", 0) is None  # nothing yet: reader reloads
    journal.append("w1", "u", ["a", "b"])
    epoch, offset = journal.position()
    journal.append("w2", "d", ["a"])
    with open(tmp_path / "changes.log", "ab") as fh:
        fh.write(b"w3 u half")  # a line still being written is not read yet
    got = journal.read_since(epoch, offset)
    assert got is not None and got[2] == [("w2", "d", "a")]
    monkey_max = index_mod.JOURNAL_MAX_BYTES
    try:
        index_mod.JOURNAL_MAX_BYTES = 10
        journal.append("w1", "u", ["c"])  # past the cap: rotated to a new epoch
    finally:
        index_mod.JOURNAL_MAX_BYTES = monkey_max
    assert journal.read_since(epoch, offset) is None
    new_epoch, _ = journal.position()
    assert new_epoch and new_epoch != epoch


def test_store_search_through_index_matches_chroma(tmp_path: Path) -> None:
    plain = make_store(tmp_path / "s", indexed=False)
    plain.add(Experience(text="use a venv", trigger="sudo pip install requests"))
    plain.add(Experience(text="no force push", trigger="git push --force origin main", project="p1"))
    plain.add(Experience(text="docker prune", trigger="docker system prune -a --volumes"))
    indexed = make_store(tmp_path / "s")
    assert indexed.index is not None and len(indexed.index) == 3
    for query, project in [("git push --force origin main", "p1"), ("git push --force", "p2"), ("pip install", None)]:
        a = [(e.id, round(s, 4)) for e, s in plain.search(query, k=3, project=project)]
        b = [(e.id, round(s, 4)) for e, s in indexed.search(query, k=3, project=project)]
        assert a == b


def test_learned_forgotten_edited_by_another_process_is_seen_on_next_search(tmp_path: Path) -> None:
    path = tmp_path / "s"
    engine = make_store(path)
    keep = Experience(text="never rm -rf the build dir", trigger="rm -rf build")
    engine.add(keep)
    assert [e.id for e, _ in engine.search("rm -rf build", k=3)] == [keep.id]

    # learned elsewhere (CLI `learn`)
    out = other_process(
        path,
        """
        exp = Experience(text="pin terraform", trigger="terraform apply -auto-approve")
        store.add(exp)
        print(exp.id)
        """,
    )
    learned = out.strip()
    engine.refresh_if_stale()
    top = engine.search("terraform apply -auto-approve", k=1)
    assert top and top[0][0].id == learned and top[0][1] > 0.99

    # edited elsewhere: new trigger and text (re-embedded), now project-scoped
    other_process(
        path,
        f"""
        exp = store.get({keep.id!r})
        exp.text, exp.trigger, exp.project = "use make clean", "docker compose down -v", "proj-x"
        store.update(exp, reembed=True)
        """,
    )
    engine.refresh_if_stale()
    assert keep.id not in [e.id for e, _ in engine.search("docker compose down -v", k=3, project="other")]
    top = engine.search("docker compose down -v", k=1, project="proj-x")
    assert top[0][0].id == keep.id and top[0][0].text == "use make clean"

    # forgotten elsewhere (CLI `forget`)
    other_process(path, f"store.delete({learned!r})")
    engine.refresh_if_stale()
    assert learned not in [e.id for e, _ in engine.search("terraform apply -auto-approve", k=5)]
    assert engine.count() == 1

    # superseded elsewhere (metadata only)
    other_process(
        path,
        f"""
        exp = store.get({keep.id!r})
        exp.superseded_by = "newer"
        store.update(exp)
        """,
    )
    engine.refresh_if_stale()
    assert engine.search("docker compose down -v", k=3, project="proj-x", include_superseded=False) == []


def test_bulk_write_elsewhere_then_rotation_reloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    engine = make_store(path)
    out = other_process(
        path,
        """
        exps = [Experience(text=f"lesson {i}", trigger=f"tool{i} --flag value{i}") for i in range(300)]
        store.add_many(exps)
        print(json.dumps([e.id for e in exps]))
        """.replace("json.dumps", "__import__('json').dumps"),
    )
    ids = json.loads(out)
    engine.refresh_if_stale()
    assert engine.count() == 300
    assert engine.search("tool42 --flag value42", k=1)[0][0].id == ids[42]
    # the journal is rotated by a writer: the engine notices and reloads in full
    (path / "changes.log").write_text("#epoch fresh\n")
    other_process(path, f"store.delete({ids[7]!r})")
    engine.refresh_if_stale()
    assert engine.count() == 299
    assert ids[7] not in [e.id for e, _ in engine.search("tool7 --flag value7", k=3)]


def test_hits_are_batched_in_the_engine_and_immediate_elsewhere(tmp_path: Path) -> None:
    path = tmp_path / "s"
    engine = make_store(path)
    exp = Experience(text="t", trigger="make deploy")
    engine.add(exp)
    engine.touch_many([exp.id])
    engine.touch_many([exp.id])
    assert engine.get(exp.id).hits == 2  # reads through this store see pending counts
    on_disk = other_process(path, f"print(store.get({exp.id!r}).hits)")
    assert on_disk.strip() == "0"  # not written yet: batched
    assert engine.flush_hits() == 1
    assert other_process(path, f"print(store.get({exp.id!r}).hits)").strip() == "2"
    cli = make_store(path, indexed=False)
    cli.touch_many([exp.id])
    assert other_process(path, f"print(store.get({exp.id!r}).hits)").strip() == "3"


def test_pending_hits_survive_a_metadata_write_of_the_same_lesson(tmp_path: Path) -> None:
    engine = make_store(tmp_path / "s")
    exp = Experience(text="t", trigger="make deploy")
    engine.add(exp)
    engine.touch_many([exp.id])
    got = engine.get(exp.id)
    got.follows += 1
    engine.update(got)  # carries the pending hit: it must not be counted twice
    engine.flush_hits()
    final = make_store(tmp_path / "s", indexed=False).get(exp.id)
    assert (final.hits, final.follows) == (1, 1)


def test_paged_reads_cover_every_lesson(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", indexed=False)
    exps = [Experience(text=f"l{i}", trigger=f"cmd {i}", tier=i % 4) for i in range(2500)]
    store.add_many(exps)
    pages = list(store.iter_pages(page=1000))
    assert [len(p) for p in pages] == [1000, 1000, 500]
    assert {e.id for p in pages for e in p} == {e.id for e in exps}
    assert len(store.all(where={"tier": 1})) == sum(1 for e in exps if e.tier == 1)
    assert len(store.get_many([e.id for e in exps])) == 2500  # more ids than one SQL statement takes


def test_a_write_whose_generation_stamp_was_overwritten_is_still_seen(tmp_path: Path) -> None:
    """Two writers race on the generation stamp (last one wins); the journal keeps both."""
    path = tmp_path / "s"
    engine = make_store(path)
    engine.add(Experience(text="a", trigger="make deploy"))
    ours = (path / "generation").read_text()
    out = other_process(
        path,
        """
        exp = Experience(text="b", trigger="cargo publish --dry-run")
        store.add(exp)
        print(exp.id)
        """,
    )
    (path / "generation").write_text(ours)  # as if our stamp had landed after theirs
    assert engine.refresh_if_stale()
    assert engine.search("cargo publish --dry-run", k=1)[0][0].id == out.strip()
    # our own writes alone do not make the engine reopen the store
    engine.add(Experience(text="c", trigger="npm publish"))
    assert not engine.refresh_if_stale()


def test_flags_read_from_chroma_sqlite_equal_the_api(tmp_path: Path) -> None:
    """The fast load reads project/superseded from Chroma's SQLite file; it must
    agree with the API, and refuse (None) when the row count does not match."""
    path = tmp_path / "s"
    store = make_store(path, indexed=False)
    exps = [Experience(text=f"l{i}", trigger=f"cmd{i} --x={i}", project=("p1", None, "p2")[i % 3]) for i in range(90)]
    for exp in exps[::7]:
        exp.superseded_by = "other"
    store.add_many(exps)
    store.delete(exps[1].id)
    fast = index_mod._flags_from_sqlite(path / "chroma.sqlite3", store._col, 89)
    assert fast is not None
    assert fast == index_mod._flags_from_api(store._col, 1000)
    assert fast[0][exps[0].id] == "p1" and exps[7].id in fast[1]
    assert index_mod._flags_from_sqlite(path / "chroma.sqlite3", store._col, 90) is None


def test_pending_hits_are_written_by_a_timer_when_no_more_warnings_come(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twiceshy.memory import store as store_mod

    monkeypatch.setattr(store_mod, "HITS_FLUSH_S", 0.3)
    engine = make_store(tmp_path / "s")
    exp = Experience(text="t", trigger="make deploy")
    engine.add(exp)
    engine.touch_many([exp.id])
    reader = make_store(tmp_path / "s", indexed=False)
    deadline = time.monotonic() + 60
    while reader.get(exp.id).hits != 1:
        assert time.monotonic() < deadline, "the pending hit was never written"
        time.sleep(0.05)


def test_index_loaded_in_the_background_includes_writes_made_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "s"
    store = make_store(path, indexed=False)
    store.add_many([Experience(text=f"l{i}", trigger=f"tool{i} --n={i}") for i in range(200)])
    store.enable_index(background=True)
    late = Experience(text="written while loading", trigger="helm uninstall web --namespace prod")
    store.add(late)  # Chroma answers until the index is ready; this write must reach the index either way
    deadline = time.monotonic() + 120
    while store.index is None or store._index_loading:
        assert time.monotonic() < deadline, "the index never finished loading"
        time.sleep(0.05)
    assert len(store.index) == 201
    assert store.search("helm uninstall web --namespace prod", k=1)[0][0].id == late.id


def test_more_edges_than_chroma_takes_in_one_call(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", indexed=False)
    exps = [Experience(text=f"l{i}", trigger=f"t{i}") for i in range(110)]
    store.add_many(exps)
    edges = [(a.id, b.id, "relates-to", 0.9) for a in exps for b in exps if a is not b][:6000]
    store.add_edges(edges)  # Chroma refuses one call of more than ~5,400 items
    for exp in (exps[0], exps[100]):
        assert len(store.edges(exp.id)) == sum(1 for s, d, _, _ in edges if exp.id in (s, d))
