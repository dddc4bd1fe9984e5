"""Dev split, shape 5: several failing variations, then one that works
(usually with a diagnostic call in between)."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same

_REDIS = "master.orchard-cache.x7k2pq.euw1.cache.amazonaws.com"

_NO_PROJECT = ("Couldn't find a project to run. Ensure a project exists in /home/dev/beacon, or pass the path to the "
               "project using --project.")

_PUSH_DENIED = ("ERROR: Permission to quarry-rs/quarry.git denied to mkowalski.\nfatal: Could not read from remote repository.\n\n"
                "Please make sure you have the correct access rights\nand the repository exists.")

_NO_LOG_GROUP = ("\nAn error occurred (ResourceNotFoundException) when calling the FilterLogEvents operation: "
                 "The specified log group does not exist.")

_CELERY5_A = (
    "You are using `{opt}` as an option of the worker sub-command:\ncelery worker -A celeryapp <...>\n\n"
    "The support for this usage was removed in Celery 5.0. Instead you should use `-A` as a global option:\n"
    "celery -A celeryapp worker <...>\nUsage: celery worker [OPTIONS]\nTry 'celery worker --help' for help.\n\n"
    "Error: No such option: {opt}"
)

_NO_GCC = ("# runtime/cgo\ncgo: C compiler \"{cc}\" not found: exec: \"{cc}\": executable file not found in $PATH\n"
           "FAIL\tgithub.com/acme/lantern/internal/api [build failed]\nFAIL\tgithub.com/acme/lantern/internal/cache [build failed]\n"
           "FAIL\tgithub.com/acme/lantern/internal/store [build failed]\nFAIL\tgithub.com/acme/lantern/internal/tiles [build failed]\nFAIL")

_MSSQL_BANNER = ("SQL Server 2022 will run as non-root by default.\nThis container is running as user mssql.\n"
                 "To learn more visit https://go.microsoft.com/fwlink/?linkid=2099216.\n")
_MSSQL_EULA = (_MSSQL_BANNER +
               "The SQL Server End-User License Agreement (EULA) must be accepted before SQL\n"
               "Server can start. The license terms for this product can be downloaded from\n"
               "http://go.microsoft.com/fwlink/?LinkId=746388.\n\n"
               "You can accept the EULA by specifying the --accept-eula command line option,\n"
               "setting the ACCEPT_EULA environment variable, or using the mssql-conf tool.")
_MSSQL_PW = (_MSSQL_BANNER +
             "2026-03-02 10:31:09.41 Server      Microsoft SQL Server 2022 (RTM-CU12) (KB5033663) - 16.0.4115.5 (X64) \n"
             "...\n2026-03-02 10:31:12.84 spid41s     ERROR: Unable to set system administrator password: Password validation "
             "failed. The password does not meet SQL Server password policy requirements because {why}\n"
             "2026-03-02 10:31:12.86 spid41s     An error occurred during server setup. See previous errors for more information.\n"
             "2026-03-02 10:31:12.89 spid41s     SQL Trace was stopped due to server shutdown. Trace ID = '1'. This is an "
             "informational message only; no user action is required.")

_CRD_TOO_LONG = "The CustomResourceDefinition \"{crd}\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes"

_TS_EXT = (
    "node:internal/modules/esm/get_format:160\n  throw new ERR_UNKNOWN_FILE_EXTENSION(ext, filepath);\n        ^\n\n"
    "TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /home/dev/mosaic/apps/api/scripts/migrate.ts\n"
    "    at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:160:9)\n"
    "    at defaultGetFormat (node:internal/modules/esm/get_format:203:36)\n"
    "    at defaultLoad (node:internal/modules/esm/load:143:22)\n"
    "    at async ModuleLoader.load (node:internal/modules/esm/loader:409:7) {\n  code: 'ERR_UNKNOWN_FILE_EXTENSION'\n}\n\n"
    "Node.js v20.11.1"
)

_PG_COPY_FILE = ("ERROR:  must be superuser or have privileges of the pg_read_server_files role to COPY from a file\n"
                 "HINT:  Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.")

_GRADLE_NO_TESTS = (
    "> Task :common:test FAILED\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
    "Execution failed for task ':common:test'.\n> No tests found for given includes: [{pattern}](--tests filter)\n\n"
    "* Try:\n> Run with --stacktrace option to get the stack trace.\n> Run with --info or --debug option to get more log output.\n"
    "> Run with --scan to get full insights.\n> Get more help at https://help.gradle.org.\n\nBUILD FAILED in 6s\n"
    "9 actionable tasks: 3 executed, 6 up-to-date"
)

_LINK_FAIL = (
    "   Compiling quarry v0.9.0 (/home/dev/quarry)\nerror: linking with `cc` failed: exit status: 1\n  |\n"
    "  = note: LC_ALL=\"C\" PATH=\"/home/dev/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/bin:...\" "
    "VSLANG=\"1033\" \"cc\" \"/tmp/rustcW1b9kQ/symbols.o\" ... \"-nodefaultlibs\"\n"
    "  = note: /usr/bin/ld: /home/dev/quarry/target/aarch64-unknown-linux-gnu/release/deps/quarry-3f9a1c2d7e8b4a60.quarry.4c1d2e3f-cgu.0.rcgu.o: "
    "Relocations in generic ELF (EM: 183)\n"
    "          /usr/bin/ld: /home/dev/quarry/target/aarch64-unknown-linux-gnu/release/deps/quarry-3f9a1c2d7e8b4a60.quarry.4c1d2e3f-cgu.0.rcgu.o: "
    "error adding symbols: file in wrong format\n          collect2: error: ld returned 1 exit status\n\n\n"
    "error: could not compile `quarry` (bin \"quarry\") due to 1 previous error"
)

INCIDENTS = [
    Incident(
        "rl-orchard-redis-tls", RETRY, CC, "orchard",
        session=[
            U("Check whether the staging cache still has the product keys."),
            err(f"redis-cli -h {_REDIS} PING", "Error: Connection reset by peer"),
            err(f"redis-cli -h {_REDIS} -p 6380 PING", f"Could not connect to Redis at {_REDIS}:6380: Connection timed out"),
            err(f"redis-cli -u redis://{_REDIS}:6379 PING", "Error: Connection reset by peer"),
            ok("aws elasticache describe-replication-groups --replication-group-id orchard-cache "
               "--query 'ReplicationGroups[0].[TransitEncryptionEnabled,AuthTokenEnabled]' --output text", "True\tFalse"),
            ok(f"redis-cli --tls -h {_REDIS} -p 6379 -n 2 --scan --pattern 'products/*' | head -3",
               "products/8812-20260301\nproducts/1043-20260227\nproducts/7716-20260301"),
            A("The product keys are there. The ElastiCache group has in-transit encryption on, so redis-cli only gets "
              "through with --tls."),
        ],
        mistake=f"redis-cli -h {_REDIS} PING",
        lesson=f"orchard's staging ElastiCache only accepts TLS: redis-cli needs --tls (redis-cli --tls -h {_REDIS} -p 6379) or a rediss:// URL.",
        warn=[same(f"redis-cli -h {_REDIS} PING"), reword(f"redis-cli -h {_REDIS} -p 6379 -n 2 INFO keyspace"),
              reword(f"redis-cli -u redis://{_REDIS}:6379/2 --scan --pattern 'carts/*'")],
        silent=[fix(f"redis-cli --tls -h {_REDIS} -p 6379 -n 2 INFO keyspace"),
                fix(f"redis-cli -u rediss://{_REDIS}:6379/2 --scan --pattern 'carts/*'"),
                other("redis-cli -h localhost PING")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-beacon-dotnet-run-project", RETRY, CC, "beacon",
        session=[
            U("Start the API locally on port 5080."),
            err("dotnet run --urls http://localhost:5080", _NO_PROJECT),
            err("dotnet run --project Beacon.Api --urls http://localhost:5080", "The provided file path does not exist: Beacon.Api."),
            err("dotnet run Beacon.sln --urls http://localhost:5080", _NO_PROJECT),
            ok("ls src", "Beacon.Api\nBeacon.Data\nBeacon.Domain\nBeacon.Worker"),
            ok("(dotnet run --project src/Beacon.Api --urls http://localhost:5080 > /tmp/beacon-api.log 2>&1 &) && sleep 8 && "
               "curl -s localhost:5080/health", "Healthy"),
            A("The API is up on http://localhost:5080. The projects live under src/, so dotnet run needs "
              "--project src/Beacon.Api."),
        ],
        mistake="dotnet run --urls http://localhost:5080",
        lesson="beacon: the root has only solutions; run the API with dotnet run --project src/Beacon.Api (--project Beacon.Api doesn't exist).",
        warn=[same("dotnet run --urls http://localhost:5080"), reword("dotnet run --project Beacon.Worker"),
              reword("dotnet watch run --urls http://localhost:5080")],
        silent=[fix("dotnet run --project src/Beacon.Worker"), other("dotnet build Beacon.sln"), help_("dotnet run --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-quarry-push-fork", RETRY, GEMINI, "quarry",
        session=[
            U("Push my watch-mode branch so I can open a PR upstream."),
            err("git push origin feature/watch-mode", _PUSH_DENIED, 128),
            err("git push -u origin HEAD", _PUSH_DENIED, 128),
            err("git push https://github.com/quarry-rs/quarry.git feature/watch-mode",
                "remote: Permission to quarry-rs/quarry.git denied to mkowalski.\n"
                "fatal: unable to access 'https://github.com/quarry-rs/quarry.git/': The requested URL returned error: 403", 128),
            ok("git remote -v",
               "fork\tgit@github.com:mkowalski/quarry.git (fetch)\nfork\tgit@github.com:mkowalski/quarry.git (push)\n"
               "origin\tgit@github.com:quarry-rs/quarry.git (fetch)\norigin\tgit@github.com:quarry-rs/quarry.git (push)"),
            ok("git push -u fork feature/watch-mode",
               "Enumerating objects: 23, done.\nCounting objects: 100% (23/23), done.\nWriting objects: 100% (14/14), 4.02 KiB | 4.02 MiB/s, done.\n"
               "remote: \nremote: Create a pull request for 'feature/watch-mode' on GitHub by visiting:\n"
               "remote:      https://github.com/mkowalski/quarry/pull/new/feature/watch-mode\nremote: \n"
               "To github.com:mkowalski/quarry.git\n * [new branch]      feature/watch-mode -> feature/watch-mode\n"
               "branch 'feature/watch-mode' set up to track 'fork/feature/watch-mode'."),
            A("Pushed to your fork. `origin` is the upstream quarry-rs/quarry, which you can't push to; branches go to "
              "the `fork` remote and the PR targets upstream: "
              "gh pr create --repo quarry-rs/quarry --head mkowalski:feature/watch-mode"),
        ],
        mistake="git push origin feature/watch-mode",
        lesson="quarry: origin is the upstream quarry-rs/quarry (no push access); push branches to the fork remote (git push -u fork <branch>) and open the PR upstream.",
        warn=[same("git push origin feature/watch-mode"), reword("git push --set-upstream origin fix/utf8-snippets"),
              reword("git push origin HEAD:refs/heads/docs/rule-examples")],
        silent=[fix("git push -u fork fix/utf8-snippets"), other("git fetch origin"), other("git pull --rebase origin main")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-pipeline-logs-region", RETRY, CODEX, "pipeline",
        session=[
            U("The nightly loader failed; show me its logs from the last run."),
            err("aws logs tail /ecs/pipeline-loader --since 12h", _NO_LOG_GROUP, 254),
            err("aws logs tail /aws/lambda/pipeline-loader --since 12h", _NO_LOG_GROUP, 254),
            err("aws logs tail /aws/lambda/pipeline-loader --since 12h --region us-east-1", _NO_LOG_GROUP, 254),
            ok("aws logs describe-log-groups --log-group-name-prefix /aws/lambda/pipeline --region eu-central-1 "
               "--query 'logGroups[].logGroupName' --output text", "/aws/lambda/pipeline-loader\t/aws/lambda/pipeline-notifier"),
            ok("aws logs tail /aws/lambda/pipeline-loader --since 12h --region eu-central-1",
               "2026-03-02T02:00:04.118000+00:00 2026/03/02/[$LATEST]4f1c2d3e4b5a69788796a5b4c3d2e1f0 START RequestId: "
               "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d Version: $LATEST\n"
               "2026-03-02T02:00:41.902000+00:00 2026/03/02/[$LATEST]4f1c2d3e4b5a69788796a5b4c3d2e1f0 [ERROR] UniqueViolation: "
               "duplicate key value violates unique constraint \"orders_pkey\"\nDETAIL:  Key (id)=(880412) already exists.\n"
               "2026-03-02T02:00:41.951000+00:00 2026/03/02/[$LATEST]4f1c2d3e4b5a69788796a5b4c3d2e1f0 END RequestId: "
               "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"),
            A("The loader failed on a duplicate key (orders id 880412). Its logs are in eu-central-1; the CLI's default "
              "region on this machine is us-east-1."),
        ],
        mistake="aws logs tail /aws/lambda/pipeline-loader --since 12h",
        lesson="pipeline runs in eu-central-1 but the AWS CLI default here is us-east-1: aws logs/lambda commands need --region eu-central-1 (loader logs: /aws/lambda/pipeline-loader).",
        warn=[same("aws logs tail /aws/lambda/pipeline-loader --since 12h"), reword("aws logs tail /aws/lambda/pipeline-notifier --follow"),
              reword("aws logs filter-log-events --log-group-name /aws/lambda/pipeline-loader --filter-pattern ERROR")],
        silent=[fix("aws logs tail /aws/lambda/pipeline-notifier --follow --region eu-central-1"),
                other("aws sts get-caller-identity"), help_("aws logs tail help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-tally-celery-app", RETRY, CC, "tally",
        session=[
            U("Start a Celery worker so the export jobs get processed."),
            err("uv run celery worker -A tally.tasks -l info", _CELERY5_A.format(opt="-A"), 2),
            err("uv run celery worker --app tally.tasks --loglevel=info", _CELERY5_A.format(opt="--app"), 2),
            err("uv run celery -A tally worker -l info",
                "Usage: celery [OPTIONS] COMMAND [ARGS]...\nTry 'celery --help' for help.\n\n"
                "Error: Invalid value for '-A' / '--app': \nUnable to load celery application.\nModule 'tally' has no attribute 'celery'", 2),
            ok("grep -n 'Celery(' tally/tasks.py",
               '9:celery_app = Celery("tally", broker=settings.BROKER_URL, backend=settings.RESULT_BACKEND)'),
            ok("(uv run celery -A tally.tasks:celery_app worker -l info > /tmp/celery.log 2>&1 &) && sleep 5 && tail -n 4 /tmp/celery.log",
               "[2026-03-02 11:02:11,482: INFO/MainProcess] Connected to redis://localhost:6379/0\n"
               "[2026-03-02 11:02:11,490: INFO/MainProcess] mingle: searching for neighbors\n"
               "[2026-03-02 11:02:12,503: INFO/MainProcess] mingle: all alone\n"
               "[2026-03-02 11:02:12,521: INFO/MainProcess] celery@devbox ready."),
            A("The worker is running. Celery 5 wants -A before the subcommand, and the app object is "
              "tally.tasks:celery_app."),
        ],
        mistake="uv run celery worker -A tally.tasks -l info",
        lesson="tally: Celery 5 takes -A before the subcommand and the app is tally.tasks:celery_app — uv run celery -A tally.tasks:celery_app worker -l info.",
        warn=[same("uv run celery worker -A tally.tasks -l info"), reword("uv run celery beat -A tally.tasks --loglevel=info"),
              reword("uv run celery -A tally worker --concurrency=2")],
        silent=[fix("uv run celery -A tally.tasks:celery_app beat -l info"), other("uv run celery --version"),
                help_("uv run celery worker --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-lantern-race-no-cgo", RETRY, CC, "lantern",
        session=[
            U("Run the internal packages' tests with the race detector, I suspect a race in the tile cache."),
            err("go test -race ./internal/...", "go: -race requires cgo; enable cgo by setting CGO_ENABLED=1"),
            err("CGO_ENABLED=1 go test -race ./internal/...", _NO_GCC.format(cc="gcc")),
            err("CGO_ENABLED=1 CC=clang go test -race ./internal/...", _NO_GCC.format(cc="clang")),
            ok("grep -B1 -A1 '^test-race:' Makefile",
               "# No C toolchain on dev machines: the race detector runs in the golang image.\ntest-race:\n"
               "\tdocker run --rm -v $(PWD):/src -v $(HOME)/go/pkg/mod:/go/pkg/mod -w /src golang:1.22 go test -race ./..."),
            ok("make test-race",
               "docker run --rm -v /home/dev/lantern:/src -v /home/dev/go/pkg/mod:/go/pkg/mod -w /src golang:1.22 go test -race ./...\n"
               "ok  \tgithub.com/acme/lantern/internal/api\t1.412s\nok  \tgithub.com/acme/lantern/internal/cache\t2.087s\n"
               "ok  \tgithub.com/acme/lantern/internal/store\t0.533s\nok  \tgithub.com/acme/lantern/internal/tiles\t0.918s"),
            A("No races reported. This machine has CGO off and no C compiler, so the race detector only runs through "
              "`make test-race` (inside golang:1.22)."),
        ],
        mistake="go test -race ./internal/...",
        lesson="lantern: no C compiler here and CGO is off, so go test -race fails; run the race tests with make test-race (golang container).",
        warn=[same("go test -race ./internal/..."), reword("CGO_ENABLED=1 go test -race -run TestTileCache ./internal/cache/"),
              reword("go test -count=1 -race ./...")],
        silent=[fix("make test-race"), other("go test ./internal/..."), other("go test -run TestTileCache -v ./internal/cache/")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-beacon-mssql-container", RETRY, GEMINI, "beacon",
        session=[
            U("Start a local SQL Server for the integration tests."),
            err("docker run --rm -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest", _MSSQL_EULA),
            err("docker run --rm -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD=beacon -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest",
                _MSSQL_PW.format(why="it is too short. The password must be at least 8 characters..")),
            err("docker run --rm -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD=beacondev1 -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest",
                _MSSQL_PW.format(why="it is not complex enough. The password must be at least 8 characters long and contain "
                                     "characters from three of the following four sets: Uppercase letters, Lowercase letters, "
                                     "Base 10 digits, and Symbols..")),
            ok("grep -A7 '  sqlserver:' compose.yaml",
               "  sqlserver:\n    image: mcr.microsoft.com/mssql/server:2022-latest\n    environment:\n"
               "      ACCEPT_EULA: \"Y\"\n      MSSQL_SA_PASSWORD: \"Beacon!Dev2026\"\n    ports:\n      - \"1433:1433\"\n"
               "    volumes:\n      - sqldata:/var/opt/mssql"),
            ok("docker compose up -d sqlserver",
               "[+] Running 2/2\n ✔ Volume \"beacon_sqldata\"        Created\n ✔ Container beacon-sqlserver-1  Started"),
            A("SQL Server is up through compose (sa / Beacon!Dev2026, the same as appsettings.Development.json). A bare "
              "docker run needs ACCEPT_EULA=Y and a password that meets the policy; compose sets both."),
        ],
        mistake="docker run --rm -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest",
        lesson="beacon: start SQL Server with docker compose up -d sqlserver; a bare docker run of mssql/server dies without ACCEPT_EULA=Y and a policy-compliant MSSQL_SA_PASSWORD.",
        warn=[same("docker run --rm -p 1433:1433 mcr.microsoft.com/mssql/server:2022-latest"),
              reword("docker run -d --name sql -p 1433:1433 -e MSSQL_SA_PASSWORD=beacon mcr.microsoft.com/mssql/server:2022-latest"),
              reword("docker run --rm -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD=sa -p 14333:1433 mcr.microsoft.com/mssql/server:2022-CU12-ubuntu-22.04")],
        silent=[fix("docker compose up -d sqlserver"),
                fix("docker run -d --name beacon-sql-ci -e ACCEPT_EULA=Y -e 'MSSQL_SA_PASSWORD=Beacon!Dev2026' -p 14333:1433 "
                    "mcr.microsoft.com/mssql/server:2022-latest"),
                other("docker compose logs sqlserver --tail=30"), other("docker ps --filter name=sqlserver")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-platform-crd-server-side", RETRY, CODEX, "platform-ops",
        session=[
            U("Install the Strimzi CRDs on the staging cluster."),
            err("kubectl apply -f deploy/crds/",
                "customresourcedefinition.apiextensions.k8s.io/kafkatopics.kafka.strimzi.io created\n"
                "customresourcedefinition.apiextensions.k8s.io/kafkausers.kafka.strimzi.io created\n"
                + _CRD_TOO_LONG.format(crd="kafkas.kafka.strimzi.io") + "\n"
                + _CRD_TOO_LONG.format(crd="kafkaconnects.kafka.strimzi.io")),
            err("kubectl replace -f deploy/crds/",
                "customresourcedefinition.apiextensions.k8s.io/kafkatopics.kafka.strimzi.io replaced\n"
                "customresourcedefinition.apiextensions.k8s.io/kafkausers.kafka.strimzi.io replaced\n"
                "Error from server (NotFound): error when replacing \"deploy/crds/040-Crd-kafka.yaml\": "
                "customresourcedefinitions.apiextensions.k8s.io \"kafkas.kafka.strimzi.io\" not found\n"
                "Error from server (NotFound): error when replacing \"deploy/crds/041-Crd-kafkaconnect.yaml\": "
                "customresourcedefinitions.apiextensions.k8s.io \"kafkaconnects.kafka.strimzi.io\" not found"),
            err("kubectl create -f deploy/crds/",
                "customresourcedefinition.apiextensions.k8s.io/kafkas.kafka.strimzi.io created\n"
                "customresourcedefinition.apiextensions.k8s.io/kafkaconnects.kafka.strimzi.io created\n"
                "Error from server (AlreadyExists): error when creating \"deploy/crds/043-Crd-kafkatopic.yaml\": "
                "customresourcedefinitions.apiextensions.k8s.io \"kafkatopics.kafka.strimzi.io\" already exists\n"
                "Error from server (AlreadyExists): error when creating \"deploy/crds/044-Crd-kafkauser.yaml\": "
                "customresourcedefinitions.apiextensions.k8s.io \"kafkausers.kafka.strimzi.io\" already exists"),
            ok("kubectl apply --server-side --force-conflicts -f deploy/crds/",
               "customresourcedefinition.apiextensions.k8s.io/kafkas.kafka.strimzi.io serverside-applied\n"
               "customresourcedefinition.apiextensions.k8s.io/kafkaconnects.kafka.strimzi.io serverside-applied\n"
               "customresourcedefinition.apiextensions.k8s.io/kafkatopics.kafka.strimzi.io serverside-applied\n"
               "customresourcedefinition.apiextensions.k8s.io/kafkausers.kafka.strimzi.io serverside-applied"),
            A("All Strimzi CRDs are installed. The big ones exceed the 256 KiB last-applied-configuration annotation that "
              "client-side apply writes, so CRDs go in with `kubectl apply --server-side`."),
        ],
        mistake="kubectl apply -f deploy/crds/",
        lesson="platform-ops: the Strimzi CRDs are too big for client-side apply (annotation > 256 KiB); apply CRDs with kubectl apply --server-side --force-conflicts.",
        warn=[same("kubectl apply -f deploy/crds/"), reword("kubectl apply -f deploy/crds/040-Crd-kafka.yaml"),
              reword("kubectl apply -R -f deploy/crds")],
        silent=[fix("kubectl apply --server-side --force-conflicts -f deploy/crds/040-Crd-kafka.yaml"),
                other("kubectl apply -f deploy/strimzi-operator/"), other("kubectl get crd -l app=strimzi")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-mosaic-ts-script-runner", RETRY, CC, "mosaic",
        session=[
            U("Run the pending DB migrations for the API (apps/api/scripts/migrate.ts)."),
            err("node apps/api/scripts/migrate.ts", _TS_EXT),
            err("npx ts-node apps/api/scripts/migrate.ts", _TS_EXT),
            err("node --loader ts-node/esm apps/api/scripts/migrate.ts",
                "(node:48211) ExperimentalWarning: `--experimental-loader` may be removed in the future; instead use `register()`:\n"
                "--import 'data:text/javascript,import { register } from \"node:module\"; import { pathToFileURL } from \"node:url\"; "
                "register(\"ts-node/esm\", pathToFileURL(\"./\"));'\n(Use `node --trace-warnings ...` to show where the warning was created)\n"
                "node:internal/process/esm_loader:40\n      internalBinding('errors').triggerUncaughtException(\n"
                "                                ^\nError [ERR_MODULE_NOT_FOUND]: Cannot find module "
                "'/home/dev/mosaic/apps/api/src/db/client' imported from /home/dev/mosaic/apps/api/scripts/migrate.ts\n\n"
                "Node.js v20.11.1"),
            ok("grep -n '\"migrate\"\\|\"tsx\"' apps/api/package.json", '8:    "migrate": "tsx scripts/migrate.ts",\n31:    "tsx": "^4.7.1",'),
            ok("npx tsx apps/api/scripts/migrate.ts",
               "applying 20260228_add_order_notes.sql ... ok\napplying 20260301_orders_quantity_check.sql ... ok\n2 migrations applied"),
            A("Both pending migrations are applied. The API is ESM TypeScript with extensionless imports; its scripts run "
              "with tsx (that's what `npm run migrate` uses), not node or ts-node."),
        ],
        mistake="node apps/api/scripts/migrate.ts",
        lesson="mosaic: run the API's TypeScript scripts with npx tsx (or npm run migrate -w apps/api); node and ts-node fail on its .ts ESM files.",
        warn=[same("node apps/api/scripts/migrate.ts"), reword("npx ts-node apps/api/scripts/seed.ts --orders 50"),
              reword("cd apps/api && node scripts/backfill-totals.ts")],
        silent=[fix("npx tsx apps/api/scripts/seed.ts --orders 50"), fix("npm run migrate -w apps/api"),
                other("node apps/api/dist/server.js"), other("node --version")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-quarry-cross-aarch64", RETRY, CODEX, "quarry",
        session=[
            U("Build a release binary of quarry for our arm64 CI runners."),
            err("cargo build --release --target aarch64-unknown-linux-gnu", _LINK_FAIL, 101),
            err("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc cargo build --release --target aarch64-unknown-linux-gnu",
                "   Compiling quarry v0.9.0 (/home/dev/quarry)\nerror: linker `aarch64-linux-gnu-gcc` not found\n  |\n"
                "  = note: No such file or directory (os error 2)\n\n\nerror: could not compile `quarry` (bin \"quarry\") due to 1 previous error", 101),
            err("cargo zigbuild --release --target aarch64-unknown-linux-gnu",
                "error: no such command: `zigbuild`\n\n\tView all installed commands with `cargo --list`\n"
                "\tFind a package to install `zigbuild` with `cargo search cargo-zigbuild`", 101),
            ok("cat Cross.toml", '[target.aarch64-unknown-linux-gnu]\npre-build = ["dpkg --add-architecture arm64"]\n'),
            ok("cross build --release --target aarch64-unknown-linux-gnu",
               "   Compiling quarry v0.9.0 (/project)\n    Finished `release` profile [optimized] target(s) in 2m 03s"),
            A("Built target/aarch64-unknown-linux-gnu/release/quarry. This machine has no aarch64 linker; arm64 builds go "
              "through cross (Cross.toml is already set up)."),
        ],
        mistake="cargo build --release --target aarch64-unknown-linux-gnu",
        lesson="quarry: there is no aarch64 cross-linker on this machine; build arm64 binaries with cross build --release --target aarch64-unknown-linux-gnu.",
        warn=[same("cargo build --release --target aarch64-unknown-linux-gnu"),
              reword("cargo build --target=aarch64-unknown-linux-gnu -p quarry-lsp"),
              reword("cargo build --release --target aarch64-unknown-linux-musl")],
        silent=[fix("cross build --release --target aarch64-unknown-linux-musl"), other("cargo build --release"),
                other("rustup target list --installed")],
        variants=("diagnostic", "long_output"),
    ),
    Incident(
        "rl-pipeline-server-side-copy", RETRY, GEMINI, "pipeline",
        session=[
            U("Load data/exports/orders_2026-03-01.csv into staging.orders."),
            err("source .env && psql \"$DATABASE_URL\" -c \"COPY staging.orders FROM '/home/dev/pipeline/data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\"",
                _PG_COPY_FILE),
            err("source .env && psql \"$DATABASE_URL\" -c \"SET ROLE pg_read_server_files; COPY staging.orders FROM '/home/dev/pipeline/data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\"",
                "ERROR:  permission denied to set role \"pg_read_server_files\""),
            err("source .env && psql \"$DATABASE_URL\" -c \"COPY staging.orders FROM PROGRAM 'cat /home/dev/pipeline/data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\"",
                "ERROR:  must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program\n"
                "HINT:  Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone."),
            ok("source .env && psql \"$DATABASE_URL\" -c \"\\copy staging.orders FROM 'data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\"",
               "COPY 48213"),
            A("Loaded 48,213 rows. The database is on RDS and our role isn't a superuser, so server-side COPY from a file "
              "is refused; psql's \\copy streams the file from this machine instead."),
        ],
        mistake="source .env && psql \"$DATABASE_URL\" -c \"COPY staging.orders FROM '/home/dev/pipeline/data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\"",
        lesson="pipeline's DB is RDS without superuser: server-side COPY … FROM '<file>' is refused; load files with psql's \\copy (psql -c \"\\copy … FROM '…' …\").",
        warn=[same("source .env && psql \"$DATABASE_URL\" -c \"COPY staging.orders FROM '/home/dev/pipeline/data/exports/orders_2026-03-01.csv' WITH (FORMAT csv, HEADER)\""),
              reword("source .env && psql \"$DATABASE_URL\" -c \"COPY staging.customers FROM '/home/dev/pipeline/data/exports/customers.csv' CSV HEADER\""),
              reword("source .env && psql \"$DATABASE_URL\" -c \"COPY staging.refunds (id, order_id, amount) FROM '/tmp/refunds.csv' WITH (FORMAT csv)\"")],
        silent=[fix("source .env && psql \"$DATABASE_URL\" -c \"\\copy staging.customers FROM 'data/exports/customers.csv' CSV HEADER\""),
                other("source .env && psql \"$DATABASE_URL\" -c \"COPY (SELECT * FROM staging.orders LIMIT 10) TO STDOUT WITH (FORMAT csv, HEADER)\""),
                other("wc -l data/exports/orders_2026-03-01.csv")],
        variants=(),
    ),
    Incident(
        "rl-harbor-gradle-test-filter", RETRY, CC, "harbor-api",
        session=[
            U("Run just OrderServiceTest."),
            err("./gradlew test --tests OrderServiceTest", _GRADLE_NO_TESTS.format(pattern="OrderServiceTest")),
            err("./gradlew test --tests 'com.acme.harbor.order.OrderServiceTest'",
                _GRADLE_NO_TESTS.format(pattern="com.acme.harbor.order.OrderServiceTest")),
            err("./gradlew test --tests '*OrderServiceTest' --continue",
                "> Task :common:test FAILED\n> Task :app:test\n\n" + _GRADLE_NO_TESTS.format(pattern="*OrderServiceTest").split("\n\n", 1)[1]),
            ok("./gradlew projects | grep Project",
               "Root project 'harbor-api'\n+--- Project ':app'\n\\--- Project ':common'"),
            ok("./gradlew :app:test --tests OrderServiceTest", "> Task :app:test\n\nBUILD SUCCESSFUL in 8s\n7 actionable tasks: 1 executed, 6 up-to-date"),
            A("OrderServiceTest passes. A filtered `test` runs in every subproject and :common has no such test; scoping "
              "it to `:app:test` works."),
        ],
        mistake="./gradlew test --tests OrderServiceTest",
        lesson="harbor-api is multi-project: ./gradlew test --tests X fails in :common ('No tests found for given includes'); run ./gradlew :app:test --tests X.",
        warn=[same("./gradlew test --tests OrderServiceTest"), reword("./gradlew test --tests '*ShippingRulesTest' -i"),
              reword("./gradlew cleanTest test --tests 'com.acme.harbor.shipping.*'")],
        silent=[fix("./gradlew :app:test --tests '*ShippingRulesTest' -i"), fix("./gradlew :common:test --tests MoneyFormatTest"),
                other("./gradlew test"), help_("./gradlew help --task test")],
        variants=("diagnostic",),
    ),
]
