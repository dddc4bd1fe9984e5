"""The core's vocabulary: events, decisions, lessons.

Every plugin speaks these types. Agent plugins turn a native hook payload into
a :class:`CoreEvent` and turn a :class:`Decision` back into :class:`NativeOutput`;
everything in between (search, judging, learning) only sees core types.

This module is imported by the engine on every request, so it stays stdlib-only.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from enum import IntEnum
from typing import Any, Literal

# "ignore": an adapter recognised the payload but it must not be acted on
# (e.g. Cursor re-running Claude Code's hooks for an event its own hook covers).
EventKind = Literal["pre_tool", "post_tool", "session_start", "prompt", "stop", "session_end", "ignore"]
EVENT_KINDS: tuple[str, ...] = ("pre_tool", "post_tool", "session_start", "prompt", "stop", "session_end", "ignore")

Action = Literal["allow", "warn", "deny"]
Verdict = Literal["FOLLOWED", "IGNORED", "IRRELEVANT", "UNCLEAR"]


class Tier(IntEnum):
    """How far a lesson has come. Lower is stronger.

    T3 raw lessons expire unless seen again; T2 lessons survived a second
    sighting; T1 are confirmed behavioural rules (they may block a call);
    T0 are principles generalised from a cluster of rules.
    """

    PRINCIPLE = 0
    RULE = 1
    QA = 2
    RAW = 3

    @property
    def label(self) -> str:
        return {0: "principle", 1: "rule", 2: "qa", 3: "raw"}[int(self)]

    @classmethod
    def parse(cls, value: str | int) -> Tier:
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            return cls(int(value))
        text = str(value).strip().lower()
        if text.startswith("t") and text[1:].isdigit():
            return cls(int(text[1:]))
        for tier in cls:
            if tier.label == text:
                return tier
        raise ValueError(f"unknown tier {value!r} (use principle, rule, qa, raw or T0..T3)")


@dataclass
class CoreEvent:
    """One agent hook call, translated into agent-neutral terms.

    ``tool_input`` is kept as the agent sent it; ``action_text`` is the string
    lessons are matched against (a shell command, or a file path plus the edit).
    """

    kind: EventKind
    agent: str
    native_event: str
    session_id: str = ""
    cwd: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_output: str | None = None
    success: bool | None = None
    prompt: str | None = None
    transcript_path: str | None = None
    timestamp: float = field(default_factory=time.time)
    raw: dict[str, Any] = field(default_factory=dict)
    # Set by the dispatcher for a pre-tool call that cannot change anything
    # (twiceshy.recall.readonly): every plugin still sees the call; recall skips it.
    read_only: bool = False

    @property
    def command(self) -> str | None:
        """The shell command of a shell tool call, if this is one."""
        value = self.tool_input.get("command") if isinstance(self.tool_input, dict) else None
        return value if isinstance(value, str) else None

    @property
    def file_path(self) -> str | None:
        for key in ("file_path", "path", "notebook_path", "absolute_path"):
            value = self.tool_input.get(key) if isinstance(self.tool_input, dict) else None
            if isinstance(value, str) and value:
                return value
        return None

    def action_text(self, limit: int = 2000) -> str:
        """What the agent is about to do, as text to match lessons against."""
        if self.command:
            text = self.command
        elif self.file_path:
            parts = [f"{self.tool_name} {self.file_path}"]
            for key in ("content", "new_string", "old_string", "pattern"):
                value = self.tool_input.get(key)
                if isinstance(value, str) and value:
                    parts.append(value[:500])
            text = "\n".join(parts)
        elif self.tool_input:
            text = f"{self.tool_name} " + json.dumps(self.tool_input, sort_keys=True, default=str)
        else:
            text = self.tool_name or (self.prompt or "")
        return text[:limit]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CoreEvent:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class LessonMatch:
    """A stored lesson that matched an action, with why it matched."""

    experience_id: str
    text: str
    trigger: str
    tier: int
    score: float
    evidence: str = ""
    # False: matched on similarity alone (no signature said the call repeats
    # the mistake). Such a match goes to context; it never holds a call.
    signed: bool = True


@dataclass
class Decision:
    """What the core wants the agent to do about one pre-tool call.

    ``allow`` with no context means "say nothing". ``warn`` carries context for
    the model. ``deny`` blocks the call; ``reason`` is shown to the model.
    """

    action: Action = "allow"
    reason: str = ""
    context: str = ""
    matches: list[LessonMatch] = field(default_factory=list)
    # A deny that is a one-time *hold* of a warning (twiceshy.recall.delivery):
    # the identical retry passes. False for a rule's deny, which blocks every time.
    hold: bool = False

    @classmethod
    def allow(cls) -> Decision:
        return cls()

    @property
    def is_silent(self) -> bool:
        return self.action == "allow" and not self.context

    @classmethod
    def merge(cls, decisions: list[Decision]) -> Decision:
        """Combine every plugin's decision: a deny wins, contexts are joined."""
        real = [d for d in decisions if d is not None]
        if not real:
            return cls.allow()
        order = {"allow": 0, "warn": 1, "deny": 2}
        action = max((d.action for d in real), key=lambda a: order[a])
        reasons = [d.reason for d in real if d.action == "deny" and d.reason]
        contexts = [d.context for d in real if d.context]
        matches = [m for d in real for m in d.matches]
        # Still a hold only if no real (rule) deny is among them: a rule's block wins.
        hold = action == "deny" and all(d.hold for d in real if d.action == "deny")
        return cls(action=action, reason="\n".join(reasons), context="\n\n".join(contexts), matches=matches, hold=hold)


@dataclass
class NativeOutput:
    """What the hook process prints and exits with, in the agent's own format."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def new_id() -> str:
    return uuid.uuid4().hex[:16]


@dataclass
class Experience:
    """One stored lesson.

    ``trigger`` describes the action the lesson warns about (it is what gets
    embedded and matched); ``text`` is the advice shown to the agent.
    ``project`` is a project fingerprint, or ``None`` for a global lesson.
    """

    text: str
    trigger: str
    id: str = field(default_factory=new_id)
    tier: int = int(Tier.RAW)
    confidence: float = 0.5
    kind: str = "manual"
    hits: int = 0
    follows: int = 0
    ignores: int = 0
    irrelevant: int = 0
    seen_count: int = 1
    project: str | None = None
    tags: list[str] = field(default_factory=list)
    # Milliseconds: Chroma keeps ~16 significant digits of a float, so a raw
    # time.time() does not survive a round trip exactly.
    created_at: float = field(default_factory=lambda: round(time.time(), 3))
    last_seen: float = field(default_factory=lambda: round(time.time(), 3))
    superseded_by: str | None = None
    topic: str = ""
    streak: int = 0  # consecutive verdicts: >0 FOLLOWED, <0 IGNORED/IRRELEVANT (twiceshy.learning.evolve)
    source: str = ""
    # The structured lesson (twiceshy.lesson.signature): mistake, fix, why,
    # scope, evidence and the contrastive "signature" that decides a match.
    # Empty for lessons stored before it existed (a signature is then derived
    # from the trigger at recall time). Stored as JSON in Chroma metadata.
    structured: dict[str, Any] = field(default_factory=dict)

    # Chroma metadata holds scalars only: lists become JSON, None becomes "".
    def to_metadata(self) -> dict[str, str | int | float | bool]:
        meta: dict[str, str | int | float | bool] = {}
        for f in fields(self):
            if f.name in ("id", "text"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, list):
                meta[f.name] = json.dumps(value)
            elif isinstance(value, dict):
                meta[f.name] = json.dumps(value, sort_keys=True) if value else ""
            elif value is None:
                meta[f.name] = ""
            elif f.name in ("created_at", "last_seen") and isinstance(value, float):
                meta[f.name] = round(value, 3)
            else:
                meta[f.name] = value
        return meta

    @classmethod
    def from_metadata(cls, id: str, text: str, meta: dict[str, Any]) -> Experience:
        kwargs: dict[str, Any] = {"id": id, "text": text}
        for f in fields(cls):
            if f.name in ("id", "text") or f.name not in meta:
                continue
            value = meta[f.name]
            if f.name == "tags":
                value = json.loads(value) if isinstance(value, str) and value else []
            elif f.name == "structured":
                try:
                    value = json.loads(value) if isinstance(value, str) and value else {}
                except ValueError:
                    value = {}
                value = value if isinstance(value, dict) else {}
            elif f.name in ("project", "superseded_by"):
                value = value or None
            kwargs[f.name] = value
        return cls(**kwargs)

    @property
    def tier_label(self) -> str:
        return Tier(self.tier).label

    def evidence(self) -> str:
        """Human evidence line, e.g. "seen 5x, followed 4/5"."""
        judged = self.follows + self.ignores
        parts = [f"seen {self.seen_count}x"]
        if judged:
            parts.append(f"followed {self.follows}/{judged}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class LessonCandidate:
    """A lesson proposed by an extractor at session end, before dedup and storage."""

    text: str
    trigger: str
    kind: str
    evidence: str = ""
    confidence: float = 0.5
    tags: list[str] = field(default_factory=list)
    structured: dict[str, Any] = field(default_factory=dict)  # see Experience.structured


@dataclass
class TranscriptEntry:
    """One step of a session as an agent logged it, in agent-neutral terms.

    ``role`` is "user", "assistant" or "tool". ``source`` says where the text
    came from: "user" (typed by the user), "assistant" (the model's own words),
    "tool_call" (a call the model made) or "tool_result" (output of a tool —
    never trusted as advice: file contents and command output land here).
    """

    role: str
    source: str
    text: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_use_id: str = ""
    is_error: bool = False
    timestamp: str = ""


@dataclass
class ContextSection:
    """A block of text a plugin wants in the agent's context file.

    Lower ``priority`` comes first and is the last to be dropped when the
    token budget runs out.
    """

    title: str
    lines: list[str]
    priority: int = 50
