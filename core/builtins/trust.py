"""``twiceshy trust``: let a project's ``.twiceshy.yaml`` set every key.

Until a project is trusted, its config file may only tune ranking and learning
(:data:`twiceshy.base.config.PROJECT_SAFE`); keys that redirect data or
credentials, pick the model or plugins, or weaken the guard are ignored with a
warning. ``twiceshy trust [PATH]`` records the file's current SHA-256 in the
user's config dir; an edit to the file needs ``twiceshy trust`` again.
``--revoke`` forgets the record, ``--list`` shows every record.
"""

from __future__ import annotations

from pathlib import Path

import click
from twiceshy.plugin.hookspecs import hookimpl


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.argument("path", required=False, type=click.Path(path_type=Path))
    @click.option("--revoke", is_flag=True, help="Stop trusting this project's config file.")
    @click.option("--list", "list_all", is_flag=True, help="List trusted config files.")
    def trust(path: Path | None, revoke: bool, list_all: bool) -> None:
        """Trust the .twiceshy.yaml of PATH (default: here) as it is now."""
        from twiceshy.base import trust as records
        from twiceshy.base.config import PROJECT_SAFE
        from twiceshy.base.paths import PROJECT_CONFIG_NAME, find_project_config

        if list_all:
            rows = records.load_records()
            if not rows:
                click.echo("no trusted projects")
            for file, row in sorted(rows.items()):
                click.echo(f"{records.status(Path(file)):9}  {file}  sha256:{str(row.get('sha256', ''))[:12]}")
            return
        start = (path or Path.cwd()).expanduser()
        file = start if start.is_file() else find_project_config(start)
        if file is None:
            if revoke and records.revoke(start / PROJECT_CONFIG_NAME):
                click.echo(f"revoked: {start / PROJECT_CONFIG_NAME}")
                return
            raise click.ClickException(f"no {PROJECT_CONFIG_NAME} at or above {start}")
        if revoke:
            if records.revoke(file):
                click.echo(f"revoked: {file} (only {', '.join(sorted(PROJECT_SAFE))} keys are read from it now)")
            else:
                click.echo(f"{file} was not trusted")
            return
        digest = records.trust(file)
        click.echo(f"trusted: {file} (sha256:{digest[:12]}); an edit to it needs `twiceshy trust` again")
        click.echo("restart the engine to apply it: twiceshy engine stop")
