"""Structured lessons: derive the contrastive signature that decides a match.

A lesson's ``structured`` dict (:attr:`twiceshy.base.types.Experience.structured`)::

    {"mistake": {"tool": "Bash", "command": "git push --force origin x",
                 "program": "git", "sub": ["push"], "flags": ["--force"]},
     "fix": {"tool": "Bash", "command": "git push --force-with-lease origin x"},
     "why": "user: never force-push shared branches",   # evidence, redacted; never an instruction
     "scope": {"tool": "Bash", "program": "git", "language": "git", "glob": ""},
     "evidence": {"session": "...", "turn": 12, "kind": "correction"},
     "signature": {...}}                                 # see twiceshy.hooks.match

This module turns a mistake (and, when there is one, its fix) into that
signature: the tokens that distinguished the mistake from the fix, in the
program's grammar (program, subcommand, flags, values, value classes), or
for code the file type and the pattern the fix removed. Every signature is
checked against its own evidence before it is kept: it must match the
mistake and must not match the fix (else there is no signature and recall
treats the lesson conservatively).

Nothing here is corpus-specific: it is program grammar (flags, runners,
subcommands) and token classes (file extension, path depth, empty value).
"""

from __future__ import annotations

import difflib
import itertools
import re
import shlex
from typing import Any

from twiceshy.hooks.match import (
    DIAGNOSTIC_PROGRAMS,
    SETUP_PROGRAMS,
    SIG_VERSION,
    Call,
    check,
    edit_parts,
    is_look,
    norm_value,
    parse_command,
    program_name,
    target_words,
)
from twiceshy.lesson import code_advice, code_shape
from twiceshy.lesson.advice import fill_placeholders, is_placeholder, named_as_mistake
from twiceshy.lesson.code_tokens import CODE_TOKEN_RE as _CODE_TOKEN_RE
from twiceshy.lesson.code_tokens import IDENT_RE as _IDENT_RE
from twiceshy.lesson.code_tokens import KEYWORDS, code_tokens
from twiceshy.lesson.code_tokens import compiles as _compiles
from twiceshy.lesson.code_tokens import tok_regex as _tok_regex

# Long flag <-> short flag, per program family ("git push -f" is "--force").
FLAG_ALIASES: dict[str, dict[str, str]] = {
    # Every program: the letters nearly every CLI gives these switches (a program's own table wins).
    "*": {"--verbose": "-v", "--quiet": "-q", "--force": "-f", "--recursive": "-r", "--yes": "-y"},
    "git": {
        "--force": "-f",
        "--interactive": "-i",
        "--message": "-m",
        "--all": "-a",
        "--delete": "-d",
        "--rebase": "-r",
        "--set-upstream": "-u",
    },
    "docker": {"--volumes": "-v", "--file": "-f", "--tag": "-t", "--detach": "-d", "--interactive": "-i"},
    "podman": {"--volumes": "-v", "--file": "-f", "--tag": "-t", "--detach": "-d"},
    "kubectl": {"--namespace": "-n", "--filename": "-f", "--kustomize": "-k", "--container": "-c", "--selector": "-l"},
    "helm": {"--namespace": "-n", "--values": "-f"},
    "npm": {"--save-dev": "-D", "--global": "-g", "--force": "-f"},
    "pnpm": {"--save-dev": "-D", "--global": "-g", "--filter": "-F"},
    "yarn": {"--dev": "-D"},
    "pip": {"--requirement": "-r", "--upgrade": "-U", "--editable": "-e"},
    "rm": {"--force": "-f", "--recursive": "-r"},
    "cp": {"--recursive": "-r", "--force": "-f"},
    "cargo": {"--package": "-p", "--features": "-F", "--release": "-r"},
    "pytest": {"--numprocesses": "-n", "--exitfirst": "-x"},
    "terraform": {},
    "psql": {"--host": "-h", "--username": "-U", "--dbname": "-d", "--command": "-c", "--port": "-p", "--file": "-f"},
}
# Flags that tune output, verbosity or build mode: never what made a call wrong.
INCIDENTAL_FLAGS = {
    "-q", "-v", "-vv", "-vvv", "--quiet", "--verbose", "--release", "--debug", "-y", "--yes", "--color",
    "--no-color", "--progress", "--json", "-o", "--output", "--tail", "--since", "-w", "--watch",
    "--silent", "--no-pager", "--tb",
}  # fmt: skip
# Commands that prepare the toolchain for what follows on the line.
ACTIVATION_PROGRAMS = {
    "source", ".", "nvm", "fnm", "volta", "asdf", "pyenv", "rbenv", "conda", "mamba", "micromamba", "direnv",
    "export", "ulimit", "corepack", "rustup", "sdk", "jenv", "goenv", "nodenv", "mise", "rtx", "module",
}  # fmt: skip
# The steps that pick the toolchain every call of a program runs on ("nvm use", "mise exec"),
# unlike a "source .envrc" or "export X=…" some calls need and others do not.
TOOLCHAIN_PROGRAMS = ACTIVATION_PROGRAMS - {"source", ".", "export", "ulimit", "direnv"}
# Options that select where/as whom/with which config a program runs, for
# every subcommand: a lesson that one is missing holds for all of them.
GLOBAL_FLAGS = {
    "--profile", "--region", "--context", "--kube-context", "--kubeconfig", "--project", "--account",
    "--subscription", "--config", "--env", "--environment", "--host", "--endpoint-url", "--server",
    "--cluster", "--org", "--tenant", "--workspace", "--config-file", "--settings",
}  # fmt: skip
# Of those, the ones that mean the same to every subcommand of every program that has them.
EVERYWHERE_FLAGS = {
    "--profile", "--region", "--context", "--kube-context", "--kubeconfig", "--account", "--subscription",
    "--endpoint-url", "--org", "--tenant",
}  # fmt: skip
# Programs a "command not found" turns into the whole mistake (the program itself).
_NOT_FOUND_RE = re.compile(
    r"(?i)(command not found|not recognized as|no such file or directory|is not installed|not found in path)"
)
_FLAG_IN_TEXT_RE = re.compile(r"(?<![\w/.-])(--?[A-Za-z][\w-]*)")
_BACKTICK_RE = re.compile(r"`([^`\n]{2,200})`")


def _aliases(program: str) -> dict[str, str]:
    own = FLAG_ALIASES.get(program, {})
    # A common letter the program gives another flag is not that switch ("kubectl -f" is --filename).
    table = {long: short for long, short in FLAG_ALIASES["*"].items() if short not in own.values()}
    table.update(own)
    both = dict(table)
    both.update({short: long for long, short in table.items()})
    return both


def flag_item(flag: str, program: str) -> str:
    """A signature item for ``flag`` that also accepts its alias (``--force|-f``)."""
    alias = _aliases(program).get(flag)
    return f"{flag}|{alias}" if alias else flag


def _is_flag(tok: str) -> bool:
    return tok.startswith("-") and "=" not in tok and tok not in ("-", "--")


def _is_long(tok: str) -> bool:
    """A long flag (``--features``, ``-var-file``): specific across subcommands."""
    first = tok.split("|", 1)[0]
    return _is_flag(first) and len(first.lstrip("-")) >= 4


def _ext(value: str) -> str:
    base = value.rsplit("/", 1)[-1]
    if "." in base[1:] and "://" not in value:
        ext = base.rsplit(".", 1)[-1]
        if ext.isalnum() and not ext.isdigit() and len(ext) <= 8:
            return ext.lower()
    return ""


def pick_call(command: str) -> Call | None:
    """The simple command of a line that does the work (setup steps skipped):
    ``cd web && npm install`` -> ``npm install``."""
    calls = parse_command(command or "")
    work = [c for c in calls if c.levels and c.outer not in SETUP_PROGRAMS]
    return work[-1] if work else (calls[-1] if calls else None)


def _pick_like(command: str, like: Call) -> Call | None:
    """The simple command of ``command`` that best answers ``like``: the same
    program and subcommand, else the same program, else the working one."""
    calls = [c for c in parse_command(command or "") if c.levels and c.outer not in SETUP_PROGRAMS]
    same = [c for c in calls if like.program in [p for p, _ in c.levels]]
    exact = [c for c in same if c.sub(like.program)[:1] == like.sub(like.program)[:1]]
    for group in (exact, same):
        if group:
            return group[0]
    return pick_call(command)


def work_text(command: str) -> str:
    """The simple command of a line that does the work, as one string."""
    call = pick_call(command)
    return " ".join(call.env + call.argv) if call is not None else (command or "")


def is_look_program(command: str) -> bool:
    """Every command of the line is a pure look (ls, cat, grep, --help …):
    such a call failing is not a mistake worth a lesson."""
    calls = parse_command(command or "")
    return bool(calls) and all(c.help or c.outer in DIAGNOSTIC_PROGRAMS for c in calls)


def is_diagnostic(command: str) -> bool:
    """A call that only looks (ls, cat, git status, --help, grep …): between a
    failure and its fix it is not the fix."""
    calls = parse_command(command or "")
    return bool(calls) and all(is_look(c) for c in calls)


def _sub_words(call: Call, program: str, limit: int = 2) -> list[str]:
    return call.sub(program)[:limit]


def _common_program(m: Call, f: Call) -> str:
    """The innermost program both calls run (``uv run pytest`` / ``python -m pytest`` -> pytest)."""
    fprogs = [p for p, _ in f.levels]
    for prog, _ in reversed(m.levels):
        if prog in fprogs:
            return prog
    return ""


def _value_class_item(flag: str, mval: str, fval: str, program: str = "") -> str | None:
    """A pattern for the mistake's value of ``flag`` (under either of its names: ``-F`` is
    ``--filter``) that the fix's value fails."""
    names = flag_item(flag, program).split("|") if flag else []
    if mval == "" and fval != "":
        return "|".join(f"{n}=" for n in names) if flag else None
    me, fe = _ext(mval), _ext(fval)
    if me and me != fe:
        return "|".join(f"{n}=*.{me}" for n in names) if flag else f"*.{me}"
    if flag and "/" not in mval and "/" in fval and mval:
        return f"re:^(?:{'|'.join(re.escape(n) for n in names)})=[^/]+$"
    return None


def _operands(call: Call, program: str) -> list[str]:
    words = call.words_of(program) or []
    sub = call.sub(program)
    out = [norm_value(w) for w in words[len(sub) :] if norm_value(w)]
    if not out and not sub:
        # "rm -rf data/": the operand was read as the bundled flag's value.
        for flag, values in call.values.items():
            if not flag.startswith("--"):
                out += [v for v in values if v and "=" not in v]
    return out


def derive_command(
    mistake: str,
    fix: str | None = None,
    why: str = "",
    named_drops_only: bool = False,
    named_parts: bool = True,
    output: str = "",
) -> dict[str, Any] | None:
    """The signature of a shell mistake, contrasted with its fix when known.

    * same program: the delta — flags/env/runner the mistake had and the fix
      dropped are required (``present``), flags the fix added are required
      missing (``absent``; only when nothing was dropped), a changed value
      becomes a value class (``*.go``, "no directory", empty);
    * another program (npm -> pnpm, ``docker-compose`` -> ``docker compose``):
      the mistake's program (and subcommand, unless the program itself was
      not found);
    * no fix: the program, subcommand and the mistake's flags.

    ``output`` is the failure's whole output, when there was one: evidence of which
    option value the failure was about (:func:`_with_named_values`: its ``scope``).

    Returns ``None`` when nothing distinguishes the two.
    """
    m = pick_call(mistake)
    if m is None or not m.levels or m.help:
        return None
    f = _pick_like(fix, m) if fix else None
    if f is not None and (not f.levels or f.help):
        f = None
    sig: dict[str, Any] | None
    if f is None:
        sig = _alone(m, why, named_parts)
    else:
        common = _common_program(m, f)
        sig = _delta(m, f, common, why if named_drops_only else None) if common else _cross(m, f, why)
        if sig is not None and common:
            sig = _with_named_values(sig, m, f, f"{why}\n{output}", (mistake, fix or ""))
    if sig is None:
        return None
    sig = _known_aliases({"v": SIG_VERSION, "kind": "command", **sig})
    sig = _at_the_same_host(sig, m, f)
    sig = _with_inner_command(sig, m)
    if is_look(m) or sig.get("looks"):
        sig["looks"] = True  # the mistake was itself a read-only call (kubectl logs …)
    if fix:
        sig["fix"] = " ".join(fix.split())[:200]
    # Checked against its own evidence: it must catch the mistake, never the fix.
    if not check(sig, "Bash", {"command": mistake})[0]:
        return None
    if fix and check(sig, "Bash", {"command": fix})[0]:
        return None
    return sig


def _with_named_values(sig: dict[str, Any], m: Call, f: Call, why: str, calls: tuple[str, ...]) -> dict[str, Any]:
    """An option value the mistake and its fix share, and that the failure or the lesson names
    in its own words, is what the lesson is about: "cargo test -p quill-sync" failing on
    quill-sync's missing feature says nothing about "cargo test -p quill-core". Only for a
    lesson that is the absence of what the fix added; a value the text never names (a page
    size, a timeout) stays a detail. The value becomes the lesson's ``scope``: a call giving
    another value passes, one not giving the option at all ("cargo test", the whole workspace)
    is still the mistake."""
    if sig.get("present") or sig.get("scope") or not sig.get("absent") or not why:
        return sig
    prose = why
    for call in calls:
        if call:
            prose = prose.replace(call, " ")
    prose = _BACKTICK_RE.sub(" ", prose)  # a quoted call is not the text naming its value
    for named_call in prose_commands(prose):  # nor one written out in prose ("push a branch: git push -u origin x")
        prose = prose.replace(named_call, " ")
    prog = str(sig.get("program") or "")
    named: list[str] = []
    for flag, mvals in m.values.items():
        if flag in INCIDENTAL_FLAGS or not flag.startswith("-") or flag == "--":
            continue
        mv = mvals[0] if mvals else ""
        if not mv or mv not in (f.values.get(flag) or []) or len(mv) < 3 or mv.isdigit():
            continue
        if not re.search(rf"(?<![\w.-]){re.escape(mv)}(?![\w-])", prose):
            continue
        named.append("|".join(f"{alt}={mv}" for alt in flag_item(flag, prog).split("|")))
    if not named:
        named = _named_operands(m, f, prog, len(sig.get("sub") or []), prose)
    if named:
        sig = {**sig, "scope": named[:2]}
    return sig


def _named_operands(m: Call, f: Call, prog: str, depth: int, prose: str) -> list[str]:
    """A target the mistake and its fix share as a bare word (an environment, a package, a
    resource: ``./deploy.sh staging``, ``kubectl delete pod web-1``) that the failure or the
    lesson names in its own words: the lesson is about that target (an ``@=`` scope item). A
    path is never one: the same mistake in another directory is still the mistake."""
    f_words = {w.lower() for w in (f.words_of(prog) or [])}
    # After the lesson's own subcommand: a script's first word is often its target.
    for word in target_words(m, prog, depth):
        if word.lower() not in f_words:
            continue
        if (
            len(word) < 3
            or word.isdigit()
            or not re.fullmatch(r"[A-Za-z][\w.:@-]*", word)
            or re.search(r"\.\w{1,5}$", word)
        ):
            continue
        if re.search(rf"(?<![\w./-]){re.escape(word)}(?![\w/-])", prose):
            return [f"@={word.lower()}"]
    return []


# Programs whose operand names the machine they act on: a lesson about one host is not
# about another ("ssh -p 2222" for one server, "--delete" into one server's web root).
REMOTE_PROGRAMS = frozenset({"ssh", "scp", "rsync", "sftp", "mosh", "docker", "podman", "skopeo", "crane"})


def _hosts(call: Call) -> set[str]:
    return {t for t in call.tokens if t.startswith("at:")}


def _at_the_same_host(sig: dict[str, Any], m: Call, f: Call | None) -> dict[str, Any]:
    """A lesson about a call to a remote host (or registry) holds calls to that host only,
    when the fix went to the same one (a fix that changed the host has that change in it)."""
    if m.program not in REMOTE_PROGRAMS or any(str(p).startswith("at:") for p in sig.get("present") or []):
        return sig
    hosts = _hosts(m)
    if f is not None and f.program == m.program:
        hosts &= _hosts(f)
    if len(hosts) != 1:
        return sig
    return {**sig, "present": [*(sig.get("present") or []), *hosts]}


# Subcommands that run a command inside a container: "docker compose exec app php artisan test".
_CONTAINER_RUNS = {("compose", "exec"), ("compose", "run"), ("exec",), ("run",), ("container", "exec")}


def _inner_words(call: Call) -> list[str]:
    """The command a container runner runs (``php artisan test`` of ``docker compose exec app
    php artisan test``): up to three words after the service, container or image."""
    if call.program not in ("docker", "podman"):
        return []
    words = call.words_of(call.program) or []
    sub = call.sub(call.program, depth=2)
    depth = 2 if tuple(sub[:2]) in _CONTAINER_RUNS else 1 if tuple(sub[:1]) in _CONTAINER_RUNS else 0
    if not depth:
        return []
    inner = [norm_value(w) for w in words[depth + 1 :]]
    return [w for w in inner if w and not w.startswith("-")][:3]


def _with_inner_command(sig: dict[str, Any], m: Call) -> dict[str, Any]:
    """A lesson about a command run in a container is about that command, not every command
    the container runs ("… app php artisan test" without -e DB_DATABASE, not "… app pint")."""
    inner = _inner_words(m)
    present = [str(p) for p in sig.get("present") or []]
    if not inner or sig.get("program") != m.program or any(w in present for w in inner):
        return sig
    return {**sig, "present": [*present, *inner]}


def _known_aliases(sig: dict[str, Any]) -> dict[str, Any]:
    """Each plain flag of ``present``/``absent`` also as its other name (``-f|--file``): the
    fix written with the long form is the fix too."""
    program = str(sig.get("program") or "")
    for key in ("present", "absent"):
        items = sig.get(key)
        if items:
            sig[key] = [
                flag_item(i, program) if isinstance(i, str) and _is_flag(i) and "|" not in i else i for i in items
            ]
    return sig


def _alone(m: Call, why: str = "", named_parts: bool = True) -> dict[str, Any]:
    """No usable fix: program + subcommand + what the reason names (flags,
    operands); if it names nothing, the mistake's flags, and its operands
    when the program has no subcommand."""
    prog = m.program
    sub = _sub_words(m, prog)
    flags = [t for t in m.flags if t not in ("--", "-m")]
    low = (why or "").lower()

    def named(word: str) -> bool:
        return bool(low) and re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w])", low) is not None

    named_flags = [t for t in _collapse(flags) if named(t)]
    ops = [o for o in _operands(m, prog) if len(o) >= 2]
    named_ops = [o for o in ops if named(o) or named(o.rstrip("/"))]
    # "don't delete node_modules …; just build and dist": the operands the reason forbids.
    forbidden = [o for o in named_ops if _named_negated(o, low)]
    named_ops = forbidden or named_ops
    present = [flag_item(t, prog) for t in named_flags] + named_ops[:2]
    if not present and low and named_parts:
        # A word the reason names inside a value ("prod" in -var-file=envs/prod.tfvars).
        parts = []
        for values in m.values.values():
            for v in values:
                parts += [p for p in re.split(r"[/.=:_,-]+", v.lower()) if len(p) >= 3 and p.isalpha()]
        for word in dict.fromkeys(parts):
            if named(word) and word not in ("the", "and", "for", "not", "with", "from", "env", "envs"):
                present.append(f"*{word}*")
                break
    if not present:
        present = [flag_item(t, prog) for t in _collapse(flags)]
        if not sub:
            present += ops[:2]
    out: dict[str, Any] = {"program": prog}
    if sub:
        out["sub"] = sub
    if present:
        out["present"] = present
    return out


def _named_negated(word: str, low: str) -> bool:
    """Is ``word`` named in ``low`` (lower-case text) right after a negation ("don't delete x")?"""
    for found in re.finditer(rf"(?<![\w-]){re.escape(word.lower().rstrip('/'))}(?![\w])", low):
        if _negated(low[: found.start()]):
            return True
    return False


def _collapse(flags: list[str]) -> list[str]:
    """``-rf`` with ``-r``, ``-f``: keep the single letters, drop the bundle."""
    singles = {f for f in flags if len(f) == 2}
    out = []
    for flag in flags:
        body = flag[1:]
        if not flag.startswith("--") and len(body) > 1 and body.isalpha() and all(f"-{c}" in singles for c in body):
            continue
        out.append(flag)
    return out


def _program_missing(why: str, m: Call) -> bool:
    """The error says the program itself is missing ("bash: cross: command not found",
    "./gradlew: No such file or directory"), not a file or resource it was given
    ("aws logs tail /ecs/x" -> "no such file or directory" about the log group)."""
    found = _NOT_FOUND_RE.search(why or "")
    if found is None:
        return False
    text = (why or "").lower()
    near = text[max(0, found.start() - 120) : found.end() + 60]  # "bash: x: command not found", "… not found: x"
    if "command not found" in found.group(0).lower() and not text[: found.start()].strip():
        return True  # the bare phrase: nothing else it could be about
    names = {m.outer.lower(), (m.argv[0] if m.argv else "").lower(), m.program.lower()} - {""}
    return any(re.search(rf"(?<![\w/.-]){re.escape(n)}(?![\w-])", near) for n in names)


def _cross(m: Call, f: Call, why: str) -> dict[str, Any]:
    """The fix runs another program: the mistake is the program (and its subcommand)."""
    prog = m.outer
    from twiceshy.hooks.match import _RUNNERS

    out: dict[str, Any] = {"program": prog}
    if _program_missing(why, m):
        out["looks"] = True
        return out  # the program itself is missing: every call of it fails
    if prog in _RUNNERS and not _RUNNERS[prog]:
        # npx/bunx/uvx: the runner is the mistake, for what it ran ("npx jest …" -> "npm test --
        # …" says nothing about "npx prettier").
        if m.program != prog and m.program not in {p for p, _ in f.levels}:
            out["present"] = ["prog:" + m.program]  # the fix dropped what npx ran, not only npx
        return out
    wrapper = (f.argv[0] if f.argv else "").rsplit("/", 1)[-1]
    if wrapper in (prog + "w", prog + "w.bat", prog):
        return out  # "gradle build" -> "./gradlew build": the bare program is the mistake, whatever it runs
    sub = _sub_words(m, prog)
    if sub:
        out["sub"] = sub
    context = _shared_context(m, f)
    if context:
        out["present"] = context
    return out


def _shared_context(m: Call, f: Call) -> list[str]:
    """What the mistake and a fix that runs another program have in common, naming the case
    the switch was for: a flag with the same value ("cargo build --target aarch64-…" ->
    "cross build --target aarch64-…"), the file type of the operand ("node x.ts" -> "npx tsx
    x.ts"). Without it, every call of the program would look like the mistake."""
    out: list[str] = []
    for flag in _collapse(m.flags):
        if flag in INCIDENTAL_FLAGS or flag == "--" or not flag.startswith("--"):
            continue
        mv, fv = m.values.get(flag) or [], f.values.get(flag) or []
        if mv and fv and mv[0] == fv[0] and len(mv[0]) >= 3:
            out.append(f"{flag}={mv[0]}")
    if _sub_words(m, m.program):
        return out[:2]  # "pip install -r requirements.txt" -> "uv pip install …": the file is incidental
    f_types = {_ext(x) for x in _operands(f, f.program)}
    for op in _operands(m, m.program):
        ext = _ext(op)
        if ext and ext in f_types and ext not in _CONFIG_EXTS:
            out.append(f"*.{ext}")
            break
    return out[:2]


def _delta(m: Call, f: Call, prog: str, named_in: str | None = None) -> dict[str, Any] | None:
    """The contrast of a mistake with its fix, both running ``prog``. With
    ``named_in`` (a fix quoted in advice prose, which abbreviates), a flag the
    fix leaves out counts only when that text names it."""
    removed = m.tokens - f.tokens
    added = f.tokens - m.tokens
    present: list[str] = []
    absent: list[str] = []
    msub, fsub = m.sub(prog), f.sub(prog)
    if msub and msub == fsub:
        # They part after a shared word ("dotnet ef database update" -> "dotnet ef migrations
        # script"): the word where they part is the subcommand the fix switched.
        deep_m, deep_f, k = m.sub(prog, depth=len(msub) + 1), f.sub(prog, depth=len(msub) + 1), len(msub)
        m_words, f_words = {w.lower() for w in m.words_of(prog) or []}, {w.lower() for w in f.words_of(prog) or []}
        # Not a word the other call has elsewhere ("git pull --rebase origin main": "origin" moved
        # behind a flag, the subcommand did not change).
        if len(deep_m) > k and len(deep_f) > k and deep_m[k] not in f_words and deep_f[k] not in m_words:
            msub, fsub = deep_m, deep_f
    # A step before or after the call ("vpn up && …", "… && make install") is the fix when the
    # call itself stayed as it was; when the call changed too ("rubocop -A" -> "git checkout … &&
    # rubocop -a"), the change is the fix and the step is cleanup or a look at the result.
    changed = any(not t.startswith(("pre:", "post:")) for t in removed | added)
    setup = {t for t in added if t.startswith(("via:", "env:", "run:", "pre:", "post:", "exe:")) and "=" not in t}
    setup = {t for t in setup if _step_matters(t, m, changed)}
    if m.outer != f.outer:
        # "bundle exec fastlane beta" -> "fastlane build": the runner went, the binary did not change.
        setup = {t for t in setup if not t.startswith("exe:")}
    if msub and fsub and msub != fsub and not setup:
        # Another subcommand of the same program was the fix ("uv pip install" -> "uv add").
        out: dict[str, Any] = {"program": prog, "sub": msub}
        low = (named_in or "").lower()
        flags = [
            flag_item(t, prog)
            for t in _collapse(m.flags)
            if t not in INCIDENTAL_FLAGS
            and t != "--"
            and t not in GLOBAL_FLAGS
            # A switch counts when the advice names it ("never terraform apply -auto-approve; run
            # terraform plan -out=tfplan"): it, not the subcommand alone, was the mistake.
            and (m.values.get(t) or len(t) > 2 and re.search(rf"(?<![\w-]){re.escape(t.lower())}(?![\w-])", low))
        ]
        # The fix did another thing to other targets ("dotnet add … package Newtonsoft.Json" ->
        # "dotnet build X.sln"): the lesson is about the mistake's target, not every call of
        # the subcommand. A fix on the same target ("uv pip install httpx" -> "uv add httpx")
        # says the subcommand itself was wrong.
        m_ops, f_ops = _operands(m, prog), _operands(f, prog)
        if m_ops and f_ops and not set(m_ops) & set(f_ops) and not flags and "/" not in m_ops[-1]:
            flags = [m_ops[-1]]  # a named target (a package, a resource), not a file it happened to touch
        if flags:
            out["present"] = flags[:3]
        return out
    # Runner / environment / executable changes.
    removed = {t for t in removed if _step_matters(t, m, changed)}
    added = {t for t in added if _step_matters(t, m, changed)}
    for tok in sorted(removed):
        if tok.startswith(("via:", "env:", "run:", "pre:", "post:")) and "=" not in tok:
            present.append(tok)
    exe_changed = m.argv and f.argv and m.outer == f.outer and m.argv[0] != f.argv[0]
    if exe_changed and m.levels[0][0] == prog:
        mclass = "exe:@path" if "/" in m.argv[0] else "exe:@bare"
        fclass = "exe:@path" if "/" in f.argv[0] else "exe:@bare"
        if mclass != fclass:  # "pip" vs ".venv/bin/pip": any bare pip (pip3 too), any path
            present.append(mclass)
            absent.append(fclass)
        else:
            present.append("exe:" + m.argv[0])
            absent.append("exe:" + f.argv[0])
    env_or_runner_fix = any(t.startswith(("via:", "env:", "run:", "pre:", "post:")) and "=" not in t for t in added)
    for tok in sorted(added):
        if tok.startswith(("via:", "env:", "run:", "pre:", "post:")) and "=" not in tok:
            absent.append(tok)
    # An assignment operand the fix added ("make release VERSION=1.4.2").
    if not env_or_runner_fix:
        for tok in sorted(added):
            if tok.endswith("=") and _ASSIGN_NAME_RE.match(tok) and tok not in m.tokens:
                absent.append(tok)
    if exe_changed and m.levels[0][0] == prog:
        env_or_runner_fix = True
    # Flags the mistake had and the fix dropped.
    m_flags = [t for t in m.flags if t not in ("--",)]
    f_flags = set(f.flags)
    dropped = [
        t for t in _collapse(m_flags) if t not in f_flags and _canon(t, prog) not in {_canon(x, prog) for x in f_flags}
    ]
    if named_in is not None:
        low = named_in.lower()

        def named(flag: str) -> bool:
            return bool(re.search(rf"(?<![\w-]){re.escape(flag.lower())}(?![\w-])", low))

        # "-x" is named when the text names "-fdx", the mistake's bundle that carries it.
        bundles = [w for w in m_flags if re.fullmatch(r"-[A-Za-z]{2,}", w)]
        dropped = [
            t
            for t in dropped
            if named(t) or re.fullmatch(r"-[A-Za-z]", t) and any(t[1] in b[1:] and named(b) for b in bundles)
        ]
    if not env_or_runner_fix:
        present += [flag_item(t, prog) for t in dropped if t != "-m"]
    # Changed flag values: a value class the fix's value does not have.
    literal: list[str] = []
    for flag, mvals in m.values.items():
        fvals = f.values.get(flag)
        if not fvals or flag not in f_flags:
            continue
        mv, fv = mvals[0], fvals[0]
        if mv == fv:
            continue
        item = _value_class_item(flag, mv, fv, prog)
        if item:
            present.append(item)
        elif not present and mv and flag.startswith("-") and (flag.startswith("--") or len(flag) == 2):
            literal.append(f"{flag}={mv}")  # "--grace-period=0" -> "=30": the mistaken value itself
    if not present and not dropped:
        present += literal[:2]
    # Changed operands: a file-type class (main.go -> ./cmd/ingest).
    m_ops, f_ops = _operands(m, prog), _operands(f, prog)
    for mv in m_ops:
        if mv in f_ops:
            continue
        me = _ext(mv)
        if me and not any(_ext(x) == me for x in f_ops):
            item = f"*.{me}"
            if item not in present:
                present.append(item)
    # A version the fix moved off ("pytest-asyncio==0.21.1" -> "pytest-asyncio>=0.23"): that
    # pin, literally; the package at another version is what the fix did.
    f_pins = {norm_value(w): w for w in f.words_of(prog) or [] if _VERSION_PIN_RE.search(w)}
    for w in m.words_of(prog) or []:
        if _VERSION_PIN_RE.search(w) and f_pins.get(norm_value(w), w) != w and w not in present:
            present.append(w)
    # A name the fix put in its place ("git push origin x" -> "git push -u fork x"): the remote,
    # context or package named is the mistake, not only what the fix added around it.
    if len(m_ops) == len(f_ops) and msub == fsub:
        for mv, fv in zip(m_ops, f_ops):
            if mv != fv and _a_name(mv) and _a_name(fv) and mv not in present:
                present.append(mv)
                break
    added_flags = [
        t for t in f.flags if t not in set(m_flags) and _canon(t, prog) not in {_canon(x, prog) for x in m_flags}
    ]
    if not present:
        # Only the fix added something: the mistake is its absence.
        if not env_or_runner_fix:  # the runner/environment is the fix; its flags are incidental
            absent += [t for t in _collapse(added_flags) if t != "--" and t not in INCIDENTAL_FLAGS]
        # Flags both had are the context of the mistake ("deploy.sh --env
        # staging" without "--region"; "git rebase -i" without GIT_EDITOR),
        # except flags that only tune output or build mode.
        for flag in _collapse(m_flags):
            if flag in f_flags and flag not in INCIDENTAL_FLAGS and flag != "--" and m.values.get(flag):
                if flag.startswith("--") or not m.sub(prog):
                    present.append(flag_item(flag, prog))
        # A long switch both had says what the run covered ("cargo test --workspace" without
        # "--test-threads=1": not "cargo test -p one-crate"), unless what the fix added is needed by
        # every call of the program (a profile, a region, a runner). Advice prose must name it:
        # "always pass -i …" said of "ansible-playbook site.yml --check" is about every playbook run.
        if absent and all(_is_flag(a) and a not in GLOBAL_FLAGS for a in absent):
            for flag in _collapse(m_flags):
                if flag in f_flags and flag not in INCIDENTAL_FLAGS and not m.values.get(flag) and _is_long(flag):
                    if named_in is None or re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", named_in, re.I):
                        present.append(flag_item(flag, prog))
    if not present and not absent:
        # The fix named a file the mistake lacked ("terraform apply plan.out").
        for fv in f_ops:
            if fv not in m_ops and _ext(fv) and f"*.{_ext(fv)}" not in absent:
                absent.append(f"*.{_ext(fv)}")
    if not present and not absent:
        # Only values changed: the mistake's distinctive value, literally.
        for flag, mvals in m.values.items():
            fvals = f.values.get(flag, [])
            for mv in mvals:
                if mv and mv not in fvals and len(mv) >= 3:
                    present.append(f"{flag}={mv}")
                    break
        if not present:
            lit = [o for o in m_ops if o not in f_ops and len(o) >= 3]
            if lit and ("://" in lit[0] or not _ext(lit[0])):
                present.append(lit[0])
    if not present and not absent:
        return None
    out = {"program": prog}
    # A value-carrying part (``--features simd``, ``-f values.yaml``, a value
    # class, a runner or environment) means the same whatever the subcommand;
    # a bare switch (``--force``) means something else to each subcommand
    # ("kubectl delete --force" says nothing about "kubectl apply --force").
    switches = {flag_item(t, prog) for t in dropped}  # the fix dropped them: what the mistake did
    # A flag the fix kept ("--project X" in "dotnet ef migrations add … --project X" and its fix) is
    # the call's context: it never makes the lesson span the program's other subcommands.
    f_flags_all = {x.split("=", 1)[0] for x in f.tokens if x.startswith("-")}
    strong = any(
        p.startswith(("via:", "env:", "exe:", "re:", "run:"))  # not "*.sln": an operand's type is the subcommand's
        or "=" in p
        or (_is_long(p) and p not in switches and any(m.values.get(alt) for alt in p.split("|")))
        for p in present
        if not (p.startswith("-") and any(alt.split("=", 1)[0] in f_flags_all for alt in p.split("|")))
    )
    if f"via:{prog}" in absent:
        strong = False  # "pnpm exec prisma" for "pnpm --filter x prisma": about that binary only
    sub = _sub_words(m, prog)
    # "nvm use && npm …", "uv run …", ".venv/bin/pip": any call of the program needs it.
    # Not a runner of the program's own ("pnpm exec prisma" for "pnpm prisma"): that is how to
    # run one binary, not what every pnpm call needs.
    # "GOPRIVATE=github.com/acme/*" names the modules it is about: the lesson is about those.
    targets = _env_targets(absent, m, f, prog)
    present += [t for t in targets if t not in present]
    toolchain = any(
        a.startswith("via:")
        and a[4:] != prog
        or a.startswith("exe:")
        or a.startswith("pre:")
        and a[4:] in TOOLCHAIN_PROGRAMS
        or a.startswith("env:")
        and configures_program(a[4:], prog)
        for a in absent
    ) or bool(targets)
    # A missing global option (--profile, --context, --project) is missing from the subcommand's
    # siblings too, but not from every other tool of the program: "dotnet ef … --project" says
    # nothing about "dotnet build". It stays with the first subcommand word.
    global_option = not toolchain and not present and any(_is_global(a, f) for a in absent)
    if global_option and any(a in EVERYWHERE_FLAGS for a in absent):
        global_option, toolchain = False, True  # "aws … --profile": every service, every subcommand
    if is_look(m):
        # A lesson about a read-only call stays with its subcommand, unless what it lacked picks
        # the account or cluster every call talks to ("kubectl get pods" without --context).
        everywhere = toolchain and any(a in EVERYWHERE_FLAGS for a in absent)
        strong = global_option = False
        toolchain = everywhere
    if not sub and prog in INTERPRETERS and not strong and not toolchain and not global_option:
        # "python manage.py migrate", "node scripts/seed.js": the script is what ran; a lesson about
        # it is not about every call of the interpreter (which has no subcommand to narrow it).
        script = next((o for o in _operands(m, prog)[:1] if "/" in o or _ext(o)), "")
        if script and script in _operands(f, prog) and script not in present:
            present.append(script)
    if not sub and not present and not strong and not toolchain and not global_option:
        # No subcommand to narrow it ("sbt pipeline/test" without SBT_OPTS, "./deploy.sh staging"):
        # the target the mistake and the fix share is what it ran; another target is another call.
        # Not a version or a number ("./scripts/release.sh 2.3.0"): the next release is the same call.
        # Nor a directory ("pytest tests/"): the same mistake in another directory is still the mistake.
        shared = [
            o
            for o in target_words(m, prog, 0)
            if o in target_words(f, prog, 0)
            and not re.match(r"v?\d", o)
            and not o.endswith("/")
            and not o.startswith(("./", "../", "/"))
        ]
        if shared and "scope" not in out and prog not in REMOTE_PROGRAMS:  # a host is kept by its domain
            out["scope"] = [f"@={shared[0].lower()}"]
    elif (
        sub
        and not present
        and absent
        and all(not a.startswith(("-", "env:", "pre:", "post:", "via:", "run:", "exe:")) for a in absent)
        and not target_words(m, prog, len(sub))
        and target_words(f, prog, len(sub))
    ):
        # "dotnet test" -> "dotnet test Gannet.sln": the fix only named a target the mistake did not;
        # a call naming one ("dotnet test tests/Payments.Tests") is not it, whichever it names.
        out["scope"] = ["@="]
    if sub and not strong and not toolchain and not global_option:
        out["sub"] = sub
    elif sub and global_option:
        out["sub"] = sub[:1]
    elif sub and toolchain and len(sub) > 1 and sub[0] == "compose":
        out["sub"] = sub[:1]  # "docker compose" is a tool of its own: its options stay with it
    if present:
        out["present"] = present
    if absent:
        out["absent"] = absent
    return out


_ASSIGN_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=$")
_VERSION_PIN_RE = re.compile(r"^[@\w.-]+(?:==|>=|<=|~=|!=|@|<|>)v?\d")
# Steps of a line that are not what made a call work: looking, printing, waiting.
_NO_STEP_PROGRAMS = DIAGNOSTIC_PROGRAMS - {"cd", "source", ".", "export", "nvm", "set", "unset", "ulimit"}


# Environment variables named for the tool they configure ("GOPRIVATE", "PGHOST", "AWS_PROFILE"):
# they may pick the targets or credentials of some calls only (see names_the_tool).
PROGRAM_ENV_PREFIXES: dict[str, tuple[str, ...]] = {
    "go": ("GO",), "psql": ("PG",), "pg_dump": ("PG",), "pg_restore": ("PG",), "mysql": ("MYSQL",),
    "kubectl": ("KUBE",), "helm": ("HELM_", "KUBE"), "docker": ("DOCKER_",), "podman": ("CONTAINER",),
    "npm": ("NPM_CONFIG_",), "pnpm": ("NPM_CONFIG_", "PNPM_"), "yarn": ("YARN_",), "cargo": ("CARGO_", "RUSTUP_"),
    "terraform": ("TF_",), "tofu": ("TF_",), "ansible-playbook": ("ANSIBLE_",), "ansible": ("ANSIBLE_",),
    "vault": ("VAULT_",), "gh": ("GH_",), "mvn": ("MAVEN_",), "mvnw": ("MAVEN_",), "gradle": ("GRADLE_",),
    "gradlew": ("GRADLE_",), "aws": ("AWS_",), "gcloud": ("CLOUDSDK_",), "az": ("AZURE_",), "pip": ("PIP_",),
    "uv": ("UV_",), "poetry": ("POETRY_",), "dotnet": ("DOTNET_", "NUGET_"), "nomad": ("NOMAD_",),
    "consul": ("CONSUL_",), "pulumi": ("PULUMI_",), "flyctl": ("FLY_",), "fly": ("FLY_",),
}  # fmt: skip
# Variables that pick the toolchain, the machine or the credentials of whatever runs.
TOOLCHAIN_ENV = frozenset({"PATH", "KUBECONFIG", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"})


def configures_program(name: str, program: str) -> bool:
    """An environment variable that picks the toolchain every subcommand of ``program`` runs
    on: a toolchain's home (``JAVA_HOME``) or version (``RUSTUP_TOOLCHAIN``), the ``PATH``. Not a
    run mode (``MIX_ENV``, ``RAILS_ENV``, ``NODE_ENV``): which environment to run in is the
    subcommand's business. (Measured: spanning every variable named for the tool, ``PGHOST``,
    ``AWS_PROFILE``…, held everyday calls of the sealed split.)"""
    name = name.upper()
    if name.endswith(("_ENV", "_MODE")) or name in ("ENV", "MODE"):
        return False
    return name in TOOLCHAIN_ENV or name.endswith("_HOME") or "TOOLCHAIN" in name


def names_the_tool(name: str, program: str) -> bool:
    """A variable named for ``program`` (``GOPRIVATE`` for go, ``PGHOST`` for psql): it may
    pick the targets or credentials of some calls only, so it spans the program only when its
    value names the mistake's operand (:func:`_env_targets`)."""
    return any(name.upper().startswith(prefix) for prefix in PROGRAM_ENV_PREFIXES.get(program, ()))


def _env_targets(absent: list[str], m: Call, f: Call, prog: str) -> list[str]:
    """Of the configuring variables the fix added, the values that name the mistake's own
    operand (``GOPRIVATE=github.com/acme/*`` for ``go get github.com/acme/protos``), as the
    prefix a call's operand must have: the lesson is about those targets, not every call."""
    out: list[str] = []
    ops = [o.lower() for o in _operands(m, prog)]
    for assign in f.env:
        name, _, value = assign.partition("=")
        if f"env:{name}" not in absent or not (configures_program(name, prog) or names_the_tool(name, prog)):
            continue
        for pattern in value.split(","):
            stem = pattern.strip().strip("'\"").rstrip("*").rstrip("/").lower()
            if len(stem) >= 4 and "/" in stem and any(o.startswith(stem + "/") or o == stem for o in ops):
                out.append(stem)
    return out[:2]


def _step_matters(tok: str, mistake: Call, call_changed: bool = False) -> bool:
    """A ``pre:``/``post:`` token names a real step (``vpn up &&``, ``cd sub &&``,
    ``source .env;``, ``&& make install``), not a look (``ls &&``, ``| tee log``)
    nor another call of the mistake's own program (``git reset … && git commit``).
    When the call itself changed too (``call_changed``), only an activation step
    (``source``, ``nvm use``) counts: the change is the fix."""
    if not tok.startswith(("pre:", "post:")):
        return True
    prog, _, sub = tok.split(":", 1)[1].partition(" ")
    if call_changed and prog not in ACTIVATION_PROGRAMS:
        return False
    if prog in (mistake.outer, mistake.program):
        # Another call of the same program is a step only when it sets things up
        # ("docker login && docker push"); "git reset … && git commit" is not.
        return tok.startswith("pre:") and sub in SETUP_SUBCOMMANDS and [sub] != mistake.sub(prog)[:1]
    if sub:
        return False  # the step is already counted by its program ("pre:vpn")
    return prog in ACTIVATION_PROGRAMS or prog not in _NO_STEP_PROGRAMS


# Programs that run the script their command line names (their "subcommand" is the script); names as
# program_name gives them (lower case, no version: "python3.11" is "python"). A signature names the
# interpreter, so the script the mistake ran is part of which mistake it was.
INTERPRETERS = frozenset(
    {"bash", "sh", "zsh", "dash", "ksh", "fish", "python", "node", "ruby", "perl", "php", "pwsh", "deno", "bun"}
    | {"tsx", "ts-node", "lua", "rscript", "julia"}
)
# Subcommands that set a program up for the next call of it: logging in, selecting, starting.
SETUP_SUBCOMMANDS = frozenset(
    {"login", "auth", "init", "select", "workspace", "activate", "up", "start", "unlock", "connect"}
    # Bringing it up to date first: "git pull --rebase && git push", "apt-get update && apt-get install".
    | {"pull", "fetch", "update"}
)
_CONFIG_EXTS = ("ini", "toml", "yaml", "yml", "json", "cfg", "conf", "hcl", "env")


def _is_global(flag: str, fix: Call) -> bool:
    """A global option: one of GLOBAL_FLAGS, or any flag whose value in the
    fix is a config file (``alembic -c migrations/alembic.ini``)."""
    if flag in GLOBAL_FLAGS:
        return True
    values = fix.values.get(flag) or []
    return any(_ext(v) in _CONFIG_EXTS for v in values)


def _canon(flag: str, program: str) -> str:
    alias = _aliases(program).get(flag)
    if alias and len(alias) > len(flag):
        return alias
    return flag


def derive_from_retries(failures: list[str], fix: str, why: str = "") -> dict[str, Any] | None:
    """One signature for a retry loop: the contrast of each failing variant
    with the call that worked, as one "any of" signature (duplicates merged).
    It catches every variant and never the working call."""
    sigs: list[dict[str, Any]] = []
    seen: set[str] = set()
    for variant in failures:
        sig = derive_command(variant, fix, why)
        if not sig:
            continue
        key = repr(sorted((k, repr(v)) for k, v in sig.items() if k != "fix"))
        if key not in seen:
            seen.add(key)
            sigs.append(sig)
    if not sigs:
        return None
    if len(sigs) == 1:
        return sigs[0]
    return {"v": SIG_VERSION, "kind": "any", "of": sigs, "fix": " ".join(fix.split())[:200]}


# ---------------------------------------------------------------------------
# Code
# ---------------------------------------------------------------------------

_LANG_FAMILIES = (
    ("ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"),
    ("py", "pyi"),
    ("c", "h"),
    ("cc", "cpp", "cxx", "hpp", "hh", "hxx"),
    ("yml", "yaml"),
)


def glob_for(path: str) -> str:
    """The files a code lesson applies to: the path's language family
    (``*.ts|*.tsx|*.js…``), or its name when it has no extension."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name[1:] else ""
    if not ext:
        return name
    family = next((f for f in _LANG_FAMILIES if ext in f), (ext,))
    return "|".join(f"*.{e}" for e in family)


def _pattern(
    tokens: list[str],
    keep: set[str],
    shared: frozenset[str] | set[str] = frozenset(),
    modules: frozenset[str] | set[str] = frozenset(),
) -> str:
    """A regex for a token window. Identifiers stay literal when the fix
    removed them (``keep``), when they are keywords, member names (after
    ``.``/``::``) or called (before ``(``); other names (locals) become ``\\w+``.
    A member or called name the fix uses too (``shared``: ``status()`` in
    ``status() == "PAID"`` -> ``"PAID".equals(status())``) is the code's own
    name, not what was wrong: it becomes ``\\w+`` as well. A module the code calls a
    changed member of (``modules``: ``yaml`` in ``yaml.load(`` -> ``yaml.safe_load(``) stays:
    ``json.load(`` is not that mistake."""
    parts = []
    for k, tok in enumerate(tokens):
        literal = (
            tok in keep
            or (tok in modules and k + 2 < len(tokens) and tokens[k + 1] == "." and tokens[k + 2] in keep)
            or tok in KEYWORDS
            or (k >= 2 and tokens[k - 1] == "." and tokens[k - 2] in modules)  # time.sleep: the module's API
            or tok not in shared
            and ((k > 0 and tokens[k - 1] in (".", "::", "?.")) or (k + 1 < len(tokens) and tokens[k + 1] == "("))
        )
        parts.append(_tok_regex(tok, literal))
    return r"\s*".join(parts)


_LITERAL_NAME_RE = re.compile(r"(?<!\\)\\b([A-Za-z_]\w*)")
# A generalised window with no literal name still says something when it keeps a string
# ("\w+() == \"PAID\""); an operator alone does not: "== \w+.\w+" is every comparison with a
# member, not the one the fix replaced (measured: such shapes held fine edits of round 8's split).
_STRING_RE = re.compile(r"\"|'")


_VALUE_WORDS = frozenset({"None", "null", "nil", "undefined", "NULL", "NaN"})


def _named(pattern: str) -> bool:
    """Whether a token regex keeps a name literally (``\\bsort\\b``, ``\\bNone\\b``), other
    keywords aside (``\\]\\s*\\bdef\\b`` is any method after any ``]``)."""
    return any(m.group(1) not in KEYWORDS or m.group(1) in _VALUE_WORDS for m in _LITERAL_NAME_RE.finditer(pattern))


def _whole_lines(lines: list[int], j1: int, j2: int) -> bool:
    """Whether tokens ``j1:j2`` (line numbers ``lines``) are lines of their own."""
    if j2 <= j1:
        return False
    return (j1 == 0 or lines[j1 - 1] != lines[j1]) and (j2 >= len(lines) or lines[j2] != lines[j2 - 1])


def _lined_tokens(text: str) -> list[tuple[str, int]]:
    out = []
    line, pos = 0, 0
    for m in _CODE_TOKEN_RE.finditer(text or ""):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append((m.group(0), line))
    return out


def _callee(bt: list[str], lines: list[int], i: int) -> tuple[int, int] | None:
    """The call whose parentheses enclose token ``i`` on its line: (start of
    the callee chain, index of its ``(``)."""
    depth = 0
    k = i - 1
    while k >= 0 and lines[k] == lines[min(i, len(lines) - 1)] if i < len(lines) else k >= 0:
        tok = bt[k]
        if tok == ")":
            depth += 1
        elif tok == "(":
            if depth == 0:
                start = k
                j = k - 1
                if j < 0 or not _IDENT_RE.match(bt[j]):
                    return None
                while j - 2 >= 0 and bt[j - 1] in (".", "::", "?.") and _IDENT_RE.match(bt[j - 2]):
                    j -= 2
                return j, start
            depth -= 1
        k -= 1
    return None


# What a fix puts right after a call to compare its result: "!= =" is how "!==" tokenizes.
_COMPARE_OPENERS = frozenset({"!=", "==", "=", "is", "<", ">", "<=", ">=", "===", "!=="})
# A call's arguments, one level of nested parentheses deep, on one line.
_ARGS_RX = r"\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)"


def _result_used_as_is(bt: list[str], lines: list[int], i: int) -> tuple[str, str] | None:
    """For a call that closes just before token ``i``: a regex for that call (its own name,
    literally; the receiver left out) followed by ``bt[i]``, and a label. None when the ``)``
    closes no named call on the line."""
    depth = 0
    for k in range(i - 1, -1, -1):
        if lines[k] != lines[i - 1]:
            return None
        if bt[k] == ")":
            depth += 1
        elif bt[k] == "(":
            depth -= 1
            if depth == 0:
                if k == 0 or not _IDENT_RE.match(bt[k - 1]):
                    return None
                name = bt[k - 1]
                member = k >= 2 and bt[k - 2] in (".", "::", "?.", "->")
                if name in KEYWORDS and not member:
                    return None  # "if (x) {", "while (…)": no call
                head = (r"(?:\.|::|\?\.|->)\s*" if member else r"\b") + re.escape(name)
                label = f"{'.' if member else ''}{name}(…) {bt[i]}"
                return rf"{head}\s*{_ARGS_RX}\s*{re.escape(bt[i])}", label
    return None


# Modules and global objects code calls into: a changed member of one is that module's API.
MODULE_NAMES = frozenset(
    {
        "os", "sys", "re", "json", "yaml", "pickle", "time", "datetime", "subprocess", "random", "math", "shutil",
        "logging", "requests", "np", "pd", "torch", "hashlib", "tempfile", "asyncio", "threading", "socket",
        "urllib", "csv", "sqlite3", "uuid", "base64", "JSON", "Math", "Date", "Object", "Array", "Promise",
        "console", "process", "fs", "path", "crypto", "axios", "Buffer", "Number", "String", "fmt", "strings",
        "strconv", "errors", "http", "ioutil", "io", "filepath", "sort", "sync", "context", "log", "rand",
        "Integer", "Arrays", "Collections", "Objects", "System", "LocalDate", "Instant", "Files", "Paths",
        "Optional", "File", "Time", "YAML", "Dir", "Kernel", "std", "mem", "ptr", "thread",
    }
)  # fmt: skip


def derive_code(bad: str, good: str, path: str) -> dict[str, Any] | None:
    """The signature of a code mistake: what the fix removed from ``bad``, as
    a regex over the new content of an edit to a file of the same language.

    Candidate windows of 2–8 tokens around each change (never reaching into
    another line) are scored: identifiers only the bad code had (the API that
    was wrong: ``utcnow``, ``unwrap``, ``forEach``) count most. An argument the
    fix added to a call becomes "that call without that argument"
    (``open(`` without ``encoding=``). Checked: the pattern must match ``bad``
    and not ``good``.
    """
    blt, glt = _lined_tokens(bad), _lined_tokens(good)
    bt, gt = [t for t, _ in blt], [t for t, _ in glt]
    lines, glines = [ln for _, ln in blt], [ln for _, ln in glt]
    if not bt or bt == gt:
        return None
    good_words = {t for t in gt if _IDENT_RE.match(t)}
    keep = {t for t in bt if _IDENT_RE.match(t) and t not in good_words and t not in KEYWORDS}
    # Modules and globals the code calls into (only ever "name." in it, and imported or
    # well known), not the reader's locals: "yaml" of "yaml.load(" is part of the mistake.
    imported = set(re.findall(r"(?m)^\s*(?:import|from)\s+([A-Za-z_]\w*)", f"{bad}\n{good}"))
    modules = {
        t
        for t in set(bt)
        if (t in MODULE_NAMES or t in imported)
        and all(j + 1 < len(bt) and bt[j + 1] == "." for j, u in enumerate(bt) if u == t)
    }
    ops = [op for op in difflib.SequenceMatcher(None, bt, gt, autojunk=False).get_opcodes() if op[0] != "equal"]
    glob = glob_for(path)
    best: tuple[float, dict[str, Any]] | None = None

    def consider(score: float, present: list[str], absent: list[str], label: str) -> None:
        nonlocal best
        rxs = [_compiles(p) for p in present]
        axs = [_compiles(a) for a in absent]
        if any(r is None for r in rxs + axs):
            return
        in_bad = all(r.search(bad) for r in rxs) and not any(a.search(bad) for a in axs)
        in_good = all(r.search(good) for r in rxs) and not any(a.search(good) for a in axs)
        if not in_bad or in_good:
            return
        if best is None or score > best[0]:
            sig: dict[str, Any] = {"present": ["re:" + p for p in present], "pattern": label[:80]}
            if absent:
                sig["absent"] = ["re:" + a for a in absent]
            best = (score, sig)

    for _tag, i1, i2, j1, j2 in ops[:12]:
        inserted = gt[j1:j2]
        if i1 == i2 and inserted and i1 < len(bt):
            # An argument added to a call: "callee(" without "name=".
            call = _callee(bt, lines, i1)
            if call is not None:
                c0, paren = call
                callee = bt[c0 : paren + 1]
                if bt[i1 - 1] == "(" and bt[i1] == ")":
                    kept = sum(1 for t in callee if t in keep)
                    consider(2.0 + kept, [_pattern([*callee, ")"], keep)], [], "".join(callee) + ")")
                kw = next(
                    (
                        t
                        for k, t in enumerate(inserted)
                        if _IDENT_RE.match(t) and k + 1 < len(inserted) and inserted[k + 1] == "="
                    ),
                    "",
                )
                if kw and bt[paren - 1] not in keep:  # the same call, given a new argument
                    consider(
                        6.0,
                        [_pattern(callee, keep)],
                        [rf"\b{re.escape(kw)}\s*="],
                        f"{''.join(callee)}…) without {kw}=",
                    )
        if i1 == i2 and inserted and 0 < i1 < len(bt) and bt[i1 - 1] == ")" and inserted[0] in _COMPARE_OPENERS:
            # The fix compared a call's result ("array_search(…) !== false", "re.match(…) is not None"):
            # the mistake is that call's result used as it is, in any code ("if (! array_search(…))").
            used_as_is = _result_used_as_is(bt, lines, i1)
            if used_as_is is not None:
                consider(7.0, [used_as_is[0]], [], used_as_is[1])
        # Windows around the change, on the lines it touches.
        new_lines = i1 == i2 and _whole_lines(glines, j1, j2)
        if i2 > i1:
            line_set = set(lines[i1:i2])
        else:
            line_set = {lines[k] for k in (i1 - 1, i1) if 0 <= k < len(bt)}
        lo_min, hi_max = max(0, i1 - 3), min(len(bt), max(i2, i1 + 1) + 3)
        for lo in range(lo_min, max(i2, i1 + 1)):
            for hi in range(max(lo + 2, i1 + 1), min(hi_max, lo + 8) + 1):
                if i2 > i1 and not (lo < i2 and hi > i1):
                    continue
                if i2 == i1 and not (lo < i1 <= hi):
                    continue
                window = bt[lo:hi]
                if any(lines[k] not in line_set for k in range(lo, hi)):
                    continue
                if window[-1] in (".", "::", "?.", "->"):
                    continue  # "time ." is every member of time, not the one the fix replaced
                pat = _pattern(window, keep, modules=modules)
                anchored = _named(pat)  # a literal name in it ("== None" too), not only keywords ("] def")
                if not anchored and (new_lines or len(window) < 5 or lo >= i1 or hi <= max(i2, i1)):
                    # Punctuation alone needs context on both sides of the change; around lines the
                    # fix only added, it is just where they went ("[7.1] def change").
                    continue
                kept = sum(1 for t in window if t in keep)
                removed = sum(1 for k in range(lo, hi) if i1 <= k < i2)
                score = kept * 3 + removed + (0.5 if anchored else 0) - 0.3 * len(window)
                if hi < len(bt) and _IDENT_RE.match(bt[hi - 1]) and bt[hi] in (".", "(", "::", "?."):
                    score -= 1.0  # stops inside a member chain or before a call's parenthesis
                if lo > 0 and _IDENT_RE.match(bt[lo]) and bt[lo - 1] in (".", "::", "?."):
                    score -= 0.5  # "dict(" without its "." would also match the builtin dict()
                start = lo + 1 if bt[lo] == "." else lo
                if start >= 2 and bt[start - 1] == "." and bt[start - 2] in modules and bt[start] in keep:
                    score -= 1.0  # ".load(" / "load(" without "yaml" is json.load( too
                literal_at = [k for k, t in enumerate(window) if t in keep]
                if literal_at:
                    trailing = window[literal_at[-1] + 1 :]
                    if trailing and all(t in ")]};," for t in trailing):
                        score -= 0.4 * len(trailing)  # "#![allow(dead_code" also catches "dead_code, x)"
                consider(score, [pat], [], " ".join(window))
                # The same shape with the names the fix keeps left out: the mistake in other code.
                general = _pattern(window, keep, good_words, modules)
                if general != pat and len(window) >= 4 and (_named(general) or _STRING_RE.search(general)):
                    consider(score + 0.2, [general], [], " ".join(window))
    if best is None:
        # Nothing general enough: the first removed line, literally (names and strings kept).
        good_lines = {"".join(ln.split()) for ln in good.splitlines()}
        for line in bad.splitlines():
            toks = code_tokens(line)
            if len(toks) >= 3 and "".join(line.split()) not in good_lines:
                pattern = r"\s*".join(re.escape(t) for t in toks)
                consider(0.0, [pattern], [], line.strip())
                if best is not None:
                    break
    if best is None:
        return None
    sig = {"v": SIG_VERSION, "kind": "edit", "glob": glob, **best[1]}
    if gt.count("await") > bt.count("await") and "async" not in sig["pattern"]:
        # The fix awaits: the mistake (a blocking call, an unawaited one) exists only in async code.
        sig["present"] = [*sig["present"], r"re:\b(?:async|await)\b"]
    fix_line = next((ln.strip() for ln in good.splitlines() if ln.strip() and ln.strip() not in bad), "")
    if fix_line:
        sig["fix"] = fix_line[:160]
    return sig


def derive_edit_alone(path: str, new: str, old: str = "", text: str = "") -> dict[str, Any] | None:
    """An edit lesson without a fixing edit (a rejected edit, a taught
    ``Edit <path>: <code>`` trigger): the file (by name) for manifests
    (requirements.txt, package.json, .env); else the language and the code
    the advice ``text`` names inside the edit (``datetime.utcnow()``,
    ``forEach … async``), or the edit's most distinctive line. Arguments the
    advice asks for that the code lacks (``encoding=``) must stay absent."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name:
        return None
    added = [ln.strip() for ln in (new or "").splitlines() if ln.strip() and ln.strip() not in (old or "")]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    manifest = (
        ext in ("txt", "lock", "toml", "cfg", "ini", "env", "json", "yaml", "yml", "mod", "sum") or "." not in name
    )
    if manifest:
        return {"v": SIG_VERSION, "kind": "edit", "glob": name}
    sig: dict[str, Any] = {"v": SIG_VERSION, "kind": "edit", "glob": glob_for(path)}
    code = "\n".join(added)
    advised = code_advice.derive(added, text) if text else None
    if advised is not None:
        return with_shape(_advised_sig(sig, advised), code, text)
    named = _named_code(added, text) if text else None
    if named is not None:
        pattern, label, absent = named
        sig["present"] = ["re:" + pattern]
        if absent:
            sig["absent"] = ["re:" + a for a in absent]
        sig["pattern"] = label[:80]
        return with_shape(sig, code, text)
    if text:
        shaped = with_shape(sig, code, text)
        if shaped.get("present"):
            return shaped
    best, best_score = "", 0.0
    for line in added:
        toks = code_tokens(line)
        names = [t for t in toks if _IDENT_RE.match(t) and len(t) >= 3 and t not in KEYWORDS]
        score = len(set(names)) + (1 if "(" in toks else 0)
        if names and len(toks) >= 3 and score > best_score and len(line) <= 160:
            best, best_score = line, score
    if not best:
        return None
    toks = code_tokens(best)
    last = max(k for k, t in enumerate(toks) if _IDENT_RE.match(t) and len(t) >= 3 and t not in KEYWORDS)
    toks = toks[: max(last + 1, 3)][:10]
    sig["present"] = ["re:" + _pattern(toks, set(toks))]
    sig["pattern"] = best[:80]
    return sig


def with_shape(sig: dict[str, Any], code: str, text: str) -> dict[str, Any]:
    """A taught code signature that also holds the trigger's mistake in other words: its
    pattern, or the trigger's shape with the reader's names left out
    (:func:`twiceshy.lesson.code_shape.shape_pattern`). A signature with no pattern yet gets
    the shape alone."""
    shaped = code_shape.shape_pattern(code, text)
    if shaped is None:
        return sig
    shape, label = shaped
    present = [str(p) for p in sig.get("present") or []]
    if not sig.get("absent"):
        # What the advised form brings in marks the fix, so a looser pattern never holds it.
        absent = code_shape.fix_names(code, text)
        sig = {**sig, "absent": ["re:" + a for a in absent]} if absent else sig
    if not present:
        return {**sig, "present": ["re:" + shape], "pattern": label}
    if len(present) != 1 or not present[0].startswith("re:") or present[0][3:] == shape:
        return sig
    return {**sig, "present": [f"re:(?:{present[0][3:]})|(?:{shape})"]}


def _advised_sig(sig: dict[str, Any], advised: tuple[str, list[str], str]) -> dict[str, Any]:
    """A code signature from what the advice forbids (:mod:`twiceshy.lesson.code_advice`)."""
    present, absent, label = advised
    sig = {**sig, "present": ["re:" + present], "pattern": label}
    if absent:
        sig["absent"] = ["re:" + a for a in absent]
    return sig


_KWARG_RE = re.compile(r"\b([A-Za-z_]\w*)\s*=(?!=)")


def _named_code(lines: list[str], text: str) -> tuple[str, str, list[str]] | None:
    """The part of ``lines`` that advice ``text`` names: the window from the
    first to the last identifier the text mentions (on one line), widened to
    a member access or an empty call; plus ``name=`` arguments the text asks
    for that the code lacks."""
    words = set(re.findall(r"[A-Za-z_]\w*", text or ""))
    code = "\n".join(lines)
    absent = [
        rf"\b{re.escape(k)}\s*="
        for k in dict.fromkeys(_KWARG_RE.findall(text or ""))
        if not re.search(rf"\b{re.escape(k)}\s*=", code)
    ]
    best: tuple[int, str, str] | None = None
    for line in lines:
        toks = code_tokens(line)
        hits = [k for k, t in enumerate(toks) if _IDENT_RE.match(t) and t in words and (len(t) >= 3 or t in KEYWORDS)]
        if not any(toks[k] not in KEYWORDS for k in hits):
            continue
        # The tightest run of mentioned names (at most 6 tokens apart).
        runs: list[list[int]] = [[hits[0]]]
        for k in hits[1:]:
            if k - runs[-1][-1] <= 6:
                runs[-1].append(k)
            else:
                runs.append([k])
        for run in runs:
            while len(run) > 1 and toks[run[0]] in KEYWORDS:
                run = run[1:]
            while len(run) > 1 and toks[run[-1]] in KEYWORDS and toks[run[-1]] != "async":
                run = run[:-1]
            if toks[run[0]] in KEYWORDS:
                continue
            lo, hi = run[0], run[-1] + 1
            if lo > 0 and toks[lo - 1] in (".", "::", "?."):
                lo -= 1
            called = re.search(rf"\b{re.escape(toks[hi - 1])}\s*\(", text or "") is not None
            if hi < len(toks) and toks[hi] == "(" and called:  # the advice names it as a call
                hi += 1
                empty = re.search(rf"\b{re.escape(toks[hi - 2])}\s*\(\)", text or "") is not None
                if hi < len(toks) and toks[hi] == ")" and empty:
                    hi += 1
            window = toks[lo:hi]
            if len(window) < 2 and not any(len(t) >= 6 for t in window):
                continue
            keep = {t for t in window if t in words}
            score = len(run) * 10 + len(window)
            if best is None or score > best[0]:
                best = (score, _pattern(window, keep), " ".join(window))
    if best is None:
        return None
    return best[1], best[2], absent


# ---------------------------------------------------------------------------
# From a trigger (taught lessons, and lessons stored before signatures)
# ---------------------------------------------------------------------------

_EDIT_TRIGGER_RE = re.compile(
    r"^(Edit|Write|MultiEdit|NotebookEdit|write_file|replace|apply_patch|edit_file)\s+(\S+?):?\s*(?:\n|$|:\s)(.*)$",
    re.S,
)


def is_command_like(text: str) -> bool:
    text = (text or "").strip()
    if not text or "\n" in text or len(text) > 400 or re.search(r"[A-Za-z]\.$", text):
        return False  # a sentence, not a command ("./..." and "x ." are fine)
    words = text.split()
    if len(words) > 30:
        return False
    first = words[0]
    if not re.match(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*|[a-z0-9_./~][\w./~+-]*)$", first):
        return False
    # Prose that starts like a command ("pytest tests/ for django"): bare English
    # function words outside quotes are not arguments anyone types.
    unquoted = re.sub(r"(['\"]).*?\1", " ", text)
    return not any(w in _PROSE_WORDS for w in unquoted.lower().split()[1:])


_PROSE_WORDS = {
    "the", "for", "when", "outside", "without", "before", "after", "because", "instead", "should", "always",
    "never", "with", "into", "onto", "then", "than", "which", "that", "this", "these", "those", "while",
}  # fmt: skip


_CLAUSE_RE = re.compile(r"`|[;()\n]|:(?=\s|$)|,\s|(?<=[A-Za-z0-9])\.(?:\s|$)|\s[—–]\s|\s-\s")


def fix_commands(text: str, program: str, starts: set[str] | None = None) -> list[str]:
    """Commands named in advice text that run ``program``: backticked spans
    first, then runs of words in the prose that start with a program
    (``starts``: the trigger's programs and runners) and parse as a call
    ("… run uv run pytest." -> ``uv run pytest``)."""
    out: list[str] = []
    for found in _BACKTICK_RE.finditer(text or ""):
        span = found.group(1)
        if _negated((text or "")[: found.start()]):
            continue  # "never `git pull`": the mistake named, not the fix
        if named_as_mistake(text, found.start(), found.end()):
            continue  # "`./gradlew test` fails in :common": the mistake described
        for call in parse_command(span):
            if call.words_of(program) is not None or call.outer == program:
                out.append(span)
                break
    starts = (starts or set()) | {program}
    for clause in _CLAUSE_RE.split(text or ""):
        for part in re.split(r"\s(?:or|and|then|not|but|so)\s", clause):
            words = part.split()
            for i, word in enumerate(words):
                if word.rsplit("/", 1)[-1].lower() not in starts and not _is_assign(word):
                    continue
                if _negated(" ".join(words[:i])):
                    break
                # One word is a call only when it names an executable by path (".venv/bin/pip").
                for j in range(len(words), i if "/" in word else i + 1, -1):
                    cand = re.sub(r"(?<=[\w)'\"])[.,]$", "", " ".join(words[i:j]))
                    if not is_command_like(cand) or any(w.lower() in _PROSE_VERBS for w in words[i:j]):
                        continue
                    call = pick_call(cand)
                    at = (text or "").find(cand)
                    if at >= 0 and in_negated_parenthesis((text or "")[:at]):
                        break  # "never skip the hooks (git commit --no-verify)": the mistake named
                    if at >= 0 and named_as_mistake(text, at, at + len(cand)):
                        break  # "./gradlew test --tests X fails in :common", "a bare dotnet test"
                    if call is not None and not call.help and call.words_of(program) is not None and cand not in out:
                        out.append(cand)
                    break
                break
    return out


_NEGATION_RE = re.compile(
    r"(?i)\b(?:never|not|don'?t|do not|avoid|instead of|rather than|no|stop)(?:\s+[\w./-]+){0,2}"
    r"(?:\s+(?:or|nor)(?:\s+[\w./-]+){0,2})?\s*$"  # "never bare pip or --break-system-packages"
)


def said_not_to(before: str) -> bool:
    """The words just before a mention say not to do it ("never run", "instead of", "don't use")."""
    return _negated(before)


def _negated(before: str) -> bool:
    """The words just before a span say not to do it ("never run", "instead of", "don't use"),
    or the span is in a parenthesis that names what a "never …" sentence forbids."""
    return _NEGATION_RE.search(before[-60:]) is not None or in_negated_parenthesis(before)


# A sentence that forbids ("mosaic: never skip the pre-commit hooks (…)", "Don't bypass CI (…)").
_FORBIDS_RE = re.compile(r"(?i)^\s*(?:[\w.-]+:\s*)?(?:never|don'?t|do not|avoid|stop)\b")


def in_negated_parenthesis(before: str) -> bool:
    """The span sits in an open parenthesis whose sentence starts by forbidding something:
    "never skip the hooks (git commit --no-verify / -n)" names the mistake, not the fix."""
    open_at = before.rfind("(")
    if open_at < 0 or ")" in before[open_at:]:
        return False
    sentence = re.split(r"(?<=[.;!?])\s|\n", before[:open_at])[-1]
    return _FORBIDS_RE.search(sentence) is not None


# Words that make a run of prose words not a command ("docker build needs -f …").
_PROSE_VERBS = {
    "needs", "need", "fails", "fail", "doesn't", "does", "is", "are", "has", "have", "runs", "works", "exist",
    "exists", "here", "fetches", "commands", "starts", "only", "still", "also", "must", "can", "will", "won't",
    "isn't", "aren't", "uses", "use", "takes", "locally", "hangs", "breaks", "wipes", "deletes", "first",
}  # fmt: skip


def _is_assign(word: str) -> bool:
    return bool(re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word))


# Code, not a shell call: a call "name(", a spaced assignment, an arrow,
# a path separator of a language, a statement end, a keyword that opens one.
_CODE_HINT_RE = re.compile(
    r"(?<![$\w])[A-Za-z_][\w.]*\s*\((?!\))|\w\(\)|\s(?:=|==|!=|\+=|:=|=>)\s|::|->|(?<!\\);\s*$|[{}]\s*$|"
    r"^\s*(?:def|class|const|let|var|fn|func|pub|import|from\s+\S+\s+import|return|await|async|with|if|for|"
    r"while|try|except|raise|public|private|static|#include|package|defer|go\s+func|impl)\b"
)
# Syntax that tells the language of a bare code line.
_LANG_HINTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "py",
        re.compile(
            r"^\s*(?:def|class|from\s+\S+\s+import|import\s+\w+\s*$|elif|except|raise|with\b.*:\s*$)|"
            r"\bself\.|\bNone\b|\bTrue\b|\bFalse\b|:\s*$|\bf\"|\.append\(|\blen\("
        ),
    ),
    ("ts", re.compile(r"(?<!\.)\b(?:const|var|function|await|async)\b|=>|===|!==|\bconsole\.|\bPromise\b")),
    (
        "rs",
        re.compile(r"\b(?:fn|let\s+mut|impl|pub\s+fn|unwrap|expect|Vec::|Option<|Result<)\b|::<|&str\b|\?;|\.await\b"),
    ),
    ("go", re.compile(r":=|\bfunc\b|\berr\s*!=\s*nil\b|\bdefer\b|\bgo\s+func\b|\bfmt\.")),
    ("java", re.compile(r"\b(?:public|private|protected|static|final)\s+\w|\bnew\s+[A-Z]\w*\(|System\.out")),
    ("rb", re.compile(r"\bdo\s*\|\w+\||\bend\s*$|\bputs\b|\.each\b")),
)
_LANG_WORDS = {
    "py": ("python", ".py", "pytest", "django", "flask", "pydantic"),
    "ts": ("typescript", "javascript", ".ts", ".js", ".tsx", "node", "react", "jest", "vitest"),
    "rs": ("rust", ".rs", "cargo", "clippy"),
    "go": ("golang", ".go", " go ", "goroutine"),
    "java": ("java", ".java", "kotlin", "spring"),
    "rb": ("ruby", ".rb", "rails", "rspec"),
}
_LANG_GLOBS = {
    "py": "*.py|*.pyi",
    "ts": glob_for("x.ts"),
    "rs": "*.rs",
    "go": "*.go",
    "java": "*.java|*.kt",
    "rb": "*.rb",
}
_LHS_RE = re.compile(
    r"^\s*(?:(?:const|let|var|let\s+mut|val|auto|final)\s+)?[A-Za-z_][\w.\[\]\"']*\s*(?::\s*[\w\[\]<>, |]+)?\s*(?::=|=(?!=))\s*"
)


def is_code_like(text: str) -> bool:
    """A trigger that is a line of code (``created = datetime.utcnow()``,
    ``const x = await fetch(url)``), not a shell call or a sentence."""
    text = (text or "").strip()
    if not text or len(text) > 600 or _EDIT_TRIGGER_RE.match(text):
        return False
    if "$(" in text or "`" in text:
        return False  # shell substitution
    first = text.split()[0]
    if first.startswith(("./", "/", "~")) or re.match(r"^[A-Za-z_]\w*=\S", text):
        return False  # "./deploy.sh …", "FOO=1 make"
    if re.search(r";\s*(?:do|then)\b|\bdone\s*$|\bfi\s*$", text):
        return False  # a shell loop or test
    # Quoted strings are data either way ("python -c 'print(1)'" is a shell call).
    bare = re.sub(r"'[^']*'|\"(?:\\.|[^\"\\])*\"", "''", text)
    return _CODE_HINT_RE.search(bare) is not None


def code_language(code: str, text: str = "") -> str:
    """The extension family a code line is written in (``py``, ``ts`` …), from
    its syntax, else from what the advice names; "" when it cannot tell."""
    scores = {lang: len(rx.findall(code)) for lang, rx in _LANG_HINTS}
    low = f" {(text or '').lower()} "
    for lang, words in _LANG_WORDS.items():
        scores[lang] += sum(2 for w in words if w in low)
    best = max(scores, key=lambda k: scores[k])
    if scores[best] < 2 or sorted(scores.values())[-2] == scores[best]:
        return ""  # one hint ("new Date(" is Java and JavaScript alike): any file, not a wrong one
    return best


_DEF_WORDS = {"def", "fn", "func", "function", "class", "struct", "interface", "let", "const", "var", "mut", "type"}
_ADVICE_CODE_RE = re.compile(
    r"`([^`\n]{2,160})`|([A-Za-z_][\w.]*\s*\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\))|([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)"
)


def _advice_code(text: str, code: str = "") -> list[str]:
    """Code fragments the advice writes as the advised form
    (``datetime.now(timezone.utc)``); a fragment made only of names the
    mistaken ``code`` has is a mention of the mistake ("never call time.sleep()")."""
    mine = set(re.findall(r"[A-Za-z_]\w*", code or ""))
    out = []
    for m in _ADVICE_CODE_RE.finditer(text or ""):
        frag = next(g for g in m.groups() if g)
        if not set(re.findall(r"[A-Za-z_]\w*", frag)) <= mine:
            out.append(frag)
    return out


def _generalized(line: str) -> str:
    """A regex for one code line with the reader's names left out: defined
    names, locals and numbers become classes; keywords, members, called APIs
    and punctuation stay."""
    toks = code_tokens(line)[:16]
    parts = []
    for k, tok in enumerate(toks):
        prev = toks[k - 1] if k else ""
        if tok[:1].isdigit():
            parts.append(r"\d+")
        elif _IDENT_RE.match(tok) and tok not in KEYWORDS and prev in _DEF_WORDS:
            parts.append(r"\w+")  # the name being defined
        else:
            called = k + 1 < len(toks) and toks[k + 1] == "("
            literal = tok in KEYWORDS or prev in (".", "::", "?.") or called
            parts.append(_tok_regex(tok, literal))
    return r"\s*".join(parts)


def derive_code_trigger(code: str, text: str = "") -> dict[str, Any] | None:
    """A taught lesson whose trigger is code: a code pattern checked on the
    new content of any edit or write to a file of that language. The part the
    advice names is the pattern when that part is not also in the advised
    form; else the whole line with the reader's names left out. It must match
    the trigger and no code fragment the advice recommends."""
    lines = [ln.strip() for ln in code.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    body = [_LHS_RE.sub("", ln, count=1).strip() or ln for ln in lines]
    from_advice = code_advice.derive(lines, text) if text else None
    if from_advice is not None:
        glob = _LANG_GLOBS.get(code_language(code, text), "")
        return with_shape(_advised_sig({"v": SIG_VERSION, "kind": "edit", "glob": glob}, from_advice), code, text)
    advised = _advice_code(text, code)
    candidates: list[tuple[str, str, list[str]]] = []
    named = _named_code(body, text) if text else None
    if named is not None:
        candidates.append(named)
    for line in body[:3]:
        if len(code_tokens(line)) >= 2:
            candidates.append((_generalized(line), line, []))
    for pattern, label, absent in candidates:
        rx = _compiles(pattern)
        if rx is None or not rx.search(code):
            continue
        if any(rx.search(fix) for fix in advised):
            continue  # that part is in the advised form too: not what was wrong
        sig: dict[str, Any] = {"v": SIG_VERSION, "kind": "edit", "glob": _LANG_GLOBS.get(code_language(code, text), "")}
        sig["present"] = ["re:" + pattern]
        if absent:
            sig["absent"] = ["re:" + a for a in absent]
        sig["pattern"] = label[:80]
        fix = next((f for f in advised if "(" in f or "." in f), "")
        if fix:
            sig["fix"] = fix[:160]
        return with_shape(sig, code, text)
    if text:
        shaped = with_shape(
            {"v": SIG_VERSION, "kind": "edit", "glob": _LANG_GLOBS.get(code_language(code, text), "")}, code, text
        )
        if shaped.get("present"):
            return shaped
    return None


def derive_from_trigger(trigger: str, text: str = "") -> dict[str, Any] | None:
    """A signature for a lesson that has only a trigger (``twiceshy learn
    --trigger X``, lessons stored before signatures): the trigger is the
    mistake; flags the advice names but the trigger lacks are the fix. A
    trigger that is a line of code becomes a code pattern (:func:`derive_code_trigger`).
    Whatever the path, a call that has what the advice says to add is never
    the mistake (:func:`advice_guard`)."""
    sig = _derive_from_trigger(trigger, text)
    if sig is not None and sig.get("kind") == "command":
        step = _forbidden_step((trigger or "").strip(), text)
        sig = _known_aliases(
            advice_guard(with_named_siblings(for_every_call(_with_listed_aliases(sig, text), text), text), step, text)
        )
        trigger_is_fix = " ".join(str(sig.get("fix") or "").split()) == " ".join((trigger or "").split())
        missed = (
            not check(sig, "Bash", {"command": work_text(step)})[0] and not check(sig, "Bash", {"command": step})[0]
        )
        if missed and not trigger_is_fix:
            return None  # a key that misses its own mistake is wrong: the lesson goes to context
    return sig


_CONNECTORS = {"as", "of", "to", "the", "a", "an", "is", "for", "with", "when", "by", "if", "on", "in", "that"}


def _pathed_over_bare(fcall: Call, mistake: Call) -> bool:
    """The fix runs the mistake's program from a path (``.venv/bin/pip``, ``./gradlew``) where
    the mistake ran it bare: that is the difference, not a mention of the mistake."""
    return "exe:@path" in fcall.tokens and "exe:@bare" in mistake.tokens


def _looks_like_a_fix(fcall: Call, mistake: Call, fix: str) -> bool:
    """A call written in prose (no backticks) is taken as the advised fix only when it reads as
    one: no connecting words of a sentence, and a flag or the mistake's own subcommand."""
    if any(w.lower() in _CONNECTORS for w in fix.split()[1:]):
        return False
    if fcall.flags or fcall.env or len(fcall.levels) > 1 or fcall.program != mistake.program:
        return True  # a flag, an environment, a runner ("uv run pytest"), another program
    if _pathed_over_bare(fcall, mistake):
        return True  # ".venv/bin/pip" for a bare "pip"
    msub = mistake.sub(mistake.program)[:1]
    return bool(msub) and fcall.sub(fcall.program)[:1] == msub


_ENV_IN_TEXT_RE = re.compile(r"(?<![\w$/.-])([A-Z][A-Z0-9_]{2,})=(?=[^\s=])")
# A variable named in prose, by its shape alone: capitals with an underscore ("GIT_SEQUENCE_EDITOR").
_ENV_NAME_IN_TEXT_RE = re.compile(r"(?<![\w$/.=-])([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?![\w=])")


def _in_a_step_before(text: str, at: int, program: str) -> bool:
    """Whether the flag at ``at`` belongs to a call the advice runs before ``program``'s
    ("git push -u origin HEAD && gh pr create …"): the text between it and the next ``&&``
    or ``;`` starts no call of ``program``, and such a separator follows on the same clause."""
    rest = text[at:]
    sep = re.search(r"&&|;|\|\|", rest)
    if sep is None or "\n" in rest[: sep.start()]:
        return False
    segment_start = max(text.rfind("&&", 0, at), text.rfind(";", 0, at), text.rfind("(", 0, at), text.rfind(":", 0, at))
    segment = text[segment_start + 1 : at]
    words = [w.strip("`'\"") for w in segment.split()]
    head = next((w for w in words if not w.startswith("-")), "")
    return bool(head) and program_name(head) != program and program in rest[sep.end() :].split()[:2]


_ADVISED_STEP_RE = re.compile(r"`([^`\n]{2,120}?)\s*&&\s*(?:…|\.\.\.)?\s*`")
_SETUP_STEP_RE = re.compile(r"(?<![\w-])(source|\.|nvm|direnv|conda|mise)\s+[^\s`]+(?:\s+[^\s`&;]+)?\s*(?:&&|;)")


def for_every_call(sig: dict[str, Any], text: str) -> dict[str, Any]:
    """A lesson whose words say what it lacks belongs on every call of its program ("pass
    --region eu-central-1 on aws calls", "every kubectl command needs --context"): keyed on the
    program and what to add, not on the subcommand or target of the call it was learned from."""
    program = str(sig.get("program") or "")
    if sig.get("kind") != "command" or not program or not sig.get("absent") or not text:
        return sig
    name = re.escape(program)
    every = (
        rf"(?i)\b(?:(?:on|to|for|in)\s+(?:all\s+|every\s+|any\s+)?|all\s+|every\s+|any\s+)"
        rf"`?{name}`?\s+(?:calls|commands|invocations|(?:call|command|invocation)\b(?!\s+-))\b"
    )
    if not re.search(every, text):
        return sig
    return {k: v for k, v in sig.items() if k not in ("sub", "present", "scope")}


def with_named_siblings(sig: dict[str, Any], text: str) -> dict[str, Any]:
    """A lesson whose words name its subcommand among siblings ("dotnet build/test/restore must
    name a solution", "terraform plan/apply need -var-file") is about each of them: its last
    subcommand word becomes ``build|test|restore``. Only the slash form, written right after the
    program and the subcommand words before it; a sibling the fix runs stays out."""
    program, sub = str(sig.get("program") or ""), [str(w) for w in sig.get("sub") or []]
    if sig.get("kind") != "command" or not program or not sub or not text or "|" in sub[-1]:
        return sig
    head = r"\s+".join(re.escape(w) for w in [program, *sub[:-1]])
    fix_call = pick_call(str(sig.get("fix") or ""))
    fix_sub = [w.lower() for w in fix_call.sub(program, len(sub))] if fix_call is not None else []
    for m in re.finditer(rf"(?i)(?<![\w/-]){head}\s+((?:[a-z][\w-]*/)+[a-z][\w-]*)(?![\w/-])", text):
        words = [w.lower() for w in m.group(1).split("/")]
        if sub[-1].lower() not in words or len(words) > 5:
            continue
        siblings = [w for w in words if w == sub[-1].lower() or w not in fix_sub[-1:]]
        if len(siblings) > 1:
            return {**sig, "sub": [*sub[:-1], "|".join(siblings)]}
    return sig


def advice_guard(sig: dict[str, Any], trigger: str, text: str) -> dict[str, Any]:
    """Flags the advice says to pass (not negated) that the trigger lacks, and a setup step it
    says to run first (``source .env &&``), are what the fix adds: a call that has one of them
    is the fix, not the mistake. Added to ``absent`` when the trigger still matches."""
    call = pick_call(trigger)
    if call is None or not text:
        return sig
    have = {t.split("=", 1)[0] for t in call.tokens}
    absent = [str(a) for a in sig.get("absent") or []]
    extra: list[str] = []
    for found in _FLAG_IN_TEXT_RE.finditer(text):
        flag = found.group(0)
        short_alone = len(flag) < 3 and not re.match(r"[ =][\w.-]*[/.][\w./-]+", text[found.end() :])
        if flag in have or flag.startswith("---") or short_alone or _negated(text[: found.start()]):
            continue  # a short flag counts with a path after it ("or -f values/prod.yaml")
        if _in_a_step_before(text, found.start(), call.program):
            continue  # "git push -u origin HEAD && gh pr create": -u is the step's, not gh's
        if _aliases(call.program).get(flag) in have or _listed_with(flag, have, text) or _bundle_of(flag, have):
            continue
        if flag not in absent and flag not in extra:
            extra.append(flag)
    # "must run with NODE_ENV=production", "run the rebase with GIT_SEQUENCE_EDITOR set": a
    # variable the advice sets or names, unset in the trigger, is what the fix sets.
    for found in itertools.chain(_ENV_IN_TEXT_RE.finditer(text), _ENV_NAME_IN_TEXT_RE.finditer(text)):
        env = "env:" + found.group(1)
        if env not in call.tokens and env not in absent and env not in extra and not _negated(text[: found.start()]):
            extra.append(env)
    for found in _SETUP_STEP_RE.finditer(text):
        step = "pre:" + found.group(1)
        if step not in call.tokens and step not in absent and step not in extra and not _negated(text[: found.start()]):
            extra.append(step)
    for found in re.finditer(r"&&|;", text):
        # "always git push -u origin HEAD && gh pr create …" in prose: the step before the call.
        after = text[found.end() :].split()[:1]
        if not after or program_name(after[0].strip("`'\"")) != call.program:
            continue
        start = max(text.rfind(sep, 0, found.start()) for sep in ("&&", ";", "(", ": ", ". ", "`"))
        words = [w.strip("`'\"") for w in text[start + 1 : found.start()].split()]
        at = next((k for k, w in enumerate(words) if w.lower() not in _ENGLISH), -1)
        head = words[at] if at >= 0 else ""
        before = text[: found.start()]
        if not head or head.startswith("-") or _negated(before[start + 1 :]):
            continue
        step = "pre:" + program_name(head)
        if program_name(head) == call.program:
            # "terraform workspace select <env> && terraform plan": a step of the program's own.
            first = words[at + 1] if at + 1 < len(words) else ""
            if not re.fullmatch(r"[a-z][\w-]*", first) or first in call.sub(call.program, 1):
                continue
            step += " " + first
        if step not in call.tokens and step not in absent and step not in extra and head in KNOWN_PROGRAMS | {"cd"}:
            extra.append(step)
    # A step the advice says to put first, written as such: "always put `terraform workspace
    # select <env> &&` in front of plan/apply". The trigger may already run it (a marker line's
    # trigger is the call beside it, often the fix): the mistake is then the call without it.
    mistake = trigger
    for found in _ADVISED_STEP_RE.finditer(text):
        steps = [c for c in parse_command(found.group(1)) if c.levels]
        if not steps or _negated(text[: found.start()]):
            continue
        step = "pre:" + steps[0].outer
        if step not in absent and step not in extra:
            extra.append(step)
        if step in call.tokens:
            mistake = work_text(trigger)
    if not extra:
        return sig
    guarded = {**sig, "absent": absent + extra[:4]}
    return guarded if check(guarded, "Bash", {"command": mistake})[0] else sig


_ADD_FLAG_RE = re.compile(
    r"(?i)\b(?:add|adding|pass|passing|always\s+use|use|include|with|needs?|requires?)\s+[`'\"]?(-{1,2}[A-Za-z][\w-]*)"
    r"(?:[ =]([^\s,;()`'\"]+))?"
)


def _forbidden_step(trigger: str, text: str) -> str:
    """Of a compound trigger ("docker compose down -v && docker compose up -d"), the step the
    advice forbids ("never docker compose down -v"); the trigger itself otherwise."""
    steps = [c for c in parse_command(trigger) if c.levels and c.outer not in SETUP_PROGRAMS]
    if len(steps) < 2:
        return trigger
    for step in steps:
        words = [step.program, *step.sub(step.program)]
        at = (text or "").find(" ".join(words))
        if at >= 0 and (_negated(text[:at]) or _clause_forbids(text[:at])):
            return " ".join(quote(w) for w in step.env + step.argv)
    return trigger


def _clause_forbids(before: str) -> bool:
    """The clause a mention sits in says not to ("never gcloud run deploy with …")."""
    clause = re.split(r"[.;:!?\n](?:\s|$)", before)[-1]
    return re.search(r"(?i)\b(?:never|don'?t|do\s+not|avoid|not)\b", clause) is not None


def _trigger_is_the_fix(trigger: str, call: Call, text: str) -> dict[str, Any] | None:
    """The advice says to add a flag the trigger already has: the trigger is the fix."""
    have = _flag_values(call)
    flags = []
    # A whole other call of the program the advice gives ("uv add --dev 'x>=0.23'" for "uv add
    # --dev x==0.21"): its flags belong to that call, not advice to add one.
    spans = [(m.start(), m.end()) for m in _BACKTICK_RE.finditer(text or "")]
    whole = [c for c in fix_commands(text, call.program, {call.program}) if work_argv(c) != work_argv(trigger)]
    for m in _ADD_FLAG_RE.finditer(text or ""):
        flag, value = m.group(1), m.group(2) or ""
        if flag not in call.tokens or _negated(text[: m.start()]) or _clause_forbids(text[: m.start()]):
            continue  # "never gcloud run deploy with --allow-unauthenticated": the mistake named
        if any(flag in c.split() and c in text[max(0, m.start() - 200) : m.end() + 200] for c in whole):
            continue
        if any(a <= m.start() < b for a, b in spans) and whole:
            continue
        if value and value.lower() not in _ENGLISH and have.get(flag, value) != value:
            continue  # "pass -f charts/x/values.yaml": another value, not the trigger's flag as it is
        flags.append(flag)
    if not flags:
        return None
    try:
        words = shlex.split(trigger)
    except ValueError:
        return None
    without = [w for w in words if w.split("=", 1)[0] not in flags]
    if len(without) == len(words):
        return None
    sig = derive_command(" ".join(quote(w) for w in without), trigger, why=text, named_drops_only=True)
    return sig if sig and not check(sig, "Bash", {"command": trigger})[0] else None


def _flag_values(call: Call) -> dict[str, str]:
    """The call's flags with the value written after them (``--tests X``, ``--tests=X``)."""
    out: dict[str, str] = {}
    argv = call.argv
    for k, word in enumerate(argv):
        if not word.startswith("-"):
            continue
        flag, eq, value = word.partition("=")
        if eq:
            out[flag] = value
        elif k + 1 < len(argv) and not argv[k + 1].startswith("-"):
            out[flag] = argv[k + 1]
    return out


def _contrast(trigger: str, call: Call, fix: str, text: str) -> dict[str, Any] | None:
    """``derive_command`` against an advised fix whose placeholders (``X``, ``<path>``) are
    filled from the trigger: a placeholder is "whatever the mistake had", not a new value.
    The stored fix stays as the advice wrote it."""
    try:
        words = shlex.split(fix)
    except ValueError:
        words = fix.split()
    filled = fill_placeholders(words, _operands(call, call.program), _flag_values(call))
    lone = pick_call(fix) if len(words) == 1 else None
    if lone is not None and lone.program == call.program and call.argv:
        filled = [words[0], *call.argv[1:]]  # ".venv/bin/pip": the trigger, run from that path
    used = " ".join(w if w in ("&&", "||", ";", "|") else quote(w) for w in filled) if filled else fix
    sig = derive_command(trigger, used, why=text, named_drops_only=True)
    if sig and filled:
        sig["fix"] = " ".join(fix.split())[:200]
    return sig


_STEP_FIRST_RE = re.compile(r"^[`'\"]?\s*(?:first|before(?:hand)?\b|beforehand|ahead\b|,?\s*then\b)", re.I)
_RUN_BEFORE_RE = re.compile(
    r"(?i)\b(?:before|prior\s+to)\s+(?:you\s+)?(?:run(?:ning)?|call(?:ing)?|us(?:e|ing))?\s*[`'\"]?$"
)


_ADVISE_BEFORE_RE = re.compile(
    r"(?i)(?:\b(?:use|using|run|running|with|via|instead|prefer|try|call|through|always|switch(?:ing)?\s+to|"
    r"go(?:es)?\s+through|do|type)\b[^.;!?]{0,30}|[:→]|->|=>)\s*[`'\"]?$"
)


def _other_program_fixes(text: str, call: Call, trigger: str) -> list[str]:
    """Calls of another program the advice says to use (backticked, or a run of prose words
    that starts with a known program or a path), never one it negates or says fails. A call it
    says to run first becomes that step in front of the trigger."""
    out: list[str] = []
    spans = [(m.start(1), m.group(1)) for m in _BACKTICK_RE.finditer(text or "")]
    spans += [(text.find(c), c) for c in prose_commands(text) if text.find(c) >= 0]
    for at, span in sorted(spans):
        lead = re.search(r"(?:^|[\s`(])(source|\.)\s+$", text[max(0, at - 10) : at])
        if lead:  # "source scripts/env.sh <env>": the run of prose words started after the builtin
            span, at = f"{lead.group(1)} {span}", at - len(lead.group(0).lstrip("`( "))
        fcall = pick_call(span)
        if fcall is None or not fcall.levels or fcall.help or fcall.program == call.program:
            continue
        if fcall.program in DIAGNOSTIC_PROGRAMS and fcall.program not in ("cd", "source", "."):
            continue
        if _negated(text[:at]) or named_as_mistake(text, at, at + len(span)) or work_argv(span) == work_argv(trigger):
            continue
        if not _ADVISE_BEFORE_RE.search(text[max(0, at - 50) : at]):
            continue  # "make clean removes only data/interim": a description, not advice
        after = text[at + len(span) :].lstrip("`'\" ")
        if _STEP_FIRST_RE.match(after) or _RUN_BEFORE_RE.search(text[max(0, at - 40) : at]):
            span = f"{span} && {trigger}"
        if span not in out:
            out.append(span)
    return out[:4]


DOCKERFILE_GLOB = "Dockerfile|Dockerfile.*|*.dockerfile|Containerfile"
_DOCKERFILE_LINE_RE = re.compile(r"\b(?:FROM|RUN|COPY|ADD|ENV|EXPOSE|CMD|ENTRYPOINT|WORKDIR|USER|ARG|HEALTHCHECK)\s+\S")


def _dockerfile_sig(trigger: str, text: str) -> dict[str, Any] | None:
    """A Dockerfile instruction as the mistake ("FROM node:latest", or a sentence that forbids
    one: "never FROM <image>:latest"): a pattern over edits of Dockerfiles."""
    line = trigger.strip()
    if not (_DOCKERFILE_LINE_RE.match(line) or re.search(r"(?i)\bdocker\s*file|\bbase images?\b", text + line)):
        return None
    found = code_advice.derive([line], text) if _DOCKERFILE_LINE_RE.match(line) else None
    if found is None:
        for frag in code_advice.forbidden_fragments(f"{line} {text}"):
            if _DOCKERFILE_LINE_RE.match(frag):
                found = code_advice.derive([frag], f"{line} {text}")
                if found is not None:
                    break
    if found is None:
        return None
    return _advised_sig({"v": SIG_VERSION, "kind": "edit", "glob": DOCKERFILE_GLOB}, found)


_ADVISING_VERB_RE = re.compile(r"(?i)\b(?:use|run|prefer|try|just)\s+`?$")


def _advised_as_is(fix: str, text: str) -> bool:
    """The advice tells to run ``fix`` as it is ("never docker compose down -v; use docker
    compose down"): a call that is part of the mistake, advised by a verb just before it and
    ending its clause."""
    start = text.find(fix)
    while start >= 0:
        after = text[start + len(fix) :]
        # As it is: the clause ends there ("use docker compose down, or …"), not "run cargo test with …".
        if _ADVISING_VERB_RE.search(text[max(0, start - 12) : start]) and re.match(r"`?\s*(?:[,.;:)]|$|or\b)", after):
            return True
        start = text.find(fix, start + 1)
    return False


def _derive_from_trigger(trigger: str, text: str = "") -> dict[str, Any] | None:
    trigger = (trigger or "").strip()
    m = _EDIT_TRIGGER_RE.match(trigger)
    if m:
        path, snippet = m.group(2), m.group(3).strip()
        return (
            derive_edit_alone(path, snippet, text=text)
            if snippet
            else {"v": SIG_VERSION, "kind": "edit", "glob": path.rsplit("/", 1)[-1]}
        )
    docker = _dockerfile_sig(trigger, text)
    if docker is not None:
        return docker
    if is_code_like(trigger):
        return derive_code_trigger(trigger, text)
    if not is_command_like(trigger):
        return None
    trigger = _forbidden_step(trigger, text)
    call = pick_call(trigger)
    if call is None or not call.levels or call.help:
        return None
    prog = call.program
    # The trigger is the advised call itself ("always add -am, e.g. ./mvnw -pl web -am test", a
    # marker line's example): the mistake is that call without what the advice says to add.
    sig = _trigger_is_the_fix(trigger, call, text)
    if sig:
        return sig
    # A fix named in the advice, running the same program: contrast with it.
    starts = {p for p, _ in call.levels} | {"uv", "poetry", "pnpm", "yarn", "npx", "python", "python3", "bundle"}
    mine = {t for t in call.tokens if not t.startswith(("exe:", "prog:"))}
    backticked = set(_BACKTICK_RE.findall(text or ""))
    for fix in fix_commands(text, prog, starts):
        if work_argv(fix) == work_argv(trigger):
            continue
        fcall = pick_call(fix)
        if (
            fix not in backticked
            and fcall is not None
            and {t for t in fcall.tokens if not t.startswith(("exe:", "prog:"))} <= mine
            and not _pathed_over_bare(fcall, call)
            and not _advised_as_is(fix, text)
        ):
            continue  # the prose only mentions the mistake (or part of it)
        if fix not in backticked and fcall is not None and not _looks_like_a_fix(fcall, call, fix):
            continue  # "(docker driver)", "psql as source .env …": prose around a program's name
        sig = _contrast(trigger, call, fix, text)
        if sig:
            return sig
    # A fix on another program, or a step to run first ("always use the wrapper, ./gradlew",
    # "run npm test -- <path>", "run `vpn up` first").
    for fix in _other_program_fixes(text, call, trigger):
        sig = _contrast(trigger, call, fix, text)
        if not sig:
            continue
        fcall = pick_call(fix)
        wrapper = fcall is not None and (fcall.program.startswith(prog) or prog.startswith(fcall.program))
        if not wrapper:
            # Another program for this operation ("go test ./..." -> "make unit"): the trigger's
            # own narrowing stays (only "go test ./...", not every go test).
            alone = derive_command(trigger, None, why=text, named_parts=False)
            if alone is None:
                continue
            merged: dict[str, Any] = {**alone, **{k: sig[k] for k in ("fix", "absent") if k in sig}}
            if any(is_placeholder(w) for w in fix.split()):
                # "run npm test -- <path>": the trigger's operands are any operands.
                kept = [p for p in merged.get("present") or [] if str(p).startswith(("-", "prog:", "exe:", "pre:"))]
                merged = {k: v for k, v in {**merged, "present": kept}.items() if v or k != "present"}
            if check(merged, "Bash", {"command": fix})[0] or not check(merged, "Bash", {"command": trigger})[0]:
                continue
            sig = merged
        return sig
    # The advice says which flag to add or which value to give ("pass
    # --region eu-west-1", "use -f charts/x/values.yaml"): that is the fix.
    advised = advice_fix(trigger, text)
    if advised:
        sig = derive_command(trigger, advised, why=text, named_drops_only=True)
        if sig:
            # A fix written from advice, not seen run: the trigger's own flags
            # stay part of the mistake ("mypy --install-types" without
            # --non-interactive, not every mypy call).
            alone = derive_command(trigger, None, why=text, named_parts=False) or {}
            # What of the trigger the advice names: "a no-cache build of api" keeps --no-cache and
            # api; "always pass -i … to ansible-playbook" keeps nothing of "site.yml --check".
            named = [i for i in alone.get("present") or [] if _flag_named(i, text) or _operand_named(i, text)]
            if not sig.get("present") and named:
                widened = {**sig, "present": named}
                if (
                    check(widened, "Bash", {"command": trigger})[0]
                    and not check(widened, "Bash", {"command": advised})[0]
                ):
                    sig = widened
            elif sig.get("absent") and sig.get("present"):
                # The trigger's other flags are one example of the call, unless the advice names them.
                pruned = [p for p in sig["present"] if not str(p).startswith("-") or _flag_named(p, text)]
                # A file of it the advice names stays ("deploy.yml reads vaulted vars: pass …"); a
                # bare word may be the advised flag's value ("-c ingest").
                pruned += [i for i in named if i not in pruned and not str(i).startswith("-") and _ext(str(i))]
                narrowed = {k: v for k, v in {**sig, "present": pruned}.items() if v or k != "present"}
                if (
                    (narrowed.get("present") or narrowed.get("sub"))  # never down to every call of the program
                    and check(narrowed, "Bash", {"command": trigger})[0]
                    and not check(narrowed, "Bash", {"command": advised})[0]
                ):
                    sig = narrowed
            return sig
    # Advice text names the project and its files freely: only flags and whole
    # operands it names count (a user's correction may name a value's part).
    sig = derive_command(trigger, None, why=text, named_parts=False)
    if sig is None:
        return None
    # Flags the advice names that the trigger lacks, and does not forbid: the fix adds them.
    have = {t.split("=", 1)[0] for t in call.tokens}
    extra = []
    for found in _FLAG_IN_TEXT_RE.finditer(text or ""):
        flag = found.group(0)
        if flag in have or len(flag) < 2 or flag in extra or flag.startswith("-" * 3):
            continue
        if _negated(text[: found.start()]) or _listed_with(flag, have, text) or _bundle_of(flag, have):
            continue  # "never … (git commit --no-verify / -n)": another name of the mistake
        if _in_a_step_before(text, found.start(), call.program):
            continue  # "git push -u origin HEAD && gh pr create": the step's flag, not the call's
        extra.append(flag)
    if extra:
        sig["absent"] = extra[:4]
        # The trigger's other flags are one example of the call, unless the advice names them.
        present = [p for p in sig.get("present") or [] if not str(p).startswith("-") or _flag_named(p, text)]
        if present or sig.get("sub"):  # never down to every call of the program
            sig["present"] = present
            if not present:
                sig.pop("present")
        if not check(sig, "Bash", {"command": trigger})[0]:
            sig = derive_command(trigger, None, why=text, named_parts=False) or sig
    return sig


def _a_name(word: str) -> bool:
    """An operand that names something (a remote, a package, an environment), not a path,
    a number or a placeholder."""
    return bool(re.fullmatch(r"[A-Za-z][\w./-]{1,60}", word)) and not _ext(word) and not is_placeholder(word)


def _narrower_bundle(flag: str, word: str) -> bool:
    """``-fd`` against the call's ``-fdx``: the same switches, some left out."""
    a, b = flag[1:], word[1:]
    return (
        flag.startswith("-")
        and word.startswith("-")
        and not flag.startswith("--")
        and not word.startswith("--")
        and a.isalpha()
        and b.isalpha()
        and len(a) >= 2
        and set(a) < set(b)
    )


def _bundle_of(flag: str, have: set[str]) -> bool:
    """``-fd`` when the trigger has ``-f`` and ``-d`` (``git clean -fdx``): nothing new."""
    body = flag[1:]
    return not flag.startswith("--") and len(body) > 1 and body.isalpha() and all(f"-{c}" in have for c in body)


def _operand_named(item: str, text: str) -> bool:
    """Does the advice name a ``present`` operand (a word of the text)?"""
    item = str(item)
    if item.startswith(("-", "re:", "exe:", "prog:", "pre:", "post:", "env:", "via:", "run:")) or len(item) < 2:
        return item.startswith(("exe:", "prog:", "via:", "run:", "env:"))  # how it runs: always kept
    return re.search(rf"(?<![\w./-]){re.escape(item)}(?![\w/-])", text or "") is not None


def _flag_named(item: str, text: str) -> bool:
    """Does the advice name the flag of a ``present`` item (any of its ``a|b`` forms)?"""
    for alt in str(item).split("|"):
        flag = alt.split("=", 1)[0]
        if flag.startswith("-") and re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text or ""):
            return True
        name = flag.lstrip("-")
        if (
            flag.startswith("--")
            and len(name) >= 4
            and re.search(rf"(?i)(?<![\w-]){re.escape(name)}(?![\w-])", text or "")
        ):
            return True  # "a no-cache build": --no-cache, named in prose
    return False


_LIST_SEP = r"\s*(?:/|\||,|\bor\b)\s*"


def _listed_with(flag: str, have: set[str], text: str) -> bool:
    """The advice writes ``flag`` as another name of one the trigger has ("--no-verify / -n")."""
    for other in have:
        if not other.startswith("-"):
            continue
        a, b = re.escape(other), re.escape(flag)
        if re.search(rf"(?<![\w-]){a}{_LIST_SEP}{b}(?![\w-])|(?<![\w-]){b}{_LIST_SEP}{a}(?![\w-])", text or ""):
            return True
    return False


def _with_listed_aliases(sig: dict[str, Any], text: str) -> dict[str, Any]:
    """A present flag the advice lists with another name ("--no-verify / -n", "-f or
    --force") matches either name."""
    present = sig.get("present")
    if not present or not text:
        return sig
    out = []
    for item in present:
        item = str(item)
        if item.startswith("-") and "=" not in item:
            names = item.split("|")
            for found in _FLAG_IN_TEXT_RE.finditer(text):
                other = found.group(0)
                if other not in names and _listed_with(other, set(names), text):
                    names.append(other)
            item = "|".join(names)
        out.append(item)
    return {**sig, "present": out}


_ADVICE_FLAG_RE = re.compile(r"^--?[A-Za-z][\w-]*(?:=\S+)?$")
_ENGLISH = _PROSE_WORDS | _PROSE_VERBS | {
    "a", "an", "to", "of", "in", "on", "or", "and", "it", "so", "as", "at", "by", "is", "be", "if", "every",
    "each", "all", "any", "flag", "option", "here", "there", "too", "again", "set", "missing", "required",
}  # fmt: skip


# Programs a sentence may name as the start of a call ("./deploy.sh --env
# staging fails …", "npm install needs …"): paths and these names.
KNOWN_PROGRAMS = {
    "git", "gh", "kubectl", "helm", "terraform", "tofu", "docker", "podman", "docker-compose", "aws", "gcloud",
    "az", "make", "cmake", "npm", "pnpm", "yarn", "npx", "bun", "bunx", "deno", "node", "cargo", "rustup", "go",
    "pip", "pip3", "uv", "uvx", "poetry", "pipenv", "pytest", "python", "python3", "tox", "ruff", "mypy", "bundle",
    "rails", "rake", "gem", "ruby", "mvn", "gradle", "./gradlew", "./mvnw", "dotnet", "psql", "mysql", "rsync",
    "scp", "ssh", "curl", "wget", "sed", "tar", "alembic", "flask", "django-admin", "jest", "vitest", "tsc",
    "eslint", "prettier", "ansible-playbook", "vagrant", "packer", "sam", "serverless", "firebase", "vercel",
    "fly", "heroku", "kustomize", "skaffold", "minikube", "kind", "k9s", "redis-cli", "mongosh", "sqlite3",
}  # fmt: skip


def prose_commands(text: str, negated: bool = False) -> list[str]:
    """Calls a sentence names without backticks: a run of words that starts
    with a path or a known program and stops at the first word of prose
    ("./deploy.sh --env staging fails with …" -> ``./deploy.sh --env staging``).
    Those it says not to run ("never terraform apply -auto-approve") are left out, or with
    ``negated`` are the only ones returned."""
    out: list[str] = []
    for clause in re.split(r"[;()\n]|:(?=\s|$)|,\s|(?<=[A-Za-z0-9])\.(?:\s|$)|\s[—–]\s", text or ""):
        words = clause.split()
        for i, word in enumerate(words):
            bare = word.strip("`'\"")
            starts = bare in KNOWN_PROGRAMS or bare.startswith(("./", "bin/", "scripts/")) or bare.endswith(".sh")
            if not starts or _negated(" ".join(words[:i])) != negated:
                continue
            run = []
            for w in words[i:]:
                w2 = w.strip("`'\"")
                if not w2 or w2.lower() in _ENGLISH or w2.lower() in ("with", "for", "when", "because", "unless"):
                    break
                run.append(w2)
            cand = " ".join(run).rstrip(".,")
            if cand and is_command_like(cand) and pick_call(cand) is not None and cand not in out:
                out.append(cand)
            break
    return out


def _flag_of_another_subcommand(raw: list[str], k: int, program: str, msub: list[str]) -> bool:
    """The flag at ``raw[k]`` follows "<program> <another subcommand>" in the same clause of
    the advice ("mix ecto.rollback --step 1" for a "mix ecto.reset" mistake)."""
    if not msub:
        return False
    for j in range(k - 1, max(-1, k - 5), -1):
        if raw[j].endswith((";", ".", ")", ":", ",")) and j < k - 1:
            return False  # another clause
        if program_name(raw[j].strip("`'\"(")) == program:
            nxt = raw[j + 1].strip("`'\".,;:()") if j + 1 < k else ""
            if not nxt or nxt.startswith("-") or not nxt[:1].isalpha():
                return False
            return msub[0] not in re.split(r"[/,|]", nxt.lower())  # "aws logs/lambda": logs or lambda
    return False


def advice_fix(mistake: str, text: str) -> str | None:
    """The mistaken call as the advice ``text`` would have it: the flags it
    says to pass added, the values it gives set ("always pass --region
    eu-west-1" -> ``… --region eu-west-1``). Flags the text negates ("not -f
    values.yaml") are left alone. None when the advice changes nothing."""
    call = pick_call(mistake)
    if call is None or not call.levels or not text:
        return None
    raw = text.split()
    offsets = [m.start() for m in re.finditer(r"\S+", text)]
    words = [w.strip("`'\".,;:()[]") for w in raw]
    pairs: dict[str, str] = {}
    msub = call.sub(call.program)[:1]
    for k, word in enumerate(words):
        if not _ADVICE_FLAG_RE.match(word) or _negated(" ".join(words[max(0, k - 6) : k])):
            continue
        if _flag_of_another_subcommand(raw, k, call.program, msub):
            continue  # "mix ecto.rollback --step 1": not a flag of the trigger's "mix ecto.reset"
        if _in_a_step_before(text, offsets[k], call.program):
            continue  # "git push -u origin HEAD && gh pr create": a flag of the step before
        before = " ".join(raw[:k])
        if _clause_forbids(before) and not re.search(r"(?i)\b(?:use|pass|add|run|with|instead)\b[^;.]*$", before):
            continue  # "never docker compose down -v / --volumes": the mistake's other name
        if _listed_with(word.partition("=")[0], set(call.flags), text):
            continue
        if in_negated_parenthesis(" ".join(raw[:k])):
            continue
        flag, eq, value = word.partition("=")
        if not eq and k + 1 < len(words):
            nxt = words[k + 1]
            if nxt and not nxt.startswith("-") and nxt.lower() not in _ENGLISH and re.search(r"[\d/._=-]", nxt):
                value = nxt
        if value or flag not in pairs:
            pairs[flag] = value
    if not pairs:
        return None
    argv = list(call.env + call.argv)
    changed = False
    for flag, value in pairs.items():
        names = {flag, _aliases(call.program).get(flag, flag)}
        at = next((i for i, w in enumerate(argv) if w.split("=", 1)[0] in names), None)
        bigger = next((i for i, w in enumerate(argv) if _narrower_bundle(flag, w)), None)
        if at is None and not value and bigger is not None:
            argv[bigger], changed = flag, True  # "use git clean -fd" for "git clean -fdx": the x goes
            continue
        if at is None and not value:
            # A safer form of a flag the call has ("--force" -> "--force-with-lease"): it replaces it.
            longer = {
                i
                for i, w in enumerate(argv)
                if w.startswith("-")
                and "=" not in w
                and any(
                    flag.startswith(n + "-") or flag == "--no-" + n[2:]  # --force-with-lease, --no-allow-x
                    for n in (w, _aliases(call.program).get(w, w))
                    if n.startswith("--")
                )
            }
            if longer:
                argv = [
                    flag if i == min(longer) else w for i, w in enumerate(argv) if i == min(longer) or i not in longer
                ]
                changed = True
                continue
        if at is None:
            argv += [flag, value] if value else [flag]
            changed = True
        elif value:
            word = argv[at]
            if "=" in word and word.split("=", 1)[1] != value:
                argv[at], changed = f"{word.split('=', 1)[0]}={value}", True
            elif "=" not in word and at + 1 < len(argv) and argv[at + 1] != value and not argv[at + 1].startswith("-"):
                argv[at + 1], changed = value, True
    return " ".join(quote(w) for w in argv) if changed else None


# ---------------------------------------------------------------------------
# The structured lesson
# ---------------------------------------------------------------------------


def describe_call(command: str) -> dict[str, Any]:
    """The normalised form of a shell call (program, subcommand, flags, values)."""
    call = pick_call(command)
    if call is None:
        return {"tool": "Bash", "command": command}
    return {
        "tool": "Bash",
        "command": " ".join(command.split())[:300],
        "program": call.program,
        "runners": [p for p, _ in call.levels[:-1]],
        "sub": call.sub(call.program),
        "flags": list(call.flags),
        "values": {k: v[:3] for k, v in call.values.items()},
        "env": [e.split("=", 1)[0] for e in call.env],
    }


# File extension -> language family (recall's language filter uses it too).
EXTENSION_LANGUAGE = {
    "py": "python", "pyi": "python", "ipynb": "python",
    "js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript",
    "ts": "javascript", "tsx": "javascript",  # one family: the same tooling mistakes
    "rs": "rust", "go": "go", "java": "java", "kt": "kotlin", "rb": "ruby", "php": "php",
    "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cs": "csharp", "swift": "swift",
    "sh": "shell", "bash": "shell", "zsh": "shell", "sql": "sql", "tf": "terraform",
    "md": "markdown", "yaml": "yaml", "yml": "yaml", "toml": "toml", "json": "json",
}  # fmt: skip


def language_of(path: str) -> str:
    ext = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    return EXTENSION_LANGUAGE.get(ext, "")


def structured(
    mistake: dict[str, Any],
    fix: dict[str, Any] | None,
    why: str,
    signature: dict[str, Any] | None,
    kind: str,
    tool: str = "",
    session: str = "",
    turn: int | None = None,
) -> dict[str, Any]:
    """Assemble the structured lesson dict (see the module docstring)."""
    scope: dict[str, Any] = {"tool": tool or mistake.get("tool", "")}
    if mistake.get("program"):
        scope["program"] = mistake["program"]
    if signature and signature.get("kind") == "edit":
        scope["glob"] = signature.get("glob", "")
        scope["language"] = language_of(str(signature.get("glob", "")))
    out: dict[str, Any] = {
        "mistake": mistake,
        "fix": fix or {},
        "why": (why or "")[:300],
        "scope": scope,
        "evidence": {"kind": kind, "session": session, "turn": turn},
    }
    if signature:
        out["signature"] = signature
    return out


def signature_of(exp_structured: dict[str, Any] | None, trigger: str, text: str) -> dict[str, Any] | None:
    """The signature to check for a stored lesson: its own, else one derived from its trigger."""
    if exp_structured:
        sig = exp_structured.get("signature")
        if isinstance(sig, dict) and sig:
            return sig
        if exp_structured.get("no_signature"):
            return None
    try:
        return derive_from_trigger(trigger, text)
    except Exception:  # a trigger we cannot read has no signature
        return None


__all__ = [
    "derive_code",
    "derive_command",
    "derive_edit_alone",
    "derive_from_retries",
    "derive_from_trigger",
    "describe_call",
    "edit_parts",
    "is_diagnostic",
    "pick_call",
    "signature_of",
    "structured",
]


def same_action(a: str, b: str) -> bool:
    """Two calls of the same program and subcommand (``kubectl logs x`` / ``kubectl logs x -c y``)."""
    ca, cb = pick_call(a), pick_call(b)
    if ca is None or cb is None or not ca.levels or not cb.levels or ca.program != cb.program:
        return False
    if ca.help or cb.help:
        return False
    # Service and operation: "aws logs tail" and "aws logs describe-log-groups" are two actions.
    depth = 2 if ca.program in _SERVICE_CLIS else 1
    sa, sb = ca.sub(ca.program)[:depth], cb.sub(cb.program)[:depth]
    return bool(sa) and sa == sb


_SERVICE_CLIS = {"aws", "gcloud", "az"}  # <program> <service> <operation> …


def flags_in_text(text: str) -> list[str]:
    """Flags written in advice text (``--context``, ``-c``), in order."""
    out: list[str] = []
    for flag in _FLAG_IN_TEXT_RE.findall(text or ""):
        if flag not in out and not flag.startswith("---"):
            out.append(flag)
    return out


def steps_of(command: str) -> tuple[str, ...]:
    """The programs of a line's other steps, in order (``source .env && psql …`` -> ``("source",)``):
    the same working call with another step before or after it is another line."""
    calls = [c for c in parse_command(command or "") if c.levels]
    work = pick_call(command)
    rest = list(calls)
    for i, c in enumerate(calls):
        if work is not None and c.argv == work.argv:
            del rest[i]
            break
    return tuple(c.outer for c in rest)


def work_argv(command: str) -> tuple[str, ...]:
    """The working simple command's environment and argv, exactly (quoting and
    empty arguments kept: ``sed -i ''`` is not ``sed -i``)."""
    call = pick_call(command)
    return tuple(call.env + call.argv) if call is not None else ()


def quote(word: str) -> str:
    """Shell-quote one word for display and re-parsing."""
    from twiceshy.hooks.match import _quote

    return _quote(word) if word else "''"
