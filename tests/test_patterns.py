"""Pattern observations: observe -> consolidate -> suggest -> decay, on the real file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.guidance.patterns import PatternStore, normalise, patterns_path

DAY = 86400.0


def test_normalise_merges_spellings() -> None:
    assert normalise("seq: Test -> Fix  ->test") == normalise("seq:test->fix->test") == "seq:test->fix->test"
    assert normalise("seq:test → fix => test") == "seq:test->fix->test"


def test_observe_counts_and_confidence_on_disk(twiceshy_home: Path) -> None:
    store = PatternStore()
    first = store.observe("seq:test->fix->test")
    assert (first.count, first.confidence, first.status) == (1, pytest.approx(0.2), "raw")
    second = store.observe("SEQ: test -> fix -> test")
    assert second.count == 2 and second.confidence == pytest.approx(0.36)
    data = json.loads(patterns_path().read_text())
    assert len(data["observations"]) == 1 and data["observations"][0]["count"] == 2
    assert patterns_path().parent == twiceshy_home
    with pytest.raises(ValueError):
        store.observe("   ")


def test_consolidate_promotes_by_thresholds_and_suggest_filters(twiceshy_home: Path) -> None:
    store = PatternStore()
    for _ in range(2):
        store.observe("tool:rg")
    assert store.consolidate()["promoted"] == 0
    assert store.suggest() == []  # raw patterns are not suggested
    store.observe("tool:rg")  # 3 sightings, confidence 0.488 < 0.5: still raw
    store.consolidate()
    assert store.all()[0].status == "raw"
    store.observe("tool:rg")  # 4, 0.59: mature
    assert store.consolidate()["promoted"] == 1
    assert [o.status for o in store.suggest()] == ["mature"]
    for _ in range(3):
        store.observe("tool:rg")  # 7, 0.79: rule
    store.consolidate()
    assert store.suggest()[0].status == "rule"
    assert store.suggest(include_raw=True)[0].pattern == "tool:rg"


def test_thresholds_come_from_config(tmp_path: Path, twiceshy_home: Path) -> None:
    from twiceshy.base.config import load_config

    cfg_dir = twiceshy_home / "config"
    cfg_dir.mkdir(exist_ok=True)
    (cfg_dir / "config.yaml").write_text("patterns:\n  mature_count: 1\n  mature_confidence: 0.1\n")
    store = PatternStore(config=load_config())
    store.observe("seq:read->edit")
    store.consolidate()
    assert store.all()[0].status == "mature"


def test_project_scope_and_cross_project_globalisation(twiceshy_home: Path) -> None:
    store = PatternStore()
    for _ in range(4):
        store.observe("seq:lint->test", project="a-1")
    store.consolidate()
    assert store.suggest(project="a-1")[0].pattern == "seq:lint->test"
    assert store.suggest(project="b-2") == []  # scoped to a-1
    for proj in ("b-2", "c-3"):
        store.observe("seq: lint -> test", project=proj)
    stats = store.consolidate()
    assert stats["globalised"] == 1
    glob = [o for o in store.all() if o.project is None]
    assert len(glob) == 1 and sorted(glob[0].projects) == ["a-1", "b-2", "c-3"] and glob[0].count == 6
    assert store.suggest(project="zzz")[0].pattern == "seq:lint->test"  # now everyone sees it
    assert "in 3 projects" in glob[0].evidence()


def test_decay_demotes_drops_and_never_charges_twice(twiceshy_home: Path) -> None:
    store = PatternStore()
    t0 = 1_000_000.0
    for _ in range(8):
        store.observe("tool:fd", now=t0)
    store.observe("note: faint", now=t0)
    store.consolidate()
    rule = next(o for o in store.all() if o.key == "tool:fd")
    assert rule.status == "rule"
    conf = rule.confidence
    stats = store.decay(days=10, now=t0 + 5 * DAY)
    assert stats["decayed"] == 0  # not idle long enough
    stats = store.decay(days=10, now=t0 + 21 * DAY)  # two idle periods: x 0.25
    after = next(o for o in store.all() if o.key == "tool:fd")
    assert after.confidence == pytest.approx(conf * 0.25) and after.status == "raw"
    assert stats == {"decayed": 2, "demoted": 1, "dropped": 0}
    again = store.decay(days=10, now=t0 + 21 * DAY)  # the same idle time is not charged twice
    assert again["decayed"] == 0
    assert next(o for o in store.all() if o.key == "tool:fd").confidence == pytest.approx(conf * 0.25)
    stats = store.decay(days=10, now=t0 + 31 * DAY)  # one more period: the faint note (0.2 -> 0.025) goes
    assert stats["dropped"] == 1 and [o.key for o in store.all()] == ["tool:fd"]
    with pytest.raises(ValueError):
        store.decay(days=0)


def _observe_many(home: str, n: int) -> None:
    os.environ["TWICESHY_HOME"] = home
    store = PatternStore()
    for _ in range(n):
        store.observe("seq:parallel")


def test_concurrent_writers_lose_nothing(twiceshy_home: Path) -> None:
    code = "import sys; from tests.test_patterns import _observe_many; _observe_many(sys.argv[1], int(sys.argv[2]))"
    repo = Path(__file__).resolve().parent.parent
    procs = [subprocess.Popen([sys.executable, "-c", code, str(twiceshy_home), "25"], cwd=repo) for _ in range(4)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    (obs,) = PatternStore().all()
    assert obs.count == 100


def test_cli_observe_consolidate_suggest_decay(tmp_path: Path, twiceshy_home: Path) -> None:
    env = dict(os.environ)
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "twiceshy", *args],
        cwd=tmp_path,
        env=env,  # noqa: E731
        capture_output=True,
        text=True,
        timeout=60,
    )
    for _ in range(4):
        out = run("observe", "seq:test->fix->test", "--project")
        assert out.returncode == 0, out.stderr
    assert "observed 4x" in out.stdout
    assert "promoted 1" in run("consolidate").stdout
    suggested = run("suggest")
    assert "[mature] seq:test->fix->test" in suggested.stdout
    from twiceshy.base.project import fingerprint

    assert fingerprint(str(tmp_path)) in suggested.stdout
    assert "decayed 0" in run("decay", "--days", "30").stdout
    assert run("decay", "--days", "0").returncode != 0
