"""The figures ``twiceshy doctor`` needs from an open store and a loaded embedder.

Doctor's store and embedder checks cost a fresh process ~1.5 s: chromadb's
import and client, the ONNX model. The running engine has both open, so when
it is up, doctor sends it a ``doctor`` control request and this module
answers it (:func:`answer`, called by the engine's control dispatch). Doctor
also runs :func:`store_figures` itself when no engine answers, so either way
the figures come from one implementation.

An answer is declined (``{"declined": reason}``), and doctor opens the store
itself as before, whenever the engine's figures could differ from the ones
doctor would find: the engine is still loading or answers from its warm-start
cache, or the client's configuration names another store or embedder.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import Tier
from twiceshy.memory.integrity import probe_store_file

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.engine.server import Engine

SAMPLE_PAGE = 100  # lessons read back per sampled page (doctor without --full)
PROBE_TEXTS = ("git push --force origin main", "twiceshy doctor probe")  # two: the model runs, no cache
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


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def answer(engine: Engine, payload: bytes) -> dict[str, Any]:
    """The engine's reply to a ``doctor`` control request.

    ``payload``: JSON ``{"store": …, "embedding": …}``, the client's config
    sections. The reply: ``{"embedder": {...}, "store": {...}, "status":
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
    for section in SAME_SECTIONS:
        if not _same(request.get(section), ctx.config[section]):
            return {"declined": "other-store"}
    if ctx.config["store"]["mode"] != "embedded":
        return {"declined": "server-mode"}  # doctor's server check is the server's own heartbeat
    where = str(getattr(store, "path", "") or "")
    started = lap = time.perf_counter()
    parts: dict[str, float] = {}

    def mark(name: str) -> None:
        nonlocal lap
        now = time.perf_counter()
        parts[name] = round((now - lap) * 1000, 1)
        lap = now

    try:
        figures: dict[str, Any] = {
            "embedder": embedder_figures(store.embedder, str(ctx.config.get("embedding", "backend"))),
        }
    except Exception as exc:  # doctor loads the model itself, and says what fails
        return {"declined": f"embedder-error: {type(exc).__name__}"}
    mark("embedder")
    # SQLite's own check of the file first, as doctor does in its own process (quick_check: ~30 ms at 10k).
    problem = probe_store_file(Path(where)) if where else None
    mark("probe")
    if problem:
        figures["store_problem"] = problem
    else:
        try:
            figures["store"] = store_figures(store, where)
        except Exception as exc:  # a bad row: doctor's store check fails with this, as in a fresh process
            figures["store_error"] = f"{type(exc).__name__}: {exc}"
        mark("store")
    figures["status"] = engine.status()
    mark("status")
    figures["ms"] = round((time.perf_counter() - started) * 1000, 1)
    figures["parts_ms"] = parts
    return figures


__all__ = ["SAMPLE_PAGE", "answer", "embedder_figures", "read_back", "store_figures", "tier_counts"]
