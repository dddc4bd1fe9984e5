"""Reading a lesson's advice for the calls it names: which mention is the
mistake and which is the advised fix, and what a placeholder stands for.

A taught lesson (``twiceshy learn "<advice>" --trigger "<mistake>"``) and a
marker line say things like "./gradlew test --tests X fails in :common; run
./gradlew :app:test --tests X" or "a bare dotnet test fails with MSB1011". A
call the sentence says *fails* (or calls *bare*) is the mistake being
described, never the fix; ``X``, ``<path>`` and ``…`` stand for whatever the
mistake had there.

Standard library only: :mod:`twiceshy.lesson.signature` imports this.
"""

from __future__ import annotations

import re

# Right after a call: the sentence says it goes wrong ("… fails", "… can't parse", "… dies on").
_FAILS_AFTER = re.compile(
    r"^[`'\"]?\s*(?:\([^()]{0,40}\)\s*)?(?:also\s+|still\s+|just\s+|always\s+|then\s+)?"
    r"(?:fails?|failed|failing|dies|died|breaks|broke|errors?(?:\s+out)?|errored|crashes|crashed|hangs|hung"
    r"|can'?t|cannot|couldn'?t|doesn'?t|does\s+not|won'?t|will\s+not|isn'?t|is\s+not|is\s+refused|gets\s+refused"
    r"|was\s+refused|times\s+out|timed\s+out|exits?\s+(?:with\s+)?(?:non-?zero|1|an?\s+error)"
    r"|returns?\s+(?:an?\s+)?(?:error|40\d|50\d)|answers\s+40\d|picks\s+up\s+the\s+wrong|uses\s+the\s+wrong)\b",
    re.I,
)
# Right before a call: it is named as the wrong way ("a bare dotnet test", "plain pip").
_BARE_BEFORE = re.compile(r"(?i)\b(?:bare|plain|naked|unqualified|the\s+system)\s*[`'\"]?\s*$")

# A word that stands for "whatever goes here": X, <path>, {name}, [args], …, ...
_PLACEHOLDER_RE = re.compile(r"^(?:<[^<>\s]{1,40}>|\{[^{}\s]{1,40}\}|\[[^\[\]\s]{1,40}\]|[XYZN]|\.\.\.|…)$")


def is_placeholder(word: str) -> bool:
    return bool(_PLACEHOLDER_RE.match(word.strip("'\"`")))


def named_as_mistake(text: str, start: int, end: int) -> bool:
    """Does the sentence name ``text[start:end]`` (a call) as what goes wrong:
    "X fails …", "X can't …", "a bare X …"?"""
    return bool(_FAILS_AFTER.match(text[end : end + 80]) or _BARE_BEFORE.search(text[max(0, start - 30) : start]))


def fill_placeholders(fix: list[str], operands: list[str], flag_value: dict[str, str]) -> list[str] | None:
    """The advised call's words with each placeholder replaced by what the
    mistake had there: a flag's value by the mistake's value of that flag, an
    operand by the first of the mistake's ``operands`` the fix does not already have;
    dropped when the mistake has nothing there. None when the fix has no
    placeholder (nothing to fill)."""
    if not any(is_placeholder(w) for w in fix):
        return None
    spare = [w for w in operands if w not in fix]
    out: list[str] = []
    for k, word in enumerate(fix):
        if not is_placeholder(word):
            flag, eq, value = word.partition("=")
            if eq and flag.startswith("-") and is_placeholder(value):
                if flag in flag_value:
                    out.append(f"{flag}={flag_value[flag]}")
                continue
            out.append(word)
            continue
        prev = fix[k - 1] if k else ""
        if prev.startswith("-") and prev != "--" and "=" not in prev:
            if prev in flag_value:
                out.append(flag_value[prev])
            continue  # the mistake has no such flag: the fix adds it, whatever its value
        if spare:
            out.append(spare.pop(0))
    return out
