"""Session-end evolution on a large store: work follows what the session touched
plus one page of a rotating sweep, and decay comes out the same as a full cycle."""

from __future__ import annotations

import time

import pytest
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.learning import evolve

DAY = 86400.0


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(evolve, "SWEEP_PAGE", 10)
    return 10


def fill(ctx, n: int, **fields) -> list[Experience]:
    exps = [Experience(text=f"lesson {i}", trigger=f"tool{i} --opt value{i}", **fields) for i in range(n)]
    ctx.store.add_many(exps)
    return exps


class CountingStore:
    """Wraps the real store and counts lessons read and written."""

    def __init__(self, store) -> None:
        self._store, self.read, self.written = store, 0, 0

    def __getattr__(self, name):
        return getattr(self._store, name)

    def get_many(self, ids):
        got = self._store.get_many(ids)
        self.read += len(got)
        return got

    def iter_pages(self, *args, **kwargs):
        for page in self._store.iter_pages(*args, **kwargs):
            self.read += len(page)
            yield page

    def update_many(self, exps):
        self.written += len(exps)
        return self._store.update_many(exps)


def test_session_pass_reads_touched_lessons_and_one_page(ctx, small_pages: int) -> None:
    exps = fill(ctx, 60)
    evolve.run_cycle(ctx)  # baseline: journal position and decay times recorded
    # the session: one lesson seen again (ingest), one followed (verdict)
    seen = ctx.store.get(exps[42].id)
    seen.seen_count = 2
    ctx.store.update(seen)
    evolve.record_verdict(ctx, exps[17].id, "FOLLOWED")
    counting = CountingStore(ctx.store)
    ctx._store = counting
    evolve.run_session_pass(ctx)
    ctx._store = counting._store
    assert counting.read <= 2 + small_pages  # not the 60 of the store
    assert ctx.store.get(exps[42].id).tier == Tier.QA  # promoted: touched this session
    assert ctx.store.get(exps[17].id).tier == Tier.QA


def test_after_session_uses_the_bounded_pass_past_one_page(ctx, small_pages: int) -> None:
    fill(ctx, 25)
    assert ctx.pm.get_plugin("evolve") is not None
    event = CoreEvent(kind="session_end", agent="claude-code", native_event="SessionEnd", session_id="s1")
    evolve.after_session(ctx, event)
    state = evolve.load_state()
    assert "last_full" not in state and state["sweep"] == 1  # a session pass, not a full cycle


def test_sweeps_decay_like_a_full_cycle_and_expire(ctx, small_pages: int) -> None:
    now = time.time()
    rules = fill(ctx, 30, tier=int(Tier.RULE), confidence=0.9, created_at=now, last_seen=now)
    evolve.run_cycle(ctx, now=now)
    # 45 days later, three session passes (one page each) cover the store once
    for step in range(3):
        evolve.run_session_pass(ctx, now=now + 45 * DAY + step)
    got = {e.id: e.confidence for e in ctx.store.all()}  # (plus any principle the rules formed)
    for exp in rules:  # 15 stale days: -0.25, once each (however the pages were spread)
        assert got[exp.id] == pytest.approx(0.65, abs=1e-3)
    # another full rotation 15 days on (4 pages now: the rules formed a principle): -0.25 more, once each
    for step in range(4):
        evolve.run_session_pass(ctx, now=now + 60 * DAY + step)
    got = {e.id: e.confidence for e in ctx.store.all()}
    assert all(got[e.id] == pytest.approx(0.4, abs=1e-3) for e in rules)


def test_session_pass_expires_raw_lessons_in_the_sweep(ctx, small_pages: int) -> None:
    now = time.time()
    fill(ctx, 20, created_at=now - 20 * DAY, last_seen=now - 20 * DAY)  # raw, seen once: past raw_ttl_days (14)
    counts = evolve.run_session_pass(ctx, now=now)
    assert counts["expired"] == 10 and ctx.store.count() == 10  # one page this pass
    evolve.run_session_pass(ctx, now=now)
    assert ctx.store.count() == 0  # the next page the next time
