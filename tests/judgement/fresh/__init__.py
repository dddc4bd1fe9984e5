"""The fresh split of the judgement corpus: five shapes, three agents, new
projects in ecosystems the other splits use little (terraform, kubectl/helm,
compose, cargo, go, maven, dotnet, uv, pnpm, rails, mix, psql/mysql, aws/gcloud/az,
make, project scripts, rsync/ssh, git), plus everyday calls — written by someone
who had read neither the matcher nor the tuning and sealed splits, to see how the
matcher does on incidents it was never tuned on.

``load()`` returns a :class:`judgement.spec.Corpus` with every incident numbered
from ``FIRST`` (the number fixes its session id) and the everyday calls.
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix

FIRST = 3001


def load() -> Corpus:
    incidents = [*error_fix.INCIDENTS, *correction.INCIDENTS, *marker.INCIDENTS, *test_fix.INCIDENTS, *retry.INCIDENTS]
    for number, inc in enumerate(incidents, FIRST):
        inc.number = number
    return Corpus(incidents=incidents, everyday=list(everyday.EVERYDAY))
