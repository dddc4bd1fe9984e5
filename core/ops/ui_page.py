"""The dashboard page of ``twiceshy ui``: one HTML document with inline CSS and JS.

Kept as a Python string (no package data files to ship). Nothing is loaded from
anywhere else: no CDN, no fonts, no images; the page's Content-Security-Policy
(set by :mod:`twiceshy.ops.ui`) allows only inline script and style and
``fetch`` to its own origin. Data is inserted with ``textContent`` and
``setAttribute`` only, never as HTML. ``__CSRF_TOKEN__`` is replaced by the
server's per-process token; every change is a POST carrying it in the
``X-Twiceshy-Token`` header.

Hooks for tests and scripts: ``body[data-ready]`` is ``1`` once everything
rendered (``error`` on failure), ``#status[data-state]`` says how the last
action went, and counts sit in ``data-*`` attributes next to their text.
"""

from __future__ import annotations

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="twiceshy-token" content="__CSRF_TOKEN__">
<title>twiceshy dashboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 1.5rem 2rem; color: #222; background: #fff; }
h1 { font-size: 1.4rem; margin: 1rem 0 .2rem; } h2 { font-size: 1.1rem; margin: 1.6rem 0 .5rem; }
h3 { font-size: 1rem; margin: .8rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; } td, th { border-bottom: 1px solid #ddd; padding: .25rem .4rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } .num { text-align: right; font-variant-numeric: tabular-nums; } .muted { color: #777; }
.tier-principle { color: #6a1b9a; } .tier-rule { color: #b71c1c; } .tier-qa { color: #1565c0; } .tier-raw { color: #555; }
.superseded { text-decoration: line-through; color: #999; }
.chips span { display: inline-block; margin: 0 .6rem .4rem 0; padding: .2rem .6rem; border-radius: .3rem; background: #f1f1f1; }
.cards { display: flex; flex-wrap: wrap; gap: .6rem; }
.card { border: 1px solid #ddd; border-radius: .4rem; padding: .5rem .8rem; min-width: 8rem; }
.card b { display: block; font-size: 1.5rem; font-variant-numeric: tabular-nums; }
.card i { display: inline-block; width: .7rem; height: .7rem; border-radius: .15rem; margin-right: .3rem; }
.cols { display: grid; grid-template-columns: 1fr 1fr; gap: 1.5rem; }
@media (max-width: 1000px) { .cols { grid-template-columns: 1fr; } }
svg { border: 1px solid #ddd; background: #fcfcfc; }
.scroll { overflow: auto; max-width: 100%; max-height: 640px; }
.legend span { margin-right: 1rem; }
button { font: inherit; padding: .1rem .5rem; margin-right: .2rem; cursor: pointer; }
button.armed { background: #b71c1c; color: #fff; border-color: #b71c1c; }
#status { min-height: 1.4em; margin: .4rem 0; } #status[data-state="error"] { color: #b71c1c; } #status[data-state="ok"] { color: #2e7d32; }
#editor { border: 1px solid #bbb; border-radius: .4rem; padding: .8rem; margin: .6rem 0; background: #fafafa; }
#editor[hidden] { display: none; }
#editor label { display: block; margin: .3rem 0; } #editor textarea, #editor input[type=text] { width: 100%; box-sizing: border-box; }
.reasons, .badge { color: #b71c1c; } .badge { font-size: .8em; margin-left: .4rem; }
td.actions { white-space: nowrap; }
</style>
</head>
<body data-ready="0">
<h1>twiceshy dashboard</h1>
<div class="muted"><span id="version"></span> · local only · <label>window <select id="days">
<option value="7">7 days</option><option value="14" selected>14 days</option><option value="30">30 days</option></select></label>
· <button type="button" id="reload">refresh</button> <span id="updated"></span></div>
<div id="status" role="status" aria-live="polite"></div>

<h2>Is it helping?</h2>
<div class="cards" id="totals"></div>
<h3>Outcomes per day</h3>
<div class="legend" id="outcome-legend"></div>
<div class="scroll"><svg id="outcome-chart" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="outcomes per day"></svg></div>
<details><summary>as a table</summary>
<table id="outcomes"><thead><tr><th>day</th></tr></thead><tbody></tbody></table></details>
<p class="muted">warned / held / denied: pre-tool calls answered with a warning, a one-time hold, a rule's deny, that reached the agent.
avoided: after a hold or deny, the fix ran and worked. ignored: the held call ran anyway (or a warning was not heeded).
overridden: the held call was sent again and worked (the lesson was wrong for it). false holds: the held call was the fix.
not delivered: a hold, deny or warning the agent never got (its client gave up waiting).
failed open: calls let through unchecked because the engine did not answer.</p>
<h3>Lessons corrected by their own outcomes</h3>
<table id="corrected"><thead><tr><th>lesson</th><th>changes</th><th>evidence</th></tr></thead><tbody></tbody></table>

<div class="cols">
<div><h3>Lessons that helped most</h3>
<table id="most"><thead><tr><th>lesson</th><th class="num">matched</th><th class="num">held</th><th class="num">denied</th><th class="num">avoided</th><th class="num">overridden</th><th class="num">false holds</th><th class="num">followed</th><th class="num">ignored</th><th class="num">irrelevant</th></tr></thead><tbody></tbody></table></div>
<div><h3>Lessons that helped least</h3>
<table id="least"><thead><tr><th>lesson</th><th class="num">matched</th><th class="num">held</th><th class="num">denied</th><th class="num">avoided</th><th class="num">overridden</th><th class="num">false holds</th><th class="num">followed</th><th class="num">ignored</th><th class="num">irrelevant</th></tr></thead><tbody></tbody></table></div>
</div>

<h2>Held for review <span class="muted" id="held-count"></span></h2>
<p class="muted">The poisoning guard keeps these away from agents until you approve them; reject deletes.</p>
<table id="held"><thead><tr><th>id</th><th>lesson</th><th>why held</th><th>source</th><th></th></tr></thead><tbody><tr><td colspan="5" class="muted">checking…</td></tr></tbody></table>

<h2>Search</h2>
<form id="search-form"><input id="q" type="search" size="60" placeholder="a command or a few words" aria-label="search lessons">
<button type="submit">search</button></form>
<table id="results"><thead><tr><th class="num">score</th><th>tier</th><th>id</th><th>lesson</th><th></th></tr></thead><tbody></tbody></table>

<form id="editor" hidden>
<h3>Edit <span id="edit-id"></span></h3>
<label>advice <textarea id="edit-text" rows="3"></textarea></label>
<label>trigger (what it warns about) <input type="text" id="edit-trigger"></label>
<label>tier <select id="edit-tier"><option>principle</option><option>rule</option><option>qa</option><option>raw</option></select></label>
<label>confidence <input type="number" id="edit-confidence" min="0" max="1" step="0.01"></label>
<label>tags (space separated) <input type="text" id="edit-tags"></label>
<label>topic <input type="text" id="edit-topic"></label>
<button type="submit" id="edit-save">save</button><button type="button" id="edit-cancel">cancel</button>
</form>

<h2>Tiers</h2>
<div id="tiers" class="chips">loading…</div>
<h2>Lessons <span class="muted" id="lessons-shown"></span></h2>
<table id="lessons"><thead><tr><th>tier</th><th>id</th><th class="num">conf</th><th class="num">seen</th><th class="num">followed</th><th class="num">ignored</th><th>topic</th><th>lesson</th><th></th></tr></thead><tbody></tbody></table>
<h2>Experience graph</h2>
<div class="legend"><span style="color:#6a1b9a">● principle</span><span style="color:#b71c1c">● rule</span><span style="color:#1565c0">● qa</span><span style="color:#777">● raw</span>
<span>— generalizes</span><span style="color:#e65100">— supersedes</span><span style="color:#999">┄ relates-to</span></div>
<div class="scroll"><svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg></div>
<h2>Timeline</h2>
<label>topic <select id="topic"></select></label>
<ol id="timeline"></ol>
<script>
"use strict";
const TOKEN = document.querySelector('meta[name="twiceshy-token"]').content;
const TIER_COLOR = {principle: "#6a1b9a", rule: "#b71c1c", qa: "#1565c0", raw: "#777"};
const EDGE_STYLE = {generalizes: ["#444", ""], supersedes: ["#e65100", ""], "relates-to": ["#999", "4 3"]};
const OUTCOMES = [["warned", "#f9a825"], ["held", "#1565c0"], ["denied", "#b71c1c"], ["avoided", "#2e7d32"],
                  ["ignored", "#6d4c41"], ["overridden", "#ad1457"], ["false_holds", "#ff6f00"],
                  ["not_delivered", "#78909c"], ["failed_open", "#9e9e9e"]];
const USEFUL_COLS = ["matched", "held", "denied", "avoided", "overridden", "false_holds", "followed", "ignored", "irrelevant"];
const LESSON_LIMIT = 300;
const SVGNS = "http://www.w3.org/2000/svg";
let lessonCache = {};

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
function label(name) { return name.replace("_", " "); }
async function getJSON(url) {
  const r = await fetch(url, {headers: {"Accept": "application/json"}});
  const data = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) throw new Error(data.error || (url + ": " + r.status));
  return data;
}
async function post(url, body) {
  const r = await fetch(url, {method: "POST", body: JSON.stringify(body),
    headers: {"Content-Type": "application/json", "Accept": "application/json", "X-Twiceshy-Token": TOKEN}});
  const data = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) throw new Error(data.error || (url + ": " + r.status));
  return data;
}
function status(text, state) {
  const box = document.getElementById("status");
  box.textContent = text;
  box.setAttribute("data-state", state);
}
function cell(tr, text, cls) { tr.appendChild(el("td", cls ? {"class": cls} : {}, text)); }

// ---- outcomes -------------------------------------------------------------
function renderOutcomes(data) {
  const totals = document.getElementById("totals");
  totals.textContent = "";
  for (const [k, color] of OUTCOMES) {
    const card = el("div", {"class": "card", "data-outcome": k, "data-count": String(data.totals[k])});
    const name = el("span", {}, "");
    name.appendChild(el("i", {style: "background:" + color}));
    name.appendChild(document.createTextNode(label(k)));
    card.appendChild(name);
    card.appendChild(el("b", {}, String(data.totals[k])));
    totals.appendChild(card);
  }
  const legend = document.getElementById("outcome-legend");
  legend.textContent = "";
  for (const [k, color] of OUTCOMES) legend.appendChild(el("span", {style: "color:" + color}, "■ " + label(k)));
  // Table (the exact numbers)
  const head = document.querySelector("#outcomes thead tr");
  head.textContent = "";
  head.appendChild(el("th", {}, "day"));
  for (const [k] of OUTCOMES) head.appendChild(el("th", {"class": "num"}, label(k)));
  const body = document.querySelector("#outcomes tbody");
  body.textContent = "";
  for (const day of data.days) {
    const tr = el("tr", {"class": "day", "data-date": day.date});
    cell(tr, day.date);
    for (const [k] of OUTCOMES) tr.appendChild(el("td", {"class": "num", "data-outcome": k}, String(day[k])));
    body.appendChild(tr);
  }
  // Grouped bars: one group per day, one bar per outcome.
  const chart = document.getElementById("outcome-chart");
  chart.textContent = "";
  const bar = 9, gap = 14, left = 36, top = 16, plot = 170;
  const group = OUTCOMES.length * bar + gap;
  const width = left + data.days.length * group + 10, height = top + plot + 34;
  chart.setAttribute("width", width); chart.setAttribute("height", height);
  chart.setAttribute("viewBox", "0 0 " + width + " " + height);
  let max = 1;
  for (const day of data.days) for (const [k] of OUTCOMES) max = Math.max(max, day[k]);
  const base = top + plot;
  for (const frac of [0, 0.5, 1]) {
    const y = base - frac * plot, value = Math.round(frac * max);
    chart.appendChild(svg("line", {x1: left - 4, x2: width - 6, y1: y, y2: y, stroke: frac ? "#eee" : "#999"}));
    chart.appendChild(svg("text", {x: left - 6, y: y + 4, "font-size": 10, "text-anchor": "end", fill: "#555"}, String(value)));
  }
  data.days.forEach((day, i) => {
    const x0 = left + i * group + gap / 2;
    OUTCOMES.forEach(([k, color], j) => {
      const h = day[k] ? Math.max(2, (day[k] / max) * plot) : 0;
      const rect = svg("rect", {x: x0 + j * bar, y: base - h, width: bar - 1, height: h, fill: color,
                                "class": "bar", "data-date": day.date, "data-outcome": k, "data-value": String(day[k])});
      rect.appendChild(svg("title", {}, day.date + " " + label(k) + ": " + day[k]));
      chart.appendChild(rect);
    });
    chart.appendChild(svg("text", {x: x0 + (OUTCOMES.length * bar) / 2, y: base + 14, "font-size": 10,
                                   "text-anchor": "middle", fill: "#555"}, day.date.slice(5)));
  });
  const noData = data.days.every((d) => OUTCOMES.every(([k]) => !d[k]));
  if (noData) chart.appendChild(svg("text", {x: left + 10, y: top + plot / 2, "font-size": 12, fill: "#777"},
                                    "nothing recorded in this window yet"));
}

// ---- lessons that helped most / least -------------------------------------
function lessonCell(tr, row) {
  const td = el("td", {});
  td.appendChild(el("span", {"class": "tier-" + row.tier_label}, "[" + row.tier_label + "] "));
  td.appendChild(el("span", {}, row.text));
  td.appendChild(el("div", {"class": "muted"}, row.id));
  tr.appendChild(td);
}
function renderUseful(data) {
  for (const which of ["most", "least"]) {
    const body = document.querySelector("#" + which + " tbody");
    body.textContent = "";
    if (!data[which].length) {
      const tr = el("tr", {"class": "empty"});
      tr.appendChild(el("td", {colspan: USEFUL_COLS.length + 1, "class": "muted"}, "no judged lessons yet"));
      body.appendChild(tr);
    }
    for (const row of data[which]) {
      const tr = el("tr", {"class": "useful", "data-id": row.id});
      lessonCell(tr, row);
      for (const k of USEFUL_COLS) {
        tr.appendChild(el("td", {"class": "num", "data-k": k}, String(row[k] === undefined ? 0 : row[k])));
      }
      body.appendChild(tr);
    }
  }
}
function renderCorrected(rows) {
  const body = document.querySelector("#corrected tbody");
  body.textContent = "";
  if (!rows || !rows.length) {
    const tr = el("tr", {"class": "empty"});
    tr.appendChild(el("td", {colspan: 3, "class": "muted"}, "no lesson corrected in this window"));
    body.appendChild(tr);
    return;
  }
  for (const row of rows) {
    const tr = el("tr", {"class": "corrected", "data-id": row.id});
    tr.appendChild(el("td", {}, row.id));
    tr.appendChild(el("td", {}, row.changes.join(", ")));
    const ev = row.evidence || {};
    tr.appendChild(el("td", {"class": "muted"}, (ev.outcome || ev.source || "") + (ev.call ? ": " + ev.call : "")));
    body.appendChild(tr);
  }
}

// ---- actions --------------------------------------------------------------
function armedButton(text, armedText, action) {
  // Destructive actions take two clicks (no confirm() dialog: it blocks automation and is easy to click through).
  const b = el("button", {type: "button"}, text);
  let timer = null;
  b.addEventListener("click", async () => {
    if (!b.classList.contains("armed")) {
      b.classList.add("armed"); b.textContent = armedText;
      timer = setTimeout(() => { b.classList.remove("armed"); b.textContent = text; }, 6000);
      return;
    }
    clearTimeout(timer);
    b.disabled = true;
    await action();
    b.disabled = false;
  });
  return b;
}
async function act(url, body, done) {
  status("working…", "busy");
  document.body.dataset.busy = "1";
  try {
    const out = await post(url, body);
    await refresh();
    status(done(out), "ok");
  } catch (err) {
    status(String(err.message || err), "error");
  } finally {
    document.body.dataset.busy = "0";
  }
}
function actions(exp) {
  const td = el("td", {"class": "actions"});
  const edit = el("button", {type: "button", "class": "edit"}, "edit");
  edit.addEventListener("click", () => openEditor(exp));
  td.appendChild(edit);
  const forget = armedButton("forget", "really forget?", () =>
    act("/api/forget", {id: exp.id}, () => "forgot " + exp.id));
  forget.classList.add("forget");
  td.appendChild(forget);
  return td;
}
function openEditor(exp) {
  const form = document.getElementById("editor");
  form.hidden = false;
  form.dataset.id = exp.id;
  document.getElementById("edit-id").textContent = exp.id;
  document.getElementById("edit-text").value = exp.text;
  document.getElementById("edit-trigger").value = exp.trigger;
  document.getElementById("edit-tier").value = exp.tier_label;
  document.getElementById("edit-confidence").value = Number(exp.confidence).toFixed(2);
  document.getElementById("edit-tags").value = (exp.tags || []).filter((t) => !t.startsWith("review")).join(" ");
  document.getElementById("edit-topic").value = exp.topic || "";
  form.scrollIntoView({block: "nearest"});
  document.getElementById("edit-text").focus();
}
async function saveEditor(ev) {
  ev.preventDefault();
  const form = document.getElementById("editor");
  const exp = lessonCache[form.dataset.id];
  const changes = {
    text: document.getElementById("edit-text").value,
    trigger: document.getElementById("edit-trigger").value,
    tier: document.getElementById("edit-tier").value,
    confidence: Number(document.getElementById("edit-confidence").value),
    tags: document.getElementById("edit-tags").value,
    topic: document.getElementById("edit-topic").value,
  };
  if (exp) {  // send only what changed: the server then re-embeds only for a new text or trigger
    if (changes.text === exp.text) delete changes.text;
    if (changes.trigger === exp.trigger) delete changes.trigger;
    if (changes.tier === exp.tier_label) delete changes.tier;
    if (Math.abs(changes.confidence - exp.confidence) < 0.005) delete changes.confidence;
    if (changes.topic === (exp.topic || "")) delete changes.topic;
    const own = (exp.tags || []).filter((t) => !t.startsWith("review")).join(" ");
    if (changes.tags.trim().split(/\s+/).join(" ") === own) delete changes.tags;
  }
  if (!Object.keys(changes).length) {
    form.hidden = true;
    status("no change", "ok");
    return;
  }
  await act("/api/edit", {id: form.dataset.id, changes: changes}, (out) => {
    form.hidden = true;
    return out.changed.length ? "edited " + out.lesson.id + ": " + out.changed.join(", ") : "no change";
  });
}

// ---- held for review --------------------------------------------------------
function renderHeld(list) {
  document.getElementById("held-count").textContent = "(" + list.length + ")";
  const body = document.querySelector("#held tbody");
  body.textContent = "";
  if (!list.length) {
    const tr = el("tr", {"class": "empty"});
    tr.appendChild(el("td", {colspan: 5, "class": "muted"}, "nothing held"));
    body.appendChild(tr);
  }
  for (const exp of list) {
    const tr = el("tr", {"class": "held", "data-id": exp.id});
    cell(tr, exp.id);
    const td = el("td", {});
    td.appendChild(el("span", {"class": "tier-" + exp.tier_label}, "[" + exp.tier_label + "] "));
    td.appendChild(el("span", {}, exp.text));
    td.appendChild(el("div", {"class": "muted"}, "trigger: " + exp.trigger));
    tr.appendChild(td);
    cell(tr, (exp.reasons || []).join("; ") || "risky command", "reasons");
    cell(tr, exp.source || "-", "muted");
    const acts = el("td", {});
    const approve = el("button", {type: "button", "class": "approve"}, "approve");
    approve.addEventListener("click", () =>
      act("/api/review", {id: exp.id, action: "approve"}, () => "approved " + exp.id + ": agents see it from now on"));
    acts.appendChild(approve);
    const reject = armedButton("reject", "really delete?", () =>
      act("/api/review", {id: exp.id, action: "reject"}, () => "rejected (deleted) " + exp.id));
    reject.classList.add("reject");
    acts.appendChild(reject);
    tr.appendChild(acts);
    body.appendChild(tr);
  }
}

// ---- search -----------------------------------------------------------------
async function runSearch(ev) {
  if (ev) ev.preventDefault();
  const q = document.getElementById("q").value.trim();
  const body = document.querySelector("#results tbody");
  if (!q) { body.textContent = ""; return; }
  const found = await getJSON("/api/search?k=10&q=" + encodeURIComponent(q));
  body.textContent = "";
  document.getElementById("results").setAttribute("data-query", q);
  for (const exp of found) {
    lessonCache[exp.id] = exp;
    const tr = el("tr", {"class": "result", "data-id": exp.id});
    cell(tr, Number(exp.score).toFixed(3), "num");
    cell(tr, exp.tier_label, "tier-" + exp.tier_label);
    cell(tr, exp.id);
    cell(tr, exp.text, exp.superseded_by ? "superseded" : "");
    tr.appendChild(actions(exp));
    body.appendChild(tr);
  }
  if (!found.length) {
    const tr = el("tr", {"class": "empty"});
    tr.appendChild(el("td", {colspan: 5, "class": "muted"}, "no lesson matches"));
    body.appendChild(tr);
  }
}

// ---- store overview ---------------------------------------------------------
function renderTiers(s) {
  const box = document.getElementById("tiers");
  box.textContent = "";
  for (const [name, n] of Object.entries(s.tiers)) {
    box.appendChild(el("span", {"class": "tier tier-" + name, "data-tier": name, "data-count": String(n)}, name + ": " + n));
  }
  box.appendChild(el("span", {"class": "muted", id: "total"}, s.lessons + " lessons, " + s.superseded + " superseded"));
  document.getElementById("version").textContent = "twiceshy " + s.version;
}
function renderLessons(list, total) {
  const body = document.querySelector("#lessons tbody");
  body.textContent = "";
  document.getElementById("lessons-shown").textContent =
    list.length < total ? "(" + list.length + " of " + total + ", strongest tiers first; search for the rest)" : "";
  for (const e of list) {
    lessonCache[e.id] = e;
    const tr = el("tr", {"class": "lesson", "data-id": e.id, "data-tier": e.tier_label});
    cell(tr, e.tier_label, "tier-" + e.tier_label);
    cell(tr, e.id);
    cell(tr, Number(e.confidence).toFixed(2), "num");
    cell(tr, String(e.seen_count), "num");
    cell(tr, String(e.follows), "num");
    cell(tr, String(e.ignores), "num");
    cell(tr, e.topic || "");
    const text = el("td", {"class": e.superseded_by ? "superseded" : ""}, e.text);
    if ((e.tags || []).includes("review:held")) text.appendChild(el("span", {"class": "badge"}, "held for review"));
    tr.appendChild(text);
    tr.appendChild(actions(e));
    body.appendChild(tr);
  }
}
// Graph: one column per tier (principles left, raw right), one row per lesson, so no two labels
// can share a line; a tier with many lessons wraps into several columns. Labels are cut to the
// column width (the full text is in the tooltip).
const ROW = 20, COL = 230, PER_COL = 30, CHAR = 6.2;
function layout(nodes) {
  const order = ["principle", "rule", "qa", "raw"];
  const pos = {}, heads = [];
  let col = 0, rows = 0;
  for (const tier of order) {
    const ring = nodes.filter((n) => n.tier_label === tier);
    if (!ring.length) continue;
    heads.push([tier, 20 + col * COL, ring.length]);
    ring.forEach((n, j) => {
      const c = col + Math.floor(j / PER_COL), r = j % PER_COL;
      pos[n.id] = [20 + c * COL, 40 + r * ROW];
      rows = Math.max(rows, r + 1);
    });
    col += Math.ceil(ring.length / PER_COL);
  }
  return {pos: pos, heads: heads, width: Math.max(col, 1) * COL + 20, height: 50 + rows * ROW};
}
function countOverlaps(boxes) {
  let n = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) n++;
  }
  return n;
}
function renderGraph(g) {
  const box = document.getElementById("graph");
  box.textContent = "";
  const lay = layout(g.nodes), pos = lay.pos;
  box.setAttribute("width", lay.width); box.setAttribute("height", lay.height);
  box.setAttribute("viewBox", "0 0 " + lay.width + " " + lay.height);
  for (const [tier, x, n] of lay.heads) {
    box.appendChild(svg("text", {x: x - 6, y: 16, "font-size": 11, "font-weight": "bold", fill: TIER_COLOR[tier],
                                 "class": "column"}, tier + " (" + n + ")"));
  }
  // Nodes first (their label widths place the edges), then edges inserted beneath them.
  const maxChars = Math.floor((COL - 24) / CHAR);
  const labelEnd = {};
  const under = svg("g", {"class": "edges"});
  box.appendChild(under);
  for (const n of g.nodes) {
    const [x, y] = pos[n.id];
    const group = svg("g", {"class": "node", "data-id": n.id, "data-tier": n.tier_label});
    group.appendChild(svg("circle", {cx: x, cy: y, r: n.tier_label === "principle" ? 7 : 5,
                                     fill: TIER_COLOR[n.tier_label], opacity: n.superseded_by ? 0.35 : 0.9}));
    group.appendChild(svg("title", {}, "[" + n.tier_label + "] " + n.text + " (" + n.id + ")"));
    const text = n.text.length > maxChars ? n.text.slice(0, maxChars - 1) + "…" : n.text;
    const label = svg("text", {x: x + 10, y: y + 4, "font-size": 10, fill: n.superseded_by ? "#999" : "#333",
                               "class": "label"}, text);
    group.appendChild(label);
    box.appendChild(group);
    labelEnd[n.id] = x + 10 + label.getComputedTextLength() + 4;
  }
  for (const e of g.edges) {
    if (!pos[e.src] || !pos[e.dst]) continue;
    const [color, dash] = EDGE_STYLE[e.type] || ["#999", ""];
    let d;
    if (pos[e.src][0] === pos[e.dst][0]) {  // same column: bow out to the left of the dots, clear of the labels
      const a = pos[e.src], b = pos[e.dst];
      const bow = 6 + Math.min(14, Math.abs(a[1] - b[1]) / 12);
      d = "M" + a[0] + "," + a[1] + " C" + (a[0] - bow) + "," + a[1] + " " + (b[0] - bow) + "," + b[1] + " " + b[0] + "," + b[1];
    } else {  // left to right: from the end of the left lesson's label to the right lesson's dot
      const [l, r] = pos[e.src][0] < pos[e.dst][0] ? [e.src, e.dst] : [e.dst, e.src];
      const a = [labelEnd[l], pos[l][1]], b = pos[r];
      const mid = (a[0] + b[0]) / 2;
      d = "M" + a[0] + "," + a[1] + " C" + mid + "," + a[1] + " " + mid + "," + b[1] + " " + b[0] + "," + b[1];
    }
    const path = svg("path", {d: d, fill: "none", stroke: color, "stroke-width": 1.4, opacity: 0.8,
                              "class": "edge", "data-type": e.type, "data-src": e.src, "data-dst": e.dst});
    if (dash) path.setAttribute("stroke-dasharray", dash);
    path.appendChild(svg("title", {}, e.type));
    under.appendChild(path);
  }
  const boxes = Array.from(box.querySelectorAll("text.label, text.column")).map((t) => t.getBBox());
  box.setAttribute("data-label-overlaps", String(countOverlaps(boxes)));
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

async function refresh() {
  const days = document.getElementById("days").value;
  const [outcomes, useful, s, list] = await Promise.all([
    getJSON("/api/outcomes?days=" + days), getJSON("/api/usefulness"), getJSON("/api/summary"),
    getJSON("/api/lessons?limit=" + LESSON_LIMIT)]);
  renderOutcomes(outcomes);
  renderCorrected(outcomes.corrected);
  renderUseful(useful);
  renderTiers(s);
  renderLessons(list, s.lessons);
  // Last: the first look for held lessons reads every lesson (slow on a big store).
  renderGraph(await getJSON("/api/graph"));
  renderHeld(await getJSON("/api/review"));
  const select = document.getElementById("topic");
  const current = select.value || new URLSearchParams(location.search).get("topic") || "";
  select.textContent = "";
  for (const t of s.topics) {
    select.appendChild(el("option", {value: t.topic}, t.topic + " (" + t.lessons + ")"));
  }
  if (current && s.topics.some((t) => t.topic === current)) select.value = current;
  await renderTimeline(select.value);
  if (document.getElementById("q").value.trim()) await runSearch();
  document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
}
// Outcomes move while agents work: refresh every minute while the page is seen and nothing is half done.
function idle() {
  return document.visibilityState === "visible" && document.getElementById("editor").hidden &&
    !document.querySelector("button.armed") && document.body.dataset.busy !== "1";
}
async function main() {
  document.getElementById("search-form").addEventListener("submit", (ev) =>
    runSearch(ev).catch((err) => status(String(err.message || err), "error")));
  document.getElementById("editor").addEventListener("submit", saveEditor);
  document.getElementById("edit-cancel").addEventListener("click", () => { document.getElementById("editor").hidden = true; });
  document.getElementById("topic").addEventListener("change", (ev) => renderTimeline(ev.target.value));
  document.getElementById("days").addEventListener("change", () =>
    refresh().catch((err) => status(String(err.message || err), "error")));
  document.getElementById("reload").addEventListener("click", () =>
    refresh().catch((err) => status(String(err.message || err), "error")));
  setInterval(() => { if (idle()) refresh().catch((err) => status(String(err.message || err), "error")); }, 60000);
  try {
    await refresh();
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

__all__ = ["PAGE"]
