"""Shape 1: a call fails, a different call works (across diagnostics and program changes)."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, U, err, fix, help_, ok, other, reword, same
from .outputs import (
    cargo_compiling,
    docker_build_ok,
    openssl_sys_failure,
    pnpm_install_ok,
)

INCIDENTS = [
    Incident(
        "ef-npm-in-pnpm-workspace",
        ERROR_FIX,
        CC,
        "shopfront",
        session=[
            U("Install the dependencies and get the web app building locally."),
            A("I'll install the dependencies first."),
            err(
                "npm install",
                'npm error code EUNSUPPORTEDPROTOCOL\nnpm error Unsupported URL Type "workspace:": workspace:*\n'
                "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-02T09_14_03_112Z-debug-0.log",
            ),
            ok("ls", "apps\nnode_modules\npackage.json\npackages\npnpm-lock.yaml\npnpm-workspace.yaml\nturbo.json"),
            A(
                "There is a pnpm-lock.yaml and a pnpm-workspace.yaml: this is a pnpm workspace, so npm can't resolve `workspace:*`."
            ),
            ok("pnpm install", pnpm_install_ok(1187)),
            A("Dependencies are installed with pnpm."),
        ],
        mistake="npm install",
        lesson="shopfront is a pnpm workspace: npm install fails with EUNSUPPORTEDPROTOCOL on workspace:* deps; use pnpm install / pnpm add.",
        warn=[same("npm install"), reword("npm install zod --save")],
        silent=[
            fix("pnpm install"),
            fix("pnpm add zod --filter web"),
            other("npm view next version"),
            help_("npm --help"),
        ],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "ef-alembic-config-path",
        ERROR_FIX,
        CC,
        "ledger-api",
        session=[
            U("Apply the pending migrations to my local database."),
            err(
                "uv run alembic upgrade head",
                "  FAILED: No config file 'alembic.ini' found, or file has no '[alembic]' section",
            ),
            ok("ls migrations", "alembic.ini\nenv.py\nscript.py.mako\nversions"),
            ok(
                "uv run alembic -c migrations/alembic.ini upgrade head",
                "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                "INFO  [alembic.runtime.migration] Running upgrade 3f2a9c1d7b4e -> 8d1e0b6a2c55, add invoice due_at",
            ),
            A(
                "Migrated to head (8d1e0b6a2c55). The alembic config lives in migrations/, so it needs `-c migrations/alembic.ini`."
            ),
        ],
        mistake="uv run alembic upgrade head",
        lesson="alembic.ini is in migrations/: run alembic with -c migrations/alembic.ini (uv run alembic -c migrations/alembic.ini upgrade head).",
        warn=[
            same("uv run alembic upgrade head"),
            reword('uv run alembic revision --autogenerate -m "add payment_method to invoices"'),
        ],
        silent=[
            fix("uv run alembic -c migrations/alembic.ini upgrade head"),
            other("uv run alembic -c migrations/alembic.ini history --verbose"),
            help_("uv run alembic --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-go-run-single-file",
        ERROR_FIX,
        CC,
        "ingest",
        session=[
            U("Check that the ingest service still starts with the new config loader."),
            err(
                "go run cmd/ingest/main.go -check-config",
                "# command-line-arguments\ncmd/ingest/main.go:23:9: undefined: newServer\ncmd/ingest/main.go:31:14: undefined: loadConfig",
            ),
            ok("ls cmd/ingest", "config.go\nmain.go\nserver.go"),
            A("main.go is only one file of the package; `go run` on a file leaves out config.go and server.go."),
            ok("go run ./cmd/ingest -check-config", "config ok: 4 shards, sink=clickhouse, batch=500"),
        ],
        mistake="go run cmd/ingest/main.go",
        lesson="cmd/ingest has several files: go run cmd/ingest/main.go fails with undefined symbols; run the package: go run ./cmd/ingest.",
        warn=[
            same("go run cmd/ingest/main.go -check-config"),
            reword("go run cmd/ingest/main.go"),
            reword("go run cmd/backfill/main.go --from 2026-01-01"),
        ],
        silent=[
            fix("go run ./cmd/ingest -check-config"),
            fix("go run ./cmd/backfill --from 2026-01-01"),
            other("go vet ./cmd/..."),
            help_("go help run"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-cargo-features-virtual-workspace",
        ERROR_FIX,
        CC,
        "tidepool",
        session=[
            U("Build a release binary with the SIMD code path enabled."),
            err(
                "cargo build --release --features simd",
                "error: none of the selected packages contains these features: simd",
                101,
            ),
            ok(
                "cat Cargo.toml",
                '[workspace]\nmembers = ["crates/tidepool-core", "crates/tidepool-cli", "crates/tidepool-net"]\nresolver = "2"\n\n'
                '[workspace.package]\nversion = "0.4.0"\nedition = "2021"\n',
            ),
            ok('grep -n "simd" crates/*/Cargo.toml', 'crates/tidepool-core/Cargo.toml:18:simd = ["dep:wide"]'),
            ok(
                "cargo build --release -p tidepool-core --features simd",
                cargo_compiling(["wide v0.7.15", "tidepool-core v0.4.0 (/home/dev/tidepool/crates/tidepool-core)"])
                + "\n    Finished `release` profile [optimized] target(s) in 41.32s",
            ),
            A(
                "Built. The root Cargo.toml is a virtual workspace, so features must be given with the package: `-p tidepool-core --features simd`."
            ),
        ],
        mistake="cargo build --release --features simd",
        lesson="tidepool's root is a virtual workspace: --features simd needs the package, cargo build -p tidepool-core --features simd.",
        warn=[same("cargo build --release --features simd"), reword("cargo bench --features simd")],
        silent=[
            fix("cargo build --release -p tidepool-core --features simd"),
            other("cargo build --release"),
            help_("cargo build --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-terraform-var-file",
        ERROR_FIX,
        CC,
        "infra",
        session=[
            U("Show me what the new NAT gateway change would do in staging."),
            err(
                "terraform plan",
                '╷\n│ Error: No value for required variable\n│ \n│   on variables.tf line 1:\n│    1: variable "environment" {\n│ \n'
                '│ The root module input variable "environment" is not set, and has no default value. Use a -var or\n'
                "│ -var-file command line argument to provide a value for this variable.\n╵",
            ),
            ok("ls envs", "prod.tfvars\nstaging.tfvars"),
            ok(
                "terraform plan -var-file=envs/staging.tfvars",
                "module.vpc.aws_eip.nat[0]: Refreshing state... [id=eipalloc-0a1b2c3d4e5f67890]\n"
                "module.vpc.aws_nat_gateway.this[0]: Refreshing state... [id=nat-0123456789abcdef0]\n\n"
                "Terraform will perform the following actions:\n\n"
                '  # module.vpc.aws_nat_gateway.this[1] will be created\n  + resource "aws_nat_gateway" "this" {\n'
                '      + allocation_id = (known after apply)\n      + connectivity_type = "public"\n    }\n\n'
                "Plan: 2 to add, 1 to change, 0 to destroy.",
            ),
            A("Plan for staging: 2 to add, 1 to change. Every plan here needs the environment's var file."),
        ],
        mistake="terraform plan",
        lesson="infra's root module needs an environment: run terraform plan/apply with -var-file=envs/<env>.tfvars.",
        warn=[same("terraform plan"), reword("terraform plan -out=tfplan -target=module.vpc")],
        silent=[
            fix("terraform plan -var-file=envs/prod.tfvars"),
            other("terraform fmt -check -recursive"),
            help_("terraform plan -help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-python-m-pytest-not-in-venv",
        ERROR_FIX,
        CC,
        "ledger-api",
        session=[
            U("Run the invoice tests."),
            err("python -m pytest tests/test_invoices.py -q", "/usr/bin/python: No module named pytest"),
            ok(
                "uv run pytest tests/test_invoices.py -q",
                "........                                                                 [100%]\n8 passed in 0.61s",
            ),
            A("8 passed. pytest is only in the project's uv environment, so tests run with `uv run pytest`."),
        ],
        mistake="python -m pytest tests/test_invoices.py -q",
        lesson="ledger-api's tools live in the uv environment: the system python has no pytest; run uv run pytest.",
        warn=[same("python -m pytest tests/test_invoices.py -q"), reword("python3 -m pytest tests/api -x")],
        silent=[
            fix("uv run pytest tests/test_invoices.py -q"),
            other("python3 --version"),
            help_("uv run pytest --help"),
        ],
        variants=("other_program",),
    ),
    Incident(
        "ef-docker-build-dockerfile-path",
        ERROR_FIX,
        CODEX,
        "billing-svc",
        session=[
            U("Build the billing image locally as billing:dev."),
            err(
                "docker build -t billing:dev .",
                "[+] Building 0.0s (1/1) FINISHED                                 docker:default\n"
                " => [internal] load build definition from Dockerfile              0.0s\n"
                " => => transferring dockerfile: 2B                                0.0s\n"
                "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory",
            ),
            ok("ls deploy", "Dockerfile\ndocker-compose.ci.yml\nentrypoint.sh"),
            ok("docker build -f deploy/Dockerfile -t billing:dev .", docker_build_ok("billing:dev")),
            A("Built billing:dev. The Dockerfile is in deploy/, so the build needs `-f deploy/Dockerfile`."),
        ],
        mistake="docker build -t billing:dev .",
        lesson="billing-svc's Dockerfile is deploy/Dockerfile: docker build needs -f deploy/Dockerfile (context stays .).",
        warn=[
            same("docker build -t billing:dev ."),
            reword("docker build -t billing:pr-412 --build-arg GO_VERSION=1.22 ."),
        ],
        silent=[
            fix("docker build -f deploy/Dockerfile -t billing:pr-412 ."),
            other("docker image ls billing"),
            help_("docker build --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-kubectl-apply-kustomize",
        ERROR_FIX,
        CODEX,
        "billing-svc",
        session=[
            U("Deploy the updated billing manifests to staging."),
            err(
                "kubectl apply -f k8s/",
                'error: error validating "k8s/kustomization.yaml": error validating data: [apiVersion not set, kind not set]; '
                "if you choose to ignore these errors, turn validation off with --validate=false",
            ),
            ok(
                "ls -R k8s",
                "k8s:\nbase\nkustomization.yaml\noverlays\n\nk8s/base:\ndeployment.yaml\nkustomization.yaml\nservice.yaml\n\n"
                "k8s/overlays:\nprod\nstaging\n\nk8s/overlays/prod:\nkustomization.yaml\npatch-replicas.yaml\n\n"
                "k8s/overlays/staging:\nkustomization.yaml\npatch-replicas.yaml",
            ),
            ok(
                "kubectl apply -k k8s/overlays/staging",
                "configmap/billing-config-7g2k9m2h8t created\nservice/billing unchanged\ndeployment.apps/billing configured",
            ),
            A("Deployed to staging with kustomize (`kubectl apply -k k8s/overlays/staging`)."),
        ],
        mistake="kubectl apply -f k8s/",
        lesson="billing-svc's manifests are kustomize overlays: deploy with kubectl apply -k k8s/overlays/<env>, not -f k8s/.",
        warn=[same("kubectl apply -f k8s/"), reword("kubectl apply -f k8s/ -n billing --dry-run=server")],
        silent=[
            fix("kubectl apply -k k8s/overlays/prod"),
            other("kubectl get deploy billing -n billing"),
            help_("kubectl apply --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-npx-in-yarn-pnp",
        ERROR_FIX,
        GEMINI,
        "dash",
        session=[
            U("Typecheck the project."),
            err(
                "npx tsc --noEmit",
                "                \n                This is not the tsc command you are looking for\n                \n\n"
                "To get access to the TypeScript compiler, tsc, from the command line either:\n\n"
                "- Use npm install typescript to first add TypeScript to your project before using npx\n"
                "- Use yarn to avoid accidentally running code from un-installed packages",
            ),
            ok("cat .yarnrc.yml", "nodeLinker: pnp\n\nyarnPath: .yarn/releases/yarn-4.1.1.cjs"),
            ok("yarn tsc --noEmit", ""),
            A(
                "Typecheck passes. The repo uses Yarn PnP (no node_modules), so binaries must run through yarn, not npx."
            ),
        ],
        mistake="npx tsc --noEmit",
        lesson="dash uses Yarn PnP (no node_modules/.bin): npx can't see the repo's tools; run them with yarn (yarn tsc, yarn vitest).",
        warn=[same("npx tsc --noEmit"), reword("npx tsc -p tsconfig.node.json"), reword("npx vitest run src/utils")],
        silent=[fix("yarn tsc --noEmit"), fix("yarn tsc -p tsconfig.node.json --noEmit"), help_("npx --help")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "ef-helm-values-path",
        ERROR_FIX,
        GEMINI,
        "billing-svc",
        session=[
            U("Roll the new billing chart out to staging."),
            err(
                "helm upgrade --install billing charts/billing -n billing -f values-staging.yaml",
                "Error: open values-staging.yaml: no such file or directory",
            ),
            ok(
                "ls charts/billing", "Chart.yaml\ncharts\ntemplates\nvalues-prod.yaml\nvalues-staging.yaml\nvalues.yaml"
            ),
            ok(
                "helm upgrade --install billing charts/billing -n billing -f charts/billing/values-staging.yaml",
                'Release "billing" has been upgraded. Happy Helming!\nNAME: billing\nLAST DEPLOYED: Tue Mar  3 11:02:17 2026\n'
                "NAMESPACE: billing\nSTATUS: deployed\nREVISION: 14\nTEST SUITE: None",
            ),
            A("Upgraded to revision 14. The per-environment values files live inside the chart directory."),
        ],
        mistake="helm upgrade --install billing charts/billing -n billing -f values-staging.yaml",
        lesson="billing's values files live in charts/billing/: pass -f charts/billing/values-<env>.yaml, not -f values-<env>.yaml.",
        warn=[
            same("helm upgrade --install billing charts/billing -n billing -f values-staging.yaml"),
            reword("helm template billing charts/billing -f values-prod.yaml"),
        ],
        silent=[
            fix("helm upgrade --install billing charts/billing -n billing -f charts/billing/values-prod.yaml"),
            other("helm list -n billing"),
            help_("helm upgrade --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-openssl-sys-use-rustls",
        ERROR_FIX,
        CC,
        "relay",
        session=[
            U("Build relay and make sure it compiles after the reqwest bump."),
            err("cargo build", openssl_sys_failure(), 101),
            ok(
                'grep -n -A3 "\\[features\\]" Cargo.toml',
                '31:[features]\n32-default = ["native-tls"]\n33-native-tls = ["reqwest/native-tls"]\n34-rustls = ["reqwest/rustls-tls"]',
            ),
            ok(
                "cargo build --no-default-features --features rustls",
                cargo_compiling(
                    ["rustls v0.23.5", "hyper-rustls v0.26.0", "reqwest v0.12.4", "relay v0.3.1 (/home/dev/relay)"]
                )
                + "\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 58.07s",
            ),
            A(
                "It builds with rustls. There are no OpenSSL headers on this machine, so the default native-tls feature can't build."
            ),
        ],
        mistake="cargo build",
        lesson="relay: no OpenSSL dev headers here, the default native-tls build fails in openssl-sys; build with --no-default-features --features rustls.",
        warn=[same("cargo build"), reword("cargo run --release -- --listen 0.0.0.0:9000")],
        silent=[
            fix("cargo build --no-default-features --features rustls"),
            other("cargo fmt --check"),
            help_("cargo build --help"),
        ],
        variants=("diagnostic", "long_output"),
    ),
    Incident(
        "ef-bsd-sed-inplace",
        ERROR_FIX,
        CC,
        "shopfront",
        session=[
            U("Point the example env at the API on port 4000 instead of 3000."),
            err(
                "sed -i '' 's/localhost:3000/localhost:4000/' apps/web/.env.example",
                "sed: can't read s/localhost:3000/localhost:4000/: No such file or directory",
                2,
            ),
            ok("sed --version | head -1", "sed (GNU sed) 4.9"),
            ok("sed -i 's/localhost:3000/localhost:4000/' apps/web/.env.example", ""),
            A("Done. This is GNU sed: `-i ''` is the macOS form; GNU sed takes `-i` with no argument."),
        ],
        mistake="sed -i '' 's/localhost:3000/localhost:4000/' apps/web/.env.example",
        lesson="GNU sed here: sed -i '' (BSD/macOS syntax) treats the script as a file name; use sed -i 's/…/…/' file.",
        warn=[
            same("sed -i '' 's/localhost:3000/localhost:4000/' apps/web/.env.example"),
            reword('sed -i \'\' -e \'s/"version": "1.4.0"/"version": "1.5.0"/\' apps/web/package.json'),
        ],
        silent=[
            fix(
                "sed -i 's/NEXT_PUBLIC_API_URL=.*/NEXT_PUBLIC_API_URL=http:\\/\\/localhost:4000/' apps/web/.env.example"
            ),
            other("sed -n '1,40p' apps/web/next.config.mjs"),
            help_("sed --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-aws-s3-sync-profile",
        ERROR_FIX,
        CODEX,
        "docs-site",
        session=[
            U("Publish the built docs to the production bucket."),
            err(
                "aws s3 sync build/ s3://docs-site-prod --delete",
                "fatal error: An error occurred (AccessDenied) when calling the ListObjectsV2 operation: Access Denied",
            ),
            ok(
                "aws sts get-caller-identity",
                '{\n    "UserId": "AROATEXAMPLE7EXAMPLE:dev@example.com",\n    "Account": "210987654321",\n'
                '    "Arn": "arn:aws:sts::210987654321:assumed-role/ReadOnlyAccess/dev@example.com"\n}',
            ),
            ok(
                "grep -A3 'profile docs-deploy' ~/.aws/config",
                "[profile docs-deploy]\nrole_arn = arn:aws:iam::210987654321:role/docs-deploy\nsource_profile = default\nregion = eu-west-1",
            ),
            ok(
                "aws s3 sync build/ s3://docs-site-prod --delete --profile docs-deploy",
                "upload: build/index.html to s3://docs-site-prod/index.html\nupload: build/sitemap.xml to s3://docs-site-prod/sitemap.xml\n"
                "upload: build/docs/intro/index.html to s3://docs-site-prod/docs/intro/index.html\n"
                "delete: s3://docs-site-prod/docs/old-setup/index.html",
            ),
            A(
                "Published. The default credentials are a read-only role; writes to the docs bucket need `--profile docs-deploy`."
            ),
        ],
        mistake="aws s3 sync build/ s3://docs-site-prod --delete",
        lesson="docs-site: the default AWS identity is read-only; bucket writes and invalidations need --profile docs-deploy.",
        warn=[
            same("aws s3 sync build/ s3://docs-site-prod --delete"),
            reword("aws s3 cp build/sitemap.xml s3://docs-site-prod/sitemap.xml"),
            reword('aws cloudfront create-invalidation --distribution-id E2ABCDEF123456 --paths "/*"'),
        ],
        silent=[
            fix("aws s3 sync build/ s3://docs-site-staging --delete --profile docs-deploy"),
            other("aws sts get-caller-identity"),
            help_("aws s3 sync help"),
        ],
        variants=("diagnostic",),
    ),
]
