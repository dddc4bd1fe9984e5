"""Taught code lessons in other words: the trigger's shape with the reader's names left out.

``twiceshy learn "never compare Java Strings with ==; use \\"X\\".equals(v)" --trigger
'if (sub.getPlan().getCode() == "ENTERPRISE")'``: the trigger is one instance. What makes it the
mistake is what the advice names (``==``), not ``sub``, ``getPlan`` or ``"ENTERPRISE"`` — those are
the reader's. The same mistake comes back as ``if (user.getRole() == "ADMIN")`` in another file.

:func:`shape_pattern` keeps the trigger's *anchors* — names the advice mentions outside the form
it advises (``to_atom``, ``getDay``, ``split``), and operators it names (``==``, ``<``, a plain
``-``) — each with the one token around it that gives it its shape (a member access before a
name, the operand an operator works on, the ``(`` of a call, a literal the advice quotes), and
lets anything on the same statement sit between two anchors. Every other name becomes ``\\w+``,
a literal the advice does not quote any literal of its kind. The pattern must match the trigger and
none of the code the advice recommends; else there is none.

Standard library only; nothing here knows a corpus.
"""

from __future__ import annotations

import functools
import re

from twiceshy.lesson.code_tokens import IDENT_RE, KEYWORDS, code_tokens, compiles

# A cue that what follows is the advised form ("use getDate()", "instead, call …").
_ADVISED_CUE_RE = re.compile(r"(?i)\b(?:use|using|call|prefer|instead|replace\s+\w+\s+with|pass|add)\b")
_NEGATION_RE = re.compile(r"(?i)\b(?:never|not|no|don'?t|avoid|without)\b")
_INSTEAD_OF_RE = re.compile(r"(?i)(\binstead\s+of\b|\brather\s+than\b)")
_CLAUSE_END_RE = re.compile(r"[;!?\n—–]|\.(?:\s|$)|,\s")
# Operators an advice can name ("compare with < or >", "a plain -", "== None").
_OPERATORS = {"==", "!=", "===", "!==", "<", ">", "<=", ">=", "-", "+", "*", "/", "%", "+=", "-=", "=~"}
_COMPARISONS = {"<", ">", "<=", ">="}
_EQUALITY = {"==", "!=", "===", "!=="}
# Between two anchors of one statement: anything but a statement's end.
_GAP = r"[^;{}\n]{0,80}?"
# Words of prose a trigger may carry after its code ("… inside async def", "…, then res.json()").
_PROSE_TAIL_RE = re.compile(r"(?i)\s(?:inside|within|in\s+an?|then|before|after|without|when|while|because)\s")


def _quoted(tok: str) -> bool:
    return tok[:1] in "\"'`"


def _literal_body(tok: str) -> str:
    return tok[1:-1] if len(tok) >= 2 else tok


@functools.lru_cache(maxsize=1024)
def _advice_regions(text: str) -> tuple[str, str]:
    """(what the advice says not to do or describes, what it advises): a clause after a cue
    such as "use" with no negation before the cue is advised; everything else is described.
    Memoised: a lesson's shape and its fix names read the same advice."""
    described: list[str] = []
    advised: list[str] = []
    for clause in _CLAUSE_END_RE.split(text or ""):
        if not clause:
            continue
        # "use X instead of Y", "X rather than Y": Y is the mistake described.
        head, _cue, instead_of = (_INSTEAD_OF_RE.split(clause, maxsplit=1) + ["", ""])[:3]
        clause = head
        described.append(instead_of)
        cue = _ADVISED_CUE_RE.search(clause)
        if cue and not _NEGATION_RE.search(clause[: cue.start()]):
            described.append(clause[: cue.start()])
            advised.append(clause[cue.end() :])
        else:
            described.append(clause)
    return " ".join(described), " ".join(advised)


def _operators_named(text: str) -> set[str]:
    """Operators the advice writes as themselves ("with < or >", "a plain -", "with == None")."""
    found = set()
    for m in re.finditer(
        r"(?<![\w\-<>=!+*/%])(===|!==|==|!=|<=|>=|=~|\+=|-=|<|>|-|\+|\*|/|%)(?![\w\-<>=!+*/%])", text or ""
    ):
        found.add(m.group(1))
    return found


def _token_regex(tok: str, quoted_in_advice: set[str]) -> str:
    if _quoted(tok):
        body = _literal_body(tok)
        if body in quoted_in_advice:  # split('\n'): the literal is the mistake, in either quote
            return r"['\"]" + re.escape(body) + r"['\"]"
        return r"(?:'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`[^`\n]*`)"
    if tok[:1].isdigit():
        return r"\d[\w.]*"
    if IDENT_RE.match(tok):
        return r"\b" + re.escape(tok) + r"\b" if tok in KEYWORDS else r"\w+"
    return re.escape(tok)


def shape_pattern(code: str, text: str) -> tuple[str, str] | None:
    """(regex, label) for the mistake a taught code trigger shows, with the reader's names left
    out; None when the advice names nothing in it or the pattern would hold the advised code."""
    code = (code or "").strip()
    if not code or not text or _PROSE_TAIL_RE.search(code):
        # "defer x.Close() before if err != nil", "time.sleep() inside async def": the mistake
        # is an order or a context the trigger's words describe, not a shape of one line.
        return None
    lines = [ln.strip() for ln in code.splitlines() if ln.strip()]
    described, advised = _advice_regions(text)
    operators = _operators_named(described) & _OPERATORS
    quoted_in_advice = {_literal_body(t) for t in code_tokens(text) if _quoted(t) and 0 < len(_literal_body(t)) <= 6}
    best: tuple[int, str, str] | None = None
    for line in lines:
        toks = code_tokens(line)[:40]
        anchors = []
        for k, tok in enumerate(toks):
            if IDENT_RE.match(tok):
                if tok in KEYWORDS or len(tok) < 3 or tok.lower() in _COMMON_WORDS:
                    continue
                if _code_named(tok, described) or (_code_named(tok, advised) and tok not in _advised_names(advised)):
                    anchors.append(k)
            elif tok in operators:
                anchors.append(k)
        if not anchors:
            continue
        pattern, label, weight = _around(toks, anchors, operators, quoted_in_advice)
        if best is None or weight > best[0]:
            best = (weight, pattern, label)
    if best is None:
        return None
    _weight, pattern, label = best
    rx = compiles(pattern)
    if rx is None or not rx.search(code):
        return None
    for fragment in _advised_code(advised):
        if rx.search(fragment):
            return None  # the advised form has it too: not what was wrong
    return pattern, label[:80]


# Words an advice uses as prose that are also common names in code.
_COMMON_WORDS = {
    "the", "and", "for", "with", "value", "values", "name", "names", "string", "strings", "list", "map", "key",
    "type", "data", "file", "path", "time", "date", "item", "items", "result", "error", "err", "text", "line",
}  # fmt: skip


def _code_named(name: str, text: str) -> bool:
    """``name`` is in ``text`` as code, not as a word of its prose: called, reached through a
    member access or ``::``, inside backticks, or a name no sentence has (``to_atom``,
    ``getDay``, ``PrismaClient``)."""
    if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
        return False
    if re.search(r"[_\d]|[a-z][A-Z]", name) or (name[:1].isupper() and not name.isupper() and len(name) > 6):
        return True
    n = re.escape(name)
    if re.search(rf"\b{n}\s*\(|(?:\.|::|->)\s*{n}\b|\b{n}\s*(?:\.|::)\s*\w", text):
        return True
    return any(re.search(rf"\b{n}\b", span) for span in re.findall(r"`([^`\n]+)`", text))


def _advised_names(advised: str) -> set[str]:
    """Names the advised form calls or reaches (``getDate(``, ``.saturating_sub``)."""
    return set(re.findall(r"([A-Za-z_]\w*)\s*\(", advised)) | set(re.findall(r"\.\s*([A-Za-z_]\w*)", advised))


def fix_names(code: str, text: str) -> list[str]:
    """Regexes for the names the advised form brings in that the trigger lacks (``saturating_sub``,
    ``getDate(``): an edit that has one is doing what the advice says, not the mistake."""
    _described, advised = _advice_regions(text)
    mine = set(re.findall(r"[A-Za-z_]\w*", code or ""))
    names = sorted(n for n in _advised_names(advised) if n not in mine and len(n) >= 4 and n not in KEYWORDS)
    return [rf"\b{re.escape(n)}\b" for n in names[:4]]


def _advised_code(advised: str) -> list[str]:
    out = re.findall(r"`([^`\n]+)`", advised)
    out += [m.group(0) for m in re.finditer(r"[A-Za-z_\"'][\w.\"']*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)", advised)]
    return out


def _around(toks: list[str], anchors: list[int], operators: set[str], quoted: set[str]) -> tuple[str, str, int]:
    """The pattern of a run of anchors with the token of shape around each."""
    keep: dict[int, str] = {}

    def operand(k: int, step: int) -> None:
        # The operand an operator works on: one token, with a member access before a name.
        j = k + step
        if not 0 <= j < len(toks):
            return
        keep.setdefault(j, _token_regex(toks[j], quoted))
        if step < 0 and j - 1 >= 0 and toks[j - 1] in (".", "?.", "::") and IDENT_RE.match(toks[j]):
            keep.setdefault(j - 1, re.escape(toks[j - 1]))

    for k in anchors:
        tok = toks[k]
        if tok in operators:
            family = _COMPARISONS if tok in _COMPARISONS else _EQUALITY if tok in _EQUALITY else {tok}
            named = sorted(family & operators, key=len, reverse=True) or [tok]
            keep[k] = "(?:" + "|".join(re.escape(o) for o in named) + ")" if len(named) > 1 else re.escape(tok)
            operand(k, -1)
            operand(k, +1)
            continue
        keep[k] = r"\b" + re.escape(tok) + r"\b"
        # A keyword right by it is part of the shape ("forEach(async", "new Date(").
        for j in (k - 2, k - 1, k + 1, k + 2, k + 3):
            if 0 <= j < len(toks) and toks[j] in KEYWORDS and toks[j] not in ("self", "this", "Self"):
                for i in range(min(j, k), max(j, k) + 1):
                    keep.setdefault(i, _token_regex(toks[i], quoted))
        if k > 0 and toks[k - 1] in (".", "?.", "::", "->"):
            keep.setdefault(k - 1, re.escape(toks[k - 1]))
        if k + 1 < len(toks) and toks[k + 1] == "(":
            keep.setdefault(k + 1, r"\(")
            if k + 2 < len(toks) and (
                _quoted(toks[k + 2]) and _literal_body(toks[k + 2]) in quoted or toks[k + 2] == ")"
            ):
                keep.setdefault(k + 2, _token_regex(toks[k + 2], quoted))
    order = sorted(keep)
    parts: list[str] = []
    for i, k in enumerate(order):
        if i and k != order[i - 1] + 1:
            parts.append(_GAP)
        elif i:
            parts.append(r"\s*")
        parts.append(keep[k])
    label = " ".join(toks[order[0] : order[-1] + 1])
    weight = sum(1 for k in anchors if IDENT_RE.match(toks[k])) * 2 + len(anchors)
    return "".join(parts), label, weight
