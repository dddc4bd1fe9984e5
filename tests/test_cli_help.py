"""`twiceshy --help` groups the commands (issue 30) and `doctor` ends with one verdict that matches its rows."""

from __future__ import annotations

import subprocess
import sys

from twiceshy.ops.cli import SECTIONS, build_cli
from twiceshy.ops.doctor import Check, Report


def test_help_lists_every_command_once_by_section_with_its_whole_first_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "twiceshy", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    titles = [title for title, _ in SECTIONS]
    positions = [out.index(f"\n{title}:\n") for title in titles]
    assert positions == sorted(positions)  # daily use, lessons, setup, team, maintenance
    assert "\nCommands:\n" not in out  # not one flat list
    rows = out.split("Options:", 1)[1]
    assert "..." not in rows and "…" not in rows  # no one-liner cut short
    group = build_cli()
    names = [n for n in group.list_commands(None) if not group.commands[n].hidden]
    flat = " ".join(out.split())
    for name in names:
        command = group.commands[name]
        first = " ".join((command.short_help or command.help or "").strip().split("\n\n")[0].split())
        assert f" {name} {first}" in flat, name  # the whole description, after its name, once
        assert sum(1 for line in out.splitlines() if line.startswith(f"  {name} ")) == 1, name
    placed = {n for _, section in SECTIONS for n in section}
    assert {"install", "uninstall", "learn", "doctor", "demo", "export", "engine"} <= placed


def test_doctor_verdict_never_says_all_good_beside_a_warning() -> None:
    ok, warn, fail = Check("a", "ok", "x"), Check("b", "warn", "y", "fix y"), Check("c", "fail", "z", "fix z")
    assert Report([ok, Check("i", "info", "fyi")]).verdict() == "all good"
    assert "all good" not in Report([ok, warn]).verdict()
    assert Report([ok, warn]).verdict() == "working, with 1 warning(s): see the fixes above"
    assert Report([ok, warn]).verdict(strict=True).startswith("1 problem(s)")
    assert Report([fail, warn]).verdict() == "1 problem(s) and 1 warning(s): see the fixes above"
    assert Report([fail, warn]).to_dict()["verdict"] == Report([fail, warn]).verdict()
