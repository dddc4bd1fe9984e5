"""Shape 5: several failing variants, then one that works (diagnostics in between)."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same
from .outputs import ingest_logs, rsync_ok

_PG_AUTH = ('psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: '
            'FATAL:  password authentication failed for user "postgres"')
_CLAP_ROOT = ("error: unexpected argument '{arg}' found\n\n  tip: to pass '{arg}' as a value, use '-- {arg}'\n\n"
              "Usage: tidepool <COMMAND>\n\nFor more information, try '--help'.")
_ESLINT_NO_CONFIG = (
    "\nOops! Something went wrong! :(\n\nESLint: 9.2.0\n\nESLint couldn't find an eslint.config.(js|mjs|cjs) file.\n\n"
    "From ESLint v9.0.0, the default configuration file is now eslint.config.js.\n"
    "If you are using a .eslintrc.* file, please follow the migration guide\nto update your configuration file to the new format:\n\n"
    "https://eslint.org/docs/latest/use/configure/migration-guide\n"
)
_GIT_EDITOR = "hint: Waiting for your editor to close the file... error: There was a problem with the editor 'vi'."
_COMPOSE_V1 = "/bin/bash: line 1: docker-compose: command not found"
_ECR_INVALID = (
    "\nusage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\nTo see help text, you can run:\n\n"
    "  aws help\n  aws <command> help\n  aws <command> <subcommand> help\n\n"
    "aws: error: argument operation: Invalid choice, valid choices are:\n\n"
    "batch-check-layer-availability           | batch-delete-image\nbatch-get-image                          | complete-layer-upload\n"
    "create-repository                        | delete-lifecycle-policy\ndelete-repository                        | describe-images\n"
    "describe-repositories                    | get-authorization-token\nget-download-url-for-layer               | get-lifecycle-policy\n"
    "get-login-password                       | get-repository-policy\ninitiate-layer-upload                    | list-images\n"
    "put-image                                | tag-resource\nupload-layer-part                        | help"
)
_GOLANGCI_V2 = ('Error: can\'t load config: unsupported version of the configuration: "2" '
                "See https://golangci-lint.run/product/migration-guide for migration instructions\n"
                "The command is terminated due to an error: can't load config: unsupported version of the configuration: \"2\"")
_NO_MODULE = ('Traceback (most recent call last):\n  File "/home/dev/scraper/scraper/main.py", line 3, in <module>\n'
              "    from scraper.fetch import fetch_page\nModuleNotFoundError: No module named 'scraper'")
_EBADENGINE = (
    "npm error code EBADENGINE\nnpm error engine Unsupported engine\n"
    "npm error engine Not compatible with your version of node/npm: @acme/notify@2.3.0\n"
    "npm error notsup Not compatible with your version of node/npm: @acme/notify@2.3.0\n"
    'npm error notsup Required: {"node":">=20.11"}\nnpm error notsup Actual:   {"npm":"9.2.0","node":"v18.19.1"}\n'
    "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-04T11_02_33_120Z-debug-0.log"
)
_SIDECAR = ("error: a container name must be specified for pod ingest-5d8f7c6b9-2xk4p, choose one of: [ingest istio-proxy] "
            "or one of the init containers: [istio-init]")
_NO_RULE = "make: *** No rule to make target '{t}'.  Stop."
_XDIST = ("ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]\npytest: error: unrecognized arguments: -n\n"
          "  inifile: /home/dev/ledger-api/pyproject.toml\n  rootdir: /home/dev/ledger-api")
_SSH_CLOSED = ("rsync: connection unexpectedly closed (0 bytes received so far) [sender]\n"
               "rsync error: unexplained error (code 255) at io.c(231) [sender=3.2.7]")

INCIDENTS = [
    Incident(
        "rl-psql-local-auth", RETRY, CC, "ledger-api",
        session=[
            U("How many invoices are in my local database?"),
            err("psql -h localhost -U postgres ledger -c 'select count(*) from invoices'", _PG_AUTH, 2),
            err("psql -h localhost -U admin ledger -c 'select count(*) from invoices'",
                'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: FATAL:  role "admin" does not exist', 2),
            err("psql -h 127.0.0.1 -U postgres -d ledger -c 'select count(*) from invoices'",
                _PG_AUTH.replace('"localhost" (127.0.0.1)', '"127.0.0.1"'), 2),
            ok("docker compose ps --services", "api\ndb"),
            ok("docker compose exec db psql -U ledger ledger -c 'select count(*) from invoices'", " count \n-------\n  1342\n(1 row)"),
            A("There are 1342 invoices. The database only accepts the ledger role from inside its container."),
        ],
        mistake="psql -h localhost -U postgres ledger -c 'select count(*) from invoices'",
        lesson="ledger-api's local Postgres takes no password logins from the host: query it with docker compose exec db psql -U ledger ledger.",
        warn=[same("psql -h localhost -U postgres ledger -c 'select count(*) from invoices'"),
              reword("psql -h localhost -U postgres -d ledger -c '\\dt'")],
        silent=[fix("docker compose exec db psql -U ledger ledger -c '\\dt'"), other("psql --version"),
                other("docker compose ps")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-cli-subcommand-args", RETRY, CC, "tidepool",
        session=[
            U("Convert data/sample.parquet to CSV with our CLI."),
            err("cargo run -- --input data/sample.parquet",
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.21s\n"
                "     Running `target/debug/tidepool --input data/sample.parquet`\n" + _CLAP_ROOT.format(arg="--input"), 2),
            err("cargo run -- -i data/sample.parquet -o /tmp/sample.csv",
                "     Running `target/debug/tidepool -i data/sample.parquet -o /tmp/sample.csv`\n" + _CLAP_ROOT.format(arg="-i"), 2),
            err("cargo run -- convert --input data/sample.parquet",
                "error: unexpected argument '--input' found\n\n  tip: to pass '--input' as a value, use '-- --input'\n\n"
                "Usage: tidepool convert [OPTIONS] --out <PATH> <INPUT>\n\nFor more information, try '--help'.", 2),
            ok("cargo run -- convert --help",
               "Convert a file between formats\n\nUsage: tidepool convert [OPTIONS] --out <PATH> <INPUT>\n\n"
               "Arguments:\n  <INPUT>  Input file (.parquet, .arrow, .csv)\n\nOptions:\n"
               "  -o, --out <PATH>       Output file; format from the extension\n"
               "      --batch-size <N>   Rows per batch [default: 65536]\n  -h, --help             Print help"),
            ok("cargo run -- convert data/sample.parquet --out /tmp/sample.csv", "converted 120000 rows (4 batches) -> /tmp/sample.csv"),
            A("Converted to /tmp/sample.csv. The CLI wants `tidepool convert <INPUT> --out <PATH>`."),
        ],
        mistake="cargo run -- --input data/sample.parquet",
        lesson="tidepool's CLI takes a subcommand and a positional input: tidepool convert <INPUT> --out <PATH> (no --input/-i flag).",
        warn=[same("cargo run -- --input data/sample.parquet"), reword("cargo run --release -- --input data/big.parquet -o /tmp/big.csv")],
        silent=[fix("cargo run --release -- convert data/big.parquet --out /tmp/big.csv"), help_("cargo run -- --help"),
                other("cargo build -p tidepool-cli")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-eslint-root-flat-config", RETRY, CC, "shopfront",
        session=[
            U("Fix the lint errors in the web app."),
            err("pnpm eslint . --fix", _ESLINT_NO_CONFIG, 2),
            err("pnpm eslint apps/web/src --fix", _ESLINT_NO_CONFIG, 2),
            err("ESLINT_USE_FLAT_CONFIG=false pnpm eslint apps/web/src --fix",
                "(node:4182) ESLintRCWarning: You are using an eslintrc configuration file, which is deprecated and support will "
                "be removed in v10.0.0.\n\nOops! Something went wrong! :(\n\nESLint: 9.2.0\n\n"
                "ESLint couldn't find the config \"next/core-web-vitals\" to extend from. Please check that the name of the config "
                "is correct.", 2),
            ok("grep '\"lint\"' apps/web/package.json", '    "lint": "next lint --dir src",'),
            ok("pnpm --filter web lint -- --fix",
               "\n> web@0.1.0 lint /home/dev/shopfront/apps/web\n> next lint --dir src \"--fix\"\n\n✔ No ESLint warnings or errors"),
            A("Lint is clean. ESLint is configured inside apps/web and runs through `next lint`."),
        ],
        mistake="pnpm eslint . --fix",
        lesson="shopfront: ESLint is configured per app (next lint); run pnpm --filter web lint, not pnpm eslint from the root.",
        warn=[same("pnpm eslint . --fix"), reword("pnpm eslint apps/web/src/components --fix")],
        silent=[fix("pnpm --filter web lint"), other("pnpm prettier --check apps/web/src"), other("pnpm --filter web typecheck")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-git-rebase-interactive", RETRY, CC, "ingest",
        session=[
            U("Squash my last three commits into one before I open the PR."),
            err("git rebase -i HEAD~3", _GIT_EDITOR),
            ok("GIT_EDITOR=true git rebase -i HEAD~3", "Successfully rebased and updated refs/heads/fix/backoff-jitter."),
            ok("git log --oneline -4",
               "c3d4e5f (HEAD -> fix/backoff-jitter) backoff: tests\nb2c3d4e backoff: cap at 30s\na1b2c3d backoff: add full jitter\n"
               "9f8e7d6 (origin/main, main) sink: batch size from config"),
            err("git rebase -i --autosquash HEAD~3", _GIT_EDITOR),
            ok('git reset --soft HEAD~3 && git commit -m "backoff: add full jitter, cap at 30s"',
               "[fix/backoff-jitter 5e6f7a8] backoff: add full jitter, cap at 30s\n 3 files changed, 48 insertions(+), 9 deletions(-)"),
            A("Squashed into one commit. Interactive rebase needs an editor, which this shell doesn't have; `git reset --soft` does the squash."),
        ],
        mistake="git rebase -i HEAD~3",
        lesson="No editor in the agent's shell: git rebase -i fails or does nothing; squash with git reset --soft HEAD~N && git commit -m ….",
        warn=[same("git rebase -i HEAD~3"), reword("git rebase -i origin/main")],
        silent=[fix('git reset --soft HEAD~2 && git commit -m "sink: retry inserts"'), other("git rebase origin/main"),
                help_("git rebase --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-docker-compose-v1-missing", RETRY, CC, "ledger-api",
        session=[
            U("Bring up the database."),
            err("docker-compose up -d db", _COMPOSE_V1, 127),
            err("docker-compose -f docker-compose.yml up -d db", _COMPOSE_V1, 127),
            err("/usr/local/bin/docker-compose up -d db", "/bin/bash: line 1: /usr/local/bin/docker-compose: No such file or directory", 127),
            ok("docker compose version", "Docker Compose version v2.27.0"),
            ok("docker compose up -d db", "[+] Running 1/1\n ✔ Container ledger-api-db-1  Started"),
            A("The database is up. Only Compose v2 (the `docker compose` plugin) is installed."),
        ],
        mistake="docker-compose up -d db",
        lesson="Only Compose v2 is installed: use docker compose (the plugin), not docker-compose.",
        warn=[same("docker-compose up -d db"), reword("docker-compose logs -f api")],
        silent=[fix("docker compose logs -f api"), other("docker ps"), other("docker compose version")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-aws-ecr-get-login", RETRY, CODEX, "billing-svc",
        session=[
            U("Push billing:dev to our ECR repository."),
            err("aws ecr get-login --no-include-email --region eu-west-1", _ECR_INVALID, 252),
            err("aws ecr get-login --region eu-west-1", _ECR_INVALID, 252),
            err("aws ecr get-authorization-token --region eu-west-1 | docker login --username AWS --password-stdin "
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com",
                "Error response from daemon: login attempt to https://123456789012.dkr.ecr.eu-west-1.amazonaws.com/v2/ "
                "failed with status: 400 Bad Request"),
            ok("aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin "
               "123456789012.dkr.ecr.eu-west-1.amazonaws.com", "Login Succeeded"),
            ok("docker tag billing:dev 123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing:dev && "
               "docker push 123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing:dev",
               "The push refers to repository [123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing]\n5f70bf18a086: Pushed\n"
               "c2adabaecedb: Pushed\ndev: digest: sha256:3b1f9e2d4c5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e size: 1573"),
            A("Pushed. AWS CLI v2 has no `get-login`; `get-login-password | docker login` is the way."),
        ],
        mistake="aws ecr get-login --no-include-email --region eu-west-1",
        lesson="AWS CLI v2 has no aws ecr get-login: use aws ecr get-login-password --region R | docker login --username AWS --password-stdin <registry>.",
        warn=[same("aws ecr get-login --no-include-email --region eu-west-1"),
              reword("aws ecr get-login --region us-east-1 --registry-ids 123456789012")],
        silent=[fix("aws ecr get-login-password --region us-east-1 | docker login --username AWS --password-stdin "
                    "123456789012.dkr.ecr.us-east-1.amazonaws.com"),
                other("aws ecr describe-repositories --region eu-west-1"), help_("aws ecr help")],
        variants=(),
    ),
    Incident(
        "rl-golangci-lint-v2-config", RETRY, CODEX, "ingest",
        session=[
            U("Run the linter on the repo."),
            err("golangci-lint run", _GOLANGCI_V2, 3),
            err("golangci-lint run ./...", _GOLANGCI_V2, 3),
            err("golangci-lint run --config .golangci.yml ./internal/...", _GOLANGCI_V2, 3),
            ok("golangci-lint --version", "golangci-lint has version 1.59.1 built with go1.22.3 from 1a55854a on 2024-06-09T18:08:33Z"),
            ok("go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.1.6 run ./...", "0 issues."),
            A("No lint issues. The repo's .golangci.yml is a v2 config and the installed golangci-lint is 1.59."),
        ],
        mistake="golangci-lint run",
        lesson="ingest's .golangci.yml is v2 but the installed golangci-lint is 1.59: run go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.1.6 run ./...",
        warn=[same("golangci-lint run"), reword("golangci-lint run --fix ./internal/sink/...")],
        silent=[fix("go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.1.6 run ./internal/sink/..."),
                other("go vet ./..."), help_("golangci-lint --version")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-python-script-in-package", RETRY, GEMINI, "scraper",
        session=[
            U("Run the scraper for the first 5 pages."),
            err("python scraper/main.py --pages 5", _NO_MODULE),
            err("python3 scraper/main.py --pages 5", _NO_MODULE),
            err("cd scraper && python main.py --pages 5", _NO_MODULE),
            ok("poetry run python -m scraper.main --pages 5", "fetched 5 pages, 120 listings -> data/interim/listings-2026-03-04.jl"),
            A("Done: 120 listings. scraper is a package, so it runs as a module inside the poetry environment."),
        ],
        mistake="python scraper/main.py --pages 5",
        lesson="scraper is a package: run it as a module in the poetry env (poetry run python -m scraper.main), not python scraper/main.py.",
        warn=[same("python scraper/main.py --pages 5"), reword("python scraper/cli.py export --since 2026-01-01")],
        silent=[fix("poetry run python -m scraper.cli export --since 2026-01-01"), other("python3 --version"),
                help_("poetry run python -m scraper.main --help")],
        variants=(),
    ),
    Incident(
        "rl-node-version-nvm", RETRY, GEMINI, "notify",
        session=[
            U("Install the dependencies and run the tests."),
            err("npm ci", _EBADENGINE),
            err("npm install", _EBADENGINE),
            ok("cat .nvmrc", "20.11.1"),
            err("nvm use", "bash: line 1: nvm: command not found", 127),
            ok("source ~/.nvm/nvm.sh && nvm use && npm ci",
               "Found '/home/dev/notify/.nvmrc' with version <20.11.1>\nNow using node v20.11.1 (npm v10.2.4)\n\n"
               "added 412 packages, and audited 413 packages in 6s\n\nfound 0 vulnerabilities"),
            ok("source ~/.nvm/nvm.sh && nvm use >/dev/null && npm test",
               "> @acme/notify@2.3.0 test\n> jest\n\nPASS src/__tests__/render.test.ts\nPASS src/__tests__/send.test.ts\n\n"
               "Test Suites: 2 passed, 2 total\nTests:       17 passed, 17 total"),
            A("All 17 tests pass on Node 20. The shell starts on Node 18; nvm has to be sourced first."),
        ],
        mistake="npm ci",
        lesson="notify needs Node 20 (.nvmrc) but the shell starts on Node 18: run source ~/.nvm/nvm.sh && nvm use before npm ci / npm install.",
        warn=[same("npm ci"), reword("npm install --save-dev @types/node@20")],
        silent=[fix("source ~/.nvm/nvm.sh && nvm use && npm install --save-dev @types/node@20"), other("npm view @acme/notify versions"),
                help_("npm help ci")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-kubectl-logs-sidecar", RETRY, CC, "infra",
        session=[
            U("Why is ingest restarting on staging? Check the logs."),
            err("kubectl --context staging-eks logs deploy/ingest -n ingest", "Found 3 pods, using pod/ingest-5d8f7c6b9-2xk4p\n" + _SIDECAR),
            err("kubectl --context staging-eks logs deploy/ingest -n ingest --tail=200",
                "Found 3 pods, using pod/ingest-5d8f7c6b9-2xk4p\n" + _SIDECAR),
            err("kubectl --context staging-eks logs -l app=ingest -n ingest --tail=200", _SIDECAR),
            ok("kubectl --context staging-eks logs deploy/ingest -n ingest -c ingest --tail=200", ingest_logs()),
            A("ingest is OOM-killing ClickHouse inserts: the batch size of 5000 exceeds the query memory limit. "
              "The pods have an istio-proxy sidecar, so logs need `-c ingest`."),
        ],
        mistake="kubectl --context staging-eks logs deploy/ingest -n ingest",
        lesson="infra: pods run an istio-proxy sidecar, so kubectl logs needs -c <container> (e.g. -c ingest).",
        warn=[same("kubectl --context staging-eks logs deploy/ingest -n ingest"),
              reword("kubectl --context staging-eks logs ingest-5d8f7c6b9-9qwer -n ingest --since=10m"),
              reword("kubectl --context staging-eks logs deploy/billing -n billing -f")],
        silent=[fix("kubectl --context staging-eks logs deploy/billing -n billing -c billing -f"),
                other("kubectl --context staging-eks get pods -n ingest"), help_("kubectl logs --help")],
        variants=("long_output",),
    ),
    Incident(
        "rl-make-target-names", RETRY, CC, "billing-svc",
        session=[
            U("Run the database migrations."),
            err("make migrate", _NO_RULE.format(t="migrate"), 2),
            err("make db-migrate", _NO_RULE.format(t="db-migrate"), 2),
            err("make migrations", _NO_RULE.format(t="migrations"), 2),
            ok("make help",
               "build          Build the billing binary\nlint           Run golangci-lint\n"
               "migrate-up     Apply pending migrations (goose)\nmigrate-down   Roll back the last migration\n"
               "migrate-new    Create a migration: make migrate-new NAME=...\nunit           Unit tests"),
            ok("make migrate-up",
               "goose -dir migrations postgres \"$DATABASE_URL\" up\n"
               "2026/03/04 11:20:01 OK   20260301090000_add_invoice_issued_at.sql (12.4ms)\n"
               "2026/03/04 11:20:01 goose: successfully migrated database to version: 20260301090000"),
            A("Migrated. The targets are migrate-up / migrate-down / migrate-new."),
        ],
        mistake="make migrate",
        lesson="billing-svc's Makefile has migrate-up / migrate-down / migrate-new (make help); there is no make migrate.",
        warn=[same("make migrate"), reword("make db-migrate ENV=staging")],
        silent=[fix("make migrate-down"), other("make build"), help_("make help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-pytest-xdist-missing", RETRY, CC, "ledger-api",
        session=[
            U("The test suite is slow; run it in parallel."),
            err("uv run pytest -n 4", _XDIST, 4),
            err("uv run pytest -n auto tests/", _XDIST, 4),
            err("uv run pytest -p xdist -n 4",
                "Traceback (most recent call last):\n  File \"/home/dev/ledger-api/.venv/bin/pytest\", line 8, in <module>\n"
                "    sys.exit(console_main())\n"
                "ImportError: Error importing plugin \"xdist\": No module named 'xdist'"),
            ok("uv run pytest -q",
               "........................................................................ [ 71%]\n"
               ".............................                                            [100%]\n101 passed in 38.12s"),
            A("101 passed in 38 s. pytest-xdist isn't installed, so `-n` isn't available."),
        ],
        mistake="uv run pytest -n 4",
        lesson="ledger-api has no pytest-xdist: pytest -n fails (unrecognized arguments); run uv run pytest without -n.",
        warn=[same("uv run pytest -n 4"), reword("uv run pytest tests/api -n auto -q")],
        silent=[fix("uv run pytest tests/api -q"), other("uv run pytest --co -q"), help_("uv run pytest --help")],
        variants=(),
    ),
    Incident(
        "rl-rsync-deploy-host", RETRY, CC, "shopfront",
        session=[
            U("Deploy the static export in apps/web/out to the web box."),
            err("rsync -av apps/web/out/ deploy@web1:/srv/shopfront/",
                "ssh: Could not resolve hostname web1: Name or service not known\n" + _SSH_CLOSED, 255),
            err("rsync -av apps/web/out/ deploy@web1.internal:/srv/shopfront/",
                "deploy@web1.internal: Permission denied (publickey).\n" + _SSH_CLOSED, 255),
            ok("grep -n -i 'web1' docs/deploy.md",
               "12:The web box is web1.internal; sshd listens on 2222 and only accepts the deploy key ~/.ssh/deploy_ed25519."),
            err("rsync -av -e 'ssh -i ~/.ssh/deploy_ed25519' apps/web/out/ deploy@web1.internal:/srv/shopfront/",
                "ssh: connect to host web1.internal port 22: Connection refused\n" + _SSH_CLOSED, 255),
            ok("rsync -av -e 'ssh -p 2222 -i ~/.ssh/deploy_ed25519' apps/web/out/ deploy@web1.internal:/srv/shopfront/", rsync_ok()),
            A("Deployed. The box is web1.internal, sshd on port 2222, deploy key ~/.ssh/deploy_ed25519."),
        ],
        mistake="rsync -av apps/web/out/ deploy@web1:/srv/shopfront/",
        lesson="shopfront deploys to deploy@web1.internal:/srv/shopfront/ over ssh port 2222 with ~/.ssh/deploy_ed25519: rsync -e 'ssh -p 2222 -i ~/.ssh/deploy_ed25519' ….",
        warn=[same("rsync -av apps/web/out/ deploy@web1:/srv/shopfront/"),
              reword("rsync -avz --delete apps/web/out/ deploy@web1.internal:/srv/shopfront/")],
        silent=[fix("rsync -avz --delete -e 'ssh -p 2222 -i ~/.ssh/deploy_ed25519' apps/web/out/ deploy@web1.internal:/srv/shopfront/"),
                other("rsync -a --exclude node_modules apps/web/public/ /tmp/public-backup/"), help_("rsync --version")],
        variants=("diagnostic", "long_output"),
    ),
]
