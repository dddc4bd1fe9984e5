"""The measuring instrument of issue 16: run the corpus through the real hooks and score the answers.

For each mode, in a fresh ``TWICESHY_HOME`` (a temp dir) and with
``make_context`` / ``handle_hook`` exactly as ``tests/test_learning_loop.py``
drives them:

* **learned** — every incident's session 1 is written in its agent's real log
  format (:mod:`judgement.transcripts`) and fed to that agent's session-end
  hook; the lessons twiceshy extracts are what gets tested;
* **taught** — no transcripts; each incident's ``mistake`` / ``lesson`` is
  stored as ``twiceshy learn "<lesson>" --trigger "<mistake>" --project`` does
  (``store_lesson``, kind ``manual``, scoped to the project);
* **noisy** — *learned*, in a store that already holds 2,000 unrelated lessons
  (:mod:`judgement.noise`, seeded; 12% at rule tier; some global, most scoped
  to the corpus projects), inserted in batches through the store.

Then every probe is sent as its agent's own pre-tool payload (Claude Code /
Codex ``PreToolUse``, Gemini ``BeforeTool``), each in a session of its own (a
warning is shown once per session), followed by the everyday calls (Claude
Code). The answer is read at the core level — the :class:`Decision` handed to
the agent plugin's ``agent_format_decision`` (captured by a wrapper hook) and
the ids in ``Decision.matches`` — and from the native output only if no
decision was seen. Each answer is ``silent``, ``warn``, ``hold`` (a one-time
deny that holds a warning; see :func:`is_hold`) or ``deny`` (a rule block).

"Own lesson": a stored lesson belongs to an incident when that incident's
session end created it or counted it again (``seen_count`` went up), or when
its ``source`` names the incident's session; in *taught* mode, the id that
``store_lesson`` returned.

Figures (:func:`summarize`), per shape and overall:

* ``produced`` — incidents that produced at least one lesson;
* ``recall_any`` / ``recall_own`` — must-warn probes answered warn/hold/deny
  with any lesson / with a lesson of their own incident among those shown;
* ``precision`` — of the incident probes (must-warn and look-alikes) that were
  warned, held or denied, the share that must warn *and* were shown their own
  incident's lesson (a warned look-alike is never right). This is the
  definition that reproduces issue 16's own table from its counts;
  ``right_lesson`` is the looser reading: the share of those warned probes whose
  shown lessons include their own incident's, look-alikes included;
* ``fw_lookalike`` / ``fw_everyday`` — must-stay-silent probes of incidents /
  everyday calls that were warned, held or denied;
* ``wrong_denies`` — rule denies on a must-stay-silent probe or everyday call,
  or whose lessons do not include the probe's own (``denies`` is all denies).

Used by ``bench/judgement.py`` (all modes, tables) and ``tests/test_judgement.py``
(a subset, floors).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# ---- every twiceshy import, in this one block (modules are moving; fix them here) ----
from twiceshy.base.project import fingerprint
from twiceshy.base.types import Experience, Tier
from twiceshy.engine.context import make_context
from twiceshy.engine.dispatch import handle_hook
from twiceshy.learning.ingest import store_lesson
from twiceshy.plugin.hookspecs import hookimpl

# ------------------------------------------------------------------------------------------
from . import noise as noise_gen
from .corpus import load
from .spec import CC, EVERYDAY, SHAPES, Corpus, Everyday, Incident, Probe
from .transcripts import pre_tool_payload, session_end_payload, write_transcript

LEARNED, TAUGHT, NOISY = "learned", "taught", "noisy"
MODES = (LEARNED, TAUGHT, NOISY)
MODE_TITLES = {
    LEARNED: "learned from transcripts",
    TAUGHT: "taught (twiceshy learn --trigger)",
    NOISY: "learned + {n} unrelated lessons",
}
SILENT, WARN, HOLD, DENY = "silent", "warn", "hold", "deny"
NOISE_COUNT = 2000
NOISE_SEED = 16
NOISE_RULE_SHARE = 0.12  # informational: noise.generate draws rules at this rate
FOREIGN_PROJECTS = ("mobile-app", "data-lake", "marketing-site", "auth-service", "ml-training", "ops-scripts")

# Config overrides that switch the new matcher off, for a same-run baseline
# (bench/judgement.py --baseline). Empty: no switch exists yet. When one lands,
# put it here, e.g. {"retrieval": {"matcher": "similarity"}}.
BASELINE_OVERRIDES: dict[str, dict[str, Any]] = {}

# `twiceshy why`'s verdicts in the harness's words.
WHY_AS_ANSWER = {"nothing": "silent", "context": "warn", "hold": "hold", "deny": "deny"}

_HOLD_RE = re.compile(r"(?i)\b(held|on hold|holding)\b")


def is_hold(decision: Any) -> bool:
    """A deny that is a one-time hold of a warning (issue 16 §3), not a rule block.

    The hold mode is being built: a ``hold`` flag or kind on the decision, or
    "held" in the first line of its reason. One place to adapt when it lands.
    """
    if getattr(decision, "hold", False) or getattr(decision, "kind", "") == "hold":
        return True
    first = (getattr(decision, "reason", "") or "").strip().splitlines()[:1]
    return bool(first and _HOLD_RE.search(first[0]))


def classify(decision: Any) -> str:
    """silent / warn / hold / deny for a core :class:`Decision`."""
    if decision is None:
        return SILENT
    if decision.action == "deny":
        return HOLD if is_hold(decision) else DENY
    if decision.action == "warn" or (decision.context or "").strip():
        return WARN
    return SILENT


def classify_native(stdout: str) -> str:
    """silent / warn / hold / deny from an agent's native hook output (fallback)."""
    if not stdout.strip():
        return SILENT
    try:
        data = json.loads(stdout)
    except ValueError:
        return WARN
    specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    specific = specific if isinstance(specific, dict) else {}
    if (
        specific.get("permissionDecision") == "deny"
        or data.get("decision") == "deny"
        or data.get("permission") == "deny"
    ):
        reason = specific.get("permissionDecisionReason") or data.get("reason") or ""
        return HOLD if _HOLD_RE.search(reason.strip().splitlines()[0] if reason.strip() else "") else DENY
    if specific.get("additionalContext") or data.get("systemMessage") or data.get("agent_message"):
        return WARN
    return SILENT


class _Capture:
    """Sees the merged Decision on its way to the agent plugin."""

    def __init__(self, check_why: bool = False, check_cold: bool = False) -> None:
        self.decision: Any = None
        self.check_why = check_why
        self.check_cold = check_cold
        # Probes where the hook client's offline answer (rules snapshot, hold index: what it
        # does while the engine is away) differs from the engine's on holding or not:
        # (action, the client's verdict, the hook's answer).
        self.cold_mismatches: list[tuple[str, str, str]] = []
        self.cold_probes = 0
        # Probes where `twiceshy why` (asked first: it records nothing) said something other
        # than what the hook then did: (action, why's verdict, the hook's answer).
        self.why_mismatches: list[tuple[str, str, str]] = []

    @hookimpl(wrapper=True)
    def agent_format_decision(self, agent: str, event: Any, decision: Any):  # type: ignore[no-untyped-def]
        self.decision = decision
        return (yield)


class _CachedEmbedder:
    """The store's embedder, memoised by text for the whole process.

    A speed-up only: the same texts (probes, session-end candidates) are embedded
    in every mode, and a text always gets the vector the real embedder gave it.
    """

    _cache: dict[tuple[str, str], Any] = {}

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name

    def embed(self, texts: list[str]) -> list[Any]:
        missing = [t for t in dict.fromkeys(texts) if (self.name, t) not in self._cache]
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing)):
                self._cache[(self.name, text)] = vector
        return [self._cache[(self.name, t)] for t in texts]

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass
class Outcome:
    """One probe and the answer it got."""

    incident: str | None  # None for everyday calls
    shape: str | None
    agent: str
    project: str
    kind: str  # same / reword / fix / other / help / code / everyday
    must_warn: bool
    action: str
    answer: str = SILENT
    shown: list[str] = field(default_factory=list)  # lesson ids in Decision.matches
    owners: list[str] = field(default_factory=list)  # per shown lesson: incident ids, "noise" or "?"
    texts: list[str] = field(default_factory=list)
    own: bool = False
    captured: bool = True  # False: read from the native output

    @property
    def flagged(self) -> bool:
        return self.answer != SILENT


@dataclass
class ModeResult:
    mode: str
    incidents: list[Incident]
    outcomes: list[Outcome]
    lessons_of: dict[str, list[dict]]  # incident id -> lessons attributed to it
    stored: int  # lessons in the store at probe time
    noise: int
    seconds: dict[str, float]
    errors: list[dict]
    overrides: dict[str, Any] = field(default_factory=dict)
    why_mismatches: list[tuple[str, str, str]] = field(default_factory=list)  # with check_why
    cold_mismatches: list[tuple[str, str, str]] = field(default_factory=list)  # with check_cold
    cold_probes: int = 0

    def summary(self) -> dict[str, dict[str, Any]]:
        return summarize(self)


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


@contextmanager
def _isolated(home: Path) -> Iterator[None]:
    """A fresh data and config dir; no TWICESHY_* overrides; LiteLLM offline."""
    saved = dict(os.environ)
    try:
        for name in list(os.environ):
            if name.startswith("TWICESHY_"):
                del os.environ[name]
        os.environ["TWICESHY_HOME"] = str(home)
        os.environ["TWICESHY_CONFIG_DIR"] = str(home / "config")
        os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _write_config(home: Path, overrides: dict[str, Any]) -> None:
    if not overrides:
        return
    import yaml

    folder = home / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(overrides), encoding="utf-8")


def _sid(*parts: object) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "judgement/" + "/".join(map(str, parts))))


def select(
    corpus: Corpus, shapes: Iterable[str] | None = None, ids: Iterable[str] | None = None, every: int = 1
) -> list[Incident]:
    """Incidents of ``shapes`` (all if None), or exactly ``ids``; then every ``every``-th per shape."""
    incidents = corpus.incidents
    if ids is not None:
        wanted = set(ids)
        return [i for i in incidents if i.id in wanted]
    if shapes:
        wanted_shapes = set(shapes)
        incidents = [i for i in incidents if i.shape in wanted_shapes]
    if every > 1:
        incidents = [i for s in SHAPES for i in [x for x in incidents if x.shape == s][::every]]
    return incidents


def forbidden_commands(corpus: Corpus) -> list[str]:
    """Every shell command the corpus runs or probes (the noise generator avoids their subcommands)."""
    out = []
    for inc in corpus.incidents:
        out += [s.text for s in inc.session if s.kind in ("bash", "reject")]
        out += [p.action for p in inc.probes() if isinstance(p.action, str)]
    out += [e.action for e in corpus.everyday if isinstance(e.action, str)]
    return out


def run_mode(
    mode: str,
    corpus: Corpus | None = None,
    incidents: list[Incident] | None = None,
    everyday: list[Everyday] | None = None,
    noise: int = NOISE_COUNT,
    overrides: dict[str, Any] | None = None,
    workdir: Path | None = None,
    keep: bool = False,
    check_why: bool = False,
    check_cold: bool = False,
) -> ModeResult:
    """Run one mode end to end in a fresh data dir; return every probe's outcome. With
    ``check_why``, `twiceshy why` is asked about every probe first and each answer that
    differs from what the hook then did is kept (``ModeResult.why_mismatches``); with
    ``check_cold``, so is each probe the hook client would hold (or not) differently
    while the engine is away (``ModeResult.cold_mismatches``)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
    corpus = corpus or load()
    incidents = corpus.incidents if incidents is None else incidents
    everyday = corpus.everyday if everyday is None else everyday
    overrides = overrides or {}
    base = Path(tempfile.mkdtemp(prefix=f"judgement-{mode}-", dir=workdir))
    home = base / "home"
    projects = base / "projects"
    seconds: dict[str, float] = {}
    try:
        with _isolated(home):
            _write_config(home, overrides)
            names = sorted({i.project for i in corpus.incidents} | {e.project for e in everyday})
            for name in names:
                (projects / name).mkdir(parents=True, exist_ok=True)
            t0 = time.perf_counter()
            ctx = make_context(projects)
            store = ctx.store
            if hasattr(store, "embedder"):
                store.embedder = _CachedEmbedder(store.embedder)
            capture = _Capture(check_why, check_cold)
            ctx.pm.register(capture, name="judgement-capture")
            noise_count = 0
            if mode == NOISY and noise:
                noise_count = _add_noise(ctx, corpus, projects, noise)
            seconds["setup"] = time.perf_counter() - t0

            t0 = time.perf_counter()
            if mode == TAUGHT:
                owners, lessons_of = _teach(ctx, incidents, projects)
            else:
                owners, lessons_of = _learn(ctx, incidents, projects, base / "transcripts")
            seconds["learn"] = time.perf_counter() - t0

            stored = ctx.store.count()
            if check_cold and getattr(ctx.store, "hold_index", None) is not None:
                ctx.store.hold_index.ensure(ctx.store)  # as the engine does at its start (a big batch is left to it)
            t0 = time.perf_counter()
            outcomes = _probe(ctx, capture, mode, incidents, everyday, projects, owners)
            seconds["probe"] = time.perf_counter() - t0
            errors = _errors(home)
        result = ModeResult(mode, incidents, outcomes, lessons_of, stored, noise_count, seconds, errors, overrides)
        result.why_mismatches = capture.why_mismatches
        result.cold_mismatches, result.cold_probes = capture.cold_mismatches, capture.cold_probes
        return result
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)


def read_back(incidents: list[Incident], workdir: Path | None = None) -> list[tuple[Incident, list]]:
    """Write each incident's session 1 and read it back through its agent plugin's
    ``agent_read_transcript`` (what session end does): (incident, entries)."""
    base = Path(tempfile.mkdtemp(prefix="judgement-read-", dir=workdir))
    try:
        with _isolated(base / "home"):
            ctx = make_context(base)
            out = []
            for inc in incidents:
                path = write_transcript(inc, base / "projects" / inc.project, base / "transcripts" / inc.agent)
                out.append((inc, ctx.pm.hook.agent_read_transcript(agent=inc.agent, path=path) or []))
            return out
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _errors(home: Path) -> list[dict]:
    path = home / "errors.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _add_noise(ctx: Any, corpus: Corpus, projects: Path, count: int) -> int:
    """Insert ``count`` generated lessons in batches, with the store's own embedder and metadata."""
    lessons = noise_gen.generate(count, NOISE_SEED, forbidden_commands(corpus))
    corpus_fps = [fingerprint(str(projects / name)) for name in sorted({i.project for i in corpus.incidents})]
    foreign_fps = [fingerprint(str(projects.parent / "elsewhere" / name)) for name in FOREIGN_PROJECTS]
    exps = []
    for n, lesson in enumerate(lessons):
        if lesson["scope"] == "global":
            project = None
        else:
            pool = corpus_fps if lesson["scope"] == "corpus" else foreign_fps
            project = pool[int(lesson["pick"] * len(pool)) % len(pool)]
        rule = lesson["rule"]
        tier = Tier.RULE if rule else (Tier.QA if n % 3 == 0 else Tier.RAW)
        exps.append(
            Experience(
                text=lesson["text"],
                trigger=lesson["trigger"],
                kind=lesson["kind"],
                tier=int(tier),
                confidence=0.85 if rule else 0.55,
                seen_count=4 if rule else (2 if tier == Tier.QA else 1),
                follows=3 if rule else 0,
                streak=3 if rule else 0,
                project=project,
                source=f"noise:{n}",
            )
        )
    store = ctx.store
    if hasattr(store, "add_many"):
        store.add_many(exps, batch=256)
    else:  # write to its Chroma collection in batches, with its embedder and metadata conversion
        col = store._col
        for start in range(0, len(exps), 256):
            chunk = exps[start : start + 256]
            col.upsert(
                ids=[e.id for e in chunk],
                embeddings=store.embedder.embed([e.trigger or e.text for e in chunk]),
                documents=[e.text for e in chunk],
                metadatas=[e.to_metadata() for e in chunk],
            )
    return len(exps)


def _lesson_row(exp: Any) -> dict:
    structured = exp.structured if isinstance(exp.structured, dict) else {}
    fix, mistake = structured.get("fix"), structured.get("mistake")
    return {"id": exp.id, "kind": exp.kind, "tier": int(exp.tier), "trigger": exp.trigger, "text": exp.text,
            "source": exp.source, "signature": structured.get("signature"),
            "mistake_command": mistake.get("command") if isinstance(mistake, dict) else None,
            "fix_command": fix.get("command") if isinstance(fix, dict) else None}  # fmt: skip


def _touched_since(ctx: Any, since: float) -> list[Any]:
    """Lessons created or seen again since ``since`` (cheap in a store of thousands)."""
    try:
        return ctx.store.all(where={"last_seen": {"$gte": since}})
    except Exception:  # a store without float filters: read everything
        return ctx.store.all()


def _learn(ctx: Any, incidents: list[Incident], projects: Path, folder: Path) -> tuple[dict[str, set[str]], dict]:
    """Feed every incident's session end; attribute new / re-seen lessons to it."""
    owners: dict[str, set[str]] = {}
    lessons_of: dict[str, list[dict]] = {}
    known = {e.id: e.seen_count for e in ctx.store.all()}
    for inc in incidents:
        root = projects / inc.project
        path = write_transcript(inc, root, folder / inc.agent)
        event, payload = session_end_payload(inc, path, root)
        since = round(time.time(), 3) - 0.002
        handle_hook(ctx, inc.agent, event, payload)
        mine = []
        for e in _touched_since(ctx, since):
            if e.id not in known or e.seen_count > known[e.id] or e.source.endswith(inc.session_id):
                mine.append(e)
            known[e.id] = e.seen_count
        for e in mine:
            owners.setdefault(e.id, set()).add(inc.id)
        lessons_of[inc.id] = [_lesson_row(e) for e in mine]
    return owners, lessons_of


def _teach(ctx: Any, incidents: list[Incident], projects: Path) -> tuple[dict[str, set[str]], dict]:
    """What `twiceshy learn "<lesson>" --trigger "<mistake>" --project` does, per incident."""
    owners: dict[str, set[str]] = {}
    lessons_of: dict[str, list[dict]] = {}
    for inc in incidents:
        project = fingerprint(str(projects / inc.project))
        exp, _outcome = store_lesson(ctx, inc.lesson, inc.mistake, kind="manual", project=project)
        owners.setdefault(exp.id, set()).add(inc.id)
        lessons_of[inc.id] = [_lesson_row(exp)]
    return owners, lessons_of


def _ask(
    ctx: Any, capture: _Capture, agent: str, action: Any, root: Path, sid: str, call: int
) -> tuple[str, list, str | None]:
    """Send one pre-tool payload; (answer, matches, native stdout when no Decision was captured)."""
    event, payload = pre_tool_payload(agent, action, root, sid, call)
    capture.decision = None
    said = None
    if capture.check_why:
        # Imported here: `bench/judgement.py --code <commit>` runs this harness on code older than `why`.
        from twiceshy.ops.why import explain

        said = explain(ctx, agent, event, payload, detail=False)["verdict"]
    cold = _cold_answer(event, payload) if capture.check_cold else None
    out = handle_hook(ctx, agent, event, payload)
    decision = capture.decision
    if decision is not None:
        answer = classify(decision)
        if said is not None and WHY_AS_ANSWER.get(said, said) != answer:
            capture.why_mismatches.append((str(action)[:120], said, answer))
        if cold is not None:
            capture.cold_probes += 1
            if (cold in (HOLD, DENY)) != (answer in (HOLD, DENY)):
                capture.cold_mismatches.append((str(action)[:120], cold, answer))
        return answer, list(decision.matches or []), None
    return classify_native(out.stdout), [], out.stdout


def _cold_answer(event: str, payload: Any) -> str:
    """What the hook client answers this pre-tool call with when the engine is away
    (asked first, without its side effects): deny (a rule), hold (the hold index) or silent."""
    # Imported here: `bench/judgement.py --code <commit>` runs this harness on code older than the index.
    from twiceshy.hooks import coldhold, match, wire

    home = os.environ["TWICESHY_HOME"]
    if wire.snapshot_check(home, event, json.dumps(payload).encode()) is not None:
        return DENY
    tool_name, tool_input, cwd = wire.call_of(event, payload)
    if tool_name and coldhold.find(home, match, tool_name, tool_input, lambda: wire.project_fingerprint(cwd)):
        return HOLD
    return SILENT


def _probe(
    ctx: Any, capture: _Capture, mode: str, incidents: list[Incident], everyday: list[Everyday], projects: Path,
    owners: dict[str, set[str]],
) -> list[Outcome]:  # fmt: skip
    outcomes: list[Outcome] = []
    call = 0
    texts_by_owner: dict[str, list[str]] = {}  # for the native-output fallback
    for exp in ctx.store.get_many(list(owners)) if owners else []:
        for inc_id in owners[exp.id]:
            texts_by_owner.setdefault(inc_id, []).append(exp.text)

    def record(out: Outcome, agent: str, action: Any, root: Path, sid: str) -> None:
        nonlocal call
        call += 1
        answer, matches, native = _ask(ctx, capture, agent, action, root, sid, call)
        out.answer, out.captured = answer, native is None
        out.shown = [m.experience_id for m in matches]
        out.texts = [m.text for m in matches]
        out.owners = [
            ",".join(sorted(owners[i])) if i in owners else ("noise" if _is_noise(ctx, i) else "?") for i in out.shown
        ]
        if out.incident is not None:
            if native is None:
                out.own = any(out.incident in owners.get(i, ()) for i in out.shown)
            else:  # native output only: own if one of its lessons' texts is quoted in it
                out.own = answer != SILENT and any(t and t in native for t in texts_by_owner.get(out.incident, []))
        outcomes.append(out)

    for inc in incidents:
        root = projects / inc.project
        for n, probe in enumerate(inc.probes()):
            out = Outcome(inc.id, inc.shape, inc.agent, inc.project, probe.kind, probe.must_warn, probe.describe())
            record(out, inc.agent, probe.action, root, _sid(mode, inc.id, n))
    for n, call_ in enumerate(everyday):
        out = Outcome(None, None, call_.agent, call_.project, EVERYDAY, False, call_.describe())
        record(out, call_.agent, call_.action, projects / call_.project, _sid(mode, "everyday", n))
    return outcomes


_NOISE_CACHE: dict[int, dict[str, bool]] = {}


def _is_noise(ctx: Any, exp_id: str) -> bool:
    cache = _NOISE_CACHE.setdefault(id(ctx), {})
    if exp_id not in cache:
        exp = ctx.store.get(exp_id)
        cache[exp_id] = bool(exp and exp.source.startswith("noise:"))
    return cache[exp_id]


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _score(
    outcomes: list[Outcome], incidents: list[Incident], lessons_of: dict[str, list[dict]], everyday: bool
) -> dict:
    must = [o for o in outcomes if o.incident is not None and o.must_warn]
    look = [o for o in outcomes if o.incident is not None and not o.must_warn]
    days = [o for o in outcomes if o.incident is None] if everyday else []
    flagged_inc = [o for o in must + look if o.flagged]
    denies = [o for o in must + look + days if o.answer == DENY]
    wrong = [o for o in denies if not o.must_warn or not o.own]
    shown = [(o, owner) for o in must + look for owner in o.owners]
    return {
        "incidents": len(incidents),
        "produced": sum(1 for i in incidents if lessons_of.get(i.id)),
        "lessons": sum(len(lessons_of.get(i.id, [])) for i in incidents),
        "must_warn": len(must),
        "warned": sum(1 for o in must if o.flagged),
        "own": sum(1 for o in must if o.flagged and o.own),
        "recall_any": _ratio(sum(1 for o in must if o.flagged), len(must)),
        "recall_own": _ratio(sum(1 for o in must if o.flagged and o.own), len(must)),
        "flagged": len(flagged_inc),
        "precision": _ratio(sum(1 for o in flagged_inc if o.must_warn and o.own), len(flagged_inc)),
        "right_lesson": _ratio(sum(1 for o in flagged_inc if o.own), len(flagged_inc)),
        "lookalikes": len(look),
        "fw_lookalike": _ratio(sum(1 for o in look if o.flagged), len(look)),
        "everyday": len(days),
        "fw_everyday": _ratio(sum(1 for o in days if o.flagged), len(days)) if everyday else None,
        "holds": sum(1 for o in must + look + days if o.answer == HOLD),
        "denies": len(denies),
        "wrong_denies": len(wrong),
        # The hidden sets' figures: recall per repeat kind, false holds on the corrected call
        # (and its related-but-fine neighbours), and how many of all holds were wrong.
        "recall_same": _ratio(
            sum(1 for o in must if o.kind == "same" and o.flagged and o.own), sum(1 for o in must if o.kind == "same")
        ),
        "recall_reword": _ratio(
            sum(1 for o in must if o.kind == "reword" and o.flagged and o.own),
            sum(1 for o in must if o.kind == "reword"),
        ),
        "fw_fix": _ratio(
            sum(1 for o in look if o.kind == "fix" and o.flagged), sum(1 for o in look if o.kind == "fix")
        ),
        "fix_held": sum(1 for o in look if o.kind == "fix" and o.flagged),
        "all_flagged": sum(1 for o in must + look + days if o.flagged),
        "wrong_flagged": sum(1 for o in must + look + days if o.flagged and (not o.must_warn or not o.own)),
        # The same counting holds and denies only (what blocks a call): a warning in context is not a hold.
        "held_own": _ratio(sum(1 for o in must if o.answer in (HOLD, DENY) and o.own), len(must)),
        "hold_precision": _ratio(
            sum(1 for o in must if o.answer in (HOLD, DENY) and o.own),
            sum(1 for o in must + look + days if o.answer in (HOLD, DENY)),
        ),
        "fix_hold": _ratio(
            sum(1 for o in look if o.kind == "fix" and o.answer in (HOLD, DENY)),
            sum(1 for o in look if o.kind == "fix"),
        ),
        "look_hold": _ratio(sum(1 for o in look if o.answer in (HOLD, DENY)), len(look)),
        "day_hold": _ratio(sum(1 for o in days if o.answer in (HOLD, DENY)), len(days)) if everyday else None,
        "shown_lessons": len(shown),
        "shown_foreign": sum(1 for o, owner in shown if o.incident not in owner.split(",")),
    }


def summarize(result: ModeResult) -> dict[str, dict[str, Any]]:
    """Figures per shape (everyday calls only in ``overall``) and overall."""
    out = {}
    for shape in SHAPES:
        incs = [i for i in result.incidents if i.shape == shape]
        if incs:
            outs = [o for o in result.outcomes if o.shape == shape]
            out[shape] = _score(outs, incs, result.lessons_of, everyday=False)
    out["overall"] = _score(result.outcomes, result.incidents, result.lessons_of, everyday=True)
    return out


def misses(result: ModeResult) -> dict[str, list[Outcome]]:
    """The probes that went wrong, by kind of failure."""
    outs = result.outcomes
    return {
        "missed": [o for o in outs if o.must_warn and not o.flagged],
        "wrong_lesson": [o for o in outs if o.must_warn and o.flagged and not o.own],
        "false_lookalike": [o for o in outs if o.incident is not None and not o.must_warn and o.flagged],
        "false_everyday": [o for o in outs if o.incident is None and o.flagged],
        "wrong_deny": [o for o in outs if o.answer == DENY and (not o.must_warn or not o.own)],
    }


def to_json(result: ModeResult) -> dict[str, Any]:
    return {
        "mode": result.mode,
        "overrides": result.overrides,
        "stored": result.stored,
        "noise": result.noise,
        "seconds": {k: round(v, 2) for k, v in result.seconds.items()},
        "errors": len(result.errors),
        "summary": summarize(result),
        "lessons_of": result.lessons_of,
        "outcomes": [asdict(o) for o in result.outcomes],
    }


__all__ = [
    "CC", "DENY", "HOLD", "LEARNED", "MODES", "MODE_TITLES", "NOISY", "SILENT", "TAUGHT", "WARN", "BASELINE_OVERRIDES",
    "ModeResult", "Outcome", "Probe", "classify", "classify_native", "is_hold", "load", "misses", "read_back", "run_mode", "select",
    "summarize", "to_json",
]  # fmt: skip
