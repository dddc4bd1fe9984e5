"""Issue 16's judgement figures may not fall below their floors.

Runs the measuring instrument (tests/judgement/harness.py; the full run is
``python bench/judgement.py``) on a fixed subset of the corpus: every third
incident of each shape (25 incidents, all three agents), every fifth everyday
call, and for the large-store mode 200 unrelated lessons instead of 2,000.
Everything is seeded and derived from the corpus, so a run is deterministic.

Each floor is what the code achieved on this subset when the floor was set,
minus a margin, and carries a ``# FLOOR:`` comment: raise it when the matcher
improves (``python -m pytest tests/test_judgement.py -s`` prints the figures).
"""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from judgement import harness as h
from judgement.spec import AGENTS, CC, CODEX, GEMINI, SHAPES

EVERY = 3  # every third incident per shape
EVERYDAY_STEP = 5  # every fifth everyday call
NOISE = 200  # unrelated lessons in the large-store mode (2,000 in the bench)


@pytest.fixture(scope="module")
def corpus():
    return h.load()


@pytest.fixture(scope="module")
def results(corpus, tmp_path_factory):
    incidents = h.select(corpus, every=EVERY)
    everyday = corpus.everyday[::EVERYDAY_STEP]
    out = {}
    for mode in h.MODES:
        result = h.run_mode(
            mode, corpus, incidents, everyday, noise=NOISE, workdir=tmp_path_factory.mktemp(mode), check_why=True,
            check_cold=True,
        )  # fmt: skip
        out[mode] = result.summary()
        out[mode]["why_mismatches"] = result.why_mismatches
        out[mode]["cold"] = (result.cold_probes, result.cold_mismatches)
        print(f"\n{mode}: " + ", ".join(f"{k}={_fmt(v)}" for k, v in out[mode]["overall"].items()))
        for shape in SHAPES:
            print(
                f"  {shape}: recall_own={_fmt(out[mode][shape]['recall_own'])} precision={_fmt(out[mode][shape]['precision'])}"
            )
    return out


def _fmt(value):
    return f"{value:.2f}" if isinstance(value, float) else value


# --------------------------------------------------------------------------
# The corpus itself (no twiceshy needed)
# --------------------------------------------------------------------------


def test_corpus_is_complete_and_balanced(corpus) -> None:
    assert corpus.check() == []
    incidents = corpus.incidents
    assert len(incidents) >= 60
    shapes = Counter(i.shape for i in incidents)
    assert set(shapes) == set(SHAPES) and min(shapes.values()) >= 12
    agents = Counter(i.agent for i in incidents)
    assert set(agents) == set(AGENTS)
    assert agents[CODEX] >= 8 and agents[GEMINI] >= 8 and agents[CC] > len(incidents) / 2
    variants = Counter(v for i in incidents for v in i.variants)
    for needed in ("diagnostic", "other_program", "long_output", "rejection", "rejection_reason", "intervening"):
        assert variants[needed] >= 1, needed
    assert len(corpus.everyday) >= 100
    tools = Counter(type(e.action).__name__ if not isinstance(e.action, str) else "Bash" for e in corpus.everyday)
    assert tools["Bash"] >= 60 and tools["Action"] >= 25
    for inc in incidents:
        assert len(inc.warn) >= 2 and len(inc.silent) >= 2, inc.id


def test_transcripts_read_back_through_the_agents_readers(corpus) -> None:
    """Every session 1 is read by its agent plugin's own reader: one tool call
    and one result per step, failures and rejections marked as errors."""
    for inc, entries in h.read_back(corpus.incidents):
        calls = [e for e in entries if e.source == "tool_call"]
        results = [e for e in entries if e.source == "tool_result"]
        steps = [s for s in inc.session if s.kind not in ("user", "say")]
        failed = [s for s in steps if s.error or s.kind.startswith("reject")]
        assert len(calls) == len(results) == len(steps), inc.id
        assert sum(1 for e in results if e.is_error) == len(failed), inc.id
        said = [s.text for s in inc.session if s.kind == "user"]
        typed = [e.text for e in entries if e.source == "user"]
        assert all(any(t in x for x in typed) for t in said), inc.id


def test_answers_are_classified_from_the_decision() -> None:
    def decision(action, reason="", context="", **extra):
        return SimpleNamespace(action=action, reason=reason, context=context, matches=[], **extra)

    assert h.classify(None) == h.SILENT
    assert h.classify(decision("allow")) == h.SILENT
    assert h.classify(decision("warn", context="twiceshy — lessons")) == h.WARN
    assert h.classify(decision("deny", reason="Blocked by twiceshy: a confirmed rule")) == h.DENY
    assert h.classify(decision("deny", reason="Blocked by twiceshy", hold=True)) == h.HOLD
    assert h.classify(decision("deny", reason="twiceshy held this call once: run it again to proceed")) == h.HOLD
    assert (
        h.classify_native('{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "x"}}')
        == h.DENY
    )
    assert h.classify_native('{"systemMessage": "twiceshy: lesson"}') == h.WARN
    assert h.classify_native("") == h.SILENT


# --------------------------------------------------------------------------
# Floors
# --------------------------------------------------------------------------


def test_learned_floors(results) -> None:
    s = results[h.LEARNED]["overall"]
    assert s["produced"] / s["incidents"] >= 0.9  # FLOOR: 25/25 incidents produced a lesson when set
    assert s["recall_own"] >= 0.80  # FLOOR: 0.91 when set (issue 16 target 0.8)
    assert s["precision"] >= 0.88  # FLOOR: 0.96 when set (target 0.9)
    assert s["fw_lookalike"] <= 0.10  # FLOOR (ceiling): 0.03 when set (target 0.10)
    assert s["fw_everyday"] <= 0.06  # FLOOR (ceiling): 0.00 when set (target 0.02)
    assert s["wrong_denies"] == 0  # FLOOR: none when set (target none)
    for shape in SHAPES:
        assert results[h.LEARNED][shape]["recall_own"] >= 0.65, shape  # FLOOR: lowest shape 0.82 (retry) when set


def test_taught_floors(results) -> None:
    s = results[h.TAUGHT]["overall"]
    assert s["produced"] == s["incidents"]  # FLOOR: every taught lesson is stored
    assert s["recall_own"] >= 0.60  # FLOOR: 0.72 when set
    assert s["precision"] >= 0.78  # FLOOR: 0.89 when set
    assert s["fw_lookalike"] <= 0.15  # FLOOR (ceiling): 0.07 when set
    assert s["fw_everyday"] <= 0.06  # FLOOR (ceiling): 0.00 when set
    assert s["wrong_denies"] == 0  # FLOOR: none when set


def test_large_store_floors(results) -> None:
    s = results[h.NOISY]["overall"]
    assert s["produced"] / s["incidents"] >= 0.9  # FLOOR: 25/25 when set
    assert s["recall_own"] >= 0.80  # FLOOR: 0.91 when set
    assert s["precision"] >= 0.88  # FLOOR: 0.96 when set
    assert s["fw_lookalike"] <= 0.10  # FLOOR (ceiling): 0.03 when set
    assert s["fw_everyday"] <= 0.06  # FLOOR (ceiling): 0.00 when set
    assert s["wrong_denies"] == 0  # FLOOR: none of the 200 unrelated lessons (30 rules) denied a probe when set


def test_why_says_what_the_hook_did_on_every_probe(results) -> None:
    """Issue 28: `twiceshy why`, asked about each probe before the hook saw it, gives the verdict
    the hook then gave (hold / deny / context / nothing), in every mode."""
    for mode in h.MODES:
        assert results[mode]["why_mismatches"] == [], (mode, results[mode]["why_mismatches"][:10])


def test_the_client_alone_holds_what_the_engine_holds(results) -> None:
    """Issues 30/31: while the engine is away, the hook client answers from the rules snapshot
    and the hold index. Asked about each probe before the hook saw it, it holds (or denies)
    exactly the probes the engine holds, learned and taught. With unrelated lessons in the
    store the engine's similarity search can crowd a lesson out that the client still checks:
    at most 1% of probes may differ, and never by a deny."""
    for mode in h.MODES:
        probes, mismatches = results[mode]["cold"]
        assert probes > 150, (mode, probes)  # every probe was asked
        if mode == h.NOISY:
            assert len(mismatches) <= probes // 100, (mode, mismatches[:10])
            assert all(cold != h.DENY and answer != h.DENY for _action, cold, answer in mismatches), mismatches
        else:
            assert mismatches == [], (mode, mismatches[:10])
