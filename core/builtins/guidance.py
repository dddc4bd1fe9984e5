"""Guidance commands: context, observe, suggest, consolidate, decay, projects, health, mcp."""

from __future__ import annotations

import json
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


def _project(flag: bool) -> str | None:
    from twiceshy.base.project import fingerprint

    return fingerprint(str(Path.cwd())) if flag else None


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option("--agent", "agents", multiple=True, help="Only this agent (repeatable). Default: the installed ones.")
    @click.option("--write", is_flag=True, help="Write the managed block into each agent's context file.")
    @click.option("--budget", type=int, default=None, help="Token budget (default: context.token_budget).")
    def context(agents: tuple[str, ...], write: bool, budget: int | None) -> None:
        """Show (or --write) the guidance block for this project."""
        from twiceshy.base.project import fingerprint
        from twiceshy.guidance.context_file import installed_agents
        from twiceshy.guidance.render import render_context_text, write_agent_contexts
        from twiceshy.plugin.manager import agent_names

        cwd = Path.cwd()
        ctx = _ctx(cwd)
        unknown = sorted(set(agents) - set(agent_names(ctx.pm)))
        if unknown:
            raise click.BadParameter(
                f"unknown agent {', '.join(unknown)} (one of {', '.join(agent_names(ctx.pm))})", param_hint="--agent"
            )
        chosen = list(agents) or installed_agents(ctx.pm, cwd)
        if not write:
            text = render_context_text(ctx, chosen[0] if chosen else "", fingerprint(str(cwd)), budget)
            click.echo(text or "Nothing learned yet for this project.")
            return
        if not chosen:
            raise click.ClickException("no agent has twiceshy hooks here; run `twiceshy install` or pass --agent")
        from twiceshy.ops.install import record_created

        existed = {
            a: Path(p).exists() for a in chosen if (p := ctx.pm.hook.agent_context_file(agent=a, project_dir=cwd))
        }
        failed = False
        for row in write_agent_contexts(ctx, cwd, chosen, budget):
            if "error" in row:
                failed = True
                click.echo(f"{row['agent']}: not written ({row['error']})", err=True)
            else:
                if row["changed"] and not existed.get(row["agent"], True):
                    record_created(Path(row["path"]), row["agent"], "context")  # uninstall takes it away
                click.echo(f"{row['agent']}: {'updated' if row['changed'] else 'unchanged'} {row['path']}")
        if failed:
            raise SystemExit(1)

    @cli.command()
    @click.argument("pattern")
    @click.option("--project", "scoped", is_flag=True, help="Scope to the current project (default: global).")
    def observe(pattern: str, scoped: bool) -> None:
        """Record one sighting of a pattern, e.g. "seq:test->fix->test"."""
        from twiceshy.guidance.patterns import PatternStore

        ctx = _ctx()
        try:
            obs = PatternStore(config=ctx.config).observe(pattern, project=_project(scoped))
        except ValueError as exc:
            raise click.BadParameter(str(exc)) from None
        click.echo(f"{obs.pattern} [{obs.status}] {obs.evidence()}")

    @cli.command()
    @click.option("--all", "include_raw", is_flag=True, help="Include raw observations.")
    @click.option("--limit", default=10, show_default=True)
    @click.option("--json", "as_json", is_flag=True)
    def suggest(include_raw: bool, limit: int, as_json: bool) -> None:
        """Patterns worth following in this project (mature and rule)."""
        from twiceshy.guidance.patterns import PatternStore

        ctx = _ctx()
        found = PatternStore(config=ctx.config).suggest(_project(True), limit=limit, include_raw=include_raw)
        if as_json:
            click.echo(json.dumps([o.to_dict() for o in found], indent=2))
            return
        if not found:
            click.echo("No mature patterns yet (observe more, then `twiceshy consolidate`).")
        for obs in found:
            click.echo(f"[{obs.status}] {obs.pattern}  ({obs.evidence()}; {obs.project or 'global'})")

    @cli.command()
    def consolidate() -> None:
        """Merge duplicate patterns and promote them by their thresholds."""
        from twiceshy.guidance.patterns import PatternStore

        ctx = _ctx()
        stats = PatternStore(config=ctx.config).consolidate()
        click.echo(", ".join(f"{k} {v}" for k, v in stats.items()))

    @cli.command()
    @click.option("--days", type=float, required=True, help="Idle period that costs one decay step.")
    def decay(days: float) -> None:
        """Weaken patterns not seen for --days; forget faint ones."""
        from twiceshy.guidance.patterns import PatternStore

        ctx = _ctx()
        try:
            stats = PatternStore(config=ctx.config).decay(days)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--days") from None
        click.echo(", ".join(f"{k} {v}" for k, v in stats.items()))

    @cli.command()
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--promote", is_flag=True, help="First promote lessons proven in several projects to global.")
    def projects(as_json: bool, promote: bool) -> None:
        """Projects seen, with their lesson, session and pattern counts."""
        import datetime

        from twiceshy.guidance.projects import project_table
        from twiceshy.learning.cross_project import promote_cross_project

        ctx = _ctx()
        if promote:
            click.echo(f"promoted {promote_cross_project(ctx)} lesson(s) to global", err=True)
        rows = project_table(ctx)
        if as_json:
            click.echo(json.dumps(rows, indent=2))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{len(rows) - 1} projects")
        for col in ("project", "lessons", "promoted", "sessions", "patterns", "last seen", "root"):
            table.add_column(col)
        for r in rows:
            seen = datetime.datetime.fromtimestamp(r["last_seen"]).strftime("%Y-%m-%d") if r["last_seen"] else ""
            table.add_row(
                r["project"],
                str(r["lessons"]),
                str(r["promoted_from"]),
                str(r["sessions"]),
                str(r["patterns"]),
                seen,
                r["root"],
            )
        Console().print(table)

    @cli.command()
    @click.option("--json", "as_json", is_flag=True)
    def health(as_json: bool) -> None:
        """Memory health 0-100 with its parts: depth, quality, activity, feedback."""
        from twiceshy.guidance.health import compute_health

        report = compute_health(_ctx())
        if as_json:
            click.echo(json.dumps(report.to_dict(), indent=2))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"memory health {report.score}/100")
        for col in ("part", "score", "what"):
            table.add_column(col)
        for p in report.parts:
            table.add_row(p.name, f"{p.score:.0f}/{p.max:.0f}", p.detail)
        console = Console()
        console.print(table)
        for note in report.notes:
            console.print(f"- {note}")

    @cli.command()
    def mcp() -> None:
        """Run the MCP server on stdio (search, suggest, observe, feedback)."""
        from twiceshy.ops.mcp import main

        main()
