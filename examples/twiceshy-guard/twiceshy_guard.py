"""twiceshy-guard: deny agent writes outside the project directory.

An example twiceshy plugin (entry point ``guard`` in the ``twiceshy`` group).
Its one hook, ``pre_tool``, looks at the files a tool call would write — the
file of a write tool, or the targets of shell redirections and ``tee`` — and
denies the call when one of them lies outside the agent's working directory
and outside the directories listed in the config under ``plugins.guard.allow``.
"""

from __future__ import annotations

import os
import shlex

from twiceshy import hookimpl
from twiceshy.base.types import CoreEvent, Decision

NAME = "guard"  # the entry-point name: plugins.guard in the config

# Tools that write the file in their input, lower-cased: Claude Code, Gemini CLI, Codex.
WRITE_TOOLS = frozenset({"write", "edit", "multiedit", "notebookedit", "write_file", "replace", "apply_patch"})
REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
ALWAYS_ALLOWED = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})


def shell_targets(command: str) -> list[str]:
    """Files a shell command writes through redirections or ``tee`` (``[]`` if it cannot be parsed)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: not ours to judge, fail open
        return []
    targets: list[str] = []
    for i, token in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if token in REDIRECTS and following:
            if not (token == ">&" and (following.isdigit() or following == "-")):  # 2>&1 is a descriptor
                targets.append(following)
        elif token == "tee" and (i == 0 or set(tokens[i - 1]) <= set("|&;(")):
            for arg in tokens[i + 1 :]:
                if set(arg) <= set("|&;()<>"):
                    break
                if not arg.startswith("-"):
                    targets.append(arg)
    return targets


def written_paths(event: CoreEvent) -> list[str]:
    """Every file this tool call would write, as the agent named it."""
    if (event.tool_name or "").lower() in WRITE_TOOLS:
        paths = event.tool_input.get("paths") if isinstance(event.tool_input, dict) else None
        if isinstance(paths, list) and paths:
            return [p for p in paths if isinstance(p, str)]
        return [event.file_path] if event.file_path else []
    return shell_targets(event.command) if event.command else []


def is_inside(path: str, root: str, allowed: list[str]) -> bool:
    expanded = os.path.expanduser(os.path.expandvars(path))
    if os.path.normpath(expanded) in ALWAYS_ALLOWED:
        return True
    full = os.path.realpath(os.path.join(root, expanded))  # symlinks resolved: no escaping through a link
    for base in [root, *allowed]:
        base = os.path.realpath(os.path.expanduser(base))
        if full == base or full.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


@hookimpl(tryfirst=True)
def pre_tool(event: CoreEvent, ctx) -> Decision | None:
    if not event.cwd or event.read_only:  # no project to compare with; a read-only call writes nothing
        return None
    allowed = [str(p) for p in ctx.plugin_config(NAME).get("allow", [])]
    outside = [p for p in written_paths(event) if not is_inside(p, event.cwd, allowed)]
    if not outside:
        return None
    return Decision(
        action="deny",
        reason=(
            f"twiceshy-guard: {event.tool_name} would write outside the project {event.cwd}: "
            f"{', '.join(outside)}. Write inside the project, or add the directory to plugins.guard.allow."
        ),
    )
