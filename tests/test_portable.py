"""export/import, backup/restore and seed: real CLI subprocesses on real
Chroma stores in separate data dirs, a real engine in the way of a backup."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from twiceshy.base.types import Experience, Tier
from twiceshy.engine.context import make_context
from twiceshy.learning.extractors import topic_of
from twiceshy.learning.ingest import store_lesson
from twiceshy.ops.portable import (
    EXPORT_FORMAT,
    EXPORT_SCHEMA_VERSION,
    PortableError,
    parse_seed_text,
    read_manifest,
    restore,
)


def cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, input: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "twiceshy", *args],
        env=env or dict(os.environ),
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=180,
    )


def other_home(tmp_path: Path, name: str) -> dict[str, str]:
    home = tmp_path / name
    home.mkdir()
    return {**os.environ, "TWICESHY_HOME": str(home), "TWICESHY_CONFIG_DIR": str(home / "config")}


def lessons_in(env: dict[str, str], cwd: Path) -> list[dict]:
    proc = cli("list", "--json", env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_export_import_roundtrip_with_provenance_and_dedup(tmp_path: Path):
    ctx = make_context(tmp_path)
    rule, _ = store_lesson(
        ctx,
        "Never run sudo pip install; use a venv",
        "sudo pip install requests",
        kind="correction",
        source="claude-code:s1",
    )
    rule.tier, rule.follows, rule.seen_count, rule.hits = int(Tier.RULE), 4, 5, 6
    ctx.store.update(rule)
    rule2, _ = store_lesson(ctx, "Run the test suite before git push", "git push origin main", kind="failure")
    rule2.tier = int(Tier.RULE)
    ctx.store.update(rule2)
    # Added the way evolve adds a principle (store.add): through store_lesson, "pip install"
    # carries the rule's pip-install signature and would count as another sighting of it.
    principle = Experience(
        text="Take care with package installs",
        trigger="pip install",
        kind="principle",
        tier=int(Tier.PRINCIPLE),
        topic=topic_of("pip install"),
    )
    ctx.store.add(principle)
    ctx.store.add_edge(principle.id, rule.id, "generalizes")
    raw, _ = store_lesson(ctx, "docker compose up needs the .env file", "docker compose up")

    out = tmp_path / "export.json"
    proc = cli("export", "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["format"] == EXPORT_FORMAT and data["schema_version"] == EXPORT_SCHEMA_VERSION
    ids = {r["id"] for r in data["lessons"]}
    assert ids == {rule.id, rule2.id, principle.id}  # principles and rules only: no raw
    rec = next(r for r in data["lessons"] if r["id"] == rule.id)
    assert rec["provenance"]["source"] == "claude-code:s1" and rec["provenance"]["kind"] == "correction"
    assert rec["provenance"]["evidence"] == {"seen_count": 5, "hits": 6, "follows": 4, "ignores": 0, "irrelevant": 0}
    assert rec["provenance"]["created_at"] == pytest.approx(rule.created_at)
    assert {"src": principle.id, "dst": rule.id, "type": "generalizes", "weight": 1.0} in data["edges"]
    everything = json.loads(cli("export", "--all", cwd=tmp_path).stdout)
    assert raw.id in {r["id"] for r in everything["lessons"]}

    # Into an empty memory: tiers, evidence and the edge come along.
    env_b = other_home(tmp_path, "home_b")
    proc = cli("import", str(out), "--json", env=env_b, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["new"] + json.loads(proc.stdout)["related"] == 3
    got = {e["text"]: e for e in lessons_in(env_b, tmp_path)}
    assert len(got) == 3
    imported = got["Never run sudo pip install; use a venv"]
    assert imported["tier"] == int(Tier.RULE) and imported["follows"] == 4 and imported["seen_count"] == 5
    assert imported["source"] == "import:claude-code:s1"
    assert imported["created_at"] == pytest.approx(rule.created_at)
    shown = json.loads(cli("show", got["Take care with package installs"]["id"], env=env_b, cwd=tmp_path).stdout)
    assert ("generalizes", imported["id"]) in [(e["type"], e["dst"]) for e in shown["edges"]]

    # Importing the same file again changes nothing.
    again = cli("import", str(out), "--json", env=env_b, cwd=tmp_path)
    assert json.loads(again.stdout)["exists"] == 3
    assert len(lessons_in(env_b, tmp_path)) == 3

    # A memory that already has a lesson on the same action, in other words: both kept,
    # linked (an import never folds one lesson's advice into another's).
    env_c = other_home(tmp_path, "home_c")
    assert (
        cli(
            "learn", "Do not use sudo with pip", "--trigger", "sudo pip install requests", env=env_c, cwd=tmp_path
        ).returncode
        == 0
    )
    proc = cli("import", str(out), "--json", env=env_c, cwd=tmp_path)
    counts = json.loads(proc.stdout)
    assert counts["seen"] == 0 and counts["new"] + counts["related"] == 3, counts
    have = {e["text"]: e for e in lessons_in(env_c, tmp_path)}
    assert len(have) == 4
    mine = have["Do not use sudo with pip"]
    assert mine["seen_count"] == 1 and have["Never run sudo pip install; use a venv"]["id"] == rule.id


def test_import_rejects_what_is_not_an_export(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"lessons": []}))
    proc = cli("import", str(bad), cwd=tmp_path)
    assert proc.returncode == 1 and "not a twiceshy export" in proc.stderr
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": EXPORT_FORMAT, "schema_version": 99, "lessons": []}))
    proc = cli("import", str(newer), cwd=tmp_path)
    assert proc.returncode == 1 and "upgrade twiceshy" in proc.stderr
    proc = cli("import", "-", cwd=tmp_path, input="{not json")
    assert proc.returncode == 1 and "not JSON" in proc.stderr
    mixed = {
        "format": EXPORT_FORMAT,
        "schema_version": 1,
        "lessons": [{"text": ""}, {"tier": 1}, {"text": "Pin the node version in .nvmrc files", "tier": "rule"}],
    }
    proc = cli("import", "-", "--json", cwd=tmp_path, input=json.dumps(mixed))
    counts = json.loads(proc.stdout)
    assert counts["invalid"] == 2 and counts["new"] == 1
    assert proc.stderr.count("-: line 1: record skipped") == 2, proc.stderr  # each bad record named


def test_backup_and_restore_roundtrip(tmp_path: Path, twiceshy_home: Path):
    env = dict(os.environ)
    for text in ("Use pnpm, not npm, in this repo", "Run ruff before committing python code"):
        assert cli("learn", text, env=env, cwd=tmp_path).returncode == 0
    archive = tmp_path / "snap.tar.gz"
    proc = cli("backup", "-o", str(archive), env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 lessons" in proc.stdout
    manifest = read_manifest(archive)
    assert manifest["format"] == "twiceshy-backup" and manifest["lessons"] == 2 and "store" in manifest["entries"]
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert "store/chroma.sqlite3" in names and not any(n.startswith(("run", "config")) for n in names)

    # Change the memory, then go back.
    assert cli("learn", "A lesson learned after the backup was taken", env=env, cwd=tmp_path).returncode == 0
    assert len(lessons_in(env, tmp_path)) == 3
    proc = cli("restore", str(archive), "--yes", env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(e["text"] for e in lessons_in(env, tmp_path)) == [
        "Run ruff before committing python code",
        "Use pnpm, not npm, in this repo",
    ]
    saved = next((twiceshy_home / "backups").glob("pre-restore-*"))
    assert (saved / "store" / "chroma.sqlite3").is_file()  # what it replaced is kept
    # ...and is itself a working store: the three lessons are in it.
    env_saved = {**env, "TWICESHY_STORE__PATH": str(saved / "store")}
    assert len(lessons_in(env_saved, tmp_path)) == 3

    # Without --yes it asks first.
    proc = cli("restore", str(archive), env=env, cwd=tmp_path, input="n\n")
    assert proc.returncode == 1 and "Aborted" in proc.stderr


def test_backup_refuses_while_the_engine_runs_unless_told_to_stop_it(tmp_path: Path, twiceshy_home: Path):
    env = {**os.environ, "TWICESHY_NO_AUTOSTART": "1"}
    assert cli("learn", "Check the lockfile into git", env=env, cwd=tmp_path).returncode == 0
    assert cli("engine", "start", env=env, cwd=tmp_path).returncode == 0
    try:
        proc = cli("backup", env=env, cwd=tmp_path)
        assert proc.returncode == 1
        assert "engine" in proc.stderr and "--stop-engine" in proc.stderr
        assert not list((twiceshy_home / "backups").glob("*.tar.gz"))
        proc = cli("backup", "--stop-engine", env=env, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert len(list((twiceshy_home / "backups").glob("twiceshy-backup-*.tar.gz"))) == 1
        status = json.loads(cli("engine", "status", "--json", env=env, cwd=tmp_path).stdout)
        assert status["running"] is False
    finally:
        cli("engine", "stop", env=env, cwd=tmp_path)


def test_restore_refuses_unsafe_archives(tmp_path: Path, twiceshy_home: Path):
    ctx = make_context(tmp_path)
    for name, member in (("escape", "../evil.txt"), ("absolute", "/tmp/evil.txt")):
        archive = tmp_path / f"{name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            body = json.dumps({"format": "twiceshy-backup", "version": 1, "lessons": 0}).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
            evil = tarfile.TarInfo(member)
            evil.size = 4
            tar.addfile(evil, io.BytesIO(b"evil"))
        with pytest.raises(PortableError, match="unsafe path"):
            restore(ctx, archive)
    assert not (tmp_path / "evil.txt").exists()
    not_backup = tmp_path / "plain.tar.gz"
    with tarfile.open(not_backup, "w:gz") as tar:
        info = tarfile.TarInfo("hello.txt")
        tar.addfile(info, io.BytesIO(b""))
    proc = cli("restore", str(not_backup), "--yes", cwd=tmp_path)
    assert proc.returncode == 1 and "not a twiceshy backup" in proc.stderr


CLAUDE_MD = """# Project notes

Some prose that is not a rule.

## Tooling
- Use pnpm for every install, never npm or yarn.
- Run `pytest -q` before
  pushing any branch.
* Ok

```bash
- this bullet is inside a code fence and is not a rule
```

### Git
1. Never force-push to main or release branches.
- [ ] Rebase feature branches on main before opening a PR.

<!-- twiceshy:begin -->
<!-- Managed by twiceshy -->
- A lesson twiceshy wrote itself must not be seeded back.
<!-- twiceshy:end -->

## After the block
- Keep secrets out of the repo: use the .env file.
"""

MDC = """---
description: python rules
globs: "**/*.py"
alwaysApply: false
---
# Python
- Type hints on every public function please.
"""


def test_parse_seed_text_headings_fences_and_managed_block():
    items = parse_seed_text(CLAUDE_MD, "CLAUDE.md")
    assert [i.text for i in items] == [
        "Use pnpm for every install, never npm or yarn.",
        "Run `pytest -q` before pushing any branch.",
        "Never force-push to main or release branches.",
        "Rebase feature branches on main before opening a PR.",
        "Keep secrets out of the repo: use the .env file.",
    ]
    assert items[0].heading == "Tooling" and items[0].headings == ["Project notes", "Tooling"]
    assert items[2].headings == ["Project notes", "Tooling", "Git"] and items[2].line == 16
    assert items[4].heading == "After the block"
    mdc = parse_seed_text(MDC, "python.mdc")
    assert [(i.text, i.heading) for i in mdc] == [("Type hints on every public function please.", "Python")]


def test_seed_cli_from_a_project_folder(tmp_path: Path):
    proj = tmp_path / "proj"
    (proj / ".cursor" / "rules").mkdir(parents=True)
    (proj / "CLAUDE.md").write_text(CLAUDE_MD)
    (proj / "AGENTS.md").write_text("# Agents\n- Use pnpm for every install, never npm or yarn.\n")
    (proj / ".cursor" / "rules" / "python.mdc").write_text(MDC)
    dry = cli("seed", "--from", str(proj), "--dry-run", "--json", cwd=proj)
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert plan["found"] == 7 and len(plan["files"]) == 3
    assert lessons_in(dict(os.environ), proj) == []  # a dry run stores nothing

    proc = cli("seed", "--from", str(proj), cwd=proj)
    assert proc.returncode == 0, proc.stderr
    assert "7 found, 6 stored, 1 already known" in " ".join(proc.stdout.split())
    have = lessons_in(dict(os.environ), proj)
    assert len(have) == 6
    assert all(e["kind"] == "seed" and e["tier"] == int(Tier.QA) and e["project"] for e in have)
    pnpm = next(e for e in have if e["text"].startswith("Use pnpm"))
    assert pnpm["source"].startswith(f"seed:{proj / 'CLAUDE.md'}:")
    assert not any("twiceshy wrote itself" in e["text"] for e in have)

    again = cli("seed", "--from", str(proj / "CLAUDE.md"), "--json", cwd=proj)
    counts = json.loads(again.stdout)
    assert counts["found"] == 5 and counts["seen"] == 5 and counts["new"] == 0
    assert len(lessons_in(dict(os.environ), proj)) == 6
