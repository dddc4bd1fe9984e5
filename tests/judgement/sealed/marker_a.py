"""Sealed split, shape 3 (part a): the assistant writes a ``GOTCHA:`` / ``LEARNING:`` line about a call to avoid.

Some sessions show the failing call and the fix before the line; some hold only the sentence.
"""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    MARKER,
    A,
    Incident,
    U,
    edit,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
)
from ._eco import eco

INCIDENTS = [
    eco("shell", Incident(
        "s-mk-kestrel-deploy-region", MARKER, CC, "kestrel-ops",
        session=[
            U("Deploy the gateway to staging."),
            err("./deploy.sh --env staging",
                "deploy.sh: resolving targets for env=staging\n"
                "error: missing --region (staging spans eu-west-1 and us-east-1; pass one)", 2),
            ok("./deploy.sh --env staging --region eu-west-1",
               "==> kestrel gateway v3.2.0 -> staging/eu-west-1\n==> draining 4 nodes one at a time\n==> 4/4 nodes healthy"),
            A("Deployed v3.2.0 to staging.\n\n"
              "GOTCHA: ./deploy.sh --env staging fails with 'missing --region'; always pass --region eu-west-1 for staging."),
        ],
        mistake="./deploy.sh --env staging",
        lesson="kestrel-ops: ./deploy.sh --env staging needs --region eu-west-1.",
        warn=[same("./deploy.sh --env staging"), reword("./deploy.sh --env=staging --tag v3.2.1")],
        silent=[fix("./deploy.sh --env staging --region eu-west-1 --tag v3.2.1"), help_("./deploy.sh --help"),
                other("git log --oneline -3 -- deploy.sh")],
    )),
    eco("node", Incident(
        "s-mk-bramble-changeset-lockfile", MARKER, CODEX, "bramble-shop",
        session=[
            U("Which packages would the next release bump?"),
            ok("pnpm changeset status",
               "🦋  info Packages to be bumped at patch:\n🦋  info\n🦋  - @bramble/shared\n🦋  - web"),
            A("Two packages get a patch bump: @bramble/shared and web.\n\n"
              "LEARNING: `pnpm changeset version` bumps the package.json versions but leaves pnpm-lock.yaml stale; always follow it "
              "with `pnpm install --lockfile-only`, otherwise CI's frozen-lockfile install fails."),
        ],
        mistake="pnpm changeset version",
        lesson="bramble-shop: after pnpm changeset version run pnpm install --lockfile-only (CI installs with a frozen lockfile).",
        warn=[same("pnpm changeset version"), reword("pnpm exec changeset version")],
        silent=[fix("pnpm changeset version && pnpm install --lockfile-only"), other("pnpm changeset status --verbose"),
                other("pnpm changeset add --empty")],
    )),
    eco("python", Incident(
        "s-mk-tidewatch-alembic-host", MARKER, CC, "tidewatch",
        session=[
            U("Apply the migrations to my local database."),
            err("uv run alembic upgrade head",
                "Traceback (most recent call last):\n  File \"/home/dev/tidewatch/.venv/bin/alembic\", line 8, in <module>\n    sys.exit(main())\n"
                "  ...\nsqlalchemy.exc.OperationalError: (psycopg.OperationalError) [Errno -3] could not translate host name \"db\" to address: "
                "Temporary failure in name resolution\n(Background on this error at: https://sqlalche.me/e/20/e3q8)", 1),
            read(".env", "DATABASE_HOST=db\nDATABASE_PORT=5432\nDATABASE_NAME=tidewatch\nDATABASE_USER=tidewatch\n"),
            ok("DATABASE_HOST=localhost uv run alembic upgrade head",
               "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
               "INFO  [alembic.runtime.migration] Running upgrade 3c1f2a9e4b10 -> 7d9e0b2c6a55, add tide_station.elevation"),
            A("LEARNING: .env sets DATABASE_HOST=db (the compose service name), so alembic run from the host fails with "
              "'could not translate host name \"db\"'; prefix `DATABASE_HOST=localhost` when running `uv run alembic ...` outside compose."),
        ],
        mistake="uv run alembic upgrade head",
        lesson="tidewatch: outside docker compose run alembic as DATABASE_HOST=localhost uv run alembic ... (.env points at host db).",
        warn=[same("uv run alembic upgrade head"), reword("uv run alembic downgrade -1")],
        silent=[fix("DATABASE_HOST=localhost uv run alembic downgrade -1"), other("uv run alembic history"),
                help_("uv run alembic --help")],
        variants=("intervening",),
    )),
    eco("rust", Incident(
        "s-mk-ferrocask-clippy-ci-flags", MARKER, GEMINI, "ferrocask",
        session=[
            U("Why did CI fail on my PR? Locally clippy was clean."),
            read(".github/workflows/ci.yml",
                 "jobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
                 "      - run: cargo clippy --all-targets --all-features -- -D warnings\n"),
            A("CI lints the tests and the s3 feature too and treats warnings as errors; both warnings are in tests/s3_roundtrip.rs.\n\n"
              "LEARNING: in ferrocask a plain `cargo clippy` misses what CI enforces; run "
              "`cargo clippy --all-targets --all-features -- -D warnings`."),
        ],
        mistake="cargo clippy",
        lesson="ferrocask: lint like CI with cargo clippy --all-targets --all-features -- -D warnings (plain cargo clippy misses it).",
        warn=[same("cargo clippy"), reword("cargo clippy -p ferrocask")],
        silent=[fix("cargo clippy --all-targets --all-features -- -D warnings"), other("cargo fmt --all")],
    )),
    eco("go", Incident(
        "s-mk-gridkeeper-race-detector", MARKER, CC, "gridkeeper",
        session=[
            U("Run the scheduler tests after my worker-pool change."),
            ok("go test ./internal/sched/...", "ok  \tgithub.com/gridkeeper/gridkeeper/internal/sched\t0.231s"),
            ok("grep -n 'go test' .github/workflows/test.yml", "31:        run: go test -race -count=1 ./..."),
            err("go test -race ./internal/sched/...",
                "==================\nWARNING: DATA RACE\nWrite at 0x00c0001a20f8 by goroutine 23:\n"
                "  github.com/gridkeeper/gridkeeper/internal/sched.(*Pool).Submit()\n      /home/dev/gridkeeper/internal/sched/pool.go:58 +0x1a4\n\n"
                "Previous read at 0x00c0001a20f8 by goroutine 19:\n  github.com/gridkeeper/gridkeeper/internal/sched.(*Pool).Len()\n"
                "      /home/dev/gridkeeper/internal/sched/pool.go:71 +0x44\n==================\n"
                "--- FAIL: TestPoolSubmitConcurrent (0.02s)\n    testing.go:1399: race detected during execution of test\nFAIL\n"
                "FAIL\tgithub.com/gridkeeper/gridkeeper/internal/sched\t0.412s", 1),
            edit("internal/sched/pool.go", "func (p *Pool) Len() int {\n\treturn len(p.queue)\n}",
                 "func (p *Pool) Len() int {\n\tp.mu.Lock()\n\tdefer p.mu.Unlock()\n\treturn len(p.queue)\n}"),
            ok("go test -race ./internal/sched/...", "ok  \tgithub.com/gridkeeper/gridkeeper/internal/sched\t1.108s"),
            A("Fixed: Len() now takes the pool lock.\n\nLEARNING: `go test ./internal/sched/...` passes without the race detector and hides "
              "the pool's data races; always run the scheduler tests with `go test -race` like CI does."),
        ],
        mistake="go test ./internal/sched/...",
        lesson="gridkeeper: run the scheduler tests with go test -race (without it data races pass locally and fail CI).",
        warn=[same("go test ./internal/sched/..."), reword("go test -run TestPool -v ./internal/sched")],
        silent=[fix("go test -race -run TestPool -v ./internal/sched"), other("go vet ./internal/sched/...")],
        variants=("intervening",),
    )),
    eco("kubernetes", Incident(
        "s-mk-kestrel-kubectl-default-context", MARKER, CODEX, "kestrel-ops",
        session=[
            U("Update the staging configmap with the new rate limits."),
            ok("kubectl apply -f k8s/staging/configmap.yaml", "configmap/gateway-limits configured"),
            ok("kubectl config current-context", "kestrel-prod-eu"),
            ok("kubectl --context kestrel-prod-eu apply -f k8s/prod/configmap.yaml", "configmap/gateway-limits configured"),
            ok("kubectl --context kestrel-staging apply -f k8s/staging/configmap.yaml", "configmap/gateway-limits configured"),
            A("I had applied the staging limits to prod by accident; prod's configmap is restored from k8s/prod and staging now "
              "has the new limits.\n\nGOTCHA: the default kubectl context here is kestrel-prod-eu, so `kubectl apply -f k8s/staging/...` "
              "silently lands in prod. Always pass `--context kestrel-staging` for staging manifests."),
        ],
        mistake="kubectl apply -f k8s/staging/configmap.yaml",
        lesson="kestrel-ops: kubectl's default context is prod; apply staging manifests with kubectl --context kestrel-staging.",
        warn=[same("kubectl apply -f k8s/staging/configmap.yaml"), reword("kubectl apply -n edge -f k8s/staging/deployment.yaml")],
        silent=[fix("kubectl --context kestrel-staging apply -n edge -f k8s/staging/deployment.yaml"),
                other("kubectl config get-contexts")],
        variants=("intervening",),
    )),
    eco("terraform", Incident(
        "s-mk-saltmarsh-workspace-select", MARKER, CC, "saltmarsh-infra",
        session=[
            U("Plan the staging changes for the new queue."),
            ok("terraform plan -var-file=staging.tfvars",
               "  # aws_sqs_queue.events will be created\n  # aws_sqs_queue.events_dlq will be created\n  ...\n"
               "Plan: 42 to add, 0 to change, 0 to destroy."),
            ok("terraform workspace show", "default"),
            ok("terraform workspace select staging && terraform plan -var-file=staging.tfvars",
               "Switched to workspace \"staging\".\n  # aws_sqs_queue.events will be created\n  # aws_sqs_queue.events_dlq will be created\n\n"
               "Plan: 2 to add, 0 to change, 0 to destroy."),
            A("Two queues to add in staging.\n\nGOTCHA: saltmarsh keeps one state per workspace and starts in `default`; "
              "`terraform plan -var-file=staging.tfvars` there wants to create all 42 resources again. Run "
              "`terraform workspace select staging` first."),
        ],
        mistake="terraform plan -var-file=staging.tfvars",
        lesson="saltmarsh-infra: select the workspace first (terraform workspace select staging) before plan/apply with staging.tfvars.",
        warn=[same("terraform plan -var-file=staging.tfvars"), reword("terraform apply -var-file=staging.tfvars")],
        silent=[fix("terraform workspace select staging && terraform apply -var-file=staging.tfvars"),
                other("terraform workspace list"), other("terraform fmt -check")],
        variants=("diagnostic",),
    )),
    eco("ruby", Incident(
        "s-mk-quillpress-headless-system-tests", MARKER, GEMINI, "quillpress",
        session=[
            U("Run the checkout system test."),
            err("bin/rails test test/system/checkout_test.rb",
                "Run options: --seed 40211\n\n# Running:\n\nE\n\nError:\nCheckoutTest#test_guest_checkout:\n"
                "Selenium::WebDriver::Error::SessionNotCreatedError: session not created: Chrome failed to start: exited normally.\n"
                "  (session not created: DevToolsActivePort file doesn't exist)\n"
                "    test/application_system_test_case.rb:4:in `<class:ApplicationSystemTestCase>'\n\n"
                "1 runs, 0 assertions, 0 failures, 1 errors, 0 skips", 1),
            read("test/application_system_test_case.rb",
                 "class ApplicationSystemTestCase < ActionDispatch::SystemTestCase\n"
                 "  driven_by :selenium, using: (ENV[\"HEADLESS\"] ? :headless_chrome : :chrome), screen_size: [1400, 1400]\nend\n"),
            ok("HEADLESS=1 bin/rails test test/system/checkout_test.rb",
               "Run options: --seed 11872\n\n# Running:\n\n.\n\nFinished in 4.218s, 0.2371 runs/s\n1 runs, 7 assertions, 0 failures, 0 errors, 0 skips"),
            A("GOTCHA: quillpress system tests start a visible Chrome unless HEADLESS is set, and it dies in this container; run them "
              "as `HEADLESS=1 bin/rails test test/system/...` (or `HEADLESS=1 bin/rails test:system`)."),
        ],
        mistake="bin/rails test test/system/checkout_test.rb",
        lesson="quillpress: system tests need HEADLESS=1 (HEADLESS=1 bin/rails test:system).",
        warn=[same("bin/rails test test/system/checkout_test.rb"), reword("bin/rails test:system")],
        silent=[fix("HEADLESS=1 bin/rails test:system"), other("bin/rails test test/models/post_test.rb")],
        variants=("intervening",),
    )),
    eco("java", Incident(
        "s-mk-marrowbank-testcontainers-podman", MARKER, CC, "marrowbank",
        session=[
            U("Run the integration tests for the ledger repository."),
            err("mvn verify -Pit -Dit.test=LedgerRepositoryIT",
                "[INFO] Running com.marrowbank.ledger.LedgerRepositoryIT\n"
                "[ERROR] Could not find a valid Docker environment. Please see logs and check configuration\n"
                "[ERROR] Tests run: 1, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 1.81 s <<< FAILURE! -- in com.marrowbank.ledger.LedgerRepositoryIT\n"
                "[ERROR] java.lang.IllegalStateException: Could not find a valid Docker environment. Please see logs and check configuration\n"
                "[INFO] BUILD FAILURE", 1),
            ok("ls /run/user/1000/podman/", "podman.sock"),
            ok("DOCKER_HOST=unix:///run/user/1000/podman/podman.sock TESTCONTAINERS_RYUK_DISABLED=true mvn verify -Pit -Dit.test=LedgerRepositoryIT",
               "[INFO] Running com.marrowbank.ledger.LedgerRepositoryIT\n[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS"),
            A("LEARNING: this machine runs podman, not docker: the Testcontainers ITs (`mvn verify -Pit`) need "
              "`DOCKER_HOST=unix:///run/user/1000/podman/podman.sock TESTCONTAINERS_RYUK_DISABLED=true`."),
        ],
        mistake="mvn verify -Pit -Dit.test=LedgerRepositoryIT",
        lesson="marrowbank: the -Pit integration tests need DOCKER_HOST=unix:///run/user/1000/podman/podman.sock TESTCONTAINERS_RYUK_DISABLED=true (podman).",
        warn=[same("mvn verify -Pit -Dit.test=LedgerRepositoryIT"), reword("mvn -Pit verify")],
        silent=[fix("DOCKER_HOST=unix:///run/user/1000/podman/podman.sock TESTCONTAINERS_RYUK_DISABLED=true mvn -Pit verify"),
                other("mvn -q compile")],
        variants=("intervening",),
    )),
    eco("dotnet", Incident(
        "s-mk-sundial-launch-profile-http", MARKER, CODEX, "sundial-ledger",
        session=[
            U("Start the API locally so I can hit /health."),
            err("dotnet run --project src/Sundial.Api",
                "Using launch settings from src/Sundial.Api/Properties/launchSettings.json...\nBuilding...\n"
                "fail: Microsoft.Extensions.Hosting.Internal.Host[11]\n      Hosting failed to start\n"
                "      System.InvalidOperationException: Unable to configure HTTPS endpoint. No server certificate was specified, and the "
                "default developer certificate could not be found or is out of date.\n"
                "      To generate a developer certificate run 'dotnet dev-certs https'. To trust the certificate (Windows and macOS only) "
                "run 'dotnet dev-certs https --trust'.", 1),
            ok("dotnet run --project src/Sundial.Api --launch-profile http",
               "Using launch settings from src/Sundial.Api/Properties/launchSettings.json...\nBuilding...\n"
               "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://localhost:5080\n"
               "info: Microsoft.Hosting.Lifetime[0]\n      Application started. Press Ctrl+C to shut down."),
            A("LEARNING: `dotnet run --project src/Sundial.Api` picks the https launch profile and fails without a dev certificate "
              "in this container; start it with `--launch-profile http` (listens on http://localhost:5080)."),
        ],
        mistake="dotnet run --project src/Sundial.Api",
        lesson="sundial-ledger: run the API with dotnet run --project src/Sundial.Api --launch-profile http (no dev cert for https).",
        warn=[same("dotnet run --project src/Sundial.Api"), reword("dotnet run --project ./src/Sundial.Api/Sundial.Api.csproj -- --seed-demo")],
        silent=[fix("dotnet run --project src/Sundial.Api --launch-profile http -- --seed-demo"),
                other("dotnet run --project src/Sundial.Tools -- import ledgers.csv"), other("dotnet dev-certs https --check")],
    )),
    eco("database", Incident(
        "s-mk-copperline-client-side-copy", MARKER, CC, "copperline",
        session=[
            U("Load data/ledger_2025.csv into ledger_entries on the dev DB."),
            err("psql -d copperline_dev -c \"COPY ledger_entries FROM 'data/ledger_2025.csv' CSV HEADER\"",
                "ERROR:  could not open file \"data/ledger_2025.csv\" for reading: No such file or directory\n"
                "HINT:  COPY FROM instructs the PostgreSQL server process to read a file. You may want a client-side facility such as psql's \\copy.", 1),
            ok("psql -d copperline_dev -c \"\\copy ledger_entries FROM 'data/ledger_2025.csv' CSV HEADER\"", "COPY 48213"),
            A("Loaded 48,213 rows.\n\nLEARNING: the dev Postgres runs in a container, so a server-side `COPY ... FROM 'file'` can't see local "
              "files; use psql's client-side `\\copy ... FROM 'file'` instead."),
        ],
        mistake="psql -d copperline_dev -c \"COPY ledger_entries FROM 'data/ledger_2025.csv' CSV HEADER\"",
        lesson="copperline: load local files with psql's \\copy, not server-side COPY FROM 'file' (the server runs in a container).",
        warn=[same("psql -d copperline_dev -c \"COPY ledger_entries FROM 'data/ledger_2025.csv' CSV HEADER\""),
              reword("psql copperline_dev -c \"COPY accounts FROM '/home/dev/copperline/data/accounts.csv' WITH (FORMAT csv, HEADER true)\"")],
        silent=[fix("psql copperline_dev -c \"\\copy accounts FROM 'data/accounts.csv' WITH (FORMAT csv, HEADER true)\""),
                other("psql -d copperline_dev -c \"COPY (select * from accounts) TO STDOUT CSV HEADER\"")],
    )),
    eco("shell", Incident(
        "s-mk-heronry-hugo-extended", MARKER, GEMINI, "heronry",
        session=[
            U("Start the docs preview server."),
            err("hugo server -D",
                "Start building sites … \nhugo v0.139.3-2f6864387cd31b975914e8373d4bf38bddbd47bc linux/amd64 BuildDate=2024-11-29T15:36:56Z VendorInfo=gohugoio\n\n"
                "ERROR TOCSS: failed to transform \"/scss/main.scss\" (text/x-scss). Check your Hugo installation; you need the extended "
                "version to build SCSS/SASS with transpiler LIBSASS.\nBuilt in 213 ms\nError: error building site: logged 1 error(s)", 1),
            ok("ls bin", "hugo-extended"),
            ok("./bin/hugo-extended server -D",
               "Start building sites … \nhugo v0.139.3-2f6864387cd31b975914e8373d4bf38bddbd47bc+extended linux/amd64\n"
               "Built in 1204 ms\nWeb Server is available at http://localhost:1313/ (bind address 127.0.0.1)"),
            A("GOTCHA: the `hugo` on PATH is the standard build and cannot compile the theme's SCSS; use the repo's "
              "`./bin/hugo-extended` for `server` and for builds."),
        ],
        mistake="hugo server -D",
        lesson="heronry: the hugo on PATH is not extended and fails on SCSS; use ./bin/hugo-extended (server and builds).",
        warn=[same("hugo server -D"), reword("hugo --minify --environment production")],
        silent=[fix("./bin/hugo-extended --minify --environment production"), other("hugo version"),
                other("hugo new content/posts/march-update.md")],
        variants=("intervening", "other_program"),
    )),
]
