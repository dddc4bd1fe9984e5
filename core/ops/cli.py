"""The ``twiceshy`` command. Commands are added by plugins through the
``register_commands`` hook (builtin ones live in ``twiceshy.builtins``)."""

from __future__ import annotations

import click
from twiceshy import __version__


@click.group()
@click.version_option(__version__, prog_name="twiceshy")
def cli() -> None:
    """twiceshy: a memory of their own mistakes for AI coding agents."""


def build_cli() -> click.Group:
    from twiceshy.plugin.manager import make_manager

    # Commands are registered even when config is broken, so `doctor` can say why.
    pm = make_manager()
    pm.hook.register_commands(cli=cli)
    return cli


def main() -> None:
    build_cli()(prog_name="twiceshy")


if __name__ == "__main__":
    main()
