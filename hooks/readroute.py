"""Which CLI commands the running engine may answer, and what of the client's
environment goes with them: the one list both sides use.

The CLI's fast path (:mod:`twiceshy.ops.readvia`, standard library only) decides
from :data:`ROUTED` and :data:`WRITING` whether to send a command line to the
engine and sends the variables of :data:`RICH_ENV`; the engine
(:mod:`twiceshy.engine.readcmd`) accepts only :data:`ROUTED` commands and gives
a read's rich consoles the client's :data:`RICH_ENV` values. Standard library
only (nothing at all is imported), so the client's fast path stays light.
"""

#: Commands that only read: the engine may answer them with the in-process output.
ROUTED = frozenset(
    {
        "list",
        "search",
        "show",
        "graph",
        "timeline",
        "projects",
        "review",
        "suggest",
        "stats",
        "health",
        "context",
        "why",
    }
)
#: Options that make a routed command write (or interactive): such invocations run in-process.
WRITING = {"context": ("--write",), "projects": ("--promote",), "review": ("--approve", "--reject")}
#: Environment rich reads when it builds a console (the client's values are sent and used).
RICH_ENV = (
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
)

__all__ = ["RICH_ENV", "ROUTED", "WRITING"]
