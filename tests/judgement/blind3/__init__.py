"""The third blind split of the judgement corpus ("blind3"): five shapes, three agents,
one hundred incidents (twenty per shape; seven, seven and six per agent and shape) in
sixteen invented projects, weighted to what coding agents run every day: git, docker /
compose, kubectl / helm, pnpm / npm / yarn, python (pip, uv, poetry, pytest, alembic),
cargo, go, terraform, make, gh, aws / gcloud, psql / mysql / pg_restore, ansible, ssh /
scp / rsync and project shell scripts (``./deploy.sh``, ``./scripts/*.sh``), with a few
less common ones (gradle, dotnet, ruby / rails, php / composer, swift). The ecosystem
is the third dash-separated part of each id; none holds more than a tenth of the
incidents. Every project holds four to eight lessons, several about the same program
with another subcommand, target or flag, so a lesson must not hold another incident's
calls in its own project. Fixes add a flag, change a value or a path, drop a dangerous
flag, switch the subcommand or the program, add a step before (``cd …&&``, ``source
.env &&``, ``./bin/vpn up &&``, an env assignment), or change code (every test_fix
lesson is a code pattern, probed with Edit/Write calls that put it back in another
file). Plus 128 everyday calls in those projects.

Written by a helper session under strict rules: it was allowed to read only
``spec.py``, ``transcripts.py``, the module layout of ``blind2/__init__.py``, the
structure-only ``tests/test_judgement_blind2_shape.py`` and the issue text — never the
matcher, the hooks, the plugins, the benchmark, the harness, the mutator, the docs or
any other split's items — and it did not run twiceshy, the benchmark or the harness on
this split, so nothing here was shaped by how the matcher does.

The whole split is sealed: it is measured only in aggregate (figures per shape, per
agent and per probe kind); its items are not to be read one by one while tuning.

``load()`` returns a :class:`judgement.spec.Corpus` with every incident numbered
from ``FIRST`` (the number fixes its session id, clear of the other splits) and the
everyday calls. ``load("open")`` / ``load("sealed")`` return its two halves (every
other incident of each shape, every other everyday call), kept for the same layout as
the other splits; both halves stay sealed.
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix

FIRST = 6001


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
