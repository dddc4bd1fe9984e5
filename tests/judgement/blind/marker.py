"""Marker: the assistant's own final text carries a ``LEARNING:`` / ``GOTCHA:``
line — after an error → fix, after a session where only the right call ran, or
about code."""

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
)

PRISMA_OK = """\
Environment variables loaded from .env
Prisma schema loaded from prisma/schema.prisma
Datasource "db": PostgreSQL database "harbor_dev", schema "public" at "localhost:5433"

Applying migration `20260302091540_add_berth_length`

The following migration(s) have been created and applied from new schema changes:

migrations/
  └─ 20260302091540_add_berth_length/
    └─ migration.sql

Your database is now in sync with your schema.

✔ Generated Prisma Client (v5.22.0) to ./node_modules/@prisma/client in 212ms
"""

S3_LS = """\
                           PRE envs/
                           PRE modules/
2026-02-27 17:02:11       1187 .terraform.lock.hcl
2026-03-01 22:40:03        412 README.txt
"""

RAILS_ROLLBACK_MULTI = """\
bin/rails aborted!
You're using a multiple database application. To use `db:rollback` you must run the namespaced task with a VERSION. Available tasks are db:rollback:primary and db:rollback:queue.

Tasks: TOP => db:rollback
(See full trace by running task with --trace)
"""

RAILS_ROLLBACK_OK = """\
== 20260302090412 AddDueOnToInvoices: reverting ===============================
-- remove_column(:invoices, :due_on, :date)
   -> 0.0024s
== 20260302090412 AddDueOnToInvoices: reverted (0.0041s) ======================
"""

CARGO_TIMEOUT = """\
Command timed out after 2m 0.0s
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.41s
     Running unittests src/lib.rs (target/debug/deps/quill_core-0c9d2b4e7a1f3e58)

running 41 tests
.........................................
test result: ok. 41 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.22s

     Running tests/store_roundtrip.rs (target/debug/deps/store_roundtrip-7be1d04c9a6e2f13)

running 9 tests
test concurrent_writers_keep_order has been running for over 60 seconds
test compaction_preserves_tombstones has been running for over 60 seconds
"""

CARGO_SERIAL_OK = """\
     Running tests/store_roundtrip.rs (target/debug/deps/store_roundtrip-7be1d04c9a6e2f13)

running 9 tests
test compaction_preserves_tombstones ... ok
test concurrent_writers_keep_order ... ok
test reopen_after_crash ... ok
test roundtrip_small_objects ... ok
test roundtrip_large_objects ... ok
test snapshot_isolation ... ok
test tombstone_gc ... ok
test vacuum_shrinks_file ... ok
test wal_replay ... ok

test result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 7.82s
"""

SYSTEMCTL_PG = """\
● postgresql@16-main.service - PostgreSQL Cluster 16-main
     Loaded: loaded (/lib/systemd/system/postgresql@.service; enabled-runtime; preset: enabled)
     Active: active (running) since Thu 2026-02-26 04:12:09 UTC; 4 days ago
   Main PID: 1187 (postgres)
      Tasks: 14 (limit: 19088)
     Memory: 2.1G
        CPU: 3h 12min 44.118s
"""

BOARD_LIVE = """\
defmodule LumenWeb.BoardLive do
  use LumenWeb, :live_view

  alias Lumen.Boards

  @impl true
  def handle_params(params, _uri, socket) do
    cards = Boards.list_cards(socket.assigns.board)
    {:noreply, assign(socket, cards: cards)}
  end
end
"""

BOARD_OLD = """\
    cards = Boards.list_cards(socket.assigns.board)
"""

BOARD_BAD = """\
    sort = String.to_atom(params["sort"] || "position")
    cards = Boards.list_cards(socket.assigns.board, sort_by: sort)
"""

BOARD_GOOD = """\
    sort = String.to_existing_atom(params["sort"] || "position")
    sort = if sort in [:position, :inserted_at, :due_on], do: sort, else: :position
    cards = Boards.list_cards(socket.assigns.board, sort_by: sort)
"""

EF_OK = """\
Build started...
Build succeeded.
Done. To undo this action, use 'ef migrations remove'
"""

ARTISAN_TEST_OK = """\

   PASS  Tests\\Unit\\MoneyTest
  ✓ it formats cents                                                     0.01s
  ✓ it rounds half up                                                    0.01s

   PASS  Tests\\Feature\\InvoiceTest
  ✓ an invoice can be issued                                             0.21s
  ✓ a paid invoice cannot be cancelled                                   0.08s

  Tests:    214 passed (611 assertions)
  Duration: 18.42s
"""

SWIFT_NO_PACKAGE = """\
error: Could not find Package.swift in this directory or any of its parent directories.
"""

SWIFT_TEST_OK = """\
Building for debugging...
[142/142] Linking SkylarkKitPackageTests
Build complete! (31.07s)
Test Suite 'All tests' started at 2026-03-02 09:41:12.208.
Test Suite 'SkylarkKitPackageTests.xctest' started at 2026-03-02 09:41:12.209.
Test Suite 'FeedParserTests' passed at 2026-03-02 09:41:12.398.
     Executed 18 tests, with 0 failures (0 unexpected) in 0.187 (0.189) seconds
Test Suite 'All tests' passed at 2026-03-02 09:41:12.611.
     Executed 44 tests, with 0 failures (0 unexpected) in 0.398 (0.403) seconds
"""

BUILD_RUNNER_CONFLICT = """\
Deprecated. Use `dart run` instead.
[INFO] Generating build script...
[INFO] Generating build script completed, took 318ms

[INFO] Initializing inputs
[INFO] Reading cached asset graph...
[INFO] Checking for updates since last build...
[INFO] Checking for updates since last build completed, took 611ms

[INFO] Running build...
[SEVERE] Conflicting outputs were detected and the build is unable to prompt for permission to remove them. These outputs must be removed manually or the build can be run with `--delete-conflicting-outputs`. The outputs are: lib/models/trail.g.dart
lib/models/waypoint.g.dart
lib/models/trail.freezed.dart
"""

BUILD_RUNNER_OK = """\
[INFO] Generating build script completed, took 301ms
[INFO] Reading cached asset graph completed, took 92ms
[INFO] Checking for updates since last build completed, took 588ms
[INFO] Running build completed, took 7.9s
[INFO] Caching finalized dependency graph completed, took 61ms
[INFO] Succeeded after 8.0s with 14 outputs (52 actions)
"""

DBT_NO_PROJECT = """\
09:44:18  Running with dbt=1.8.7
09:44:18  Encountered an error:
Runtime Error
  No dbt_project.yml found at expected path /home/dev/kestrel-data/dbt_project.yml
  Verify that each entry within packages.yml (and their transitive dependencies) contains a file named dbt_project.yml
"""

DBT_OK = """\
09:45:02  Running with dbt=1.8.7
09:45:03  Registered adapter: mysql=1.8.0
09:45:03  Found 38 models, 112 data tests, 9 sources, 611 macros
09:45:03
09:45:04  Concurrency: 4 threads (target='dev')
09:45:04
09:45:04  1 of 1 START sql table model analytics.orders .................................. [RUN]
09:45:11  1 of 1 OK created sql table model analytics.orders ............................. [SUCCESS 184211 in 6.92s]
09:45:11
09:45:11  Finished running 1 table model in 0 hours 0 minutes and 8.01 seconds (8.01s).
09:45:11
09:45:11  Completed successfully
"""

INCIDENTS = [
    Incident(
        id="mk-harbor-pnpm-exec-binary",
        shape=MARKER,
        agent=CODEX,
        project="harbor-monorepo",
        session=[
            U("add a length_m column to berths and create the prisma migration"),
            edit(
                "apps/api/prisma/schema.prisma",
                "  name      String\n  marinaId  Int\n",
                "  name      String\n  marinaId  Int\n  lengthM   Decimal? @db.Decimal(5, 2)\n",
            ),
            err(
                "pnpm --filter @harbor/api prisma migrate dev --name add_berth_length",
                ' ERR_PNPM_RECURSIVE_RUN_NO_SCRIPT  None of the selected packages has a "prisma" script\n',
            ),
            ok("pnpm --filter @harbor/api exec prisma migrate dev --name add_berth_length", PRISMA_OK),
            A(
                "Migration 20260302091540_add_berth_length is created and applied.\n\n"
                "GOTCHA: `pnpm --filter @harbor/api prisma ...` is treated as a script run and fails with "
                "ERR_PNPM_RECURSIVE_RUN_NO_SCRIPT; package binaries need exec: `pnpm --filter @harbor/api exec prisma ...`."
            ),
        ],
        mistake="pnpm --filter @harbor/api prisma migrate dev --name add_berth_length",
        lesson="run package binaries through exec: pnpm --filter @harbor/api exec prisma ... (without exec pnpm looks for a script)",
        warn=[
            same("pnpm --filter @harbor/api prisma migrate dev --name add_berth_length"),
            reword("pnpm --filter @harbor/api prisma generate"),
        ],
        silent=[
            fix("pnpm --filter @harbor/api exec prisma migrate dev --name add_berth_length"),
            fix("pnpm -F @harbor/api exec prisma generate"),
            other("pnpm --filter @harbor/api test"),
        ],
    ),
    Incident(
        id="mk-orbit-aws-staging-profile",
        shape=MARKER,
        agent=CC,
        project="orbit-infra",
        session=[
            U("what's in the staging tfstate bucket?"),
            ok("aws s3 ls s3://orbit-tfstate-staging/ --profile orbit-staging", S3_LS),
            A(
                "Two prefixes (envs/, modules/), the provider lock file and a README.\n\n"
                "LEARNING: the default AWS profile on this machine is the prod account — always pass "
                "--profile orbit-staging to aws commands that touch staging resources "
                "(a bare `aws s3 ls s3://orbit-tfstate-staging/` runs with prod credentials and gets AccessDenied)."
            ),
        ],
        mistake="aws s3 ls s3://orbit-tfstate-staging/",
        lesson="the default AWS profile is prod; for staging always add --profile orbit-staging to aws commands",
        warn=[
            same("aws s3 ls s3://orbit-tfstate-staging/"),
            reword("aws s3 cp s3://orbit-tfstate-staging/envs/staging/terraform.tfstate /tmp/staging.tfstate"),
        ],
        silent=[
            fix("aws s3 ls s3://orbit-tfstate-staging/ --profile orbit-staging"),
            fix(
                "AWS_PROFILE=orbit-staging aws s3 cp s3://orbit-tfstate-staging/envs/staging/terraform.tfstate /tmp/staging.tfstate"
            ),
            other("aws configure list-profiles"),
            help_("aws --version"),
        ],
    ),
    Incident(
        id="mk-ledgerline-rollback-namespaced",
        shape=MARKER,
        agent=GEMINI,
        project="ledgerline",
        session=[
            U("roll back the due_on migration, we're going to do it differently"),
            err("bin/rails db:rollback", RAILS_ROLLBACK_MULTI),
            ok("bin/rails db:rollback:primary", RAILS_ROLLBACK_OK),
            A(
                "Rolled back AddDueOnToInvoices on the primary database.\n\n"
                "GOTCHA: ledgerline has two databases (primary and queue), so plain bin/rails db:rollback aborts — "
                "name the database: bin/rails db:rollback:primary (or db:rollback:queue)."
            ),
        ],
        mistake="bin/rails db:rollback",
        lesson="ledgerline is multi-database: bin/rails db:rollback aborts, use bin/rails db:rollback:primary (or :queue)",
        warn=[
            same("bin/rails db:rollback"),
            reword("bin/rails db:rollback STEP=2"),
        ],
        silent=[
            fix("bin/rails db:rollback:primary"),
            fix("bin/rails db:rollback:queue STEP=2"),
            other("bin/rails db:migrate:status"),
        ],
    ),
    Incident(
        id="mk-pika-make-lint",
        shape=MARKER,
        agent=CODEX,
        project="pika-api",
        session=[
            U("lint everything before I push"),
            ok(
                "make lint",
                "go run github.com/golangci/golangci-lint/cmd/golangci-lint@v1.59.1 run ./...\n0 issues.\n",
            ),
            A(
                "Lint is clean.\n\n"
                "LEARNING: in pika-api lint with make lint (it runs the pinned golangci-lint v1.59.1). "
                "Never call the global golangci-lint run ./... — it's v2 and misreads our v1 .golangci.yml."
            ),
        ],
        mistake="golangci-lint run ./...",
        lesson="don't run the global golangci-lint (v2, wrong config format) in pika-api; use make lint",
        warn=[
            same("golangci-lint run ./..."),
            reword("golangci-lint run --fix ./internal/..."),
        ],
        silent=[
            fix("make lint"),
            other("make test"),
            help_("golangci-lint --version"),
        ],
    ),
    Incident(
        id="mk-quill-tests-single-thread",
        shape=MARKER,
        agent=GEMINI,
        project="quill-rs",
        session=[
            U("run the whole test suite"),
            err("cargo test --workspace", CARGO_TIMEOUT, code=124),
            ok("cargo test --workspace -- --test-threads=1", CARGO_SERIAL_OK),
            A(
                "Everything passes when the tests run one at a time.\n\n"
                "GOTCHA: cargo test --workspace hangs (the store_roundtrip tests share one SQLite file and deadlock) "
                "-> always add -- --test-threads=1."
            ),
        ],
        mistake="cargo test --workspace",
        lesson="quill's integration tests deadlock in parallel: cargo test --workspace -- --test-threads=1",
        warn=[
            same("cargo test --workspace"),
            reword("cargo test --workspace --all-features"),
        ],
        silent=[
            fix("cargo test --workspace -- --test-threads=1"),
            fix("cargo test --workspace --all-features -- --test-threads 1"),
            other("cargo clippy --workspace -- -D warnings"),
            other("cargo build --release"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="mk-fleet-ssh-via-bastion",
        shape=MARKER,
        agent=CC,
        project="fleet-ops",
        session=[
            U("is postgres up on db1?"),
            err(
                "ssh deploy@db1.fleet.internal 'systemctl status postgresql@16-main --no-pager'",
                "ssh: connect to host db1.fleet.internal port 22: Connection timed out\n",
                code=255,
            ),
            ok(
                "ssh -J deploy@bastion.fleet.example.net deploy@db1.fleet.internal 'systemctl status postgresql@16-main --no-pager'",
                SYSTEMCTL_PG,
            ),
            A(
                "Yes, postgresql@16-main has been active for 4 days.\n\n"
                "GOTCHA: ssh straight to a *.fleet.internal host times out; those hosts are only reachable "
                "through the bastion, so use ssh -J deploy@bastion.fleet.example.net deploy@<host>.fleet.internal."
            ),
        ],
        mistake="ssh deploy@db1.fleet.internal 'systemctl status postgresql@16-main --no-pager'",
        lesson="*.fleet.internal hosts are only reachable via the bastion: ssh -J deploy@bastion.fleet.example.net deploy@<host>.fleet.internal",
        warn=[
            same("ssh deploy@db1.fleet.internal 'systemctl status postgresql@16-main --no-pager'"),
            reword("ssh deploy@db2.fleet.internal df -h"),
        ],
        silent=[
            fix(
                "ssh -J deploy@bastion.fleet.example.net deploy@db1.fleet.internal 'systemctl status postgresql@16-main --no-pager'"
            ),
            fix("ssh -J deploy@bastion.fleet.example.net deploy@db2.fleet.internal df -h"),
            other("ssh deploy@bastion.fleet.example.net uptime"),
            other("ssh deploy@web1.fleet.example.net 'sudo nginx -t'"),
        ],
    ),
    Incident(
        id="mk-lumen-to-existing-atom",
        shape=MARKER,
        agent=GEMINI,
        project="lumen-phx",
        session=[
            U("let the board be sorted by a ?sort= query param (position, inserted_at or due_on)"),
            read("lib/lumen_web/live/board_live.ex", BOARD_LIVE),
            edit("lib/lumen_web/live/board_live.ex", BOARD_OLD, BOARD_GOOD),
            ok(
                "mix test test/lumen_web/live/board_live_test.exs",
                "Running ExUnit with seed: 518204, max_cases: 16\n\n............\n"
                "Finished in 0.4 seconds (0.1s async, 0.3s sync)\n12 tests, 0 failures\n",
            ),
            A(
                "The board now honours ?sort=, falling back to position.\n\n"
                "LEARNING: never use String.to_atom/1 on request params (atoms are never garbage-collected, so any "
                "client can exhaust the atom table); use String.to_existing_atom/1 plus an allow-list."
            ),
        ],
        mistake='Edit lib/lumen_web/live/board_live.ex: sort = String.to_atom(params["sort"] || "position")',
        lesson="never String.to_atom/1 on user input (params); use String.to_existing_atom/1 and check against an allow-list",
        warn=[
            same(E("lib/lumen_web/live/board_live.ex", BOARD_OLD, BOARD_BAD)),
            reword(
                E(
                    "lib/lumen_web/controllers/export_controller.ex",
                    '  def show(conn, %{"id" => id} = params) do\n',
                    '  def show(conn, %{"id" => id} = params) do\n'
                    '    format = String.to_atom(Map.get(params, "format", "csv"))\n',
                )
            ),
        ],
        silent=[
            fix(E("lib/lumen_web/live/board_live.ex", BOARD_OLD, BOARD_GOOD)),
            fix(
                E(
                    "lib/lumen_web/controllers/export_controller.ex",
                    '  def show(conn, %{"id" => id} = params) do\n',
                    '  def show(conn, %{"id" => id} = params) do\n'
                    '    format = String.to_existing_atom(Map.get(params, "format", "csv"))\n',
                )
            ),
            code(
                E(
                    "lib/lumen_web/live/board_live.ex",
                    "  alias Lumen.Boards\n",
                    "  alias Lumen.Boards\n  alias Lumen.Boards.Card\n",
                )
            ),
        ],
    ),
    Incident(
        id="mk-compass-ef-startup-project",
        shape=MARKER,
        agent=CODEX,
        project="compass-dotnet",
        session=[
            U("add a Notes column to invoices and create the EF migration"),
            edit(
                "src/Compass.Data/Entities/InvoiceEntity.cs",
                "    public decimal Total { get; set; }\n",
                "    public decimal Total { get; set; }\n    public string? Notes { get; set; }\n",
            ),
            err(
                "dotnet ef migrations add AddInvoiceNotes",
                "No project was found. Change the current working directory or use the --project option.\n",
            ),
            ok(
                "dotnet ef migrations add AddInvoiceNotes --project src/Compass.Data --startup-project src/Compass.Api",
                EF_OK,
            ),
            A(
                "Migration AddInvoiceNotes is in src/Compass.Data/Migrations.\n\n"
                "LEARNING: dotnet ef migrations add fails from the root with 'No project was found'; "
                "use --project src/Compass.Data --startup-project src/Compass.Api."
            ),
        ],
        mistake="dotnet ef migrations add AddInvoiceNotes",
        lesson="dotnet ef needs --project src/Compass.Data --startup-project src/Compass.Api (run from the repo root)",
        warn=[
            same("dotnet ef migrations add AddInvoiceNotes"),
            reword("dotnet ef database update"),
        ],
        silent=[
            fix(
                "dotnet ef migrations add AddInvoiceNotes --project src/Compass.Data --startup-project src/Compass.Api"
            ),
            fix("dotnet ef database update --startup-project src/Compass.Api --project src/Compass.Data"),
            other("dotnet build Compass.sln"),
            help_("dotnet ef --help"),
        ],
    ),
    Incident(
        id="mk-granary-test-database",
        shape=MARKER,
        agent=GEMINI,
        project="granary-php",
        session=[
            U("run the test suite"),
            ok("docker compose exec -e DB_DATABASE=granary_test app php artisan test", ARTISAN_TEST_OK),
            A(
                "All 214 tests pass.\n\n"
                "GOTCHA: never run `docker compose exec app php artisan test` without -e DB_DATABASE=granary_test: "
                "the suite uses RefreshDatabase and would wipe the dev database."
            ),
        ],
        mistake="docker compose exec app php artisan test",
        lesson="artisan test wipes whatever DB it points at; always docker compose exec -e DB_DATABASE=granary_test app php artisan test",
        warn=[
            same("docker compose exec app php artisan test"),
            reword("docker compose exec app php artisan test --filter=InvoiceTest"),
        ],
        silent=[
            fix("docker compose exec -e DB_DATABASE=granary_test app php artisan test"),
            fix("docker compose exec -e DB_DATABASE=granary_test app php artisan test --filter=InvoiceTest"),
            other("docker compose exec app php artisan route:list"),
        ],
    ),
    Incident(
        id="mk-skylark-swift-package-path",
        shape=MARKER,
        agent=CC,
        project="skylark-ios",
        session=[
            U("run the SkylarkKit package tests"),
            err("swift test", SWIFT_NO_PACKAGE),
            ok("find . -maxdepth 3 -name Package.swift", "./Packages/SkylarkKit/Package.swift\n"),
            ok("swift test --package-path Packages/SkylarkKit", SWIFT_TEST_OK),
            A(
                "44 tests pass.\n\nLEARNING: use `swift test --package-path Packages/SkylarkKit` instead of `swift test` from the repo root."
            ),
        ],
        mistake="swift test",
        lesson="Package.swift is in Packages/SkylarkKit, not the root: swift test --package-path Packages/SkylarkKit",
        warn=[
            same("swift test"),
            reword("swift test --filter SkylarkKitTests.FeedParserTests"),
        ],
        silent=[
            fix("swift test --package-path Packages/SkylarkKit"),
            fix("swift build --package-path Packages/SkylarkKit"),
            other("swift package --package-path Packages/SkylarkKit show-dependencies"),
            help_("swift --version"),
        ],
    ),
    Incident(
        id="mk-fernwood-build-runner-conflicts",
        shape=MARKER,
        agent=CC,
        project="fernwood-mobile",
        session=[
            U("I added a field to Trail, regenerate the json/freezed code"),
            err("flutter pub run build_runner build", BUILD_RUNNER_CONFLICT, code=78),
            ok("dart run build_runner build --delete-conflicting-outputs", BUILD_RUNNER_OK),
            A(
                "Regenerated trail.g.dart and trail.freezed.dart.\n\n"
                "GOTCHA: build_runner refuses to overwrite the checked-in *.g.dart files unless it gets "
                "--delete-conflicting-outputs, and `flutter pub run` is deprecated — always "
                "`dart run build_runner build --delete-conflicting-outputs`."
            ),
        ],
        mistake="flutter pub run build_runner build",
        lesson="build_runner needs --delete-conflicting-outputs here: dart run build_runner build --delete-conflicting-outputs",
        warn=[
            same("flutter pub run build_runner build"),
            reword("dart run build_runner build"),
        ],
        silent=[
            fix("dart run build_runner build --delete-conflicting-outputs"),
            fix("dart run build_runner watch --delete-conflicting-outputs"),
            other("dart run build_runner clean"),
            other("flutter pub get"),
        ],
    ),
    Incident(
        id="mk-kestrel-dbt-project-dir",
        shape=MARKER,
        agent=CODEX,
        project="kestrel-data",
        session=[
            U("rebuild the orders model"),
            err("poetry run dbt run --select orders", DBT_NO_PROJECT, code=2),
            ok("ls dbt", "analyses\ndbt_project.yml\nmacros\nmodels\npackages.yml\nprofiles.yml\nseeds\ntests\n"),
            ok("poetry run dbt run --project-dir dbt --profiles-dir dbt --select orders", DBT_OK),
            A(
                "analytics.orders rebuilt (184,211 rows).\n\n"
                "LEARNING: dbt's project and profiles.yml live in ./dbt, so dbt needs --project-dir dbt --profiles-dir dbt "
                "(or cd dbt first); from the root it fails with 'No dbt_project.yml found'."
            ),
        ],
        mistake="poetry run dbt run --select orders",
        lesson="dbt lives in ./dbt: poetry run dbt <cmd> --project-dir dbt --profiles-dir dbt ...",
        warn=[
            same("poetry run dbt run --select orders"),
            reword("poetry run dbt test --select stg_customers"),
        ],
        silent=[
            fix("poetry run dbt run --project-dir dbt --profiles-dir dbt --select orders"),
            fix("cd dbt && poetry run dbt test --profiles-dir . --select stg_customers"),
            other("poetry install --with dev"),
            other("poetry run pytest tests/etl -q"),
        ],
    ),
]
