"""Doctor's fast path: the store, embedder and hold index figures from the running engine.

Opening Chroma (~1.1 s) and loading the embedding model (~0.4 s) are most of
what ``twiceshy doctor`` costs in a fresh process. When an engine runs for
this data dir, :func:`ask_engine` sends it one ``doctor`` control request
(:mod:`twiceshy.engine.doctor_query`) with a hard deadline and returns its
figures (the lesson counts and read-back, SQLite's check of the store file,
the embedder, and the hold index shards, which cost O(lessons) to parse);
doctor then does only the cheap file checks itself. The CLI's entry point
sends the request before click and the plugins load (:func:`prefetch`), so
the engine's work overlaps theirs. Whenever the engine cannot stand in for a
fresh process, the figures are ``None`` with the reason, and doctor opens the
store itself, as it always did:

* no engine runs (one ``stat`` of its socket: nothing is started), it does not
  answer within :data:`ENGINE_TIMEOUT_S`, or it declines (still loading,
  answering from its warm-start cache); it runs with another store or
  embedder configuration than doctor's (:func:`accept`);
* ``--full`` (every lesson read back: the thorough, slow check);
* the data dir check failed (a full or read-only disk: the engine's open store
  would hide what a new command meets when it opens the store; doctor
  discards the figures, :data:`DATA_DIR_FAILED`);
* the store is a Chroma server (doctor checks the server itself).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.hooks import wire

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.ops.doctor_report import DoctorState

ENGINE_TIMEOUT_S = 2.0  # the whole request; past it doctor opens the store itself
SAME_SECTIONS = ("store", "embedding")  # the configuration that decides which store and embedder doctor means
NO_ENGINE = "no engine running"
DATA_DIR_FAILED = "the data dir check failed: the store is opened as a new command would open it"


class Pending:
    """One call run on a daemon thread while doctor does its other checks
    (the engine's answer and SQLite's check of the store file wait on I/O)."""

    def __init__(self, name: str, fn: Callable[..., Any], *args: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, args), name=f"twiceshy-doctor-{name}", daemon=True)
        self._thread.start()

    def _run(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # re-raised in the thread that asks for the result
            self._error = exc

    def result(self, timeout: float | None = None) -> Any:
        """The call's return value (its exception re-raised); TimeoutError past ``timeout``."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError(f"{self._thread.name} still running after {timeout} s")
        if self._error is not None:
            raise self._error
        return self._value


def _listening(home: str) -> bool:
    """Might an engine answer for ``home``? One ``stat`` for the usual Unix socket."""
    try:
        family, address, _token = wire.engine_address(home)
    except (wire.EngineDown, OSError):
        return False
    return family != getattr(wire._socket, "AF_UNIX", None) or os.path.exists(address)


def _engine_here(home: str) -> Any:
    """The engine of ``home`` when it runs in this process (None in a CLI process)."""
    import sys

    server = sys.modules.get("twiceshy.engine.server")  # never imported here just to find out
    engine = server.current_engine() if server is not None else None
    if engine is None or wire.norm_home(str(engine.paths.home)) != wire.norm_home(home):
        return None
    return engine


def request_figures(home: str, timeout: float = ENGINE_TIMEOUT_S) -> tuple[dict[str, Any] | None, str]:
    """The engine's ``doctor`` answer for ``home`` as sent (checked for shape, not
    yet against doctor's configuration: :func:`accept`), or ``(None, why not)``."""
    here = _engine_here(home)
    if here is not None:  # doctor run by the engine itself (a read it answers for the CLI)
        from twiceshy.engine.doctor_query import answer

        reply: tuple[int, bytes, bytes] | None = (0, json.dumps(answer(here, b"{}"), default=str).encode(), b"")
    else:
        if not _listening(home):
            return None, NO_ENGINE
        try:
            reply = wire.request(home, "-", "doctor", "ctl", b"{}", time.monotonic() + timeout)
        except wire.EngineDown:
            return None, NO_ENGINE
        except TimeoutError:
            return None, f"the engine did not answer within {timeout:g} s"
        except OSError as exc:  # refused, reset, not ready
            return None, f"the engine could not be asked ({type(exc).__name__})"
    if reply is None:
        return None, "the engine's answer was malformed"
    try:
        figures = json.loads(reply[1] or b"{}")
    except ValueError:
        return None, "the engine's answer was not JSON"
    if not isinstance(figures, dict):
        return None, "the engine's answer was malformed"
    if figures.get("declined"):
        return None, f"the engine declined ({figures['declined']})"
    if "error" in figures:  # an engine from before this request existed
        return None, "the engine does not answer doctor's request (restart it: twiceshy engine stop)"
    if not all(isinstance(figures.get(k), dict) for k in ("embedder", "status", "config")):
        return None, "the engine's answer was incomplete"
    if not isinstance(figures.get("store"), dict) and not any(
        isinstance(figures.get(k), str) for k in ("store_problem", "store_error")
    ):
        return None, "the engine's answer was incomplete"
    return figures, ""


def accept(figures: dict[str, Any], config: Any, store_path: str) -> tuple[dict[str, Any] | None, str]:
    """``figures`` when they are the ones doctor would find itself: the same store
    and embedder configured (``config``), the same store folder; else why not."""
    theirs = figures["config"]
    for section in SAME_SECTIONS:
        mine = json.dumps(config[section], sort_keys=True, default=str)
        if json.dumps(theirs.get(section), sort_keys=True, default=str) != mine:
            return None, f"the engine runs with another {section} configuration"
    store = figures.get("store")
    if isinstance(store, dict) and store.get("path") != store_path:
        return None, "the engine has another store open"
    return figures, ""


_prefetched: tuple[str, Pending] | None = None  # (data dir, the request) sent by prefetch()


def prefetch(argv: list[str], home: str) -> None:
    """Called by the CLI's entry point for ``twiceshy doctor`` before click and the
    plugins load (~0.1 s): the engine works out its figures meanwhile, and
    :func:`ask_engine` takes its answer. Does nothing for ``--full`` or ``--help``
    (or when no engine listens); never raises."""
    global _prefetched
    if "--full" in argv or "--help" in argv:
        return
    try:
        if _listening(home):
            _prefetched = (wire.norm_home(home), Pending("prefetch", request_figures, home, ENGINE_TIMEOUT_S))
    except Exception:  # noqa: BLE001 - doctor then asks in its own time
        _prefetched = None


def _take_prefetched(home: str) -> Pending | None:
    global _prefetched
    taken, _prefetched = _prefetched, None
    if taken is None or taken[0] != wire.norm_home(home):
        return None
    return taken[1]


def ask_engine(
    state: DoctorState, store_path: str, timeout: float = ENGINE_TIMEOUT_S
) -> tuple[dict[str, Any] | None, str]:
    """``(figures, '')`` from the running engine, or ``(None, why not)``.

    ``figures`` has ``embedder`` (the embedder row's data, plus
    ``hash_fallback``); ``store`` (the store row's data), ``store_problem``
    (what SQLite's check of the store file found) or ``store_error`` (why the
    engine could not read its store); ``status`` (the engine's ``ping``
    answer); ``config`` (its store and embedding sections). The request sent
    by :func:`prefetch`, if any, is the one answered. Never raises; never
    waits past ``timeout`` (twice that when a prefetched request is taken)."""
    from twiceshy.base.paths import data_dir

    config = state.config
    if config is None:
        return None, "no configuration"
    if state.full:
        return None, "--full reads every lesson back"
    if config["store"]["mode"] != "embedded":
        return None, "server mode"
    home = str(data_dir())
    pending = _take_prefetched(home)
    if pending is not None:
        try:
            figures, note = pending.result(timeout + 1.0)
        except Exception:  # noqa: BLE001 - cannot happen (request_figures does not raise): ask again
            figures, note = request_figures(home, timeout)
    else:
        figures, note = request_figures(home, timeout)
    if figures is None:
        return None, note
    return accept(figures, config, store_path)


def store_path_of(config: Any) -> Path:
    """The embedded store's folder for ``config`` (as the engine's context opens it)."""
    from twiceshy.base.paths import store_dir

    raw = config["store"]["path"]
    return Path(raw).expanduser() if raw else store_dir()


def start(state: DoctorState) -> None:
    """Once the config is known: ask the engine on a thread (doctor's file checks run
    meanwhile); :func:`figures_for` takes its answer."""
    assert state.config is not None
    state.pending["engine"] = Pending("engine", ask_engine, state, str(store_path_of(state.config)))


def figures_for(state: DoctorState) -> dict[str, Any] | None:
    """The running engine's figures for this doctor run, asked once (None, with the
    reason in ``state.engine_note``, when doctor finds them itself)."""
    if not state.engine_asked:
        assert state.config is not None
        state.engine_asked = True
        pending = state.pending.get("engine")
        try:
            if pending is not None:  # asked in the background since the config check
                figures, note = pending.result(2 * ENGINE_TIMEOUT_S + 2.0)
            else:
                figures, note = ask_engine(state, str(store_path_of(state.config)))
        except Exception as exc:  # never: ask_engine does not raise; the figures are then doctor's own
            figures, note = None, f"asking the engine failed ({type(exc).__name__})"
        if figures is not None and "data dir" in state.failed:
            figures, note = None, DATA_DIR_FAILED
        state.engine_figures, state.engine_note = figures, note
    return state.engine_figures


__all__ = [
    "DATA_DIR_FAILED",
    "ENGINE_TIMEOUT_S",
    "NO_ENGINE",
    "Pending",
    "accept",
    "ask_engine",
    "figures_for",
    "prefetch",
    "request_figures",
    "start",
    "store_path_of",
]
