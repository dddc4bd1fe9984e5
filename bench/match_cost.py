"""What the signature check costs per call, this tree's ``hooks/match.py`` against another commit's.

The engine checks a searched call against up to ~16 candidate lessons' signatures
(:func:`twiceshy.hooks.match.check`); the hook client does the same against the rules
snapshot when the engine is not there. This times that check, side by side in one run:
every shell probe of the judgement corpus (tuning and dev splits) against the signatures of
the tuning split's taught lessons, as the code of ``--code`` (default: the commit issue 27 was
measured on) and as this tree. Both load the same signatures (derived once, by this tree).

    python bench/match_cost.py                 # against bb58719
    python bench/match_cost.py --code HEAD~5 --rounds 9
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from judgement import dev  # noqa: E402
from judgement import harness as h  # noqa: E402
from twiceshy.lesson.signature import derive_from_trigger  # noqa: E402


def _module(name: str, source: str, folder: Path) -> ModuleType:
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _per_call_us(match: ModuleType, sigs: list[dict[str, Any]], calls: list[str], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        for memo in ("_CHECK_PARSED", "_PARSED"):
            if isinstance(getattr(match, memo, None), dict):
                getattr(match, memo).clear()  # no parse memo carried between rounds
        started = time.perf_counter()
        for command in calls:
            payload = {"command": command}
            for sig in sigs:
                match.check(sig, "Bash", payload)
        times.append((time.perf_counter() - started) / len(calls) * 1e6)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--code", default="bb58719", help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--per-call", type=int, default=16, help="signatures checked per call (the engine's candidates)")
    args = ap.parse_args()

    tuning = h.load()
    sigs = [
        s for i in tuning.incidents if (s := derive_from_trigger(i.mistake, i.lesson)) and s.get("kind") == "command"
    ]
    calls = [
        p.action
        for corpus in (tuning, dev.load())
        for i in corpus.incidents
        for p in i.probes()
        if isinstance(p.action, str)
    ]
    sigs = sigs[: args.per_call]
    old_source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{args.code}:hooks/match.py"], capture_output=True, text=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        old = _module("match_old", old_source, Path(tmp))
        new = _module("match_new", (REPO / "hooks" / "match.py").read_text(), Path(tmp))
        rows = []
        for label, module in ((args.code, old), ("this tree", new)):
            _per_call_us(module, sigs, calls, 1)  # warm
            rows.append((label, _per_call_us(module, sigs, calls, args.rounds)))
    print(f"{len(calls)} shell probes x {len(sigs)} signatures each, {args.rounds} rounds (microseconds per call)")
    print(f"{'code':<12} {'min':>8} {'median':>8} {'max':>8}")
    for label, times in rows:
        print(f"{label:<12} {min(times):>8.1f} {statistics.median(times):>8.1f} {max(times):>8.1f}")
    base, now = statistics.median(rows[0][1]), statistics.median(rows[1][1])
    print(f"this tree / {args.code}: {now / base:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
