"""Remove secrets from text before it is stored or sent to a model.

Table-driven: each entry of ``_PATTERNS`` is a regex and its replacement.
Covered: private key blocks; provider keys (OpenAI, Anthropic, GitHub,
GitLab, AWS access key ids and secret keys, Slack, Google, Stripe, Hugging
Face, npm); bearer/basic auth headers and JWTs; passwords in connection
strings (``postgres://user:pass@host``, ``redis://:pass@host``), in
``key=value`` / ``"key": "value"`` / ``--password x`` / ``mysql -pX`` forms;
and any high-entropy value after a key-like name (``*_key``, ``credential``,
``signature`` …). Stdlib only; runs on every prompt and every stored lesson.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

MASK = "[REDACTED]"

_SECRET_NAMES = (
    r"passw(?:or)?d|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|auth|credentials?"
    r"|private[_-]?key|client[_-]?secret|signing[_-]?key|encryption[_-]?key|session[_-]?key|dsn"
)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Long, mixed character classes, high Shannon entropy: a key, not a word."""
    if len(value) < 16:
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and _entropy(value) >= 3.5


def _high_entropy(match: re.Match[str]) -> str:
    value = match.group(3)
    return match.group(1) + match.group(2) + (MASK if _looks_random(value) else value) + match.group(2)


Replacement = str | Callable[[re.Match[str]], str]

_PATTERNS: list[tuple[re.Pattern[str], Replacement]] = [
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)", re.S
        ),
        MASK,
    ),
    (re.compile(r"\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_\-]{16,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"), MASK),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), MASK),
    (re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), MASK),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)\b(bearer|token|basic)\s+[A-Za-z0-9_\-\.=+/]{16,}"), r"\1 " + MASK),
    # An AWS secret access key: 40 base64 characters somewhere after "aws" on the line.
    (re.compile(r"(?i)(\baws\b[^\n]{0,60}?)(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"), r"\1" + MASK),
    # scheme://user:password@host and scheme://:password@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+\-.]*://[^\s:/@]*:)[^\s@/]+@"), r"\1" + MASK + "@"),
    # password=..., api_key: ..., SECRET_TOKEN="...", "client_secret": "..."; quoted values may hold spaces
    (
        re.compile(r"(?i)\b([A-Z0-9_]*(?:" + _SECRET_NAMES + r")[A-Z0-9_]*[\"']?\s*[:=]\s*)([\"'])[^\"'\n]{4,}?\2"),
        r"\1\2" + MASK + r"\2",
    ),
    (
        re.compile(
            r"(?i)\b([A-Z0-9_]*(?:" + _SECRET_NAMES + r")[A-Z0-9_]*"
            r"[\"']?\s*[:=]\s*)([\"']?)[^\s\"',;&]{4,}\2"
        ),
        r"\1\2" + MASK + r"\2",
    ),
    # --password x, --token=x, -p'x' style flags
    (re.compile(r"(?i)(--(?:password|passwd|token|api-key|secret|auth-token)[= ])([^\s]+)"), r"\1" + MASK),
    (re.compile(r"(?i)(\b(?:mysql|mysqldump|mariadb)\b[^\n]*?\s-p)([^\s]+)"), r"\1" + MASK),
    # Any other key-like name followed by a high-entropy value (signature=, *_key=, ...).
    (
        re.compile(
            r"(?i)\b([A-Z0-9_\-]*(?:key|sig|signature|salt|nonce|hash_?secret)[A-Z0-9_]*[\"']?\s*[:=]\s*)([\"']?)([^\s\"',;&]{16,})\2"
        ),
        _high_entropy,
    ),
]


def redact(text: str) -> str:
    """``text`` with every secret we recognise replaced by ``[REDACTED]``."""
    if not text:
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def contains_secret(text: str) -> bool:
    return redact(text) != text
