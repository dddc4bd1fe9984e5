"""blind4 / retry: several failing attempts, then the variant that works."""

from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    RETRY,
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

_OWNER_ERRORS = "\n".join(
    f'pg_restore: error: could not execute query: ERROR:  role "{role}" does not exist\nCommand was: {stmt};'
    for role, stmt in [
        ("ledger_app", "ALTER TABLE public.invoices OWNER TO ledger_app"),
        ("ledger_app", "ALTER TABLE public.invoice_lines OWNER TO ledger_app"),
        ("ledger_app", "ALTER TABLE public.payments OWNER TO ledger_app"),
        ("ledger_app", "ALTER TABLE public.customers OWNER TO ledger_app"),
        ("readonly", "GRANT SELECT ON TABLE public.invoices TO readonly"),
        ("readonly", "GRANT SELECT ON TABLE public.payments TO readonly"),
        ("ledger_app", "ALTER SEQUENCE public.invoices_id_seq OWNER TO ledger_app"),
        ("ledger_app", "ALTER SEQUENCE public.payments_id_seq OWNER TO ledger_app"),
    ]
    * 5
)

_ECR = "418273645521.dkr.ecr.eu-west-1.amazonaws.com"

INCIDENTS = [
    Incident(
        id="b4-retry-psql-01",
        shape=RETRY,
        agent=CC,
        project="harbor-api",
        session=[
            U("how many shipments are stuck in pending in my dev database?"),
            err(
                "psql -d harbor -c \"select count(*) from shipments where status = 'pending'\"",
                'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file '
                "or directory\n\tIs the server running locally and accepting connections on that socket?",
                code=2,
            ),
            err(
                "psql -h localhost -U harbor -d harbor -c \"select count(*) from shipments where status = 'pending'\"",
                'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused\n'
                "\tIs the server running on that host and accepting TCP/IP connections?",
                code=2,
            ),
            ok("docker compose port db 5432", "0.0.0.0:5433"),
            ok(
                "psql -h localhost -p 5433 -U harbor -d harbor -c \"select count(*) from shipments where status = 'pending'\"",
                " count \n-------\n    17\n(1 row)",
            ),
        ],
        mistake="psql -h localhost -U harbor -d harbor -c \"select count(*) from shipments where status = 'pending'\"",
        lesson=(
            "harbor's dev postgres runs in compose, published on localhost:5433 (not 5432, and no local socket): "
            "connect with `psql -h localhost -p 5433 -U harbor -d harbor`."
        ),
        warn=[
            same(
                "psql -h localhost -U harbor -d harbor -c \"select count(*) from shipments where status = 'pending'\""
            ),
            reword("psql -U harbor -h localhost harbor -c '\\dt'"),
            reword("psql --host=localhost --username=harbor --dbname=harbor"),
        ],
        silent=[
            fix("psql -h localhost -p 5433 -U harbor -d harbor -c '\\dt'"),
            fix("psql postgresql://harbor@localhost:5433/harbor -c 'select count(*) from carriers'"),
            other("docker compose port db 5432"),
            help_("psql --help"),
        ],
    ),
    Incident(
        id="b4-retry-python-02",
        shape=RETRY,
        agent=CODEX,
        project="harbor-api",
        session=[
            U("run the carrier API tests"),
            err(
                "pytest tests/api/test_carriers.py",
                "ImportError while loading conftest '/repo/tests/conftest.py'.\ntests/conftest.py:4: in <module>\n"
                "    from harbor.app import create_app\nE   ModuleNotFoundError: No module named 'harbor'",
                code=4,
            ),
            err("python -m pytest tests/api/test_carriers.py", "/usr/bin/python: No module named pytest"),
            ok(
                "uv run pytest tests/api/test_carriers.py",
                "......                                                                   [100%]\n6 passed in 0.74s",
            ),
        ],
        mistake="pytest tests/api/test_carriers.py",
        lesson=(
            "harbor's test dependencies live in the uv-managed .venv: run tests with `uv run pytest ...`; a bare "
            "pytest or python -m pytest uses the system Python and fails."
        ),
        warn=[
            same("pytest tests/api/test_carriers.py"),
            reword("python -m pytest tests/api/test_carriers.py"),
            reword("pytest -k token tests/auth"),
        ],
        silent=[
            fix("uv run pytest -k token tests/auth"),
            fix("uv run python -m pytest tests/api"),
            other("uv sync --frozen"),
            help_("uv run --help"),
        ],
    ),
    Incident(
        id="b4-retry-node-03",
        shape=RETRY,
        agent=GEMINI,
        project="fernweh-web",
        session=[
            U("run the unit tests"),
            err("pnpm test", ' ERR_PNPM_NO_SCRIPT  Missing script: test\n\nCommand "test" not found.'),
            err(
                "pnpm run test:unit", ' ERR_PNPM_NO_SCRIPT  Missing script: test:unit\n\nCommand "test:unit" not found.'
            ),
            ok(
                "cat package.json",
                '{\n  "name": "fernweh",\n  "private": true,\n  "scripts": {\n    "build": "turbo run build",\n'
                '    "lint": "turbo run lint"\n  }\n}',
            ),
            ok(
                "pnpm --filter web test -- --run",
                " ✓ src/trips/price.test.ts (5 tests) 4ms\n ✓ src/nav/Menu.test.tsx (9 tests) 61ms\n"
                " ✓ src/trips/TripCard.test.tsx (7 tests) 48ms\n\n Test Files  14 passed (14)\n      Tests  121 passed (121)",
            ),
        ],
        mistake="pnpm test",
        lesson=(
            "fernweh-web's root package.json has no test script: the unit tests run per app, "
            "`pnpm --filter web test` (add `-- --run` for a single pass)."
        ),
        warn=[
            same("pnpm test"),
            reword("pnpm run test"),
            reword("pnpm test -- --run"),
        ],
        silent=[
            fix("pnpm --filter web test -- --run"),
            fix("pnpm -F web test -- --run src/nav"),
            other("pnpm lint"),
            help_("pnpm help test"),
        ],
    ),
    Incident(
        id="b4-retry-cloud-04",
        shape=RETRY,
        agent=CC,
        project="quarry-infra",
        session=[
            U("push the quarry-worker 1.4.2 image to ECR"),
            err(
                f"docker push {_ECR}/quarry-worker:1.4.2",
                f"The push refers to repository [{_ECR}/quarry-worker]\n5f70bf18a086: Preparing\n"
                "c4d2b1a09f3e: Preparing\nno basic auth credentials",
            ),
            err(
                f"aws ecr get-login-password --profile quarry-staging | docker login --username AWS --password-stdin {_ECR}",
                f"Error response from daemon: login attempt to https://{_ECR}/v2/ failed with status: 400 Bad Request",
            ),
            ok("aws configure get region --profile quarry-staging", "us-east-1"),
            A("The profile's default region is us-east-1, so the token is for the wrong registry region."),
            ok(
                f"aws ecr get-login-password --region eu-west-1 --profile quarry-staging | docker login --username AWS "
                f"--password-stdin {_ECR}",
                "Login Succeeded",
            ),
            ok(
                f"docker push {_ECR}/quarry-worker:1.4.2",
                "5f70bf18a086: Pushed\nc4d2b1a09f3e: Pushed\n"
                "1.4.2: digest: sha256:7c1e9a4b2d3f5e6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a size: 2203",
            ),
        ],
        mistake=f"aws ecr get-login-password --profile quarry-staging | docker login --username AWS --password-stdin {_ECR}",
        lesson=(
            "quarry's ECR registry is in eu-west-1 but the quarry-staging profile defaults to us-east-1: get the "
            "password with --region eu-west-1 (aws ecr get-login-password --region eu-west-1 --profile quarry-staging "
            "| docker login ...)."
        ),
        warn=[
            same(
                f"aws ecr get-login-password --profile quarry-staging | docker login --username AWS --password-stdin {_ECR}"
            ),
            reword(
                f"aws ecr get-login-password --profile=quarry-staging | docker login -u AWS --password-stdin {_ECR}"
            ),
            reword(
                f"AWS_PROFILE=quarry-staging aws ecr get-login-password | docker login --username AWS --password-stdin {_ECR}"
            ),
        ],
        silent=[
            fix(
                f"aws ecr get-login-password --profile quarry-staging --region eu-west-1 | docker login -u AWS "
                f"--password-stdin {_ECR}"
            ),
            fix(
                "AWS_REGION=eu-west-1 AWS_PROFILE=quarry-staging aws ecr get-login-password | docker login "
                f"--username AWS --password-stdin {_ECR}"
            ),
            other("aws ecr describe-repositories --region eu-west-1 --profile quarry-staging"),
            help_("aws ecr get-login-password help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b4-retry-k8s-05",
        shape=RETRY,
        agent=CODEX,
        project="lumen-cluster",
        session=[
            U("open grafana locally so I can look at the ingest dashboard"),
            err(
                "kubectl port-forward svc/grafana 3000:80", 'Error from server (NotFound): services "grafana" not found'
            ),
            err(
                "kubectl port-forward svc/grafana 3000:80 -n monitoring",
                "error: Service grafana does not have a service port 80",
            ),
            ok(
                "kubectl -n monitoring get svc grafana",
                "NAME      TYPE        CLUSTER-IP     EXTERNAL-IP   PORT(S)    AGE\n"
                "grafana   ClusterIP   10.96.41.207   <none>        3000/TCP   98d",
            ),
            ok("kubectl port-forward -n monitoring svc/grafana 3000:3000 > /tmp/pf-grafana.log 2>&1 &", ""),
            ok("sleep 1 && curl -s -o /dev/null -w '%{http_code}' localhost:3000/login", "200"),
        ],
        mistake="kubectl port-forward svc/grafana 3000:80 -n monitoring",
        lesson=(
            "lumen's grafana service is in namespace monitoring and listens on 3000 (there is no port 80): "
            "kubectl port-forward -n monitoring svc/grafana <local>:3000."
        ),
        warn=[
            same("kubectl port-forward svc/grafana 3000:80 -n monitoring"),
            reword("kubectl -n monitoring port-forward service/grafana 8080:80"),
            reword("kubectl port-forward --namespace=monitoring svc/grafana 3000:80 --address 0.0.0.0"),
        ],
        silent=[
            fix("kubectl port-forward -n monitoring svc/grafana 3000:3000"),
            fix("kubectl -n monitoring port-forward service/grafana 8080:3000"),
            other("kubectl -n monitoring get svc grafana"),
            help_("kubectl port-forward --help"),
        ],
    ),
    Incident(
        id="b4-retry-k8s-06",
        shape=RETRY,
        agent=GEMINI,
        project="lumen-cluster",
        session=[
            U("get a shell in an ingest pod, I want to check the mounted config"),
            err(
                "kubectl exec -it deploy/ingest -n lumen -- bash",
                "error: Internal error occurred: error executing command in container: failed to exec in container: "
                'failed to start exec "5e0f2c": OCI runtime exec failed: exec failed: unable to start container '
                'process: exec: "bash": executable file not found in $PATH: unknown',
            ),
            err(
                "kubectl exec -it deploy/ingest -n lumen -- sh",
                "error: Internal error occurred: error executing command in container: failed to exec in container: "
                'failed to start exec "9a13d7": OCI runtime exec failed: exec failed: unable to start container '
                'process: exec: "sh": executable file not found in $PATH: unknown',
            ),
            ok(
                "kubectl -n lumen get pods -l app=ingest -o name",
                "pod/ingest-7c9f6d5b8-z7m2c\npod/ingest-7c9f6d5b8-k4r8t\npod/ingest-7c9f6d5b8-m1p9x",
            ),
            A(
                "The ingest image is distroless, so there is no shell to exec; an ephemeral debug container can see its files."
            ),
            ok(
                "kubectl debug -n lumen -it ingest-7c9f6d5b8-z7m2c --image=busybox:1.36 --target=ingest "
                "-- cat /proc/1/root/etc/ingest/config.yaml",
                'Targeting container "ingest". If you don\'t see processes from this container it may be because the '
                "container runtime doesn't support this feature.\nbatch_size: 500\nflush_interval: 5s\nspool_dir: /spool",
            ),
        ],
        mistake="kubectl exec -it deploy/ingest -n lumen -- sh",
        lesson=(
            "The ingest image is distroless: there is no bash or sh to kubectl exec into. Inspect it with an "
            "ephemeral container: kubectl debug -n lumen -it <pod> --image=busybox:1.36 --target=ingest."
        ),
        warn=[
            same("kubectl exec -it deploy/ingest -n lumen -- sh"),
            reword("kubectl -n lumen exec -ti ingest-7c9f6d5b8-k4r8t -- /bin/bash"),
            reword("kubectl exec -n lumen deploy/ingest -- sh -c 'cat /etc/ingest/config.yaml'"),
        ],
        silent=[
            fix("kubectl debug -n lumen -it ingest-7c9f6d5b8-k4r8t --image=busybox:1.36 --target=ingest"),
            other("kubectl -n lumen logs deploy/ingest --tail=100"),
            other("kubectl -n lumen get configmap ingest-config -o yaml"),
            help_("kubectl debug --help"),
        ],
    ),
    Incident(
        id="b4-retry-cargo-07",
        shape=RETRY,
        agent=CC,
        project="tallow-cli",
        session=[
            U("build a static linux binary of tallow for the release page"),
            err(
                "cargo build --release --target x86_64-unknown-linux-musl",
                "   Compiling tallow-core v0.9.3 (/repo/crates/tallow-core)\n"
                "error[E0463]: can't find crate for `core`\n  |\n"
                "  = note: the `x86_64-unknown-linux-musl` target may not be installed\n"
                "  = help: consider downloading the target with `rustup target add x86_64-unknown-linux-musl`",
            ),
            ok(
                "rustup target add x86_64-unknown-linux-musl",
                "info: downloading component 'rust-std' for 'x86_64-unknown-linux-musl'\n"
                "info: installing component 'rust-std' for 'x86_64-unknown-linux-musl'",
            ),
            err(
                "cargo build --release --target x86_64-unknown-linux-musl",
                "   Compiling ring v0.17.8\nerror: failed to run custom build command for `ring v0.17.8`\n\n"
                "Caused by:\n  process didn't exit successfully: `/repo/target/release/build/ring-2f1c/build-script-build` "
                "(exit status: 1)\n  --- stderr\n\n  error occurred: Failed to find tool. Is `x86_64-linux-musl-gcc` "
                "installed? (see https://docs.rs/cc/latest/cc/#compile-time-requirements for help)",
            ),
            ok(
                "cargo zigbuild --release --target x86_64-unknown-linux-musl",
                "   Compiling ring v0.17.8\n   Compiling tallow-cli v0.9.3 (/repo/crates/tallow-cli)\n"
                "    Finished `release` profile [optimized] target(s) in 1m 12s",
            ),
            ok(
                "file target/x86_64-unknown-linux-musl/release/tallow",
                "target/x86_64-unknown-linux-musl/release/tallow: ELF 64-bit LSB executable, x86-64, version 1 (SYSV), "
                "static-pie linked, stripped",
            ),
        ],
        mistake="cargo build --release --target x86_64-unknown-linux-musl",
        lesson=(
            "tallow's musl builds need a musl C toolchain for ring: build them with "
            "`cargo zigbuild --release --target <arch>-unknown-linux-musl` (plain cargo build can't find "
            "x86_64-linux-musl-gcc)."
        ),
        warn=[
            same("cargo build --release --target x86_64-unknown-linux-musl"),
            reword("cargo build --target=x86_64-unknown-linux-musl --release -p tallow-cli"),
            reword("cargo build --release --target aarch64-unknown-linux-musl"),
        ],
        silent=[
            fix("cargo zigbuild --release --target aarch64-unknown-linux-musl"),
            other("cargo build --release"),
            other("rustup target list --installed"),
            help_("cargo zigbuild --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-retry-docker-08",
        shape=RETRY,
        agent=CODEX,
        project="gantry-svc",
        session=[
            U("run the gantry:dev image against my local postgres to check the startup path"),
            err(
                "docker run --rm -p 8080:8080 gantry:dev", '{"level":"error","msg":"config: GANTRY_DB_URL is required"}'
            ),
            err(
                "docker run --rm -p 8080:8080 -e GANTRY_DB_URL=postgres://gantry:gantry@localhost:5432/gantry gantry:dev",
                '{"level":"info","msg":"starting gantry","version":"1.9.0-dev"}\n'
                '{"level":"error","msg":"db ping failed","error":"dial tcp 127.0.0.1:5432: connect: connection refused"}',
            ),
            ok(
                "cat .env.docker",
                "GANTRY_DB_URL=postgres://gantry:gantry@host.docker.internal:5432/gantry\nGANTRY_LOG_LEVEL=debug",
            ),
            ok(
                "git log --oneline -1 -- .env.docker",
                "b07e1f4 docker: env file for running the image against host services",
            ),
            ok(
                "docker run --rm -d -p 8080:8080 --env-file .env.docker --add-host=host.docker.internal:host-gateway gantry:dev",
                "3f2a9c71d0be5e8a4c6f1b2d9e0a7c3b5d8f1e2a4c6b9d0e3f5a7c1b2d4e6f8a",
            ),
            ok("curl -s localhost:8080/healthz", '{"status":"ok","db":"ok"}'),
        ],
        mistake="docker run --rm -p 8080:8080 -e GANTRY_DB_URL=postgres://gantry:gantry@localhost:5432/gantry gantry:dev",
        lesson=(
            "Inside the gantry container localhost is the container itself: run it with `--env-file .env.docker "
            "--add-host=host.docker.internal:host-gateway` (the env file's DB URL points at host.docker.internal)."
        ),
        warn=[
            same(
                "docker run --rm -p 8080:8080 -e GANTRY_DB_URL=postgres://gantry:gantry@localhost:5432/gantry gantry:dev"
            ),
            reword(
                "docker run -e GANTRY_DB_URL=postgres://gantry:gantry@127.0.0.1:5432/gantry -p 8080:8080 gantry:dev"
            ),
            reword("docker run --rm -p 8080:8080 gantry:dev"),
        ],
        silent=[
            fix(
                "docker run --rm -d -p 8080:8080 --env-file .env.docker --add-host=host.docker.internal:host-gateway gantry:dev"
            ),
            fix(
                "docker run --rm -p 8080:8080 --add-host=host.docker.internal:host-gateway "
                "-e GANTRY_DB_URL=postgres://gantry:gantry@host.docker.internal:5432/gantry gantry:dev"
            ),
            other("docker ps --filter ancestor=gantry:dev"),
            help_("docker run --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b4-retry-ssh-09",
        shape=RETRY,
        agent=GEMINI,
        project="pinewood-ops",
        session=[
            U("check disk space on web1"),
            err(
                "ssh deploy@web1.pinewood.internal 'df -h /'",
                "ssh: Could not resolve hostname web1.pinewood.internal: Name or service not known",
                code=255,
            ),
            err(
                "ssh deploy@10.20.1.11 'df -h /'",
                "ssh: connect to host 10.20.1.11 port 22: Connection timed out",
                code=255,
            ),
            ok(
                "grep -A4 '^\\[web\\]' inventories/prod/hosts.ini",
                "[web]\nweb1.prod ansible_host=10.20.1.11\nweb2.prod ansible_host=10.20.1.12\n\n"
                "[all:vars]\nansible_ssh_common_args='-J bastion.pinewood.io'",
            ),
            ok(
                "ssh -J bastion.pinewood.io deploy@10.20.1.11 'df -h /'",
                "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1   49G   41G  8.2G  84% /",
            ),
        ],
        mistake="ssh deploy@10.20.1.11 'df -h /'",
        lesson=(
            "pinewood's web hosts (10.20.1.x) are only reachable through the bastion: "
            "ssh -J bastion.pinewood.io deploy@10.20.1.11 (a direct ssh times out)."
        ),
        warn=[
            same("ssh deploy@10.20.1.11 'df -h /'"),
            reword("ssh deploy@10.20.1.12 'systemctl status nginx'"),
            reword("ssh -l deploy 10.20.1.11"),
        ],
        silent=[
            fix("ssh -J bastion.pinewood.io deploy@10.20.1.12 'systemctl status nginx'"),
            fix("ssh -o ProxyJump=bastion.pinewood.io deploy@10.20.1.11 'df -h /'"),
            other("ssh bastion.pinewood.io uptime"),
            help_("ssh -V"),
        ],
    ),
    Incident(
        id="b4-retry-psql-10",
        shape=RETRY,
        agent=CC,
        project="ledgerline",
        session=[
            U("load the anonymised prod snapshot into my dev database"),
            err(
                "pg_restore -d ledgerline_development tmp/snapshot_0301.dump",
                _OWNER_ERRORS + "\npg_restore: warning: errors ignored on restore: 40",
            ),
            err(
                "pg_restore --clean --if-exists -d ledgerline_development tmp/snapshot_0301.dump",
                _OWNER_ERRORS + "\npg_restore: warning: errors ignored on restore: 40",
            ),
            A("Every error is an owner or grant for a role that only exists in production."),
            ok(
                "pg_restore --no-owner --no-acl --clean --if-exists -d ledgerline_development tmp/snapshot_0301.dump",
                "",
            ),
            ok("bin/rails runner 'puts Invoice.count'", "48211"),
        ],
        mistake="pg_restore -d ledgerline_development tmp/snapshot_0301.dump",
        lesson=(
            "Prod snapshots reference roles the dev server lacks (ledger_app, readonly): restore them with "
            "`pg_restore --no-owner --no-acl` (plus --clean --if-exists to replace existing tables)."
        ),
        warn=[
            same("pg_restore -d ledgerline_development tmp/snapshot_0301.dump"),
            reword("pg_restore --clean --if-exists -d ledgerline_development tmp/snapshot_0301.dump"),
            reword("pg_restore --dbname=ledgerline_test -j 4 tmp/snapshot_0302.dump"),
        ],
        silent=[
            fix("pg_restore --no-owner --no-acl -d ledgerline_test -j 4 tmp/snapshot_0302.dump"),
            other("pg_restore -l tmp/snapshot_0301.dump"),
            help_("pg_restore --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b4-retry-flutter-11",
        shape=RETRY,
        agent=CODEX,
        project="orchard-mobile",
        session=[
            U("make sure the iOS release build still compiles after the plugin bump"),
            err(
                "flutter build ios --release --flavor prod -t lib/main_prod.dart",
                "Building com.orchard.notes for device (ios-release)...\n"
                "No valid code signing certificates were found\n"
                "You can connect to your Apple Developer account by signing in with your Apple ID\n"
                "in Xcode and create an iOS Development Certificate as well as a Provisioning Profile for your project by:\n"
                "  1- Open the Flutter project's Xcode target with\n       open ios/Runner.xcworkspace\n"
                "Error: No development certificates available to code sign app for device deployment",
            ),
            err(
                "flutter build ios --flavor prod -t lib/main_prod.dart",
                "Building com.orchard.notes for device (ios-release)...\n"
                "No valid code signing certificates were found\n"
                "Error: No development certificates available to code sign app for device deployment",
            ),
            ok(
                "flutter build ios --release --no-codesign --flavor prod -t lib/main_prod.dart",
                "Warning: Building for device with codesigning disabled. You will have to manually codesign before "
                "deploying to device.\nBuilding com.orchard.notes for device (ios-release)...\n"
                "Running Xcode build...\nXcode build done.                                           142.8s\n"
                "✓ Built build/ios/iphoneos/Runner.app (41.2MB)",
            ),
        ],
        mistake="flutter build ios --release --flavor prod -t lib/main_prod.dart",
        lesson=(
            "This machine has no Apple signing certificates: to check that the iOS app compiles, build with "
            "--no-codesign (flutter build ios --no-codesign --flavor <f> -t lib/main_<f>.dart); signed builds run in CI."
        ),
        warn=[
            same("flutter build ios --release --flavor prod -t lib/main_prod.dart"),
            reword("flutter build ios --flavor dev -t lib/main_dev.dart"),
            reword("flutter build ios --release -t lib/main_prod.dart --flavor prod --build-number 412"),
        ],
        silent=[
            fix("flutter build ios --no-codesign --flavor dev -t lib/main_dev.dart"),
            other("flutter devices"),
            help_("flutter build ios --help"),
        ],
    ),
    Incident(
        id="b4-retry-docker-12",
        shape=RETRY,
        agent=GEMINI,
        project="basalt-ledger",
        session=[
            U("start the local stack for basalt"),
            err(
                "docker compose up -d",
                "[+] Running 3/4\n ✔ Network basalt_default    Created\n ✔ Container basalt-kafka-1  Started\n"
                " ✘ Container basalt-db-1     Error\n"
                "Error response from daemon: driver failed programming external connectivity on endpoint basalt-db-1 "
                "(8c1e4f2a9d0b): Bind for 0.0.0.0:5432 failed: port is already allocated",
            ),
            err(
                "docker compose up -d db",
                "[+] Running 0/1\n ✘ Container basalt-db-1  Error\n"
                "Error response from daemon: driver failed programming external connectivity on endpoint basalt-db-1 "
                "(8c1e4f2a9d0b): Bind for 0.0.0.0:5432 failed: port is already allocated",
            ),
            ok("ls compose*.yaml", "compose.local.yaml\ncompose.yaml"),
            ok("cat compose.local.yaml", 'services:\n  db:\n    ports: !override\n      - "55432:5432"\n'),
            ok(
                "docker compose -f compose.yaml -f compose.local.yaml up -d",
                "[+] Running 3/3\n ✔ Container basalt-db-1     Healthy\n ✔ Container basalt-kafka-1  Running\n"
                " ✔ Container basalt-api-1    Started",
            ),
        ],
        mistake="docker compose up -d",
        lesson=(
            "basalt's compose.yaml publishes postgres on 5432, which the host's own postgres already holds: start the "
            "stack with `docker compose -f compose.yaml -f compose.local.yaml up -d` (db on 55432)."
        ),
        warn=[
            same("docker compose up -d"),
            reword("docker compose up -d db kafka"),
            reword("docker compose up --detach --build"),
        ],
        silent=[
            fix("docker compose -f compose.yaml -f compose.local.yaml up -d db kafka"),
            fix("COMPOSE_FILE=compose.yaml:compose.local.yaml docker compose up -d"),
            other("docker compose ps"),
            help_("docker compose up --help"),
        ],
    ),
    Incident(
        id="b4-retry-dotnet-13",
        shape=RETRY,
        agent=CC,
        project="mosaic-portal",
        session=[
            U("run the tests"),
            err(
                "dotnet test",
                "MSBUILD : error MSB1011: Specify which project or solution file to use because this folder contains "
                "more than one project or solution file.",
            ),
            err(
                "dotnet test Mosaic.sln",
                "  Failed Mosaic.Data.IntegrationTests.TenantRepositoryTests.Creates_Tenant [1 ms]\n  Error Message:\n"
                "   System.AggregateException : One or more errors occurred. (Docker is either not running or "
                "misconfigured. Please ensure that Docker is running and that the endpoint is properly configured.)\n"
                "Failed!  - Failed:    14, Passed:     0, Skipped:     0, Total:    14 - Mosaic.Data.IntegrationTests.dll (net8.0)\n"
                "Passed!  - Failed:     0, Passed:   212, Skipped:     0, Total:   212 - Mosaic.Api.Tests.dll (net8.0)\n"
                "Passed!  - Failed:     0, Passed:    18, Skipped:     0, Total:    18 - Mosaic.Worker.Tests.dll (net8.0)",
            ),
            ok(
                "grep -rn 'Trait(\"Category\"' tests/Mosaic.Data.IntegrationTests | head -2",
                'tests/Mosaic.Data.IntegrationTests/TenantRepositoryTests.cs:9:[Trait("Category", "Integration")]\n'
                'tests/Mosaic.Data.IntegrationTests/AuditRepositoryTests.cs:8:[Trait("Category", "Integration")]',
            ),
            ok(
                'dotnet test Mosaic.sln --filter "Category!=Integration"',
                "Passed!  - Failed:     0, Passed:   212, Skipped:     0, Total:   212 - Mosaic.Api.Tests.dll (net8.0)\n"
                "Passed!  - Failed:     0, Passed:    18, Skipped:     0, Total:    18 - Mosaic.Worker.Tests.dll (net8.0)",
            ),
        ],
        mistake="dotnet test Mosaic.sln",
        lesson=(
            "There is no Docker here for mosaic's Testcontainers integration tests: run "
            '`dotnet test Mosaic.sln --filter "Category!=Integration"` (a bare `dotnet test` at the root also needs '
            "the .sln named)."
        ),
        warn=[
            same("dotnet test Mosaic.sln"),
            reword("dotnet test"),
            reword("dotnet test Mosaic.sln --no-build -v minimal"),
        ],
        silent=[
            fix('dotnet test Mosaic.sln --filter "Category!=Integration"'),
            fix("dotnet test Mosaic.sln --filter Category!=Integration --no-build"),
            other("dotnet build Mosaic.sln"),
            help_("dotnet test --help"),
        ],
    ),
    Incident(
        id="b4-retry-php-14",
        shape=RETRY,
        agent=CODEX,
        project="kestrel-shop",
        session=[
            U("run the checkout tests"),
            err(
                "php artisan test --filter=CheckoutTest",
                "\n   FAIL  Tests\\Feature\\CheckoutTest\n  ⨯ it creates an order\n  ⨯ it applies a coupon\n\n"
                "  FAILED  Tests\\Feature\\CheckoutTest > it creates an order\n"
                "  Illuminate\\Database\\QueryException\n"
                "  could not find driver (Connection: sqlite, SQL: PRAGMA foreign_keys = ON;)\n\n"
                "  Tests:    6 failed (0 assertions)",
            ),
            err(
                "php -d extension=pdo_sqlite artisan test --filter=CheckoutTest",
                "PHP Warning:  PHP Startup: Unable to load dynamic library 'pdo_sqlite' (tried: "
                "/usr/lib/php/20230831/pdo_sqlite (/usr/lib/php/20230831/pdo_sqlite: cannot open shared object file: "
                "No such file or directory)) in Unknown on line 0\n\n"
                "  could not find driver (Connection: sqlite, SQL: PRAGMA foreign_keys = ON;)\n\n"
                "  Tests:    6 failed (0 assertions)",
            ),
            ok(
                "./vendor/bin/sail artisan test --filter=CheckoutTest",
                "\n   PASS  Tests\\Feature\\CheckoutTest\n  ✓ it creates an order\n  ✓ it applies a coupon\n"
                "  ✓ it rejects an expired coupon\n\n  Tests:    6 passed (19 assertions)",
            ),
        ],
        mistake="php artisan test --filter=CheckoutTest",
        lesson=(
            "The host php in kestrel-shop lacks pdo_sqlite, which the tests use: run the test suite inside Sail, "
            "`./vendor/bin/sail artisan test`."
        ),
        warn=[
            same("php artisan test --filter=CheckoutTest"),
            reword("php artisan test"),
            reword("php artisan test --parallel --filter=CouponTest"),
        ],
        silent=[
            fix("./vendor/bin/sail artisan test --parallel --filter=CouponTest"),
            fix("./vendor/bin/sail test --filter=CheckoutTest"),
            other("php artisan route:list --path=checkout"),
            help_("php artisan test --help"),
        ],
    ),
    Incident(
        id="b4-retry-python-15",
        shape=RETRY,
        agent=GEMINI,
        project="tidewater-etl",
        session=[
            U("backfill the events for 2026-02-28"),
            err(
                "python scripts/backfill.py --date 2026-02-28",
                'Traceback (most recent call last):\n  File "/repo/scripts/backfill.py", line 3, in <module>\n'
                "    from tidewater.jobs.backfill import main\nModuleNotFoundError: No module named 'tidewater'",
            ),
            err(
                "cd scripts && python backfill.py --date 2026-02-28",
                'Traceback (most recent call last):\n  File "/repo/scripts/backfill.py", line 3, in <module>\n'
                "    from tidewater.jobs.backfill import main\nModuleNotFoundError: No module named 'tidewater'",
            ),
            ok(
                "head -3 scripts/backfill.py",
                "# legacy shim, run the job as a module from the repo root: python -m tidewater.jobs.backfill\n"
                "import sys\nfrom tidewater.jobs.backfill import main",
            ),
            ok(
                "python -m tidewater.jobs.backfill --date 2026-02-28",
                "2026-03-02 09:31:02 INFO backfill 2026-02-28: 482113 rows read\n"
                "2026-03-02 09:31:40 INFO backfill 2026-02-28: 481907 rows written (206 duplicates dropped)",
            ),
        ],
        mistake="python scripts/backfill.py --date 2026-02-28",
        lesson=(
            "tidewater isn't installed as a package, so scripts/*.py can't import it: run jobs as modules from the "
            "repo root, `python -m tidewater.jobs.backfill --date <day>`."
        ),
        warn=[
            same("python scripts/backfill.py --date 2026-02-28"),
            reword("python3 scripts/backfill.py --date 2026-03-01 --dry-run"),
            reword("cd scripts && python backfill.py --date 2026-03-01"),
        ],
        silent=[
            fix("python -m tidewater.jobs.backfill --date 2026-03-01 --dry-run"),
            fix("python3 -m tidewater.jobs.backfill --date 2026-03-01"),
            other("python --version"),
            help_("python -m tidewater.jobs.backfill --help"),
        ],
    ),
    Incident(
        id="b4-retry-gh-16",
        shape=RETRY,
        agent=CC,
        project="beacon-mono",
        session=[
            U("trigger a deploy of main to staging"),
            err(
                "gh workflow run deploy.yml",
                "could not create workflow dispatch event: HTTP 422: Required input 'environment' not provided "
                "(https://api.github.com/repos/beacon-dev/beacon-mono/actions/workflows/41822177/dispatches)",
            ),
            err(
                "gh workflow run deploy.yml -f env=staging",
                'could not create workflow dispatch event: HTTP 422: Unexpected inputs provided: ["env"] '
                "(https://api.github.com/repos/beacon-dev/beacon-mono/actions/workflows/41822177/dispatches)",
            ),
            ok(
                "gh workflow view deploy.yml --yaml | sed -n '1,12p'",
                "name: deploy\non:\n  workflow_dispatch:\n    inputs:\n      environment:\n        type: choice\n"
                "        options: [staging, production]\n        required: true",
            ),
            ok(
                "gh workflow run deploy.yml -f environment=staging --ref main",
                "✓ Created workflow_dispatch event for deploy.yml at main\n\n"
                "To see runs for this workflow, try: gh run list --workflow=deploy.yml",
            ),
        ],
        mistake="gh workflow run deploy.yml",
        lesson=(
            "beacon's deploy workflow requires the input `environment` (staging|production): "
            "gh workflow run deploy.yml -f environment=staging --ref main."
        ),
        warn=[
            same("gh workflow run deploy.yml"),
            reword("gh workflow run deploy.yml --ref release/2.4"),
            reword("gh workflow run deploy.yml -f env=production"),
        ],
        silent=[
            fix("gh workflow run deploy.yml -f environment=production --ref release/2.4"),
            fix("gh workflow run deploy.yml --raw-field environment=staging"),
            other("gh run list --workflow deploy.yml --limit 5"),
            help_("gh workflow run --help"),
        ],
    ),
    Incident(
        id="b4-retry-bazel-17",
        shape=RETRY,
        agent=CODEX,
        project="beacon-mono",
        session=[
            U("run the search service tests the way CI does"),
            err(
                "bazel test //services/search/... --config=ci",
                "ERROR: Config value 'ci' is not defined in any .rc file",
            ),
            err(
                "bazel test //services/search/... --config=remote",
                "INFO: Invocation ID: 9d4c1e2f-0a7b-4c3d-8e5f-6a1b2c3d4e5f\n"
                "ERROR: Failed to query remote execution capabilities: UNAUTHENTICATED: missing x-buildbuddy-api-key header",
            ),
            ok(
                "grep -nE '^(build|test):' .bazelrc",
                "3:build:local --disk_cache=~/.cache/bazel-disk\n"
                "4:build:remote --remote_cache=grpcs://beacon.buildbuddy.io\n5:test:local --test_output=errors",
            ),
            ok(
                "bazel test //services/search/... --config=local",
                "//services/search:search_test                                          PASSED in 3.4s\n"
                "//services/search/rank:rank_test                                       PASSED in 1.2s\n\n"
                "Executed 2 out of 2 tests: 2 tests pass.",
            ),
        ],
        mistake="bazel test //services/search/... --config=ci",
        lesson=(
            "beacon's .bazelrc defines only the configs `local` and `remote` (remote needs the key from "
            ".bazelrc.user): run locally with --config=local; there is no --config=ci."
        ),
        warn=[
            same("bazel test //services/search/... --config=ci"),
            reword("bazel build --config=ci //services/api:server"),
            reword("bazel test --config ci //..."),
        ],
        silent=[
            fix("bazel test --config=local //services/api/..."),
            other("bazel query 'tests(//services/search/...)'"),
            help_("bazel help test"),
        ],
    ),
    Incident(
        id="b4-retry-deno-18",
        shape=RETRY,
        agent=GEMINI,
        project="driftwood-edge",
        session=[
            U("run the router tests"),
            err(
                "deno test",
                'error: Uncaught (in promise) NotCapable: Requires env access to "KV_URL", run again with the '
                "--allow-env flag\n    at Object.getEnv [as get] (ext:deno_os/30_os.js:124:10)\n"
                "    at file:///repo/src/kv.ts:3:25",
            ),
            err(
                "deno test --allow-env",
                'error: Uncaught (in promise) NotCapable: Requires net access to "127.0.0.1:8787", run again with the '
                "--allow-net flag\n    at file:///repo/tests/router_test.ts:12:20",
            ),
            ok(
                "grep -A3 tasks deno.json",
                '  "tasks": {\n    "dev": "deno run --watch --allow-net --allow-env --allow-read=./routes main.ts",\n'
                '    "test": "deno test -A --env-file=.env.test"\n  },',
            ),
            ok(
                "deno task test",
                "Task test deno test -A --env-file=.env.test\nrunning 3 tests from ./tests/resolve_test.ts\n"
                "running 11 tests from ./tests/router_test.ts\n\nok | 14 passed | 0 failed (212ms)",
            ),
        ],
        mistake="deno test --allow-env",
        lesson=(
            "driftwood's tests need every permission and .env.test: run `deno task test` "
            "(deno test -A --env-file=.env.test), not a bare deno test or --allow-env alone."
        ),
        warn=[
            same("deno test --allow-env"),
            reword("deno test"),
            reword("deno test --allow-env tests/router_test.ts"),
        ],
        silent=[
            fix("deno task test"),
            fix("deno test -A --env-file=.env.test tests/router_test.ts"),
            other("deno fmt --check"),
            help_("deno test --help"),
        ],
    ),
    Incident(
        id="b4-retry-cloud-19",
        shape=RETRY,
        agent=CC,
        project="driftwood-edge",
        session=[
            U("add a redirect for /spring to the staging worker's ROUTES KV"),
            err(
                'npx wrangler kv key put --binding=ROUTES spring \'{"to":"/campaigns/spring-2026"}\'',
                '✘ [ERROR] A namespace with binding name "ROUTES" was not found in the configured "kv_namespaces".',
            ),
            err(
                'npx wrangler kv key put --binding=ROUTES --preview spring \'{"to":"/campaigns/spring-2026"}\'',
                '✘ [ERROR] A namespace with binding name "ROUTES" was not found in the configured "kv_namespaces".',
            ),
            ok(
                "grep -n -A2 'kv_namespaces' wrangler.toml",
                '14:[[env.staging.kv_namespaces]]\n15-binding = "ROUTES"\n16-id = "3c1e7d2a9b8f4e6c"\n'
                '22:[[env.production.kv_namespaces]]\n23-binding = "ROUTES"\n24-id = "9b1f0e2c7d4a4c1e"',
            ),
            ok(
                'npx wrangler kv key put --binding=ROUTES --env staging --remote spring \'{"to":"/campaigns/spring-2026"}\'',
                'Writing the value "{"to":"/campaigns/spring-2026"}" to key "spring" on namespace 3c1e7d2a9b8f4e6c.',
            ),
        ],
        mistake='npx wrangler kv key put --binding=ROUTES spring \'{"to":"/campaigns/spring-2026"}\'',
        lesson=(
            "driftwood's ROUTES KV binding only exists under env.staging / env.production in wrangler.toml: wrangler "
            "kv commands need --env staging (and --remote to reach the real namespace)."
        ),
        warn=[
            same('npx wrangler kv key put --binding=ROUTES spring \'{"to":"/campaigns/spring-2026"}\''),
            reword("npx wrangler kv key get --binding=ROUTES spring"),
            reword("npx wrangler kv key list --binding ROUTES"),
        ],
        silent=[
            fix("npx wrangler kv key get --binding=ROUTES --env staging --remote spring"),
            fix("npx wrangler kv key list --binding ROUTES --env=staging --remote"),
            other("npx wrangler kv namespace list"),
            help_("npx wrangler kv key put --help"),
        ],
    ),
    Incident(
        id="b4-retry-scripts-20",
        shape=RETRY,
        agent=CODEX,
        project="copperline",
        session=[
            U("run the checkout e2e suite"),
            err(
                "./scripts/test-e2e.sh --suite checkout",
                "error: STACK_URL is not set (e.g. STACK_URL=http://localhost:8080)",
                code=2,
            ),
            err(
                "STACK_URL=http://localhost:8080 ./scripts/test-e2e.sh --suite checkout",
                "waiting for http://localhost:8080/healthz ...\n"
                "error: stack not reachable at http://localhost:8080 after 30s (connection refused); is it up? (make stack-up)",
            ),
            ok(
                "make stack-up",
                "docker compose -f compose.yaml -f compose.e2e.yaml up -d --wait\n[+] Running 5/5\n"
                " ✔ Container copperline-db-1      Healthy\n ✔ Container copperline-ledger-1  Healthy\n"
                " ✔ Container copperline-api-1     Healthy",
            ),
            ok(
                "STACK_URL=http://localhost:8080 ./scripts/test-e2e.sh --suite checkout",
                "checkout: 24 passed, 0 failed (1m48s)",
            ),
        ],
        mistake="./scripts/test-e2e.sh --suite checkout",
        lesson=(
            "copperline's e2e script needs STACK_URL and a running stack: `make stack-up` first, then "
            "`STACK_URL=http://localhost:8080 ./scripts/test-e2e.sh --suite <name>`."
        ),
        warn=[
            same("./scripts/test-e2e.sh --suite checkout"),
            reword("bash scripts/test-e2e.sh --suite billing"),
            reword("./scripts/test-e2e.sh --suite=checkout --headed"),
        ],
        silent=[
            fix("make stack-up && STACK_URL=http://localhost:8080 ./scripts/test-e2e.sh --suite=checkout"),
            fix("STACK_URL=https://staging.copperline.dev ./scripts/test-e2e.sh --suite billing"),
            other("make stack-down"),
            help_("./scripts/test-e2e.sh --help"),
        ],
    ),
]
