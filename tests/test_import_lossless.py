"""Import loses nothing (issue 29, item 3), from a file with vectors or without (issue 31).

11,000 generated lessons — 10,000 varied (different targets, different advice,
every tier, counts, scopes, supersession links and edges) and 1,000 similar but
distinct (the same action as one of the others with other advice, or the same
advice on a neighbouring target, or one flag value apart) — are imported into
an empty store, exported, imported into another empty store and exported
again. Every lesson must come through with its id, text, trigger, tier,
counts, times, tags, topic and edges, and the two exports must be equal.

Real parts: the shipped MiniLM model, Chroma on disk. The version before this
one kept fewer than the file held (it folded a lesson into any stored one
whose trigger was near enough and named the same action).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from twiceshy.ops.portable import EXPORT_FORMAT, export_data, import_data, import_file, write_export

TOOLS = [
    ("kubectl", ["apply -f", "rollout restart deployment", "scale deployment", "logs -f deployment"]),
    ("terraform", ["apply -target=module", "plan -target=module", "import module"]),
    ("docker", ["build -t", "run --rm", "compose up", "push registry.local"]),
    ("npm", ["install", "run build --workspace", "publish --tag", "test --workspace"]),
    ("pytest", ["-x tests", "-k", "--lf tests", "-q tests"]),
    ("git", ["rebase -i", "cherry-pick", "tag -a", "bisect start"]),
    ("make", ["release", "migrate", "docs", "deploy"]),
    ("aws", ["s3 cp", "lambda update-function-code --function-name", "ecs update-service --service"]),
    ("helm", ["upgrade --install", "rollback", "template"]),
    ("cargo", ["build --release -p", "test -p", "publish -p"]),
]
NOUNS = (
    "billing auth ledger search gateway worker cache mailer media notify orders payments reports "
    "scheduler sessions storage sync tenants uploads users"
).split()
ENVS = ["dev", "staging", "prod", "qa", "eu-west-1", "us-east-2", "ap-south-1"]
VERBS = ["Check", "Confirm", "Read", "Pin", "Run", "Ask about", "Write down", "Compare", "Look up", "Verify"]
OBJECTS = [
    "the lock file",
    "the migration order",
    "the replica count",
    "the feature flag",
    "the changelog entry",
    "the open incidents",
    "the cache key version",
    "the schema diff",
    "the rollout window",
    "the owner on call",
    "the quota",
    "the image digest",
]
WHEN = ["first", "before this", "afterwards", "with the team", "in the runbook", "on the dashboard"]
PROJECTS = [None, None, None, "p-alpha", "p-beta", "p-gamma"]
NOW = 1_790_000_000.0


def varied(n: int, seed: int = 29) -> list[dict[str, Any]]:
    """``n`` lessons with distinct targets and distinct advice, every field set."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    while len(out) < n:
        tool, subs = rng.choice(TOOLS)
        noun, env = rng.choice(NOUNS), rng.choice(ENVS)
        trigger = f"{tool} {rng.choice(subs)} {noun}-{rng.randrange(400)} --env={env}"
        text = f"{rng.choice(VERBS)} {rng.choice(OBJECTS)} of {noun} {rng.choice(WHEN)} ({env}, case {len(out)})"
        if (trigger, text) in seen:
            continue
        seen.add((trigger, text))
        out.append(record(rng, len(out), text, trigger))
    return out


def similar(base: list[dict[str, Any]], n: int, seed: int = 30) -> list[dict[str, Any]]:
    """``n`` lessons each close to one of ``base`` and distinct from it: the same
    trigger with other advice, the same advice one flag value over, or both
    near (one word of the advice and one digit of the target apart)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    taken = {key(r) for r in base}
    while len(out) < n:
        twin = base[rng.randrange(len(base))]
        way = len(out) % 3
        if way == 0:
            trigger, text = twin["trigger"], twin["text"] + " — and say so in the pull request"
        elif way == 1:
            trigger, text = twin["trigger"].replace("--env=", "--env=x"), twin["text"]
        else:
            trigger = twin["trigger"].replace("-", "_", 1)
            text = twin["text"].replace("(", "(again, ", 1)
        rec = record(rng, 20_000 + len(out), text, trigger)
        rec["project"] = twin["project"] if way == 0 else rec["project"]  # the same action in the same scope
        if key(rec) not in taken:
            taken.add(key(rec))
            out.append(rec)
    return out


def key(rec: dict[str, Any]) -> tuple[str, str, str]:
    """What makes two records the same lesson when their ids differ."""
    return (" ".join(rec["text"].lower().split()), " ".join(rec["trigger"].lower().split()), rec["project"] or "")


def record(rng: random.Random, i: int, text: str, trigger: str) -> dict[str, Any]:
    tier = rng.choice([0, 1, 1, 2, 2, 3, 3, 3])
    created = round(NOW - rng.randrange(1, 400) * 86_400 - rng.random() * 1000, 3)
    seen_count = rng.randrange(1, 9)
    return {
        "id": f"{i:06d}{rng.getrandbits(40):010x}",
        "text": text,
        "trigger": trigger,
        "tier": tier,
        "confidence": round(rng.uniform(0.2, 0.95), 4),
        "project": rng.choice(PROJECTS),
        "tags": rng.sample(["deploy", "infra", "tests", "release", "db", "ci"], rng.randrange(0, 3)),
        "topic": trigger.split()[0] + " " + trigger.split()[1],
        "superseded_by": None,
        "streak": rng.randrange(-2, 3),
        "provenance": {
            "source": rng.choice(["claude-code:s1", "codex:s9", "manual", "import:gemini:s4"]),
            "kind": rng.choice(["error_fix", "correction", "manual", "retry"]),
            "created_at": created,
            "last_seen": round(created + rng.randrange(0, 30) * 3600, 3),
            "evidence": {
                "seen_count": seen_count,
                "hits": rng.randrange(0, 12),
                "follows": rng.randrange(0, 5),
                "ignores": rng.randrange(0, 3),
                "irrelevant": rng.randrange(0, 2),
            },
        },
    }


def link(lessons: list[dict[str, Any]], seed: int = 31) -> list[dict[str, Any]]:
    """Supersession links (the older lesson at least QA, as the store keeps it)
    and edges of every type, between lessons of the file."""
    rng = random.Random(seed)
    edges = []
    for _ in range(300):
        old, newer = rng.sample(lessons, 2)
        if old["superseded_by"] is None and newer["superseded_by"] is None and old["project"] == newer["project"]:
            old["superseded_by"] = newer["id"]
            old["tier"] = max(old["tier"], 2)
            edges.append({"src": newer["id"], "dst": old["id"], "type": "supersedes", "weight": 1.0})
    for kind in ("generalizes", "relates-to"):
        for _ in range(400):
            a, b = rng.sample(lessons, 2)
            edges.append({"src": a["id"], "dst": b["id"], "type": kind, "weight": round(rng.uniform(0.5, 1.0), 4)})
    unique = {(e["src"], e["type"], e["dst"]): e for e in edges}
    return list(unique.values())


def fresh(path: Path) -> Any:
    from twiceshy.engine.context import make_context
    from twiceshy.memory.embedding import MiniLMEmbedder
    from twiceshy.memory.store import ExperienceStore, open_client

    ctx = make_context(None)
    ctx._store = ExperienceStore(open_client(path=path), MiniLMEmbedder(), path=path)
    return ctx


def everything(ctx: Any) -> dict[str, Any]:
    return export_data(ctx, tiers=(0, 1, 2, 3), include_superseded=True, vectors=True)


def comparable(doc: dict[str, Any]) -> tuple[dict[str, Any], set[tuple[str, str, str, float]]]:
    """An export's lessons by id (vectors aside: float16 of the same vector) and its edges."""
    lessons = {}
    for r in doc["lessons"]:
        r = dict(r)
        r.pop("vector", None)
        lessons[r["id"]] = r
    edges = {(e["src"], e["type"], e["dst"], round(float(e["weight"]), 4)) for e in doc["edges"]}
    return lessons, edges


def test_export_import_export_of_11000_lessons_is_exact(tmp_path: Path, twiceshy_home: Path) -> None:
    base = varied(10_000)
    lessons = base + similar(base, 1_000)
    random.Random(5).shuffle(lessons)  # the similar ones spread over the file and its batches
    edges = link(lessons)
    source = {"format": EXPORT_FORMAT, "schema_version": 1, "lessons": lessons, "edges": edges}
    assert len({r["id"] for r in lessons}) == 11_000
    assert len({key(r) for r in lessons}) == 11_000

    a = fresh(tmp_path / "a")
    counts = import_data(a, json.loads(json.dumps(source)))
    assert counts["exists"] == counts["seen"] == counts["invalid"] == 0, counts
    assert counts["new"] + counts["related"] == 11_000 and counts["related"] == 0, counts
    assert a.store.count() == 11_000

    first = everything(a)
    got, got_edges = comparable(first)
    assert set(got) == {r["id"] for r in lessons}
    for want in lessons:
        have = got[want["id"]]
        assert have.get("trigger", have["text"]) == want["trigger"], want["id"]  # left out when it is the text
        for name in ("text", "tier", "confidence", "project", "topic", "superseded_by", "streak"):
            assert have[name] == want[name], (name, want["id"], have[name], want[name])
        assert sorted(have["tags"]) == sorted(want["tags"])
        for name in ("kind", "created_at", "last_seen", "evidence"):
            assert have["provenance"][name] == want["provenance"][name], (name, want["id"])
    assert got_edges == {(e["src"], e["type"], e["dst"], e["weight"]) for e in edges}

    # The export of that store, through a file as the CLI writes it, into another empty store:
    # without vectors (the default: every trigger embedded again) and with them (carried).
    for vectors in (True, False):
        path = tmp_path / f"export-{vectors}.json"
        with open(path, "w", encoding="utf-8") as out:
            write_export(a, out, tiers=(0, 1, 2, 3), include_superseded=True, vectors=vectors)
        b = fresh(tmp_path / f"b-{vectors}")
        counts = import_file(b, path)
        assert counts["new"] == 11_000 and counts["exists"] == counts["seen"] == 0, counts
        again, again_edges = comparable(everything(b))
        assert again == got
        assert again_edges == got_edges

    # The same file once more into that store: nothing changes.
    counts = import_file(b, path)
    assert counts["exists"] == 11_000 and b.store.count() == 11_000, counts
    assert comparable(everything(b)) == (got, got_edges)
