"""Operator commands: doctor, stats, edit, graph, feedback, export, import,
backup, restore, seed, ui.

The logic lives in :mod:`twiceshy.ops.doctor`, :mod:`twiceshy.ops.stats`,
:mod:`twiceshy.ops.portable` and :mod:`twiceshy.ops.ui`; these are thin
click wrappers that print rich tables (or ``--json``). ``timeline`` is the
``evolve`` builtin's.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from twiceshy.plugin.hookspecs import hookimpl


def escape(text: str) -> str:
    """Text shown through rich, with its [brackets] kept literal (not read as markup)."""
    from rich.markup import escape as rich_escape

    return rich_escape(str(text))


LEVEL_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "fail": "bold red"}


def _ctx() -> Any:
    from twiceshy.base.config import ConfigError
    from twiceshy.engine.context import make_context

    try:
        return make_context(Path.cwd())
    except ConfigError as exc:
        raise click.ClickException(f"{exc}\n(run `twiceshy doctor` for every check)") from None


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr)


@contextlib.contextmanager
def _progress(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr (stdout stays clean for --json); a no-op when disabled."""
    if not enabled:
        yield lambda done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=_console(stderr=True),
        transient=False,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _get(ctx: Any, exp_id: str) -> Any:
    exp = ctx.store.get(exp_id)
    if exp is None:
        raise click.ClickException(f"no lesson {exp_id} (see `twiceshy list`)")
    return exp


def _fmt_ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} ms"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


@hookimpl
def register_commands(cli: click.Group) -> None:
    # ---------------------------------------------------------------- doctor
    @cli.command()
    @click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
    @click.option("--strict", is_flag=True, help="Exit non-zero on warnings too.")
    @click.option("--no-model", is_flag=True, help="Do not contact the configured LLM.")
    @click.option(
        "--full",
        is_flag=True,
        help="Read every lesson back and run SQLite's full integrity check (slow on big stores).",
    )
    def doctor(as_json: bool, strict: bool, no_model: bool, full: bool) -> None:
        """Check config, store, embedder, engine, hooks, model, queues and recent errors.

        Exits 1 when a check fails (with --strict: also on a warning); every
        failing check says how to fix it."""
        from rich.console import Console
        from twiceshy.engine.readcmd import in_read
        from twiceshy.ops.doctor import run_checks

        # A spinner on a terminal (rich prints nothing when stderr is not one): the model check
        # can take its whole 3 s bound, plus litellm's import the first time. Not inside the
        # engine (a read it answers for the CLI): the spinner's refresh thread would write
        # into the engine's log, not to the client.
        spinner = (
            contextlib.nullcontext()
            if in_read()
            else Console(stderr=True).status("twiceshy doctor: checking (a configured model gets up to 3 s)…")
        )
        with spinner:
            report = run_checks(Path.cwd(), check_model=not no_model, full=full)
        if as_json:
            click.echo(json.dumps(report.to_dict(), indent=2, default=str))
        else:
            from rich.table import Table

            table = Table(title="twiceshy doctor", show_lines=False)
            table.add_column("check", no_wrap=True)
            table.add_column("status", no_wrap=True)
            table.add_column("detail", overflow="fold")
            for c in report.checks:
                style = LEVEL_STYLE.get(c.level, "")
                table.add_row(escape(c.name), f"[{style}]{c.level}[/]", escape(c.detail))
            console = _console()
            console.print(table)
            fixes = [c for c in report.checks if c.fix and c.level in ("warn", "fail")]
            for c in fixes:
                style = LEVEL_STYLE.get(c.level, "")
                console.print(
                    f"[{style}]{c.level}[/] {escape(c.name)}: fix: {escape(c.fix)}", highlight=False, soft_wrap=True
                )
            verdict = report.verdict(strict)  # one verdict that matches the rows
            style = "bold red" if report.failed(strict) else ("yellow" if report.failed(True) else "green")
            console.print(verdict, style=style, highlight=False)
        sys.exit(1 if report.failed(strict) else 0)

    # ----------------------------------------------------------------- stats
    @cli.command()
    @click.option("--since", default="7d", show_default=True, help="Window: 7d, 12h, 30m, 2w or all.")
    @click.option("--json", "as_json", is_flag=True)
    def stats(since: str, as_json: bool) -> None:
        """Warnings shown, verdicts, mistakes avoided, hit rate, hook latency, lessons per tier."""
        from twiceshy.ops.stats import compute_stats, parse_since

        try:
            since_s = parse_since(since)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--since") from None
        data = compute_stats(_ctx(), since_s)
        if as_json:
            click.echo(json.dumps(data, indent=2))
            return
        from rich.table import Table

        h, v, lat, les = data["hooks"], data["verdicts"], data["latency"], data["lessons"]
        window = "all time" if since_s is None else f"last {since}"
        table = Table(title=f"twiceshy stats ({window})", show_header=False)
        table.add_column("figure")
        table.add_column("value", justify="right")
        rows = [
            ("hook calls", str(h["calls"])),
            ("pre-tool calls", str(h["pre_tool"])),
            ("warned (context)", str(h["warnings_shown"])),
            ("held once (denied, the identical retry passes)", str(h["held"])),
            ("denied by a rule", str(h["blocked"])),
            (
                "let through unchecked (engine did not answer)",
                str(h.get("failed_open", 0))
                + (
                    " (" + ", ".join(f"{k} {n}" for k, n in h["failed_open_by_reason"].items()) + ")"
                    if h.get("failed_open_by_reason")
                    else ""
                ),
            ),
            ("warnings that never arrived (not counted as shown)", str(h.get("warnings_dropped", 0))),
            (
                "spool (post-tool and session-end events waiting)",
                f"{h['spool']['bytes'] / 2**20:.1f} of {h['spool']['cap_bytes'] / 2**20:.0f} MiB"
                + (" — FULL: new events are dropped; run `twiceshy engine start`" if h["spool"]["full"] else ""),
            )
            if h.get("spool")
            else ("spool", "unknown"),
            ("hit rate (warned, held or denied / pre-tool)", _pct(h["hit_rate"])),
            ("mistakes avoided (held or warned in time, then changed)", str(data["mistakes_avoided"])),
            ("followed", str(v["followed"])),
            ("ignored", str(v["ignored"])),
            ("irrelevant", str(v["irrelevant"])),
            ("adherence (followed / followed+ignored)", _pct(v["adherence"])),
            ("precision (1 - irrelevant / verdicts)", _pct(v["precision"])),
            (
                "pre-tool latency p50 / p95",
                f"{_fmt_ms(lat['pre_tool']['p50_ms'])} / {_fmt_ms(lat['pre_tool']['p95_ms'])}",
            ),
            ("all hooks latency p50 / p95", f"{_fmt_ms(lat['all']['p50_ms'])} / {_fmt_ms(lat['all']['p95_ms'])}"),
            (
                "background work p50 / p95",
                f"{_fmt_ms(lat['background']['p50_ms'])} / {_fmt_ms(lat['background']['p95_ms'])}",
            ),
            ("hook errors", str(h["errors"])),
            ("lessons learned in window", str(les["learned_in_window"])),
        ]
        from twiceshy.ops.stats import text_rows

        rows[rows.index(next(r for r in rows if r[0] == "followed")) : 0] = text_rows(data)
        for row in rows:
            table.add_row(*row)
        per = Table(title="per lesson (holds H, denies D, warned W, avoided A, ignored I, overridden O, false holds F)")
        for col in ("id", "tier", "H", "D", "W", "A", "I", "O", "F", "lesson"):
            per.add_column(col)
        for r in data.get("per_lesson") or []:
            counts = ("held", "denied", "warned", "avoided", "ignored", "overridden", "false_holds")
            per.add_row(r["id"], r["tier_label"], *(str(r[k]) for k in counts), escape(r["text"][:80]))
        tiers = Table(title=f"{les['total']} lessons ({les['superseded']} superseded)")
        for label in les["tiers"]:
            tiers.add_column(label, justify="right")
        tiers.add_row(*[str(n) for n in les["tiers"].values()])
        console = _console()
        console.print(table)
        if data.get("per_lesson"):
            console.print(per)
        console.print(tiers)

    # ------------------------------------------------------------------ edit
    @cli.command()
    @click.argument("exp_id")
    @click.option("--text", default=None, help="New advice text.")
    @click.option("--trigger", default=None, help="New trigger (what the lesson warns about).")
    @click.option("--tier", default=None, help="principle, rule, qa or raw.")
    @click.option("--confidence", type=click.FloatRange(0, 1), default=None)
    @click.option("--tag", "tags", multiple=True, help="Replace the tags (repeatable).")
    @click.option("--topic", default=None)
    @click.option("--global", "make_global", is_flag=True, help="Make the lesson global (all projects).")
    @click.option("--project", "make_project", is_flag=True, help="Scope the lesson to the current project.")
    def edit(
        exp_id: str,
        text: str | None,
        trigger: str | None,
        tier: str | None,
        confidence: float | None,
        tags: tuple[str, ...],
        topic: str | None,
        make_global: bool,
        make_project: bool,
    ) -> None:
        """Change a lesson. Without options, opens it in $EDITOR as JSON."""
        from twiceshy.base.project import fingerprint
        from twiceshy.base.types import Tier

        ctx = _ctx()
        exp = _get(ctx, exp_id)
        if make_global and make_project:
            raise click.UsageError("--global and --project exclude each other")
        changes: dict[str, Any] = {}
        if text is not None:
            changes["text"] = text
        if trigger is not None:
            changes["trigger"] = trigger
        if tier is not None:
            try:
                changes["tier"] = int(Tier.parse(tier))
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint="--tier") from None
        if confidence is not None:
            changes["confidence"] = confidence
        if tags:
            changes["tags"] = list(tags)
        if topic is not None:
            changes["topic"] = topic
        if make_global:
            changes["project"] = None
        if make_project:
            changes["project"] = fingerprint(str(Path.cwd()))
        if not changes:
            editable = {
                k: getattr(exp, k) for k in ("text", "trigger", "tier", "confidence", "tags", "topic", "project")
            }
            edited = click.edit(json.dumps(editable, indent=2) + "\n", extension=".json")
            if edited is None:
                click.echo("no change")
                return
            try:
                new = json.loads(edited)
                assert isinstance(new, dict)
            except (ValueError, AssertionError):
                raise click.ClickException("not a JSON object; nothing changed") from None
            changes = {k: v for k, v in new.items() if k in editable and v != editable[k]}
        # One validation for the CLI and the dashboard (twiceshy.ops.manage).
        from twiceshy.ops.manage import LessonError, apply_edit

        try:
            changed = apply_edit(ctx, exp, changes)
        except LessonError as exc:
            raise click.ClickException(f"{exc}; nothing changed") from None
        if not changed:
            click.echo("no change")
            return
        click.echo(f"edited {exp.id}: " + ", ".join(changed) + f"  [{exp.tier_label}] {exp.text}")

    # ----------------------------------------------------------------- graph
    @cli.command()
    @click.argument("exp_id")
    @click.option("--depth", default=2, show_default=True, help="Edges to follow out.")
    @click.option("--json", "as_json", is_flag=True)
    def graph(exp_id: str, depth: int, as_json: bool) -> None:
        """Show a lesson's neighbourhood in the experience graph."""
        from twiceshy.ops.ui import graph as get_graph

        ctx = _ctx()
        _get(ctx, exp_id)
        data = get_graph(ctx, exp_id, depth=depth)
        if as_json:
            click.echo(json.dumps(data, indent=2, default=str))
            return
        from rich.tree import Tree

        nodes = {n["id"]: n for n in data["nodes"]}

        def label(node_id: str) -> str:
            n = nodes.get(node_id)
            return escape(f"{node_id} [{n['tier_label']}] {n['text']}" if n else f"{node_id} (missing)")

        tree = Tree(label(exp_id))
        seen = {exp_id}

        def grow(branch: Any, node_id: str, left: int) -> None:
            if left <= 0:
                return
            for e in data["edges"]:
                if node_id not in (e["src"], e["dst"]):
                    continue
                other = e["dst"] if e["src"] == node_id else e["src"]
                arrow = f"{e['type']} →" if e["src"] == node_id else f"← {e['type']}"
                if other in seen:
                    continue
                seen.add(other)
                grow(branch.add(f"{escape(arrow)} {label(other)}"), other, left - 1)

        grow(tree, exp_id, depth)
        _console().print(tree)
        if len(data["nodes"]) == 1:
            click.echo("(no edges)")

    # -------------------------------------------------------------- feedback
    @cli.command()
    @click.argument("exp_id")
    @click.argument("verdict", type=click.Choice(["followed", "ignored", "irrelevant"], case_sensitive=False))
    @click.option("--note", default="", help="Why (kept in feedback.jsonl).")
    def feedback(exp_id: str, verdict: str, note: str) -> None:
        """Give your own verdict on a lesson: followed, ignored or irrelevant.

        Counts like the judge's: it moves confidence and, in a row, the tier."""
        from twiceshy.learning.evolve import record_verdict
        from twiceshy.ops.stats import record_feedback

        ctx = _ctx()
        before = _get(ctx, exp_id)
        record_verdict(ctx, exp_id, verdict.upper())
        record_feedback(exp_id, verdict, note)
        after = _get(ctx, exp_id)
        moved = f" ({before.tier_label} -> {after.tier_label})" if after.tier != before.tier else ""
        click.echo(f"{verdict.lower()}: {exp_id} confidence {before.confidence:.2f} -> {after.confidence:.2f}{moved}")

    # ---------------------------------------------------------------- export
    @cli.command(name="export")
    @click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="File to write (default: stdout).",
    )
    @click.option("--tier", "tiers", multiple=True, help="Tiers to export (repeatable; default principle and rule).")
    @click.option("--all", "everything", is_flag=True, help="Every tier.")
    @click.option("--include-superseded", is_flag=True)
    @click.option(
        "--vectors",
        is_flag=True,
        help="Also write each lesson's trigger vector (~1 kB a lesson): an import with the same "
        "embedding model then need not embed the triggers again.",
    )
    def export_cmd(
        output: Path | None, tiers: tuple[str, ...], everything: bool, include_superseded: bool, vectors: bool
    ) -> None:
        """Export lessons as portable JSON with provenance (principles and rules by default; no vectors
        unless --vectors: an import embeds the triggers)."""
        from twiceshy.base.types import Tier
        from twiceshy.ops.portable import write_export

        try:
            wanted = [int(t) for t in Tier] if everything else [int(Tier.parse(t)) for t in tiers] or [0, 1]
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--tier") from None
        ctx = _ctx()
        if output is None:  # streamed, a page of lessons at a time (constant memory)
            write_export(ctx, sys.stdout, wanted, include_superseded=include_superseded, vectors=vectors)
            return
        # One missing folder is made (`-o exports/lessons.json`); a deeper missing path is more
        # likely a typo than a wish, so it is named rather than created.
        parent = output.expanduser().absolute().parent
        if not parent.is_dir():
            if parent.exists() or not parent.parent.is_dir():
                raise click.ClickException(
                    f"cannot write {output}: folder {parent} does not exist (create it first, or pick another -o)"
                )
            parent.mkdir()
        target = output.expanduser()
        partial = target.with_name(target.name + ".partial")  # a failed export leaves an older file whole
        try:
            with _progress("exporting", enabled=sys.stderr.isatty()) as progress:
                with open(partial, "w", encoding="utf-8") as fh:
                    counts = write_export(
                        ctx, fh, wanted, include_superseded=include_superseded, vectors=vectors, progress=progress
                    )
            os.replace(partial, target)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise click.ClickException(f"cannot write {output}: {exc.strerror}") from None
        click.echo(f"exported {counts['lessons']} lessons, {counts['edges']} edges to {output}", err=True)

    # ---------------------------------------------------------------- import
    @cli.command(name="import")
    @click.argument("source", type=click.Path(dir_okay=False, allow_dash=True))
    @click.option("--global", "as_global", is_flag=True, help="Import every lesson as global (drop project scopes).")
    @click.option("--json", "as_json", is_flag=True)
    def import_cmd(source: str, as_global: bool, as_json: bool) -> None:
        """Import an export file (`-` for stdin); lessons you already have are merged, not duplicated."""
        import shutil
        import tempfile

        from twiceshy.ops.portable import PortableError, import_file

        skipped: list[str] = []

        def invalid(line: int, reason: str) -> None:  # a bad record: skipped, named by its line
            if len(skipped) < 20:
                click.echo(f"{source}: line {line}: record skipped ({reason})", err=True)
            skipped.append(reason)

        with contextlib.ExitStack() as stack:
            path = Path(source)
            if source == "-":  # stdin goes to a temp file: the import reads it twice, never whole
                spool = stack.enter_context(tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".json"))
                shutil.copyfileobj(sys.stdin, spool, 1 << 20)
                spool.flush()
                path = Path(spool.name)
            ctx = _ctx()
            try:
                with _progress("importing", enabled=not as_json) as progress:
                    counts = import_file(ctx, path, as_global=as_global, progress=progress, on_invalid=invalid)
            except PortableError as exc:
                raise click.ClickException(str(exc).replace(str(path), source)) from None
        if len(skipped) > 20:
            click.echo(f"{source}: {len(skipped) - 20} more records skipped", err=True)
        if as_json:
            click.echo(json.dumps(counts))
            return
        click.echo(", ".join(f"{k} {v}" for k, v in counts.items()))

    # ---------------------------------------------------------------- backup
    @cli.command()
    @click.option(
        "-o",
        "--output",
        type=click.Path(),
        default=None,
        help="Archive file or folder (default: <data dir>/backups/); a name ending in / is a folder.",
    )
    @click.option("--stop-engine", is_flag=True, help="Stop a running engine first (it restarts on the next hook).")
    def backup(output: str | None, stop_engine: bool) -> None:
        """Copy the whole store and data dir into one .tar.gz (consistent: no engine writes meanwhile)."""
        from twiceshy.ops.portable import PortableError
        from twiceshy.ops.portable import backup as do_backup

        out = Path(output).expanduser() if output else None
        if output and out is not None and output.endswith(("/", os.sep)):
            out.mkdir(parents=True, exist_ok=True)  # `-o somedir/`: a folder, the archive gets a generated name
        ctx = _ctx()
        try:
            path, manifest = do_backup(ctx, out, stop_engine=stop_engine)
        except PortableError as exc:
            raise click.ClickException(str(exc)) from None
        size = path.stat().st_size
        click.echo(f"backup: {path} ({manifest['lessons']} lessons, {manifest['files']} files, {size / 1024:.0f} KiB)")

    # --------------------------------------------------------------- restore
    @cli.command()
    @click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--stop-engine", is_flag=True, help="Stop a running engine first.")
    @click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
    def restore(archive: Path, stop_engine: bool, yes: bool) -> None:
        """Replace the store and data dir with a backup; what it replaces is kept aside."""
        from twiceshy.ops.portable import PortableError, read_manifest
        from twiceshy.ops.portable import restore as do_restore

        try:
            manifest = read_manifest(archive)
        except PortableError as exc:
            raise click.ClickException(str(exc)) from None
        if not yes:
            click.confirm(
                f"Replace the current memory with {archive} ({manifest.get('lessons')} lessons, "
                f"made {manifest.get('created')})?",
                abort=True,
            )
        ctx = _ctx()
        try:
            manifest, saved = do_restore(ctx, archive, stop_engine=stop_engine)
        except PortableError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"restored {manifest.get('lessons')} lessons from {archive}; the previous data is in {saved}")

    # ------------------------------------------------------------------ seed
    @cli.command()
    @click.option(
        "--from",
        "source",
        required=True,
        type=click.Path(exists=True, path_type=Path),
        help="A CLAUDE.md / AGENTS.md / GEMINI.md / .mdc file, or a project folder holding them.",
    )
    @click.option(
        "--tier", default="qa", show_default=True, help="Tier of seeded lessons (rule blocks matching calls)."
    )
    @click.option(
        "--scope",
        type=click.Choice(["auto", "project", "global"]),
        default="auto",
        show_default=True,
        help="auto: global for ~/.claude etc., else the file's project.",
    )
    @click.option("--dry-run", is_flag=True, help="List what would be stored.")
    @click.option("--json", "as_json", is_flag=True)
    def seed(source: Path, tier: str, scope: str, dry_run: bool, as_json: bool) -> None:
        """Bootstrap lessons from the bullet points of existing instruction files."""
        from twiceshy.base.types import Tier
        from twiceshy.ops.portable import PortableError
        from twiceshy.ops.portable import seed as do_seed

        try:
            tier_value = int(Tier.parse(tier))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--tier") from None
        ctx = _ctx()
        try:
            with _progress("seeding", enabled=not (as_json or dry_run)) as progress:
                counts = do_seed(ctx, source, tier=tier_value, scope=scope, dry_run=dry_run, progress=progress)
        except PortableError as exc:
            raise click.ClickException(str(exc)) from None
        if as_json:
            click.echo(json.dumps(counts, indent=2))
            return
        if dry_run:
            from rich.table import Table

            table = Table(title=f"{counts['found']} lessons in {len(counts['files'])} files (dry run)")
            for col in ("file:line", "heading", "lesson"):
                table.add_column(col, overflow="fold")
            for item in counts["items"]:
                table.add_row(
                    escape(f"{Path(item['file']).name}:{item['line']}"), escape(item["heading"]), escape(item["text"])
                )
            _console().print(table)
            return
        click.echo(
            f"seeded from {', '.join(counts['files']) or 'nothing'}: {counts['found']} found, "
            f"{counts['new'] + counts['related'] + counts['supersedes']} stored, {counts['seen']} already known"
        )

    # -------------------------------------------------------------------- ui
    @cli.command()
    @click.option(
        "--host", default=None, help="Address to bind (default 127.0.0.1; a non-loopback one exposes your lessons)."
    )
    @click.option(
        "--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free one)."
    )
    def ui(host: str | None, port: int) -> None:
        """Serve the local dashboard: outcomes per day, lessons that helped, search, edit, review, graph."""
        from twiceshy.ops.ui import RemoteBindRefused, make_server

        ctx = _ctx()
        try:
            server = make_server(ctx, host or "127.0.0.1", port, allow_remote=host is not None)
        except RemoteBindRefused as exc:
            raise click.ClickException(str(exc)) from None
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host or '127.0.0.1'}:{port}: {exc.strerror}") from None
        _ = ctx.store  # open before announcing, so the first page load is fast
        if host is not None and not server.check_host:
            click.echo(f"warning: serving on {host}: anyone who can reach it can read your lessons", err=True)
        click.echo(f"twiceshy ui on {server.url} (changes need the page's token; Ctrl-C to stop)", err=False)
        sys.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
