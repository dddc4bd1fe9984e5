"""Sealed split, shape 5 (part b): the agent retries a failing call with small variations until one works."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
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
    read,
    reword,
    same,
)
from ._eco import eco

_PG_MISMATCH = ("pg_dump: error: aborting because of server version mismatch\n"
                "pg_dump: detail: server version: 16.4 (Debian 16.4-1.pgdg120+2); pg_dump version: 14.13 (Ubuntu 14.13-0ubuntu0.22.04.1)")

_MONGO_EVAL = "--quiet --eval 'db.orders.countDocuments()'"

_LANTERN_USAGE = ("flag provided but not defined: -config\nUsage: lanternd <command> [flags]\n\nCommands:\n"
                  "  serve     run the daemon\n  migrate   apply database migrations\n  version   print the version\n\n"
                  "Run 'lanternd <command> -h' for command flags.\nexit status 2")

_SECRET = "dotnet user-secrets set \"Stripe:ApiKey\" \"sk_test_51NxDevKey\""
_NO_SECRETS_ID = ("Could not find the global property 'UserSecretsId' in MSBuild project '/home/dev/sundial-ledger/{p}'. "
                  "Ensure this property is set in the project or use the '--id' command line option.")

_RUBY_MISMATCH = "Your Ruby version is 3.2.3, but your Gemfile specified ~> 3.3.6"

_TF_NO_BUCKET = ("Initializing the backend...\n╷\n│ Error: Missing Required Value\n│ \n│   on backend.tf line 3, in terraform:\n"
                 "│    3:   backend \"s3\" {\n│ \n│ The attribute \"bucket\" is required by the backend.\n│ \n"
                 "│ Refer to the backend documentation for additional information which attributes are required.\n╵")

_CTX = "kubectl --context kestrel-staging -n edge"
_POD = "gateway-7d9c5fb6d-x2k4q"
_EXEC_FAIL = ("error: Internal error occurred: error executing command in container: failed to exec in container: "
              "failed to start exec \"5f0c1e2a\": OCI runtime exec failed: exec failed: unable to start container process: "
              "exec: \"{b}\": {why}: unknown\ncommand terminated with exit code 126")

_ADMIN = "https://admin.owlpost.dev/v1/queues/digest"
_UNAUTH = "{\"error\":\"unauthorized\"}\ncurl: (22) The requested URL returned error: 401"

_ESM_TS = ("node:internal/modules/esm/get_format:189\n  throw new ERR_UNKNOWN_FILE_EXTENSION(ext, filepath);\n        ^\n\n"
           "TypeError [ERR_UNKNOWN_FILE_EXTENSION]: Unknown file extension \".ts\" for /home/dev/harborview/scripts/seed.ts\n"
           "    at Object.getFileProtocolModuleFormat [as file:] (node:internal/modules/esm/get_format:189:9)\n"
           "    at defaultGetFormat (node:internal/modules/esm/get_format:232:36) {\n  code: 'ERR_UNKNOWN_FILE_EXTENSION'\n}\n\n"
           "Node.js v20.18.1")

_AR = "https://europe-west1-python.pkg.dev/nimbus-prod/pypi/simple/"

_BOOT_NO_PROFILE = (
    "[INFO] --- spring-boot:3.3.5:run (default-cli) @ quayside ---\n[INFO] Attaching agents: []\n\n"
    " :: Spring Boot ::                (v3.3.5)\n\n"
    "2026-03-02T09:05:10.418Z  INFO 90211 --- [quayside] [           main] com.quayside.QuaysideApplication         : "
    "No active profile set, falling back to 1 default profile: \"default\"\n\n"
    "***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n"
    "Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\n"
    "Reason: Failed to determine a suitable driver class\n\n\nAction:\n\nConsider the following:\n"
    "\tIf you want an embedded database (H2, HSQL or Derby), please put it on the classpath.\n"
    "\tIf you have database settings to be loaded from a particular profile you may need to activate it (no profiles are currently active).\n\n"
    "[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.springframework.boot:spring-boot-maven-plugin:3.3.5:run "
    "(default-cli) on project quayside: Process terminated with exit code: 1 -> [Help 1]"
)

INCIDENTS = [
    eco("database", Incident(
        "s-rt-quillpress-pg-dump-version", RETRY, CODEX, "quillpress",
        session=[
            U("Take a dump of the dev database before I try the big migration."),
            err("pg_dump -h localhost -p 5434 quillpress_dev > tmp/quillpress_dev.sql", _PG_MISMATCH, 1),
            err("pg_dump -h localhost -p 5434 -Fc quillpress_dev -f tmp/quillpress_dev.dump", _PG_MISMATCH, 1),
            err("/usr/lib/postgresql/14/bin/pg_dump -h localhost -p 5434 quillpress_dev > tmp/quillpress_dev.sql", _PG_MISMATCH, 1),
            ok("ls /usr/lib/postgresql/", "14"),
            ok("docker compose exec -T db pg_dump -U postgres quillpress_dev > tmp/quillpress_dev.sql && wc -l tmp/quillpress_dev.sql",
               "48211 tmp/quillpress_dev.sql"),
            A("Dumped to tmp/quillpress_dev.sql. The host only has pg_dump 14 and the compose server is 16, so the dump "
              "runs inside the db container."),
        ],
        mistake="pg_dump -h localhost -p 5434 quillpress_dev > tmp/quillpress_dev.sql",
        lesson="quillpress: the host's pg_dump is 14 and the compose Postgres is 16 (version mismatch); dump inside the "
               "container: docker compose exec -T db pg_dump -U postgres <db>.",
        warn=[same("pg_dump -h localhost -p 5434 quillpress_dev > tmp/quillpress_dev.sql"),
              reword("pg_dump -h localhost -p 5434 --schema-only quillpress_test -f tmp/schema.sql"),
              reword("pg_dump --format=custom --host=localhost --port=5434 --dbname=quillpress_dev --file=tmp/dev.dump")],
        silent=[fix("docker compose exec -T db pg_dump -U postgres --schema-only quillpress_test > tmp/schema.sql"),
                other("psql -h localhost -p 5434 -d quillpress_dev -c 'select version()'"), other("pg_dump --version")],
        variants=("diagnostic",),
    )),
    eco("database", Incident(
        "s-rt-harborview-mongo-authsource", RETRY, CC, "harborview",
        session=[
            U("How many orders are in the local Mongo?"),
            err(f"mongosh mongodb://localhost:27017/harbor {_MONGO_EVAL}",
                "MongoServerError: Command aggregate requires authentication", 1),
            err(f"mongosh -u harbor -p harbor mongodb://localhost:27017/harbor {_MONGO_EVAL}",
                "MongoServerError: Authentication failed.", 1),
            err(f"mongosh \"mongodb://harbor:harbor@localhost:27017/harbor\" {_MONGO_EVAL}",
                "MongoServerError: Authentication failed.", 1),
            read("docker-compose.yml",
                 "  mongo:\n    image: mongo:7.0\n    environment:\n      MONGO_INITDB_ROOT_USERNAME: harbor\n"
                 "      MONGO_INITDB_ROOT_PASSWORD: harbor\n    ports:\n      - \"27017:27017\"\n"),
            ok(f"mongosh \"mongodb://harbor:harbor@localhost:27017/harbor?authSource=admin\" {_MONGO_EVAL}", "12873"),
            A("12,873 orders. `harbor` is the root user, created in the admin database, so it authenticates with "
              "authSource=admin."),
        ],
        mistake=f"mongosh \"mongodb://harbor:harbor@localhost:27017/harbor\" {_MONGO_EVAL}",
        lesson="harborview: the Mongo user harbor is the root user in the admin database; every connection needs "
               "authSource=admin (?authSource=admin or --authenticationDatabase admin) for mongosh, mongodump, MONGO_URL.",
        warn=[same(f"mongosh \"mongodb://harbor:harbor@localhost:27017/harbor\" {_MONGO_EVAL}"),
              reword("mongodump --uri mongodb://harbor:harbor@localhost:27017/harbor --out backups/"),
              reword("mongosh --username harbor --password harbor localhost:27017/harbor --eval 'db.users.findOne()'")],
        silent=[fix("mongodump --uri \"mongodb://harbor:harbor@localhost:27017/harbor?authSource=admin\" --out backups/"),
                fix("mongosh --username harbor --password harbor --authenticationDatabase admin localhost:27017/harbor "
                    "--eval 'db.users.findOne()'"),
                other("mongosh --version"), other("docker compose ps mongo")],
        variants=("intervening",),
    )),
    eco("go", Incident(
        "s-rt-lanternd-serve-config", RETRY, GEMINI, "lanternd",
        session=[
            U("Run lanternd locally with the dev config so I can test the new loader."),
            err("go run ./cmd/lanternd --config config/dev.yaml", _LANTERN_USAGE, 1),
            err("go run ./cmd/lanternd serve --config config/dev.yaml",
                "lanternd: load config: open config/dev.yaml: no such file or directory\nexit status 1", 1),
            err("go run ./cmd/lanternd serve --config configs/dev.yaml",
                "lanternd: load config: open configs/dev.yaml: no such file or directory\nexit status 1", 1),
            ok("ls configs", "dev.toml\nprod.toml\ntest.toml"),
            ok("go run ./cmd/lanternd serve --config configs/dev.toml",
               "time=2026-03-02T09:04:01.223Z level=INFO msg=\"config loaded\" path=configs/dev.toml\n"
               "time=2026-03-02T09:04:01.231Z level=INFO msg=listening addr=127.0.0.1:7411"),
        ],
        mistake="go run ./cmd/lanternd --config config/dev.yaml",
        lesson="lanternd's CLI takes a subcommand and a TOML config: go run ./cmd/lanternd serve --config configs/dev.toml "
               "(there is no config/dev.yaml and no top-level --config flag).",
        warn=[same("go run ./cmd/lanternd --config config/dev.yaml"),
              reword("go run ./cmd/lanternd serve --config=config/dev.yaml --log-level debug"),
              reword("./dist/lanternd --config configs/dev.toml")],
        silent=[fix("go run ./cmd/lanternd serve --config=configs/dev.toml --log-level debug"),
                help_("go run ./cmd/lanternd serve -h"), other("go run ./cmd/lanternd version")],
        variants=("diagnostic",),
    )),
    eco("dotnet", Incident(
        "s-rt-sundial-user-secrets-project", RETRY, CC, "sundial-ledger",
        session=[
            U("Store my Stripe test key in user secrets for local runs: sk_test_51NxDevKey."),
            err(_SECRET, _NO_SECRETS_ID.format(p="Sundial.Migrations.csproj"), 1),
            err(f"{_SECRET} --project src/Sundial.Core", _NO_SECRETS_ID.format(p="src/Sundial.Core/Sundial.Core.csproj"), 1),
            err(f"{_SECRET} --project src/Sundial.Data", _NO_SECRETS_ID.format(p="src/Sundial.Data/Sundial.Data.csproj"), 1),
            ok("grep -rl UserSecretsId --include=*.csproj .", "./src/Sundial.Api/Sundial.Api.csproj"),
            ok(f"{_SECRET} --project src/Sundial.Api", "Successfully saved Stripe:ApiKey = sk_test_51NxDevKey to the secret store."),
        ],
        mistake=_SECRET,
        lesson="sundial-ledger: only src/Sundial.Api has a UserSecretsId; every dotnet user-secrets command needs "
               "--project src/Sundial.Api.",
        warn=[same(_SECRET), reword("dotnet user-secrets list"),
              reword("dotnet user-secrets remove \"Stripe:ApiKey\" --project src/Sundial.Core")],
        silent=[fix("dotnet user-secrets list --project src/Sundial.Api"),
                other("dotnet build src/Sundial.Api/Sundial.Api.csproj --no-restore"), help_("dotnet user-secrets --help")],
        variants=("diagnostic",),
    )),
    eco("ruby", Incident(
        "s-rt-birchwood-rbenv-exec", RETRY, GEMINI, "birchwood",
        session=[
            U("Install the gems so we can run the importer."),
            err("bundle install", _RUBY_MISMATCH, 18),
            err("rbenv local 3.3.6 && bundle install", _RUBY_MISMATCH, 18),
            err("gem install bundler:2.5.22 && bundle _2.5.22_ install",
                "ERROR:  While executing gem ... (Gem::FilePermissionError)\n"
                "    You don't have write permissions for the /var/lib/gems/3.2.0 directory.", 1),
            ok("which -a ruby; rbenv version", "/usr/bin/ruby\n/bin/ruby\n3.3.6 (set by /home/dev/birchwood/.ruby-version)"),
            ok("rbenv exec bundle install",
               "Fetching gem metadata from https://rubygems.org/.........\nResolving dependencies...\n"
               "Bundle complete! 38 Gemfile dependencies, 97 gems now installed.\n"
               "Use `bundle info [gemname]` to see where a bundled gem is installed."),
            A("rbenv's shims are not on PATH in this shell (rbenv init sits in the interactive part of ~/.bashrc), so "
              "ruby and bundle are the system Ruby 3.2; `rbenv exec` runs the project's 3.3.6."),
        ],
        mistake="bundle install",
        lesson="birchwood: the agent's shell has no rbenv shims on PATH (system Ruby 3.2); run Ruby tools through rbenv exec "
               "(rbenv exec bundle install, rbenv exec bundle exec rspec).",
        warn=[same("bundle install"), reword("bundle exec rspec spec/importers"),
              reword("bundle exec ruby bin/import --dry-run data/feb.csv")],
        silent=[fix("rbenv exec bundle exec rspec spec/importers"), other("rbenv versions"), other("cat .ruby-version")],
        variants=("diagnostic",),
    )),
    eco("terraform", Incident(
        "s-rt-saltmarsh-backend-config", RETRY, CODEX, "saltmarsh-infra",
        session=[
            U("I cloned saltmarsh-infra fresh. Initialise terraform."),
            err("terraform init -input=false", _TF_NO_BUCKET, 1),
            err("terraform init -reconfigure -input=false", _TF_NO_BUCKET, 1),
            err("terraform init -input=false -backend-config=\"bucket=saltmarsh-tfstate\"",
                "Initializing the backend...\n╷\n│ Error: Missing region value\n│ \n"
                "│ The \"region\" attribute or the \"AWS_REGION\" or \"AWS_DEFAULT_REGION\" environment variables must be set.\n╵", 1),
            ok("ls backends", "nonprod.hcl\nprod.hcl"),
            ok("terraform init -input=false -backend-config=backends/nonprod.hcl",
               "Initializing the backend...\n\nSuccessfully configured the backend \"s3\"! Terraform will automatically\n"
               "use this backend unless the backend configuration changes.\nInitializing modules...\n"
               "Initializing provider plugins...\n- Reusing previous version of hashicorp/aws from the dependency lock file\n"
               "- Using previously-installed hashicorp/aws v5.82.2\n\nTerraform has been successfully initialized!"),
        ],
        mistake="terraform init -input=false",
        lesson="saltmarsh-infra uses a partial S3 backend: initialise with terraform init -backend-config=backends/nonprod.hcl "
               "(or prod.hcl); a bare terraform init has no bucket or region.",
        warn=[same("terraform init -input=false"), reword("terraform init -upgrade"),
              reword("terraform init -reconfigure -backend-config=\"bucket=saltmarsh-tfstate\"")],
        silent=[fix("terraform init -upgrade -backend-config=backends/nonprod.hcl"), other("terraform fmt -check -recursive"),
                other("terraform version")],
        variants=("diagnostic",),
    )),
    eco("kubernetes", Incident(
        "s-rt-kestrel-distroless-debug", RETRY, GEMINI, "kestrel-ops",
        session=[
            U("Show me the routes file the staging gateway is actually running with."),
            err(f"{_CTX} exec deploy/gateway -- sh -c 'cat /etc/gateway/routes.yaml'",
                _EXEC_FAIL.format(b="sh", why="executable file not found in $PATH"), 126),
            err(f"{_CTX} exec deploy/gateway -c gateway -- /bin/sh -c 'cat /etc/gateway/routes.yaml'",
                _EXEC_FAIL.format(b="/bin/sh", why="stat /bin/sh: no such file or directory"), 126),
            err(f"{_CTX} cp {_POD}:/etc/gateway/routes.yaml /tmp/routes.yaml -c gateway",
                _EXEC_FAIL.format(b="tar", why="executable file not found in $PATH").replace(
                    "\ncommand terminated with exit code 126", ""), 1),
            ok(f"{_CTX} get pod {_POD} -o jsonpath='{{.spec.containers[*].image}}'",
               "ghcr.io/kestrel/gateway:3.2.1-distroless envoyproxy/envoy-distroless:v1.32.1"),
            ok(f"{_CTX} debug -i --quiet {_POD} --image=busybox:1.36 --target=gateway -- cat /proc/1/root/etc/gateway/routes.yaml",
               "routes:\n  - match: /api/\n    cluster: kestrel-api\n  - match: /ws/\n    cluster: kestrel-realtime\n"),
            A("The gateway image is distroless: no shell and no tar, so exec and cp can't work. An ephemeral busybox "
              "container targeting it reads the file through /proc/1/root."),
        ],
        mistake=f"{_CTX} exec deploy/gateway -- sh -c 'cat /etc/gateway/routes.yaml'",
        lesson="kestrel-ops: the gateway images are distroless (no sh, bash or tar), so kubectl exec/cp into them fail; use "
               "kubectl debug -i --image=busybox:1.36 --target=gateway and read files under /proc/1/root.",
        warn=[same(f"{_CTX} exec deploy/gateway -- sh -c 'cat /etc/gateway/routes.yaml'"),
              reword(f"{_CTX} exec -it {_POD} -c gateway -- bash"),
              reword(f"{_CTX} cp {_POD}:/etc/gateway/envoy.yaml ./envoy.yaml")],
        silent=[fix(f"{_CTX} debug -it {_POD} --image=busybox:1.36 --target=gateway"),
                other(f"{_CTX} logs deploy/gateway -c gateway --tail=50"), other(f"{_CTX} get pods -o wide")],
        variants=("diagnostic",),
    )),
    eco("shell", Incident(
        "s-rt-owlpost-admin-api-key", RETRY, CC, "owlpost",
        session=[
            U("How deep is the digest queue right now?"),
            err(f"curl -sS --fail-with-body {_ADMIN}", _UNAUTH, 22),
            err(f"curl -sS --fail-with-body -H \"Authorization: Bearer $OWLPOST_TOKEN\" {_ADMIN}", _UNAUTH, 22),
            err(f"curl -sS --fail-with-body -H \"Authorization: Token $OWLPOST_TOKEN\" {_ADMIN}", _UNAUTH, 22),
            read("docs/admin-api.md",
                 "All /v1 admin endpoints take the admin key in an `X-Api-Key` header (OWLPOST_ADMIN_KEY in .envrc).\n"
                 "Bearer tokens are for the public API (api.owlpost.dev) only.\n"),
            ok(f"curl -sS --fail-with-body -H \"X-Api-Key: $OWLPOST_ADMIN_KEY\" {_ADMIN}",
               "{\"name\":\"digest\",\"depth\":412,\"oldest_age_s\":1873,\"workers\":2}"),
            A("412 messages, the oldest about 31 minutes old."),
        ],
        mistake=f"curl -sS --fail-with-body -H \"Authorization: Bearer $OWLPOST_TOKEN\" {_ADMIN}",
        lesson="owlpost's admin API (admin.owlpost.dev/v1) takes the admin key as X-Api-Key: $OWLPOST_ADMIN_KEY; Bearer / "
               "Token Authorization headers get 401 (they are for the public API).",
        warn=[same(f"curl -sS --fail-with-body -H \"Authorization: Bearer $OWLPOST_TOKEN\" {_ADMIN}"),
              reword(f"curl -sS -X POST -H \"Authorization: Bearer $OWLPOST_TOKEN\" {_ADMIN}/retry"),
              reword("curl -sS --oauth2-bearer \"$OWLPOST_TOKEN\" https://admin.owlpost.dev/v1/queues")],
        silent=[fix(f"curl -sS -X POST -H \"X-Api-Key: $OWLPOST_ADMIN_KEY\" {_ADMIN}/retry"),
                other("curl -sS -H \"Authorization: Bearer $OWLPOST_TOKEN\" https://api.owlpost.dev/v2/me"),
                other("curl -sS https://admin.owlpost.dev/healthz")],
        variants=("intervening",),
    )),
    eco("node", Incident(
        "s-rt-harborview-tsx", RETRY, CODEX, "harborview",
        session=[
            U("Seed the local database with the demo fleet."),
            err("node scripts/seed.ts", _ESM_TS, 1),
            err("npx ts-node scripts/seed.ts", _ESM_TS.replace("\n\nNode.js v20.18.1", ""), 1),
            err("npx ts-node --esm scripts/seed.ts",
                "node:internal/modules/esm/resolve:265\n    throw new ERR_MODULE_NOT_FOUND(\n          ^\n\n"
                "Error: Cannot find module '/home/dev/harborview/src/db/client' imported from /home/dev/harborview/scripts/seed.ts\n"
                "    at finalizeResolution (node:internal/modules/esm/resolve:265:11) {\n  code: 'ERR_MODULE_NOT_FOUND',\n"
                "  url: 'file:///home/dev/harborview/src/db/client'\n}\n\nNode.js v20.18.1", 1),
            ok("grep -n '\"type\"\\|\"tsx\"' package.json", "5:  \"type\": \"module\",\n41:    \"tsx\": \"^4.19.2\","),
            ok("npx tsx scripts/seed.ts", "seeded 40 vessels, 312 berths, 1200 orders into harbor"),
        ],
        mistake="npx ts-node scripts/seed.ts",
        lesson="harborview is native ESM (\"type\": \"module\", extensionless imports): run TypeScript scripts with npx tsx, "
               "not node or ts-node.",
        warn=[same("npx ts-node scripts/seed.ts"), reword("node scripts/migrate-orders.ts"),
              reword("npx ts-node --esm scripts/migrate-orders.ts --dry-run")],
        silent=[fix("npx tsx scripts/migrate-orders.ts --dry-run"), other("node dist/server.js"), other("npx tsc --noEmit")],
        variants=("diagnostic",),
    )),
    eco("python", Incident(
        "s-rt-nimbus-artifact-registry", RETRY, GEMINI, "nimbus-etl",
        session=[
            U("Bump nimbus-schemas to 2.4.0, the new session fields are in it."),
            err("pip install nimbus-schemas==2.4.0",
                "ERROR: Could not find a version that satisfies the requirement nimbus-schemas==2.4.0 (from versions: none)\n"
                "ERROR: No matching distribution found for nimbus-schemas==2.4.0", 1),
            err(f"pip install --index-url {_AR} nimbus-schemas==2.4.0",
                f"Looking in indexes: {_AR}\nCollecting nimbus-schemas==2.4.0\n"
                "  Downloading https://europe-west1-python.pkg.dev/nimbus-prod/pypi/nimbus-schemas/nimbus_schemas-2.4.0-py3-none-any.whl (38 kB)\n"
                "INFO: pip is looking at multiple versions of nimbus-schemas to determine which version is compatible with other requirements.\n"
                "ERROR: Could not find a version that satisfies the requirement pydantic>=2.6 (from nimbus-schemas) (from versions: none)\n"
                "ERROR: No matching distribution found for pydantic>=2.6", 1),
            err("pip install --extra-index-url https://oauth2accesstoken@europe-west1-python.pkg.dev/nimbus-prod/pypi/simple/ nimbus-schemas==2.4.0",
                "  WARNING: 401 Error, Credentials not correct for https://europe-west1-python.pkg.dev/nimbus-prod/pypi/simple/nimbus-schemas/\n"
                "ERROR: Could not find a version that satisfies the requirement nimbus-schemas==2.4.0 (from versions: none)\n"
                "ERROR: No matching distribution found for nimbus-schemas==2.4.0", 1),
            read("docs/dev-setup.md",
                 "Internal packages (nimbus-schemas, nimbus-common) live in Artifact Registry, which only holds our own packages.\n"
                 "The keyring backend is in requirements-dev.txt (which carries the --extra-index-url line). For one package:\n\n"
                 f"    pip install --extra-index-url {_AR} <pkg>\n"),
            ok(f"pip install --extra-index-url {_AR} nimbus-schemas==2.4.0",
               f"Looking in indexes: https://pypi.org/simple, {_AR}\nCollecting nimbus-schemas==2.4.0\n"
               "  Downloading https://europe-west1-python.pkg.dev/nimbus-prod/pypi/nimbus-schemas/nimbus_schemas-2.4.0-py3-none-any.whl (38 kB)\n"
               "Installing collected packages: nimbus-schemas\n  Attempting uninstall: nimbus-schemas\n"
               "    Found existing installation: nimbus-schemas 2.3.1\n    Uninstalling nimbus-schemas-2.3.1:\n"
               "      Successfully uninstalled nimbus-schemas-2.3.1\nSuccessfully installed nimbus-schemas-2.4.0"),
        ],
        mistake="pip install nimbus-schemas==2.4.0",
        lesson=f"nimbus-etl: the internal packages (nimbus-schemas, nimbus-common) are only in Artifact Registry: pip install "
               f"them with --extra-index-url {_AR} (keyring auth; --index-url loses PyPI, a user in the URL breaks the keyring).",
        warn=[same("pip install nimbus-schemas==2.4.0"), reword("pip install -U nimbus-common"),
              reword(f"pip install --index-url {_AR} nimbus-common==1.9.0")],
        silent=[fix(f"pip install -U nimbus-common --extra-index-url {_AR}"), other("pip show nimbus-schemas"),
                other("pip install -r requirements-dev.txt")],
        variants=("intervening",),
    )),
    eco("java", Incident(
        "s-rt-quayside-boot-run-profiles", RETRY, CC, "quayside",
        session=[
            U("Run quayside locally with the local profile."),
            err("mvn spring-boot:run -Dspring.profiles.active=local", _BOOT_NO_PROFILE, 1),
            err("mvn spring-boot:run -Dspring.profiles.active=local "
                "-Dspring.datasource.url=jdbc:postgresql://localhost:5432/quayside", _BOOT_NO_PROFILE, 1),
            ok("grep -rn 'spring-boot.run' pom.xml README.md", "README.md:31:    mvn spring-boot:run -Dspring-boot.run.profiles=local"),
            ok("mvn spring-boot:run -Dspring-boot.run.profiles=local",
               "[INFO] --- spring-boot:3.3.5:run (default-cli) @ quayside ---\n :: Spring Boot ::                (v3.3.5)\n\n"
               "2026-03-02T09:06:44.102Z  INFO 90877 --- [quayside] [           main] com.quayside.QuaysideApplication         : "
               "The following 1 profile is active: \"local\"\n"
               "2026-03-02T09:06:48.006Z  INFO 90877 --- [quayside] [           main] com.quayside.QuaysideApplication         : "
               "Started QuaysideApplication in 3.904 seconds (process running for 4.211)"),
            A("spring-boot:run starts the app in a forked JVM, so `-Dspring.*` only reaches Maven's JVM; the plugin's "
              "`-Dspring-boot.run.profiles` passes the profile through."),
        ],
        mistake="mvn spring-boot:run -Dspring.profiles.active=local",
        lesson="quayside: mvn spring-boot:run forks the app, so -Dspring.* system properties never reach it; choose the "
               "profile with -Dspring-boot.run.profiles=local.",
        warn=[same("mvn spring-boot:run -Dspring.profiles.active=local"),
              reword("mvn -Dspring.profiles.active=local,seed spring-boot:run"),
              reword("mvn spring-boot:run -Dspring.profiles.active=local -Dserver.port=8081")],
        silent=[fix("mvn spring-boot:run -Dspring-boot.run.profiles=local,seed"),
                fix("SPRING_PROFILES_ACTIVE=local mvn spring-boot:run"),
                other("java -Dspring.profiles.active=local -jar target/quayside-1.9.0.jar"), other("mvn flyway:info")],
        variants=("long_output",),
    )),
]
