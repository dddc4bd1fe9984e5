"""Contrastive lesson matching: does this tool call repeat a remembered mistake?

Standard library only and cheap to import (no ``re``/``shlex`` at import
time): the engine imports it as ``twiceshy.hooks.match`` and the hook client
may import it as ``match`` under ``python -I -S`` to apply rules while the
engine is cold.

Similarity search finds *candidate* lessons; this module decides. A lesson
carries a **signature** (JSON) that says what distinguished the mistake from
its fix, and a call matches only when it carries that difference.

Public interface (stable)::

    split_commands(command: str) -> list[list[str]]
    matches(signature: dict, tool_name: str, tool_input: dict) -> bool
    check(signature: dict, tool_name: str, tool_input: dict) -> tuple[bool, str]
    carries_fix(signature: dict, tool_name: str, tool_input: dict) -> bool
    is_help(argv: list[str]) -> bool
    parse(argv: list[str], env: list[str] | None = None) -> Call
    call_parts(command: str) -> set[str]             # what a line does, for the fix guard
    is_the_fix(added: set, dropped: set, parts: set) -> bool

Signature, version 1 (unknown keys are ignored; an unknown ``kind`` or
version never matches)::

    {"v": 1, "kind": "command",
     "program": "git",            # the program (or a runner it went through: npx, uv, python)
     "sub": ["push"],             # optional: leading words after that program (prefix match)
     "present": ["--force|-f"],   # every item must be carried by the call ("a|b": either)
     "absent": ["--force-with-lease"],  # no item may be carried by the call
     "scope": ["-p=web|--package=web"],  # an option the call gives must have this value (or a path under it)
     "fix": "git push --force-with-lease origin main",   # for the reason only
     "looks": false}               # true: may match read-only calls (git status, kubectl get)

    {"v": 1, "kind": "any", "of": [signature, ...]}   # one of several (a retry loop's variants)

    {"v": 1, "kind": "edit",
     "glob": "*.py|*.pyi",        # file name (no "/") or path suffix glob, "*" only; "|": either
     "present": ["re:\\.utcnow\\(\\s*\\)"],  # in the new content: literal text, or "re:" regex
     "absent": ["re:timezone\\.utc"],
     "fix": "datetime.now(timezone.utc)"}

Command tokens a signature can name (see :func:`parse`): flags (``--force``,
``-f``; ``-rf`` also yields ``-r`` and ``-f``), flag values (``--region=eu``;
``-n ingest`` tentatively yields ``-n=ingest``), operands (``data``: paths
lose ``./``, a trailing ``/`` and ``/*``; packages lose ``@1.2``/``==1.2``),
``env:NAME`` for an environment prefix, ``via:uv`` for a runner the program
went through, ``exe:.venv/bin/pip`` for the program as written, ``run:pnpm dlx`` for a
runner verb, ``pre:nvm`` for a command earlier on the same line (``pre:cd`` too), ``post:make`` for one later,
``NAME=`` for an assignment operand (``make release VERSION=1.4.2``). An item with
``*`` is a glob over the tokens; ``re:`` a regex; a literal also matches a
sub-path of a URL (``s3://bucket`` ~ ``s3://bucket/key``) and a hyphenated
family member (``moment`` ~ ``moment-timezone``).

``--help``/``-h``/``--version`` calls and ``help`` subcommands never match.
"""

from __future__ import annotations

SIG_VERSION = 1

# Programs that only wrap another command: dropped, with their own options.
_WRAPPERS = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"},  # flags taking a value
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "-S"},
    "time": {"-f", "-o"},
    "nohup": set(),
    "nice": {"-n"},
    "ionice": {"-c", "-n"},
    "exec": {"-a"},
    "command": set(),
    "builtin": set(),
    "stdbuf": {"-i", "-o", "-e"},
    "timeout": {"-s", "-k"},
    "xargs": {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"},
    "watch": {"-n", "-d"},
}
# Runners: "<runner> [verb] <program> ...": the program inside is what runs.
_RUNNERS: dict[str, tuple[str, ...]] = {
    "npx": (),
    "bunx": (),
    "uvx": (),
    "pnpx": (),
    "uv": ("run", "tool run"),
    "poetry": ("run",),
    "pipenv": ("run",),
    "pdm": ("run",),
    "hatch": ("run",),
    "rye": ("run",),
    "conda": ("run",),
    "bundle": ("exec",),
    "pnpm": ("exec", "dlx"),
    "yarn": ("exec", "dlx"),
    "bun": ("x",),
    "dotenv": (),
    "dotenv-cli": (),
    "env-cmd": (),
    "direnv": ("exec",),  # "direnv exec <dir> <program> …"
}
# Flags of a runner that take a value (skipped when looking for the program).
_RUNNER_VALUE_FLAGS = {
    "-n",
    "--name",
    "-p",
    "--prefix",
    "--package",
    "--with",
    "--from",
    "--python",
    "-e",
    "--env-file",
}
# First words that open a second level of subcommands ("docker compose up").
_GROUPS = {
    "compose", "pip", "tool", "stash", "remote", "submodule", "worktree", "rollout", "config", "image", "container",
    "volume", "network", "buildx", "system", "context", "pr", "issue", "repo", "workflow", "run", "s3", "s3api",
    "ecr", "ecs", "eks", "iam", "lambda", "sts", "cloudfront", "ec2", "logs", "secretsmanager", "ssm", "auth",
    "cache", "self", "mod", "db", "workspace", "secret", "release", "bisect", "notes", "sparse-checkout", "pub",
}  # fmt: skip
_GROUP_PROGRAMS = {
    "docker", "podman", "aws", "gcloud", "az", "gh", "git", "uv", "kubectl", "go", "cargo", "npm", "flutter", "dart",
}  # fmt: skip
# Group words that are plain subcommands to these programs: "kubectl logs <pod>" and "docker run
# <image>" name a thing after the word, not a second subcommand ("aws logs tail", "gh run list").
_NOT_GROUPS = {
    "kubectl": frozenset({"logs", "run"}),
    "docker": frozenset({"logs", "run"}),
    "podman": frozenset({"logs", "run"}),
}
_HELP_FLAGS = {"--help", "-help", "-h", "--version", "-version", "--usage", "-?"}
_HELP_WORDS = {"help", "version", "--version"}

# Programs whose single-dash options are whole words, never bundles of letters: "mvn -am"
# is --also-make, not -a -m; "go test -race", "terraform apply -auto-approve".
SINGLE_DASH_LONG = frozenset(
    {"mvn", "mvnw", "java", "javac", "go", "terraform", "tofu", "find", "gradle", "gradlew", "ffmpeg", "dotnet"}
)
# Shell steps that set up rather than do: never the "mistake" of a compound line.
SETUP_PROGRAMS = {
    "cd", "pushd", "popd", "export", "source", ".", "set", "unset", "true", "false", "echo", "printf", "sleep",
    "nvm", "ls", "pwd", "cat", "head", "tail", "tee", "grep", "wc", "sort", "uniq", "less", "more", "clear",
}  # fmt: skip
# Read-only / diagnostic programs: between a failure and its fix they are not the fix.
DIAGNOSTIC_PROGRAMS = SETUP_PROGRAMS | {
    "find", "tree", "which", "type", "whereis", "file", "stat", "du", "df", "env", "printenv", "id", "whoami",
    "uname", "hostname", "date", "ps", "top", "rg", "ag", "fd", "jq", "yq", "diff", "realpath", "dirname",
    "basename", "readlink", "awk", "man", "history", "nproc", "free", "lsof", "netstat", "ss", "ping", "dig",
    "nslookup", "column", "xxd", "od", "strings", "sha256sum", "md5sum", "test", "[",
}  # fmt: skip
# Subcommands that only look: "git status", "docker ps", "kubectl get", "npm view".
DIAGNOSTIC_SUBS = {
    "status", "log", "diff", "show", "ls", "ps", "list", "get", "describe", "view", "info", "version",
    "inspect", "images", "logs", "top", "whoami", "why", "outdated", "explain", "search", "history",
    "doctor", "tree", "metadata", "help", "shortlog", "blame", "reflog", "rev-parse", "ls-files", "cat-file",
    "events", "get-contexts", "current-context", "list-profiles",
}  # fmt: skip
# Subcommands that are another name of the same one ("helm delete" is "helm uninstall").
SUB_SYNONYMS: dict[str, dict[str, str]] = {
    "npm": {"i": "install", "add": "install", "isntall": "install", "rm": "uninstall", "r": "uninstall",
            "remove": "uninstall", "un": "uninstall", "unlink": "uninstall", "up": "update", "upgrade": "update",
            "t": "test", "tst": "test", "run-script": "run", "rum": "run", "urn": "run", "x": "exec"},
    "pnpm": {"i": "install", "rm": "remove", "uninstall": "remove", "un": "remove", "up": "update", "upgrade": "update",
             "run-script": "run", "x": "exec"},
    "yarn": {"rm": "remove"},
    "helm": {"delete": "uninstall", "del": "uninstall", "un": "uninstall", "ls": "list", "upgrade": "upgrade"},
    "cargo": {"b": "build", "c": "check", "t": "test", "r": "run", "d": "doc"},
    "rails": {"s": "server", "c": "console", "g": "generate", "d": "destroy", "t": "test", "db": "dbconsole"},
    "bundle": {"i": "install"},
}  # fmt: skip


def _same_words(program: str, words: list[str]) -> list[str]:
    table = SUB_SYNONYMS.get(program)
    return [table.get(w, w) for w in words] if table else list(words)


def _same_sub(program: str, have: list[str], sub: list[str]) -> bool:
    """The call's subcommand words are the signature's: word by word, any of a ``build|test``
    word's alternatives, synonyms of the program alike."""
    if len(have) != len(sub):
        return False
    mine = _same_words(program, have)
    return all(word in _same_words(program, want.split("|")) for word, want in zip(mine, sub, strict=True))


# Programs whose bare words are tasks run in order, any of which may be the one a lesson is about.
TASK_RUNNERS = {"make", "gradle", "gradlew", "mvn", "mvnw", "rake", "ant", "just", "task", "invoke", "sbt", "bazel"}
_LOOK_FLAGS = {"--version", "-V", "--info"}
_GET_LOOKS = {"kubectl", "oc", "helm", "gh", "gcloud", "az", "kubectx", "flux", "argocd", "aws"}
# AWS-style read verbs: "aws sts get-caller-identity", "aws ecr describe-repositories".
_DIAGNOSTIC_PREFIXES = ("list-", "describe-", "get-caller", "show-")


def _is_assign(word: str) -> bool:
    """``NAME=value`` (an environment prefix), not ``--flag=value``."""
    eq = word.find("=")
    if eq <= 0:
        return False
    name = word[:eq]
    return (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name)


# ---------------------------------------------------------------------------
# Splitting
# ---------------------------------------------------------------------------


def _lex(command: str) -> list[list[str]]:
    """Shell words grouped into simple commands.

    Splits on ``&&``, ``||``, ``;``, ``|``, ``&``, newlines and parentheses;
    honours single quotes, double quotes and backslashes; drops comments and
    redirections (``> f``, ``2>&1``). ``$(...)`` and backticks stay inside
    their word. Unbalanced quotes close at the end (fail soft).
    """
    segments: list[list[str]] = []
    words: list[str] = []
    buf: list[str] = []
    in_word = False
    i, n = 0, len(command)
    redirect = False

    def end_word() -> None:
        nonlocal in_word, redirect
        if in_word:
            word = "".join(buf)
            if redirect:
                redirect = False  # the redirection target is not an argument
            else:
                words.append(word)
        buf.clear()
        in_word = False

    def end_segment() -> None:
        end_word()
        if words:
            segments.append(list(words))
        words.clear()

    while i < n:
        c = command[i]
        if c == "'":
            j = command.find("'", i + 1)
            j = n if j < 0 else j
            buf.append(command[i + 1 : j])
            in_word = True
            i = j + 1
            continue
        if c == '"':
            i += 1
            while i < n and command[i] != '"':
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '"\\$`\n':
                    buf.append(command[i + 1])
                    i += 2
                    continue
                buf.append(command[i])
                i += 1
            in_word = True
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            if command[i + 1] != "\n":
                buf.append(command[i + 1])
                in_word = True
            i += 2
            continue
        if c == "$" and i + 1 < n and command[i + 1] == "(":
            depth, j = 0, i
            while j < n:
                if command[j] == "(":
                    depth += 1
                elif command[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            buf.append(command[i : j + 1])
            in_word = True
            i = j + 1
            continue
        if c == "`":
            j = command.find("`", i + 1)
            j = n if j < 0 else j
            buf.append(command[i : j + 1])
            in_word = True
            i = j + 1
            continue
        if c in " \t":
            end_word()
            i += 1
            continue
        if c == "#" and not in_word:
            j = command.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in ";\n()&|":
            # ">&" / "2>&1" are redirections, not operators.
            if c == "&" and (buf and buf[-1].endswith((">", "<")) or i + 1 < n and command[i + 1] == ">"):
                if i + 1 < n and command[i + 1] == ">":
                    i += 2
                    end_word()
                    redirect = True
                    continue
                buf.append(c)
                in_word = True
                i += 1
                continue
            end_segment()
            i += 2 if command[i : i + 2] in ("&&", "||", ";;") else 1
            continue
        if c in "<>":
            # A redirection: "[n]>file", ">>file", ">&2", "<file"; the fd digits
            # before it belong to the operator, not to a word.
            if in_word and "".join(buf).isdigit():
                buf.clear()
                in_word = False
            else:
                end_word()
            j = i + 1
            while j < n and command[j] in "<>&|":
                j += 1
            op = command[i:j]
            i = j
            if op.endswith("&"):
                while i < n and command[i].isdigit() or (i < n and command[i] == "-"):
                    i += 1
                continue
            redirect = True
            continue
        buf.append(c)
        in_word = True
        i += 1
    end_segment()
    return segments


def _strip(argv: list[str]) -> tuple[list[str], list[str]]:
    """(environment assignments, argv) with wrappers like ``sudo -u x`` and
    ``env A=1`` removed."""
    env: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if _is_assign(word):
            env.append(word)
            i += 1
            continue
        base = word.rsplit("/", 1)[-1]
        if base in _WRAPPERS:
            takes_value = _WRAPPERS[base]
            i += 1
            while i < len(argv) and argv[i].startswith("-"):
                flag = argv[i]
                i += 1
                if flag in takes_value and i < len(argv):
                    i += 1
            if base == "timeout" and i < len(argv) and argv[i][:1].isdigit():
                i += 1  # the duration
            if base == "nice" and i < len(argv) and argv[i].lstrip("-").isdigit():
                i += 1
            continue
        break
    return env, argv[i:]


def split_commands(command: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its argv.

    ``FOO=1 sudo -u x make build && cd web; npm test | tee log`` gives
    ``[["make", "build"], ["cd", "web"], ["npm", "test"], ["tee", "log"]]``.
    Environment prefixes and wrappers (``sudo``, ``env``, ``time``, ``nohup``,
    ``timeout 10`` …) are dropped; ``bash -c "…"`` / ``sh -c "…"`` is split too.
    """
    return [argv for _env, argv in split_with_env(command)]


def split_with_env(command: str, _depth: int = 0) -> list[tuple[list[str], list[str]]]:
    """Like :func:`split_commands`, keeping each command's ``NAME=value`` prefixes."""
    out: list[tuple[list[str], list[str]]] = []
    if not isinstance(command, str) or not command.strip():
        return out
    for words in _lex(command):
        env, argv = _strip(words)
        if not argv:
            continue
        base = argv[0].rsplit("/", 1)[-1]
        if base in ("bash", "sh", "zsh", "dash") and _depth < 3:
            for j, word in enumerate(argv[1:], 1):
                if word in ("-c", "-lc", "-ic", "-ec") and j + 1 < len(argv):
                    inner = split_with_env(argv[j + 1], _depth + 1)
                    out.extend((env + e, a) for e, a in inner)
                    break
            else:
                out.append((env, argv))
            continue
        out.append((env, argv))
    return out


# ---------------------------------------------------------------------------
# Parsing one command
# ---------------------------------------------------------------------------


def program_name(word: str) -> str:
    """``/usr/bin/python3.11`` -> ``python``; ``pip3`` -> ``pip``; ``./deploy.sh`` -> ``deploy.sh``."""
    base = word.rsplit("/", 1)[-1].lower()
    if base.endswith(".exe"):
        base = base[:-4]
    stripped = base.rstrip("0123456789.")
    if stripped and stripped != base and stripped in ("python", "pip", "pypy", "node", "ruby", "perl", "php"):
        return stripped
    return base


def norm_value(value: str) -> str:
    """An operand or flag value as a comparable token: ``./data/*`` -> ``data``,
    ``zod@3.2`` -> ``zod``, ``"pydantic>=2"`` -> ``pydantic``."""
    v = value.strip()
    if "://" not in v:
        while v.startswith("./"):
            v = v[2:]
        while v.endswith("/*") or v.endswith("/") and len(v) > 1:
            v = v[:-2] if v.endswith("/*") else v[:-1]
    # Version pins on a package name (not on paths or URLs).
    if "/" not in v or v.startswith("@"):
        for sep in ("==", ">=", "<=", "~=", "!=", ">", "<"):
            k = v.find(sep)
            if k > 0:
                v = v[:k]
                break
        at = v.find("@", 1)
        if at > 0 and not v.startswith("git@"):
            v = v[:at]
    return v


class Call:
    """One simple command, parsed for matching.

    ``levels`` is the chain of programs it runs, outermost first, each as
    ``(program, words)`` where ``words`` are its positional words in order
    (``uv run alembic upgrade head`` -> ``[("uv", ["run", "alembic", "upgrade",
    "head"]), ("alembic", ["upgrade", "head"])]``; ``python -m pytest x`` ->
    ``[("python", ["pytest", "x"]), ("pytest", ["x"])]``). ``tokens`` is the
    set a signature's ``present``/``absent`` items are checked against.
    """

    __slots__ = ("argv", "env", "levels", "tokens", "flags", "values", "help", "flagvals")

    def __init__(self, argv: list[str], env: list[str] | None = None) -> None:
        self.argv = list(argv)
        self.env = list(env or [])
        self.levels: list[tuple[str, list[str]]] = []
        self.tokens: set[str] = set()
        self.flags: list[str] = []  # flag names in order (no values)
        self.values: dict[str, list[str]] = {}  # flag -> values (explicit or tentative)
        self.help = False
        self.flagvals: set[tuple[int, int]] = set()  # (level, word index) read as a flag's value
        self._parse()

    @property
    def program(self) -> str:
        return self.levels[-1][0] if self.levels else ""

    @property
    def outer(self) -> str:
        return self.levels[0][0] if self.levels else ""

    def words_of(self, program: str) -> list[str] | None:
        for prog, words in self.levels:
            if prog == program:
                return words
        return None

    def _parse(self) -> None:
        argv = self.argv
        if not argv:
            return
        toks = self.tokens
        for assign in self.env:
            toks.add("env:" + assign.split("=", 1)[0])
            toks.add("env:" + assign)
        toks.add("exe:" + argv[0])
        toks.add("exe:@path" if "/" in argv[0] else "exe:@bare")  # pip vs .venv/bin/pip, as a class
        prog = program_name(argv[0])
        toks.add("prog:" + prog)
        level_words: list[str] = []
        self.levels.append((prog, level_words))
        # Positions where a new program starts (runner unwrapping).
        runner_verbs = _RUNNERS.get(prog)
        expect_program = runner_verbs is not None and not runner_verbs  # npx X
        verb_done = False
        via_prog = prog  # the runner a program found next runs under
        python_like = prog in ("python", "pypy")
        i = 1
        prev_flag: str | None = None
        after_dashdash = False
        while i < len(argv):
            word = argv[i]
            i += 1
            if word == "--":
                after_dashdash = True  # what follows is for the program run ("cargo run -- --help")
                toks.add("--")
                prev_flag = None
                continue
            if after_dashdash and word in _HELP_FLAGS:
                self.help = True
            if python_like and word == "-m" and i < len(argv):
                module = argv[i]
                i += 1
                level_words.append(module)
                toks.add(module.lower())
                toks.add("-m")
                toks.add("-m=" + module)
                self._new_level(module, "python")
                level_words = self.levels[-1][1]
                python_like = False
                prev_flag = None
                continue
            if python_like and word == "-c":
                toks.add("-c")
                break  # inline code: nothing further is an argument
            if word.startswith("-") and len(word) > 1 and not _is_number(word):
                name, eq, value = word.partition("=")
                whole = word.startswith("--") or len(name) > 2 and not (name[1:].isalpha() and len(name) <= 4)
                if whole or prog in SINGLE_DASH_LONG and len(name) > 2:
                    self._flag(name)
                    if eq:
                        self._value(name, value)
                        prev_flag = None
                    else:
                        prev_flag = name
                else:
                    # "-rf" -> -r, -f (and "-rf" itself); "-n4" -> -n=4
                    self._flag(name)
                    body = name[1:]
                    if len(body) > 1 and body.isalpha():
                        for ch in body:
                            self._flag("-" + ch)
                    elif len(body) > 1 and body[0].isalpha() and not eq:
                        self._flag("-" + body[0])
                        self._value("-" + body[0], body[1:])
                    if eq:
                        self._value(name, value)
                        prev_flag = None
                    else:
                        prev_flag = "-" + body[-1] if body.isalpha() else name
                if name in _HELP_FLAGS and (name != "-h" or i >= len(argv) or argv[i].startswith("-")):
                    self.help = True  # "-h" is help alone, a value-taking flag otherwise (psql -h host)
                continue
            # A positional word (or the value of the flag before it).
            if prev_flag is not None:
                self._value(prev_flag, word)
                flag_value = True
            else:
                flag_value = False
            prev_flag = None
            if flag_value and level_words:
                self.flagvals.add((len(self.levels) - 1, len(level_words)))
            if flag_value and not level_words:
                # "kubectl --context x logs", "pnpm --filter web build": x/web are the flag's.
                self._operand_token(word)
                continue
            if runner_verbs is not None and not verb_done and not expect_program and not flag_value:
                verb_done = True
                verb = word.lower()
                if verb in runner_verbs or verb in {v.split()[0] for v in runner_verbs}:
                    level_words.append(word)
                    toks.add(verb)
                    toks.add(f"run:{prog} {verb}")
                    if verb == "tool" and i < len(argv) and argv[i] == "run":
                        level_words.append(argv[i])
                        i += 1
                    if prog == "direnv" and i < len(argv):
                        level_words.append(argv[i])  # the directory whose .envrc it loads
                        i += 1
                    expect_program = True
                    continue
            if expect_program and not flag_value:
                expect_program = False
                level_words.append(word)
                self._operand_token(word)
                if not verb_done:
                    toks.add(f"run:{prog}")
                self._new_level(program_name(word), via_prog)
                level_words = self.levels[-1][1]
                inner = program_name(word)
                runner_verbs = _RUNNERS.get(inner) if inner in ("uv", "pnpm") or inner in _ENV_LOADERS else None
                if inner in _ENV_LOADERS:
                    expect_program, verb_done = not runner_verbs, False  # "npx dotenv-cli -e .env -- x"
                    via_prog = inner
                continue
            self._operand(word, level_words)
        if level_words and level_words[0].lower() in _HELP_WORDS:
            self.help = True
        for program, words in self.levels:
            if program == "git" and words[:1] == ["push"]:
                # A refspec pushes to its destination: "HEAD:main" and "+main" push main.
                for word in words[1:]:
                    if "@" in word or "//" in word:
                        continue  # a remote's URL
                    dst = word.lstrip("+").rpartition(":")[2]
                    if dst and dst != word:
                        self.tokens.add(dst.removeprefix("refs/heads/"))
        for _prog, words in self.levels:
            if words and words[0].lower() in ("help",):
                self.help = True
            if words and words[-1].lower() == "help" and len(words) <= 3:
                self.help = True  # "aws s3 sync help", "go help run"

    def _new_level(self, program: str, via: str) -> None:
        self.tokens.add("via:" + via)
        if via in _ENV_LOADERS:
            self.tokens.add(ENV_FROM_FILE)
        self.tokens.add("prog:" + program)
        self.levels.append((program, []))

    def _flag(self, name: str) -> None:
        self.tokens.add(name)
        if name not in self.flags:
            self.flags.append(name)

    def _value(self, flag: str, value: str) -> None:
        v = norm_value(value)
        self.values.setdefault(flag, []).append(v)
        self.tokens.add(f"{flag}={v}")
        if v != value:
            self.tokens.add(f"{flag}={value}")

    def _operand_token(self, word: str) -> None:
        host = remote_host(word)
        if host:
            self.tokens.add("at:" + host)
        if _is_assign(word):
            self.tokens.add(word.split("=", 1)[0] + "=")  # "make release VERSION=1.4.2": VERSION= was given
        v = norm_value(word)
        if v:
            self.tokens.add(v)
            if v.lower() != v:
                self.tokens.add(v.lower())
        if word != v and word:
            self.tokens.add(word)

    def _operand(self, word: str, level_words: list[str]) -> None:
        level_words.append(word)
        self._operand_token(word)

    def sub(self, program: str, depth: int = 0) -> list[str]:
        """The subcommand words after ``program`` (bare lower-case words at the
        start; two when the first opens a group: ``compose down``)."""
        words = self.words_of(program)
        if not words:
            return []
        level = next(k for k, (p, _) in enumerate(self.levels) if p == program)
        # Skip words that may be a flag's value ("docker compose --profile dev up").
        plain = [w for k, w in enumerate(words) if (level, k) not in self.flagvals]
        dotted = program in DOTTED_TASKS
        if plain and _bare(plain[0], dotted):
            words = plain
        out = []
        for word in words:
            if not _bare(word, dotted):
                break
            out.append(word.lower())
            group = program in _GROUP_PROGRAMS and out[0] in _GROUPS and out[0] not in _NOT_GROUPS.get(program, ())
            limit = depth or (2 if group else 1)
            if len(out) >= limit:
                break
        return out


# Programs whose tasks are dotted names ("mix ecto.reset", "mix phx.server"): a subcommand.
DOTTED_TASKS = frozenset({"mix"})


def remote_host(word: str) -> str:
    """The remote machine an operand names, as its domain: ``deploy@web1.example.net:/srv``
    and ``web1.example.net:/srv`` (ssh, scp, rsync) -> ``example.net``; an image on a registry
    (``ghcr.io/acme/api:1.2``) -> ``ghcr.io``; an address stays whole. "" for anything else
    (a path, a URL, ``node:20``)."""
    if not word or "://" in word or word.startswith(("-", "/", ".", "~", "$")):
        return ""
    at = word.find("@")
    if at > 0:
        host = word[at + 1 :].split(":", 1)[0].split("/", 1)[0]
    elif ":" in word and "/" not in word.split(":", 1)[0]:
        host = word.split(":", 1)[0]  # "web1.example.net:/srv/www" (rsync/scp); "node:20" has no dot
    elif "/" in word:
        host = word.split("/", 1)[0]  # "ghcr.io/acme/api" (a registry), "localhost:5000/x" has a port
        host = host.split(":", 1)[0]
    else:
        return ""
    host = host.strip("[]").lower()
    if "." not in host or not all(part and (part.isalnum() or "-" in part) for part in host.split(".")):
        return ""
    parts = host.split(".")
    if all(part.isdigit() for part in parts):
        return host if len(parts) == 4 else ""  # an address, the machine itself ("zod@3.2" is a version)
    if parts[-1].isdigit() or parts[-1] in ("json", "yaml", "yml", "txt", "py", "js", "ts", "sh", "md", "d", "conf"):
        return ""  # a file or directory name ("conf.d/x", "out.json:3"), not a host
    return ".".join(parts[-2:])


def _bare(word: str, dotted: bool = False) -> bool:
    allowed = "-_:." if dotted else "-_:"
    return bool(word) and word[0].isalpha() and all(c.isalnum() or c in allowed for c in word) and ":" not in word[:1]


def _is_number(word: str) -> bool:
    try:
        float(word)
        return True
    except ValueError:
        return False


def parse(argv: list[str], env: list[str] | None = None) -> Call:
    """Parse one simple command (from :func:`split_commands`)."""
    return Call(argv, env)


def parse_command(command: str) -> list[Call]:
    """Every simple command of a shell line, parsed. Each carries ``pre:<prog>``
    tokens for the commands before it on the line (``source x && nvm use &&
    npm ci``: the npm call has ``pre:nvm``)."""
    calls = [Call(argv, env) for env, argv in split_with_env(command)]
    before: list[str] = []
    for call in calls:
        call.tokens.update(before)
        if call.argv and call.argv[0] == "export":
            # "export AWS_REGION=eu-west-1 && aws …": the later calls run with that environment.
            for word in call.argv[1:]:
                name = word.split("=", 1)[0]
                if "=" in word and name.replace("_", "").isalnum():
                    before += ["env:" + name, "env:" + word]
        if call.levels and call.outer not in _NOT_STEPS:
            before.append("pre:" + call.outer)
            first = call.sub(call.outer)[:1]
            if first:
                before.append(f"pre:{call.outer} {first[0]}")  # "docker login && docker push": a step of its own
            if call.outer in (".", "source"):
                before.append("pre:" + ("source" if call.outer == "." else "."))  # one builtin, two names
                if any(_is_env_file(w) for w in call.argv[1:2]):
                    before.append(ENV_FROM_FILE)  # "source .env && …": its variables are unknown here
    # ``post:<prog>`` for the commands after it (a fix that adds a step after).
    after: list[str] = []
    for call in reversed(calls):
        call.tokens.update(after)
        if call.levels and call.outer not in _NOT_STEPS:
            after.append("post:" + call.outer)
    return calls


# A call that loads its environment from a file ("source .env &&", "dotenv -e .env.local --",
# "direnv exec ."): a variable a lesson finds missing may be set there.
ENV_FROM_FILE = "env:@file"
_ENV_LOADERS = {"dotenv", "dotenv-cli", "env-cmd", "direnv"}


def _is_env_file(path: str) -> bool:
    """``.env``, ``.env.local``, ``.envrc``, ``scripts/env.sh``: not a virtualenv's activate script."""
    base = path.rsplit("/", 1)[-1].lower()
    return "env" in base and "venv" not in base and "activate" not in base


# Line parts that are no step of their own ("cd" is: a fix may be "cd sub && make").
_NOT_STEPS = {"pushd", "popd", "echo", "printf", "true", "false", "set", ":", "sleep", "clear"}


# One pre-tool call checks its command against up to ~16 candidate lessons:
# parse it once. The calls are only read (check_call, carries_fix, the engine's fix guard), never changed.
# A dict, not functools.lru_cache: importing functools costs the hook client ~3 ms.
_CHECK_PARSED: dict[str, tuple[Call, ...]] = {}
_CHECK_PARSED_MAX = 64


def _parsed_for_check(command: str) -> tuple[Call, ...]:
    calls = _CHECK_PARSED.get(command)
    if calls is None:
        calls = tuple(parse_command(command))
        if len(_CHECK_PARSED) >= _CHECK_PARSED_MAX:
            try:
                _CHECK_PARSED.pop(next(iter(_CHECK_PARSED)), None)
            except (RuntimeError, StopIteration):  # another engine thread changed it meanwhile
                pass
        _CHECK_PARSED[command] = calls
    return calls


_NOT_PARTS = ("exe:", "prog:", "pre:", "post:")


def call_parts(command: str) -> set:
    """What a shell line does, as comparable parts (flags, values, operands, subcommands,
    runners, environment, and ``cd:<dir>`` for a directory it moves into): the fix guard
    compares a call's parts with what a lesson's fix added to its mistake and what it took away."""
    parts: set = set()
    for call in _parsed_for_check(command):
        parts.update(t for t in call.tokens if not t.startswith(_NOT_PARTS))
        if call.outer in ("cd", "pushd") and call.argv[1:]:
            parts.add("cd:" + norm_value(call.argv[-1]).lower())
    return parts


def _spelled_out(parts: set) -> set:
    """``parts`` with each ``--flag=value`` also as its flag and its bare value: ``--region
    eu-west-1`` and ``--region=eu-west-1`` are one call (the space form's value is a part of its
    own already, the ``=`` form's is not)."""
    out = set(parts)
    for part in parts:
        if part.startswith("-") and "=" in part:
            flag, _, value = part.partition("=")
            out.update((flag, value))
    return out


def _a_value(part: str) -> bool:
    """A value a fix can bring in (a region, a file, a version): no flag, no assignment, no
    step, long enough not to be a common short word."""
    return (
        len(part) >= 4
        and not part.startswith("-")
        and "=" not in part
        and not part.startswith(_NOT_PARTS + ("env:", "run:", "via:", "at:", "cd:"))
        and not part.isdigit()
    )


_FALSE_VALUES = {"false", "0", "no", "off"}


def _last_dir(value: str) -> str:
    """``Packages/PellucidKit`` -> ``pellucidkit``, ``@acme/api`` -> ``api``: the directory
    or package a path-like value names; "" for a value with no ``/``."""
    v = norm_value(value).lower().rstrip("/")
    return v.rsplit("/", 1)[-1] if "/" in v else ""


def _given_another_way(added: set, unmet: set, have: set) -> bool:
    """Every part of the fix this call lacks (``unmet``) is given in another form:

    * a directory the fix pointed at (``--package-path Packages/Kit``, ``--filter @acme/api``)
      by moving into it first (``cd Packages/Kit && …``, ``cd apps/api && …``), or the
      directory a fix moved into (``cd Packages/Kit``) named as a value;
    * a switch the fix turned off (``--use_legacy_sql=false``) by its negative form
      (``--nouse_legacy_sql``, ``--no-use_legacy_sql``), and the other way round;
    * a variable the fix set (``FORWARD_DB_PORT=3307 sail up``) written out in full by an
      earlier step (``echo FORWARD_DB_PORT=3307 >> .env && sail up``).
    """
    if not unmet:
        return False
    moved_into = {_last_dir(p[3:]) or p[3:] for p in have if p.startswith("cd:")}
    words = {p.lower() for p in have}
    met: set = set()
    for part in added:
        flag, eq, value = part.partition("=")
        if part.startswith("-") and eq:
            if moved_into and _last_dir(value) in moved_into:
                met.update((flag, value, norm_value(value).lower()))  # --package-path X: cd X
            if value.lower() in _FALSE_VALUES:
                name = flag.lstrip("-")
                if {f"--no{name}", f"--no-{name}"} & words:
                    met.update((flag, value))  # --x=false: --nox
        elif part.startswith("-") and part.startswith(("--no-", "--no")):
            name = part[5:] if part.startswith("--no-") else part[4:]
            if any(f"--{name}={v}" in words for v in _FALSE_VALUES):
                met.add(part)  # --no-x: --x=false
        elif part.startswith("cd:") and part[3:] in {p.lower() for p in have if not p.startswith("cd:")}:
            met.add(part)  # cd X: the call names X itself
        elif part.startswith("env:") and eq and part[4:].lower() in words:
            met.update((part, flag))  # NAME=value written out by a step of its own
        elif not part.startswith(("-", "env:", "cd:")) and _last_dir(part) and _last_dir(part) in moved_into:
            met.add(part)
    met |= {p.lower() for p in met}  # every part met, in either case
    return all(p.lower() in met for p in unmet)


def is_the_fix(added: set, dropped: set, parts: set) -> bool:
    """A call with these ``parts`` does what a lesson's fix ``added`` to its mistake and keeps
    nothing it ``dropped`` ("uv run pytest -n auto" keeps "-n"): it is the fix, never held by its
    own lesson. It does what the fix added when it has all of it (``--region=x`` or ``--region
    x``), or when it carries every value the fix set in the environment under another name
    (``--ds=app.settings.test`` for ``DJANGO_SETTINGS_MODULE=app.settings.test``).
    The engine's guard and the hook client's hold index share this rule."""
    if not added or dropped & parts:
        return False
    have = _spelled_out(parts)
    wanted = {p for p in _spelled_out(added) if not (p.startswith("-") and "=" in p)}
    if wanted <= have or _given_another_way(added, wanted - have, have):
        return True
    # Of the environment only: a flag's value may be read tentatively ("--rebase origin" takes
    # "origin" for the switch's value, and "git pull origin main" is the mistake again; measured
    # on the readable splits), while "NAME=value" is always written out.
    values = set()
    for p in added:
        name, _, value = p.partition("=")
        if p.startswith("env:") and value and name in added and _a_value(value):
            values.add(value)
    if not values:
        return False
    # Every one of them, in any form: an option's value ("--ds=app.settings.test" for
    # "DJANGO_SETTINGS_MODULE=app.settings.test"), the environment, a step's operand.
    given = {p.partition("=")[2] if "=" in p else p for p in parts}
    return values <= given


def follows_advice(advised: list, parts: set) -> bool:
    """A call with these ``parts`` carries a value a taught lesson's advice names
    (``twiceshy.lesson.advice_parts``: ``config/jest.config.ts``, ``15432:5432``, or a
    ``stem*`` before a placeholder): it does what the advice says, so that lesson never
    holds it. The engine's guard and the hook client's hold index share this rule."""
    if not advised:
        return False
    values = set()
    for part in parts:
        part = part.lower()
        values.add(part)
        if part.startswith("-") and "=" in part:
            values.add(part.split("=", 1)[1])
    for item in advised:
        item = str(item).lower()
        if item.endswith("*"):
            stem = item[:-1]
            if any(v.startswith(stem) for v in values):
                return True
        elif item in values:
            return True
    return False


def index_keys(tool_name: str, tool_input: dict) -> set:
    """The hold index's keys a call can match under (:mod:`twiceshy.recall.hold_index`):
    every program the shell line runs, and ``@edit`` for a file change."""
    keys: set = set()
    command = command_of(tool_name, tool_input)
    if command:
        for call in _parsed_for_check(command):
            keys.update(prog for prog, _words in call.levels)
    if edit_parts(tool_name, tool_input):
        keys.add("@edit")
    return keys


def signature_keys(signature: dict) -> set:
    """The index keys under which a call can match ``signature`` (see :func:`index_keys`)."""
    if not isinstance(signature, dict):
        return set()
    kind = signature.get("kind")
    if kind == "command":
        program = str(signature.get("program") or "").lower()
        return {program} if program else set()
    if kind == "edit":
        return {"@edit"}
    if kind == "any":
        return {k for sub in signature.get("of") or [] for k in signature_keys(sub)}
    return set()


def is_look(call: Call) -> bool:
    """A call that only looks: ``--help``, ls/cat/grep…, or a read-only
    subcommand (``git status``, ``npm view``, ``kubectl get``, ``aws … list-*``)."""
    if call.help or not call.levels:
        return True
    if call.outer in DIAGNOSTIC_PROGRAMS:
        return True
    # Three words deep: "gcloud container clusters list" lists.
    subs = call.sub(call.program, depth=3) or call.sub(call.outer, depth=3)
    for w in subs:
        if w == "get" and call.program not in _GET_LOOKS:
            continue  # "go get", "helm dependency get" change things
        if w in DIAGNOSTIC_SUBS or w.startswith(_DIAGNOSTIC_PREFIXES):
            return True
    if not subs and any(f in _LOOK_FLAGS or f.startswith("--list") for f in call.flags):
        return True  # "dotnet --list-sdks", "node --version"
    if call.argv[1:] in (["-v"], ["-version"]) and "/" not in call.argv[0] and "." not in call.argv[0]:
        return True  # "mvn -v", "node -v": the version, nothing else ("./smoke.sh -v" may be verbose)
    if subs[:1] == ["remote"] and call.program == "git":
        return subs[1:2] in ([], ["show"], ["get-url"])  # "git remote -v"; "git remote add" changes things
    if subs[:1] == ["env"] and call.program == "go":
        return "-w" not in call.flags and "-u" not in call.flags  # "go env GOPRIVATE" reads; "go env -w" writes
    return call.program == "git" and not subs


def is_help(argv: list[str]) -> bool:
    """``--help``, ``-h``, ``--version``, ``help …``: asks about the program, runs nothing."""
    return Call(argv).help


# ---------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------

_re_cache: dict[str, object] = {}


def _regex(pattern: str) -> object | None:
    compiled = _re_cache.get(pattern)
    if compiled is None:
        import re  # lazily: most calls never need it

        try:
            compiled = re.compile(pattern, re.M)
        except re.error:
            compiled = False
        if len(_re_cache) > 512:
            _re_cache.clear()
        _re_cache[pattern] = compiled
    return compiled or None


def _glob(pattern: str, text: str) -> bool:
    """``*`` wildcard only (no ``re`` import)."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern == text
    if not text.startswith(parts[0]) or not text.endswith(parts[-1]):
        return False
    pos = len(parts[0])
    end = len(text) - len(parts[-1])
    if end < pos:
        return False
    for part in parts[1:-1]:
        k = text.find(part, pos, end)
        if k < 0:
            return False
        pos = k + len(part)
    return True


def _token_hit(item: str, tokens: set[str]) -> bool:
    """Does the call carry ``item`` (one alternative of a signature item)?"""
    if item in tokens:
        return True
    if item.startswith("re:"):
        rx = _regex(item[3:])
        return rx is not None and any(rx.search(t) for t in tokens)  # type: ignore[attr-defined]
    if "*" in item:
        return any(_glob(item, t) for t in tokens)
    if item.startswith("-") or ":" in item[:5] and "://" not in item:
        return False  # flags, env:/via:/exe: tokens match exactly
    low = item.lower()
    for tok in tokens:
        t = tok.lower()
        if t == low:
            return True
        if "/" in low and t.startswith(low.rstrip("/") + "/"):
            return True  # s3://bucket ~ s3://bucket/key, k8s/base ~ k8s/base/hpa.yaml
        flag, eq, value = t.partition("=")
        if eq and flag.startswith("-") and not low.startswith("-"):
            t = value
        if t.startswith(low + "-") and "/" not in t and len(low) >= 3:
            return True  # moment ~ moment-timezone
    return False


def _item_hit(item: str, tokens: set[str]) -> bool:
    return (
        any(_token_hit(alt, tokens) for alt in item.split("|") if alt)
        if "|" in item and not item.startswith("re:")
        else _token_hit(item, tokens)
    )


def target_words(call: Call, program: str, start: int) -> list[str]:
    """``program``'s bare words in ``call`` after the first ``start`` (its subcommand) that no flag
    took as its value: what the call acts on (``./deploy.sh staging``, ``dotnet test
    Gannet.sln``), not ``-c Release``. As written (a caller lowers them when it compares)."""
    words = call.words_of(program) or []
    level = next((k for k, (p, _) in enumerate(call.levels) if p == program), -1)
    return [w for k, w in enumerate(words) if (level, k) not in call.flagvals][start:]


def _in_scope(item: str, call: Call, program: str = "", depth: int = 0) -> bool:
    """Is ``call`` within a ``scope`` item ("-p=web|--package=web")? A call that does not give
    the option is (it runs the default, which the mistake's value may be part of); one that gives
    it must give that value or a path under it ("-f deploy/crds/040.yaml" for "-f=deploy/crds").
    An ``@=`` item is a target word after the subcommand ("@=staging"): a call naming no target
    is within it, one naming others is not."""
    if item.startswith("@="):
        given_words = target_words(call, program, depth)
        # A word a flag may have taken ("--set-upstream origin main") may still be the target.
        any_words = {w.lower() for w in (call.words_of(program) or [])[depth:]}
        any_words |= {w.rsplit(":", 1)[1] for w in any_words if ":" in w and "://" not in w}  # HEAD:main
        return not given_words or bool(item[2:]) and item[2:] in any_words
    given: list[str] = []
    wanted = ""
    for alt in item.split("|"):
        flag, _, value = alt.partition("=")
        wanted = value.lower().rstrip("/")
        given += [v.lower().rstrip("/") for v in call.values.get(flag) or []]
    if not given:
        return True
    return any(v == wanted or v.startswith(wanted + "/") for v in given)


# A global option a variable sets just as well: "AWS_PROFILE=dev aws s3 ls" is the fix of
# "aws … without --profile".
_FLAG_ENV = {
    ("aws", "--profile"): ("AWS_PROFILE",),
    ("aws", "--region"): ("AWS_REGION", "AWS_DEFAULT_REGION"),
    ("aws", "--endpoint-url"): ("AWS_ENDPOINT_URL",),
    ("gcloud", "--project"): ("CLOUDSDK_CORE_PROJECT",),
    ("gcloud", "--region"): ("CLOUDSDK_COMPUTE_REGION",),
    ("gcloud", "--account"): ("CLOUDSDK_CORE_ACCOUNT",),
    ("kubectl", "--kubeconfig"): ("KUBECONFIG",),
    ("helm", "--kubeconfig"): ("KUBECONFIG",),
    ("helm", "--kube-context"): ("HELM_KUBECONTEXT",),
    ("helm", "--namespace|-n"): ("HELM_NAMESPACE",),
    ("az", "--subscription"): ("AZURE_SUBSCRIPTION_ID",),
    ("terraform", "-var-file"): ("TF_CLI_ARGS", "TF_CLI_ARGS_plan", "TF_CLI_ARGS_apply"),
}


def _other_form_of(item: str, call: Call) -> str:
    """A long flag of ``call`` that may be the other form of a short flag the fix added that the
    signature knows in that form only: ``--inventory`` for ``-i`` (same first letter). Unsure
    whether a call is the fix, the lesson does not hold it. Not the other way round: a short
    letter means too many things ("-f" is --force to git, --filename to kubectl), and a call
    giving it is the mistake as often as the fix (measured on the readable splits)."""
    if "|" in item or "=" in item or len(item) != 2 or item[0] != "-" or not item[1].isalpha():
        return ""  # both forms known, a value, or a long flag: the item's own check is exact
    for flag in call.flags:
        if flag.startswith("--") and flag[2:3].lower() == item[1].lower():
            return flag
    return ""


def _env_of_flag(item: str, envs: list[str]) -> str:
    """Of the variables a call sets (``envs``), the one that sets a flag the fix added, by the
    common convention of naming it after the flag (``--region`` -> ``AWS_REGION``,
    ``DEPLOY_REGION``; ``--kube-context`` -> ``KUBE_CONTEXT``): an alternative correction, not
    the mistake. Only for flags of four letters or more, so ``-n`` is never read into ``N``."""
    if not envs:
        return ""
    for alt in item.split("|"):
        name = alt.split("=", 1)[0].lstrip("-").upper().replace("-", "_")
        if len(name) < 4 or not alt.startswith("-"):
            continue
        for env in envs:
            if env == name or env.endswith("_" + name):
                return env
    return ""


# Subcommands that only touch local configuration: no cluster, account or region is used.
_LOCAL_SUBS = {
    "kubectl": frozenset({"config", "completion", "version", "plugin", "kustomize", "explain"}),
    "helm": frozenset({"repo", "version", "completion", "env", "plugin", "create", "lint", "template", "package"}),
    "aws": frozenset({"configure", "help"}),
    "gcloud": frozenset({"config", "auth", "components", "info", "help", "version"}),
    "az": frozenset({"login", "logout", "account", "config", "extension", "version"}),
}


def check_call(signature: dict, call: Call) -> tuple[bool, str]:
    """Match a command signature against one parsed command."""
    if call.help or not call.levels:
        return False, "help/version call"
    if not signature.get("looks") and is_look(call):
        return False, "a read-only call"  # a lesson about doing something never fires on looking
    program = str(signature.get("program") or "").lower()
    if not program:
        return False, "no program"
    words = call.words_of(program)
    if words is None:
        return False, f"not {program}"
    sub = [str(s).lower() for s in signature.get("sub") or []]
    if sub:
        have = call.sub(program, depth=len(sub))
        if program in TASK_RUNNERS:
            # Tasks and goals in any order: "gradle clean build" runs "build", "mvn -B clean deploy" deploys.
            # Every bare word: "-q test" is a switch and a goal, though "-q" reads like it takes a value.
            start = next((i for i, w in enumerate(call.argv) if program_name(w) == program), 0)
            have = [w.lower() for w in call.argv[start + 1 :] if not w.startswith("-") and "=" not in w]
            # "clean" only clears the output first: a lesson about "mvn clean install" is about installing.
            need = [s for s in sub if s != "clean"] or sub
            if not all(any(a in have for a in s.split("|")) for s in need):
                return False, f"{program} {' '.join(have) or '(no task)'} does not run {' '.join(sub)}"
        elif not _same_sub(program, have[: len(sub)], sub):
            return False, f"{program} {' '.join(have) or '(no subcommand)'} is not {program} {' '.join(sub)}"
    for item in signature.get("present") or []:
        if not _item_hit(str(item), call.tokens):
            return False, f"lacks {item}"
    for item in signature.get("scope") or []:
        if not _in_scope(str(item), call, program, len(sub)):
            what = "target" if str(item).startswith("@=") else str(item).split("=", 1)[0]
            return False, f"another {what} than {str(item).split('|')[0].split('=', 1)[1]}"
    absent = [str(a) for a in signature.get("absent") or []]
    local = _LOCAL_SUBS.get(program)
    first = call.sub(program)[:1] if absent and not sub and local else []
    if first and local and first[0].lower() in local:
        # "kubectl config get-contexts" talks to no cluster: a lesson that every call needs
        # --context (a signature without a subcommand) is not about it.
        return False, f"{program} {first[0]} is local"
    # The variables the call sets, read once for every absent item (a fix may set one instead).
    envs = [t[4:] for t in call.tokens if t.startswith("env:") and "=" not in t] if absent else []
    from_file = ENV_FROM_FILE in call.tokens and any(a.startswith("env:") for a in absent)
    if from_file and isinstance(signature.get("fix"), str):
        # Unless the fix loaded that file too and still had to set the variable.
        from_file = not any(ENV_FROM_FILE in c.tokens for c in _parsed_for_check(signature["fix"]))
    for item in absent:
        if _item_hit(item, call.tokens):
            return False, f"has {item} (the fix)"
        if from_file and item.startswith("env:"):
            return False, f"loads its environment from a file ({item[4:]} may be set there)"
        for env in _FLAG_ENV.get((program, item), ()):
            if f"env:{env}" in call.tokens:
                return False, f"has {env} (the fix, as the environment)"
        env = _env_of_flag(item, envs)
        if env:
            return False, f"has {env} (the fix, as the environment)"
        other_form = _other_form_of(item, call)
        if other_form:
            return False, f"has {other_form} (the fix's {item}, in its other form)"
    what = " ".join([program, *sub, *[str(p) for p in signature.get("present") or []]])
    missing = [str(a) for a in signature.get("absent") or []]
    reason = f"repeats {what}" + (f" without {', '.join(missing)}" if missing else "")
    return True, reason


_EDIT_NEW_KEYS = ("new_string", "content", "new_str", "file_text", "new_source", "text", "newText", "contents")
_PATH_KEYS = ("file_path", "path", "notebook_path", "absolute_path", "target_file", "filePath")


def edit_parts(tool_name: str, tool_input: dict) -> list[tuple[str, str, str]]:
    """``(path, old, new)`` for every file change a tool call makes (Edit,
    MultiEdit, Write and peers; Codex ``apply_patch`` patches)."""
    if not isinstance(tool_input, dict):
        return []
    path = ""
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            path = value
            break
    out: list[tuple[str, str, str]] = []
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        for e in edits:
            if isinstance(e, dict):
                new = e.get("new_string") or e.get("newText") or ""
                old = e.get("old_string") or e.get("oldText") or ""
                if isinstance(new, str):
                    out.append((path, old if isinstance(old, str) else "", new))
    patch_text = next(
        (v for v in tool_input.values() if isinstance(v, str) and ("*** Begin Patch" in v or "*** Update File:" in v)),
        None,
    )
    for key in _EDIT_NEW_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and path and patch_text is None:
            old = tool_input.get("old_string") or tool_input.get("old_str") or ""
            out.append((path, old if isinstance(old, str) else "", value))
            break
    patch = patch_text or tool_input.get("patch") or tool_input.get("input")
    if not out and tool_name.lower() in ("apply_patch", "applypatch") and not isinstance(patch, str):
        patch = tool_input.get("command")
    if isinstance(patch, list):
        patch = "\n".join(str(p) for p in patch)
    if not out and isinstance(patch, str) and "*** " in patch:
        current = ""
        old_lines: list[str] = []
        new_lines: list[str] = []
        for line in patch.splitlines():
            for head in ("*** Update File: ", "*** Add File: "):
                if line.startswith(head):
                    if current:
                        out.append((current, "\n".join(old_lines), "\n".join(new_lines)))
                    current, old_lines, new_lines = line[len(head) :].strip(), [], []
            if line.startswith("+") and not line.startswith("+++"):
                new_lines.append(line[1:])
            elif line.startswith("-") and not line.startswith("---"):
                old_lines.append(line[1:])
        if current:
            out.append((current, "\n".join(old_lines), "\n".join(new_lines)))
    return out


def path_matches(glob: str, path: str) -> bool:
    """``*.py`` against the file name; a glob with ``/`` against the path's tail."""
    if not glob:
        return True
    if "|" in glob:
        return any(path_matches(g, path) for g in glob.split("|") if g)
    path = path.replace("\\", "/")
    if "/" not in glob:
        return _glob(glob, path.rsplit("/", 1)[-1])
    return _glob(glob, path) or _glob("*/" + glob.lstrip("/"), path)


def _text_hit(item: str, text: str) -> bool:
    if item.startswith("re:"):
        rx = _regex(item[3:])
        return rx is not None and rx.search(text) is not None  # type: ignore[attr-defined]
    return item in text


def _occurrences(item: str, text: str) -> set:
    if item.startswith("re:"):
        rx = _regex(item[3:])
        if rx is None:
            return set()
        return {" ".join(m.group(0).split()) for m in rx.finditer(text)}  # type: ignore[attr-defined]
    return {item} if item in text else set()


def _new_occurrence(item: str, old: str, new: str) -> bool:
    """The new text has an occurrence of ``item`` the old one lacks (whitespace aside)."""
    return bool(_occurrences(item, new) - _occurrences(item, old))


def check_edit(signature: dict, tool_name: str, tool_input: dict) -> tuple[bool, str]:
    parts = edit_parts(tool_name, tool_input)
    if not parts:
        return False, "not an edit"
    glob = str(signature.get("glob") or "")
    present = [str(p) for p in signature.get("present") or []]
    absent = [str(a) for a in signature.get("absent") or []]
    raw_fix = str(signature.get("fix") or "").strip()
    fix = " ".join(raw_fix.split()) if "\n" not in raw_fix else ""  # one line of code, whitespace-free
    for path, old, new in parts:
        if not path_matches(glob, path):
            continue
        if len(fix) >= 12 and fix in " ".join(new.split()):
            continue  # the edit writes the lesson's own fix: it is the fix, never held by its lesson

        def mistake_in(text: str) -> bool:
            return all(_text_hit(p, text) for p in present) and not any(_text_hit(a, text) for a in absent)

        if not mistake_in(new):
            continue
        # Brought in by this edit, not merely kept from the old text: an occurrence of the
        # pattern the old text did not have (".split('\\n')" where it had ".split(';')").
        if present and old and mistake_in(old) and not any(_new_occurrence(p, old, new) for p in present):
            continue
        label = signature.get("pattern") or (present[0][3:] if present and present[0].startswith("re:") else "")
        return True, f"{path.rsplit('/', 1)[-1]} brings back {label or 'the change'}".strip()
    return False, "pattern not in the new content"


SHELL_TOOLS = {
    "bash", "shell", "run_shell_command", "exec_command", "local_shell", "terminal", "run_terminal_cmd",
    "shell_command", "beforeshellexecution", "container.exec",
}  # fmt: skip


def command_of(tool_name: str, tool_input: dict) -> str | None:
    """The shell line a tool call runs, if it is a shell call."""
    if not isinstance(tool_input, dict):
        return None
    value = tool_input.get("command")
    if value is None:
        value = tool_input.get("cmd")
    if isinstance(value, list):
        if tool_name.lower() in ("apply_patch", "applypatch"):
            return None
        # Codex argv: ["bash", "-lc", "..."] or a plain argv.
        return " ".join(_quote(str(v)) for v in value)
    if isinstance(value, str) and tool_name.lower() not in ("apply_patch", "applypatch"):
        if value.lstrip().startswith("*** Begin Patch"):
            return None
        return value
    return None


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./:=@%+," for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def check(signature: dict, tool_name: str, tool_input: dict) -> tuple[bool, str]:
    """``(matched, reason)``. Never raises on odd input: a bad signature or
    payload is "no match"."""
    try:
        if not isinstance(signature, dict) or int(signature.get("v", 0)) != SIG_VERSION:
            return False, "no usable signature"
        kind = signature.get("kind")
        if kind == "command":
            command = command_of(tool_name, tool_input)
            if not command:
                return False, "not a shell call"
            reason = "no command"
            for call in _parsed_for_check(command):
                ok, reason = check_call(signature, call)
                if ok:
                    return True, reason
            return False, reason
        if kind == "any":
            reason = "no alternative"
            for sub in signature.get("of") or []:
                ok, reason = check(sub, tool_name, tool_input)
                if ok:
                    return True, reason
            return False, reason
        if kind == "edit":
            return check_edit(signature, tool_name, tool_input)
        return False, f"unknown signature kind {kind!r}"
    except Exception as exc:  # fail open: a broken signature never matches
        return False, f"error: {type(exc).__name__}"


def carries_fix(signature: dict, tool_name: str, tool_input: dict) -> bool:
    """True when the call has what the lesson's fix adds: a command of the
    lesson's program (or the fix's own program) carrying one of the
    signature's ``absent`` items, or an edit whose new content does. Used to
    judge what followed a hold (the fix ran: *avoided*; the held call was
    itself the fix: a *false hold*). Never raises; odd input is False."""
    try:
        if not isinstance(signature, dict):
            return False
        kind = signature.get("kind")
        if kind == "any":
            return any(carries_fix(sub, tool_name, tool_input) for sub in signature.get("of") or [])
        absent = [str(a) for a in signature.get("absent") or []]
        if kind == "edit":
            return any(
                path_matches(str(signature.get("glob") or ""), path) and any(_text_hit(a, new) for a in absent)
                for path, _old, new in edit_parts(tool_name, tool_input)
            )
        if kind != "command":
            return False
        command = command_of(tool_name, tool_input)
        if not command:
            return False
        calls = _parsed_for_check(command)
        fix = str(signature.get("fix") or "")
        fix_programs = {c.program for c in parse_command(fix) if c.levels} if fix else set()
        program = str(signature.get("program") or "").lower()
        for call in calls:
            if call.help or not call.levels:
                continue
            if absent and call.words_of(program) is not None and any(_item_hit(a, call.tokens) for a in absent):
                return True
            if fix_programs and call.program in fix_programs and call.program != program:
                return True  # the fix switched program (pip -> uv pip) and this call runs it
        return False
    except Exception:
        return False


def matches(signature: dict, tool_name: str, tool_input: dict) -> bool:
    """True when the call carries what distinguished the lesson's mistake from its fix."""
    return check(signature, tool_name, tool_input)[0]
