"""Why probes went wrong, counted by class: ``python bench/judgement.py --classes``.

A sealed split may only be measured in aggregate; this turns the probes that went wrong
into counts of *classes* — never an item — so a sealed split can say where it loses
without being read:

* a **wrong hold** (a call held that must pass, or held by another incident's lesson) is
  classed by the probe's kind (fix / other / help / code / everyday), whose lesson held it
  (its own incident's, another incident's of the same project, the noise) and the shape of
  that lesson's signature (what it names: subcommand, present items, absent items, scope);
* a **miss** (a repeat of the mistake that passed) by the probe's kind and what stopped its
  own lesson: no lesson at all, no signature, the signature's own verdict (``lacks …``,
  ``has … (the fix)``, another subcommand, a read-only call…), or a signature that matched
  but the call was not held (too far in similarity, taken for the fix, outranked).

Nothing here prints a probe, a lesson or an incident id.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from judgement import harness as h
from judgement.transcripts import pre_tool_payload

HOLDING = (h.HOLD, h.DENY)


def signature_shape(sig: dict[str, Any] | None) -> str:
    """What a signature names, as a short class: ``command:sub+present+absent``, ``edit:present``…"""
    if not isinstance(sig, dict) or not sig:
        return "none"
    kind = str(sig.get("kind") or "?")
    if kind == "any":
        shapes = sorted({signature_shape(s) for s in sig.get("of") or []})
        return "any[" + ",".join(shapes) + "]"
    parts = [name for name in ("sub", "present", "absent", "scope") if sig.get(name)]
    if sig.get("looks"):
        parts.append("looks")
    return f"{kind}:" + ("+".join(parts) or "bare")


def _verdict_class(reason: str) -> str:
    """A signature check's reason, without the call's own words."""
    for pattern, label in (
        (r"^lacks ", "signature: lacks a present item"),
        (r"\(the fix", "signature: has the fix's item"),
        (r"^another ", "signature: another scope value"),
        (r" is not |does not run", "signature: another subcommand"),
        (r"^not ", "signature: another program"),
        (r"read-only", "signature: a read-only call"),
        (r"help", "signature: a help call"),
        (r"is local", "signature: a local subcommand"),
        (r"pattern not in", "signature: code pattern absent"),
        (r"not an edit|not a shell", "signature: another tool"),
    ):
        if re.search(pattern, reason):
            return label
    return "signature: " + (reason.split(" ", 1)[0] or "?")


def _item_class(item: str) -> str:
    """What kind of token a signature item is, without the token."""
    if item.startswith("re:"):
        return "a regex"
    if ":" in item[:5] and item.split(":", 1)[0] in ("env", "pre", "post", "via", "run", "exe", "at"):
        return "a " + item.split(":", 1)[0] + ": item"
    if item.startswith("-"):
        return "a flag=value" if "=" in item else "a flag"
    if "*" in item:
        return "a glob"
    if item.endswith("="):
        return "an assignment"
    if "/" in item or re.search(r"\.[A-Za-z0-9]{1,5}$", item):
        return "a path operand"
    return "a word operand"


def _why_missed(sig: dict[str, Any], reason: str, tool_input: dict[str, Any]) -> str:
    """The verdict's class, refined by what the item or word was (never the word itself)."""
    label = _verdict_class(reason)
    text = str(tool_input.get("command") or "")
    words = re.findall(r"[^\s'\"=]+", text)
    if reason.startswith("lacks "):
        item = reason[len("lacks ") :]
        how = _item_class(item)
        if how == "a flag":
            names = [n for n in item.split("|") if n.startswith("-")]
            bare = {n.lstrip("-").lower() for n in names}
            if any(w.lstrip("-").lower() in bare for w in words if w.startswith("-")):
                how += ", in another form in the call"
            elif any(len(n) == 2 for n in names) and any(
                w.startswith("--") and w[2:3] == n[1] for n in names if len(n) == 2 for w in words
            ):
                how += " (short), the call has a long flag of its letter"
            elif any(n.startswith("--") for n in names) and any(
                len(w) >= 2 and w[0] == "-" and w[1] != "-" and n[2:3] in w[1:] for n in names for w in words
            ):
                how += " (long), the call has a short flag of its letter"
            else:
                how += ", not in the call in any form"
        return f"{label}: {how}"
    sub = [str(w).lower() for w in sig.get("sub") or []] if sig.get("kind") == "command" else []
    if "another subcommand" in label and sub:
        low = [w.lower() for w in words]
        at = next((i for i, w in enumerate(sub) if w not in low), 0)
        where = "its first word" if at == 0 else "a later word"
        if any(w != sub[at] and (sub[at].startswith(w) or w.startswith(sub[at])) for w in low if w[:1].isalpha()):
            how = "the call has a prefix or extension of it"
        elif sub[at] in low:
            how = "the word is elsewhere in the call"
        else:
            how = "the word is not in the call"
        return f"{label}: {where}, {how}"
    program = str(sig.get("program") or "")
    if "another program" in label and program:
        return f"{label}: {'its name is in the call' if program in text else 'its name is not in the call'}"
    return label


def _tool_call(agent: str, action: Any, root: Path) -> tuple[str, dict[str, Any]]:
    _event, payload = pre_tool_payload(agent, action, root, "classes", 0)
    return str(payload.get("tool_name") or ""), dict(payload.get("tool_input") or {})


def classify(
    result: h.ModeResult, projects: Path = Path("/tmp/judgement-classes"), examples: dict[str, list[str]] | None = None
) -> dict[str, Counter[str]]:
    """Counts of wrong holds and misses by class for one mode's run; ``examples`` (for a split
    that may be read) collects each miss's call and signature under its class."""
    from twiceshy.hooks import match  # the measured code's matcher (``--code`` lays it out first)

    rows = {row["id"]: row for rows in result.lessons_of.values() for row in rows}
    incident_of = {row["id"]: inc for inc, rows_ in result.lessons_of.items() for row in rows_}
    probes = [(inc, probe) for inc in result.incidents for probe in inc.probes()]
    incident_outs = [o for o in result.outcomes if o.incident is not None]
    wrong: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    by_id = {inc.id: inc for inc in result.incidents}
    fix_guard: Counter[str] = Counter()
    # Wrong holds by another incident's lesson: what that lesson's signature names, and how many
    # wrong holds each such lesson made (a few greedy lessons, or many lessons once each).
    foreign: Counter[str] = Counter()
    foreign_by_lesson: Counter[str] = Counter()
    probe_of = {id(o): (inc, probe) for (inc, probe), o in zip(probes, incident_outs)}
    for o in result.outcomes:
        held = o.answer in HOLDING
        if held and (not o.must_warn or not o.own):
            for exp_id, owner in zip(o.shown, o.owners):
                if o.incident is not None and o.incident in owner.split(","):
                    whose = "own lesson"
                elif owner in ("noise", "?"):
                    whose = owner
                else:
                    whose = "another incident's lesson"
                src = by_id.get(incident_of.get(exp_id, ""))
                src_shape = src.shape if src else "-"
                wrong[
                    f"{o.kind:<8} | {whose:<25} | from {src_shape:<9} | {signature_shape(rows.get(exp_id, {}).get('signature'))}"
                ] += 1
                if whose == "another incident's lesson":
                    sig = rows.get(exp_id, {}).get("signature") or {}
                    foreign[_items_shape(sig)] += 1
                    foreign_by_lesson[exp_id] += 1
                    if _is_a_stored_fix(o.action, rows, exp_id, match):
                        foreign["(of these: the call is, part for part, another lesson's stored fix)"] += 1
                if whose == "own lesson" and o.kind == "fix":
                    fix_guard[_why_the_guard_let_it(rows.get(exp_id, {}), probe_of.get(id(o)))] += 1
    # Holds by the call's own incident's lesson, by probe kind and by how much of the lesson's
    # mistake (beyond its program and subcommand) the call shares: does overlap tell a repeat
    # in other words from a related call that is fine?
    overlap: Counter[str] = Counter()
    # Every hold, right or wrong, by the holding lesson's key: which kinds of key earn a hold?
    by_key: Counter[str] = Counter()
    for o in result.outcomes:
        if o.answer not in HOLDING:
            continue
        for exp_id, owner in zip(o.shown, o.owners):
            own = o.incident is not None and o.incident in owner.split(",")
            right = "right" if (o.must_warn and own) else "WRONG"
            sig = rows.get(exp_id, {}).get("signature")
            shape = (
                _items_shape(sig)
                if isinstance(sig, dict) and sig.get("kind") in ("command", "any")
                else signature_shape(sig)
            )
            by_key[f"{shape} | {right}"] += 1
            if isinstance(sig, dict) and sig.get("kind") == "command" and not sig.get("present"):
                whose = "own" if own else "foreign"
                depth = len(sig.get("sub") or [])
                by_key[
                    f"  (no present items) sub words {depth} | {'scope' if sig.get('scope') else 'no scope'} | {o.kind} {whose} | {right}"
                ] += 1
    for o in incident_outs:
        if o.answer not in HOLDING or o.incident is None or o.action.startswith(("Edit ", "Write ", "Read ")):
            continue
        for exp_id, owner in zip(o.shown, o.owners):
            if o.incident not in owner.split(","):
                continue
            row = rows.get(exp_id, {})
            sig = row.get("signature") or {}
            mistake = row.get("mistake_command") or row.get("trigger") or ""
            if not isinstance(sig, dict) or sig.get("kind") != "command" or not mistake:
                continue
            key = {str(w).lower() for w in sig.get("sub") or []}
            mine = {p for p in match.call_parts(mistake) if p.lower() not in key}
            theirs = {p for p in match.call_parts(o.action) if p.lower() not in key}
            shared = len(mine & theirs)
            extra = (
                "no own parts"
                if not theirs
                else ("shares none" if not shared else f"shares {min(shared, 3)}{'+' if shared >= 3 else ''}")
            )
            right = "right" if o.must_warn else "WRONG"
            overlap[f"{right:<5} | {o.kind:<7} | {extra}"] += 1
    for (inc, probe), o in zip(probes, incident_outs):
        if not o.must_warn or (o.answer in HOLDING and o.own):
            continue
        own = result.lessons_of.get(inc.id) or []
        if not own:
            missed[f"{o.kind:<7} | no lesson"] += 1
            continue
        signed = [row for row in own if row.get("signature")]
        if not signed:
            missed[f"{o.kind:<7} | no signature"] += 1
            continue
        tool, tool_input = _tool_call(inc.agent, probe.action, projects / inc.project)
        verdicts = [match.check(row["signature"], tool, tool_input) for row in signed]
        if any(ok for ok, _why in verdicts):
            missed[f"{o.kind:<7} | signature matched, not held"] += 1
        else:
            sig = signed[0]["signature"]
            if sig.get("kind") == "any":  # the variant nearest to matching: the first that names the program
                sig = next((s for s in sig.get("of") or [] if isinstance(s, dict)), sig)
            key = f"{o.kind:<7} | {_why_missed(sig, verdicts[0][1], tool_input)}"
            missed[key] += 1
            if examples is not None:
                examples.setdefault(key, []).append(f"{o.action[:100]}\n        {json.dumps(sig)[:260]}")
    spread: Counter[str] = Counter(
        f"lessons that made {n} such hold{'s' if n > 1 else ''}" for n in foreign_by_lesson.values()
    )
    greedy: Counter[str] = Counter(
        _derivation(rows.get(exp_id, {}), by_id.get(incident_of.get(exp_id, "")), match)
        for exp_id, n in foreign_by_lesson.items()
        if n >= 2
    )
    return {
        "wrong holds": wrong,
        "fix held by its own lesson, why the fix guard let it": fix_guard,
        "held by another incident's lesson, what that lesson names": foreign,
        "another incident's lessons, by how many wrong holds each made": spread,
        "lessons that made two or more such holds, how they were derived": greedy,
        "shell holds by the call's own lesson, by what of the mistake the call shares": overlap,
        "every hold by the holding lesson's key": by_key,
        "misses": missed,
    }


def _is_a_stored_fix(action: str, rows: dict[str, dict[str, Any]], holder: str, match: Any) -> bool:
    """The held call has the same parts as the stored fix of a lesson other than ``holder``."""
    if action.startswith(("Edit ", "Write ", "Read ")):
        return False
    parts = match.call_parts(action)
    return bool(parts) and any(
        row.get("fix_command") and exp_id != holder and match.call_parts(row["fix_command"]) == parts
        for exp_id, row in rows.items()
    )


def _classes(parts: Any) -> str:
    """The classes of some parts or items (``a flag, a path operand``), never the parts."""
    return ", ".join(sorted({_item_class(str(p)) for p in parts})) or "-"


def _call_classes(command: str, match: Any) -> str:
    """The classes of a call's parts beyond its program, never the parts."""
    return _classes(match.call_parts(command) if command else set())


def _derivation(row: dict[str, Any], inc: Any, match: Any) -> str:
    """How a lesson came to be keyed as it is, as classes: its incident's shape, the kinds of
    part its mistake and its fix have, whether the fix runs the same program, and its key."""
    mistake, fix = row.get("mistake_command") or "", row.get("fix_command") or ""
    sig = row.get("signature") or {}
    if fix and mistake:
        mp, fp = (match.call_parts(c) for c in (mistake, fix))
        same = str(sig.get("program") or "") in fix.split()[:3] if isinstance(sig, dict) else False
        relation = f"fix {'same' if same else 'another'} program, adds [{_classes(fp - mp)}]"
    else:
        relation = "no fix stored"
    shape = inc.shape if inc is not None else "-"
    return f"{shape} | mistake [{_call_classes(mistake, match)}] | {relation} | {_items_shape(sig)}"


def _items_shape(sig: dict[str, Any]) -> str:
    """A command signature's items by kind (``sub: yes | present: a flag | absent: a pre: item``)."""
    if sig.get("kind") == "any":
        return "any[" + "; ".join(sorted({_items_shape(s) for s in sig.get("of") or [] if isinstance(s, dict)})) + "]"
    present = _classes(str(i).split("|")[0] for i in sig.get("present") or [])
    absent = _classes(str(i).split("|")[0] for i in sig.get("absent") or [])
    return f"sub: {'yes' if sig.get('sub') else 'no '} | present: {present} | absent: {absent}"


def _why_the_guard_let_it(row: dict[str, Any], pair: tuple[Any, Any] | None) -> str:
    """Why a corrected call passed the engine's fix guard (:func:`twiceshy.recall.ranking.does_what_the_fix_adds`):
    no fix stored, nothing added, or which kind of added part the corrected call lacks."""
    from twiceshy.hooks.match import call_parts

    if pair is None:
        return "?"
    inc, probe = pair
    if not isinstance(probe.action, str):
        return "an edit (the guard is for commands)"
    mistake, fix = row.get("mistake_command") or row.get("trigger") or "", row.get("fix_command")
    if not fix:
        return "no fix command stored"
    fixed, wrong = call_parts(fix), call_parts(mistake)
    added, dropped = fixed - wrong, wrong - fixed
    parts = call_parts(probe.action)
    if not added:
        return "the fix added nothing" + (" (it only dropped)" if dropped else "")
    if dropped & parts:
        return "the call keeps a part the fix dropped: " + ", ".join(sorted({_item_class(d) for d in dropped & parts}))
    lacking = added - parts
    if lacking:
        return "the call lacks a part the fix added: " + ", ".join(sorted({_item_class(a) for a in lacking}))
    return "the call has all the fix added (held anyway)"


def table(result: h.ModeResult, label: str, readable: bool = False) -> str:
    """The counts; with ``readable`` (a split that may be read, asked with ``-v``) each miss too."""
    lines = []
    examples: dict[str, list[str]] | None = {} if readable else None
    for title, counts in classify(result, examples=examples).items():
        lines.append(f"-- {title} by class [{label}, {result.mode}]: {sum(counts.values())}")
        for key, n in counts.most_common():
            lines.append(f"   {n:>3}  {key}")
            for example in (examples or {}).get(key, []) if title == "misses" else []:
                lines.append(f"        {example}")
    return "\n".join(lines)
