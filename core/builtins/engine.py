"""CLI commands for the resident engine: ``serve``, ``engine start|stop|status``."""

from __future__ import annotations

import json
import time

import click
from twiceshy.plugin.hookspecs import hookimpl


def _home(home: str | None) -> str:
    from twiceshy.base.paths import data_dir
    from twiceshy.hooks.wire import norm_home

    return norm_home(home or data_dir())


def _adopt_home(home: str | None) -> str:
    """Make ``--home`` the data dir of this process (the client passes the
    one the agent's hook command names)."""
    import os

    from twiceshy.base.paths import data_dir
    from twiceshy.hooks.wire import norm_home

    if home and norm_home(home) != norm_home(data_dir()):
        os.environ["TWICESHY_HOME"] = norm_home(home)
    return _home(home)


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    @click.option("--foreground", is_flag=True, help="Run in this process (default: start detached and return).")
    @click.option("--home", default=None, help="Data dir to serve (default: the configured one).")
    @click.option(
        "--idle-timeout",
        type=float,
        default=None,
        help="Seconds without a request before exiting (default: engine.idle_timeout_s).",
    )
    def serve(foreground: bool, home: str | None, idle_timeout: float | None) -> None:
        """Run the resident engine that answers hooks."""
        from twiceshy.engine import server as engine

        home = _adopt_home(home)
        if not foreground:
            pid = engine.spawn_detached(home)
            click.echo(f"started engine (pid {pid}); log: {engine.EnginePaths(home).log}")
            return
        raise SystemExit(engine.serve(home, idle_timeout_s=idle_timeout))

    @cli.group(name="engine")
    def engine_group() -> None:
        """Start, stop or inspect the resident engine."""

    @engine_group.command()
    @click.option("--home", default=None, help="Data dir (default: the configured one).")
    @click.option("--timeout", default=60.0, show_default=True, help="Seconds to wait until it answers.")
    def start(home: str | None, timeout: float) -> None:
        """Start the engine if needed and wait until it answers."""
        from twiceshy.engine import server as engine

        home = _adopt_home(home)
        status = engine.call(home, "ping", timeout=1.0)
        if status is None:
            started = time.monotonic()
            if not engine.lock_is_held(engine.EnginePaths(home)):
                engine.spawn_detached(home)
            status = engine.wait_ready(home, timeout=timeout)
            if status is None:
                raise click.ClickException(
                    f"engine did not answer within {timeout:.0f}s; see {engine.EnginePaths(home).log}"
                )
            click.echo(
                f"engine ready (pid {status['pid']}) in {time.monotonic() - started:.1f}s on {status['address']}"
            )
        else:
            click.echo(f"engine already running (pid {status['pid']}) on {status['address']}")

    @engine_group.command()
    @click.option("--home", default=None, help="Data dir (default: the configured one).")
    def stop(home: str | None) -> None:
        """Stop the engine (it finishes queued background work first)."""
        from twiceshy.engine import server as engine

        home = _adopt_home(home)
        paths = engine.EnginePaths(home)
        if not engine.lock_is_held(paths):
            click.echo("engine not running")
            return
        pid = engine.read_pid(paths)
        if not engine.stop(home):
            raise click.ClickException(f"engine (pid {pid}) did not stop")
        click.echo(f"engine stopped (pid {pid})")

    @engine_group.command()
    @click.option("--home", default=None, help="Data dir (default: the configured one).")
    @click.option("--json", "as_json", is_flag=True)
    def status(home: str | None, as_json: bool) -> None:
        """Show whether the engine runs, its pid, memory and queue."""
        from twiceshy.engine import server as engine

        home = _adopt_home(home)
        paths = engine.EnginePaths(home)
        info = engine.call(home, "ping", timeout=1.0)
        if info is None:
            state = "starting" if engine.lock_is_held(paths) else "stopped"
            info = {"running": False, "state": state, "pid": engine.read_pid(paths) if state == "starting" else None}
        else:
            info = {"running": True, "state": "running", **info}
        info["socket"] = str(paths.socket)
        if as_json:
            click.echo(json.dumps(info, indent=2))
            return
        if not info["running"]:
            click.echo(f"engine {info['state']}" + (f" (pid {info['pid']})" if info.get("pid") else ""))
            return
        rss = info.get("rss_bytes")
        click.echo(
            f"engine running: pid {info['pid']}, up {info['uptime_s']:.0f}s, {info['requests']} requests, "
            f"RSS {rss / 1e6:.0f} MB, spool pending {info['spool_pending']}, on {info['address']}"
            if rss
            else f"engine running: pid {info['pid']}, {info['requests']} requests, on {info['address']}"
        )
