"""core/lesson/signature.py: deriving contrastive signatures from a mistake and its fix.

Each case checks the property that matters: the signature catches the mistake
and a reworded repeat, and never the fix, ``--help`` or the same program with
unrelated arguments. The commands are made up for the tests (not the corpus).
"""

from __future__ import annotations

import pytest
from twiceshy.hooks.match import matches, remote_host
from twiceshy.lesson import signature as sg


def hit(sig: dict | None, command: str) -> bool:
    return sig is not None and matches(sig, "Bash", {"command": command})


def edit_hit(sig: dict | None, path: str, new: str, old: str = "") -> bool:
    return sig is not None and matches(sig, "Edit", {"file_path": path, "old_string": old, "new_string": new})


@pytest.mark.parametrize(
    ("mistake", "fix", "why", "repeats", "silent"),
    [
        # A missing flag: the mistake is its absence (with the valued long flag as context).
        (
            "./release.sh --channel beta",
            "./release.sh --channel beta --sign-key ci",
            "error: --sign-key is required",
            ["./release.sh --channel stable"],
            ["./release.sh --channel beta --sign-key ci", "./release.sh --help", "./release.sh status"],
        ),
        # A dropped flag: the flag is the mistake (alias included).
        (
            "helm uninstall web --no-hooks",
            "helm uninstall web",
            "hooks skipped: the database was not backed up",
            ["helm uninstall api --no-hooks"],
            ["helm uninstall web", "helm list", "helm uninstall --help"],
        ),
        # Another program did it (npm -> pnpm): the program and its subcommand.
        (
            "npm install",
            "pnpm install",
            'Unsupported URL Type "workspace:"',
            ["npm install left-pad --save"],
            ["pnpm install", "npm view left-pad version", "npm --help"],
        ),
        # A value class: a file where the fix gave a package directory.
        (
            "go build cmd/api/main.go",
            "go build ./cmd/api",
            "undefined: newRouter",
            ["go build cmd/worker/main.go -o bin/w"],
            ["go build ./cmd/worker", "go vet ./..."],
        ),
        # The runner changed (system python -> uv).
        (
            "python -m mypy src",
            "uv run mypy src",
            "No module named mypy",
            ["python3 -m mypy src/app"],
            ["uv run mypy src/app", "python3 --version"],
        ),
        # An environment variable the fix set.
        (
            "pnpm test",
            "CI=1 pnpm test",
            "watch mode needs a TTY",
            ["pnpm --filter web test"],
            ["CI=1 pnpm --filter web test", "pnpm lint"],
        ),
        # A variable that configures the tool itself (named for it, a toolchain's version or
        # home): every subcommand reads it.
        (
            "cargo build",
            "RUSTUP_TOOLCHAIN=nightly-2026-01-10 cargo build",
            "error[E0554]: `#![feature]` may not be used on the stable release channel",
            ["cargo test -p core", "cargo run --bin tool"],
            ["RUSTUP_TOOLCHAIN=nightly-2026-01-10 cargo test", "cargo --version", "cargo build --help"],
        ),
        (
            "./gradlew assemble",
            "JAVA_HOME=/opt/jdk-21 ./gradlew assemble",
            "Unsupported class file major version 65",
            ["./gradlew test --tests '*Parser*'"],
            ["JAVA_HOME=/opt/jdk-21 ./gradlew check", "./gradlew --version"],
        ),
        # A run mode is the subcommand's business: other subcommands do not need it.
        (
            "bin/rails db:migrate",
            "RAILS_ENV=test bin/rails db:migrate",
            "ActiveRecord::NoDatabaseError: database app_development does not exist",
            ["bin/rails db:migrate VERSION=20260101000000"],
            ["bin/rails server", "RAILS_ENV=test bin/rails db:migrate"],
        ),
        # A variable whose value names the mistake's operand is about those targets.
        (
            "go get git.corp.example/platform/authz@v1.4.0",
            "GOPRIVATE=git.corp.example/platform/* go get git.corp.example/platform/authz@v1.4.0",
            "fatal: could not read Username for 'https://git.corp.example': terminal prompts disabled",
            ["go mod download git.corp.example/platform/authz", "go get git.corp.example/platform/billing@v0.2.0"],
            ["go get github.com/spf13/cobra@v1.8.0", "go build ./...", "go test ./..."],
        ),
        # A toolchain step before the call on the same line.
        (
            "bundle install",
            "rbenv shell 3.3.1 && bundle install",
            "Your Ruby version is 2.7.8, but your Gemfile specified 3.3.1",
            ["bundle install --jobs 4"],
            ["rbenv shell 3.3.1 && bundle install --jobs 4"],
        ),
        # A program that does not exist here: every call of it.
        (
            "podman-compose up -d",
            "podman compose up -d",
            "bash: podman-compose: command not found",
            ["podman-compose logs api"],
            ["podman compose logs api"],
        ),
    ],
)
def test_derive_command(mistake: str, fix: str, why: str, repeats: list[str], silent: list[str]) -> None:
    sig = sg.derive_command(mistake, fix, why)
    assert sig is not None
    assert hit(sig, mistake)
    for command in repeats:
        assert hit(sig, command), (command, sig)
    for command in silent:
        assert not hit(sig, command), (command, sig)


def test_nothing_distinguishes_means_no_signature() -> None:
    assert sg.derive_command("make build", "make build") is None


def test_retry_variants_become_one_signature() -> None:
    variants = ["make deploy-prod", "make prod-deploy", "make release"]
    sig = sg.derive_from_retries(variants, "make ship ENV=prod")
    assert sig is not None
    assert all(hit(sig, v) for v in variants)
    assert not hit(sig, "make ship ENV=prod") and not hit(sig, "make build")


@pytest.mark.parametrize(
    ("bad", "good", "path", "again", "fine"),
    [
        (
            "    started = time.time()\n",
            "    started = time.monotonic()\n",
            "app/jobs.py",
            ("lib/timer.py", "t0 = time.time()"),
            ("lib/timer.py", "t0 = time.monotonic()"),
        ),
        (
            "  const ids = rows.map((r) => r.id).reverse();\n",
            "  const ids = [...rows].map((r) => r.id).reverse();\n",
            "src/a.ts",
            None,
            ("src/b.tsx", "const x = [...items].map((i) => i.id);"),
        ),
        (
            "    return json.dumps(payload)\n",
            "    return json.dumps(payload, default=str)\n",
            "svc/api.py",
            ("svc/other.py", "body = json.dumps(event)"),
            ("svc/other.py", "body = json.dumps(event, default=str)"),
        ),
    ],
)
def test_derive_code(bad: str, good: str, path: str, again: tuple[str, str] | None, fine: tuple[str, str]) -> None:
    sig = sg.derive_code(bad, good, path)
    assert sig is not None and sig["kind"] == "edit"
    assert edit_hit(sig, path, bad)
    assert not edit_hit(sig, path, good)
    if again is not None:
        assert edit_hit(sig, *again), sig
    assert not edit_hit(sig, *fine), sig


def test_code_signature_needs_the_same_language() -> None:
    sig = sg.derive_code("x = time.time()\n", "x = time.monotonic()\n", "a.py")
    assert sig is not None and "*.py" in sig["glob"]
    assert not edit_hit(sig, "a.go", "x = time.time()")


def test_taught_trigger_with_a_fix_in_the_advice() -> None:
    sig = sg.derive_from_trigger("terraform apply", "always apply a saved plan: `terraform apply plan.out`")
    assert hit(sig, "terraform apply") and hit(sig, "terraform apply -auto-approve")
    assert not hit(sig, "terraform apply plan.out")
    flags = sg.derive_from_trigger("kubectl apply -f app.yaml", "always pass --context staging when applying")
    assert hit(flags, "kubectl apply -f other.yaml")
    assert not hit(flags, "kubectl --context staging apply -f other.yaml")


def test_taught_edit_trigger_keeps_the_named_code() -> None:
    sig = sg.derive_from_trigger(
        "Edit app/x.py: created = datetime.utcnow()", "use datetime.now(timezone.utc), never datetime.utcnow()"
    )
    assert edit_hit(sig, "other/y.py", "due = datetime.utcnow() + delta")
    assert not edit_hit(sig, "other/y.py", "due = datetime.now(timezone.utc) + delta")


def test_prose_is_not_a_command() -> None:
    assert not sg.is_command_like("pytest tests/ for the django app")
    assert sg.is_command_like("go test ./...")
    assert sg.is_command_like("docker build -t x .")


@pytest.mark.parametrize(
    ("command", "looks"),
    [
        ("ls -la", True),
        ("git status && git diff", True),
        ("kubectl get pods -n x", True),
        ("npm view react version", True),
        ("cargo build --help", True),
        ("go get example.com/m@v1", False),
        ("npm install", False),
        ("rm -rf build", False),
    ],
)
def test_diagnostics(command: str, looks: bool) -> None:
    assert sg.is_diagnostic(command) is looks


# Taught lessons (`twiceshy learn "<advice>" --trigger "<mistake>"`): what the advice calls the
# fix, and what it only describes. Made-up projects, not the corpus.
@pytest.mark.parametrize(
    ("trigger", "advice", "repeats", "silent"),
    [
        # A call the advice says fails is the mistake described, never the fix it contrasts with.
        (
            "./build.sh --target web",
            "./build.sh --target web fails on a clean checkout; run ./build.sh --target web --fetch-deps.",
            ["./build.sh --target web", "./build.sh --target admin"],
            ["./build.sh --target web --fetch-deps", "./build.sh --help"],
        ),
        # A placeholder in the advised call stands for whatever the mistake had there.
        (
            "npx vitest run src/cart.test.ts",
            "bare npx vitest can't find the workspace config; run npm test -- <file>.",
            ["npx vitest run src/orders.test.ts"],
            ["npm test -- src/cart.test.ts", "npm run lint"],
        ),
        # A wrapper replaces every bare call of the program it wraps.
        (
            "mvn package",
            "the system maven is 3.3 and too old for this build; always use the wrapper, ./mvnw.",
            ["mvn -q verify", "mvn clean install -DskipTests"],
            ["./mvnw package", "./mvnw -q verify"],
        ),
        # The same program from a path; a flag in the negated list is the mistake, not the fix.
        (
            "pip install requests",
            "the system python is externally managed: install with .venv/bin/pip, never bare pip or --break-system-packages.",
            ["pip install -U httpx", "pip install --break-system-packages httpx"],
            [".venv/bin/pip install httpx", ".venv/bin/pip install -r requirements.txt"],
        ),
        # Another name of the mistake's flag, listed with it, is the same mistake.
        (
            "git push --force origin dev",
            "never force-push here (git push --force / -f); push a new branch and open a PR.",
            ["git push -f origin dev", "git push --force origin main"],
            ["git push origin dev", "git push -u origin feature/x", "git pull --rebase"],
        ),
        # A flag the advice says to pass: the trigger's other flags were one example of the call.
        (
            "ansible-playbook site.yml --check",
            "this repo has no default inventory: always pass -i inventories/prod/hosts.yml to ansible-playbook.",
            ["ansible-playbook deploy.yml", "ansible-playbook site.yml --check"],
            ["ansible-playbook -i inventories/prod/hosts.yml deploy.yml", "ansible-playbook --help"],
        ),
        # Another program for the same operation keeps the trigger's narrowing.
        (
            "go test ./...",
            "go test ./... also runs the e2e suite, which needs NATS; run the unit tests with make unit.",
            ["go test ./..."],
            ["go test ./internal/shard/", "make unit", "go vet ./..."],
        ),
        # A program the advice only describes is not a fix ("make clean removes …").
        (
            "rm -rf data/",
            "never rm -rf data/ (data/raw is slow to re-download); make clean removes only data/interim.",
            ["rm -rf data/"],
            ["rm -rf build/ dist/", "make clean"],
        ),
    ],
)
def test_taught_lessons_hold_the_mistake_not_the_advice(
    trigger: str, advice: str, repeats: list[str], silent: list[str]
) -> None:
    sig = sg.derive_from_trigger(trigger, advice)
    assert sig is not None
    for command in repeats:
        assert hit(sig, command), (command, sig)
    for command in silent:
        assert not hit(sig, command), (command, sig)


def test_placeholders_are_filled_from_the_mistake() -> None:
    from twiceshy.lesson.advice import fill_placeholders, named_as_mistake

    filled = fill_placeholders(["./gradlew", ":app:test", "--tests", "X"], [], {"--tests": "Foo"})
    assert filled == ["./gradlew", ":app:test", "--tests", "Foo"]
    assert fill_placeholders(["npm", "test", "--", "<path>"], ["a.test.ts"], {}) == [
        "npm",
        "test",
        "--",
        "a.test.ts",
    ]
    assert fill_placeholders(["npm", "test"], ["a.test.ts"], {}) is None
    text = "a bare dotnet test fails with MSB1011; name it: dotnet test App.sln"
    at = text.index("dotnet test")
    assert named_as_mistake(text, at, at + len("dotnet test"))
    fix_at = text.index("dotnet test App.sln")
    assert not named_as_mistake(text, fix_at, fix_at + len("dotnet test App.sln"))


def test_other_names_of_the_fix_are_the_fix() -> None:
    # A long form of the flag the fix added, and the other name of `source`.
    compose = sg.derive_command("docker compose up -d", "docker compose -f compose.ci.yaml up -d", why="")
    assert hit(compose, "docker compose up -d --build")
    assert not hit(compose, "docker compose --file compose.ci.yaml up -d")
    pull = sg.derive_command("git pull", "git pull --rebase origin main", why="exit 128")
    assert hit(pull, "git pull origin main") and not hit(pull, "git pull -r")
    step = sg.derive_command("./scripts/smoke.sh", "source scripts/env.sh staging && ./scripts/smoke.sh", why="")
    assert hit(step, "./scripts/smoke.sh -v")
    assert not hit(step, ". scripts/env.sh prod; ./scripts/smoke.sh -v")


def test_single_dash_options_of_java_and_go_tools_are_whole_words() -> None:
    sig = sg.derive_command("./mvnw -pl web test", "./mvnw -pl web -am test", why="tests failed")
    assert sig is not None and hit(sig, "./mvnw -pl api test")
    assert not hit(sig, "./mvnw -pl api -am test")
    assert not hit(sig, "./mvnw -pl api -am -ntp test")


def test_a_trigger_that_is_the_advised_call_teaches_the_call_without_what_it_adds() -> None:
    # A marker line's example is often the fix: "always add -am, e.g. ./mvnw -pl web -am test".
    sig = sg.derive_from_trigger(
        "./mvnw -pl web -am test",
        "`-pl <module>` alone fails here; always add -am (also-make), e.g. ./mvnw -pl web -am test.",
    )
    assert hit(sig, "./mvnw -pl web test") and not hit(sig, "./mvnw -pl web -am test")
    # A flag the advice gives another value is not the trigger as it is.
    values = sg.derive_from_trigger(
        "helm upgrade web charts/web -f values-prod.yaml",
        "pass -f charts/web/values-<env>.yaml, not -f values-<env>.yaml.",
    )
    assert hit(values, "helm upgrade web charts/web -f values-prod.yaml")


def test_taught_steps_tasks_and_flags_of_other_subcommands() -> None:
    # A setup step the advice says to run first, written in prose with a placeholder.
    step = sg.derive_from_trigger(
        "./scripts/e2e.sh",
        "e2e.sh reads API_URL from the environment; always source scripts/env.sh <env> before running it.",
    )
    assert hit(step, "./scripts/e2e.sh --suite api")
    assert not hit(step, "source scripts/env.sh staging && ./scripts/e2e.sh --suite api")
    # mix tasks are dotted names; a flag the advice gives another task is not the fix of this one.
    reset = sg.derive_from_trigger(
        "mix ecto.reset", "never mix ecto.reset here (hand-made data); fix migrations with mix ecto.rollback --step 1."
    )
    assert hit(reset, "mix ecto.reset") and not hit(reset, "mix ecto.migrate") and not hit(reset, "mix test")


def test_a_changed_call_of_a_module_keeps_the_module() -> None:
    # yaml.load -> yaml.safe_load: json.load( in the same file is not the mistake.
    sig = sg.derive_code("        raw = yaml.load(f)\n", "        raw = yaml.safe_load(f)\n", "app/config.py")
    assert edit_hit(sig, "app/rules.py", "    data = yaml.load(fh)\n")
    assert not edit_hit(sig, "app/rules.py", "    data = json.load(fh)\n")
    assert not edit_hit(sig, "app/rules.py", "    data = yaml.safe_load(fh)\n")
    # Brought in by the edit: json.load( in the old text does not hide it.
    assert edit_hit(sig, "app/config.py", "        raw = yaml.load(f)\n", old="        raw = json.load(f)\n")


def test_what_a_taught_lesson_forbids_in_a_compound_or_negated_form() -> None:
    # The step of a compound trigger the advice forbids, and the flag's other name.
    down = sg.derive_from_trigger(
        "docker compose down -v && docker compose up -d",
        "never docker compose down -v / --volumes: the db volume holds the only snapshot; plain docker compose down.",
    )
    assert hit(down, "docker compose down --volumes --remove-orphans")
    assert not hit(down, "docker compose down") and not hit(down, "docker compose up -d")
    # "never … with --x; always pass --no-x": --x is the mistake, --no-x the fix.
    auth = sg.derive_from_trigger(
        "gcloud run deploy api --source . --allow-unauthenticated",
        "never gcloud run deploy with --allow-unauthenticated (bypasses IAP); always pass --no-allow-unauthenticated.",
    )
    assert hit(auth, "gcloud run deploy worker --image x --allow-unauthenticated")
    assert not hit(auth, "gcloud run deploy worker --image x --no-allow-unauthenticated")
    assert not hit(auth, "gcloud builds submit --tag x .")
    # A bundle of flags the trigger has is nothing new ("git clean -fd" after "-fdx").
    clean = sg.derive_from_trigger(
        "git clean -fdx", "never git clean -x here; preview with git clean -n, then git clean -fd."
    )
    assert hit(clean, "git clean -xdf") and not hit(clean, "git clean -fd") and not hit(clean, "git clean -n -d")


def test_a_dockerfile_instruction_is_a_pattern_over_dockerfiles() -> None:
    sig = sg.derive_from_trigger("FROM node:latest", "pin base images to an exact tag; never FROM <image>:latest.")
    assert sig is not None and sig["kind"] == "edit"
    assert edit_hit(sig, "worker/Dockerfile", "FROM python:latest AS base\n")
    assert not edit_hit(sig, "Dockerfile", "FROM node:20.12-bookworm-slim\n")
    assert not edit_hit(sig, "app/config.py", 'IMAGE = "FROM node:latest"\n')


def test_a_taught_lesson_keeps_what_its_advice_names_of_the_trigger() -> None:
    # "a no-cache build": --no-cache, named in prose, stays the mistake; without it the lesson
    # held every docker call lacking --pull (2,000 such lessons in the noisy judgement store).
    sig = sg.derive_from_trigger(
        "docker compose build --no-cache api",
        "A no-cache build of api re-downloads 2 GB of wheels; use --pull instead.",
    )
    assert hit(sig, "docker compose build --no-cache api")
    for fine in ("docker build -t api:dev .", "docker builder prune -f", "docker compose up -d db"):
        assert not hit(sig, fine), fine


def test_a_fix_that_awaits_holds_the_blocking_call_only_in_async_code() -> None:
    bad = "async def fetch_all(session):\n    while pending(session):\n        time.sleep(2)\n"
    good = "async def fetch_all(session):\n    while pending(session):\n        await asyncio.sleep(2)\n"
    sig = sg.derive_code(bad, good, "crawler/fetch.py")
    assert sig is not None and "sleep" in sig["pattern"]  # "time." alone is every member of time
    assert edit_hit(sig, "crawler/poll.py", "async def poll(q):\n    time.sleep(5)\n    return await q.get()\n")
    assert not edit_hit(sig, "crawler/poll.py", "async def poll(q):\n    await asyncio.sleep(5)\n")
    # A plain script sleeping between retries is not the mistake; nor is another member of time.
    assert not edit_hit(sig, "scripts/wait.py", "def wait():\n    for _ in range(9):\n        time.sleep(1)\n")
    assert not edit_hit(sig, "crawler/poll.py", "async def poll(q):\n    started = time.monotonic()\n")


def test_lines_the_fix_only_added_give_no_pattern_of_where_they_went() -> None:
    # The fix added a line between two others: "] def" (any method after any subscript) is not
    # the mistake, and a migration that never needed the line must not be held.
    bad = "class AddSlugToPosts < Migration[6.0]\n  def change\n    add_column :posts, :slug\n  end\nend\n"
    good = "class AddSlugToPosts < Migration[6.0]\n  safety_assured!\n\n  def change\n    add_column :posts, :slug\n  end\nend\n"
    sig = sg.derive_code(bad, good, "db/migrate/1_add_slug.rb")
    other = "class AddBodyToPosts < Migration[6.0]\n  def change\n    add_column :posts, :body\n  end\nend\n"
    assert not edit_hit(sig, "db/migrate/2_add_body.rb", other)


def test_a_generalised_pattern_keeps_a_name_or_an_operator() -> None:
    # ".Where(...)" without ".ToList()": "any member before ');'" would hold every C# call.
    bad = "        var due = items.Where(i => !i.Sent);\n"
    good = "        var due = items.Where(i => !i.Sent).ToList();\n"
    sig = sg.derive_code(bad, good, "src/Jobs/Digest.cs")
    assert sig is None or not edit_hit(sig, "src/Jobs/Other.cs", "        logger.Info(ctx.Name);\n")
    assert sig is None or not edit_hit(
        sig, "src/Jobs/Other.cs", "        var open = orders.Where(o => o.Open).ToList();\n"
    )


def test_a_lesson_about_a_remote_host_holds_calls_to_that_host_only() -> None:
    sig = sg.derive_command("ssh ops@db1.example.org 'uptime'", "ssh -p 2200 ops@db1.example.org 'uptime'")
    assert hit(sig, "ssh ops@db2.example.org 'df -h'")  # same domain, same port rule
    assert not hit(sig, "ssh -p 2200 ops@db1.example.org 'df -h'")
    assert not hit(sig, "ssh admin@build.other.net 'df -h'")  # another machine's lesson, not this one
    # A correction about one server's web root: a local copy with --delete is another matter.
    sig = sg.derive_command("rsync -a --delete site/ web@static.example.com:/var/www/")
    assert hit(sig, "rsync -a --delete site/ web@static.example.com:/var/www/")
    assert not hit(sig, "rsync -a --delete site/ /tmp/site-preview/")
    # A registry login lesson is about that registry.
    sig = sg.derive_command(
        "docker push 1234.dkr.ecr.us-east-1.amazonaws.com/shop/api:3",
        "aws ecr get-login-password | docker login --password-stdin 1234.dkr.ecr.us-east-1.amazonaws.com"
        " && docker push 1234.dkr.ecr.us-east-1.amazonaws.com/shop/api:3",
    )
    assert hit(sig, "docker push 1234.dkr.ecr.us-east-1.amazonaws.com/shop/worker:3")
    assert not hit(sig, "docker push ghcr.io/shop/cli:0.2")


def test_remote_host_names_the_machine_not_a_path_or_version() -> None:
    assert remote_host("deploy@web1.example.net:/srv") == "example.net"
    assert remote_host("web1.example.net:/srv") == "example.net"
    assert remote_host("ghcr.io/acme/api:1.2") == "ghcr.io"
    assert remote_host("root@10.0.0.7") == "10.0.0.7"
    for word in ("node:20", "public/", "/tmp/x", "conf.d/site", "zod@3.2", "s3://bucket/key", "out.json:3"):
        assert remote_host(word) == "", word


def test_a_setup_call_of_the_same_program_before_the_call_is_the_fix() -> None:
    sig = sg.derive_command(
        "podman push quay.example.com/team/app:7",
        "podman login quay.example.com -u bot && podman push quay.example.com/team/app:7",
    )
    assert hit(sig, "podman push quay.example.com/team/worker:7")
    assert not hit(sig, "podman login quay.example.com -u bot && podman push quay.example.com/team/worker:7")
    sig = sg.derive_command("pulumi up", "pulumi stack select dev && pulumi up")
    assert sig is None or not hit(sig, "pulumi stack select dev && pulumi up --yes")
    # Another call of the program that is no setup ("git add && git commit") teaches nothing of its own.
    assert sg.derive_command("git commit -m wip", "git add -A && git commit -m wip") is None


def test_a_directory_the_mistake_named_covers_the_files_in_it() -> None:
    sig = sg.derive_command("kubectl apply -f deploy/raw/", "kubectl apply -k deploy/overlays/prod")
    assert hit(sig, "kubectl apply -f deploy/raw/ingress.yaml")
    assert not hit(sig, "kubectl apply -f deploy/other/ingress.yaml")
    assert not hit(sig, "kubectl apply -k deploy/overlays/prod")


def test_a_sourced_environment_is_for_the_action_a_toolchain_for_every_call() -> None:
    # "source .env.local" set what the database task needs, not what "rake -T" needs.
    sig = sg.derive_command("bundle exec rake db:seed", "source .env.local && bundle exec rake db:seed")
    assert hit(sig, "bundle exec rake db:seed")
    assert not hit(sig, "bundle exec rake -T") and not hit(sig, "bundle exec rspec")
    # A toolchain manager picks what every call of the program runs on.
    sig = sg.derive_command("yarn install", "fnm use && yarn install")
    assert hit(sig, "yarn build") and not hit(sig, "fnm use && yarn build")


def test_flutter_pub_is_a_group_of_subcommands() -> None:
    sig = sg.derive_command("flutter pub run build_runner build", "dart run build_runner build")
    assert hit(sig, "flutter pub run build_runner watch")
    assert not hit(sig, "flutter pub get") and not hit(sig, "flutter pub upgrade")


def test_a_runner_of_the_program_itself_is_about_that_binary() -> None:
    # "yarn workspace web exec vite" for "yarn workspace web vite": vite only, not every yarn call.
    sig = sg.derive_command("pnpm -F @shop/api drizzle-kit push", "pnpm -F @shop/api exec drizzle-kit push")
    assert hit(sig, "pnpm --filter @shop/api drizzle-kit generate")
    assert not hit(sig, "pnpm --filter @shop/web build")
    assert not hit(sig, "pnpm --filter @shop/api exec drizzle-kit generate")


def test_a_command_run_in_a_container_is_that_command() -> None:
    sig = sg.derive_command(
        "docker compose exec web bundle exec rake db:reset",
        "docker compose exec -e RAILS_ENV=test web bundle exec rake db:reset",
    )
    assert hit(sig, "docker compose exec web bundle exec rake db:reset")
    assert not hit(sig, "docker compose exec web bin/rails routes")
    assert not hit(sig, "docker compose exec -e RAILS_ENV=test web bundle exec rake db:reset")


def test_a_flag_inside_the_advised_call_is_not_advice_to_add_it() -> None:
    # The advice is a whole other call that also has --dev: the trigger is not its own fix.
    sig = sg.derive_from_trigger(
        "poetry add --group dev black==22.3.0", "black 22 breaks on py3.12: poetry add --group dev 'black>=24'"
    )
    assert hit(sig, "poetry add --group dev black==22.3.0")
    assert not hit(sig, "poetry add httpx")


def test_an_option_value_the_failure_names_is_the_lessons_scope() -> None:
    # The failure is about one package: another package is another case; the whole
    # workspace (no -p) includes that package, so it is still the mistake.
    output = (
        "   Compiling ledger-sync v0.3.1 (/home/dev/ledger/crates/ledger-sync)\n"
        "error[E0433]: failed to resolve: could not find `gcs` in `store`\n"
    )
    sig = sg.derive_command(
        "cargo test -p ledger-sync", "cargo test -p ledger-sync --features gcs", why="error[E0433]", output=output
    )
    assert sig is not None and sig.get("scope")
    for repeat in ("cargo test -p ledger-sync", "cargo test --package=ledger-sync --lib", "cargo test --workspace"):
        assert hit(sig, repeat), repeat
    for silent in ("cargo test -p ledger-sync --features gcs", "cargo test -p ledger-core", "cargo test --package x"):
        assert not hit(sig, silent), silent
    # A value the failure never names is a detail: another value is the same mistake.
    quiet = sg.derive_command(
        "cargo test -p ledger-sync", "cargo test -p ledger-sync --features gcs", output="error: could not compile"
    )
    assert quiet is not None and not quiet.get("scope")
    assert hit(quiet, "cargo test -p ledger-core")


def test_a_scope_that_is_a_directory_covers_the_files_under_it() -> None:
    output = 'The CustomResourceDefinition "widgets.example.io" is invalid: deploy/crds/10-widget.yaml too long'
    sig = sg.derive_command(
        "kubectl apply -f deploy/crds/", "kubectl apply --server-side -f deploy/crds/", output=output
    )
    assert sig is not None
    assert hit(sig, "kubectl apply -f deploy/crds/10-widget.yaml")
    assert hit(sig, "kubectl apply -R -f deploy/crds")
    assert not hit(sig, "kubectl apply -f deploy/operator/")
    assert not hit(sig, "kubectl apply --server-side -f deploy/crds/10-widget.yaml")


def test_a_long_switch_both_calls_had_says_what_the_run_covered() -> None:
    sig = sg.derive_command("cargo test --workspace", "cargo test --workspace -- --test-threads=1")
    assert hit(sig, "cargo test --workspace") and hit(sig, "cargo test --lib --workspace")
    assert not hit(sig, "cargo test -p ledger-core --features gcs")
    assert not hit(sig, "cargo test --workspace -- --test-threads 1")
    # What every call of the program needs (a profile) makes the switch a detail.
    aws = sg.derive_command(
        "aws s3 sync build/ s3://docs-prod --delete", "aws s3 sync build/ s3://docs-prod --delete --profile prod"
    )
    assert hit(aws, "aws s3 cp build/a.xml s3://docs-prod/a.xml")


def test_a_version_the_fix_moved_off_is_the_mistake() -> None:
    sig = sg.derive_from_retries(
        ["uv add --dev anyio-mock==0.3.1", "uv add --dev anyio-mock==0.4.0"], "uv add --dev 'anyio-mock>=0.5'"
    )
    for repeat in ("uv add --dev anyio-mock==0.3.1", "uv add anyio-mock==0.4.0 --group dev"):
        assert hit(sig, repeat), repeat
    for silent in ("uv add --dev 'anyio-mock>=0.5'", "uv add --dev anyio-mock==0.6.2", "uv add httpx"):
        assert not hit(sig, silent), silent


def test_a_value_class_holds_under_either_name_of_the_flag() -> None:
    sig = sg.derive_command("pnpm --filter docs build", "pnpm --filter @acme/docs build")
    for repeat in ("pnpm -F docs build", "pnpm --filter=docs build"):
        assert hit(sig, repeat), repeat
    for silent in ("pnpm -F @acme/docs build", "pnpm --filter=@acme/docs build"):
        assert not hit(sig, silent), silent


def test_a_file_the_advice_names_stays_part_of_the_mistake() -> None:
    sig = sg.derive_from_trigger(
        "ansible-playbook -i hosts/prod.ini release.yml",
        "release.yml reads vaulted vars: pass --vault-password-file ~/.vault-pass to ansible-playbook",
    )
    assert hit(sig, "ansible-playbook release.yml -i hosts/staging.ini --limit app1")
    assert not hit(sig, "ansible-playbook -i hosts/prod.ini site.yml --limit web")
    assert not hit(sig, "ansible-playbook -i hosts/prod.ini release.yml --vault-password-file ~/.vault-pass")


def test_common_switch_letters_hold_under_either_name_unless_the_program_uses_the_letter() -> None:
    """-f/--force, -r/--recursive, -y/--yes for every program; not where the program's own table
    gives the letter to another flag (kubectl -f is --filename, cargo -r is --release)."""
    assert sg.flag_item("--force", "pulumi") == "--force|-f"
    assert sg.flag_item("-y", "apt-get") == "-y|--yes"
    assert sg.flag_item("--force", "kubectl") == "--force"
    assert sg.flag_item("-r", "cargo") == "-r|--release"
    sig = sg.derive_command(
        "pulumi destroy --force --stack dev", "pulumi destroy --stack dev", "destroyed prod resources"
    )
    assert hit(sig, "pulumi destroy -f --stack dev")
    assert not hit(sig, "pulumi destroy --stack dev")


def test_a_target_word_the_failure_names_is_the_lessons_scope() -> None:
    """``./deploy.sh staging`` failing for staging says nothing about ``./deploy.sh prod``: a
    bare target word both calls share and the text names scopes the lesson; a call naming no
    target (the default) is still the mistake. Unnamed, or a path, it stays a detail."""
    sig = sg.derive_command(
        "./deploy.sh staging", "./deploy.sh staging --region eu-west-1", "deploying staging fails: missing --region"
    )
    assert sig is not None and sig.get("scope") == ["@=staging"]
    for repeat in ("./deploy.sh staging", "./deploy.sh --dry-run staging", "./deploy.sh"):
        assert hit(sig, repeat), repeat
    for silent in ("./deploy.sh prod", "./deploy.sh staging --region us-east-1"):
        assert not hit(sig, silent), silent
    unnamed = sg.derive_command("./deploy.sh staging", "./deploy.sh staging --region eu-west-1", "missing --region")
    assert unnamed is not None and not unnamed.get("scope")
    assert hit(unnamed, "./deploy.sh prod")
    path = sg.derive_command(
        "terraform apply plans/net.tfplan",
        "terraform apply -lock-timeout=5m plans/net.tfplan",
        "plans/net.tfplan locked",
    )
    assert path is not None and not path.get("scope")


def test_a_key_stays_with_what_the_mistake_ran() -> None:
    """Round 8: the subcommand where the mistake and the fix part, the lane a dropped runner
    ran, the target of a program with no subcommand, and no target when the fix only named one."""
    ef = sg.derive_command("dotnet ef database update", "dotnet ef migrations script --idempotent", "no")
    assert ef is not None and ef.get("sub") == ["ef", "database"]
    assert not hit(ef, "dotnet ef migrations add AddCurrency")
    lane = sg.derive_command("bundle exec fastlane beta", "fastlane build", "do not upload from here")
    assert lane is not None and hit(lane, "fastlane beta") and not hit(lane, "bundle exec fastlane test")
    task = sg.derive_command("sbt pipeline/test", 'SBT_OPTS="-Xmx4G" sbt pipeline/test', "OutOfMemoryError")
    assert task is not None and hit(task, "sbt pipeline/test") and not hit(task, "sbt compile")
    assert not hit(task, 'SBT_OPTS="-Xmx4G" sbt pipeline/test')
    release = sg.derive_command("./scripts/release.sh 2.3.0", "sudo wg-quick up vpn && ./scripts/release.sh 2.3.0")
    assert release is not None and hit(release, "./scripts/release.sh 2.3.1")  # a version is no target
    target = sg.derive_command("dotnet test -c Release", "dotnet test Gannet.sln -c Release", "MSB1011")
    assert target is not None and hit(target, "dotnet test") and hit(target, "dotnet test -c Debug")
    assert not hit(target, "dotnet test tests/Gannet.Payments.Tests --filter Fees")


def test_a_step_the_advice_runs_before_the_call_is_the_fix() -> None:
    """ "always git push -u origin HEAD && gh pr create": -u is the push's flag; the push before
    the call is what the fix adds. A variable the advice names in prose is set by the fix."""
    pr = sg.derive_from_trigger(
        "gh pr create --fill",
        "gh pr create aborts when the branch isn't pushed yet; always git push -u origin HEAD && gh pr create … in one go.",
    )
    assert pr is not None and "-u" not in (pr.get("absent") or []) and "pre:git" in (pr.get("absent") or [])
    assert hit(pr, "gh pr create --fill")
    assert not hit(pr, "git push -u origin HEAD && gh pr create --fill")
    rebase = sg.derive_from_trigger(
        "git rebase -i HEAD~3", "git rebase -i needs an editor; run the rebase with GIT_SEQUENCE_EDITOR set."
    )
    assert rebase is not None and hit(rebase, "git rebase -i HEAD~5")
    assert not hit(rebase, "GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash origin/main")


def test_a_fix_that_compares_a_calls_result_keys_on_that_call_used_as_is() -> None:
    """``array_search(…)`` → ``array_search(…) !== false``: the mistake is the call's result used as
    a condition, in any file and with any arguments; the compared call and other code pass."""
    sig = sg.derive_code(
        "        if (array_search($planId, $this->planIds)) {\n",
        "        if (array_search($planId, $this->planIds) !== false) {\n",
        "app/Services/PlanResolver.php",
    )
    assert sig is not None

    def held(code: str) -> bool:
        return matches(sig, "Edit", {"file_path": "app/Policies/TeamPolicy.php", "old_string": "", "new_string": code})

    assert held("        if (! array_search($role, $this->managerRoles)) {\n")
    assert not held("        if (array_search($role, $this->roles) !== false) {\n")
    assert not held("        if (! in_array($role, $this->managerRoles, true)) {\n")
    assert not held("        $plans = Plan::query()->orderBy('price')->get();\n")


def test_a_lesson_that_says_every_call_of_its_program_keys_on_the_program() -> None:
    """ "add --region eu-central-1 to aws calls": every aws call without it, whatever service;
    a lesson that names only its own subcommand keeps it."""
    text = "millbrook's default region here is us-east-1 — add --region eu-central-1 to aws calls."
    sig = sg.derive_from_trigger("aws ecs list-services --cluster millbrook-staging", text)
    assert sig is not None and not sig.get("sub") and "--region" in sig["absent"]
    assert matches(sig, "Bash", {"command": "aws logs tail /ecs/millbrook-api --since 1h"})
    assert not matches(sig, "Bash", {"command": "aws logs tail /ecs/millbrook-api --region eu-central-1"})
    narrow = {"kind": "command", "program": "kubectl", "sub": ["apply"], "absent": ["--context"]}
    assert sg.for_every_call(narrow, "kubectl apply needs --context staging") == narrow
    assert "sub" not in sg.for_every_call(narrow, "every kubectl command needs --context staging")


def test_a_fix_the_advice_names_as_part_of_the_mistake_keys_on_what_it_leaves_out() -> None:
    """ "never docker compose down -v …; use docker compose down": the advised call is the mistake
    without ``-v``, so ``-v`` is the mistake and the advised call passes."""
    text = "never docker compose down -v / --volumes — it wipes the db volume; use docker compose down, or docker compose restart db."
    sig = sg.derive_from_trigger("docker compose down -v", text)
    assert sig is not None and "-v|--volumes" in (sig.get("present") or [])
    assert matches(sig, "Bash", {"command": "docker compose down --volumes --remove-orphans"})
    assert not matches(sig, "Bash", {"command": "docker compose down --remove-orphans"})


def test_subcommands_the_lesson_names_as_siblings_are_each_the_mistake() -> None:
    """ "dotnet build/test/restore must name one": every one of them without it is the mistake,
    another subcommand is not, and the same words spaced apart ("compose down / restart") name
    no siblings."""
    text = (
        "the root has two solution files: dotnet build/test/restore must name one (dotnet test App.sln), else MSB1011."
    )
    sig = sg.derive_from_trigger("dotnet test -c Release", text)
    assert sig is not None and sig["sub"] == ["build|test|restore"]
    assert matches(sig, "Bash", {"command": "dotnet build"})
    assert matches(sig, "Bash", {"command": "dotnet restore"})
    assert not matches(sig, "Bash", {"command": "dotnet run --project src/Api"})
    down = {"v": 1, "kind": "command", "program": "docker", "sub": ["compose", "down"], "present": ["-v|--volumes"]}
    assert sg.with_named_siblings(down, "never docker compose down -v; use docker compose down / restart") == down


def test_a_step_of_the_same_program_the_advice_runs_first_is_the_fix() -> None:
    """ "always terraform workspace select <env> && terraform plan/apply …": the plan or apply run
    after that step is the fix; without it, the mistake."""
    text = "one workspace per env; always terraform workspace select <env> && terraform plan/apply -var-file=envs/<env>.tfvars."
    sig = sg.derive_from_trigger("terraform plan -var-file=envs/prod.tfvars", text)
    assert sig is not None and "pre:terraform workspace" in sig["absent"]
    assert matches(sig, "Bash", {"command": "terraform apply -var-file=envs/staging.tfvars"})
    fix = "terraform workspace select staging && terraform apply -var-file=envs/staging.tfvars"
    assert not matches(sig, "Bash", {"command": fix})
