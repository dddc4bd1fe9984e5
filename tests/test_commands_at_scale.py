"""Every CLI command against a store larger than one Chroma call can return.

Chroma refuses one ``get`` of more than ~5,400 items (SQLite's variable
limit), so a command that reads the whole store in one call crashes past that
size. The store here has 6,000 lessons, written the way ``bench/scale.py``
builds its 100k store (``store.add_vectors`` in pages), with every shape the
commands care about: all tiers, global and project lessons, superseded and
held ones, cross-project evidence, edges.

* :func:`test_every_command_runs_at_scale` walks the click group and runs
  every command and subcommand with typical arguments (a command missing
  from :data:`RUNS` fails the test, so a new command gets a scale check):
  exit 0 and output that says the right thing about 6,000 lessons.
* :func:`test_census_agrees_with_the_lessons` checks that the figures read
  from Chroma's SQLite indexes (:mod:`twiceshy.memory.census`) are the ones
  the lessons themselves give, and that the context built from ranked
  metadata rows is the one built from every lesson.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

N = 6000  # past Chroma's ~5,400-item cap on one call
HELD_TAG = "review:held"


def _build(home: Path, project_dir: Path) -> dict[str, Any]:
    """``N`` lessons through ``store.add_vectors`` (pages of 2,000), plus edges."""
    import numpy as np
    from twiceshy.base.project import fingerprint
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context

    here = fingerprint(str(project_dir))
    ctx = make_context(project_dir)
    store = ctx.store
    triggers = [
        f"{tool} {arg}"
        for tool, args in {
            "git": ["push --force origin main", "reset --hard", "rebase -i main", "clean -fdx"],
            "npm": ["install", "publish", "update"],
            "pip": ["install requests", "uninstall -y numpy"],
            "rm": ["-rf build", "-rf node_modules"],
            "docker": ["compose up -d", "system prune -a"],
            "terraform": ["apply", "destroy"],
        }.items()
        for arg in args
    ]
    base = np.asarray(store.embedder.embed(triggers), dtype=np.float32)
    t0 = round(time.time() - N * 60.0)  # recent: evolution must not expire them as stale
    rng = np.random.default_rng(3)
    advice = ["run the tests first", "ask before doing this on main", "Never do this without a backup", "pin it"]
    exps: list[Experience] = []
    vecs: list[Any] = []
    for i in range(N):
        j = i % len(triggers)
        vec = base[j] + rng.normal(size=base.shape[1]).astype(np.float32) * 0.02
        tags = ["avoid"] if i % 97 == 0 else []
        if i % 211 == 0:
            tags.append(HELD_TAG)
        if i % 251 == 0:
            tags += ["seen-in:other-00000001", f"seen-in:{here}"]
        exps.append(
            Experience(
                text=f"{advice[i % len(advice)]} before `{triggers[j]}` (#{i})",
                trigger=f"{triggers[j]} --case={i}",
                tier=(3, 3, 2, 2, 3, 2, 3, 3, 3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 1, 0)[i % 20],
                project=(None, None, here, None, "other-00000001")[i % 5] if i % 251 else None,
                topic=triggers[j].split()[0],
                seen_count=1 + i % 3,
                hits=i % 4,
                follows=i % 5,
                ignores=i % 3,
                irrelevant=int(i % 7 == 0),
                confidence=round(0.3 + (i % 7) / 10, 2),
                kind="correction" if i % 13 == 0 else "manual",
                superseded_by=f"x{i - 1}" if i % 89 == 0 else None,
                tags=tags,
                created_at=t0 + i * 60.0,
                last_seen=min(t0 + i * 60.0 + (i % 11) * 3600.0, t0 + N * 60.0),
            )
        )
        vecs.append(vec / np.linalg.norm(vec))
        if len(exps) == 2000:
            store.add_vectors(exps, np.asarray(vecs))
            exps, vecs = [], []
    store.add_vectors(exps, np.asarray(vecs))
    hit = Experience(text="Never rm -rf the build dir by hand; run `make clean`.", trigger="rm -rf build", tier=1)
    store.add(hit)
    ids = [e.id for e, _ in store.search("git push --force origin main", k=4)]
    store.add_edges([(ids[0], ids[1], "relates-to", 1.0), (hit.id, ids[2], "generalizes", 1.0)])
    assert store.count() == N + 1
    return {"hit": hit.id, "ids": ids, "project": here, "t0": t0}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("scale")
    home, project, user = root / "home", root / "project", root / "user"
    for folder in (home / "config", project, user):
        folder.mkdir(parents=True)
    (home / "config" / "config.yaml").write_text("embedding:\n  backend: hash\n")
    env = {
        "TWICESHY_HOME": str(home),
        "TWICESHY_CONFIG_DIR": str(home / "config"),
        "TWICESHY_NO_AUTOSTART": "1",
        "TWICESHY_READ_VIA_ENGINE": "0",
        "HOME": str(user),
        "EDITOR": "true",
        "VISUAL": "true",
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        mp.chdir(project)
        built = _build(home, project)
    yield {**built, "root": root, "home": home, "project_dir": project, "env": env}


@pytest.fixture
def at_scale(big: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    for key, value in big["env"].items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TWICESHY_RAISE_PLUGIN_ERRORS", raising=False)  # as a user runs it
    monkeypatch.chdir(big["project_dir"])
    return big


def test_census_agrees_with_the_lessons(at_scale: dict[str, Any]) -> None:
    from twiceshy.base.types import Tier
    from twiceshy.builtins import context as context_plugin
    from twiceshy.engine.context import make_context
    from twiceshy.guidance.health import _live_figures
    from twiceshy.guidance.projects import _lesson_counts
    from twiceshy.memory.census import ScanCensus, SqlCensus, open_census
    from twiceshy.ops.stats import lesson_counts

    ctx = make_context(at_scale["project_dir"])
    with open_census(ctx, ()) as census:
        assert isinstance(census, SqlCensus)  # the fast path is the one taken here
    exps = ctx.store.all()
    assert len(exps) == N + 1
    t0 = at_scale["t0"]
    cutoff = t0 + N * 30.0

    counts = lesson_counts(ctx, cutoff)
    assert counts["total"] == N + 1
    assert counts["tiers"] == {t.label: sum(1 for e in exps if e.tier == int(t)) for t in Tier}
    assert counts["superseded"] == sum(1 for e in exps if e.superseded_by) > 0
    assert counts["learned_in_window"] == sum(1 for e in exps if e.created_at >= cutoff)
    assert counts["matched_total"] == sum(e.hits for e in exps) > 0

    # The API path (server mode, an unknown layout) gives the same figures.
    scan_keys = ("tier", "superseded_by", "created_at", "hits", "last_seen", "follows", "project", "tags")
    with ScanCensus(ctx.store, scan_keys) as scan, open_census(ctx.store, ()) as sql:
        for key in ("tier", "project"):
            assert scan.tally(key) == sql.tally(key)
        for key in ("hits", "follows"):
            assert scan.total(key) == sql.total(key)
        assert scan.count("created_at", ">=", cutoff) == sql.count("created_at", ">=", cutoff)
        assert sorted(scan.ids("superseded_by", "!=", "")) == sorted(sql.ids("superseded_by", "!=", ""))
        assert scan.like("tags", "%seen-in:%") == sql.like("tags", "%seen-in:%") != {}

    live = [e for e in exps if not e.superseded_by]
    recent_from = t0 + N * 45.0
    figures = _live_figures(ctx, recent_from)
    assert figures == {
        "lessons": len(live),
        "matured": sum(1 for e in live if e.tier <= int(Tier.QA)),
        "recent": sum(1 for e in live if e.last_seen >= recent_from),
        "follows": sum(e.follows for e in live),
        "ignores": sum(e.ignores for e in live),
        "irrelevant": sum(e.irrelevant for e in live),
        "hits": sum(e.hits for e in live),
    }

    lessons, cross = _lesson_counts(ctx)
    by_scope: dict[str | None, int] = {}
    for e in exps:
        by_scope[e.project] = by_scope.get(e.project, 0) + 1
    assert lessons == by_scope
    promoted = [e for e in exps if e.project is None and any(t.startswith("seen-in:") for t in e.tags)]
    assert cross[at_scale["project"]] == len(promoted) > 0

    # Context: ranked metadata rows, then only the lessons shown, give what reading every lesson gives.
    now = t0 + N * 60.0
    for project in (at_scale["project"], None):
        fast = context_plugin._fast_lessons(ctx, project, 1200, 6, now)
        assert fast is not None
        slow = context_plugin._slow_lessons(ctx, project, now)
        cap = 1200 // 4 + 1
        assert [e.id for e in fast[0]] == [e.id for e in slow[0][:cap]]
        assert [e.id for e in fast[1]] == [e.id for e in slow[1][:cap]]
        for group in ("apply", "avoid", "consider"):
            top = sorted(slow[2][group], key=lambda item: -item[0])
            want = list(dict.fromkeys(line for _, line in top))[:6]
            got = [line for _, line in sorted(fast[2][group], key=lambda item: -item[0])]
            assert got == want, group
        assert fast[2]["avoid"]  # "Never ..." texts and avoid tags are found
        shown = {e.id for e in fast[0] + fast[1]}
        assert not any(HELD_TAG in e.tags or e.superseded_by for e in exps if e.id in shown)

    # Kept in step with writes: only the lessons named in the change journal are read again.
    top_rule = fast[1][0]
    top_rule.superseded_by = "replaced"
    ctx.store.update(top_rule)
    newcomer = next(e for e in exps if e.tier == int(Tier.RAW) and e.project is None and not e.superseded_by)
    newcomer.tier, newcomer.confidence, newcomer.text = int(Tier.PRINCIPLE), 1.0, "Never force-push to main"
    ctx.store.update(newcomer, reembed=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(context_plugin, "_rank_rows", lambda census: pytest.fail("read every candidate again"))
        again = context_plugin._fast_lessons(ctx, None, 1200, 6, now)
    assert again is not None
    assert top_rule.id not in {e.id for e in again[1]} and again[0][0].id == newcomer.id
    slow = context_plugin._slow_lessons(ctx, None, now)
    assert [e.id for e in again[0]] == [e.id for e in slow[0][:cap]]
    assert [e.id for e in again[1]] == [e.id for e in slow[1][:cap]]


def test_timeline_pages_a_topic_in_order(at_scale: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """``timeline`` shows a page of a topic (1,600 lessons here), oldest first: the
    pages read through SQLite are slices of the whole topic read through the API."""
    from twiceshy.engine.context import make_context
    from twiceshy.memory import listing
    from twiceshy.ops.cli import build_cli

    ctx = make_context(at_scale["project_dir"])
    whole = [e.id for e in sorted(ctx.store.all(where={"topic": "git"}), key=lambda e: e.created_at)]
    n = len(whole)
    assert n > 1000
    assert listing._sqlite_topic_page(ctx.store, "git", 0, 5) is not None  # the indexed path is the one taken
    cases = [(0, 50), (50, 50), (n - 10, 50), (n, 5), (0, None), (n - 3, None)]
    for offset, limit in cases:
        total, page = listing.topic_page(ctx.store, "git", offset, limit)
        want = whole[offset:] if limit is None else whole[offset : offset + limit]
        assert (total, [e.id for e in page]) == (n, want), (offset, limit)
    with monkeypatch.context() as mp:  # no known layout: every lesson of the topic read, the same pages
        mp.setattr(listing, "_sqlite_topic_page", lambda *a: None)
        for offset, limit in cases:
            total, page = listing.topic_page(ctx.store, "git", offset, limit)
            want = whole[offset:] if limit is None else whole[offset : offset + limit]
            assert (total, [e.id for e in page]) == (n, want), (offset, limit)

    group, runner = build_cli(), CliRunner()
    first = runner.invoke(group, ["timeline", "git"])
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert [line.split()[2] for line in lines[:-1]] == whole[:50]
    assert lines[-1] == f"{n - 50} more — use --limit/--offset or --all"
    every = runner.invoke(group, ["timeline", "git", "--all"])
    assert [line.split()[2] for line in every.output.splitlines()] == whole
    page = runner.invoke(group, ["timeline", "git", "--json", "--offset", "10", "--limit", "3"])
    assert page.exit_code == 0 and [e["id"] for e in json.loads(page.stdout)] == whole[10:13]
    past = runner.invoke(group, ["timeline", "git", "--offset", str(n)])
    assert past.exit_code == 0 and past.output == f"no lessons past {n} (of {n})\n"
    unknown = runner.invoke(group, ["timeline", "gti"])
    assert unknown.exit_code == 1 and "did you mean: git" in unknown.output


def test_list_and_timeline_in_their_own_process_read_sqlite_only(at_scale: dict[str, Any]) -> None:
    """Without an engine, ``list`` and ``timeline`` read their page from Chroma's
    SQLite file: chromadb and numpy are not imported, and the lessons printed are
    the ones the open store gives."""
    from twiceshy.engine.context import make_context
    from twiceshy.memory import listing
    from twiceshy.memory.census import _collection_name
    from twiceshy.memory.embedding import HashEmbedder, MiniLMEmbedder

    # _collection_name finds the collection by backend without importing the embedders: their names say it.
    assert MiniLMEmbedder.name.startswith("minilm-") and HashEmbedder.name.startswith("hash-")
    ctx = make_context(at_scale["project_dir"])
    with pytest.MonkeyPatch.context() as mp:
        mp.delitem(sys.modules, "twiceshy.memory.embedding")
        db = Path(ctx.store.path) / "chroma.sqlite3"
        assert _collection_name(ctx.config, db) == ctx.store.collection_name
    probe = (
        "import atexit, sys\n"
        "heavy = ('chromadb', 'numpy', 'onnxruntime')\n"
        "atexit.register(lambda: sys.__stderr__.write('HEAVY [' + ' '.join(m for m in heavy if m in sys.modules) + ']'))\n"
        "from twiceshy.ops.cli import main\n"
        "main()\n"
    )
    env = {**os.environ, **at_scale["env"]}
    for args, want in (
        (["list", "--json", "--offset", "100", "--limit", "5"], listing.list_page(ctx.store, None, 100, 5)[1]),
        (["list", "--json", "--tier", "rule", "--limit", "3"], listing.list_page(ctx.store, 1, 0, 3)[1]),
        (["timeline", "git", "--json", "--offset", "7", "--limit", "4"], listing.topic_page(ctx.store, "git", 7, 4)[1]),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args],
            env=env,
            cwd=at_scale["project_dir"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert "HEAVY []" in proc.stderr, (args, proc.stderr[-300:])
        assert json.loads(proc.stdout) == [e.to_dict() for e in want] != [], args


# -- every command ---------------------------------------------------------------

Check = Callable[[Any, dict[str, Any]], None]


def _json(result: Any) -> Any:
    return json.loads(result.output)


def _has(*needles: str) -> Check:
    def check(result: Any, big: dict[str, Any]) -> None:
        for needle in needles:
            assert needle.format(**big) in result.output, needle

    return check


def _stats(result: Any, big: dict[str, Any]) -> None:
    data = _json(result)
    assert data["lessons"]["total"] == sum(data["lessons"]["tiers"].values()) >= N


def _health(result: Any, big: dict[str, Any]) -> None:
    depth = _json(result)["parts"][0]
    assert depth["name"] == "depth" and int(depth["detail"].split()[0]) > N * 0.9  # live lessons


def _projects(result: Any, big: dict[str, Any]) -> None:
    rows = _json(result)
    assert sum(r["lessons"] for r in rows) >= N
    assert any(r["project"] == big["project"] and r["promoted_from"] > 0 for r in rows)


def _doctor(result: Any, big: dict[str, Any]) -> None:
    store = next(c for c in _json(result)["checks"] if c["name"] == "store")
    assert store["level"] == "ok" and store["data"]["lessons"] >= N and store["data"]["read_back"] > 0


def _export(result: Any, big: dict[str, Any]) -> None:
    data = json.loads((big["root"] / "all.json").read_text())
    from twiceshy.engine.context import make_context
    from twiceshy.ops.stats import lesson_counts

    counts = lesson_counts(make_context(big["project_dir"]))
    assert len(data["lessons"]) == counts["total"] - counts["superseded"] > N * 0.95  # superseded ones stay out
    assert all("vector" in r for r in data["lessons"]) and data["vectors"]["model"]  # --vectors: each carries one
    assert sum(data["counts"].values()) == len(data["lessons"])


def _reimport(result: Any, big: dict[str, Any]) -> None:
    exported = json.loads((big["root"] / "rules.json").read_text())["lessons"]
    counts = _json(result)
    assert counts["exists"] == len(exported) > 0 and counts["new"] == 0  # the store's own lessons, found


def _why(result: Any, big: dict[str, Any]) -> None:
    data = _json(result)
    assert isinstance(data, dict) and data, result.output[:500]


def _search(result: Any, big: dict[str, Any]) -> None:
    assert len(result.output.strip().splitlines()) >= 1


# (args, check). ``{hit}``, ``{id0}``…, ``{root}``, ``{project_dir}`` are filled in. Order matters:
# install, reads, then writes, the engine, and restore last.
RUNS: list[tuple[str, list[str], Check | None]] = [
    # wired first: doctor fails without an agent's hooks
    ("install", ["install", "--agent", "claude-code", "--scope", "project", "--project-dir", "{project_dir}"], None),
    ("stats", ["stats", "--json", "--since", "all"], _stats),
    ("health", ["health", "--json"], _health),
    ("projects", ["projects", "--json"], _projects),
    ("doctor", ["doctor", "--no-model", "--json"], _doctor),
    ("context", ["context"], _has("lessons from earlier sessions", "Never")),
    ("list", ["list", "--tier", "principle"], _has("lessons")),
    ("search", ["search", "git push --force origin main"], _search),
    ("show", ["show", "{hit}"], _has("make clean")),
    ("graph", ["graph", "{hit}"], _has("make clean")),
    ("timeline", ["timeline", "terraform"], _has("terraform")),
    ("review", ["review"], _has("held")),
    ("why", ["why", "git push --force origin main", "--as-json"], _why),
    ("suggest", ["suggest"], None),
    ("observe", ["observe", "seq:test->fix->test"], _has("seq:test->fix->test")),
    ("consolidate", ["consolidate"], None),
    ("decay", ["decay", "--days", "30"], None),
    ("plugins", ["plugins"], _has("claude-code")),
    ("config show", ["config", "show"], _has("backend")),
    ("config path", ["config", "path"], _has("config.yaml")),
    ("config set", ["config", "set", "context.max_per_group", "6"], None),
    ("config edit", ["config", "edit"], None),
    ("trust", ["trust", "--list"], None),
    ("export", ["export", "--all", "--vectors", "-o", "{root}/all.json"], _export),
    ("export rules", ["export", "-o", "{root}/rules.json"], None),
    ("import", ["import", "{root}/rules.json", "--json"], _reimport),
    ("seed", ["seed", "--from", "{root}/CLAUDE.md"], _has("1 stored")),
    ("learn", ["learn", "Run `make clean` instead of deleting build/ by hand", "--trigger", "rm -rf build/"], None),
    ("edit", ["edit", "{id0}", "--confidence", "0.9"], None),
    ("feedback", ["feedback", "{id0}", "followed"], None),
    ("forget", ["forget", "{id1}"], _has("forgot")),
    ("correct", ["correct", "{id0}", "--except", "git push --force-with-lease origin main"], None),
    ("evolve", ["evolve", "--json"], None),
    ("hook", ["hook", "claude-code", "PreToolUse"], None),
    ("context write", ["context", "--write", "--agent", "claude-code"], _has("CLAUDE.md")),
    ("uninstall", ["uninstall", "--agent", "claude-code", "--scope", "project", "--project-dir", "{project_dir}", "--keep-data"], None),
    ("backup", ["backup", "-o", "{root}/backups/"], _has("backup:")),
]  # fmt: skip
# Run as real processes: they serve until stopped, or spawn one.
PROCESS_RUNS = ("serve", "engine start", "engine status", "engine stop", "ui", "mcp", "demo", "restore")


def _command_names(group: click.Group, prefix: str = "") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            names.extend(_command_names(command, f"{prefix}{name} "))
        else:
            names.append(f"{prefix}{name}")
    return names


def _cli(big: dict[str, Any], *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **big["env"], **kwargs.pop("extra_env", {})}
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args],
        env=env,
        cwd=big["project_dir"],
        capture_output=True,
        text=True,
        timeout=kwargs.pop("timeout", 120),
        **kwargs,
    )


def test_every_command_runs_at_scale(at_scale: dict[str, Any]) -> None:
    from twiceshy.ops.cli import build_cli

    group = build_cli()
    run_argv = [args for _, args, _ in RUNS]
    missing = [
        name
        for name in _command_names(group)
        if name not in PROCESS_RUNS and not any(args[: len(name.split())] == name.split() for args in run_argv)
    ]
    assert not missing, f"commands without a scale run: {missing}"
    big = at_scale
    fill = {"root": str(big["root"]), "project_dir": str(big["project_dir"]), "hit": big["hit"]}
    fill.update({f"id{n}": exp_id for n, exp_id in enumerate(big["ids"])})
    (big["root"] / "CLAUDE.md").write_text("# Notes\n\n- Run `make lint` before every commit.\n")
    payload = {
        "session_id": "scale",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "cwd": str(big["project_dir"]),
    }
    runner = CliRunner()
    for name, args, check in RUNS:
        argv = [a.format(**fill) for a in args]
        stdin = json.dumps(payload) if name == "hook" else None
        result = runner.invoke(group, argv, input=stdin, catch_exceptions=True)
        assert result.exit_code == 0, (
            f"{' '.join(argv)}: exit {result.exit_code}\n{result.output[-2000:]}\n{result.exception!r}"
        )
        if check is not None:
            check(result, {**fill, **big})

    # The engine, as processes: serve (detached), start (waits until the index holds 6,000
    # lessons), status, a read answered by it, stop.
    served = _cli(big, "serve")
    try:
        assert served.returncode == 0 and "started engine" in served.stdout, served.stderr
        started = _cli(big, "engine", "start", "--timeout", "90", timeout=150)
        assert started.returncode == 0, started.stderr
        status = _cli(big, "engine", "status", "--json")
        assert status.returncode == 0 and json.loads(status.stdout)["running"] is True, status.stdout
        via = _cli(big, "stats", "--json", extra_env={"TWICESHY_READ_VIA_ENGINE": "1"})
        assert via.returncode == 0 and json.loads(via.stdout)["lessons"]["total"] >= N, via.stderr
    finally:
        stopped = _cli(big, "engine", "stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout, stopped.stdout + stopped.stderr

    # The dashboard serves the big store.
    env = {**os.environ, **big["env"]}
    ui = subprocess.Popen(
        [sys.executable, "-m", "twiceshy", "ui", "--port", "0"],
        env=env,
        cwd=big["project_dir"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert ui.stdout is not None
        line = ui.stdout.readline()
        url = line.split(" on ", 1)[1].split()[0]
        with urllib.request.urlopen(url, timeout=60) as page:
            assert page.status == 200 and b"twiceshy" in page.read()
    finally:
        ui.send_signal(signal.SIGINT)
        try:
            ui.wait(timeout=30)
        except subprocess.TimeoutExpired:
            ui.kill()
            ui.wait()

    # MCP on stdio: initialise, then search the big store.
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "git push --force origin main"}}},
    ]  # fmt: skip
    mcp = subprocess.Popen(
        [sys.executable, "-m", "twiceshy", "mcp"],
        env=env,
        cwd=big["project_dir"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    watchdog = threading.Timer(120, mcp.kill)  # a hung server fails the test instead of hanging it
    watchdog.start()
    try:
        assert mcp.stdin is not None and mcp.stdout is not None
        mcp.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        mcp.stdin.flush()
        replies = []
        while not any(r.get("id") == 2 for r in replies):
            line = mcp.stdout.readline()
            assert line, f"mcp closed its output; replies so far: {replies}"
            replies.append(json.loads(line))
        answer = next(r for r in replies if r.get("id") == 2)
        assert "result" in answer and not answer["result"].get("isError"), answer
        assert "make clean" in json.dumps(answer) or "git push" in json.dumps(answer)
        mcp.stdin.close()
        assert mcp.wait(timeout=60) == 0
    finally:
        watchdog.cancel()
        if mcp.poll() is None:
            mcp.kill()
            mcp.wait()

    # The demo runs its whole loop in a data dir of its own.
    demo = _cli(big, "demo", timeout=300)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]

    # Restore the backup taken above: the store comes back whole.
    archive = next((big["root"] / "backups").glob("*.tar.gz"))
    restored = _cli(big, "restore", str(archive), "--yes")
    assert restored.returncode == 0, restored.stderr
    after = _cli(big, "stats", "--json")
    assert after.returncode == 0 and json.loads(after.stdout)["lessons"]["total"] >= N
    shutil.rmtree(big["root"] / "backups", ignore_errors=True)
