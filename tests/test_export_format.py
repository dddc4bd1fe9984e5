"""The export format, schema 2 (issue 31): no vectors unless asked for, no field
a reader derives; what is left out is derived again on import, and a file of
the first schema still imports.

Real parts: ``python -m twiceshy`` processes on Chroma stores in separate data
dirs, the shipped MiniLM model. ``fixtures/export-schema1.json`` is a real
file of the first schema: ``twiceshy export --all --include-superseded`` of
twiceshy as it was before schema 2 (commit 2b5fa21), run on a store of six
lessons learned with a trigger (structured, with their parsed mistake and
signature), two seeded bullets (trigger = text), a principle, a superseded
lesson and four edges; vectors carried (then the default).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from twiceshy.lesson.signature import describe_call
from twiceshy.ops import bulk
from twiceshy.ops.export_format import EXPORT_SCHEMA_VERSION, expand_structured

FIXTURE = Path(__file__).parent / "fixtures" / "export-schema1.json"


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "twiceshy", *args], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, (args, proc.stderr[-2000:])
    return proc


def home(tmp_path: Path, name: str) -> dict[str, str]:
    path = tmp_path / name
    path.mkdir()
    return {**os.environ, "TWICESHY_HOME": str(path), "TWICESHY_CONFIG_DIR": str(path / "config")}


def export(env: dict[str, str], path: Path, *extra: str) -> dict[str, Any]:
    cli("export", "--all", "--include-superseded", "-o", str(path), *extra, env=env)
    return json.loads(path.read_text(encoding="utf-8"))


def lessons(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An export's lessons by id, vectors aside (float16 of the same vector)."""
    return {r["id"]: {k: v for k, v in r.items() if k != "vector"} for r in doc["lessons"]}


def edges(doc: dict[str, Any]) -> set[tuple[str, str, str, float]]:
    return {(e["src"], e["type"], e["dst"], round(float(e["weight"]), 4)) for e in doc["edges"]}


def imported(env: dict[str, str], path: Path) -> dict[str, int]:
    return json.loads(cli("import", str(path), "--json", env=env).stdout)


def test_export_leaves_out_vectors_and_derived_fields_and_round_trips(tmp_path: Path) -> None:
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    a = home(tmp_path, "a")
    assert imported(a, FIXTURE)["new"] == 10
    first = export(a, tmp_path / "a.json")
    assert first["schema_version"] == EXPORT_SCHEMA_VERSION == 2
    assert "vectors" not in first and "exported" not in first
    for rec in first["lessons"]:
        assert not {"vector", "embedding", "tier_label"} & set(rec), rec
        assert "created" not in rec["provenance"]
    by_id = lessons(first)
    seeds = [r for r in old["lessons"] if r["text"] == r["trigger"]]
    assert len(seeds) == 2 and all("trigger" not in by_id[r["id"]] for r in seeds)  # the trigger is the text
    parsed = [r for r in old["lessons"] if r["structured"]]
    assert len(parsed) == 6
    for rec in parsed:  # a mistake that is its command's parse is written as the command
        mistake = rec["structured"]["mistake"]
        same = describe_call(mistake["command"]) == mistake  # all six, unless the parser changed since
        want = {"tool": "Bash", "command": mistake["command"]} if same else mistake
        assert by_id[rec["id"]]["structured"]["mistake"] == want
    size = (tmp_path / "a.json").stat().st_size
    assert size < FIXTURE.stat().st_size / 2, size

    # Into an empty store: the triggers are embedded, the parse derived again, the export the same.
    b = home(tmp_path, "b")
    counts = imported(b, tmp_path / "a.json")
    assert counts["new"] == 10 and counts["invalid"] == 0, counts
    second = export(b, tmp_path / "b.json")
    assert lessons(second) == by_id and edges(second) == edges(first) == edges(old)
    learned = parsed[1]
    shown = json.loads(cli("show", learned["id"], env=b).stdout)
    assert shown["structured"] == learned["structured"]  # the whole parse, as the first store had it
    hit = cli("search", learned["trigger"], "-k", "1", env=b).stdout.split()
    assert hit[1] == learned["id"] and float(hit[0]) > 0.99, hit  # its vector is its trigger's


def test_export_vectors_when_asked_and_an_import_uses_them(tmp_path: Path, twiceshy_home: Path) -> None:
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import make_context
    from twiceshy.memory.embedding import MiniLMEmbedder
    from twiceshy.memory.store import ExperienceStore, open_client
    from twiceshy.ops.export_format import export_data, import_file

    env = dict(os.environ)
    ctx = make_context(None)
    assert import_file(ctx, FIXTURE)["new"] == 10
    # named and topped as an import stores them, so both exports say the same
    more = [
        Experience(text=f"rule {i}", trigger=f"make t{i} -j{i}", tier=1, topic="make", source="import")
        for i in range(60)
    ]
    ctx.store.add_many(more)
    carried = export(env, tmp_path / "v.json", "--vectors")
    model = ctx.store.embedder
    assert carried["vectors"] == {"model": model.name, "dim": model.dim, "encoding": "float16-base64"}
    assert all(isinstance(r["vector"], str) and "embedding" not in r for r in carried["lessons"])
    plain = (tmp_path / "v.json").stat().st_size - sum(len(r["vector"]) for r in carried["lessons"])
    assert plain < (tmp_path / "v.json").stat().st_size / 2  # the vectors are most of such a file

    other = make_context(None)
    other._store = ExperienceStore(open_client(path=tmp_path / "o"), MiniLMEmbedder(), path=tmp_path / "o")
    embedded: list[int] = []
    one, many = other.store.embedder.embed, other.store.embedder.embed_many
    other.store.embedder.embed = lambda texts: embedded.append(len(texts)) or one(texts)
    other.store.embedder.embed_many = lambda texts, progress=None: embedded.append(len(texts)) or many(texts, progress)
    counts = import_file(other, tmp_path / "v.json")
    assert counts["new"] + counts["related"] == 70, counts
    assert sum(embedded) <= bulk.VECTOR_SAMPLE, embedded  # only the check sample was embedded
    again = export_data(other, tiers=(0, 1, 2, 3), include_superseded=True, vectors=True)
    for exp_id, want in lessons(carried).items():
        assert lessons(again)[exp_id] == want, exp_id
    assert edges(again) == edges(carried)


def test_a_schema_1_file_imports_whole_and_exports_as_schema_2(tmp_path: Path) -> None:
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert old["schema_version"] == 1 and all("tier_label" in r and "embedding" in r for r in old["lessons"])
    env = home(tmp_path, "h")
    assert imported(env, FIXTURE)["new"] == 10
    new = export(env, tmp_path / "new.json")
    assert new["schema_version"] == 2
    got = lessons(new)
    assert set(got) == {r["id"] for r in old["lessons"]}
    for want in old["lessons"]:
        have = got[want["id"]]
        assert not {"tier_label", "embedding"} & set(have)
        assert have.get("trigger", have["text"]) == want["trigger"]
        for name in ("text", "tier", "confidence", "project", "tags", "topic", "superseded_by", "streak"):
            if want[name] or name != "topic":  # an import gives a lesson without a topic its trigger's
                assert have[name] == want[name], (name, want["id"])
        assert expand_structured(have["structured"]) == want["structured"]
        prov, was = have["provenance"], want["provenance"]
        assert prov["source"] == f"import:{was['source']}" if was["source"] else prov["source"] == "import"
        for name in ("kind", "created_at", "last_seen", "evidence"):
            assert prov[name] == was[name], (name, want["id"])
    assert edges(new) == edges(old)


def test_list_json_is_one_lesson_a_line_with_the_stored_fields(tmp_path: Path) -> None:
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    env = home(tmp_path, "h")
    imported(env, FIXTURE)
    out = cli("list", "--all", "--json", env=env).stdout
    lines = out.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == 12, lines[:3]
    rows = [json.loads(line.rstrip(",")) for line in lines[1:-1]]
    assert rows == json.loads(out)
    by_id = {r["id"]: r for r in rows}
    for want in old["lessons"]:  # list shows a lesson as stored: the whole structured lesson
        assert by_id[want["id"]]["structured"] == want["structured"]
        assert by_id[want["id"]]["seen_count"] == want["provenance"]["evidence"]["seen_count"]
