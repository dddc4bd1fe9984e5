"""The vocabulary of the judgement corpus: incidents, session steps, probes.

An :class:`Incident` is one mistake an agent made in "session 1" and what a
careful reviewer who watched that session expects in a later session:

* ``session`` — the steps of session 1, agent-neutral (the transcript
  builder, :mod:`judgement.transcripts`, writes them in the incident agent's
  real log format: a Claude Code session log, a Codex rollout or a Gemini chat);
* ``mistake`` / ``lesson`` — what a user would type for the *taught* mode
  (``twiceshy learn "<lesson>" --trigger "<mistake>" --project``);
* ``warn`` — probes that repeat the mistake (``same``: the identical call;
  ``reword``: another package / path / value, the same mistake). A reviewer who
  saw session 1 wants a warning before each of them;
* ``silent`` — probes that must stay silent (``fix``: the corrected call,
  ``other``: the same program with unrelated arguments, ``help``: ``--help``
  and friends, ``code``: an edit that is fine).

Probes are the agent's next tool call, sent as that agent's own pre-tool
hook payload (Claude Code ``PreToolUse``, Codex ``PreToolUse``, Gemini
``BeforeTool``). A string is a shell command; :func:`E` / :func:`W` / :func:`R`
are an edit, a file write, a file read (paths relative to the project root).

Stdlib only; nothing here imports twiceshy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Shapes (issue 16 §6)
ERROR_FIX = "error_fix"
CORRECTION = "correction"
MARKER = "marker"
TEST_FIX = "test_fix"
RETRY = "retry"
SHAPES = (ERROR_FIX, CORRECTION, MARKER, TEST_FIX, RETRY)

# Agents
CC = "claude-code"
CODEX = "codex"
GEMINI = "gemini"
AGENTS = (CC, CODEX, GEMINI)


# --------------------------------------------------------------------------
# Session steps
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    kind: str  # user | say | bash | edit | write | read | reject | reject_edit | interrupt
    text: str = ""  # user / assistant text, shell command
    output: str = ""  # tool output
    error: bool = False
    path: str = ""
    old: str = ""
    new: str = ""
    reason: str = ""  # a rejection's typed reason ("" = plain rejection)


def U(text: str) -> Step:
    """The user types ``text``."""
    return Step("user", text)


def A(text: str) -> Step:
    """The assistant says ``text`` (marker lines go here)."""
    return Step("say", text)


def ok(command: str, output: str = "") -> Step:
    """A shell call that worked."""
    return Step("bash", command, output)


def err(command: str, output: str, code: int = 1) -> Step:
    """A shell call that failed with exit code ``code``."""
    return Step("bash", command, output, error=True, reason=str(code))


def edit(path: str, old: str, new: str) -> Step:
    return Step("edit", path=path, old=old, new=new)


def write(path: str, content: str) -> Step:
    return Step("write", path=path, new=content)


def read(path: str, content: str) -> Step:
    return Step("read", path=path, output=content)


def reject(command: str, reason: str = "") -> Step:
    """The user rejects a shell call; ``reason`` is what they typed in the
    permission prompt (Claude Code passes it to the model inside the result)."""
    return Step("reject", command, reason=reason)


def reject_edit(path: str, old: str, new: str, reason: str = "") -> Step:
    return Step("reject_edit", path=path, old=old, new=new, reason=reason)


# --------------------------------------------------------------------------
# Probes
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """A tool call that is not a shell command."""

    tool: str  # Edit | Write | Read
    path: str
    old: str = ""
    new: str = ""  # Edit: new_string; Write: content

    def describe(self) -> str:
        body = self.new.strip().splitlines()
        first = body[0] if body else ""
        return f"{self.tool} {self.path}: {first[:70]}"


def E(path: str, old: str, new: str) -> Action:
    return Action("Edit", path, old, new)


def W(path: str, content: str) -> Action:
    return Action("Write", path, new=content)


def R(path: str) -> Action:
    return Action("Read", path)


ActionLike = str | Action

# Probe kinds
SAME, REWORD = "same", "reword"  # must warn
FIX, OTHER, HELP, CODE = "fix", "other", "help", "code"  # must stay silent
EVERYDAY = "everyday"


@dataclass(frozen=True)
class Probe:
    kind: str
    action: ActionLike

    @property
    def must_warn(self) -> bool:
        return self.kind in (SAME, REWORD)

    def describe(self) -> str:
        return self.action if isinstance(self.action, str) else self.action.describe()


def same(action: ActionLike) -> Probe:
    return Probe(SAME, action)


def reword(action: ActionLike) -> Probe:
    return Probe(REWORD, action)


def fix(action: ActionLike) -> Probe:
    return Probe(FIX, action)


def other(action: ActionLike) -> Probe:
    return Probe(OTHER, action)


def help_(action: ActionLike) -> Probe:
    return Probe(HELP, action)


def code(action: ActionLike) -> Probe:
    return Probe(CODE, action)


# --------------------------------------------------------------------------
# Incidents
# --------------------------------------------------------------------------


@dataclass
class Incident:
    id: str
    shape: str
    agent: str
    project: str
    session: list[Step]
    mistake: str
    lesson: str
    warn: list[Probe]
    silent: list[Probe]
    variants: tuple[str, ...] = ()  # diagnostic, other_program, long_output, rejection, rejection_reason, intervening
    number: int = 0  # 1-based position in the corpus; fixes the session id

    @property
    def session_id(self) -> str:
        """A stable, agent-plausible session id (a UUID)."""
        n = self.number
        return f"{n:08x}-{abs(hash_str(self.id)) % 0xFFFF:04x}-4000-8000-{n:012x}"

    def probes(self) -> list[Probe]:
        return list(self.warn) + list(self.silent)


def hash_str(text: str) -> int:
    """A deterministic string hash (``hash()`` is salted per process)."""
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % 1_000_000_007
    return value


@dataclass(frozen=True)
class Everyday:
    """An everyday call in a project: must stay silent whatever was learned."""

    project: str
    action: ActionLike
    agent: str = CC

    def describe(self) -> str:
        return self.action if isinstance(self.action, str) else self.action.describe()


@dataclass
class Corpus:
    incidents: list[Incident] = field(default_factory=list)
    everyday: list[Everyday] = field(default_factory=list)

    def check(self) -> list[str]:
        """Problems with the corpus itself (ids, shapes, probe counts)."""
        problems = []
        seen = set()
        for inc in self.incidents:
            if inc.id in seen:
                problems.append(f"{inc.id}: duplicate id")
            seen.add(inc.id)
            if inc.shape not in SHAPES:
                problems.append(f"{inc.id}: unknown shape {inc.shape}")
            if inc.agent not in AGENTS:
                problems.append(f"{inc.id}: unknown agent {inc.agent}")
            kinds = {p.kind for p in inc.warn}
            if SAME not in kinds or REWORD not in kinds:
                problems.append(f"{inc.id}: needs an identical and a reworded must-warn probe")
            if any(not p.must_warn for p in inc.warn) or any(p.must_warn for p in inc.silent):
                problems.append(f"{inc.id}: probe kinds in the wrong list")
            if len(inc.silent) < 2:
                problems.append(f"{inc.id}: needs two must-stay-silent probes")
            if not inc.mistake or not inc.lesson:
                problems.append(f"{inc.id}: taught mode needs a mistake and a lesson")
        return problems
