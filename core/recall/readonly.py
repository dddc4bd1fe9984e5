"""Which tool calls cannot change anything, so the hook can answer at once.

A lesson warns about an action that went wrong; an action that only reads
(``ls``, ``cat``, ``git status`` …) cannot go wrong in a way worth a search,
so :func:`is_read_only_event` lets the dispatcher skip every embedding and
store query for it. The classifier is deliberately conservative: anything it
does not recognise, any redirection into a file, any command substitution or
subshell, makes the whole command "not read-only" and the normal search runs.

A chained command (``;``, ``&&``, ``||``, ``|``, ``&``, newlines) is
read-only only when every part is. Stdlib only; runs in the engine on every
pre-tool call (it costs microseconds, see docs/engine.md).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from twiceshy.base.types import CoreEvent

# Tools (of any agent) that only read files or the web: never mutating.
READ_ONLY_TOOLS = frozenset(
    {
        # Claude Code
        "read",
        "grep",
        "glob",
        "ls",
        "notebookread",
        "websearch",
        "webfetch",
        # Gemini CLI
        "read_file",
        "read_many_files",
        "list_directory",
        "search_file_content",
        "google_web_search",
        "web_fetch",
        # Cursor / generic
        "readfile",
        "read_file_content",
    }
)

# Commands that only read, whatever their arguments (output redirection is
# checked separately, before we get here).
SIMPLE_READERS = frozenset(
    """
    ls ll la dir vdir cat tac head tail less more wc grep egrep fgrep rg ag ack pwd echo printf
    which whereis type file stat du df tree diff cmp comm cut tr nl od xxd hexdump strings
    md5sum sha1sum sha256sum sha512sum b2sum cksum basename dirname realpath readlink id whoami
    groups hostname uname printenv true false test [ jq column fold fmt expand unexpand rev ps
    free uptime lsof man help cd pushd popd dirs look zcat zgrep zless bzcat xzcat lscpu lsblk
    nproc locale tput env
    """.split()
)

# git subcommands that never write, whatever their flags (bar --output).
GIT_READERS = frozenset(
    """
    status log diff show rev-parse ls-files ls-tree ls-remote blame shortlog describe grep
    cat-file rev-list name-rev whatchanged count-objects check-ignore check-attr help version
    merge-base for-each-ref show-ref show-branch var diff-tree diff-files diff-index annotate
    cherry range-diff verify-commit verify-tag fsck
    """.split()
)

# git global options that take a separate value.
_GIT_GLOBAL_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})

# find actions that write or run something.
_FIND_WRITERS = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"})

# Read-only subcommands of a few common tools.
_SUBCOMMAND_READERS: dict[str, frozenset[str]] = {
    "pip": frozenset({"list", "show", "freeze", "check", "help", "search", "index", "inspect"}),
    "pip3": frozenset({"list", "show", "freeze", "check", "help", "search", "index", "inspect"}),
    "npm": frozenset({"ls", "list", "view", "info", "outdated", "help", "search", "explain", "why", "root", "prefix"}),
    "docker": frozenset({"ps", "images", "logs", "inspect", "version", "info", "top", "stats", "port", "history"}),
    "kubectl": frozenset({"get", "describe", "logs", "version", "explain", "top", "api-resources", "api-versions"}),
    "cargo": frozenset({"tree", "metadata", "search", "version", "help"}),
    "go": frozenset({"version", "env", "list", "doc", "help"}),
    "uv": frozenset({"tree", "version", "help"}),
    "brew": frozenset({"list", "info", "search", "outdated", "deps", "config", "doctor", "leaves"}),
    "apt": frozenset({"list", "show", "search", "policy"}),
    "apt-cache": frozenset({"search", "show", "policy", "depends", "rdepends", "showpkg"}),
    "systemctl": frozenset({"status", "list-units", "list-unit-files", "is-active", "is-enabled", "show", "cat"}),
}

# Wrappers that run the rest of the words as a command.
_WRAPPERS = frozenset({"time", "nice", "nohup", "command", "builtin", "exec"})

# xargs options that take a separate value.
_XARGS_WITH_VALUE = frozenset(
    {
        "-I",
        "-i",
        "-n",
        "-P",
        "-L",
        "-l",
        "-d",
        "-s",
        "-E",
        "-e",
        "-a",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
    }
)

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# A redirection target that writes nothing: /dev/null or an fd duplicate.
_HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr")
# sed commands that write a file or run one: `w file`, `W file`, `e cmd`.
_SED_WRITES = re.compile(r"(^|[;}\n/])\s*[wWe](\s|$)")

_MAX_COMMAND = 4000


class _NotReadOnly(Exception):
    """Raised while scanning as soon as something mutating (or unknown) shows up."""


def _split_chain(command: str) -> list[str]:
    """Split a command line on unquoted ; && || | & and newlines.

    Raises :class:`_NotReadOnly` on command substitution, process
    substitution, subshells, groups, here-documents and redirections into a
    file. Redirections to /dev/null and fd duplicates (``2>&1``) are dropped.
    """
    parts: list[str] = []
    buf: list[str] = []
    i, n = 0, len(command)
    quote = ""  # "'" or '"' while inside quotes
    while i < n:
        ch = command[i]
        if quote == "'":
            buf.append(ch)
            if ch == "'":
                quote = ""
            i += 1
            continue
        if ch == "\\":
            buf.append(command[i : i + 2])
            i += 2
            continue
        if quote == '"':
            if ch == "`" or (ch == "$" and command[i + 1 : i + 2] == "("):
                raise _NotReadOnly("substitution in double quotes")
            buf.append(ch)
            if ch == '"':
                quote = ""
            i += 1
            continue
        # unquoted
        if ch in "'\"":
            quote = ch
            buf.append(ch)
            i += 1
            continue
        if ch == "`" or (ch == "$" and command[i + 1 : i + 2] == "("):
            raise _NotReadOnly("command substitution")
        if ch in "()":
            raise _NotReadOnly("subshell")
        if ch in "{}" and _standalone(command, i):
            raise _NotReadOnly("command group")
        if ch in ";\n":
            parts.append("".join(buf))
            buf = []
            i += 1
            continue
        if ch in "|&":
            # &&, ||, |, |&, & — all separate commands. `>&` / `&>` are handled below.
            if ch == "&" and command[i + 1 : i + 2] == ">":
                i = _redirect(command, i + 1, buf, fd_prefix="&")
                continue
            parts.append("".join(buf))
            buf = []
            i += 2 if command[i + 1 : i + 2] in ("&", "|") else 1
            continue
        if ch == ">":
            i = _redirect(command, i, buf)
            continue
        if ch == "<":
            if command[i + 1 : i + 2] == "<":
                raise _NotReadOnly("here-document")
            if command[i + 1 : i + 2] == "(":
                raise _NotReadOnly("process substitution")
            buf.append(" ")  # input redirection: reads a file, harmless; keep the word apart
            i += 1
            continue
        buf.append(ch)
        i += 1
    if quote:
        raise _NotReadOnly("unbalanced quotes")
    parts.append("".join(buf))
    return [p for p in (part.strip() for part in parts) if p]


def _standalone(command: str, i: int) -> bool:
    """Is the character at ``i`` a word of its own (``{ ls; }``), not part of
    ``{}`` in find or a brace expansion like ``{a,b}``?"""
    before = command[i - 1] if i > 0 else " "
    after = command[i + 1] if i + 1 < len(command) else " "
    return before in " \t\n;&|" and after in " \t\n;&|"


def _redirect(command: str, i: int, buf: list[str], fd_prefix: str = "") -> int:
    """Handle an output redirection starting at ``command[i] == '>'``.

    Returns the index after its target. Raises unless the target is
    /dev/null or an fd duplicate. A leading fd number (``2>``) already sits
    in ``buf``; it is removed.
    """
    while buf and buf[-1].isdigit():
        buf.pop()
    j = i + 1
    if command[j : j + 1] in (">", "|"):
        j += 1
    while j < len(command) and command[j] in " \t":
        j += 1
    if command[j : j + 1] == "&":  # >&2, >&-
        j += 1
        start = j
        while j < len(command) and (command[j].isdigit() or command[j] == "-"):
            j += 1
        if j == start:
            raise _NotReadOnly("redirection to a file")
        buf.append(" ")
        return j
    start = j
    while j < len(command) and command[j] not in " \t;\n|&<>()":
        j += 1
    target = command[start:j].strip("'\"")
    if target not in _HARMLESS_TARGETS:
        raise _NotReadOnly(f"redirection into {target or '?'}")
    buf.append(" ")
    return j


def _words(part: str) -> list[str]:
    try:
        return shlex.split(part, comments=True, posix=True)
    except ValueError:
        raise _NotReadOnly("unparsable") from None


def _positional(args: Iterable[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _simple_read_only(words: list[str]) -> bool:
    """Is one simple command (already split into words) read-only?"""
    # Leading assignments (LC_ALL=C sort …) and negation don't change anything.
    while words and (_ASSIGNMENT.match(words[0]) or words[0] == "!"):
        words = words[1:]
    if not words:
        return False  # a bare assignment: not a command we know
    while words and os.path.basename(words[0]) in _WRAPPERS:
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if not words:
        return False
    name = os.path.basename(words[0])
    args = words[1:]
    if len(args) == 1 and args[0] in ("--version", "--help") and "/" not in words[0]:
        return True
    if name == "git":
        return _git_read_only(args)
    if name == "find":
        return not any(a in _FIND_WRITERS for a in args)
    if name == "sed":
        if any(a.startswith("-i") or a.startswith("--in-place") for a in args):
            return False
        scripts = [a for a in args if not a.startswith("-")][:1] + [
            args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-e", "--expression")
        ]
        return not any(_SED_WRITES.search(s) for s in scripts)
    if name in ("sort",):
        return not any(a.startswith("-o") or a.startswith("--output") for a in args)
    if name == "uniq":
        return len(_positional(args)) <= 1  # `uniq in out` writes out
    if name == "tee":
        return all(a in _HARMLESS_TARGETS or a.startswith("-") for a in args)
    if name == "date":
        return not any(a in ("-s", "--set") or a.startswith("--set=") for a in args)
    if name == "hostname":
        return not _positional(args)
    if name == "env":
        rest = [a for a in args if not _ASSIGNMENT.match(a)]
        if any(a.startswith("-") for a in rest):
            return False
        return not rest or _simple_read_only(rest)
    if name == "yq":
        return not any(a in ("-i", "--inplace") or a.startswith("--inplace") for a in args)
    if name == "xargs":
        return _xargs_read_only(args)
    if name in SIMPLE_READERS:
        return True
    if name in _SUBCOMMAND_READERS:
        sub = _positional(args)
        return bool(sub) and sub[0] in _SUBCOMMAND_READERS[name]
    return False


def _xargs_read_only(args: list[str]) -> bool:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        k += 2 if args[k] in _XARGS_WITH_VALUE else 1
    rest = args[k:]
    return bool(rest) and _simple_read_only(rest)


def _git_read_only(args: list[str]) -> bool:
    k = 0
    while k < len(args) and args[k].startswith("-"):
        opt = args[k]
        if opt in ("--version", "--help"):
            return True
        k += 2 if opt in _GIT_GLOBAL_WITH_VALUE else 1
    if k >= len(args):
        return False
    sub, rest = args[k], args[k + 1 :]
    if any(a.startswith("--output") for a in rest):
        return False
    if sub in GIT_READERS:
        return True
    if sub == "branch":
        listing = {
            "-a",
            "--all",
            "-r",
            "--remotes",
            "-v",
            "-vv",
            "--verbose",
            "--list",
            "-l",
            "--show-current",
            "--merged",
            "--no-merged",
            "--contains",
            "--no-contains",
            "--sort",
            "--color",
            "--no-color",
            "--column",
            "--no-column",
        }
        flags = [a for a in rest if a.startswith("-")]
        if not all(f.split("=")[0] in listing for f in flags):
            return False
        # positionals are only allowed as patterns after --list / -l or as refs after --contains/--merged
        return not _positional(rest) or any(
            f in ("--list", "-l", "--contains", "--merged", "--no-merged", "--no-contains") for f in flags
        )
    if sub == "tag":
        return (
            not rest
            or any(a in ("-l", "--list") for a in rest)
            and not any(a in ("-d", "--delete", "-a", "-s", "-f") for a in rest)
        )
    if sub == "remote":
        return not rest or rest[0] in ("-v", "--verbose", "show", "get-url")
    if sub == "stash":
        return bool(rest) and rest[0] in ("list", "show")
    if sub == "worktree":
        return bool(rest) and rest[0] == "list"
    if sub == "reflog":
        return not rest or rest[0] == "show" or rest[0].startswith("-")
    if sub == "config":
        return any(a in ("--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch") for a in rest)
    if sub == "symbolic-ref":
        return len(_positional(rest)) <= 1
    if sub == "notes":
        return not rest or rest[0] in ("list", "show")
    return False


def is_read_only(command: str) -> bool:
    """True when every part of the shell ``command`` only reads.

    >>> is_read_only("git status && git diff --stat | head")
    True
    >>> is_read_only("ls > files.txt")
    False
    """
    if not isinstance(command, str) or not command.strip() or len(command) > _MAX_COMMAND:
        return False
    try:
        parts = _split_chain(command)
        if not parts:
            return False
        return all(_simple_read_only(_words(part)) for part in parts)
    except _NotReadOnly:
        return False


def is_read_only_event(event: CoreEvent) -> bool:
    """True for a pre-tool event that cannot mutate: a read-only tool, or a
    shell command that :func:`is_read_only` accepts."""
    command = event.command
    if command is not None:
        return is_read_only(command)
    return (event.tool_name or "").lower() in READ_ONLY_TOOLS


__all__ = ["is_read_only", "is_read_only_event", "READ_ONLY_TOOLS"]
