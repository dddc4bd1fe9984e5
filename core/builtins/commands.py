"""Core CLI commands: learn, list, show, forget, search, hook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from twiceshy.plugin.hookspecs import hookimpl


def _ctx(project_dir: Path | None = None):
    from twiceshy.base.config import ConfigError
    from twiceshy.engine.context import make_context

    try:
        return make_context(project_dir or Path.cwd())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.argument("text")
    @click.option("--trigger", help="The action this lesson warns about (default: the text).")
    @click.option(
        "--tier",
        default="raw",
        show_default=True,
        help="principle, rule, qa or raw (T0..T3). A rule blocks matching calls.",
    )
    @click.option("--project", "scope_project", is_flag=True, help="Scope to the current project (default: global).")
    @click.option("--tag", "tags", multiple=True, help="Language/domain tag; repeatable.")
    def learn(text: str, trigger: str | None, tier: str, scope_project: bool, tags: tuple[str, ...]) -> None:
        """Store a lesson by hand."""
        from twiceshy.base.project import fingerprint
        from twiceshy.base.types import Tier
        from twiceshy.learning.ingest import store_lesson

        try:
            tier_value = Tier.parse(tier)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--tier") from None
        ctx = _ctx()
        project = fingerprint(str(Path.cwd())) if scope_project else None
        exp, outcome = store_lesson(ctx, text, trigger or text, kind="manual", project=project, tags=list(tags))
        if tier_value < exp.tier or outcome == "new":
            exp.tier = int(tier_value)
            ctx.store.update(exp)
        click.echo(f"{outcome}: {exp.id} [{exp.tier_label}] {exp.text}")
        from twiceshy.learning.review import is_held, reasons_of

        if is_held(exp):  # the poisoning guard keeps it away from agents until approved
            click.echo(
                f"held for review ({'; '.join(reasons_of(exp)) or 'risky advice'}): agents will not see it until "
                f"`twiceshy review --approve {exp.id}`",
                err=True,
            )

    @cli.command(name="list")
    @click.option("--tier", default=None, help="Only this tier.")
    @click.option("--json", "as_json", is_flag=True)
    def list_cmd(tier: str | None, as_json: bool) -> None:
        """List stored lessons."""
        from rich.console import Console
        from rich.table import Table
        from twiceshy.base.types import Tier

        try:
            where = {"tier": int(Tier.parse(tier))} if tier else None
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--tier") from None
        ctx = _ctx()
        exps = sorted(ctx.store.all(where=where), key=lambda e: (e.tier, -e.confidence))
        if as_json:
            click.echo(json.dumps([e.to_dict() for e in exps], indent=2))
            return
        table = Table(title=f"{len(exps)} lessons")
        for col in ("id", "tier", "conf", "seen", "scope", "lesson"):
            table.add_column(col)
        for e in exps:
            table.add_row(e.id, e.tier_label, f"{e.confidence:.2f}", str(e.seen_count), e.project or "global", e.text)
        Console().print(table)

    @cli.command()
    @click.argument("exp_id")
    def show(exp_id: str) -> None:
        """Show one lesson with its edges."""
        ctx = _ctx()
        exp = ctx.store.get(exp_id)
        if exp is None:
            raise click.ClickException(f"no lesson {exp_id}")
        data = exp.to_dict()
        data["edges"] = ctx.store.edges(exp_id)
        click.echo(json.dumps(data, indent=2, default=str))

    @cli.command()
    @click.argument("exp_id")
    def forget(exp_id: str) -> None:
        """Delete one lesson."""
        ctx = _ctx()
        if ctx.store.get(exp_id) is None:
            raise click.ClickException(f"no lesson {exp_id}")
        ctx.store.delete(exp_id)
        click.echo(f"forgot {exp_id}")
        # Chroma keeps the added record in its write-ahead log (embeddings_queue) and SQLite keeps
        # freed pages until they are reused: say so rather than promise an erase (docs/security.md).
        click.echo(
            "note: the lesson is gone from every search, context and export, but its text can stay in the "
            "store's files (Chroma's write-ahead log, free SQLite pages) until they are overwritten; to erase "
            "it from disk: twiceshy export --all --include-superseded -o FILE, move the store folder away, "
            "twiceshy import FILE",
            err=True,
        )

    @cli.command()
    @click.argument("query")
    @click.option("-k", default=5, show_default=True, type=click.IntRange(min=1))
    def search(query: str, k: int) -> None:
        """Search lessons by meaning."""
        from twiceshy.base.project import fingerprint

        ctx = _ctx()
        for exp, score in ctx.store.search(query, k=k, project=fingerprint(str(Path.cwd()))):
            click.echo(f"{score:.3f}  {exp.id}  [{exp.tier_label}] {exp.text}")

    @cli.command()
    @click.argument("agent")
    @click.argument("native_event")
    def hook(agent: str, native_event: str) -> None:
        """Run one hook in this process (payload on stdin). Debugging and fallback path;
        agents normally call hooks/client.py, which talks to the resident engine."""
        from twiceshy.base.errorlog import record_error
        from twiceshy.engine.dispatch import FAIL_OPEN, handle_hook

        try:
            payload = json.loads(sys.stdin.buffer.read() or b"{}")
            cwd = payload.get("cwd") if isinstance(payload, dict) else None
            ctx = _ctx(Path(cwd) if isinstance(cwd, str) and Path(cwd).is_dir() else None)
            out = handle_hook(ctx, agent, native_event, payload)
        except Exception as exc:  # fail open, whatever happened
            record_error("cli.hook", exc, agent=agent, native_event=native_event)
            out = FAIL_OPEN
        if out.stdout:
            sys.stdout.write(out.stdout)
        if out.stderr:
            sys.stderr.write(out.stderr)
        sys.exit(out.exit_code)
