"""Lesson extractors: pure functions from a session transcript to lesson candidates.

One function per signal, each ``list[TranscriptEntry] -> list[LessonCandidate]``:

* :func:`error_then_success` — a tool call failed and a *different* call of the
  same tool then worked: the lesson is what changed.
* :func:`retry_loops` — the same failing call repeated three or more times.
* :func:`test_fail_then_pass` — a test run failed, files were edited, the tests
  passed: the lesson names the failure and the files that fixed it.
* :func:`user_corrections` — the user pushed back ("no, don't…", "use X instead").
* :func:`markers` — ``LEARNING:`` / ``GOTCHA:`` / ``DECISION:`` / ``PATTERN:`` /
  ``FINDING:`` lines the assistant wrote in its own words.

Trust rule: only the agent's own words (assistant text, the calls it made),
the user's words and *observed outcomes* (did a call fail or succeed) teach.
Text inside tool output or file contents never becomes a lesson by itself: a
marker line is dropped when its body also appears in any tool result or file
content of the session (the assistant merely echoed something it read). Tool
output is evidence, never advice (:mod:`twiceshy.lesson.evidence`): a failure's
error line is kept in ``structured["why"]`` (redacted at store), and the
lesson's text names only the error *kind* twiceshy recognised in it, with no
word of the output that the calls do not also contain.

Candidates may carry stance tags ``prefer:<thing>`` / ``avoid:<thing>``; the
learning module uses them to tell a contradiction (supersede) from a repeat
(dedup). Stdlib only; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from twiceshy.base.types import CoreEvent, LessonCandidate, TranscriptEntry
from twiceshy.hooks.match import call_parts, matches
from twiceshy.lesson import signature as sg
from twiceshy.lesson.evidence import error_kind

MAX_ACTION = 200  # characters of a command quoted in a lesson
MAX_EXCERPT = 160  # characters of an error line quoted as evidence
LOOKAHEAD = 8  # calls after a failure searched for the working alternative

MARKER_RE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(LEARNING|GOTCHA|DECISION|PATTERN|FINDING)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.+?)\s*$",
    re.I,
)
_EXIT_RE = re.compile(
    r"(?i)^\s*(?:exit code|exit status|process exited with code|command failed with exit code)[:\s]+([1-9]\d*)"
)
_ERROR_LINE_RE = re.compile(
    r"(?i)(error|failed|failure|not found|denied|exception|fatal|cannot|can't|unable|refused|invalid|no such|"
    r"traceback|externally-managed|conflict|rejected|unknown|missing|timed out|timeout)"
)
_WORD_RE = re.compile(r"[A-Za-z0-9_./@:+=-]+")
_BACKTICK_RE = re.compile(r"`([^`\n]{1,120})`")

EDIT_TOOLS = {
    "edit", "multiedit", "write", "notebookedit", "apply_patch", "write_file", "replace", "edit_file",
    "str_replace_based_edit_tool", "create_file",
}  # fmt: skip
READ_TOOLS = {"read", "notebookread", "read_file", "view", "read_many_files", "open_file"}
SHELL_TOOLS = {"bash", "shell", "run_shell_command", "exec_command", "local_shell", "terminal", "run_terminal_cmd"}

TEST_RE = re.compile(
    r"(?:^|[\s;&|(/])(?:pytest|py\.test|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest|"
    r"(?:python\d?(?:\.\d+)?\s+-m\s+(?:pytest|unittest))|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test\b|go\s+test\b|cargo\s+(?:test|nextest)\b|"
    r"mvn\s+(?:\S+\s+)*test\b|gradlew?\s+(?:\S+\s+)*test\b|make\s+(?:\S+\s+)*(?:test|check)\b|dotnet\s+test\b|"
    r"mix\s+test\b|bundle\s+exec\s+rspec)"
)
BUILD_RE = re.compile(
    r"(?:^|[\s;&|(/])(?:make\b|tsc\b|(?:npm|pnpm|yarn|bun)\s+run\s+(?:build|lint|typecheck|check)\b|"
    r"cargo\s+(?:build|check|clippy)\b|go\s+(?:build|vet)\b|mvn\s+\S*(?:compile|package|verify)|gradlew?\s+build\b|"
    r"python\d?(?:\.\d+)?\s+-m\s+(?:build|compileall|mypy)|mypy\b|ruff\b|flake8\b|eslint\b|dotnet\s+build\b)"
)

# What a user says when correcting the agent. Anchored cues only: "no" must open
# the message; "don't"/"never" must be followed by a verb-ish word.
_CORRECTION_RES = [
    re.compile(r"(?i)^\s*(?:no|nope|wrong|stop|wait)\b[\s,.!:;-]"),
    re.compile(r"(?i)\b(?:don'?t|do not|never|stop|avoid)\s+[`'\"]?-{0,2}(?:\w+)"),  # "never -x here"
    re.compile(r"(?i)\binstead\b"),
    re.compile(r"(?i)\b(?:that'?s|that is|this is)\s+(?:wrong|incorrect|not (?:right|what))"),
    re.compile(r"(?i)\bshould(?:n'?t| not)\b"),
    re.compile(r"(?i)\b(?:please\s+)?(?:always|only)\s+use\b"),
    # "Always pass the env's values file", "always add --no-update": an instruction about every such call.
    re.compile(r"(?i)(?:^|[.!?;:—–]\s*)(?:please\s+)?always\s+(?:pass|add|set|give|include|specify|run|go|put|keep)\b"),
    # "Revert that and use …", "undo it": what the agent just did was wrong.
    re.compile(r"(?i)\b(?:revert|undo|roll\s*back)\s+(?:that|this|it|those|these)\b"),
    # "we use pnpm here, not npm", "use uv, not pip", "not npm — use pnpm add"
    re.compile(r"(?i)\bwe\s+(?:always\s+)?(?:use|run)\s+[`'\"]?[\w./@:+-]+[^.!?\n]{0,40}?,?\s+not\s+[`'\"]?\w"),
    re.compile(r"(?i)\buse\s+[`'\"]?[\w./@:+-]+(?:\s+[\w./@:+-]+)?[`'\"]?\s*[,;—–-]\s*not\s+[`'\"]?\w"),
    re.compile(r"(?i)\bnot\s+[`'\"]?[\w./@:+-]+[`'\"]?\s*[,;—–-]+\s*(?:use|run)\s+\S"),
]
_INJECTED_PREFIXES = ("<", "[request interrupted", "caveat:", "this session is being continued")
_SYSTEM_BLOCK_RE = re.compile(r"<system-reminder>.*?</system-reminder>", re.S | re.I)

# Stance phrases: "use X instead of Y", "prefer X over Y", "don't use X", "never X".
_INSTEAD_OF_RE = re.compile(
    r"(?i)\b(?:use|run|try|prefer|call|pick)\s+(`[^`]+`|[\w./@:+-]+(?:\s+[\w./@:+-]+)?)\s+(?:instead\s+of|rather\s+than|over|not)\s+(`[^`]+`|[\w./@:+-]+(?:\s+[\w./@:+-]+)?)"
)
_X_INSTEAD_RE = re.compile(r"(?i)\b(?:use|run|try|prefer)\s+(`[^`]+`|[\w./@:+-]+)\s+instead\b")
_NEGATIVE_RE = re.compile(
    r"(?i)\b(?:don'?t|do not|never|avoid|stop)\s+(?:use|using|run|running|call|calling|do|doing)?\s*(`[^`]+`|[\w./@:+-]+(?:\s+[\w./@:+-]+)?)"
)
_POSITIVE_RE = re.compile(r"(?i)\b(?:always|prefer|only)\s+(?:use|run|call)?\s*(`[^`]+`|[\w./@:+-]+)")

_DOMAIN_BY_EXT = {
    ".py": "python", ".pyi": "python", ".ipynb": "python", ".js": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".go": "go",
    ".rs": "rust", ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".php": "php", ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".swift": "swift", ".scala": "scala",
    ".sh": "shell", ".bash": "shell", ".sql": "sql", ".md": "docs", ".rst": "docs", ".yml": "yaml",
    ".yaml": "yaml", ".toml": "config", ".json": "json", ".html": "web", ".css": "web", ".tf": "terraform",
    ".dockerfile": "docker",
}  # fmt: skip
_DOMAIN_BY_PROGRAM = {
    "pip": "python", "pip3": "python", "python": "python", "python3": "python", "pytest": "python",
    "poetry": "python", "uv": "python", "tox": "python", "mypy": "python", "ruff": "python",
    "npm": "javascript", "npx": "javascript", "pnpm": "javascript", "yarn": "javascript", "node": "javascript",
    "bun": "javascript", "tsc": "typescript", "jest": "javascript", "vitest": "javascript",
    "go": "go", "cargo": "rust", "rustc": "rust", "mvn": "java", "gradle": "java", "gradlew": "java",
    "bundle": "ruby", "gem": "ruby", "rspec": "ruby", "docker": "docker", "kubectl": "kubernetes",
    "helm": "kubernetes", "terraform": "terraform", "git": "git", "make": "build",
}  # fmt: skip
_WRAPPERS = {"sudo", "env", "time", "nohup", "exec", "command", "xargs", "nice"}


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------


@dataclass
class Step:
    """One tool call with its result (``None`` when the log has no result)."""

    index: int
    call: TranscriptEntry
    result: TranscriptEntry | None

    @property
    def tool(self) -> str:
        return self.call.tool_name

    @property
    def action(self) -> str:
        return action_text(self.call)

    @property
    def failed(self) -> bool:
        return self.result is not None and result_failed(self.result)

    @property
    def succeeded(self) -> bool:
        return self.result is not None and not result_failed(self.result)

    @property
    def blocked_by_us(self) -> bool:
        """A call twiceshy itself denied: already a lesson, never a new one."""
        return self.result is not None and "blocked by twiceshy" in (self.result.text or "")[:200].lower()

    @property
    def output(self) -> str:
        return self.result.text if self.result is not None else ""


def action_text(call: TranscriptEntry) -> str:
    """The text a lesson about this call is matched on — the same string
    ``CoreEvent.action_text`` gives at pre_tool, so triggers line up."""
    event = CoreEvent(
        kind="pre_tool", agent="", native_event="", tool_name=call.tool_name, tool_input=call.tool_input or {}
    )
    return event.action_text()


def result_failed(result: TranscriptEntry) -> bool:
    """Did this tool result report a failure (error flag or non-zero exit)?"""
    if result.is_error:
        return True
    first = (result.text or "").lstrip().split("\n", 1)[0]
    return bool(_EXIT_RE.match(first))


def pair_steps(entries: list[TranscriptEntry]) -> list[Step]:
    """Tool calls in order, each with its result (matched by id, else the next result)."""
    steps: list[Step] = []
    by_id: dict[str, Step] = {}
    pending: list[Step] = []
    for index, entry in enumerate(entries):
        if entry.source == "tool_call":
            step = Step(index=index, call=entry, result=None)
            steps.append(step)
            if entry.tool_use_id:
                by_id[entry.tool_use_id] = step
            pending.append(step)
        elif entry.source == "tool_result":
            found = by_id.get(entry.tool_use_id) if entry.tool_use_id else None
            if found is None:
                found = next((s for s in pending if s.result is None), None)
            if found is not None and found.result is None:
                found.result = entry
                if found in pending:
                    pending.remove(found)
    return steps


def words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def similarity(a: str, b: str) -> float:
    """Token Jaccard similarity of two actions (cheap, deterministic)."""
    wa, wb = set(words(a)), set(words(b))
    if not wa and not wb:
        return 1.0
    return len(wa & wb) / len(wa | wb)


def normalize(text: str) -> str:
    return " ".join(text.lower().split())


def short(text: str, limit: int = MAX_ACTION) -> str:
    """One line, at most ``limit`` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_SPECIFIC_ERROR_RE = re.compile(r"^(?:E\s+\S|FAILED\b|ERROR\b|error\b|fatal\b|\w*(?:Error|Exception)\b)", re.I)
_SEPARATOR_RE = re.compile(r"^[\s=_\-*#~.]*(?:\w+[\s=_\-*#~.]*){0,3}$")
REJECTED_PREFIX = "the user doesn't want to proceed with this tool use"


def error_excerpt(text: str) -> str:
    """The most telling line of an error output, never a marker-looking line.

    Prefers a specific error line (``E   KeyError…``, ``error: …``,
    ``FAILED …``), then any line naming a failure; banner lines like
    ``=== FAILURES ===`` are skipped.
    """
    if (text or "").strip().lower().startswith(REJECTED_PREFIX):
        return "rejected by the user"
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if not MARKER_RE.match(ln) and not _EXIT_RE.match(ln)]
    banners = {ln for ln in lines if _SEPARATOR_RE.match(ln) and re.search(r"[=_\-*#~]{3}", ln)}
    lines = [ln for ln in lines if ln not in banners]
    for line in lines:
        if _SPECIFIC_ERROR_RE.match(line):
            return short(line, MAX_EXCERPT)
    for line in lines:
        if _ERROR_LINE_RE.search(line):
            return short(line, MAX_EXCERPT)
    return short(lines[0], MAX_EXCERPT) if lines else "no output"


def program_of(command: str) -> str:
    """The program a shell command runs, past sudo/env/VAR=x and ``python -m``."""
    tokens = command.strip().split()
    i = 0
    while i < len(tokens) and (tokens[i] in _WRAPPERS or re.match(r"^[A-Z_][A-Z0-9_]*=", tokens[i])):
        i += 1
    if i >= len(tokens):
        return ""
    prog = tokens[i].rsplit("/", 1)[-1]
    if re.match(r"^python\d?(\.\d+)?$", prog) and i + 2 < len(tokens) and tokens[i + 1] == "-m":
        return tokens[i + 2]
    return prog


def topic_of(trigger: str) -> str:
    """A short stable key grouping lessons about the same thing (a timeline).

    A command gives program plus subcommand ("pip install", "git push"); a
    file tool gives tool plus file name; other text its first backticked
    command, else its first three content words.
    """
    text = (trigger or "").strip()
    span = _BACKTICK_RE.search(text)
    for candidate in ([span.group(1)] if span else []) + [text.split("\n", 1)[0]]:
        tokens = candidate.split()
        if not tokens:
            continue
        if tokens[0].lower() in EDIT_TOOLS | READ_TOOLS and len(tokens) > 1:
            return f"{tokens[0].lower()} {tokens[1].rsplit('/', 1)[-1]}"
        prog = program_of(candidate).lower()
        if re.sub(r"\d+(\.\d+)*$", "", prog) in _DOMAIN_BY_PROGRAM:
            tokens = [re.sub(r"\d+(\.\d+)*$", "", t) if t.rsplit("/", 1)[-1].lower() == prog else t for t in tokens]
            prog = re.sub(r"\d+(\.\d+)*$", "", prog)  # pip3 -> pip, python3.11 -> python
        if prog in _DOMAIN_BY_PROGRAM:
            rest = (
                tokens[[t.rsplit("/", 1)[-1].lower() for t in tokens].index(prog) + 1 :]
                if prog in [t.rsplit("/", 1)[-1].lower() for t in tokens]
                else []
            )
            sub = next((t for t in rest if re.match(r"^[a-z][a-z0-9_-]*$", t)), "")
            return f"{prog} {sub}".strip()
    content = [w for w in words(text) if len(w) > 2 and w not in _STOPWORDS][:3]
    return " ".join(content)


_STOPWORDS = {
    "the", "and", "for", "not", "use", "don't", "dont", "never", "always", "with", "this", "that", "when",
    "instead", "before", "after", "from", "into", "you", "your", "are", "was", "were", "should", "must",
}  # fmt: skip


def domains_of(texts: list[str]) -> list[str]:
    """Language/domain tags from file extensions and program names in ``texts``."""
    found: list[str] = []
    for text in texts:
        for token in words(text):
            stem, dot, last = token.rpartition(".")
            ext = "." + last if dot and stem and not stem.endswith("/") else ""
            dom = _DOMAIN_BY_EXT.get(ext) or _DOMAIN_BY_PROGRAM.get(token.rsplit("/", 1)[-1])
            if dom and dom not in found:
                found.append(dom)
    return found


_FUNCTION_WORDS = {
    "a", "an", "the", "with", "to", "in", "on", "for", "it", "this", "that", "these", "those", "here", "there",
    "now", "please", "because", "since", "as", "when", "so", "and", "or", "but", "again", "too", "also", "any",
    "of", "by", "at", "from", "into", "be", "is", "are", "if", "then", "ever", "just", "me", "you", "we",
}  # fmt: skip


def _clean_thing(thing: str) -> str:
    """A stance object without surrounding punctuation and trailing filler
    ("yarn here" -> "yarn"); empty when it starts with a function word."""
    value = normalize(thing.strip("` .,;:!?\"'"))
    if thing.strip().startswith("`"):
        return value
    parts = value.split()
    while parts and parts[-1].strip(".,;:!?") in _FUNCTION_WORDS:
        parts.pop()
    if not parts or parts[0] in _FUNCTION_WORDS:
        return ""
    return " ".join(p.strip(".,;:!?") for p in parts)


def stance_tags(text: str) -> list[str]:
    """``prefer:x`` / ``avoid:y`` tags read from advice like "use X instead of Y"."""
    tags: list[str] = []

    def add(kind: str, thing: str) -> None:
        value = _clean_thing(thing)
        if value and len(value) <= 80 and f"{kind}:{value}" not in tags:
            tags.append(f"{kind}:{value}")

    for m in _INSTEAD_OF_RE.finditer(text):
        add("prefer", m.group(1))
        add("avoid", m.group(2))
    if not any(t.startswith("prefer:") for t in tags):
        for m in _X_INSTEAD_RE.finditer(text):
            add("prefer", m.group(1))
        for m in _NEGATIVE_RE.finditer(text):
            add("avoid", m.group(1))
        for m in _POSITIVE_RE.finditer(text):
            add("prefer", m.group(1))
    return tags


def _shell_like(step: Step) -> bool:
    return step.tool.lower() in SHELL_TOOLS or bool(step.call.tool_input.get("command"))


_TEST_PROGRAMS = {
    "pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "tap", "karma", "jasmine", "rspec",
    "phpunit", "pest", "ctest", "nextest", "unittest", "behave", "cucumber", "cucumber-js", "playwright", "cypress",
    "bats", "busted", "prove", "trial", "green", "ward", "hypothesis", "testthat", "minitest", "gotestsum",
}  # fmt: skip
_TEST_SUBS = {"test", "t", "tests", "nextest", "unit", "check", "spec", "e2e", "integration", "verify"}
_SUB_TEST_PROGRAMS = {"npm", "pnpm", "yarn", "bun", "deno", "go", "cargo", "dotnet", "mix", "swift", "zig",
                      "mvn", "mvnw", "gradle", "gradlew", "make", "just", "task", "sbt", "lein", "stack", "cabal",
                      "rake", "rails", "bundle", "composer", "flutter", "dart", "meson", "ninja", "bazel", "buck"}  # fmt: skip


def is_test_command(command: str) -> bool:
    """A test run: a test runner anywhere in the line (``pytest``, ``python -m
    pytest``, ``npx jest``, ``uv run pytest``), a ``test`` subcommand of a
    build tool (``npm test``, ``pnpm --filter web test``, ``go test``, ``cargo
    test``, ``mvn -q test``, ``make test``), ``node --test``, or a script
    named like a test script (``npm run test:unit``)."""
    if not command:
        return False
    for call in sg.parse_command(command):
        progs = [p for p, _ in call.levels]
        if any(p in _TEST_PROGRAMS or p.startswith(("test_", "run_tests", "runtests")) for p in progs):
            return True
        if "--test" in call.flags and "node" in progs or "bun" in progs and "test" in call.tokens:
            return True
        for prog, words in call.levels:
            bare = [w.lower() for w in words if not w.startswith("-")][:4]
            if bare[1:2] and bare[0] in _TASK_HOSTS and bare[1].split(":", 1)[0] in _TEST_SUBS:
                return True  # "php artisan test", "sail artisan test", "bin/rails test", "python manage.py test"
            if prog in ("sbt", "mill") and any(
                task.rsplit("/", 1)[-1].startswith("test") for w in bare for task in re.split(r"[\s;]+", w) if task
            ):
                return True  # "sbt testOnly *Spec", "sbt 'pipeline/testOnly x'", "sbt core/test"
            if prog not in _SUB_TEST_PROGRAMS:
                continue
            if not bare:
                continue
            first = bare[1] if bare[0] == "run" and len(bare) > 1 else bare[0]
            if first in _TEST_SUBS or first.split(":", 1)[0] in ("test", "tests", "e2e", "unit"):
                return True
            if prog in ("mvn", "mvnw", "gradle", "gradlew", "make", "bazel", "sbt") and any(
                w in ("test", "check", "verify") or w.endswith(":test") for w in bare
            ):
                return True
        if any(p in _GOAL_PROGRAMS for p in progs) and any(_a_test_goal(w) for w in call.argv[1:]):
            return True  # "./mvnw -pl x -am test": a goal after a switch; ":app:testDebugUnitTest"
    return bool(TEST_RE.search(command))


# A framework's command runner, run by another program: its first word is the task ("php artisan test").
_TASK_HOSTS = frozenset({"artisan", "manage.py", "rails", "bin/rails", "rake", "console", "bin/console"})

# Build tools whose goals or tasks may follow any option, in any order.
_GOAL_PROGRAMS = frozenset({"mvn", "mvnw", "gradle", "gradlew"})


def _a_test_goal(word: str) -> bool:
    """A Maven goal or Gradle task that runs tests: ``test``, ``verify``, ``surefire:test``,
    ``:app:testDebugUnitTest``, ``connectedAndroidTest`` (not an option or its value)."""
    if word.startswith("-") or "=" in word or "/" in word:
        return False
    task = word.rsplit(":", 1)[-1]
    return (
        task in ("test", "check", "verify")
        or (task.startswith("test") and task[4:5].isupper())
        or task.endswith("Test")
    )


def is_build_command(command: str) -> bool:
    return bool(command) and bool(BUILD_RE.search(command))


def _command(step: Step) -> str:
    value = step.call.tool_input.get("command") if isinstance(step.call.tool_input, dict) else None
    if isinstance(value, list):  # codex-style argv
        value = " ".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def edited_paths(step: Step) -> list[str]:
    """Files a call edited (Edit/Write/MultiEdit/apply_patch and peers)."""
    if step.tool.lower() not in EDIT_TOOLS:
        return []
    tin = step.call.tool_input or {}
    for key in ("file_path", "path", "notebook_path", "absolute_path", "target_file"):
        if isinstance(tin.get(key), str) and tin[key]:
            return [tin[key]]
    patch = tin.get("patch") or tin.get("input") or tin.get("command") or tin.get("content") or ""
    if isinstance(patch, list):
        patch = " ".join(str(p) for p in patch)
    return re.findall(r"\*\*\* (?:Update|Add|Delete) File: (\S+)", str(patch))


def _diff_words(old: str, new: str) -> str:
    """ "added X; removed Y" between two actions, by tokens."""
    wo, wn = words(old), words(new)
    added = [w for w in wn if w not in wo]
    removed = [w for w in wo if w not in wn]
    parts = []
    if added:
        parts.append("added " + " ".join(added[:8]))
    if removed:
        parts.append("dropped " + " ".join(removed[:8]))
    return "; ".join(parts)


def _candidate_key(cand: LessonCandidate) -> str:
    return f"{cand.kind}|{normalize(cand.trigger)}"


def _unique(cands: list[LessonCandidate]) -> list[LessonCandidate]:
    seen: set[str] = set()
    out = []
    for cand in cands:
        key = _candidate_key(cand)
        if key not in seen:
            seen.add(key)
            out.append(cand)
    return out


# --------------------------------------------------------------------------
# Signals
# --------------------------------------------------------------------------

# Program families: a failure with one and a success with another is an
# alternative, not an unrelated next step (npm -> pnpm, pip -> uv).
_FAMILIES = (
    {"npm", "pnpm", "yarn", "bun", "npx", "pnpx", "bunx", "node", "corepack", "nvm"},
    {"pip", "uv", "poetry", "pipenv", "pdm", "python", "pipx", "conda", "hatch", "rye", "uvx", "virtualenv"},
    {"docker", "docker-compose", "podman", "podman-compose"},
    {"psql", "docker", "pg_ctl", "createdb", "mysql"},
    {"make", "just", "task"},
)
_REJECT_CUES = (
    "rejected by the user", "the user rejected", "user rejected", "denied by the user", "the user denied",
    "user declined", "declined by the user", "the user doesn't want to proceed", "tool use was rejected",
    "rejected by user", "denied by user", "declined by user",  # Codex: "exec command rejected by user"
)  # fmt: skip
_REASON_MARKERS = ("the user said:", "user said:", "with the reason:", "reason:", "user feedback:")


def _shell_cmd(step: Step) -> str:
    return _command(step) if _shell_like(step) else ""


def _is_edit(step: Step) -> bool:
    return step.tool.lower() in EDIT_TOOLS


def _is_look(step: Step) -> bool:
    """A call that only looks (reads, searches, listings, status, ``--help``):
    between a failure and its fix it is not the fix."""
    if _is_edit(step):
        return False
    cmd = _shell_cmd(step)
    if cmd:
        return sg.is_diagnostic(cmd)
    return True  # Read, Grep, Glob, LS, WebFetch, todo lists …


def rejection_reason(step: Step) -> str | None:
    """The user's typed reason when they rejected this call ("" for a plain
    rejection); ``None`` when it was not rejected."""
    if step.result is None:
        return None
    text = step.result.text or ""
    low = text[:600].lower()
    if not any(cue in low for cue in _REJECT_CUES):
        return None
    for marker in _REASON_MARKERS:
        k = low.find(marker)
        if k >= 0:
            reason = text[k + len(marker) :].strip()
            return short(reason, 400)
    return ""


def _calls(command: str) -> list[str]:
    """Every program name a line runs, runners and words included (for relatedness)."""
    out: list[str] = []
    for call in sg.parse_command(command):
        out += [p for p, _ in call.levels]
        out += [w.rsplit("/", 1)[-1].lower() for w in call.argv[1:] if _plain_word(w)]
    return out


def _plain_word(word: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9_.-]*$", word.rsplit("/", 1)[-1].lower()))


def related(a: str, b: str) -> bool:
    """May ``b`` be an alternative to the failed ``a``? Same program somewhere,
    one program family, or enough shared words."""
    ca, cb = sg.pick_call(a), sg.pick_call(b)
    if ca is None or cb is None:
        return False
    pa = {p for p, _ in ca.levels}
    pb = {p for p, _ in cb.levels}
    if pa & pb:
        return True
    words_b = set(_calls(b))
    if ca.program in words_b or ca.outer in words_b:
        return True  # "docker compose exec db psql …" runs psql
    for fam in _FAMILIES:
        if pa & fam and pb & fam:
            return True
    if any(x.startswith(y) or y.startswith(x) for x in pa for y in pb if min(len(x), len(y)) >= 3):
        return True  # docker-compose / docker
    return similarity(a, b) >= 0.3


def _names_less(sig: dict, other: dict, text: str) -> bool:
    """Does ``sig`` key on parts ``text`` never names, where ``other`` keys only on named ones?"""
    low = text.lower()

    def named(item: object) -> bool:
        # "-var=env=prod" is named by "prod": a value item by its value's last part.
        alts = [alt.strip("*").lower() for alt in str(item).split("|") if alt.strip("*")]
        return any(alt in low or "=" in alt and alt.rsplit("=", 1)[1] in low for alt in alts)

    mine, theirs = sig.get("present") or [], other.get("present") or []
    return bool(theirs) and all(named(p) for p in theirs) and not all(named(p) for p in mine)


def _user_entries(entries: list[TranscriptEntry]) -> list[int]:
    return [i for i, e in enumerate(entries) if e.source == "user" and _user_text(e)]


def _why(step: Step) -> str:
    """The failure's telling output line: evidence (``structured["why"]``), never lesson text."""
    return error_excerpt(step.output)


def _failed(output: str, calls: list[str]) -> str:
    """The text's words for a failure, `` failed (<kind>)``: the error kind twiceshy
    recognised (:func:`twiceshy.lesson.evidence.error_kind`), never a word of the output."""
    kind = error_kind(output, calls)
    return f" failed ({kind})" if kind else " failed"


@dataclass
class _Episode:
    failures: list[Step]
    fix: Step | None

    @property
    def variants(self) -> list[str]:
        """Distinct failing commands, in order."""
        seen: list[str] = []
        for step in self.failures:
            cmd = _shell_cmd(step)
            if normalize(cmd) not in [normalize(s) for s in seen]:
                seen.append(cmd)
        return seen


def _episodes(steps: list[Step]) -> list[_Episode]:
    """Failing shell attempts at one task and the call that finally worked.

    Diagnostics in between (ls, cat, git status, --help, reads, searches) and
    rejected calls are stepped over; an edit ends the episode (the fix was in
    the code: see :func:`test_fail_then_pass`); so does an unrelated failure.
    """
    out: list[_Episode] = []
    used: set[int] = set()
    for i, step in enumerate(steps):
        cmd = _shell_cmd(step)
        if i in used or not cmd or not step.failed or step.blocked_by_us or rejection_reason(step) is not None:
            continue
        if sg.is_look_program(cmd):
            continue  # a listing or read that failed is not a mistake to remember
        episode = _Episode([step], None)
        looked = 0
        for j in range(i + 1, len(steps)):
            nxt = steps[j]
            if _is_edit(nxt) and rejection_reason(nxt) is None:
                break
            c = _shell_cmd(nxt)
            if not c or nxt.blocked_by_us or rejection_reason(nxt) is not None:
                continue
            # A listing, read or status query is not the fix (``docker buildx ls`` after a failed
            # ``docker buildx build``), unless the mistake was itself a look of that subcommand
            # (``kubectl logs x`` -> ``kubectl logs x -c app``).
            if _is_look(nxt) and not (
                sg.is_diagnostic(cmd) and sg.same_action(cmd, c) or nxt.failed and related(cmd, c)
            ):
                continue
            looked += 1
            if looked > LOOKAHEAD:
                break
            if not related(cmd, c) and not any(related(_shell_cmd(f), c) for f in episode.failures):
                if nxt.failed and not _system_setup(c):
                    break
                continue  # an unrelated step that worked, or a failed try at the machine's setup: keep looking
            if nxt.failed:
                episode.failures.append(nxt)
                used.add(j)
                continue
            if nxt.succeeded:
                episode.fix = _same_program_fix(steps, j, cmd) or nxt
            break
        out.append(episode)
    return out


# Installing into the machine itself: a failed try ("sudo apt-get install libpq-dev" with no
# sudo) is a detour inside the task, not a new task.
_SYSTEM_INSTALLERS = frozenset({"apt", "apt-get", "brew", "yum", "dnf", "apk", "pacman", "port", "zypper", "choco"})


def _system_setup(command: str) -> bool:
    words = command.split()
    return bool(words) and (words[0] == "sudo" or program_of(command) in _SYSTEM_INSTALLERS)


def _same_program_fix(steps: list[Step], j: int, failed: str) -> Step | None:
    """A later call of the failed action that worked, when the call that worked at ``j`` did
    something else: ``docker compose port postgres 5432`` between a failed ``psql -h localhost …``
    and ``psql … -p 5433``, or ``flutter devices`` between a failed ``flutter run`` and ``flutter
    run -d emulator-5554``, found the fix; it was not it. Not when the failed call itself then
    worked unchanged (the other call set something up), nor past an edit or a failure."""
    mistake, found = sg.pick_call(failed), sg.pick_call(_shell_cmd(steps[j]))
    if mistake is None or found is None:
        return None
    if _same_action(found, mistake):
        return None  # the same action, changed: that is the fix
    for k in range(j + 1, min(len(steps), j + 1 + LOOKAHEAD)):
        later = steps[k]
        if _is_edit(later) or later.failed:
            return None
        cmd = _shell_cmd(later)
        call = sg.pick_call(cmd) if cmd else None
        if call is None or not later.succeeded or call.help or not _same_action(call, mistake):
            continue  # another action ("npm run build" after "npm install" -> "pnpm install") is the next task
        return later if normalize(cmd) != normalize(failed) else None
    return None


def _command_lesson_tags(mistake: str, fix: str | None) -> list[str]:
    tags = [f"avoid:{normalize(short(mistake, 80))}"]
    if fix:
        tags.append(f"prefer:{normalize(short(fix, 80))}")
    return domains_of([mistake]) + tags


def error_then_success(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """A failed call and the different call that then worked, across
    diagnostics (ls, cat, git status …) and program changes (npm -> pnpm).

    One failing variant only (several distinct variants are a retry loop:
    :func:`retry_loops`); an identical call that then works teaches nothing
    (flaky). The lesson carries the contrastive signature of the pair.
    """
    out: list[LessonCandidate] = []
    for ep in _episodes(pair_steps(entries)):
        if ep.fix is None or len(ep.variants) != 1:
            continue
        mistake, fix = ep.variants[0], _shell_cmd(ep.fix)
        if sg.work_argv(fix) == sg.work_argv(mistake) and sg.steps_of(fix) == sg.steps_of(mistake):
            continue  # the same call worked on a retry: flaky, nothing to learn ("source .env && …" is not)
        err = _why(ep.failures[-1])
        failed = _failed(ep.failures[-1].output, [mistake, fix])
        changed = _diff_words(mistake, fix)
        text = f"`{short(mistake)}`{failed}; `{short(fix)}` worked instead."
        if changed:
            text += f" What changed: {changed}."
        sig = sg.derive_command(mistake, fix, why=err, output=ep.failures[-1].output)
        out.append(
            LessonCandidate(
                text=text,
                trigger=ep.failures[0].action,
                kind="error_fix",
                evidence=failed.strip(),
                confidence=ERROR_FIX_CONFIDENCE,
                tags=_command_lesson_tags(mistake, fix),
                structured=sg.structured(
                    sg.describe_call(mistake),
                    sg.describe_call(fix),
                    err,
                    sig,
                    "error_fix",
                    "Bash",
                    turn=ep.failures[0].index,
                ),
            )
        )
    return _unique(out)


def retry_loops(entries: list[TranscriptEntry], min_repeats: int = 3) -> list[LessonCandidate]:
    """Several failing variants of one call: ONE lesson from what the variants
    shared and the working call did not. Without a working call, three or
    more failures of the same call."""
    out: list[LessonCandidate] = []
    for ep in _episodes(pair_steps(entries)):
        variants = ep.variants
        attempts = len(ep.failures)
        if ep.fix is not None and len(variants) >= 2:
            fix = _shell_cmd(ep.fix)
            err = _why(ep.failures[-1])
            failed = _failed(ep.failures[-1].output, [*variants, fix])
            shown = ", ".join(f"`{short(v, 80)}`" for v in variants[1:4])
            text = (
                f"`{short(variants[0])}`{failed}; {len(variants) - 1} variant(s) failed too ({shown}); "
                f"`{short(fix)}` worked."
            )
            sig = sg.derive_from_retries(variants, fix, why=err)
        elif ep.fix is None and attempts >= min_repeats:
            fix = None
            err = _why(ep.failures[-1])
            kind = error_kind(ep.failures[-1].output, variants)
            text = (
                f"Repeating `{short(variants[0])}` {attempts} times did not help{f' ({kind})' if kind else ''}; "
                "it never worked. "
                "Read the error and change the approach after the first failure."
            )
            sig = sg.derive_command(variants[0], None, why=err)
            if sig and not all(sg.check(sig, "Bash", {"command": v})[0] for v in variants):
                sig = None
        else:
            continue
        out.append(
            LessonCandidate(
                text=text,
                trigger=ep.failures[0].action,
                kind="retry_loop",
                evidence=f"{attempts} failures of {attempts + (1 if fix else 0)} attempts",
                confidence=0.55 if fix else 0.5,
                tags=_command_lesson_tags(variants[0], fix),
                structured=sg.structured(
                    {**sg.describe_call(variants[0]), "variants": [short(v) for v in variants[:6]]},
                    sg.describe_call(fix) if fix else None,
                    err,
                    sig,
                    "retry_loop",
                    "Bash",
                    turn=ep.failures[0].index,
                ),
            )
        )
    return _unique(out)


_LINE_NO_RE = re.compile(r"^\s*\d+\t", re.M)


def _file_states(steps: list[Step]) -> dict[int, dict[str, str]]:
    """File contents known before each step (from reads and earlier writes/edits)."""
    known: dict[str, str] = {}
    before: dict[int, dict[str, str]] = {}
    for step in steps:
        before[step.index] = dict(known)
        tin = step.call.tool_input or {}
        path = next((tin[k] for k in ("file_path", "path", "absolute_path") if isinstance(tin.get(k), str)), "")
        if not path or rejection_reason(step) is not None:
            continue
        if step.tool.lower() in READ_TOOLS and step.succeeded:
            text = step.output or ""
            if _LINE_NO_RE.match(text):
                text = _LINE_NO_RE.sub("", text)
            known[path] = text
        elif _is_edit(step) and step.succeeded:
            for p, old, new in sg.edit_parts(step.tool, tin):
                if step.tool.lower() in ("write", "write_file", "create_file") or not old:
                    if p:
                        known[p] = new
                elif p in known and old in known[p]:
                    known[p] = known[p].replace(old, new, 1)
    return before


def _edit_pairs(step: Step, states: dict[int, dict[str, str]]) -> list[tuple[str, str, str]]:
    """(path, bad, good) for one fixing edit: the text it replaced and what replaced it."""
    tin = step.call.tool_input or {}
    out = []
    for path, old, new in sg.edit_parts(step.tool, tin):
        if not old and step.tool.lower() in ("write", "write_file", "create_file"):
            old = states.get(step.index, {}).get(path, "")
        if old and new and old != new:
            out.append((path, old, new))
    return out


def _first_changed(bad: str, good: str) -> tuple[str, str]:
    """The first line the fix removed and the first it added."""
    bl = [ln.strip() for ln in bad.splitlines() if ln.strip()]
    gl = [ln.strip() for ln in good.splitlines() if ln.strip()]
    removed = next((ln for ln in bl if ln not in gl), bl[0] if bl else "")
    added = next((ln for ln in gl if ln not in bl), gl[0] if gl else "")
    return removed, added


def test_fail_then_pass(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """A failing test run, edits, then a passing run: the lesson is keyed to the
    edit that made it pass (file type + the code it removed), so it fires on an
    Edit/Write that brings that code back, not on the next test run."""
    steps = pair_steps(entries)
    states = _file_states(steps)
    out: list[LessonCandidate] = []
    failing: Step | None = None
    edits: list[Step] = []
    for step in steps:
        command = _shell_cmd(step)
        if command and is_test_command(command) and not step.blocked_by_us:
            if step.failed:
                if failing is None or edits:
                    failing, edits = step, []  # the edits that count come after the last failing run
                continue
            if step.succeeded and failing is not None and edits:
                cand = _test_fix_candidate(failing, edits, states)
                if cand is not None:
                    out.append(cand)
            failing, edits = None, []
            continue
        if failing is not None and _is_edit(step) and step.succeeded and rejection_reason(step) is None:
            edits.append(step)
    return _unique(out)


def _test_fix_candidate(failing: Step, edits: list[Step], states: dict[int, dict[str, str]]) -> LessonCandidate | None:
    err = error_excerpt(failing.output)  # evidence only; the text says the kind
    test_cmd = _shell_cmd(failing)
    files = ", ".join(dict.fromkeys(p for e in edits for p in edited_paths(e)))
    best: tuple[str, str, str, dict | None] | None = None
    for step in reversed(edits):
        for path, bad, good in _edit_pairs(step, states):
            sig = sg.derive_code(bad, good, path)
            if sig is not None:
                best = (path, bad, good, sig)
                break
            if best is None:
                best = (path, bad, good, None)
        if best is not None and best[3] is not None:
            break
    if best is None:
        return None
    path, bad, good, sig = best
    removed, added = _first_changed(bad, good)
    failed = _failed(failing.output, [test_cmd, bad, good])
    text = f"`{short(test_cmd)}`{failed}; fixed by editing {short(files, 160)}."
    if removed and added:
        text += f" Change: `{short(removed, 80)}` -> `{short(added, 80)}`."
    tool = next((e.tool for e in edits if path in edited_paths(e)), "Edit")
    trigger = f"{tool} {path}\n{short_block(bad)}"
    return LessonCandidate(
        text=text,
        trigger=trigger,
        kind="test_fix",
        evidence=f"failed then passed after editing {len(set(p for e in edits for p in edited_paths(e)))} file(s)",
        confidence=0.6,
        tags=domains_of([path]),
        structured=sg.structured(
            {"tool": tool, "path": path, "code": short_block(bad, 400)},
            {"tool": tool, "path": path, "code": short_block(good, 400)},
            err,
            sig,
            "test_fix",
            tool,
            turn=failing.index,
        ),
    )


def short_block(text: str, limit: int = 600) -> str:
    """A code block kept as lines, at most ``limit`` characters."""
    text = (text or "").strip("\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _user_text(entry: TranscriptEntry) -> str:
    text = _SYSTEM_BLOCK_RE.sub("", entry.text or "").strip()
    if text.lower().startswith(_INJECTED_PREFIXES):
        return ""
    return text


def _mentions(text: str, step: Step) -> float:
    """How clearly a correction names this call (program, flags, paths, words)."""
    low = text.lower()
    spans = [s.lower() for s in _BACKTICK_RE.findall(text)]
    score = 0.0
    cmd = _shell_cmd(step)
    if cmd:
        call = sg.pick_call(cmd)
        if call is not None and call.levels:
            for prog, _ in call.levels:
                if re.search(rf"(?<![\w-]){re.escape(prog)}(?![\w-])", low):
                    score += 1.0
            for flag in call.flags:
                if len(flag) > 1 and re.search(rf"(?<![\w-]){re.escape(flag.lower())}(?![\w-])", low):
                    score += 1.5
            for word in call.argv[1:]:
                w = word.lower().strip("./")
                if len(w) >= 3 and not w.startswith("-") and re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", low):
                    score += 0.5
        if any(s and s in normalize(cmd) for s in spans):
            score += 1.0
    else:
        for path in edited_paths(step):
            name = path.rsplit("/", 1)[-1].lower()
            if name and name in low:
                score += 2.0
            if _is_edit(step):
                score += 0.25
    return score


def _named_segment(command: str, text: str) -> str:
    """The part of a compound line a correction is about (``rm -rf data/ &&
    mkdir data`` + "don't rm -rf data/" -> ``rm -rf data/``)."""
    calls = sg.parse_command(command or "")
    if len(calls) < 2 or not text:
        return command
    low = text.lower()
    best, best_score = command, 0.0
    for call in calls:
        if not call.levels:
            continue
        score = 0.0
        if re.search(rf"(?<![\w-]){re.escape(call.outer)}(?![\w-])", low):
            score += 1.0
        score += sum(0.5 for f in call.flags if f.lower() in low)
        score += sum(0.5 for w in call.argv[1:] if len(w) >= 3 and w.lower().strip("./") in low)
        if score > best_score:
            best, best_score = " ".join(sg.quote(w) for w in call.env + call.argv), score
    return best


def _pick_corrected(text: str, exchange: list[Step]) -> Step | None:
    """The call a correction is about: the one it names; else the last call
    that did something (status queries, reads, builds and test runs are not
    what a user corrects unless named)."""
    if not exchange:
        return None
    scored = [(_mentions(text, s), k, s) for k, s in enumerate(exchange)]
    best = max(scored, key=lambda t: (t[0], t[1]))
    if best[0] >= 1.0:
        return best[2]
    doers = [
        s
        for s in exchange
        if not _is_look(s) and not (is_build_command(_shell_cmd(s)) or is_test_command(_shell_cmd(s)))
    ]
    if doers:
        return doers[-1]
    return exchange[-1]


def best_fix_span(text: str, cmd: str, prog: str) -> str | None:
    """A command in backticks that runs ``prog`` and adds something to ``cmd``
    (a span that only quotes the mistake, or part of it, is not the fix)."""
    mistake = sg.pick_call(cmd)
    mine = mistake.tokens if mistake is not None else set()
    best, best_new = None, 0
    for span in _BACKTICK_RE.findall(text or ""):
        span = span.strip()
        if not sg.is_command_like(span) or normalize(span) == normalize(cmd):
            continue
        call = sg.pick_call(span)
        if call is None or call.help or not prog or call.words_of(prog) is None:
            continue
        new = len({t for t in call.tokens if not t.startswith(("exe:", "prog:", "pre:"))} - mine)
        if mistake is not None and call.program == mistake.program:
            new += len([f for f in mistake.flags if f not in call.flags])  # "npm audit fix" drops --force
            if new and call.sub(call.program) == mistake.sub(mistake.program):
                new += 2  # the same action done right beats another action
        if new > best_new:
            best, best_new = span, new
    return best


def _fix_after(steps: list[Step], start: int, mistake: Step, text: str) -> tuple[str | None, Step | None]:
    """The corrected call: a command the user wrote in backticks running the
    same program, else the next related call that worked."""
    cmd = _shell_cmd(mistake)
    if cmd:
        call = sg.pick_call(cmd)
        prog = call.program if call is not None else ""
        span = best_fix_span(text, cmd, prog)
        if span:
            return span, None
        for step in steps[start:][:LOOKAHEAD]:
            c = _shell_cmd(step)
            if not c or _is_look(step) or not step.succeeded or rejection_reason(step) is not None:
                continue
            if related(cmd, c) and normalize(c) != normalize(cmd):
                return c, step
        return None, None
    for step in steps[start:][:LOOKAHEAD]:
        if _is_edit(step) and step.succeeded and rejection_reason(step) is None:
            return None, step
    return None, None


def _correction_candidate(mistake: Step, text: str, steps: list[Step], after: int, rejected: bool) -> LessonCandidate:
    prev = mistake.action
    why = f"user: {short(text, 300)}" if text else "user rejected the call"
    cmd = _named_segment(_shell_cmd(mistake), text)
    fix_cmd, fix_step = _fix_after(steps, after, mistake, text)
    sig: dict | None = None
    fix_desc: dict | None = None
    if cmd:
        fix = fix_cmd or (_shell_cmd(fix_step) if fix_step is not None else None)
        if fix is None and text:
            # Nothing ran after it: the user's words are the lesson, read as a taught one is
            # ("don't run the whole suite, use -x and -k": -x and -k are the fix).
            alone = sg.derive_command(cmd, None, why=text)
            sig = sg.derive_from_trigger(cmd, text) or alone
            if alone and not sig.get("absent") and _names_less(sig, alone, text):
                # The advice added nothing to the call and kept flags the user never named; what
                # they did name ("deploy … release") is the better key.
                sig = {**alone, **({"fix": sig["fix"]} if sig.get("fix") else {})}
            if sig is not alone and alone and alone.get("sub") and not sig.get("sub"):
                # What the user said is about this subcommand ("apply to staging with --context"),
                # not every call of the program.
                narrowed = {**sig, "sub": alone["sub"]}
                sig = narrowed if sg.check(narrowed, "Bash", {"command": cmd})[0] else sig
        else:
            sig = sg.derive_command(cmd, fix, why=text) or (sg.derive_command(cmd, None, why=text) if fix else None)
        if sig is not None and text:
            sig = sg.with_named_siblings(sg.for_every_call(sig, text), text)  # "… to kubectl commands"
        mistake_desc = sg.describe_call(cmd)
        fix_desc = sg.describe_call(fix) if fix else None
    else:
        parts = sg.edit_parts(mistake.tool, mistake.call.tool_input or {})
        path, old, new = parts[0] if parts else ("", "", "")
        mistake_desc = {"tool": mistake.tool, "path": path, "code": short_block(new, 400)}
        if fix_step is not None:
            fparts = sg.edit_parts(fix_step.tool, fix_step.call.tool_input or {})
            if fparts and fparts[0][0] == path:
                fold, fnew = fparts[0][1] or new, fparts[0][2]
                # The fixing edit shows bad -> good itself; a rejected edit never landed, so its
                # own new text is the bad code (the fixing edit starts from the file before it).
                sig = sg.derive_code(new if rejected else fold, fnew, path)
                fix_desc = {"tool": fix_step.tool, "path": path, "code": short_block(fnew, 400)}
        if sig is None and path:
            sig = sg.derive_edit_alone(path, new, old)
    if rejected:
        lesson = f"The user rejected `{short(prev, 160)}`"
        lesson += f': "{short(text, 300)}"' if text else "."
    else:
        lesson = f'User correction: "{short(text, 300)}" (said after `{short(prev, 120)}`)'
    tags = stance_tags(text)
    if not any(t.startswith("avoid:") for t in tags):
        tags.append(f"avoid:{normalize(short(prev, 80))}")
    return LessonCandidate(
        text=lesson,
        trigger=prev,
        kind="correction",
        evidence="user rejected the call" if rejected else "user said so",
        confidence=0.7,
        tags=domains_of([prev, text]) + tags,
        structured=sg.structured(mistake_desc, fix_desc, why, sig, "correction", mistake.tool, turn=mistake.index),
    )


def user_corrections(entries: list[TranscriptEntry], max_len: int = 600) -> list[LessonCandidate]:
    """The user corrected a call: rejected it (with or without a reason, which
    may arrive inside the tool result or as the next message) or pushed back
    right after it ("no, don't…", "use X instead").

    The opening prompt is a task, not a correction. The lesson is attached to
    the call the user reacted to — the one they name, else the last call that
    did something (not a status query, read, build or test run in between).
    """
    steps = pair_steps(entries)
    by_call = {s.index: s for s in steps}
    result_at = {}
    for s in steps:
        if s.result is not None:
            for k in range(s.index + 1, len(entries)):
                if entries[k] is s.result:
                    result_at[k] = s
                    break
    out: list[LessonCandidate] = []
    exchange: list[Step] = []
    acted = False
    pending: Step | None = None  # a rejected call whose reason may come as the next message
    for k, entry in enumerate(entries):
        if entry.source == "tool_call":
            acted = True
            if pending is not None:
                out.append(_correction_candidate(pending, "", steps, steps.index(pending) + 1, rejected=True))
                pending = None
            step = by_call.get(k)
            if step is not None:
                exchange.append(step)
            continue
        if entry.source == "tool_result" and k in result_at:
            step = result_at[k]
            reason = rejection_reason(step)
            if reason is not None:
                if reason:
                    out.append(_correction_candidate(step, reason, steps, steps.index(step) + 1, rejected=True))
                else:
                    pending = step
            continue
        if entry.source == "assistant":
            acted = True
            continue
        if entry.source != "user":
            continue
        text = _user_text(entry)
        if not text:
            continue
        if pending is not None:
            if len(text) <= max_len:
                out.append(_correction_candidate(pending, text, steps, steps.index(pending) + 1, rejected=True))
            pending = None
        elif acted and len(text) <= max_len and any(r.search(text) for r in _CORRECTION_RES):
            target = _pick_corrected(text, [s for s in exchange if rejection_reason(s) is None] or exchange)
            after = next((n for n, s in enumerate(steps) if s.index > k), len(steps))
            if target is not None:
                out.append(_correction_candidate(target, text, steps, after, rejected=False))
            else:
                out.append(
                    LessonCandidate(
                        text=f'User correction: "{short(text, 300)}"',
                        trigger=text,
                        kind="correction",
                        evidence="user said so",
                        confidence=0.7,
                        tags=domains_of([text]) + stance_tags(text),
                    )
                )
        # A new user message starts a new exchange: later corrections react to later calls.
        exchange = []
    if pending is not None:
        out.append(_correction_candidate(pending, "", steps, steps.index(pending) + 1, rejected=True))
    return _unique(out)


def _untrusted_corpus(entries: list[TranscriptEntry]) -> str:
    """Everything the agent read or wrote as data: tool output and file contents."""
    parts = []
    for entry in entries:
        if entry.source == "tool_result":
            parts.append(entry.text or "")
        elif entry.source == "tool_call":
            for value in (entry.tool_input or {}).values():
                if isinstance(value, str) and "\n" in value or isinstance(value, str) and len(value) > 80:
                    parts.append(value)
                elif isinstance(value, list):
                    parts.extend(str(v) for v in value)
    return normalize("\n".join(parts))


ERROR_FIX_CONFIDENCE = 0.55  # a failed call and the different call that then worked
MARKER_CONFIDENCE = {"learning": 0.6, "gotcha": 0.6, "decision": 0.55, "pattern": 0.5, "finding": 0.5}


def _quoted_commands(body: str) -> tuple[list[str], set[str]]:
    """The commands a marker line quotes in backticks, and those of them it says not to run
    ("never run `go generate ./...`; use `make generate`": the negated span is the mistake, the
    other one the advice; a call of the session that runs the advice is not the mistake)."""
    spans = [s.strip() for s in _BACKTICK_RE.findall(body)]
    commands = [s for s in spans if sg.is_command_like(s) and sg.pick_call(s) is not None]
    said_not = {m.group(1).strip() for m in _BACKTICK_RE.finditer(body) if sg.said_not_to(body[: m.start()])}
    return commands, said_not & set(commands)


def _link_marker(body: str, steps: list[Step], before: int) -> tuple[str, dict | None, dict, dict | None]:
    """The call a marker line names, and a signature for it.

    Returns ``(trigger, signature, mistake, fix)``. A backticked command or a
    program named in the body is matched to the session's calls before the
    marker (a failed one first); its fix is the related call that then worked
    or the other command the marker names. A code span that an edit of the
    session introduced links to that edit.
    """
    earlier = [s for s in steps if s.index < before]
    spans = [s.strip() for s in _BACKTICK_RE.findall(body)]
    command_spans, negated = _quoted_commands(body)
    advised = [s for s in command_spans if s not in negated] if negated else []
    command_spans = sorted(command_spans, key=lambda s: s not in negated)  # the mistake first
    low = body.lower()
    named_flags = set(sg.flags_in_text(body))
    named_env = {w for w in re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b[A-Z]{3,}\b", body)}

    def names(step: Step) -> float:
        cmd = _shell_cmd(step)
        if not cmd:
            return 0.0
        call = sg.pick_call(cmd)
        if call is None or not call.levels or call.help:
            return 0.0
        score = 0.0
        for span in command_spans:
            sc = sg.pick_call(span)
            if sc is not None and sc.levels and (sc.program == call.program or sc.outer == call.outer):
                if span in advised and similarity(span, cmd) >= 0.5:
                    return 0.0  # the session ran what the marker advises: that is the fix
                if span in negated and not (sg.same_action(span, cmd) or similarity(span, cmd) >= 0.5):
                    continue  # another subcommand of that program: not the call the marker warns about
                score += 1.0 + similarity(span, cmd)
                if span in negated and call_parts(span) <= call_parts(cmd):
                    score += 2.0  # it ran all the line forbids ("git commit --no-verify -m wip")
        if not negated and re.search(rf"(?<![\w-]){re.escape(call.program)}(?![\w-])", low):
            score += 0.5
            for flag in named_flags:
                # The call that carries the flag the marker asks for is the fix, not the mistake.
                score += -0.75 if flag in call.flags else 0.25
        elif not score and not command_spans:
            # No program named: the marker names what this call set ("tests need DATABASE_URL …",
            # "always pass -run XXX with -bench").
            carried = (named_flags & set(call.flags)) | {t for t in call.tokens if t[4:] in named_env}
            score += 0.5 * len(carried)
        return score

    episode = _marker_episode(body, steps, before, command_spans, negated)
    if episode is not None:
        # The line explains a failure the session then fixed: that failed call is the mistake and
        # the call that worked is the fix, whatever the line quotes ("map it to 5433 (docker run
        # -p 5433:5432 …)" is the fix, not the mistake).
        went_wrong, worked = episode
        return _marker_command(body, went_wrong, _shell_cmd(went_wrong), _shell_cmd(worked), from_text=False)
    shell = [(names(s), s) for s in earlier if _shell_cmd(s) and not _is_look(s)]
    shell = [(sc + (0.5 if s.failed else 0.0), s) for sc, s in shell if sc > 0]
    if shell:
        _score, mistake = max(shell, key=lambda t: (t[0], t[1].index))
        ran_the_forbidden = any(call_parts(span) <= call_parts(_shell_cmd(mistake)) for span in negated)
        if not mistake.failed and not ran_the_forbidden:
            # The marker explains a failure its call then fixed: the call that failed is the mistake
            # ("run `poetry run pytest` here" after "pytest tests/" failed and the former worked).
            failed = [
                s
                for s in earlier
                if s.failed
                and s.index < mistake.index
                and _shell_cmd(s)
                and not _is_look(s)
                and _one_action(s, mistake)
            ]
            mistake = failed[-1] if failed else mistake
        cmd = _shell_cmd(mistake)
        fix: str | None = None
        asked = {f for f in named_flags if _asked_for(body, f)}
        if not mistake.failed and asked and asked & set(sg.pick_call(cmd).flags):
            # The call carries the flag the marker says to pass ("`cargo test` needs `--features
            # integration`", written after the run that had it): it is the fix; the mistake is the
            # call without it.
            bare = _without_flags(cmd, asked)
            if bare and bare != cmd:
                cmd, fix = bare, cmd
        if fix is None and not mistake.failed and _names_a_step(body, cmd):
            # The call ran with the step the marker says it needs ("`cd services/api && go test`",
            # "`source .env;` first"): it is the fix; the mistake is the same work without the step.
            work = sg.work_text(cmd)
            if work and work != cmd:
                cmd, fix = work, cmd
        if fix is None and mistake.failed:
            for step in steps:
                c = _shell_cmd(step)
                if step.index > mistake.index and c and step.succeeded and not _is_look(step) and related(cmd, c):
                    fix = c
                    break
        if fix is None and named_flags:
            # A later call of the same action that adds the flag the marker names.
            for step in steps:
                c = _shell_cmd(step)
                if step.index > mistake.index and c and step.succeeded and sg.same_action(cmd, c):
                    call = sg.pick_call(c)
                    if call is not None and named_flags & set(call.flags) - set(sg.pick_call(cmd).flags):
                        fix = c
                        break
        from_text = fix is None
        if fix is None:
            fix = best_fix_span(body, cmd, sg.pick_call(cmd).program if sg.pick_call(cmd) else "")
            if fix is not None and any(
                sg.same_action(fix, span) and call_parts(span) <= call_parts(fix) for span in negated
            ):
                fix = None  # the line's own forbidden call is no fix
        return _marker_command(body, mistake, cmd, fix, from_text=from_text)
    # Code named in the body: the edit that brought it in (the fix, when a
    # later version keeps it) or that brought in what a later edit removed.
    code_spans = [s for s in spans if len(s) >= 3 and (not sg.is_command_like(s) or "(" in s or "=" in s)]
    states = _file_states(steps)
    for step in reversed(earlier):
        if not _is_edit(step) or rejection_reason(step) is not None:
            continue
        for path, bad, good in _edit_pairs(step, states):
            if not any(_code_in(span, good) and not _code_in(span, bad) for span in code_spans) and not any(
                _code_in(span, bad) and not _code_in(span, good) for span in code_spans
            ):
                continue
            sig = sg.derive_code(bad, good, path)
            if sig is not None:
                mistake_desc = {"tool": step.tool, "path": path, "code": short_block(bad, 400)}
                fix_desc = {"tool": step.tool, "path": path, "code": short_block(good, 400)}
                return f"{step.tool} {path}\n{short_block(bad)}", sig, mistake_desc, fix_desc
    # The call the sentence names, backticked or in prose ("GOTCHA: ./deploy.sh
    # --env staging fails …; always pass --region eu-west-1"): the mistake; what
    # the advice adds is the fix. A sentence is never a trigger.
    # A span the line advises ("delete with --grace-period=30 instead, e.g. `…`") is the fix,
    # never the mistake.
    told = set(advised_spans(body))
    forbidden = [c for c in sg.prose_commands(body, negated=True) if c not in command_spans]
    named = [c for c in sg.prose_commands(body) if c not in command_spans and not any(t in c for t in told)]
    # "never terraform apply -auto-approve; run terraform plan -out=tfplan": the call it forbids
    # is the mistake; a call it tells to run is the advice.
    named = [c for c in named if not _ADVISED_BEFORE_RE.search(body[: body.find(c)])] if forbidden else named
    for span in [s for s in command_spans if s not in told] + forbidden + named:
        sig = _unless_it_holds_the_advice(sg.derive_from_trigger(span, body), body, span)
        if sig:
            fix = sig.get("fix")
            return span, sig, sg.describe_call(span), sg.describe_call(str(fix)) if fix else None
    # A function the line forbids in prose ("never use String.to_atom/1 on params; use
    # String.to_existing_atom/1"): a code pattern over files of the language the session edited.
    api = _forbidden_api(body)
    if api:
        sig = sg.derive_code_trigger(f"{api}(x)", body)
        if sig is not None:
            paths = [p for s in earlier if _is_edit(s) for p, _bad, _good in _edit_pairs(s, states)]
            if paths and not sig.get("glob"):
                sig = {**sig, "glob": sg.glob_for(paths[-1])}
            return f"{api}(…)", sig, {"tool": "Edit", "code": api}, None
    return short(body, 400), None, {}, None


_ADVISED_BEFORE_RE = re.compile(r"(?i)\b(?:run|use|try|prefer|instead)\s+$")


def _marker_episode(
    body: str, steps: list[Step], before: int, spans: list[str], negated: set[str]
) -> tuple[Step, Step] | None:
    """The last failure before the marker that the session then fixed (:func:`_episodes`: a
    failed call and the call of the same work that worked), when the line names its program and
    any command it quotes is that failure or that fix, and any it forbids is that failure."""
    low = body.lower()
    found: tuple[Step, Step] | None = None
    for ep in _episodes([s for s in steps if s.index < before]):
        if ep.fix is None or len(ep.variants) != 1:
            continue
        failed, worked = ep.failures[-1], ep.fix
        cmd, fix = _shell_cmd(failed), _shell_cmd(worked)
        call = sg.pick_call(cmd)
        if (
            call is None
            or not call.levels
            or sg.work_argv(fix) == sg.work_argv(cmd)
            and sg.steps_of(fix) == sg.steps_of(cmd)
        ):
            continue
        if not re.search(rf"(?<![\w-]){re.escape(call.program)}(?![\w-])", low):
            continue
        if spans and not any(
            similarity(span, c) >= 0.5 or sg.same_action(span, c) for span in spans for c in (cmd, fix)
        ):
            continue  # the line quotes other commands: it is about them
        if negated and not any(similarity(span, cmd) >= 0.5 or sg.same_action(span, cmd) for span in negated):
            continue  # "never a plain `git pull`": the line forbids another call than this failure
        if any(_forbids_the_fix(span, cmd, fix) for span in negated):
            continue  # "never `git commit --no-verify`": what worked is what the line forbids
        found = (failed, worked)
    return found


def _forbids_the_fix(span: str, failed: str, worked: str) -> bool:
    """The forbidden ``span`` has parts the failed call lacks and the call that worked has."""
    extra = call_parts(span) - call_parts(failed)
    return bool(extra) and extra <= call_parts(worked)


def _marker_command(
    body: str, mistake: Step, cmd: str, fix: str | None, from_text: bool
) -> tuple[str, dict | None, dict, dict | None]:
    """A marker line's lesson about the shell call ``cmd`` (run by ``mistake``) and its ``fix``."""
    # A fix quoted in the line abbreviates: a flag of the session's call it leaves out ("-d" of
    # "docker compose up -d" when the line says "always run `docker compose up --build`") is
    # the mistake only when the line names it.
    sig = sg.derive_command(cmd, fix, why=body, named_drops_only=from_text and fix is not None) or sg.derive_command(
        cmd, None, why=body
    )
    if sig is not None and sig.get("kind") == "command":
        sig = sg.with_named_siblings(sg.for_every_call(sig, body), body)
        sig = sg.advice_guard(sig, cmd, body)  # what the line says to add is the fix, never the mistake
    sig = _unless_it_holds_the_advice(sig, body, cmd)
    trigger = mistake.action if cmd == _shell_cmd(mistake) else cmd
    return trigger, sig, sg.describe_call(cmd), sg.describe_call(fix) if fix else None


# "never use X", "don't call X", "avoid X": X a qualified function name ("String.to_atom/1",
# "datetime.utcnow()", "Foo::bar"), not a file ("config.yaml").
_FORBIDDEN_API_RE = re.compile(
    r"(?i)\b(?:never|don'?t|do not|avoid|stop)\s+(?:(?:use|call|using|calling)\s+)?"
    r"`?([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+[!?]?)(\(\)|/\d+)?"
)
_FILE_EXTS = frozenset(
    {"yaml", "yml", "json", "md", "txt", "toml", "lock", "cfg", "ini", "env", "sh", "py", "js", "ts", "rb", "go"}
)


def _forbidden_api(body: str) -> str:
    m = _FORBIDDEN_API_RE.search(body)
    if not m:
        return ""
    name, call = m.group(1), m.group(2)
    if sg._ext(name) in _FILE_EXTS:
        return ""
    return name if call or "::" in name or "_" in name or name[:1].isupper() else ""


_ASK_BEFORE_RE = re.compile(r"(?i)\b(?:pass|use|add|needs?|requires?|always|set|with)\b\W*(?:\S+\s+){0,2}$")
_WITH_BEFORE_RE = re.compile(r"(?i)\bwith\b\W*$")


_NEVER_WITHOUT_RE = re.compile(r"(?i)\b(?:never|don'?t|do not|not)\b[^.;:!?]*\bwithout\s*[`'\"]?$")


def _asked_for(body: str, flag: str) -> bool:
    """Does the marker ask for ``flag`` ("always pass -run XXX", "needs `--features x`", "never
    run X without -e …"), and never forbid it ("avoid --force")? "-run XXX with -bench": -bench
    is the context, not asked."""
    spots = [m.start() for m in re.finditer(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", body)]
    if spots and any(_NEVER_WITHOUT_RE.search(body[:k]) for k in spots):
        return True
    if not spots or any(sg.said_not_to(body[:k]) for k in spots):
        return False
    return any(_ASK_BEFORE_RE.search(body[max(0, k - 40) : k]) and not _WITH_BEFORE_RE.search(body[:k]) for k in spots)


def _one_action(a: Step, b: Step) -> bool:
    """Two shell calls of one program and subcommand (``pytest x`` / ``poetry run pytest x``)."""
    ca, cb = sg.pick_call(_shell_cmd(a)), sg.pick_call(_shell_cmd(b))
    return ca is not None and cb is not None and _same_action(ca, cb)


def _same_action(a: sg.Call, b: sg.Call) -> bool:
    """One program and first subcommand, none for both counting as the same (``psql …``).
    Unlike :func:`twiceshy.lesson.signature.same_action`, which needs a subcommand."""
    return a.program == b.program and a.sub(a.program)[:1] == b.sub(b.program)[:1]


# Words that introduce the call a marker advises: "always run `…`", "use `…` instead", "e.g. `…`".
_ADVICE_CUE_RE = re.compile(
    r"(?i)\b(use|run|instead|e\.g|i\.e|always|prefer|should|must|try|via)\b[^.;:!?`]{0,40}$|\($"
)


_NEGATION_RE = re.compile(r"(?i)\b(never|don'?t|do not|not|avoid|no|without|plain|bare)\b")


def advised_spans(body: str) -> list[str]:
    """The commands a marker line advises: backticked calls after an advice cue ("always run
    `docker compose up --build`", "(`cd api && go test ./...`)") that no negation governs."""
    out = []
    for m in _BACKTICK_RE.finditer(body):
        span, before = m.group(1).strip(), body[: m.start()]
        if not sg.is_command_like(span) or sg.pick_call(span) is None or sg.said_not_to(before):
            continue
        clause = re.split(r"[.;!?]\s|—|--\s", re.sub(r"(?i)\b(e\.g|i\.e)\.", r"\1", before))[-1]
        if _ADVICE_CUE_RE.search(clause.rstrip()) and not _NEGATION_RE.search(clause):
            out.append(span)
    return out


def _unless_it_holds_the_advice(sig: dict | None, body: str, mistake: str) -> dict | None:
    """A marker's signature may never hold the call the line advises: if it does, the line was
    read the wrong way round (the advice taken for the mistake) and the lesson has no key: it
    goes to the session's context instead of holding calls."""
    if not sig or sig.get("kind") not in ("command", "any"):
        return sig
    mine = call_parts(mistake) if mistake else set()
    for span in advised_spans(body):
        named = call_parts(span)
        if mine and named < mine and not any(p.startswith(("-", "env:")) for p in named):
            continue  # "so `kubectl logs` needs `-c api`": the span names the mistake, it advises nothing
        if matches(sig, "Bash", {"command": span}):
            return None
    return sig


def _names_a_step(body: str, command: str) -> bool:
    """Does the marker name a setup step this line runs before its work (``cd sub``, ``source
    .env``, ``vpn up``, ``nvm use``), rather than a look or a print?"""
    low = body.lower()
    return any(
        prog not in ("echo", "printf", "true", "ls", "cat", "tee", "grep")
        and re.search(rf"(?<![\w-]){re.escape(prog)}(?![\w-])", low)
        for prog in sg.steps_of(command)
    )


def _without_flags(command: str, flags: set[str]) -> str:
    """``command`` with ``flags`` (and the value each takes) left out."""
    call = sg.pick_call(command)
    if call is None:
        return ""
    words = list(call.env) + list(call.argv)
    out: list[str] = []
    skip = False
    for k, word in enumerate(words):
        if skip:
            skip = False
            continue
        name = word.split("=", 1)[0]
        if name in flags:
            values = call.values.get(name) or []
            skip = "=" not in word and k + 1 < len(words) and words[k + 1] in values
            continue
        out.append(word)
    return " ".join(sg.quote(w) for w in out)


def _code_in(span: str, code: str) -> bool:
    """``span`` occurs in ``code``, whitespace-insensitively."""
    return bool(span) and "".join(span.split()) in "".join((code or "").split())


def markers(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """``LEARNING:`` / ``GOTCHA:`` / ``DECISION:`` / ``PATTERN:`` / ``FINDING:`` lines
    in the assistant's own text, linked to the call they name. A body that
    also appears in tool output or file contents is an echo of untrusted text
    and is dropped."""
    corpus: str | None = None
    steps: list[Step] | None = None
    out: list[LessonCandidate] = []
    for index, entry in enumerate(entries):
        if entry.source != "assistant" or not entry.text:
            continue
        for line in entry.text.splitlines():
            m = MARKER_RE.match(line)
            if not m:
                continue
            kind, body = m.group(1).lower(), m.group(2).strip().strip("*_").strip()
            if len(body) < 8:
                continue
            if corpus is None:
                corpus = _untrusted_corpus(entries)
            probe = normalize(body)[:80]
            if probe and probe in corpus:
                continue  # echoed from something it read: not the agent's own finding
            if steps is None:
                steps = pair_steps(entries)
            trigger, sig, mistake, fix = _link_marker(body, steps, index)
            # A line about a failure the session fixed is a second word on the failure's own
            # lesson: no stronger than it, so that lesson is stored first and the line confirms it.
            confidence = MARKER_CONFIDENCE[kind]
            if _marker_episode(body, steps, index, *_quoted_commands(body)) is not None:
                confidence = min(confidence, ERROR_FIX_CONFIDENCE)
            out.append(
                LessonCandidate(
                    text=short(body, 400),
                    trigger=trigger,
                    kind=kind,
                    evidence=f"{kind.upper()} marker written by the assistant",
                    confidence=confidence,
                    tags=domains_of([body]) + stance_tags(body),
                    structured=sg.structured(mistake, fix, short(body, 300), sig, kind, mistake.get("tool", "")),
                )
            )
    return _unique(out)


EXTRACTORS: dict[str, Callable[[list[TranscriptEntry]], list[LessonCandidate]]] = {
    "error_then_success": error_then_success,
    "retry_loops": retry_loops,
    "test_fail_then_pass": test_fail_then_pass,
    "user_corrections": user_corrections,
    "markers": markers,
}


def extract_all(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """Every extractor's candidates, in extractor order, duplicates dropped."""
    pooled: list[LessonCandidate] = []
    for fn in EXTRACTORS.values():
        pooled.extend(fn(entries))
    return _unique(pooled)


# --------------------------------------------------------------------------
# Dedup guard for commands
# --------------------------------------------------------------------------

_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=(?!=)")


def is_command_like(text: str) -> bool:
    """A one-line shell command rather than a sentence of advice."""
    text = (text or "").strip()
    if not text or "\n" in text or text.endswith(".") or len(text.split()) > 24:
        return False
    first = text.split()[0]
    return bool(re.match(r"^[a-z0-9_./~-][\w./~+-]*$", first)) or _ASSIGN_RE.match(first) is not None


def command_signature(command: str) -> tuple[str, str, frozenset[str]]:
    """(program, subcommand, other positional words) of a command, normalised:
    ``sudo``/``env``/``VAR=x`` and ``python -m`` dropped, ``pip3`` -> ``pip``,
    flags and version pins (``==1.2``, ``@4``) dropped, paths cut to their last
    part, ``HEAD:main`` -> ``main``."""
    tokens = command.split("|", 1)[0].split("&&")[-1].split()
    prog = program_of(" ".join(tokens)).lower()
    prog = re.sub(r"\d+(\.\d+)*$", "", prog) or prog
    positional: list[str] = []
    seen_prog = False
    for token in tokens:
        base = token.rsplit("/", 1)[-1].lower()
        if not seen_prog:
            if re.sub(r"\d+(\.\d+)*$", "", base) == prog or base == prog:
                seen_prog = True
            continue
        if token.startswith("-") or _ASSIGN_RE.match(token):
            continue
        word = re.split(r"==|>=|<=|~=|@(?=[\w.^~*]+$)", base, maxsplit=1)[0]
        word = word.rsplit(":", 1)[-1] if ":" in word and "//" not in word else word
        if word:
            positional.append(word)
    sub = positional[0] if positional else ""
    return prog, sub, frozenset(positional[1:])


def commands_compatible(a: str, b: str) -> bool:
    """May two triggers be the same lesson? Always true unless both are
    commands whose program, subcommand or arguments differ ("git stash" vs
    "git stash pop", "pytest a.py" vs "pytest b.py"). Embeddings rate such
    pairs 0.9+ similar; this is the lexical check that keeps them apart."""
    if not (is_command_like(a) and is_command_like(b)):
        return True
    pa, sa, ra = command_signature(a)
    pb, sb, rb = command_signature(b)
    if pa != pb or sa != sb:
        return False
    ca, cb = sg.pick_call(a), sg.pick_call(b)
    if ca is not None and cb is not None:
        # Flags and their values are part of the lesson: "-target=module.a" is
        # not "-target=module.b", "git push --force" is not "git push".
        fa, fb = set(ca.flags) - {"--"}, set(cb.flags) - {"--"}
        if fa != fb:
            return False
        for flag in fa:
            va, vb = ca.values.get(flag), cb.values.get(flag)
            if va and vb and va != vb:
                return False
    if not ra and not rb:
        return True
    return len(ra & rb) / len(ra | rb) >= 0.5
