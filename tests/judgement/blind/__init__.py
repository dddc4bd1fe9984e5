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
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix

FIRST = 4001


def load() -> Corpus:
    incidents = [*error_fix.INCIDENTS, *correction.INCIDENTS, *marker.INCIDENTS, *test_fix.INCIDENTS, *retry.INCIDENTS]
    for number, inc in enumerate(incidents, FIRST):
        inc.number = number
    return Corpus(incidents=incidents, everyday=list(everyday.EVERYDAY))
