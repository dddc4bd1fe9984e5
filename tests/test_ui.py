"""`twiceshy ui`: a real server process on 127.0.0.1, real HTTP, and the page
rendered by its own JavaScript in headless Chromium (Debian's `chromium`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from twiceshy.base.types import Experience, Tier
from twiceshy.engine.context import make_context
from twiceshy.learning.extractors import topic_of
from twiceshy.learning.ingest import store_lesson, supersede
from twiceshy.ops.ui import RemoteBindRefused, is_loopback, make_server
from ui_kit import chromium, running_ui

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


@pytest.fixture
def memory(tmp_path: Path) -> dict[str, str]:
    """A store with every tier, a generalizes edge and a supersession on one topic."""
    ctx = make_context(tmp_path)
    ids: dict[str, str] = {}
    for key, text, trigger in (
        ("r1", "Never sudo pip install; use a virtualenv", "sudo pip install requests"),
        ("r2", "Use pip install --user outside a venv", "pip install --system flask"),
        ("qa", "Run pytest -q before pushing a branch", "git push origin feature"),
    ):
        exp, _ = store_lesson(ctx, text, trigger)
        exp.tier = int(Tier.QA if key == "qa" else Tier.RULE)
        ctx.store.update(exp)
        ids[key] = exp.id
    # Evolve adds a principle directly (it generalizes its rules, it is not a sighting of one):
    # through store_lesson, "pip install" would count as another sighting of r1's signature.
    principle = Experience(
        text="Install Python packages into an isolated environment",
        trigger="pip install",
        tier=int(Tier.PRINCIPLE),
        kind="principle",
        topic=topic_of("pip install"),
    )
    ctx.store.add(principle)
    ids["p"] = principle.id
    for rule in ("r1", "r2"):
        ctx.store.add_edge(principle.id, ids[rule], "generalizes")
    old, _ = store_lesson(ctx, "Use yarn to install node packages", "yarn install", topic="node installs")
    new, _ = store_lesson(ctx, "Use pnpm to install node packages, not yarn", "pnpm install", topic="node installs")
    supersede(ctx, old, new)
    ids["old"], ids["new"] = old.id, new.id
    return ids


@pytest.fixture
def ui_url(memory, tmp_path: Path):
    with running_ui(tmp_path) as url:
        yield url


def get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def get_json(url: str) -> object:
    status, body = get(url)
    assert status == 200, body
    return json.loads(body)


def render(url: str) -> str:
    """The DOM after the page's own JS ran (virtual time lets its fetches finish)."""
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=15000",
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_api_endpoints(ui_url, memory, tmp_path):
    summary = get_json(ui_url + "api/summary")
    assert summary["tiers"] == {"principle": 1, "rule": 2, "qa": 1, "raw": 2}
    assert summary["lessons"] == 6 and summary["superseded"] == 1
    assert {"topic": "node installs", "lessons": 2} in summary["topics"]
    rules = get_json(ui_url + "api/lessons?tier=rule")
    assert sorted(e["id"] for e in rules) == sorted([memory["r1"], memory["r2"]])
    graph = get_json(ui_url + f"api/graph?id={memory['r1']}&depth=2")
    assert {n["id"] for n in graph["nodes"]} >= {memory["r1"], memory["p"], memory["r2"]}
    assert {(e["src"], e["dst"], e["type"]) for e in graph["edges"]} >= {
        (memory["p"], memory["r1"], "generalizes"),
        (memory["p"], memory["r2"], "generalizes"),
    }
    whole = get_json(ui_url + "api/graph")
    assert len(whole["nodes"]) == 6
    assert (memory["new"], memory["old"], "supersedes") in {(e["src"], e["dst"], e["type"]) for e in whole["edges"]}
    timeline = get_json(ui_url + "api/timeline?topic=node%20installs")
    assert [e["id"] for e in timeline] == [memory["old"], memory["new"]]
    assert timeline[0]["superseded_by"] == memory["new"]

    assert get(ui_url + "api/graph?id=nope")[0] == 404
    assert get(ui_url + "api/timeline")[0] == 400
    assert get(ui_url + "api/lessons?tier=bogus")[0] == 400
    assert get(ui_url + "nothing-here")[0] == 404
    for method in ("POST", "PUT", "DELETE"):
        assert get(ui_url + "api/summary", method=method)[0] == 405
    # DNS rebinding: a page on another name must not read the memory.
    status, body = get(ui_url + "api/summary", headers={"Host": "attacker.example:80"})
    assert status == 403 and b"loopback" in body
    status, page = get(ui_url)
    assert status == 200 and b"<svg" in page and b"http://" not in page.replace(b"http://www.w3.org/2000/svg", b"")

    # A lesson written by another process after the server started shows up.
    proc = subprocess.run(
        [sys.executable, "-m", "twiceshy", "learn", "Quote shell variables in scripts"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert get_json(ui_url + "api/summary")["lessons"] == 7


def test_page_renders_tiers_graph_and_timeline_in_chromium(ui_url, memory):
    dom = render(ui_url + "?topic=node%20installs")
    assert 'data-ready="1"' in dom, dom[-3000:]
    for label, count in (("principle", 1), ("rule", 2), ("qa", 1), ("raw", 2)):
        assert f'data-tier="{label}" data-count="{count}"' in dom
    assert "6 lessons, 1 superseded" in dom
    for exp_id in memory.values():
        assert f'class="lesson" data-id="{exp_id}"' in dom
        assert f'class="node" data-id="{exp_id}"' in dom
    edges = get_json(ui_url + "api/graph")["edges"]
    assert len(edges) >= 3 and dom.count('class="edge"') == len(edges)
    assert f'data-type="generalizes" data-src="{memory["p"]}" data-dst="{memory["r1"]}"' in dom
    assert f'data-type="supersedes" data-src="{memory["new"]}" data-dst="{memory["old"]}"' in dom
    assert "Never sudo pip install; use a virtualenv" in dom
    assert 'data-label-overlaps="0"' in dom  # one row per lesson, one column per tier: no label on another
    # The timeline of the topic named in the URL, oldest first, the superseded one marked.
    first, second = (
        dom.index(f'class="event" data-id="{memory["old"]}"'),
        dom.index(f'class="event" data-id="{memory["new"]}"'),
    )
    assert first < second
    assert f"superseded by {memory['new']}" in dom


def test_loopback_only_unless_explicit(tmp_path):
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1") and is_loopback("[::1]")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10") and not is_loopback("example.com")
    ctx = make_context(tmp_path)
    with pytest.raises(RemoteBindRefused, match="--host"):
        make_server(ctx, "0.0.0.0", 0)
    server = make_server(ctx, "127.0.0.1", 0)
    try:
        assert server.check_host and server.url.startswith("http://127.0.0.1:")
    finally:
        server.server_close()


def test_graph_and_edit_commands(memory, tmp_path):
    """`twiceshy graph` shows the same neighbourhood as /api/graph; `edit` rewrites and re-embeds."""

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "twiceshy", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    proc = run("graph", memory["r1"], "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {memory["p"], memory["r2"]} <= {n["id"] for n in data["nodes"]}
    tree = run("graph", memory["p"], "--depth", "1")
    assert tree.returncode == 0
    flat = " ".join(tree.stdout.split())
    assert f"{memory['p']} [principle] Install Python packages" in flat
    assert "generalizes →" in flat and memory["r1"] in flat and memory["r2"] in flat
    assert "[rule] Use pip install --user outside a venv" in flat  # brackets shown, not eaten as markup

    edited = run(
        "edit",
        memory["qa"],
        "--text",
        "Run the full test suite before any git push",
        "--trigger",
        "git push --force-with-lease",
        "--tier",
        "rule",
        "--tag",
        "git",
    )
    assert edited.returncode == 0, edited.stderr
    assert "tags, text, tier, trigger" in edited.stdout
    exp = make_context(tmp_path).store.get(memory["qa"])
    assert exp.text == "Run the full test suite before any git push" and exp.tier == int(Tier.RULE)
    assert exp.tags == ["git"] and exp.trigger == "git push --force-with-lease"
    found = run("search", "git push --force-with-lease origin", "-k", "1")
    assert memory["qa"] in found.stdout  # re-embedded on the new trigger
    # Without options: $EDITOR gets the lesson as JSON.
    env = {
        **os.environ,
        "EDITOR": f"{sys.executable} -c \"import sys,json;p=sys.argv[1];d=json.load(open(p));d['confidence']=0.95;json.dump(d,open(p,'w'))\"",
    }
    via_editor = run("edit", memory["qa"], env=env)
    assert via_editor.returncode == 0, via_editor.stderr
    assert make_context(tmp_path).store.get(memory["qa"]).confidence == 0.95
    assert run("edit", "missing-id", "--text", "x y z").returncode != 0
