"""How good is twiceshy's judgement? Issue 16's figures, from the corpus in tests/judgement/.

    python bench/judgement.py                      # all three modes, a table per mode
    python bench/judgement.py --mode learned -v    # one mode, and every probe that went wrong
    python bench/judgement.py --shape test_fix --json
    python bench/judgement.py --split sealed       # only the sealed split (default: both, side by side)
    python bench/judgement.py --split fresh        # only the fresh split
    python bench/judgement.py --split blind        # the blind split (measured, never read)
    python bench/judgement.py --split blind-open -v  # its half that may be read
    python bench/judgement.py --split blind2       # round 5's blind split (measured, never read)
    python bench/judgement.py --split blind3       # round 6's blind split, 100 incidents (measured, never read)
    python bench/judgement.py --split blind4       # round 7's blind split, 100 incidents (measured, never read)
    python bench/judgement.py --split blind5-open -v  # round 8's blind split: its open half, read after its first measurement
    python bench/judgement.py --split blind5-sealed   # ... and its sealed half (measured, never read)
    python bench/judgement.py --split fresh --crowd  # every incident in one project
    python bench/judgement.py --split dev --mutate   # every shell probe in other words
    python bench/judgement.py --split blind2 --classes  # why probes went wrong, as counts of classes

Five splits: ``tuning`` (tests/judgement/corpus, read while building the matcher),
``dev`` (tests/judgement/dev, written later by someone who had not read the matcher:
read it to find what is wrong), ``sealed`` (tests/judgement/sealed, written
independently before the matcher changed and never read item by item while
tuning: report it, never tune on it; ``-v`` prints no item of it) and ``fresh``
(tests/judgement/fresh, written without reading the matcher or the other splits,
to see how the matcher does on incidents it was never tuned on; since read and tuned
on like dev) and ``blind`` (tests/judgement/blind, written the same way in round 3,
with several incidents per project: measured in aggregate only, like sealed; its
``blind-open`` half may be read, its ``blind-sealed`` half never) and ``blind2``
(tests/judgement/blind2, written the same way in round 5 over other ecosystems; sealed
whole: measured in aggregate only), ``blind3`` and ``blind4`` (rounds 6 and 7, the same) and
``blind5`` (round 8, written to stress other valid corrections and related calls of the same
program: its ``blind5-open`` half was read after its first measurement, its ``blind5-sealed``
half never).

Modes: ``learned`` (session end on each incident's real-format transcript),
``taught`` (``twiceshy learn "<lesson>" --trigger "<mistake>" --project``) and
``noisy`` (learned, in a store that already holds 2,000 unrelated lessons, 12%
of them rules). Offline defaults, a fresh data dir per mode. Definitions of the
figures: tests/judgement/harness.py.

``--code <commit>`` measures the code of another commit (its core/, plugins/
and hooks/ from git, laid out as the installed ``twiceshy`` package) with this
corpus and harness — the "before" of a change:

    python bench/judgement.py --code 75ffde2       # issue 16's "before"

``--set section.key=value`` runs with a config override; ``--baseline-set``
(or ``BASELINE_OVERRIDES`` in the harness, once a switch for the new matcher
exists) also runs every mode with those overrides and prints both, measured in
the same run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from judgement import blind, blind2, blind3, blind4, blind5, dev, fresh, sealed  # noqa: E402
from judgement import harness as h  # noqa: E402
from judgement.mutate import mutated  # noqa: E402
from judgement.spec import SHAPES, Corpus  # noqa: E402
from judgement_classes import table as classes_table  # noqa: E402
from other_code import run_other_code  # noqa: E402

CROWD_PROJECT = "crowd"
# Splits measured only in aggregate: ``-v`` never prints one of their items.
UNREAD = ("sealed", "blind", "blind-sealed", "blind2", "blind3", "blind4", "blind5", "blind5-sealed")


def crowd(corpus: Corpus) -> Corpus:
    """The same corpus with every incident and everyday call in one project: each lesson is
    then eligible for every probe, so only its signature keeps it off another incident's calls
    (the cross-incident holds a split of one project per incident never shows)."""
    incidents = [dataclasses.replace(inc, project=CROWD_PROJECT) for inc in corpus.incidents]
    everyday = [dataclasses.replace(e, project=CROWD_PROJECT) for e in corpus.everyday]
    return Corpus(incidents=incidents, everyday=everyday)


def _run_other_code(commit: str, argv: list[str]) -> int:
    """Re-run this bench in a child whose ``twiceshy`` is ``commit``'s code."""
    return run_other_code(commit, __file__, argv)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _parse_set(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, _, raw = item.partition("=")
        section, _, name = key.partition(".")
        if not name:
            raise SystemExit(f"--set wants section.key=value, got {item!r}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out.setdefault(section, {})[name] = value
    return out


def table(result: h.ModeResult, label: str = "") -> str:
    title = h.MODE_TITLES[result.mode].format(n=result.noise)
    summary = result.summary()
    overall = summary["overall"]
    secs = sum(result.seconds.values())
    head = (
        f"== {title}{label}: {overall['incidents']} incidents, {overall['everyday']} everyday calls, "
        f"{result.stored} lessons in the store, {secs:.0f} s"
    )
    cols = f"{'shape':<11} {'lesson':>7} {'recall any/own':>15} {'precision (right lesson)':>25} {'false warn look-alike/everyday':>31} {'wrong denies':>13} {'holds':>6}"
    lines = [head, cols]
    for shape, s in summary.items():
        lines.append(
            f"{shape:<11} {s['produced']:>3}/{s['incidents']:<3} {_pct(s['recall_any']):>7} / {_pct(s['recall_own']):<5}"
            f" {_pct(s['precision']):>14} ({_pct(s['right_lesson'])})"
            f" {_pct(s['fw_lookalike']):>20} / {_pct(s['fw_everyday']):<8}"
            f" {s['wrong_denies']:>6} of {s['denies']:<4} {s['holds']:>5}"
        )
    lines.append(
        f"lessons shown on incident probes: {overall['shown_lessons']}, from another incident or the noise: "
        f"{overall['shown_foreign']}; hook errors logged: {len(result.errors)}"
    )
    return "\n".join(lines)


def side_by_side(rows: list[tuple[str, str, h.ModeResult]]) -> str:
    """One line per split and mode with the figures the hidden sets report."""
    cols = (
        f"{'split':<7} {'mode':<8} {'recall own':>10} {'same/reword':>12} {'precision':>9} "
        f"{'fix held':>9} {'false look-alike/everyday':>26} {'wrong of all holds':>19}"
    )
    lines = ["== both splits, side by side", cols]
    for split, label, result in rows:
        o = result.summary()["overall"]
        wrong = f"{o['wrong_flagged']} of {o['all_flagged']} ({_pct(h._ratio(o['wrong_flagged'], o['all_flagged']))})"
        lines.append(
            f"{split:<7} {result.mode + label:<8} {_pct(o['recall_own']):>10} "
            f"{_pct(o['recall_same']):>5}/{_pct(o['recall_reword']):<6} {_pct(o['precision']):>9} "
            f"{_pct(o['fw_fix']):>9} {_pct(o['fw_lookalike']):>17} / {_pct(o['fw_everyday']):<6} {wrong:>19}"
        )
    lines += ["", "== holds and denies only (a warning in context blocks nothing)",
              f"{'split':<7} {'mode':<8} {'held own':>9} {'precision':>9} {'fix held':>9} {'look-alike':>10} {'everyday':>9}"]  # fmt: skip
    for split, label, result in rows:
        o = result.summary()["overall"]
        lines.append(
            f"{split:<7} {result.mode + label:<8} {_pct(o['held_own']):>9} {_pct(o['hold_precision']):>9} "
            f"{_pct(o['fix_hold']):>9} {_pct(o['look_hold']):>10} {_pct(o['day_hold']):>9}"
        )
    return "\n".join(lines)


def _owner(owner: str) -> str:
    return owner if owner in ("noise", "?") else f"[{owner}]"


def report(result: h.ModeResult, verbosity: int) -> str:
    """Every probe that went wrong, with the lessons that were shown."""
    lines = []
    groups = h.misses(result)
    titles = {
        "missed": "must warn, stayed silent",
        "wrong_lesson": "warned, but not with its own incident's lesson",
        "false_lookalike": "false warnings on look-alikes (must stay silent)",
        "false_everyday": "false warnings on everyday calls",
        "wrong_deny": "wrong denies",
    }
    for key, title in titles.items():
        outs = groups[key]
        lines.append(f"-- {title}: {len(outs)}")
        for o in outs:
            where = f"{o.shape}/{o.incident}" if o.incident else f"everyday/{o.project}"
            lines.append(f"   {where} ({o.agent}, {o.kind}, {o.answer}): {o.action[:110]}")
            for owner, text in zip(o.owners, o.texts):
                lines.append(f"      <- {_owner(owner)} {text[:150]}")
    empty = [i for i in result.incidents if not result.lessons_of.get(i.id)]
    lines.append(f"-- incidents that produced no lesson: {len(empty)}")
    for inc in empty:
        lines.append(f"   {inc.shape}/{inc.id} ({inc.agent}) {', '.join(inc.variants)}")
    if verbosity > 1:
        lines.append("-- lessons per incident")
        for inc in result.incidents:
            for row in result.lessons_of.get(inc.id, []):
                lines.append(
                    f"   {inc.id}: [{row['kind']}, T{row['tier']}] {row['trigger'][:70]!r} -> {row['text'][:120]}"
                )
                if row.get("signature"):
                    lines.append(f"      signature {json.dumps(row['signature'])[:300]}")
    if result.errors:
        lines.append(f"-- hook errors: {len(result.errors)}")
        for err in result.errors[:20]:
            lines.append(f"   {err.get('where')}: {str(err.get('error'))[:200]}")
    return "\n".join(lines)


def cold_line(result: h.ModeResult, split: str, verbose: bool) -> str:
    """How the hook client's offline answer (engine away) agrees with the engine's, on holding."""
    extra = [m for m in result.cold_mismatches if m[1] in (h.HOLD, h.DENY)]
    missed = [m for m in result.cold_mismatches if m[1] not in (h.HOLD, h.DENY)]
    line = (
        f"cold start [{split}, {result.mode}]: {result.cold_probes} probes, the client alone holds "
        f"{len(extra)} the engine does not and misses {len(missed)} the engine holds"
    )
    if verbose:
        line += "".join(f"\n  {cold:>6} vs {answer:>6}  {action}" for action, cold, answer in result.cold_mismatches)
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", action="append", choices=h.MODES, help="repeatable; default: all three")
    ap.add_argument(
        "--split",
        choices=(
            "tuning",
            "dev",
            "sealed",
            "fresh",
            "blind",
            "blind-open",
            "blind-sealed",
            "blind2",
            "blind3",
            "blind4",
            "blind5",
            "blind5-open",
            "blind5-sealed",
            "both",
            "all",
        ),
        default="both",
        help="which corpus split: both = tuning and sealed; all adds dev, fresh, blind, blind2, blind3, blind4 and blind5's halves",
    )
    ap.add_argument("--shape", action="append", choices=SHAPES, help="only these shapes (repeatable)")
    ap.add_argument("--incident", action="append", help="only these incident ids (repeatable)")
    ap.add_argument("--every", type=int, default=1, help="every n-th incident per shape (a quick subset)")
    ap.add_argument("--noise", type=int, default=h.NOISE_COUNT, help="unrelated lessons in the noisy mode")
    ap.add_argument("--no-everyday", action="store_true", help="skip the everyday calls")
    ap.add_argument("--set", action="append", default=[], help="config override section.key=value (repeatable)")
    ap.add_argument("--baseline-set", action="append", default=[], help="baseline config override (repeatable)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the baseline run even if overrides are defined")
    ap.add_argument("--json", action="store_true", help="print JSON (figures and every outcome) instead of tables")
    ap.add_argument("-v", "--verbose", action="count", default=0, help="-v: failed probes; -vv: also every lesson")
    ap.add_argument("--keep", action="store_true", help="keep the temp data dirs and transcripts")
    ap.add_argument(
        "--cold", action="store_true", help="also ask the hook client's offline answer (engine away) and compare"
    )
    ap.add_argument(
        "--crowd", action="store_true", help="every incident of a split in one project (cross-incident holds show)"
    )
    ap.add_argument(
        "--mutate", action="store_true", help="every shell probe in other words (tests/judgement/mutate.py)"
    )
    ap.add_argument(
        "--classes", action="store_true", help="count the wrong holds and misses by class (no item printed)"
    )
    ap.add_argument("--code", metavar="COMMIT", help="measure another commit's code (core/, plugins/, hooks/) instead")
    args = ap.parse_args(argv)
    if args.code:
        rest = list(sys.argv[1:] if argv is None else argv)
        i = rest.index("--code") if "--code" in rest else next(n for n, a in enumerate(rest) if a.startswith("--code="))
        del rest[i : i + (1 if rest[i].startswith("--code=") else 2)]
        return _run_other_code(args.code, rest)

    splits = {
        "tuning": h.load,
        "dev": dev.load,
        "sealed": sealed.load,
        "fresh": fresh.load,
        "blind-open": lambda: blind.load("open"),
        "blind-sealed": lambda: blind.load("sealed"),
        "blind": blind.load,
        "blind2": blind2.load,
        "blind3": blind3.load,
        "blind4": blind4.load,
        "blind5": blind5.load,
        "blind5-open": lambda: blind5.load("open"),
        "blind5-sealed": lambda: blind5.load("sealed"),
    }
    everything = [
        "tuning", "dev", "sealed", "fresh", "blind-open", "blind-sealed", "blind2", "blind3", "blind4",
        "blind5-open", "blind5-sealed",
    ]  # fmt: skip
    chosen = ["tuning", "sealed"] if args.split == "both" else everything if args.split == "all" else [args.split]
    overrides = _parse_set(args.set)
    baseline = _parse_set(args.baseline_set) if args.baseline_set else dict(h.BASELINE_OVERRIDES)
    runs: list[tuple[str, dict[str, Any]]] = [("", overrides)]
    if baseline and not args.no_baseline:
        merged = {**overrides, **{k: {**overrides.get(k, {}), **v} for k, v in baseline.items()}}
        runs.append((" [baseline]", merged))

    started = time.perf_counter()
    out_json = []
    rows: list[tuple[str, str, h.ModeResult]] = []
    for split in chosen:
        corpus = splits[split]()
        if args.crowd:
            corpus = crowd(corpus)
        if args.mutate:
            corpus = mutated(corpus)
        problems = corpus.check()
        if problems:
            raise SystemExit(f"{split} corpus problems:\n" + "\n".join(problems))
        incidents = h.select(corpus, shapes=args.shape, ids=args.incident, every=args.every)
        everyday = [] if args.no_everyday else corpus.everyday
        for mode in args.mode or list(h.MODES):
            for label, ov in runs:
                result = h.run_mode(
                    mode, corpus, incidents, everyday, noise=args.noise, overrides=ov, keep=args.keep,
                    check_cold=args.cold,
                )  # fmt: skip
                rows.append((split, label.strip() and "*", result))
                if args.cold:
                    print(cold_line(result, split, args.verbose and split not in UNREAD))
                if args.json:
                    out_json.append({**h.to_json(result), "split": split, "label": label.strip(" []") or "measured"})
                    continue
                print(table(result, f" [{split}]{label}"))
                if args.classes:
                    print(
                        classes_table(result, split, readable=bool(args.verbose) and split not in UNREAD)
                    )  # counts of classes only: fine on a sealed split
                if args.verbose and split not in UNREAD:
                    print(report(result, args.verbose))  # the sealed and blind splits' items stay unread
                print(flush=True)
    if not args.json:
        print(side_by_side(rows))
    if args.json:
        print(json.dumps(out_json, indent=1, default=str))
    else:
        print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
