"""Fresh split, shape 1: a call fails, a different call works — a flag added, a
value changed, another program, or a step before it."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, U, err, fix, help_, ok, other, reword, same

_AWS_NO_CREDS = "\nUnable to locate credentials. You can configure credentials by running \"aws configure\"."

_CARGO_FEATURE_GATED = (
    "   Compiling ferrule-core v0.6.2 (/home/dev/ferrule/crates/ferrule-core)\n"
    "error[E0432]: unresolved import `ferrule_core::serde_impl`\n --> crates/ferrule-core/tests/roundtrip.rs:3:5\n  |\n"
    "3 | use ferrule_core::serde_impl::{from_json, to_json};\n  |     ^^^^^^^^^^^^^^^^^^^^^^^^ could not find `serde_impl` in `ferrule_core`\n  |\n"
    "note: found an item that was configured out\n --> crates/ferrule-core/src/lib.rs:14:9\n   |\n"
    "14 | pub mod serde_impl;\n   |         ^^^^^^^^^^\n"
    "note: the item is gated behind the `serde` feature\n --> crates/ferrule-core/src/lib.rs:13:7\n   |\n"
    "13 | #[cfg(feature = \"serde\")]\n   |       ^^^^^^^^^^^^^^^^^\n\n"
    "For more information about this error, try `rustc --explain E0432`.\n"
    "error: could not compile `ferrule-core` (test \"roundtrip\") due to 1 previous error\n"
    "warning: build failed, waiting for other jobs to finish..."
)

_EF_NO_DBCONTEXT = (
    "Build started...\nBuild succeeded.\n"
    "Unable to create a 'DbContext' of type ''. The exception 'Unable to resolve service for type "
    "'Microsoft.EntityFrameworkCore.DbContextOptions`1[Millrace.Data.MillraceDbContext]' while attempting to activate "
    "'Millrace.Data.MillraceDbContext'.' was thrown while attempting to create an instance. For the different patterns "
    "supported at design time, see https://go.microsoft.com/fwlink/?linkid=851728"
)

_MVN_NOT_IN_CENTRAL = (
    "[INFO] Scanning for projects...\n[INFO] \n[INFO] -----------------------< com.keelson:keelson-app >------------------------\n"
    "[INFO] Building keelson-app 4.2.0-SNAPSHOT\n[INFO]   from pom.xml\n[INFO] --------------------------------[ jar ]---------------------------------\n"
    "[WARNING] The POM for com.keelson:keelson-proto:jar:2.3.0 is missing, no dependency information available\n"
    "[INFO] ------------------------------------------------------------------------\n[INFO] BUILD FAILURE\n"
    "[INFO] ------------------------------------------------------------------------\n"
    "[ERROR] Failed to execute goal on project keelson-app: Could not resolve dependencies for project "
    "com.keelson:keelson-app:jar:4.2.0-SNAPSHOT: The following artifacts could not be resolved: "
    "com.keelson:keelson-proto:jar:2.3.0 (absent): com.keelson:keelson-proto:jar:2.3.0 was not found in "
    "https://repo.maven.apache.org/maven2 during a previous attempt. This failure was cached in the local repository and "
    "resolution is not reattempted until the update interval of central has elapsed or updates are forced -> [Help 1]"
)

_HELM_MISSING_DEPS = (
    "Error: An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to "
    "fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: postgresql, redis"
)

_NPM_WORKSPACE_PROTO = (
    "npm error code EUNSUPPORTEDPROTOCOL\nnpm error Unsupported URL Type \"workspace:\": workspace:*\n"
    "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-03T08_14_52_019Z-debug-0.log"
)

INCIDENTS = [
    Incident(
        "ef-tidewater-aws-profile", ERROR_FIX, CC, "tidewater",
        session=[
            U("List what's in the tidewater artifacts bucket, I want to see the last release zips."),
            err("aws s3 ls s3://tidewater-artifacts/releases/", _AWS_NO_CREDS, 253),
            ok("grep '^\\[profile' ~/.aws/config", "[profile tidewater-dev]\n[profile tidewater-prod]"),
            ok("aws s3 ls s3://tidewater-artifacts/releases/ --profile tidewater-dev",
               "2026-02-24 16:02:11   18233410 tidewater-1.14.0.zip\n2026-02-28 10:47:39   18240977 tidewater-1.14.1.zip\n"
               "2026-03-02 09:12:05   18301552 tidewater-1.15.0.zip"),
            A("The newest release zip is tidewater-1.15.0.zip (2 March). There are no default credentials on this "
              "machine; the AWS CLI only works with the named profile tidewater-dev."),
        ],
        mistake="aws s3 ls s3://tidewater-artifacts/releases/",
        lesson="tidewater: the AWS CLI has no default credentials here; pass --profile tidewater-dev (or AWS_PROFILE=tidewater-dev) to every aws command.",
        warn=[same("aws s3 ls s3://tidewater-artifacts/releases/"),
              reword("aws s3 cp build/tidewater-1.15.1.zip s3://tidewater-artifacts/releases/"),
              reword("aws ecr describe-repositories --region eu-west-1")],
        silent=[fix("aws s3 cp build/tidewater-1.15.1.zip s3://tidewater-artifacts/releases/ --profile tidewater-dev"),
                fix("AWS_PROFILE=tidewater-dev aws ecr describe-repositories --region eu-west-1"),
                other("aws --version"), help_("aws s3 ls help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-ferrule-test-features", ERROR_FIX, CODEX, "ferrule",
        session=[
            U("Run the ferrule-core tests, I touched the JSON round-trip."),
            err("cargo test -p ferrule-core", _CARGO_FEATURE_GATED, 101),
            ok("grep -n -A4 '^\\[features\\]' crates/ferrule-core/Cargo.toml",
               '21:[features]\n22-default = []\n23-serde = ["dep:serde", "dep:serde_json"]\n24-mmap = ["dep:memmap2"]'),
            ok("cargo test -p ferrule-core --all-features",
               "   Compiling ferrule-core v0.6.2 (/home/dev/ferrule/crates/ferrule-core)\n"
               "    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.41s\n"
               "     Running unittests src/lib.rs (target/debug/deps/ferrule_core-8d1c2b4a6e0f3957)\n\n"
               "running 41 tests\n.........................................\n"
               "test result: ok. 41 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s\n\n"
               "     Running tests/roundtrip.rs (target/debug/deps/roundtrip-2a9f7c1e5b3d8604)\n\nrunning 6 tests\n......\n"
               "test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s"),
            A("All 47 tests pass. The integration tests use feature-gated modules (serde, mmap), so the tests only "
              "compile with --all-features."),
        ],
        mistake="cargo test -p ferrule-core",
        lesson="ferrule: the tests use feature-gated modules (serde, mmap); run cargo test with --all-features or they don't compile (E0432 'configured out').",
        warn=[same("cargo test -p ferrule-core"), reword("cargo test --test roundtrip"),
              reword("cargo test --workspace -- --nocapture")],
        silent=[fix("cargo test --all-features --test roundtrip"), fix("cargo test --workspace --all-features -- --nocapture"),
                other("cargo build --release"), help_("cargo test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-hopper-gotoolchain", ERROR_FIX, GEMINI, "hopper",
        session=[
            U("Build hopper, I pulled main."),
            err("go build ./...", "go: go.mod requires go >= 1.23.0 (running go 1.21.6; GOTOOLCHAIN=local)"),
            ok("go env GOTOOLCHAIN", "local"),
            ok("GOTOOLCHAIN=go1.23.2 go build ./...",
               "go: downloading go1.23.2 (linux/amd64)\n"),
            A("It builds. The system Go is 1.21 and GOTOOLCHAIN is pinned to local in the global env, so hopper's Go "
              "commands need GOTOOLCHAIN=go1.23.2 in front."),
        ],
        mistake="go build ./...",
        lesson="hopper needs Go 1.23 but the system go is 1.21 with GOTOOLCHAIN=local; prefix go commands with GOTOOLCHAIN=go1.23.2.",
        warn=[same("go build ./..."), reword("go test -race ./internal/queue/..."), reword("go run ./cmd/hopper --config configs/dev.yaml")],
        silent=[fix("GOTOOLCHAIN=go1.23.2 go test -race ./internal/queue/..."),
                fix("GOTOOLCHAIN=go1.23.2 go run ./cmd/hopper --config configs/dev.yaml"),
                other("go env GOPATH"), help_("go help toolchain")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-gantry-kube-context", ERROR_FIX, CC, "gantry",
        session=[
            U("Are the payments pods healthy on staging?"),
            err("kubectl get pods -n payments",
                "E0303 09:14:02.118233   48211 memcache.go:265] couldn't get current server API group list: Get "
                "\"https://127.0.0.1:38211/api?timeout=32s\": dial tcp 127.0.0.1:38211: connect: connection refused\n"
                "The connection to the server 127.0.0.1:38211 was refused - did you specify the right host or port?"),
            ok("kubectl config get-contexts",
               "CURRENT   NAME             CLUSTER          AUTHINFO         NAMESPACE\n"
               "          gantry-prod      gantry-prod      gantry-prod      \n"
               "          gantry-staging   gantry-staging   gantry-staging   \n"
               "*         kind-local       kind-local       kind-local       "),
            ok("kubectl --context gantry-staging get pods -n payments",
               "NAME                            READY   STATUS    RESTARTS   AGE\n"
               "payments-api-7f8c9d6b5-2xkqp    1/1     Running   0          3h12m\n"
               "payments-api-7f8c9d6b5-vm4rt    1/1     Running   0          3h12m\n"
               "payments-worker-5d9b8c7f-kq8zn  1/1     Running   2          3h12m"),
            A("All three payments pods are Running on staging. The current context on this machine is the local kind "
              "cluster, so gantry's kubectl calls need --context gantry-staging (or gantry-prod)."),
        ],
        mistake="kubectl get pods -n payments",
        lesson="gantry: the default kube context here is kind-local; always pass --context gantry-staging / gantry-prod to kubectl.",
        warn=[same("kubectl get pods -n payments"), reword("kubectl -n payments logs deploy/payments-api --tail=50"),
              reword("kubectl describe deployment payments-worker --namespace=payments")],
        silent=[fix("kubectl --context gantry-staging -n payments logs deploy/payments-api --tail=50"),
                fix("kubectl describe deployment payments-worker --namespace=payments --context=gantry-prod"),
                other("kubectl config get-contexts"), help_("kubectl logs --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-copperleaf-db-up-first", ERROR_FIX, CC, "copperleaf",
        session=[
            U("Run the invoice model tests."),
            err("bin/rails test test/models/invoice_test.rb",
                "Running 14 tests in a single process (parallelization threshold is 50)\nRun options: --seed 30962\n\n"
                "# Running:\n\nE\n\nError:\nInvoiceTest#test_total_includes_tax:\n"
                "ActiveRecord::ConnectionNotEstablished: connection to server at \"127.0.0.1\", port 5432 failed: Connection refused\n"
                "\tIs the server running on that host and accepting TCP/IP connections?\n\n"
                "    test/models/invoice_test.rb:5:in `block in <class:InvoiceTest>'\n\n"
                "14 runs, 0 assertions, 0 failures, 14 errors, 0 skips"),
            ok("docker compose ps --all", "NAME              IMAGE         COMMAND                  SERVICE   STATUS\n"
               "copperleaf-db-1   postgres:16   \"docker-entrypoint.s…\"   db        Exited (0) 14 hours ago"),
            ok("docker compose up -d db && bin/rails test test/models/invoice_test.rb",
               "[+] Running 1/1\n ✔ Container copperleaf-db-1  Started\n"
               "Running 14 tests in a single process (parallelization threshold is 50)\nRun options: --seed 5518\n\n"
               "# Running:\n\n..............\n\nFinished in 0.914s, 15.31 runs/s, 38.29 assertions/s.\n"
               "14 runs, 35 assertions, 0 failures, 0 errors, 0 skips"),
            A("14 runs, 0 failures. The Postgres for copperleaf runs in compose and is stopped by default; start it "
              "with `docker compose up -d db` before running tests or migrations."),
        ],
        mistake="bin/rails test test/models/invoice_test.rb",
        lesson="copperleaf: Postgres runs in compose and is usually stopped; run docker compose up -d db before bin/rails test / db:migrate.",
        warn=[same("bin/rails test test/models/invoice_test.rb"), reword("bin/rails test test/controllers"),
              reword("bin/rails db:migrate")],
        silent=[fix("docker compose up -d db && bin/rails test test/controllers"),
                fix("docker compose up -d db && bin/rails db:migrate"),
                other("bin/rails routes -g invoices"), help_("bin/rails test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-sundial-uv-run", ERROR_FIX, CODEX, "sundial",
        session=[
            U("Backfill the readings table from the start of the year."),
            err("python scripts/backfill.py --since 2026-01-01",
                "Traceback (most recent call last):\n  File \"/home/dev/sundial/scripts/backfill.py\", line 7, in <module>\n"
                "    from sqlalchemy import select\nModuleNotFoundError: No module named 'sqlalchemy'"),
            ok("ls", "README.md\nalembic\nalembic.ini\npyproject.toml\nscripts\nsundial\ntests\nuv.lock"),
            ok("uv run scripts/backfill.py --since 2026-01-01",
               "backfill: 2026-01-01 .. 2026-03-02\nloaded 61 days, 1,463,220 readings\ndone in 48.2s"),
            A("Backfilled 61 days (1.46 M readings). sundial's dependencies live in the uv-managed .venv; the system "
              "python has none of them, so scripts go through `uv run`."),
        ],
        mistake="python scripts/backfill.py --since 2026-01-01",
        lesson="sundial: dependencies live in the uv-managed venv; run scripts and modules with uv run (uv run scripts/x.py, uv run python -m sundial...), never bare python.",
        warn=[same("python scripts/backfill.py --since 2026-01-01"), reword("python3 -m sundial.cli export --month 2026-02"),
              reword("python scripts/reindex.py --table readings")],
        silent=[fix("uv run python -m sundial.cli export --month 2026-02"), fix("uv run scripts/reindex.py --table readings"),
                other("python3 --version"), help_("uv run --help")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "ef-wayfarer-pnpm-workspace", ERROR_FIX, GEMINI, "wayfarer",
        session=[
            U("Install the dependencies, I just cloned wayfarer."),
            err("npm install", _NPM_WORKSPACE_PROTO),
            ok("ls", "apps\npackage.json\npackages\npnpm-lock.yaml\npnpm-workspace.yaml\nturbo.json"),
            ok("pnpm install",
               "Scope: all 7 workspace projects\nLockfile is up to date, resolution step is skipped\n"
               "Packages: +1184\n++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n"
               "Progress: resolved 1184, reused 1120, downloaded 64, added 1184, done\nDone in 21.8s"),
            A("Installed. wayfarer is a pnpm workspace (workspace:* dependencies, pnpm-lock.yaml); npm can't resolve it."),
        ],
        mistake="npm install",
        lesson="wayfarer is a pnpm workspace (workspace:* deps): use pnpm install / pnpm add, never npm install or npm ci.",
        warn=[same("npm install"), reword("npm i -D vitest@1.6.0"), reword("npm ci")],
        silent=[fix("pnpm add -D vitest@1.6.0 --filter @wayfarer/web"), fix("pnpm install --frozen-lockfile"),
                other("npm view vitest version"), help_("pnpm install --help")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "ef-millrace-ef-startup-project", ERROR_FIX, CC, "millrace",
        session=[
            U("Add a migration for the new Invoice.DueDate column."),
            err("dotnet ef migrations add AddInvoiceDueDate --project src/Millrace.Data", _EF_NO_DBCONTEXT),
            ok("grep -rn AddDbContext src/*/Program.cs",
               "src/Millrace.Api/Program.cs:21:builder.Services.AddDbContext<MillraceDbContext>(o => o.UseNpgsql(builder.Configuration.GetConnectionString(\"Main\")));"),
            ok("dotnet ef migrations add AddInvoiceDueDate --project src/Millrace.Data --startup-project src/Millrace.Api",
               "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'"),
            A("Migration AddInvoiceDueDate is in src/Millrace.Data/Migrations. The DbContext is only configured in the "
              "API's Program.cs, so the EF tools need --startup-project src/Millrace.Api."),
        ],
        mistake="dotnet ef migrations add AddInvoiceDueDate --project src/Millrace.Data",
        lesson="millrace: dotnet ef needs --startup-project src/Millrace.Api (the DbContext is configured there) next to --project src/Millrace.Data.",
        warn=[same("dotnet ef migrations add AddInvoiceDueDate --project src/Millrace.Data"),
              reword("dotnet ef database update --project src/Millrace.Data"),
              reword("cd src/Millrace.Data && dotnet ef migrations remove")],
        silent=[fix("dotnet ef database update --project src/Millrace.Data --startup-project src/Millrace.Api"),
                fix("dotnet ef migrations remove -p src/Millrace.Data -s src/Millrace.Api"),
                other("dotnet build Millrace.sln"), help_("dotnet ef migrations add --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-keelson-mvn-settings", ERROR_FIX, CC, "keelson",
        session=[
            U("Package keelson-app, skip the tests for now."),
            err("mvn package -DskipTests", _MVN_NOT_IN_CENTRAL),
            ok("ls -a", ".\n..\n.git\n.gitignore\nREADME.md\nkeelson-app\nkeelson-common\npom.xml\nsettings-internal.xml"),
            ok("mvn -s settings-internal.xml package -DskipTests -U",
               "[INFO] Downloading from keelson-nexus: https://nexus.keelson.internal/repository/maven-releases/com/keelson/keelson-proto/2.3.0/keelson-proto-2.3.0.jar\n"
               "[INFO] Downloaded from keelson-nexus: https://nexus.keelson.internal/repository/maven-releases/com/keelson/keelson-proto/2.3.0/keelson-proto-2.3.0.jar (212 kB at 1.4 MB/s)\n"
               "[INFO] Building jar: /home/dev/keelson/keelson-app/target/keelson-app-4.2.0-SNAPSHOT.jar\n"
               "[INFO] BUILD SUCCESS\n[INFO] Total time:  24.118 s"),
            A("Packaged. keelson-proto is only in the internal Nexus; the repo's settings-internal.xml points Maven at "
              "it, so every mvn call needs `-s settings-internal.xml`."),
        ],
        mistake="mvn package -DskipTests",
        lesson="keelson: internal artifacts (keelson-proto) are only in the Nexus; always run mvn -s settings-internal.xml …",
        warn=[same("mvn package -DskipTests"), reword("mvn clean install"),
              reword("mvn -pl keelson-app dependency:resolve")],
        silent=[fix("mvn -s settings-internal.xml clean install"),
                fix("mvn -pl keelson-app -s settings-internal.xml dependency:resolve"),
                other("mvn -v"), help_("mvn --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-ledgerline-mise-elixir", ERROR_FIX, GEMINI, "ledgerline",
        session=[
            U("Compile ledgerline and tell me if there are warnings."),
            err("mix compile",
                "** (Mix) You're trying to run :ledgerline on Elixir v1.14.0 but it has declared in its mix.exs file it "
                "supports only Elixir ~> 1.16"),
            ok("cat .tool-versions", "erlang 26.2.2\nelixir 1.16.1-otp-26"),
            ok("mise exec -- mix compile",
               "Compiling 84 files (.ex)\nwarning: variable \"opts\" is unused (if the variable is not meant to be used, prefix it with an underscore)\n"
               "  │\n  23 │   def post(entry, opts) do\n  │                   ~~~~\n  │\n"
               "  └─ lib/ledgerline/journal.ex:23:19: Ledgerline.Journal.post/2\n\nGenerated ledgerline app"),
            A("It compiles with one warning: unused `opts` in Ledgerline.Journal.post/2 (lib/ledgerline/journal.ex:23). "
              "This shell's elixir is the system 1.14; the project's 1.16 (.tool-versions) is only used through "
              "`mise exec --`."),
        ],
        mistake="mix compile",
        lesson="ledgerline: the shell's elixir is the system 1.14; run mix through mise (mise exec -- mix …) to get the project's Elixir 1.16.",
        warn=[same("mix compile"), reword("mix test test/ledgerline/journal_test.exs"), reword("mix deps.get")],
        silent=[fix("mise exec -- mix test test/ledgerline/journal_test.exs"), fix("mise exec -- mix deps.get"),
                other("mise ls"), help_("mix help compile")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-bramble-bastion", ERROR_FIX, CODEX, "bramble",
        session=[
            U("Deploy the built site in dist/ to web1."),
            err("rsync -avz dist/ deploy@web1.bramble.net:/srv/bramble/",
                "ssh: connect to host web1.bramble.net port 22: Connection timed out\n"
                "rsync: connection unexpectedly closed (0 bytes received so far) [sender]\n"
                "rsync error: unexplained error (code 255) at io.c(231) [sender=3.2.7]", 255),
            ok("grep -n -i bastion README.md", "41:All hosts are only reachable through bastion.bramble.net (ssh -J)."),
            ok("rsync -avz -e 'ssh -J bastion.bramble.net' dist/ deploy@web1.bramble.net:/srv/bramble/",
               "sending incremental file list\n./\nindex.html\nassets/app-3f9a2c.js\nassets/app-8e1d0b.css\n\n"
               "sent 412,883 bytes  received 96 bytes  91,773.11 bytes/sec\ntotal size is 1,208,441  speedup is 2.93"),
            A("Deployed to web1. bramble's hosts are only reachable through the bastion, so ssh/rsync/scp need "
              "`-J bastion.bramble.net`."),
        ],
        mistake="rsync -avz dist/ deploy@web1.bramble.net:/srv/bramble/",
        lesson="bramble: hosts are only reachable via the bastion; use ssh -J bastion.bramble.net (rsync -e 'ssh -J bastion.bramble.net', scp -J …).",
        warn=[same("rsync -avz dist/ deploy@web1.bramble.net:/srv/bramble/"),
              reword("ssh deploy@web2.bramble.net 'systemctl status bramble'"),
              reword("scp backups/site.tar.gz deploy@web2.bramble.net:/tmp/")],
        silent=[fix("ssh -J bastion.bramble.net deploy@web2.bramble.net 'systemctl status bramble'"),
                fix("scp -J bastion.bramble.net backups/site.tar.gz deploy@web2.bramble.net:/tmp/"),
                other("rsync -av dist/ /tmp/bramble-preview/"), help_("rsync --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-stormglass-helm-dep-build", ERROR_FIX, CC, "stormglass",
        session=[
            U("Deploy the payments chart to staging with the staging values."),
            err("helm upgrade --install payments charts/payments -n payments -f charts/payments/values-staging.yaml",
                _HELM_MISSING_DEPS),
            ok("cat .gitignore", "charts/*/charts/\n*.tgz"),
            ok("helm dependency build charts/payments && helm upgrade --install payments charts/payments -n payments "
               "-f charts/payments/values-staging.yaml",
               "Saving 2 charts\nDownloading postgresql from repo oci://registry-1.docker.io/bitnamicharts\n"
               "Downloading redis from repo oci://registry-1.docker.io/bitnamicharts\nDeleting outdated charts\n"
               "Release \"payments\" has been upgraded. Happy Helming!\nNAME: payments\nLAST DEPLOYED: Tue Mar  3 10:02:41 2026\n"
               "NAMESPACE: payments\nSTATUS: deployed\nREVISION: 18"),
            A("Deployed revision 18. The chart's subcharts (postgresql, redis) are gitignored, so `helm dependency "
              "build charts/payments` has to run before install/upgrade/template."),
        ],
        mistake="helm upgrade --install payments charts/payments -n payments -f charts/payments/values-staging.yaml",
        lesson="stormglass: charts/*/charts is gitignored; run helm dependency build charts/<chart> before helm install/upgrade/template of it.",
        warn=[same("helm upgrade --install payments charts/payments -n payments -f charts/payments/values-staging.yaml"),
              reword("helm template payments charts/payments -f charts/payments/values-prod.yaml"),
              reword("helm install payments-preview ./charts/payments --namespace preview --set image.tag=pr-412")],
        silent=[fix("helm dependency build charts/payments && helm template payments charts/payments -f charts/payments/values-prod.yaml"),
                other("helm list -n payments"), help_("helm dependency build --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-sundial-psql-port", ERROR_FIX, GEMINI, "sundial",
        session=[
            U("Which tables are in the local sundial database?"),
            err("psql -h localhost -U sundial -d sundial_dev -c '\\dt'",
                "psql: error: connection to server at \"localhost\" (::1), port 5432 failed: Connection refused\n"
                "\tIs the server running on that host and accepting TCP/IP connections?\n"
                "connection to server at \"localhost\" (127.0.0.1), port 5432 failed: Connection refused\n"
                "\tIs the server running on that host and accepting TCP/IP connections?", 2),
            ok("docker compose port postgres 5432", "0.0.0.0:5433"),
            ok("psql -h localhost -p 5433 -U sundial -d sundial_dev -c '\\dt'",
               "             List of relations\n Schema |      Name       | Type  |  Owner  \n--------+-----------------+-------+---------\n"
               " public | alembic_version | table | sundial\n public | readings        | table | sundial\n"
               " public | sensors         | table | sundial\n public | sites           | table | sundial\n(4 rows)"),
            A("Four tables: alembic_version, readings, sensors, sites. The compose Postgres is published on 5433 "
              "(5432 is free on this machine), so psql needs -p 5433."),
        ],
        mistake="psql -h localhost -U sundial -d sundial_dev -c '\\dt'",
        lesson="sundial: the local Postgres (compose) listens on port 5433, not 5432; pass -p 5433 to psql / pg_dump.",
        warn=[same("psql -h localhost -U sundial -d sundial_dev -c '\\dt'"),
              reword("psql -U sundial -h 127.0.0.1 sundial_dev -f sql/seed.sql"),
              reword("pg_dump -h localhost -U sundial sundial_dev > /tmp/sundial_dev.sql")],
        silent=[fix("psql -h 127.0.0.1 -p 5433 -U sundial sundial_dev -f sql/seed.sql"),
                fix("pg_dump -h localhost --port=5433 -U sundial sundial_dev > /tmp/sundial_dev.sql"),
                other("psql --version"), help_("psql --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-hopper-compose-file", ERROR_FIX, CODEX, "hopper",
        session=[
            U("Bring up hopper's local stack."),
            err("docker compose up -d", "no configuration file provided: not found"),
            ok("ls *.yaml", "compose.dev.yaml\ncompose.ci.yaml"),
            ok("docker compose -f compose.dev.yaml up -d",
               "[+] Running 4/4\n ✔ Network hopper_default    Created\n ✔ Container hopper-redis-1   Started\n"
               " ✔ Container hopper-nats-1    Started\n ✔ Container hopper-api-1     Started"),
            A("The stack is up (redis, nats, api). There is no default compose.yaml in hopper — the dev stack is "
              "compose.dev.yaml, so compose commands need `-f compose.dev.yaml`."),
        ],
        mistake="docker compose up -d",
        lesson="hopper has no default compose file; pass -f compose.dev.yaml to every docker compose command.",
        warn=[same("docker compose up -d"), reword("docker compose logs -f api"), reword("docker compose exec api sh")],
        silent=[fix("docker compose -f compose.dev.yaml logs -f api"), fix("docker compose --file compose.dev.yaml exec api sh"),
                other("docker ps --format '{{.Names}}'"), help_("docker compose --help")],
        variants=("diagnostic",),
    ),
]
