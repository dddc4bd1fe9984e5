"""A hold the client gave up waiting for is undone, whichever comes first: the drop or the answer.

The client writes the id of a pre-tool call it stopped waiting for to
``failopen.jsonl``; the engine reads it at its next request. Under load that
read can come *before* the engine has finished (and noted) the very answer the
client gave up on. The drop must not be lost then: the answer's warnings are
un-shown once it is noted, and a hold it carried is let go, so the same call is
held again (the model never saw the hold; the call ran on fail-open). In CI the
lost drop left every later identical call allowed as a "retry".
"""

from __future__ import annotations

from pathlib import Path

from twiceshy.engine.context import make_context
from twiceshy.engine.server import Engine
from twiceshy.recall import delivery


def _held_on_disk(session_id: str) -> dict[str, float]:
    return delivery._held({}, session_id)  # a fresh session state reads the record from disk


def _answer(engine: Engine, ctx, wire_id: str) -> list[dict]:
    """What delivery leaves after a hold of lesson e1 on call fingerprint fp1, noted for ``wire_id``."""
    session = ctx.session("s1")
    with delivery._lock:
        held = delivery._held(session, "s1")
        held["fp1"] = 1.0
    delivery._save_held("s1", dict(held))
    session["shown"] = {"e1"}
    log = [{"exp_id": "e1", "kind": "hold", "fingerprint": "fp1", "seq": 1}]
    session["shown_log"] = log
    engine._note_delivery(wire_id, "s1", log, 0)
    return log


def test_a_drop_read_before_the_answer_is_noted_still_undoes_it(twiceshy_home: Path) -> None:
    ctx = make_context(None)
    engine = Engine(twiceshy_home, ctx=ctx)
    engine._undeliver("wire-1")  # the drop, read while the answer is still being worked out
    _answer(engine, ctx, "wire-1")
    session = ctx.session("s1")
    assert session.get("shown_log") == []
    assert "e1" not in session.get("shown")
    assert "fp1" not in delivery._held(session, "s1")
    assert "fp1" not in _held_on_disk("s1")  # a restarted engine holds the call again too


def test_a_drop_read_after_the_answer_undoes_it_and_lets_the_hold_go(twiceshy_home: Path) -> None:
    ctx = make_context(None)
    engine = Engine(twiceshy_home, ctx=ctx)
    _answer(engine, ctx, "wire-2")
    assert "fp1" in _held_on_disk("s1")
    engine._undeliver("wire-2")
    session = ctx.session("s1")
    assert session.get("shown_log") == [] and "e1" not in session.get("shown")
    assert "fp1" not in _held_on_disk("s1")


def test_an_answer_nobody_dropped_stays_shown_and_held(twiceshy_home: Path) -> None:
    ctx = make_context(None)
    engine = Engine(twiceshy_home, ctx=ctx)
    engine._undeliver("someone-else")  # another call's drop, answered with nothing to undo
    log = _answer(engine, ctx, "wire-3")
    session = ctx.session("s1")
    assert session.get("shown_log") == log and len(log) == 1
    assert "e1" in session.get("shown")
    assert "fp1" in _held_on_disk("s1")
