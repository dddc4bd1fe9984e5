"""Other words for the same call: each shell probe of a corpus rewritten the way an agent
writes the same command another time, to see whether an answer depends on the surface.

``mutated(corpus)`` keeps every incident and its session (so the same lessons are learned)
and replaces each shell probe by a rewrite that means the same to the program:

* ``--flag=value`` -> ``--flag value``, and back when the word after a long option is
  plainly its value (a path, a number; ``--install x`` may be a switch and an operand);
* two neighbouring option groups after the subcommand swapped (``-n ns --context c`` ->
  ``--context c -n ns``), never across an operand, ``--`` or a pipe;
* single quotes around a word with no ``$`` or backslash become double quotes.

A probe none of these applies to stays as written. The kinds stay: a rewritten fix must
still pass, a rewritten repeat must still be held. Edits are left alone.
"""

from __future__ import annotations

import dataclasses
import re
import shlex

from .spec import Corpus, Incident, Probe

_LONG_EQ_RE = re.compile(r"^(--[A-Za-z][\w-]*)=(.+)$")
_SHELL_OPS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1"}


def _words(command: str) -> list[str] | None:
    try:
        lexer = shlex.shlex(command, posix=False, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def _equals_form(words: list[str]) -> list[str]:
    """Flip the first long option's form: ``--a b`` -> ``--a=b``, ``--a=b`` -> ``--a b``."""
    for i, word in enumerate(words):
        m = _LONG_EQ_RE.match(word)
        if m and "'" not in word and '"' not in word:
            return [*words[:i], m.group(1), m.group(2), *words[i + 1 :]]
        if (
            word.startswith("--")
            and "=" not in word
            and len(word) > 2
            and i + 1 < len(words)
            and not words[i + 1].startswith("-")
            and words[i + 1] not in _SHELL_OPS
            and re.search(r"[/.=:0-9]", words[i + 1])  # a value, not an operand after a switch (--install x)
            and i > 1
        ):
            return [*words[:i], f"{word}={words[i + 1]}", *words[i + 2 :]]
    return words


def _groups(words: list[str], start: int) -> list[tuple[int, int]]:
    """Option groups (flag, or flag and its value) from ``start`` on, up to the first
    operand, ``--`` or shell operator: (begin, end) index pairs."""
    out = []
    i = start
    while i < len(words):
        word = words[i]
        if word == "--" or word in _SHELL_OPS or not word.startswith("-"):
            break
        end = i + 1
        if "=" not in word and end < len(words) and not words[end].startswith("-") and words[end] not in _SHELL_OPS:
            end += 1  # a value (or an operand: then the swap still keeps the pair together)
        out.append((i, end))
        i = end
    return out


def _swapped(words: list[str]) -> list[str]:
    """Swap the first two neighbouring option groups after the program and its subcommand."""
    for start in range(1, min(len(words), 4)):
        if not words[start].startswith("-"):
            continue
        groups = _groups(words, start)
        if len(groups) >= 2:
            (a0, a1), (b0, b1) = groups[0], groups[1]
            return [*words[:a0], *words[b0:b1], *words[a0:a1], *words[b1:]]
        return words
    return words


def _requoted(words: list[str]) -> list[str]:
    for i, word in enumerate(words):
        if len(word) > 2 and word[0] == word[-1] == "'" and not re.search(r"[$\\\"`!]", word):
            return [*words[:i], '"' + word[1:-1] + '"', *words[i + 1 :]]
    return words


def rewrite(command: str) -> str:
    """The same call in other words, or ``command`` when no rewrite applies."""
    words = _words(command)
    if not words or any(w in ("$(", "`") for w in words) or "<<" in command:
        return command
    out = _requoted(_swapped(_equals_form(words)))
    return " ".join(out) if out != words else command


def _mutated_probe(probe: Probe) -> Probe:
    if not isinstance(probe.action, str):
        return probe
    return dataclasses.replace(probe, action=rewrite(probe.action))


def mutated(corpus: Corpus) -> Corpus:
    """``corpus`` with every shell probe in other words (see the module docstring)."""
    incidents: list[Incident] = [
        dataclasses.replace(
            inc, warn=[_mutated_probe(p) for p in inc.warn], silent=[_mutated_probe(p) for p in inc.silent]
        )
        for inc in corpus.incidents
    ]
    return Corpus(incidents=incidents, everyday=list(corpus.everyday))
