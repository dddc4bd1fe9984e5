"""The MCP server for real: `python -m twiceshy mcp` as a subprocess, the mcp package's stdio client."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from twiceshy.base.types import Experience


def _payload(result) -> object:
    """A tool result's JSON: structured content when given, else the first text block."""
    structured = getattr(result, "structured_content", None) or getattr(result, "structuredContent", None)
    if structured is not None:
        return structured.get("result", structured) if isinstance(structured, dict) else structured
    return json.loads(result.content[0].text)


def test_mcp_stdio_search_observe_feedback_suggest(ctx, tmp_path: Path, twiceshy_home: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from twiceshy.engine.context import make_context
    from twiceshy.guidance.patterns import PatternStore

    lesson = Experience(text="Run alembic upgrade head before pytest", trigger="pytest tests/db", tier=2)
    ctx.store.add(lesson)
    env = {k: v for k, v in os.environ.items() if k.startswith(("TWICESHY_", "LITELLM_", "PATH", "HOME"))}
    params = StdioServerParameters(command=sys.executable, args=["-m", "twiceshy", "mcp"], env=env, cwd=str(tmp_path))
    seen: dict[str, object] = {}

    async def talk() -> None:
        with anyio.fail_after(60), open(tmp_path / "mcp-stderr.log", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    seen["tools"] = sorted(t.name for t in tools.tools)
                    seen["search"] = _payload(await session.call_tool("search", {"query": "pytest tests/db", "k": 3}))
                    for _ in range(3):
                        seen["observe"] = _payload(
                            await session.call_tool("observe", {"pattern": "seq:test->fix->test"})
                        )
                    seen["feedback"] = _payload(
                        await session.call_tool("feedback", {"lesson_id": lesson.id, "verdict": "followed"})
                    )
                    bad = await session.call_tool("feedback", {"lesson_id": lesson.id, "verdict": "maybe"})
                    seen["bad_is_error"] = bad.is_error if hasattr(bad, "is_error") else bad.isError
                    seen["suggest"] = _payload(await session.call_tool("suggest", {"limit": 5}))

    anyio.run(talk)

    assert seen["tools"] == ["feedback", "observe", "search", "suggest"]
    hits = seen["search"]
    assert hits and hits[0]["id"] == lesson.id and hits[0]["text"] == lesson.text and hits[0]["score"] > 0.9
    assert seen["observe"]["count"] == 3
    assert seen["feedback"]["verdict"] == "FOLLOWED" and "followed 1/1" in seen["feedback"]["evidence"]
    assert seen["bad_is_error"] is True
    assert set(seen["suggest"]) == {"patterns", "rules"}
    # The server wrote to the same data dir: the pattern file and the store show it.
    (obs,) = PatternStore().all()
    assert obs.key == "seq:test->fix->test" and obs.count == 3 and obs.project is None
    got = make_context(tmp_path).store
    got.refresh_if_stale()
    assert got.get(lesson.id).follows == 1
