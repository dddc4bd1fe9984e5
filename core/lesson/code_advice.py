"""Taught code lessons: the mistake a lesson's advice describes, as a pattern
over the new content of any edit in that language.

``twiceshy learn "Go: test wrapped errors with errors.Is(err, store.ErrX),
never err == store.ErrX" --trigger "if err == store.ErrNotFound {"``: the
trigger is one instance; the advice says what is wrong in general. Two
sources, joined as alternatives:

* **what the advice forbids** — a code fragment after "never"/"don't"/"not"
  ("never Date.today / Time.now", "(&s[..n])" in a sentence that forbids),
  with its placeholders (``s``, ``n``, ``ErrX``, ``…``) left open;
* **the trigger, anchored on what the advice names** — the names and
  operators of the trigger line the advice mentions outside its advised form
  (``equals`` and ``BigDecimal`` in ``amount.equals(BigDecimal.ZERO)``), in
  order on one line, with the punctuation, keywords and literals around them;
  the reader's own names left out.

Names the advised form introduces (``ToList()``, ``compareTo(``) are what the
fix adds: an edit that has one is not the mistake. Standard library only.
"""

from __future__ import annotations

import re

from twiceshy.lesson.code_tokens import IDENT_RE, KEYWORDS, code_tokens, compiles, tok_regex

_NEGATION = r"(?:never|not|don'?t|do\s+not|avoid|instead\s+of|rather\s+than|no\s+more)"
# A forbidding cue and what follows it up to the end of its clause.
_FORBIDDEN_RUN_RE = re.compile(rf"(?i)\b{_NEGATION}\b\s+(?P<run>[^;!?\n—–]*?)(?=[;!?\n—–]|\.(?:\s|$)|,\s|$)")
# A parenthesis of the prose ("(&s[..n])"), not one of the code ("$(ls …)", "f(x)").
_PAREN_RE = re.compile(r"(?<![\w$])\(([^()\n]{1,80}(?:\([^()\n]*\)[^()\n]*)?)\)")
_BACKTICK_RE = re.compile(r"`([^`\n]{1,160})`")
# Advised code: a call, a dotted name, a backticked span (negated ones are dropped below).
_ADVISED_RE = re.compile(
    r"`([^`\n]{2,160})`|([A-Za-z_][\w.]*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))|([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)"
)
_GAP = r"[^;{}]{0,80}?"  # between two named parts of one statement
_PROSE = {
    "a", "an", "the", "to", "of", "in", "on", "over", "with", "when", "while", "for", "by", "it", "its", "is",
    "are", "be", "as", "at", "or", "and", "from", "into", "this", "that", "these", "those", "use", "using",
    "call", "compare", "leave", "loop", "share", "build", "values", "value", "strings", "paths", "between",
    "threads", "inside", "because", "since", "unless", "here", "there", "any", "every", "each", "ever",
}  # fmt: skip
_OPERATORS = {"==", "!=", "===", "!==", "<=", ">=", "&&", "||", "->", "=>", "+="}  # never anchors alone when one char


def _is_word(tok: str) -> bool:
    return bool(IDENT_RE.match(tok))


def _is_literal(tok: str) -> bool:
    return tok[:1] in "\"'`" or tok[:1].isdigit()


_SQL_WORDS = {
    "SELECT", "FROM", "WHERE", "NOT", "IN", "EXISTS", "NULL", "IS", "AND", "OR", "JOIN", "ON", "AS", "INSERT",
    "UPDATE", "DELETE", "SET", "VALUES", "INTO", "LIKE", "BETWEEN", "CASE", "WHEN", "THEN", "ELSE", "END",
    "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "DISTINCT", "UNION", "ALL", "TABLE", "DROP", "CREATE",
}  # fmt: skip


# The reader's context, not the shape of the mistake: "x < datetime.utcnow()", "total += …".
_BINARY = {
    "<", ">", "=", "+", "-", "*", "/", "%", "|", "^", "!", "?", ":", ",", ";", "==", "!=", "<=", ">=", "&&",
    "||", "=>", "->", "~",
}  # fmt: skip


def _structural(tok: str) -> bool:
    """Punctuation, a keyword (SQL's too) or a literal: the shape of the code, not a name."""
    if tok == "…" or tok in _BINARY:
        return False  # an elision in the trigger (whatever was there), or an operator of the reader's
    if _is_literal(tok):
        return True
    if _is_word(tok):
        return tok in KEYWORDS or tok in _SQL_WORDS
    return True


def _fragment_regex(fragment: str) -> str | None:
    """A forbidden fragment as a regex: single letters and ``…X`` names are placeholders."""
    fragment = re.sub(r"<[^<>\s]{1,30}>", " … ", fragment)  # "FROM <image>:latest": any image
    toks = code_tokens(fragment.replace("…", " … ").replace("...", " … "))
    if not toks:
        return None
    parts: list[str] = []
    for tok in toks:
        if tok == "…" or tok == ".":
            parts.append(r"[^\n]{0,80}?" if tok == "…" else r"\.")
        elif _is_word(tok) and len(tok) == 1:
            parts.append(r"\w+")
        elif _is_word(tok) and len(tok) > 2 and tok.endswith("X") and tok[-2].islower():
            parts.append(r"\b" + re.escape(tok[:-1]) + r"\w*")  # store.ErrX: any Err… name
        elif _is_word(tok) and tok in _PROSE:
            return None  # a sentence, not code
        else:
            parts.append(tok_regex(tok, True))
    pattern = r"\s*".join(parts).replace(r"\s*[^\n]{0,80}?\s*", r"[^\n]{0,80}?")
    return pattern


def _code_like(fragment: str) -> bool:
    """Code, not a sentence: an operator, a call or a member access (or SQL's NOT IN), no
    words of prose, balanced brackets, more than one lone symbol."""
    toks = code_tokens(fragment)
    if not toks or fragment.count("(") != fragment.count(")") or ": " in fragment:
        return False
    if any(_is_word(t) and t in _PROSE for t in toks):
        return False  # lower-case prose words ("FROM", SQL's "IN" are code)
    if len(toks) == 1:
        return toks[0] in ("==", "!=", "===", "!==")  # "never ==": the operator is the mistake
    for a, b in zip(toks, toks[1:]):
        if _is_word(a) and _is_word(b) and not ({a, b} & (KEYWORDS | _SQL_WORDS)):
            return False  # two names side by side: prose ("header/frame fields")
    if any(not _is_word(t) and not _is_literal(t) for t in toks):
        return all(ord(ch) < 128 or ch == "…" for ch in fragment)
    return all(t in _SQL_WORDS for t in toks)  # NOT IN


def forbidden_fragments(text: str) -> list[str]:
    """Code the advice says not to write: fragments after a forbidding cue (split at " / ",
    " or "), and backticked or parenthesized code inside a forbidding clause."""
    out: list[str] = []
    for found in _FORBIDDEN_RUN_RE.finditer(text or ""):
        run = found.group("run")
        inner = [m.group(1) for m in _PAREN_RE.finditer(run)] + [m.group(1) for m in _BACKTICK_RE.finditer(run)]
        outer = _PAREN_RE.sub(" ", run).replace("`", "")
        for piece in re.split(r"\s+/\s+|\s+or\s+|,\s+", outer) + inner:
            words = piece.strip().strip(".,").split()
            # Leading prose goes ("compare with ==" -> "=="); a name of the code stays ("err == …").
            while words and words[0].strip(".,") in _PROSE:  # lower-case only: "FROM" is code
                words = words[1:]
            while (
                len(words) > 1
                and words[0].isalpha()
                and words[0].islower()
                and words[0] not in KEYWORDS
                and words[1][:1].isalpha()
            ):
                words = words[1:]  # "naive datetime.utcnow()", "byte-slice a &str": prose before the code
            piece = " ".join(words)
            if piece and _code_like(piece) and piece not in out:
                out.append(piece)
    return out


def advised_fragments(text: str, forbidden_found: list[str] | None = None) -> list[str]:
    """Code the advice recommends: calls, dotted names and backticked spans not forbidden
    (``forbidden_found``: :func:`forbidden_fragments` of ``text``, when the caller has it)."""
    forbidden = " ".join(forbidden_fragments(text) if forbidden_found is None else forbidden_found)
    out = []
    for m in _ADVISED_RE.finditer(text or ""):
        frag = next(g for g in m.groups() if g)
        before = (text or "")[max(0, m.start() - 40) : m.start()]
        if frag in forbidden or re.search(rf"(?i)\b{_NEGATION}\b[^.;]*$", before):
            continue
        out.append(frag)
    return out


def _fix_names(advised: list[str]) -> set[str]:
    """What the advised form brings in: names it calls (``ToList(``, ``compareTo(``) and the
    member a dotted name ends in (``Date.current``); not a package path (``java.time``)."""
    out: set[str] = set()
    for frag in advised:
        toks = code_tokens(frag)
        for k, tok in enumerate(toks):
            if not _is_word(tok):
                continue
            called = k + 1 < len(toks) and toks[k + 1] == "("
            member_end = k > 0 and toks[k - 1] == "." and not (k + 1 < len(toks) and toks[k + 1] == ".")
            package = all(t.islower() or not _is_word(t) for t in toks[: k + 1]) and not called
            if called:
                out.add(tok + "(")
            elif member_end and not package:
                out.add("." + tok)
    return out


def _names(fragments: list[str]) -> set[str]:
    return {t for f in fragments for t in code_tokens(f) if _is_word(t)}


def _anchored(line: str, named: set[str], operators: set[str]) -> tuple[str, str, int] | None:
    """The trigger line's best run of named parts, as (regex, label, anchors)."""
    toks = code_tokens(line)
    anchors = [k for k, t in enumerate(toks) if (t in named and (len(t) >= 2 or t in operators)) or t in operators]
    if not anchors:
        return None
    runs: list[list[int]] = [[anchors[0]]]
    for k in anchors[1:]:
        (runs[-1].append(k) if k - runs[-1][-1] <= 5 else runs.append([k]))
    best: tuple[str, str, int] | None = None
    for run in runs:
        lo, hi = run[0], run[-1]
        for _ in range(3):  # widen over the shape around it, never over a name of the reader's
            if lo > 0 and _structural(toks[lo - 1]):
                lo -= 1
        for _ in range(3):
            if hi + 1 < len(toks) and _structural(toks[hi + 1]):
                hi += 1
        while hi > run[-1] and toks[hi] in (".", "::", "?."):
            hi -= 1  # "BigDecimal." then a name of the reader's: the dot says nothing
        words = [k for k in run if _is_word(toks[k])]
        if not words and hi - lo < 3:
            continue  # an operator alone, with too little around it
        if len(words) == 1 and len(toks[words[0]]) < 5 and hi - lo < 2:
            continue
        parts: list[str] = []
        for k in range(lo, hi + 1):
            if k in run:
                parts.append(tok_regex(toks[k], True))
            elif run[0] < k < run[-1]:
                if parts[-1] != _GAP:
                    parts.append(_GAP)  # between two named parts: anything on the line
            else:
                parts.append(tok_regex(toks[k], not _is_literal(toks[k])))
        pattern = r"\s*".join(parts).replace(rf"\s*{_GAP}\s*", _GAP).replace(_GAP + _GAP, _GAP)
        label = " ".join(toks[lo : hi + 1])
        if best is None or len(run) > best[2]:
            best = (pattern, label, len(run))
    return best


def derive(lines: list[str], text: str) -> tuple[str, list[str], str] | None:
    """(present regex, absent regexes, label) for a taught code trigger, or None when the
    advice names nothing in it."""
    lines = [ln.replace("...", "…") for ln in lines]
    code = "\n".join(lines)
    forbidden = forbidden_fragments(text)
    advised = advised_fragments(text, forbidden)
    forbidden_names = _names(forbidden)
    words = set(re.findall(r"[A-Za-z_]\w*", text or ""))
    # Named outside the advised form (a name only the fix uses is the code's own, "status" in
    # '"PAID".equals(status)'), or inside what is forbidden.
    mentioned = _mention_counts(text, advised)
    named = {
        w
        for w in words
        if w in forbidden_names or (mentioned.get(w, 0) > 0 and w not in KEYWORDS and w.lower() not in _PROSE)
    }
    operators = {t for f in forbidden for t in code_tokens(f) if t in _OPERATORS or t == "=="}
    alternatives: list[str] = []
    label = ""
    best = None
    for line in lines:
        found = _anchored(line, named, operators)
        if found and (best is None or found[2] > best[2]):
            best = found
    if best:
        alternatives.append(best[0])
        label = best[1]
    for frag in forbidden:
        if len(code_tokens(frag)) < 2:
            continue  # "never ==": an anchor in the trigger, far too little alone
        rx = _fragment_regex(frag)
        if rx and compiles(rx) and rx not in alternatives:
            alternatives.append(rx)
            label = label or frag
    compiled = [(a, compiles(a)) for a in alternatives]
    alternatives = [a for a, rx in compiled if rx is not None and not any(rx.search(f) for f in advised)]
    if not alternatives:
        return None
    present = alternatives[0] if len(alternatives) == 1 else "|".join(f"(?:{a})" for a in alternatives)
    rx = compiles(present)
    if rx is None or not rx.search(code):
        return None
    code_names = set(code_tokens(code))
    absent = []
    for form in sorted(_fix_names(advised)):
        name = form.strip(".(")
        if name in code_names or name in forbidden_names or len(name) < 3 or name in KEYWORDS:
            continue
        # ToList( -> "ToList\s*\(", .current -> "\.\s*current\b": the advised use, not any "now ="
        absent.append(rf"\b{re.escape(name)}\s*\(" if form.endswith("(") else rf"\.\s*{re.escape(name)}\b")
    absent = absent[:4]
    # Arguments the advice asks for that the code lacks (encoding="utf-8"): the fix has them.
    for name in dict.fromkeys(re.findall(r"\b([A-Za-z_]\w*)\s*=(?!=)", text or "")):
        if not re.search(rf"\b{re.escape(name)}\s*=", code) and len(absent) < 4:
            absent.append(rf"\b{re.escape(name)}\s*=")
    return present, absent, label[:80]


def _mention_counts(text: str, advised: list[str]) -> dict[str, int]:
    """How often each name appears in the advice outside its advised fragments."""
    rest = text or ""
    for frag in advised:
        rest = rest.replace(frag, " ")
    counts: dict[str, int] = {}
    for w in re.findall(r"[A-Za-z_]\w*", rest):
        counts[w] = counts.get(w, 0) + 1
    return counts
