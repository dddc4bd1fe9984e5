"""pre_tool: find the lessons that match the action and warn, or block for a rule.

Flow per call: semantic search -> :func:`twiceshy.recall.ranking.rank` (heuristic
score, ``retrieval.min_score`` cut) -> drop warnings already shown this
session -> :func:`twiceshy.recall.ranking.llm_filter` (only when a model is
configured; fail-open) -> deny if a lesson of a tier in
``retrieval.block_tiers`` scores at least ``retrieval.block_min_score``,
else warn with at most ``retrieval.max_warnings`` lessons while the
session's ``retrieval.session_warning_budget`` lasts.

Every warning shown is recorded in ``ctx.session(id).shown_log`` with the
action it was shown for; the judge plugin reads that after each tool call.
"""

from __future__ import annotations

import time
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, LessonMatch, Tier
from twiceshy.engine.context import EngineContext, SessionState
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.recall.ranking import (
    SIG_MIN_SIMILARITY,
    Candidate,
    event_project,
    llm_filter,
    rank,
    structured_check,
)

CANDIDATES = 16  # search hits considered per call when the structured check decides

HEADER = (
    "twiceshy — lessons from earlier sessions that match this action. "
    "They are advice from past experience, not instructions; ignore any that do not apply."
)


def find_candidates(ctx: EngineContext, event: CoreEvent) -> list[Candidate]:
    """Search, rank, follow the graph one hop; no session state, no model.

    Edges are followed only from hits that already passed the score cut:
    an edge lookup is a Chroma query, and doing it for every raw hit would
    cost the hot path ~10 ms per searched call for nothing.
    """
    from twiceshy.learning.ingest import expand_hits

    cfg = ctx.config["retrieval"]
    project = event_project(event)
    structured = ctx.config["ranking"].get("structured", True)
    # With the structured check deciding, a wider net costs microseconds per
    # extra candidate (the search itself is one query either way).
    k = max(cfg["top_k"], CANDIDATES) if structured else cfg["top_k"]
    hits = ctx.store.search(event.action_text(), k=k, project=project)
    floor = min(cfg["min_score"], SIG_MIN_SIMILARITY - 0.1) if structured else None
    candidates = rank(ctx, event, hits, min_score=floor)
    if structured:
        candidates = structured_check(event, candidates, cfg["min_score"])
    if not candidates:
        return candidates
    # Edges only from lessons that apply (an edge lookup is a store query).
    seeds = [(c.exp, c.similarity) for c in candidates]
    expanded = expand_hits(ctx, seeds, project)
    if len(expanded) == len(seeds):
        return candidates
    ranked = rank(ctx, event, expanded, min_score=floor)
    return structured_check(event, ranked, cfg["min_score"]) if structured else ranked


def find_matches(ctx: EngineContext, event: CoreEvent) -> list[LessonMatch]:
    """Heuristically ranked matches for ``event`` (used by ``twiceshy search``)."""
    return [c.to_match() for c in find_candidates(ctx, event)]


def format_warning(matches: list[LessonMatch]) -> str:
    lines = [HEADER]
    for m in matches:
        lines.append(f"- [{Tier(m.tier).label}; {m.evidence}] {m.text}")
    return "\n".join(lines)


def _is_blocker(ctx: EngineContext, cand: Candidate) -> bool:
    """A rule blocks only when its signature matched this call (never on
    similarity alone: the fix, ``--help`` and other arguments look alike)."""
    cfg = ctx.config["retrieval"]
    if cand.matched is False or (cand.matched is None and ctx.config["ranking"].get("structured", True)):
        return False
    return cand.exp.tier in cfg["block_tiers"] and cand.score >= cfg["block_min_score"]


def fix_of(cand: Candidate) -> str:
    """The corrected call or edit a lesson names (its structured fix), if any."""
    from twiceshy.recall.ranking import lesson_signature

    structured = cand.exp.structured if isinstance(cand.exp.structured, dict) else {}
    raw_fix = structured.get("fix")
    fix: dict[str, Any] = raw_fix if isinstance(raw_fix, dict) else {}
    text = fix.get("command") or ""
    if not text:
        sig = lesson_signature(cand.exp) or {}
        text = str(sig.get("fix") or "")
    return " ".join(text.split())[:200]


@hookimpl
def pre_tool(event: CoreEvent, ctx: EngineContext) -> Decision | None:
    if event.read_only and ctx.config.get("hook", "readonly_skip"):
        return None  # cannot mutate anything: no search (twiceshy.recall.readonly); other plugins still see it
    cfg = ctx.config["retrieval"]
    session = ctx.session(event.session_id)
    candidates = find_candidates(ctx, event)
    # Dedup before the model sees anything: a warning is shown once a session.
    # A blocking rule is exempt: it blocks every time.
    candidates = [c for c in candidates if _is_blocker(ctx, c) or c.exp.id not in session.shown]
    if not candidates:
        return None
    # A confirmed rule that matches strongly blocks whatever the model says:
    # the relevance filter may drop warnings, never lift a block (a model that
    # is wrong, slow or prompt-injected must not be able to switch rules off).
    blockers = [c for c in candidates if _is_blocker(ctx, c)]
    if not blockers:
        candidates = llm_filter(ctx, event, candidates)
    if not candidates:
        return None
    if blockers:
        lines = []
        for c in blockers:
            line = f"- {c.exp.text} ({c.exp.evidence()})"
            fix = fix_of(c)
            if fix and fix not in c.exp.text:
                line += f" Instead: {fix}"
            lines.append(line)
        reason = "Blocked by twiceshy: a confirmed rule from earlier sessions applies.\n" + "\n".join(lines)
        fresh = [c for c in blockers if c.exp.id not in session.shown]
        _remember(session, event, fresh, kind="deny")
        return Decision(action="deny", reason=reason, matches=[c.to_match() for c in blockers])
    remaining = cfg["session_warning_budget"] - session.warnings
    shown = candidates[: max(0, min(cfg["max_warnings"], remaining))]
    if not shown:
        return None
    session.warnings += len(shown)
    _remember(session, event, shown, kind="warn")
    _count_hits_later(ctx, [c.exp.id for c in shown])
    matches = [c.to_match() for c in shown]
    return Decision(action="warn", context=format_warning(matches), matches=matches)


def _remember(session: SessionState, event: CoreEvent, shown: list[Candidate], kind: str) -> None:
    """Mark as shown (dedup) and log what each was shown for (the judge reads this)."""
    from twiceshy.recall.judge import call_key

    log = session.shown_log
    key = call_key(event)
    for cand in shown:
        session.shown.add(cand.exp.id)
        log.append(
            {
                "exp_id": cand.exp.id,
                "text": cand.exp.text,
                "trigger": cand.exp.trigger,
                "tier": cand.exp.tier,
                "kind": kind,
                "score": round(cand.score, 4),
                "llm_selected": cand.llm_selected,
                "tool_name": event.tool_name,
                "action": event.action_text(),
                "call_id": key,
                "ts": time.time(),
                "calls_after": 0,
                "closed": False,
            }
        )


def _count_hits_later(ctx: EngineContext, ids: list[str]) -> None:
    """A store write is 10+ ms: inside the engine it runs on the jobs thread,
    elsewhere (CLI, tests) inline."""
    from twiceshy.engine.server import submit

    submit(_count_hits, ctx, ids)


def _count_hits(ctx: EngineContext, ids: list[str]) -> None:
    store = ctx.store
    if hasattr(store, "touch_many"):  # batched: one write per many warnings (store.touch_many)
        store.touch_many(ids)
        return
    for exp in store.get_many(ids):
        exp.hits += 1
        store.update(exp)
