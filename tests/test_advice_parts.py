"""A taught lesson's advice says what its fix carries: a call that carries a value the advice
names (and the mistake lacked) is the fix, never held by that lesson, whether the engine answers
or the hook client answers alone from the hold index."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from reliability_kit import serve_pids
from test_cold_hold import _learn, _pre
from twiceshy.hooks import coldhold
from twiceshy.hooks.match import call_parts, follows_advice
from twiceshy.lesson.advice_parts import advised_parts

JEST = "mosaic: jest reads its config from tools/jest.base.ts; bare npx jest can't parse TypeScript; run npm test -- <path>"
PORT = "local port 5432 is taken by the host's own Postgres; port-forward to another port (… svc/<db> 15432:5432)"
REGISTRY = "gcr.io is read-only for us; push to europe-west4-docker.pkg.dev/tern-prod/images/<image>:<tag>"


@pytest.mark.parametrize(
    ("advice", "trigger", "fix", "mistake_again"),
    [
        (JEST, "npx jest src/routes/a.test.ts", "npx jest --config tools/jest.base.ts src/x", "npx jest src/routes"),
        (
            PORT,
            "kubectl port-forward svc/pg 5432:5432",
            "kubectl port-forward svc/pg 15432:5432",
            "kubectl port-forward pod/pg-0 5432",
        ),
        (
            REGISTRY,
            "docker push gcr.io/tern-prod/api:1.2",
            "docker push europe-west4-docker.pkg.dev/tern-prod/images/api:1.3",
            "docker push gcr.io/tern-prod/worker:2.0",
        ),
    ],
)
def test_a_call_with_a_value_the_advice_names_follows_it(
    advice: str, trigger: str, fix: str, mistake_again: str
) -> None:
    advised = advised_parts(advice, trigger)
    assert advised, advice
    assert follows_advice(advised, call_parts(fix))
    assert not follows_advice(advised, call_parts(trigger))
    assert not follows_advice(advised, call_parts(mistake_again))


def test_a_dash_ends_the_clause_that_forbids() -> None:
    """ "no Package.swift at the root — run with --package-path Packages/<Name>": what follows the
    dash is advised, not negated; a step into that directory follows it too."""
    advice = "the repo root has no Package.swift — run swift test with --package-path Packages/<Name>"
    advised = advised_parts(advice, "swift test")
    assert "Packages/*" in advised
    assert follows_advice(advised, call_parts("cd Packages/Kit && swift test --filter Curve"))
    assert not follows_advice(advised, call_parts("swift test --filter Curve"))
    assert advised_parts("never pass --kubeconfig ~/.kube/prod.yaml — it is the prod cluster", "kubectl get pods") == []


def test_what_the_advice_forbids_or_the_mistake_had_is_not_the_fix() -> None:
    advice = "never pass --kubeconfig ~/.kube/prod.yaml here; don't touch ops/prod-cluster.yaml either"
    assert advised_parts(advice, "kubectl apply -f k8s/") == []
    assert advised_parts("deploy.sh --env staging needs --region eu-west-1", "./deploy.sh --env staging") == [
        "eu-west-1"
    ]
    assert "k8s/base.yaml" not in advised_parts(
        "k8s/base.yaml is fine; use the overlay", "kubectl apply -f k8s/base.yaml"
    )


@pytest.fixture
def taught_jest(twiceshy_home: Path, tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    project = tmp_path / "mosaic"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _learn(twiceshy_home, project, JEST, "npx jest src/routes/orders.test.ts")
    yield twiceshy_home, project
    for pid in serve_pids(twiceshy_home):
        os.kill(pid, 9)


def test_the_hook_client_alone_passes_the_advised_call(taught_jest: tuple[Path, Path]) -> None:
    home, project = taught_jest
    entries = [
        e for shard in (home / coldhold.FOLDER).glob("[0-9][0-9].json") for e in json.loads(shard.read_text())["rules"]
    ]
    assert any("tools/jest.base.ts" in (e.get("advice") or []) for e in entries), entries
    held = _pre(home, "npx jest src/routes/orders.test.ts", project)
    assert held.returncode == 2, held.stderr
    fix = _pre(home, "npx jest --config tools/jest.base.ts src/services", project, session="s2")
    assert (fix.returncode, fix.stderr) == (0, ""), fix.stderr


def test_a_directory_the_advice_says_to_cd_into_is_the_fix() -> None:
    """ "(or cd into apps/<pkg> first)": a call that moves into such a directory follows the
    advice, however short the directory's fixed part; another directory does not."""
    text = (
        "a pnpm workspace: never pnpm add at the root — pnpm --filter @acme/<pkg> add … (or cd into apps/<pkg> first)."
    )
    advised = advised_parts(text, "pnpm add zod")
    assert "cd:apps/*" in advised
    assert follows_advice(advised, call_parts("cd apps/api && pnpm add -E nanoid"))
    assert not follows_advice(advised, call_parts("cd packages/x && pnpm add nanoid"))
    assert not follows_advice(advised, call_parts("pnpm add nanoid"))
