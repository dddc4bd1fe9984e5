"""The sealed split: an independently written held-out set (five shapes, the same format as the tuning corpus).

``load()`` returns a :class:`judgement.spec.Corpus` with every sealed incident numbered from ``FIRST`` (the number
fixes the session id, so sealed session ids never collide with the tuning corpus's, numbered from 1) and the sealed
everyday calls.
"""

from __future__ import annotations

from ..spec import Corpus
from . import (
    correction_a,
    correction_b,
    error_fix_a,
    error_fix_b,
    everyday,
    marker_a,
    marker_b,
    retry_a,
    retry_b,
    test_fix_a,
    test_fix_b,
)

FIRST = 1001  # the tuning corpus numbers its incidents 1..N with N well below this


def load() -> Corpus:
    incidents = [
        *error_fix_a.INCIDENTS,
        *error_fix_b.INCIDENTS,
        *correction_a.INCIDENTS,
        *correction_b.INCIDENTS,
        *marker_a.INCIDENTS,
        *marker_b.INCIDENTS,
        *test_fix_a.INCIDENTS,
        *test_fix_b.INCIDENTS,
        *retry_a.INCIDENTS,
        *retry_b.INCIDENTS,
    ]
    for number, inc in enumerate(incidents, FIRST):
        inc.number = number
    return Corpus(incidents=incidents, everyday=list(everyday.EVERYDAY))
