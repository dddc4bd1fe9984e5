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
content of the session (the assistant merely echoed something it read), and
error excerpts quoted as evidence skip marker-looking lines.

Candidates may carry stance tags ``prefer:<thing>`` / ``avoid:<thing>``; the
learning module uses them to tell a contradiction (supersede) from a repeat
(dedup). Stdlib only; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from twiceshy.base.types import CoreEvent, LessonCandidate, TranscriptEntry

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
    re.compile(r"(?i)\b(?:don'?t|do not|never|stop|avoid)\s+(?:\w+)"),
    re.compile(r"(?i)\binstead\b"),
    re.compile(r"(?i)\b(?:that'?s|that is|this is)\s+(?:wrong|incorrect|not (?:right|what))"),
    re.compile(r"(?i)\bshould(?:n'?t| not)\b"),
    re.compile(r"(?i)\b(?:please\s+)?(?:always|only)\s+use\b"),
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
            step = by_id.get(entry.tool_use_id) if entry.tool_use_id else None
            if step is None:
                step = next((s for s in pending if s.result is None), None)
            if step is not None and step.result is None:
                step.result = entry
                if step in pending:
                    pending.remove(step)
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


def is_test_command(command: str) -> bool:
    return bool(command) and bool(TEST_RE.search(command))


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
    patch = tin.get("patch") or tin.get("input") or tin.get("command") or ""
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


def error_then_success(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """A failed call followed by a different, successful call of the same tool.

    Identical retries in between are skipped (the last failure of a run is the
    one paired); an identical call that then succeeds teaches nothing (flaky).
    """
    steps = pair_steps(entries)
    out: list[LessonCandidate] = []
    for i, step in enumerate(steps):
        if not step.failed or step.blocked_by_us:
            continue
        later = [s for s in steps[i + 1 : i + 1 + LOOKAHEAD] if s.tool == step.tool]
        if not later:
            continue
        nxt = later[0]
        if normalize(nxt.action) == normalize(step.action) or (
            nxt.failed and similarity(nxt.action, step.action) >= 0.9
        ):
            continue  # a retry: pair the last failure of the run instead
        fix = next((s for s in later if s.succeeded), None)
        if fix is None or normalize(fix.action) == normalize(step.action):
            continue
        if similarity(fix.action, step.action) < 0.2 and program_of(_command(fix)) != program_of(_command(step)):
            continue  # unrelated next call, not an alternative
        err = error_excerpt(step.output)
        changed = _diff_words(step.action, fix.action)
        text = f"`{short(step.action)}` failed ({err}); `{short(fix.action)}` worked instead."
        if changed:
            text += f" What changed: {changed}."
        tags = [f"avoid:{normalize(short(step.action, 80))}", f"prefer:{normalize(short(fix.action, 80))}"]
        out.append(
            LessonCandidate(
                text=text,
                trigger=step.action,
                kind="error_fix",
                evidence=f"failed: {err}",
                confidence=0.55,
                tags=domains_of([step.action]) + tags,
            )
        )
    return _unique(out)


def retry_loops(entries: list[TranscriptEntry], min_repeats: int = 3) -> list[LessonCandidate]:
    """The same call (near-identical) repeated ``min_repeats``+ times, failing."""
    steps = pair_steps(entries)
    out: list[LessonCandidate] = []
    by_tool: dict[str, list[Step]] = {}
    for step in steps:
        by_tool.setdefault(step.tool, []).append(step)
    for tool_steps in by_tool.values():
        run: list[Step] = []
        for step in tool_steps + [None]:  # type: ignore[list-item]
            if step is not None and run and similarity(step.action, run[0].action) >= 0.85:
                run.append(step)
                continue
            failures = [s for s in run if s.failed and not s.blocked_by_us]
            if len(run) >= min_repeats and len(failures) >= min_repeats - 1 + (0 if run[-1].succeeded else 1):
                first = run[0]
                err = error_excerpt(failures[-1].output)
                ending = "then it passed unchanged (flaky)" if run[-1].succeeded else "it never worked"
                out.append(
                    LessonCandidate(
                        text=(
                            f"Repeating `{short(first.action)}` {len(run)} times did not help ({err}); {ending}. "
                            "Read the error and change the approach after the first failure."
                        ),
                        trigger=first.action,
                        kind="retry_loop",
                        evidence=f"{len(failures)} failures of {len(run)} attempts",
                        confidence=0.5,
                        tags=domains_of([first.action]),
                    )
                )
            run = [step] if step is not None else []
    return _unique(out)


def test_fail_then_pass(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """A failing test run, edits, then a passing test run: what broke and what fixed it."""
    steps = pair_steps(entries)
    out: list[LessonCandidate] = []
    failing: Step | None = None
    edits: list[str] = []
    first_edit: Step | None = None
    for step in steps:
        command = _command(step) if _shell_like(step) else ""
        if command and is_test_command(command) and not step.blocked_by_us:
            if step.failed:
                if failing is None:
                    failing, edits, first_edit = step, [], None
                continue
            if step.succeeded and failing is not None and edits:
                err = error_excerpt(failing.output)
                files = ", ".join(dict.fromkeys(edits))
                text = f"`{short(_command(failing))}` failed ({err}); fixed by editing {short(files, 160)}."
                if first_edit is not None:
                    old = first_edit.call.tool_input.get("old_string")
                    new = first_edit.call.tool_input.get("new_string")
                    if isinstance(old, str) and isinstance(new, str) and old and new:
                        text += f" Change: `{short(old, 60)}` -> `{short(new, 60)}`."
                out.append(
                    LessonCandidate(
                        text=text,
                        trigger=f"{short(_command(failing), 120)}: {err}",
                        kind="test_fix",
                        evidence=f"failed then passed after editing {len(set(edits))} file(s)",
                        confidence=0.6,
                        tags=domains_of([_command(failing), *edits]),
                    )
                )
            failing, edits, first_edit = None, [], None
            continue
        if failing is not None and step.succeeded:
            paths = edited_paths(step)
            if paths:
                edits.extend(paths)
                first_edit = first_edit or step
    return _unique(out)


def _user_text(entry: TranscriptEntry) -> str:
    text = _SYSTEM_BLOCK_RE.sub("", entry.text or "").strip()
    if text.lower().startswith(_INJECTED_PREFIXES):
        return ""
    return text


def user_corrections(entries: list[TranscriptEntry], max_len: int = 600) -> list[LessonCandidate]:
    """User messages that correct what the agent just did ("no, don't…", "use X instead").

    The opening prompt is a task, not a correction: only messages after the
    agent acted count. The trigger is the call the user reacted to, when there
    was one, so the warning fires the next time that call comes up.
    """
    out: list[LessonCandidate] = []
    acted = False
    last_call: TranscriptEntry | None = None
    for entry in entries:
        if entry.source == "tool_call":
            acted, last_call = True, entry
            continue
        if entry.source == "assistant":
            acted = True
            continue
        if entry.source != "user":
            continue
        text = _user_text(entry)
        if not text:
            continue
        if acted and len(text) <= max_len and any(r.search(text) for r in _CORRECTION_RES):
            prev = action_text(last_call) if last_call is not None else ""
            lesson = f'User correction: "{short(text, 300)}"'
            if prev:
                lesson += f" (said after `{short(prev, 120)}`)"
            tags = stance_tags(text)
            if prev and not any(t.startswith("avoid:") for t in tags):
                tags.append(f"avoid:{normalize(short(prev, 80))}")
            out.append(
                LessonCandidate(
                    text=lesson,
                    trigger=prev or text,
                    kind="correction",
                    evidence="user said so",
                    confidence=0.7,
                    tags=domains_of([prev, text]) + tags,
                )
            )
        # A new user message starts a new exchange: later corrections react to later calls.
        last_call = None
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


MARKER_CONFIDENCE = {"learning": 0.6, "gotcha": 0.6, "decision": 0.55, "pattern": 0.5, "finding": 0.5}


def markers(entries: list[TranscriptEntry]) -> list[LessonCandidate]:
    """``LEARNING:`` / ``GOTCHA:`` / ``DECISION:`` / ``PATTERN:`` / ``FINDING:`` lines
    in the assistant's own text. A body that also appears in tool output or file
    contents is an echo of untrusted text and is dropped."""
    corpus: str | None = None
    out: list[LessonCandidate] = []
    for entry in entries:
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
            out.append(
                LessonCandidate(
                    text=short(body, 400),
                    trigger=short(body, 400),
                    kind=kind,
                    evidence=f"{kind.upper()} marker written by the assistant",
                    confidence=MARKER_CONFIDENCE[kind],
                    tags=domains_of([body]) + stance_tags(body),
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
    if not ra and not rb:
        return True
    return len(ra & rb) / len(ra | rb) >= 0.5
