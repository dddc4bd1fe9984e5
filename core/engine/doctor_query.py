"""The figures ``twiceshy doctor`` needs from an open store and a loaded embedder.

Doctor's store and embedder checks cost a fresh process ~1.5 s: chromadb's
import and client, the ONNX model. The running engine has both open, so when
it is up, doctor sends it a ``doctor`` control request and this module
answers it (:func:`answer`, called by the engine's control dispatch). Doctor
also runs :func:`store_figures` itself when no engine answers, so either way
the figures come from one implementation.

An answer is declined (``{"declined": reason}``), and doctor opens the store
itself as before, while the engine's figures could differ from the ones a
fresh process would find: the engine is still loading or answers from its
warm-start cache. The reply names the engine's store and embedding
configuration; doctor uses the figures only when its own is the same.
"""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Tier
from twiceshy.memory.integrity import probe_store_file

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.server import Engine

SAMPLE_PAGE = 100  # lessons read back per sampled page (doctor without --full)
PROBE_TEXTS = ("git push --force origin main", "twiceshy doctor probe")  # two: the model runs, no cache
STORE_PART_S = 1.5  # the store's figures past this: declined (doctor's deadline for the whole answer is 2 s)
#: Config sections that decide which store and which embedder doctor means.
SAME_SECTIONS = ("store", "embedding")


def tier_counts(store: Any) -> dict[str, int]:
    """Lessons per tier from the metadata indexes (:mod:`twiceshy.memory.census`):
    no lesson is read. A lesson without a tier counts as raw (as ``stats`` says)."""
    from twiceshy.memory.census import open_census

    with open_census(store, ("tier",)) as census:
        total = census.size()
        by_tier = census.tally("tier")
    tiers = {t.label: int(by_tier.get(int(t), 0)) for t in Tier}
    tiers[Tier.RAW.label] += max(0, total - sum(tiers.values()))
    return tiers


def read_back(store: Any, total: int, full: bool) -> int:
    """Read lessons back as the commands do (documents and metadata into lessons):
    every one with ``full``, else the first page and one at a random offset, so
    the check costs the same at 100 and at 100,000 lessons. Raises on a bad row."""
    if full:
        return sum(len(page) for page in store.iter_pages())
    offsets = {0}
    if total > SAMPLE_PAGE:
        offsets.add(random.randrange(SAMPLE_PAGE, total))
    read = 0
    for offset in sorted(offsets):
        read += len(next(iter(store.iter_pages(page=SAMPLE_PAGE, offset=offset)), []))
    return read


def store_figures(store: Any, where: str, full: bool = False) -> dict[str, Any]:
    """What doctor's ``store`` row shows (its ``data``): counts per tier and a read-back."""
    tiers = tier_counts(store)
    total = sum(tiers.values())
    read = read_back(store, total, full) if hasattr(store, "iter_pages") else 0
    return {
        "path": where,
        "lessons": total,
        "tiers": tiers,
        "collection": store.collection_name,
        "read_back": read,
        "full": full,
    }


def embedder_figures(embedder: Any, backend: str) -> dict[str, Any]:
    """The embedder doctor's ``embedder`` row describes: it embeds two texts (two,
    so the model runs: one text may come from its recent-queries cache)."""
    from twiceshy.memory.embedding import HashEmbedder

    started = time.perf_counter()
    vectors = embedder.embed(list(PROBE_TEXTS))
    ms = (time.perf_counter() - started) * 1000
    return {
        "backend": backend,
        "name": embedder.name,
        "dim": len(vectors[0]),
        "load_ms": round(ms, 1),
        "hash_fallback": isinstance(embedder, HashEmbedder),
    }


#: Each hold index shard as last parsed here: path -> (stat key, readable, lesson ids). Shards are
#: replaced whole (a new inode), so a shard whose key is unchanged holds what it held: a running
#: engine answers doctor's row after a stat per shard, not a parse of every shard (90-230 ms at 5k).
_SHARDS: dict[Path, tuple[tuple[int, int, int, int], bool, frozenset[str]]] = {}
_SHARDS_LOCK = threading.Lock()


def hold_index_figures(folder: Path) -> dict[str, Any]:
    """What doctor's ``hold index`` row shows: the shards the hook client reads alone,
    the unreadable ones, the distinct lessons held (a shard is parsed again only when
    it changed since this process last parsed it)."""
    from twiceshy.memory import rules_snapshot

    shards = sorted(folder.glob("[0-9][0-9].json")) if folder.is_dir() else []
    damaged: list[str] = []
    ids: set[str] = set()
    with _SHARDS_LOCK:
        for path in shards:
            try:
                st = path.stat()
                key = (st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns)
            except OSError:
                key = (0, 0, 0, 0)  # gone meanwhile: parsed (and found unreadable) as before
            known = _SHARDS.get(path)
            if known is None or known[0] != key or key == (0, 0, 0, 0):
                data = rules_snapshot.read(path)
                held = frozenset(str(e.get("id")) for e in (data or {}).get("rules", []))
                known = (key, data is not None, held)
                _SHARDS[path] = known
            if not known[1]:
                damaged.append(path.name)
            ids |= known[2]
    return {"folder": str(folder), "shards": len(shards), "damaged": damaged, "lessons": len(ids)}


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def answer(engine: Engine, payload: bytes) -> dict[str, Any]:
    """The engine's reply to a ``doctor`` control request.

    ``payload``: JSON, ``{}`` or the client's config sections
    (``{"store": …, "embedding": …}``: declined when they are not the
    engine's). The reply, with ``config``, the engine's own sections, for the
    client to compare: ``{"embedder": {...}, "store": {...}, "status":
    {...}}`` (``store_problem`` instead of ``store`` when SQLite finds the file
    damaged, ``store_error`` when reading it back fails; ``status`` is the
    ``ping`` answer, so doctor's engine row needs no second request), or
    ``{"declined": reason}``."""
    try:
        request = json.loads(payload or b"{}")
        if not isinstance(request, dict):
            raise ValueError("not an object")
    except ValueError:
        return {"declined": "bad-request"}
    ctx = engine.ctx
    if not engine.ready.is_set() or engine.stopping.is_set() or ctx is None:
        return {"declined": "not-ready"}
    store = ctx._store
    if store is None or store is getattr(engine, "_warm_store", None):
        return {"declined": "store-loading"}
    for section in SAME_SECTIONS:  # a client that sends its sections is answered only for the same ones
        if section in request and not _same(request[section], ctx.config[section]):
            return {"declined": "other-store"}
    if ctx.config["store"]["mode"] != "embedded":
        return {"declined": "server-mode"}  # doctor's server check is the server's own heartbeat
    where = str(getattr(store, "path", "") or "")
    started = time.perf_counter()
    parts: dict[str, float] = {}
    figures: dict[str, Any] = {}
    # The store's part (SQLite's check of the file first, as doctor does it in its own process,
    # then the counts and the read-back) waits on SQLite mostly: on a thread of its own, while
    # this one runs the model and parses the hold index.
    store_part = threading.Thread(
        target=_store_part, args=(store, where, figures, parts), name="twiceshy-doctor-store", daemon=True
    )
    store_part.start()
    try:
        lap = time.perf_counter()
        figures["embedder"] = embedder_figures(store.embedder, str(ctx.config.get("embedding", "backend")))
        parts["embedder"] = round((time.perf_counter() - lap) * 1000, 1)
    except Exception as exc:  # doctor loads the model itself, and says what fails
        figures["declined"] = f"embedder-error: {type(exc).__name__}"
    try:  # a file check, but O(lessons): here it runs while the doctor's process loads its plugins
        from twiceshy.recall.hold_index import index_dir

        lap = time.perf_counter()
        figures["hold_index"] = hold_index_figures(index_dir(engine.paths.home))
        parts["hold index"] = round((time.perf_counter() - lap) * 1000, 1)
    except Exception:  # noqa: BLE001 - doctor reads the shards itself
        pass
    store_part.join(STORE_PART_S)
    if store_part.is_alive():
        return {"declined": f"store-slow (over {STORE_PART_S:g} s)"}
    if "declined" in figures:
        return {"declined": figures["declined"]}
    figures["status"] = engine.status()
    figures["config"] = {section: ctx.config[section] for section in SAME_SECTIONS}
    figures["ms"] = round((time.perf_counter() - started) * 1000, 1)
    figures["parts_ms"] = parts
    return figures


#: The store part's last answer: (the store's state it was computed on, when, the figures it set).
_STORE_PART: dict[str, tuple[tuple[Any, ...], float, dict[str, Any]]] = {}
STORE_PART_REUSE_S = 300.0  # an unchanged store's figures are reused this long, then checked again


def _store_state(store: Any, where: str) -> tuple[Any, ...] | None:
    """What decides the store part's answer: the store's generation (every write moves it)
    and the SQLite file's identity, size and mtime (None when they cannot be read)."""
    from twiceshy.engine.warmstart import read_generation

    try:
        st = (Path(where) / "chroma.sqlite3").stat()
    except OSError:
        return None
    generation = read_generation(Path(where))
    return (generation, st.st_ino, st.st_size, st.st_mtime_ns) if generation else None


def _store_part(store: Any, where: str, figures: dict[str, Any], parts: dict[str, float]) -> None:
    """The store's figures into ``figures``: ``store_problem``, or ``store``, or ``store_error``.
    Within :data:`STORE_PART_REUSE_S` of the last check of an unchanged store (same generation,
    same SQLite file, size and mtime) the last figures are given again (``parts["reused"]``):
    a running doctor pays ~150 ms for them otherwise, the same answer on the same bytes."""
    state = _store_state(store, where) if where else None
    last = _STORE_PART.get(where)
    if state is not None and last is not None and last[0] == state and time.monotonic() - last[1] < STORE_PART_REUSE_S:
        figures.update(json.loads(json.dumps(last[2])))  # a copy: the caller adds to what it is given
        parts["reused"] = 1.0
        return
    found: dict[str, Any] = {}
    _check_store(store, where, found, parts)
    figures.update(found)
    if state is not None and "store" in found and _store_state(store, where) == state:
        _STORE_PART[where] = (state, time.monotonic(), json.loads(json.dumps(found, default=str)))
    else:
        _STORE_PART.pop(where, None)  # a problem, an error or a write meanwhile: checked afresh next time


def _check_store(store: Any, where: str, figures: dict[str, Any], parts: dict[str, float]) -> None:
    lap = time.perf_counter()
    try:
        problem = probe_store_file(Path(where)) if where else None  # quick_check: ~30 ms at 10k
    except Exception as exc:  # noqa: BLE001 - probe_store_file answers its own errors; anything else says so
        problem = f"{where}: the store file check failed: {type(exc).__name__}: {exc}"
    parts["probe"] = round((time.perf_counter() - lap) * 1000, 1)
    if problem:
        figures["store_problem"] = problem
        return
    lap = time.perf_counter()
    try:
        figures["store"] = store_figures(store, where)
    except Exception as exc:  # a bad row: doctor's store check fails with this, as in a fresh process
        figures["store_error"] = f"{type(exc).__name__}: {exc}"
    parts["store"] = round((time.perf_counter() - lap) * 1000, 1)


__all__ = [
    "SAMPLE_PAGE",
    "answer",
    "embedder_figures",
    "hold_index_figures",
    "read_back",
    "store_figures",
    "tier_counts",
]
