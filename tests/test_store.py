"""The Chroma store on disk: CRUD, search, scope, edges, cross-process freshness."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from twiceshy.base.types import Experience, Tier
from twiceshy.memory.embedding import HashEmbedder, MiniLMEmbedder
from twiceshy.memory.store import ExperienceStore, open_client


def make_store(path: Path, embedder=None) -> ExperienceStore:
    return ExperienceStore(
        open_client(path=path),
        embedder or MiniLMEmbedder(),
        path=path,
        reopen=lambda: open_client(path=path, fresh=True),
    )


def test_roundtrip_keeps_every_field(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    exp = Experience(
        text="Run the migrations before the tests",
        trigger="pytest tests/db",
        tier=int(Tier.RULE),
        confidence=0.8,
        hits=3,
        follows=2,
        ignores=1,
        project="proj-1234",
        tags=["python", "django"],
    )
    store.add(exp)
    got = store.get(exp.id)
    assert got == exp


def test_search_ranks_paraphrase_first_and_respects_scope(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    store.add(Experience(text="use a venv", trigger="sudo pip install requests"))
    store.add(Experience(text="no force push", trigger="git push --force origin main", project="p1"))
    store.add(Experience(text="docker prune", trigger="docker system prune -a --volumes"))
    top, score = store.search("force-push my branch to main", k=3, project="p1")[0]
    assert top.text == "no force push" and score > 0.5
    other = [e.text for e, _ in store.search("force-push my branch to main", k=3, project="p2")]
    assert "no force push" not in other


def test_edges_one_hop(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s", HashEmbedder())
    a, b = Experience(text="a", trigger="a"), Experience(text="b", trigger="b")
    store.add(a)
    store.add(b)
    store.add_edge(a.id, b.id, "generalizes")
    assert store.neighbours(b.id) == [(a.id, "generalizes")]
    store.delete(a.id)
    assert store.neighbours(b.id) == []


def test_write_by_another_process_is_seen_after_refresh(tmp_path: Path) -> None:
    path = tmp_path / "s"
    store = make_store(path, HashEmbedder())
    store.add(Experience(text="first", trigger="alpha beta gamma"))
    code = (
        "from pathlib import Path\n"
        "from twiceshy.memory.store import ExperienceStore, open_client\n"
        "from twiceshy.memory.embedding import HashEmbedder\n"
        "from twiceshy.base.types import Experience\n"
        f"p = Path({str(path)!r})\n"
        "s = ExperienceStore(open_client(path=p), HashEmbedder(), path=p)\n"
        "s.add(Experience(text='second', trigger='delta epsilon zeta'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert store.refresh_if_stale() is True
    texts = [e.text for e, _ in store.search("delta epsilon zeta", k=2)]
    assert texts[0] == "second"
    assert store.refresh_if_stale() is False
