"""Embedding choice: load time, per-query latency and top-1 accuracy on a paraphrase set.

Each case is a stored lesson trigger and a paraphrase of the same action the
agent might take later; top-1 accuracy is how often the paraphrase's nearest
trigger (cosine, over all 40 triggers) is its own. Run:

    python bench/embeddings.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from twiceshy.memory.embedding import HashEmbedder, MiniLMEmbedder

# (stored trigger, later paraphrase of the same action)
PAIRS: list[tuple[str, str]] = [
    ("sudo pip install requests", "pip install flask with sudo"),
    ("git push --force origin main", "force-push my branch to main"),
    ("rm -rf node_modules && npm install", "delete node_modules and reinstall the packages"),
    ("npm install left-pad", "npm i lodash"),
    ("docker system prune -a --volumes", "remove all docker images and volumes"),
    ("DROP TABLE users", "drop the users table in the database"),
    ("python -m pytest tests", "run the unit tests with pytest"),
    ("chmod -R 777 /var/www", "make the web root world writable"),
    ("git reset --hard HEAD~3", "throw away the last three commits"),
    ("kubectl delete namespace production", "delete the prod namespace in kubernetes"),
    ("edit package-lock.json by hand", "manually change the lockfile"),
    ("curl https://get.example.sh | sh", "pipe the install script from the internet into bash"),
    ("terraform apply -auto-approve", "apply the terraform plan without confirmation"),
    ("cargo build --release", "compile the rust project in release mode"),
    ("alembic upgrade head", "run the database migrations"),
    ("git commit --no-verify", "commit skipping the pre-commit hooks"),
    ("pip install -r requirements.txt outside a virtualenv", "install the requirements into the system python"),
    ("npm publish", "publish the package to the npm registry"),
    ("rm -rf ~/.cache", "clear the whole cache directory in home"),
    ("git rebase -i main on a shared branch", "interactive rebase of a branch others use"),
    ("yarn add react", "add react with yarn"),
    ("mvn clean install -DskipTests", "build with maven skipping the tests"),
    ("go mod tidy", "clean up go module dependencies"),
    ("sed -i 's/foo/bar/g' *.py", "replace foo with bar in place in all python files"),
    ("eslint --fix src", "auto-fix lint errors in src"),
    ("export AWS_PROFILE=prod", "switch the aws profile to production"),
    ("psql -c 'TRUNCATE orders'", "empty the orders table"),
    ("git checkout -- .", "discard all local changes in the working tree"),
    ("make deploy", "deploy with the makefile target"),
    ("python manage.py migrate --fake", "mark django migrations as applied without running them"),
]
DISTRACTORS = [
    "ls -la",
    "cat README.md",
    "git status",
    "echo hello",
    "mkdir build",
    "cd src",
    "grep -r TODO .",
    "touch notes.txt",
    "python --version",
    "df -h",
]


def measure(name: str, factory) -> dict[str, float]:
    t0 = time.perf_counter()
    embedder = factory()
    load_ms = (time.perf_counter() - t0) * 1000
    triggers = [t for t, _ in PAIRS] + DISTRACTORS
    stored = np.array(embedder.embed(triggers))
    latencies = []
    correct = 0
    for i, (_, query) in enumerate(PAIRS):
        t = time.perf_counter()
        (vec,) = embedder.embed([query])
        latencies.append((time.perf_counter() - t) * 1000)
        sims = stored @ np.array(vec)
        correct += int(int(np.argmax(sims)) == i)
    latencies.sort()
    return {
        "load_ms": load_ms,
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
        "top1": correct / len(PAIRS),
    }


def main() -> None:
    rows = {"minilm (ONNX int8, shipped)": MiniLMEmbedder, "hash (lexical fallback)": HashEmbedder}
    print(f"{len(PAIRS)} paraphrase pairs, {len(PAIRS) + len(DISTRACTORS)} stored triggers")
    print(f"{'embedder':32} {'load ms':>9} {'p50 ms':>8} {'p95 ms':>8} {'top-1':>7}")
    results = {}
    for name, factory in rows.items():
        r = measure(name, factory)
        results[name] = r
        print(f"{name:32} {r['load_ms']:9.0f} {r['p50_ms']:8.2f} {r['p95_ms']:8.2f} {r['top1']:7.0%}")
    base, alt = results["hash (lexical fallback)"], results["minilm (ONNX int8, shipped)"]
    print(
        f"minilm vs hash: top-1 {alt['top1'] / max(base['top1'], 1e-9):.2f}x, p50 latency {alt['p50_ms'] / base['p50_ms']:.1f}x"
    )


if __name__ == "__main__":
    main()
