"""``twiceshy mcp``: an MCP server on stdio for any MCP-capable agent.

Tools:

* ``search(query, k=5, cwd="")`` — lessons similar to ``query`` (global plus the
  project's), with tier, evidence and similarity.
* ``suggest(limit=10, cwd="")`` — mature/rule patterns and the behavioural
  rules distilled from trajectories, for the project.
* ``observe(pattern, project_scoped=False, cwd="")`` — record one sighting of a
  pattern such as ``seq:test->fix->test``.
* ``feedback(lesson_id, verdict)`` — FOLLOWED / IGNORED / IRRELEVANT for a lesson
  that was shown; applied through ``twiceshy.learning.evolve.record_verdict``.

``cwd`` defaults to the server's working directory (agents start MCP servers
in the project). Uses the official ``mcp`` package (``MCPServer`` in mcp 2.x,
``FastMCP`` in 1.x); it is imported only here, never on the hook path. stdout
is the protocol channel: nothing else may print to it.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path
from typing import Any

VERDICTS = ("FOLLOWED", "IGNORED", "IRRELEVANT", "UNCLEAR")

_ctx_lock = threading.Lock()
_ctx: Any = None


def _context() -> Any:
    """One EngineContext for the server's life (opening the store costs ~2 s)."""
    global _ctx
    with _ctx_lock:
        if _ctx is None:
            from twiceshy.engine.context import make_context

            _ctx = make_context(Path.cwd())
        return _ctx


def _project(cwd: str) -> str:
    from twiceshy.base.project import fingerprint

    return fingerprint(cwd or str(Path.cwd()))


def tool_search(query: str, k: int = 5, cwd: str = "") -> list[dict[str, Any]]:
    """Lessons most similar to ``query`` for the project."""
    ctx = _context()
    hits = ctx.store.search(query, k=max(1, min(int(k), 50)), project=_project(cwd))
    return [
        {
            "id": exp.id,
            "tier": exp.tier_label,
            "text": exp.text,
            "trigger": exp.trigger,
            "evidence": exp.evidence(),
            "scope": exp.project or "global",
            "score": round(score, 4),
        }
        for exp, score in hits
        if "review:held" not in exp.tags  # twiceshy.learning.review: not shown until approved
    ]


def tool_suggest(limit: int = 10, cwd: str = "") -> dict[str, Any]:
    """Patterns and distilled rules worth following here."""
    from twiceshy.guidance.distill import distill_rules
    from twiceshy.guidance.patterns import PatternStore

    ctx = _context()
    patterns = PatternStore(config=ctx.config).suggest(_project(cwd), limit=int(limit))
    rules = distill_rules(config=ctx.config)[: int(limit)]
    return {
        "patterns": [
            {"pattern": o.pattern, "status": o.status, "evidence": o.evidence(), "scope": o.project or "global"}
            for o in patterns
        ],
        "rules": [
            {"rule": r.text, "polarity": r.polarity, "evidence": r.evidence, "checklist": r.checklist} for r in rules
        ],
    }


def tool_observe(pattern: str, project_scoped: bool = False, cwd: str = "") -> dict[str, Any]:
    """Record one sighting of ``pattern``."""
    from twiceshy.guidance.patterns import PatternStore

    ctx = _context()
    obs = PatternStore(config=ctx.config).observe(pattern, project=_project(cwd) if project_scoped else None)
    return {"pattern": obs.pattern, "status": obs.status, "count": obs.count, "confidence": round(obs.confidence, 4)}


def apply_verdict(ctx: Any, exp_id: str, verdict: str) -> None:
    """Apply a verdict through the learning loop (``twiceshy.learning.evolve.record_verdict``).

    If that module is not installed the counts are updated here, so feedback
    is never lost.
    """
    try:
        from twiceshy.learning.evolve import record_verdict
    except ImportError:
        record_verdict = None
    if record_verdict is not None:
        record_verdict(ctx, exp_id, verdict)
        return
    exp = ctx.store.get(exp_id)
    if exp is None:
        return
    if verdict == "FOLLOWED":
        exp.follows += 1
    elif verdict == "IGNORED":
        exp.ignores += 1
    elif verdict == "IRRELEVANT":
        exp.irrelevant += 1
    ctx.store.update(exp)


def tool_feedback(lesson_id: str, verdict: str) -> dict[str, Any]:
    """FOLLOWED / IGNORED / IRRELEVANT (or UNCLEAR) for a lesson that was shown."""
    verdict = verdict.strip().upper()
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
    ctx = _context()
    if ctx.store.get(lesson_id) is None:
        raise ValueError(f"no lesson {lesson_id}")
    apply_verdict(ctx, lesson_id, verdict)
    exp = ctx.store.get(lesson_id)
    return {"id": lesson_id, "verdict": verdict, "evidence": exp.evidence() if exp else ""}


def build_server() -> Any:
    """The MCP server object with our four tools registered."""
    try:
        from mcp.server.mcpserver import MCPServer as Server  # mcp >= 2
    except ImportError:
        from mcp.server.fastmcp import FastMCP as Server  # type: ignore[attr-defined,no-redef,unused-ignore]  # mcp 1.x

    server = Server(
        "twiceshy",
        instructions="Lessons from this agent's earlier sessions: search before risky actions, "
        "report FOLLOWED/IGNORED/IRRELEVANT for lessons you were shown.",
    )

    @server.tool(name="search", description="Search lessons from earlier sessions similar to an action or question.")
    def search(query: str, k: int = 5, cwd: str = "") -> list[dict[str, Any]]:
        return tool_search(query, k, cwd)

    @server.tool(
        name="suggest", description="Patterns and distilled behavioural rules worth following in this project."
    )
    def suggest(limit: int = 10, cwd: str = "") -> dict[str, Any]:
        return tool_suggest(limit, cwd)

    @server.tool(name="observe", description="Record one sighting of a pattern, e.g. 'seq:test->fix->test'.")
    def observe(pattern: str, project_scoped: bool = False, cwd: str = "") -> dict[str, Any]:
        return tool_observe(pattern, project_scoped, cwd)

    @server.tool(name="feedback", description="Report FOLLOWED, IGNORED or IRRELEVANT for a lesson you were shown.")
    def feedback(lesson_id: str, verdict: str) -> dict[str, Any]:
        return tool_feedback(lesson_id, verdict)

    return server


def main() -> None:
    """Run on stdio until the client closes the pipe."""
    # Anything logged goes to stderr: stdout carries JSON-RPC.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    build_server().run()


__all__ = ["apply_verdict", "build_server", "main"]
