"""Settings files: install/uninstall never destroy the user's file.

* a file with comments or invalid JSON is refused with a message naming the
  file and position, and left byte for byte as it was (no backup needed: no
  write happened);
* unknown keys (and formatting) survive install + uninstall, which restores
  the original bytes;
* an edit made while twiceshy is mid-install (between its read and its
  write) is not thrown away: twiceshy refuses and says to run it again
  (regression for core/install.py, which used to overwrite it);
* concurrent install/uninstall processes racing a user's editor: the file is
  valid JSON at every moment, every twiceshy process either succeeds or
  refuses with a clear message (no traceback), and a final install leaves
  exactly one twiceshy entry per event with the user's keys intact.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from twiceshy.ops import install as inst
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import make_manager

PY = sys.executable


def _settings_file(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run(
        [PY, "-m", "twiceshy", *args, "--agent", "claude-code", "--scope", "project", "--project-dir", str(project)],
        capture_output=True, text=True, env=env, timeout=120, cwd=str(project),
    )  # fmt: skip


JSONC = """{
  // my own hooks, hand-written
  "permissions": {"allow": ["Bash(ls:*)"]},
  /* block comment */
  "hooks": {}
}
"""
INVALID = '{"permissions": {"allow": ["Bash(ls:*)"],}\n'


@pytest.mark.parametrize(
    "content,words", [(JSONC, "comments"), (INVALID, "not valid JSON"), ("[1, 2]\n", "JSON object"), ("\xff\xfe{}", "")]
)
def test_unparseable_settings_are_refused_and_untouched(tmp_path: Path, content: str, words: str) -> None:
    path = _settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    raw = content.encode("latin-1") if content.startswith("\xff") else content.encode()
    path.write_bytes(raw)
    for action in ("install", "uninstall"):
        out = _cli(tmp_path, action)
        assert out.returncode != 0 or action == "uninstall" and "nothing changed" in out.stdout, (
            action,
            out.stdout,
            out.stderr,
        )
        if out.returncode != 0:
            assert "Traceback" not in out.stderr
            assert str(path) in out.stderr and "did not change it" in out.stderr, out.stderr
            assert words in out.stderr
        assert path.read_bytes() == raw, f"{action} changed a file it refused"
        assert not inst.backups_of(path)


def test_unknown_keys_and_formatting_survive_a_round_trip(tmp_path: Path) -> None:
    path = _settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    original = (
        json.dumps(
            {
                "model": "opus",
                "x-company-policy": {"nested": [1, {"deep": None}], "flag": True},
                "hooks": {
                    "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "my-linter --fix"}]}]
                },
                "zzz_unknown": "ünïcødé",
            },
            indent=4,
            ensure_ascii=False,
        )
        + "\n"
    )
    path.write_text(original, encoding="utf-8")
    out = _cli(tmp_path, "install")
    assert out.returncode == 0, out.stderr
    after = json.loads(path.read_text())
    assert after["x-company-policy"] == {"nested": [1, {"deep": None}], "flag": True}
    assert after["zzz_unknown"] == "ünïcødé" and after["model"] == "opus"
    assert any(h["command"] == "my-linter --fix" for g in after["hooks"]["PreToolUse"] for h in g["hooks"])
    backups = inst.backups_of(path)
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == original
    out = _cli(tmp_path, "uninstall")
    assert out.returncode == 0, out.stderr
    assert path.read_text(encoding="utf-8") == original


class _ConcurrentEditor:
    """A plugin that behaves like the user saving the file in their editor at
    the worst moment: after twiceshy read it, before twiceshy writes it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @hookimpl
    def agent_install_hooks(self, agent, settings, hook_command):  # noqa: ANN001
        data = json.loads(self.path.read_text())
        data["added_by_user_meanwhile"] = True
        self.path.write_text(json.dumps(data, indent=2) + "\n")
        return None  # let the real claude-code plugin do the merge

    @hookimpl
    def agent_uninstall_hooks(self, agent, settings):  # noqa: ANN001
        return self.agent_install_hooks(agent, settings, None)


def test_edit_during_install_is_not_thrown_away(tmp_path: Path) -> None:
    """Regression: install read, the user saved, install wrote its stale copy."""
    path = _settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"model": "opus"}\n')
    pm = make_manager()
    pm.register(_ConcurrentEditor(path), name="editor")
    with pytest.raises(inst.InstallError, match="changed while twiceshy was editing it"):
        inst.install(pm, "claude-code", scope="project", project_dir=tmp_path)
    data = json.loads(path.read_text())
    assert data == {"model": "opus", "added_by_user_meanwhile": True}, "the user's edit was overwritten"
    assert not inst.backups_of(path)
    # Run again without the race: it installs and keeps the edit.
    pm.unregister(name="editor")
    result = inst.install(pm, "claude-code", scope="project", project_dir=tmp_path)
    assert result.changed and json.loads(path.read_text())["added_by_user_meanwhile"] is True


def test_concurrent_installs_and_editor_never_corrupt_the_file(tmp_path: Path) -> None:
    path = _settings_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"user": {"n": 0}, "hooks": {}}, indent=2) + "\n")
    stop = threading.Event()
    observations = {"reads": 0, "bad": []}
    outcomes: list[tuple[int, str, str]] = []
    lock = threading.Lock()

    def reader() -> None:  # the agent reading its settings at any moment
        while not stop.is_set():
            try:
                text = path.read_text()
                json.loads(text)
                observations["reads"] += 1
            except FileNotFoundError:
                observations["bad"].append("missing")
            except ValueError:
                observations["bad"].append(text[:80])

    def editor() -> None:  # the user's editor: atomic save, like most editors
        n = 0
        while not stop.is_set():
            try:
                data = json.loads(path.read_text())
            except ValueError:
                continue
            n += 1
            data.setdefault("user", {})["n"] = n
            tmp = path.with_name(".settings.json.swp")
            tmp.write_text(json.dumps(data, indent=2) + "\n")
            os.replace(tmp, path)
            time.sleep(0.01)

    def twiceshy(action: str) -> None:
        for _ in range(3):
            out = _cli(tmp_path, action)
            with lock:
                outcomes.append((out.returncode, out.stdout, out.stderr))

    threads = [threading.Thread(target=reader), threading.Thread(target=editor)]
    workers = [threading.Thread(target=twiceshy, args=(a,)) for a in ("install", "install", "uninstall")]
    for t in threads + workers:
        t.start()
    for t in workers:
        t.join(timeout=600)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not observations["bad"], (
        f"the file was unreadable {len(observations['bad'])} times: {observations['bad'][:3]}"
    )
    assert observations["reads"] > 0
    for code, out, err in outcomes:
        assert "Traceback" not in err, err
        assert code == 0 or "changed while twiceshy was editing it" in err or "twiceshy did not" in err, (
            code,
            out,
            err,
        )
    # Every backup is a whole JSON file.
    for backup in inst.backups_of(path):
        json.loads(backup.read_text())
    final = _cli(tmp_path, "install")
    assert final.returncode == 0, final.stderr
    data = json.loads(path.read_text())
    assert "user" in data
    for event, groups in data["hooks"].items():
        ours = [h for g in groups for h in g.get("hooks", []) if inst.is_our_command(h.get("command"))]
        assert len(ours) == 1, f"{event}: {len(ours)} twiceshy entries"
    print(
        f"\nsettings race: {observations['reads']} reads all valid JSON; {len(outcomes)} twiceshy runs, "
        f"{sum(1 for c, _, _ in outcomes if c == 0)} succeeded, {sum(1 for c, _, _ in outcomes if c != 0)} refused cleanly"
    )
