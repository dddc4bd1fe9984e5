"""Changing lessons by hand: one implementation behind the CLI and the dashboard.

``twiceshy edit`` / ``forget`` / ``search`` and the dashboard's edit, forget,
search, approve and reject all call these functions, so the two can never
disagree on what is valid. Every write goes through the store's normal write
path (:meth:`ExperienceStore.update` / ``delete``): the change journal and the
generation stamp tell a running engine to refresh its index, and the rules
snapshot the hook client falls back on is rewritten in step.

Errors are :class:`LessonError` with a one-line message meant for the user
(:class:`NoSuchLesson` when the id is unknown).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twiceshy.base.types import Experience
    from twiceshy.engine.context import EngineContext

EDITABLE = ("text", "trigger", "tier", "confidence", "tags", "topic", "project")
MAX_TEXT = 4000  # characters of advice or trigger; a lesson is a sentence or two, not a document
MAX_TAGS = 32


class LessonError(ValueError):
    """Bad input for a lesson change; the message is shown as is."""


class NoSuchLesson(LessonError):
    """No lesson (or no held lesson) with that id."""


def get_lesson(ctx: EngineContext, exp_id: str) -> Experience:
    exp = ctx.store.get(str(exp_id))
    if exp is None:
        raise NoSuchLesson(f"no lesson {exp_id}")
    return exp


def _validated(key: str, value: Any) -> Any:
    from twiceshy.base.redact import redact
    from twiceshy.base.types import Tier

    if key in ("text", "trigger"):
        if not isinstance(value, str):
            raise LessonError(f"{key} must be text")
        value = redact(value.strip())
        if not value:
            raise LessonError(f"{key} must not be empty")
        if len(value) > MAX_TEXT:
            raise LessonError(f"{key} is too long ({len(value)} characters, at most {MAX_TEXT})")
        return value
    if key == "tier":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise LessonError("tier must be principle, rule, qa or raw")
        try:
            return int(Tier.parse(value))
        except ValueError:
            raise LessonError(f"unknown tier {value!r} (use principle, rule, qa, raw or T0..T3)") from None
    if key == "confidence":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise LessonError("confidence must be a number from 0 to 1")
        try:
            number = float(value)
        except ValueError:
            raise LessonError(f"confidence must be a number from 0 to 1, not {value!r}") from None
        if not (math.isfinite(number) and 0.0 <= number <= 1.0):
            raise LessonError(f"confidence must be from 0 to 1, not {value!r}")
        return number
    if key == "tags":
        if isinstance(value, str):
            value = [t for t in value.replace(",", " ").split()]
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise LessonError("tags must be a list of words")
        tags = list(dict.fromkeys(t.strip() for t in value if t.strip()))
        if len(tags) > MAX_TAGS:
            raise LessonError(f"at most {MAX_TAGS} tags")
        return tags
    if key == "topic":
        if not isinstance(value, str):
            raise LessonError("topic must be text")
        return value.strip()
    if key == "project":
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise LessonError("project must be a project fingerprint or null (global)")
        return value.strip() if isinstance(value, str) else None
    raise LessonError(f"cannot edit {key!r}; editable: {', '.join(EDITABLE)}")


def apply_edit(ctx: EngineContext, exp: Experience, changes: dict[str, Any]) -> list[str]:
    """Validate ``changes`` (all or nothing), write the lesson back, and return the
    fields that changed (sorted; empty: nothing written). A new text or trigger is
    redacted like a learned one and re-embedded. The poisoning guard's marks are
    tags: replacing the tags of a held lesson keeps it held (approve it instead)."""
    from twiceshy.learning.review import APPROVED_TAG, HOLD_TAG, REASON_PREFIX

    clean = {key: _validated(key, value) for key, value in changes.items()}
    if "tags" in clean:
        guard = [t for t in exp.tags if t in (HOLD_TAG, APPROVED_TAG) or t.startswith(REASON_PREFIX)]
        clean["tags"] = [t for t in clean["tags"] if t not in guard] + guard
    changed = sorted(k for k, v in clean.items() if getattr(exp, k) != v)
    if not changed:
        return []
    for key in changed:
        setattr(exp, key, clean[key])
    ctx.store.update(exp, reembed=bool({"text", "trigger"} & set(changed)))
    return changed


def forget_lesson(ctx: EngineContext, exp_id: str) -> Experience:
    """Delete one lesson and its edges; returns what was deleted."""
    exp = get_lesson(ctx, exp_id)
    ctx.store.delete(exp.id)
    return exp


def search_lessons(
    ctx: EngineContext, query: str, k: int = 5, project: str | None = None
) -> list[tuple[Experience, float]]:
    """The store's search (by meaning), global lessons plus ``project``'s."""
    query = str(query).strip()
    if not query:
        raise LessonError("the search query is empty")
    if int(k) < 1:
        raise LessonError("k must be at least 1")
    return list(ctx.store.search(query, k=int(k), project=project))


def review_lesson(ctx: EngineContext, exp_id: str, action: str) -> Experience:
    """``approve`` (release) or ``reject`` (delete) a lesson held by the poisoning guard
    (:mod:`twiceshy.learning.review`), as ``twiceshy review --approve/--reject`` does."""
    from twiceshy.learning import review as guard

    if action not in ("approve", "reject"):
        raise LessonError(f"unknown review action {action!r}: approve or reject")
    exp = ctx.store.get(str(exp_id))
    if exp is None or not guard.is_held(exp):
        raise NoSuchLesson(f"no held lesson with id {exp_id} (see `twiceshy review`)")
    if action == "approve":
        return guard.approve(ctx.store, exp.id) or exp
    guard.reject(ctx.store, exp.id)
    return exp


__all__ = [
    "EDITABLE",
    "LessonError",
    "NoSuchLesson",
    "apply_edit",
    "forget_lesson",
    "get_lesson",
    "review_lesson",
    "search_lessons",
]
