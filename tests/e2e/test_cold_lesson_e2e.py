"""A lesson's mistake is held on the first call of a session with no engine at all, on every CLI.

Issue 30 item 4 / issue 31: rules were held from the rules snapshot while the engine was
away; any other lesson's mistake ran. Now the hook client holds it from the hold index.
Per CLI (the shared story's drivers and scripted models, ``hold_scenario.SPECS``): install,
teach the deploy lesson (``twiceshy learn … --trigger "./deploy.sh --env staging"``, a raw
lesson, not a rule), make sure no engine runs, then one headless session with
``TWICESHY_NO_AUTOSTART=1`` in which the model sends the mistake, then the fix.

The mistake must not run (``deploy.sh`` logs every real run), the hold and its lesson must
reach the model before its next turn, the fix must run, and the client's record must say
the call was held from the index.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .fake_anthropic import TextStep
from .hold_scenario import FIX, HOLD_MARK, MISTAKE, PROMPT, SPECS, _ran, _Runner, cli_environ

LESSON = "deploy.sh needs the region: `./deploy.sh --env staging` fails with missing --region; pass --region eu-west-1"


def _cold_session(agent: str, tmp: Path) -> dict[str, Any]:
    spec = SPECS[agent]
    run = _Runner(spec, tmp)
    try:
        run.install()
        run.ts("learn", LESSON, "--trigger", MISTAKE, "--project", cwd=run.project)
        run.ts("engine", "stop")
        assert list((run.home / "hold_index").glob("[0-9][0-9].json")), "the lesson is not in the hold index"
        env = run.env | {"TWICESHY_NO_AUTOSTART": "1"}
        server = spec.make_server([spec.step(MISTAKE), spec.step(FIX), TextStep("done")])
        with server, cli_environ(env):
            proc = spec.driver(PROMPT, run.project, run.agent_home, server)
        failopen = run.home / "failopen.jsonl"
        return {
            "proc": proc,
            "ran": _ran(run.project),
            "requests": server.main_requests(),  # type: ignore[attr-defined]
            "failopen": [json.loads(x) for x in failopen.read_text().splitlines()] if failopen.exists() else [],
        }
    finally:
        run.stop()


@pytest.fixture(scope="module", params=list(SPECS))
def cold(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _cold_session(request.param, tmp_path_factory.mktemp(f"cold-lesson-{request.param}"))


def test_the_first_call_repeating_a_lesson_is_held_with_no_engine(cold: dict[str, Any]) -> None:
    assert cold["ran"] == [FIX], (cold["ran"], cold["proc"].stdout[-2000:], cold["proc"].stderr[-2000:])
    # The model's turn after the held call carries the hold and the lesson's fix.
    later = json.dumps(cold["requests"][1:])
    assert HOLD_MARK in later and "--region eu-west-1" in later, later[-3000:]


def test_the_client_says_it_held_the_call_from_the_index(cold: dict[str, Any]) -> None:
    pre = [r for r in cold["failopen"] if r["kind"] == "pre"]
    assert pre and pre[0]["outcome"] == "held" and pre[0]["lessons"], cold["failopen"]
    assert [r["outcome"] for r in pre[1:]] == ["open"] * (len(pre) - 1), pre  # the fix passes
