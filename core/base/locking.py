"""``fcntl`` where it exists, a no-op stand-in where it does not (Windows).

Modules that lock files import ``fcntl`` from here instead of at top level, so
``twiceshy --help`` and the read commands work on a platform without it. The
stand-in's ``flock`` locks nothing: concurrent writers (two engines, an import
racing the engine) are then not kept apart, which the first call says once on
stderr. Stdlib only.
"""

from __future__ import annotations

import sys
from types import ModuleType

_fcntl: ModuleType | None
try:
    import fcntl as _fcntl
except ImportError:  # Windows: no POSIX advisory locks
    _fcntl = None

HAVE_FCNTL = _fcntl is not None
NOTE = "twiceshy: note: file locking is unavailable on this platform (no fcntl); run one twiceshy writer at a time"


class _NoLock(ModuleType):
    """The subset of ``fcntl`` twiceshy uses; ``flock`` does nothing."""

    LOCK_SH = 1
    LOCK_EX = 2
    LOCK_NB = 4
    LOCK_UN = 8

    def __init__(self) -> None:
        super().__init__("fcntl")
        self.noted = False

    def flock(self, fd: object, operation: int) -> None:
        if not self.noted:
            self.noted = True
            print(NOTE, file=sys.stderr)


fcntl: ModuleType = _fcntl if _fcntl is not None else _NoLock()

__all__ = ["HAVE_FCNTL", "NOTE", "fcntl"]
