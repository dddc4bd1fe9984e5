"""``twiceshy stats``: is the memory earning its keep?

Figures for a window (``--since 7d``), from three records twiceshy keeps anyway:

* the engine's event log (``<data dir>/events.jsonl`` and its rotated
  ``.1``; one line per hook call with ``kind``, ``action`` and ``ms``): hook
  calls, warnings shown, calls blocked, hit rate, p50/p95 hook latency as the
  engine measured it (request read to reply sent). Spooled events (post-tool,
  session end) are answered at once and applied later; the later entries
  (``path: background``) are not hook calls and give a separate figure;
* the judge's ledger (``judge.verdicts()``, counted verdicts only) plus manual
  ``twiceshy feedback`` (``<data dir>/feedback.jsonl``): followed, ignored,
  irrelevant. A **mistake avoided** is a counted FOLLOWED verdict on a warning
  that reached the model *before* its call: a hold (the call was denied once
  and the agent then did something else) or a warning delivered ahead of the
  call. Context that arrived with the result of the call it warned about
  (``retrieval.warn: context`` on every CLI measured) is never FOLLOWED, a
  silenced warning (``off``) is neither shown nor judged, and a rule's deny is
  counted as *denied*, not avoided;
* the hook client's record of the calls the engine did not answer
  (``<data dir>/failopen.jsonl``, :func:`twiceshy.hooks.wire.record_failopen`):
  each pre-tool call let through unchecked, with its reason (engine
  starting, timeout, no engine, error …), denied from the rules snapshot, or
  held from the hold index (:mod:`twiceshy.hooks.coldhold`; counted as held).
  They count as pre-tool calls (once, by request id, also when the engine
  answered too late);
* the store: lessons per tier, and how many were learned in the window,
  counted from the metadata indexes without reading a lesson
  (:mod:`twiceshy.memory.census`).

* the corrections log (``<data dir>/corrections.jsonl``,
  :mod:`twiceshy.recall.outcomes`): the lessons their own outcomes corrected
  (narrowed, moved to context, demoted), each change with its evidence.

Every decision counts once, as what it was: a pre-tool call is counted from the
engine's line (written before the reply is sent, so a ``kill -9`` loses no
count) or, when the engine never logged it, from the client's record; a hold,
deny or warning whose reply never reached the agent (the client gave up on it,
or the send failed) is *not delivered*, not held. Outcomes of holds and denies
(*avoided*, *ignored*, *overridden*, *false holds*, *unclear*) and of warnings
(*followed*, *ignored*, *irrelevant*) come from the judge's ledger ``outcome``.

Definitions: *hit rate* = pre-tool calls that got a warning, a hold or a block / all
pre-tool calls; *warned* / *held* / *denied* = pre-tool calls answered with
context, a one-time hold, a rule's deny, and delivered; *adherence* = followed / (followed + ignored); *precision* =
1 - irrelevant / all decisive verdicts.
"""

from __future__ import annotations

import bisect
import json
import math
import os
import re
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.paths import data_dir

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

# Deliveries (judge ledger ``kind``) that reach the model before the call runs.
AVOIDING_KINDS = frozenset({"hold", "warn"})
STOPPING_KINDS = frozenset({"hold", "deny"})  # the call did not run (twiceshy.recall.outcomes)
HOLD_OUTCOMES = ("avoided", "ignored", "overridden", "false_hold", "unclear")
WARN_OUTCOMES = ("followed", "ignored", "irrelevant", "unclear")


def outcome_of(row: dict[str, Any]) -> str:
    """A ledger row's outcome; rows written before outcomes were recorded are read
    from their verdict (a hold's FOLLOWED was then "avoided"; a legacy row with no
    delivery kind is a warning's)."""
    outcome = str(row.get("outcome") or "")
    if outcome:
        return outcome
    verdict = str(row.get("verdict") or "").upper()
    if row.get("kind") in STOPPING_KINDS:
        return {"FOLLOWED": "avoided", "IGNORED": "ignored", "IRRELEVANT": "false_hold"}.get(verdict, "unclear")
    return {"FOLLOWED": "followed", "IGNORED": "ignored", "IRRELEVANT": "irrelevant"}.get(verdict, "unclear")


_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.IGNORECASE)
_UNIT_S = {"": 86400, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str | None) -> float | None:
    """Seconds in ``7d`` / ``12h`` / ``30m`` / ``2w`` / ``90s`` (a bare number is days);
    ``None`` for ``all``. Raises ``ValueError`` otherwise."""
    if text is None or str(text).strip().lower() in ("", "all"):
        return None
    match = _SINCE.match(str(text))
    if not match:
        raise ValueError(f"cannot read {text!r}: use e.g. 7d, 12h, 30m, 2w or all")
    return float(match.group(1)) * _UNIT_S[match.group(2).lower()]


def feedback_path() -> Path:
    return data_dir() / "feedback.jsonl"


def record_feedback(exp_id: str, verdict: str, note: str = "") -> None:
    """Append one manual verdict (``twiceshy feedback``) so stats count it."""
    path = feedback_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"ts": time.time(), "exp_id": exp_id, "verdict": verdict.upper(), "note": note}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def _jsonl(paths: Iterable[Path]) -> Iterable[dict[str, Any]]:
    for path in paths:
        try:
            fh = open(path, encoding="utf-8", errors="replace")
        except OSError:
            continue
        with fh:
            for line in fh:
                line = line.strip()
                if not line:
                    continue
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict):
                    yield item


def read_events(cutoff: float | None = None) -> list[dict[str, Any]]:
    """Hook calls from the engine's event log (rotated file first), newer than ``cutoff``."""
    from twiceshy.engine.server import EnginePaths

    log = EnginePaths(data_dir()).events
    out = []
    for item in _jsonl([log.with_name(log.name + ".1"), log]):
        ts = item.get("ts")
        if not isinstance(ts, (int, float)) or (cutoff is not None and ts < cutoff):
            continue
        out.append(item)
    return out


def _spool_state() -> dict[str, Any]:
    """The spool's size against its cap: a full spool refuses (drops) new events."""
    from twiceshy.hooks.wire import MAX_SPOOL_BYTES, spool_path

    try:
        size = os.path.getsize(spool_path(data_dir()))
    except OSError:
        size = 0
    return {"bytes": size, "cap_bytes": MAX_SPOOL_BYTES, "full": size >= MAX_SPOOL_BYTES - 1024 * 1024}


def read_failopen(cutoff: float | None = None) -> list[dict[str, Any]]:
    """Calls the hook client answered without the engine (rotated file first), newer than ``cutoff``."""
    from twiceshy.hooks.wire import failopen_path

    path = Path(failopen_path(data_dir()))
    return [
        item
        for item in _jsonl([path.with_name(path.name + ".1"), path])
        if isinstance(item.get("ts"), (int, float)) and (cutoff is None or item["ts"] >= cutoff)
    ]


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100); ``None`` for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def _latency(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50_ms": percentile(values, 50),
        "p95_ms": percentile(values, 95),
        "max_ms": max(values) if values else None,
    }


def _undelivered(events: list[dict[str, Any]], client: list[dict[str, Any]]) -> set[str]:
    """Wire ids of engine answers that never reached the agent: the client gave up
    on them (it wrote the id to failopen.jsonl) or the engine's send failed
    (a ``warning_dropped`` line)."""
    gone = {str(f["id"]) for f in client if f.get("id")}
    gone |= {str(e["id"]) for e in events if e.get("kind") == "warning_dropped" and e.get("id")}
    return gone


def _tally(
    events: list[dict[str, Any]],
    client: list[dict[str, Any]],
    counted: list[dict[str, Any]],
    manual: list[dict[str, Any]],
    dropped_ids: set[str] | None = None,
) -> dict[str, Any]:
    """The outcome counts of one window: hook calls (engine's log, without
    ``background`` entries), the client's fail-open records, the judge's counted
    verdicts and the user's feedback. :func:`compute_stats` and
    :func:`outcomes_by_day` both count through here, so they cannot disagree.
    ``dropped_ids``: answers that never arrived (:func:`_undelivered`, over the
    whole log: a drop can be written after the day its call was answered)."""
    live = [e for e in events if e.get("kind") != "warning_dropped"]
    pre = [e for e in live if e.get("kind") == "pre_tool"]
    answered_ids = {e.get("id") for e in live if e.get("id")}
    # Calls the engine did not log (the client's own record): a call the engine
    # logged as well (it answered too late) is counted once.
    client_unlogged = [f for f in client if not f.get("id") or f.get("id") not in answered_ids]
    client_pre = [f for f in client if f.get("kind") == "pre"]
    unanswered = [f for f in client_pre if not f.get("id") or f.get("id") not in answered_ids]
    failed_open = [f for f in client_pre if f.get("outcome") not in ("denied", "held")]
    fail_reasons: dict[str, int] = {}
    for f in failed_open:
        reason = str(f.get("reason") or "unknown")
        fail_reasons[reason] = fail_reasons.get(reason, 0) + 1
    gone = _undelivered(events, client) if dropped_ids is None else dropped_ids
    delivered = [e for e in pre if not (e.get("id") and str(e["id"]) in gone)]
    not_delivered: dict[str, int] = {}
    for e in pre:
        if e.get("id") and str(e["id"]) in gone and e.get("action") in ("warn", "hold", "deny"):
            not_delivered[str(e["action"])] = not_delivered.get(str(e["action"]), 0) + 1
    tally = {"FOLLOWED": 0, "IGNORED": 0, "IRRELEVANT": 0, "UNCLEAR": 0}
    sources = {"judge": 0, "user": 0}
    outcomes = {f"hold_{o}": 0 for o in HOLD_OUTCOMES} | {f"warning_{o}": 0 for o in WARN_OUTCOMES}
    avoided = 0
    for v in counted:
        tally[v["verdict"]] = tally.get(v["verdict"], 0) + 1
        sources["judge"] += 1
        outcome = outcome_of(v)
        stopped = v.get("kind") in STOPPING_KINDS
        key = f"{'hold' if stopped else 'warning'}_{outcome}"
        outcomes[key] = outcomes.get(key, 0) + 1
        # Only what the model had before the call can have avoided it: a hold or deny
        # the calls show was worked around by the fix, or a warning delivered in time
        # ("" = a ledger row from before deliveries were recorded: unknown, not counted).
        if (stopped and outcome == "avoided") or (v.get("kind") == "warn" and outcome == "followed"):
            avoided += 1
    for f in manual:
        verdict = str(f.get("verdict", "")).upper()
        if verdict in tally:
            tally[verdict] += 1
            sources["user"] += 1
    return {
        "calls": len(live) + len(client_unlogged),
        "warned": sum(1 for e in delivered if e.get("action") == "warn"),
        # twiceshy.recall.delivery; and the client's holds from the hold index while the engine was away
        "held": sum(1 for e in delivered if e.get("action") == "hold")
        + sum(1 for f in unanswered if f.get("outcome") == "held"),
        "snapshot_held": sum(1 for f in unanswered if f.get("outcome") == "held"),
        "denied": sum(1 for e in delivered if e.get("action") == "deny"),
        "not_delivered": sum(not_delivered.values()),
        "not_delivered_by_action": dict(sorted(not_delivered.items())),
        "snapshot_denied": sum(1 for f in unanswered if f.get("outcome") == "denied"),
        "failed_open": len(failed_open),
        "fail_reasons": fail_reasons,
        "pre_total": len(pre) + len(unanswered),
        "tally": tally,
        "sources": sources,
        "avoided": avoided,
        "outcomes": outcomes,
    }


def corrected_lessons(cutoff: float | None = None, until: float | None = None) -> list[dict[str, Any]]:
    """Lessons their own outcomes (or the user) changed in the window, one row per
    lesson: its changes (not undone) and the evidence of the last one."""
    from twiceshy.recall.outcomes import read_corrections

    rows: dict[str, dict[str, Any]] = {}
    for change in read_corrections():
        ts = float(change.get("ts") or 0)
        if change.get("undone") or (cutoff is not None and ts < cutoff) or (until is not None and ts > until):
            continue
        row = rows.setdefault(str(change["exp_id"]), {"id": change["exp_id"], "changes": [], "by": set()})
        row["changes"].append(str(change.get("change")))
        row["by"].add(str((change.get("evidence") or {}).get("source") or "calls"))
        row["evidence"] = change.get("evidence") or {}
        row["change_ids"] = row.get("change_ids", []) + [change["id"]]
    out = []
    for row in rows.values():
        row["by"] = sorted(row["by"])
        out.append(row)
    return out


def lesson_counts(source: Any, cutoff: float | None = None) -> dict[str, Any]:
    """Lessons per tier, superseded, learned since ``cutoff`` and matches, from
    the metadata indexes (:mod:`twiceshy.memory.census`; ``source``: a store or
    an engine context): no lesson is read."""
    from twiceshy.base.types import Tier
    from twiceshy.memory.census import open_census

    with open_census(source, ("tier", "superseded_by", "created_at", "hits")) as census:
        total = census.size()
        by_tier = census.tally("tier")
        superseded = census.count("superseded_by", "!=", "")
        learned = total if cutoff is None else census.count("created_at", ">=", float(cutoff))
        matched = int(census.total("hits"))
    tiers = {t.label: int(by_tier.get(int(t), 0)) for t in Tier}
    tiers[Tier.RAW.label] += max(0, total - sum(tiers.values()))  # a lesson without a tier reads as raw
    return {
        "total": total,
        "tiers": tiers,
        "superseded": superseded,
        "learned_in_window": learned,
        # Lesson hits count every match, silenced ones (retrieval.warn: off) too: what reached
        # the model is hooks.warnings_shown / held / blocked, from the event log.
        "matched_total": matched,
    }


def compute_stats(ctx: EngineContext, since_s: float | None = 7 * 86400, now: float | None = None) -> dict[str, Any]:
    """Every figure ``twiceshy stats`` shows, as a JSON-ready dict."""
    from twiceshy.recall import judge

    now = time.time() if now is None else now
    cutoff = None if since_s is None else now - since_s

    # Hook calls, from the engine's own log.
    # A spooled event (post-tool, session end) is logged twice: answered live
    # ("queued", what the agent waited for) and applied later ("background").
    logged = read_events(cutoff)
    events = [e for e in logged if e.get("path") != "background"]
    background = [e for e in logged if e.get("path") == "background"]
    counted = [v for v in judge.verdicts() if v.get("counted") and (cutoff is None or v["ts"] >= cutoff)]
    manual = [f for f in _jsonl([feedback_path()]) if cutoff is None or float(f.get("ts") or 0) >= cutoff]
    client = read_failopen(cutoff)
    t = _tally(events, client, counted, manual, _undelivered(logged, read_failopen(None)))
    warned, held, blocked, snapshot_denied = t["warned"], t["held"], t["denied"], t["snapshot_denied"]
    pre_total, fail_reasons, tally, sources, avoided = (
        t[k] for k in ("pre_total", "fail_reasons", "tally", "sources", "avoided")
    )
    dropped = sum(1 for e in logged if e.get("kind") == "warning_dropped")
    errors = sum(1 for e in logged if e.get("action") == "error")
    by_kind: dict[str, list[float]] = {}
    for e in events:
        if isinstance(e.get("ms"), (int, float)):
            by_kind.setdefault(str(e.get("kind") or "unknown"), []).append(float(e["ms"]))
    all_ms = [ms for values in by_kind.values() for ms in values]
    background_ms = [float(e["ms"]) for e in background if isinstance(e.get("ms"), (int, float))]

    followed, ignored, irrelevant = tally["FOLLOWED"], tally["IGNORED"], tally["IRRELEVANT"]
    decisive = followed + ignored + irrelevant

    lessons = lesson_counts(ctx, cutoff)

    o = t["outcomes"]
    corrected = corrected_lessons(cutoff, now)
    return {
        "window": {"since_s": since_s, "from": cutoff, "to": now},
        "hooks": {
            "calls": t["calls"],
            "not_delivered": t["not_delivered"],
            "not_delivered_by_action": t["not_delivered_by_action"],
            "pre_tool": pre_total,
            "warnings_shown": warned,
            "held": held,
            "held_from_index": t["snapshot_held"],
            "blocked": blocked + snapshot_denied,
            "blocked_from_snapshot": snapshot_denied,
            "failed_open": t["failed_open"],
            "failed_open_by_reason": dict(sorted(fail_reasons.items())),
            "warnings_dropped": dropped,
            "errors": errors,
            "spool": _spool_state(),
            "hit_rate": (warned + held + blocked + snapshot_denied) / pre_total if pre_total else None,
        },
        "outcomes": {
            "warned": warned,
            "held": held,
            "denied": blocked,
            "not_delivered": t["not_delivered"],
            "avoided": avoided,
            "ignored": ignored,
            "holds": {o_: o[f"hold_{o_}"] for o_ in HOLD_OUTCOMES},
            "warnings": {o_: o[f"warning_{o_}"] for o_ in WARN_OUTCOMES},
            "overridden": o["hold_overridden"],
            "false_holds": o["hold_false_hold"],
            "corrected_lessons": len(corrected),
        },
        "corrected": corrected,
        "per_lesson": _lesson_rows(ctx, cutoff, now),
        "verdicts": {
            "followed": followed,
            "ignored": ignored,
            "irrelevant": irrelevant,
            "unclear": tally["UNCLEAR"],
            "by_source": sources,
            "adherence": followed / (followed + ignored) if followed + ignored else None,
            "precision": 1 - irrelevant / decisive if decisive else None,
        },
        "mistakes_avoided": avoided,
        "latency": {
            "pre_tool": _latency(by_kind.get("pre_tool", [])),
            "all": _latency(all_ms),
            "by_kind": {kind: _latency(values) for kind, values in sorted(by_kind.items())},
            "background": _latency(background_ms),
        },
        "lessons": lessons,
    }


OUTCOMES = (
    "warned",
    "held",
    "denied",
    "avoided",
    "ignored",
    "overridden",
    "false_holds",
    "not_delivered",
    "failed_open",
)


def day_start(ts: float) -> float:
    """Local midnight of the day ``ts`` falls in (days are the user's days)."""
    day = datetime.fromtimestamp(ts).date()
    return datetime.combine(day, datetime.min.time()).timestamp()


def outcomes_by_day(days: int = 14, now: float | None = None) -> list[dict[str, Any]]:
    """:data:`OUTCOMES` per local day for the last ``days`` days (today included), oldest first.

    Counted as :func:`compute_stats` counts them (one :func:`_tally` per day): a
    hook call on the day the engine logged it, a verdict on the day it was
    judged. ``denied`` is a rule's deny by the engine (as in ``outcomes``); a
    deny from the rules snapshot while the engine was away is ``snapshot_denied``.
    """
    from twiceshy.recall import judge

    if days < 1:
        raise ValueError("days must be at least 1")
    now = time.time() if now is None else now
    starts = [day_start(now)]
    for _ in range(days - 1):
        starts.append(day_start(starts[-1] - 43200))  # noon of the day before: safe across DST
    starts.reverse()
    cutoff = starts[0]
    logged = read_events(cutoff)
    events = [e for e in logged if e.get("path") != "background" and e["ts"] <= now]
    client = [f for f in read_failopen(cutoff) if f["ts"] <= now]
    dropped = _undelivered(logged, read_failopen(None))
    counted = [v for v in judge.verdicts() if v.get("counted") and cutoff <= v["ts"] <= now]
    manual = [f for f in _jsonl([feedback_path()]) if cutoff <= float(f.get("ts") or 0) <= now]

    def bucket(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
        out: list[list[dict[str, Any]]] = [[] for _ in starts]
        for item in items:
            ts = float(item.get("ts") or 0)
            out[bisect.bisect_right(starts, ts) - 1].append(item)
        return out

    per_day = zip(bucket(events), bucket(client), bucket(counted), bucket(manual))
    rows = []
    for start, (ev, cl, co, ma) in zip(starts, per_day):
        t = _tally(ev, cl, co, ma, dropped)
        row: dict[str, Any] = {"date": datetime.fromtimestamp(start).date().isoformat(), "start": start}
        picks = {
            "ignored": t["tally"]["IGNORED"],
            "overridden": t["outcomes"]["hold_overridden"],
            "false_holds": t["outcomes"]["hold_false_hold"],
        }
        row.update({k: picks[k] if k in picks else t[k] for k in OUTCOMES})
        row["snapshot_denied"] = t["snapshot_denied"]
        row["pre_tool"] = t["pre_total"]
        rows.append(row)
    return rows


PER_LESSON_ROWS = 20  # lessons ``compute_stats`` lists (the most active first)


def _lesson_rows(ctx: EngineContext, cutoff: float | None, now: float) -> list[dict[str, Any]]:
    """:func:`per_lesson` for the window with each lesson's text and tier, most active first."""
    counts = per_lesson(cutoff, now)
    order = sorted(counts, key=lambda i: (-sum(counts[i].values()), i))[:PER_LESSON_ROWS]
    if not order:
        return []
    try:
        lessons = {e.id: e for e in ctx.store.get_many(order)}
    except Exception:  # the counts stand without the texts
        lessons = {}
    out = []
    for exp_id in order:
        exp = lessons.get(exp_id)
        out.append(
            {
                "id": exp_id,
                "text": exp.text if exp else "",
                "tier_label": exp.tier_label if exp else "",
                **counts[exp_id],
            }
        )
    return out


def text_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The outcome rows ``twiceshy stats`` prints after its hook figures."""
    o = data["outcomes"]
    holds, warnings = o["holds"], o["warnings"]
    return [
        ("not delivered (the agent never got the hold, deny or warning)", str(o["not_delivered"])),
        ("holds and denies: avoided (the fix ran instead)", str(holds["avoided"])),
        ("holds and denies: ignored (the held call ran anyway)", str(holds["ignored"])),
        ("holds: overridden (re-issued, it worked: the lesson was wrong here)", str(holds["overridden"])),
        ("holds: false holds (the held call was the fix)", str(holds["false_hold"])),
        ("holds and denies: unclear (nothing related followed)", str(holds["unclear"])),
        (
            "warnings followed / ignored / irrelevant",
            f"{warnings['followed']} / {warnings['ignored']} / {warnings['irrelevant']}",
        ),
        ("lessons corrected by their own outcomes", str(o["corrected_lessons"])),
    ]


def per_lesson(cutoff: float | None = None, now: float | None = None) -> dict[str, dict[str, int]]:
    """Per lesson id, over the window: ``warned`` / ``held`` / ``denied`` (delivered
    pre-tool answers it was part of, from the event log's ``lessons``), and its
    counted outcomes from the judge's ledger: ``avoided``, ``ignored``,
    ``overridden``, ``false_holds``, ``followed`` (warnings), ``irrelevant``,
    ``unclear``."""
    from twiceshy.recall import judge

    now = time.time() if now is None else now
    logged = [e for e in read_events(cutoff) if e["ts"] <= now]
    gone = _undelivered(logged, read_failopen(None))
    out: dict[str, dict[str, int]] = {}

    def row(exp_id: str) -> dict[str, int]:
        return out.setdefault(
            exp_id,
            {k: 0 for k in ("warned", "held", "denied", "avoided", "ignored", "overridden", "false_holds",
                            "followed", "irrelevant", "unclear")},
        )  # fmt: skip

    for e in logged:
        if e.get("kind") != "pre_tool" or e.get("action") not in ("warn", "hold", "deny"):
            continue
        if e.get("id") and str(e["id"]) in gone:
            continue
        name = {"warn": "warned", "hold": "held", "deny": "denied"}[str(e["action"])]
        for exp_id in e.get("lessons") or []:
            row(str(exp_id))[name] += 1
    for v in judge.verdicts():
        if not v.get("counted") or (cutoff is not None and v["ts"] < cutoff) or v["ts"] > now:
            continue
        outcome = outcome_of(v)
        key = "false_holds" if outcome == "false_hold" else outcome
        r = row(str(v["exp_id"]))
        r[key] = r.get(key, 0) + 1
    return out


def lesson_usefulness(
    ctx: EngineContext, limit: int = 10, cutoff: float | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The lessons that fired most and least usefully (all time, or since ``cutoff``).

    Per lesson: ``matched`` (its hit count: every match, a rule's deny too,
    silenced ones too), ``followed`` / ``ignored`` / ``irrelevant`` (the counts
    stored on the lesson: the judge's and ``twiceshy feedback``), and from
    :func:`per_lesson` what it did in the window: ``held``, ``denied``,
    ``warned``, ``avoided``, ``overridden``, ``false_holds``; ``corrected``: the
    changes its own outcomes made (:func:`corrected_lessons`); ``net`` =
    avoided + followed - ignored - irrelevant. *Most useful*: avoided a mistake,
    was followed, or (a rule) denied calls and was never shown wrong; by
    avoided, denials, net. *Least useful*: overridden or false holds, more
    ignored + irrelevant than followed, or fired and never helped; worst net
    first, then most matches.
    """
    window = per_lesson(cutoff)
    corrected = {row["id"]: row["changes"] for row in corrected_lessons(cutoff)}
    rows = []
    # Only lessons that fired or were judged: the store filters them (most lessons never did).
    fired = {"$or": [{key: {"$gt": 0}} for key in ("hits", "follows", "ignores", "irrelevant")]}
    found = {e.id: e for e in ctx.store.all(where=fired)}
    missing = [i for i in window if i not in found]
    if missing:
        found.update({e.id: e for e in ctx.store.get_many(missing)})
    for e in found.values():
        w = window.get(e.id, {})
        wrong = w.get("overridden", 0) + w.get("false_holds", 0)
        rows.append(
            {
                "id": e.id,
                "text": e.text,
                "tier_label": e.tier_label,
                "matched": e.hits,
                "followed": e.follows,
                "ignored": e.ignores,
                "irrelevant": e.irrelevant,
                "held": w.get("held", 0),
                "denied": w.get("denied", 0),
                "warned": w.get("warned", 0),
                "avoided": w.get("avoided", 0),
                "overridden": w.get("overridden", 0),
                "false_holds": w.get("false_holds", 0),
                "corrected": corrected.get(e.id, []),
                "net": e.follows - e.ignores - e.irrelevant,
                "wrong": wrong,
                "confidence": e.confidence,
            }
        )
    most = sorted(
        (r for r in rows if (r["followed"] > 0 or r["avoided"] > 0 or r["denied"] > 0) and not r["wrong"]),
        key=lambda r: (-r["avoided"], -r["denied"], -r["net"], -r["matched"], r["id"]),
    )
    least = sorted(
        (
            r
            for r in rows
            if r["wrong"]
            or r["ignored"] + r["irrelevant"] > r["followed"]
            or ((r["matched"] or r["held"]) and not (r["followed"] or r["avoided"] or r["denied"]))
        ),
        key=lambda r: (r["net"] - r["wrong"], -r["matched"], r["id"]),
    )
    return {"most": most[:limit], "least": least[:limit]}


__all__ = [
    "OUTCOMES",
    "compute_stats",
    "corrected_lessons",
    "outcome_of",
    "per_lesson",
    "day_start",
    "lesson_usefulness",
    "outcomes_by_day",
    "feedback_path",
    "parse_since",
    "percentile",
    "read_events",
    "read_failopen",
    "record_feedback",
]
