"""``twiceshy ui``: a local dashboard over the memory — is it helping?

Stdlib ``http.server`` (threaded), bound to 127.0.0.1 by default. A
non-loopback address is refused unless the caller says so explicitly
(``allow_remote``; the CLI sets it only when ``--host`` is given). On a
loopback bind, requests whose ``Host`` header is not a loopback name are
refused too (DNS rebinding: a web page elsewhere must not read your memory
through your browser).

Reads are GET (and HEAD) and change nothing. Changes are POST only, and each
must carry the server's CSRF token (a random per-process value embedded in
the page, sent in the ``X-Twiceshy-Token`` header or a ``csrf_token`` form
field, compared in constant time); a request whose ``Origin`` is not this
server or whose ``Sec-Fetch-Site`` says cross-site is refused before that.
Bodies are bounded (:data:`MAX_BODY`). Every change calls the same function
the CLI calls (:mod:`twiceshy.ops.manage`, :mod:`twiceshy.learning.review`),
through the store's normal write path. Errors are JSON ``{"error": "..."}``.

Endpoints (JSON):

* GET ``/api/summary`` — lessons per tier, topics, version;
* GET ``/api/lessons[?tier=rule&limit=N]`` — lessons in `twiceshy list` order;
* GET ``/api/graph[?id=ID&depth=2]`` — nodes and edges;
* GET ``/api/timeline?topic=T`` — a topic's lessons, oldest first;
* GET ``/api/outcomes?days=14`` — warned, held, denied, avoided, ignored,
  overridden, false holds, not delivered, failed open per day
  (:func:`twiceshy.ops.stats.outcomes_by_day`), totals, and the lessons
  corrected by their own outcomes in the window;
* GET ``/api/usefulness[?limit=10]`` — lessons that helped most and least;
* GET ``/api/review`` — lessons held for review, with the guard's reasons;
* GET ``/api/search?q=...&k=10`` — the store's search, as ``twiceshy search``;
* POST ``/api/edit`` ``{"id", "changes": {...}}`` — as ``twiceshy edit``;
* POST ``/api/forget`` ``{"id"}`` — as ``twiceshy forget``;
* POST ``/api/review`` ``{"id", "action": "approve"|"reject"}`` — as ``twiceshy review``;
* ``/`` — the page (:mod:`twiceshy.ops.ui_page`); nothing loaded from elsewhere.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from twiceshy.base.errorlog import record_error
from twiceshy.ops.ui_page import PAGE

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
MAX_NODES = 400
LESSON_PAGE = 300  # lessons in the page's table
MAX_BODY = 64 * 1024  # bytes of a POST body; an edit is a few hundred
MAX_DAYS = 366
TOKEN_HEADER = "X-Twiceshy-Token"
WRITES = ("/api/edit", "/api/forget", "/api/review")


class RemoteBindRefused(ValueError):
    """A non-loopback bind that was not asked for explicitly."""


def is_loopback(host: str) -> bool:
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# --------------------------------------------------------------------------
# Data (also usable without HTTP)
# --------------------------------------------------------------------------


def _lesson(exp: Any) -> dict[str, Any]:
    data = exp.to_dict()
    data["tier_label"] = exp.tier_label
    return data


def _listed(store: Any, limit: int | None, tier: int | None = None) -> list[Any]:
    """Lessons in ``twiceshy list``'s order (tier first, newest first within a tier), the first
    ``limit`` of them read by id from the store's metadata index (:mod:`twiceshy.memory.listing`)."""
    from twiceshy.memory.listing import list_page

    return list_page(store, tier, 0, limit)[1]


def _edges_among(store: Any, ids: list[str]) -> list[dict[str, Any]]:
    """Edges whose both ends are in ``ids`` (asked for by id, not by reading every edge)."""
    edges_col = getattr(store, "_edges", None)
    edges: list[dict[str, Any]] = []
    if edges_col is not None:
        for start in range(0, len(ids), 500):
            got = edges_col.get(where={"src": {"$in": ids[start : start + 500]}}, include=["metadatas"])
            edges += [dict(m) for m in got["metadatas"]]
    else:
        edges = [e for i in ids for e in store.edges(i)]
    wanted = set(ids)
    unique = {}
    for e in edges:
        if e.get("src") in wanted and e.get("dst") in wanted:
            unique[(e["src"], e.get("type"), e["dst"])] = {
                "src": e["src"],
                "dst": e["dst"],
                "type": e.get("type"),
                "weight": e.get("weight", 1.0),
            }
    return list(unique.values())


def summary(ctx: EngineContext) -> dict[str, Any]:
    """Lessons per tier, superseded and topics, counted from the store's metadata indexes
    (:mod:`twiceshy.memory.census`, as ``twiceshy stats`` counts them): no lesson is read."""
    from twiceshy import __version__
    from twiceshy.memory.census import open_census
    from twiceshy.ops.stats import lesson_counts

    counts = lesson_counts(ctx)
    with open_census(ctx, ("topic",)) as census:
        topics = {str(t): n for t, n in census.tally("topic").items() if t}
    return {
        "version": __version__,
        "lessons": counts["total"],
        "tiers": counts["tiers"],
        "superseded": counts["superseded"],
        "topics": sorted(
            ({"topic": t, "lessons": n} for t, n in topics.items()), key=lambda d: (-d["lessons"], d["topic"])
        ),
    }


def lessons(ctx: EngineContext, tier: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
    """Lessons in ``twiceshy list``'s order: all of them, or the first ``limit``."""
    from twiceshy.base.types import Tier

    tier_value = int(Tier.parse(tier)) if tier else None
    return [_lesson(e) for e in _listed(ctx.store, limit, tier_value)]


def graph(ctx: EngineContext, exp_id: str | None = None, depth: int = 2) -> dict[str, Any]:
    """Nodes and typed edges: the whole graph (the first MAX_NODES in `list` order:
    tiers first), or the lessons within ``depth`` edges of ``exp_id``."""
    store = ctx.store
    if exp_id:
        root = store.get(exp_id)
        if root is None:
            raise KeyError(exp_id)
        seen = {exp_id}
        frontier = [exp_id]
        edges: dict[tuple[str, str, str], dict[str, Any]] = {}
        for _ in range(max(0, depth)):
            nxt = []
            for node in frontier:
                for e in store.edges(node):
                    edges[(e["src"], e["type"], e["dst"])] = {
                        "src": e["src"],
                        "dst": e["dst"],
                        "type": e["type"],
                        "weight": e.get("weight", 1.0),
                    }
                    for other in (e["src"], e["dst"]):
                        if other not in seen and len(seen) < MAX_NODES:
                            seen.add(other)
                            nxt.append(other)
            frontier = nxt
        exps = store.get_many(sorted(seen))
        present = {e.id for e in exps}
        return {
            "root": exp_id,
            "nodes": [_lesson(e) for e in exps],
            "edges": [e for e in edges.values() if e["src"] in present and e["dst"] in present],
        }
    exps = _listed(store, MAX_NODES)
    return {"root": None, "nodes": [_lesson(e) for e in exps], "edges": _edges_among(store, [e.id for e in exps])}


def timeline(ctx: EngineContext, topic: str) -> list[dict[str, Any]]:
    from twiceshy.learning.evolve import timeline as topic_timeline

    return [_lesson(e) for e in topic_timeline(ctx, topic)]


def outcomes(days: int = 14, now: float | None = None) -> dict[str, Any]:
    """Outcomes per day and their totals over the window."""
    from twiceshy.ops.stats import OUTCOMES, corrected_lessons, outcomes_by_day

    rows = outcomes_by_day(days, now=now)
    totals = {k: sum(r[k] for r in rows) for k in (*OUTCOMES, "snapshot_denied", "pre_tool")}
    corrected = corrected_lessons(rows[0]["start"], now)
    return {
        "days": rows,
        "totals": totals,
        "from": rows[0]["start"],
        "outcomes": list(OUTCOMES),
        "corrected": corrected,  # lessons their own outcomes (or the user) changed in the window
    }


def usefulness(ctx: EngineContext, limit: int = 10) -> dict[str, Any]:
    from twiceshy.ops.stats import lesson_usefulness

    return lesson_usefulness(ctx, limit=limit)


def held(ctx: EngineContext) -> list[dict[str, Any]]:
    """Lessons the poisoning guard holds, oldest first, with its reasons (as ``twiceshy review``)."""
    from twiceshy.learning import review as guard

    return [{**_lesson(e), "reasons": guard.reasons_of(e)} for e in guard.held_lessons(ctx.store)]


def search(ctx: EngineContext, query: str, k: int = 10) -> list[dict[str, Any]]:
    """``twiceshy search`` from the folder the server runs in (global lessons plus that project's)."""
    from pathlib import Path

    from twiceshy.base.project import fingerprint
    from twiceshy.ops.manage import search_lessons

    found = search_lessons(ctx, query, k=k, project=fingerprint(str(Path.cwd())))
    return [{**_lesson(e), "score": round(score, 4)} for e, score in found]


def _int(query: dict[str, str], key: str, default: int, low: int, high: int) -> int:
    raw = query.get(key)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, not {raw!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{key} must be from {low} to {high}")
    return value


# --------------------------------------------------------------------------
# Changes (POST): the CLI's own functions
# --------------------------------------------------------------------------


def apply_write(ctx: EngineContext, path: str, data: Any) -> dict[str, Any]:
    """One change from the dashboard; raises ``LessonError`` for bad input."""
    from twiceshy.ops import manage

    if not isinstance(data, dict):
        raise manage.LessonError("the request body must be a JSON object")
    exp_id = data.get("id")
    if not isinstance(exp_id, str) or not exp_id.strip():
        raise manage.LessonError("id is required")
    exp_id = exp_id.strip()
    if path == "/api/edit":
        changes = data.get("changes")
        if changes is None:  # a plain form posts the fields themselves
            changes = {k: v for k, v in data.items() if k in manage.EDITABLE}
        if not isinstance(changes, dict) or not changes:
            raise manage.LessonError(f"nothing to change: give changes with any of {', '.join(manage.EDITABLE)}")
        exp = manage.get_lesson(ctx, exp_id)
        changed = manage.apply_edit(ctx, exp, changes)
        return {"ok": True, "changed": changed, "lesson": _lesson(exp)}
    if path == "/api/forget":
        exp = manage.forget_lesson(ctx, exp_id)
        return {"ok": True, "forgot": exp.id}
    if path == "/api/review":
        action = data.get("action")
        exp = manage.review_lesson(ctx, exp_id, str(action))
        return {"ok": True, "action": action, "lesson": _lesson(exp)}
    raise manage.LessonError(f"no such action {path}")


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------


class UIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], ctx: EngineContext, check_host: bool) -> None:
        self.ctx = ctx
        self.check_host = check_host
        self.store_lock = threading.Lock()
        # Per process: a page from an earlier run (or another server) cannot make changes.
        self.token = secrets.token_urlsafe(32)
        self.page = PAGE.replace("__CSRF_TOKEN__", self.token).encode("utf-8")
        super().__init__(address, Handler)

    @property
    def url(self) -> str:
        raw_host, port = self.server_address[:2]
        host = raw_host.decode() if isinstance(raw_host, bytes) else str(raw_host)
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}/"


class Handler(BaseHTTPRequestHandler):
    server: UIServer
    server_version = "twiceshy-ui"
    timeout = 30  # a client that stops sending mid-request does not hold a thread for ever

    def log_message(self, format: str, *args: Any) -> None:  # quiet: no request log on stderr
        return

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
        )
        if status == 405:
            self.send_header("Allow", "GET, HEAD, POST" if urlsplit(self.path).path in WRITES else "GET, HEAD")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data, default=str).encode("utf-8"), "application/json; charset=utf-8")

    def _host_ok(self) -> bool:
        if not self.server.check_host:
            return True
        host = (self.headers.get("Host") or "").strip()
        if host.startswith("["):
            name = host[: host.find("]") + 1]
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        return name.lower() in LOOPBACK_NAMES

    def _cross_site(self) -> str | None:
        """Why a change request comes from another site, or None. Browsers send
        ``Origin`` on every POST and ``Sec-Fetch-Site`` on most; scripts send neither."""
        origin = self.headers.get("Origin")
        if origin is not None:
            own = "http://" + (self.headers.get("Host") or "").strip().lower()
            if origin.strip().lower() != own:
                return f"cross-origin request from {origin[:100]} refused"
        site = (self.headers.get("Sec-Fetch-Site") or "").strip().lower()
        if site and site not in ("same-origin", "none"):
            return f"{site} request refused"
        return None

    def _token_ok(self, data: Any) -> bool:
        token = self.headers.get(TOKEN_HEADER)
        if token is None and isinstance(data, dict) and isinstance(data.get("csrf_token"), str):
            token = data["csrf_token"]
        if not token:
            return False
        return hmac.compare_digest(token.encode("utf-8", "replace"), self.server.token.encode("utf-8"))

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._host_ok():
            self._json(403, {"error": "Host header is not a loopback name"})
            return
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        ctx = self.server.ctx
        try:
            if parts.path in ("/", "/index.html"):
                self._send(200, self.server.page, "text/html; charset=utf-8")
                return
            with self.server.store_lock:
                ctx.store.refresh_if_stale()  # another process (engine, CLI) may have written
                if parts.path == "/api/summary":
                    self._json(200, summary(ctx))
                elif parts.path == "/api/lessons":
                    limit = _int(query, "limit", 0, 0, 10**9) or None
                    self._json(200, lessons(ctx, query.get("tier"), limit))
                elif parts.path == "/api/graph":
                    depth = _int(query, "depth", 2, 0, 10)
                    self._json(200, graph(ctx, query.get("id") or None, depth))
                elif parts.path == "/api/timeline":
                    if not query.get("topic"):
                        self._json(400, {"error": "topic is required"})
                    else:
                        self._json(200, timeline(ctx, query["topic"]))
                elif parts.path == "/api/outcomes":
                    self._json(200, outcomes(_int(query, "days", 14, 1, MAX_DAYS)))
                elif parts.path == "/api/usefulness":
                    self._json(200, usefulness(ctx, _int(query, "limit", 10, 1, 100)))
                elif parts.path == "/api/review":
                    self._json(200, held(ctx))
                elif parts.path == "/api/search":
                    self._json(200, search(ctx, query.get("q", ""), _int(query, "k", 10, 1, 200)))
                else:
                    self._json(404, {"error": f"no such page {parts.path}"})
        except Exception as exc:
            self._error(exc, parts.path)

    do_HEAD = do_GET

    def _error(self, exc: Exception, path: str) -> None:
        from twiceshy.ops.manage import NoSuchLesson

        if isinstance(exc, NoSuchLesson):
            self._json(404, {"error": str(exc)})
        elif isinstance(exc, KeyError):
            self._json(404, {"error": f"no lesson {exc.args[0]}"})
        elif isinstance(exc, ValueError):
            self._json(400, {"error": str(exc)})
        else:
            record_error("ui.request", exc, path=path)
            self._json(500, {"error": f"{type(exc).__name__}: {exc}"})

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok():
            self._json(403, {"error": "Host header is not a loopback name"})
            return
        path = urlsplit(self.path).path
        if path not in WRITES:
            self._json(405, {"error": "read-only: only GET and HEAD here"})
            return
        refused = self._cross_site()
        if refused:
            self._json(403, {"error": refused})
            return
        raw_length = self.headers.get("Content-Length")
        if raw_length is None:
            self._json(411, {"error": "Content-Length is required"})
            return
        try:
            length = int(raw_length)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            self._json(400, {"error": "bad Content-Length"})
            return
        if length > MAX_BODY:
            self.close_connection = True  # the body is never read: the connection cannot be reused
            self._json(413, {"error": f"request body too large ({length} bytes, at most {MAX_BODY})"})
            return
        body = self.rfile.read(length)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        data: Any = None
        problem = None
        if ctype == "application/json":
            try:
                data = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                problem = "the request body is not valid JSON"
        elif ctype == "application/x-www-form-urlencoded":
            data = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        else:
            problem = "send application/json (or a form)"
        if not self._token_ok(data):
            self._json(403, {"error": "missing or wrong CSRF token: reload the dashboard page"})
            return
        if problem:
            self._json(415 if "send" in problem else 400, {"error": problem})
            return
        if isinstance(data, dict):
            data.pop("csrf_token", None)
        ctx = self.server.ctx
        try:
            with self.server.store_lock:
                ctx.store.refresh_if_stale()
                result = apply_write(ctx, path, data)
            self._json(200, result)
        except Exception as exc:
            self._error(exc, path)

    def _not_allowed(self) -> None:
        self._json(405, {"error": "only GET and HEAD (and POST for changes)"})

    # OPTIONS too: no CORS preflight is ever granted (no Access-Control-* header is sent).
    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed


def make_server(ctx: EngineContext, host: str = "127.0.0.1", port: int = 0, allow_remote: bool = False) -> UIServer:
    """A server ready for ``serve_forever()``. ``port=0`` picks a free port (see ``.url``)."""
    loopback = is_loopback(host)
    if not loopback and not allow_remote:
        raise RemoteBindRefused(
            f"refusing to serve on {host}: not a loopback address. The page shows your lessons; "
            "pass --host explicitly to expose it on the network"
        )
    return UIServer((host.strip("[]"), port), ctx, check_host=loopback)


__all__ = [
    "MAX_BODY",
    "PAGE",
    "TOKEN_HEADER",
    "RemoteBindRefused",
    "UIServer",
    "apply_write",
    "graph",
    "held",
    "is_loopback",
    "lessons",
    "make_server",
    "outcomes",
    "search",
    "summary",
    "timeline",
    "usefulness",
]
