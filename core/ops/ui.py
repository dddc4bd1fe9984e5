"""``twiceshy ui``: a local, read-only web page over the memory.

Stdlib ``http.server`` (threaded), bound to 127.0.0.1 by default. A
non-loopback address is refused unless the caller says so explicitly
(``allow_remote``; the CLI sets it only when ``--host`` is given). On a
loopback bind, requests whose ``Host`` header is not a loopback name are
refused too (DNS rebinding: a web page elsewhere must not read your memory
through your browser).

Read-only by construction: GET and HEAD only (anything else is 405), and the
handlers only call the store's read methods. Endpoints, all JSON:

* ``/api/summary`` — lessons per tier, topics, edges, version;
* ``/api/lessons[?tier=rule]`` — every lesson (``to_dict`` plus ``tier_label``);
* ``/api/graph[?id=ID&depth=2]`` — nodes and edges (whole graph, or one
  lesson's neighbourhood);
* ``/api/timeline?topic=T`` — a topic's lessons, oldest first;
* ``/`` — one HTML page whose inline JS renders a tier table, the graph as
  SVG and a timeline. Nothing is loaded from anywhere else (no CDN).
"""

from __future__ import annotations

import ipaddress
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from twiceshy.base.errorlog import record_error

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")
MAX_NODES = 400


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


def _all_edges(store: Any, ids: list[str]) -> list[dict[str, Any]]:
    edges_col = getattr(store, "_edges", None)
    if edges_col is not None:
        got = edges_col.get(include=["metadatas"])
        edges = [dict(m) for m in got["metadatas"]]
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
    from twiceshy import __version__
    from twiceshy.base.types import Tier

    exps = ctx.store.all()
    tiers = {t.label: 0 for t in Tier}
    topics: dict[str, int] = {}
    for e in exps:
        tiers[e.tier_label] += 1
        if e.topic:
            topics[e.topic] = topics.get(e.topic, 0) + 1
    return {
        "version": __version__,
        "lessons": len(exps),
        "tiers": tiers,
        "superseded": sum(1 for e in exps if e.superseded_by),
        "topics": sorted(
            ({"topic": t, "lessons": n} for t, n in topics.items()), key=lambda d: (-d["lessons"], d["topic"])
        ),
    }


def lessons(ctx: EngineContext, tier: str | None = None) -> list[dict[str, Any]]:
    from twiceshy.base.types import Tier

    where = {"tier": int(Tier.parse(tier))} if tier else None
    exps = sorted(ctx.store.all(where=where), key=lambda e: (e.tier, -e.confidence, e.id))
    return [_lesson(e) for e in exps]


def graph(ctx: EngineContext, exp_id: str | None = None, depth: int = 2) -> dict[str, Any]:
    """Nodes and typed edges: the whole graph (capped at MAX_NODES, strongest
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
    exps = sorted(store.all(), key=lambda e: (e.tier, -e.confidence, e.id))[:MAX_NODES]
    return {"root": None, "nodes": [_lesson(e) for e in exps], "edges": _all_edges(store, [e.id for e in exps])}


def timeline(ctx: EngineContext, topic: str) -> list[dict[str, Any]]:
    from twiceshy.learning.evolve import timeline as topic_timeline

    return [_lesson(e) for e in topic_timeline(ctx, topic)]


# --------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------


class UIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], ctx: EngineContext, check_host: bool) -> None:
        self.ctx = ctx
        self.check_host = check_host
        self.store_lock = threading.Lock()
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

    def log_message(self, format: str, *args: Any) -> None:  # quiet: no request log on stderr
        return

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "connect-src 'self'; img-src 'self' data:",
        )
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

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._host_ok():
            self._json(403, {"error": "Host header is not a loopback name"})
            return
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        ctx = self.server.ctx
        try:
            if parts.path in ("/", "/index.html"):
                self._send(200, PAGE.encode("utf-8"), "text/html; charset=utf-8")
                return
            with self.server.store_lock:
                ctx.store.refresh_if_stale()  # another process (engine, CLI) may have written
                if parts.path == "/api/summary":
                    self._json(200, summary(ctx))
                elif parts.path == "/api/lessons":
                    self._json(200, lessons(ctx, query.get("tier")))
                elif parts.path == "/api/graph":
                    depth = int(query.get("depth", "2"))
                    self._json(200, graph(ctx, query.get("id") or None, depth))
                elif parts.path == "/api/timeline":
                    if not query.get("topic"):
                        self._json(400, {"error": "topic is required"})
                    else:
                        self._json(200, timeline(ctx, query["topic"]))
                else:
                    self._json(404, {"error": f"no such page {parts.path}"})
        except KeyError as exc:
            self._json(404, {"error": f"no lesson {exc.args[0]}"})
        except ValueError as exc:
            self._json(400, {"error": str(exc)})
        except Exception as exc:
            record_error("ui.request", exc, path=parts.path)
            self._json(500, {"error": f"{type(exc).__name__}: {exc}"})

    do_HEAD = do_GET

    def _read_only(self) -> None:
        self._json(405, {"error": "read-only: only GET and HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _read_only


def make_server(ctx: EngineContext, host: str = "127.0.0.1", port: int = 0, allow_remote: bool = False) -> UIServer:
    """A server ready for ``serve_forever()``. ``port=0`` picks a free port (see ``.url``)."""
    loopback = is_loopback(host)
    if not loopback and not allow_remote:
        raise RemoteBindRefused(
            f"refusing to serve on {host}: not a loopback address. The page shows your lessons; "
            "pass --host explicitly to expose it on the network"
        )
    return UIServer((host.strip("[]"), port), ctx, check_host=loopback)


PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>twiceshy memory</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; color: #222; }
h1 { font-size: 1.4rem; margin: 1rem 0 .2rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #ddd; padding: .25rem .4rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } .num { text-align: right; } .muted { color: #777; }
.tier-principle { color: #6a1b9a; } .tier-rule { color: #b71c1c; } .tier-qa { color: #1565c0; } .tier-raw { color: #555; }
.superseded { text-decoration: line-through; color: #999; }
#tiers span { display: inline-block; margin-right: 1rem; padding: .2rem .6rem; border-radius: .3rem; background: #f1f1f1; }
svg { border: 1px solid #ddd; background: #fcfcfc; max-width: 100%; }
.legend span { margin-right: 1rem; }
</style>
</head>
<body data-ready="0">
<h1>twiceshy memory</h1>
<div class="muted">read-only view; reload to refresh</div>
<h2>Tiers</h2>
<div id="tiers">loading…</div>
<h2>Lessons</h2>
<table id="lessons"><thead><tr><th>tier</th><th>id</th><th class="num">conf</th><th class="num">seen</th><th class="num">followed</th><th class="num">ignored</th><th>topic</th><th>lesson</th></tr></thead><tbody></tbody></table>
<h2>Experience graph</h2>
<div class="legend"><span style="color:#6a1b9a">● principle</span><span style="color:#b71c1c">● rule</span><span style="color:#1565c0">● qa</span><span style="color:#777">● raw</span>
<span>— generalizes</span><span style="color:#e65100">— supersedes</span><span style="color:#999">┄ relates-to</span></div>
<svg id="graph" width="900" height="520" viewBox="0 0 900 520" xmlns="http://www.w3.org/2000/svg"></svg>
<h2>Timeline</h2>
<label>topic <select id="topic"></select></label>
<ol id="timeline"></ol>
<script>
"use strict";
const TIER_COLOR = {principle: "#6a1b9a", rule: "#b71c1c", qa: "#1565c0", raw: "#777"};
const EDGE_STYLE = {generalizes: ["#444", ""], supersedes: ["#e65100", ""], "relates-to": ["#999", "4 3"]};
const SVGNS = "http://www.w3.org/2000/svg";
function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}
async function getJSON(url) {
  const r = await fetch(url, {headers: {"Accept": "application/json"}});
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}
function renderTiers(s) {
  const box = document.getElementById("tiers");
  box.textContent = "";
  for (const [label, n] of Object.entries(s.tiers)) {
    const span = el("span", {"class": "tier tier-" + label, "data-tier": label, "data-count": String(n)}, label + ": " + n);
    box.appendChild(span);
  }
  box.appendChild(el("span", {"class": "muted", id: "total"}, s.lessons + " lessons, " + s.superseded + " superseded"));
}
function renderLessons(list) {
  const body = document.querySelector("#lessons tbody");
  body.textContent = "";
  for (const e of list) {
    const tr = el("tr", {"class": "lesson", "data-id": e.id, "data-tier": e.tier_label});
    tr.appendChild(el("td", {"class": "tier-" + e.tier_label}, e.tier_label));
    tr.appendChild(el("td", {}, e.id));
    tr.appendChild(el("td", {"class": "num"}, Number(e.confidence).toFixed(2)));
    tr.appendChild(el("td", {"class": "num"}, String(e.seen_count)));
    tr.appendChild(el("td", {"class": "num"}, String(e.follows)));
    tr.appendChild(el("td", {"class": "num"}, String(e.ignores)));
    tr.appendChild(el("td", {}, e.topic || ""));
    tr.appendChild(el("td", {"class": e.superseded_by ? "superseded" : ""}, e.text));
    body.appendChild(tr);
  }
}
function layout(nodes) {
  // Rings by tier: principles in the middle, raw lessons outside.
  const order = {principle: 0, rule: 1, qa: 2, raw: 3};
  const rings = [[], [], [], []];
  for (const n of nodes) rings[order[n.tier_label]].push(n);
  const pos = {};
  const cx = 450, cy = 260;
  rings.forEach((ring, i) => {
    const radius = ring.length === 1 && i === 0 ? 0 : 50 + i * 65;
    ring.forEach((n, j) => {
      const a = (2 * Math.PI * j) / Math.max(ring.length, 1) + i * 0.4;
      pos[n.id] = [cx + radius * Math.cos(a), cy + radius * Math.sin(a)];
    });
  });
  return pos;
}
function renderGraph(g) {
  const box = document.getElementById("graph");
  box.textContent = "";
  const pos = layout(g.nodes);
  for (const e of g.edges) {
    const a = pos[e.src], b = pos[e.dst];
    if (!a || !b) continue;
    const [color, dash] = EDGE_STYLE[e.type] || ["#999", ""];
    const line = svg("line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: color, "stroke-width": 1.5,
                              "class": "edge", "data-type": e.type, "data-src": e.src, "data-dst": e.dst});
    if (dash) line.setAttribute("stroke-dasharray", dash);
    line.appendChild(svg("title", {}, e.type));
    box.appendChild(line);
  }
  for (const n of g.nodes) {
    const [x, y] = pos[n.id];
    const group = svg("g", {"class": "node", "data-id": n.id, "data-tier": n.tier_label});
    group.appendChild(svg("circle", {cx: x, cy: y, r: n.tier_label === "principle" ? 11 : 8,
                                     fill: TIER_COLOR[n.tier_label], opacity: n.superseded_by ? 0.35 : 0.9}));
    group.appendChild(svg("title", {}, "[" + n.tier_label + "] " + n.text));
    group.appendChild(svg("text", {x: x + 10, y: y + 4, "font-size": 10, fill: "#333"}, n.text.slice(0, 28)));
    box.appendChild(group);
  }
}
async function renderTimeline(topic) {
  const list = document.getElementById("timeline");
  list.textContent = "";
  if (!topic) return;
  const items = await getJSON("/api/timeline?topic=" + encodeURIComponent(topic));
  for (const e of items) {
    const when = new Date(e.created_at * 1000).toISOString().slice(0, 16).replace("T", " ");
    const li = el("li", {"class": "event", "data-id": e.id, "data-tier": e.tier_label});
    li.appendChild(el("span", {"class": "muted"}, when + " "));
    li.appendChild(el("span", {"class": "tier-" + e.tier_label}, "[" + e.tier_label + "] "));
    li.appendChild(el("span", {"class": e.superseded_by ? "superseded" : ""}, e.text));
    if (e.superseded_by) li.appendChild(el("span", {"class": "muted"}, " — superseded by " + e.superseded_by));
    list.appendChild(li);
  }
}
async function main() {
  try {
    const [s, list, g] = await Promise.all([getJSON("/api/summary"), getJSON("/api/lessons"), getJSON("/api/graph")]);
    renderTiers(s);
    renderLessons(list);
    renderGraph(g);
    const select = document.getElementById("topic");
    for (const t of s.topics) select.appendChild(el("option", {value: t.topic}, t.topic + " (" + t.lessons + ")"));
    const wanted = new URLSearchParams(location.search).get("topic");
    if (wanted) select.value = wanted;
    select.addEventListener("change", () => renderTimeline(select.value));
    await renderTimeline(select.value);
    document.body.setAttribute("data-ready", "1");
  } catch (err) {
    document.body.setAttribute("data-ready", "error");
    document.body.appendChild(el("pre", {id: "error"}, String(err)));
  }
}
main();
</script>
</body>
</html>
"""


__all__ = [
    "PAGE",
    "RemoteBindRefused",
    "UIServer",
    "graph",
    "is_loopback",
    "lessons",
    "make_server",
    "summary",
    "timeline",
]
