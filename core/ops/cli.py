"""The ``twiceshy`` command. Commands are added by plugins through the
``register_commands`` hook (builtin ones live in ``twiceshy.builtins``).

Start-up is kept light: :func:`main` first offers a read command to the
running engine (:mod:`twiceshy.ops.readvia`, standard library only) and
imports click and the plugins only when it runs the command itself."""

from __future__ import annotations

from typing import Any

_group: Any = None


def _make_group() -> Any:
    import click
    from twiceshy import __version__

    @click.group()
    @click.version_option(__version__, prog_name="twiceshy")
    def cli() -> None:
        """twiceshy: a memory of their own mistakes for AI coding agents."""

    return cli


def __getattr__(name: str) -> Any:  # ``twiceshy.ops.cli.cli``: the bare group, made on first use
    global _group
    if name == "cli":
        if _group is None:
            _group = _make_group()
        return _group
    raise AttributeError(name)


def build_cli() -> Any:
    from twiceshy.plugin.manager import make_manager

    group = __getattr__("cli")
    # Commands are registered even when config is broken, so `doctor` can say why.
    pm = make_manager()
    pm.hook.register_commands(cli=group)
    return group


# Commands that only read the store: with a mistyped TWICESHY_HOME they would show an empty
# store (and create the folder), so they say the folder is missing instead. Commands that
# write (learn, import, restore, install, serve, hook, ...) create it as before.
READ_COMMANDS = frozenset(
    {
        "list", "search", "show", "stats", "health", "graph", "timeline", "projects", "suggest",
        "export", "backup", "review", "ui", "forget", "edit", "feedback",
    }
)  # fmt: skip


def _command_of(argv: list[str]) -> str | None:
    """The subcommand name in ``argv`` (the first word that is not an option)."""
    return next((word for word in argv if not word.startswith("-")), None)


def missing_home_error(argv: list[str]) -> str | None:
    """The message for a read command run against a ``TWICESHY_HOME`` that does not exist."""
    import os

    home = os.environ.get("TWICESHY_HOME")
    if not home or _command_of(argv) not in READ_COMMANDS or "--help" in argv:
        return None
    if os.path.exists(os.path.expanduser(home)):
        return None
    return (
        f"TWICESHY_HOME={home} does not exist (mistyped? unset it to use the default data dir; "
        "`twiceshy learn` or `twiceshy install` creates it)"
    )


def main(argv: list[str] | None = None) -> None:
    import os
    import sys

    args = sys.argv[1:] if argv is None else argv
    problem = missing_home_error(args)
    if problem:
        sys.stderr.write(f"Error: {problem}\n")
        sys.exit(1)
    from twiceshy.ops.readvia import try_engine

    code = try_engine(args)  # a read command answered by the running engine, before click loads
    if code is not None:
        sys.exit(code)
    import click

    try:
        build_cli()(args=args, prog_name="twiceshy")
    except Exception as exc:  # click handles its own errors; anything else is one line, not a traceback
        if os.environ.get("TWICESHY_DEBUG"):
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(f"Error: {message} (TWICESHY_DEBUG=1 shows the traceback)", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
