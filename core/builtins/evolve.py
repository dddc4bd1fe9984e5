"""The evolve cycle after each session (``session_learned``) and the ``twiceshy evolve`` and
``twiceshy timeline`` commands.

The cycle itself lives in :mod:`twiceshy.learning.evolve`; this plugin runs it once a
session's lessons are stored (:func:`twiceshy.learning.evolve.after_session`: promote, demote,
decay, generalise; a Stop runs it at most every 10 minutes). Disable the ``evolve`` builtin in
``plugins.disabled`` and no cycle runs after sessions.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import click
from twiceshy.base.types import CoreEvent, Experience
from twiceshy.engine.context import EngineContext
from twiceshy.learning.evolve import after_session
from twiceshy.plugin.hookspecs import hookimpl


@hookimpl
def session_learned(lessons: list[Experience], event: CoreEvent, ctx: EngineContext) -> None:
    after_session(ctx, event)


def _ctx():
    from twiceshy.base.config import ConfigError
    from twiceshy.engine.context import make_context

    try:
        return make_context(Path.cwd())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _unknown_topic(ctx: EngineContext, topic: str) -> str:
    """``timeline`` of a topic no lesson has: say so, with the closest topics (listed from the
    store's metadata index, :mod:`twiceshy.memory.census`: no lesson is read)."""
    import difflib

    from twiceshy.memory.census import open_census

    message = f"no lessons on topic {topic!r}"
    with open_census(ctx, ("topic",)) as census:
        topics = sorted(str(t) for t in census.tally("topic") if t)
    if not topics:
        return message + " (no lesson has a topic yet)"
    close = difflib.get_close_matches(topic, topics, n=5, cutoff=0.5)
    close += [t for t in topics if topic.lower() in t.lower() and t not in close][: 5 - len(close)]
    return message + (f"; did you mean: {', '.join(close)}?" if close else f"; topics: {', '.join(topics[:10])}")


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
    def evolve(as_json: bool) -> None:
        """Run one evolution cycle now: expire, decay, promote, generalise."""
        from twiceshy.learning.evolve import run_cycle

        counts = run_cycle(_ctx())
        if as_json:
            click.echo(json.dumps(counts))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title="evolution cycle")
        table.add_column("change")
        table.add_column("lessons", justify="right")
        for key, value in counts.items():
            table.add_row(key, str(value))
        Console().print(table)

    @cli.command()
    @click.argument("topic")
    @click.option("--json", "as_json", is_flag=True, help="The page as JSON (--limit/--offset/--all apply).")
    @click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Lessons per page.")
    @click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True, help="Lessons to skip.")
    @click.option("--all", "show_all", is_flag=True, help="Every lesson of the topic.")
    def timeline(topic: str, as_json: bool, limit: int, offset: int, show_all: bool) -> None:
        """Show the lessons of one topic, oldest first, with supersession.

        Shows one page (--limit, default 50; --offset to skip), as `list` does; --all shows every lesson."""
        from twiceshy.memory.listing import topic_page

        ctx = _ctx()
        total, exps = topic_page(ctx, topic, offset, None if show_all else limit)  # no Chroma in-process
        if not total:
            raise click.ClickException(_unknown_topic(ctx, topic))
        rest = max(0, total - offset - len(exps))
        more = f"{rest} more — use --limit/--offset or --all" if rest else ""
        if as_json:
            click.echo(json.dumps([e.to_dict() for e in exps], indent=2))
            if more:
                click.echo(more, err=True)
            return
        if not exps:
            click.echo(f"no lessons past {offset} (of {total})")
        for e in exps:
            when = datetime.fromtimestamp(e.created_at).strftime("%Y-%m-%d %H:%M")
            mark = f"  (superseded by {e.superseded_by})" if e.superseded_by else ""
            click.echo(f"{when}  {e.id}  [{e.tier_label}] {e.text}{mark}")
        if more:
            click.echo(more)
