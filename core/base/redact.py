"""Remove secrets from text before it is stored or sent to a model.

Table-driven: each entry of ``_PATTERNS`` is a regex and its replacement.
Covered: private key blocks; provider keys (OpenAI, Anthropic, GitHub,
GitLab, AWS access key ids and secret keys, Slack tokens and webhook URLs,
Discord webhooks, Google API keys and OAuth tokens, Stripe, Hugging Face,
npm); bearer/basic/token auth headers and JWTs; passwords in URLs
(``https://user:pass@host``, ``redis://:pass@host``), in ``key=value`` /
``"key": "value"`` / ``--password x`` / ``--password=x`` forms, in ``curl -u
user:pass``, ``sshpass -p x``, ``mysql -pX``, ``docker login -p x`` and
``.netrc`` lines (``machine h login u password p``); and any high-entropy
value after a key-like name (``*_key``, ``credential``, ``signature`` …).

Every pattern runs in time linear in the input (ReDoS: a crafted 20 kB
command once took 28 s here). The rules that keep it so:

* every repetition that can fail after consuming text is bounded
  (``{0,64}``, ``{1,512}``), never ``*``/``+`` followed by something that
  may not match;
* a pattern that starts with a character class is anchored with a negative
  lookbehind on that class, so a long run is entered once, not at each of
  its characters (``\\b`` is not enough: ``-`` and ``.`` make a boundary);
* ``tests/test_redact.py`` times adversarial inputs (repeated fragments of
  every pattern, 20 kB and 200 kB) against a hard limit.

Stdlib only; runs on every prompt and every stored lesson.
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
_SECRET_NAME_RE = re.compile(_SECRET_NAMES, re.I)
# Names whose value is masked only when it looks random (signature=, *_key=, ...).
_KEYISH_NAME_RE = re.compile(r"key|sig|signature|salt|nonce|hash_?secret", re.I)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str) -> bool:
    """Long, mixed character classes, high Shannon entropy: a key, not a word."""
    if len(value) < 16:
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 2 and _entropy(value) >= 3.5


Replacement = str | Callable[[re.Match[str]], str]

_PATTERNS: list[tuple[re.Pattern[str], Replacement]] = [
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
        MASK,
    ),
    (re.compile(r"(?<![A-Za-z0-9_\-])sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_\-]{16,}"), MASK),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), MASK),
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK),
    (re.compile(r"(?<![A-Za-z0-9_\-])gl(?:pat|ptt|dt|rt|cbt|imt|oas|soat|ft|agent)-[A-Za-z0-9_\-]{20,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA|AIDA|AROA|ANPA|ABIA|ACCA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"(?<![A-Za-z0-9\-])xox[abeprs]-[A-Za-z0-9\-]{10,}"), MASK),
    # Webhook URLs carry their secret in the path.
    (
        re.compile(r"(?i)(https?://hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]{8,}"),
        r"\1" + MASK,
    ),
    (re.compile(r"(?i)(https?://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/)[A-Za-z0-9/_\-]{8,}"), r"\1" + MASK),
    (re.compile(r"(?<![A-Za-z0-9_\-])AIza[0-9A-Za-z_\-]{30,}"), MASK),
    (re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), MASK),
    (re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{30,}"), MASK),
    (re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), MASK),
    (
        re.compile(r"(?<![A-Za-z0-9_\-.])eyJ[A-Za-z0-9_\-]{8,4096}\.[A-Za-z0-9_\-]{8,4096}\.[A-Za-z0-9_\-]{8,4096}"),
        MASK,
    ),
    (re.compile(r"(?i)\b(bearer|token|basic)[ \t]{1,8}[A-Za-z0-9_\-\.=+/]{16,}"), r"\1 " + MASK),
    # An AWS secret access key: 40 base64 characters somewhere after "aws" on the line.
    (re.compile(r"(?i)(\baws\b[^\n]{0,60}?)(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"), r"\1" + MASK),
    # scheme://user:password@host and scheme://:password@host
    (
        re.compile(r"(?i)(?<![a-z0-9+\-.])([a-z][a-z0-9+\-.]{0,30}://[^\s:/@]{0,256}:)[^\s@/]{1,256}@"),
        r"\1" + MASK + "@",
    ),
    # curl -u user:password / --user user:password / --proxy-user u:p
    (
        re.compile(
            r"(?i)(\bcurl\b[^\n]{0,200}?\s(?:-u|--user|--proxy-user|-U)(?:[ \t]{1,8}|=)?[\"']?[^\s:\"']{0,128}:)"
            r"[^\s\"'@]{1,256}"
        ),
        r"\1" + MASK,
    ),
    # --password x, --token=x, --http-password=x
    (
        re.compile(
            r"(?i)(--(?:[a-z]{1,10}-)?(?:password|passwd|pass|token|api-key|apikey|secret|auth-token|access-key)[= ])"
            r"([^\s-][^\s]{0,511})"
        ),
        r"\1" + MASK,
    ),
    # -p'x' style flags of tools that take the password glued or next
    (re.compile(r"(?i)(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p)([^\s]{1,512})"), r"\1" + MASK),
    (
        re.compile(r"(?i)(\bsshpass(?:[ \t]{1,8}-[a-oq-z]\S{0,64}){0,3}[ \t]{1,8}-p[ \t]{0,8})([^\s]{1,512})"),
        r"\1" + MASK,
    ),
    (
        re.compile(
            r"(?i)(\b(?:docker|podman|helm)(?:[ \t]{1,8}registry)?[ \t]{1,8}login\b[^\n]{0,200}?\s-p[ \t]{1,8})([^\s]{1,512})"
        ),
        r"\1" + MASK,
    ),
    # .netrc: "machine h login u password p" on one line, or "password p" on its own line
    (re.compile(r"(?i)(\blogin[ \t]{1,8}\S{1,256}[ \t]{1,8}password[ \t]{1,8})([^\s]{1,512})"), r"\1" + MASK),
    (re.compile(r"(?im)^([ \t]{0,16}password[ \t]{1,8})([^\s]{1,512})[ \t]{0,16}$"), r"\1" + MASK),
]


# key = value, key: value, "key": "value". Found from the separator, then the
# name is read backwards and the value forwards, each bounded: a regex with a
# free-length name on both sides of the secret word was quadratic.
_ASSIGN_SEP = re.compile(r"[\"']?[ \t]{0,8}[:=][ \t]{0,8}")
_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_VALUE_STOP = frozenset(" \t\r\n\f\v\"',;&")
MAX_KEY = 96  # characters of a key name read back from its separator
MAX_QUOTED = 512  # a quoted value longer than this is prose, not a secret
MAX_RANDOM = 512  # longest value tested for randomness after a key-like name


def _key_before(text: str, end: int) -> str:
    start = end
    limit = max(0, end - MAX_KEY)
    while start > limit and text[start - 1] in _KEY_CHARS:
        start -= 1
    return text[start:end]


_QUOTED_STOP = re.compile(r"['\"\n]")
_UNQUOTED_STOP = re.compile(r"[\s\"',;&]")


class _Stops:
    """The next stop character at or after a position, for positions that only
    grow (separators come left to right): each search is reused until passed,
    so overlapping values cost one scan in all, not one each."""

    def __init__(self, text: str, pattern: re.Pattern[str]) -> None:
        self.text, self.pattern, self.at = text, pattern, -1

    def next(self, pos: int) -> int:
        if self.at < pos:
            found = self.pattern.search(self.text, pos)
            self.at = found.start() if found else len(self.text)
        return self.at


def _redact_assignments(text: str) -> str:
    out: list[str] = []
    done = 0
    quoted_stops, unquoted_stops = _Stops(text, _QUOTED_STOP), _Stops(text, _UNQUOTED_STOP)
    for sep in _ASSIGN_SEP.finditer(text):
        if sep.start() < done:
            continue  # inside a value already masked
        key = _key_before(text, sep.start())
        if not key:
            continue
        secret = bool(_SECRET_NAME_RE.search(key))
        if not secret and not _KEYISH_NAME_RE.search(key):
            continue
        vstart = sep.end()
        quote = text[vstart : vstart + 1]
        if quote in ("'", '"'):
            # A quoted value may hold spaces; it ends at its own quote on the same line.
            vend = quoted_stops.next(vstart + 1)
            if vend >= len(text) or text[vend] != quote or not 4 <= vend - vstart - 1 <= MAX_QUOTED:
                continue
            vstart += 1
        else:
            vend = unquoted_stops.next(vstart)
            if vend - vstart < 4:
                continue
        if not secret:
            value = text[vstart:vend]
            if not 16 <= len(value) <= MAX_RANDOM or not _looks_random(value):
                continue
        out.append(text[done:vstart])
        out.append(MASK)
        done = vend
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def redact(text: str) -> str:
    """``text`` with every secret we recognise replaced by ``[REDACTED]``."""
    if not text:
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return _redact_assignments(text)


def contains_secret(text: str) -> bool:
    return redact(text) != text
