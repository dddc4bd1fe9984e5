"""Per-implementation isolation and tracing, inside pluggy's own call loop.

pluggy stops a whole hook call at the first exception of any implementation.
For twiceshy's lifecycle hooks one plugin's bug must cost only that plugin's
answer, so when a plugin is registered (:class:`twiceshy.plugin.manager.PluginManager`)
each of its implementations is replaced by a *guard* with the same arguments:

* a plain implementation: an exception is recorded (``record_error``) and the
  implementation answers ``None`` — pluggy drops it and calls the next one;
* a new-style ``wrapper=True``: an exception before its ``yield`` leaves the
  result untouched (the wrapper is skipped); one after it keeps the result the
  wrapper received;
* an old-style ``hookwrapper=True``: the same, around pluggy's ``Result``.

Everything else — order (last registered first, ``tryfirst`` / ``trylast``),
wrappers seeing and replacing the result, ``firstresult`` — is pluggy's own
``_multicall``. Under tests (``TWICESHY_RAISE_PLUGIN_ERRORS=1``) the guard
re-raises, so a broken plugin fails loudly.

With ``TWICESHY_TRACE_PLUGINS`` set, each guard also writes one line per call
(hook, plugin, milliseconds, answer) to the trace: ``1`` means
``<data dir>/plugin-trace.log``, ``stderr`` means standard error. Never
stdout: on the hook path stdout is the agent's protocol.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Generator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.paths import data_dir
from twiceshy.base.redact import redact
from twiceshy.base.types import Decision

RAISE_ENV = "TWICESHY_RAISE_PLUGIN_ERRORS"
TRACE_ENV = "TWICESHY_TRACE_PLUGINS"
TRACE_FILE = "plugin-trace.log"
ANSWER_CHARS = 160  # a traced answer is cut to this (and redacted)


def raise_in_tests() -> bool:
    """Under tests a broken plugin must fail loudly, not be silently skipped."""
    return os.environ.get(RAISE_ENV) == "1"


def plugin_failed(plugin_name: str, hook_name: str, exc: BaseException | str) -> None:
    """Record one implementation's failure; re-raise it under tests."""
    record_error(f"plugin {plugin_name}.{hook_name}", exc)
    if raise_in_tests():
        if isinstance(exc, BaseException):
            raise exc
        raise RuntimeError(f"plugin {plugin_name}.{hook_name}: {exc}")


# --------------------------------------------------------------------------
# Trace
# --------------------------------------------------------------------------


def describe(value: Any) -> str:
    """A short, redacted, one-line description of a hook's answer."""
    if isinstance(value, Decision):
        text = value.action
        if value.hold:
            text += " (hold)"
        if value.reason:
            text += f": {value.reason}"
        elif value.context:
            text += f": {value.context}"
    elif isinstance(value, list):
        text = f"[{len(value)}] " + ", ".join(describe(v) for v in value[:4]) + (", …" if len(value) > 4 else "")
    else:
        text = repr(value)
    text = " ".join(text.split())
    if len(text) > ANSWER_CHARS:
        text = text[: ANSWER_CHARS - 1] + "…"
    return redact(text)


class Tracer:
    """Writes one line per traced event to a file (append) or to stderr."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._lock = threading.Lock()

    @classmethod
    def from_env(cls) -> Tracer | None:
        value = os.environ.get(TRACE_ENV, "").strip()
        if not value or value == "0":
            return None
        if value.lower() == "stderr":
            return cls("stderr")
        if value == "1":
            return cls(str(data_dir() / TRACE_FILE))
        return cls(str(Path(value).expanduser()))  # any other value: a file path

    def write(self, hook: str, who: str, ms: float, answer: str) -> None:
        stamp = datetime.now(timezone.utc).strftime("%H:%M:%S.%f")[:-3]
        line = f"{stamp} {hook} {who} {ms:.2f}ms -> {answer}\n"
        try:
            if self.target == "stderr":
                with self._lock:
                    sys.stderr.write(line)
                    sys.stderr.flush()
                return
            path = Path(self.target)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "replace"))  # one O_APPEND write: lines never interleave
            finally:
                os.close(fd)
        except Exception:  # tracing must never become the failure
            pass


# --------------------------------------------------------------------------
# Guards
# --------------------------------------------------------------------------

GUARDED = "_twiceshy_guarded"


def guard_plain(fn: Callable[..., Any], hook: str, plugin: str, tracer: Tracer | None) -> Callable[..., Any]:
    if tracer is None:

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                plugin_failed(plugin, hook, exc)
                return None

    else:

        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                answer = fn(*args, **kwargs)
            except Exception as exc:
                tracer.write(hook, f"plugin={plugin}", (time.perf_counter() - started) * 1000, f"raised {exc!r}")
                plugin_failed(plugin, hook, exc)
                return None
            tracer.write(hook, f"plugin={plugin}", (time.perf_counter() - started) * 1000, describe(answer))
            return answer

    setattr(guarded, GUARDED, True)
    return guarded


def guard_wrapper(fn: Callable[..., Any], hook: str, plugin: str, tracer: Tracer | None) -> Callable[..., Any]:
    """Guard a new-style ``wrapper=True`` implementation (a generator that yields once)."""

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        started = time.perf_counter()
        try:
            gen = fn(*args, **kwargs)
            next(gen)
        except StopIteration:
            plugin_failed(plugin, hook, "wrapper did not yield")
            return (yield)
        except Exception as exc:
            plugin_failed(plugin, hook, exc)
            return (yield)  # skipped: the result passes through untouched
        setup_ms = (time.perf_counter() - started) * 1000
        try:
            result = yield
        except Exception as inner:
            # Only reached when an inner implementation raised under tests:
            # hand the exception to the wrapper, as pluggy would.
            try:
                gen.throw(inner)
            except StopIteration as stop:
                return stop.value
            gen.close()
            raise
        started = time.perf_counter()
        try:
            gen.send(result)
        except StopIteration as stop:
            if tracer is not None:
                ms = setup_ms + (time.perf_counter() - started) * 1000
                tracer.write(hook, f"wrapper={plugin}", ms, describe(stop.value))
            return stop.value
        except Exception as exc:
            plugin_failed(plugin, hook, exc)
            return result  # the wrapper's teardown failed: keep what it was given
        gen.close()
        plugin_failed(plugin, hook, "wrapper yielded twice")
        return result

    setattr(guarded, GUARDED, True)
    return guarded


def guard_hookwrapper(fn: Callable[..., Any], hook: str, plugin: str, tracer: Tracer | None) -> Callable[..., Any]:
    """Guard an old-style ``hookwrapper=True`` implementation (receives a ``pluggy.Result``)."""

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Generator[None, Any, None]:
        started = time.perf_counter()
        try:
            gen = fn(*args, **kwargs)
            next(gen)
        except StopIteration:
            plugin_failed(plugin, hook, "hookwrapper did not yield")
            yield
            return
        except Exception as exc:
            plugin_failed(plugin, hook, exc)
            yield
            return
        setup_ms = (time.perf_counter() - started) * 1000
        outcome = yield
        started = time.perf_counter()
        try:
            gen.send(outcome)
        except StopIteration:
            if tracer is not None:
                ms = setup_ms + (time.perf_counter() - started) * 1000
                answer = describe(outcome.get_result()) if outcome.exception is None else "raised"
                tracer.write(hook, f"hookwrapper={plugin}", ms, answer)
            return
        except Exception as exc:
            plugin_failed(plugin, hook, exc)
            return
        gen.close()
        plugin_failed(plugin, hook, "hookwrapper yielded twice")

    setattr(guarded, GUARDED, True)
    return guarded


def guard_impl(impl: Any, hook: str, tracer: Tracer | None) -> None:
    """Replace ``impl.function`` (a ``pluggy.HookImpl``) with its guard, once."""
    fn = impl.function
    if getattr(fn, GUARDED, False):
        return
    if impl.wrapper:
        guarded = guard_wrapper(fn, hook, impl.plugin_name, tracer)
    elif impl.hookwrapper:
        guarded = guard_hookwrapper(fn, hook, impl.plugin_name, tracer)
    else:
        guarded = guard_plain(fn, hook, impl.plugin_name, tracer)
    # HookImpl.function is typed Final; replacing it after pluggy verified the
    # signature is the point (argnames were read from the original already).
    setattr(impl, "function", guarded)  # noqa: B010
