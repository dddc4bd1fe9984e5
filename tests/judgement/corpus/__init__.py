"""The incident corpus: five shapes, three agents, eleven projects, plus everyday calls.

``load()`` returns a :class:`judgement.spec.Corpus` with every incident numbered
(the number fixes its session id) and the everyday calls.
"""

from __future__ import annotations

from ..spec import Corpus
from . import correction, error_fix, everyday, marker, retry, test_fix


def load() -> Corpus:
    incidents = [*error_fix.INCIDENTS, *correction.INCIDENTS, *marker.INCIDENTS, *test_fix.INCIDENTS, *retry.INCIDENTS]
    for number, inc in enumerate(incidents, 1):
        inc.number = number
    return Corpus(incidents=incidents, everyday=list(everyday.EVERYDAY))
