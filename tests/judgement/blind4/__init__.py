"""The fourth blind split of the judgement corpus ("blind4"): five shapes, three agents,
one hundred incidents (twenty per shape; seven, seven and six per agent and shape) in
sixteen invented projects of five to seven incidents each, weighted to what coding agents
run every day: git, docker / compose, kubectl / helm, pnpm / npm, python (pip, uv,
pytest, alembic), cargo, go, terraform, make, gh, aws / gcloud / az / wrangler, psql /
pg_restore, ansible, ssh / rsync and project scripts (``./scripts/*.sh``), with some less
common ones (maven / gradle, dotnet, rails / bundle, php / composer / artisan, flutter,
deno, bazel, dbt). The ecosystem is the third dash-separated part of each id
(``b4-<shape>-<ecosystem>-<nn>``); there are more than twenty of them and none holds more
than a tenth of the incidents. Several lessons in one project are about the same program
with another subcommand, target or flag, so a lesson must not hold another incident's
calls in its own project. Fixes add a flag, change a value or a path, drop a dangerous
flag, switch the subcommand or the program, add a step before (``cd …&&``, ``source …
&&``, ``make stack-up &&``, an env assignment) or change code (every test_fix lesson is a
code pattern, its taught trigger a line of code, probed with Edit/Write calls that put it
back in another file of the same language with other names, next to edits that are
fine). Marker lines are GOTCHA / LEARNING / PATTERN / FINDING / DECISION in varied
wordings. Plus 132 everyday calls in those projects that no lesson should hold.

Written by a helper session under strict rules: it was allowed to read only ``spec.py``,
``transcripts.py``, the module layout of ``blind3/__init__.py``, the structure-only
``tests/test_judgement_blind3_shape.py`` and the first lines of one blind3 module for the
header style — never the matcher, the hooks, the plugins, the benchmark, the harness,
the mutator, the docs or any other split's items — and it did not run twiceshy, the
benchmark or the harness on this split, so nothing here was shaped by how the matcher
does. Probes are what a careful human reviewer who watched session 1 expects.

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

FIRST = 7001


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
