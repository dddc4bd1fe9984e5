"""The rules snapshot's start-up check: caught up from the change journal, rebuilt only when it must be.

Real Chroma on disk; the "crashed writer" is a real subprocess that dies right
after its Chroma write, before it could update ``rules.json``. What the hook
client would do with the file is asked of the client's own code
(:func:`twiceshy.hooks.wire.snapshot_check`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.base.types import Experience
from twiceshy.hooks import wire
from twiceshy.memory import rules_snapshot

PY = sys.executable
SIGNATURE = {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "present": ["--force|-f"]}
PUSH = json.dumps({"cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}})

# Writes through the store, then dies between its Chroma write and the snapshot update.
CRASHING_WRITER = """
import os, sys
from twiceshy.base.types import Experience
from twiceshy.engine.context import make_context
store = make_context(None).store
store.rules_snapshot.on_write = lambda *a, **k: os._exit(9)
op, exp_id = sys.argv[1:3]
if op == "add":
    store.add(Experience(id=exp_id, text="Never force-push main", trigger="git push --force origin main",
                         tier=1, structured={"signature": %r}))
else:
    exp = store.get(exp_id)
    exp.tier = 3
    store.update(exp)
""" % (SIGNATURE,)


def _crash_writing(op: str, exp_id: str) -> None:
    out = subprocess.run([PY, "-c", CRASHING_WRITER, op, exp_id], env=dict(os.environ), timeout=120)
    assert out.returncode == 9


def _denies(home: Path) -> bool:
    return wire.snapshot_check(str(home), "PreToolUse", PUSH.encode()) is not None


def _lessons(n: int) -> list[Experience]:
    return [
        Experience(text=f"lesson {i}", trigger=f"make target{i}", tier=1 if i % 2 else 2, structured={})
        for i in range(n)
    ]


@pytest.fixture
def store(twiceshy_home: Path):
    from twiceshy.engine.context import make_context

    return make_context(None).store


def test_start_up_check_catches_up_what_a_crashed_writer_left_out(twiceshy_home: Path, store) -> None:
    store.add_many(_lessons(6))
    snap = store.rules_snapshot
    assert snap.ensure(store) == ("rebuilt", 3)  # no position recorded yet
    assert snap.ensure(store) == ("caught up", 0)
    assert rules_snapshot.read(snap.path)["journal"][0] == store.journal_position()[0]

    _crash_writing("add", "c0ffee000001")
    store.refresh_if_stale()
    assert not _denies(twiceshy_home)  # the writer died before the snapshot heard of its rule
    read: list[str] = []
    real_get_many = store.get_many
    store.get_many = lambda ids: read.extend(ids) or real_get_many(ids)
    assert snap.ensure(store) == ("caught up", 1)
    assert read == ["c0ffee000001"]  # only what the journal names, not every rule
    assert _denies(twiceshy_home)

    _crash_writing("demote", "c0ffee000001")  # demoted to a lesson, the snapshot not told
    store.refresh_if_stale()
    assert _denies(twiceshy_home)
    assert snap.ensure(store) == ("caught up", 1)
    assert not _denies(twiceshy_home)
    ids = {r["id"] for r in rules_snapshot.read(snap.path)["rules"]}
    assert ids == {e.id for e in store.all() if e.tier == 1}


def test_a_damaged_snapshot_never_blocks_and_is_rebuilt_by_pages(
    twiceshy_home: Path, store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.add_many(_lessons(4))
    store.add(
        Experience(
            text="Never force-push main", trigger="git push --force", tier=1, structured={"signature": SIGNATURE}
        )
    )
    snap = store.rules_snapshot
    snap.ensure(store)
    assert _denies(twiceshy_home)
    whole = snap.path.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"\x00garbage", b'{"v": 1, "rules": "nope"}', b""):
        snap.path.write_bytes(damaged)
        assert not _denies(twiceshy_home)  # a broken file enforces nothing, and raises nothing
        monkeypatch.setattr(store, "all", lambda *a, **k: pytest.fail("read every rule at once"))
        assert snap.ensure(store)[0] == "rebuilt"
        assert _denies(twiceshy_home)
        assert len(rules_snapshot.read(snap.path)["rules"]) == 3


def test_writes_keep_the_position_so_the_next_start_only_catches_up(twiceshy_home: Path, store) -> None:
    store.add_many(_lessons(4))
    snap = store.rules_snapshot
    snap.ensure(store)
    position = rules_snapshot.read(snap.path)["journal"]
    rule = Experience(
        text="Never force-push main", trigger="git push --force", tier=1, structured={"signature": SIGNATURE}
    )
    store.add(rule)  # a normal write: the snapshot follows it and keeps its position
    data = rules_snapshot.read(snap.path)
    assert data["journal"] == position and rule.id in {r["id"] for r in data["rules"]}
    stamp = snap.path.stat().st_mtime_ns
    assert snap.ensure(store) == ("caught up", 1)
    assert snap.path.stat().st_mtime_ns == stamp  # nothing to change, short backlog: not rewritten
    other = rules_snapshot.RulesSnapshot(snap.path, block_tiers=[1, 2])  # other block tiers: rebuilt
    assert other.ensure(store) == ("rebuilt", 5)


def test_engine_start_catches_the_snapshot_up_instead_of_rebuilding(twiceshy_home: Path, store) -> None:
    import time

    from reliability_kit import serve_pids, wait_for
    from twiceshy.engine import server as engine_mod

    store.add_many(_lessons(6))
    store.rules_snapshot.ensure(store)
    _crash_writing("add", "c0ffee000002")
    assert not _denies(twiceshy_home)
    try:
        engine_mod.spawn_detached(twiceshy_home, env=dict(os.environ))
        assert engine_mod.wait_ready(twiceshy_home, timeout=120) is not None
        deadline = time.monotonic() + 120
        checked: list[str] = []
        while not checked and time.monotonic() < deadline:
            status = engine_mod.call(twiceshy_home, "ping") or {}
            checked = [k for k in status.get("timing_ms", {}) if k.startswith("rules snapshot")]
            if not checked:
                time.sleep(0.2)  # polling the engine's own report, with a generous deadline
        assert checked == ["rules snapshot caught up (1 lessons read)"], status
        assert _denies(twiceshy_home)
    finally:
        engine_mod.stop(twiceshy_home, timeout=60)
        assert wait_for(lambda: not serve_pids(twiceshy_home), timeout=30)  # SIGKILLed: a moment to go


def test_rule_ids_are_read_right_from_a_file_in_any_form(tmp_path: Path) -> None:
    """The id scan of the compact file, and the parse of any other form, agree."""
    path = tmp_path / "rules.json"
    rules = [
        {"id": "a1", "tier": 1, "project": None, "signature": {"id": "nested"}, "reason": 'says {"id":"fake"}'},
        {"id": "b2", "tier": 1, "project": "p", "signature": None, "reason": "plain"},
    ]
    snap = rules_snapshot.RulesSnapshot(path)
    rules_snapshot._write(path, {"v": 1, "written_at": 1.0, "block_tiers": [1], "rules": rules})
    assert {"a1", "b2"} <= snap.ids_on_disk() <= {"a1", "b2", "nested"}  # extra ids only cost a merge
    path.write_text(json.dumps({"v": 1, "block_tiers": [1], "rules": rules[1:]}, indent=2))  # hand-edited
    assert snap.ids_on_disk() == {"b2"}
    snap.on_write("delete", ["b2"])
    assert rules_snapshot.read(path)["rules"] == []


def test_a_snapshot_of_many_rules_still_holds_when_the_engine_is_cold(tmp_path: Path) -> None:
    """Past 8 MiB (~27k rules) the client used to read a cut-off file, which parsed as
    nothing: no rule held while the engine was cold. The matching rule is the last one."""
    home = tmp_path / "home"
    home.mkdir()
    filler = {"v": 1, "kind": "command", "program": "make", "sub": [], "present": []}
    rules = [
        {
            "id": f"r{i:06d}",
            "tier": 1,
            "project": None,
            "signature": dict(filler, sub=[f"target{i}"]),
            "reason": "Blocked by twiceshy: a confirmed rule applies.\n" + "Run the other target instead. " * 6,
        }
        for i in range(40_000)
    ]
    rules.append({"id": "push", "tier": 1, "project": None, "signature": SIGNATURE, "reason": "Never force-push main"})
    rules_snapshot._write(
        Path(wire.rules_path(str(home))), {"v": 1, "written_at": 1.0, "block_tiers": [1], "rules": rules}
    )
    assert os.path.getsize(wire.rules_path(str(home))) > 8 * 1024 * 1024
    hit = wire.snapshot_check(str(home), "PreToolUse", PUSH.encode())
    assert hit is not None and hit[1] == ["push"]
    ok = json.dumps({"cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": "git push origin main"}})
    assert wire.snapshot_check(str(home), "PreToolUse", ok.encode()) is None
