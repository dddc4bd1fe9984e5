"""Every hook twiceshy calls, in one place.

Two families:

* **Lifecycle hooks** (``pre_tool``, ``post_tool``, ``session_start``,
  ``session_end``, ``render_context``) carry the product's behaviour. Built-in
  behaviour is implemented as plugins under ``twiceshy.builtins``; third-party
  plugins add to it through the ``twiceshy`` entry-point group.
* **Agent-adapter hooks** (``agent_*``) are implemented once per agent plugin
  (``twiceshy.plugins.claude_code`` …). They are ``firstresult``: each plugin
  returns ``None`` unless the ``agent`` argument names its own agent.

Every hook receives keyword arguments only; an implementation may accept any
subset of them (pluggy passes just the names it asks for). ``ctx`` is the
:class:`twiceshy.engine.context.EngineContext` (config, store, logger).

Hooks are called by pluggy: the last registered plugin first (third-party
entry points before builtins), ``tryfirst`` / ``trylast`` respected, and
``wrapper=True`` (or old-style ``hookwrapper=True``) implementations see — and
may change — the list of answers. A plugin that raises in a lifecycle hook is
logged and costs only its own answer; the other plugins still run and the
agent is never blocked by the failure (``twiceshy.plugin.guard``).

At session end the hooks fire in this order: ``agent_read_transcript`` →
``session_end`` (extract) → ``store_lessons`` (dedup and store) →
``session_learned`` (evolve, rewrite context files, anything of yours).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # pragma: no cover - typing only
    import click
    from twiceshy.base.types import (
        ContextSection,
        CoreEvent,
        Decision,
        Experience,
        LessonCandidate,
        NativeOutput,
        TranscriptEntry,
    )
    from twiceshy.engine.context import EngineContext, Worker

PROJECT_NAME = "twiceshy"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --------------------------------------------------------------------------
# Lifecycle hooks
# --------------------------------------------------------------------------


@hookspec
def pre_tool(event: CoreEvent, ctx: EngineContext) -> Decision | None:
    """Fires before the agent runs a tool (Claude Code PreToolUse and peers).

    Receives the translated event (``event.kind == "pre_tool"``). Every call
    reaches every plugin, read-only ones too: ``event.read_only`` is True for
    a call that cannot change anything (``cat .env``, ``git status``, a Read) —
    the builtin recall skips those, a guard may not. Return a
    :class:`Decision` to warn (``action="warn"`` with ``context``) or block
    (``action="deny"`` with ``reason``), or ``None`` to stay silent. Not
    firstresult: every plugin's decision is collected and merged — a deny
    wins, contexts are concatenated. A ``wrapper=True`` implementation
    receives the list of decisions and returns the list to merge (it may add
    to it or veto an entry). This is the hot path: answer in milliseconds and
    do no network I/O without a hard timeout.
    """


@hookspec
def post_tool(event: CoreEvent, ctx: EngineContext) -> None:
    """Fires after a tool ran (PostToolUse and peers).

    Receives the event with ``tool_output`` and ``success`` filled in when the
    agent reports them. Used to record outcomes and queue judge work. The
    return value is ignored.
    """


@hookspec
def session_start(event: CoreEvent, ctx: EngineContext) -> str | None:
    """Fires when an agent session starts (or a prompt is submitted).

    Return text to add to the model's context for this session, or ``None``.
    Not firstresult: all returned texts are joined.
    """


@hookspec
def session_end(
    event: CoreEvent, ctx: EngineContext, transcript: list[TranscriptEntry]
) -> list[LessonCandidate] | None:
    """Fires once when a session ends (SessionEnd / Stop), off the hot path.

    Receives the event and the session's transcript already translated by the
    agent plugin's ``agent_read_transcript``. Return the lessons this plugin
    extracted, or ``None``. Not firstresult: candidates from all plugins are
    pooled and handed to ``store_lessons``.
    """


@hookspec(firstresult=True)
def store_lessons(candidates: list[LessonCandidate], event: CoreEvent, ctx: EngineContext) -> list[Experience] | None:
    """Fires once per session end, after ``session_end``, when it produced candidates.

    The implementation that stores them (the builtin ``ingest``: redact,
    deduplicate against the store, supersede contradicted lessons, count a
    lesson once per session) returns the lessons it stored or saw again, as
    :class:`Experience` objects. firstresult: the first non-``None`` answer
    wins, so a ``tryfirst`` plugin can store lessons elsewhere. ``None`` from
    every plugin means nothing was stored.
    """


@hookspec
def session_learned(lessons: list[Experience], event: CoreEvent, ctx: EngineContext) -> None:
    """Fires after every session end (or Stop), once ``store_lessons`` is done.

    ``lessons`` are what this session taught: new lessons and existing ones
    seen again (``seen_count`` went up); empty when nothing was learned. The
    builtin ``evolve`` runs its promote/demote/decay cycle here and the builtin
    ``context-files`` (``trylast``) rewrites the agents' context files; a
    plugin may notify, export or index what was learned. Off the hot path.
    The return value is ignored.
    """


@hookspec
def render_context(
    ctx: EngineContext, agent: str, project: str | None, budget_tokens: int
) -> list[ContextSection] | None:
    """Fires when the context file block or session-start context is built.

    Return sections to include; the core orders them by ``priority`` and cuts
    to ``budget_tokens``. Not firstresult: sections from all plugins are pooled.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Fires once when the CLI starts. Add click commands to ``cli``.

    The return value is ignored; a plugin whose registration raises is logged
    and its commands are missing, the others are there.
    """


@hookspec
def register_workers(ctx: EngineContext) -> list[Worker] | None:
    """Fires once when the resident engine starts, before it answers hooks.

    Return long-running background workers, each a callable
    ``worker(ctx, stop_event)`` that the engine runs in a daemon thread of its
    own and that must return soon after ``stop_event`` (a
    ``threading.Event``) is set; or ``None``. Not firstresult: the workers of
    all plugins are started. Outside the engine (CLI, in-process hook) no
    worker runs.
    """


# --------------------------------------------------------------------------
# Agent-adapter hooks: one implementation per agent plugin, firstresult.
# --------------------------------------------------------------------------


@hookspec
def agent_names() -> list[str] | None:
    """Return the agent names this plugin adapts (e.g. ``["claude-code"]``).

    Not firstresult: the CLI lists all of them as choices.
    """


@hookspec(firstresult=True)
def agent_parse_payload(agent: str, native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
    """Translate a native hook payload into a :class:`CoreEvent`.

    ``native_event`` is the agent's own event name (e.g. ``PreToolUse``),
    passed on the hook's command line because not every agent puts it in the
    payload. Return ``None`` if ``agent`` is not yours; raise ``ValueError``
    on a payload you cannot read (the hook then fails open).
    """


@hookspec(firstresult=True)
def agent_format_decision(agent: str, event: CoreEvent, decision: Decision) -> NativeOutput | None:
    """Turn the merged decision into what the agent expects on stdout/stderr/exit code.

    Return ``None`` if ``agent`` is not yours. A silent decision should give
    an empty :class:`NativeOutput` (exit 0, no output).
    """


@hookspec(firstresult=True)
def agent_settings_file(agent: str, scope: str, project_dir: Path) -> Path | None:
    """Where the agent reads its hook settings for ``scope`` ("user" or "project")."""


@hookspec(firstresult=True)
def agent_context_file(agent: str, project_dir: Path) -> Path | None:
    """The file the agent reads as standing instructions (CLAUDE.md, AGENTS.md …)."""


@hookspec(firstresult=True)
def agent_install_hooks(
    agent: str, settings: dict[str, Any], hook_command: Callable[[str], str]
) -> dict[str, Any] | None:
    """Return ``settings`` with twiceshy's hook entries merged in.

    ``hook_command(native_event)`` gives the shell command for one event.
    Must be idempotent and must keep every entry that is not ours. Return
    ``None`` if ``agent`` is not yours.
    """


@hookspec(firstresult=True)
def agent_uninstall_hooks(agent: str, settings: dict[str, Any]) -> dict[str, Any] | None:
    """Return ``settings`` with only twiceshy's hook entries removed."""


@hookspec(firstresult=True)
def agent_install_notes(agent: str, scope: str, project_dir: Path) -> list[str] | None:
    """What the user must still do by hand after install (e.g. trust the hooks).

    Fires after a successful ``twiceshy install``; each line is printed as a
    note. Return ``None`` if ``agent`` is not yours or nothing is needed.
    """


@hookspec(firstresult=True)
def agent_read_transcript(agent: str, path: Path) -> list[TranscriptEntry] | None:
    """Read the agent's session log at ``path`` into transcript entries."""
