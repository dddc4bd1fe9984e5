"""render_context and session-start guidance, built from the store.

Sections, strongest first (lower priority number survives the budget longest):

* 10 **Principles** (T0) and 20 **Rules** (T1) in scope (global + this project);
* 30 **Apply**, 35 **Avoid**, 60 **Consider**: the lessons most relevant to the
  project (its own first, then by confidence, adherence and recency), the
  behavioural rules distilled from trajectories (``twiceshy.guidance.distill``) and the
  mature/rule pattern observations (``twiceshy.guidance.patterns``). Each line carries
  its evidence ("seen 5x, followed 4/5").

``session_start`` returns that text once per session (a marker under
``<data_dir>/sessions/`` survives an engine restart), led by the lessons the
previous session(s) of this project taught — raw ones too, which the sections
above leave out until seen twice — and records the project in the registry
(``twiceshy.guidance.projects``). On each prompt (UserPromptSubmit /
BeforeAgent) it adds the lessons most similar to the prompt text (cosine at
least :data:`PROMPT_MIN_SIMILARITY`, at most :data:`PROMPT_MAX_LESSONS`).
Both reach the model before it plans, unlike pre-tool context. Everything is
kept within ``context.session_token_budget`` and deduplicated against what
the session already saw (session-start text, prompt lessons, pre-tool
warnings).
"""

from __future__ import annotations

import contextvars
import itertools
import json
import os
import re
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from twiceshy.base.errorlog import record_error
from twiceshy.base.paths import ensure_private_dir
from twiceshy.base.types import ContextSection, CoreEvent, Experience, Tier
from twiceshy.engine.context import EngineContext
from twiceshy.lesson.evidence import lesson_advice
from twiceshy.plugin.hookspecs import hookimpl

SESSION_HEADING = (
    "## twiceshy: lessons from earlier sessions\n"
    "Advice learned from past experience, not instructions; ignore any that do not apply."
)
_AVOID = re.compile(r"^\s*(don'?t|do not|never|avoid|stop|no longer|beware|careful)\b", re.I)
_AVOID_KINDS = {"error", "failure", "mistake", "antipattern", "correction", "avoid"}
_MARKER_TTL_S = 3 * 86400

RECENT_HEADING = "### Learned in your last session(s) in this project"
_QUOTED_ERROR = "` failed ("  # how lessons learned before issue 29 quoted a tool's error line
RECENT_SESSIONS = 2  # previous sessions whose lessons lead the session-start context
RECENT_MAX_LESSONS = 8
PROMPT_HEADING = (
    "## twiceshy: lessons from earlier sessions that may bear on this request\n"
    "Advice learned from past experience, not instructions; ignore any that do not apply."
)
# Conservative: the retrieval default cut. Measured with the shipped MiniLM, a
# request and the command that carried it out ("please deploy to staging" ~
# "./deploy.sh --env staging") score 0.55-0.70; unrelated requests stayed under 0.45.
PROMPT_MIN_SIMILARITY = 0.55
PROMPT_MAX_LESSONS = 3
PROMPT_MIN_WORDS = 3  # "yes", "go on": nothing to search for

# A project's own lessons per (store generation, project): the session-start read of recent ones.
_project_cache: dict[str, Any] = {}
# Distilled rules per (trajectory file size, mtime): distilling is cheap, but not free.
_distill_cache: dict[str, Any] = {}
# The scoped-lesson read, per store generation (see _candidates).
_lesson_cache: dict[str, Any] = {}
_cache_lock = threading.Lock()
_refreshing: set[int] = set()
_allow_stale: contextvars.ContextVar[bool] = contextvars.ContextVar("twiceshy_context_allow_stale", default=False)


def _in_scope(exp: Experience, project: str | None) -> bool:
    held = "review:held" in exp.tags  # twiceshy.learning.review: not shown until approved
    return not exp.superseded_by and not held and (exp.project is None or exp.project == project)


def _line(exp: Experience) -> str:
    """A lesson's line in a context block: its advice text on one line, never the
    tool output it keeps as evidence (:mod:`twiceshy.lesson.evidence`)."""
    return f"- {lesson_advice(exp)} ({exp.evidence()})"


def _group(exp: Experience) -> str:
    judged = exp.follows + exp.ignores
    if _AVOID.match(exp.text) or exp.kind in _AVOID_KINDS or "avoid" in exp.tags:
        return "avoid"
    if exp.tier >= int(Tier.RAW) or (judged >= 2 and exp.follows / judged < 0.5):
        return "consider"  # unproven, or agents keep ignoring it
    return "apply"


def _relevance(exp: Experience, project: str | None, now: float) -> float:
    judged = exp.follows + exp.ignores
    adherence = (exp.follows + 1) / (judged + 2)  # Laplace: unjudged lessons sit at 0.5
    age_days = max(0.0, now - exp.last_seen) / 86400
    recency = 0.5 ** (age_days / 30)
    own = 2.0 if project is not None and exp.project == project else 1.0
    return own * (0.5 + exp.confidence) * (0.5 + adherence) * (0.5 + recency) * (1 + 0.1 * min(exp.seen_count, 10))


def _generation(store: Any) -> str | None:
    path = getattr(store, "path", None)
    if path is None:
        return None
    try:
        return (Path(path) / "generation").read_text(encoding="utf-8")
    except OSError:
        return None


def _fetch(store: Any) -> list[Experience]:
    return store.all(where={"$or": [{"tier": {"$lte": int(Tier.QA)}}, {"seen_count": {"$gte": 2}}]})


def _refresh(store: Any, stamp: str) -> None:
    try:
        lessons = _fetch(store)
        with _cache_lock:
            _lesson_cache.update(store=weakref.ref(store), stamp=stamp, lessons=lessons)
    except Exception as exc:
        record_error("context.refresh", exc)
    finally:
        _refreshing.discard(id(store))


def _candidates(store: Any) -> list[Experience]:
    """Lessons worth showing: qa and stronger, or raw seen at least twice.

    One Chroma read (~0.2 s per 1000 lessons), cached until the store's
    generation stamp (``<store>/generation``, bumped on every write) changes.
    At session start (``_allow_stale``) a stale cache of the same store is
    served at once and refreshed in a background thread: guidance that
    misses the last few minutes' lessons beats a session start that waits.
    """
    stamp = _generation(store)
    with _cache_lock:
        cached_store = _lesson_cache.get("store")
        same_store = cached_store is not None and cached_store() is store
        if same_store and stamp is not None and _lesson_cache.get("stamp") == stamp:
            return list(_lesson_cache["lessons"])
        if same_store and stamp is not None and _allow_stale.get():
            if id(store) not in _refreshing:
                _refreshing.add(id(store))
                threading.Thread(target=_refresh, args=(store, stamp), daemon=True).start()
            return list(_lesson_cache["lessons"])
    lessons = _fetch(store)
    if stamp is not None:
        with _cache_lock:
            _lesson_cache.update(store=weakref.ref(store), stamp=stamp, lessons=lessons)
    return list(lessons)


def _distilled(ctx: EngineContext) -> list[Any]:
    from twiceshy.guidance.distill import distill_rules, trajectories_path

    try:
        st = trajectories_path().stat()
        key = f"{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return []
    if _distill_cache.get("key") != key:
        _distill_cache["rules"] = distill_rules(config=ctx.config)
        _distill_cache["key"] = key
    return list(_distill_cache["rules"])


# -- ranked candidates from the metadata indexes (the fast path) ----------------
#
# Principles, rules and the Apply/Avoid/Consider groups show a few dozen lines;
# ranking needs only metadata. With the store's SQLite readable
# (twiceshy.memory.census) the candidates' ranking fields are read as compact
# rows, ranked in memory, and only the lessons that can be shown are read in
# full: at 100k lessons that is ~1 s instead of a minute, and no chromadb import.

_RANK_KEYS = ("tier", "confidence", "follows", "ignores", "last_seen", "seen_count", "project", "tags", "kind")
_AVOID_PREFIXES = ("don", "do not", "never", "avoid", "stop", "no longer", "beware", "careful")
# The candidate rows of the last store generation seen (the engine renders per session start).
_rank_cache: dict[str, Any] = {}


def _rank_row(exp_id: str, row: dict[str, Any], maybe_avoid: bool) -> tuple[Any, ...] | None:
    """A candidate's compact row, or ``None`` when it is never shown (superseded, held)."""
    if row.get("superseded_by"):
        return None
    raw_tags = row.get("tags") or ""
    tags: list[str] = []
    if "avoid" in raw_tags or "review:held" in raw_tags:
        try:
            parsed = json.loads(raw_tags)
            tags = [str(t) for t in parsed] if isinstance(parsed, list) else []
        except ValueError:
            tags = []
    if "review:held" in tags:
        return None
    return (
        exp_id,
        int(row.get("tier", int(Tier.RAW))),
        float(row.get("confidence", 0.5)),
        int(row.get("follows", 0)),
        int(row.get("ignores", 0)),
        float(row.get("last_seen", 0.0)),
        int(row.get("seen_count", 1)),
        row.get("project") or None,
        row.get("kind", "manual") in _AVOID_KINDS or "avoid" in tags,
        maybe_avoid,
    )


def _is_candidate(row: dict[str, Any]) -> bool:
    tier, seen = row.get("tier", int(Tier.RAW)), row.get("seen_count", 1)
    return isinstance(tier, (int, float)) and tier <= int(Tier.QA) or isinstance(seen, (int, float)) and seen >= 2


def _rank_rows(census: Any) -> dict[str, tuple[Any, ...]]:
    """Every candidate (qa and stronger, or raw seen twice; not superseded, not held)
    by id, as (id, tier, confidence, follows, ignores, last_seen, seen_count,
    project, avoid by kind/tag, text may say avoid)."""
    keys = (*_RANK_KEYS, "superseded_by")
    maybe_avoid = census.text_prefixed(_AVOID_PREFIXES)
    out: dict[str, tuple[Any, ...]] = {}
    for exp_id, row in itertools.chain(
        census.iter_select(keys, "tier", "<=", int(Tier.QA)),
        census.iter_select(keys, "seen_count", ">=", 2, unless=("tier", "<=", int(Tier.QA))),
    ):
        compact = _rank_row(exp_id, row, exp_id in maybe_avoid)
        if compact is not None:
            out[exp_id] = compact
    return out


def _apply_changes(census: Any, rows: dict[str, tuple[Any, ...]], ids: list[str]) -> None:
    """Re-read the lessons another write named (the change journal): cost in proportion to them."""
    found = census.rows(ids, (*_RANK_KEYS, "superseded_by", "chroma:document"))
    for exp_id in ids:
        rows.pop(exp_id, None)
        row = found.get(exp_id)
        if row is None or not _is_candidate(row):
            continue
        compact = _rank_row(exp_id, row, bool(_AVOID.match(str(row.get("chroma:document") or ""))))
        if compact is not None:
            rows[exp_id] = compact


INCREMENTAL_MAX = 5000  # more changed lessons than this since the last read: read all candidates again


def _refresh_rank_rows(ctx: EngineContext, stamp: str) -> None:
    from twiceshy.memory.census import open_census

    try:
        census = open_census(ctx, (), scan=False)
        if census is not None:
            with census:
                _update_rank_rows(ctx, census, stamp)
    except Exception as exc:
        record_error("context.refresh", exc)
    finally:
        _refreshing.discard(-id(ctx.store))


def _update_rank_rows(ctx: EngineContext, census: Any, stamp: str) -> dict[str, tuple[Any, ...]]:
    """The cached rows brought to ``stamp``: the lessons named in the change journal
    since the last read are re-read, or all candidates when that is unknown."""
    store = ctx.store
    with _cache_lock:
        same = _rank_cache.get("store") == id(store)
        rows = _rank_cache.get("rows") if same else None
        position = _rank_cache.get("position") if same else None
    changed = store.changed_since(position) if rows is not None and hasattr(store, "changed_since") else None
    if changed is not None and len(changed[1]) <= INCREMENTAL_MAX:
        position, ids = changed
        rows = dict(rows or {})
        if ids:
            _apply_changes(census, rows, ids)
    else:
        position = store.journal_position() if hasattr(store, "journal_position") else None
        rows = _rank_rows(census)
    with _cache_lock:
        _rank_cache.update(stamp=stamp, store=id(store), rows=rows, position=position)
    return rows


def _cached_rank_rows(ctx: EngineContext, census: Any) -> list[tuple[Any, ...]]:
    """The candidate rows. In a process whose store is open (the engine) they are
    kept and brought up to date from the change journal (only the lessons written
    since are re-read); at session start (``_allow_stale``) rows of an older
    generation are served at once and updated in a background thread."""
    if getattr(ctx, "_store", None) is None:
        return list(_rank_rows(census).values())
    stamp = _generation(ctx.store)
    if stamp is None:
        return list(_rank_rows(census).values())
    with _cache_lock:
        if _rank_cache.get("store") == id(ctx.store):
            if _rank_cache.get("stamp") == stamp:
                return list(_rank_cache["rows"].values())
            if _allow_stale.get():
                if -id(ctx.store) not in _refreshing:
                    _refreshing.add(-id(ctx.store))
                    threading.Thread(target=_refresh_rank_rows, args=(ctx, stamp), daemon=True).start()
                return list(_rank_cache["rows"].values())
    return list(_update_rank_rows(ctx, census, stamp).values())


def _fast_lessons(
    ctx: EngineContext, project: str | None, budget_tokens: int, per_group: int, now: float
) -> tuple[list[Experience], list[Experience], dict[str, list[tuple[float, str]]]] | None:
    """(principles, rules, group items) read through the metadata indexes; ``None``
    when they cannot answer (the slow path then reads the lessons)."""
    from twiceshy.memory.census import open_census

    census = open_census(ctx, (), scan=False)
    if census is None:
        return None
    with census:
        rows = [r for r in _cached_rank_rows(ctx, census) if r[7] is None or r[7] == project]
        # A shown line costs at least 4 tokens: no more than this many of a section can fit.
        cap = max(1, budget_tokens // 4 + 1)
        tiers: list[list[Experience]] = []
        for tier in (int(Tier.PRINCIPLE), int(Tier.RULE)):
            ranked = sorted((r for r in rows if r[1] == tier), key=lambda r: (-r[2], -r[3]))
            if len(ranked) > cap:  # keep ties at the cut: the text breaks them
                edge = (ranked[cap - 1][2], ranked[cap - 1][3])
                ranked = ranked[:cap] + [r for r in ranked[cap:] if (r[2], r[3]) == edge]
            exps = census.experiences([r[0] for r in ranked])
            tiers.append(sorted(exps, key=lambda e: (-e.confidence, -e.follows, e.text))[:cap])
        groups: dict[str, list[tuple[float, str]]] = {"apply": [], "avoid": [], "consider": []}
        lines: dict[str, set[str]] = {name: set() for name in groups}
        pool = [r for r in rows if r[1] >= int(Tier.QA)]
        pool.sort(key=lambda r: -_row_relevance(r, project, now))
        for start in range(0, len(pool), 128):
            if all(len(lines[g]) >= per_group for g in groups):
                break
            chunk = pool[start : start + 128]
            # Text is read for a lesson that may land in a group still open, or whose text may say "avoid".
            want = [
                r
                for r in chunk
                if len(lines[_row_group(r, None)]) < per_group or (r[9] and len(lines["avoid"]) < per_group)
            ]
            texts = census.texts([r[0] for r in want]) if want else {}
            # A text in the shape twiceshy once quoted an error line in ("`cmd` failed (<output>)")
            # is read whole, so its evidence can be taken out (twiceshy.lesson.evidence).
            quoting = [i for i, t in texts.items() if t and _QUOTED_ERROR in t]
            structured = {e.id: e.structured for e in census.experiences(quoting)} if quoting else {}
            for r in want:
                text = texts.get(r[0])
                if text is None:
                    continue
                group = _row_group(r, text)
                exp = Experience(text=text, trigger="", follows=r[3], ignores=r[4], seen_count=r[6])
                exp.structured = structured.get(r[0]) or {}
                line = _line(exp)
                if len(lines[group]) < per_group and line not in lines[group]:
                    lines[group].add(line)
                    groups[group].append((_row_relevance(r, project, now), line))
        return tiers[0], tiers[1], groups


def _row_group(row: tuple[Any, ...], text: str | None) -> str:
    """:func:`_group` of a candidate row (``text`` None: as if it did not say avoid)."""
    if row[8] or (text is not None and row[9] and _AVOID.match(text)):
        return "avoid"
    judged = row[3] + row[4]
    if row[1] >= int(Tier.RAW) or (judged >= 2 and row[3] / judged < 0.5):
        return "consider"
    return "apply"


def _row_relevance(row: tuple[Any, ...], project: str | None, now: float) -> float:
    """:func:`_relevance` of a candidate row."""
    judged = row[3] + row[4]
    adherence = (row[3] + 1) / (judged + 2)
    recency = 0.5 ** (max(0.0, now - row[5]) / 86400 / 30)
    own = 2.0 if project is not None and row[7] == project else 1.0
    return own * (0.5 + row[2]) * (0.5 + adherence) * (0.5 + recency) * (1 + 0.1 * min(row[6], 10))


def _slow_lessons(
    ctx: EngineContext, project: str | None, now: float
) -> tuple[list[Experience], list[Experience], dict[str, list[tuple[float, str]]]]:
    """The same from the lessons themselves (server mode, an unknown file layout)."""
    candidates = [e for e in _candidates(ctx.store) if _in_scope(e, project)]
    strong = [e for e in candidates if e.tier <= int(Tier.QA)]
    raw = [e for e in candidates if e.tier == int(Tier.RAW)]
    by_conf = lambda e: (-e.confidence, -e.follows, e.text)  # noqa: E731
    principles = sorted((e for e in strong if e.tier == int(Tier.PRINCIPLE)), key=by_conf)
    rules = sorted((e for e in strong if e.tier == int(Tier.RULE)), key=by_conf)
    groups: dict[str, list[tuple[float, str]]] = {"apply": [], "avoid": [], "consider": []}
    for exp in (e for e in strong + raw if e.tier >= int(Tier.QA)):
        groups[_group(exp)].append((_relevance(exp, project, now), _line(exp)))
    return principles, rules, groups


@hookimpl
def render_context(ctx: EngineContext, agent: str, project: str | None, budget_tokens: int) -> list[ContextSection]:
    """Principles, rules, then Apply / Avoid / Consider with their evidence."""
    from twiceshy.guidance.patterns import PatternStore

    now = time.time()
    per_group = int(ctx.config.get("context", "max_per_group"))
    found = None
    try:
        found = _fast_lessons(ctx, project, budget_tokens, per_group, now)
    except Exception as exc:  # the slow path still answers
        record_error("context.fast", exc)
        if os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1":
            raise
    principles, rules, groups = found if found is not None else _slow_lessons(ctx, project, now)
    sections: list[ContextSection] = []
    if principles:
        sections.append(ContextSection("Principles", [_line(e) for e in principles], priority=10))
    if rules:
        sections.append(ContextSection("Rules", [_line(e) for e in rules], priority=20))
    try:
        for rule in _distilled(ctx):
            # Significant by construction; rank them with well-followed lessons.
            groups.get(rule.polarity, groups["consider"]).append((6.0 - rule.p_value, rule.line()))
    except Exception as exc:  # guidance must not fail because trajectories are odd
        record_error("context.distill", exc)
    try:
        for obs in PatternStore(config=ctx.config).suggest(project, limit=per_group * 2):
            group = "apply" if obs.status == "rule" else "consider"
            groups[group].append((1.0 + obs.confidence, f"- {obs.pattern} ({obs.evidence()})"))
    except Exception as exc:
        record_error("context.patterns", exc)

    titles = {"apply": ("Apply", 30), "avoid": ("Avoid", 35), "consider": ("Consider", 60)}
    for name, items in groups.items():
        if not items:
            continue
        items.sort(key=lambda item: -item[0])
        lines = list(dict.fromkeys(line for _, line in items))[:per_group]  # unique, in rank order
        title, priority = titles[name]
        sections.append(ContextSection(title, lines, priority=priority))
    return sections


# -- session start ---------------------------------------------------------------


def _marker_dir() -> Path:
    from twiceshy.base.paths import data_dir

    return data_dir() / "sessions"


def _first_time(session_id: str) -> bool:
    """True once per session id, across engine restarts (one small file per session)."""
    if not session_id:
        return True
    folder = _marker_dir()
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:120]
    marker = folder / f"{safe}.context"
    try:
        ensure_private_dir(folder)
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
    except FileExistsError:
        return False
    except OSError as exc:
        record_error("context.marker", exc)
        return True
    # Prune old markers now and then (cheap: one listdir per new session).
    cutoff = time.time() - _MARKER_TTL_S
    for entry in os.scandir(folder):
        try:
            if entry.name.endswith(".context") and entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
        except OSError:
            pass
    return True


def _state(state: Any) -> dict[str, Any]:
    """This plugin's own per-session values: the session-start text and the ids given as context."""
    mine = state.plugins.setdefault("context", {})
    mine.setdefault("text", "")
    mine.setdefault("seen", set())
    return mine


def _project_lessons(store: Any, project: str) -> list[Experience]:
    """The project's own lessons, cached until the store's generation changes."""
    stamp = _generation(store)
    key = f"{id(store)}:{project}"
    with _cache_lock:
        hit = _project_cache.get(key)
        if hit is not None and stamp is not None and hit[0] == stamp:
            return list(hit[1])
    lessons = store.all(where={"project": project})
    if stamp is not None:
        with _cache_lock:
            if len(_project_cache) > 64:
                _project_cache.clear()
            _project_cache[key] = (stamp, lessons)
    return list(lessons)


def recent_lessons(ctx: EngineContext, project: str | None, session_id: str) -> list[Experience]:
    """Lessons the latest :data:`RECENT_SESSIONS` sessions of ``project`` taught
    (not the current one), newest session first, strongest first within one."""
    if not project:
        return []
    by_source: dict[str, list[Experience]] = {}
    for exp in _project_lessons(ctx.store, project):
        # Lessons from transcripts carry "<agent>:<session>"; manual ones come from no session.
        if not _in_scope(exp, project) or ":" not in exp.source:
            continue
        if session_id and exp.source.endswith(f":{session_id}"):
            continue
        by_source.setdefault(exp.source, []).append(exp)
    newest = sorted(by_source, key=lambda src: -max(e.created_at for e in by_source[src]))[:RECENT_SESSIONS]
    out: list[Experience] = []
    for src in newest:
        out.extend(sorted(by_source[src], key=lambda e: (e.tier, -e.confidence, -e.created_at)))
    return out[:RECENT_MAX_LESSONS]


def _fit(lines: list[str], budget_tokens: int) -> list[str]:
    from twiceshy.guidance.render import estimate_tokens

    kept, used = [], 0
    for line in lines:
        cost = estimate_tokens(line + "\n")
        if used + cost > budget_tokens:
            break
        kept.append(line)
        used += cost
    return kept


def _session_text(ctx: EngineContext, event: CoreEvent, mine: dict[str, Any]) -> str:
    from twiceshy.base.project import fingerprint
    from twiceshy.guidance.projects import record_project
    from twiceshy.guidance.render import estimate_tokens, render_context_text

    project = fingerprint(event.cwd) if event.cwd else None
    if event.cwd:
        try:
            record_project(event.cwd)
        except OSError as exc:
            record_error("context.record_project", exc)
    budget = int(ctx.config.get("context", "session_token_budget"))
    recent: list[Experience] = []
    try:
        recent = recent_lessons(ctx, project, event.session_id)
    except Exception as exc:  # the usual guidance still goes out
        record_error("context.recent", exc)
    # The previous session's lessons lead, within half the budget; the rest is the usual guidance.
    reserve = min(budget // 2, sum(estimate_tokens(_line(e) + "\n") for e in recent) + 20) if recent else 0
    token = _allow_stale.set(True)
    try:
        text = render_context_text(ctx, event.agent, project, budget - reserve, heading=SESSION_HEADING)
    finally:
        _allow_stale.reset(token)
    lines = _fit([_line(e) for e in recent if lesson_advice(e) not in text], max(0, reserve - 20))
    if lines:
        block = "\n".join([RECENT_HEADING, *lines])
        body = text[len(SESSION_HEADING) :].lstrip("\n") if text.startswith(SESSION_HEADING) else text
        text = "\n\n".join(part for part in (SESSION_HEADING, block, body) if part)
        mine["seen"].update(e.id for e in recent if _line(e) in lines)
    mine["text"] = text
    return text


def _prompt_text(ctx: EngineContext, event: CoreEvent, state: Any, mine: dict[str, Any]) -> str:
    """The lessons most similar to the prompt that this session has not seen yet."""
    from twiceshy.base.project import fingerprint

    prompt = (event.prompt or "").strip()
    if len(prompt.split()) < PROMPT_MIN_WORDS:
        return ""
    project = fingerprint(event.cwd) if event.cwd else None
    hits = ctx.store.search(prompt[:2000], k=int(ctx.config.get("retrieval", "top_k")), project=project)
    seen: set[str] = mine["seen"]
    picked: list[Experience] = []
    for exp, similarity in sorted(hits, key=lambda hit: -hit[1]):
        if similarity < PROMPT_MIN_SIMILARITY or not _in_scope(exp, project):
            continue
        if exp.id in seen or exp.id in state.shown or lesson_advice(exp) in mine["text"]:
            continue  # already given at session start, at an earlier prompt, or before a tool
        picked.append(exp)
        if len(picked) >= PROMPT_MAX_LESSONS:
            break
    lines = _fit([_line(e) for e in picked], int(ctx.config.get("context", "session_token_budget")) // 2)
    if not lines:
        return ""
    seen.update(e.id for e in picked[: len(lines)])
    return "\n".join([PROMPT_HEADING, *lines])


@hookimpl
def session_start(event: CoreEvent, ctx: EngineContext) -> str | None:
    """Once per session, the guidance for the session's project, led by what
    the previous session(s) taught; on every prompt, the lessons that bear on it."""
    state = ctx.session(event.session_id)
    mine = _state(state)
    parts: list[str] = []
    if not state.context_sent:
        state.context_sent = True
        if _first_time(event.session_id):
            parts.append(_session_text(ctx, event, mine))
    if event.kind == "prompt":
        try:
            parts.append(_prompt_text(ctx, event, state, mine))
        except Exception as exc:  # the session-start part still goes out
            record_error("context.prompt", exc)
            if os.environ.get("TWICESHY_RAISE_PLUGIN_ERRORS") == "1":
                raise
    return "\n\n".join(p for p in parts if p) or None
