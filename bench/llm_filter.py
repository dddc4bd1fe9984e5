"""Cost of the brain on the hot path.

1. ``import litellm`` with LITELLM_LOCAL_MODEL_COST_MAP=True, in fresh processes
   (the engine pays it once, in a background thread).
2. pre_tool latency of the recall plugin (search + ranking [+ LLM filter])
   without a model and with a model served by the local fake
   OpenAI-compatible server (tests/llm_server.py), in the same run.
3. pre_tool latency when the model is too slow (answers after the timeout):
   bounded by llm.timeout_s.

Run: /work/venv/bin/python bench/llm_filter.py [--n 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def row(label: str, ms: list[float]) -> None:
    print(f"{label:<44} n={len(ms):<4} median {statistics.median(ms):8.1f} ms   p95 {pct(ms, 0.95):8.1f} ms")


def bench_import(runs: int) -> list[float]:
    code = "import time; t=time.perf_counter(); import litellm; print((time.perf_counter()-t)*1000)"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return [
        float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
        for _ in range(runs)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--import-runs", type=int, default=3)
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="ts-bench-"))
    os.environ["TWICESHY_HOME"] = str(home)
    os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

    row("import litellm (fresh process)", bench_import(args.import_runs))

    from llm_server import FakeLLMServer, llm_env
    from twiceshy.base.types import CoreEvent, Experience
    from twiceshy.brain import llm
    from twiceshy.builtins import recall
    from twiceshy.engine.context import make_context
    from twiceshy.recall import ranking

    lessons = [
        ("Use --force-with-lease, never a bare --force", "git push --force origin main"),
        ("Install into a venv, never sudo pip", "sudo pip install requests"),
        ("Run pytest with -x to stop at the first failure", "pytest tests/"),
        ("Set DJANGO_SETTINGS_MODULE before pytest", "pytest tests/ for django"),
        ("docker system prune removes volumes: back up first", "docker system prune -a --volumes"),
    ] + [(f"lesson {i} about npm scripts", f"npm run build:{i}") for i in range(15)]

    def one(ctx, tag: str, i: int) -> float:
        ranking.clear_cache()  # every call asks the model: the uncached worst case
        event = CoreEvent(
            kind="pre_tool", agent="claude-code", native_event="PreToolUse", session_id=f"{tag}-{i}",
            cwd=str(home), tool_name="Bash", tool_input={"command": f"pytest tests/ -k case{i}"},
        )  # fmt: skip
        start = time.perf_counter()
        recall.pre_tool(event, ctx)
        return (time.perf_counter() - start) * 1000

    with FakeLLMServer([("answer", "1, 2")]) as server:
        base = make_context(home)
        base.store.add_many([Experience(text=t, trigger=g) for t, g in lessons])
        for name, value in llm_env(server).items():
            os.environ[name] = value
        with_model = make_context(home)
        with_model._store = base.store  # same warm store and embedder
        llm.litellm_module()
        for i in range(5):  # warm both paths
            one(base, "warm-a", i), one(with_model, "warm-b", i)
        # Interleaved, so load drift on a shared box hits both rows alike.
        without, with_ = [], []
        for i in range(args.n):
            without.append(one(base, "a", i))
            with_.append(one(with_model, "b", i))
        row("pre_tool, no model (heuristics only)", without)
        row("pre_tool, model on 127.0.0.1 (LLM filter)", with_)
        row("difference per call (with - without)", [b - a for a, b in zip(without, with_)])

        server.set_script([("slow", 5.0, "1")])
        timeout = with_model.config.get("llm", "timeout_s")
        row(f"pre_tool, model too slow (timeout {timeout} s)", [one(with_model, "slow", i) for i in range(5)])
        print(f"llm stats: {llm.STATS.as_dict()}")


if __name__ == "__main__":
    main()
