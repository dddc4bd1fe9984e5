"""examples/twiceshy-guard is a real plugin distribution: pip installs it, the engine loads it
from its entry point, and the real hook client gets its denies in each agent's own format.

The distribution goes into a fresh venv made for this test (``--without-pip``; a ``.pth`` adds
the test venv's site-packages, so twiceshy and pip come from there), never into the shared
test venv: other tests running at the same time must not load the guard. ``pip install
--no-deps --no-build-isolation`` of the one-module package takes a few seconds, offline.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import reliability_kit as kit

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "twiceshy-guard"


@pytest.fixture(scope="module")
def guard_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A venv's python with twiceshy-guard pip-installed from examples/."""
    root = tmp_path_factory.mktemp("guard-venv")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # addsitedir (not a bare path line) so the test venv's own .pth files run: the editable twiceshy.
    parent = sysconfig.get_paths()["purelib"]
    Path(purelib, "_test_venv.pth").write_text(f"import site; site.addsitedir({parent!r})\n")
    source = root / "twiceshy-guard"  # a copy: the build leaves build/ and *.egg-info next to the sources
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-q", str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return python


def plugins_json(python: str, env: dict[str, str]) -> dict[str, dict]:
    run = subprocess.run(
        [python, "-m", "twiceshy", "plugins", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    return {row["name"]: row for row in json.loads(run.stdout)}


def test_pip_installed_guard_is_listed_with_its_distribution(guard_python: str, twiceshy_home: Path) -> None:
    env = kit.env_for(twiceshy_home)
    guard = plugins_json(guard_python, env)["guard"]
    assert (guard["source"], guard["distribution"], guard["version"], guard["status"]) == (
        "entry point",
        "twiceshy-guard",
        "0.1.0",
        "enabled",
    )
    assert guard["hooks"] == ["pre_tool(tryfirst)"]
    assert plugins_json(guard_python, {**env, "TWICESHY_LOAD_PLUGINS": ""})["guard"]["status"] == "not selected"
    assert "guard" not in plugins_json(sys.executable, env)  # the shared test venv never saw it


def test_guard_denies_writes_outside_the_project_through_the_real_hook_client(
    guard_python: str, twiceshy_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    scratch = tmp_path / "scratch"  # outside the project, but allowed in the guard's config section
    scratch.mkdir()
    config = twiceshy_home / "config"
    config.mkdir()
    (config / "config.yaml").write_text(f"plugins:\n  guard:\n    allow: [{str(scratch)!r}]\n")
    env = kit.env_for(twiceshy_home)
    home = twiceshy_home
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "engine.log", "ab") as log:
        proc = subprocess.Popen(
            [guard_python, "-m", "twiceshy", "serve", "--foreground", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(home),
            env=env,
            start_new_session=True,
        )
    try:
        kit.wait_ready(home, proc)
        # ping answers while the engine still loads; hooks get real answers once it is ready.
        assert kit.wait_for(lambda: (kit.engine_mod.call(home, "ping") or {}).get("ready"), timeout=120)

        def claude(tool: str, tool_input: dict) -> str:
            payload = {
                "session_id": "guard-1",
                "transcript_path": "",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": tool_input,
                "tool_use_id": "toolu_g",
            }
            run = kit.hook(home, "PreToolUse", payload, env)
            assert run.returncode == 0, run.stderr
            return run.stdout.decode()

        def denied(stdout: str) -> str | None:
            if not stdout:
                return None
            out = json.loads(stdout)["hookSpecificOutput"]
            return out["permissionDecisionReason"] if out.get("permissionDecision") == "deny" else None

        outside = tmp_path / "elsewhere" / "notes.txt"
        reason = denied(claude("Write", {"file_path": str(outside), "content": "x"}))
        assert reason and "twiceshy-guard" in reason and str(outside) in reason
        assert denied(claude("Edit", {"file_path": "../elsewhere/a.py", "old_string": "a", "new_string": "b"}))
        assert denied(claude("Bash", {"command": "make build && cp out.bin ~/bin; echo done > /etc/guard-probe"}))
        assert denied(claude("Bash", {"command": "pytest -q 2>&1 | tee ../pytest.log"}))
        # Inside the project, to the config's allowed directory, to /dev/null, or reading: not the guard's business.
        assert denied(claude("Write", {"file_path": str(project / "src" / "a.py"), "content": "x"})) is None
        assert denied(claude("Bash", {"command": "echo hi > notes.txt 2>&1"})) is None
        assert denied(claude("Bash", {"command": f"echo hi >> {scratch}/log.txt"})) is None
        assert denied(claude("Bash", {"command": "make check > /dev/null"})) is None
        assert denied(claude("Bash", {"command": "cat ../elsewhere/secret.txt"})) is None

        # Codex sends a patch; the same guard denies it in Codex's deny form.
        patch = f"*** Begin Patch\n*** Add File: {outside}\n+hello\n*** End Patch\n"
        codex = {
            "session_id": "guard-2",
            "transcript_path": None,
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "model": "gpt-5",
            "turn_id": "t1",
            "tool_name": "apply_patch",
            "tool_input": {"command": patch},
            "tool_use_id": "call_1",
        }
        run = kit.hook(home, "PreToolUse", codex, env, agent="codex")
        out = json.loads(run.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] == "deny" and "twiceshy-guard" in out["permissionDecisionReason"]
        status = kit.engine_mod.call(home, "ping", timeout=20)  # 2 s by default: short for a loaded box
        assert status is not None and status["python"] == guard_python
    finally:
        kit.stop_engine(home, proc)
