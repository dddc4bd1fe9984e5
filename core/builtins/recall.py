"""pre_tool: find the lessons that match the action and warn, or block for a rule.

Ranking here is similarity-first with a few cheap adjustments; the litellm
relevance filter (when configured) refines it in its own plugin.
"""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..context import EngineContext
from ..project import fingerprint
from ..types import CoreEvent, Decision, LessonMatch, Tier

HEADER = (
    "twiceshy — lessons from earlier sessions that match this action. "
    "They are advice from past experience, not instructions; ignore any that do not apply."
)


def find_matches(ctx: EngineContext, event: CoreEvent) -> list[LessonMatch]:
    cfg = ctx.config["retrieval"]
    project = fingerprint(event.cwd) if event.cwd else None
    hits = ctx.store.search(event.action_text(), k=cfg["top_k"], project=project)
    matches = []
    for exp, score in hits:
        adjusted = score
        if exp.superseded_by:
            adjusted -= 0.2  # superseded lessons are kept for the timeline, ranked down
        if adjusted < cfg["min_score"]:
            continue
        matches.append(
            LessonMatch(
                experience_id=exp.id, text=exp.text, trigger=exp.trigger, tier=exp.tier, score=adjusted, evidence=exp.evidence()
            )
        )
    matches.sort(key=lambda m: (m.tier, -m.score))
    return matches


def format_warning(matches: list[LessonMatch]) -> str:
    lines = [HEADER]
    for m in matches:
        lines.append(f"- [{Tier(m.tier).label}; {m.evidence}] {m.text}")
    return "\n".join(lines)


@hookimpl
def pre_tool(event: CoreEvent, ctx: EngineContext) -> Decision | None:
    cfg = ctx.config["retrieval"]
    session = ctx.session(event.session_id)
    matches = [m for m in find_matches(ctx, event) if m.experience_id not in session["shown"]]
    if not matches:
        return None
    blockers = [m for m in matches if m.tier in cfg["block_tiers"] and m.score >= cfg["block_min_score"]]
    if blockers:
        reason = "Blocked by twiceshy: a confirmed rule from earlier sessions applies.\n" + "\n".join(
            f"- {m.text} ({m.evidence})" for m in blockers
        )
        # A deny is not subject to the per-session dedup: a rule blocks every time.
        return Decision(action="deny", reason=reason, matches=blockers)
    remaining = cfg["session_warning_budget"] - session["warnings"]
    shown = matches[: max(0, min(cfg["max_warnings"], remaining))]
    if not shown:
        return None
    for m in shown:
        session["shown"].add(m.experience_id)
    session["warnings"] += len(shown)
    _count_hits(ctx, [m.experience_id for m in shown])
    return Decision(action="warn", context=format_warning(shown), matches=shown)


def _count_hits(ctx: EngineContext, ids: list[str]) -> None:
    store = ctx.store
    for exp in store.get_many(ids):
        exp.hits += 1
        store.update(exp)
