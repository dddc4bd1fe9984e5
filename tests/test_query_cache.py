"""The embedder keeps the vectors of recent single texts (issue 18): an agent
runs ``npm test`` or ``pytest -q`` many times a session, and each model run is
most of a searched hook call's time in the engine.

Real model, real onnxruntime; the engine test runs the real hook client
against a real engine on a real Chroma store.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import reliability_kit as kit
from twiceshy.engine import server as engine_mod
from twiceshy.memory import embedding
from twiceshy.memory.embedding import MiniLMEmbedder


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_a_repeated_text_gets_the_vector_the_model_gives(embedder: MiniLMEmbedder) -> None:
    text = "npm test -- --watch=false"
    hits = embedder.recent_hits
    first = embedder.embed([text])[0]
    assert embedder.recent_hits == hits  # the first time, the model ran
    again = embedder.embed([text])[0]
    assert embedder.recent_hits == hits + 1
    assert again == first
    fresh = MiniLMEmbedder().embed([text])[0]  # another session, no cache: the same point
    assert np.array_equal(np.asarray(fresh, np.float32), np.asarray(first, np.float32))


def test_a_caller_changing_its_vector_does_not_change_the_cache(embedder: MiniLMEmbedder) -> None:
    text = "pytest -q tests/test_api.py"
    first = embedder.embed([text])[0]
    kept = list(first)
    first[0] = 42.0
    assert embedder.embed([text])[0] == kept


def test_the_cache_is_bounded_and_forgets_the_oldest(embedder: MiniLMEmbedder, monkeypatch) -> None:
    monkeypatch.setattr(embedding, "RECENT_QUERIES", 3)
    for n in range(5):
        embedder.embed([f"make target{n}"])
    assert len(embedder._recent) == 3
    hits = embedder.recent_hits
    embedder.embed(["make target4"])  # recent: kept
    assert embedder.recent_hits == hits + 1
    embedder.embed(["make target0"])  # the oldest: forgotten, embedded again
    assert embedder.recent_hits == hits + 1


def test_long_texts_and_batches_are_not_kept(embedder: MiniLMEmbedder) -> None:
    long_text = "x = 1\n" * (embedding.RECENT_MAX_CHARS // 6 + 10)  # an edit's file content
    embedder.embed([long_text])
    assert long_text not in embedder._recent
    embedder.embed(["cargo build --release", "cargo test"])  # a batch (a session end's lessons)
    assert "cargo build --release" not in embedder._recent


def test_the_engine_answers_a_repeated_command_from_the_cache(tmp_path: Path) -> None:
    """Two identical pre-tool calls through the hook client: the second
    search's query vector comes from the cache, and it warns exactly as the
    first did (the vector is the same)."""
    home = tmp_path / "home"
    env = kit.env_for(home, TWICESHY_EMBEDDING__BACKEND="minilm")
    kit.seed_lessons(home, env, [("Never rm -rf the build dir; run make clean", "rm -rf build")])
    proc = kit.start_engine(home, env)
    try:

        def pre_tool(session: str) -> str:
            payload = kit.pre_tool_payload(session, "rm -rf ./build")
            return kit.hook(home, "PreToolUse", payload, env, budget_ms=kit.REPLAY_BUDGET_MS).stdout.decode()

        def cache_hits() -> int:
            status = kit.wait_for(lambda: (engine_mod.call(home, "ping", timeout=20) or {}).get("ready") and 1)
            assert status, "the engine never became ready"
            return int((engine_mod.call(home, "ping", timeout=20) or {})["query_cache_hits"])

        before = cache_hits()
        first = pre_tool("s1")
        assert cache_hits() == before  # a text the engine had not seen: the model ran
        second = pre_tool("s2")  # another session: the lesson is new to it as well
        assert cache_hits() == before + 1
        assert "make clean" in first
        assert second == first
    finally:
        kit.stop_engine(home, proc)
