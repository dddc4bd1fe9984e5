"""The offline queue: appends from many processes, drains that survive crashes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from twiceshy.engine.spool import Spool, record_payload
from twiceshy.hooks import wire


class Crash(BaseException):
    """Stands in for the process dying mid-drain (not caught as an apply error)."""


def add(home: Path, n: int, prefix: str = "e") -> list[str]:
    ids = [f"{prefix}{i:04d}" for i in range(n)]
    for event_id in ids:
        line = wire.spool_record(event_id, "claude-code", "PostToolUse", json.dumps({"n": event_id}).encode())
        assert wire.spool_append(str(home), line)
    return ids


def test_drain_applies_in_order_and_empties(tmp_path: Path) -> None:
    ids = add(tmp_path, 5)
    got: list[str] = []
    spool = Spool(tmp_path)
    assert spool.pending_count() == 5
    assert spool.drain(lambda r: got.append(r["id"])) == 5
    assert got == ids
    assert spool.pending_count() == 0 and spool.drain(lambda r: got.append(r["id"])) == 0
    assert not spool.path.exists() and spool.pending_files() == []


def test_duplicate_ids_apply_once_even_across_drains_and_restarts(tmp_path: Path) -> None:
    add(tmp_path, 3)
    got: list[str] = []
    Spool(tmp_path).drain(lambda r: got.append(r["id"]))
    add(tmp_path, 4)  # e0000..e0002 again, plus e0003
    Spool(tmp_path).drain(lambda r: got.append(r["id"]))  # a new instance = an engine restart
    assert got == ["e0000", "e0001", "e0002", "e0003"]


def test_crash_mid_drain_neither_loses_nor_repeats(tmp_path: Path) -> None:
    ids = add(tmp_path, 10)
    applied: list[str] = []

    def dies_at_the_fifth(record: dict) -> None:
        if len(applied) == 4:
            raise Crash()
        applied.append(record["id"])

    with pytest.raises(Crash):
        Spool(tmp_path).drain(dies_at_the_fifth)
    assert len(Spool(tmp_path).pending_files()) == 1  # the claimed file survives the crash
    add(tmp_path, 2, prefix="late")  # new events arrive before the restart
    Spool(tmp_path).drain(lambda r: applied.append(r["id"]))
    assert applied == ids + ["late0000", "late0001"]


def test_failing_apply_is_logged_and_does_not_block_the_queue(tmp_path: Path, twiceshy_home: Path) -> None:
    add(tmp_path, 3)
    seen: list[str] = []

    def poison(record: dict) -> None:
        seen.append(record["id"])
        if record["id"] == "e0001":
            raise ValueError("bad event")

    assert Spool(tmp_path).drain(poison) == 3
    assert seen == ["e0000", "e0001", "e0002"]
    errors = (twiceshy_home / "errors.jsonl").read_text()
    assert "spool.apply" in errors and "bad event" in errors


def test_torn_line_and_non_json_payload(tmp_path: Path, twiceshy_home: Path) -> None:
    spool = Spool(tmp_path)
    assert wire.spool_append(str(tmp_path), wire.spool_record("raw1", "codex", "PostToolUse", b"not json \xff"))
    spool.path.open("ab").write(b'{"id": "torn", "agent": "co')  # a writer died mid-line
    got: list = []
    spool.drain(lambda r: got.append(record_payload(r)))
    assert got == ["not json \ufffd"]
    assert "spool.parse" in (twiceshy_home / "errors.jsonl").read_text()


def test_engine_journal_and_client_share_one_format(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    assert spool.append("j1", "claude-code", "SessionEnd", {"session_id": "s", "reason": "exit"})
    add(tmp_path, 1)
    got: list[dict] = []
    spool.drain(got.append)
    assert [(r["id"], r["event"]) for r in got] == [("j1", "SessionEnd"), ("e0000", "PostToolUse")]
    assert got[0]["payload"]["reason"] == "exit"
    assert oct(spool.dir.stat().st_mode & 0o777) == "0o700"


def test_concurrent_writer_processes_while_draining(tmp_path: Path) -> None:
    """Four processes append 150 events each while a drainer keeps renaming
    the spool away: every event is applied exactly once."""
    writer = (
        "import sys, json\n"
        f"sys.path.insert(0, {str(Path(wire.__file__).parent)!r})\n"
        "import wire as client\n"
        "home, tag = sys.argv[1], sys.argv[2]\n"
        "for i in range(150):\n"
        "    line = client.spool_record(f'{tag}-{i}', 'claude-code', 'PostToolUse', b'{}')\n"
        "    assert client.spool_append(home, line)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-I", "-S", "-c", writer, str(tmp_path), f"w{k}"]) for k in range(4)]
    spool = Spool(tmp_path)
    got: list[str] = []
    stop = threading.Event()

    def drainer() -> None:
        while not stop.is_set():
            spool.drain(lambda r: got.append(r["id"]))

    thread = threading.Thread(target=drainer)
    thread.start()
    for proc in procs:
        assert proc.wait(timeout=60) == 0
    stop.set()
    thread.join(30)
    spool.drain(lambda r: got.append(r["id"]))
    assert len(got) == 600 and len(set(got)) == 600


def test_spool_refuses_past_its_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "MAX_SPOOL_BYTES", 300)
    results = [
        wire.spool_append(str(tmp_path), wire.spool_record(f"id{i}", "a", "PostToolUse", b"{}")) for i in range(10)
    ]
    assert results[0] is True and results[-1] is False
