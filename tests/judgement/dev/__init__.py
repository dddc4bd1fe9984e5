"""The dev split of the judgement corpus: five shapes, three agents, eleven new
projects, plus everyday calls — written independently of the tuning split
(``judgement.corpus``) and of the sealed split.

``load()`` returns a :class:`judgement.spec.Corpus` with every incident numbered
from ``FIRST`` (the number fixes its session id) and the everyday calls.
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix

FIRST = 2001


def load() -> Corpus:
    incidents = [*error_fix.INCIDENTS, *correction.INCIDENTS, *marker.INCIDENTS, *test_fix.INCIDENTS, *retry.INCIDENTS]
    for number, inc in enumerate(incidents, FIRST):
        inc.number = number
    return Corpus(incidents=incidents, everyday=list(everyday.EVERYDAY))
