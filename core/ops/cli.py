"""The ``twiceshy`` command. Commands are added by plugins through the
``register_commands`` hook (builtin ones live in ``twiceshy.builtins``).

Start-up is kept light: :func:`main` first offers a read command to the
running engine (:mod:`twiceshy.ops.readvia`, standard library only) and
imports click and the plugins only when it runs the command itself."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is the cost avoided here

if TYPE_CHECKING:  # typing costs ~4 ms, and `twiceshy hook` starts here on every hook call
    from typing import Any

_group: Any = None


# `twiceshy --help` lists the commands in these sections, in this order; a command a plugin adds
# and no section names goes under "plugins".
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Daily use", ("demo", "doctor", "stats", "health", "ui", "context")),
    ("Lessons", ("learn", "list", "search", "show", "edit", "forget", "feedback", "review", "timeline", "graph",
                 "suggest", "observe")),
    ("Setup", ("install", "uninstall", "config", "trust", "plugins", "seed")),
    ("Team", ("export", "import", "projects", "mcp")),
    ("Maintenance", ("engine", "serve", "hook", "evolve", "consolidate", "decay", "backup", "restore")),
)  # fmt: skip


def _make_group() -> Any:
    import click
    from twiceshy import __version__

    class SectionedGroup(click.Group):
        """A group whose help lists its commands by section, each with its whole first line."""

        def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            commands = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
            shown = {n: c for n, c in commands.items() if c is not None and not c.hidden}
            placed: set[str] = set()
            for title, names in SECTIONS:
                rows = [(n, _first_line(shown[n])) for n in names if n in shown]
                placed.update(n for n, _ in rows)
                if rows:
                    with formatter.section(title):
                        formatter.write_dl(rows)
            rest = [(n, _first_line(c)) for n, c in sorted(shown.items()) if n not in placed]
            if rest:
                with formatter.section("Plugins"):
                    formatter.write_dl(rest)

    @click.group(cls=SectionedGroup)
    @click.version_option(__version__, prog_name="twiceshy")
    def cli() -> None:
        """twiceshy: a memory of their own mistakes for AI coding agents.

        `twiceshy demo` shows the whole loop in a temp dir; `twiceshy install --agent claude-code`
        wires an agent; `twiceshy doctor` says what is wrong and how to fix it."""

    return cli


def _first_line(command: Any) -> str:
    """A command's one-line description, whole (click cuts short help at 45 characters)."""
    text = command.short_help or (command.help or "").strip()
    return " ".join(text.split("\n\n")[0].split())


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


def default_home() -> str:
    """The data dir when ``TWICESHY_HOME`` is unset, as :func:`twiceshy.base.paths.data_dir` finds it
    (platformdirs' ``user_data_dir``), without importing platformdirs (10 ms) on Linux and macOS."""
    import os
    import sys

    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~/Library/Application Support"), "twiceshy")
    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        base = os.environ.get("XDG_DATA_HOME", "")
        return os.path.join(base if base.strip() else os.path.expanduser("~/.local/share"), "twiceshy")
    from twiceshy.base.paths import data_dir

    return str(data_dir())


def hooks_dir() -> str:
    """The folder of the stdlib hook client (``twiceshy/hooks``)."""
    import os

    import twiceshy.hooks

    return os.path.dirname(os.path.abspath(twiceshy.hooks.__file__))


def client_argv(agent: str, native_event: str) -> list[str]:
    """The hook client's arguments for one event: ``--home`` is this environment's data dir
    (``$TWICESHY_HOME`` or the default), the one every other ``twiceshy`` command uses."""
    return ["--home", hook_home(), agent, native_event]


REDIRECT = "redirect"  # <default data dir>/redirect: the data dir a project install of this machine uses


def hook_home() -> str:
    """The data dir ``twiceshy hook`` uses: ``$TWICESHY_HOME``; else the one a project install on
    this machine named in ``<default data dir>/redirect`` (Codex, Gemini, Copilot and OpenCode may
    run hooks without the user's environment, and have no per-machine settings file to pin it);
    else the default."""
    import os

    home = os.environ.get("TWICESHY_HOME")
    if home:
        return home
    default = default_home()
    try:
        with open(os.path.join(default, REDIRECT), encoding="utf-8") as fh:
            pointed = fh.readline().strip()
    except OSError:
        pointed = ""
    return pointed or default


def console() -> None:
    """The ``twiceshy`` command (console script). ``twiceshy hook AGENT EVENT`` — the command a
    project's committed settings name, with no path of any machine in it — runs the stdlib hook
    client (``hooks/wire.py``) in this process at once: no click, no plugins, no second
    interpreter, so it costs the client's work plus this interpreter's start. Everything else
    is :func:`main`; ``twiceshy hook --in-process`` (and ``python -m twiceshy hook``) keep the
    in-process dispatch."""
    import os
    import sys

    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "hook" and not any(a.startswith("-") for a in args[1:]):
        try:
            sys.path.insert(0, hooks_dir())
            from wire import main as run_hook

            code = run_hook(client_argv(args[1], args[2]))
        except BaseException:
            code = 0  # fail open, like the client
        sys.stdout.flush()
        os._exit(code)
    main()


def engine_stop(options: list[str]) -> int | None:
    """``twiceshy engine stop [--home DIR]`` without click: the same messages and exit
    codes as the click command (``twiceshy.builtins.engine``). None for anything else it
    could be asked (``--help``, an unknown option): click then answers."""
    import sys

    home: str | None = None
    rest = list(options)
    while rest:
        word = rest.pop(0)
        if word == "--home" and rest:
            home = rest.pop(0)
        elif word.startswith("--home="):
            home = word[len("--home=") :]
        else:
            return None
    from twiceshy.engine import server as engine
    from twiceshy.hooks.wire import norm_home
    from twiceshy.ops.readvia import home_dir

    home = norm_home(home) if home else home_dir()
    paths = engine.EnginePaths(home)
    if not engine.lock_is_held(paths):
        print("engine not running")
        return 0
    pid = engine.read_pid(paths)
    if not engine.stop(home):
        sys.stderr.write(f"Error: engine (pid {pid}) did not stop\n")
        return 1
    print(f"engine stopped (pid {pid})")
    return 0


def main(argv: list[str] | None = None) -> None:
    import os
    import sys

    args = sys.argv[1:] if argv is None else argv
    problem = missing_home_error(args)
    if problem:
        sys.stderr.write(f"Error: {problem}\n")
        sys.exit(1)
    if args[:2] == ["engine", "stop"]:
        code = engine_stop(args[2:])  # before click and the plugins: ~0.5 s of a 0.6 s stop
        if code is not None:
            sys.exit(code)
    from twiceshy.ops.readvia import try_engine

    code = try_engine(args)  # a read command answered by the running engine, before click loads
    if code is not None:
        sys.exit(code)
    if args[:1] == ["doctor"]:
        from twiceshy.ops.doctor_engine import prefetch  # the standard library and hooks.wire only
        from twiceshy.ops.readvia import home_dir

        prefetch(args, home_dir())  # the engine works out doctor's figures while click and the plugins load
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
