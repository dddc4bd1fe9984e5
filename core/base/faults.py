"""Injected fault points, for crash tests that must kill a process at an exact step.

A test sets ``TWICESHY_FAULT_PAUSE=<point>:<n>`` in the environment of the process under test. The
``n``-th time that process reaches ``fault_point("<point>")`` it writes ``<data dir>/fault-<point>``
(holding its pid) and then waits, doing nothing, until it is killed. The test waits for that file and
kills: the crash happens at the same step on every run, on a quiet machine or a loaded one, instead of
"after 0.3 s" and hoping. Unset (always, outside tests), a fault point costs one dict lookup.
"""

from __future__ import annotations

import os
import threading

_ENV = "TWICESHY_FAULT_PAUSE"
_hits: dict[str, int] = {}
_lock = threading.Lock()


def fault_point(name: str) -> None:
    """Pause here forever on the configured hit of ``name`` (see the module docstring)."""
    spec = os.environ.get(_ENV)
    if not spec:
        return
    point, _, nth = spec.rpartition(":")
    if point != name:
        return
    with _lock:
        _hits[name] = _hits.get(name, 0) + 1
        reached = _hits[name] == int(nth or 1)
    if not reached:
        return
    from twiceshy.base.paths import data_dir  # only under a test that asked for it

    marker = data_dir() / f"fault-{name}"
    # Written whole, then renamed: a test that sees the file never reads it empty.
    tmp = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
    tmp.write_text(str(os.getpid()), encoding="utf-8")
    os.replace(tmp, marker)
    threading.Event().wait()  # until SIGKILL
