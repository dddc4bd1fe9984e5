"""Fresh split, shape 3: the assistant writes a ``GOTCHA:`` / ``LEARNING:`` line
quoting the failing call and/or the advised one, in various phrasings (in
backticks or not; "never X, use Y"; "X fails unless you pass --foo"; "always run
Y before X") — after the mistake ran in the session, or from a doc or a lint
report without it ever running. Several teach a line of code."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    MARKER,
    A,
    E,
    Incident,
    U,
    W,
    code,
    edit,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
    write,
)

_OPENSSL_SYS = (
    "   Compiling openssl-sys v0.9.102\nerror: failed to run custom build command for `openssl-sys v0.9.102`\n\n"
    "Caused by:\n  process didn't exit successfully: `/home/dev/spindle/target/debug/build/openssl-sys-0c2f1e9a7b3d5468/build-script-main` (exit status: 101)\n"
    "  --- stdout\n  cargo:rerun-if-env-changed=X86_64_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR\n  ...\n"
    "  Could not find directory of OpenSSL installation, and this `-sys` crate cannot\n  proceed without this knowledge. If OpenSSL is installed and this crate had\n"
    "  trouble finding it,  you can set the `OPENSSL_DIR` environment variable for the\n  compilation process.\n\n"
    "  Make sure you also have the development packages of openssl installed.\n"
    "  For example, `libssl-dev` on Ubuntu or `openssl-devel` on Fedora.\n\n"
    "  $HOST = x86_64-unknown-linux-gnu\n  $TARGET = x86_64-unknown-linux-gnu\n  openssl-sys = 0.9.102"
)

_UTC_OLD = "def expire_stale(session, max_age: timedelta) -> int:\n"
_UTC_BAD = _UTC_OLD + "    cutoff = datetime.utcnow() - max_age\n"

_MIGRATION_BAD = (
    "class AddIndexToTasksOnProjectId < ActiveRecord::Migration[7.1]\n  def change\n"
    "    add_index :tasks, :project_id\n  end\nend\n"
)
_MIGRATION_OK = (
    "class AddIndexToTasksOnProjectId < ActiveRecord::Migration[7.1]\n  disable_ddl_transaction!\n\n  def change\n"
    "    add_index :tasks, :project_id, algorithm: :concurrently\n  end\nend\n"
)
_STRONG_MIGRATIONS = (
    "== 20260303091200 AddIndexToTasksOnProjectId: migrating =======================\n"
    "bin/rails aborted!\nStandardError: An error has occurred, this and all later migrations canceled:\n\n"
    "=== Dangerous operation detected #strong_migrations ===\n\n"
    "Adding an index non-concurrently blocks writes. Instead, use:\n\n"
    "class AddIndexToTasksOnProjectId < ActiveRecord::Migration[7.1]\n  disable_ddl_transaction!\n\n"
    "  def change\n    add_index :tasks, :project_id, algorithm: :concurrently\n  end\nend\n\n"
    "/home/dev/thornbury/db/migrate/20260303091200_add_index_to_tasks_on_project_id.rb:3:in `change'"
)

_QUILL_DEPLOY_MD = (
    "# Deploying quill\n\nquill-api and quill-worker run on Cloud Run in europe-west1.\n\n"
    "Both services sit behind IAP and the internal load balancer. **Never deploy with\n"
    "`--allow-unauthenticated`** — that makes the service public on its run.app URL and\n"
    "bypasses IAP. Every `gcloud run deploy` must pass `--no-allow-unauthenticated`.\n\n"
    "    gcloud run deploy quill-api --source . --region europe-west1 --no-allow-unauthenticated\n"
)

_DOCKERFILE_OLD = "FROM node:latest\nWORKDIR /app\nCOPY package*.json ./\nRUN npm ci --omit=dev\nCOPY . .\nCMD [\"node\", \"dist/server.js\"]\n"

_CREDO = (
    "Checking 112 source files (this might take a while) ...\n\n  Warnings - please take a look\n"
    "┃ \n┃ [W] ↗ Prefer using an existing atom (String.to_existing_atom/1) over creating atoms at runtime.\n"
    "┃       lib/ledgerline_web/controllers/report_controller.ex:18:22 #(LedgerlineWeb.ReportController.index)\n\n"
    "Please report incorrect results: https://github.com/rrrene/credo/issues\n\n"
    "Analysis took 1.9 seconds (0.05s to load, 1.8s running 55 checks on 112 files)\n"
    "418 mods/funs, found 1 warning."
)
_SORT_OLD = "    sort = params[\"sort\"] || \"posted_at\"\n"
_SORT_BAD = _SORT_OLD + "    entries = Journal.list_entries(order_by: String.to_atom(sort))\n"
_SORT_OK = _SORT_OLD + "    entries = Journal.list_entries(order_by: String.to_existing_atom(sort))\n"
_FILTER_OLD = "  def apply_filter(query, field, value) do\n"

INCIDENTS = [
    Incident(
        "mk-spindle-rustls-features", MARKER, CC, "spindle",
        session=[
            U("Build spindle, I want to try the new `sync` subcommand."),
            err("cargo build", _OPENSSL_SYS, 101),
            ok("grep -n -A3 '^\\[features\\]' Cargo.toml",
               '30:[features]\n31-default = ["native-tls"]\n32-native-tls = ["reqwest/native-tls"]\n33-rustls = ["reqwest/rustls-tls"]'),
            ok("cargo build --no-default-features --features rustls",
               "   Compiling rustls v0.23.4\n   Compiling reqwest v0.12.3\n   Compiling spindle v0.4.0 (/home/dev/spindle)\n"
               "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 38.71s"),
            A("Built target/debug/spindle.\n\n"
              "GOTCHA: in spindle, `cargo build` (and `cargo test`) fails unless you pass `--no-default-features "
              "--features rustls` — the default native-tls feature needs OpenSSL headers, which this machine doesn't have."),
        ],
        mistake="cargo build",
        lesson="spindle: cargo build/test/run fail on openssl-sys here (no OpenSSL headers); always pass --no-default-features --features rustls.",
        warn=[same("cargo build"), reword("cargo build --release -p spindle-cli"), reword("cargo test")],
        silent=[fix("cargo build --release -p spindle-cli --no-default-features --features rustls"),
                fix("cargo test --no-default-features --features rustls"),
                other("cargo fmt --check"), help_("cargo build --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-cobalt-release-wireguard", MARKER, CODEX, "cobalt",
        session=[
            U("Cut cobalt release 2.3.0."),
            err("./scripts/release.sh 2.3.0",
                "==> building cobalt 2.3.0\n==> pushing image registry.cobalt.internal/cobalt/api:2.3.0\n"
                "Get \"https://registry.cobalt.internal/v2/\": dial tcp: lookup registry.cobalt.internal on 127.0.0.53:53: no such host\n"
                "release.sh: push failed"),
            ok("grep -n -i -B1 -A1 wireguard docs/RELEASING.md",
               "12-The registry is internal-only.\n13:Bring the WireGuard tunnel up first: `sudo wg-quick up cobalt`.\n14-"),
            ok("sudo wg-quick up cobalt && ./scripts/release.sh 2.3.0",
               "[#] ip link add cobalt type wireguard\n[#] wg setconf cobalt /dev/fd/63\n[#] ip -4 address add 10.44.0.17/32 dev cobalt\n"
               "[#] ip link set mtu 1420 up dev cobalt\n==> building cobalt 2.3.0\n==> pushing image registry.cobalt.internal/cobalt/api:2.3.0\n"
               "2.3.0: digest: sha256:4f2c8e1a9b7d3c5e6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e size: 2412\n"
               "==> tagging v2.3.0\n==> done"),
            A("Released 2.3.0 (image pushed, tag v2.3.0).\n\n"
              "LEARNING: always bring the VPN up before a release — `sudo wg-quick up cobalt && ./scripts/release.sh "
              "<version>`; release.sh pushes to registry.cobalt.internal, which only resolves over the WireGuard tunnel."),
        ],
        mistake="./scripts/release.sh 2.3.0",
        lesson="cobalt: release.sh pushes to registry.cobalt.internal (VPN only); always sudo wg-quick up cobalt && ./scripts/release.sh <version>.",
        warn=[same("./scripts/release.sh 2.3.0"), reword("./scripts/release.sh 2.3.1 --skip-changelog"),
              reword("bash scripts/release.sh 2.4.0-rc.1")],
        silent=[fix("sudo wg-quick up cobalt && ./scripts/release.sh 2.3.1 --skip-changelog"),
                other("./scripts/lint.sh"), help_("./scripts/release.sh --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-sundial-utcnow", MARKER, GEMINI, "sundial",
        session=[
            U("Write expire_stale(): delete sessions older than max_age."),
            edit("sundial/jobs/sessions.py", _UTC_OLD, _UTC_BAD),
            err("uv run pytest tests/jobs/test_sessions.py -q",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________________ test_expires_old_sessions _____________________________\n"
                "sundial/jobs/sessions.py:14: in expire_stale\n    stale = [s for s in session.scalars(q) if s.last_seen < cutoff]\n"
                "E   TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/jobs/test_sessions.py::test_expires_old_sessions - TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "1 failed, 1 passed in 0.31s"),
            edit("sundial/jobs/sessions.py", "    cutoff = datetime.utcnow() - max_age\n", "    cutoff = datetime.now(timezone.utc) - max_age\n"),
            ok("uv run pytest tests/jobs/test_sessions.py -q", "..                                                                       [100%]\n2 passed in 0.22s"),
            A("Fixed.\n\nLEARNING: never use datetime.utcnow() in sundial — it returns a naive datetime and every column "
              "here is timestamptz, so comparisons raise; use datetime.now(timezone.utc)."),
        ],
        mistake="datetime.utcnow()",
        lesson="sundial: never datetime.utcnow() (naive; the DB timestamps are tz-aware); use datetime.now(timezone.utc).",
        warn=[same(E("sundial/jobs/sessions.py", _UTC_OLD, _UTC_BAD)),
              reword(E("sundial/ingest/stamp.py", "def stamp(reading: dict) -> dict:\n",
                       "def stamp(reading: dict) -> dict:\n    reading[\"received_at\"] = datetime.datetime.utcnow().isoformat()\n")),
              reword(W("sundial/jobs/retention.py",
                       "from datetime import datetime, timedelta\n\n\ndef retention_cutoff(days: int) -> datetime:\n"
                       "    return datetime.utcnow() - timedelta(days=days)\n"))],
        silent=[fix(E("sundial/ingest/stamp.py", "def stamp(reading: dict) -> dict:\n",
                      "def stamp(reading: dict) -> dict:\n    reading[\"received_at\"] = datetime.datetime.now(datetime.timezone.utc).isoformat()\n")),
                code(E("sundial/jobs/sessions.py", "BATCH_SIZE = 500\n", "BATCH_SIZE = 1000\n")),
                other("uv run pytest tests/jobs -q")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-quayside-mvn-also-make", MARKER, CC, "quayside",
        session=[
            U("Run the quayside-web tests."),
            err("./mvnw -pl quayside-web test",
                "[INFO] Scanning for projects...\n[INFO] \n[INFO] ---------------------< com.quayside:quayside-web >----------------------\n"
                "[INFO] Building quayside-web 1.8.0-SNAPSHOT\n[INFO] BUILD FAILURE\n"
                "[ERROR] Failed to execute goal on project quayside-web: Could not resolve dependencies for project "
                "com.quayside:quayside-web:jar:1.8.0-SNAPSHOT: The following artifacts could not be resolved: "
                "com.quayside:quayside-common:jar:1.8.0-SNAPSHOT (absent): Could not find artifact "
                "com.quayside:quayside-common:jar:1.8.0-SNAPSHOT -> [Help 1]"),
            ok("./mvnw -pl quayside-web -am test",
               "[INFO] Reactor Build Order:\n[INFO] \n[INFO] quayside-parent                                                    [pom]\n"
               "[INFO] quayside-common                                                     [jar]\n[INFO] quayside-web                                                       [jar]\n"
               "[INFO] Tests run: 57, Failures: 0, Errors: 0, Skipped: 1\n[INFO] BUILD SUCCESS"),
            A("quayside-web: 57 tests, no failures.\n\n"
              "GOTCHA: `-pl <module>` on its own fails because the SNAPSHOT siblings aren't installed locally; always "
              "add -am (also-make), e.g. ./mvnw -pl quayside-web -am test."),
        ],
        mistake="./mvnw -pl quayside-web test",
        lesson="quayside: ./mvnw -pl <module> alone can't resolve the sibling SNAPSHOTs; always add -am (./mvnw -pl quayside-web -am test).",
        warn=[same("./mvnw -pl quayside-web test"), reword("./mvnw test -pl quayside-batch -Dtest=ExportJobTest"),
              reword("./mvnw -pl quayside-web package -DskipTests")],
        silent=[fix("./mvnw -pl quayside-batch -am test -Dtest=ExportJobTest -Dsurefire.failIfNoSpecifiedTests=false"),
                fix("./mvnw -pl quayside-web -am package -DskipTests"),
                other("./mvnw -q versions:display-dependency-updates"), help_("./mvnw --help")],
        variants=(),
    ),
    Incident(
        "mk-seawall-helm-atomic", MARKER, CODEX, "seawall",
        session=[
            U("Roll out search 5.2.0 to prod."),
            err("helm upgrade search charts/search -n search -f values/prod.yaml --set image.tag=5.2.0 --wait",
                "Error: UPGRADE FAILED: context deadline exceeded"),
            ok("helm status search -n search | head -5",
               "NAME: search\nLAST DEPLOYED: Tue Mar  3 11:20:02 2026\nNAMESPACE: search\nSTATUS: pending-upgrade\nREVISION: 31"),
            ok("helm rollback search 30 -n search --wait", "Rollback was a success! Happy Helming!"),
            ok("helm upgrade search charts/search -n search -f values/prod.yaml --set image.tag=5.2.0 --atomic --timeout 10m",
               "Release \"search\" has been upgraded. Happy Helming!\nNAME: search\nLAST DEPLOYED: Tue Mar  3 11:41:19 2026\n"
               "NAMESPACE: search\nSTATUS: deployed\nREVISION: 33"),
            A("search 5.2.0 is deployed (revision 33).\n\n"
              "LEARNING: never run helm upgrade in seawall without --atomic --timeout 10m. The search pods take about six "
              "minutes to warm their index, the default 5m timeout expires and the release is left in pending-upgrade."),
        ],
        mistake="helm upgrade search charts/search -n search -f values/prod.yaml --set image.tag=5.2.0 --wait",
        lesson="seawall: helm upgrade must always pass --atomic --timeout 10m (search pods warm up ~6 min; otherwise the release sticks in pending-upgrade).",
        warn=[same("helm upgrade search charts/search -n search -f values/prod.yaml --set image.tag=5.2.0 --wait"),
              reword("helm upgrade --install indexer charts/indexer -n search -f values/staging.yaml"),
              reword("helm upgrade search ./charts/search --namespace search --reuse-values --set replicas=4")],
        silent=[fix("helm upgrade --install indexer charts/indexer -n search -f values/staging.yaml --atomic --timeout 10m"),
                other("helm history search -n search"), help_("helm upgrade --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-lodestar-make-lint", MARKER, GEMINI, "lodestar",
        session=[
            U("Lint the code before I open the PR."),
            err("golangci-lint run ./...",
                "Error: can't load config: unsupported version of the configuration: \"2\" See "
                "https://golangci-lint.run/product/migration-guide for migration instructions\n"
                "The command is terminated due to an error: can't load config: unsupported version of the configuration: \"2\"", 3),
            ok("grep -n -A2 '^lint:' Makefile",
               "18:lint:\n19-\tgo run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.1.6 run ./..."),
            ok("make lint", "go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.1.6 run ./...\n0 issues."),
            A("No lint issues.\n\nGOTCHA: the golangci-lint on PATH is v1 and can't read lodestar's v2 config — lint "
              "with `make lint` (pinned v2.1.6), never `golangci-lint run` directly."),
        ],
        mistake="golangci-lint run ./...",
        lesson="lodestar: the golangci-lint on PATH is v1 and rejects the v2 config; lint with make lint, never golangci-lint run directly.",
        warn=[same("golangci-lint run ./..."), reword("golangci-lint run --fix ./internal/billing/...")],
        silent=[fix("make lint"), other("golangci-lint --version"), help_("golangci-lint help linters")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "mk-thornbury-index-concurrently", MARKER, CC, "thornbury",
        session=[
            U("Task lists are slow; add an index on tasks.project_id."),
            write("db/migrate/20260303091200_add_index_to_tasks_on_project_id.rb", _MIGRATION_BAD),
            err("bin/rails db:migrate", _STRONG_MIGRATIONS),
            edit("db/migrate/20260303091200_add_index_to_tasks_on_project_id.rb", _MIGRATION_BAD, _MIGRATION_OK),
            ok("bin/rails db:migrate",
               "== 20260303091200 AddIndexToTasksOnProjectId: migrating =======================\n"
               "-- add_index(:tasks, :project_id, {:algorithm=>:concurrently})\n   -> 0.0412s\n"
               "== 20260303091200 AddIndexToTasksOnProjectId: migrated (0.0414s) ==============="),
            A("The index is in.\n\nLEARNING: thornbury uses strong_migrations — a plain `add_index :table, :column` is "
              "refused; always write `add_index ..., algorithm: :concurrently` with `disable_ddl_transaction!`."),
        ],
        mistake="add_index :tasks, :project_id",
        lesson="thornbury (strong_migrations): add indexes with algorithm: :concurrently and disable_ddl_transaction!, never a plain add_index :table, :column.",
        warn=[same(W("db/migrate/20260303091200_add_index_to_tasks_on_project_id.rb", _MIGRATION_BAD)),
              reword(W("db/migrate/20260305140000_add_index_to_comments_on_task_id.rb",
                       "class AddIndexToCommentsOnTaskId < ActiveRecord::Migration[7.1]\n  def change\n"
                       "    add_index :comments, [:task_id, :created_at]\n  end\nend\n"))],
        silent=[fix(W("db/migrate/20260305140000_add_index_to_comments_on_task_id.rb",
                      "class AddIndexToCommentsOnTaskId < ActiveRecord::Migration[7.1]\n  disable_ddl_transaction!\n\n  def change\n"
                      "    add_index :comments, [:task_id, :created_at], algorithm: :concurrently\n  end\nend\n")),
                code(W("db/migrate/20260305150000_add_due_on_to_tasks.rb",
                       "class AddDueOnToTasks < ActiveRecord::Migration[7.1]\n  def change\n    add_column :tasks, :due_on, :date\n  end\nend\n")),
                other("bin/rails db:migrate:status")],
        variants=(),
    ),
    Incident(
        "mk-saltmarsh-mysql-port", MARKER, CODEX, "saltmarsh",
        session=[
            U("How many orders are in the local saltmarsh database?"),
            err("mysql -u root saltmarsh -e 'SELECT COUNT(*) FROM orders'",
                "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)"),
            ok("grep -n FORWARD_DB_PORT .env", "14:FORWARD_DB_PORT=3307"),
            ok("mysql -h 127.0.0.1 -P 3307 -u root saltmarsh -e 'SELECT COUNT(*) FROM orders'",
               "+----------+\n| COUNT(*) |\n+----------+\n|    18344 |\n+----------+"),
            A("18,344 orders.\n\nGOTCHA: mysql without a host goes to a local socket that doesn't exist — the Sail MySQL "
              "is forwarded to 3307, so always pass -h 127.0.0.1 -P 3307 (mysql, mysqldump)."),
        ],
        mistake="mysql -u root saltmarsh -e 'SELECT COUNT(*) FROM orders'",
        lesson="saltmarsh: the Sail MySQL is only on 127.0.0.1:3307; always pass -h 127.0.0.1 -P 3307 to mysql / mysqldump.",
        warn=[same("mysql -u root saltmarsh -e 'SELECT COUNT(*) FROM orders'"),
              reword("mysql -uroot saltmarsh < database/dumps/seed.sql"),
              reword("mysqldump -u root saltmarsh orders order_lines > /tmp/orders.sql")],
        silent=[fix("mysql -h 127.0.0.1 -P 3307 -u root saltmarsh < database/dumps/seed.sql"),
                fix("mysqldump -h 127.0.0.1 -P 3307 -u root saltmarsh orders order_lines > /tmp/orders.sql"),
                other("mysql --version"), help_("mysql --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-quill-run-no-unauth", MARKER, GEMINI, "quill",
        session=[
            U("How do I deploy quill-api? Check the docs before we do anything."),
            read("docs/deploy.md", _QUILL_DEPLOY_MD),
            A("quill-api deploys from source to Cloud Run in europe-west1, behind IAP.\n\n"
              "GOTCHA: never `gcloud run deploy ... --allow-unauthenticated` for quill — it makes the service public and "
              "bypasses IAP; every deploy passes `--no-allow-unauthenticated`."),
        ],
        mistake="gcloud run deploy quill-api --source . --region europe-west1 --allow-unauthenticated",
        lesson="quill: never gcloud run deploy with --allow-unauthenticated (bypasses IAP); always pass --no-allow-unauthenticated.",
        warn=[same("gcloud run deploy quill-api --source . --region europe-west1 --allow-unauthenticated"),
              reword("gcloud run deploy quill-worker --image europe-west1-docker.pkg.dev/quill-prod/app/worker:1.8 "
                     "--allow-unauthenticated --region=europe-west1")],
        silent=[fix("gcloud run deploy quill-worker --image europe-west1-docker.pkg.dev/quill-prod/app/worker:1.8 "
                    "--no-allow-unauthenticated --region=europe-west1"),
                other("gcloud run services list --region europe-west1"), help_("gcloud run deploy --help")],
        variants=(),
    ),
    Incident(
        "mk-wayfarer-turbo-build", MARKER, CC, "wayfarer",
        session=[
            U("Build the web app."),
            err("pnpm --filter @wayfarer/web build",
                "\n> @wayfarer/web@0.9.0 build /home/dev/wayfarer/apps/web\n> next build\n\n"
                "   ▲ Next.js 14.1.4\n\n   Creating an optimized production build ...\nFailed to compile.\n\n"
                "./src/components/TripCard.tsx\nModule not found: Can't resolve '@wayfarer/ui'\n\n"
                "> Build failed because of webpack errors\n/home/dev/wayfarer/apps/web:\n"
                " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @wayfarer/web@0.9.0 build: `next build`\nExit status 1"),
            ok("cat packages/ui/package.json | grep -A2 '\"main\"'", '  "main": "dist/index.js",\n  "types": "dist/index.d.ts",'),
            ok("pnpm turbo run build --filter=@wayfarer/web",
               "• Packages in scope: @wayfarer/web\n• Running build in 1 packages\n"
               "@wayfarer/ui:build: cache miss, executing 3a9c1e0f7b2d4e58\n@wayfarer/web:build: cache miss, executing 9e2f4a6b8c0d1e3f\n"
               "@wayfarer/web:build:  ✓ Compiled successfully\n\n Tasks:    2 successful, 2 total\nCached:    0 cached, 2 total\n  Time:    41.207s"),
            A("The web app builds.\n\nGOTCHA: pnpm --filter @wayfarer/web build fails unless @wayfarer/ui has been built "
              "(apps import its dist/). Build apps through turbo: pnpm turbo run build --filter=@wayfarer/web."),
        ],
        mistake="pnpm --filter @wayfarer/web build",
        lesson="wayfarer: the apps import @wayfarer/ui's dist/; build them with pnpm turbo run build --filter=<app>, not pnpm --filter <app> build.",
        warn=[same("pnpm --filter @wayfarer/web build"), reword("pnpm -F @wayfarer/admin run build"), reword("cd apps/web && pnpm build")],
        silent=[fix("pnpm turbo run build --filter=@wayfarer/admin"), other("pnpm --filter @wayfarer/web lint"),
                help_("pnpm help run")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-millrace-test-filter-ui", MARKER, CODEX, "millrace",
        session=[
            U("Run the test suite."),
            err("dotnet test Millrace.sln",
                "Passed!  - Failed:     0, Passed:   212, Skipped:     0, Total:   212, Duration: 4 s - Millrace.Domain.Tests.dll (net8.0)\n"
                "  Failed Millrace.Web.Tests.InvoicePageTests.CreatesInvoice [1 s]\n  Error Message:\n"
                "   Microsoft.Playwright.PlaywrightException : Executable doesn't exist at /home/dev/.cache/ms-playwright/chromium-1112/chrome-linux/chrome\n"
                "Failed!  - Failed:    18, Passed:     0, Skipped:     0, Total:    18, Duration: 9 s - Millrace.Web.Tests.dll (net8.0)"),
            ok("dotnet test Millrace.sln --filter \"Category!=UI\"",
               "Passed!  - Failed:     0, Passed:   212, Skipped:     0, Total:   212, Duration: 4 s - Millrace.Domain.Tests.dll (net8.0)\n"
               "Passed!  - Failed:     0, Passed:    64, Skipped:     0, Total:    64, Duration: 2 s - Millrace.Api.Tests.dll (net8.0)"),
            A("All 276 non-UI tests pass.\n\nLEARNING: dotnet test on millrace also runs the Playwright UI tests, which "
              "need a browser this machine doesn't have; always pass --filter \"Category!=UI\" locally."),
        ],
        mistake="dotnet test Millrace.sln",
        lesson="millrace: the Playwright UI tests can't run here; always dotnet test with --filter \"Category!=UI\".",
        warn=[same("dotnet test Millrace.sln"), reword("dotnet test tests/Millrace.Web.Tests"), reword("dotnet test --no-build Millrace.sln")],
        silent=[fix("dotnet test tests/Millrace.Web.Tests --filter \"Category!=UI\""), other("dotnet build Millrace.sln -c Release"),
                help_("dotnet test --help")],
        variants=(),
    ),
    Incident(
        "mk-cobalt-pin-base-image", MARKER, GEMINI, "cobalt",
        session=[
            U("The image build broke overnight without any change on our side. Find out why."),
            err("docker build -t cobalt-api:dev .",
                "#9 [4/5] RUN npm ci --omit=dev\n#9 12.41 npm error code 1\n#9 12.41 npm error path /app/node_modules/better-sqlite3\n"
                "#9 12.41 npm error gyp ERR! stack Error: Could not find any Python installation to use\n"
                "#9 12.41 npm error gyp ERR! node -v v22.3.0\n#9 ERROR: process \"/bin/sh -c npm ci --omit=dev\" did not complete successfully: exit code: 1"),
            read("Dockerfile", _DOCKERFILE_OLD),
            edit("Dockerfile", "FROM node:latest\n", "FROM node:20.12-bookworm-slim\n"),
            ok("docker build -t cobalt-api:dev .", "#12 exporting to image\n#12 naming to docker.io/library/cobalt-api:dev done\n#12 DONE 2.1s"),
            A("It builds again: node:latest moved to Node 22, for which better-sqlite3 has no prebuilt binary.\n\n"
              "LEARNING: pin base images to an exact tag (node:20.12-bookworm-slim) — never FROM node:latest."),
        ],
        mistake="FROM node:latest",
        lesson="cobalt: pin Docker base images to an exact tag (FROM node:20.12-bookworm-slim); never FROM <image>:latest or an untagged image.",
        warn=[same(E("Dockerfile", "FROM node:20.12-bookworm-slim\n", "FROM node:latest\n")),
              reword(W("worker/Dockerfile",
                       "FROM node:latest\nWORKDIR /worker\nCOPY . .\nRUN npm ci --omit=dev\nCMD [\"node\", \"worker.js\"]\n"))],
        silent=[fix(W("worker/Dockerfile",
                      "FROM node:20.12-bookworm-slim\nWORKDIR /worker\nCOPY . .\nRUN npm ci --omit=dev\nCMD [\"node\", \"worker.js\"]\n")),
                code(E("Dockerfile", "CMD [\"node\", \"dist/server.js\"]\n", "EXPOSE 8080\nCMD [\"node\", \"dist/server.js\"]\n")),
                other("docker build -t cobalt-api:dev .")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-gantry-smoke-env", MARKER, CC, "gantry",
        session=[
            U("Run the smoke tests against staging."),
            err("./scripts/smoke.sh", "./scripts/smoke.sh: line 8: GANTRY_API_URL: unbound variable"),
            ok("head -5 scripts/env.sh", "#!/usr/bin/env bash\n# usage: source scripts/env.sh <staging|prod>\n"
               "export GANTRY_ENV=\"$1\"\nexport GANTRY_API_URL=\"https://api.$1.gantry.dev\"\n"
               "export GANTRY_TOKEN=\"$(gcloud secrets versions access latest --secret=gantry-smoke-token-$1)\""),
            ok("source scripts/env.sh staging && ./scripts/smoke.sh",
               "smoke: health ........ ok\nsmoke: auth .......... ok\nsmoke: payments ...... ok\nsmoke: ledger ........ ok\n4/4 passed"),
            A("Staging passes 4/4 smoke checks.\n\n"
              "LEARNING: always run `source scripts/env.sh <env>` before scripts/smoke.sh — it reads GANTRY_API_URL and "
              "GANTRY_TOKEN from the environment."),
        ],
        mistake="./scripts/smoke.sh",
        lesson="gantry: scripts/smoke.sh needs GANTRY_API_URL/GANTRY_TOKEN; always source scripts/env.sh <env> before running it.",
        warn=[same("./scripts/smoke.sh"), reword("./scripts/smoke.sh --suite payments"), reword("bash scripts/smoke.sh -v")],
        silent=[fix("source scripts/env.sh staging && ./scripts/smoke.sh --suite payments"),
                fix(". scripts/env.sh prod; ./scripts/smoke.sh -v"),
                other("./scripts/render-manifests.sh staging"), help_("./scripts/smoke.sh --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-ledgerline-to-atom", MARKER, CODEX, "ledgerline",
        session=[
            U("Run credo and fix what it finds."),
            ok("mise exec -- mix credo --strict", _CREDO),
            edit("lib/ledgerline_web/controllers/report_controller.ex", _SORT_BAD, _SORT_OK),
            ok("mise exec -- mix credo --strict", "Checking 112 source files ...\n\n418 mods/funs, found no issues."),
            A("Credo is clean.\n\nGOTCHA: never String.to_atom/1 on request params — atoms are never garbage-collected, so "
              "user input can exhaust the atom table; use String.to_existing_atom/1 (or a whitelist map)."),
        ],
        mistake="String.to_atom(sort)",
        lesson="ledgerline: never String.to_atom/1 on user input (atoms aren't GC'd); use String.to_existing_atom/1 or an explicit whitelist.",
        warn=[same(E("lib/ledgerline_web/controllers/report_controller.ex", _SORT_OLD, _SORT_BAD)),
              reword(E("lib/ledgerline/filters.ex", _FILTER_OLD,
                       _FILTER_OLD + "    column = String.to_atom(field)\n"))],
        silent=[fix(E("lib/ledgerline/filters.ex", _FILTER_OLD, _FILTER_OLD + "    column = String.to_existing_atom(field)\n")),
                code(E("lib/ledgerline_web/controllers/report_controller.ex", "  @per_page 50\n", "  @per_page 100\n")),
                other("mise exec -- mix credo --strict")],
        variants=(),
    ),
]
