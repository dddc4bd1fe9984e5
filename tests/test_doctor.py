"""`twiceshy doctor` against real broken and working setups: real config
files, a real Chroma store on disk, real settings files written by
`twiceshy install`, a real engine, a real (fake-model) HTTP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from llm_server import FakeLLMServer, llm_env, warm_litellm
from twiceshy.base.errorlog import record_error
from twiceshy.ops.doctor import run_checks


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, twiceshy_home: Path) -> dict[str, str]:
    """Agents' settings under a private HOME; the process env for CLI calls."""
    home = tmp_path / "userhome"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "TWICESHY_ENGINE_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TWICESHY_NO_AUTOSTART", "1")
    return dict(os.environ)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    monkeypatch.chdir(proj)
    return proj


def cli(*args: str, env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def doctor_json(env: dict[str, str], cwd: Path, *extra: str) -> tuple[int, dict]:
    proc = cli("doctor", "--json", "--no-model", *extra, env=env, cwd=cwd)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


def test_broken_config_names_file_and_key_and_other_checks_still_run(env, project, twiceshy_home):
    config = Path(env["TWICESHY_CONFIG_DIR"]) / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("retrieval:\n  top_k: lots\n")
    rc, report = doctor_json(env, project)
    assert rc == 1
    checks = by_name(report)
    assert checks["config"]["level"] == "fail" and not checks["config"]["ok"]
    assert str(config) in checks["config"]["detail"] and "retrieval.top_k" in checks["config"]["detail"]
    assert checks["config"]["fix"]
    # The rest ran on defaults.
    assert checks["embedder"]["level"] == "ok"
    assert checks["engine"]["level"] in ("warn", "fail")
    # Human table: same facts, and a fix line per problem.
    proc = cli("doctor", "--no-model", env=env, cwd=project)
    assert proc.returncode == 1
    flat = " ".join(proc.stdout.split())
    assert "retrieval.top_k" in flat and "fix:" in flat and "twiceshy install --agent" in flat


def test_unknown_key_in_project_config(env, project):
    (project / ".twiceshy.yaml").write_text("retrieval:\n  topk: 3\n")
    rc, report = doctor_json(env, project)
    detail = by_name(report)["config"]["detail"]
    assert rc == 1 and ".twiceshy.yaml" in detail and "retrieval.topk" in detail


def test_store_path_not_a_directory(env, project, tmp_path):
    bogus = tmp_path / "not-a-dir"
    bogus.write_text("x")
    env = {**env, "TWICESHY_STORE__PATH": str(bogus)}
    rc, report = doctor_json(env, project)
    store = by_name(report)["store"]
    assert rc == 1 and store["level"] == "fail"
    assert "not a directory" in store["detail"] and "twiceshy restore" in store["fix"]


def test_corrupt_store_is_a_failure_with_restore_fix(env, project, tmp_path, monkeypatch):
    store = tmp_path / "corrupt-store"
    store.mkdir()
    (store / "chroma.sqlite3").write_bytes(b"this is not an sqlite database at all" * 100)
    monkeypatch.setenv("TWICESHY_STORE__PATH", str(store))
    report = run_checks(project, check_model=False)
    check = next(c for c in report.checks if c.name == "store")
    assert check.level == "fail" and str(store) in check.detail and "restore" in check.fix


def test_hooks_not_wired_then_wired(env, project):
    rc, report = doctor_json(env, project)
    checks = by_name(report)
    assert rc == 1
    assert checks["hooks"]["level"] == "fail" and "twiceshy install --agent" in checks["hooks"]["fix"]
    assert checks["hooks claude-code"]["level"] == "info"

    proc = cli("install", "--agent", "claude-code", env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    rc, report = doctor_json(env, project)
    checks = by_name(report)
    assert "hooks" not in checks  # the "nothing wired" failure is gone
    assert checks["hooks claude-code"]["level"] == "ok"
    assert str(Path(env["HOME"]) / ".claude" / "settings.json") in checks["hooks claude-code"]["detail"]
    assert checks["hooks codex"]["level"] == "info"
    # Everything else is fine; the stopped engine is only a warning.
    assert checks["engine"]["level"] == "warn" and "twiceshy engine start" in checks["engine"]["fix"]
    assert rc == 0, [c for c in report["checks"] if c["level"] == "fail"]
    rc_strict, _ = doctor_json(env, project, "--strict")
    assert rc_strict == 1


def test_stale_hook_command_and_missing_events(env, project, twiceshy_home):
    settings = Path(env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    command = f"/nonexistent/venv/bin/python -I -S /gone/twiceshy/hooks/client.py --home {twiceshy_home} claude-code PreToolUse"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}})
    )
    report = run_checks(project, check_model=False)
    check = next(c for c in report.checks if c.name == "hooks claude-code")
    assert check.level == "fail"
    assert "/nonexistent/venv/bin/python does not exist" in check.detail
    assert "/gone/twiceshy/hooks/client.py does not exist" in check.detail
    assert check.fix.startswith("twiceshy install --agent claude-code")
    assert not report.ok


def test_settings_file_with_bad_json(env, project):
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"hooks": {')
    check = next(c for c in run_checks(project, check_model=False).checks if c.name == "hooks claude-code")
    assert check.level == "fail" and "not valid JSON" in check.detail and str(settings) in check.detail


def test_recent_errors_and_engine_crash_are_reported(env, project, twiceshy_home):
    try:
        raise RuntimeError("chroma said no")
    except RuntimeError as exc:
        record_error("recall.search", exc)
    (twiceshy_home / "engine.log").write_text(
        'twiceshy engine 123 serving x on y\nTraceback (most recent call last):\n  File "x"\nOSError: [Errno 28] No space left on device\n'
    )
    checks = {c.name: c for c in run_checks(project, check_model=False).checks}
    assert checks["errors"].level == "warn"
    assert "recall.search" in checks["errors"].detail and "chroma said no" in checks["errors"].detail
    assert "errors.jsonl" in checks["errors"].fix
    assert checks["engine"].level == "fail" and "No space left on device" in checks["engine"].detail


def test_engine_running_and_queues(env, project, twiceshy_home):
    env = {k: v for k, v in env.items() if k != "TWICESHY_NO_AUTOSTART"}
    proc = cli("engine", "start", env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    try:
        rc, report = doctor_json(env, project)
        checks = by_name(report)
        assert checks["engine"]["level"] == "ok" and "running: pid" in checks["engine"]["detail"]
        assert checks["engine"]["data"]["pid"] > 0
        assert checks["queues"]["level"] == "ok" and checks["queues"]["data"]["spool_pending"] == 0
    finally:
        assert cli("engine", "stop", env=env, cwd=project).returncode == 0


def test_model_reachable_and_unreachable(env, project, monkeypatch):
    # The check's 3 s bound counts litellm's first-call client set-up (~0.5 s, more
    # under load) but not its import: pay both before, as an earlier test would.
    warm_litellm()
    with FakeLLMServer([("answer", "OK")]) as srv:
        for key, value in llm_env(srv).items():
            monkeypatch.setenv(key, value)
        model = next(c for c in run_checks(project, check_model=True).checks if c.name == "model")
        assert model.level == "ok" and "openai/test-model" in model.detail, model
        assert srv.requests, "doctor did not contact the model"
        srv.set_script([("401",)])
        report = run_checks(project, check_model=True)
        model = next(c for c in report.checks if c.name == "model")
        assert model.level == "fail" and "did not answer" in model.detail and "llm.api_base" in model.fix
        assert not report.ok
        # --no-model: configured, not contacted.
        before = len(srv.requests)
        model = next(c for c in run_checks(project, check_model=False).checks if c.name == "model")
        assert model.level == "info" and len(srv.requests) == before
    monkeypatch.delenv("TWICESHY_TEST_LLM_KEY")
    model = next(c for c in run_checks(project, check_model=True).checks if c.name == "model")
    assert model.level == "fail" and "TWICESHY_TEST_LLM_KEY" in model.detail and "export" in model.fix
