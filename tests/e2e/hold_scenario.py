"""Learn from error -> fix, then hold the repeated mistake, with a real agent CLI.

Issue 16's "Done when", run the same way for every CLI in :data:`SPECS` (Claude Code, Codex,
Gemini, Qwen Code, Droid, OpenCode, Copilot; ``tests/e2e/test_hold_e2e.py``, the marker story
``tests/e2e/test_marker_e2e.py`` and the killed session ``tests/e2e/test_killed_session_e2e.py``
share it): the real CLI, its fake model server on
127.0.0.1, the real hook client and resident engine, a real on-disk store, and
a project whose ``./deploy.sh`` logs every run that really happened.

Sessions, each a separate headless CLI run (a new agent session):

1. **learn** — ``./deploy.sh --env staging`` fails ("missing --region"),
   ``./deploy.sh --env staging --region eu-west-1`` works. Session end must
   store an error -> fix lesson.
2. **avoid** — the model repeats the mistake: it must be *held* (not run), the
   hold's reason (lesson + fix) must be in the next request to the model, and
   the model's fix then runs with no warning.
3. **insist** — the fix first (no warning), then the mistake (held), then the
   identical mistake again: the retry passes and runs (the model is in charge).
4. the lesson is promoted to a rule (``twiceshy edit --tier rule``), then
   **rule** — the mistake is denied; the fix, ``--help`` and another
   environment pass.

Finally ``twiceshy stats`` must count two mistakes avoided (session 2's hold and
session 4's deny, each followed by the fix) and one ignored hold (session 3),
two holds and one rule deny.

The engine is stopped after each session (that drains its session-end work
and flushes the event log) and started before the next, as a user's machine
would between sessions.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .conftest import Twiceshy, base_env, require_cli, run_cli, stop_engine
from .drivers import (
    CommandFn,
    claude_command,
    codex_command,
    copilot_command,
    droid_command,
    gemini_command,
    opencode_command,
    qwen_command,
)
from .fake_anthropic import FakeAnthropic, TextStep, ToolStep
from .fake_base import FakeServer
from .fake_chat import FakeChat
from .fake_gemini import SHELL_TOOL, FakeGemini
from .fake_openai import FakeResponses
from .scenario import wait_for_event

MISTAKE = "./deploy.sh --env staging"
FIX = "./deploy.sh --env staging --region eu-west-1"
HELP = "./deploy.sh --help"
OTHER_ENV = "./deploy.sh --env prod --region us-east-1"
ERROR = "error: missing --region"
PROMPT = "deploy the app to staging"
HOLD_MARK = "Held once by twiceshy"

DEPLOY_SH = f"""#!/bin/sh
# Logs every run that really happened, then behaves like a deploy script.
echo "$*" >> deploy.log
case " $* " in *" --help "*) echo "usage: ./deploy.sh --env ENV --region REGION"; exit 0;; esac
case " $* " in *" --region "*) echo "deployed: $*"; exit 0;; esac
echo "{ERROR}" >&2
exit 1
"""


@dataclass(frozen=True)
class AgentSpec:
    """How one CLI is driven: its fake model, tool-call shape, hook event names."""

    cli: str
    agent: str
    pre_event: str
    make_server: Callable[[list[Any]], FakeServer]
    step: Callable[[str], ToolStep]
    command: CommandFn  # drivers.<cli>_command: (prompt, project, home, server) -> (argv, env)
    # The native events a headless session of the story sends twiceshy (session 1: a failed call,
    # then a call that works, then the answer), as the engine's event log names them.
    events: frozenset[str] = frozenset()
    end_event: str = "SessionEnd"  # the last hook a session sends (qwen -p sends no SessionEnd)
    # Does a failed tool call reach a hook? Droid fires PostToolUse only for a call that
    # succeeded, so a held call the model ran anyway (and that failed) is never seen: unclear.
    failed_call_hook: bool = True
    # What the CLI puts before a deny's reason in the tool result the model gets (recorded).
    held_as: str = ""

    def driver(self, prompt: str, project: Path, home: Path, server: FakeServer) -> subprocess.CompletedProcess[str]:
        """Run one headless session to its end."""
        argv, env = self.command(prompt, project, home, server)
        return run_cli(argv, project, env)


def _shell(cmd: str) -> ToolStep:
    """FakeChat sends a step named ``shell`` as whichever shell tool the CLI offers
    (OpenCode's and Copilot's ``bash``)."""
    return ToolStep("shell", {"command": cmd, "description": "run it"})


def _events_of(names: str) -> frozenset[str]:
    return frozenset(names.split())


# ``events``: session 1 of the hold story, recorded (a shell call that exits 1 is PostToolUse with its
# exit code on Codex, Gemini, OpenCode and Copilot, PostToolUseFailure on Claude Code and Qwen Code,
# no hook at all on Droid).
SPECS: dict[str, AgentSpec] = {
    "claude-code": AgentSpec(
        "claude",
        "claude-code",
        "PreToolUse",
        lambda steps: FakeAnthropic(steps=steps),
        lambda cmd: ToolStep("Bash", {"command": cmd, "description": "run it"}),
        claude_command,
        _events_of("SessionStart UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure Stop SessionEnd"),
    ),
    "codex": AgentSpec(
        "codex",
        "codex",
        "PreToolUse",
        lambda steps: FakeResponses(steps=steps),
        lambda cmd: ToolStep("shell", {"command": cmd}),
        codex_command,
        _events_of("SessionStart UserPromptSubmit PreToolUse PostToolUse Stop SessionEnd"),
        held_as="Command blocked by PreToolUse hook: ",
    ),
    "gemini": AgentSpec(
        "gemini",
        "gemini",
        "BeforeTool",
        lambda steps: FakeGemini(steps=steps),
        lambda cmd: ToolStep(SHELL_TOOL, {"command": cmd, "description": "run it"}),
        gemini_command,
        _events_of("SessionStart BeforeAgent BeforeTool AfterTool AfterAgent SessionEnd"),
        held_as="Tool execution blocked: ",
    ),
    "qwen-code": AgentSpec(
        "qwen",
        "qwen-code",
        "PreToolUse",
        lambda steps: FakeChat(steps=steps),
        lambda cmd: ToolStep("run_shell_command", {"command": cmd, "description": "run it", "is_background": False}),
        qwen_command,
        _events_of("SessionStart UserPromptSubmit PreToolUse PostToolUse PostToolUseFailure Stop"),
        end_event="Stop",
    ),
    "droid": AgentSpec(
        "droid",
        "droid",
        "PreToolUse",
        lambda steps: FakeChat(steps=steps),
        lambda cmd: ToolStep("Execute", {"command": cmd}),
        droid_command,
        _events_of("SessionStart PreToolUse PostToolUse Stop SessionEnd"),
        failed_call_hook=False,
        held_as="Error: ",
    ),
    "opencode": AgentSpec(
        "opencode",
        "opencode",
        "PreToolUse",
        lambda steps: FakeChat(steps=steps),
        _shell,
        opencode_command,
        _events_of("SessionStart UserPromptSubmit PreToolUse PostToolUse Stop SessionEnd"),
    ),
    "copilot": AgentSpec(
        "copilot",
        "copilot",
        "preToolUse",
        lambda steps: FakeChat(steps=steps),
        _shell,
        copilot_command,
        _events_of("sessionStart userPromptSubmitted preToolUse postToolUse agentStop sessionEnd"),
        end_event="sessionEnd",
        held_as="Denied by preToolUse hook: ",
    ),
}


@dataclass
class Session:
    """One CLI run: what it sent the model, which hooks fired, what really ran."""

    name: str
    commands: list[str]
    proc: subprocess.CompletedProcess[str]
    requests: list[dict[str, Any]]  # the agent-loop requests to the fake model, in order
    events: list[dict[str, Any]]  # the engine's event-log lines of this session
    ran: list[str]  # deploy.sh runs that really happened, as "./deploy.sh <args>"

    def pre_actions(self, pre_event: str) -> list[str]:
        return [e.get("action", "") for e in self.events if e.get("event") == pre_event]


@dataclass
class HoldOutcome:
    spec: AgentSpec
    project: Path
    home: Path
    sessions: dict[str, Session] = field(default_factory=dict)
    lessons_after_learn: list[dict[str, Any]] = field(default_factory=list)
    lesson_id: str = ""
    promote: subprocess.CompletedProcess[str] | None = None
    stats: dict[str, Any] = field(default_factory=dict)


@contextlib.contextmanager
def cli_environ(env: dict[str, str]) -> Iterator[None]:
    """The scenario's ``TWICESHY_*`` settings in this process's environment while a driver runs,
    so the CLI (``base_env``) and the hooks it spawns use the scenario's data dir: a project
    install writes ``twiceshy hook AGENT EVENT``, which finds the data dir from the environment
    (only Claude Code has a per-machine settings file that could name it)."""
    keys = [k for k in env if k.startswith("TWICESHY_")]
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: env[k] for k in keys})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _events(home: Path) -> list[dict[str, Any]]:
    path = home / "events.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _ran(project: Path) -> list[str]:
    log = project / "deploy.log"
    return [f"./deploy.sh {line}".strip() for line in log.read_text().splitlines()] if log.exists() else []


def finished_session(outcome: HoldOutcome, name: str, taught_nothing: str) -> Session:
    """Session ``name`` of a story, after checking the story taught its lesson (``taught_nothing``:
    what to say if not) and that the CLI exited cleanly."""
    learned = [(e.get("tier"), e.get("trigger"), e.get("text")) for e in outcome.lessons_after_learn]
    assert outcome.lesson_id, f"{taught_nothing}; lessons: {learned}"
    got = outcome.sessions[name]
    assert got.proc.returncode == 0, got.proc.stderr[-3000:]
    return got


def deploy_lesson(lessons: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The lesson session 1 taught: about the mistake, naming the fix."""
    for exp in lessons:
        text = f"{exp.get('text', '')} {exp.get('trigger', '')}"
        if "deploy.sh" in text and "--env staging" in text and "eu-west-1" in text:
            return exp
    return None


class _Runner:
    """One agent's data dir, project and installed hooks; :meth:`session` runs one headless CLI
    session against a scripted model and records what it did."""

    def __init__(self, spec: AgentSpec, tmp: Path, warn: str | None = None) -> None:
        require_cli(spec.cli)  # fail fast, before the slow setup
        self.spec = spec
        self.home, self.project, self.agent_home = tmp / "tshome", tmp / "proj", tmp / "agenthome"
        for path in (self.home, self.project, self.agent_home):
            path.mkdir(parents=True, exist_ok=True)
        script = self.project / "deploy.sh"
        script.write_text(DEPLOY_SH)
        script.chmod(0o755)
        self.env = base_env(self.agent_home) | {
            "TWICESHY_HOME": str(self.home),
            "TWICESHY_CONFIG_DIR": str(self.home / "config"),
            "TWICESHY_RAISE_PLUGIN_ERRORS": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        # The default delivery is what is under test: no override may leak in from the caller.
        self.env.pop("TWICESHY_RETRIEVAL__WARN", None)
        if warn is not None:
            self.env["TWICESHY_RETRIEVAL__WARN"] = warn
        self.ts = Twiceshy(self.env)
        self.out = HoldOutcome(spec, self.project, self.home)
        self.seen_events = 0

    def install(self) -> None:
        self.ts("install", "--agent", self.spec.agent, "--scope", "project", "--project-dir", str(self.project))

    def session(self, name: str, commands: list[str], final: str = "done") -> Session:
        """The model runs ``commands`` one per turn, then answers ``final`` and ends its turn."""
        spec, home, project = self.spec, self.home, self.project
        ran_before = len(_ran(project))
        steps: list[Any] = [spec.step(c) for c in commands] + [TextStep(final)]
        server = spec.make_server(steps)
        self.ts("engine", "start")
        with server, cli_environ(self.env):
            proc = spec.driver(PROMPT, project, self.agent_home, server)
        # Gemini does not wait for its SessionEnd hook: let it reach the engine first.
        wait_for_event(home / "events.jsonl", f'"{spec.end_event}"', timeout_s=60)
        self.ts("engine", "stop")  # drains session-end work, flushes the event log
        events = _events(home)
        mine = [e for e in events[self.seen_events :] if e.get("agent") == spec.agent and e.get("path") != "background"]
        self.seen_events = len(events)
        record = Session(
            name,
            commands,
            proc,
            server.main_requests(),  # type: ignore[attr-defined]
            mine,
            _ran(project)[ran_before:],
        )
        self.out.sessions[name] = record
        return record

    def learned(self) -> dict[str, Any] | None:
        """The deploy lesson session 1 taught, recorded on the outcome."""
        self.out.lessons_after_learn = self.ts.lessons(cwd=self.project)
        lesson = deploy_lesson(self.out.lessons_after_learn)
        if lesson is not None:
            self.out.lesson_id = lesson["id"]
        return lesson

    def stop(self) -> None:
        stop_engine(self.ts, self.home)


def run_hold_scenario(spec: AgentSpec, tmp: Path, warn: str | None = None) -> HoldOutcome:
    """Run the four sessions; ``warn`` sets ``retrieval.warn`` (default: the shipped default, hold)."""
    run = _Runner(spec, tmp, warn)
    out, ts, project = run.out, run.ts, run.project
    try:
        run.install()
        run.session("learn", [MISTAKE, FIX])
        if run.learned() is None:
            return out  # the tests report what was learned instead
        run.session("avoid", [MISTAKE, FIX])
        run.session("insist", [FIX, MISTAKE, MISTAKE])
        out.promote = ts("edit", out.lesson_id, "--tier", "rule", cwd=project, check=False)
        run.session("rule", [MISTAKE, FIX, HELP, OTHER_ENV])
        # The judge decides off the hot path: wait for its verdicts, then read stats.
        ts("engine", "start")
        deadline = time.monotonic() + 180  # a loaded box: the judge runs after the sessions
        while True:
            out.stats = json.loads(ts("stats", "--json", "--since", "all", cwd=project).stdout)
            outcomes = out.stats.get("outcomes", {})
            if sum((outcomes.get("holds") or {}).values()) >= 3 or time.monotonic() > deadline:  # all judged
                break
            time.sleep(1.0)
    finally:
        run.stop()
    return out


# The marker story (issue 27): session 1 never runs the mistake; the agent only says, in its
# own words, what goes wrong and what to do instead. That line must key a lesson to the call it
# quotes, so the next session's mistake is held and its fix runs silently.
GOTCHA = f"GOTCHA: {MISTAKE} fails with 'missing --region'; always pass --region eu-west-1 for staging."


def run_marker_scenario(spec: AgentSpec, tmp: Path) -> HoldOutcome:
    """Session 1 runs the fix and ends with the ``GOTCHA:`` line; session 2 tries the mistake
    (must be held, never run), then the fix (must pass with no word from twiceshy); the judge's
    verdict is then read from ``twiceshy stats``."""
    run = _Runner(spec, tmp)
    out, ts, project = run.out, run.ts, run.project
    try:
        run.install()
        run.session("learn", [FIX], final=GOTCHA)
        if run.learned() is None:
            return out
        run.session("avoid", [MISTAKE, FIX])
        run.session("fix", [FIX])
        ts("engine", "start")
        deadline = time.monotonic() + 180
        while True:
            out.stats = json.loads(ts("stats", "--json", "--since", "all", cwd=project).stdout)
            if sum((out.stats.get("outcomes", {}).get("holds") or {}).values()) >= 1 or time.monotonic() > deadline:
                break
            time.sleep(1.0)
    finally:
        run.stop()
    return out


def _is_call(element: Any) -> bool:
    """A model tool call in any of the three wire formats."""
    if not isinstance(element, dict):
        return False
    if element.get("type") == "function_call":  # OpenAI Responses (Codex)
        return True
    if element.get("role") == "assistant" and element.get("tool_calls"):  # OpenAI chat (Qwen Code, Droid)
        return True
    if element.get("role") == "assistant" and isinstance(element.get("content"), list):  # Anthropic
        return any(isinstance(b, dict) and b.get("type") == "tool_use" for b in element["content"])
    parts = element.get("parts")  # Gemini
    return isinstance(parts, list) and any(isinstance(p, dict) and "functionCall" in p for p in parts)


def added_after_last_call(request: dict[str, Any]) -> str:
    """What a request to the model carries after the model's last tool call —
    that call's result and whatever a hook attached to it — as one string."""
    items = request.get("messages") or request.get("input") or request.get("contents") or []
    last = max((i for i, item in enumerate(items) if _is_call(item)), default=-1)
    return json.dumps(items[last + 1 :], ensure_ascii=False) if last >= 0 else ""
