"""Blind5 split, shape 3: the assistant writes a GOTCHA / LEARNING / PATTERN / NOTE / TIL
line in its own words — quoting the command in backticks or describing it in prose —
after the mistake failed in the session, or from a doc, a dry run or a diff without the
mistake ever failing."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, MARKER, A, Incident, U, err, fix, help_, ok, other, read, reword, same

_PG_NO_SOCKET = (
    "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: No such file or directory\n"
    "\tIs the server running locally and accepting connections on that socket?"
)

_S3_DOCS_DRYRUN = (
    "(dryrun) upload: site/index.html to s3://millbrook-docs/index.html\n"
    "(dryrun) upload: site/guide/networking.html to s3://millbrook-docs/guide/networking.html\n"
    "(dryrun) upload: site/guide/iam.html to s3://millbrook-docs/guide/iam.html\n"
    "(dryrun) delete: s3://millbrook-docs/legacy/v1/index.html\n(dryrun) delete: s3://millbrook-docs/legacy/v1/api.html\n"
    "(dryrun) delete: s3://millbrook-docs/legacy/v1/runbooks/failover.html\n(dryrun) delete: s3://millbrook-docs/legacy/v2/index.html\n"
    "... 312 delete lines under legacy/ in total"
)

_RUSTFMT_STABLE = (
    "Warning: can't set `imports_granularity = Crate`, unstable features are only available in nightly channel.\n"
    "Warning: can't set `group_imports = StdExternalCrate`, unstable features are only available in nightly channel.\n"
    "Warning: can't set `imports_granularity = Crate`, unstable features are only available in nightly channel.\n"
    "Warning: can't set `group_imports = StdExternalCrate`, unstable features are only available in nightly channel."
)

_RELEASING_MD = (
    "# Releasing ferrow\n\n1. Run the release workflow: `gh workflow run release.yml -f version=X.Y.Z`.\n"
    "   It tags vX.Y.Z, builds the binaries and publishes the crates.\n"
    "2. Create the GitHub release **as a draft**: `gh release create vX.Y.Z --draft --generate-notes`.\n"
    "   The workflow's `upload-assets` job attaches the binaries to the draft and publishes it.\n"
    "   A release created without --draft is published at once and is immutable: the job can't attach assets to it.\n"
)

_REDIS_DOC = (
    "# Redis\n\nThe app Redis (redis.tallowmere.internal; db 0 = sidekiq, db 2 = cache) is shared with the staging\n"
    "workers and sees production-like load.\n\n**Never run `KEYS`** — it blocks the server for the whole scan. To list keys use\n"
    "`redis-cli --scan --pattern '…'`, and `SCAN` in code.\n"
)

_ECTO_READONLY = (
    "\n10:14:22.018 [info] == Running 20260302094512 Oxbow.Repo.Migrations.CreateBookingHolds.change/0 forward\n\n"
    "10:14:22.020 [info] create table booking_holds\n\n10:14:22.041 [info] == Migrated 20260302094512 in 0.0s\n"
    "** (Postgrex.Error) ERROR 25006 (read_only_sql_transaction) cannot execute CREATE TABLE in a read-only transaction\n"
    "    (ecto_sql 3.12.1) lib/ecto/adapters/sql.ex:1096: Ecto.Adapters.SQL.raise_sql_call_error/1\n"
    "    (ecto_sql 3.12.1) lib/ecto/migration/schema_migration.ex:34: Ecto.Migration.SchemaMigration.ensure_schema_migrations_table!/3\n"
    "    (ecto_sql 3.12.1) lib/ecto/migrator.ex:768: Ecto.Migrator.verbose_schema_migration/3"
)

_GH006 = (
    "Enumerating objects: 11, done.\nCounting objects: 100% (11/11), done.\nDelta compression using up to 8 threads\n"
    "Compressing objects: 100% (6/6), done.\nWriting objects: 100% (6/6), 1.12 KiB | 1.12 MiB/s, done.\n"
    "Total 6 (delta 4), reused 0 (delta 0), pack-reused 0\n"
    "remote: error: GH006: Protected branch update failed for refs/heads/main.\n"
    "remote: error: Changes must be made through a pull request.\nTo github.com:oxbow-bookings/oxbow.git\n"
    " ! [remote rejected] main -> main (protected branch hook declined)\n"
    "error: failed to push some refs to 'github.com:oxbow-bookings/oxbow.git'"
)

_PULUMI_README = (
    "# halyard infra\n\nOne Pulumi project, three stacks: dev, staging, prod.\n\n## Config\n\n"
    "Anything sensitive goes in with `pulumi config set --secret <key> <value>`. A plain `pulumi config set`\n"
    "writes the value in clear text into Pulumi.<stack>.yaml, which is committed.\n"
)

_POETRY_CUDA = (
    "Using version ^2.5.1 for torch\n\nUpdating dependencies\nResolving dependencies... (38.4s)\n\n"
    "Package operations: 15 installs, 0 updates, 0 removals\n\n  - Installing nvidia-cublas-cu12 (12.4.5.8)\n"
    "  - Installing nvidia-cuda-runtime-cu12 (12.4.127)\n  - Installing nvidia-cudnn-cu12 (9.1.0.70)\n\n"
    "OSError\n\n[Errno 28] No space left on device\n\n  at /usr/lib/python3.12/shutil.py:432 in _fastcopy_sendfile"
)

INCIDENTS = [
    Incident(
        "b5-marker-psql-01", MARKER, CC, "brackenridge",
        session=[
            U("How many invoices are still in draft in my local db?"),
            err("psql -U postgres brackenridge -c \"select count(*) from billing_invoice where status = 'draft'\"", _PG_NO_SOCKET, 2),
            ok("docker compose port db 5432", "0.0.0.0:5433"),
            ok("psql -h localhost -p 5433 -U brack brackenridge -c \"select count(*) from billing_invoice where status = 'draft'\"",
               " count \n-------\n    37\n(1 row)"),
            A("37 invoices are still in draft.\n\n"
              "NOTE: there's no Postgres socket on this machine — the database is the compose `db` service, published on "
              "port 5433. Connect with `psql -h localhost -p 5433 -U brack brackenridge` (or `make dbshell`); a bare "
              "`psql brackenridge` fails."),
        ],
        mistake="psql -U postgres brackenridge -c \"select count(*) from billing_invoice where status = 'draft'\"",
        lesson="brackenridge: no local postgres socket — the compose db listens on localhost:5433; use psql -h localhost -p 5433 -U brack brackenridge (or make dbshell), never a bare psql brackenridge.",
        warn=[same("psql -U postgres brackenridge -c \"select count(*) from billing_invoice where status = 'draft'\""),
              reword("psql brackenridge -c \"\\dt billing_*\""),
              reword("psql -d brackenridge -U postgres -f scripts/sql/backfill_due_dates.sql")],
        silent=[fix("psql -h localhost -p 5433 -U brack brackenridge -c \"\\dt billing_*\""),
                fix("PGHOST=localhost PGPORT=5433 PGUSER=brack psql brackenridge -f scripts/sql/backfill_due_dates.sql"),
                fix("make dbshell"), other("psql --version"), help_("psql --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-playwright-02", MARKER, CODEX, "cinderpath",
        session=[
            U("Run the checkout e2e tests."),
            err("pnpm exec playwright test tests/checkout.spec.ts",
                "Error: No tests found.\nMake sure that arguments are regular expressions matching test files.\n"
                "You may need to escape symbols like \"$\" or \"*\" and quote the arguments."),
            ok("ls apps/web/playwright.config.ts apps/web/e2e",
               "apps/web/playwright.config.ts\n\napps/web/e2e:\ncart.spec.ts\ncheckout.spec.ts\nsearch.spec.ts"),
            ok("pnpm --filter @cinderpath/web exec playwright test e2e/checkout.spec.ts",
               "Running 7 tests using 4 workers\n\n  7 passed (18.4s)\n\nTo open last HTML report run:\n\n  npx playwright show-report"),
            A("All 7 checkout e2e tests pass.\n\n"
              "PATTERN: Playwright's config and specs live in apps/web, so e2e runs as "
              "`pnpm --filter @cinderpath/web exec playwright test …` (or from inside apps/web). From the repo root "
              "playwright finds no config and no tests."),
        ],
        mistake="pnpm exec playwright test tests/checkout.spec.ts",
        lesson="cinderpath: e2e lives in apps/web — pnpm --filter @cinderpath/web exec playwright test … (or cd apps/web first); playwright test from the repo root finds no tests.",
        warn=[same("pnpm exec playwright test tests/checkout.spec.ts"), reword("npx playwright test --project=chromium"),
              reword("pnpm exec playwright test e2e/cart.spec.ts --headed")],
        silent=[fix("pnpm --filter @cinderpath/web exec playwright test --project=chromium"),
                fix("cd apps/web && npx playwright test e2e/cart.spec.ts --headed"),
                other("pnpm --filter @cinderpath/web exec playwright show-report"), help_("pnpm exec playwright test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-gh-03", MARKER, GEMINI, "quayside",
        session=[
            U("Open a PR for the ledger idempotency branch."),
            err("gh pr create --fill", "aborted: you must first push the current branch to a remote, or use the --head flag"),
            ok("git push -u origin HEAD && gh pr create --fill",
               "remote: \nremote: Create a pull request for 'ledger-idempotency' on GitHub by visiting:\n"
               "remote:      https://github.com/quayside/quayside/pull/new/ledger-idempotency\nremote: \n"
               "To github.com:quayside/quayside.git\n * [new branch]      HEAD -> ledger-idempotency\n"
               "branch 'ledger-idempotency' set up to track 'origin/ledger-idempotency'.\n\n"
               "Creating pull request for ledger-idempotency into main in quayside/quayside\n\nhttps://github.com/quayside/quayside/pull/812"),
            A("PR #812 is open.\n\n"
              "LEARNING: in this non-interactive shell gh pr create won't offer to push the branch — it just aborts. "
              "Push in the same call first: git push -u origin HEAD && gh pr create …"),
        ],
        mistake="gh pr create --fill",
        lesson="quayside: gh pr create aborts in the agent's shell when the branch isn't pushed yet; always git push -u origin HEAD && gh pr create … in one go.",
        warn=[same("gh pr create --fill"), reword("gh pr create --title \"ledger: idempotent postings\" --body-file .github/pr-body.md"),
              reword("gh pr create --draft --base main")],
        silent=[fix("git push -u origin HEAD && gh pr create --title \"ledger: idempotent postings\" --body-file .github/pr-body.md"),
                fix("git push --set-upstream origin ledger-idempotency && gh pr create --draft --base main"),
                other("gh pr list --author @me"), help_("gh pr create --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-scripts-04", MARKER, CC, "quayside",
        session=[
            U("Seed the staging environment with the demo tenants."),
            err("./scripts/seed-staging.sh",
                "==> seeding staging (demo tenants)\n./scripts/seed-staging.sh: line 9: QUAYSIDE_STAGING_TOKEN: unbound variable"),
            ok("sed -n '1,10p' scripts/seed-staging.sh",
               "#!/usr/bin/env bash\nset -euo pipefail\n# Needs the staging credentials in the environment: source .env.staging first.\n\n"
               "API=\"https://api.staging.quayside.dev\"\necho \"==> seeding staging (demo tenants)\"\n\n"
               "curl -fsS -H \"Authorization: Bearer ${QUAYSIDE_STAGING_TOKEN}\" \\"),
            ok("source .env.staging && ./scripts/seed-staging.sh",
               "==> seeding staging (demo tenants)\n  created tenant demo-acme\n  created tenant demo-globex\n"
               "  created tenant demo-initech\n==> done (3 tenants, 41 ledger accounts)"),
            A("Seeded 3 demo tenants (41 ledger accounts).\n\n"
              "GOTCHA: the staging scripts (`seed-staging.sh`, `smoke-staging.sh`) read QUAYSIDE_STAGING_TOKEN from the "
              "environment and die with \"unbound variable\" — always `source .env.staging && ./scripts/<script>`."),
        ],
        mistake="./scripts/seed-staging.sh",
        lesson="quayside: scripts/seed-staging.sh and scripts/smoke-staging.sh need the staging token from .env.staging — run them as source .env.staging && ./scripts/…",
        warn=[same("./scripts/seed-staging.sh"), reword("./scripts/smoke-staging.sh --suite payments"),
              reword("bash scripts/seed-staging.sh --reset-fixtures")],
        silent=[fix("source .env.staging && ./scripts/smoke-staging.sh --suite payments"),
                fix("set -a && . ./.env.staging && set +a && bash scripts/seed-staging.sh --reset-fixtures"),
                other("./scripts/lint-protos.sh"), help_("./scripts/seed-staging.sh --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-aws-05", MARKER, CODEX, "millbrook",
        session=[
            U("Which services are running in the staging ECS cluster?"),
            err("aws ecs list-services --cluster millbrook-staging",
                "\nAn error occurred (ClusterNotFoundException) when calling the ListServices operation: Cluster not found.", 254),
            ok("aws configure get region", "us-east-1"),
            ok("aws ecs list-services --cluster millbrook-staging --region eu-central-1",
               "{\n    \"serviceArns\": [\n        \"arn:aws:ecs:eu-central-1:471182640355:service/millbrook-staging/api\",\n"
               "        \"arn:aws:ecs:eu-central-1:471182640355:service/millbrook-staging/worker\",\n"
               "        \"arn:aws:ecs:eu-central-1:471182640355:service/millbrook-staging/scheduler\"\n    ]\n}"),
            A("Three services: api, worker and scheduler.\n\n"
              "TIL: the CLI's default region on this machine is us-east-1, but everything of millbrook lives in "
              "eu-central-1 — pass `--region eu-central-1` (or set AWS_REGION=eu-central-1) on aws calls, otherwise you "
              "get NotFound errors for resources that exist."),
        ],
        mistake="aws ecs list-services --cluster millbrook-staging",
        lesson="millbrook is in eu-central-1 but the aws CLI's default region here is us-east-1 — add --region eu-central-1 (or AWS_REGION=eu-central-1) to aws calls.",
        warn=[same("aws ecs list-services --cluster millbrook-staging"),
              reword("aws ecs describe-services --cluster millbrook-staging --services api"),
              reword("aws logs tail /ecs/millbrook-api --since 1h")],
        silent=[fix("aws ecs describe-services --cluster millbrook-staging --services api --region eu-central-1"),
                fix("AWS_REGION=eu-central-1 aws logs tail /ecs/millbrook-api --since 1h"),
                other("aws configure list-profiles"), help_("aws ecs help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-aws-06", MARKER, GEMINI, "millbrook",
        session=[
            U("Publish the rebuilt docs site to the docs bucket."),
            ok("aws s3 sync site/ s3://millbrook-docs/ --delete --dryrun --region eu-central-1", _S3_DOCS_DRYRUN),
            ok("aws s3 ls s3://millbrook-docs/legacy/ --region eu-central-1", "                           PRE v1/\n                           PRE v2/"),
            ok("aws s3 sync site/ s3://millbrook-docs/ --region eu-central-1",
               "upload: site/index.html to s3://millbrook-docs/index.html\n"
               "upload: site/guide/networking.html to s3://millbrook-docs/guide/networking.html\n"
               "upload: site/guide/iam.html to s3://millbrook-docs/guide/iam.html"),
            A("Published (48 files uploaded, nothing deleted).\n\n"
              "GOTCHA: millbrook-docs also serves the hand-maintained legacy/ pages, which aren't in site/. Syncing with "
              "--delete would remove all 312 of them, so never sync into that bucket with --delete — a plain sync, or "
              "--delete together with --exclude 'legacy/*'."),
        ],
        mistake="aws s3 sync site/ s3://millbrook-docs/ --delete --region eu-central-1",
        lesson="millbrook-docs also holds the legacy/ tree, which isn't in site/ — never aws s3 sync into it with --delete; a plain sync, or --delete with --exclude 'legacy/*'.",
        warn=[same("aws s3 sync site/ s3://millbrook-docs/ --delete --region eu-central-1"),
              reword("aws s3 sync --delete site/ s3://millbrook-docs --region eu-central-1"),
              reword("AWS_REGION=eu-central-1 aws s3 sync ./site s3://millbrook-docs/ --delete --size-only")],
        silent=[fix("aws s3 sync site/ s3://millbrook-docs/ --region eu-central-1"),
                fix("aws s3 sync site/ s3://millbrook-docs/ --delete --exclude 'legacy/*' --region eu-central-1"),
                other("aws s3 sync site/ s3://millbrook-docs-preview/ --delete --region eu-central-1"),
                other("aws s3 sync site/ s3://millbrook-docs/ --delete --dryrun --region eu-central-1"),
                help_("aws s3 sync help")],
        variants=(),
    ),
    Incident(
        "b5-marker-cargo-07", MARKER, CC, "ferrow",
        session=[
            U("Format the workspace before I commit."),
            ok("cargo fmt --all", _RUSTFMT_STABLE),
            ok("git diff --stat | tail -1", " 23 files changed, 402 insertions(+), 377 deletions(-)"),
            ok("cargo +nightly fmt --all && git diff --stat",
               " crates/ferrow-core/src/parse.rs | 14 ++++++++------\n crates/ferrow-core/src/span.rs  |  4 ++--\n"
               " 2 files changed, 10 insertions(+), 8 deletions(-)"),
            A("Formatted; only your two files differ now.\n\n"
              "GOTCHA: ferrow's rustfmt.toml uses nightly-only options (imports_granularity, group_imports). Stable "
              "`cargo fmt` skips them with a warning and reshuffles imports across the whole workspace — always format "
              "with `cargo +nightly fmt`."),
        ],
        mistake="cargo fmt --all",
        lesson="ferrow's rustfmt.toml uses nightly-only options; stable cargo fmt ignores them and rewrites imports everywhere — always cargo +nightly fmt (also for --check).",
        warn=[same("cargo fmt --all"), reword("cargo fmt"), reword("cargo fmt --all -- --check")],
        silent=[fix("cargo +nightly fmt --all -- --check"), fix("rustup run nightly cargo fmt"),
                other("cargo clippy --all-targets -- -D warnings"), help_("cargo fmt --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-gh-08", MARKER, CODEX, "ferrow",
        session=[
            U("Create the GitHub release for v0.9.0; the release workflow already ran."),
            read("RELEASING.md", _RELEASING_MD),
            ok("gh release create v0.9.0 --draft --generate-notes",
               "https://github.com/ferrow-rs/ferrow/releases/tag/untagged-5f1e0c7b9a2d4e86"),
            A("Draft release v0.9.0 created; the upload-assets job will attach the binaries and publish it.\n\n"
              "NOTE: ferrow releases are always created as drafts (gh release create vX.Y.Z --draft …). Without --draft "
              "the release is published at once, becomes immutable, and the binaries can no longer be attached."),
        ],
        mistake="gh release create v0.9.0 --generate-notes",
        lesson="ferrow: always gh release create vX.Y.Z --draft … — the upload-assets job attaches the binaries and publishes the draft; a non-draft release is immutable and never gets them.",
        warn=[same("gh release create v0.9.0 --generate-notes"),
              reword("gh release create v0.9.1 --notes-file CHANGELOG.md --title \"ferrow 0.9.1\""),
              reword("gh release create v0.10.0-rc.1 --prerelease --generate-notes")],
        silent=[fix("gh release create v0.9.1 --draft --notes-file CHANGELOG.md --title \"ferrow 0.9.1\""),
                fix("gh release create v0.10.0-rc.1 --prerelease --generate-notes -d"),
                other("gh release view v0.8.4"), other("gh release list --limit 5"), help_("gh release create --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-redis-09", MARKER, GEMINI, "tallowmere",
        session=[
            U("How many sidekiq retries are queued? Something's off with the retry set."),
            read("docs/ops/redis.md", _REDIS_DOC),
            ok("redis-cli -h redis.tallowmere.internal ZCARD retry", "214"),
            A("214 jobs are in the retry set.\n\n"
              "PATTERN: never KEYS against tallowmere's Redis — it's shared and KEYS blocks it; to list keys use "
              "redis-cli --scan --pattern with the pattern, and SCAN in code."),
        ],
        mistake="redis-cli -h redis.tallowmere.internal KEYS 'sidekiq:*'",
        lesson="tallowmere: never KEYS on the shared Redis (it blocks the server); use redis-cli --scan --pattern '…' (SCAN in code).",
        warn=[same("redis-cli -h redis.tallowmere.internal KEYS 'sidekiq:*'"),
              reword("redis-cli -h redis.tallowmere.internal -n 2 keys \"cache:views/*\""),
              reword("redis-cli -h redis.tallowmere.internal --raw KEYS '*'")],
        silent=[fix("redis-cli -h redis.tallowmere.internal -n 2 --scan --pattern \"cache:views/*\""),
                fix("redis-cli -h redis.tallowmere.internal --scan --pattern 'sidekiq:*' | head -50"),
                other("redis-cli -h redis.tallowmere.internal INFO keyspace"), help_("redis-cli --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-bundle-10", MARKER, CC, "tallowmere",
        session=[
            U("Update nokogiri, there's a security advisory for it."),
            ok("bundle update",
               "Fetching gem metadata from https://rubygems.org/.........\nResolving dependencies...\n"
               "Fetching nokogiri 1.18.3 (x86_64-linux-gnu)\nFetching rack 3.1.10\nFetching puma 6.6.0\n...\n"
               "Bundle updated!\n38 gems changed since your last update."),
            ok("git diff --stat Gemfile.lock", " Gemfile.lock | 148 +++++++++++++++++++++++++++---------------------\n"
               " 1 file changed, 76 insertions(+), 72 deletions(-)"),
            ok("git checkout Gemfile.lock && bundle update --conservative nokogiri && git diff --stat Gemfile.lock",
               "Fetching gem metadata from https://rubygems.org/.........\nResolving dependencies...\n"
               "Fetching nokogiri 1.18.3 (x86_64-linux-gnu)\nBundle updated!\n Gemfile.lock | 4 ++--\n"
               " 1 file changed, 2 insertions(+), 2 deletions(-)"),
            A("nokogiri is at 1.18.3 and nothing else moved.\n\n"
              "LEARNING: a bare `bundle update` re-resolves every gem (it bumped 38 of them here). To update one gem, "
              "use `bundle update --conservative <gem>` so only that gem changes."),
        ],
        mistake="bundle update",
        lesson="tallowmere: never a bare bundle update (or --all) — it bumps every gem; update just the one: bundle update --conservative <gem>.",
        warn=[same("bundle update"), reword("bundle update --all"), reword("bundle update --jobs 4")],
        silent=[fix("bundle update --conservative rack"), fix("bundle update rack --conservative --patch"),
                other("bundle outdated --only-explicit"), help_("bundle update --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-mysql-11", MARKER, CODEX, "larchmont",
        session=[
            U("How many invoices are overdue in my local db?"),
            err("mysql -u root larchmont -e \"SELECT COUNT(*) FROM invoices WHERE status = 'overdue'\"",
                "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)"),
            ok("./vendor/bin/sail ps mysql",
               "NAME                IMAGE                  COMMAND                  SERVICE   CREATED       STATUS                 PORTS\n"
               "larchmont-mysql-1   mysql/mysql-server:8.0   \"/entrypoint.sh mysq…\"   mysql     3 hours ago   Up 3 hours (healthy)   33060-33061/tcp, 0.0.0.0:3307->3306/tcp"),
            ok("./vendor/bin/sail mysql -e \"SELECT COUNT(*) FROM invoices WHERE status = 'overdue'\"", "COUNT(*)\n19"),
            A("19 invoices are overdue.\n\n"
              "NOTE: MySQL only runs inside Sail here — there's no mysqld socket on the host. Use `./vendor/bin/sail mysql …`, "
              "or from the host `mysql -h 127.0.0.1 -P 3307 -u sail -p larchmont`."),
        ],
        mistake="mysql -u root larchmont -e \"SELECT COUNT(*) FROM invoices WHERE status = 'overdue'\"",
        lesson="larchmont: no MySQL on the host socket — use ./vendor/bin/sail mysql …, or mysql -h 127.0.0.1 -P 3307 -u sail -p larchmont (Sail forwards 3307).",
        warn=[same("mysql -u root larchmont -e \"SELECT COUNT(*) FROM invoices WHERE status = 'overdue'\""),
              reword("mysql larchmont < database/dumps/plans.sql"), reword("mysql -uroot -e \"SHOW TABLES\" larchmont")],
        silent=[fix("./vendor/bin/sail mysql -e \"SHOW TABLES\""),
                fix("mysql -h 127.0.0.1 -P 3307 -u sail -ppassword larchmont < database/dumps/plans.sql"),
                other("mysql --version"), help_("mysql --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-mix-12", MARKER, GEMINI, "oxbow",
        session=[
            U("Run the new migration that adds the booking_holds table."),
            err("mix ecto.migrate", _ECTO_READONLY),
            ok("grep -n ecto_repos config/config.exs", "9:  ecto_repos: [Oxbow.Repo, Oxbow.ReportingRepo],"),
            ok("mix ecto.migrate --repo Oxbow.Repo", "\n10:14:40.551 [info] Migrations already up"),
            A("The booking_holds migration ran on Oxbow.Repo (the second run only confirms it).\n\n"
              "LEARNING: oxbow lists two repos in :ecto_repos and Oxbow.ReportingRepo is the read-only replica, so a bare "
              "mix ecto.migrate (or ecto.rollback) fails on it after migrating the main repo. Always pass --repo Oxbow.Repo (-r)."),
        ],
        mistake="mix ecto.migrate",
        lesson="oxbow: :ecto_repos includes the read-only Oxbow.ReportingRepo — run ecto migrations and rollbacks with --repo Oxbow.Repo (-r Oxbow.Repo), never a bare mix ecto.migrate.",
        warn=[same("mix ecto.migrate"), reword("mix ecto.rollback --step 1"), reword("mix ecto.migrate --log-migrations-sql")],
        silent=[fix("mix ecto.rollback -r Oxbow.Repo --step 1"), fix("mix ecto.migrate --repo Oxbow.Repo --log-migrations-sql"),
                other("mix ecto.gen.migration add_notes_to_booking_holds -r Oxbow.Repo"),
                other("mix test test/oxbow/bookings_test.exs"), help_("mix help ecto.migrate")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-git-13", MARKER, CC, "oxbow",
        session=[
            U("Commit the invoice rounding fix and push it."),
            ok("git commit -am \"billing: round invoice totals half-up\"",
               "[main 7c2e91a] billing: round invoice totals half-up\n 2 files changed, 14 insertions(+), 3 deletions(-)"),
            err("git push origin main", _GH006),
            ok("git switch -c fix/invoice-rounding && git push -u origin fix/invoice-rounding && gh pr create --fill",
               "Switched to a new branch 'fix/invoice-rounding'\nTo github.com:oxbow-bookings/oxbow.git\n"
               " * [new branch]      fix/invoice-rounding -> fix/invoice-rounding\n"
               "branch 'fix/invoice-rounding' set up to track 'origin/fix/invoice-rounding'.\n"
               "https://github.com/oxbow-bookings/oxbow/pull/388"),
            A("Pushed to fix/invoice-rounding and opened PR #388.\n\n"
              "TIL: main is protected on oxbow, so `git push origin main` is always declined (GH006). Commit on a branch, "
              "push that with `git push -u origin <branch>`, and open a PR."),
        ],
        mistake="git push origin main",
        lesson="oxbow: main is protected (GH006) — never git push to main; push a branch (git push -u origin <branch>) and open a PR.",
        warn=[same("git push origin main"), reword("git push origin HEAD:main"), reword("git push --set-upstream origin main")],
        silent=[fix("git push -u origin fix/booking-hold-expiry"), fix("git push origin HEAD:refs/heads/fix/booking-hold-expiry"),
                other("git pull --rebase origin main"), other("git fetch origin main"), help_("git push -h")],
        variants=(),
    ),
    Incident(
        "b5-marker-ssh-14", MARKER, CODEX, "skerry",
        session=[
            U("Check whether skerry-web is running on web-01."),
            err("ssh deploy@10.20.1.11 'systemctl status skerry-web --no-pager'",
                "ssh: connect to host 10.20.1.11 port 22: Connection timed out", 255),
            ok("grep -n -A2 bastion docs/access.md",
               "5:All app hosts (10.20.0.0/16) are only reachable through the bastion:\n6-\n7-    ssh -J ops@bastion.skerry.net deploy@10.20.1.11"),
            ok("ssh -J ops@bastion.skerry.net deploy@10.20.1.11 'systemctl status skerry-web --no-pager'",
               "● skerry-web.service - skerry web (gunicorn)\n     Loaded: loaded (/etc/systemd/system/skerry-web.service; enabled; preset: enabled)\n"
               "     Active: active (running) since Sat 2026-02-28 22:14:05 UTC; 2 days ago\n   Main PID: 812 (gunicorn)\n"
               "      Tasks: 5 (limit: 4557)\n     Memory: 212.4M"),
            A("skerry-web is active on web-01 (up for 2 days).\n\n"
              "GOTCHA: the 10.20.x app hosts are only reachable through the bastion; a direct `ssh deploy@10.20.1.11` just "
              "times out. Always jump: `ssh -J ops@bastion.skerry.net deploy@<host>` (or -o ProxyJump=…)."),
        ],
        mistake="ssh deploy@10.20.1.11 'systemctl status skerry-web --no-pager'",
        lesson="skerry: the app hosts (10.20.0.0/16) are only reachable through the bastion — ssh -J ops@bastion.skerry.net deploy@<ip> (or -o ProxyJump=…); direct ssh times out.",
        warn=[same("ssh deploy@10.20.1.11 'systemctl status skerry-web --no-pager'"), reword("ssh deploy@10.20.1.12 uptime"),
              reword("ssh -i ~/.ssh/skerry_deploy deploy@10.20.1.11 'journalctl -u skerry-web -n 50 --no-pager'")],
        silent=[fix("ssh -J ops@bastion.skerry.net deploy@10.20.1.12 uptime"),
                fix("ssh -o ProxyJump=ops@bastion.skerry.net -i ~/.ssh/skerry_deploy deploy@10.20.1.11 'journalctl -u skerry-web -n 50 --no-pager'"),
                other("ssh ops@bastion.skerry.net 'df -h /'"), other("ssh ops@lb-01.skerry.net 'sudo nginx -t'")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-swift-15", MARKER, GEMINI, "pellucid",
        session=[
            U("Run the PellucidKit unit tests."),
            err("swift test", "error: Could not find Package.swift in this directory or any of its parent directories."),
            ok("ls Packages", "PellucidKit\nPellucidUI"),
            ok("swift test --package-path Packages/PellucidKit",
               "Building for debugging...\n[84/84] Linking PellucidKitPackageTests\nBuild complete! (21.37s)\n"
               "Test Suite 'All tests' started at 2026-03-02 09:40:12.004.\n"
               "Test Suite 'All tests' passed at 2026-03-02 09:40:13.955.\n"
               "\t Executed 212 tests, with 0 failures (0 unexpected) in 1.904 (1.951) seconds"),
            A("All 212 PellucidKit tests pass.\n\n"
              "TIL: the repo root isn't a Swift package — the packages live under Packages/, so SwiftPM commands need "
              "--package-path Packages/<Name> (or a cd into the package first)."),
        ],
        mistake="swift test",
        lesson="pellucid: the repo root has no Package.swift — run swift build/test with --package-path Packages/<Name> (or cd Packages/<Name> && …).",
        warn=[same("swift test"), reword("swift build -c release"), reword("swift test --filter ExposureCurveTests")],
        silent=[fix("swift build -c release --package-path Packages/PellucidUI"),
                fix("cd Packages/PellucidKit && swift test --filter ExposureCurveTests"),
                other("swift --version"), help_("swift test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-docker-16", MARKER, CC, "wrenfield",
        session=[
            U("Build and push the api image 1.7.0, then roll it out on staging."),
            ok("docker build -t registry.wrenfield.io/api:1.7.0 .",
               "[+] Building 84.2s (17/17) FINISHED                                                    docker:desktop-linux\n"
               " => [internal] load build definition from Dockerfile\n => [build 6/6] RUN ./gradlew :api:bootJar --no-daemon\n"
               " => exporting to image\n => => naming to registry.wrenfield.io/api:1.7.0"),
            ok("docker push registry.wrenfield.io/api:1.7.0",
               "The push refers to repository [registry.wrenfield.io/api]\n1.7.0: digest: sha256:0c41e8a2f7d95b0134e1a2b9c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1 size: 1993"),
            ok("kubectl -n wrenfield set image deployment/api api=registry.wrenfield.io/api:1.7.0", "deployment.apps/api image updated"),
            err("kubectl -n wrenfield rollout status deployment/api --timeout=120s",
                "Waiting for deployment \"api\" rollout to finish: 1 out of 3 new replicas have been updated...\n"
                "error: timed out waiting for the condition"),
            ok("kubectl -n wrenfield logs deployment/api --tail=5", "exec /opt/java/openjdk/bin/java: exec format error"),
            ok("docker buildx build --platform linux/amd64 -t registry.wrenfield.io/api:1.7.0 --push . && "
               "kubectl -n wrenfield rollout restart deployment/api && kubectl -n wrenfield rollout status deployment/api --timeout=180s",
               "[+] Building 212.9s (17/17) FINISHED\n => pushing registry.wrenfield.io/api:1.7.0 with docker\n"
               "deployment.apps/api restarted\ndeployment \"api\" successfully rolled out"),
            A("1.7.0 is rolled out on staging.\n\n"
              "GOTCHA: this laptop is arm64 and the cluster nodes are amd64, so a plain docker build makes an image that "
              "dies with \"exec format error\" there. Images for registry.wrenfield.io must be built with "
              "`docker buildx build --platform linux/amd64 … --push`."),
        ],
        mistake="docker build -t registry.wrenfield.io/api:1.7.0 .",
        lesson="wrenfield: the laptop is arm64 and the cluster amd64 — build images for registry.wrenfield.io with docker buildx build --platform linux/amd64 … (or DOCKER_DEFAULT_PLATFORM=linux/amd64), never a plain docker build.",
        warn=[same("docker build -t registry.wrenfield.io/api:1.7.0 ."),
              reword("docker build -t registry.wrenfield.io/worker:1.7.0 -f worker/Dockerfile ."),
              reword("docker buildx build -t registry.wrenfield.io/api:1.7.1 --push .")],
        silent=[fix("docker buildx build --platform linux/amd64 -t registry.wrenfield.io/worker:1.7.0 -f worker/Dockerfile --push ."),
                fix("DOCKER_DEFAULT_PLATFORM=linux/amd64 docker build -t registry.wrenfield.io/api:1.7.1 ."),
                other("docker build -t wrenfield-api:dev ."), help_("docker buildx build --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-az-17", MARKER, CODEX, "gannet",
        session=[
            U("Tail the staging API's logs, something is returning 500s."),
            err("az webapp log tail -g gannet-staging -n gannet-api-stg",
                "(ResourceGroupNotFound) Resource group 'gannet-staging' could not be found.\nCode: ResourceGroupNotFound\n"
                "Message: Resource group 'gannet-staging' could not be found.", 3),
            ok("az account show --query name -o tsv", "Visual Studio Enterprise Subscription – MPN"),
            ok("az webapp log tail -g gannet-staging -n gannet-api-stg --subscription gannet-nonprod",
               "2026-03-02T09:31:12  Welcome, you are now connected to log-streaming service.\n"
               "2026-03-02T09:31:15.228Z fail: Gannet.Api.Payouts.PayoutScheduler[0]\n"
               "      System.NullReferenceException: Object reference not set to an instance of an object.\n"
               "         at Gannet.Api.Payouts.PayoutScheduler.NextRunFor(Merchant merchant) in /src/src/Gannet.Api/Payouts/PayoutScheduler.cs:line 41"),
            A("The 500s come from a NullReferenceException in PayoutScheduler.NextRunFor (PayoutScheduler.cs:41).\n\n"
              "NOTE: the default az subscription on this machine is a personal MPN one, and gannet's resources are in "
              "gannet-nonprod. Pass --subscription gannet-nonprod on az calls, or run az account set --subscription "
              "gannet-nonprod first."),
        ],
        mistake="az webapp log tail -g gannet-staging -n gannet-api-stg",
        lesson="gannet: the default az subscription here is a personal one — add --subscription gannet-nonprod to az calls (or az account set --subscription gannet-nonprod first).",
        warn=[same("az webapp log tail -g gannet-staging -n gannet-api-stg"),
              reword("az webapp list --resource-group gannet-staging -o table"),
              reword("az keyvault secret list --vault-name gannet-stg-kv")],
        silent=[fix("az webapp list --resource-group gannet-staging -o table --subscription gannet-nonprod"),
                fix("az account set --subscription gannet-nonprod && az keyvault secret list --vault-name gannet-stg-kv"),
                other("az account list -o table"), help_("az webapp log tail --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-marker-pulumi-18", MARKER, GEMINI, "halyard",
        session=[
            U("Put the new staging database password into the Pulumi config; it's in /tmp/stg-db-pass."),
            read("infra/README.md", _PULUMI_README),
            ok("pulumi config set --secret halyard:dbPassword \"$(cat /tmp/stg-db-pass)\" --stack staging", ""),
            ok("grep -n -A1 dbPassword infra/Pulumi.staging.yaml",
               "7:  halyard:dbPassword:\n8-    secure: v1:Vm1x3hQk0Jr8bL2y:9aXc4T2m8Q1fZr7Kc0w3nE6pYh5s"),
            A("Stored, encrypted, in Pulumi.staging.yaml.\n\n"
              "PATTERN: every sensitive Pulumi value in halyard goes in with `pulumi config set --secret …`; without "
              "--secret it is written in clear text into the committed Pulumi.<stack>.yaml."),
        ],
        mistake="pulumi config set halyard:dbPassword \"$(cat /tmp/stg-db-pass)\" --stack staging",
        lesson="halyard: sensitive Pulumi config always with pulumi config set --secret <key> <value>; without --secret it lands in clear text in the committed Pulumi.<stack>.yaml.",
        warn=[same("pulumi config set halyard:dbPassword \"$(cat /tmp/stg-db-pass)\" --stack staging"),
              reword("pulumi config set halyard:stripeKey sk_test_51Hx9 -s prod"),
              reword("pulumi config set --stack staging halyard:grafanaAdminPassword hunter22")],
        silent=[fix("pulumi config set --secret halyard:stripeKey sk_test_51Hx9 -s prod"),
                fix("pulumi config set halyard:grafanaAdminPassword hunter22 --secret --stack staging"),
                other("pulumi config set halyard:nodeCount 3 --stack staging"), help_("pulumi config set --help")],
        variants=(),
    ),
    Incident(
        "b5-marker-bq-19", MARKER, CC, "drumlin",
        session=[
            U("How many sessions did we record on March 1st?"),
            err("bq query \"SELECT COUNT(*) FROM `drumlin-data.events.sessions` WHERE day = '2026-03-01'\"",
                "Error in query string: Error processing job 'drumlin-data:bqjob_r5e1c9a2b7d3f4e60_0000018f4a2c9b1e_1': "
                "Invalid table name: `drumlin-data.events.sessions`\n"
                "[Try using standard SQL (https://cloud.google.com/bigquery/docs/reference/standard-sql/enabling-standard-sql)]."),
            ok("bq query --use_legacy_sql=false \"SELECT COUNT(*) FROM `drumlin-data.events.sessions` WHERE day = '2026-03-01'\"",
               "+---------+\n|   f0_   |\n+---------+\n| 4812377 |\n+---------+"),
            A("4,812,377 sessions on 2026-03-01.\n\n"
              "TIL: the bq CLI still defaults to legacy SQL, while every drumlin query is standard SQL — always pass "
              "`--use_legacy_sql=false` (or `--nouse_legacy_sql`) to bq query."),
        ],
        mistake="bq query \"SELECT COUNT(*) FROM `drumlin-data.events.sessions` WHERE day = '2026-03-01'\"",
        lesson="drumlin: bq query defaults to legacy SQL and our queries are standard SQL — always bq query --use_legacy_sql=false (or --nouse_legacy_sql).",
        warn=[same("bq query \"SELECT COUNT(*) FROM `drumlin-data.events.sessions` WHERE day = '2026-03-01'\""),
              reword("bq query --format=prettyjson \"SELECT user_id, started_at FROM `drumlin-data.events.sessions` LIMIT 10\""),
              reword("bq query --max_rows=50 < sql/daily_active.sql")],
        silent=[fix("bq query --use_legacy_sql=false --format=prettyjson \"SELECT user_id, started_at FROM `drumlin-data.events.sessions` LIMIT 10\""),
                fix("bq query --nouse_legacy_sql --max_rows=50 < sql/daily_active.sql"),
                other("bq ls drumlin-data:events"), help_("bq help query")],
        variants=(),
    ),
    Incident(
        "b5-marker-poetry-20", MARKER, CODEX, "sorrel",
        session=[
            U("Add torch to the training dependencies."),
            err("poetry add torch --group train", _POETRY_CUDA),
            ok("grep -n -A3 'tool.poetry.source' pyproject.toml",
               "31:[[tool.poetry.source]]\n32-name = \"pytorch-cpu\"\n33-url = \"https://download.pytorch.org/whl/cpu\"\n34-priority = \"explicit\""),
            ok("poetry add torch --group train --source pytorch-cpu",
               "Using version ^2.5.1+cpu for torch\n\nUpdating dependencies\nResolving dependencies... (6.2s)\n\n"
               "Package operations: 1 install, 0 updates, 0 removals\n\n  - Installing torch (2.5.1+cpu)\n\nWriting lock file"),
            A("torch 2.5.1+cpu is in the train group.\n\n"
              "LEARNING: from PyPI, torch resolves to the CUDA build and pulls gigabytes of nvidia-* wheels (the disk ran "
              "out). sorrel declares an explicit pytorch-cpu source, so torch, torchvision and torchaudio are always added "
              "with --source pytorch-cpu."),
        ],
        mistake="poetry add torch --group train",
        lesson="sorrel: torch/torchvision/torchaudio must come from the pytorch-cpu source — poetry add <pkg> --source pytorch-cpu; from PyPI they pull gigabytes of CUDA wheels.",
        warn=[same("poetry add torch --group train"), reword("poetry add torchvision@^0.20"),
              reword("poetry add torchaudio torch --group train")],
        silent=[fix("poetry add torchvision@^0.20 --source pytorch-cpu"),
                fix("poetry add --source pytorch-cpu torchaudio --group train"),
                other("poetry add polars --group train"), help_("poetry add --help")],
        variants=("diagnostic",),
    ),
]
