"""Lessons evolve: verdicts promote and demote, time decays, clusters generalise.

Tiers (lower is stronger): T3 raw -> T2 qa -> T1 rule -> T0 principle.

* :func:`record_verdict` — the judge's FOLLOWED / IGNORED / IRRELEVANT / UNCLEAR
  for one shown lesson. FOLLOWED raises confidence; a raw lesson that is
  followed once becomes QA; ``learning.promote_after`` FOLLOWED in a row make
  a QA lesson a rule. ``learning.demote_after`` IGNORED/IRRELEVANT in a row
  drop a lesson one tier (a raw one loses confidence instead).
* :func:`run_cycle` — the full pass (``twiceshy evolve``; after a session end
  while the store is small): raw lessons never seen again expire after
  ``raw_ttl_days``; a raw lesson seen in two sessions becomes QA; a QA lesson
  seen in ``2 * promote_after`` sessions with no negative verdict becomes a
  rule; confidence decays (0.5 per ``decay_days``) once a lesson has gone
  unseen for ``decay_days``, and a lesson is deleted at zero; clusters of
  ``principle_min_rules`` similar rules are generalised into a T0 principle
  (by the LLM when one is configured, else a deterministic summary of the
  rules' shared trigger) linked to them by ``generalizes`` edges.
* :func:`run_session_pass` — what a session end runs once the store is larger
  than :data:`SWEEP_PAGE`: the same rules, applied to the lessons written since
  the last pass (read from the store's change journal: the session's verdicts
  and ingest, and any CLI edit) plus one page of a rotating sweep, so its cost
  follows what the session touched, not the store's size. Decay is applied by
  the sweep only, each page against the time that page was last swept, so a
  lesson loses the same confidence however the passes are spread.
* :func:`timeline` — every lesson of one topic, oldest first (supersession history).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.faults import fault_point
from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import data_dir, ensure_private_dir
from twiceshy.base.redact import redact
from twiceshy.base.types import CoreEvent, Experience, Tier
from twiceshy.learning.extractors import short, words
from twiceshy.learning.ingest import display_tags, prune_session_files

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

VERDICTS = ("FOLLOWED", "IGNORED", "IRRELEVANT", "UNCLEAR")
DAY = 86400.0
DECAY_PER_PERIOD = 0.5  # confidence lost per decay_days once a lesson is stale
FOLLOW_GAIN = 0.1
IGNORE_LOSS = 0.1
IRRELEVANT_LOSS = 0.05
MIN_CONFIDENCE = 1e-3  # at or below: deleted
STOP_CYCLE_INTERVAL_S = 600.0  # a Stop (per turn) runs the cycle at most this often
SWEEP_PAGE = 1000  # lessons one session pass sweeps (and the store size up to which it runs a full cycle)
TOUCHED_MAX = 5000  # lessons written since the last pass that one pass re-evolves (the rest: the sweep)
CROSS_PROJECT_INTERVAL_S = 3600.0  # the cross-project promotion (reads every scoped lesson) at most this often
NEIGHBOURS = 16  # rules near a touched rule considered for a principle


# --------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------


def _promote(exp: Experience) -> bool:
    if exp.tier > int(Tier.RULE):
        exp.tier -= 1
        exp.streak = 0
        return True
    return False


def _demote(exp: Experience) -> bool:
    if exp.tier < int(Tier.RAW):
        exp.tier += 1
        exp.streak = 0
        return True
    return False


def record_verdict(ctx: EngineContext, exp_id: str, verdict: str, now: float | None = None) -> None:
    """Apply one judge verdict to lesson ``exp_id`` (missing lesson: no-op).

    Raises ``ValueError`` for a verdict outside FOLLOWED|IGNORED|IRRELEVANT|UNCLEAR.
    """
    verdict = str(verdict).strip().upper()
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; use one of {', '.join(VERDICTS)}")
    if verdict == "UNCLEAR":
        return
    exp = ctx.store.get(exp_id)
    if exp is None:
        return
    now = time.time() if now is None else now
    cfg = ctx.config["learning"]
    if verdict == "FOLLOWED":
        _followed(exp, cfg, now)
    else:
        _negative(exp, cfg, verdict)
    ctx.store.update(exp)


def demote(exp: Experience) -> bool:
    """One tier down (not past raw), streak reset; False when already raw."""
    return _demote(exp)


def _followed(exp: Experience, cfg: Any, now: float) -> None:
    exp.follows += 1
    exp.streak = max(exp.streak, 0) + 1
    exp.confidence = min(1.0, exp.confidence + FOLLOW_GAIN)
    exp.last_seen = now
    if exp.tier == int(Tier.RAW):
        exp.tier = int(Tier.QA)  # followed once: it was relevant and useful; the streak goes on
    elif exp.tier == int(Tier.QA) and exp.streak >= cfg["promote_after"] and exp.follows > exp.ignores + exp.irrelevant:
        _promote(exp)


def record_outcome(
    ctx: EngineContext, exp: Experience, outcome: str, write: bool = True, now: float | None = None
) -> None:
    """Apply one outcome of a hold, a rule's deny or a warning
    (:mod:`twiceshy.recall.outcomes`) to ``exp``'s counts and tier.

    Only ``avoided`` (and a warning ``followed``) promotes: the identical
    re-issue that runs never counts toward a rule. ``ignored`` after a hold
    (the mistake ran) counts an ignore and breaks a promotion streak, but costs
    the lesson nothing: it was right. ``overridden`` and ``false_hold`` count
    as irrelevant (confidence -0.05) and break the streak; how they narrow,
    silence and demote the lesson is :func:`twiceshy.recall.outcomes.correct`.
    A warning's ``ignored`` / ``irrelevant`` keep :func:`record_verdict`'s
    rules (``demote_after`` in a row drop a tier). ``write``: store the lesson.
    """
    now = time.time() if now is None else now
    cfg = ctx.config["learning"]
    if outcome in ("avoided", "followed"):
        _followed(exp, cfg, now)
    elif outcome == "ignored_hold":
        exp.ignores += 1
        exp.streak = min(exp.streak, 0)
    elif outcome in ("overridden", "false_hold"):
        exp.irrelevant += 1
        exp.streak = min(exp.streak, 0)
        exp.confidence = max(0.0, exp.confidence - IRRELEVANT_LOSS)
    elif outcome in ("ignored", "irrelevant"):
        _negative(exp, cfg, "IGNORED" if outcome == "ignored" else "IRRELEVANT")
    else:
        return  # unclear: nothing changes
    if write:
        ctx.store.update(exp)


def _negative(exp: Experience, cfg: Any, verdict: str) -> None:
    if verdict == "IGNORED":
        exp.ignores += 1
        exp.confidence -= IGNORE_LOSS
    else:
        exp.irrelevant += 1
        exp.confidence -= IRRELEVANT_LOSS
    exp.streak = min(exp.streak, 0) - 1
    if -exp.streak >= cfg["demote_after"]:
        if not _demote(exp):
            exp.confidence -= IGNORE_LOSS  # already raw: fade faster
            exp.streak = 0
    exp.confidence = max(0.0, exp.confidence)


# --------------------------------------------------------------------------
# The cycle
# --------------------------------------------------------------------------


def _state_file() -> Path:
    return data_dir() / "evolve_state.json"


def load_state() -> dict[str, Any]:
    try:
        data = json.loads(_state_file().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_state(state: dict[str, Any]) -> None:
    path = _state_file()
    ensure_private_dir(path.parent)
    write_atomic(path, json.dumps(state), private=True, durable=False)  # 0600, like every file of ours


def _decay_loss(exp: Experience, now: float, last_run: float, decay_days: float) -> float:
    """Confidence lost since the last cycle: only the stale part of the interval counts,
    so the result does not depend on how often the cycle runs."""
    period = max(decay_days, 1e-9) * DAY
    stale_from = exp.last_seen + period
    start = max(stale_from, last_run)
    if now <= start:
        return 0.0
    return DECAY_PER_PERIOD * (now - start) / period


def _evolve_one(exp: Experience, now: float, since: float | None, cfg: Any, counts: dict[str, int]) -> str | None:
    """Apply the cycle's rules to one lesson: "delete", "update" or ``None``.
    ``since``: decay baseline (when this lesson was last decayed); ``None`` skips decay."""
    changed = False
    if (
        exp.tier == int(Tier.RAW)
        and exp.seen_count <= 1
        and exp.follows == 0
        and now - exp.created_at > cfg["raw_ttl_days"] * DAY
    ):
        counts["expired"] += 1
        counts["deleted"] += 1
        return "delete"
    if since is not None:
        loss = _decay_loss(exp, now, since, cfg["decay_days"])
        if loss > 0:
            exp.confidence = max(0.0, exp.confidence - loss)
            counts["decayed"] += 1
            changed = True
    if exp.confidence <= MIN_CONFIDENCE:
        counts["deleted"] += 1
        return "delete"
    corrected = isinstance(exp.structured, dict) and exp.structured.get("deliver") == "context"
    if not exp.superseded_by and not corrected:
        # (a lesson its own outcomes corrected down to context is not promoted by sightings)
        negatives = exp.ignores + exp.irrelevant
        if exp.tier == int(Tier.RAW) and exp.seen_count >= 2:
            changed |= _promote(exp)
            counts["promoted"] += 1
        elif exp.tier == int(Tier.QA) and exp.seen_count >= 2 * cfg["promote_after"] and negatives == 0:
            changed |= _promote(exp)
            counts["promoted"] += 1
    elif exp.superseded_by and exp.tier < int(Tier.QA):
        exp.tier = int(Tier.QA)  # superseded lessons never block
        counts["demoted"] += 1
        changed = True
    return "update" if changed else None


def _new_counts() -> dict[str, int]:
    return {"promoted": 0, "demoted": 0, "decayed": 0, "expired": 0, "deleted": 0, "principles": 0}


def _generalisable(exp: Experience) -> bool:
    return exp.tier == int(Tier.RULE) and not exp.superseded_by and "review:held" not in exp.tags


def _page_since(state: dict[str, Any], page: int) -> float:
    """When sweep page ``page`` was last decayed (else the last full cycle)."""
    visits = state.get("page_visits") or {}
    last_full = float(state.get("last_full", state.get("last_run")) or 0.0)
    return float(visits.get(str(page), last_full))


def run_cycle(ctx: EngineContext, now: float | None = None) -> dict[str, int]:
    """One evolution pass over the whole store, read page by page. Returns counts
    of promoted, demoted, decayed, expired, deleted (includes expired) and principles."""
    now = time.time() if now is None else now
    cfg = ctx.config["learning"]
    store = ctx.store
    state = load_state()
    counts = _new_counts()
    rules: list[Experience] = []
    doomed: list[str] = []
    pages = store.iter_pages(page=SWEEP_PAGE) if hasattr(store, "iter_pages") else [store.all()]
    for number, page in enumerate(pages):
        since = _page_since(state, number)
        changed: list[Experience] = []
        for exp in page:
            outcome = _evolve_one(exp, now, since, cfg, counts)
            if outcome == "delete":
                doomed.append(exp.id)  # after the read: deleting now would shift the pages
                continue
            if outcome == "update":
                changed.append(exp)
            if _generalisable(exp):
                rules.append(exp)
        if changed:
            store.update_many(changed)
            fault_point("evolve.updated")  # crash tests kill here, after an exact number of (batched) writes
    _delete(store, doomed)
    counts["principles"] = generalise(ctx, rules)
    from twiceshy.learning.cross_project import promote_cross_project  # a lesson proven in N projects goes global

    counts["globalised"] = promote_cross_project(ctx)
    prune_session_files(now=now)
    state.update(last_run=now, last_full=now, last_cross=now, last_counts=counts, page_visits={}, sweep=0)
    position = store.journal_position() if hasattr(store, "journal_position") else None  # after our own writes
    if position is not None:
        state["journal"] = list(position)
    _save_state(state)
    return counts


def _delete(store: Any, ids: list[str]) -> None:
    if not ids:
        return
    if hasattr(store, "delete_many"):
        store.delete_many(ids)
    else:
        for exp_id in ids:
            store.delete(exp_id)


def run_session_pass(ctx: EngineContext, now: float | None = None) -> dict[str, int]:
    """The bounded pass a session end runs on a large store (see the module doc)."""
    now = time.time() if now is None else now
    cfg = ctx.config["learning"]
    store = ctx.store
    state = load_state()
    counts = _new_counts()
    # 1. lessons written since the last pass, by anyone: no decay (the sweep owns it)
    got = store.changed_since(state.get("journal"))
    touched_ids: list[str] = got[1][-TOUCHED_MAX:] if got else []
    position = got[0] if got else store.journal_position()
    seen: dict[str, Experience] = {}
    changed: dict[str, Experience] = {}
    doomed: list[str] = []
    for exp in store.get_many(touched_ids):
        seen[exp.id] = exp
        outcome = _evolve_one(exp, now, None, cfg, counts)
        if outcome == "delete":
            doomed.append(exp.id)
        elif outcome == "update":
            changed[exp.id] = exp
    # 2. one page of the rotating sweep: expiry and decay for lessons nobody touches
    page_no = int(state.get("sweep") or 0)
    page: list[Experience] = next(iter(store.iter_pages(page=SWEEP_PAGE, offset=page_no * SWEEP_PAGE)), [])
    if not page and page_no:  # past the end (the store shrank, or an exact multiple): wrap
        page_no = 0
        page = next(iter(store.iter_pages(page=SWEEP_PAGE)), [])
    since = _page_since(state, page_no)
    for exp in page:
        exp = changed.get(exp.id) or seen.get(exp.id) or exp  # evolved above: decay that copy
        outcome = _evolve_one(exp, now, since, cfg, counts)
        if outcome == "delete":
            doomed.append(exp.id)
            changed.pop(exp.id, None)
        elif outcome == "update":
            changed[exp.id] = exp
    visits = dict(state.get("page_visits") or {})
    visits[str(page_no)] = now
    state["page_visits"] = visits
    state["sweep"] = page_no + 1 if len(page) == SWEEP_PAGE else 0
    if changed:
        gone = set(doomed)
        store.update_many([e for i, e in changed.items() if i not in gone])
        fault_point("evolve.updated")
    _delete(store, doomed)
    # 3. principles: only around the rules this pass touched
    counts["principles"] = generalise(ctx, _rules_near(store, [e for e in seen.values() if _generalisable(e)]))
    if now - float(state.get("last_cross") or 0.0) >= CROSS_PROJECT_INTERVAL_S:
        from twiceshy.learning.cross_project import promote_cross_project

        counts["globalised"] = promote_cross_project(ctx)
        state["last_cross"] = now
    prune_session_files(now=now)
    # our own writes above are in the journal too: start after them
    position = store.journal_position() or position
    if position is not None:
        state["journal"] = list(position)
    state.update(last_run=now, last_counts=counts)
    _save_state(state)
    return counts


def _rules_near(store: Any, seeds: list[Experience]) -> list[Experience]:
    """The seed rules and the rules most similar to them (the clusters a new
    principle could form around), bounded by :data:`NEIGHBOURS` per seed."""
    found: dict[str, Experience] = {e.id: e for e in seeds}
    seeds = seeds[:64]
    # The stored trigger vectors (the engine's index holds them) instead of embedding each trigger again.
    index = getattr(store, "index", None)
    rows = index.rows_of([s.id for s in seeds]) if index is not None and seeds else None
    for n, seed in enumerate(seeds):
        if rows is not None and seed.trigger and hasattr(store, "search_vector"):
            hits = store.search_vector(rows[n].tolist(), k=NEIGHBOURS, project=seed.project, include_superseded=False)
        else:
            hits = store.search(seed.trigger, k=NEIGHBOURS, project=seed.project, include_superseded=False)
        for exp, _score in hits:
            if _generalisable(exp):
                found.setdefault(exp.id, exp)
    return list(found.values())


def after_session(ctx: EngineContext, event: CoreEvent) -> dict[str, int] | None:
    """Run a cycle after a session ends (the ``evolve`` builtin's ``session_learned``).

    A ``stop`` event (fired every turn by some agents) runs it at most every
    10 minutes. Fails open.
    """
    try:
        if event.kind == "stop":
            last = float(load_state().get("last_run") or 0.0)
            if time.time() - last < STOP_CYCLE_INTERVAL_S:
                return None
        if hasattr(ctx.store, "changed_since") and ctx.store.count() > SWEEP_PAGE:
            return run_session_pass(ctx)
        return run_cycle(ctx)
    except Exception as exc:
        record_error("evolve.after_session", exc, session_id=event.session_id)
        if os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1":
            raise
        return None


# --------------------------------------------------------------------------
# Principles
# --------------------------------------------------------------------------


def _similar_pairs(vectors: list[list[float]], threshold: float) -> list[tuple[int, int]]:
    """(i, j), i < j, of unit vectors with cosine >= threshold: one matrix product, a block at a time."""
    import numpy as np

    if len(vectors) < 2:
        return []
    mat = np.asarray(vectors, dtype=np.float32)
    pairs: list[tuple[int, int]] = []
    for start in range(0, len(mat), 1024):
        sims = mat[start : start + 1024] @ mat.T
        rows, cols = np.nonzero(sims >= threshold)
        pairs.extend((start + int(r), int(c)) for r, c in zip(rows, cols) if start + r < c)
    return pairs


def _clusters(vectors: list[list[float]], threshold: float) -> list[list[int]]:
    """Single-link clusters of unit vectors (cosine >= threshold), via union-find."""
    parent = list(range(len(vectors)))
    pairs = _similar_pairs(vectors, threshold)

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(vectors)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def shared_trigger(triggers: list[str]) -> str:
    """Words most of the triggers share, in the first trigger's order."""
    need = max(2, math.ceil(len(triggers) * 2 / 3))
    counts = Counter(w for t in triggers for w in set(words(t)))
    first = words(triggers[0]) if triggers else []
    shared = [w for w in dict.fromkeys(first) if counts[w] >= need]
    return " ".join(shared[:8])


def deterministic_principle(rules: list[Experience]) -> tuple[str, str]:
    """(text, trigger) of a principle summarising ``rules`` without a model."""
    shared = shared_trigger([r.trigger for r in rules]) or short(rules[0].trigger, 60)
    examples = "; ".join(short(r.text, 110) for r in sorted(rules, key=lambda r: -r.confidence)[:3])
    text = (
        f"Principle from {len(rules)} confirmed rules about `{shared}`: take care with `{shared}`. Examples: {examples}"
    )
    return short(text, 480), shared


PRINCIPLE_PROMPT = (
    "You maintain a coding agent's memory of its own mistakes. These confirmed rules were learned "
    "in separate sessions and are about the same kind of action:\n{rules}\n\n"
    "Write ONE general principle (one sentence, at most 40 words, imperative) that covers all of them. "
    "Output only the sentence."
)


def llm_principle(ctx: EngineContext, rules: list[Experience]) -> str | None:
    """The principle written by the configured LLM, or ``None`` (no model,
    no ``twiceshy.brain.llm``, timeout, unusable answer)."""
    if not ctx.config.get("llm", "model"):
        return None
    try:
        from twiceshy.brain import llm
    except ImportError:
        return None
    prompt = PRINCIPLE_PROMPT.format(rules="\n".join(f"- {redact(short(r.text, 200))}" for r in rules[:8]))
    try:
        answer = llm.complete(ctx, prompt, max_tokens=120)
    except Exception as exc:
        record_error("evolve.llm_principle", exc)
        return None
    if not isinstance(answer, str):
        return None
    answer = " ".join(answer.split()).strip().strip('"')
    if not 10 <= len(answer) <= 500:
        return None
    return redact(answer)


def generalise(ctx: EngineContext, rules: list[Experience]) -> int:
    """Create T0 principles for clusters of similar rules not generalised yet.
    A rule joining an existing principle's cluster gets a ``generalizes`` edge."""
    cfg = ctx.config["learning"]
    if len(rules) < cfg["principle_min_rules"]:
        return 0
    store = ctx.store
    # Cluster on what a rule is about and what it says: triggers alone are short
    # commands that differ in their arguments ("pip install x" vs "sudo pip install y").
    texts = [f"{r.trigger}\n{r.text}" for r in rules]
    embedder = store.embedder
    # A full cycle clusters every rule: one model call over thousands of texts pads
    # them all to the longest (5.6 GB peak for ~4,700 rules); embed_many runs
    # small length-sorted batches, each distinct text once.
    vectors: Any = embedder.embed_many(texts) if hasattr(embedder, "embed_many") else embedder.embed(texts)
    groups = [
        [rules[i] for i in group]
        for group in _clusters(vectors, cfg["principle_similarity"])
        if len(group) >= cfg["principle_min_rules"]
    ]
    if not groups:
        return 0
    # The principles that already generalise any member: one batched edge read
    # and one read of those principles, not two queries per member.
    parent: dict[str, str] = {}
    members_ids = [m.id for members in groups for m in members]
    edges = (
        store.edges_of(members_ids) if hasattr(store, "edges_of") else [e for i in members_ids for e in store.edges(i)]
    )
    linked: set[tuple[str, str]] = set()
    for edge in edges:
        if edge.get("type") == "generalizes" and edge.get("dst") and edge.get("src"):
            parent.setdefault(str(edge["dst"]), str(edge["src"]))
            linked.add((str(edge["src"]), str(edge["dst"])))
    alive = {e.id for e in store.get_many(sorted(set(parent.values())))} if parent else set()
    new_edges: list[tuple[str, str, str, float]] = []
    principles: list[Experience] = []
    for members in groups:
        existing = next((parent[m.id] for m in members if m.id in parent), None)
        if existing and existing in alive:
            new_edges.extend((existing, m.id, "generalizes", 1.0) for m in members if (existing, m.id) not in linked)
            continue
        text, trigger = deterministic_principle(members)
        written = llm_principle(ctx, members)
        projects = {m.project for m in members}
        tags = sorted({t for m in members for t in display_tags(m)})
        principle = Experience(
            text=written or text,
            trigger=trigger,
            tier=int(Tier.PRINCIPLE),
            kind="principle",
            confidence=round(sum(m.confidence for m in members) / len(members), 3),
            seen_count=sum(m.seen_count for m in members),
            project=projects.pop() if len(projects) == 1 else None,
            tags=tags,
            topic=members[0].topic,
            source="llm" if written else "cluster",
        )
        principles.append(principle)
        new_edges.extend((principle.id, m.id, "generalizes", 1.0) for m in members)
    # Batched writes (a Chroma write costs ~50-90 ms however small): the
    # principles, then every new edge in one call (edges that exist are not rewritten).
    if principles:
        if hasattr(store, "add_many"):
            store.add_many(principles)
        else:
            for principle in principles:
                store.add(principle)
    if hasattr(store, "add_edges"):
        store.add_edges(new_edges)
    else:
        for src, dst, kind, weight in new_edges:
            store.add_edge(src, dst, kind, weight)
    return len(principles)


# --------------------------------------------------------------------------
# Timelines
# --------------------------------------------------------------------------


def timeline(ctx: EngineContext, topic: str) -> list[Experience]:
    """Every lesson of ``topic``, oldest first (superseded ones included and marked)."""
    from twiceshy.memory.listing import with_value

    found = with_value(ctx.store, "topic", topic)  # ids from the metadata index, then one get_many
    if found is None:
        found = ctx.store.all(where={"topic": topic})
    return sorted(found, key=lambda e: e.created_at)
