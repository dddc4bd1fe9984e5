"""hooks/match.py: the stdlib contrastive matcher (splitting, parsing, signatures)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from twiceshy.hooks import match as m

HOOKS = Path(m.__file__).resolve().parent


def bash(command: str) -> tuple[str, dict]:
    return "Bash", {"command": command}


# -- splitting ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("a && b; c | d", [["a"], ["b"], ["c"], ["d"]]),
        ("FOO=1 BAR=2 make build", [["make", "build"]]),
        ("sudo -u deploy -E systemctl restart web", [["systemctl", "restart", "web"]]),
        ("env -i PATH=/bin nohup timeout 10 ./run.sh --fast", [["./run.sh", "--fast"]]),
        ("echo 'a && b' \"c; d\" > out.txt 2>&1", [["echo", "a && b", "c; d"]]),
        ('git commit -m "fix: it\'s done" || true', [["git", "commit", "-m", "fix: it's done"], ["true"]]),
        ("bash -lc 'cd web && npm test'", [["cd", "web"], ["npm", "test"]]),
        ("(cd api && go build ./...) & wait", [["cd", "api"], ["go", "build", "./..."], ["wait"]]),
        ("ls # a comment && rm -rf /", [["ls"]]),
        ("printf x\\ y", [["printf", "x y"]]),
        ("", []),
    ],
)
def test_split_commands(command: str, expected: list[list[str]]) -> None:
    assert m.split_commands(command) == expected


def test_environment_prefix_kept_for_matching() -> None:
    (call,) = m.parse_command("NODE_OPTIONS=--max-old-space-size=4096 pnpm --filter web build")
    assert call.program == "pnpm" and "env:NODE_OPTIONS" in call.tokens
    assert call.sub("pnpm") == ["build"]  # "web" is --filter's value, not the subcommand


def test_runners_are_unwrapped_with_their_verb() -> None:
    (call,) = m.parse_command("uv run alembic -c migrations/alembic.ini upgrade head")
    assert [p for p, _ in call.levels] == ["uv", "alembic"]
    assert call.sub("alembic") == ["upgrade"] and "via:uv" in call.tokens and "run:uv run" in call.tokens
    (py,) = m.parse_command("python3.11 -m pytest tests/api -x")
    assert py.program == "pytest" and "via:python" in py.tokens and "tests/api" in py.tokens


def test_later_commands_know_what_ran_before_them() -> None:
    calls = m.parse_command("source ~/.nvm/nvm.sh && nvm use && npm ci")
    assert "pre:nvm" in calls[-1].tokens and "pre:source" in calls[-1].tokens


@pytest.mark.parametrize(
    "argv",
    [
        ["npm", "--help"],
        ["cargo", "build", "-h"],
        ["go", "help", "run"],
        ["aws", "s3", "sync", "help"],
        ["x", "--version"],
    ],
)
def test_help_calls(argv: list[str]) -> None:
    assert m.is_help(argv)


def test_value_taking_dash_h_is_not_help() -> None:
    assert not m.is_help(["psql", "-h", "localhost", "-U", "postgres"])


def test_values_are_normalised() -> None:
    assert m.norm_value("./data/*") == "data"
    assert m.norm_value("zod@3.23.8") == "zod" and m.norm_value("pydantic>=2.2") == "pydantic"
    assert m.norm_value("@types/node@20") == "@types/node"


# -- command signatures ---------------------------------------------------------

FORCE = {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "present": ["--force|-f"]}


@pytest.mark.parametrize(
    ("command", "hit"),
    [
        ("git push --force origin main", True),
        ("git push -f origin feat/x", True),
        ("cd repo && git push --force", True),
        ("git push --force-with-lease origin main", False),  # the fix
        ("git push origin main", False),  # the same program, other arguments
        ("git push --help", False),
        ("git status", False),
        ("git log --force", False),  # another subcommand
    ],
)
def test_present_token_and_subcommand(command: str, hit: bool) -> None:
    assert m.matches(FORCE, *bash(command)) is hit


def test_absent_token_is_the_fix() -> None:
    sig = {"v": 1, "kind": "command", "program": "deploy.sh", "present": ["--env"], "absent": ["--region"]}
    assert m.matches(sig, *bash("./deploy.sh --env staging"))
    assert m.matches(sig, *bash("./deploy.sh --env prod"))
    assert not m.matches(sig, *bash("./deploy.sh --env staging --region eu-west-1"))
    assert not m.matches(sig, *bash("./deploy.sh --help"))
    ok, reason = m.check(sig, *bash("./deploy.sh --env prod"))
    assert ok and "--region" in reason


def test_value_classes_and_literals() -> None:
    ext = {"v": 1, "kind": "command", "program": "go", "sub": ["run"], "present": ["*.go"]}
    assert m.matches(ext, *bash("go run cmd/backfill/main.go --from 2026-01-01"))
    assert not m.matches(ext, *bash("go run ./cmd/backfill"))
    nodir = {"v": 1, "kind": "command", "program": "helm", "present": ["re:^-f=[^/]+$"]}
    assert m.matches(nodir, *bash("helm template x charts/x -f values-prod.yaml"))
    assert not m.matches(nodir, *bash("helm template x charts/x -f charts/x/values-prod.yaml"))
    url = {"v": 1, "kind": "command", "program": "aws", "present": ["s3://bucket-prod"]}
    assert m.matches(url, *bash("aws s3 cp a.txt s3://bucket-prod/a.txt"))
    assert not m.matches(url, *bash("aws s3 cp a.txt s3://bucket-prod-2/a.txt"))
    family = {"v": 1, "kind": "command", "program": "pnpm", "sub": ["add"], "present": ["moment"]}
    assert m.matches(family, *bash("pnpm add moment-timezone@0.5.45 --filter web"))
    assert not m.matches(family, *bash("pnpm add zod --filter web"))


def test_flag_values_tell_targets_apart() -> None:
    sig = {"v": 1, "kind": "command", "program": "terraform", "present": ["-target=module.a"]}
    assert m.matches(sig, *bash("terraform apply -target=module.a"))
    assert not m.matches(sig, *bash("terraform apply -target=module.b"))


def test_read_only_calls_never_match_a_lesson_about_doing() -> None:
    sig = {"v": 1, "kind": "command", "program": "npm"}
    assert m.matches(sig, *bash("npm install"))
    assert not m.matches(sig, *bash("npm view next version"))
    assert m.matches({**sig, "looks": True}, *bash("npm view next version"))


def test_any_signature() -> None:
    sig = {
        "v": 1,
        "kind": "any",
        "of": [
            {"v": 1, "kind": "command", "program": "make", "sub": ["migrate"]},
            {"v": 1, "kind": "command", "program": "make", "sub": ["db-migrate"]},
        ],
    }
    assert m.matches(sig, *bash("make db-migrate ENV=staging"))
    assert not m.matches(sig, *bash("make migrate-up"))


def test_codex_argv_command() -> None:
    assert m.matches(FORCE, "shell", {"command": ["bash", "-lc", "git push -f origin main"]})


@pytest.mark.parametrize(
    "sig",
    [None, {}, {"v": 2, "kind": "command", "program": "git"}, {"v": 1, "kind": "nope"}, {"v": "x"}, "git"],
)
def test_unusable_signatures_never_match(sig: object) -> None:
    assert m.check(sig, *bash("git push --force")) == (False, m.check(sig, *bash("git push --force"))[1])  # type: ignore[arg-type]
    assert not m.matches(sig, *bash("git push --force"))  # type: ignore[arg-type]


# -- edit signatures -------------------------------------------------------------

UTCNOW = {"v": 1, "kind": "edit", "glob": "*.py|*.pyi", "present": [r"re:\.\s*utcnow\s*\(\s*\)"]}


def test_edit_signature_fires_on_code_that_brings_the_pattern_back() -> None:
    assert m.matches(
        UTCNOW, "Edit", {"file_path": "app/a.py", "old_string": "x", "new_string": "t = datetime.utcnow()"}
    )
    assert m.matches(UTCNOW, "Write", {"file_path": "/r/b.pyi", "content": "now = dt.utcnow()\n"})
    assert not m.matches(UTCNOW, "Edit", {"file_path": "a.py", "old_string": "x", "new_string": "datetime.now(UTC)"})
    assert not m.matches(UTCNOW, "Edit", {"file_path": "a.js", "old_string": "x", "new_string": "d.utcnow()"})
    # Kept from the old text, not brought in by this edit.
    keep = {"file_path": "a.py", "old_string": "a = x.utcnow()\n", "new_string": "a = x.utcnow()\nb = 2\n"}
    assert not m.matches(UTCNOW, "Edit", keep)
    assert not m.matches(UTCNOW, *bash("pytest -q"))


def test_edit_signature_with_absent_pattern() -> None:
    sig = {"v": 1, "kind": "edit", "glob": "*.py", "present": [r"re:\bopen\s*\("], "absent": [r"re:\bencoding\s*="]}
    assert m.matches(sig, "Edit", {"file_path": "x.py", "old_string": "", "new_string": "open(p, 'w')"})
    assert not m.matches(
        sig, "Edit", {"file_path": "x.py", "old_string": "", "new_string": "open(p, encoding='utf-8')"}
    )
    # The edit removes the argument the fix added: that is the mistake coming back.
    back = {"file_path": "x.py", "old_string": "open(p, encoding='utf-8')", "new_string": "open(p)"}
    assert m.matches(sig, "Edit", back)


def test_multiedit_and_apply_patch() -> None:
    multi = {
        "file_path": "a.py",
        "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "x.utcnow()"}],
    }
    assert m.matches(UTCNOW, "MultiEdit", multi)
    patch = "*** Begin Patch\n*** Update File: app/t.py\n@@\n-a = 1\n+a = clock.utcnow()\n*** End Patch"
    assert m.matches(UTCNOW, "apply_patch", {"command": patch})
    assert m.edit_parts("apply_patch", {"command": patch}) == [("app/t.py", "a = 1", "a = clock.utcnow()")]


def test_manifest_glob_by_name() -> None:
    sig = {"v": 1, "kind": "edit", "glob": "requirements.txt"}
    assert m.matches(sig, "Edit", {"file_path": "/r/requirements.txt", "old_string": "a\n", "new_string": "a\nb==1\n"})
    assert not m.matches(sig, "Edit", {"file_path": "/r/requirements.in", "old_string": "a\n", "new_string": "a\nb\n"})


# -- stdlib only, fast --------------------------------------------------------------


def test_runs_under_isolated_python_without_site_packages() -> None:
    code = (
        "import sys; before = set(sys.modules); sys.path.insert(0, sys.argv[1]); import match;"
        f"sig = {FORCE!r};"
        "print(match.matches(sig, 'Bash', {'command': 'git push -f origin main'}),"
        " match.matches(sig, 'Bash', {'command': 'git push --force-with-lease'}),"
        " sorted(set(sys.modules) - before - {'match', '__future__'}))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, str(HOOKS)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    # Nothing else imported for a command signature (no re, shlex, json, twiceshy).
    assert out.stdout.split() == ["True", "False", "[]"], out.stdout + out.stderr


def test_check_is_microseconds() -> None:
    import time

    payload = {"command": "cd web && NODE_ENV=test pnpm --filter web exec vitest run src/utils --reporter=dot"}
    sigs = [FORCE, {"v": 1, "kind": "command", "program": "pnpm", "sub": ["build"], "absent": ["env:NODE_OPTIONS"]}]
    start = time.thread_time()  # CPU, not wall: a loaded box stretches the wall clock
    for _ in range(2000):
        for sig in sigs:
            m.check(sig, "Bash", payload)
    per_check_ms = (time.thread_time() - start) / 4000 * 1000
    assert per_check_ms < 2.0, per_check_ms  # typically ~0.02 ms


def test_a_global_option_set_by_the_environment_is_the_fix() -> None:
    from twiceshy.hooks.match import check

    sig = {"v": 1, "kind": "command", "program": "aws", "absent": ["--profile"], "looks": True}
    assert check(sig, "Bash", {"command": "aws s3 ls s3://bucket/"})[0]
    assert not check(sig, "Bash", {"command": "aws s3 ls s3://bucket/ --profile dev"})[0]
    assert not check(sig, "Bash", {"command": "AWS_PROFILE=dev aws s3 ls s3://bucket/"})[0]
    # A subcommand that only touches local configuration uses no account at all.
    assert not check(sig, "Bash", {"command": "aws configure list"})[0]
    kube = {"v": 1, "kind": "command", "program": "kubectl", "absent": ["--context"], "looks": True}
    assert check(kube, "Bash", {"command": "kubectl -n shop logs deploy/api"})[0]
    assert not check(kube, "Bash", {"command": "kubectl config get-contexts"})[0]
    # With a subcommand in the signature, the lesson is about that subcommand, local or not.
    scoped = {
        "v": 1,
        "kind": "command",
        "program": "kubectl",
        "sub": ["config"],
        "absent": ["--kubeconfig"],
        "looks": True,
    }
    assert check(scoped, "Bash", {"command": "kubectl config view"})[0]


def test_a_push_refspec_pushes_to_its_destination() -> None:
    sig = {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "present": ["main"]}
    for repeat in ("git push origin HEAD:main", "git push origin +main", "git push origin x:refs/heads/main"):
        assert m.matches(sig, "Bash", {"command": repeat}), repeat
    for silent in ("git push origin HEAD:fix/median", "git push git@github.com:o/main.git fix/x"):
        assert not m.matches(sig, "Bash", {"command": silent}), silent


def test_a_word_after_logs_or_run_is_a_name_not_a_subcommand() -> None:
    def sub(command: str) -> list[str]:
        call = m.parse_command(command)[0]
        return call.sub(call.program)

    assert sub("kubectl logs checkout -n shop") == ["logs"]
    assert sub("docker run nginx") == ["run"]
    assert sub("aws logs tail /ecs/app") == ["logs", "tail"]
    assert sub("gh run list") == ["run", "list"]


def test_clean_is_not_the_task_a_lesson_is_about() -> None:
    """ "mvn clean install" and "mvn install" install alike; a lesson about one holds the other.
    A later phase is not taken to run an earlier one: measured, that held every everyday build."""
    clean_install = {"v": 1, "kind": "command", "program": "mvnw", "sub": ["clean", "install"], "absent": ["-am"]}
    assert m.matches(clean_install, *bash("./mvnw -pl api install"))
    assert m.matches(clean_install, *bash("./mvnw -pl api clean install"))
    assert not m.matches(clean_install, *bash("./mvnw -pl api -am install"))
    assert not m.matches(clean_install, *bash("./mvnw -pl api deploy"))
    assert not m.matches(clean_install, *bash("./mvnw clean"))


def test_an_edit_that_writes_the_lessons_own_fix_is_never_held() -> None:
    """A code lesson's fix line in the new text means the edit applies the fix, even when the
    pattern it forbids is still elsewhere in what the edit writes (a whole file, another function)."""
    sig = {
        "v": 1,
        "kind": "edit",
        "glob": "*.py",
        "present": ["re:\\.utcnow\\(\\s*\\)"],
        "fix": "created = datetime.now(timezone.utc)",
    }
    whole = "def a():\n    created = datetime.now(timezone.utc)\n\ndef b():\n    return datetime.utcnow()\n"
    assert not m.matches(sig, "Write", {"file_path": "/p/app/models.py", "content": whole})
    assert m.matches(sig, "Write", {"file_path": "/p/app/jobs.py", "content": "stamp = datetime.utcnow()\n"})
    assert m.matches(
        sig, "Edit", {"file_path": "/p/x.py", "old_string": "a = 1", "new_string": "a = datetime.utcnow()"}
    )


def test_a_variable_named_after_the_added_flag_is_the_fix_as_the_environment() -> None:
    """Tools read an option from a variable named after it (``--region`` from ``AWS_REGION`` or
    ``DEPLOY_REGION``): a call setting one, inline or exported earlier on the line, is an
    alternative correction. Another variable, or a short flag's letter, is not."""
    sig = {"v": 1, "kind": "command", "program": "deploy.sh", "present": ["--env"], "absent": ["--region"]}
    for fixed in (
        "DEPLOY_REGION=eu-west-1 ./deploy.sh --env staging",
        "export REGION=eu-west-1 && ./deploy.sh --env staging",
        "export AWS_PROFILE=dev DEPLOY_REGION=eu-west-1; ./deploy.sh --env staging",
    ):
        assert not m.check(sig, "Bash", {"command": fixed})[0], fixed
    for repeat in ("FOO=1 ./deploy.sh --env staging", "export REGIONS=x && ./deploy.sh --env staging"):
        assert m.check(sig, "Bash", {"command": repeat})[0], repeat
    short = {"v": 1, "kind": "command", "program": "helm", "sub": ["upgrade"], "absent": ["-n"]}
    assert m.check(short, "Bash", {"command": "N=prod helm upgrade web ./chart"})[0]


def test_an_added_flag_known_in_one_form_passes_in_its_other_form() -> None:
    """The advice named ``-i``; ``--inventory`` (same first letter) may well be it: unsure
    whether the call is the fix, the lesson does not hold it. A flag of another letter does."""
    sig = {"v": 1, "kind": "command", "program": "ansible-playbook", "absent": ["-i"]}
    assert not m.check(sig, "Bash", {"command": "ansible-playbook --inventory inv/hosts.ini site.yml"})[0]
    assert m.check(sig, "Bash", {"command": "ansible-playbook --limit web site.yml"})[0]
    # A short letter is not read as a long flag's other form: git's -f is the mistake itself.
    lease = {"v": 1, "kind": "command", "program": "git", "sub": ["push"], "absent": ["--force-with-lease"]}
    assert m.check(lease, "Bash", {"command": "git push -f origin HEAD"})[0]


def test_the_fix_in_another_form_is_the_fix() -> None:
    """The fix added ``--region eu-west-1``: ``--region=eu-west-1`` is it. The mistake again, with
    or without unrelated parts, is not; nor a call keeping what the fix dropped; nor a call whose
    only likeness is a word a switch took tentatively (``--rebase origin``)."""
    mistake, fix = "./deploy.sh --env staging", "./deploy.sh --env staging --region eu-west-1"
    added, dropped = m.call_parts(fix) - m.call_parts(mistake), m.call_parts(mistake) - m.call_parts(fix)
    assert m.is_the_fix(added, dropped, m.call_parts("./deploy.sh --env staging --region=eu-west-1"))
    for repeat in ("./deploy.sh --env staging", "./deploy.sh --env prod --verbose"):
        assert not m.is_the_fix(added, dropped, m.call_parts(repeat)), repeat
    drop_mistake, drop_fix = "pytest -x -n 8 tests/", "pytest -n auto tests/"
    added = m.call_parts(drop_fix) - m.call_parts(drop_mistake)
    dropped = m.call_parts(drop_mistake) - m.call_parts(drop_fix)
    assert not m.is_the_fix(added, dropped, m.call_parts("pytest -x -n auto tests/"))
    assert m.is_the_fix(added, dropped, m.call_parts("pytest -n=auto tests/api"))
    pull, rebase = "git pull", "git pull --rebase origin main"
    added, dropped = m.call_parts(rebase) - m.call_parts(pull), m.call_parts(pull) - m.call_parts(rebase)
    assert not m.is_the_fix(added, dropped, m.call_parts("git pull origin main"))


def fix_of(mistake: str, fix: str, call: str) -> bool:
    """Whether ``call`` is the fix of a lesson learned from ``mistake`` -> ``fix``."""
    added, dropped = m.call_parts(fix) - m.call_parts(mistake), m.call_parts(mistake) - m.call_parts(fix)
    return m.is_the_fix(added, dropped, m.call_parts(call))


def test_every_value_the_fix_set_in_the_environment_in_any_form_is_the_fix() -> None:
    """A variable's value given as an option (``--ds=`` for ``DJANGO_SETTINGS_MODULE=``): another
    correction. One of two values is not; a flag's value is never enough (it may be a word a
    switch took tentatively)."""

    django = ("uv run pytest tests/api -q", "DJANGO_SETTINGS_MODULE=app.settings.test uv run pytest tests/api -q")
    assert fix_of(*django, "uv run pytest --ds=app.settings.test tests/api")
    assert not fix_of(*django, "uv run pytest tests/billing -q")
    two = ("./run.sh", "API_HOST=api.internal API_PORT_NAME=grpc-main ./run.sh")
    assert fix_of(*two, "./run.sh --host api.internal --port-name grpc-main")
    assert not fix_of(*two, "./run.sh --host api.internal")
    assert not fix_of("git push --force origin x", "git push --force-with-lease origin x", "git push -f origin x")


def test_the_fix_given_another_way_is_the_fix() -> None:
    """A directory the fix pointed at, moved into first; a switch the fix turned off, in its
    negative form; a variable the fix set, written out by an earlier step. Another directory,
    the switch turned on, another value: the mistake again."""

    workspace = ("pnpm add zod", "pnpm --filter @acme/api add zod")
    assert fix_of(*workspace, "cd apps/api && pnpm add -E nanoid")
    assert not fix_of(*workspace, "cd apps/web && pnpm add -E nanoid")
    assert not fix_of(*workspace, "pnpm add -E nanoid")
    package = ("swift test", "swift test --package-path Packages/Kit")
    assert fix_of(*package, "cd Packages/Kit && swift test --filter CurveTests")
    assert not fix_of(*package, "cd Packages && swift test")
    moved = ("swift test", "cd Packages/Kit && swift test")
    assert fix_of(*moved, "swift test --package-path Packages/Kit")
    assert not fix_of(*moved, "swift test --filter Kit")
    legacy = ('bq query "select 1"', 'bq query --use_legacy_sql=false "select 1"')
    assert fix_of(*legacy, "bq query --nouse_legacy_sql --max_rows=5 < daily.sql")
    assert not fix_of(*legacy, "bq query --max_rows=5 < daily.sql")
    assert not fix_of("git commit -m x", "git commit --verify -m x", "git commit --no-verify -m y")
    assert fix_of("git commit -m x", "git commit --no-verify -m x", "git commit --verify=false -m y")
    port = ("./vendor/bin/sail up -d", "FORWARD_DB_PORT=3307 ./vendor/bin/sail up -d")
    assert fix_of(*port, "echo FORWARD_DB_PORT=3307 >> .env && ./vendor/bin/sail up -d")
    assert not fix_of(*port, "echo FORWARD_DB_PORT=3306 >> .env && ./vendor/bin/sail up -d")


def test_a_bare_version_flag_is_a_look() -> None:
    """``mvn -v`` asks for the version: no lesson about running Maven holds it; ``mvn -v package``
    runs the build."""
    sig = {"v": 1, "kind": "command", "program": "mvn", "absent": ["env:JAVA_HOME"]}
    assert not m.check(sig, "Bash", {"command": "mvn -v"})[0]
    assert m.check(sig, "Bash", {"command": "mvn -v package"})[0]


def test_a_call_that_loads_its_environment_from_a_file_is_not_held_for_a_missing_variable() -> None:
    """``source .env && mvn package``, ``dotenv -e .env.local -- …``, ``direnv exec . …``: the
    variable a lesson finds missing may be set in that file. A virtualenv's activate script sets no
    project variable; and when the fix itself loaded the file and still set the variable, loading
    it is the mistake again."""
    sig = {"v": 1, "kind": "command", "program": "mvn", "absent": ["env:JAVA_HOME"]}
    for call in (
        "source .envrc && mvn package",
        "set -a && . ./.env && mvn package",
        "dotenv -e .env.local -- mvn package",
        "npx dotenv-cli -e .env -- mvn package",
        "direnv exec . mvn package",
    ):
        assert not m.check(sig, "Bash", {"command": call})[0], call
    for call in ("mvn package", "source .venv/bin/activate && mvn package"):
        assert m.check(sig, "Bash", {"command": call})[0], call
    loaded = {**sig, "fix": "source .env && JAVA_HOME=/opt/jdk21 mvn package"}
    assert m.check(loaded, "Bash", {"command": "source .env && mvn package"})[0]
    # A runner that loads the environment still runs the program: a lesson about it applies.
    assert m.check(
        {"v": 1, "kind": "command", "program": "mvn", "sub": ["deploy"]},
        "Bash",
        {"command": "direnv exec . mvn deploy"},
    )[0]
