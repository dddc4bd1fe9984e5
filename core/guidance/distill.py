"""Behavioural rules distilled from session trajectories, only when significant.

Input: ``<data_dir>/trajectories.jsonl`` (one JSON object per session: see
``twiceshy.learning.trajectory``), read through ``twiceshy.learning.trajectory.load_trajectories``
when that module is present, else directly.

Each candidate rule compares two groups of sessions (e.g. sessions that ran
the tests after a multi-file edit vs those that did not):

* continuous outcome (``outcome_score`` 0..1): **Mann-Whitney U**, two-sided;
* success rates (``outcome_score >= 0.5``): **Fisher's exact test**, two-sided.

scipy's implementations are used when scipy is installed; otherwise the ones
below: an exact U distribution (no ties, ``m*n <= 400``) or the normal
approximation with tie and continuity correction otherwise, and an exact hypergeometric
Fisher test. A rule is emitted only when there are at least
``distill.min_sessions`` sessions overall, ``distill.min_group`` on each side,
the difference is at least ``distill.min_effect``, and the p-value survives a
Benjamini-Hochberg correction at ``distill.alpha`` over every test of the run
(many domains x tools would otherwise produce rules by chance).

Rules: verification after multi-file edits, read before edit, short focused
sessions vs marathons, file scope, tool preference per domain, failure lessons
per domain, and a checklist for each weak domain.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SUCCESS = 0.5  # outcome_score at or above this counts as a successful session


# -- statistics -----------------------------------------------------------------


def _ranks(values: list[float]) -> tuple[list[float], list[int]]:
    """Average ranks (1-based) and the sizes of tie groups."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    ties: list[int] = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def _exact_u_cdf_counts(m: int, n: int) -> list[int]:
    """Number of arrangements giving each U in 0..m*n (no ties), by the classic recursion."""
    # f[i][j] is the distribution for sizes (i, j); build row by row.
    prev = [[1] for _ in range(n + 1)]  # i = 0: U is always 0
    for i in range(1, m + 1):
        cur: list[list[int]] = [[1]]  # j = 0: U is always 0
        for j in range(1, n + 1):
            size = i * j + 1
            dist = [0] * size
            # f(u; i, j) = f(u - j; i-1, j) + f(u; i, j-1)
            for u, c in enumerate(prev[j]):
                dist[u + j] += c
            for u, c in enumerate(cur[j - 1]):
                dist[u] += c
            cur.append(dist)
        prev = cur
    return prev[n]


def mann_whitney_u(x: list[float], y: list[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test. Returns (U of x, p-value)."""
    try:
        from scipy.stats import mannwhitneyu

        res = mannwhitneyu(x, y, alternative="two-sided")
        return float(res.statistic), float(res.pvalue)
    except ImportError:
        pass
    return _mann_whitney_u(x, y)


def _mann_whitney_u(x: list[float], y: list[float]) -> tuple[float, float]:
    m, n = len(x), len(y)
    if m == 0 or n == 0:
        return 0.0, 1.0
    ranks, ties = _ranks(list(x) + list(y))
    u = sum(ranks[:m]) - m * (m + 1) / 2
    has_ties = any(t > 1 for t in ties)
    if not has_ties and m * n <= 400:  # the exact recursion costs ~(m*n)^2/4 steps
        counts = _exact_u_cdf_counts(m, n)
        total = sum(counts)
        k = int(round(min(u, m * n - u)))
        p = 2 * sum(counts[: k + 1]) / total
        return u, min(1.0, p)
    mu = m * n / 2
    big_n = m + n
    tie_term = sum(t**3 - t for t in ties) / (big_n * (big_n - 1))
    var = m * n / 12 * ((big_n + 1) - tie_term)
    if var <= 0:
        return u, 1.0
    z = (abs(u - mu) - 0.5) / math.sqrt(var)
    p = math.erfc(max(z, 0.0) / math.sqrt(2))
    return u, min(1.0, p)


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Two-sided Fisher exact test p-value for the table [[a, b], [c, d]]."""
    try:
        from scipy.stats import fisher_exact as _fe

        return float(_fe([[a, b], [c, d]], alternative="two-sided")[1])
    except ImportError:
        pass
    return _fisher_exact(a, b, c, d)


def _fisher_exact(a: int, b: int, c: int, d: int) -> float:
    row1, row2, col1 = a + b, c + d, a + c
    n = row1 + row2

    def logp(k: int) -> float:
        return (
            math.lgamma(row1 + 1)
            - math.lgamma(k + 1)
            - math.lgamma(row1 - k + 1)
            + math.lgamma(row2 + 1)
            - math.lgamma(col1 - k + 1)
            - math.lgamma(row2 - col1 + k + 1)
            - (math.lgamma(n + 1) - math.lgamma(col1 + 1) - math.lgamma(n - col1 + 1))
        )

    lo, hi = max(0, col1 - row2), min(row1, col1)
    observed = logp(a)
    # Sum every table at most as likely as the observed one (relative tolerance as in R/scipy).
    p = sum(math.exp(logp(k)) for k in range(lo, hi + 1) if logp(k) <= observed + 1e-7)
    return min(1.0, p)


def benjamini_hochberg(pvalues: list[float], alpha: float) -> list[bool]:
    """Which p-values are discoveries at false-discovery rate ``alpha``."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    cutoff = -1
    for rank, i in enumerate(order, start=1):
        if pvalues[i] <= alpha * rank / m:
            cutoff = rank
    passed = [False] * m
    for rank, i in enumerate(order, start=1):
        if rank <= cutoff:
            passed[i] = True
    return passed


# -- trajectories -----------------------------------------------------------------


def trajectories_path() -> Path:
    from twiceshy.base.paths import data_dir

    return data_dir() / "trajectories.jsonl"


def load_trajectories(path: Path | None = None) -> list[dict[str, Any]]:
    """Every recorded session; the learning loop's loader when it exists."""
    if path is None:
        try:
            from twiceshy.learning.trajectory import load_trajectories as _load

            return [t if isinstance(t, dict) else asdict(t) for t in _load()]
        except (ImportError, AttributeError):
            path = trajectories_path()
    out: list[dict[str, Any]] = []
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if not line:
                    continue
                try:
                    item = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a torn last line from a crash is not fatal
                if isinstance(item, dict) and isinstance(item.get("outcome_score"), (int, float)):
                    out.append(item)
    except FileNotFoundError:
        pass
    return out


def trajectory_time(t: dict[str, Any]) -> float | None:
    """When a session ended (or started), as epoch seconds; accepts numbers or ISO 8601."""
    from datetime import datetime

    for key in ("ended", "started"):
        value = t.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str) and value:
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return None


# -- rules ----------------------------------------------------------------------------


@dataclass
class DistilledRule:
    """One behavioural rule with the evidence that earned it."""

    key: str  # stable id, e.g. "verify-after-multi-edit" or "tool:python:Bash"
    text: str
    polarity: str  # apply | avoid | consider
    evidence: str
    p_value: float
    effect: float  # difference in mean outcome (or success rate) between the groups
    n: int  # sessions compared
    domain: str | None = None
    checklist: list[str] = field(default_factory=list)

    def line(self) -> str:
        body = self.text
        if self.checklist:
            body += " " + "; ".join(self.checklist)
        return f"- {body} ({self.evidence})"


@dataclass
class _Test:
    key: str
    p: float
    effect: float
    n: int
    make: Callable[[], DistilledRule]


def _score(t: dict[str, Any]) -> float:
    return float(t.get("outcome_score") or 0.0)


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _compare(
    key: str,
    good: list[dict[str, Any]],
    bad: list[dict[str, Any]],
    min_group: int,
    min_effect: float,
    build: Callable[[float, float, float, int, int], DistilledRule],
) -> _Test | None:
    """Mann-Whitney on outcome_score: ``good`` is the behaviour we'd recommend."""
    if len(good) < min_group or len(bad) < min_group:
        return None
    gx, bx = [_score(t) for t in good], [_score(t) for t in bad]
    effect = _mean(gx) - _mean(bx)
    if abs(effect) < min_effect:
        return None
    _, p = mann_whitney_u(gx, bx)
    return _Test(key, p, effect, len(good) + len(bad), lambda: build(_mean(gx), _mean(bx), p, len(good), len(bad)))


def _fmt_p(p: float) -> str:
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def _edited(t: dict[str, Any]) -> list[str]:
    return list(t.get("files_edited") or [])


def _succeeded(t: dict[str, Any]) -> bool:
    return _score(t) >= SUCCESS


def _rate(group: list[dict[str, Any]]) -> tuple[int, int]:
    return sum(1 for t in group if _succeeded(t)), len(group)


def _candidate_tests(trajs: list[dict[str, Any]], min_group: int, min_effect: float) -> list[_Test]:
    tests: list[_Test] = []

    def add(test: _Test | None) -> None:
        if test is not None:
            tests.append(test)

    # 1. Verification after multi-file edits.
    multi = [t for t in trajs if len(_edited(t)) >= 2]
    verified = [t for t in multi if t.get("verified_after_multi_edit")]
    unverified = [t for t in multi if not t.get("verified_after_multi_edit")]

    def verify_rule(g: float, b: float, p: float, ng: int, nb: int) -> DistilledRule:
        good = g >= b
        return DistilledRule(
            "verify-after-multi-edit",
            "After editing several files, run the tests before you finish."
            if good
            else "Verification after multi-file edits has not paid off here; check how tests are run.",
            "apply" if good else "consider",
            f"multi-file sessions: mean outcome {g:.2f} verified ({ng}) vs {b:.2f} unverified ({nb}), {_fmt_p(p)}",
            p,
            g - b,
            ng + nb,
        )

    add(_compare("verify-after-multi-edit", verified, unverified, min_group, min_effect, verify_rule))

    # 2. Read before edit.
    editing = [t for t in trajs if _edited(t)]
    read_first = [t for t in editing if int(t.get("edits_before_read") or 0) == 0]
    blind = [t for t in editing if int(t.get("edits_before_read") or 0) > 0]

    def read_rule(g: float, b: float, p: float, ng: int, nb: int) -> DistilledRule:
        good = g >= b
        return DistilledRule(
            "read-before-edit",
            "Editing a file you have not read in this session."
            if good
            else "Reading every file before editing it has not helped here.",
            "avoid" if good else "consider",
            f"mean outcome {g:.2f} when every edited file was read first ({ng}) vs {b:.2f} otherwise ({nb}), {_fmt_p(p)}",
            p,
            g - b,
            ng + nb,
        )

    add(_compare("read-before-edit", read_first, blind, min_group, min_effect, read_rule))

    # 3. Short focused sessions vs marathons (split at the median duration).
    timed = [t for t in trajs if isinstance(t.get("duration_s"), (int, float))]
    if len(timed) >= 2 * min_group:
        median = statistics.median(float(t["duration_s"]) for t in timed)
        short = [t for t in timed if float(t["duration_s"]) <= median]
        long = [t for t in timed if float(t["duration_s"]) > median]
        minutes = max(1, round(median / 60))

        def session_rule(g: float, b: float, p: float, ng: int, nb: int) -> DistilledRule:
            if g >= b:
                return DistilledRule(
                    "short-sessions",
                    f"Keep sessions short and focused (about {minutes} min or less); split marathons.",
                    "apply",
                    f"mean outcome {g:.2f} for sessions <= {minutes} min ({ng}) vs {b:.2f} longer ({nb}), {_fmt_p(p)}",
                    p,
                    g - b,
                    ng + nb,
                )
            return DistilledRule(
                "short-sessions",
                f"Longer sessions (over {minutes} min) have gone better here; don't stop halfway.",
                "consider",
                f"mean outcome {b:.2f} for sessions > {minutes} min ({nb}) vs {g:.2f} shorter ({ng}), {_fmt_p(p)}",
                p,
                b - g,
                ng + nb,
            )

        add(_compare("short-sessions", short, long, min_group, min_effect, session_rule))

    # 4. File scope (split at the median number of files edited).
    if len(editing) >= 2 * min_group:
        median_files = statistics.median(len(_edited(t)) for t in editing)
        narrow = [t for t in editing if len(_edited(t)) <= median_files]
        wide = [t for t in editing if len(_edited(t)) > median_files]
        limit = int(median_files)

        def scope_rule(g: float, b: float, p: float, ng: int, nb: int) -> DistilledRule:
            good = g >= b
            return DistilledRule(
                "file-scope",
                f"Keep one change to about {limit} file(s); split wider changes into steps."
                if good
                else f"Wide changes (more than {limit} files) have gone fine here.",
                "apply" if good else "consider",
                f"mean outcome {g:.2f} editing <= {limit} files ({ng}) vs {b:.2f} more ({nb}), {_fmt_p(p)}",
                p,
                g - b,
                ng + nb,
            )

        add(_compare("file-scope", narrow, wide, min_group, min_effect, scope_rule))

    # 5-7. Per domain: tool preference, failure lessons, checklist for weak domains.
    domains = sorted({d for t in trajs for d in (t.get("domains") or []) if isinstance(d, str)})
    for domain in domains:
        inside = [t for t in trajs if domain in (t.get("domains") or [])]
        outside = [t for t in trajs if domain not in (t.get("domains") or [])]
        tools = sorted({tool for t in inside for tool in (t.get("tool_counts") or {})})
        for tool in tools:
            used = [t for t in inside if (t.get("tool_counts") or {}).get(tool, 0) > 0]
            unused = [t for t in inside if not (t.get("tool_counts") or {}).get(tool, 0)]

            def tool_rule(
                g: float, b: float, p: float, ng: int, nb: int, tool: str = tool, domain: str = domain
            ) -> DistilledRule:
                good = g >= b
                return DistilledRule(
                    f"tool:{domain}:{tool}",
                    f"In {domain} work, prefer {tool}."
                    if good
                    else f"In {domain} work, {tool} has gone with worse outcomes.",
                    "apply" if good else "avoid",
                    f"{domain}: mean outcome {g:.2f} with {tool} ({ng}) vs {b:.2f} without ({nb}), {_fmt_p(p)}",
                    p,
                    g - b,
                    ng + nb,
                    domain=domain,
                )

            add(_compare(f"tool:{domain}:{tool}", used, unused, min_group, min_effect, tool_rule))

        # Failure lessons: which habits separate this domain's successes from its failures.
        for habit, label, pick in _HABITS:
            with_h = [t for t in inside if pick(t)]
            without = [t for t in inside if not pick(t)]
            if len(with_h) < min_group or len(without) < min_group:
                continue
            (sw, nw), (so, no) = _rate(with_h), _rate(without)
            effect = sw / nw - so / no
            if abs(effect) < min_effect:
                continue
            p = fisher_exact(sw, nw - sw, so, no - so)

            def fail_rule(
                sw: int = sw,
                nw: int = nw,
                so: int = so,
                no: int = no,
                p: float = p,
                habit: str = habit,
                label: str = label,
                domain: str = domain,
                effect: float = effect,
            ) -> DistilledRule:
                good = effect > 0
                text = (
                    f"In {domain} work, {label}."
                    if good
                    else f"In {domain} work, '{label}' has not helped; rethink it."
                )
                return DistilledRule(
                    f"fail:{domain}:{habit}",
                    text,
                    "apply" if good else "consider",
                    f"{domain}: succeeded {sw}/{nw} when they did vs {so}/{no} when not, {_fmt_p(p)}",
                    p,
                    effect,
                    nw + no,
                    domain=domain,
                )

            tests.append(_Test(f"fail:{domain}:{habit}", p, effect, nw + no, fail_rule))

        # Weak domain: success rate well below the other domains'.
        if len(inside) >= min_group and len(outside) >= min_group:
            (si, ni), (so, no) = _rate(inside), _rate(outside)
            effect = so / no - si / ni
            if effect >= min_effect:
                p = fisher_exact(si, ni - si, so, no - so)

                def weak_rule(
                    si: int = si,
                    ni: int = ni,
                    so: int = so,
                    no: int = no,
                    p: float = p,
                    domain: str = domain,
                    inside: list = inside,
                    effect: float = effect,
                ) -> DistilledRule:
                    return DistilledRule(
                        f"weak:{domain}",
                        f"{domain} is a weak domain here; checklist:",
                        "apply",
                        f"{domain} sessions succeeded {si}/{ni} vs {so}/{no} elsewhere, {_fmt_p(p)}",
                        p,
                        effect,
                        ni + no,
                        domain=domain,
                        checklist=_checklist(inside),
                    )

                tests.append(_Test(f"weak:{domain}", p, effect, ni + no, weak_rule))
    return tests


# habit key, imperative label, predicate over one trajectory
_HABITS: list[tuple[str, str, Callable[[dict[str, Any]], bool]]] = [
    ("read-first", "read each file before editing it", lambda t: int(t.get("edits_before_read") or 0) == 0),
    ("run-tests", "run the tests", lambda t: int(t.get("tests_run") or 0) > 0),
    ("verify", "verify after multi-file edits", lambda t: bool(t.get("verified_after_multi_edit"))),
    ("small-scope", "keep the change to three files or fewer", lambda t: len(t.get("files_edited") or []) <= 3),
]


def _checklist(inside: list[dict[str, Any]]) -> list[str]:
    """Habits that went with success inside a weak domain (direction only; the
    domain's weakness itself is the significant finding), best first."""
    items: list[tuple[float, str]] = []
    for _, label, pick in _HABITS:
        with_h = [t for t in inside if pick(t)]
        without = [t for t in inside if not pick(t)]
        if not with_h or not without:
            continue
        gap = _rate(with_h)[0] / len(with_h) - _rate(without)[0] / len(without)
        if gap > 0:
            items.append((gap, label))
    items.sort(reverse=True)
    return [label for _, label in items] or [label for _, label, _ in _HABITS[:2]]


def distill_rules(
    trajectories: Iterable[dict[str, Any]] | None = None,
    config: Any = None,
    project: str | None = None,
) -> list[DistilledRule]:
    """Significant rules from ``trajectories`` (default: all recorded sessions).

    ``project`` restricts the sessions to one project fingerprint. ``config`` is
    a :class:`twiceshy.base.config.Config` (defaults when None). Strongest first.
    """
    from twiceshy.base.config import defaults

    cfg = config["distill"] if config is not None else defaults()["distill"]
    trajs = list(load_trajectories() if trajectories is None else trajectories)
    if project is not None:
        trajs = [t for t in trajs if t.get("project") == project]
    if len(trajs) < int(cfg["min_sessions"]):
        return []
    tests = _candidate_tests(trajs, int(cfg["min_group"]), float(cfg["min_effect"]))
    if not tests:
        return []
    passed = benjamini_hochberg([t.p for t in tests], float(cfg["alpha"]))
    rules = [t.make() for t, ok in zip(tests, passed) if ok]
    # One tool preference per domain: the strongest.
    best_tool: dict[str, DistilledRule] = {}
    out: list[DistilledRule] = []
    for rule in sorted(rules, key=lambda r: (r.p_value, -abs(r.effect))):
        if rule.key.startswith("tool:") and rule.polarity == "apply":
            if rule.domain in best_tool:
                continue
            best_tool[rule.domain or ""] = rule
        out.append(rule)
    return out


__all__ = [
    "DistilledRule",
    "benjamini_hochberg",
    "distill_rules",
    "fisher_exact",
    "load_trajectories",
    "mann_whitney_u",
]
