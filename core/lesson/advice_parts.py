"""What a taught lesson's advice tells a call to carry: the parts that make a call its fix.

A learned lesson stores the call that worked, so the fix guard
(:func:`twiceshy.recall.ranking.does_what_the_fix_adds`) knows what the fix added. A taught
lesson (``twiceshy learn "<advice>" --trigger "<mistake>"``) has only its advice: "jest's config
is config/jest.config.ts; run npm test -- <path>", "port-forward databases to another local
port (… svc/<db> 15432:5432)", "push images to europe-west1-docker.pkg.dev/quill-prod/app/<image>".
A call that carries a distinctive value the advice names, and the mistake lacks, does what the
advice says: it is the fix, never held by that lesson.

:func:`advised_parts` reads those values (memoised per text and trigger: the engine's guard
and the hold index ask for the same lesson); :func:`twiceshy.hooks.match.follows_advice` checks
a call against them on the hook path, stdlib only.
"""

from __future__ import annotations

import bisect
import functools
import re

from twiceshy.hooks.match import call_parts, norm_value

# A clause that names what is wrong ("never …", "don't …", "a bare …", "… without …").
_NEGATION_RE = re.compile(
    r"(?i)\b(?:never|don'?t|do\s+not|not|avoid|no|without|bare|plain|instead\s+of|rather\s+than)\b"
)
# A clause ends at a sentence or list mark, or a dash between words ("never X at the root —
# add it with Y": Y is not negated); "e.g." and "i.e." do not end one.
_CLAUSE_END_RE = re.compile(r"[.;!?]\s|[;:]\s|\n|\s[—–]\s")
_WORD_RE = re.compile(r"[^\s`'\"(),]+")
_PLACEHOLDER_TAIL_RE = re.compile(r"(?:<[^<>\s]*>|\{[^{}\s]*\}|\[[^\[\]\s]*\]|…|\.\.\.|\bX\b).*$")
_CD_BEFORE_RE = re.compile(r"(?i)\bcd\s+(?:in(?:to)?\s+|to\s+)?$")  # "cd into " just before a path
MIN_STEM = 8  # a placeholder's fixed part must say this much ("docker.pkg.dev/quill-prod/app/")


def _distinctive(word: str) -> bool:
    """A value that names one thing: a path, a host, an image, a port pair, a versioned name."""
    if len(word) < 5 or word.startswith("-"):
        return False
    return bool(re.search(r"[/.:=@]|\d", word)) and bool(re.search(r"[A-Za-z0-9]", word))


def _clause_starts(text: str) -> list[int]:
    """Where each clause of ``text`` starts, in order ("e.g." and "i.e." end none: they are
    read with their dot masked, which keeps every position)."""
    masked = re.sub(r"(?i)\b(e\.g|i\.e)\.", r"\1_", text)
    return [0, *(m.end() for m in _CLAUSE_END_RE.finditer(masked))]


def advised_parts(text: str, trigger: str) -> list[str]:
    """The distinctive values the advice ``text`` names outside a negated clause and the
    ``trigger`` (the mistake) lacks, as :func:`twiceshy.hooks.match.follows_advice` compares
    them: whole values, and ``stem*`` for a value with a placeholder (``…/app/<image>``)."""
    return list(_advised(text, trigger))


@functools.lru_cache(maxsize=4096)
def _advised(text: str, trigger: str) -> tuple[str, ...]:
    """:func:`advised_parts`, memoised: the engine's guard and the hold index ask for the same lessons."""
    if not text:
        return ()
    starts = _clause_starts(text)
    mistake_parts = call_parts(trigger) if trigger and "\n" not in trigger.strip() else set()
    mistake_words = {norm_value(w) for w in _WORD_RE.findall(trigger or "")} | {
        p.split("=", 1)[1] for p in mistake_parts if p.startswith("-") and "=" in p
    }
    out: list[str] = []
    for m in _WORD_RE.finditer(text):
        word = m.group(0).rstrip(".:;")
        if "=" in word and word.startswith("-"):
            word = word.split("=", 1)[1]
        stem = _PLACEHOLDER_TAIL_RE.sub("", word)
        value = norm_value(word) if stem == word else stem
        if not value or value in mistake_words or value in (trigger or ""):
            continue
        clause = text[starts[bisect.bisect_right(starts, m.start()) - 1] : m.start()]
        if _CD_BEFORE_RE.search(clause) and "/" in value and not _NEGATION_RE.search(clause):
            # "or cd into apps/<pkg> first": moving into such a directory is the fix (a ``cd:`` part).
            item = "cd:" + value.lower().rstrip("/") + ("/*" if stem != word else "")
            if item not in out:
                out.append(item)
            continue
        if stem != word and len(stem) < MIN_STEM:
            continue
        if not _distinctive(value) or _NEGATION_RE.search(clause):
            continue
        item = value if stem == word else value + "*"
        if item not in out:
            out.append(item)
    return tuple(out[:12])
