"""post_tool: queue a judgement for every warning shown earlier in the session;
the ``why`` and ``correct`` commands.

Cheap on the hook path: it reads the session's ``shown_log`` (written by the
recall plugin) and inserts rows into the judge queue; the verdicts are
decided later by the engine's worker, which this plugin hands the engine
through the ``register_workers`` hook (outside an engine,
``twiceshy.recall.judge.process_pending`` drains the queue synchronously).
"""

from __future__ import annotations

import threading
from typing import Any

from twiceshy.base.types import CoreEvent, TranscriptEntry
from twiceshy.engine.context import EngineContext, Worker
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.recall.judge import close_holds, enqueue, make_items, run_worker


def judge_worker(ctx: EngineContext, stop: threading.Event) -> None:
    """The engine runs this in its own thread: drain the verdict queue."""
    run_worker(ctx, stop)


@hookimpl
def register_workers(ctx: EngineContext) -> list[Worker]:
    return [judge_worker]


@hookimpl
def post_tool(event: CoreEvent, ctx: EngineContext) -> None:
    if not ctx.config.get("judge", "enabled"):
        return None
    session = ctx.session(event.session_id)
    if not session.shown_log:
        return None
    items = make_items(event, session, window=max(1, int(ctx.config.get("judge", "window"))))
    enqueue(items)
    return None


@hookimpl
def session_end(event: CoreEvent, ctx: EngineContext, transcript: list[TranscriptEntry]) -> None:
    """At the real end of a session (not a turn's Stop: the user may still say "run it
    anyway"), a hold whose call was never sent again counts as a mistake avoided.
    Extracts nothing (returns ``None``)."""
    if event.kind != "session_end" or not ctx.config.get("judge", "enabled"):
        return None
    enqueue(close_holds(event, ctx.session(event.session_id)))
    return None


@hookimpl
def register_commands(cli: Any) -> None:
    """``twiceshy why`` (what the hook would do with a call, and why) and
    ``twiceshy correct`` (the user's word on a lesson: exceptions, hold or
    context, the log of changes and their undo)."""
    import click

    @cli.command()
    @click.argument("command", required=False)
    @click.option("--agent", default=None, help="The agent whose hook payload this is (with --json / --file / -).")
    @click.option("--json", "payload_json", default=None, help="The hook payload as JSON text.")
    @click.option("--file", "payload_file", default=None, help="A file holding the hook payload.")
    @click.option("--event", "native_event", default=None, help="The native hook event (default: the payload's).")
    @click.option("--session", default="", help="Judge the command line as part of this session.")
    @click.option("--as-json", "as_json", is_flag=True, help="Print the answer as JSON.")
    def why(
        command: str | None,
        agent: str | None,
        payload_json: str | None,
        payload_file: str | None,
        native_event: str | None,
        session: str,
        as_json: bool,
    ) -> None:
        """Which lessons would fire on a tool call, how (hold / deny / context / nothing) and why.

        COMMAND is a shell command line; or give the hook payload an agent sends
        (--json TEXT, --file PATH, or - for stdin) with --agent. Runs the hook's own
        decision path and changes nothing (no hold recorded, no counters)."""
        import json as json_module
        import sys
        from pathlib import Path

        from twiceshy.engine.context import make_context
        from twiceshy.ops.why import command_payload, explain, payload_event, read_payload, render

        cwd = Path.cwd()
        if command == "-" or payload_file == "-" or payload_json == "-":
            payload_json, payload_file, command = sys.stdin.read(), None, None
        try:
            if payload_json is not None or payload_file is not None:
                payload = read_payload(payload_json, payload_file, cwd)
                name = agent or "claude-code"
                event_name = payload_event(payload, name, native_event)
            elif command:
                name, event_name, payload = command_payload(command, str(cwd), session)
            else:
                raise click.UsageError("give a COMMAND, or a payload with --json, --file or -")
            result = explain(make_context(cwd), name, event_name, payload)
        except (ValueError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(json_module.dumps(result, indent=2) if as_json else render(result))

    @cli.command()
    @click.argument("exp_id", required=False)
    @click.option("--except", "except_call", default=None, help="A call this lesson must not hold (added at once).")
    @click.option("--context", "to_context", is_flag=True, help="Never hold or deny with this lesson: context only.")
    @click.option("--hold", "to_hold", is_flag=True, help="Hold (or, as a rule, deny) with it again.")
    @click.option("--undo", "undo_id", default=None, help="Undo one logged change (its id from --list).")
    @click.option("--list", "show", is_flag=True, help="List the logged changes (of EXP_ID, or all).")
    def correct(
        exp_id: str | None, except_call: str | None, to_context: bool, to_hold: bool, undo_id: str | None, show: bool
    ) -> None:
        """Correct a lesson by hand, or list / undo the corrections its outcomes made.

        A lesson whose holds were wrong corrects itself (twiceshy.recall.outcomes):
        each change is logged here with its evidence and can be undone."""
        from twiceshy.engine.context import make_context
        from twiceshy.recall import outcomes

        ctx = make_context(None)
        if undo_id:
            try:
                change = outcomes.undo(ctx, undo_id)
            except KeyError:
                raise click.ClickException(f"no logged change {undo_id}") from None
            click.echo(f"undid {undo_id}: {change['change']} of {change['exp_id']}")
            return
        if show or not (except_call or to_context or to_hold):
            for c in outcomes.read_corrections(exp_id):
                ev = c.get("evidence") or {}
                state = " (undone)" if c.get("undone") else ""
                why = ev.get("outcome") or ev.get("source") or ""
                click.echo(f"{c['id']}  {c['exp_id']}  {c['change']} {c.get('value')!s:.80}  [{why}]{state}")
            return
        if not exp_id:
            raise click.UsageError("give the lesson's id")
        if to_context and to_hold:
            raise click.UsageError("--context and --hold exclude each other")
        deliver = "context" if to_context else "hold" if to_hold else None
        try:
            made = outcomes.correct_by_hand(ctx, exp_id, except_call, deliver)
        except KeyError:
            raise click.ClickException(f"no lesson {exp_id}") from None
        click.echo(f"corrected {exp_id}: " + (", ".join(made) if made else "no change"))
