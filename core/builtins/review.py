"""``twiceshy review``: lessons held by the poisoning guard, and their release.

A lesson whose text tells the agent to run a fetch-and-execute, destructive
or safety-disabling command is stored held (:mod:`twiceshy.learning.review`): never
shown at pre-tool, in session context or in the context file. This command
lists them; ``--approve ID`` releases one, ``--reject ID`` deletes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from twiceshy.plugin.hookspecs import hookimpl


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option("--approve", "approve_ids", multiple=True, metavar="ID", help="Release a held lesson (repeatable).")
    @click.option("--reject", "reject_ids", multiple=True, metavar="ID", help="Delete a held lesson (repeatable).")
    @click.option("--json", "as_json", is_flag=True, help="List held lessons as JSON.")
    def review(approve_ids: tuple[str, ...], reject_ids: tuple[str, ...], as_json: bool) -> None:
        """List lessons held for review; approve or reject them."""
        from twiceshy.base.config import ConfigError
        from twiceshy.engine.context import make_context
        from twiceshy.learning import review as guard

        try:
            ctx = make_context(Path.cwd())
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        store = ctx.store
        missing = []
        for exp_id in approve_ids:
            exp = store.get(exp_id)
            if exp is None or not guard.is_held(exp):
                missing.append(exp_id)
                continue
            guard.approve(store, exp_id)
            click.echo(f"approved: {exp_id} {exp.text}")
        for exp_id in reject_ids:
            exp = store.get(exp_id)
            if exp is None or not guard.is_held(exp):
                missing.append(exp_id)
                continue
            guard.reject(store, exp_id)
            click.echo(f"rejected (deleted): {exp_id}")
        if missing:
            raise click.ClickException(f"no held lesson with id {', '.join(missing)} (see `twiceshy review`)")
        if approve_ids or reject_ids:
            return
        held = guard.held_lessons(store)
        if as_json:
            rows = [{**e.to_dict(), "reasons": guard.reasons_of(e)} for e in held]
            click.echo(json.dumps(rows, indent=2))
            return
        if not held:
            click.echo("no lessons held for review")
            return
        click.echo(f"{len(held)} lesson(s) held for review (not shown to agents until approved):")
        for exp in held:
            click.echo(f"  {exp.id}  [{exp.tier_label}] {exp.text}")
            click.echo(f"      why: {', '.join(guard.reasons_of(exp)) or 'risky command'}; source: {exp.source or '-'}")
        click.echo("approve: twiceshy review --approve ID    reject: twiceshy review --reject ID")
