"""The shape of the fifth blind judgement split (tests/judgement/blind5): counts per shape
and agent, probe kinds, numbering, halves, spread over projects and ecosystems, and the
stress the split is built for (other valid corrections, help probes, same-program lessons).

Structure only: nothing here runs the matcher, the hooks or the benchmark, and nothing
prints an item (the split is sealed: measured only in aggregate)."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from judgement import blind5
from judgement.spec import (
    AGENTS,
    CC,
    CODE,
    CODEX,
    EVERYDAY,
    FIX,
    GEMINI,
    HELP,
    OTHER,
    REWORD,
    SAME,
    SHAPES,
    TEST_FIX,
    Action,
    Corpus,
    Everyday,
    Incident,
    Step,
)

STEP_KINDS = {"user", "say", "bash", "edit", "write", "read", "reject", "reject_edit", "interrupt"}
VARIANTS = {"diagnostic", "other_program", "long_output", "rejection", "rejection_reason", "intervening"}
MARKER_TAGS = ("GOTCHA:", "LEARNING:", "PATTERN:", "NOTE:", "TIL:")
SHAPE_TAGS = {
    "error_fix": "errorfix",
    "correction": "correction",
    "marker": "marker",
    "test_fix": "testfix",
    "retry": "retry",
}
PER_AGENT = {CC: 7, CODEX: 7, GEMINI: 6}  # per shape


def _ecosystem(inc: Incident) -> str:
    return inc.id.split("-")[2]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return blind5.load()


def test_spec_check_is_clean(corpus: Corpus) -> None:
    assert corpus.check() == []


def test_hundred_incidents_twenty_per_shape_spread_over_agents(corpus: Corpus) -> None:
    assert len(corpus.incidents) == 100
    assert Counter(i.shape for i in corpus.incidents) == {shape: 20 for shape in SHAPES}
    per = Counter((i.shape, i.agent) for i in corpus.incidents)
    assert per == {(shape, agent): PER_AGENT[agent] for shape in SHAPES for agent in AGENTS}


def test_numbering_is_unique_and_starts_at_first(corpus: Corpus) -> None:
    numbers = [i.number for i in corpus.incidents]
    assert numbers == list(range(blind5.FIRST, blind5.FIRST + 100))
    assert blind5.FIRST == 8001
    assert len({i.session_id for i in corpus.incidents}) == 100
    assert len({i.id for i in corpus.incidents}) == 100
    assert all(i.id.startswith("b5-") for i in corpus.incidents)
    assert all(len(i.id.split("-")) == 4 for i in corpus.incidents)
    for inc in corpus.incidents:
        _, shape_tag, _, nn = inc.id.split("-")
        assert shape_tag == SHAPE_TAGS[inc.shape], inc.id
        assert nn.isdigit() and len(nn) == 2, inc.id
    # within a shape the ids are numbered 01..20 in order
    for shape in SHAPES:
        nns = [int(i.id.split("-")[3]) for i in corpus.incidents if i.shape == shape]
        assert nns == list(range(1, 21)), shape


def test_every_incident_has_the_required_probe_kinds(corpus: Corpus) -> None:
    for inc in corpus.incidents:
        warn = {p.kind for p in inc.warn}
        silent = {p.kind for p in inc.silent}
        assert {SAME, REWORD} <= warn, inc.id
        assert {FIX, OTHER} <= silent or {FIX, CODE} <= silent, inc.id
        assert all(p.must_warn for p in inc.warn), inc.id
        assert not any(p.must_warn for p in inc.silent), inc.id
        assert 2 <= len(inc.warn) <= 4, inc.id
        assert 3 <= len(inc.silent) <= 6, inc.id
        assert silent <= {FIX, OTHER, HELP, CODE}, inc.id
        assert EVERYDAY not in warn | silent, inc.id
    kinds = Counter(p.kind for inc in corpus.incidents for p in inc.probes())
    assert {SAME, REWORD, FIX, OTHER, HELP, CODE} <= set(kinds)
    assert kinds[HELP] >= 60  # most command lessons carry a --help-style probe
    # about two must-warn and three must-stay-silent probes per incident on average
    assert 200 <= kinds[SAME] + kinds[REWORD] <= 300
    assert kinds[FIX] + kinds[OTHER] + kinds[HELP] + kinds[CODE] >= 300


def test_command_lessons_carry_another_valid_correction(corpus: Corpus) -> None:
    # the session's own fix and, where natural, a different valid correction: both must stay silent
    commands = [i for i in corpus.incidents if i.shape != TEST_FIX]
    two_fixes = [i for i in commands if sum(1 for p in i.silent if p.kind == FIX) >= 2]
    assert len(two_fixes) >= 55
    # several corrections come as an env assignment, a step before, or a file instead of a flag
    fixes = [p.action for i in commands for p in i.silent if p.kind == FIX]
    shell = [a for a in fixes if isinstance(a, str)]
    assert sum(1 for a in shell if a.split()[0].count("=") == 1 and a.split()[0].split("=")[0].isupper()) >= 10
    assert sum(1 for a in shell if " && " in a) >= 10
    assert any(isinstance(a, Action) for a in fixes)
    # several reworded repeats carry an env prefix or sudo, or the same call in another program's form
    rewords = [p.action for i in commands for p in i.warn if p.kind == REWORD]
    assert sum(1 for a in rewords if a.split()[0] == "sudo" or "=" in a.split()[0]) >= 4


def test_probes_are_well_formed(corpus: Corpus) -> None:
    for inc in corpus.incidents:
        actions = [p.action for p in inc.probes()]
        for action in actions:
            if isinstance(action, str):
                assert action.strip() == action and action, inc.id
            else:
                assert isinstance(action, Action), inc.id
                assert action.tool in ("Edit", "Write", "Read"), inc.id
                assert action.path and not action.path.startswith("/"), inc.id
                if action.tool == "Edit":
                    assert action.old and action.new and action.old != action.new, inc.id
                if action.tool == "Write":
                    assert action.new, inc.id
        # no probe is listed twice, and no call is both a must-warn and a must-stay-silent probe
        keys = [repr(a) for a in actions]
        assert len(keys) == len(set(keys)), inc.id
        warn_keys = {repr(p.action) for p in inc.warn}
        assert not warn_keys & {repr(p.action) for p in inc.silent}, inc.id
        # the identical repeat is the session's own mistake for every command lesson
        if inc.shape != TEST_FIX:
            assert any(p.kind == SAME and p.action == inc.mistake for p in inc.warn), inc.id


def test_lessons_of_a_project_do_not_contradict_each_other(corpus: Corpus) -> None:
    # a call one incident must stay silent on is never another incident's must-warn probe in the same project
    warn = defaultdict(set)
    for inc in corpus.incidents:
        for p in inc.warn:
            warn[inc.project, repr(p.action)].add(inc.id)
    for inc in corpus.incidents:
        for p in inc.silent:
            assert not warn.get((inc.project, repr(p.action)), set()) - {inc.id}, inc.id


def test_test_fix_lessons_are_code_probed(corpus: Corpus) -> None:
    for inc in corpus.incidents:
        if inc.shape != TEST_FIX:
            continue
        kinds = [s.kind for s in inc.session]
        assert "edit" in kinds, inc.id
        bash = [s for s in inc.session if s.kind == "bash"]
        assert bash[0].error and not bash[-1].error, inc.id  # failing run first, passing run last
        edits = [s for s in inc.session if s.kind == "edit"]
        assert any(e.old and e.new and e.old != e.new for e in edits), inc.id
        assert all(isinstance(p.action, Action) for p in inc.warn), inc.id
        assert all(p.action.tool in ("Edit", "Write") for p in inc.warn), inc.id
        assert any(isinstance(p.action, Action) and p.kind == FIX for p in inc.silent), inc.id
        assert any(p.kind == CODE for p in inc.silent), inc.id
        # the reworded repeat lands in another file than the one fixed in session 1, in the same language
        fixed = {e.path for e in edits}
        suffixes = {path.rsplit(".", 1)[-1] for path in fixed}
        rewords = [p.action for p in inc.warn if p.kind == REWORD]
        assert any(a.path not in fixed for a in rewords), inc.id
        assert all(a.path.rsplit(".", 1)[-1] in suffixes for a in rewords), inc.id
        # the taught trigger is a line of code, not a description of an edit
        assert "\n" not in inc.mistake and not inc.mistake.startswith(("Edit ", "Write ")), inc.id
    # the test_fix lessons are spread over languages
    assert len({_ecosystem(i) for i in corpus.incidents if i.shape == TEST_FIX}) >= 10


def test_sessions_are_well_formed(corpus: Corpus) -> None:
    for inc in corpus.incidents:
        assert inc.session and inc.session[0].kind == "user", inc.id
        assert all(isinstance(s, Step) and s.kind in STEP_KINDS for s in inc.session), inc.id
        assert set(inc.variants) <= VARIANTS, inc.id
        assert len(inc.mistake) < 200 and len(inc.lesson) < 400, inc.id
        for s in inc.session:
            if s.kind in ("bash", "reject"):
                assert s.text and s.text.strip() == s.text, inc.id
            if s.kind == "bash" and s.error:
                assert s.reason.isdigit() and s.reason != "0", inc.id
            if s.kind in ("edit", "write", "read", "reject_edit"):
                assert s.path and not s.path.startswith("/"), inc.id
    used = {v for inc in corpus.incidents for v in inc.variants}
    assert used == VARIANTS


def test_shapes_have_their_story(corpus: Corpus) -> None:
    for inc in corpus.incidents:
        kinds = [s.kind for s in inc.session]
        says = " ".join(s.text for s in inc.session if s.kind == "say")
        if inc.shape == "error_fix":
            assert any(s.kind == "bash" and s.error for s in inc.session), inc.id
            first_error = next(n for n, s in enumerate(inc.session) if s.kind == "bash" and s.error)
            assert any(s.kind == "bash" and not s.error for s in inc.session[first_error + 1 :]), inc.id
        elif inc.shape == "correction":
            assert kinds.count("user") >= 2 or any(k in ("reject", "reject_edit") for k in kinds), inc.id
            assert any(s.kind == "reject" and s.reason for s in inc.session) or kinds.count("user") >= 2, inc.id
        elif inc.shape == "marker":
            assert any(tag in says for tag in MARKER_TAGS), inc.id
        elif inc.shape == "retry":
            attempts = [s for s in inc.session if s.kind == "bash"]
            assert len(attempts) >= 3, inc.id
            first_error = next(n for n, s in enumerate(attempts) if s.error)
            assert sum(1 for s in attempts if s.error) >= 2, inc.id  # several failing attempts
            assert any(not s.error for s in attempts[first_error + 1 :]), inc.id  # a later variant works
    marker_tags = Counter(
        tag
        for inc in corpus.incidents
        if inc.shape == "marker"
        for tag in MARKER_TAGS
        if any(tag in s.text for s in inc.session if s.kind == "say")
    )
    assert set(marker_tags) == set(MARKER_TAGS)
    assert min(marker_tags.values()) >= 3
    # some marker sessions show the failing call first, some only a doc, a dry run or a diff
    markers = [i for i in corpus.incidents if i.shape == "marker"]
    with_failure = sum(1 for i in markers if any(s.kind == "bash" and s.error for s in i.session))
    assert 5 <= with_failure <= 17
    # some marker lines quote the command in backticks, some describe it in prose
    quoted = sum(1 for i in markers if "`" in " ".join(s.text for s in i.session if s.kind == "say"))
    assert 5 <= quoted <= 17
    rejections = Counter(s.kind for inc in corpus.incidents if inc.shape == "correction" for s in inc.session)
    assert rejections["reject"] >= 10
    # corrections come both as a rejection with a typed reason and as the user's words after a call ran
    corrections = [i for i in corpus.incidents if i.shape == "correction"]
    assert sum(1 for i in corrections if any(s.kind == "reject" and s.reason for s in i.session)) >= 6
    assert sum(1 for i in corrections if not any(s.kind == "reject" for s in i.session)) >= 4
    assert sum(1 for i in corrections if any(s.kind == "reject" and not s.reason for s in i.session)) >= 4


def test_projects_and_ecosystems_are_spread(corpus: Corpus) -> None:
    projects = Counter(i.project for i in corpus.incidents)
    assert len(projects) == 16
    assert all(6 <= n <= 7 for n in projects.values())
    ecosystems = Counter(_ecosystem(i) for i in corpus.incidents)
    assert len(ecosystems) >= 20
    assert max(ecosystems.values()) <= 10  # no ecosystem dominates (at most a tenth)
    # every project mixes shapes
    for project in projects:
        assert len({i.shape for i in corpus.incidents if i.project == project}) >= 4, project
    # several projects hold two lessons about the same program (another subcommand, target or flag)
    same_program = defaultdict(set)
    for inc in corpus.incidents:
        if inc.shape != TEST_FIX:
            words = [w for w in inc.mistake.split() if w not in ("sudo", "cd", "&&") and "=" not in w]
            same_program[inc.project, words[0]].add(inc.id)
    assert sum(1 for ids in same_program.values() if len(ids) >= 2) >= 10


def test_everyday_calls(corpus: Corpus) -> None:
    calls = corpus.everyday
    assert 120 <= len(calls) <= 160
    assert all(isinstance(e, Everyday) and e.agent in AGENTS for e in calls)
    projects = {i.project for i in corpus.incidents}
    assert {e.project for e in calls} == projects
    assert min(Counter(e.project for e in calls).values()) >= 6
    assert set(Counter(e.agent for e in calls)) == set(AGENTS)
    keys = [(e.project, repr(e.action)) for e in calls]
    assert len(keys) == len(set(keys))
    # an everyday call is never one of the split's must-warn probes in its project
    warn = {(i.project, repr(p.action)) for i in corpus.incidents for p in i.warn}
    assert not warn & set(keys)
    # shell calls and file reads / edits alike
    assert sum(1 for e in calls if isinstance(e.action, Action) and e.action.tool == "Edit") >= 12
    assert sum(1 for e in calls if isinstance(e.action, Action) and e.action.tool == "Read") >= 12


def test_halves_are_disjoint_and_cover_the_split(corpus: Corpus) -> None:
    open_, sealed = blind5.load("open"), blind5.load("sealed")
    ids = [i.id for i in corpus.incidents]
    open_ids, sealed_ids = [i.id for i in open_.incidents], [i.id for i in sealed.incidents]
    assert not set(open_ids) & set(sealed_ids)
    assert sorted(open_ids + sealed_ids) == sorted(ids)
    for half in (open_, sealed):
        assert len(half.incidents) == 50
        assert half.check() == []
        assert Counter(i.shape for i in half.incidents) == {shape: 10 for shape in SHAPES}
        per = Counter((i.shape, i.agent) for i in half.incidents)
        assert all(per[s, a] in (3, 4) for s in SHAPES for a in AGENTS)
    # a half keeps each incident's number (and so its session id)
    numbers = {i.id: i.number for i in corpus.incidents}
    assert all(numbers[i.id] == i.number for i in open_.incidents + sealed.incidents)
    every = [repr((e.project, e.action)) for e in corpus.everyday]
    halves = [repr((e.project, e.action)) for e in open_.everyday + sealed.everyday]
    assert sorted(every) == sorted(halves)
    assert len(open_.everyday) + len(sealed.everyday) == len(corpus.everyday)


def test_unknown_half_is_refused() -> None:
    with pytest.raises(ValueError):
        blind5.load("training")
