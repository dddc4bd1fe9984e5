"""`twiceshy doctor` with the engine up: the store and embedder figures come from the
running engine (no chromadb, no model in the doctor's process), the same checks and
verdict as when doctor opens the store itself; and every way the engine cannot
stand in (none runs, it is silent, another store is configured) falls back to
doctor's own figures and says why. A real engine on a temp data dir, real CLI
processes, a real silent socket."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from twiceshy.base.config import load_config
from twiceshy.hooks import wire
from twiceshy.ops.doctor_engine import NO_ENGINE, ask_engine
from twiceshy.ops.doctor_report import DoctorState

LESSONS = (
    ("Never force-push to main; open a PR", "git push --force origin main", "rule"),
    ("Run make clean instead of deleting the build dir by hand", "rm -rf build", "raw"),
    ("Pin the image tag: a moving tag breaks reproducible builds", "docker pull python:latest", "raw"),
)
# Run in a fresh process: which heavy modules did doctor load, and what did it report?
PROBE = (
    "import json, sys; from twiceshy.ops.doctor import run_checks; "
    "r = run_checks(check_model=False).to_dict(); "
    "print(json.dumps({'report': r, 'chromadb': 'chromadb' in sys.modules, 'onnxruntime': 'onnxruntime' in sys.modules}))"
)


def cli(*args: str, env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, twiceshy_home: Path) -> dict[str, str]:
    """A private HOME (no agent settings of this machine), three lessons in the store."""
    home = tmp_path / "userhome"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "TWICESHY_ENGINE_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TWICESHY_NO_AUTOSTART", "1")  # nothing here may start an engine but `engine start`
    environ = dict(os.environ)
    for text, trigger, tier in LESSONS:
        proc = cli("learn", text, "--trigger", trigger, "--tier", tier, env=environ, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    return environ


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    return proj


@pytest.fixture
def engine(env: dict[str, str], project: Path) -> Iterator[dict[str, str]]:
    """A running engine for the data dir (stopped afterwards)."""
    start_env = {k: v for k, v in env.items() if k != "TWICESHY_NO_AUTOSTART"}
    proc = cli("engine", "start", env=start_env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    try:
        yield env
    finally:
        assert cli("engine", "stop", env=start_env, cwd=project).returncode == 0


def doctor_json(env: dict[str, str], cwd: Path, *extra: str) -> tuple[int, dict]:
    proc = cli("doctor", "--json", "--no-model", *extra, env=env, cwd=cwd)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def probe(env: dict[str, str], cwd: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


def test_engine_up_answers_the_store_and_embedder_checks(engine: dict[str, str], project: Path) -> None:
    started = time.monotonic()
    rc, report = doctor_json(engine, project)
    elapsed = time.monotonic() - started
    checks = by_name(report)
    store, embedder, eng = checks["store"], checks["embedder"], checks["engine"]
    assert store["level"] == "ok" and store["data"]["source"] == "engine", store
    assert store["data"]["lessons"] == 3 and store["data"]["tiers"]["rule"] == 1 and store["data"]["tiers"]["raw"] == 2
    assert store["data"]["read_back"] == 3 and store["data"]["full"] is False
    assert "figures from the running engine" in store["detail"]
    assert embedder["level"] == "ok" and embedder["data"]["source"] == "engine", embedder
    assert embedder["data"]["dim"] == 384 and embedder["data"]["backend"] == "minilm"
    assert "hash_fallback" not in embedder["data"]
    assert eng["level"] == "ok" and "it answered the store and embedder checks" in eng["detail"]
    assert eng["data"]["pid"] > 0 and eng["data"]["ready"] is True
    assert rc == 1 and report["verdict"] == "1 problem(s): see the fixes above"  # no agent wired: hooks fail
    assert elapsed < 30  # the speed is the benchmark's to show; this only says it never hangs
    # Timing-free proof that the doctor's process opened neither Chroma nor the model.
    seen = probe(engine, project)
    assert by_name(seen["report"])["store"]["data"]["source"] == "engine"
    assert seen["chromadb"] is False and seen["onnxruntime"] is False


def test_same_checks_and_verdict_as_doctors_own_figures(engine: dict[str, str], project: Path) -> None:
    """--full always opens the store in the doctor's process: with the engine up, both
    runs give the same rows, levels, figures and verdict."""
    rc_fast, fast = doctor_json(engine, project)
    rc_own, own = doctor_json(engine, project, "--full")
    assert rc_fast == rc_own
    assert fast["verdict"] == own["verdict"] and fast["counts"] == own["counts"]
    assert [(c["name"], c["level"]) for c in fast["checks"]] == [(c["name"], c["level"]) for c in own["checks"]]
    fast_store, own_store = by_name(fast)["store"]["data"], by_name(own)["store"]["data"]
    assert own_store["source"] == "doctor" and "--full" in own_store["engine_note"]
    for key in ("path", "lessons", "tiers", "collection", "read_back"):
        assert fast_store[key] == own_store[key], key
    fast_emb, own_emb = by_name(fast)["embedder"]["data"], by_name(own)["embedder"]["data"]
    for key in ("backend", "name", "dim"):
        assert fast_emb[key] == own_emb[key], key
    assert set(fast_emb) == set(own_emb) - {"engine_note"}  # the same keys, and where they came from
    assert "doctor opened the store itself" in by_name(own)["engine"]["detail"]


def test_engine_down_doctor_opens_the_store_itself(env: dict[str, str], project: Path) -> None:
    rc, report = doctor_json(env, project)
    checks = by_name(report)
    store = checks["store"]
    assert store["level"] == "ok" and store["data"]["lessons"] == 3
    assert store["data"]["source"] == "doctor" and store["data"]["engine_note"] == NO_ENGINE
    assert f"doctor's own figures: {NO_ENGINE}" in store["detail"]
    assert checks["embedder"]["data"]["source"] == "doctor"
    assert checks["engine"]["level"] == "warn" and "not running" in checks["engine"]["detail"]
    assert rc == 1 and report["verdict"] == "1 problem(s) and 1 warning(s): see the fixes above"
    seen = probe(env, project)
    assert seen["chromadb"] is True  # it did open the store itself
    # ... and started no engine.
    assert not os.path.exists(wire.socket_path(env["TWICESHY_HOME"]))


def test_engine_with_another_store_configured_declines(engine: dict[str, str], project: Path) -> None:
    """Another embedder configured for this run: the engine's figures would be of
    another collection, so it declines and doctor opens the store itself."""
    other = dict(engine, TWICESHY_EMBEDDING__BACKEND="hash")
    _rc, report = doctor_json(other, project)
    checks = by_name(report)
    assert checks["store"]["data"]["source"] == "doctor"
    assert checks["store"]["data"]["engine_note"] == "the engine runs with another embedding configuration"
    assert checks["store"]["data"]["collection"].endswith("hash-ngrams-v1")
    assert checks["embedder"]["data"]["name"] == "hash-ngrams-v1"
    assert checks["engine"]["level"] == "ok" and "doctor opened the store itself" in checks["engine"]["detail"]


@pytest.fixture
def silent_socket(env: dict[str, str]) -> Iterator[socket.socket]:
    """Something listening where the engine's socket is, that never answers (a hung engine)."""
    path = wire.socket_path(env["TWICESHY_HOME"])
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(16)
    try:
        yield sock
    finally:
        sock.close()
        os.unlink(path)


def test_a_silent_engine_costs_the_timeout_then_doctor_opens_the_store(
    env: dict[str, str], project: Path, silent_socket: socket.socket
) -> None:
    state = DoctorState(project, check_model=False)
    state.config = load_config(project)
    started = time.monotonic()
    figures, note = ask_engine(state, "unused", timeout=0.5)
    waited = time.monotonic() - started
    assert figures is None and note == "the engine did not answer within 0.5 s"
    assert 0.4 < waited < 10  # the deadline holds (loose: a loaded machine)
    # The whole command: the 2 s deadline, then the store opened here; never a hang.
    rc, report = doctor_json(env, project)
    store = by_name(report)["store"]
    assert store["level"] == "ok" and store["data"]["lessons"] == 3
    assert store["data"]["source"] == "doctor" and store["data"]["engine_note"].startswith("the engine did not answer")


def test_engine_answers_the_doctor_request_on_the_wire(engine: dict[str, str], project: Path) -> None:
    """The control request itself: figures, or a reason to decline; never a crash."""
    home = engine["TWICESHY_HOME"]
    config = load_config(project)
    payload = json.dumps({"store": config["store"], "embedding": config["embedding"]}).encode()
    reply = wire.request(home, "-", "doctor", "ctl", payload, time.monotonic() + 30)
    assert reply is not None and reply[0] == 0
    figures = json.loads(reply[1])
    assert figures["store"]["lessons"] == 3 and figures["embedder"]["name"] == "minilm-l6-v2-int8"
    assert figures["status"]["pid"] > 0 and set(figures["parts_ms"]) == {"embedder", "probe", "store", "hold index"}
    assert figures["config"] == {"store": config["store"], "embedding": config["embedding"]}
    other = json.dumps({"store": config["store"], "embedding": {**config["embedding"], "backend": "hash"}}).encode()
    for bad, reason in ((b"not json", "bad-request"), (b"[]", "bad-request"), (other, "other-store")):
        reply = wire.request(home, "-", "doctor", "ctl", bad, time.monotonic() + 30)
        assert reply is not None and json.loads(reply[1]) == {"declined": reason}
    # The engine is still fine afterwards.
    ping = wire.request(home, "-", "ping", "ctl", b"", time.monotonic() + 30)
    assert ping is not None and json.loads(ping[1])["ready"] is True


def test_hold_index_row_from_the_engine_matches_doctors_own(engine: dict[str, str], project: Path) -> None:
    """The hold index shards are read by the engine when it is up: the same row as
    doctor's own reading, also for a damaged shard."""
    home = Path(engine["TWICESHY_HOME"])
    _rc, fast = doctor_json(engine, project)
    _rc, own = doctor_json(engine, project, "--full")
    assert by_name(fast)["hold index"] == by_name(own)["hold index"]
    shard = sorted((home / "hold_index").glob("[0-9][0-9].json"))
    assert shard, "the lessons taught above hold calls: the index has shards"
    shard[0].write_text('{"v": 1, "rules": [')  # truncated: the hook client cannot read it
    _rc, fast = doctor_json(engine, project)
    _rc, own = doctor_json(engine, project, "--full")
    held = by_name(fast)["hold index"]
    assert held == by_name(own)["hold index"]
    assert held["level"] == "warn" and held["data"]["damaged"] == [shard[0].name]
    assert by_name(fast)["store"]["data"]["source"] == "engine"


def test_cli_entry_point_asks_before_click_loads(engine: dict[str, str], project: Path) -> None:
    """`twiceshy doctor` sends its request from the CLI's entry point (the engine works
    while click and the plugins load); doctor takes that answer instead of asking again."""
    from twiceshy.ops import doctor_engine

    home = engine["TWICESHY_HOME"]
    state = DoctorState(project, check_model=False)
    state.config = load_config(project)
    store_path = str(doctor_engine.store_path_of(state.config))
    doctor_engine.prefetch(["doctor", "--full"], home)
    assert doctor_engine._prefetched is None  # --full never uses the engine
    doctor_engine.prefetch(["doctor", "--json"], home)
    assert doctor_engine._prefetched is not None
    figures, note = ask_engine(state, store_path)
    assert doctor_engine._prefetched is None and note == "" and figures is not None
    assert figures["store"]["lessons"] == 3 and figures["hold_index"]["shards"] >= 1
    doctor_engine.prefetch(["doctor"], str(project))  # another data dir: nothing listens there
    assert doctor_engine._prefetched is None


def reads(env: dict[str, str]) -> dict:
    from twiceshy.engine import server as engine_mod

    status = engine_mod.call(env["TWICESHY_HOME"], "ping", timeout=5.0)
    assert status is not None
    return status["reads"]


def levels(report: dict) -> list[tuple[str, str]]:
    return [(c["name"], c["level"]) for c in report["checks"]]


def test_doctor_is_run_by_the_engine_with_the_report_a_fresh_process_gives(
    engine: dict[str, str], project: Path
) -> None:
    """With the engine up and the same environment, the whole `twiceshy doctor` runs in
    the engine (click, the plugins, the store are loaded there): the same checks, levels
    and exit code as doctor run in its own process."""
    before = reads(engine)
    code, routed = doctor_json(engine, project)
    after = reads(engine)
    assert after["served"] == before["served"] + 1 and "doctor" in after["last_ms"], after
    own_code, own = doctor_json({**engine, "TWICESHY_READ_VIA_ENGINE": "0"}, project)
    assert reads(engine)["served"] == after["served"]  # that one ran in its own process
    assert (code, levels(routed)) == (own_code, levels(own))
    assert "figures from the running engine" in by_name(routed)["store"]["detail"]
    assert by_name(routed)["store"]["data"]["lessons"] == 3


def test_doctor_with_another_environment_or_full_runs_in_its_own_process(engine: dict[str, str], project: Path) -> None:
    """PATH, HOME, proxies and API key variables are the process's own: an engine whose
    environment is not the client's declines, and doctor runs itself (same report);
    `--full` (the check of what a fresh process finds) never goes to the engine."""
    before = reads(engine)
    code, other = doctor_json({**engine, "SOME_API_KEY": "x"}, project)
    after = reads(engine)
    assert after["served"] == before["served"], after
    assert after["declined"].get("other-environment", 0) == before["declined"].get("other-environment", 0) + 1
    _, own = doctor_json({**engine, "TWICESHY_READ_VIA_ENGINE": "0"}, project)
    assert levels(other) == levels(own)
    doctor_json(engine, project, "--full")
    assert reads(engine)["served"] == after["served"]


def test_an_unchanged_store_gives_its_last_figures_again_and_a_write_makes_them_new(
    engine: dict[str, str], project: Path
) -> None:
    """The store part (SQLite's check, the counts, the read-back) is reused while the store
    is unchanged (same generation and file), and worked out again after a write."""
    home = engine["TWICESHY_HOME"]

    def ask() -> dict:
        reply = wire.request(home, "-", "doctor", "ctl", b"{}", time.monotonic() + 30)
        assert reply is not None and reply[0] == 0
        return json.loads(reply[1])

    first, second = ask(), ask()
    assert {"probe", "store"} <= set(first["parts_ms"]) and "reused" not in first["parts_ms"]
    assert "reused" in second["parts_ms"] and "probe" not in second["parts_ms"]
    assert second["store"] == first["store"] and second["store"]["lessons"] == 3
    learned = cli("learn", "Quote the glob in find -name", "--trigger", "find . -name *.py", env=engine, cwd=project)
    assert learned.returncode == 0, learned.stderr
    third = ask()
    assert "reused" not in third["parts_ms"] and third["store"]["lessons"] == 4
