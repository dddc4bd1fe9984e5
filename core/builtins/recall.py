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
from twiceshy.hooks.match import call_parts, command_of
from twiceshy.lesson.evidence import lesson_advice
from twiceshy.plugin.hookspecs import hookimpl
from twiceshy.recall.hold_index import known_good, look_may_hold, ran_parts
from twiceshy.recall.ranking import (
    MATCH_BONUS,
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
    """The lessons that may apply to ``event``: what the search finds
    (:func:`search_candidates`) and the rules a long call repeats beyond what
    the search saw (:func:`long_call_rules`). No session state, no model."""
    candidates = search_candidates(ctx, event)
    seen = {c.exp.id for c in candidates}
    return candidates + [c for c in long_call_rules(ctx, event) if c.exp.id not in seen]


# The search sees the first ~2,000 characters of a call (CoreEvent.action_text):
# a rule whose command comes later on a long line is checked from the rules
# snapshot instead, segment by segment, up to LONG_CALL_PARSE_MAX characters;
# past that (parsing costs ~0.17 ms per kB) a rule whose program the line
# names at all denies it: a call too large to check is never let through.
LONG_CALL = 1_500
LONG_CALL_PARSE_MAX = 256 * 1024
_rules_cache: dict[str, Any] = {}


def _snapshot_rules() -> list[dict[str, Any]]:
    """The rules snapshot's entries, re-read when the file changes."""
    from twiceshy.memory.rules_snapshot import read, snapshot_path

    path = snapshot_path()
    try:
        st = path.stat()
    except OSError:
        return []
    key = (st.st_ino, st.st_mtime_ns, st.st_size)
    if _rules_cache.get("key") != key:
        data = read(path) or {}
        _rules_cache.update(key=key, rules=[r for r in data.get("rules") or [] if isinstance(r, dict)])
    return list(_rules_cache.get("rules") or [])


def long_call_rules(ctx: EngineContext, event: CoreEvent) -> list[Candidate]:
    """Rules that a long call repeats beyond what the search saw (see LONG_CALL)."""
    from twiceshy.hooks.match import check, command_of

    command = command_of(event.tool_name, event.tool_input or {}) or ""
    if len(command) <= LONG_CALL:
        return []
    project = event_project(event)
    hits: dict[str, str] = {}
    for rule in _snapshot_rules():
        sig = rule.get("signature")
        if not isinstance(sig, dict) or rule.get("project") not in (None, "", project):
            continue
        if len(command) > LONG_CALL_PARSE_MAX:
            subs = [sig, *(sig.get("of") or [])]
            programs = sorted({str(x.get("program") or "") for x in subs if isinstance(x, dict)} - {""})
            if any(_names_word(command, p) for p in programs):
                hits[str(rule["id"])] = "too long to check, and it names " + ", ".join(programs)
            continue
        ok, why = check(sig, event.tool_name, event.tool_input or {})
        if ok:
            hits[str(rule["id"])] = why
    out = []
    for exp in ctx.store.get_many(list(hits)) if hits else []:
        out.append(Candidate(exp=exp, similarity=1.0, score=1.0 + MATCH_BONUS, matched=True, reason=hits[exp.id]))
    return out


def _names_word(text: str, word: str) -> bool:
    """``word`` occurs in ``text`` as a word of its own (a C-speed scan, no parse)."""
    start = 0
    while True:
        k = text.find(word, start)
        if k < 0:
            return False
        before = text[k - 1] if k else " "
        after = text[k + len(word)] if k + len(word) < len(text) else " "
        if not (before.isalnum() or before in "_-.") and not (after.isalnum() or after in "_-."):
            return True
        start = k + 1


def search_candidates(ctx: EngineContext, event: CoreEvent) -> list[Candidate]:
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
    from twiceshy.recall.outcomes import context_only

    cfg = ctx.config["retrieval"]
    if cand.matched is False or (cand.matched is None and ctx.config["ranking"].get("structured", True)):
        return False
    if context_only(cand.exp):
        return False  # corrected by its own outcomes (false holds, overrides): context only
    if cand.exp.tier not in cfg["block_tiers"]:
        return False
    # The signature decided this call repeats the rule's mistake: how similar
    # the whole line reads (a long line, padding) does not weaken that.
    return cand.matched is True or cand.score >= cfg["block_min_score"]


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
    if event.read_only and ctx.config.get("hook", "readonly_skip") and not look_may_hold(event):
        # Cannot mutate anything: no search (twiceshy.recall.readonly); other plugins still see it.
        # Unless a lesson's mistake was this very look (kubectl get against the wrong context).
        return None
    cfg = ctx.config["retrieval"]
    session = ctx.session(event.session_id)
    candidates = find_candidates(ctx, event)
    if candidates:
        from twiceshy.recall.outcomes import excepted

        # A call a lesson learned it must not hold (it passed after a hold: twiceshy.recall.outcomes).
        candidates = [c for c in candidates if not excepted(c.exp, event)]
    if any(c.matched and not _is_blocker(ctx, c) for c in candidates) and known_good(event):
        # This very call worked here before (a lesson's stored fix): evidence beats a lesson's
        # inference, so no lesson holds it but one that saw this very call fail; a confirmed
        # rule still denies.
        parts = sorted(call_parts(command_of(event.tool_name, event.tool_input or {}) or ""))
        candidates = [
            c for c in candidates if _is_blocker(ctx, c) or not c.matched or ran_parts(c.exp, "mistake") == parts
        ]
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
            shown = lesson_advice(c.exp)
            line = f"- {shown} ({c.exp.evidence()})"
            fix = fix_of(c)
            if fix and fix not in shown:
                line += f" Instead: {fix}"
            lines.append(line)
        reason = "Blocked by twiceshy: a confirmed rule from earlier sessions applies.\n" + "\n".join(lines)
        fresh = [c for c in blockers if c.exp.id not in session.shown]
        _remember(session, event, fresh, kind="deny")
        _count_hits_later(ctx, [c.exp.id for c in blockers])  # a rule's deny is a hit of that rule
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
    elsewhere (CLI, tests) inline. Not inside ``delivery.dry_run`` (``twiceshy why``)."""
    from twiceshy.engine.server import submit
    from twiceshy.recall.delivery import is_dry

    if is_dry():
        return

    submit(_count_hits, ctx, ids)


def _count_hits(ctx: EngineContext, ids: list[str]) -> None:
    store = ctx.store
    if hasattr(store, "touch_many"):  # batched: one write per many warnings (store.touch_many)
        store.touch_many(ids)
        return
    for exp in store.get_many(ids):
        exp.hits += 1
        store.update(exp)
