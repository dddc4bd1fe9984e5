"""Sealed split, shape 1 (part b): a call fails with an error, a changed call works."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    ERROR_FIX,
    GEMINI,
    A,
    Incident,
    U,
    err,
    fix,
    help_,
    ok,
    other,
    reword,
    same,
)
from ._eco import eco

INCIDENTS = [
    eco("dotnet", Incident(
        "s-ef-sundial-test-needs-solution", ERROR_FIX, CC, "sundial-ledger",
        session=[
            U("Run the unit tests."),
            err("dotnet test",
                "MSBUILD : error MSB1011: Specify which project or solution file to use because this folder contains more "
                "than one project or solution file.", 1),
            ok("ls *.sln *.csproj", "Sundial.Migrations.csproj\nSundial.sln"),
            ok("dotnet test Sundial.sln",
               "  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
               "  Sundial.Core -> /home/dev/sundial-ledger/src/Sundial.Core/bin/Debug/net8.0/Sundial.Core.dll\n"
               "  Sundial.Core.Tests -> /home/dev/sundial-ledger/tests/Sundial.Core.Tests/bin/Debug/net8.0/Sundial.Core.Tests.dll\n"
               "Test run for /home/dev/sundial-ledger/tests/Sundial.Core.Tests/bin/Debug/net8.0/Sundial.Core.Tests.dll (.NETCoreApp,Version=v8.0)\n"
               "Passed!  - Failed:     0, Passed:   146, Skipped:     0, Total:   146, Duration: 3 s - Sundial.Core.Tests.dll (net8.0)"),
        ],
        mistake="dotnet test",
        lesson="sundial-ledger's root has a .sln and a .csproj: name the solution, dotnet test Sundial.sln.",
        warn=[same("dotnet test"), reword("dotnet test --filter Category=Unit --no-restore")],
        silent=[fix("dotnet test Sundial.sln --filter Category=Unit --no-restore"), other("dotnet --list-sdks"),
                other("dotnet build src/Sundial.Core/Sundial.Core.csproj")],
        variants=("intervening",),
    )),
    eco("database", Incident(
        "s-ef-quillpress-psql-docker-port", ERROR_FIX, GEMINI, "quillpress",
        session=[
            U("How many posts are still unpublished in the dev database?"),
            err("psql -d quillpress_dev -c \"select count(*) from posts where published_at is null\"",
                "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: "
                "No such file or directory\n\tIs the server running locally and accepting connections on that socket?", 2),
            ok("docker compose ps db", "NAME             IMAGE         SERVICE   STATUS        PORTS\n"
                                       "quillpress-db-1  postgres:16   db        Up 3 hours    0.0.0.0:5434->5432/tcp"),
            ok("psql -h localhost -p 5434 -d quillpress_dev -c \"select count(*) from posts where published_at is null\"",
               " count \n-------\n    17\n(1 row)"),
        ],
        mistake="psql -d quillpress_dev -c \"select count(*) from posts where published_at is null\"",
        lesson="quillpress's Postgres runs in docker compose on port 5434: psql needs -h localhost -p 5434.",
        warn=[same("psql -d quillpress_dev -c \"select count(*) from posts where published_at is null\""),
              reword("psql quillpress_test -c '\\dt'")],
        silent=[fix("psql -h localhost -p 5434 quillpress_test -c '\\dt'"), other("psql --version"), help_("psql --help")],
        variants=("intervening",),
    )),
    eco("shell", Incident(
        "s-ef-owlpost-publish-needs-vpn", ERROR_FIX, CC, "owlpost",
        session=[
            U("Publish the newsletter build to the mirror."),
            err("./publish.sh",
                "==> owlpost publish (channel: stable)\n==> checking mirror reachability: mirror.int.owlpost.net\n"
                "error: not connected to the VPN (run vpn up first)", 3),
            ok("vpn up && ./publish.sh",
               "vpn: connected to corp-eu (10.42.0.17)\n==> owlpost publish (channel: stable)\n"
               "==> checking mirror reachability: mirror.int.owlpost.net ok\n==> uploading 214 files (38.2 MB)\n==> published build 2026.03.02-1"),
        ],
        mistake="./publish.sh",
        lesson="owlpost: ./publish.sh needs the VPN; run vpn up && ./publish.sh.",
        warn=[same("./publish.sh"), reword("bash ./publish.sh --channel beta")],
        silent=[fix("vpn up && ./publish.sh --channel beta"), other("vpn status"), help_("./publish.sh --help")],
        variants=("diagnostic",),
    )),
    eco("shell", Incident(
        "s-ef-owlpost-make-docs-in-site", ERROR_FIX, CODEX, "owlpost",
        session=[
            U("Rebuild the docs site."),
            err("make docs", "make: *** No rule to make target 'docs'.  Stop.", 2),
            ok("ls site", "Makefile\ncontent\nlayouts\nstatic"),
            ok("make -C site docs",
               "make: Entering directory '/home/dev/owlpost/site'\nhugo --minify -d ../public/docs\n"
               "Total in 812 ms\nmake: Leaving directory '/home/dev/owlpost/site'"),
        ],
        mistake="make docs",
        lesson="owlpost: the docs target lives in site/Makefile; run make -C site docs.",
        warn=[same("make docs"), reword("make docs SERVE=1")],
        silent=[fix("make -C site docs SERVE=1"), fix("cd site && make docs"), other("make lint"),
                other("make -C site clean")],
        variants=("intervening",),
    )),
    eco("git", Incident(
        "s-ef-heronry-pull-divergent", ERROR_FIX, CC, "heronry",
        session=[
            U("Get the latest main before you start on the search page."),
            err("git pull",
                "hint: You have divergent branches and need to specify how to reconcile them.\n"
                "hint: You can do so by running one of the following commands sometime before\nhint: your next pull:\nhint:\n"
                "hint:   git config pull.rebase false  # merge\nhint:   git config pull.rebase true   # rebase\n"
                "hint:   git config pull.ff only       # fast-forward only\nhint:\n"
                "fatal: Need to specify how to reconcile divergent branches.", 128),
            ok("git pull --rebase",
               "Successfully rebased and updated refs/heads/main."),
            A("Main had diverged from my local commit; I pulled with `--rebase` so history stays linear, as the repo asks."),
        ],
        mistake="git pull",
        lesson="heronry: plain git pull fails on divergent branches; always git pull --rebase (linear history).",
        warn=[same("git pull"), reword("git pull origin main")],
        silent=[fix("git pull --rebase origin main"), other("git fetch origin"), other("git log --oneline -5")],
    )),
    eco("cloud-cli", Incident(
        "s-ef-nimbus-functions-runtime", ERROR_FIX, GEMINI, "nimbus-etl",
        session=[
            U("Redeploy the ingest function with the new parser."),
            err("gcloud functions deploy ingest --runtime python39 --trigger-http --region europe-west1",
                "ERROR: (gcloud.functions.deploy) INVALID_ARGUMENT: Runtime \"python39\" is decommissioned and no longer "
                "allowed. Please use the latest Python runtime.", 1),
            ok("gcloud functions deploy ingest --runtime python312 --trigger-http --region europe-west1",
               "Preparing function...done.\nDeploying function (may take a while - up to 2 minutes)...done.\n"
               "availableMemoryMb: 256\nentryPoint: ingest\nruntime: python312\nstatus: ACTIVE"),
        ],
        mistake="gcloud functions deploy ingest --runtime python39 --trigger-http --region europe-west1",
        lesson="nimbus-etl: the python39 Cloud Functions runtime is decommissioned; deploy with --runtime python312.",
        warn=[same("gcloud functions deploy ingest --runtime python39 --trigger-http --region europe-west1"),
              reword("gcloud functions deploy ingest-backfill --trigger-topic backfill --runtime=python39 --region=europe-west1")],
        silent=[fix("gcloud functions deploy ingest-backfill --trigger-topic backfill --runtime=python312 --region=europe-west1"),
                other("gcloud functions list --regions europe-west1"), help_("gcloud functions deploy --help")],
    )),
    eco("docker", Incident(
        "s-ef-lanternd-compose-v1-missing", ERROR_FIX, CC, "lanternd",
        session=[
            U("Start the stack so we can test the webhook receiver."),
            err("docker-compose up -d", "bash: docker-compose: command not found", 127),
            ok("docker compose up -d",
               "[+] Running 3/3\n ✔ Container lanternd-db-1      Started\n ✔ Container lanternd-redis-1   Started\n"
               " ✔ Container lanternd-api-1     Started"),
        ],
        mistake="docker-compose up -d",
        lesson="lanternd's machine has only Compose v2: use docker compose (no hyphen).",
        warn=[same("docker-compose up -d"), reword("docker-compose logs -f api")],
        silent=[fix("docker compose logs -f api"), other("docker version"), other("docker compose ps")],
        variants=("other_program",),
    )),
    eco("python", Incident(
        "s-ef-tidewatch-bare-pytest", ERROR_FIX, CODEX, "tidewatch",
        session=[
            U("Run the tide prediction tests."),
            err("pytest tests/test_tides.py",
                "ImportError while loading conftest '/home/dev/tidewatch/tests/conftest.py'.\n"
                "tests/conftest.py:3: in <module>\n    from tidewatch.stations import Station\n"
                "E   ModuleNotFoundError: No module named 'tidewatch'", 4),
            ok("uv run pytest tests/test_tides.py",
               "============================= test session starts ==============================\n"
               "platform linux -- Python 3.12.8, pytest-8.3.4, pluggy-1.5.0\nrootdir: /home/dev/tidewatch\n"
               "collected 23 items\n\ntests/test_tides.py .......................                              [100%]\n\n"
               "============================== 23 passed in 0.84s =============================="),
        ],
        mistake="pytest tests/test_tides.py",
        lesson="tidewatch: the system pytest cannot import the package; run tests with uv run pytest.",
        warn=[same("pytest tests/test_tides.py"), reword("python -m pytest -x tests/test_stations.py")],
        silent=[fix("uv run pytest -x tests/test_stations.py"), other("pytest --version"), help_("pytest --help")],
        variants=("other_program",),
    )),
    eco("python", Incident(
        "s-ef-nimbus-pip-user-in-venv", ERROR_FIX, CC, "nimbus-etl",
        session=[
            U("Pin google-cloud-bigquery to 3.25 in the venv, the 3.27 release breaks our schema loader."),
            err("pip install --user google-cloud-bigquery==3.25.0",
                "ERROR: Can not perform a '--user' install. User site-packages are not visible in this virtualenv.", 1),
            ok("pip install google-cloud-bigquery==3.25.0",
               "Collecting google-cloud-bigquery==3.25.0\n  Using cached google_cloud_bigquery-3.25.0-py2.py3-none-any.whl (239 kB)\n"
               "Installing collected packages: google-cloud-bigquery\n  Attempting uninstall: google-cloud-bigquery\n"
               "    Found existing installation: google-cloud-bigquery 3.27.0\n    Uninstalling google-cloud-bigquery-3.27.0:\n"
               "      Successfully uninstalled google-cloud-bigquery-3.27.0\nSuccessfully installed google-cloud-bigquery-3.25.0"),
        ],
        mistake="pip install --user google-cloud-bigquery==3.25.0",
        lesson="nimbus-etl installs into its .venv: drop --user from pip install (user site-packages are invisible in a virtualenv).",
        warn=[same("pip install --user google-cloud-bigquery==3.25.0"), reword("pip install --user -r requirements-dev.txt")],
        silent=[fix("pip install -r requirements-dev.txt"), other("pip list --outdated"), other("pip freeze")],
    )),
    eco("rust", Incident(
        "s-ef-ferrocask-no-offline", ERROR_FIX, GEMINI, "ferrocask",
        session=[
            U("Build ferrocask after the tokio bump."),
            err("cargo build --offline",
                "error: failed to select a version for the requirement `tokio = \"^1.43\"`\n"
                "candidate versions found which didn't match: 1.41.1, 1.40.0, 1.39.3, ...\n"
                "location searched: crates.io index\nrequired by package `ferrocask v0.7.2 (/home/dev/ferrocask)`\n"
                "As a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures, "
                "if this error is too confusing you may wish to retry without the offline flag.", 101),
            ok("cargo build",
               "    Updating crates.io index\n  Downloaded tokio v1.43.0\n   Compiling tokio v1.43.0\n"
               "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 38.10s"),
        ],
        mistake="cargo build --offline",
        lesson="ferrocask: the local cargo cache is stale, --offline cannot resolve new versions; build without --offline.",
        warn=[same("cargo build --offline"), reword("cargo check --offline --all-targets")],
        silent=[fix("cargo check --all-targets"), other("cargo build --release"), help_("cargo build --help")],
        variants=("diagnostic",),
    )),
    eco("java", Incident(
        "s-ef-quayside-flyway-out-of-order", ERROR_FIX, CODEX, "quayside",
        session=[
            U("Apply the new migration for the berth schedule table to the dev database."),
            err("mvn flyway:migrate",
                "[INFO] --- flyway:10.17.1:migrate (default-cli) @ quayside ---\n"
                "[INFO] Database: jdbc:postgresql://localhost:5432/quayside_dev (PostgreSQL 16.2)\n"
                "[ERROR] Failed to execute goal org.flywaydb:flyway-maven-plugin:10.17.1:migrate (default-cli) on project quayside: \n"
                "Validate failed: Migrations have failed validation\n"
                "Detected resolved migration not applied to database: 2.4.\n"
                "To ignore this migration, set -ignoreMigrationPatterns='*:ignored'. To allow executing this migration, set -outOfOrder=true.\n"
                "Need more flexibility with validation rules? Learn more: https://rd.gt/3AbJUZE", 1),
            ok("mvn flyway:migrate -Dflyway.outOfOrder=true",
               "[INFO] Migrating schema \"public\" to version \"2.4 - berth schedule\" [out of order]\n"
               "[INFO] Successfully applied 1 migration to schema \"public\", now at version v2.6 (execution time 00:00.041s)\n[INFO] BUILD SUCCESS"),
            A("Feature branches in quayside land migrations with older version numbers, so the dev DB needs `-Dflyway.outOfOrder=true`."),
        ],
        mistake="mvn flyway:migrate",
        lesson="quayside: branch migrations arrive out of order; run mvn flyway:migrate -Dflyway.outOfOrder=true.",
        warn=[same("mvn flyway:migrate"), reword("mvn -Dflyway.url=jdbc:postgresql://localhost:5432/quayside_test flyway:migrate")],
        silent=[fix("mvn -Dflyway.url=jdbc:postgresql://localhost:5432/quayside_test -Dflyway.outOfOrder=true flyway:migrate"),
                other("mvn flyway:info"), other("mvn -q dependency:tree -Dincludes=org.flywaydb")],
    )),
]
