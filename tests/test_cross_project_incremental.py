"""Cross-project promotion on a large store reads only what changed since the last pass.

The store is a real Chroma store on disk; "large" is forced by lowering
``FULL_PASS_MAX``. Reads are counted by wrapping the store's read methods
(they still read): the pass must read the changed lessons and their cluster,
never the whole store.
"""

from __future__ import annotations

from typing import Any

import pytest
from twiceshy.base.types import Experience
from twiceshy.learning import cross_project
from twiceshy.learning.cross_project import promote_cross_project, seen_in

PROJECTS = ("p1-aaaa", "p2-bbbb", "p3-cccc")
TOOLS = ["cargo build", "npm run lint", "docker compose up", "helm upgrade", "ansible-playbook site.yml"]


class Reads:
    """Counts the lessons the store hands out through its read methods."""

    def __init__(self, store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = 0
        for name in ("get_many", "all"):
            original = getattr(store, name)
            monkeypatch.setattr(store, name, self._counting(original))
        original_pages = store.iter_pages

        def pages(*args: Any, **kwargs: Any):
            for page in original_pages(*args, **kwargs):
                self.rows += len(page)
                yield page

        monkeypatch.setattr(store, "iter_pages", pages)

    def _counting(self, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            self.rows += len(out)
            return out

        return wrapped


def _filler(n: int) -> list[Experience]:
    """Scoped lessons of one project (however alike, they never make a cross-project cluster)."""
    return [
        Experience(
            text=f"note {i} about {TOOLS[i % len(TOOLS)]}",
            trigger=f"{TOOLS[i % len(TOOLS)]} --case {i} --shard {i * 7919 % 1009}",
            project=PROJECTS[0],
            tier=2,
        )
        for i in range(n)
    ]


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cross_project, "FULL_PASS_MAX", 10)
    monkeypatch.setattr(cross_project, "SWEEP_PAGE", 100)


@pytest.mark.parametrize("with_index", [False, True], ids=["chroma", "engine-index"])
def test_a_pass_reads_what_changed_and_still_promotes(ctx, large, monkeypatch, with_index: bool) -> None:
    store = ctx.store
    store.add_many(_filler(240))
    old = Experience(text="Run migrations before the tests", trigger="pytest tests/ with a database", project="p1-aaaa")
    store.add(old)
    if with_index:
        store.enable_index()
    # First pass on a large store: nothing says what changed, so a catch-up sweep starts (a page a pass).
    assert promote_cross_project(ctx) == 0
    assert cross_project.last_pass["mode"] == "sweep", (cross_project.last_pass, store.count())
    while cross_project.last_pass["mode"] == "sweep":
        assert promote_cross_project(ctx) == 0
    assert cross_project.last_pass["mode"] == "incremental"

    reads = Reads(store, monkeypatch)
    assert promote_cross_project(ctx) == 0  # nothing changed: nothing read
    assert reads.rows == 0 and cross_project.last_pass["read"] == 0

    # The same lesson learned in two more projects; the first copy is older than the last pass
    # and unchanged: it joins the cluster through similarity.
    new = [
        Experience(text="Run migrations before the tests", trigger="pytest tests/ with a database", project=p)
        for p in ("p2-bbbb", "p3-cccc")
    ]
    store.add_many(new)
    assert promote_cross_project(ctx) == 1, cross_project.last_pass
    assert cross_project.last_pass["mode"] == "incremental"
    assert 0 < reads.rows <= 10, reads.rows  # the 2 new lessons and their cluster, not 243
    lead = next(e for e in store.get_many([old.id, *(e.id for e in new)]) if e.project is None)
    assert seen_in(lead) == set(PROJECTS)
    others = [store.get(i) for i in (old.id, *(e.id for e in new)) if i != lead.id]
    assert all(o.superseded_by == lead.id for o in others)


def test_a_new_relates_to_edge_alone_is_seen(ctx, large) -> None:
    store = ctx.store
    store.add_many(_filler(120))
    # One mistake (the same signature), worded apart: only the edge joins them.
    sig = {"signature": {"v": 1, "kind": "command", "program": "node", "absent": ["--engine-strict"]}}
    a = Experience(
        text="Pin the Node version in CI", trigger="node --version mismatch in ci", project="p1-aaaa", structured=sig
    )
    b = Experience(
        text="Set engines.node in package.json",
        trigger="package.json engines field",
        project="p2-bbbb",
        tags=["seen-in:p3-cccc"],
        structured=sig,
    )
    store.add_many([a, b])
    while promote_cross_project(ctx) == 0 and cross_project.last_pass["mode"] == "sweep":
        pass
    assert cross_project.last_pass["mode"] == "incremental"
    assert promote_cross_project(ctx) == 0
    store.add_edge(b.id, a.id, "relates-to", weight=0.75)  # an edge write names no lesson in the journal
    assert promote_cross_project(ctx) == 1
    assert cross_project.last_pass["read"] <= 4
    promoted = [e for e in (store.get(a.id), store.get(b.id)) if e.project is None]
    assert len(promoted) == 1 and seen_in(promoted[0]) == set(PROJECTS)


def test_a_changed_minimum_sweeps_again_and_full_pass_on_request(ctx, large) -> None:
    store = ctx.store
    store.add_many(_filler(60))
    pair = [
        Experience(text="Use the staging profile", trigger="deploy --profile staging", project=p) for p in PROJECTS[:2]
    ]
    store.add_many(pair)
    while promote_cross_project(ctx) == 0 and cross_project.last_pass["mode"] == "sweep":
        pass
    assert promote_cross_project(ctx) == 0  # two projects only
    assert promote_cross_project(ctx, min_projects=2) == 1  # another bar: the journal cannot say, a sweep does
    assert cross_project.last_pass["mode"] == "sweep"
    assert promote_cross_project(ctx, full=True) == 0
    assert cross_project.last_pass["mode"] == "full" and cross_project.last_pass["read"] >= 62


def test_small_stores_get_the_full_pass(ctx) -> None:
    store = ctx.store
    for p in PROJECTS:
        store.add(Experience(text="Quote paths with spaces", trigger="rm -rf $dir/build", project=p))
    assert promote_cross_project(ctx) == 1
    assert cross_project.last_pass["mode"] == "full"
