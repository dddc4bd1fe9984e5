"""The one door to a language model: litellm, configured in YAML, fail-open.

``complete(ctx, prompt)`` returns the model's text, or ``None`` when no model
is configured (``llm.model`` unset — every feature then runs on heuristics),
or on any failure, bad answer or timeout. It never raises and never prints.

Guarantees, because this sits on the hook path:

- **Hard wall-clock timeout.** The call runs in a daemon worker thread; the
  caller stops waiting at the deadline whatever litellm does (its own
  ``timeout`` covers the HTTP request, not its import or pre-processing).
- **Bounded retries.** tenacity retries transient provider errors (5xx,
  connection errors, rate limits) with jittered backoff, at most
  ``llm.max_retries`` times, and never starts an attempt or a sleep that
  would cross the deadline. The OpenAI client's own retries are off
  (``max_retries=0``): they ignore our deadline.
- **No network at import, no stdout.** litellm is imported lazily, the first
  time a model is actually used, with ``LITELLM_LOCAL_MODEL_COST_MAP=True``
  set first; ``litellm.suppress_debug_info`` stops its feedback banner,
  which would corrupt a hook's JSON on stdout. The import costs seconds, so
  the engine should call :func:`warm_up` at start (off the request thread).
- **Redaction.** Every prompt passes through :func:`twiceshy.base.redact.redact`
  before it leaves the process.
- The API key is read from the environment variable *named* in
  ``llm.api_key_env``; the key itself never sits in a config file.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.redact import redact

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

# Placeholder key for OpenAI-compatible local servers that need none: the
# OpenAI client refuses to send a request without some key.
NO_KEY = "sk-no-key-required"
# Don't start an attempt with less time than this left: it cannot succeed.
MIN_ATTEMPT_S = 0.05

_import_lock = threading.Lock()
_litellm: Any = None
_import_error: BaseException | None = None
_warm_lock = threading.Lock()
_warming: threading.Thread | None = None


@dataclass
class LLMStats:
    """Counters for ``twiceshy doctor``/``stats``: how often the model was
    asked and how each call ended. Token usage is summed from responses so
    background spend is visible, not hidden."""

    calls: int = 0
    not_ready: int = 0  # hot-path calls answered None while litellm was still importing
    ok: int = 0
    timeouts: int = 0
    errors: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    last_error: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **deltas: int) -> None:
        with self._lock:
            for name, value in deltas.items():
                setattr(self, name, getattr(self, name) + value)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


STATS = LLMStats()


def settings(ctx: EngineContext) -> dict[str, Any]:
    """The ``llm`` config section."""
    return dict(ctx.config["llm"])


def is_configured(ctx: EngineContext) -> bool:
    """True when a model is set; without one every feature uses heuristics."""
    return bool(settings(ctx).get("model"))


def litellm_module() -> Any:
    """Import litellm once, offline and quiet. Raises if it cannot be imported."""
    global _litellm, _import_error
    if _litellm is not None:
        return _litellm
    with _import_lock:
        if _litellm is None:
            if _import_error is not None:
                raise _import_error
            # Before the import: otherwise litellm fetches its cost map online.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            try:
                import litellm
            except BaseException as exc:  # remember: don't pay a failing import twice
                _import_error = exc
                raise
            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            litellm.telemetry = False
            litellm.drop_params = True  # unknown params for a provider are dropped, not errors
            _prime(litellm)
            _litellm = litellm
    return _litellm


def _prime(litellm: Any) -> None:
    """Pay the first completion's lazy imports with the import, off the network.

    litellm's first ``completion`` imports ~100 more modules (prompt utils, its
    HTTP stack): 0.5-3 s on a loaded 2-core box, inside the caller's deadline, so
    the engine's first relevance filter or judge call timed out although the
    import was warmed. A mocked completion (no request) and the HTTP modules
    take that cost here. Best effort: a failure only leaves it to the first call."""
    try:
        litellm.completion(
            model="openai/twiceshy-warm-up",
            messages=[{"role": "user", "content": "warm up"}],
            max_tokens=1,
            mock_response="ok",
            api_key=NO_KEY,
        )
        import h11  # noqa: F401
        import httpcore  # noqa: F401
        import litellm._service_logger  # noqa: F401
    except Exception:
        pass


def is_imported() -> bool:
    return _litellm is not None


def warm_up(ctx: EngineContext | None = None) -> threading.Thread | None:
    """Import litellm in a background daemon thread (only if a model is
    configured). Until it finishes, calls on the hook path simply time out
    into the heuristics instead of stalling the agent for the import."""
    if ctx is not None and not is_configured(ctx):
        return None
    global _warming
    with _warm_lock:
        if is_imported() or (_warming is not None and _warming.is_alive()):
            return None

        def _run() -> None:
            try:
                litellm_module()
            except BaseException as exc:
                record_error("llm.import", exc)

        _warming = threading.Thread(target=_run, name="twiceshy-llm-import", daemon=True)
        _warming.start()
        return _warming


def _api_key(cfg: dict[str, Any]) -> str | None:
    env_name = cfg.get("api_key_env")
    if env_name:
        value = os.environ.get(env_name)
        if value:
            return value
    # A custom api_base (a local server) usually needs no key; let litellm
    # find provider keys (OPENAI_API_KEY, ...) itself otherwise.
    return NO_KEY if cfg.get("api_base") else None


def _is_transient(exc: BaseException) -> bool:
    """Worth another attempt: server errors, connection trouble, rate limits.
    Not: bad requests, auth, unknown model (they fail the same way again)."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status >= 500 or status in (408, 409, 429)
    name = type(exc).__name__
    return any(
        key in name
        for key in (
            "Timeout",
            "APIConnectionError",
            "ServiceUnavailable",
            "InternalServerError",
            "RateLimit",
            "BadGateway",
        )
    )


def _content(response: Any) -> str | None:
    try:
        choice = response.choices[0]
        text = choice.message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        return None
    return text if isinstance(text, str) and text.strip() else None


def _call(cfg: dict[str, Any], messages: list[dict[str, str]], max_tokens: int, deadline: float) -> str | None:
    """Run in the worker thread: import, then attempt with bounded retries."""
    from tenacity import RetryCallState, Retrying, retry_if_exception, wait_exponential, wait_random

    litellm = litellm_module()
    if time.monotonic() >= deadline - MIN_ATTEMPT_S:
        raise TimeoutError("no time left after importing litellm")
    # Exponential backoff from 50 ms, capped at 0.5 s, plus up to 50 ms of jitter (the same curve as
    # wait_exponential_jitter, whose `initial` argument newer tenacity deprecates).
    base_wait = wait_exponential(multiplier=0.05, max=0.5) + wait_random(0, 0.05)

    def wait(state: RetryCallState) -> float:
        return max(0.0, min(base_wait(state), deadline - time.monotonic() - MIN_ATTEMPT_S))

    def stop(state: RetryCallState) -> bool:
        # tenacity computes the sleep before asking stop; stop if the sleep
        # plus a minimal attempt would cross the deadline.
        if state.attempt_number > int(cfg.get("max_retries") or 0):
            return True
        return time.monotonic() + state.upcoming_sleep + MIN_ATTEMPT_S >= deadline

    kwargs: dict[str, Any] = {
        "model": cfg["model"],
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0,
        "max_retries": 0,  # the OpenAI client's retries ignore our deadline
        "num_retries": 0,
    }
    if cfg.get("api_base"):
        kwargs["api_base"] = cfg["api_base"]
    key = _api_key(cfg)
    if key:
        kwargs["api_key"] = key

    def attempt() -> str | None:
        STATS.add(attempts=1)
        remaining = deadline - time.monotonic()
        if remaining < MIN_ATTEMPT_S:
            raise TimeoutError("deadline reached before the attempt")
        response = litellm.completion(timeout=remaining, **kwargs)
        usage = getattr(response, "usage", None)
        if usage is not None:
            STATS.add(
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            )
        return _content(response)

    retrying = Retrying(retry=retry_if_exception(_is_transient), stop=stop, wait=wait, reraise=True, sleep=time.sleep)
    return retrying(attempt)


def complete(
    ctx: EngineContext,
    prompt: str,
    max_tokens: int = 32,
    timeout: float | None = None,
    system: str | None = None,
    where: str = "llm",
    on_hot_path: bool = False,
) -> str | None:
    """Ask the configured model; ``None`` if none is configured or on any failure.

    ``timeout`` (seconds, default ``llm.timeout_s``) bounds the whole call,
    retries and backoff included, by the wall clock. ``where`` labels errors
    in the error log (e.g. ``"ranking"``, ``"judge"``).

    litellm's import (seconds) is paid before the deadline starts — except
    ``on_hot_path``: then, until the import is done (see :func:`warm_up`),
    the call starts it in the background and returns ``None`` at once.
    """
    try:
        cfg = settings(ctx)
        if not cfg.get("model"):
            return None
        if not is_imported():
            if on_hot_path:
                warm_up()
                STATS.add(not_ready=1)
                return None
            litellm_module()
        limit = float(timeout if timeout is not None else cfg.get("timeout_s") or 1.5)
        deadline = time.monotonic() + limit
        messages = []
        if system:
            messages.append({"role": "system", "content": redact(system)})
        messages.append({"role": "user", "content": redact(prompt)})
    except Exception as exc:
        record_error(f"{where}.llm", exc)
        return None

    STATS.add(calls=1)
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["text"] = _call(cfg, messages, max_tokens, deadline)
        except BaseException as exc:
            box["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=run, name="twiceshy-llm-call", daemon=True)
    worker.start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        # Stop waiting; the thread ends on its own (its HTTP timeout is the
        # same deadline), its result is dropped.
        STATS.add(timeouts=1)
        STATS.last_error = f"timeout after {limit:.2f}s"
        record_error(f"{where}.llm", f"timeout after {limit:.2f}s", model=cfg.get("model"))
        return None
    if "error" in box:
        failure = box["error"]
        if "Timeout" in type(failure).__name__:
            STATS.add(timeouts=1)
        else:
            STATS.add(errors=1)
        STATS.last_error = f"{type(failure).__name__}: {str(failure)[:200]}"
        record_error(f"{where}.llm", failure, model=cfg.get("model"))
        return None
    text = box.get("text")
    if text is None:
        STATS.add(errors=1)
        STATS.last_error = "empty or malformed answer"
        record_error(f"{where}.llm", "empty or malformed answer", model=cfg.get("model"))
        return None
    STATS.add(ok=1)
    return text
