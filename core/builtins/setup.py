"""CLI commands ``twiceshy install`` and ``twiceshy uninstall``.

Both are thin: the file handling lives in :mod:`twiceshy.ops.install`, the
agent-specific shape in each agent plugin.
"""

from __future__ import annotations

from pathlib import Path

import click
from twiceshy.plugin.hookspecs import hookimpl


def _agent_choices() -> list[str]:
    from twiceshy.plugin.manager import agent_names, make_manager

    try:
        return agent_names(make_manager())
    except Exception:  # a broken plugin must not take the whole CLI down
        return []


def _report(result) -> None:
    """Say what happened, one fact per line."""
    from twiceshy.ops.install import InstallResult

    assert isinstance(result, InstallResult)
    verb = {"install": "installed", "uninstall": "removed"}[result.action]
    if result.dry_run:
        if result.changed:
            click.echo(f"[dry run] {result.agent}: would change {result.path} (nothing written)")
            click.echo(result.diff, nl=False)
        else:
            click.echo(f"[dry run] {result.agent}: {result.path} already up to date; nothing to do")
        return
    for path in result.cleaned_files:
        click.echo(f"{result.agent}: removed the twiceshy block from {path}")
    for path in result.removed_files:
        click.echo(f"{result.agent}: deleted {path} (twiceshy created it)")
    if not result.changed:
        if result.action == "install":
            click.echo(f"{result.agent}: already installed in {result.path}; nothing changed")
            click.echo(f"  events: {', '.join(result.events)}")
        else:
            click.echo(f"{result.agent}: no twiceshy hooks in {result.path}; nothing changed")
        return
    click.echo(f"{result.agent}: {verb} twiceshy hooks {'in' if result.action == 'install' else 'from'} {result.path}")
    if result.events:
        click.echo(f"  events: {', '.join(result.events)}")
    if result.backup:
        click.echo(f"  backup: {result.backup}")
    elif result.created:
        click.echo("  (new file; no backup needed)")
    if result.local_file is not None and result.action == "install":
        click.echo(f"  this machine only: {result.local_file} (not committed)")
    for path in result.removed_dirs:
        click.echo(f"{result.agent}: removed the empty folder {path} (twiceshy created it)")


def _machine_notes(pm, agent: str, scope: str, project_dir: Path) -> list[str]:
    """What a committed project install cannot carry for this machine, when the agent has no
    per-machine settings file to put it in."""
    from twiceshy.ops.install import local_settings_path
    from twiceshy.ops.install_machine import pinned_home

    if scope != "project" or local_settings_path(pm, agent, project_dir) is not None:
        return []
    home = pinned_home(None)
    notes = [
        "the committed hooks run `twiceshy hook`, found on PATH: start the agent where `twiceshy` is on PATH "
        "(pipx / uv tool install, or the venv activated)"
    ]
    if home is not None:
        notes.append(
            f"{agent} has no per-machine settings file: the hooks use the data dir of the environment the agent "
            f"runs in, so export TWICESHY_HOME={home} where you start it"
        )
    return notes


def _run(
    action: str,
    agents: list[str],
    scope: str,
    project_dir: Path,
    dry_run: bool,
    transport: str = "command",
    force: bool = False,
) -> None:
    from twiceshy.ops.install import InstallError, TransportUnsupported, client_path, install, uninstall
    from twiceshy.plugin.manager import make_manager

    pm = make_manager()
    if action == "install" and not client_path().is_file() and not dry_run:
        click.echo(f"warning: hook client not found at {client_path()}; reinstall twiceshy", err=True)
    failures = []
    for agent in agents:
        try:
            if action == "install":
                try:
                    result = install(
                        pm,
                        agent,
                        scope=scope,
                        project_dir=project_dir,
                        dry_run=dry_run,
                        transport=transport,
                        force=force,
                    )
                except TransportUnsupported:
                    if len(agents) == 1:
                        raise
                    click.echo(f"{agent}: no HTTP hooks; installing command hooks")
                    result = install(pm, agent, scope=scope, project_dir=project_dir, dry_run=dry_run, force=force)
            else:
                result = uninstall(pm, agent, scope=scope, project_dir=project_dir, dry_run=dry_run)
        except InstallError as exc:
            if len(agents) == 1:
                raise
            failures.append(agent)
            click.echo(f"{agent}: error: {exc.message}", err=True)
            continue
        _report(result)
        if result.token_file is not None and not dry_run:
            click.echo(f"  http hooks: token in {result.token_file} (settings env, kept out of git)")
            if result.git_exclude is not None:
                click.echo(f"  git: {result.token_file.name} listed in {result.git_exclude}")
        if action == "install" and result.changed and not dry_run:
            notes = pm.hook.agent_install_notes(agent=agent, scope=scope, project_dir=project_dir) or []
            if transport == "command":
                notes = _machine_notes(pm, agent, scope, project_dir) + list(notes)
            for note in notes:
                click.echo(f"  note: {note}")
    if action == "install" and transport == "http" and not dry_run:
        _restart_engine_for_http()
    if action == "uninstall" and not dry_run:
        _stop_engine_if_unused(pm, project_dir)
    if failures:
        raise click.ClickException(f"{action} failed for: {', '.join(failures)}")


def _restart_engine_for_http() -> None:
    """An engine started before the http install has no HTTP listener (it reads the port at
    start): restart it, or the new hooks would fail open until it idles out."""
    from twiceshy.base.paths import data_dir
    from twiceshy.engine.http_hooks import load_config, ping
    from twiceshy.engine.server import EnginePaths, lock_is_held, spawn_detached, stop

    home = data_dir()
    config = load_config(home)
    if config is None or not lock_is_held(EnginePaths(home)) or ping(home, config) is not None:
        return
    if stop(home):
        spawn_detached(home)
        click.echo("engine: restarted to listen for the HTTP hooks")
    else:
        click.echo("engine: could not be restarted; run `twiceshy engine stop` (HTTP hooks fail open until then)")


def _stop_engine_if_unused(pm, project_dir: Path) -> None:
    """Uninstall leaves no process behind: once no agent's settings (user, or
    this project's) still point at our hooks, stop the resident engine."""
    from twiceshy.base.paths import data_dir
    from twiceshy.engine.server import EnginePaths, lock_is_held, stop
    from twiceshy.guidance.context_file import installed_agents

    if installed_agents(pm, project_dir):
        return
    if lock_is_held(EnginePaths(data_dir())):
        stopped = stop(data_dir())
        click.echo("engine: stopped (no agent uses twiceshy any more)" if stopped else "engine: could not be stopped")


def _remove_data(project_dir: Path) -> None:
    """``uninstall --remove-data``: delete the data dir, only when no agent still uses it
    and it looks like ours (a mistyped TWICESHY_HOME is never wiped)."""
    import shutil

    from twiceshy.base.paths import data_dir
    from twiceshy.guidance.context_file import installed_agents
    from twiceshy.plugin.manager import make_manager

    home = data_dir()
    left = installed_agents(make_manager(), project_dir)
    if left:
        raise click.ClickException(f"data kept: {', '.join(left)} still use twiceshy (uninstall them first)")
    if not home.exists():
        return
    if not any((home / name).exists() for name in ("store", "run", "created-files.json", "errors.jsonl")):
        raise click.ClickException(f"data kept: {home} does not look like a twiceshy data dir")
    shutil.rmtree(home)
    click.echo(f"removed the data dir {home}")


@hookimpl
def register_commands(cli: click.Group) -> None:
    names = _agent_choices()
    agent_option = click.option(
        "--agent",
        "agent",
        required=True,
        type=click.Choice(names + ["all"]),
        help="Which agent's settings to edit ('all' for every agent plugin).",
    )
    scope_option = click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        default="user",
        show_default=True,
        help="user: the agent's settings in your home; project: the project's own settings.",
    )
    project_option = click.option(
        "--project-dir",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        default=None,
        help="Project folder for --scope project (default: the current directory).",
    )
    dry_option = click.option("--dry-run", is_flag=True, help="Print the change as a diff; write nothing.")

    def expand(agent: str) -> list[str]:
        return list(names) if agent == "all" else [agent]

    @cli.command()
    @agent_option
    @scope_option
    @project_option
    @dry_option
    @click.option(
        "--transport",
        type=click.Choice(["command", "http"]),
        default="command",
        show_default=True,
        help="http (Claude Code): tool events POST straight to the engine on 127.0.0.1, no process per call; "
        "they fail open while the engine is down (docs/engine.md).",
    )
    @click.option(
        "--force",
        is_flag=True,
        help="Install even when the other scope already has twiceshy's hooks for the agent (each would fire).",
    )
    def install(agent: str, scope: str, project_dir: Path | None, dry_run: bool, transport: str, force: bool) -> None:
        """Wire twiceshy's hooks into an agent's settings (a project's are safe to commit)."""
        _run("install", expand(agent), scope, (project_dir or Path.cwd()).resolve(), dry_run, transport, force)

    @cli.command()
    @agent_option
    @scope_option
    @project_option
    @dry_option
    @click.option(
        "--keep-data/--remove-data",
        default=True,
        show_default=True,
        help="Keep the store and data dir (default), or delete them once no agent uses twiceshy.",
    )
    @click.option(
        "--purge",
        is_flag=True,
        help="Also delete every settings backup twiceshy kept in its data dir (`twiceshy doctor` lists them).",
    )
    def uninstall(
        agent: str, scope: str, project_dir: Path | None, dry_run: bool, keep_data: bool, purge: bool
    ) -> None:
        """Remove twiceshy's hooks (only ours) from an agent's settings; restore the files as they were."""
        root = (project_dir or Path.cwd()).resolve()
        _run("uninstall", expand(agent), scope, root, dry_run)
        if purge and not dry_run:
            from twiceshy.ops.install import purge_backups

            count = purge_backups()
            click.echo(f"deleted {count} settings backup(s) from the data dir" if count else "no settings backups kept")
        if not keep_data and not dry_run:
            _remove_data(root)
