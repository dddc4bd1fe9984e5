"""Core CLI commands: learn, list, show, forget, search, hook."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from twiceshy.plugin.hookspecs import hookimpl

LIST_PAGE = 50  # lessons `twiceshy list` shows unless --limit or --all says otherwise


def _ctx(project_dir: Path | None = None):
    from twiceshy.base.config import ConfigError
    from twiceshy.engine.context import make_context

    try:
        return make_context(project_dir or Path.cwd())
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _required_text(value: str, hint: str, example: str) -> str:
    """``value`` stripped; an empty or blank one is a usage error (exit 2), never a stored lesson."""
    stripped = value.strip()
    if not stripped:
        raise click.BadParameter(f"must not be empty or blank (give {example})", param_hint=hint)
    return stripped


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
        """Store a lesson by hand (a rule blocks the matching call every time)."""
        from twiceshy.base.project import fingerprint
        from twiceshy.base.types import Tier
        from twiceshy.learning.ingest import store_lesson

        text = _required_text(text, "TEXT", "the lesson, e.g. 'Run the tests before pushing'")
        if trigger is not None:
            trigger = _required_text(trigger, "--trigger", "the action it warns about, e.g. 'git push'")
        tags = tuple(_required_text(tag, "--tag", "a word such as python") for tag in tags)

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
    @click.option("--json", "as_json", is_flag=True, help="The page as JSON (--limit/--offset/--all apply).")
    @click.option(
        "--limit",
        type=click.IntRange(min=1),
        default=LIST_PAGE,
        show_default=True,
        help="Lessons per page.",
    )
    @click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True, help="Lessons to skip.")
    @click.option("--all", "show_all", is_flag=True, help="Every lesson (a pager on a terminal).")
    def list_cmd(tier: str | None, as_json: bool, limit: int, offset: int, show_all: bool) -> None:
        """List stored lessons: principles first, then rules, qa and raw; newest first within a tier.

        Shows one page (--limit, default 50; --offset to skip); --all shows every lesson."""
        from twiceshy.base.types import Tier
        from twiceshy.memory.listing import list_page

        try:
            tier_value = int(Tier.parse(tier)) if tier else None
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--tier") from None
        ctx = _ctx()
        total, exps = list_page(ctx, tier_value, offset, None if show_all else limit)  # no Chroma in-process
        rest = max(0, total - offset - len(exps))
        more = f"{rest} more — use --limit/--offset or --all" if rest else ""
        if as_json:  # one lesson a line, as the export writes them (indent=2 took 2.5x the bytes and time)
            dump = json.JSONEncoder().encode
            click.echo("[\n" + ",\n".join(dump(e.to_dict()) for e in exps) + "\n]" if exps else "[]")
            if more:
                click.echo(more, err=True)
            return
        from rich.console import Console
        from rich.table import Table

        whole = offset == 0 and not rest
        title = f"{total} lessons" if whole else f"lessons {offset + 1}–{offset + len(exps)} of {total}"
        if not exps and not whole:
            title = f"no lessons past {offset} (of {total})"
        table = Table(title=title)
        for col in ("id", "tier", "conf", "seen", "scope", "lesson"):
            table.add_column(col)
        for e in exps:
            table.add_row(e.id, e.tier_label, f"{e.confidence:.2f}", str(e.seen_count), e.project or "global", e.text)
        console = Console()
        if show_all and sys.stdout.isatty():
            with console.capture() as captured:
                console.print(table)
            from twiceshy.engine.readcmd import want_pager

            if want_pager():  # answered by the engine: the CLI that asked runs the pager
                click.echo(captured.get(), nl=False)
            else:
                click.echo_via_pager(captured.get())
            return
        console.print(table)
        if more:
            click.echo(more)

    @cli.command()
    @click.argument("exp_id")
    def show(exp_id: str) -> None:
        """Show one lesson with its edges."""
        exp_id = _required_text(exp_id, "EXP_ID", "a lesson id from `twiceshy list`")
        ctx = _ctx()
        exp = ctx.store.get(exp_id)
        if exp is None:
            raise click.ClickException(f"no lesson {exp_id}")
        data = exp.to_dict()
        # Chroma returns metadata keys in no fixed order: sorted, two runs print the same.
        edges = [dict(sorted(e.items())) for e in ctx.store.edges(exp_id)]
        data["edges"] = sorted(edges, key=lambda e: (str(e.get("type")), str(e.get("src")), str(e.get("dst"))))
        click.echo(json.dumps(data, indent=2, default=str))

    @cli.command()
    @click.argument("exp_id")
    def forget(exp_id: str) -> None:
        """Delete one lesson."""
        from twiceshy.ops.manage import NoSuchLesson, forget_lesson

        exp_id = _required_text(exp_id, "EXP_ID", "a lesson id from `twiceshy list`")
        ctx = _ctx()
        try:
            forget_lesson(ctx, exp_id)  # the dashboard's forget is the same call
        except NoSuchLesson as exc:
            raise click.ClickException(str(exc)) from None
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
        from twiceshy.ops.manage import LessonError, search_lessons

        ctx = _ctx()
        try:
            found = search_lessons(ctx, query, k=k, project=fingerprint(str(Path.cwd())))  # as the dashboard's
        except LessonError as exc:
            raise click.ClickException(str(exc)) from None
        for exp, score in found:
            click.echo(f"{score:.3f}  {exp.id}  [{exp.tier_label}] {exp.text}")

    @cli.command()
    @click.argument("agent")
    @click.argument("native_event")
    @click.option(
        "--in-process",
        is_flag=True,
        help="Dispatch here, importing the core (what `python -m twiceshy hook` always does).",
    )
    def hook(agent: str, native_event: str, in_process: bool) -> None:
        """Run one hook: the payload on stdin, the agent's answer on stdout.

        `twiceshy hook AGENT EVENT` from PATH is the command a project's committed settings
        name: it runs the stdlib hook client, which asks the resident engine. With --in-process
        (or as `python -m twiceshy hook`) the hook is dispatched in this process instead."""
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
