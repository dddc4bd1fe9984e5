"""``twiceshy plugins``: every plugin, where it comes from, its hooks, whether it runs.

Like ``datasette plugins`` / pytest's plugin report: builtins by stable name,
entry-point plugins with their distribution and version, and the ones that do
not run — disabled in ``plugins.disabled``, left out by
``TWICESHY_LOAD_PLUGINS``, failed to load (with the error) or requested but not
installed. ``--json`` prints the same as a list of objects.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from twiceshy.base.config import ConfigError, load_config
from twiceshy.plugin.guard import TRACE_ENV
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.plugin.manager import LOAD_ENV, PluginInfo, make_manager


def _source(info: PluginInfo) -> str:
    if info.source == "entry point" and info.distribution:
        return f"entry point: {info.distribution} {info.version or ''}".rstrip()
    return info.source


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
    def plugins(as_json: bool) -> None:
        """List plugins: source (builtin / entry point, distribution and version), hooks, enabled."""
        try:
            disabled = load_config(Path.cwd()).get("plugins", "disabled")
            problem = ""
        except ConfigError as exc:  # still list what is installed; say why disabled is unknown
            disabled, problem = [], str(exc)
        infos = make_manager(disabled=disabled).plugin_infos()
        if as_json:
            click.echo(json.dumps([i.to_dict() for i in infos], indent=2))
            return
        if problem:
            click.echo(f"config not read ({problem}); showing plugins.disabled as empty", err=True)
        width = max(len(i.name) for i in infos)
        source_width = max(len(_source(i)) for i in infos)
        for info in infos:
            hooks = ", ".join(info.hooks) or "-"
            status = info.status + (f" ({info.error})" if info.error else "")
            click.echo(f"{info.name:<{width}}  {_source(info):<{source_width}}  {status:<12}  {hooks}")
        only = os.environ.get(LOAD_ENV)
        click.echo(
            f"\n{sum(i.source == 'builtin' for i in infos)} builtin, "
            f"{sum(i.source == 'entry point' for i in infos)} entry point; "
            f"disabled: {', '.join(disabled) or 'none'}; "
            f"{LOAD_ENV}={only if only is not None else '(unset: all)'}; "
            f"{TRACE_ENV}={os.environ.get(TRACE_ENV) or '(unset)'}"
        )
