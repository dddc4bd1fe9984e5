"""What a hook call costs does not grow with the store: counted work, never timings.

Each test builds a real store on disk and counts the work a call does (signature
checks, shard parses, per-call copies) with the lessons that cannot apply to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from twiceshy.base.types import CoreEvent, Experience
from twiceshy.engine.context import EngineContext
from twiceshy.engine.dispatch import parse_event
from twiceshy.hooks import coldhold, match
from twiceshy.recall.hold_index import look_may_hold


def _event(ctx: EngineContext, command: str) -> CoreEvent:
    payload = {
        "session_id": "s",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    event = parse_event(ctx, "claude-code", "PreToolUse", payload)
    assert event is not None
    return event


def _git_lessons(ctx: EngineContext, n: int) -> None:
    for i in range(n):
        ctx.store.add(
            Experience(
                text=f"Never force-push to release-{i}: open a PR",
                trigger=f"git push --force origin release-{i}",
                tier=3,
            )
        )


@pytest.fixture
def counted_checks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real = match.check

    def check(sig: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        calls.append(sig)
        return real(sig, *args, **kwargs)

    monkeypatch.setattr(match, "check", check)
    return calls


def test_a_read_only_call_checks_only_the_lessons_about_a_look(
    ctx: EngineContext, twiceshy_home: Path, counted_checks: list[Any]
) -> None:
    # The engine asks, on every read-only call, whether a lesson about a look holds it.
    # The other lessons of the call's program (every `git push` lesson for `git status`)
    # sit in the same shard; they used to be signature-checked one by one, per call.
    _git_lessons(ctx, 12)
    shard = Path(coldhold.shard_path(twiceshy_home, coldhold.bucket_of("git")))
    assert shard.read_text().count('"id":') >= 12
    assert look_may_hold(_event(ctx, "git status")) is False
    assert counted_checks == []
    # A lesson about a look still holds that look, and is the only one checked.
    ctx.store.add(
        Experience(
            text="shop's kubeconfig has no default context: always pass --context shop-staging "
            "(kubectl --context shop-staging get pods -n shop)",
            trigger="kubectl get pods -n shop",
            tier=3,
        )
    )
    assert look_may_hold(_event(ctx, "kubectl get pods -n shop")) is True
    assert len(counted_checks) == 1
    assert look_may_hold(_event(ctx, "git log --oneline")) is False
    assert len(counted_checks) == 1


def test_the_engine_keeps_only_the_look_entries_of_a_shard(ctx: EngineContext, twiceshy_home: Path) -> None:
    # What the engine caches for its read-only calls is what it checks, not the whole shard.
    _git_lessons(ctx, 6)
    look_may_hold(_event(ctx, "git status"))
    shard = coldhold.shard_path(twiceshy_home, coldhold.bucket_of("git"))
    cached = [entries for (path, _only), (_key, entries) in coldhold._shards.items() if path == shard]
    assert cached == [[]]


def test_a_hit_count_does_not_reparse_the_hold_index(ctx: EngineContext, monkeypatch: pytest.MonkeyPatch) -> None:
    # A flushed hit count is a store write; its lesson's hold-index entry does not change
    # (no evidence counts in it), and finding that out must not parse the shard (multi-MB
    # at 100k lessons). A change that does alter the entry, and a delete, still land.
    from twiceshy.memory import rules_snapshot

    _git_lessons(ctx, 5)
    store = ctx.store
    exp = store.search("git push --force origin release-3", k=1)[0][0]
    shard = Path(coldhold.shard_path(Path(store.hold_index.folder).parent, coldhold.bucket_of("git")))
    parsed: list[Path] = []
    real_read = rules_snapshot.read

    def read(path: Path) -> dict[str, Any] | None:
        parsed.append(Path(path))
        return real_read(path)

    monkeypatch.setattr(rules_snapshot, "read", read)
    before = shard.read_bytes()
    store.touch_many([exp.id])
    store.flush_hits()
    assert store.get(exp.id).hits == 1
    assert shard not in parsed and shard.read_bytes() == before
    # what the entry says changes: the shard is merged and rewritten
    changed = store.get(exp.id)
    assert changed is not None
    changed.text = "Never force-push to release-3: the release bot rebases it"
    store.update(changed)
    assert shard in parsed and b"the release bot rebases it" in shard.read_bytes()
    store.delete(exp.id)
    assert exp.id.encode() not in shard.read_bytes()


def test_a_hit_count_reads_no_other_shard(ctx: EngineContext, monkeypatch: pytest.MonkeyPatch) -> None:
    # The entry of a lesson whose hit count is flushed is in its own shards byte for byte,
    # so no other shard needs reading to find a stale copy of it (64 shards, ~60 MB at 100k).
    from twiceshy.memory.rules_snapshot import RulesSnapshot

    _git_lessons(ctx, 3)
    ctx.store.add(Experience(text="Never npm publish from a dirty tree", trigger="npm publish --tag next", tier=3))
    exp = ctx.store.search("git push --force origin release-1", k=1)[0][0]
    listed: list[Path] = []
    real = RulesSnapshot.ids_on_disk

    def ids_on_disk(self: RulesSnapshot) -> set[str]:
        listed.append(self.path)
        return real(self)

    monkeypatch.setattr(RulesSnapshot, "ids_on_disk", ids_on_disk)
    ctx.store.touch_many([exp.id])
    ctx.store.flush_hits()
    hold_listed = [p for p in listed if p.parent.name == coldhold.FOLDER]
    assert hold_listed == []
    # a lesson that stops holding (superseded) is still taken out of its shard
    changed = ctx.store.get(exp.id)
    assert changed is not None
    changed.superseded_by = "someone-else"
    ctx.store.update(changed)
    shard = Path(coldhold.shard_path(Path(ctx.store.hold_index.folder).parent, coldhold.bucket_of("git")))
    assert exp.id.encode() not in shard.read_bytes()


def test_a_large_index_seeded_from_the_warm_cache_holds_its_vectors_once(
    ctx: EngineContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hand-over to the real store converts the cache's vectors to float16 for the index;
    # the index keeps that array instead of copying it (a 100k hand-over held 77 MB twice).
    # A small index, whose vectors are the cache's own mapping, still copies them.
    import numpy as np
    from twiceshy.engine import warmstart
    from twiceshy.memory import index as index_mod

    _git_lessons(ctx, 10)  # more rows than the projection's dims
    store = ctx.store
    assert warmstart.write_cache(store)
    made: list[np.ndarray] = []
    real = warmstart.WarmCache._index_vectors

    def index_vectors(self: warmstart.WarmCache) -> np.ndarray:
        made.append(real(self))
        return made[-1]

    monkeypatch.setattr(warmstart.WarmCache, "_index_vectors", index_vectors)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    small = index_mod.VectorIndex()
    assert cache.fill_index(small) is not None
    assert small._vecs.dtype == np.float32 and not np.shares_memory(small._vecs, cache.vectors)
    monkeypatch.setattr(index_mod, "COARSE_MIN", 4)  # a "large" store: the index keeps float16
    monkeypatch.setattr(index_mod, "COARSE_DIMS", 8)
    large = index_mod.VectorIndex()
    assert cache.fill_index(large) is not None
    assert large._vecs.dtype == np.float16 and large._vecs is made[-1]
    hits = large.search(np.asarray(store.embedder.embed(["git push --force origin release-2"])[0]), k=1)
    assert hits and hits[0][0] == store.search("git push --force origin release-2", k=1)[0][0].id


def test_the_engine_start_parses_only_the_shards_written_since_it_last_checked(
    ctx: EngineContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The start-up check of the hold index used to parse every shard to find a damaged one
    # (~60 MB of JSON at 100k lessons, twice per start). meta.json now keeps each shard's
    # size and CRC-32 as last found whole: only a shard that changed since is parsed.
    import json

    from twiceshy.recall.hold_index import HoldIndex

    _git_lessons(ctx, 4)
    ctx.store.add(Experience(text="Never npm publish from a dirty tree", trigger="npm publish --tag next", tier=3))
    first = ctx.store.hold_index
    assert first.ensure(ctx.store)[0] in ("caught up", "rebuilt")
    parsed: list[str] = []
    real_loads = json.loads

    def loads(raw: str | bytes, *args: Any, **kwargs: Any) -> Any:
        head = raw[:16] if isinstance(raw, bytes) else raw[:16].encode()
        if head.startswith(b'{"block_tiers"'):
            parsed.append(str(raw[:60]))
        return real_loads(raw, *args, **kwargs)

    monkeypatch.setattr(json, "loads", loads)
    again = HoldIndex(first.folder, first.block_tiers, first.mode)  # the next engine's
    assert again.ensure(ctx.store) == ("caught up", 0)
    assert parsed == []
    # one shard written by another process since: that one is parsed, once
    ctx.store.add(Experience(text="Never git clean -fdx in a repo with .env", trigger="git clean -fdx", tier=3))
    parsed.clear()
    assert HoldIndex(first.folder, first.block_tiers, first.mode).ensure(ctx.store)[0] == "caught up"
    assert len(parsed) == 1
    # a damaged shard is still found: the index is rebuilt
    shard = Path(coldhold.shard_path(Path(first.folder).parent, coldhold.bucket_of("npm")))
    shard.write_bytes(shard.read_bytes()[:-40])
    assert HoldIndex(first.folder, first.block_tiers, first.mode).ensure(ctx.store)[0] == "rebuilt"
    assert b"npm publish" in shard.read_bytes() and real_loads(shard.read_bytes())["rules"]


def test_an_index_seeded_from_the_warm_cache_has_chroma_read_once_while_it_loads(
    ctx: EngineContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Chroma loads its own vector segment on the collection's first read (0.2-0.3 s at 100k
    # lessons). A seeded index never read Chroma, so that load used to land in the first
    # hook call that needed a document after the hand-over; the load does it now.
    from twiceshy.engine import warmstart

    _git_lessons(ctx, 3)
    store = ctx.store
    assert warmstart.write_cache(store)
    cache = warmstart.open_cache(store.path, store.embedder.name)
    assert cache is not None
    reads: list[dict[str, Any]] = []
    real_get = type(store._col).get

    def get(self: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(kwargs)
        return real_get(self, *args, **kwargs)

    monkeypatch.setattr(type(store._col), "get", get)
    store.enable_index(background=False, seed=cache)
    assert store.index is not None and len(store.index) == 3
    assert reads == [{"limit": 1, "include": []}]
