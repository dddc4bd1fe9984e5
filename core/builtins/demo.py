"""`twiceshy demo`: the whole loop on the embedded default, in a throwaway home.

It uses the real pieces an agent would: `twiceshy install` into a temp
project's `.claude/settings.json`, the resident engine, and the stdlib hook
client run exactly as the installed command line says. Nothing touches the
user's own memory or settings (everything lives in a temp dir unless
``--home`` is given).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import click
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.settings import PORTABLE_COMMAND, is_our_command

TRANSCRIPT = [
    {"type": "user", "message": {"role": "user", "content": "run the unit tests"}},
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "python -m pytest tests"}}
            ],
        },
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": "ModuleNotFoundError: No module named 'app' (run from the repo root with PYTHONPATH=src)",
                }
            ],
        },
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "LEARNING: this repo needs PYTHONPATH=src when running pytest"},
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Bash",
                    "input": {"command": "PYTHONPATH=src python -m pytest tests"},
                },
            ],
        },
    },
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "3 passed in 0.12s"}],
        },
    },
]


def _run(args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, input=stdin, capture_output=True, text=True, env=env, cwd=str(cwd), timeout=120)


def _hook_command(settings_file: Path, event: str) -> list[str]:
    """The argv of the hook install wrote for ``event``. A project install writes the portable
    ``twiceshy hook AGENT EVENT``: the demo runs it with this installation's ``twiceshy`` (on PATH,
    else the console script beside this interpreter), so it works from an unactivated venv too."""
    settings = json.loads(settings_file.read_text())
    for group in settings["hooks"][event]:
        for hook in group["hooks"]:
            if not is_our_command(hook["command"]):
                continue
            argv = shlex.split(hook["command"])
            if PORTABLE_COMMAND.match(hook["command"].strip()):
                beside = Path(sys.executable).parent / "twiceshy"
                found = shutil.which("twiceshy") or (str(beside) if beside.exists() else None)
                return [found, *argv[1:]] if found else [sys.executable, "-m", "twiceshy", *argv[1:]]
            return argv
    raise click.ClickException(f"install wrote no {event} hook to {settings_file}")


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option(
        "--home", type=click.Path(file_okay=False, path_type=Path), help="Data dir to use (default: a temp dir)."
    )
    @click.option("--keep", is_flag=True, help="Keep the temp dir and leave the engine running.")
    def demo(home: Path | None, keep: bool) -> None:
        """Learn, warn, block and learn again — the whole loop, on the embedded store."""
        from rich.console import Console
        from rich.markup import escape

        console = Console()
        root = Path(tempfile.mkdtemp(prefix="twiceshy-demo-"))
        home = (home or root / "home").resolve()
        project = root / "project"
        project.mkdir(parents=True)
        env = {**os.environ, "TWICESHY_HOME": str(home), "TWICESHY_CONFIG_DIR": str(home / "config")}
        py = [sys.executable, "-m", "twiceshy"]
        console.rule("[bold]twiceshy demo")
        console.print(f"data dir [cyan]{home}[/]   project [cyan]{project}[/]")

        out = _run(
            py + ["install", "--agent", "claude-code", "--scope", "project", "--project-dir", str(project)],
            env,
            project,
        )
        if out.returncode != 0:
            raise click.ClickException(out.stderr or out.stdout)
        settings_file = project / ".claude" / "settings.json"
        console.print(f"1. installed Claude Code hooks into [cyan]{settings_file}[/]")

        for args in (
            [
                "learn",
                "Run `npm ci` in a checkout with a lockfile; `npm install` rewrites package-lock.json",
                "--trigger",
                "npm install",
            ],
            [
                "learn",
                "Never force-push to main; push a branch and open a PR (use --force-with-lease on your own branch)",
                "--trigger",
                "git push --force origin main",
                "--tier",
                "rule",
            ],
        ):
            got = _run(py + args, env, project)
            if got.returncode != 0:
                raise click.ClickException(got.stderr)
            console.print(f"2. learned: {escape(got.stdout.strip())}")

        started = time.monotonic()
        _run(py + ["engine", "start"], env, project)
        console.print(
            f"3. engine up in {time.monotonic() - started:.1f}s (it stays warm; hooks talk to it over a socket)"
        )

        pre = _hook_command(settings_file, "PreToolUse")
        session = "demo-session"
        for command in ("npm install left-pad", "git push --force origin main", "ls -la", "cargo build"):
            payload = {
                "session_id": session,
                "transcript_path": "",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": command},
            }
            t0 = time.perf_counter()
            got = _run(pre, env, project, stdin=json.dumps(payload))
            ms = (time.perf_counter() - t0) * 1000
            shown: Any = got.stdout.strip() or "(nothing: allowed silently)"
            if got.stdout.strip():
                spec = json.loads(got.stdout)["hookSpecificOutput"]
                shown = (
                    spec.get("permissionDecision", "warn")
                    + ": "
                    + (spec.get("permissionDecisionReason") or spec.get("additionalContext", ""))
                )
            console.print(
                f"4. PreToolUse [bold]{escape(command)}[/] -> exit {got.returncode}, {ms:.0f} ms\n   {escape(shown)}"
            )

        transcript = root / "transcript.jsonl"
        transcript.write_text(
            "".join(json.dumps({**line, "sessionId": session, "cwd": str(project)}) + "\n" for line in TRANSCRIPT)
        )
        end = _hook_command(settings_file, "SessionEnd")
        before = len(json.loads(_run(py + ["list", "--json"], env, project).stdout or "[]"))
        _run(
            end,
            env,
            project,
            stdin=json.dumps(
                {
                    "session_id": session,
                    "transcript_path": str(transcript),
                    "cwd": str(project),
                    "hook_event_name": "SessionEnd",
                    "reason": "exit",
                }
            ),
        )
        learned: list[dict[str, Any]] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            learned = json.loads(_run(py + ["list", "--json"], env, project).stdout or "[]")
            if len(learned) > before:
                break
            time.sleep(0.3)
        new = [e for e in learned if e.get("kind") != "manual"]
        console.print(f"5. SessionEnd: the engine read the transcript and learned {len(new)} lesson(s):")
        for exp in new:
            console.print(escape(f"   - [{exp['kind']}] {exp['text']}"))

        ctx_out = _run(py + ["context", "--agent", "claude-code", "--write"], env, project)
        console.print(f"6. context: {ctx_out.stdout.strip() or ctx_out.stderr.strip()}")
        claude_md = project / "CLAUDE.md"
        if claude_md.exists():
            console.print(escape(claude_md.read_text()))
        if not keep:
            _run(py + ["engine", "stop"], env, project)
            console.print(f"engine stopped; demo files left in {root} (delete at will)")
        else:
            console.print(f"engine left running for {home}; stop it with TWICESHY_HOME={home} twiceshy engine stop")
