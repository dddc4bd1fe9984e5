"""Team memory: the experience store on a shared Chroma server.

``store.mode: server`` points every engine of a team at one Chroma server
(``chroma run``, Chroma's Docker image, or Chroma's own distributed / cloud
deployment): a lesson learned on one machine is recalled on every other.
:class:`TeamStore` is an :class:`~twiceshy.memory.store.ExperienceStore` that
tolerates the server being away:

* **Bounded.** chromadb's ``HttpClient`` waits forever (httpx
  ``timeout=None``); we probe the port first (``store.connect_timeout_s``),
  build the client in a helper thread we stop waiting for, and then bound
  every request (``store.timeout_s``).
* **Reads fail open.** Offline, at once and without the network, ``search``
  answers from the lessons this process wrote lately (so pre_tool answers
  "allow", and one offline session still deduplicates against itself),
  ``count`` gives the last known count, ``get`` and ``get_many`` what this
  process read or wrote lately; ``all`` and ``edges`` raise
  :class:`StoreOffline` (a maintenance pass or a CLI listing must not act on a
  partial view). After a failure the server is retried with a backoff, in the
  background.
* **Writes never block on the server and are never lost.** Every write is
  appended to a durable :class:`~twiceshy.memory.outbox.Outbox` under the data dir,
  then delivered in order — at once when the server answers; otherwise on
  engine start, every ``store.drain_interval_s``, and before the next write.
* **Exactly once.** A new lesson is inserted only if its id is absent; an
  edge or a delete is idempotent by itself; a count update carries its op id
  into the lesson's metadata (``ts_ops``, the last :data:`OPS_KEEP`), and an op
  already listed there is skipped.
* **Counts merge.** ``update(exp)`` sends the *change* of the counters
  (``hits``, ``follows``, ``ignores``, ``irrelevant``, ``seen_count``) since
  this process read the lesson, added on the server to the current value: two
  machines judging the same lesson both count. Other fields (tier,
  confidence, tags, …) are last-writer-wins, as Chroma offers no
  compare-and-set.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.types import Experience
from twiceshy.memory.outbox import Outbox, Unreachable, new_op_id
from twiceshy.memory.store import _EDGE_VECTOR, ExperienceStore, check_edge_type

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.base.config import Config
    from twiceshy.engine.context import EngineContext
    from twiceshy.memory.embedding import Embedder

COUNTERS = ("hits", "follows", "ignores", "irrelevant", "seen_count")
OPS_KEY = "ts_ops"  # lesson metadata: ids of the last update ops applied to it
OPS_KEEP = 32
BASE_ATTR = "_team_base"  # counters as read, kept on the Experience object
LOCAL_KEEP = 5000  # lessons remembered for offline get/get_many
ADD_BATCH = 256
DRAIN_ON_OPEN_S = 5.0
KICK_EVERY_S = 0.5  # the hot path starts a background retry/delivery at most this often  # the rest of a long outbox goes on the periodic drain


class StoreOffline(ConnectionError):
    """The team server cannot be reached and the answer is not known locally."""


# ---------------------------------------------------------------------------
# Where the server is
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerTarget:
    """Everything needed to reach one team memory (from the ``store`` config section)."""

    host: str = "127.0.0.1"
    port: int = 8000
    ssl: bool = False
    tenant: str = "default_tenant"
    database: str = "default_database"
    collection: str = "experiences"
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold a token: never logged
    timeout_s: float = 2.0
    connect_timeout_s: float = 0.5
    drain_interval_s: float = 10.0

    @classmethod
    def from_config(cls, config: Config) -> ServerTarget:
        cfg = config["store"]
        return cls(
            host=cfg["host"],
            port=int(cfg["port"]),
            ssl=bool(cfg["ssl"]),
            tenant=cfg["tenant"],
            database=cfg["database"],
            collection=cfg["collection"],
            headers=request_headers(cfg),
            timeout_s=float(cfg["timeout_s"]),
            connect_timeout_s=float(cfg["connect_timeout_s"]),
            drain_interval_s=float(cfg["drain_interval_s"]),
        )

    @property
    def url(self) -> str:
        return f"{'https' if self.ssl else 'http'}://{self.host}:{self.port}"

    def key(self) -> str:
        """A short id of the memory (server, tenant, database, collection): one outbox each."""
        basis = f"{self.url}|{self.tenant}|{self.database}|{self.collection}"
        return hashlib.sha256(basis.encode()).hexdigest()[:16]


def request_headers(cfg: dict[str, Any]) -> dict[str, str]:
    """HTTP headers for the server: ``store.headers`` (``"Name: value"`` items)
    plus the token read from the environment variable ``store.token_env``,
    sent as ``Authorization: Bearer <token>`` or raw in ``X-Chroma-Token``
    (``store.token_header``; Chroma Cloud uses the latter)."""
    headers: dict[str, str] = {}
    for item in cfg.get("headers") or []:
        name, sep, value = str(item).partition(":")
        if sep and name.strip():
            headers[name.strip()] = value.strip()
    env = cfg.get("token_env")
    token = os.environ.get(env, "") if env else ""
    if token:
        header = cfg.get("token_header") or "Authorization"
        headers[header] = f"Bearer {token}" if header.lower() == "authorization" else token
    return headers


def _is_transport(exc: BaseException) -> bool:
    """Network trouble (as opposed to the server refusing a request)."""
    import httpx

    if isinstance(exc, (httpx.TransportError, OSError, TimeoutError, Unreachable)):
        return True
    # chromadb turns a refused connection while building a client into this ValueError.
    return isinstance(exc, ValueError) and "Could not connect to a Chroma server" in str(exc)


def probe(target: ServerTarget) -> None:
    """A TCP connect with ``connect_timeout_s``; raises :class:`Unreachable`."""
    try:
        socket.create_connection((target.host, target.port), timeout=target.connect_timeout_s).close()
    except OSError as exc:
        raise Unreachable(f"{target.url}: {exc}") from None


def _build_client(target: ServerTarget) -> Any:
    import chromadb
    from chromadb.config import Settings
    from chromadb.errors import NotFoundError

    def make() -> Any:
        return chromadb.HttpClient(
            host=target.host,
            port=target.port,
            ssl=target.ssl,
            headers=dict(target.headers),
            settings=Settings(anonymized_telemetry=False, allow_reset=False),
            tenant=target.tenant,
            database=target.database,
        )

    try:
        client = make()
    except NotFoundError:
        # A team's own database (store.database) is created on first use.
        admin = chromadb.AdminClient(
            Settings(
                chroma_api_impl="chromadb.api.fastapi.FastAPI",
                chroma_server_host=target.host,
                chroma_server_http_port=target.port,
                chroma_server_ssl_enabled=target.ssl,
                chroma_server_headers=dict(target.headers),
                anonymized_telemetry=False,
            )
        )
        admin.create_database(target.database, tenant=target.tenant)
        client = make()
    _bound_requests(client, target)
    return client


def _bound_requests(client: Any, target: ServerTarget) -> None:
    """chromadb (1.5) builds its httpx session with ``timeout=None`` and offers
    no setting for it: set the timeout on that session."""
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if session is None:  # pragma: no cover - a chromadb without that attribute
        record_error("team_store.timeouts", "cannot bound chromadb HTTP timeouts")
        return
    session.timeout = httpx.Timeout(target.timeout_s, connect=target.connect_timeout_s)


def connect(target: ServerTarget) -> Any:
    """A chromadb client for ``target``, or :class:`Unreachable` within about
    ``connect_timeout_s + 2 * timeout_s`` seconds, whatever the network does."""
    probe(target)
    result: dict[str, Any] = {}

    def build() -> None:
        try:
            result["client"] = _build_client(target)
        except BaseException as exc:  # handed to the caller
            result["error"] = exc

    thread = threading.Thread(target=build, name="twiceshy-team-connect", daemon=True)
    thread.start()
    thread.join(target.connect_timeout_s + 2 * target.timeout_s)
    if thread.is_alive():
        raise Unreachable(f"{target.url}: no answer within the timeout")
    if "error" in result:
        exc = result["error"]
        if _is_transport(exc):
            raise Unreachable(f"{target.url}: {exc}") from exc
        raise exc
    return result["client"]


# ---------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------


class _Guarded:
    """A Chroma collection whose network failures mark the store offline and
    raise :class:`StoreOffline` (``collection`` None: offline, no network)."""

    def __init__(self, store: TeamStore, collection: Any) -> None:
        self._store = store
        self._collection = collection

    def __getattr__(self, name: str) -> Any:
        if self._collection is None:
            raise StoreOffline(f"team memory at {self._store.target.url} is unreachable")
        attr = getattr(self._collection, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return attr(*args, **kwargs)
            except Exception as exc:
                if self._store._is_outage(exc):
                    self._store._mark_offline(exc)
                    raise StoreOffline(f"team memory at {self._store.target.url}: {exc}") from exc
                raise

        return call


def _set_base(exp: Experience) -> Experience:
    setattr(exp, BASE_ATTR, {c: getattr(exp, c) for c in COUNTERS})
    return exp


class TeamStore(ExperienceStore):
    """An ExperienceStore on a team's Chroma server, with an outbox (see module doc)."""

    def __init__(
        self,
        target: ServerTarget,
        embedder: Embedder,
        outbox: Outbox,
        connector: Callable[[ServerTarget], Any] = connect,
    ) -> None:
        # Not ExperienceStore.__init__: that opens the collections, which needs the server.
        self.target = target
        self.embedder = embedder
        self.outbox = outbox
        self.path = None  # no generation stamp: the server is the one shared index
        self._reopen = None
        self._collection_base = target.collection
        self.collection_name = f"{target.collection}__{embedder.name}"
        self._lock = threading.RLock()
        self._generation_seen = ""
        self._count: int | None = None
        self._connector = connector
        self._conn_lock = threading.Lock()
        self._drain_lock = threading.Lock()
        self._online = False
        self._reported = False
        self._last_kick = -KICK_EVERY_S
        self._next_try = 0.0
        self._backoff = 0.5
        self._last_count = 0
        self._local: OrderedDict[str, tuple[str, dict[str, Any]]] = OrderedDict()
        self._local_vectors: dict[str, list[float]] = {}  # lessons this process wrote: offline search
        self.client: Any = None
        self._col: Any = _Guarded(self, None)
        self._edges: Any = _Guarded(self, None)
        if self._try_connect():
            self.drain(deadline=time.monotonic() + DRAIN_ON_OPEN_S)

    # -- connection ----------------------------------------------------------

    @property
    def online(self) -> bool:
        """Did the last contact with the server succeed?"""
        return self._online

    def _try_connect(self) -> bool:
        """(Re)connect now; False when the server cannot be reached (bounded)."""
        if not self._conn_lock.acquire(blocking=False):
            return self._online  # another thread is connecting
        try:
            old = self.client
            client = self._connector(self.target)
            col = client.get_or_create_collection(
                name=self.collection_name,
                embedding_function=None,
                metadata={"hnsw:space": "cosine", "embedder": self.embedder.name},
            )
            edges = client.get_or_create_collection(
                name=f"{self._collection_base}__edges", embedding_function=None, metadata={"hnsw:space": "l2"}
            )
            with self._lock:
                self.client, self._col, self._edges = client, _Guarded(self, col), _Guarded(self, edges)
                self._online, self._backoff, self._reported = True, 0.5, False
            if old is not None and old is not client:
                try:
                    old.close()
                except Exception:
                    pass
            return True
        except Exception as exc:
            if not self._is_outage(exc):
                record_error("team_store.connect", exc, server=self.target.url)
            self._mark_offline(exc)
            return False
        finally:
            self._conn_lock.release()

    def _is_outage(self, exc: BaseException) -> bool:
        """Is ``exc`` the server being away (keep the op), not a rejected request?"""
        if isinstance(exc, StoreOffline) or _is_transport(exc):
            return True
        from chromadb.errors import ChromaError

        if isinstance(exc, ChromaError):
            return False
        # A proxy's 502/503 arrives as a bare Exception: ask the server itself.
        try:
            probe(self.target)
            if self.client is not None:
                self.client.heartbeat()
            return False
        except Exception:
            return True

    def _mark_offline(self, exc: BaseException) -> None:
        with self._lock:
            report = self._online or not self._reported
            self._online, self._reported = False, True
            self._col, self._edges = _Guarded(self, None), _Guarded(self, None)
            self._next_try = time.monotonic() + self._backoff
            self._backoff = min(self._backoff * 2, max(self.target.drain_interval_s, 0.5))
        if report:  # once per outage, not once per retry
            record_error("team_store.offline", exc, server=self.target.url, pending=self.outbox.maybe_pending)

    def _available(self, wait: bool) -> bool:
        """Online, or reconnected now. ``wait=False`` (the hot path) never
        touches the network: a due retry runs in a background thread."""
        if self._online:
            return True
        if time.monotonic() < self._next_try:
            return False
        if wait:
            return self._try_connect()
        self._kick()
        return False

    def _kick(self) -> None:
        """Run :meth:`tick` in a background thread, at most every KICK_EVERY_S."""
        now = time.monotonic()
        with self._lock:
            if now - self._last_kick < KICK_EVERY_S:
                return
            self._last_kick = now
        threading.Thread(target=self.tick, name="twiceshy-team-retry", daemon=True).start()

    def tick(self) -> None:
        """Reconnect if a retry is due, then deliver the outbox. Never raises."""
        try:
            if self._available(wait=True) and self.outbox.pending():
                self.drain()
        except Exception as exc:
            record_error("team_store.tick", exc)

    def refresh_if_stale(self) -> bool:
        """Called by the engine before each request: nothing to reopen (the
        server is the shared index); starts a due retry or delivery in the
        background, without touching the network here."""
        if not self._online:
            if time.monotonic() >= self._next_try and not self._conn_lock.locked():
                self._kick()
        elif self.outbox.maybe_pending and not self._drain_lock.locked():
            self._kick()
        return False

    # -- the outbox ------------------------------------------------------------

    def pending(self) -> int:
        """Writes waiting for the server."""
        return self.outbox.pending()

    def drain(self, deadline: float | None = None) -> tuple[int, int]:
        """Deliver queued writes now, in order. Returns ``(delivered, left)``."""
        if not self._available(wait=True):
            return 0, self.outbox.pending()
        with self._drain_lock:
            return self.outbox.drain(self._apply, deadline=deadline)

    def _submit(self, ops: list[dict[str, Any]]) -> None:
        """Write-ahead: journal, then deliver what we can (older ops first)."""
        if not ops:
            return
        self.outbox.append(ops)
        self._count = None
        try:
            self.drain()
        except Exception as exc:  # journaled: delivered by a later drain
            record_error("team_store.submit", exc)

    def _apply(self, op: dict[str, Any]) -> None:
        """Deliver one op, idempotently. Raises Unreachable on an outage."""
        try:
            getattr(self, f"_apply_{op['kind']}")(op)
        except StoreOffline as exc:
            raise Unreachable(str(exc)) from exc

    def _apply_add(self, op: dict[str, Any]) -> None:
        items = op["items"]
        if op.get("insert_only"):
            present = set(self._col.get(ids=[i["id"] for i in items], include=[])["ids"])
            items = [i for i in items if i["id"] not in present]
        if items:
            self._col.upsert(
                ids=[i["id"] for i in items],
                embeddings=[i["vector"] for i in items],
                documents=[i["doc"] for i in items],
                metadatas=[i["meta"] for i in items],
            )

    def _apply_update(self, op: dict[str, Any]) -> None:
        items = {i["id"]: i for i in op["items"]}
        got = self._col.get(ids=list(items), include=["metadatas"])
        ids, metas = [], []
        for exp_id, current in zip(got["ids"], got["metadatas"]):
            current = current or {}
            try:
                applied = json.loads(current.get(OPS_KEY) or "[]")
            except ValueError:
                applied = []
            if op["id"] in applied:
                continue  # delivered before (a replay after a crash)
            item = items[exp_id]
            meta = dict(item["set"])
            for name, delta in item.get("delta", {}).items():
                meta[name] = int(current.get(name) or 0) + int(delta)
            meta[OPS_KEY] = json.dumps((applied + [op["id"]])[-OPS_KEEP:])
            ids.append(exp_id)
            metas.append(meta)
        if ids:  # a lesson deleted meanwhile is simply not updated
            self._col.update(ids=ids, metadatas=metas)

    def _apply_edges(self, op: dict[str, Any]) -> None:
        edges = op["edges"]
        self._edges.upsert(
            ids=[f"{e['src']}|{e['type']}|{e['dst']}" for e in edges],
            embeddings=[_EDGE_VECTOR] * len(edges),
            documents=[e["type"] for e in edges],
            metadatas=edges,
        )

    def _apply_delete(self, op: dict[str, Any]) -> None:
        self._col.delete(ids=[op["exp_id"]])
        self._edges.delete(where={"src": op["exp_id"]})
        self._edges.delete(where={"dst": op["exp_id"]})

    # -- local view (offline reads, read-your-writes) ---------------------------

    def _remember(self, exp_id: str, doc: str, meta: dict[str, Any]) -> None:
        with self._lock:
            self._local[exp_id] = (doc, dict(meta))
            self._local.move_to_end(exp_id)
            while len(self._local) > LOCAL_KEEP:
                gone, _ = self._local.popitem(last=False)
                self._local_vectors.pop(gone, None)

    def _from_local(self, exp_id: str) -> Experience | None:
        with self._lock:
            held = self._local.get(exp_id)
        if held is None:
            return None
        return _set_base(Experience.from_metadata(exp_id, held[0], held[1]))

    def _read(self, exp_id: str, doc: str, meta: dict[str, Any]) -> Experience:
        self._remember(exp_id, doc, meta)
        return _set_base(Experience.from_metadata(exp_id, doc, meta))

    # -- writing ---------------------------------------------------------------

    def _add_items(self, exps: list[Experience]) -> list[dict[str, Any]]:
        vectors = self.embedder.embed([e.trigger or e.text for e in exps])
        items = []
        for exp, vector in zip(exps, vectors):
            meta = exp.to_metadata()
            items.append({"id": exp.id, "doc": exp.text, "meta": meta, "vector": [float(x) for x in vector]})
            self._remember(exp.id, exp.text, meta)
            with self._lock:
                self._local_vectors[exp.id] = items[-1]["vector"]
            _set_base(exp)
        return items

    # The write methods journal under no lock of ours: delivery talks to the
    # server, and the hot path's reads must never wait behind it.

    def add(self, exp: Experience) -> Experience:
        """Insert or replace one lesson (its vector computed here, so delivery needs no model)."""
        # A lesson read from the server and written back whole (re-embedded) replaces it;
        # a new one is inserted only if absent, so a replay never resets later counts.
        insert_only = not hasattr(exp, BASE_ATTR)
        self._submit([{"id": new_op_id(), "kind": "add", "insert_only": insert_only, "items": self._add_items([exp])}])
        return exp

    def add_many(self, exps: list[Experience], batch: int = ADD_BATCH) -> None:
        ops = []
        for start in range(0, len(exps), batch):
            chunk = exps[start : start + batch]
            ops.append({"id": new_op_id(), "kind": "add", "insert_only": False, "items": self._add_items(chunk)})
        self._submit(ops)

    def _update_item(self, exp: Experience) -> dict[str, Any]:
        meta = exp.to_metadata()
        base = getattr(exp, BASE_ATTR, None)
        item: dict[str, Any] = {"id": exp.id}
        if base is None:  # never read through this store: absolute values
            item["set"] = meta
        else:
            item["set"] = {k: v for k, v in meta.items() if k not in COUNTERS}
            item["delta"] = {c: getattr(exp, c) - base[c] for c in COUNTERS if getattr(exp, c) != base[c]}
        with self._lock:
            held = self._local.get(exp.id)
            self._remember(exp.id, exp.text if held is None else held[0], meta)
        _set_base(exp)
        return item

    def update(self, exp: Experience, reembed: bool = False) -> Experience:
        """Write back counts/tier changes: the counters as a change since read
        (merged on the server), the rest as values. ``reembed=True`` rewrites
        the document and its vector (a whole-lesson replace)."""
        if reembed:
            self._submit([{"id": new_op_id(), "kind": "add", "insert_only": False, "items": self._add_items([exp])}])
            return exp
        self._submit([{"id": new_op_id(), "kind": "update", "items": [self._update_item(exp)]}])
        return exp

    def update_many(self, exps: list[Experience]) -> None:
        if not exps:
            return
        self._submit([{"id": new_op_id(), "kind": "update", "items": [self._update_item(e) for e in exps]}])

    def add_edges(self, edges: list[tuple[str, str, str, float]]) -> None:
        if not edges:
            return
        for _, _, edge_type, _ in edges:
            check_edge_type(edge_type)
        now = time.time()
        rows = [{"src": s, "dst": d, "type": t, "weight": float(w), "created_at": now} for s, d, t, w in edges]
        self._submit([{"id": new_op_id(), "kind": "edges", "edges": rows}])

    def add_edge(self, src: str, dst: str, edge_type: str, weight: float = 1.0) -> None:
        self.add_edges([(src, dst, edge_type, weight)])

    def delete(self, exp_id: str) -> None:
        with self._lock:
            self._local.pop(exp_id, None)
            self._local_vectors.pop(exp_id, None)
        self._submit([{"id": new_op_id(), "kind": "delete", "exp_id": exp_id}])

    # -- reading ---------------------------------------------------------------

    def get(self, exp_id: str) -> Experience | None:
        """One lesson; offline, this process's last view of it, else StoreOffline."""
        if self._available(wait=False):
            try:
                got = self._col.get(ids=[exp_id], include=["documents", "metadatas"])
                if not got["ids"]:
                    return None
                return self._read(got["ids"][0], got["documents"][0], got["metadatas"][0])
            except StoreOffline:
                pass
        exp = self._from_local(exp_id)
        if exp is None:
            raise StoreOffline(f"team memory at {self.target.url} is unreachable; lesson {exp_id} not known locally")
        return exp

    def get_many(self, ids: Iterable[str]) -> list[Experience]:
        """Several lessons; offline, those this process knows (possibly fewer)."""
        ids = list(ids)
        if not ids:
            return []
        if self._available(wait=False):
            try:
                got = self._col.get(ids=ids, include=["documents", "metadatas"])
                return [self._read(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]
            except StoreOffline:
                pass
        return [e for e in (self._from_local(i) for i in ids) if e is not None]

    def all(self, where: dict[str, Any] | None = None) -> list[Experience]:
        """Every lesson (matching ``where``); StoreOffline when the server is away."""
        if not self._available(wait=False):
            raise StoreOffline(f"team memory at {self.target.url} is unreachable")
        got = self._col.get(where=where, include=["documents", "metadatas"])
        return [self._read(i, d, m) for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])]

    def count(self) -> int:
        """Lessons on the server; offline, the last count seen."""
        if self._available(wait=False):
            try:
                self._last_count = int(self._col.count())
            except StoreOffline:
                pass
        return self._last_count

    def search(
        self, query: str, k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        """Like :meth:`ExperienceStore.search`. Offline, at once and without the
        network: only the lessons this process wrote lately (so a session
        learned offline still deduplicates against itself)."""
        if not self._online and not self._local_vectors:
            self._available(wait=False)  # maybe start a retry
            return []
        (vector,) = self.embedder.embed([query])
        return self.search_vector(vector, k=k, project=project, include_superseded=include_superseded)

    def search_vector(
        self, vector: list[float], k: int = 8, project: str | None = None, include_superseded: bool = True
    ) -> list[tuple[Experience, float]]:
        # One round trip: Chroma returns fewer than n_results when it holds fewer,
        # so the count() the embedded store asks first is not needed here.
        fetch = max(k * 4, 16)
        got = None
        if self._available(wait=False):
            try:
                got = self._col.query(
                    query_embeddings=[vector], n_results=fetch, include=["documents", "metadatas", "distances"]
                )
            except StoreOffline:
                pass
        if got is None:
            got = self._local_query(vector, fetch)
        out: list[tuple[Experience, float]] = []
        for exp_id, doc, meta, dist in zip(
            got["ids"][0], got["documents"][0], got["metadatas"][0], got["distances"][0]
        ):
            scope = meta.get("project") or None
            if scope is not None and scope != project:
                continue  # project scoping as in the embedded store: global + this project
            exp = self._read(exp_id, doc, meta)
            if not include_superseded and exp.superseded_by:
                continue
            out.append((exp, 1.0 - float(dist)))
            if len(out) >= k:
                break
        return out

    def _local_query(self, vector: list[float], n: int) -> dict[str, list[list[Any]]]:
        """Cosine over the lessons this process wrote, shaped like Chroma's answer."""
        import numpy as np

        with self._lock:
            ids = [i for i in self._local_vectors if i in self._local]
            vectors = [self._local_vectors[i] for i in ids]
            held = [self._local[i] for i in ids]
        if not ids:
            return {"ids": [[]], "documents": [[]], "metadatas": [[]], "distances": [[]]}
        matrix = np.asarray(vectors, dtype=np.float32)
        query = np.asarray(vector, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
        sims = matrix @ query / np.where(norms == 0, 1.0, norms)
        order = np.argsort(-sims)[:n]
        return {
            "ids": [[ids[i] for i in order]],
            "documents": [[held[i][0] for i in order]],
            "metadatas": [[held[i][1] for i in order]],
            "distances": [[1.0 - float(sims[i]) for i in order]],
        }

    def edges(self, exp_id: str) -> list[dict[str, Any]]:
        if not self._available(wait=False):
            raise StoreOffline(f"team memory at {self.target.url} is unreachable")
        return super().edges(exp_id)


# ---------------------------------------------------------------------------
# Wiring
# ---------------------------------------------------------------------------


def outbox_path(target: ServerTarget, home: Path | None = None) -> Path:
    """``<data dir>/outbox/<memory key>.sqlite3``: one outbox per team memory."""
    from twiceshy.base.paths import data_dir

    return (home or data_dir()) / "outbox" / f"{target.key()}.sqlite3"


def outbox_pending(target: ServerTarget, home: Path | None = None) -> int:
    """Writes waiting for ``target`` in this data dir's outbox (0 when there is none)."""
    path = outbox_path(target, home)
    return Outbox(path).pending() if path.exists() else 0


def open_team_store(config: Config, embedder: Embedder, home: Path | None = None) -> TeamStore:
    """The store for ``store.mode: server`` (called by ``EngineContext.store``)."""
    target = ServerTarget.from_config(config)
    return TeamStore(target, embedder, Outbox(outbox_path(target, home)))


def drain_worker(ctx: EngineContext, stop: threading.Event) -> None:
    """Engine worker (handed over by the builtin ``team`` plugin): retry the server and
    deliver the outbox every ``store.drain_interval_s`` (also catches ops another process queued)."""
    interval = max(0.2, float(ctx.config.get("store", "drain_interval_s")))
    while not stop.wait(interval):
        store = ctx._store
        if isinstance(store, TeamStore):
            if store._online or time.monotonic() >= store._next_try:
                store.tick()


__all__ = ["ServerTarget", "StoreOffline", "TeamStore", "connect", "open_team_store", "outbox_path", "request_headers"]
