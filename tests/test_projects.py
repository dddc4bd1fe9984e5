"""Project scoping: cross-project promotion to global and the projects table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from twiceshy.base.types import Experience
from twiceshy.guidance.projects import project_table, record_project
from twiceshy.learning.cross_project import promote_cross_project, seen_in

NODE_SIG = {"signature": {"v": 1, "kind": "command", "program": "node", "absent": ["--engine-strict"]}}


def _lesson(text: str, trigger: str, project: str, **kw) -> Experience:
    return Experience(text=text, trigger=trigger, project=project, tier=kw.pop("tier", 2), **kw)


def test_promote_cluster_seen_in_enough_projects(ctx) -> None:
    store = ctx.store
    same = [
        _lesson("Run migrations before the test suite", "pytest tests/ with a database", p, seen_count=2, follows=f)
        for p, f in (("p1-aaaa", 2), ("p2-bbbb", 1), ("p3-cccc", 0))
    ]
    same[1].tier = 1  # the strongest member leads
    two_only = [_lesson("Use the staging profile for deploys", "deploy --profile", p) for p in ("p1-aaaa", "p2-bbbb")]
    ignored = [
        _lesson("Always vendor dependencies", "npm install package", p, ignores=3)
        for p in ("p1-aaaa", "p2-bbbb", "p3-cccc")
    ]
    for exp in same + two_only + ignored:
        store.add(exp)
    assert promote_cross_project(ctx) == 1
    lead = store.get(same[1].id)
    assert lead.project is None and lead.tier == 1
    assert lead.seen_count == 6 and lead.follows == 3
    assert seen_in(lead) == {"p1-aaaa", "p2-bbbb", "p3-cccc"}
    for other in (same[0], same[2]):
        got = store.get(other.id)
        assert got.superseded_by == lead.id and got.project == other.project
    assert {(e["src"], e["type"]) for e in store.edges(same[0].id)} == {(lead.id, "supersedes")}
    # Not enough projects, or mostly ignored: stays scoped.
    assert all(store.get(e.id).project for e in two_only + ignored)
    # A fourth project now sees the promoted lesson.
    hits = [e.id for e, _ in store.search("pytest tests/ with a database", k=3, project="p4-dddd")]
    assert lead.id in hits
    assert promote_cross_project(ctx) == 0  # idempotent
    assert promote_cross_project(ctx, min_projects=2) == 1  # the staging lesson with a lower bar


def test_relates_to_edges_and_seen_in_tags_count_as_evidence(ctx) -> None:
    store = ctx.store
    # One mistake (the same signature), worded apart: only the edge joins them.
    a = _lesson("Pin the Node version in CI", "node --version mismatch in ci", "p1-aaaa", structured=NODE_SIG)
    b = _lesson(
        "Set engines.node in package.json", "package.json engines field", "p2-bbbb", tags=["seen-in:p3-cccc"],
        structured=NODE_SIG,
    )  # fmt: skip
    store.add(a)
    store.add(b)
    assert promote_cross_project(ctx) == 0  # unrelated so far: two clusters of 1-2 projects
    store.add_edge(b.id, a.id, "relates-to", weight=0.75)
    assert promote_cross_project(ctx) == 1
    promoted = [e for e in (store.get(a.id), store.get(b.id)) if e.project is None]
    assert len(promoted) == 1 and seen_in(promoted[0]) == {"p1-aaaa", "p2-bbbb", "p3-cccc"}


def test_lessons_about_different_mistakes_never_merge_however_alike_or_linked(ctx) -> None:
    """Issue 27: each script with its own missing flag stays its own lesson in its own project."""
    store = ctx.store
    lessons = [
        _lesson(f"./tool-{n}.sh needs {flag}", f"./tool-{n}.sh --env staging", p, seen_count=2, follows=1,
                structured={"signature": {"v": 1, "kind": "command", "program": f"tool-{n}.sh", "absent": [flag]}})
        for n, flag, p in ((0, "--region", "p1-aaaa"), (2, "--zone", "p2-bbbb"), (5, "--namespace", "p3-cccc"))
    ]  # fmt: skip
    for exp in lessons:
        store.add(exp)
    store.add_edge(lessons[0].id, lessons[1].id, "relates-to", weight=0.9)
    assert promote_cross_project(ctx) == 0
    assert all(store.get(e.id).project == e.project and not store.get(e.id).superseded_by for e in lessons)


def test_lessons_without_a_stored_signature_merge_on_what_they_hold_not_their_trigger(ctx) -> None:
    """Older or imported lessons carry no signature: the matcher derives one from the trigger
    and the advice, so one trigger with three different flags is three lessons; one flag
    (other values, other words) is one lesson, seen in three projects."""
    store = ctx.store
    trigger = "./deploy.sh --env staging"
    apart = [
        _lesson(text, trigger, p, seen_count=2, follows=1)
        for text, p in (
            ("Always pass --region eu-west-1 to deploy.sh for staging.", "p1-aaaa"),
            ("Always pass --zone b to deploy.sh for staging.", "p2-bbbb"),
            ("deploy.sh needs --namespace prod on staging.", "p3-cccc"),
        )
    ]
    for exp in apart:
        store.add(exp)
    assert promote_cross_project(ctx) == 0
    assert all(store.get(e.id).project == e.project and not store.get(e.id).superseded_by for e in apart)
    same = _lesson("Pass --region us-east-1 when deploying staging.", trigger, "p4-dddd", seen_count=2, follows=1)
    again = _lesson("Always pass --region ap-south-1 to deploy.sh.", trigger, "p5-eeee", seen_count=1)
    store.add(same)
    store.add(again)
    assert promote_cross_project(ctx) == 1  # the --region lessons of p1, p4 and p5
    promoted = [e for e in store.all() if e.project is None]
    assert len(promoted) == 1 and seen_in(promoted[0]) == {"p1-aaaa", "p4-dddd", "p5-eeee"}
    assert all(not store.get(e.id).superseded_by and store.get(e.id).project for e in apart[1:])


def test_project_table_counts(ctx, tmp_path: Path, twiceshy_home: Path) -> None:
    from twiceshy.base.project import fingerprint
    from twiceshy.guidance.patterns import PatternStore

    proj = tmp_path / "work"
    proj.mkdir()
    fp = record_project(str(proj))
    record_project(str(proj))
    assert fp == fingerprint(str(proj))
    ctx.store.add(_lesson("Scoped one", "x", fp))
    ctx.store.add(Experience(text="Global one", trigger="y", tags=[f"seen-in:{fp}", "seen-in:zz-1"]))
    PatternStore().observe("seq:a->b", project=fp)
    with open(twiceshy_home / "trajectories.jsonl", "w") as handle:
        for i in range(3):
            handle.write(
                json.dumps(
                    {
                        "session_id": f"s{i}",
                        "agent": "codex",
                        "project": "other-9999",
                        "ended": 1_700_000_000 + i,
                        "outcome_score": 0.5,
                    }
                )
                + "\n"
            )
    rows = {r["project"]: r for r in project_table(ctx)}
    assert rows["global"]["lessons"] == 1
    assert rows[fp]["lessons"] == 1 and rows[fp]["sessions"] == 2 and rows[fp]["patterns"] == 1
    assert rows[fp]["promoted_from"] == 1 and rows[fp]["root"] == str(proj.resolve())
    assert rows["other-9999"]["sessions"] == 3 and rows["other-9999"]["last_seen"] == 1_700_000_002


def test_cli_projects_json(tmp_path: Path) -> None:
    record_project(str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "twiceshy", "projects", "--json", "--promote"],
        cwd=tmp_path,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert rows[0]["project"] == "global" and any(r["sessions"] == 1 for r in rows[1:])
    assert "promoted 0" in out.stderr


def test_evolve_cycle_promotes_cross_project(ctx) -> None:
    from twiceshy.learning.evolve import run_cycle

    for p in ("p1-aaaa", "p2-bbbb", "p3-cccc"):
        ctx.store.add(_lesson("Quote paths with spaces", "rm -rf $dir/build", p, seen_count=2))
    counts = run_cycle(ctx)
    assert counts["globalised"] == 1
    assert sum(1 for e in ctx.store.all() if e.project is None and not e.superseded_by) == 1
