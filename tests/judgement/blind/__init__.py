"""The blind split of the judgement corpus: five shapes, three agents, sixty
incidents in seventeen invented projects over many ecosystems (pnpm/yarn/bun,
uv/poetry/pip, cargo, go, gradle/maven, dotnet/nuget, bundler/rails, composer/
artisan, mix, swift/xcodebuild/cocoapods, flutter/dart, terraform, kubectl/helm,
docker compose, aws/gcloud, ansible, ssh/rsync, psql/mysql/redis-cli, make, dbt,
git), several projects holding four or five lessons each (different programs, and
the same program with another subcommand), plus everyday calls in those projects.

Written by a helper session that was allowed to read only ``spec.py``,
``transcripts.py``, the shape of ``fresh/__init__.py`` and issue 27 — never the
matcher, the hooks, the benchmark or any other split — and that did not run
twiceshy on it, so nothing here was shaped by how the matcher does.

``load()`` returns a :class:`judgement.spec.Corpus` with every incident numbered
from ``FIRST`` (the number fixes its session id) and the everyday calls.
``load("open")`` / ``load("sealed")`` return its two halves (every other incident of
each shape, every other everyday call): the open half is read to find what is wrong,
the sealed half only measured, in aggregate (``bench/judgement.py --split blind-sealed``).
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix

FIRST = 4001


HALVES = ("open", "sealed")


def load(half: str | None = None) -> Corpus:
    shapes = [error_fix.INCIDENTS, correction.INCIDENTS, marker.INCIDENTS, test_fix.INCIDENTS, retry.INCIDENTS]
    incidents = [inc for shape in shapes for inc in shape]
    for number, inc in enumerate(incidents, FIRST):
        inc.number = number  # over the whole split, so a half keeps each incident's session id
    calls = list(everyday.EVERYDAY)
    if half is None:
        return Corpus(incidents=incidents, everyday=calls)
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES}, not {half!r}")
    k = HALVES.index(half)
    return Corpus(incidents=[i for shape in shapes for i in shape[k::2]], everyday=calls[k::2])
