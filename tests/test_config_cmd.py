"""``twiceshy config`` (show with sources, set, edit, path) and the LLM recipes
of docs/llm.md, each run against a local fake of that provider's API on
127.0.0.1 through litellm (``twiceshy.brain.llm``), and doctor's 3 s bound."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from twiceshy.ops.cli import build_cli

REPO = Path(__file__).resolve().parent.parent


def config(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(build_cli(), ["config", *args], env=env, catch_exceptions=False)


# ---------------------------------------------------------------- show / set / edit / path


def test_show_names_every_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert config("set", "llm.model", "ollama/llama3.2").exit_code == 0
    (project / ".twiceshy.yaml").write_text("retrieval:\n  top_k: 4\nllm:\n  model: evil/model\n", encoding="utf-8")
    monkeypatch.setenv("TWICESHY_LLM__TIMEOUT_S", "2.5")
    result = config("show", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["key"]: r for r in json.loads(result.stdout)}
    assert rows["store.mode"]["source"] == "default"
    assert rows["llm.model"]["value"] == "ollama/llama3.2" and rows["llm.model"]["source"].startswith("user file")
    assert "ignored from" in rows["llm.model"]["note"]  # untrusted project may not pick the model
    assert rows["retrieval.top_k"]["value"] == 4 and rows["retrieval.top_k"]["source"].startswith("project file")
    assert rows["llm.timeout_s"] == {
        "key": "llm.timeout_s",
        "value": 2.5,
        "source": "environment TWICESHY_LLM__TIMEOUT_S",
        "note": "",
    }
    trusted = CliRunner().invoke(build_cli(), ["trust", str(project)], catch_exceptions=False)
    assert trusted.exit_code == 0, trusted.output
    rows = {r["key"]: r for r in json.loads(config("show", "--json").stdout)}
    assert rows["llm.model"]["value"] == "evil/model" and "(trusted)" in rows["llm.model"]["source"]
    text = config("show").output
    assert "llm.model" in text and "(environment TWICESHY_LLM__TIMEOUT_S)" in text


def test_set_checks_keys_and_values_and_masks_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    bad_key = config("set", "llm.nope", "x")
    assert bad_key.exit_code == 2 and "unknown key 'llm.nope'" in bad_key.output
    bad_value = config("set", "llm.timeout_s", "soon")
    assert bad_value.exit_code == 2 and "must be a number" in bad_value.output
    assert config("set", "store.headers", "X-Token: s3cret").exit_code == 0
    shown = config("show").output
    assert "s3cret" not in shown and "X-Token: ***" in shown
    assert config("set", "llm.api_base", "null").exit_code == 0
    project = config("set", "retrieval.top_k", "3", "--project")
    assert project.exit_code == 0 and (tmp_path / ".twiceshy.yaml").is_file()
    needs_trust = config("set", "llm.model", "openai/x", "--project")
    assert needs_trust.exit_code == 0 and "needs `twiceshy trust" in needs_trust.output


def test_edit_checks_the_file_and_keeps_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert config("set", "llm.model", "openai/gpt-4o-mini").exit_code == 0
    user_file = Path(os.environ["TWICESHY_CONFIG_DIR"]) / "config.yaml"
    before = user_file.read_text(encoding="utf-8")
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'a').write('llm:\\n  bogus_key: 1\\n')\n", encoding="utf-8")
    result = config("edit", env={"EDITOR": f"{sys.executable} {editor}", "VISUAL": ""})
    assert result.exit_code == 1 and "unknown key llm.bogus_key" in result.output
    assert user_file.read_text(encoding="utf-8") == before  # the broken edit was put back
    good = tmp_path / "good.py"
    good.write_text("import sys\nopen(sys.argv[1], 'w').write('llm:\\n  timeout_s: 4\\n')\n", encoding="utf-8")
    assert config("edit", env={"EDITOR": f"{sys.executable} {good}", "VISUAL": ""}).exit_code == 0
    assert "timeout_s: 4" in user_file.read_text(encoding="utf-8")
    paths = config("path").output
    assert str(user_file) in paths and os.environ["TWICESHY_HOME"] in paths


# ---------------------------------------------------------------- provider fakes


class ProviderFake(BaseHTTPRequestHandler):
    """Answers ``OK`` in the shape of each provider's API; records path and auth headers."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.server.seen.append(
            {
                "path": self.path,
                "auth": self.headers.get("Authorization"),
                "x-api-key": self.headers.get("x-api-key"),
                "model": body.get("model"),
            }
        )
        if self.server.delay:
            time.sleep(self.server.delay)
        if self.path.endswith("/chat/completions"):  # OpenAI and every OpenAI-compatible server
            out: dict[str, Any] = {
                "id": "c1",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            }
        elif self.path.endswith("/messages"):  # Anthropic
            out = {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": body.get("model"),
                "content": [{"type": "text", "text": "OK"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1},
            }
        elif self.path.endswith("/api/generate"):  # Ollama
            out = {"model": body.get("model"), "created_at": "2026-01-01T00:00:00Z", "response": "OK", "done": True}
        elif self.path.endswith("/api/chat"):  # Ollama chat
            out = {
                "model": body.get("model"),
                "created_at": "2026-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": "OK"},
                "done": True,
            }
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def provider() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), ProviderFake)
    server.block_on_close = False  # teardown does not wait out a delayed answer's sleep
    server.seen = []  # type: ignore[attr-defined]
    server.delay = 0.0  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


# The recipes of docs/llm.md: (name, llm.model, api_base suffix, key env, path the provider gets, auth header)
RECIPES = [
    ("ollama", "ollama/llama3.2", "", None, "/api/generate", None),
    ("ollama-chat", "ollama_chat/llama3.2", "", None, "/api/chat", None),
    ("openai", "openai/gpt-4o-mini", "/v1", "OPENAI_API_KEY", "/v1/chat/completions", ("auth", "Bearer sk-test")),
    ("anthropic", "anthropic/claude-3-5-haiku-latest", "", "ANTHROPIC_API_KEY", "/v1/messages", ("x-api-key", "sk-test")),
    ("openai-compatible", "openai/qwen2.5-coder", "/v1", "LOCAL_LLM_KEY", "/v1/chat/completions", ("auth", "Bearer sk-test")),
]  # fmt: skip


@pytest.mark.parametrize("recipe", RECIPES, ids=[r[0] for r in RECIPES])
def test_llm_recipe_answers_through_litellm(
    recipe: tuple[Any, ...], provider: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from twiceshy.brain import llm
    from twiceshy.engine.context import make_context

    _, model, suffix, key_env, path, auth = recipe
    monkeypatch.chdir(tmp_path)
    base = f"http://127.0.0.1:{provider.server_address[1]}{suffix}"
    assert config("set", "llm.model", model).exit_code == 0
    assert config("set", "llm.api_base", base).exit_code == 0
    if key_env:
        monkeypatch.setenv(key_env, "sk-test")
        assert config("set", "llm.api_key_env", key_env).exit_code == 0
    answer = llm.complete(make_context(tmp_path), "Reply with the single word OK.", max_tokens=3, timeout=20)
    assert answer is not None and answer.strip() == "OK", llm.STATS.last_error
    # litellm may ask more than the completion (ollama: /api/show for the model's
    # details, from a background thread, before or after it): find the completion.
    completions = [seen for seen in provider.seen if seen["path"] == path]
    assert completions, provider.seen
    if auth:
        assert completions[-1][auth[0]] == auth[1]


def test_doctor_bounds_the_model_check_to_3_s(provider: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from twiceshy.brain import llm
    from twiceshy.ops.doctor import MODEL_CHECK_BOUND_S, run_checks

    monkeypatch.chdir(tmp_path)
    llm.litellm_module()  # the import is not part of the bound
    assert config("set", "llm.model", "openai/slow").exit_code == 0
    assert config("set", "llm.api_base", f"http://127.0.0.1:{provider.server_address[1]}/v1").exit_code == 0
    # Far slower than the bound, so the whole doctor run (its other checks take
    # seconds on a loaded box: 8 s left ~4 s for them) still proves it did not wait.
    provider.delay = 30.0
    started = time.monotonic()
    report = run_checks(tmp_path, check_model=True)
    model = next(c for c in report.checks if c.name == "model")
    took = time.monotonic() - started
    assert MODEL_CHECK_BOUND_S == 3.0
    assert model.level == "fail" and "within 3 s" in model.detail
    assert took < 20.0  # did not wait for the slow provider


def test_doctor_says_how_to_install_litellm_when_it_is_missing(tmp_path: Path) -> None:
    import subprocess

    # litellm is the optional [llm] extra: hide it (as an install without the extra) in a subprocess.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'litellm' or name.startswith('litellm.'):\n"
        "            raise ImportError('No module named litellm (hidden by the test)')\n"
        "sys.meta_path.insert(0, _Hide())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(site), "TWICESHY_LLM__MODEL": "ollama/llama3.2"}
    proc = subprocess.run(
        [sys.executable, "-m", "twiceshy", "doctor", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    assert checks["model"]["level"] == "fail"
    assert "litellm cannot be imported" in checks["model"]["detail"]
    assert "twiceshy[llm]" in checks["model"]["fix"]
