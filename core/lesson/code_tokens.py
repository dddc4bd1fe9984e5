"""Code as tokens, and a token as a regex: the pieces every code pattern is built from
(:mod:`twiceshy.lesson.signature` for learned edits, :mod:`twiceshy.lesson.code_advice`
for taught ones). Standard library only."""

from __future__ import annotations

import re

CODE_TOKEN_RE = re.compile(
    r'[rbfuRBFU]{0,2}"""[\s\S]*?"""|[rbfuRBFU]{0,2}\'\'\'[\s\S]*?\'\'\'|[rbfuRBFU]{0,2}"(?:\\.|[^"\\\n])*"|'
    r"[rbfuRBFU]{0,2}'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`|\w+|::|=>|->|==|!=|<=|>=|&&|\|\||[^\w\s]"
)
KEYWORDS = {
    "def", "class", "return", "async", "await", "for", "while", "if", "else", "elif", "in", "not", "and", "or",
    "None", "True", "False", "lambda", "yield", "import", "from", "with", "as", "try", "except", "finally",
    "raise", "function", "const", "let", "var", "new", "this", "null", "undefined", "true", "false", "func",
    "go", "defer", "range", "fn", "mut", "impl", "pub", "self", "Self", "struct", "type", "interface",
    "static", "public", "private", "void", "int", "unsafe", "match", "switch", "case", "break", "continue",
}  # fmt: skip


def code_tokens(text: str) -> list[str]:
    return CODE_TOKEN_RE.findall(text or "")


IDENT_RE = re.compile(r"^[A-Za-z_]\w*$")


def tok_regex(tok: str, literal: bool) -> str:
    if tok[:1] in "\"'`" or tok[:2].lower() in ('f"', "f'", 'r"', "r'", 'b"', "b'"):
        prefix = ""
        while tok and tok[0].isalpha():
            prefix += tok[0]
            tok = tok[1:]
        quote = tok[:1]
        body = r"(?:\\.|[^" + re.escape(quote) + r"\\\n])*"
        return re.escape(prefix) + re.escape(quote) + body + re.escape(quote)
    if not literal and IDENT_RE.match(tok) and tok not in KEYWORDS:
        return r"\w+"
    pattern = re.escape(tok)
    if IDENT_RE.match(tok):
        pattern = r"\b" + pattern + r"\b"
    return pattern


def compiles(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except re.error:
        return None
