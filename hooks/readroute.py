"""Which CLI commands the running engine may answer, and what of the client's
environment goes with them: the one list both sides use.

The CLI's fast path (:mod:`twiceshy.ops.readvia`, standard library only) decides
from :data:`ROUTED` and :data:`WRITING` whether to send a command line to the
engine and sends the variables of :data:`RICH_ENV`; the engine
(:mod:`twiceshy.engine.readcmd`) accepts only :data:`ROUTED` commands and gives
a read's rich consoles the client's :data:`RICH_ENV` values. Standard library
only (nothing is imported but ``hashlib``, by :func:`environ_digest`, for the
commands that need it), so the client's fast path stays light.
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
        "doctor",
    }
)
#: Options that make a routed command write (or interactive): such invocations run in-process.
#: (``doctor --full`` is the thorough check of what a fresh process finds: it runs in one.)
WRITING = {
    "context": ("--write",),
    "projects": ("--promote",),
    "review": ("--approve", "--reject"),
    "doctor": ("--full",),
}
#: Commands that read the rest of the environment (PATH for the hook commands, HOME for the
#: agents' settings, proxies, API key variables): the engine answers them only when its own
#: environment is the client's (:func:`environ_digest`), else the CLI runs them itself.
WHOLE_ENV = frozenset({"doctor"})
#: Variables that differ between two processes of one environment and change nothing a command says.
VOLATILE_ENV = frozenset(
    {"PWD", "OLDPWD", "SHLVL", "_", "LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_LOG", "ORT_DISABLE_TELEMETRY"}
)
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


def environ_digest(environ):
    """A digest of ``environ`` without the ``TWICESHY_*`` variables (compared one by one),
    the terminal's (:data:`RICH_ENV`, sent as they are) and :data:`VOLATILE_ENV`: equal
    when two processes see the same environment. A digest, so no value (an API key)
    travels over the socket."""
    import hashlib

    items = sorted(
        (k, v)
        for k, v in environ.items()
        if not k.startswith("TWICESHY_") and k not in RICH_ENV and k not in VOLATILE_ENV
    )
    data = "\0".join(f"{k}={v}" for k, v in items).encode("utf-8", "surrogateescape")
    return hashlib.sha256(data).hexdigest()


__all__ = ["RICH_ENV", "ROUTED", "VOLATILE_ENV", "WHOLE_ENV", "WRITING", "environ_digest"]
