"""Background threads yield the CPU to the threads answering hooks.

On Linux a thread's nice value is its own (``setpriority`` on its thread
id), and threads it starts inherit it, including the ones a native library
(chromadb's Rust runtime, onnxruntime) creates while running on it. The
engine lowers its loading and maintenance threads, so on a busy 2-core
machine a hook call waiting for its answer is scheduled before them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

BACKGROUND_NICE = 10


def lower_this_thread(by: int = BACKGROUND_NICE) -> bool:
    """Raise this thread's nice value by ``by`` (never lower it; it cannot be
    raised back without privileges, so call it only on threads that do
    background work until they end). True when applied."""
    setpriority = getattr(os, "setpriority", None)
    if setpriority is None or not hasattr(threading, "get_native_id"):
        return False
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        setpriority(os.PRIO_PROCESS, tid, min(19, current + by))
        return True
    except OSError:
        return False


def in_background(work: Callable[..., Any]) -> Callable[..., Any]:
    """``work`` as a thread target that first lowers its thread (:func:`lower_this_thread`)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        lower_this_thread()
        return work(*args, **kwargs)

    return run
