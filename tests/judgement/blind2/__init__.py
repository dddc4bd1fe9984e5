"""The second blind split of the judgement corpus ("blind2"): five shapes, three agents,
sixty incidents (twelve per shape, four per agent and shape) in fifteen invented
projects, over ecosystems the other splits barely touch: nix / nixos-rebuild /
launchctl, bazel + go, deno + supabase, elixir (mix, iex) + fly, R (R CMD, Rscript,
renv) + julia, ocaml (dune, opam), haskell (stack, cabal), scala (sbt) + kafka CLIs,
clojure (lein) + liquibase, zig + cmake / conan / ctest, podman / nomad / vault /
restic / journalctl, pulumi / az / gh, npm workspaces / prisma / vitest / playwright,
alembic / pytest / sqlite3 / pre-commit, mongosh / sops / age. Most projects hold three
to five lessons, several of them about the same program with another subcommand or
flag, so a lesson must not hold another incident's calls in its own project. Fixes add
a flag, change a value or a path, switch the subcommand or the program, add a step
before (``cd …&&``, ``source …;``, ``export …;``, ``./bin/vpn up &&``, an env
assignment), drop a dangerous flag, or change code (every test_fix lesson is a code
pattern, probed with Edit/Write calls that put it back in another file). Plus ~125
everyday calls in those projects.

Written by a helper session under strict rules: it was allowed to read only
``spec.py``, ``transcripts.py``, the module layout of ``blind/__init__.py`` and
issue 27 — never the matcher, the hooks, the plugins, the benchmark, the harness, the
mutator or any other split's items — and it did not run twiceshy or the benchmark on
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

FIRST = 5001


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
