"""Listeners on every write through a store object, without the store knowing them.

The hook client's local files (the rules snapshot, the hold index) must follow
every write of every process that writes the store: the engine, ``learn``,
``forget``, ``edit``, ``import``, the evolution pass. The store's write methods
(add, add_many, update, update_many, delete) are wrapped once on the instance;
each listener gets ``(op, items)`` after the write: ``"upsert"`` with the
Experiences written, ``"delete"`` with the ids. A listener that fails is
logged under its name and never raised into the store's caller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from twiceshy.base.errorlog import record_error

Listener = Callable[[str, Iterable[Any]], None]

_METHODS = (
    ("add", "upsert", False),
    ("add_many", "upsert", True),
    ("update", "upsert", False),
    ("update_many", "upsert", True),
    ("delete", "delete", False),
)


def watch_writes(store: Any, name: str, listener: Listener) -> None:
    """Call ``listener(op, items)`` after every write through ``store`` (idempotent per ``name``)."""
    listeners: dict[str, Listener] | None = getattr(store, "_write_listeners", None)
    if listeners is None:
        listeners = {}
        store._write_listeners = listeners
        for method_name, op, many in _METHODS:
            _wrap(store, listeners, method_name, op, many)
    listeners[name] = listener


def _wrap(store: Any, listeners: dict[str, Listener], method_name: str, op: str, many: bool) -> None:
    method = getattr(store, method_name, None)
    if method is None:
        return

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        first = args[0] if args else next(iter(kwargs.values()), None)
        if first is not None:
            items = list(first) if many else [first]
            for name, listener in list(listeners.items()):
                try:
                    listener(op, items)
                except Exception as exc:
                    record_error(name, exc)
        return result

    setattr(store, method_name, wrapper)


__all__ = ["Listener", "watch_writes"]
