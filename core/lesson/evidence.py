"""Evidence is not advice: what a tool printed may be kept, never repeated to the agent.

A lesson learned from a failing call has two parts of different trust:

* the **calls** (the failing command, the fix) and the user's and the
  assistant's own words — what the agent did or was told; these may become
  the lesson's text;
* the **output** (error lines, test output, file content) — what a tool
  printed. Anyone who controls a repository, a package index or a web page
  controls that text, so it is *evidence*: stored redacted in the lesson's
  ``structured["why"]``, shown to the user by ``twiceshy show``, never put in
  a lesson's text, a hold reason or a context block.

The one thing of the output that reaches the model is its *error kind*
(:func:`error_kind`): a label from the closed list :data:`KINDS` that twiceshy
wrote ("command not found", "missing required flag", "exit 127"), whose only
slot — a flag, program, module or path — is filled with a word that also
appears in one of the calls, and is dropped otherwise. No word the output
alone contains can pass: the check is on where a word came from, not on what
it says, so a new wording of an injected instruction gets no further than the
old one.

:func:`advice_text` is the same rule at render time, for lessons stored
before it (their text quoted the error line verbatim): a span of the text
that is the lesson's own evidence is replaced by its kind, and the text is
flattened to one line so it cannot open a heading of its own.

Standard library only (the rules snapshot and the hook path import it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Lessons of these kinds quote a tool's output as their ``why``; the others
# (a correction, a marker, a hand-taught lesson) carry the user's or the
# assistant's words there.
OUTPUT_KINDS = frozenset({"error_fix", "retry_loop", "test_fix"})

_EXIT_RE = re.compile(
    r"(?i)\b(?:exit(?:ed)?\s*(?:with\s+)?(?:code|status)?|non-zero exit status)[:\s]+([1-9]\d{0,2})\b"
)
_FLAG_RE = r"(--?[A-Za-z][\w-]{0,40})"
_WORD_RE = re.compile(r"[\w./@+-]+")
_QUOTED = r"['\"`‘’“”]?"

# Python and JavaScript's own exception names: a name outside this list is a
# word of the output, not a kind ("PleaseRunSudoError").
EXCEPTIONS = frozenset(
    """ArithmeticError AssertionError AttributeError BlockingIOError BrokenPipeError BufferError
    ConnectionAbortedError ConnectionError ConnectionRefusedError ConnectionResetError EOFError
    FileExistsError FileNotFoundError FloatingPointError ImportError IndentationError IndexError
    InterruptedError IsADirectoryError KeyError LookupError MemoryError ModuleNotFoundError NameError
    NotADirectoryError NotImplementedError OSError OverflowError PermissionError ProcessLookupError
    RangeError RecursionError ReferenceError RuntimeError StopIteration SyntaxError SystemError TabError
    TimeoutError TypeError UnboundLocalError UnicodeDecodeError UnicodeEncodeError UnicodeError ValueError
    ZeroDivisionError JSONDecodeError CalledProcessError IntegrityError OperationalError ProgrammingError
    DoesNotExist ValidationError""".split()
)

# (pattern, label, slot): the label is twiceshy's; the slot, when the pattern
# captures one, is kept only if a call contains it. First match wins, in order.
KINDS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern, re.I), label, slot)
    for pattern, label, slot in (
        (r"externally[- ]managed[- ]environment", "externally-managed-environment (PEP 668)", ""),
        (r"(?:existing|no|missing|without)\s+(?:a\s+)?(?:package-lock\.json|npm-shrinkwrap\.json|lock\s?file|yarn\.lock|"
         r"pnpm-lock\.yaml|poetry\.lock|cargo\.lock|uv\.lock)", "no lock file", ""),
        (rf"(?:missing|required)\s+(?:required\s+)?(?:flag|option|argument|parameter)s?[\s:=]+{_QUOTED}{_FLAG_RE}",
         "missing required flag", "flag"),
        (rf"{_QUOTED}{_FLAG_RE}{_QUOTED}\s+(?:is\s+)?required", "missing required flag", "flag"),
        (rf"(?:missing|required)[\s:=]+{_QUOTED}(--[A-Za-z][\w-]{{0,40}})", "missing required flag", "flag"),
        (r"(?:missing|required)\s+(?:required\s+)?(?:flag|option|argument|parameter)", "missing required flag", ""),
        (rf"(?:unknown|unrecognized|unrecognised|invalid|unexpected|no such)\s+(?:flag|option|argument)s?[\s:=]+"
         rf"{_QUOTED}{_FLAG_RE}", "unknown flag", "flag"),
        (r"(?:unknown|unrecognized|unrecognised|invalid|unexpected|no such)\s+(?:flag|option|argument)",
         "unknown flag", ""),
        (r"(?:^|\s)([\w./+-]+):\s*(?:command )?not found\b", "command not found", "program"),
        (r"command not found|is not recognized as an internal or external command|exit (?:code|status) 127",
         "command not found", ""),
        (r"no module named\s+['\"]?([\w.]+)", "module not found", "module"),
        (r"cannot find module\s+['\"]([^'\"\s]+)", "module not found", "module"),
        (r"modulenotfounderror|cannot find module|could not find a version that satisfies", "module not found", ""),
        (r"(?:^|\s)(\S+):\s*no such file or directory", "no such file or directory", "path"),
        (r"no such file or directory|enoent|does not exist", "no such file or directory", ""),
        (r"permission denied|eacces|operation not permitted|eperm", "permission denied", ""),
        (r"non-fast-forward|\[rejected\]|updates were rejected", "push rejected (non-fast-forward)", ""),
        (r"merge conflict|conflict \(content\)|automatic merge failed", "merge conflict", ""),
        (r"authentication failed|unauthori[sz]ed|\b401\b|\b403\b|forbidden|invalid credentials",
         "authentication failed", ""),
        (r"connection refused|econnrefused|could not connect|failed to connect", "connection refused", ""),
        (r"could not resolve host|name or service not known|getaddrinfo|enotfound", "host not found", ""),
        (r"timed out|timeout|etimedout", "timed out", ""),
        (r"already (?:allocated|in use)|eaddrinuse|address in use", "already in use", ""),
    )
)  # fmt: skip

# After the exception names: kinds that say less than a named exception.
GENERIC: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern, re.I), label, slot)
    for pattern, label, slot in (
        (r"\berror\s+ts\d{3,5}\b", "type check failed", ""),
        (r"syntax\s*error|unexpected token|parse error", "syntax error", ""),
        (r"\b(\d+)\s+(?:failed|failing|failures?)\b|\bFAIL(?:ED)?\b|tests? failed", "tests failed", ""),
        (r"\bconflict\b", "conflict", ""),
        (r"out of memory|\bkilled\b|\boom\b", "out of memory", ""),
        (r"\bnot found\b|\b404\b", "not found", ""),
    )
)  # fmt: skip

_EXCEPTION_RE = re.compile(r"\b([A-Z][A-Za-z]{2,40}(?:Error|Exception|DoesNotExist))\b")


def _call_words(calls: Iterable[str]) -> set[str]:
    """Every word of the calls, with ``--flag=value`` also as ``--flag``."""
    out: set[str] = set()
    for call in calls:
        for word in _WORD_RE.findall(call or ""):
            out.add(word.lower())
            if "=" in word:
                out.add(word.split("=", 1)[0].lower())
            out.add(word.rsplit("/", 1)[-1].lower())
    return out


def error_kind(output: str, calls: Iterable[str] = ()) -> str:
    """The recognised kind of a failure's ``output``, in twiceshy's words.

    ``calls`` are the commands (or edits) of the story — the failing call and
    its fix: a label's slot (``missing required flag --region``) is filled
    only with a word one of them contains. An exit code is a number, kept.
    Returns ``""`` when nothing is recognised: the text then says only that
    the call failed."""
    text = (output or "")[:20_000]
    if text.strip().lower().startswith("the user doesn't want to proceed with this tool use"):
        return "rejected by the user"
    known = _call_words(calls)
    exit_code = ""
    found = _EXIT_RE.search(text)
    if found:
        exit_code = f"exit {int(found.group(1))}"
    for pattern, label, slot in KINDS:
        hit = pattern.search(text)
        if hit is None:
            continue
        if slot and hit.groups():
            word = (hit.group(1) or "").strip("'\"`:,.;()[]")
            if word and word.lower() in known and word.strip("-"):
                label = f"{label} {word}" if slot == "flag" else f"{label}: {word}"
        return f"{exit_code}: {label}" if exit_code else label
    exc = next((m.group(1) for m in _EXCEPTION_RE.finditer(text) if m.group(1) in EXCEPTIONS), "")
    generic = next((label for pattern, label, _ in GENERIC if pattern.search(text)), "")
    if exc:
        label = f"{generic}: {exc}" if generic == "tests failed" else exc
    else:
        label = generic
    if not label:
        return exit_code
    return f"{exit_code}: {label}" if exit_code else label


def _flat(text: str) -> str:
    """One line: newlines and runs of blanks become one space."""
    return " ".join((text or "").split())


def advice_text(text: str, structured: dict[str, Any] | None = None, kind: str = "") -> str:
    """A lesson's text as it may reach the agent: on one line, and without its
    own evidence — a span that is the tool output this lesson quotes as its
    ``why`` (lessons stored before :func:`error_kind` existed) is replaced by
    the kind of that output."""
    flat = _flat(text)
    if not isinstance(structured, dict):
        return flat
    evidence = structured.get("evidence") if isinstance(structured.get("evidence"), dict) else {}
    lesson_kind = str((evidence or {}).get("kind") or kind or "")
    why = structured.get("why")
    if lesson_kind not in OUTPUT_KINDS or not isinstance(why, str) or len(why.strip()) < 4:
        return flat
    why = _flat(why)
    calls = [_call_of(structured.get("mistake")), _call_of(structured.get("fix"))]
    label = error_kind(why, calls)
    for quoted in dict.fromkeys((why, _shortened(why, 160), _shortened(why, 300))):
        if quoted and quoted in flat:
            flat = flat.replace(f" ({quoted})", f" ({label})" if label else "")
            return _flat(flat.replace(f"({quoted})", f"({label})" if label else "").replace(quoted, label))
    head = why[:40]
    if len(head) >= 12 and head in flat:  # quoted after another cut: drop from its start to the close
        start = flat.index(head)
        end = flat.find(")", start)
        end = len(flat) if end < 0 else end
        return _flat(flat[:start] + label + flat[end:])
    return flat


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_of(part: Any) -> str:
    if not isinstance(part, dict):
        return ""
    return " ".join(str(part.get(k) or "") for k in ("command", "call", "path", "code"))


def lesson_advice(exp: Any) -> str:
    """:func:`advice_text` of an :class:`~twiceshy.base.types.Experience` (or anything with
    ``text``, ``structured`` and ``kind``)."""
    structured = getattr(exp, "structured", None)
    return advice_text(
        str(getattr(exp, "text", "") or ""),
        structured if isinstance(structured, dict) else None,
        str(getattr(exp, "kind", "") or ""),
    )


__all__ = ["EXCEPTIONS", "GENERIC", "KINDS", "OUTPUT_KINDS", "advice_text", "error_kind", "lesson_advice"]
