"""The fifth blind split of the judgement corpus ("blind5"): five shapes, three agents,
one hundred incidents (twenty per shape; seven, seven and six per agent and shape) in
sixteen invented projects of six or seven incidents each, spread over what coding agents
run every day and some less common tools: git, docker / compose, kubectl / helm, pnpm /
npx / bun / vercel / vitest / playwright, python (uv, poetry, pytest), cargo / cross, go,
terraform, gh, aws / gcloud / bq / az, psql / pg_restore / mysql / redis-cli / sqlcmd,
ansible, ssh / rsync / scp, project scripts (``./scripts/*.sh``, ``./vendor/bin/sail``),
gradle, dotnet, rails / bundle, composer / artisan, mix / flyctl, swift / xcodebuild /
simctl / fastlane, sbt, nix, pulumi and prisma. The ecosystem is the third dash-separated
part of each id (``b5-<shape>-<ecosystem>-<nn>``); there are more than twenty of them and
none holds more than a tenth of the incidents.

It stresses where a matcher goes wrong. Every command lesson's must-stay-silent probes
carry the session's own fix and, where natural, another valid correction (an env var for
a flag, a config file, the flag's short form or another value, the project's wrapper
script, a step before or after); related calls of the same program and subcommand with
unrelated arguments; and ``--help`` / ``help <sub>`` / ``-h`` probes. Its must-warn
probes repeat the mistake in other words (flags reordered, short for long forms,
``--flag=value`` for ``--flag value``, other quoting, another path, package, host or
value, ``sudo`` or an env prefix). Several lessons in one project are about the same
program with another subcommand, target or flag, so a lesson must not hold another
incident's calls in its own project. Fixes add a flag, change a value, drop a dangerous
flag, switch the subcommand or the program, add a step before (``cd …&&``, ``source …
&&``, an env assignment) or after, or change code (every test_fix lesson is a code
pattern, its taught trigger a line of code, probed with Edit/Write calls that put it back
in another file of the same language with other names, next to edits that are fine and
edits that merely look alike). Marker lines are GOTCHA / LEARNING / PATTERN / NOTE / TIL
in the agent's own words, some quoting the command in backticks, some in prose, some after
a failing call and some from a doc or a dry run. Plus 132 everyday calls in those
projects that no lesson should hold.

Written by a helper session under strict rules: it was allowed to read only ``spec.py``,
``transcripts.py``, the module layout of ``blind4/__init__.py``, the structure-only
``tests/test_judgement_blind4_shape.py`` and the readable splits' items (``dev``,
``fresh``) for format and style — never the matcher, the hooks, the plugins, the
benchmark, the harness, the mutator, the docs or any sealed or blind split's items — and
it did not run twiceshy, the benchmark or the harness on this split, so nothing here was
shaped by how the matcher does. Probes are what a careful human reviewer who watched
session 1 expects.

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

FIRST = 8001


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
