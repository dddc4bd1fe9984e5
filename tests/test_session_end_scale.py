"""Session-end work on a large store follows what changed, not the store's size.

Real Chroma store on disk with the engine's in-memory index on. Covers the
cross-project pass's exact neighbour scan over the index, its catch-up sweep
walking ids from the index (nothing skipped or visited twice while lessons
come and go), journal ids the index knows cannot seed a cluster not being
read, and principles written with batched edge writes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from twiceshy.base.types import Experience, Tier
from twiceshy.learning import cross_project, evolve
from twiceshy.learning.cross_project import promote_cross_project

PROJECTS = ("p1-aaaa", "p2-bbbb", "p3-cccc")
TOOLS = ["cargo build", "npm run lint", "docker compose up", "helm upgrade", "terraform apply"]


def _lessons(n: int, project: str | None, start: int = 0) -> list[Experience]:
    return [
        Experience(
            text=f"note {i} about {TOOLS[i % len(TOOLS)]}",
            trigger=f"{TOOLS[i % len(TOOLS)]} --case {i} --shard {i * 7919 % 1009}",
            project=project,
            tier=2,
        )
        for i in range(start, start + n)
    ]


def test_exact_scan_finds_every_live_scoped_neighbour(ctx) -> None:
    store = ctx.store
    exps = []
    for p in PROJECTS:
        exps += _lessons(40, p, start=len(exps))
    exps += _lessons(30, None, start=len(exps))  # global: never a neighbour
    store.add_many(exps)
    gone = exps[3]
    gone.superseded_by = exps[4].id  # superseded: never a neighbour
    store.update(gone)
    store.enable_index()
    index = store.index
    seeds = [exps[0], exps[45], exps[90], exps[125]]
    queries = index.rows_of([s.id for s in seeds])
    got = cross_project._near_exact(index, queries, 0.8, k=1000)
    assert got is not None
    # brute force over every lesson as stored
    live = [e for e in exps if e.project and e.id != gone.id]
    vecs = index.rows_of([e.id for e in live])
    for n, _ in enumerate(seeds):
        scores = vecs @ queries[n]
        want = {live[j].id for j in np.nonzero(scores >= 0.8)[0].tolist()}
        assert set(got[n]) == want and len(got[n]) == len(want)
        by_id = {live[j].id: float(scores[j]) for j in range(len(live))}
        ranked = [by_id[i] for i in got[n]]
        assert ranked == sorted(ranked, reverse=True)  # best first
    capped = cross_project._near_exact(index, queries, 0.8, k=3)
    assert capped is not None and all(len(c) <= 3 and c == full[:3] for c, full in zip(capped, got))


def test_sweep_page_shrinks_with_the_scoped_rows() -> None:
    assert cross_project._sweep_size(2_000) == cross_project.SWEEP_PAGE
    assert cross_project._sweep_size(40_000) == 150  # 100k lessons, 40 % scoped
    assert cross_project._sweep_size(10**7) == cross_project.SWEEP_MIN


def test_index_sweep_visits_every_scoped_lesson_once_while_lessons_come_and_go(
    ctx, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cross_project, "FULL_PASS_MAX", 10)
    monkeypatch.setattr(cross_project, "SWEEP_PAGE", 40)
    monkeypatch.setattr(cross_project, "SWEEP_MIN", 1)
    store = ctx.store
    first = _lessons(150, PROJECTS[0]) + _lessons(20, None, start=150)
    store.add_many(first)
    store.enable_index()
    seeded: list[str] = []
    grow = cross_project._grow

    def recording(store: Any, seeds: list[Experience], threshold: float) -> list[Experience]:
        seeded.extend(e.id for e in seeds)
        return grow(store, seeds, threshold)

    monkeypatch.setattr(cross_project, "_grow", recording)
    promote_cross_project(ctx)
    assert cross_project.last_pass["mode"] == "sweep"
    deleted = sorted(e.id for e in first[:150])[::7]  # some before the cursor, some after
    store.delete_many(deleted)
    late = _lessons(30, PROJECTS[1], start=500)
    store.add_many(late)
    passes = 1
    while cross_project.last_pass["mode"] == "sweep":
        promote_cross_project(ctx)
        passes += 1
        assert passes < 20
    scoped_first = {e.id for e in first[:150]} - set(deleted)
    swept = [i for i in seeded if i in scoped_first]
    assert len(swept) == len(set(swept))  # nobody seeded twice by the sweep
    assert set(swept) == scoped_first  # and nobody skipped
    assert not {e.id for e in first[150:]} & set(seeded)  # global lessons seed nothing


def test_journal_ids_the_index_knows_are_global_are_not_read(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cross_project, "FULL_PASS_MAX", 10)
    store = ctx.store
    scoped = _lessons(60, PROJECTS[0])
    glob = _lessons(60, None, start=60)
    store.add_many(scoped + glob)
    store.enable_index()
    while promote_cross_project(ctx) == 0 and cross_project.last_pass["mode"] == "sweep":
        pass
    assert cross_project.last_pass["mode"] == "incremental"
    # what the evolution sweep writes: counts and confidence of lessons nobody touched
    for exp in glob:
        exp.confidence = 0.4
    store.update_many(glob)
    promote_cross_project(ctx)
    assert cross_project.last_pass["read"] == 0 and cross_project.last_pass["mode"] == "incremental"
    # a scoped lesson written is still read, and a copy in two more projects still promotes
    copies = [Experience(text=scoped[7].text, trigger=scoped[7].trigger, project=p, tier=2) for p in PROJECTS[1:]]
    store.add_many(copies)
    assert promote_cross_project(ctx) == 1
    assert 2 <= cross_project.last_pass["read"] <= 30  # the copies and their cluster, not the 120


def _pip_rule(ctx, trigger: str) -> Experience:
    exp = Experience(
        text=f"Do not {trigger}: the system Python is externally managed; use a venv.",
        trigger=trigger,
        tier=int(Tier.RULE),
        confidence=0.8,
    )
    ctx.store.add(exp)
    return exp


def test_principle_edges_are_written_in_one_call_and_only_when_new(ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = [_pip_rule(ctx, t) for t in ("pip install requests", "sudo pip install flask", "pip3 install --user numpy")]
    store = ctx.store
    calls: list[tuple[str, int]] = []
    add_edges = store.add_edges

    def counting_edges(edges: list[tuple[str, str, str, float]]) -> None:
        calls.append(("add_edges", len(edges)))
        add_edges(edges)

    def single_edge(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("one edge at a time")

    monkeypatch.setattr(store, "add_edges", counting_edges)
    monkeypatch.setattr(store, "add_edge", single_edge)
    assert evolve.generalise(ctx, rules) == 1
    assert calls == [("add_edges", 3)]
    (principle,) = [e for e in store.all() if e.tier == Tier.PRINCIPLE]
    fourth = _pip_rule(ctx, "pip install --break-system-packages pandas")
    calls.clear()
    assert evolve.generalise(ctx, [*rules, fourth]) == 0  # joins the existing principle
    assert calls == [("add_edges", 1)]  # the new member's edge only
    linked = sorted(other for other, kind in store.neighbours(principle.id) if kind == "generalizes")
    assert linked == sorted(e.id for e in [*rules, fourth])
    calls.clear()
    assert evolve.generalise(ctx, [*rules, fourth]) == 0
    assert calls in ([], [("add_edges", 0)])  # nothing new: nothing written
    assert len([e for e in store.all() if e.tier == Tier.PRINCIPLE]) == 1
