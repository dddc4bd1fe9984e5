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

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from twiceshy.lesson.signature import in_negated_parenthesis

if TYPE_CHECKING:
    from twiceshy.base.types import Experience
    from twiceshy.memory.store import ExperienceStore

HOLD_TAG = "review:held"
APPROVED_TAG = "review:approved"
REASON_PREFIX = "review-reason:"

_SHELLS = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:(?:ba|z|da|k|c|tc|fi)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell"
    r"|deno|bun)"
)
_FETCH = r"(?:curl|wget|fetch|http|https|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c|lwp-download)"
_NET = r"(?:curl|wget|nc|ncat|netcat|socat|telnet|ssh(?!-)|scp|sftp|rsync|ftp|http|https|openssl\s+s_client)"
# Files and variables that hold credentials.
_SECRET_PATH = (
    r"(?:\.ssh\b|id_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\b|\.gnupg\b|\.kube/config|\.docker/config|\.netrc\b"
    r"|\.npmrc\b|\.pypirc\b|\.git-credentials\b|(?<![\w-])\.env\b|credentials\b|/etc/(?:passwd|shadow)\b|\.pgpass\b"
    r"|keychain|wallet\.dat)"
)
_SECRET_VAR = r"\$\{?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH)[A-Z0-9_]*\}?"
_RM_RECURSIVE = r"\brm\s+(?:-[\w-]+\s+)*(?:-[a-z]*r[a-z]*|-R[a-z]*|--recursive)\b(?:\s+-[\w-]+)*\s+"

# (category, pattern) — case-insensitive, searched in the lesson text. Every
# repetition is bounded: a lesson text is attacker-influenced.
RULES: list[tuple[str, re.Pattern[str]]] = [
    # -- fetch and execute --------------------------------------------------
    ("network fetch piped to a shell", re.compile(rf"\b{_FETCH}\b[^\n|;&]{{0,400}}\|\s*(?:{_SHELLS})\b", re.I)),
    ("network fetch run by a shell", re.compile(rf"\b(?:{_SHELLS})\s+(?:-\S+\s+){{0,4}}<\(\s*{_FETCH}\b", re.I)),
    (
        "network fetch run by a shell",
        re.compile(
            rf"\b(?:{_SHELLS}|eval|exec|iex)\b[^\n]{{0,30}}?[\"'(]?\s*(?:\$\(|`)\s*(?:sudo\s+)?{_FETCH}\b", re.I
        ),
    ),
    ("network fetch run by a shell", re.compile(rf"\b(?:source|\.)\s+<\(\s*{_FETCH}\b", re.I)),
    (
        "network fetch piped to a shell",
        re.compile(
            rf"\b(?:pipe|piping|feed|feeding)\b[^\n.;]{{0,80}}?\b(?:in)?to\s+(?:{_SHELLS})\b",
            re.I,
        ),
    ),
    (
        "decoded payload piped to a shell",
        re.compile(
            rf"\b(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r|openssl\s+(?:base64|enc)[^\n|]{{0,40}}-d|rev\b|gunzip)"
            rf"[^\n|]{{0,200}}\|\s*(?:{_SHELLS})\b",
            re.I,
        ),
    ),
    (
        "network fetch run by an interpreter",
        re.compile(r"\b(?:exec|eval)\s*\(\s*(?:urllib\.request\.)?(?:urlopen|requests\.get|fetch)\s*\(", re.I),
    ),
    ("PowerShell download and execute", re.compile(r"\b(?:iex|invoke-expression)\b", re.I)),
    ("PowerShell download and execute", re.compile(r"\bnew-object\s+(?:system\.)?net\.webclient\b", re.I)),
    ("reverse shell", re.compile(r"\b(?:nc|ncat|netcat)\b[^\n]{0,200}\s-(?:e|c)\s", re.I)),
    ("reverse shell", re.compile(r"/dev/(?:tcp|udp)/", re.I)),
    # -- exfiltration -----------------------------------------------------------
    (
        "uploads local files",
        re.compile(
            rf"\b{_FETCH}\b[^\n]{{0,300}}\s(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file"
            r"|--post-file|--body-file)[\s=]*[\"']?[\w.-]{0,40}=?@?[~/$]",
            re.I,
        ),
    ),
    (
        "sends secrets or the environment to a host",
        re.compile(
            rf"(?:\benv\b|\bprintenv\b|\bexport\s+-p\b|\bset\b(?=\s*\|)|{_SECRET_PATH})[^\n|]{{0,200}}"
            rf"(?:\|[^\n|]{{0,100}}){{0,3}}\|\s*(?:sudo\s+)?{_NET}\b",
            re.I,
        ),
    ),
    (
        "sends secrets or the environment to a host",
        re.compile(
            rf"\b{_NET}\b[^\n]{{0,300}}(?:\$\(\s*(?:env|printenv|cat\s+[^\n)]{{0,80}}{_SECRET_PATH})|{_SECRET_PATH}"
            rf"|(?:[?&][\w-]{{1,30}}=|-d\s*[\"']?|--data\S*\s*[\"']?|-F\s*[\"']?[\w-]{{1,30}}=){_SECRET_VAR})",
            re.I,
        ),
    ),
    ("pushes the repository to another remote", re.compile(r"\bgit\s+push\b[^\n;&|]{0,200}\s--(?:all|mirror)\b", re.I)),
    (
        "sends secrets or the environment to a host",
        re.compile(
            r"\b(?:send|post|upload|paste|share|submit|forward|e-?mail|transmit|exfiltrate|copy|leak)\b[^\n.]{0,60}?"
            r"(?:\b(?:api[ _-]?keys?|tokens?|secrets?|credentials?|passwords?|private[ _-]keys?|ssh[ _-]keys?|"
            r"env(?:ironment)?(?:\s+(?:variables|vars))?|id_rsa|cookies?|session\s+ids?)\b|\.env\b|\.aws\b|\.ssh\b"
            r"|\$?\b[A-Z0-9_]*(?:TOKEN|API_KEY|SECRET|PASSWORD|ACCESS_KEY)\b)"
            # One tail or the other, both after the verb and the secret.
            r"(?:[^\n.]{0,80}?\b(?:to|at|into|on|in)\s+(?:(?:the|a|an|this|that|your)\s+)?(?:issue|chat|pr|pull\s+request"
            r"|comment|ticket|slack|discord|gist|pastebin|paste|forum|log)\b|[^\n.]{0,80}?\b(?:to|at|into|on)\s+(?:https?://"
            r"|[\w-]+\.[a-z]{2,}\b|the\s+(?:\w+\s+){0,3}(?:endpoint|server|url|webhook|site|host|form|channel|issue|chat)"
            r"|a\s+(?:\w+\s+){0,3}(?:endpoint|server|url|webhook|site|host)))",
            re.I,
        ),
    ),
    # -- destructive ----------------------------------------------------------
    (
        "recursive delete of a root, home, project or system folder",
        re.compile(
            _RM_RECURSIVE + r"(?:--no-preserve-root|[\"']?(?:/|/\*|~/?\*?|\$home/?\*?|\$\{home\}/?\*?|\.{1,2}/?\*?|\*"
            r"|\.git/?|/(?:etc|usr|boot|bin|sbin|lib|lib64|root|sys|proc|dev)\b(?:/[^\s;&|`'\"]*)?"
            r"|/(?:var|home|opt|srv|mnt|data)/?\*?|/var/lib\b(?:/[^\s;&|`'\"]*)?|/home/[\w.-]+/?\*?"
            r"|(?:~|\$home|\$\{home\})/\.(?:ssh|config|aws|gnupg|kube|local)\b/?)[\"']?(?=\s|$|[;&|`'\")]))",
            re.I,
        ),
    ),
    ("recursive delete without a root guard", re.compile(r"--no-preserve-root\b", re.I)),
    (
        "recursive delete of a root, home, project or system folder",
        re.compile(r"\bfind\s+(?:/|~|\$home|\.)\s[^\n]{0,200}(?:-delete\b|-exec\s+rm\b)", re.I),
    ),
    (
        "formats a disk",
        re.compile(r"\bmkfs(?:\.[a-z0-9]+)?\b|\bwipefs\b|\bmkswap\s+/dev/|\bshred\b[^\n]{0,80}/dev/", re.I),
    ),
    ("overwrites a raw device", re.compile(r"\bdd\b[^\n]{0,200}\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b)", re.I)),
    (
        "overwrites a raw device",
        re.compile(r">\s*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|xvd[a-z]|vd[a-z]|mmcblk\d|disk\d)", re.I),
    ),
    (
        "force-push over shared history",
        re.compile(
            r"\bgit\s+push\b[^\n;&|,]{0,200}\s(?:--force(?!-with-lease|-if-includes)\b|-f\b|\+[\w/]+"
            r"|--delete\s+(?:main|master|trunk|develop|production|release)\b|:(?:main|master)\b)",
            re.I,
        ),
    ),
    ("force-push over shared history", re.compile(r"\bforce[- ]push(?:es|ed|ing)?\b(?![- ]with[- ]lease)", re.I)),
    (
        "discards work (reset --hard, clean -f, checkout .)",
        re.compile(
            r"\bgit\s+reset\b[^\n;&|]{0,100}\s--hard\b|\bgit\s+clean\s+(?:-\w+\s+){0,3}-[a-z]*f|"
            r"\bgit\s+(?:checkout|restore)\s+(?:--\s+)?\.(?=\s|$|[;&|`'\")])|\bgit\s+stash\s+clear\b"
            r"|\bgit\s+branch\s+-D\s+(?:main|master|trunk|develop|production)\b",
            re.I,
        ),
    ),
    (
        "drops database objects",
        re.compile(
            r"\b(?:drop\s+(?:table|database|schema|collection)|truncate\s+table)\b|\bdropdb\b|\bflushall\b|\bflushdb\b"
            r"|\bdropDatabase\s*\(|\bdelete\s+from\s+[\w.\"`]{1,64}\s*(?:;|$|[\"'`)])",
            re.I,
        ),
    ),
    (
        "world-writable permissions",
        re.compile(r"\bchmod\s+(?:-[a-z]+\s+){0,3}0?777\b|\bchmod\s+(?:-[a-z]+\s+){0,3}(?:a|ugo|o)\+(?:rwx|w)\b", re.I),
    ),
    (
        "destroys infrastructure or volumes",
        re.compile(
            r"\bterraform\s+(?:destroy\b|apply\b[^\n]{0,60}-destroy\b)|\bpulumi\s+destroy\b"
            r"|\bkubectl\s+delete\b[^\n]{0,100}(?:--all\b|\bnamespace\b|\bns\b|\bpv\b|\bpvc\b)"
            r"|\bdocker\s+(?:system|volume)\s+prune\b[^\n]{0,60}(?:-a\b|--all\b|--volumes\b)"
            r"|\bdocker[- ]compose\s+down\b(?:(?!without|\bno\b|\bnot\b)[^\n]){0,60}\s(?:-v|--volumes)\b|\bdocker\s+volume\s+rm\b"
            r"|\baws\s+s3\s+(?:rm|rb)\b[^\n]{0,200}--(?:recursive|force)\b|\bgsutil\s+(?:-m\s+)?rm\s+-r"
            r"|\baz\s+group\s+delete\b|\bgcloud\s+projects\s+delete\b",
            re.I,
        ),
    ),
    (
        "destroys data",
        re.compile(
            r"\b(?:wipe|erase|destroy|nuke|purge|drop|delete|remove|rm)\s+(?:the\s+|all\s+|every\s+|your\s+|entire\s+"
            r"|whole\s+|of\s+){1,3}(?:(?:production|prod|staging|live|user|customer|remote)\s+)?"
            r"(?:(?!(?:test|tests|temp|tmp|cache|cached|build|old|stale|local|sample|fixture|dummy|mock|scratch)\b)"
            r"[\w-]+\s+)?"
            r"(?:databases?|db|tables?|data(?:base)?|disks?|drives?|volumes?|home\s+(?:dir(?:ectory)?|folder)"
            r"|backups?|git\s+history|history|repo(?:sitory)?)\b",
            re.I,
        ),
    ),
    ("fork bomb", re.compile(r":\(\)\s*\{\s*:\|:&\s*\}\s*;\s*:")),
    # -- disabling safety checks --------------------------------------------------
    (
        "disables safety checks",
        re.compile(
            r"--no-verify\b|--dangerously[-\w]*|--yolo\b|--no-sandbox\b|--disable-hooks?\b|--no-hooks?\b"
            r"|\bsetenforce\s+0\b|\bufw\s+disable\b|\bcore\.hooksPath\s*=?\s*(?:/dev/null|\"\"|''|\S*empty)"
            r"|\bgit\s+commit\b[^\n;&|]{0,120}\s-[a-mo-z]*n[a-z]*\b|\bpre-commit\s+uninstall\b|\bhusky\s+uninstall\b"
            r"|\bHUSKY\s*=\s*0\b|\bSKIP\s*=\s*[\w,-]+\s+git\b|\brm\b[^\n]{0,100}\.git/hooks\b"
            r"|\bset\s+\+(?:e|o\s+(?:errexit|pipefail|nounset))\b",
            re.I,
        ),
    ),
    (
        "disables tests or checks",
        re.compile(
            r"@pytest\.mark\.skip\b|\bpytest\.skip\(|@unittest\.skip\b|\b(?:it|describe|test)\.skip\(|\bxit\("
            r"|\bcontinue-on-error:\s*true\b|\ballow_failure:\s*true\b|-DskipTests\b|-Dmaven\.test\.skip=true\b"
            r"|\b(?:pytest|tox|jest|vitest|mocha|(?:npm|yarn|pnpm)\s+(?:run\s+)?test|make\s+(?:test|check)|go\s+test"
            r"|cargo\s+test|mvn\s+test)\b[^\n;&|]{0,100}\|\|\s*(?:true|exit\s+0|:)(?=\s|$|[;)`'\"])"
            r"|\b(?:skip|disable|delete|remove|comment\s+out|turn\s+off|silence|xfail)\s+(?:the\s+|all\s+|any\s+|every\s+)?"
            r"(?:(?:failing|flaky|broken|red|offending)\s+)?(?:unit\s+|integration\s+)?(?:tests?|test\s+cases?|test\s+files?"
            r"|assertions?|checks?|linters?|lint(?:ing)?(?:\s+(?:jobs?|checks?|steps?))?|ci(?:\s+(?:checks?|jobs?|steps?))?"
            r"|security\s+(?:scans?|checks?)|type\s*check(?:s|ing|er)?|pre-commit(?:\s+hooks?)?|git\s+hooks?"
            r"|mypy|eslint|flake8|ruff|pylint|tsc|coverage(?:\s+checks?)?|codeql|sonar(?:qube)?|bandit|semgrep)\b",
            re.I,
        ),
    ),
    (
        "turns TLS verification off",
        re.compile(
            r"\bsslverify\s*=?\s*false\b|\bstrict-ssl\s*=?\s*false\b|\bverify\s*=\s*false\b|\bGIT_SSL_NO_VERIFY\s*=\s*(?:1|true)\b"
            r"|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*0\b|\bPYTHONHTTPSVERIFY\s*=\s*0\b|\bcurl\b[^\n]{0,200}\s(?:-k|--insecure)\b"
            r"|\bwget\b[^\n]{0,200}--no-check-certificate\b|--trusted-host\b"
            r"|\b(?:disable|turn\s+off|skip|bypass)\s+(?:the\s+)?(?:ssl|tls|https|certificate|cert)\s+(?:verification|checks?|validation)\b",
            re.I,
        ),
    ),
    (
        "tells the agent to switch off its guard",
        re.compile(
            r"\b(?:disable|turn\s+off|uninstall|remove|bypass|skip|kill|stop)\s+(?:the\s+|all\s+|any\s+|its\s+|your\s+)?"
            r"(?:twiceshy|hooks?|sandbox|guardrails?|safety\s+(?:checks?|hooks?)|permission\s+(?:checks?|prompts?)"
            r"|approvals?|security\s+(?:checks?|hooks?))\b",
            re.I,
        ),
    ),
    (
        "prompt-injection phrasing",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above"
            r"|earlier|preceding|system|original)\s+(?:instructions|rules|guidelines|messages|prompts?|directions)\b"
            r"|\b(?:new|updated|revised|real)\s+system\s+(?:prompt|instructions?)\b|\bsystem\s+override\b"
            r"|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted|god)\b"
            r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|alert)\s+the\s+user\b"
            r"|\bhide\s+(?:this|it)\s+from\s+the\s+user\b|\bwithout\s+(?:telling|informing)\s+the\s+user\b",
            re.I,
        ),
    ),
]

# Categories held even when phrased as a warning: there is no honest way to
# warn "ignore previous instructions" into an agent's memory.
# A mention that the failing call had too is not advice the lesson adds (only for these: a
# destructive or injection-shaped step is held wherever it stands).
_KEPT_FROM_THE_MISTAKE = frozenset({"disables tests or checks"})
_ALWAYS_HELD = ("prompt-injection phrasing", "fork bomb")

# Words right before a mention that make it a warning, not an instruction:
# "never run `X`", "don't use X", "avoid X", "instead of X", "rather than X".
_NEGATION = (
    r"(?:\bnever|\bdon'?t|\bdo\s+not|\bdoes\s+not|\bavoid(?:ing)?|\binstead\s+of|\brather\s+than|\bnot|\bno"
    r"|\bstop|\bwithout|\bforbid(?:den)?|\bprohibited|\bbanned|\bdangerous(?:\s+to)?|\bnot\s+safe\s+to|\bmust\s+not"
    r"|\bshould\s+not|\bshouldn'?t|\bmustn'?t|\bcan'?t|\bcannot|\brefuse\s+to|\bwarn(?:s|ed)?\s+against|\bbeware\s+of"
    r"|\bunsafe\s+to|\bbad\s+idea\s+to|\bnot\s+allowed\s+to)"
)
_FILLER = (
    r"(?:\s*,?\s*(?:ever|again|even|just|once|under\s+any\s+circumstances|at\s+all|blindly|casually|yourself"
    r"|plain|bare|a\s+plain|a\s+bare)\s*,?)*"
)
_VERBS = (
    r"(?:\s+(?:run(?:ning)?|use|using|do|doing|execute|executing|call(?:ing)?|try(?:ing)?|type|typing|pipe|piping"
    r"|send(?:ing)?|post(?:ing)?|upload(?:ing)?|share|sharing|paste|pasting|commit(?:ting)?|push(?:ing)?|delet(?:e|ing)"
    r"|remov(?:e|ing)|disabl(?:e|ing)|skip(?:ping)?|turn(?:ing)?\s+off|forc(?:e|ing)|wip(?:e|ing)|drop(?:ping)?"
    r"|add(?:ing)?|set(?:ting)?|rely(?:ing)?\s+on|resort(?:ing)?\s+to|reach(?:ing)?\s+for|chmod|apply|applying"
    r"|with|by|to))?"
)
_NEGATED_BEFORE = re.compile(
    r"(?P<neg>" + _NEGATION + r")" + _FILLER + _VERBS + _VERBS + r"(?:\s+(?:a|an|the|any|this|that|it|with))?"
    r"(?:\s+[\w-]+\s+like)?\s*[`\"'(]?\s*$",
    re.I,
)
# "no need to avoid X", "not dangerous to run X": the negation is itself negated.
_DOUBLE_NEGATION = re.compile(
    r"(?:\bno\s+need\s+to|\bneedn'?t|\b(?:don'?t|do\s+not|doesn'?t)\s+(?:need|have)\s+to|\bno\s+reason\s+to|\bnot"
    r"|\bn'?t|\bnever|\bisn'?t|\bnot\s+really|\bstop|\bquit|\bpointless\s+to|\bunnecessary\s+to)\s*$",
    re.I,
)
# ... or right after it: "`curl x | sh` failed", "... is dangerous", "... is blocked".
_NEGATED_AFTER = re.compile(
    r"^[`\"')]?\s*(?:\([^)]{0,80}\)\s*)?[,:—–-]?\s*(?:failed|fails|did\s+not\s+(?:work|help)|didn'?t\s+(?:work|help)"
    r"|(?:was|were|is|are|got|gets)\s+(?:blocked|denied|refused|rejected)"
    r"|(?:is|are|was|would\s+be)\s+(?:dangerous|destructive|forbidden|prohibited|banned|unsafe|risky|irreversible"
    r"|a\s+(?:mistake|bad\s+idea|footgun)|not\s+(?:allowed|safe|ok|okay|needed|necessary|the\s+(?:fix|answer))|never\s+(?:ok|okay|safe|needed)|blocked)"
    r"|must\s+not|must\s+never|should\s+not|should\s+never|shouldn'?t|can\s+(?:destroy|wipe|delete|lose)"
    r"|will\s+(?:destroy|wipe|delete|lose|break|discard)|destroys|wipes|discards|deletes\s+everything|loses"
    r"|deleted|removed|wiped|destroyed|erased|overwrote|lost|broke|corrupted|caused|never|(?:—|-|:)?\s*(?:never|don'?t|do\s+not|avoid))\b",
    re.I,
)

_PROHIBITED_LATER = re.compile(
    r"\b(?:must|should|may)\s+(?:not|never)\s+be\s+(?:used|run|done|executed|applied|typed)\b", re.I
)

# The mistake slot of a lesson: the command the user rejected, or the one that
# failed, is what NOT to do ("The user rejected `X`", "(said after `X`)",
# "2 variant(s) failed too (`X`, `Y`)"). Only the fix and the advice instruct.
_MISTAKE_BEFORE = re.compile(
    r"(?:\b(?:rejected|refused|denied|blocked|interrupted|reverted|undid|vetoed)"
    r"|\b(?:said|corrected|objected|complained|interrupted|stepped\s+in)\s+(?:right\s+|just\s+)?(?:after|when)"
    r"|\bfailed(?:\s+too|\s+as\s+well)?\s*\((?:[^()]{0,300},)?)"
    r"\s*(?:the\s+)?(?:agent'?s\s+|assistant'?s\s+)?(?:call|command|tool\s+call|edit)?\s*:?\s*[`\"'(]?\s*$",
    re.I,
)
# "... (it deletes the volumes)", "..., which wipes X": the mention is the cause of a loss.
_CONSEQUENCE_AFTER = re.compile(
    r"^[`\"')]?\s*(?:here\s+|there\s+|on\s+\S+\s+)?(?:\(|,|:|—|–|-{1,2})\s*(?:because\s+|since\s+|as\s+)?"
    r"(?:it|this|that|which|they)(?:'ll|\s+will|\s+would|\s+can|\s+could|\s+also)?\s*"
    r"(?:silently\s+|permanently\s+|also\s+)?"
    r"(?:deletes|destroys|wipes|erases|loses|nukes|clobbers|corrupts|delete|destroy|wipe|erase|lose|nuke|clobber"
    r"|corrupt)\b"
    # ... a loss, not a clean-up ("it removes the stale lock" recommends it).
    r"(?!\s+(?:the\s+|all\s+|any\s+|every\s+)?(?:stale|old|broken|bad|temp|tmp|cache[sd]?|lock(?:s|file)?|build"
    r"|leftover|corrupt(?:ed)?|unused|dangling|orphan(?:ed|s)?|junk|garbage|duplicates?)\b)",
    re.I,
)
# Only a destructive command can be warned against by naming what it destroys.
_DESTRUCTIVE = frozenset(
    {
        "recursive delete of a root, home, project or system folder",
        "formats a disk",
        "overwrites a raw device",
        "force-push over shared history",
        "discards work (reset --hard, clean -f, checkout .)",
        "drops database objects",
        "destroys infrastructure or volumes",
        "destroys data",
    }
)

# A loss described as what would happen ("the suite … would wipe the dev database").
_HYPOTHETICAL_BEFORE = re.compile(r"(?i)\b(?:would|could|might)\s+(?:\w+\s+)?$")
_PREFERRED_OVER = re.compile(r"\bprefer\w*\b[^.;\n]{0,80}\b(?:over|than|to)\s*[`\"'(]?\s*$", re.I)


def _negated(text: str, start: int, end: int, destructive: bool = False) -> bool:
    """Is the mention at ``text[start:end]`` a warning against it (same sentence)?

    ``destructive``: the mention destroys something, so naming the loss right
    after it ("`X` (it deletes the volumes)") is a warning too.
    """
    before = text[max(0, start - 80) : start]
    before = re.split(r"[.!?\n;]\s", before)[-1]
    if _PREFERRED_OVER.search(before):
        return True  # "prefer `git revert` over `git push --force`"
    found = _NEGATED_BEFORE.search(before)
    if found and not _DOUBLE_NEGATION.search(before[: found.start("neg")]):
        return True
    if _MISTAKE_BEFORE.search(text[max(0, start - 320) : start]):
        return True
    after = text[end : end + 120]
    if _NEGATED_AFTER.match(after) or (destructive and _CONSEQUENCE_AFTER.match(after)):
        return True
    if _HYPOTHETICAL_BEFORE.search(before):
        return True  # "… and would wipe the dev database": what the mistake does, not advice
    # "`X` hides errors and must not be used": a prohibition later in the same clause.
    clause = re.split(r"[.!?\n;]\s", after)[0]
    return bool(_PROHIBITED_LATER.search(clause))


def _mention_end(text: str, start: int, end: int) -> int:
    """Extend a match to the end of its backticked span (so "`X` failed" is seen)."""
    tick = text.rfind("`", 0, start)
    if tick >= 0 and text.count("`", 0, tick) % 2 == 0:
        close = text.find("`", end)
        if close >= 0:
            return close + 1
    return end


def _mention_start(text: str, start: int) -> int:
    """Back up to the opening backtick of the mention's span ("never `X`")."""
    tick = text.rfind("`", 0, start)
    if tick >= 0 and text.count("`", 0, tick) % 2 == 0 and "\n" not in text[tick:start]:
        return tick
    return start


_FETCH_TO_FILE = re.compile(
    rf"\b{_FETCH}\b[^\n]{{0,300}}?(?:\s(?:-o|-O|--output|--output-document)[\s=]*[\"']?(?P<out>[^\s\"';&|]+)"
    r"|(?P<url>https?://[^\s\"';&|]+/(?P<base>[\w.-]+\.(?:sh|bash|py|pl|rb|ps1|run|bin|exe))\b))",
    re.I,
)
MAX_REVIEW_CHARS = 20_000


def _download_then_run(text: str) -> bool:
    """A fetched file that the same lesson then executes (``curl -o x.sh …; bash x.sh``)."""
    for m in _FETCH_TO_FILE.finditer(text):
        name = m.group("out") or m.group("base")
        if not name:
            continue
        base = re.escape(name.rsplit("/", 1)[-1])
        after = text[m.end() : m.end() + 400]
        run = re.search(
            rf"(?:\b(?:{_SHELLS}|source|chmod\s+\+x)\s+(?:-\S+\s+){{0,3}}[\"']?\S*{base}\b|(?:^|[\s;&|])\.?/\S*{base}\b)",
            after,
            re.I,
        )
        if run and not _negated(text, m.start(), m.end()):
            return True
    return False


# A key or config file handed to ssh/scp/rsync as an option (``-i key``,
# ``-e 'ssh -i key'``, ``-o IdentityFile=key``) is used to log in, not sent: it
# is masked before the exfiltration rules read the text. A secret path as an
# operand (``rsync ~/.ssh host:``) is not an option value and stays visible.
_KEY_OPTION = re.compile(
    r"((?:\b(?:ssh|scp|sftp|rsync|sshfs|autossh)\b(?!-)|\bGIT_SSH_COMMAND\b|\bsshCommand\b)[^\n|;&]{0,200}?"
    r"\s(?:-i|-F|--identity(?:-file)?|-o\s*(?:IdentityFile|UserKnownHostsFile|CertificateFile)\s*=?)"
    r"[\s=]*[\"']?)([^\s\"';&|`)]{1,200})",
    re.I,
)


def _mask_key_options(text: str) -> str:
    """Same length, key paths given to ``-i``/``-F``/``IdentityFile`` blanked out."""
    return _KEY_OPTION.sub(lambda m: m.group(1) + "K" * len(m.group(2)), text)


def _mistakes_of(structured: dict[str, Any] | None) -> list[str]:
    """The commands of a structured lesson's *mistake* slot (what not to do)."""
    mistake = (structured or {}).get("mistake")
    if not isinstance(mistake, dict):
        return []
    found = [mistake.get("command")] + list(mistake.get("variants") or [])
    return [c.strip() for c in found if isinstance(c, str) and c.strip()]


def _span_at(text: str, pos: int) -> str | None:
    """The backticked span that contains ``pos`` (without the ticks), if any."""
    tick = text.rfind("`", 0, pos + 1)
    if tick < 0 or text.count("`", 0, tick) % 2:
        return None
    close = text.find("`", tick + 1)
    if close < pos or "\n" in text[tick:close]:
        return None
    return text[tick + 1 : close]


def _in_mistake(text: str, pos: int, mistakes: list[str]) -> bool:
    """Is the mention at ``pos`` a quote of the mistake slot's command?"""
    span = _span_at(text, pos) if mistakes else None
    if not span:
        return False
    quoted = span.strip().rstrip("…").rstrip()
    # The lesson text may shorten a long command ("docker login --username AW…").
    return bool(quoted) and any(m == quoted or (span.rstrip().endswith("…") and m.startswith(quoted)) for m in mistakes)


def _names_mistake(mention: str, mistakes: list[str]) -> bool:
    """The matched words are (case aside) part of one of the mistake's commands."""
    words = " ".join(mention.split()).lower()
    return len(words) >= 3 and any(words in " ".join(m.split()).lower() for m in mistakes)


def _flags_of_mistake(mention: str, mistakes: list[str]) -> bool:
    """The mention's long flags (``--no-verify``) are all flags of one of the mistake's commands."""
    flags = {w for w in mention.split() if w.startswith("--") and len(w) > 3}
    return bool(flags) and any(flags <= set(m.split()) for m in mistakes)


@functools.cache
def _required_literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lowercase strings one of which every match of ``pattern`` contains, read
    from its parsed form (None when no such set is known). :func:`classify`
    skips a rule whose strings are all absent from an ASCII text: a bulk import
    classifies every lesson, and most rules cannot match most lessons. Only a
    necessary condition: the rule itself still decides."""
    try:
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_constants as c
        import sre_parse as _parser

    def seq(items: Any) -> set[str] | None:
        best: set[str] | None = None
        run: list[str] = []

        def consider(found: set[str] | None) -> None:
            nonlocal best
            if found and min(map(len, found)) >= 2:
                if best is None or min(map(len, found)) > min(map(len, best)):
                    best = found

        for op, arg in items:
            if op is c.LITERAL:
                run.append(chr(arg).lower())
                continue
            consider({"".join(run)} if run else None)
            run = []
            if op is c.SUBPATTERN:
                consider(seq(arg[-1]))
            elif op is c.BRANCH:
                alts = [seq(branch) for branch in arg[1]]
                if all(alts):
                    consider(set().union(*alts))  # type: ignore[arg-type]
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] >= 1:
                consider(seq(arg[2]))
        consider({"".join(run)} if run else None)
        return best

    found = seq(_parser.parse(pattern.pattern, pattern.flags))
    return tuple(sorted(found)) if found else None


def classify(text: str, structured: dict[str, Any] | None = None) -> list[str]:
    """Why this lesson text must be held for review ([] if it may be shown).

    Each reason names a category (e.g. ``network fetch piped to a shell``)
    for a mention that is not plainly negated. Text past
    :data:`MAX_REVIEW_CHARS` is not read; such a lesson is held for its length.
    ``structured`` (``Experience.structured``): a quoted command of its
    *mistake* slot is what the lesson says not to do, so it is never held for
    itself — only the fix and the prose advice can be instructions.
    """
    if not text:
        return []
    reasons: list[str] = []
    if len(text) > MAX_REVIEW_CHARS:
        reasons.append("too long to review")
        text = text[:MAX_REVIEW_CHARS]
    original, text = text, _mask_key_options(text)
    mistakes = _mistakes_of(structured)
    # A user's correction is the user's own words: a mention of the very command it corrects is
    # what not to do, wherever it stands ("don't bypass the hooks with --no-verify").
    user_said = ((structured or {}).get("evidence") or {}).get("kind") == "correction"
    lowered = text.lower() if text.isascii() else None  # ASCII: lower() is exactly what re.I folds
    for category, pattern in RULES:
        if category in reasons:
            continue
        needles = _required_literals(pattern)
        if lowered is not None and needles is not None and not any(n in lowered for n in needles):
            continue  # none of the strings every match contains: the rule cannot match
        for match in pattern.finditer(text):
            end = _mention_end(text, match.start(), match.end())
            if category in _ALWAYS_HELD:
                reasons.append(category)
                break
            start = _mention_start(text, match.start())
            if _in_mistake(original, match.start(), mistakes):
                continue  # the command that went wrong: what not to do
            if user_said and (_names_mistake(match.group(0), mistakes) or category in _DESTRUCTIVE):
                # The user's own correction: naming what went wrong ("never FLUSHALL here"), or
                # telling the agent which destructive step is the right one ("FLUSHDB on db 2").
                # Injection-shaped text (fetch-and-run, exfiltration) is held even from a user.
                continue
            if category in _KEPT_FROM_THE_MISTAKE and _names_mistake(match.group(0), mistakes):
                # "`mvn package -DskipTests` failed; `mvn -s x.xml package -DskipTests` worked": the
                # agent's own choice, in the call that failed too; the lesson does not bring it in.
                continue
            if _flags_of_mistake(match.group(0), mistakes) and in_negated_parenthesis(text[:start]):
                continue  # "never skip the hooks (git commit --no-verify)": the lesson's own mistake, forbidden
            if not _negated(text, start, end, category in _DESTRUCTIVE):
                reasons.append(category)
                break
    if "download and execute" not in reasons and _download_then_run(text):
        reasons.append("download and execute")
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
    """Every lesson waiting for review, oldest first (found by their tag, not by reading every lesson)."""
    from twiceshy.memory.listing import tagged

    found = tagged(store, HOLD_TAG)
    if found is None:  # not an embedded store of the known layout: read them all
        found = [e for e in store.all() if is_held(e)]
    return sorted(found, key=lambda e: e.created_at)


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
