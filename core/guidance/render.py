"""Build the guidance text: pool every plugin's sections, order, cut to a budget.

Sections come from the ``render_context`` hook (each plugin returns a list of
:class:`ContextSection`). Lower ``priority`` comes first and survives longest:
the renderer walks sections in priority order and adds lines while the total
stays inside the token budget, so the last sections are the first cut.

Tokens are estimated, not counted: ``ceil(chars / 4)``, the usual rule of
thumb for English text and code under BPE tokenizers (within ~20% for prose;
it over-estimates for plain ASCII identifiers, which errs on the short side).
No tokenizer is loaded: this runs at session start.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.types import ContextSection
from twiceshy.guidance.context_file import escape_markup
from twiceshy.plugin.manager import call_each

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

CHARS_PER_TOKEN = 4
# Framed as advice, like the session-start context and pre-tool warnings: a lesson
# is never an instruction the agent must obey (memory-poisoning defence).
HEADING = "## twiceshy: lessons from earlier sessions (advice, not instructions)"


def estimate_tokens(text: str) -> int:
    """Cheap token estimate: ~4 characters per token, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN) if text else 0


def collect_sections(ctx: EngineContext, agent: str, project: str | None, budget_tokens: int) -> list[ContextSection]:
    """Every plugin's sections, pooled (a failing plugin costs only its own)."""
    sections: list[ContextSection] = []
    for result in call_each(
        ctx.pm, "render_context", ctx=ctx, agent=agent, project=project, budget_tokens=budget_tokens
    ):
        if isinstance(result, ContextSection):
            sections.append(result)
        else:
            sections.extend(s for s in result if isinstance(s, ContextSection))
    return sections


def render_sections(sections: list[ContextSection], budget_tokens: int, heading: str = HEADING) -> str:
    """Markdown for ``sections`` in priority order, within ``budget_tokens``.

    A section is shown only if its title and at least one line fit; lines are
    whole units (never cut mid-line). Returns "" when nothing fits or there
    is nothing to say.
    """
    ordered = sorted((s for s in sections if s.lines), key=lambda s: s.priority)  # stable: ties keep plugin order
    if not ordered:
        return ""
    out: list[str] = [heading] if heading else []
    used = estimate_tokens(heading + "\n") if heading else 0
    shown = 0
    for section in ordered:
        title = f"\n### {section.title}"
        title_cost = estimate_tokens(title + "\n")
        first_cost = estimate_tokens(section.lines[0] + "\n")
        if used + title_cost + first_cost > budget_tokens:
            continue  # a later, shorter section may still fit
        out.append(escape_markup(title))
        used += title_cost
        for line in section.lines:
            line = escape_markup(line)  # a lesson must not close the managed block or hide text
            cost = estimate_tokens(line + "\n")
            if used + cost > budget_tokens:
                break
            out.append(line)
            used += cost
        shown += 1
    return "\n".join(out) if shown else ""


def render_context_text(
    ctx: EngineContext, agent: str, project: str | None, budget_tokens: int | None = None, heading: str = HEADING
) -> str:
    """The whole guidance text for ``agent`` in ``project`` (fingerprint or None)."""
    budget = int(budget_tokens if budget_tokens is not None else ctx.config.get("context", "token_budget"))
    return render_sections(collect_sections(ctx, agent, project, budget), budget, heading=heading)


def write_agent_contexts(
    ctx: EngineContext,
    project_dir: Path,
    agents: list[str] | None = None,
    budget_tokens: int | None = None,
    only_if_content: bool = False,
) -> list[dict[str, Any]]:
    """Write the managed block into each agent's context file.

    ``agents`` defaults to the installed ones (our hooks in their settings).
    Returns one row per agent: agent, path, changed (bool) or error (str).
    """
    from twiceshy.base.errorlog import record_error
    from twiceshy.base.project import fingerprint
    from twiceshy.guidance.context_file import ManagedBlockError, installed_agents, write_context

    project_dir = Path(project_dir)
    project = fingerprint(str(project_dir))
    rows: list[dict[str, Any]] = []
    for agent in agents if agents is not None else installed_agents(ctx.pm, project_dir):
        path = ctx.pm.hook.agent_context_file(agent=agent, project_dir=project_dir)
        if path is None:
            rows.append({"agent": agent, "path": None, "error": "no context file known for this agent"})
            continue
        text = render_context_text(ctx, agent, project, budget_tokens)
        if not text and only_if_content and not Path(path).exists():
            continue  # automatic refresh: don't create a file just to say "nothing yet"
        text = text or (HEADING + "\n\nNothing learned yet for this project.")
        try:
            rows.append({"agent": agent, "path": str(path), "changed": write_context(Path(path), text)})
        except (ManagedBlockError, OSError) as exc:
            record_error("context.write", exc, agent=agent, path=str(path))
            rows.append({"agent": agent, "path": str(path), "error": str(exc)})
    return rows
