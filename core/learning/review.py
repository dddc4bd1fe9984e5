"""Memory-poisoning guard: risky lessons are held for review, not shown.

A lesson is text that twiceshy later puts in front of an agent (pre-tool
warnings, session-start context, the context file). If a prompt injection —
a README, a web page, a tool output the agent echoed — ever got turned into a
lesson, that text would be replayed to every later session. Extractors only
learn from the agent's own words and observed outcomes (see
:mod:`twiceshy.learning.extractors`), and recall frames lessons as advice; this module
is the last line: a lesson whose text *tells the agent to run* something
dangerous is stored with the tag :data:`HOLD_TAG` and stays out of every
path to the agent until the user approves it (``twiceshy review --approve ID``).

Held, by :func:`classify`:

* **fetch-and-execute**: ``curl … | sh``, ``wget -O- … | bash``,
  ``bash <(curl …)``, ``sh -c "$(curl …)"``, ``iex (irm …)``,
  ``Invoke-Expression``, reverse shells (``nc -e``, ``/dev/tcp/``), uploads of
  local files (``curl -d @~/.ssh/…``);
* **destructive**: ``rm -rf /`` (also ``~``, ``$HOME``, ``/*``, system
  folders, ``--no-preserve-root``), ``mkfs``, ``dd of=/dev/…``, writes to a
  raw disk, ``git push --force`` (not ``--force-with-lease``), ``DROP
  TABLE/DATABASE``, ``TRUNCATE TABLE``, ``chmod -R 777``, ``terraform
  destroy``, ``kubectl delete --all``, fork bombs;
* **disabling safety**: ``--no-verify``, ``--dangerously-skip-permissions``
  and friends, TLS verification off, ``setenforce 0``, turning off hooks,
  the sandbox or twiceshy itself, and "ignore previous instructions".

A mention that is plainly a warning — "never run `rm -rf /`", "avoid `git
push --force`", "`curl … | sh` failed" — is not held: warning against a
dangerous command is exactly what a lesson is for. When in doubt it holds
(a held lesson costs one review; a replayed injection costs much more).
Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from twiceshy.base.types import Experience
    from twiceshy.memory.store import ExperienceStore

HOLD_TAG = "review:held"
APPROVED_TAG = "review:approved"
REASON_PREFIX = "review-reason:"

_SHELLS = r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da|k|c|tc|fi)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell"
_FETCH = r"(?:curl|wget|fetch|http|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c)"

# (category, pattern) — case-insensitive, searched in the lesson text.
RULES: list[tuple[str, re.Pattern[str]]] = [
    # -- fetch and execute --------------------------------------------------
    ("network fetch piped to a shell", re.compile(rf"\b{_FETCH}\b[^\n|;&]*\|\s*(?:{_SHELLS})\b", re.I)),
    ("network fetch run by a shell", re.compile(rf"\b(?:{_SHELLS})\s+(?:-\S+\s+)*<\(\s*{_FETCH}\b", re.I)),
    ("network fetch run by a shell", re.compile(rf"\b(?:{_SHELLS})\s+-c\s+[\"']?\$\(\s*{_FETCH}\b", re.I)),
    ("network fetch run by a shell", re.compile(rf"\b(?:source|\.)\s+<\(\s*{_FETCH}\b", re.I)),
    ("PowerShell download and execute", re.compile(r"\b(?:iex|invoke-expression)\b", re.I)),
    ("PowerShell download and execute", re.compile(r"\bnew-object\s+(?:system\.)?net\.webclient\b", re.I)),
    ("reverse shell", re.compile(r"\b(?:nc|ncat|netcat)\b[^\n]*\s-(?:e|c)\s", re.I)),
    ("reverse shell", re.compile(r"/dev/(?:tcp|udp)/", re.I)),
    (
        "uploads local files",
        re.compile(
            rf"\b{_FETCH}\b[^\n]*\s(?:-d|--data(?:-binary|-raw)?|-F|--form|-T|--upload-file)\s*[\"']?\S*@?[~/$]", re.I
        ),
    ),
    # -- destructive ----------------------------------------------------------
    (
        "recursive delete of a root, home or system folder",
        re.compile(
            r"\brm\s+(?:-[a-z]*\s+)*-[a-z]*(?:r[a-z]*f|f[a-z]*r)[a-z]*\s+(?:-[a-z-]+\s+)*"
            r"(?:--no-preserve-root|[\"']?(?:/|/\*|~/?|\$home/?|\$\{home\}/?|/(?:etc|usr|boot|bin|sbin|lib|lib64|root|sys|proc)\b(?:/[^\s;&|`'\"]*)?"
            r"|/(?:var|home|opt|srv)/?\*?)[\"']?(?=\s|$|[;&|`'\")]))",
            re.I,
        ),
    ),
    ("recursive delete without a root guard", re.compile(r"--no-preserve-root\b", re.I)),
    ("formats a disk", re.compile(r"\bmkfs(?:\.[a-z0-9]+)?\b|\bwipefs\b|\bmkswap\s+/dev/", re.I)),
    ("overwrites a raw device", re.compile(r"\bdd\b[^\n]*\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)", re.I)),
    (
        "overwrites a raw device",
        re.compile(r">\s*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|xvd[a-z]|vd[a-z]|mmcblk\d|disk\d)", re.I),
    ),
    (
        "force-push over shared history",
        re.compile(r"\bgit\s+push\b[^\n;&|]*\s(?:--force(?!-with-lease|-if-includes)\b|-f\b|\+\w)", re.I),
    ),
    ("drops database objects", re.compile(r"\b(?:drop\s+(?:table|database|schema)|truncate\s+table)\b", re.I)),
    (
        "world-writable permissions",
        re.compile(r"\bchmod\s+(?:-[a-z]*\s+)*(?:-R\s+)?0?777\b|\bchmod\s+-R\s+(?:a\+rwx|ugo\+rwx)", re.I),
    ),
    (
        "destroys infrastructure",
        re.compile(r"\bterraform\s+destroy\b|\bkubectl\s+delete\b[^\n]*(?:--all\b|\bnamespace\b|\bns\b)", re.I),
    ),
    ("fork bomb", re.compile(r":\(\)\s*\{\s*:\|:&\s*\}\s*;\s*:")),
    # -- disabling safety checks --------------------------------------------------
    (
        "disables safety checks",
        re.compile(
            r"--no-verify\b|--dangerously[-\w]*|--yolo\b|--no-sandbox\b|--disable-hooks?\b"
            r"|\bsetenforce\s+0\b|\bufw\s+disable\b|\bcore\.hooksPath\s*=?\s*/dev/null",
            re.I,
        ),
    ),
    (
        "turns TLS verification off",
        re.compile(
            r"\bsslverify\s*=?\s*false\b|\bstrict-ssl\s*=?\s*false\b|\bverify\s*=\s*false\b"
            r"|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*0\b|\bPYTHONHTTPSVERIFY\s*=\s*0\b|\bcurl\b[^\n]*\s(?:-k|--insecure)\b",
            re.I,
        ),
    ),
    (
        "tells the agent to switch off its guard",
        re.compile(
            r"\b(?:disable|turn\s+off|uninstall|remove|bypass|skip)\s+(?:the\s+|all\s+|any\s+)?"
            r"(?:twiceshy|hooks?|sandbox|guardrails?|safety\s+checks?|permission\s+checks?|approvals?)\b",
            re.I,
        ),
    ),
    (
        "prompt-injection phrasing",
        re.compile(
            r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+"
            r"(?:instructions|rules|guidelines|messages|system\s+prompt)\b",
            re.I,
        ),
    ),
]

# Words right before a mention that make it a warning, not an instruction:
# "never run `X`", "don't use X", "avoid X", "instead of X", "rather than X".
_NEGATED_BEFORE = re.compile(
    r"(?:\bnever|\bdon'?t|\bdo\s+not|\bdoes\s+not|\bavoid(?:ing)?|\binstead\s+of|\brather\s+than|\bnot|\bno"
    r"|\bstop|\bwithout|\bforbid(?:den)?|\bprohibited|\bdangerous(?:\s+to)?|\bnot\s+safe\s+to)"
    r"(?:\s+(?:ever|again|even))?(?:\s+(?:run(?:ning)?|use|using|do|doing|execute|executing|call|try|type|pipe|piping))?"
    r"(?:\s+(?:a|the|any))?\s*[`\"'(]?\s*$",
    re.I,
)
# ... or right after it: "`curl x | sh` failed", "... is dangerous", "... is blocked".
_NEGATED_AFTER = re.compile(
    r"^[`\"')]?\s*(?:\([^)]{0,80}\)\s*)?(?:failed|fails|did\s+not\s+(?:work|help)|didn'?t\s+(?:work|help)|was\s+(?:blocked|denied|refused|rejected)"
    r"|is\s+(?:dangerous|destructive|forbidden|not\s+allowed|blocked)|must\s+not|should\s+not|shouldn'?t|can\s+destroy|will\s+destroy|destroys|wipes)\b",
    re.I,
)


def _negated(text: str, start: int, end: int) -> bool:
    """Is the mention at ``text[start:end]`` a warning against it (same sentence)?"""
    before = text[max(0, start - 40) : start]
    before = re.split(r"[.!?\n;]\s", before)[-1]
    if _NEGATED_BEFORE.search(before):
        return True
    return bool(_NEGATED_AFTER.match(text[end : end + 60]))


def _mention_end(text: str, start: int, end: int) -> int:
    """Extend a match to the end of its backticked span (so "`X` failed" is seen)."""
    tick = text.rfind("`", 0, start)
    if tick >= 0 and text.count("`", 0, tick) % 2 == 0:
        close = text.find("`", end)
        if close >= 0:
            return close + 1
    return end


def classify(text: str) -> list[str]:
    """Why this lesson text must be held for review ([] if it may be shown).

    Each reason names a category (e.g. ``network fetch piped to a shell``)
    for a mention that is not plainly negated.
    """
    if not text:
        return []
    reasons: list[str] = []
    for category, pattern in RULES:
        if category in reasons:
            continue
        for match in pattern.finditer(text):
            end = _mention_end(text, match.start(), match.end())
            if not _negated(text, match.start(), end) or category in ("prompt-injection phrasing", "fork bomb"):
                reasons.append(category)
                break
    return reasons


def is_held(exp: Experience) -> bool:
    """True while a lesson waits for review (never shown, never blocking)."""
    return HOLD_TAG in (exp.tags or [])


def hold_tags(reasons: Iterable[str]) -> list[str]:
    """The tags a held lesson carries: the hold marker and one per reason."""
    reasons = list(reasons)
    if not reasons:
        return []
    return [HOLD_TAG] + [REASON_PREFIX + r for r in reasons]


def reasons_of(exp: Experience) -> list[str]:
    return [t[len(REASON_PREFIX) :] for t in exp.tags if t.startswith(REASON_PREFIX)]


def held_lessons(store: ExperienceStore) -> list[Experience]:
    """Every lesson waiting for review, oldest first."""
    return sorted((e for e in store.all() if is_held(e)), key=lambda e: e.created_at)


def approve(store: ExperienceStore, exp_id: str) -> Experience | None:
    """Release a held lesson: it is shown (and may block) from now on."""
    exp = store.get(exp_id)
    if exp is None:
        return None
    exp.tags = [t for t in exp.tags if t != HOLD_TAG and not t.startswith(REASON_PREFIX)]
    if APPROVED_TAG not in exp.tags:
        exp.tags.append(APPROVED_TAG)
    store.update(exp)
    return exp


def reject(store: ExperienceStore, exp_id: str) -> bool:
    """Delete a held lesson. Returns False if there was none with that id."""
    exp = store.get(exp_id)
    if exp is None:
        return False
    store.delete(exp_id)
    return True


__all__ = [
    "HOLD_TAG",
    "APPROVED_TAG",
    "classify",
    "is_held",
    "hold_tags",
    "reasons_of",
    "held_lessons",
    "approve",
    "reject",
]
