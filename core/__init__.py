"""twiceshy: once bitten, twice shy — a memory of their own mistakes for AI coding agents."""

__version__ = "0.1.0"

from twiceshy.plugin.hookspecs import hookimpl  # noqa: E402  (the one name plugin authors need)

__all__ = ["hookimpl", "__version__"]
