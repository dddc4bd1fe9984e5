"""Doctor's fast path: the store and embedder figures from the running engine.

Opening Chroma (~1.1 s) and loading the embedding model (~0.4 s) are most of
what ``twiceshy doctor`` costs in a fresh process. When an engine runs for
this data dir, :func:`ask_engine` sends it one ``doctor`` control request
(:mod:`twiceshy.engine.doctor_query`) with a hard deadline and returns its
figures; doctor then does only the cheap file checks itself. Whenever the
engine cannot stand in for a fresh process, the figures are ``None`` with the
reason, and doctor opens the store itself, as it always did:

* no engine runs (one ``stat`` of its socket: nothing is started), it does not
  answer within :data:`ENGINE_TIMEOUT_S`, or it declines (still loading,
  answering from its warm-start cache, another store or embedder configured);
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
from typing import TYPE_CHECKING, Any

from twiceshy.hooks import wire

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.ops.doctor_report import DoctorState

ENGINE_TIMEOUT_S = 2.0  # the whole request; past it doctor opens the store itself
SAME_SECTIONS = ("store", "embedding")  # as twiceshy.engine.doctor_query checks them (not imported: keep it light)
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


def ask_engine(
    state: DoctorState, store_path: str, timeout: float = ENGINE_TIMEOUT_S
) -> tuple[dict[str, Any] | None, str]:
    """``(figures, '')`` from the running engine, or ``(None, why not)``.

    ``figures`` has ``embedder`` (the embedder row's data, plus
    ``hash_fallback``); ``store`` (the store row's data), ``store_problem``
    (what SQLite's check of the store file found) or ``store_error`` (why the
    engine could not read its store); and ``status`` (the engine's ``ping``
    answer). Never raises; never waits past ``timeout``."""
    from twiceshy.base.paths import data_dir

    config = state.config
    if config is None:
        return None, "no configuration"
    if state.full:
        return None, "--full reads every lesson back"
    if config["store"]["mode"] != "embedded":
        return None, "server mode"
    home = str(data_dir())
    try:
        family, address, _token = wire.engine_address(home)
    except (wire.EngineDown, OSError):
        return None, NO_ENGINE
    if family == getattr(wire._socket, "AF_UNIX", None) and not os.path.exists(address):
        return None, NO_ENGINE  # the common case costs one stat
    payload = json.dumps({s: config[s] for s in SAME_SECTIONS}, default=str).encode("utf-8")
    try:
        reply = wire.request(home, "-", "doctor", "ctl", payload, time.monotonic() + timeout)
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
    if not isinstance(figures.get("embedder"), dict) or not isinstance(figures.get("status"), dict):
        return None, "the engine's answer was incomplete"
    store = figures.get("store")
    if not isinstance(store, dict) and not any(
        isinstance(figures.get(k), str) for k in ("store_problem", "store_error")
    ):
        return None, "the engine's answer was incomplete"
    if isinstance(store, dict) and store.get("path") != store_path:
        return None, "the engine has another store open"
    return figures, ""


__all__ = ["DATA_DIR_FAILED", "ENGINE_TIMEOUT_S", "NO_ENGINE", "Pending", "ask_engine"]
