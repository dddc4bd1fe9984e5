"""Tune ``learning.dedup_threshold``: precision/recall of "same lesson" by cosine threshold.

Dedup compares lesson *triggers* (what a lesson is about: a command, or the
sentence of a marker/correction) with the MiniLM embedder the store uses.
Each pair below is labelled: 1 = the same lesson said differently (should
merge: seen_count += 1), 0 = a different lesson, most of them hard negatives
on the same tool (should stay apart; the related band may link them).

A false merge loses a lesson (its text is dropped); a missed merge only costs
a near-duplicate that the ``relates-to`` band links, so precision matters
more than recall. Run::

    python bench/dedup_threshold.py
"""

from __future__ import annotations

import sys
import time

import numpy as np
from twiceshy.learning.extractors import commands_compatible
from twiceshy.memory.embedding import MiniLMEmbedder

SAME: list[tuple[str, str]] = [
    ("pip install requests", "pip install requests==2.31.0"),
    ("pip install requests", "python -m pip install requests"),
    ("pip install requests", "pip3 install requests"),
    ("git push --force origin main", "git push -f origin main"),
    ("git push --force origin main", "git push --force origin HEAD:main"),
    ("npm install", "npm i"),
    ("rm -rf node_modules", "rm -rf ./node_modules"),
    ("docker compose up -d", "docker compose up --detach"),
    ("pytest tests/test_api.py", "python -m pytest tests/test_api.py"),
    ("pytest -q", "pytest --quiet"),
    ("cargo build --release", "cargo build -r"),
    ("go test ./...", "go test -v ./..."),
    ("kubectl apply -f deploy.yaml", "kubectl apply -f ./deploy.yaml"),
    ("terraform apply", "terraform apply -auto-approve"),
    ("git commit --no-verify -m wip", "git commit -n -m wip"),
    ("chmod -R 777 .", "chmod -R 777 ./"),
    ("sudo pip install flask", "sudo pip3 install flask"),
    ("npm run build", "npm run build -- --prod"),
    ("yarn add lodash", "yarn add lodash@4"),
    ("git reset --hard HEAD~1", "git reset --hard HEAD^"),
    (
        "On this machine the system Python is externally managed (PEP 668): install packages into the project's .venv, never with bare pip or sudo pip.",
        "The system Python here is externally managed (PEP 668), so install packages into the project's virtualenv instead of using bare pip or sudo pip.",
    ),
    (
        "Run the database migrations before running the test suite.",
        "Apply the DB migrations first, then run the tests.",
    ),
    ("Always run the linter before committing.", "Run the linter before every commit."),
    (
        "Response.json is a method; call .json() instead of comparing the bound method.",
        "Call response.json() - json is a method, not an attribute.",
    ),
    (
        "The API server must be started before the integration tests.",
        "Start the API server first, the integration tests need it.",
    ),
    (
        "Do not edit generated files under src/gen; edit the .proto and regenerate.",
        "Files in src/gen are generated: change the proto file and run the generator instead of editing them.",
    ),
    ("Use pnpm in this repo, not npm.", "This repository uses pnpm; don't use npm."),
    ("Never force-push to main.", "Don't force push to the main branch."),
    ("The tests need the TZ environment variable set to UTC.", "Set TZ=UTC before running the tests."),
    ("Use ruff format, not black, for formatting.", "Format with ruff format rather than black."),
    (
        "Docker builds fail on Apple silicon without --platform linux/amd64.",
        "On M1 Macs pass --platform linux/amd64 to docker build or it fails.",
    ),
    ("Read a file before editing it.", "Always read the file first before you edit it."),
    (
        "The config file is settings.toml, not config.yaml.",
        "Configuration lives in settings.toml rather than config.yaml.",
    ),
    ("Restart the dev server after changing .env.", "Changes to .env need a dev server restart."),
    ("make test", "make test V=1"),
]

DIFFERENT: list[tuple[str, str]] = [
    ("pip install requests", "pip uninstall requests"),
    ("pip install requests", "npm install requests"),
    ("pip install requests", "pip install --user numpy"),
    ("git push --force origin main", "git pull --rebase origin main"),
    ("git push --force origin main", "git push origin feature-x"),
    ("npm install", "npm test"),
    ("npm install", "npm publish"),
    ("rm -rf node_modules", "rm -rf /"),
    ("docker compose up -d", "docker compose down -v"),
    ("pytest tests/test_api.py", "pytest tests/test_models.py"),
    ("cargo build --release", "cargo test"),
    ("go test ./...", "go mod tidy"),
    ("kubectl apply -f deploy.yaml", "kubectl delete namespace prod"),
    ("terraform apply", "terraform destroy"),
    ("git commit --no-verify -m wip", "git commit --amend"),
    ("chmod -R 777 .", "chown -R user ."),
    ("sudo pip install flask", "sudo apt-get install nginx"),
    ("npm run build", "npm run lint"),
    ("yarn add lodash", "yarn remove lodash"),
    ("git reset --hard HEAD~1", "git revert HEAD"),
    ("git stash", "git stash pop"),
    ("make test", "make install"),
    (
        "Run the database migrations before running the test suite.",
        "Run the database migrations before deploying to production.",
    ),
    ("Always run the linter before committing.", "Always run the tests before pushing."),
    ("Use pnpm in this repo, not npm.", "Use poetry in this repo, not pip."),
    ("Never force-push to main.", "Never commit directly to main."),
    ("The tests need the TZ environment variable set to UTC.", "The tests need a running Postgres on port 5432."),
    ("Use ruff format, not black, for formatting.", "Use mypy in strict mode for type checking."),
    ("Read a file before editing it.", "Run the tests after editing more than one file."),
    ("The config file is settings.toml, not config.yaml.", "The logs are written to /var/log/app, not ./logs."),
    ("Restart the dev server after changing .env.", "Clear the cache after changing the templates."),
    (
        "Response.json is a method; call .json() instead of comparing the bound method.",
        "requests.get needs a timeout or it can hang forever.",
    ),
    ("The API server must be started before the integration tests.", "The API server listens on port 8080, not 8000."),
    (
        "Docker builds fail on Apple silicon without --platform linux/amd64.",
        "Docker builds are faster with BuildKit enabled.",
    ),
    (
        "Do not edit generated files under src/gen; edit the .proto and regenerate.",
        "Do not edit the vendored files under third_party.",
    ),
]

THRESHOLDS = [round(0.70 + 0.025 * i, 3) for i in range(11)]


def main() -> int:
    embedder = MiniLMEmbedder()
    pairs = [(a, b, 1) for a, b in SAME] + [(a, b, 0) for a, b in DIFFERENT]
    start = time.perf_counter()
    sims = []
    for a, b, _ in pairs:
        va, vb = embedder.embed([a, b])
        sims.append(float(np.dot(va, vb)))
    elapsed = time.perf_counter() - start
    labels = np.array([label for _, _, label in pairs])
    sims_arr = np.array(sims)
    print(f"{len(SAME)} same-lesson pairs, {len(DIFFERENT)} different-lesson pairs; embedder {embedder.name}")
    print(f"cosine same: median {np.median(sims_arr[labels == 1]):.3f} min {sims_arr[labels == 1].min():.3f}")
    print(f"cosine diff: median {np.median(sims_arr[labels == 0]):.3f} max {sims_arr[labels == 0].max():.3f}")
    guard = np.array([commands_compatible(a, b) for a, b, _ in pairs])
    for title, allowed in (
        ("cosine only", np.ones_like(guard)),
        ("cosine + command guard (what store_lesson does)", guard),
    ):
        print(f"\n{title}")
        print(f"{'threshold':>9} {'precision':>9} {'recall':>7} {'f1':>6} {'false_merges':>12}")
        for t in THRESHOLDS:
            pred = (sims_arr >= t) & allowed
            tp = int((pred & (labels == 1)).sum())
            fp = int((pred & (labels == 0)).sum())
            fn = int((~pred & (labels == 1)).sum())
            precision = tp / (tp + fp) if tp + fp else 1.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            print(f"{t:>9.3f} {precision:>9.3f} {recall:>7.3f} {f1:>6.3f} {fp:>12d}")
    if "-v" in sys.argv:
        for (a, b, label), s in sorted(zip(pairs, sims), key=lambda item: -item[1]):
            print(f"{s:.3f} {'SAME' if label else 'diff'}  {a[:50]!r} ~ {b[:50]!r}")
    print(f"embedded {2 * len(pairs)} texts in {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
