"""Remove secrets from text before it is stored or sent to a model.

Patterns cover provider keys (OpenAI, Anthropic, GitHub, AWS, Slack, Google,
Stripe), bearer tokens, JWTs, private key blocks, passwords in URLs and in
``key=value`` / ``--password x`` forms. Stdlib only.
"""

from __future__ import annotations

import re

MASK = "[REDACTED]"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)", re.S), MASK),
    (re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), MASK),
    (re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)\b(bearer|token)\s+[A-Za-z0-9_\-\.=]{16,}"), r"\1 " + MASK),
    # scheme://user:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+\-.]*://[^\s:/@]+:)[^\s@/]+@"), r"\1" + MASK + "@"),
    # password=..., api_key: ..., SECRET_TOKEN="..."
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]*(?:passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth)[A-Z0-9_]*"
            r"[\"']?\s*[:=]\s*)([\"']?)[^\s\"',;]{4,}\2"
        ),
        r"\1\2" + MASK + r"\2",
    ),
    # --password x, -p'x' style flags
    (re.compile(r"(?i)(--(?:password|passwd|token|api-key|secret)[= ])([^\s]+)"), r"\1" + MASK),
]


def redact(text: str) -> str:
    if not text:
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def contains_secret(text: str) -> bool:
    return redact(text) != text
