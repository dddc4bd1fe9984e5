"""Session-end ingest is exactly-once under kill -9, at every step of the apply.

A session end is acked once journaled in the spool, then applied in the
engine's background: trajectory written, lessons extracted, each lesson
stored (a new lesson, or an existing one's ``seen_count`` up), the session's
keys saved, ``session_learned`` hooks run, then the spool records the event
done. For each of those steps a real engine pauses at the step's fault point
(:mod:`twiceshy.base.faults`), is killed with SIGKILL by pid, and restarted
without the fault; the spool replays the event. Afterwards the store and the
trajectory file must be exactly what one uninterrupted apply leaves: every
lesson once, with the count of a single apply, and one trajectory record.

Two modes: ``new`` (the crashed session creates its lessons) and ``seen``
(an earlier session taught the same lessons, so the crashed one only counts
them: a replay must not count them twice).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import reliability_kit as kit
from twiceshy.engine import server as engine_mod

FIXTURE = Path(__file__).parent / "fixtures" / "transcripts" / "session1_pip_mistake.jsonl"
AGENT = "claude-code"
# (fault point, which hit of it within the crashed session): every step of one apply, in order.
STEPS = [
    ("session_end.trajectory", 1),
    ("session_end.extracted", 1),
    ("store.written", 1),  # a Chroma write landed, its journal note after it not yet written
    ("session_end.lesson_stored", 1),
    ("session_end.lesson_stored", 2),
    ("session_end.stored", 1),
    ("session_end.learned", 1),
    ("session_end.applied", 1),
]
TRIALS: list[dict[str, Any]] = []  # one row per kill, for the summary line


@pytest.fixture
def work(tmp_path: Path) -> Iterator[dict[str, Any]]:
    procs: list[subprocess.Popen] = []
    homes: list[Path] = []
    transcript = tmp_path / "transcript.jsonl"
    shutil.copy(FIXTURE, transcript)
    project = tmp_path / "project"
    project.mkdir()
    yield {"tmp": tmp_path, "procs": procs, "homes": homes, "transcript": transcript, "cwd": project}
    for home in homes:
        kit.kill_engines(home, procs)


def _session_end(home: Path, session: str, w: dict[str, Any]) -> None:
    payload = {
        "session_id": session,
        "transcript_path": str(w["transcript"]),
        "cwd": str(w["cwd"]),
        "hook_event_name": "SessionEnd",
        "reason": "exit",
    }
    # A generous budget: what is tested is the apply after the ack, not how fast a
    # freshly started engine acks on a loaded machine (a helper saw >5 s at load 12).
    reply, _, _ = kit.call_like_client(home, AGENT, "SessionEnd", json.dumps(payload).encode(), 30.0)
    assert reply is not None, "the session end was not acked"


def _applied(home: Path, w: dict[str, Any], env: dict[str, str], sessions: list[str]) -> None:
    """Start an engine, send the session ends, let it apply them all, stop it."""
    proc = kit.start_engine(home, env)
    w["procs"].append(proc)
    for session in sessions:
        _session_end(home, session, w)
    engine_mod.call(home, "drain")
    assert kit.wait_for(lambda: kit.spool_pending(home) == 0, timeout=300, step=0.2), "the spool never drained"
    kit.stop_engine(home, proc)


def _snapshot(home: Path, env: dict[str, str]) -> dict[str, Any]:
    """The store's lessons (what a duplicate apply would change) and the trajectory records per session."""
    code = (
        "import json\n"
        "from twiceshy.engine.context import make_context\n"
        "c = make_context(None)\n"
        "rows = sorted([e.kind, e.trigger, e.text, e.seen_count, round(e.confidence, 3), bool(e.superseded_by)]\n"
        "  for e in c.store.all())\n"
        "print(json.dumps({'count': c.store.count(), 'lessons': rows}))\n"
    )
    out = subprocess.run(
        [kit.PY, "-c", code], env=env, capture_output=True, text=True, timeout=180, cwd=str(home.parent)
    )
    assert out.returncode == 0, f"the store does not open:\n{out.stderr[-3000:]}"
    snap = json.loads(out.stdout.strip().splitlines()[-1])
    per_session: dict[str, int] = {}
    path = home / "trajectories.jsonl"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        sid = json.loads(line).get("session_id", "")
        per_session[sid] = per_session.get(sid, 0) + 1
    snap["trajectories"] = per_session
    return snap


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """What one uninterrupted apply leaves, per mode (the same transcript, no fault)."""
    tmp = tmp_path_factory.mktemp("reference")
    w: dict[str, Any] = {"tmp": tmp, "procs": [], "transcript": tmp / "t.jsonl", "cwd": tmp / "project"}
    shutil.copy(FIXTURE, w["transcript"])
    w["cwd"].mkdir()
    out: dict[str, Any] = {}
    for mode, sessions in (("new", ["crash"]), ("seen", ["warm", "crash"])):
        home = tmp / f"home-{mode}"
        env = kit.env_for(home)
        try:
            _applied(home, w, env, sessions)
        finally:
            kit.kill_engines(home, w["procs"])
        out[mode] = _snapshot(home, env)
    # The fixture must exercise the steps: at least two lessons (two store steps), counted again when seen.
    assert len(out["new"]["lessons"]) >= 2, out["new"]
    assert out["seen"]["count"] == out["new"]["count"]
    assert sum(r[3] for r in out["seen"]["lessons"]) > sum(r[3] for r in out["new"]["lessons"])
    yield out
    rows = ", ".join(f"{t['mode']}/{t['step']}:{t['hit']}={t['what'] or 'once'}" for t in TRIALS)
    dups = sum(t["duplicates"] for t in TRIALS)
    print(f"\nsession end exactly-once under kill -9: {len(TRIALS)} trials, {dups} applied twice ({rows})")


@pytest.mark.parametrize("mode", ["new", "seen"])
@pytest.mark.parametrize(("step", "hit"), STEPS, ids=[f"{s.split('.')[1]}-{n}" for s, n in STEPS])
def test_kill_9_at_each_step_applies_once(
    work: dict[str, Any], reference: dict[str, Any], mode: str, step: str, hit: int
) -> None:
    home = work["tmp"] / "home"
    work["homes"].append(home)
    env = kit.env_for(home)
    if mode == "seen":
        _applied(home, work, env, ["warm"])  # an earlier session taught the same lessons
    proc = kit.start_engine(home, dict(env, TWICESHY_FAULT_PAUSE=f"{step}:{hit}"))
    work["procs"].append(proc)
    pid = engine_mod.call(home, "ping", timeout=20.0)["pid"]
    _session_end(home, "crash", work)
    paused = home / f"fault-{step}"
    assert kit.wait_for(paused.exists, timeout=180, step=0.05), f"the apply never reached {step}:{hit}"
    assert paused.read_text() == str(pid)
    os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)
    paused.unlink()
    assert kit.spool_pending(home) >= 1, "the acked session end is not in the queue any more"

    proc2 = kit.start_engine(home, env)
    work["procs"].append(proc2)
    engine_mod.call(home, "drain")
    assert kit.wait_for(lambda: kit.spool_pending(home) == 0, timeout=300, step=0.2), "the replay never drained"
    kit.stop_engine(home, proc2)
    assert not paused.exists(), "the restarted engine paused: the fault leaked into it"

    got, want = _snapshot(home, env), reference[mode]
    extra = sum(r[3] for r in got["lessons"]) - sum(r[3] for r in want["lessons"])
    extra += got["count"] - want["count"]
    extra += sum(got["trajectories"].values()) - sum(want["trajectories"].values())
    lessons_twice = got["lessons"] != want["lessons"] or got["count"] != want["count"]
    trajectory_twice = got["trajectories"] != want["trajectories"]
    TRIALS.append(
        {
            "mode": mode,
            "step": step.split(".")[1],
            "hit": hit,
            "duplicates": int(extra != 0),
            "what": "+".join(w for w, bad in (("lessons", lessons_twice), ("trajectory", trajectory_twice)) if bad),
        }
    )
    assert got["count"] == want["count"], f"lessons stored twice: {got['lessons']}"
    assert got["lessons"] == want["lessons"], "a lesson's count differs from a single apply"
    assert got["trajectories"] == want["trajectories"], "the trajectory was recorded twice (or lost)"
