"""From candidate lessons to stored experiences: redact, deduplicate, supersede, store.

``ingest_candidates`` is the one door through which extracted lessons enter
the store. For each candidate, against the nearest lessons of the same scope:

* a **contradiction** — the candidate prefers what an older lesson says to
  avoid, or avoids what it prefers (stance tags ``prefer:`` / ``avoid:``, see
  :mod:`twiceshy.learning.extractors`) — stores the candidate and marks the older one
  ``superseded_by`` it (both kept, a ``supersedes`` edge, one topic timeline);
* similarity at or above ``learning.dedup_threshold`` counts as the same
  lesson seen again (``seen_count`` and ``last_seen`` go up, no insert);
* between ``related_threshold`` and that, both are kept and linked
  ``relates-to``.

Stop hooks fire after every turn, so one session's transcript is read many
times: the keys of candidates already ingested for a session are kept under
``<data_dir>/learned/`` and a lesson is counted at most once per session.
The lesson itself also records the sessions that counted it (``structured
["counted_by"]``, in the same store write as the count), so a session end
replayed after a kill -9 counts nothing twice and stores no copy.

:func:`expand_one_hop` lets retrieval follow the graph one edge out.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.faults import fault_point
from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import data_dir, ensure_private_dir
from twiceshy.base.project import fingerprint
from twiceshy.base.redact import redact
from twiceshy.base.types import CoreEvent, Experience, LessonCandidate, LessonMatch, Tier
from twiceshy.learning.extractors import (
    commands_compatible,
    is_command_like,
    normalize,
    program_of,
    similarity,
    topic_of,
)
from twiceshy.learning.review import classify as review_reasons
from twiceshy.learning.review import hold_tags
from twiceshy.lesson.evidence import lesson_advice
from twiceshy.lesson.signature import INTERPRETERS

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

# Lessons at least this similar (trigger cosine) are checked for contradiction.
CONFLICT_MIN_SIMILARITY = 0.35  # "yarn install" ~ "npm install" is 0.45 with MiniLM
SEEN_CONFIDENCE_STEP = 0.05
STANCE_PREFIXES = ("prefer:", "avoid:")


# --------------------------------------------------------------------------
# Stances and contradiction
# --------------------------------------------------------------------------


def stances(tags: Iterable[str]) -> tuple[set[str], set[str]]:
    """(prefer, avoid) sets from a lesson's stance tags."""
    prefer = {t[len("prefer:") :] for t in tags if t.startswith("prefer:")}
    avoid = {t[len("avoid:") :] for t in tags if t.startswith("avoid:")}
    return prefer, avoid


def _same_thing(a: str, b: str) -> bool:
    """Same stance object: equal, nearly the same words, or a bare program name
    against a command running it ("yarn" ~ "yarn install")."""
    if a == b or similarity(a, b) >= 0.8:
        return True
    if " " not in a and program_of(b).lower() == a:
        return True
    return " " not in b and program_of(a).lower() == b


def contradicts(new_tags: Iterable[str], old_tags: Iterable[str]) -> bool:
    """True when one lesson prefers what the other avoids."""
    new_prefer, new_avoid = stances(new_tags)
    old_prefer, old_avoid = stances(old_tags)
    if any(_same_thing(p, a) for p in new_prefer for a in old_avoid):
        return True
    return any(_same_thing(a, p) for a in new_avoid for p in old_prefer)


def supersede(ctx: EngineContext, old: Experience, new: Experience) -> None:
    """Mark ``old`` as superseded by ``new``: kept, ranked down, never blocking.

    Both share one topic so :func:`twiceshy.learning.evolve.timeline` shows them in order.
    """
    old.superseded_by = new.id
    # A superseded rule must not keep blocking calls: at most a QA lesson now.
    old.tier = max(old.tier, int(Tier.QA))
    if not old.topic:
        old.topic = new.topic or topic_of(old.trigger)
    ctx.store.update(old)
    if new.topic != old.topic:
        new.topic = old.topic
        ctx.store.update(new)
    ctx.store.add_edge(new.id, old.id, "supersedes")


# --------------------------------------------------------------------------
# Storing
# --------------------------------------------------------------------------


def store_lesson(
    ctx: EngineContext,
    text: str,
    trigger: str,
    kind: str = "manual",
    project: str | None = None,
    tags: list[str] | None = None,
    confidence: float = 0.5,
    source: str = "",
    topic: str | None = None,
    touched: set[str] | None = None,
    now: float | None = None,
    structured: dict[str, Any] | None = None,
    counted_by: str = "",
) -> tuple[Experience, str]:
    """Store one lesson with dedup and supersession.

    Returns ``(experience, outcome)`` with outcome ``"new"``, ``"seen"`` (an
    existing lesson's count went up; that experience is returned),
    ``"related"`` (new, linked to a near-duplicate) or ``"supersedes"`` (new,
    and it superseded at least one contradicting older lesson).
    ``touched`` collects ids already counted in this batch: a lesson is not
    counted twice for one session. ``counted_by`` (a session key) makes the
    call idempotent: a lesson that session already counted or created is
    returned as ``"seen"`` and nothing is written again.
    """
    store = ctx.store
    now = time.time() if now is None else now
    text, trigger = redact(text.strip()), redact((trigger or text).strip())
    tags = [redact(t) for t in (tags or [])]
    structured = _redact_tree(structured) if structured else _from_trigger(trigger, text)
    held = review_reasons(
        text, structured
    )  # poisoning guard (the mistake slot is what not to do): risky advice waits for `twiceshy review`
    dedup = ctx.config.get("learning", "dedup_threshold")
    related = ctx.config.get("learning", "related_threshold")
    nearest = _with_touched(store, store.search(trigger, k=5, project=project), trigger, touched)
    # Dedup compares what the lesson is about, within the same scope; a
    # superseded lesson is history, not something to count again.
    same_scope = [(e, s) for e, s in nearest if e.project == project and not e.superseded_by]
    # A held lesson must not demote the lessons it contradicts before anyone approved it.
    conflicting = [e for e, s in same_scope if not held and s >= CONFLICT_MIN_SIMILARITY and contradicts(tags, e.tags)]
    # Same lesson: similar enough, and (for two commands) the same program,
    # subcommand and arguments — embeddings rate "git stash" ~ "git stash pop" 0.9.
    same = [
        (e, s)
        for e, s in same_scope
        if (s >= dedup and commands_compatible(trigger, e.trigger) and signatures_compatible(structured, e.structured))
        # The same contrastive signature is the same mistake, however it was worded
        # ("pip install requests" / "pip3 install --user httpx" against a venv pip).
        # Within one session, two kinds of evidence stay two lessons (the failure's and the user's).
        or (same_signature(structured, e.structured) and (e.kind == kind or e.source != source))
    ]
    if counted_by:
        # Exactly-once under a crash: a lesson records, in the same store write as
        # its count, which sessions counted it. A replayed session end (the engine
        # was killed after applying it, before the spool recorded it done) finds
        # its own mark and counts nothing again, adds no copy, and finishes a
        # supersession the crash interrupted.
        mine = [e for e, _ in same if counted_by in _counted_by(e)]
        if mine:
            for old in conflicting:
                if old.id != mine[0].id:
                    supersede(ctx, old, mine[0])
            if touched is not None:
                touched.add(mine[0].id)
            return mine[0], "seen"
    if not conflicting and same:
        existing = same[0][0]
        if touched is not None and existing.id in touched:
            return existing, "seen"
        existing.seen_count += 1
        existing.last_seen = now
        existing.confidence = min(1.0, existing.confidence + SEEN_CONFIDENCE_STEP)
        for tag in tags:
            if tag not in existing.tags and not tag.startswith(STANCE_PREFIXES):
                existing.tags.append(tag)
        if structured and not (existing.structured or {}).get("signature") and structured.get("signature"):
            # An older, unstructured copy learns its signature (keeping which sessions counted it).
            marks = _counted_by(existing)
            existing.structured = {**structured, COUNTED_KEY: marks} if marks else structured
        _mark_counted(existing, counted_by)
        store.update(existing)
        if touched is not None:
            touched.add(existing.id)
        return existing, "seen"
    exp = Experience(
        text=text,
        trigger=trigger,
        kind=kind,
        project=project,
        tags=tags + hold_tags(held),
        confidence=confidence,
        source=source,
        topic=topic if topic is not None else topic_of(trigger),
        created_at=now,
        last_seen=now,
        structured=structured or {},
    )
    _mark_counted(exp, counted_by)
    store.add(exp)
    if touched is not None:
        touched.add(exp.id)
    if conflicting:
        for old in conflicting:
            supersede(ctx, old, exp)
        return exp, "supersedes"
    if same_scope and same_scope[0][1] >= related:
        store.add_edge(exp.id, same_scope[0][0].id, "relates-to", weight=same_scope[0][1])
        return exp, "related"
    return exp, "new"


COUNTED_KEY = "counted_by"  # in Experience.structured: the sessions that counted the lesson
COUNTED_KEEP = 16  # a replay follows its crash within one engine restart; 16 is plenty


def _counted_by(exp: Experience) -> list[str]:
    marks = (exp.structured or {}).get(COUNTED_KEY) if isinstance(exp.structured, dict) else None
    return [m for m in marks if isinstance(m, str)] if isinstance(marks, list) else []


def _mark_counted(exp: Experience, counted_by: str) -> None:
    """Record ``counted_by`` on the lesson (bounded, newest last), written with its count."""
    if not counted_by:
        return
    marks = [m for m in _counted_by(exp) if m != counted_by] + [counted_by]
    exp.structured = {**(exp.structured or {}), COUNTED_KEY: marks[-COUNTED_KEEP:]}


def _redact_tree(value: Any) -> Any:
    """Every string of a structured lesson redacted (commands and error lines
    carry tokens and passwords as often as lesson text does)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_tree(v) for v in value]
    return value


def _from_trigger(trigger: str, text: str) -> dict[str, Any]:
    """A structured lesson for a trigger-only lesson (``twiceshy learn --trigger``):
    the trigger is the mistake; its signature comes from the trigger and the
    advice (flags the advice names that the trigger lacks are the fix)."""
    try:
        from twiceshy.lesson.signature import derive_from_trigger, describe_call, is_command_like

        sig = derive_from_trigger(trigger, text)
    except Exception:  # an unreadable trigger: no signature, recall stays conservative
        return {}
    if not sig:
        return {}
    mistake = describe_call(trigger) if is_command_like(trigger) else {"text": trigger[:300]}
    return {
        "mistake": mistake,
        "fix": {},
        "why": "",
        "scope": {"tool": "Bash" if sig.get("kind") == "command" else "Edit", "program": sig.get("program", "")},
        "evidence": {"kind": "trigger"},
        "signature": sig,
    }


def same_signature(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Both lessons have the same specific signature (the fix text aside):
    one mistake, however differently the call was worded. A bare program
    signature is not specific enough to merge on."""
    sa = (a or {}).get("signature") if isinstance(a, dict) else None
    sb = (b or {}).get("signature") if isinstance(b, dict) else None
    if not sa or not sb or not any(sa.get(k) for k in ("present", "absent", "sub", "of")):
        return False
    return signatures_compatible(a, b)


def signatures_compatible(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """May two lessons be one? Not when both have signatures and they differ
    (``-target=module.a`` is not ``-target=module.b``; the fix text aside), nor
    when their mistakes ran different scripts (:func:`script_of`)."""
    sa = (a or {}).get("signature") if isinstance(a, dict) else None
    sb = (b or {}).get("signature") if isinstance(b, dict) else None
    if not sa or not sb:
        return True
    return _held_key(sa, script_of(a)) == _held_key(sb, script_of(b))


# The interpreters (twiceshy.lesson.signature.INTERPRETERS): `bash ./tool-0.sh --env x` is not
# `bash ./tool-2.sh --env x`.
_FILE_WORD_RE = re.compile(r"/|\.[A-Za-z][A-Za-z0-9]{0,4}$")


def script_of(structured: dict[str, Any] | None, trigger: str = "") -> str:
    """The script an interpreter ran in a lesson's mistake, by name
    (``bash ./ci/tool-0.sh --env x`` -> ``tool-0.sh``), else ``""``."""
    mistake = structured.get("mistake") if isinstance(structured, dict) else None
    command = mistake.get("command") if isinstance(mistake, dict) else None
    if not isinstance(command, str) or not command.strip():
        command = trigger if is_command_like(trigger) else ""
    if not command or "\n" in command.strip():
        return ""
    from twiceshy.lesson.signature import pick_call

    def interpreter(word: str) -> bool:  # python3.12 is python
        return re.sub(r"[\d.]+$", "", word.rsplit("/", 1)[-1].lower()) in INTERPRETERS

    call = pick_call(command)
    if call is None or not interpreter(call.program):
        return ""  # the program runs itself, or a module (`python -m pytest tests/a.py`)
    after = max((i for i, word in enumerate(call.argv) if interpreter(word)), default=len(call.argv))
    script = next((w for w in call.argv[after + 1 :] if not w.startswith("-") and _FILE_WORD_RE.search(w)), "")
    return script.rstrip("/").rsplit("/", 1)[-1]


def _held_key(sig: dict[str, Any], script: str) -> str:
    """Which mistake a signature is about: what it holds (the fix text and the code
    pattern's label aside), and the script its mistake ran."""
    held = {k: v for k, v in sig.items() if k not in ("fix", "pattern")}
    return json.dumps({**held, "script": script} if script else held, sort_keys=True)


def mistake_key(structured: dict[str, Any] | None, trigger: str, text: str) -> str:
    """What a lesson holds, as a key: two lessons are one lesson (merged across
    projects, the others superseded by it) only when their keys are equal. Its
    signature, with the script its mistake ran; never how the lessons read:
    "./tool-0.sh … --region" and "./tool-2.sh … --zone" embed alike. A lesson
    without a signature of its own (older, imported) holds what the matcher
    derives from its trigger and advice: that, and the trigger itself (a guess
    from prose only narrows a merge)."""
    from twiceshy.lesson.signature import signature_of

    structured = structured if isinstance(structured, dict) else {}
    sig = signature_of(structured, trigger, text)
    held = "sig:" + _held_key(sig, script_of(structured, trigger)) if isinstance(sig, dict) and sig else ""
    if held and isinstance(structured.get("signature"), dict):
        return held
    read = "trigger:" + " ".join((trigger or text).lower().split())
    return f"{read}\n{held}" if held else read


def _session_file(session_key: str) -> Path:
    digest = hashlib.sha256(session_key.encode()).hexdigest()[:24]
    return data_dir() / "learned" / f"{digest}.json"


def _load_keys(path: Path) -> set[str]:
    try:
        return set(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return set()


def _save_keys(path: Path, keys: set[str]) -> None:
    ensure_private_dir(path.parent)
    write_atomic(path, json.dumps(sorted(keys)), private=True, durable=False)  # 0600 in a 0700 folder


def candidate_key(cand: LessonCandidate) -> str:
    """Identity of a candidate within one session (kind + normalised trigger)."""
    sig = (cand.structured or {}).get("signature")
    extra = json.dumps(sig, sort_keys=True) if sig else ""
    return hashlib.sha256(f"{cand.kind}|{normalize(cand.trigger)}|{extra}".encode()).hexdigest()[:20]


def ingest_candidates(
    ctx: EngineContext,
    candidates: list[LessonCandidate],
    event: CoreEvent,
    learned: list[Experience] | None = None,
) -> int:
    """Redact, dedup and store one session's candidates. Returns how many were
    new to this session (stored, counted as seen, or superseding); ``learned``,
    when given, receives each of those lessons as stored."""
    project = fingerprint(event.cwd) if event.cwd else None
    session_key = f"{event.agent}:{event.session_id}" if event.session_id else ""
    keys_file = _session_file(session_key) if session_key else None
    done = _load_keys(keys_file) if keys_file else set()
    touched: set[str] = set()
    stored = 0
    # Strongest first: when two signals of one session share a trigger (a user
    # correction and the failed call it reacted to), the stronger one's text is
    # kept and the other only confirms it.
    for cand in sorted(candidates, key=lambda c: -c.confidence):
        key = candidate_key(cand)
        if key in done:
            continue  # already learned from an earlier Stop of this same session
        exp, _ = store_lesson(
            ctx,
            cand.text,
            cand.trigger,
            kind=cand.kind,
            project=project,
            tags=cand.tags,
            confidence=cand.confidence,
            source=f"{event.agent}:{event.session_id}",
            touched=touched,
            structured=_with_session(cand.structured, event),
            counted_by=_mark_of(session_key),
        )
        fault_point("session_end.lesson_stored")
        if learned is not None:
            learned.append(exp)
        done.add(key)
        stored += 1
    if keys_file is not None and stored:
        _save_keys(keys_file, done)
    return stored


def _with_touched(
    store: Any, nearest: list[tuple[Experience, float]], trigger: str, touched: set[str] | None
) -> list[tuple[Experience, float]]:
    """``nearest`` plus this batch's own lessons with the same trigger, if the search missed them.

    A vector search can miss a lesson written a moment before (Chroma's own
    index applies writes in batches): two candidates of one session with one
    trigger would then become two lessons on one run and one on the next."""
    if not touched:
        return nearest
    found = {e.id for e, _ in nearest}
    missing = [i for i in touched if i not in found]
    if not missing:
        return nearest
    norm = normalize(trigger)
    extra = [(e, 1.0) for e in store.get_many(missing) if normalize(e.trigger) == norm]
    return sorted(nearest + extra, key=lambda pair: -pair[1]) if extra else nearest


def _mark_of(session_key: str) -> str:
    """The short, stable mark a session leaves on the lessons it counted."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:16] if session_key else ""


def _with_session(structured: dict[str, Any], event: CoreEvent) -> dict[str, Any]:
    """The candidate's structured lesson with its evidence pointing at this session."""
    if not structured:
        return {}
    out = dict(structured)
    evidence = dict(out.get("evidence") or {})
    evidence["session"] = f"{event.agent}:{event.session_id}" if event.session_id else ""
    out["evidence"] = evidence
    return out


def prune_session_files(max_age_days: float = 14, now: float | None = None) -> int:
    """Drop per-session ingest records older than ``max_age_days``."""
    folder = data_dir() / "learned"
    now = time.time() if now is None else now
    removed = 0
    for path in folder.glob("*.json") if folder.is_dir() else []:
        try:
            if now - path.stat().st_mtime > max_age_days * 86400:
                path.unlink()
                removed += 1
        except OSError:
            continue
    return removed


# --------------------------------------------------------------------------
# Retrieval: one hop along the graph
# --------------------------------------------------------------------------

HOP_FACTOR = {"supersedes": 1.0, "generalizes": 0.95, "relates-to": 0.9}


EDGE_QUERY_IDS = 1000  # ids per batched edge query: one ``$in`` over many more exceeds SQLite's variable limit


def _edges_of(ctx: EngineContext, ids: list[str]) -> list[dict]:
    """Every edge touching any of ``ids``: batched queries when the store allows
    (``edges_of``: chunked, and remembered between writes in the engine)."""
    store = ctx.store
    if not ids:
        return []
    batched = getattr(type(store), "edges_of", None)
    if batched is not None:
        return list(store.edges_of(ids))
    edges_col = getattr(store, "_edges", None)
    if edges_col is None:
        return [e for i in ids for e in store.edges(i)]
    out: dict[tuple, dict] = {}
    for start in range(0, len(ids), EDGE_QUERY_IDS):
        chunk = ids[start : start + EDGE_QUERY_IDS]
        got = edges_col.get(where={"$or": [{"src": {"$in": chunk}}, {"dst": {"$in": chunk}}]}, include=["metadatas"])
        for meta in got["metadatas"]:
            edge = dict(meta)
            out[(edge.get("src"), edge.get("type"), edge.get("dst"))] = edge
    return list(out.values())


def one_hop(
    ctx: EngineContext, seeds: list[tuple[str, float]], project: str | None = None, per_seed: int = 2
) -> list[tuple[Experience, float, str]]:
    """Lessons one typed edge away from the ``(id, score)`` seeds, as
    ``(experience, score * HOP_FACTOR[edge], edge type)``, best first.

    * a superseded seed brings in the lesson that superseded it (the current view);
    * a rule brings in the principle that generalises it, a principle its rules;
    * ``relates-to`` brings in the linked near-duplicate.

    Superseded neighbours, lessons of another project and the seeds themselves
    are never returned.
    """
    if not seeds:
        return []
    score_of = dict(seeds)
    wanted: dict[str, tuple[float, str]] = {}
    per: dict[str, int] = {}
    for edge in _edges_of(ctx, list(score_of)):
        kind, src, dst = edge.get("type", ""), edge.get("src"), edge.get("dst")
        if kind not in HOP_FACTOR:
            continue
        for seed, other, outgoing in ((src, dst, True), (dst, src, False)):
            if seed not in score_of or not other or other in score_of:
                continue
            if kind == "supersedes" and outgoing:
                continue  # the seed is the newer lesson: the one it replaced is history
            if per.get(seed, 0) >= per_seed:
                continue
            per[seed] = per.get(seed, 0) + 1
            score = score_of[seed] * HOP_FACTOR[kind]
            if other not in wanted or wanted[other][0] < score:
                wanted[other] = (score, kind)
    out = []
    from twiceshy.learning.review import is_held

    for exp in ctx.store.get_many(list(wanted)):
        if exp.superseded_by or is_held(exp) or (exp.project is not None and exp.project != project):
            continue
        score, kind = wanted[exp.id]
        out.append((exp, score, kind))
    out.sort(key=lambda item: -item[1])
    return out


def expand_hits(
    ctx: EngineContext, hits: list[tuple[Experience, float]], project: str | None = None
) -> list[tuple[Experience, float]]:
    """``store.search`` hits plus their one-hop neighbours (same shape), for
    retrieval: ``hits = expand_hits(ctx, hits, project)`` before ranking."""
    extra = one_hop(ctx, [(e.id, s) for e, s in hits], project)
    return list(hits) + [(exp, score) for exp, score, _ in extra]


def expand_one_hop(ctx: EngineContext, matches: list[LessonMatch], project: str | None = None) -> list[LessonMatch]:
    """``matches`` plus the lessons one edge away (see :func:`one_hop`), appended
    after the input as :class:`LessonMatch` with "via <edge>" in the evidence."""
    extra = one_hop(ctx, [(m.experience_id, m.score) for m in matches], project)
    return list(matches) + [
        LessonMatch(
            experience_id=exp.id,
            text=lesson_advice(exp),
            trigger=exp.trigger,
            tier=exp.tier,
            score=score,
            evidence=f"{exp.evidence()}; via {kind}",
        )
        for exp, score, kind in extra
    ]


_TAG_RE = re.compile(r"^[a-z0-9+#._-]{1,32}$")


def display_tags(exp: Experience) -> list[str]:
    """Domain tags only (stance tags are bookkeeping for contradiction checks)."""
    return [t for t in exp.tags if not t.startswith(STANCE_PREFIXES) and _TAG_RE.match(t)]
