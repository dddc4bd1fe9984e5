"""The litellm wrapper against a real HTTP server on 127.0.0.1: answers,
timeouts, 5xx, garbage — every failure returns None, within the deadline."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from llm_server import FakeLLMServer, llm_env, warm_litellm
from twiceshy.base.errorlog import recent_errors
from twiceshy.brain import llm
from twiceshy.engine.context import make_context


@pytest.fixture(scope="module", autouse=True)
def litellm_imported():
    # Import once up front (~5 s) and make a first call (its lazy client set-up):
    # the engine imports at start, off the request path; these tests time
    # calls, not the import.
    warm_litellm()


@pytest.fixture
def server():
    with FakeLLMServer([("answer", "1")]) as srv:
        yield srv


def llm_ctx(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: FakeLLMServer, **overrides):
    overrides.setdefault("timeout_s", 10.0)  # generous: a loaded CI box must not flake the answer paths
    for name, value in llm_env(server, **overrides).items():
        monkeypatch.setenv(name, value)
    return make_context(tmp_path)


def test_no_model_means_none_and_no_litellm_import(tmp_path: Path) -> None:
    # In a fresh process: with no model configured nothing imports litellm.
    code = textwrap.dedent(
        """
        import sys
        from twiceshy.engine.context import make_context
        from twiceshy.brain import llm
        ctx = make_context()
        print(llm.is_configured(ctx), llm.complete(ctx, "hello"), "litellm" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "None", "False"]


def test_import_is_offline_and_quiet(tmp_path: Path) -> None:
    # Any socket connect during `import litellm` would be a network fetch.
    code = textwrap.dedent(
        """
        import socket, os
        calls = []
        real = socket.socket.connect
        def guard(self, addr):
            calls.append(addr)
            raise OSError("network disabled in test")
        socket.socket.connect = guard
        os.environ.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)
        from twiceshy.brain import llm
        mod = llm.litellm_module()
        print(os.environ["LITELLM_LOCAL_MODEL_COST_MAP"], mod.suppress_debug_info, len(calls))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["True", "True", "0"], out.stdout + out.stderr


def test_import_pays_the_first_calls_lazy_imports(tmp_path: Path) -> None:
    # litellm's first completion imported ~100 more modules (0.5-3 s on a loaded
    # box) inside the caller's deadline; the import now takes them, offline.
    code = textwrap.dedent(
        """
        import socket, sys
        sys.path.insert(0, sys.argv[1])
        from llm_server import FakeLLMServer
        connects = []
        real = socket.socket.connect
        def watch(self, addr):
            connects.append(addr)
            return real(self, addr)
        socket.socket.connect = watch
        from twiceshy.brain import llm
        mod = llm.litellm_module()
        offline = len(connects)
        before = set(sys.modules)
        with FakeLLMServer([("answer", "OK")]) as srv:
            out = mod.completion(model="openai/test-model", api_base=srv.api_base, api_key="sk-x",
                                 messages=[{"role": "user", "content": "hi"}], max_tokens=3, timeout=60)
        print(offline, out.choices[0].message.content, len(set(sys.modules) - before))
        print(sorted(set(sys.modules) - before))
        """
    )
    tests_dir = str(Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", code, tests_dir], capture_output=True, text=True, timeout=180, check=True
    )
    offline, answer, new_modules = out.stdout.splitlines()[0].split()
    assert offline == "0" and answer == "OK", out.stdout + out.stderr
    assert int(new_modules) <= 5, out.stdout  # was 99


def test_answer_uses_config_and_key_from_named_env(monkeypatch, tmp_path, server) -> None:
    server.set_script([("answer", "2, 3")])
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    assert llm.complete(ctx, "which apply?", max_tokens=7, system="be brief") == "2, 3"
    body = server.requests[-1]
    assert body["model"] == "test-model"
    assert body["max_tokens"] == 7
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert {k.lower(): v for k, v in server.headers[-1].items()}[
        "authorization"
    ] == "Bearer sk-test-key-for-the-fake-server-0001"


def test_slow_answer_past_timeout_returns_none_on_time(monkeypatch, tmp_path, server) -> None:
    server.set_script([("slow", 3.0, "too late")])
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=0.6)
    start = time.monotonic()
    assert llm.complete(ctx, "hello") is None
    elapsed = time.monotonic() - start
    # Never before the deadline; well before the 3 s answer (slack for a loaded box).
    assert 0.55 <= elapsed < 2.0, elapsed
    assert any(e["where"] == "llm.llm" for e in recent_errors())


def test_hard_timeout_holds_when_litellm_itself_stalls(monkeypatch, tmp_path, server) -> None:
    # A stall that litellm's own HTTP timeout does not cover (pre-processing,
    # a hung DNS lookup ...): the caller still gets None at the deadline.
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=0.3)
    monkeypatch.setattr(llm.litellm_module(), "completion", lambda **kw: time.sleep(3))
    start = time.monotonic()
    assert llm.complete(ctx, "hello") is None
    elapsed = time.monotonic() - start
    assert 0.28 <= elapsed < 2.0, elapsed  # the stall is 3 s


def test_hot_path_never_waits_for_the_import(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    real = llm.litellm_module()
    monkeypatch.setattr(llm, "_litellm", None)  # as if not imported yet
    with llm._import_lock:  # and the import is slow
        start = time.monotonic()
        assert llm.complete(ctx, "hello", on_hot_path=True) is None
        # Waiting for the import would hang here (the test holds its lock).
        assert time.monotonic() - start < 1.0
    deadline = time.monotonic() + 10
    while not llm.is_imported() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert llm._litellm is real  # the background warm-up finished the import
    assert llm.complete(ctx, "hello", on_hot_path=True) == "1"
    assert len(server.requests) == 1


def test_500s_are_retried_at_most_max_retries(monkeypatch, tmp_path, server) -> None:
    server.set_script([("500",)])
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=10.0, max_retries=2)
    assert llm.complete(ctx, "hello") is None
    assert len(server.requests) == 3  # 1 + max_retries


def test_retry_then_success(monkeypatch, tmp_path, server) -> None:
    server.set_script([("500",), ("answer", "IGNORED")])
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    assert llm.complete(ctx, "hello") == "IGNORED"
    assert len(server.requests) == 2


def test_retries_never_cross_the_deadline(monkeypatch, tmp_path, server) -> None:
    # Each attempt takes 0.35 s and fails; with 10 retries allowed and a
    # 1.0 s budget, the total must still end by the deadline.
    server.set_script([("slow500", 0.35)])
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=1.0, max_retries=10)
    # Where each attempt starts, seen by the client: the server's arrival times
    # add litellm's request building and the HTTP hop, which a loaded box stretches
    # past the deadline although the attempt began before it (a CI flake).
    attempts: list[tuple[float, float]] = []
    real_completion = llm.litellm_module().completion

    def timed_completion(**kwargs):
        attempts.append((time.monotonic(), float(kwargs["timeout"])))
        return real_completion(**kwargs)

    monkeypatch.setattr(llm.litellm_module(), "completion", timed_completion)
    start = time.monotonic()
    assert llm.complete(ctx, "hello") is None
    elapsed = time.monotonic() - start
    assert elapsed < 2.5, elapsed  # unbounded, 11 attempts of 0.35 s would take ~4 s
    # An attempt begun just before the deadline may reach the server later or never.
    assert 1 <= len(attempts) <= 3 and len(server.requests) <= len(attempts)
    # No attempt started after the deadline, and each one's HTTP timeout is what
    # is left of the call's 1 s, not a fresh second (0.3 s: scheduling slack).
    assert all(timeout >= llm.MIN_ATTEMPT_S for _, timeout in attempts), attempts
    assert all(at + timeout - start < 1.3 for at, timeout in attempts), (start, attempts)


def test_auth_errors_are_not_retried(monkeypatch, tmp_path, server) -> None:
    server.set_script([("401",)])
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=3.0)
    assert llm.complete(ctx, "hello") is None
    assert len(server.requests) == 1


@pytest.mark.parametrize("mode", [("garbage",), ("empty",), ("answer", "   ")])
def test_garbage_and_empty_answers_are_none(monkeypatch, tmp_path, server, mode) -> None:
    server.set_script([mode])
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=2.0, max_retries=0)
    assert llm.complete(ctx, "hello") is None


def test_failures_print_nothing_to_stdout(monkeypatch, tmp_path, server, capfd) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server, timeout_s=2.0, max_retries=0)
    capfd.readouterr()
    for mode in [("500",), ("garbage",), ("401",)]:
        server.set_script([mode])
        assert llm.complete(ctx, "hello") is None
    assert capfd.readouterr().out == ""


def test_connection_refused_is_none(monkeypatch, tmp_path) -> None:
    srv = FakeLLMServer()
    port_base = srv.api_base
    srv._httpd.server_close()  # nothing listens there any more
    monkeypatch.setenv("TWICESHY_LLM__MODEL", "openai/test-model")
    monkeypatch.setenv("TWICESHY_LLM__API_BASE", port_base)
    monkeypatch.setenv("TWICESHY_LLM__TIMEOUT_S", "1.0")
    ctx = make_context(tmp_path)
    start = time.monotonic()
    assert llm.complete(ctx, "hello") is None
    assert time.monotonic() - start < 3.0  # bounded by the 1 s deadline (slack for a loaded box)


def test_prompts_are_redacted_before_sending(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    secret = "sk-proj-PLANTEDsecretVALUE1234567890"
    assert llm.complete(ctx, f"run: OPENAI_API_KEY={secret} python app.py", system=f"db postgres://u:{secret}@h/d")
    raw = b"".join(server.raw_bodies).decode()
    assert secret not in raw and "PLANTED" not in raw
    assert "[REDACTED]" in json.dumps(server.requests[-1])


def test_stats_count_calls(monkeypatch, tmp_path, server) -> None:
    ctx = llm_ctx(monkeypatch, tmp_path, server)
    before = llm.STATS.as_dict()
    llm.complete(ctx, "hello")
    after = llm.STATS.as_dict()
    assert after["calls"] == before["calls"] + 1 and after["ok"] == before["ok"] + 1
    assert after["prompt_tokens"] > before["prompt_tokens"]
