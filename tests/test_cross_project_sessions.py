"""Issue 27: cross-project promotion never merges lessons about different calls.

Eight sessions in three projects, each project with its own script and its own
mistake, through the real hooks (``handle_hook`` as Claude Code drives it), the
real session end (transcript, extraction, ingest, the evolve cycle and its
cross-project promotion, the judge's verdicts) and a real store on disk:

* the issue's own case, ``./tool-0.sh … --region``, ``./tool-2.sh … --zone``,
  ``./tool-5.sh … --namespace`` (bb58719 made tool-0's lesson global, "seen 3x",
  superseding the others, and held ``./tool-0.sh --env staging`` in an
  unrelated project);
* the same scripts run by an interpreter and each missing ``--region``
  (``bash ./tool-0.sh --env staging``): one signature (``bash`` without
  ``--region``), three programs — merged, it held any ``bash`` script anywhere.

The projects' sessions run in several orders: which lessons a pass saw, and
which of them was strongest, decided the grouping (it differed run to run).
Whatever the order, each lesson stays in its project, unsuperseded, holding its
own mistake there and nothing in another project. The same mistake learned in
three projects (one script, one missing flag, other values) still becomes one
global lesson that holds what it held, and only that. And within one project,
two scripts run by one interpreter stay two lessons.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from twiceshy.base.project import fingerprint
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_hook
from twiceshy.learning.cross_project import seen_in
from twiceshy.ops.why import command_payload, explain
from twiceshy.recall import judge, ranking

OWN_FLAG = {0: ("--region", "eu-west-1"), 2: ("--zone", "b"), 5: ("--namespace", "prod")}
ONE_FLAG = {0: ("--region", "eu-west-1"), 2: ("--region", "eu-west-1"), 5: ("--region", "eu-west-1")}
CASES = {
    "own-script-own-flag": ("./tool-{n}.sh --env staging", OWN_FLAG),
    "interpreter-one-flag": ("bash ./tool-{n}.sh --env staging", ONE_FLAG),
}
ORDERS = {  # eight sessions: three in project 0, three in project 2, two in project 5
    "blocks": (0, 0, 0, 2, 2, 2, 5, 5),
    "reversed": (5, 5, 2, 2, 2, 0, 0, 0),
    "round-robin": (0, 2, 5, 0, 2, 5, 0, 2),
    "strongest-last": (5, 2, 5, 2, 2, 0, 0, 0),
}


class Agent:
    """Claude Code in one store: sessions in project folders, every call through the hooks."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.ctx = make_context(tmp)
        self.sessions = 0

    def root(self, name: str) -> Path:
        path = self.tmp / name
        path.mkdir(exist_ok=True)
        return path

    def pre_tool(self, root: Path, sid: str, tid: str, command: str) -> dict[str, Any]:
        payload = {
            "session_id": sid, "cwd": str(root), "transcript_path": str(root / f"{sid}.jsonl"),
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": tid,
        }  # fmt: skip
        out = handle_hook(self.ctx, "claude-code", "PreToolUse", payload)
        assert out.exit_code == 0
        return json.loads(out.stdout)["hookSpecificOutput"] if out.stdout else {}

    def held(self, root: Path, command: str) -> bool:
        """Would the pre-tool hook hold ``command`` in ``root``? (``twiceshy why``: nothing recorded)."""
        return explain(self.ctx, *command_payload(command, str(root)), detail=False)["verdict"] == "hold"

    def session(self, root: Path, mistake: str, error: str, fix: str) -> list[str]:
        """The agent runs ``mistake`` (unless it is held: then the hold is its result), then
        ``fix``; the session ends. Returns what happened to each call."""
        self.sessions += 1
        sid = f"s{self.sessions}"
        base = {"session_id": sid, "cwd": str(root), "transcript_path": str(root / f"{sid}.jsonl")}
        entries: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user", "content": "deploy staging"}}]
        seen = []
        for n, (command, failure) in enumerate(((mistake, error), (fix, ""))):
            tid = f"{sid}-{n}"
            use = {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}
            entries.append({"type": "assistant", "message": {"role": "assistant", "content": [use]}})
            decision = self.pre_tool(root, sid, tid, command)
            call = {**base, "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": tid}
            if decision.get("permissionDecision") == "deny":
                result, is_error, seen = decision.get("permissionDecisionReason", ""), True, [*seen, "held"]
            elif failure:
                result, is_error, seen = f"Exit code 2\n{failure}", True, [*seen, "failed"]
                handle_hook(self.ctx, "claude-code", "PostToolUseFailure",
                            {**call, "hook_event_name": "PostToolUseFailure", "error": result})  # fmt: skip
            else:
                result, is_error, seen = "deployed", False, [*seen, "ran"]
                handle_hook(self.ctx, "claude-code", "PostToolUse",
                            {**call, "hook_event_name": "PostToolUse", "tool_response": {"stdout": result}})  # fmt: skip
            block = {"type": "tool_result", "tool_use_id": tid, "is_error": is_error, "content": result}
            entries.append({"type": "user", "message": {"role": "user", "content": [block]}})
        Path(base["transcript_path"]).write_text("\n".join(json.dumps(e) for e in entries) + "\n")
        out = handle_hook(
            self.ctx, "claude-code", "SessionEnd", {**base, "hook_event_name": "SessionEnd", "reason": "exit"}
        )
        assert out.exit_code == 0
        judge.process_pending(self.ctx)
        return seen


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    ranking.clear_cache()


def _about(command: str) -> str:
    """Which script a trigger is about (``tool-2``)."""
    return next(w for w in command.replace("./", " ").split() if w.startswith("tool-")).removesuffix(".sh")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("case", CASES)
def test_lessons_about_other_scripts_or_flags_never_merge(tmp_path: Path, case: str, order: str) -> None:
    template, flags = CASES[case]
    agent = Agent(tmp_path)
    roots = {n: agent.root(f"proj{n}") for n in OWN_FLAG}
    calls = {}
    for n, (flag, value) in flags.items():
        mistake = template.format(n=n)
        calls[n] = (mistake, f"error: missing required flag {flag}", f"{mistake} {flag} {value}")
    for n in ORDERS[order]:
        agent.session(roots[n], *calls[n])
    lessons = agent.ctx.store.all()
    by_id = {e.id: e for e in lessons}
    assert lessons
    for exp in lessons:
        about = _about(exp.trigger)
        home = fingerprint(str(roots[int(about.removeprefix("tool-"))]))
        assert exp.project == home, (exp.trigger, exp.project, seen_in(exp))
        if exp.superseded_by:  # only ever by a lesson about the same script
            assert _about(by_id[exp.superseded_by].trigger) == about, (exp.trigger, by_id[exp.superseded_by].trigger)
    assert not [e for e in lessons if e.project is None]  # no global lesson: none is seen in three projects
    # Each project's own mistake is still held there, and its fix runs.
    for n, root in roots.items():
        mistake, _, fix = calls[n]
        assert agent.held(root, mistake), (n, mistake)
        assert not agent.held(root, fix), (n, fix)
    # Nothing is held in a project that learned nothing.
    elsewhere = agent.root("unrelated")
    for n in roots:
        assert not agent.held(elsewhere, calls[n][0]), calls[n][0]
    assert not agent.held(elsewhere, template.format(n=9))


@pytest.mark.parametrize("template", ["./deploy.sh --env {env}", "bash ./deploy.sh --env {env}"])
def test_the_same_mistake_in_three_projects_goes_global_and_holds_only_what_it_held(
    tmp_path: Path, template: str
) -> None:
    agent = Agent(tmp_path)
    roots = [agent.root(f"repo{n}") for n in range(3)]
    probes = [
        template.format(env="staging"), template.format(env="staging") + " --region eu-west-1",
        template.format(env="staging").replace("deploy", "other"), template.format(env="staging") + " --zone b",
    ]  # fmt: skip
    # One mistake, worded apart: another environment, another region.
    runs = zip(roots, ("staging", "prod", "qa"), ("eu-west-1", "us-east-1", "ap-south-1"))
    for k, (root, env, region) in enumerate(runs):
        if k == 2:  # what the first project's lesson holds there, before it is seen in a third
            before = {p: agent.held(roots[0], p) for p in probes}
            signatures = {json.dumps(e.structured.get("signature"), sort_keys=True) for e in agent.ctx.store.all()}
        mistake = template.format(env=env)
        agent.session(root, mistake, "error: missing required flag --region", f"{mistake} --region {region}")
    lessons = agent.ctx.store.all()
    live_global = [e for e in lessons if e.project is None]
    assert len(live_global) == 1, [(e.trigger, e.project) for e in lessons]
    lead = live_global[0]
    assert seen_in(lead) == {fingerprint(str(r)) for r in roots}
    assert all(e.superseded_by == lead.id for e in lessons if e.id != lead.id)
    # It holds what it held (its own signature, nothing merged into it), now in any project.
    assert json.dumps(lead.structured["signature"], sort_keys=True) in signatures
    elsewhere = agent.root("unrelated")
    assert {p: agent.held(elsewhere, p) for p in probes} == before
    assert before[probes[0]] and not before[probes[1]]  # the mistake is held, its fix runs


def test_two_scripts_of_one_project_stay_two_lessons(tmp_path: Path) -> None:
    """Within one project too: one interpreter, one missing flag, two scripts are two mistakes."""
    agent = Agent(tmp_path)
    root = agent.root("proj")
    for script in ("tool-0.sh", "tool-2.sh", "tool-0.sh", "tool-2.sh"):
        mistake = f"bash ./{script} --env staging"
        agent.session(root, mistake, "error: missing required flag --region", f"{mistake} --region eu-west-1")
    lessons = [e for e in agent.ctx.store.all() if not e.superseded_by]
    assert sorted(_about(e.trigger) for e in lessons) == ["tool-0", "tool-2"]
    assert all(e.seen_count == 2 for e in lessons)
