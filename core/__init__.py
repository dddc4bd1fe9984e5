"""twiceshy: once bitten, twice shy — a memory of their own mistakes for AI coding agents."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is the cost avoided here

if TYPE_CHECKING:  # typing costs ~4 ms: `twiceshy hook` (the hook command on PATH) imports this package
    from typing import Any

__version__ = "0.1.0"

__all__ = ["hookimpl", "__version__"]


def __getattr__(name: str) -> Any:
    # `hookimpl` (the one name plugin authors need) is imported on first use, so a process that
    # only needs a submodule (the CLI's fast path to the engine) does not pay for pluggy.
    if name == "hookimpl":
        from twiceshy.plugin.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module 'twiceshy' has no attribute {name!r}")
