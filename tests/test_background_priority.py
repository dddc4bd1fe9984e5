"""The engine's loading and maintenance threads run at a lower CPU priority
than the threads answering hooks (issue 18: on a 2-core machine the first
seconds after a start at 100k lessons had hook p99 of 170-240 ms while the
store was handed over to Chroma). Real threads; per-thread nice values are
Linux's (elsewhere the change is a no-op)."""

from __future__ import annotations

import os
import threading

from twiceshy.base.priority import BACKGROUND_NICE, lower_this_thread
from twiceshy.engine import server as engine_mod


def _nice_of(tid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, tid)


def test_only_the_lowered_thread_and_the_threads_it_starts_yield() -> None:
    base = _nice_of(threading.get_native_id())
    seen: dict[str, int] = {}

    def background() -> None:
        seen["applied"] = int(lower_this_thread())
        seen["self"] = _nice_of(threading.get_native_id())
        child = threading.Thread(target=lambda: seen.__setitem__("child", _nice_of(threading.get_native_id())))
        child.start()
        child.join()

    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    assert seen["applied"] == 1
    assert seen["self"] == min(19, base + BACKGROUND_NICE)
    assert seen["child"] == seen["self"]  # what a native library starts from it inherits it
    assert _nice_of(threading.get_native_id()) == base  # the caller is untouched


def test_the_engine_lowers_background_threads_and_not_the_others(tmp_path) -> None:
    engine = engine_mod.Engine(tmp_path / "home")
    base = _nice_of(threading.get_native_id())
    seen: dict[str, int] = {}

    def record(name: str) -> None:
        seen[name] = _nice_of(threading.get_native_id())

    engine._spawn(record, "twiceshy-test-background", "background", background=True)
    engine._spawn(record, "twiceshy-test-foreground", "foreground")
    for thread in engine._threads:
        thread.join(10)
    assert seen == {"background": min(19, base + BACKGROUND_NICE), "foreground": base}
