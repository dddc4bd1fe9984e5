"""Blind5 split, shape 1: a call fails, a different call works — a flag or an env
assignment added, a value or a path changed, the wrapper or another program, or a step
before it. Silent probes carry the session's fix and another valid correction."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, U, W, err, fix, help_, ok, other, reword, same

_DJANGO_UNCONFIGURED = (
    "==================================== ERRORS ====================================\n"
    "_________________ ERROR collecting tests/api/test_invoice_serializer.py _________________\n"
    "tests/api/test_invoice_serializer.py:3: in <module>\n    from brackenridge.billing.serializers import InvoiceSerializer\n"
    "brackenridge/billing/serializers.py:4: in <module>\n    from rest_framework import serializers\n"
    ".venv/lib/python3.12/site-packages/django/conf/__init__.py:81: in __getattr__\n    self._setup(name)\n"
    "E   django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured. "
    "You must either define the environment variable DJANGO_SETTINGS_MODULE or call settings.configure() before accessing settings.\n"
    "=========================== short test summary info ============================\n"
    "ERROR tests/api/test_invoice_serializer.py - django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured.\n"
    "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n1 error in 0.38s"
)

_KUSTOMIZATION_AS_MANIFEST = (
    "error: resource mapping not found for name: \"\" namespace: \"\" from \"deploy/overlays/staging/kustomization.yaml\": "
    "no matches for kind \"Kustomization\" in version \"kustomize.config.k8s.io/v1beta1\"\nensure CRDs are installed first\n"
    "error: error validating \"deploy/overlays/staging/replicas-patch.yaml\": error validating data: "
    "[apiVersion not set, kind not set]; if you choose to ignore these errors, turn validation off with --validate=false"
)

_TF_NO_VARS = (
    "╷\n│ Error: No value for required variable\n│ \n│   on variables.tf line 1:\n│    1: variable \"environment\" {\n│ \n"
    "│ The root module input variable \"environment\" is not set, and has no default value. Use a -var or -var-file command "
    "line argument to provide a value for this variable.\n╵\n╷\n│ Error: No value for required variable\n│ \n"
    "│   on variables.tf line 5:\n│    5: variable \"vpc_cidr\" {\n│ \n"
    "│ The root module input variable \"vpc_cidr\" is not set, and has no default value. Use a -var or -var-file command "
    "line argument to provide a value for this variable.\n╵"
)

_SAIL_DB_HOST = (
    "\n   Illuminate\\Database\\QueryException \n\n  SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo for mysql failed: "
    "Name or service not known (Connection: mysql, SQL: select exists (select 1 from information_schema.tables where "
    "table_schema = 'larchmont' and table_name = 'migrations' and table_type in ('BASE TABLE', 'SYSTEM VERSIONED')) as `exists`)\n\n"
    "  at vendor/laravel/framework/src/Illuminate/Database/Connection.php:825\n"
    "    821▕                     $this->getName(), $query, $this->prepareBindings($bindings), $e\n    822▕                 );\n"
    "    823▕             }\n    824▕ \n  ➜ 825▕             throw new QueryException(\n\n      +41 vendor frames \n\n  42  artisan:13\n"
    "      Illuminate\\Foundation\\Application::handleCommand()"
)

_FLY_DEPLOY_OK = (
    "==> Verifying app config\nValidating fly.web.toml\n✓ Configuration is valid\n--> Verified app config\n==> Building image\n"
    "==> Building image with Depot\n--> build:  (​)\n[+] Building 61.4s (21/21) FINISHED\n--> Pushing image done\n"
    "image: registry.fly.io/oxbow-web:deployment-01JNB7K2X4Q9M3T8V6W1Y5Z0RA\nimage size: 118 MB\n\n"
    "Watch your deployment at https://fly.io/apps/oxbow-web/monitoring\n\n-------\n"
    "Updating existing machines in 'oxbow-web' with rolling strategy\n\n-------\n"
    " ✔ [1/2] Machine 3d8d9e1f2a7589 [app] update succeeded\n ✔ [2/2] Machine 91857e4c1d3e28 [app] update succeeded\n"
    "-------\nChecking DNS configuration for oxbow-web.fly.dev\n\nVisit your newly deployed app at https://oxbow-web.fly.dev/"
)

_ANSIBLE_NO_INVENTORY = (
    "[WARNING]: No inventory was parsed, only implicit localhost is available\n"
    "[WARNING]: provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'\n"
    "[WARNING]: Could not match supplied host pattern, ignoring: staging_web\n"
    "ERROR! Specified inventory, host pattern and/or --limit leaves us with no hosts to target."
)

_RSYNC_ETC_DENIED = (
    "sending incremental file list\n./\nskerry.conf\nskerry-admin.conf\n"
    "rsync: [generator] failed to set times on \"/etc/nginx/sites-available/.\": Operation not permitted (1)\n"
    "rsync: [receiver] mkstemp \"/etc/nginx/sites-available/.skerry.conf.Xk2f9a\" failed: Permission denied (13)\n"
    "rsync: [receiver] mkstemp \"/etc/nginx/sites-available/.skerry-admin.conf.b7QmZ1\" failed: Permission denied (13)\n\n"
    "sent 2,318 bytes  received 121 bytes  4,878.00 bytes/sec\ntotal size is 5,904  speedup is 2.42\n"
    "rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) [sender=3.2.7]"
)

_XCODE_NO_DEST = (
    "Command line invocation:\n    /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid\n\n"
    "User defaults from command line:\n    IDEPackageSupportUseBuiltinSCM = YES\n\n"
    "2026-03-02 09:12:44.318 xcodebuild[48213:3127811] Writing error result bundle to "
    "/var/folders/tq/5k2x9v1n3b7c0000gn/T/ResultBundle_2026-02-03_09-12-0044.xcresult\n"
    "xcodebuild: error: Failed to build workspace Pellucid with scheme Pellucid.: Cannot test target “PellucidTests” on "
    "“Any iOS Device”: Tests must be run on a concrete device"
)

_GRADLE_APT = (
    "\nFAILURE: Build failed with an exception.\n\n* Where:\nBuild file '/home/dev/wrenfield/api/build.gradle.kts' line: 1\n\n"
    "* What went wrong:\nPlugin [id: 'org.jetbrains.kotlin.jvm', version: '2.0.21'] was not found in any of the following sources:\n\n"
    "- Gradle Core Plugins (plugin is not in 'org.gradle' namespace)\n"
    "- Plugin Repositories (could not resolve plugin artifact 'org.jetbrains.kotlin.jvm:org.jetbrains.kotlin.jvm.gradle.plugin:2.0.21')\n"
    "  Searched in the following repositories:\n    Gradle Central Plugin Repository\n\n* Try:\n"
    "Run with --stacktrace option to get the stack trace. Run with --info or --debug option to get more log output.\n\n"
    "BUILD FAILED in 3s"
)

_PRISMA_NO_URL = (
    "Prisma schema loaded from prisma/schema.prisma\nDatasource \"db\": PostgreSQL database\n\n"
    "Error: Prisma schema validation - (get-config wasm)\nError code: P1012\n"
    "error: Environment variable not found: DATABASE_URL.\n  -->  prisma/schema.prisma:7\n   | \n"
    " 6 |   provider = \"postgresql\"\n 7 |   url      = env(\"DATABASE_URL\")\n   | \n\n"
    "Validation Error Count: 1\n[Context: getConfig]\n\nPrisma CLI Version : 6.4.1"
)

_BUN_NO_DOM = (
    "bun test v1.2.4 (0f5d6a1b)\n\nsrc/components/CartDrawer.test.tsx:\n"
    "12 |   it(\"shows the subtotal\", () => {\n13 |     render(<CartDrawer lines={lines} open />);\n"
    "                 ^\nReferenceError: document is not defined\n"
    "      at render (/home/dev/marigold/node_modules/@testing-library/react/dist/pure.js:257:5)\n"
    "      at /home/dev/marigold/src/components/CartDrawer.test.tsx:13:5\n"
    "(fail) CartDrawer > shows the subtotal [3.12ms]\n"
    "(fail) CartDrawer > removes a line [0.41ms]\n\n 0 pass\n 6 fail\nRan 6 tests across 1 files. [214.00ms]"
)

_SBT_METASPACE = (
    "[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 17.0.12)\n[info] loading settings for project drumlin-build from plugins.sbt ...\n"
    "[info] loading project definition from /home/dev/drumlin/project\n[info] loading settings for project root from build.sbt ...\n"
    "[info] compiling 84 Scala sources to /home/dev/drumlin/pipeline/target/scala-2.13/classes ...\n"
    "[info] compiling 41 Scala sources to /home/dev/drumlin/pipeline/target/scala-2.13/test-classes ...\n"
    "[info] SessionizerSpec:\n[error] java.lang.OutOfMemoryError: Metaspace\n"
    "[error] \tat java.base/java.lang.ClassLoader.defineClass1(Native Method)\n"
    "[error] \tat java.base/java.lang.ClassLoader.defineClass(ClassLoader.java:1027)\n"
    "[error] \tat org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator$.doCompile(CodeGenerator.scala:1490)\n"
    "[error] Error during sbt execution: java.lang.OutOfMemoryError: Metaspace"
)

_S3_EXPLICIT_DENY = (
    "upload failed: models/v7/model.safetensors to s3://sorrel-models/v7/model.safetensors An error occurred (AccessDenied) "
    "when calling the PutObject operation: User: arn:aws:iam::604118392271:user/dev-sorrel is not authorized to perform: "
    "s3:PutObject on resource: \"arn:aws:s3:::sorrel-models/v7/model.safetensors\" with an explicit deny in a resource-based policy\n"
    "upload failed: models/v7/config.json to s3://sorrel-models/v7/config.json An error occurred (AccessDenied) when calling "
    "the PutObject operation: User: arn:aws:iam::604118392271:user/dev-sorrel is not authorized to perform: s3:PutObject on "
    "resource: \"arn:aws:s3:::sorrel-models/v7/config.json\" with an explicit deny in a resource-based policy"
)

INCIDENTS = [
    Incident(
        "b5-errorfix-pytest-01", ERROR_FIX, CC, "brackenridge",
        session=[
            U("Run the API tests, I changed the invoice serializer."),
            err("uv run pytest tests/api -q", _DJANGO_UNCONFIGURED, 2),
            ok("grep -rn DJANGO_SETTINGS_MODULE Makefile pyproject.toml",
               "Makefile:14:\tDJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest $(ARGS)"),
            ok("DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest tests/api -q",
               "..........................................................               [100%]\n58 passed in 3.12s"),
            A("All 58 API tests pass. pytest here has no settings module configured in pyproject, so it only runs with "
              "DJANGO_SETTINGS_MODULE=brackenridge.settings.test in front — which is what `make test` does."),
        ],
        mistake="uv run pytest tests/api -q",
        lesson="brackenridge's pytest has no Django settings configured: run it as DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest … (or pass --ds=brackenridge.settings.test, or `make test`).",
        warn=[same("uv run pytest tests/api -q"), reword("uv run pytest -q tests/billing/test_invoices.py -k refund"),
              reword("uv run python -m pytest tests/api")],
        silent=[fix("DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest -q tests/billing/test_invoices.py -k refund"),
                fix("uv run pytest --ds=brackenridge.settings.test tests/api"), fix("make test ARGS=tests/api"),
                other("uv run ruff check brackenridge"), help_("uv run pytest --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-compose-02", ERROR_FIX, CODEX, "brackenridge",
        session=[
            U("Start the celery worker locally, I want to try the payment reminder emails."),
            err("docker compose up -d worker", "no such service: worker"),
            ok("grep -n -A5 '^  worker:' compose.yaml",
               "41:  worker:\n42-    build: .\n43-    profiles: [\"jobs\"]\n44-    command: celery -A brackenridge worker -l info\n"
               "45-    depends_on: [db, redis]\n46-    env_file: .env"),
            ok("docker compose --profile jobs up -d worker",
               "[+] Running 3/3\n ✔ Container brackenridge-redis-1   Running   0.0s\n ✔ Container brackenridge-db-1      Running   0.0s\n"
               " ✔ Container brackenridge-worker-1  Started   0.6s"),
            A("The worker is running. It and `beat` sit behind the `jobs` compose profile, so they only start with "
              "--profile jobs (or COMPOSE_PROFILES=jobs in the environment)."),
        ],
        mistake="docker compose up -d worker",
        lesson="brackenridge: worker and beat are in the compose profile `jobs` — start them with docker compose --profile jobs up … (or COMPOSE_PROFILES=jobs); without it compose says no such service.",
        warn=[same("docker compose up -d worker"), reword("docker compose up --build -d worker beat"), reword("docker compose up beat")],
        silent=[fix("docker compose --profile jobs up --build -d worker beat"), fix("COMPOSE_PROFILES=jobs docker compose up beat"),
                other("docker compose up -d db redis"), help_("docker compose up --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-pnpm-03", ERROR_FIX, GEMINI, "cinderpath",
        session=[
            U("Add zod to the API package, I want request validation."),
            err("pnpm add zod",
                " ERR_PNPM_ADDING_TO_ROOT  Running this command will add the dependency to the workspace root, which might not "
                "be what you want - if you really meant it, make it explicit by running this command again with the -w flag "
                "(or --workspace-root). If you don't want to see this warning anymore, you may set the "
                "ignore-workspace-root-check setting to true."),
            ok("pnpm --filter @cinderpath/api add zod",
               "Progress: resolved 612, reused 598, downloaded 1, added 1, done\n\ndependencies:\n+ zod 3.24.2\n\nDone in 2.8s"),
            A("zod 3.24.2 is now in apps/api's dependencies. In this workspace a dependency goes to a package with "
              "--filter; pnpm refuses to add it to the root."),
        ],
        mistake="pnpm add zod",
        lesson="cinderpath is a pnpm workspace: never pnpm add at the root — add to the package with pnpm --filter @cinderpath/<pkg> add … (or cd into apps/<pkg> first).",
        warn=[same("pnpm add zod"), reword("pnpm add date-fns@3.6.0"), reword("pnpm add -E nanoid")],
        silent=[fix("pnpm --filter @cinderpath/web add date-fns@3.6.0"), fix("cd apps/api && pnpm add -E nanoid"),
                other("pnpm install --frozen-lockfile"), help_("pnpm add --help")],
        variants=(),
    ),
    Incident(
        "b5-errorfix-pnpm-04", ERROR_FIX, CC, "cinderpath",
        session=[
            U("Build the web app and run the api tests before I open the PR."),
            err("pnpm --filter web build", "No projects matched the filters in \"/home/dev/cinderpath\""),
            ok("pnpm ls -r --depth -1",
               "@cinderpath/root /home/dev/cinderpath (PRIVATE)\n\n@cinderpath/api@0.14.0 /home/dev/cinderpath/apps/api (PRIVATE)\n\n"
               "@cinderpath/web@0.14.0 /home/dev/cinderpath/apps/web (PRIVATE)\n\n@cinderpath/ui@0.7.2 /home/dev/cinderpath/packages/ui"),
            ok("pnpm --filter @cinderpath/web build && pnpm --filter @cinderpath/api test",
               "\n> @cinderpath/web@0.14.0 build /home/dev/cinderpath/apps/web\n> next build\n\n   ▲ Next.js 15.1.7\n\n"
               "   Creating an optimized production build ...\n ✓ Compiled successfully\n ✓ Generating static pages (14/14)\n\n"
               "> @cinderpath/api@0.14.0 test /home/dev/cinderpath/apps/api\n> vitest run\n\n Test Files  31 passed (31)\n"
               "      Tests  214 passed (214)"),
            A("The web build is clean and all 214 api tests pass. The packages are scoped, so --filter needs the full name "
              "(@cinderpath/web) or a path (./apps/web); a bare `web` matches nothing."),
        ],
        mistake="pnpm --filter web build",
        lesson="cinderpath's packages are scoped: pnpm --filter needs @cinderpath/<name> or a path like ./apps/web — a bare --filter web matches nothing.",
        warn=[same("pnpm --filter web build"), reword("pnpm --filter api test"), reword("pnpm -F ui lint")],
        silent=[fix("pnpm --filter @cinderpath/api test"), fix("pnpm -F ./packages/ui lint"), other("pnpm -r build"),
                help_("pnpm help run")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-kubectl-05", ERROR_FIX, CODEX, "quayside",
        session=[
            U("Apply the staging overlay, I bumped the gateway replicas to 4."),
            err("kubectl apply -f deploy/overlays/staging", _KUSTOMIZATION_AS_MANIFEST),
            ok("kubectl apply -k deploy/overlays/staging",
               "configmap/gateway-config-7h2m9k4t6b created\nservice/gateway unchanged\nservice/ledger unchanged\n"
               "deployment.apps/gateway configured\ndeployment.apps/ledger unchanged"),
            A("Applied: gateway now runs 4 replicas on staging. The overlays are kustomizations, so they go through "
              "`kubectl apply -k`; with -f kubectl reads kustomization.yaml and the patches as plain manifests."),
        ],
        mistake="kubectl apply -f deploy/overlays/staging",
        lesson="quayside: deploy/overlays/* are kustomize directories — apply them with kubectl apply -k <dir> (or kustomize build <dir> | kubectl apply -f -), never -f.",
        warn=[same("kubectl apply -f deploy/overlays/staging"), reword("kubectl apply -f deploy/overlays/prod/ --dry-run=server"),
              reword("kubectl diff -f deploy/overlays/staging")],
        silent=[fix("kubectl apply -k deploy/overlays/prod/ --dry-run=server"),
                fix("kustomize build deploy/overlays/staging | kubectl diff -f -"),
                other("kubectl apply -f deploy/namespaces.yaml"), help_("kubectl apply --help")],
        variants=(),
    ),
    Incident(
        "b5-errorfix-go-06", ERROR_FIX, GEMINI, "quayside",
        session=[
            U("Run the ledger tests with the race detector, I suspect a data race in the posting cache."),
            err("go test -race ./...", "go: -race requires cgo; enable cgo by setting CGO_ENABLED=1", 2),
            ok("go env CGO_ENABLED GOFLAGS", "0\n-trimpath"),
            ok("CGO_ENABLED=1 go test -race ./...",
               "ok  \tgithub.com/quayside/quayside/internal/gateway\t2.114s\n"
               "ok  \tgithub.com/quayside/quayside/internal/ledger\t3.871s\n"
               "ok  \tgithub.com/quayside/quayside/internal/postings\t1.402s\n"
               "?   \tgithub.com/quayside/quayside/cmd/gateway\t[no test files]"),
            A("No race reported in any package. CGO_ENABLED is 0 in this machine's go env (the services are built "
              "static), and -race needs cgo, so race runs need CGO_ENABLED=1 in front."),
        ],
        mistake="go test -race ./...",
        lesson="quayside: go env sets CGO_ENABLED=0 for the static builds and -race needs cgo — run race tests/builds as CGO_ENABLED=1 go test -race …",
        warn=[same("go test -race ./..."), reword("go test -race -run TestPostingCache ./internal/ledger"),
              reword("go build -race -o bin/gateway ./cmd/gateway")],
        silent=[fix("CGO_ENABLED=1 go test -race -run TestPostingCache ./internal/ledger"),
                fix("CGO_ENABLED=1 go build -race -o bin/gateway ./cmd/gateway"),
                other("go test -count=1 ./internal/..."), help_("go help testflag")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-terraform-07", ERROR_FIX, CC, "millbrook",
        session=[
            U("Plan the staging changes for the new NAT gateway."),
            err("terraform plan", _TF_NO_VARS),
            ok("ls envs backend", "backend:\nprod.hcl\nstaging.hcl\n\nenvs:\nprod.tfvars\nstaging.tfvars"),
            ok("terraform plan -var-file=envs/staging.tfvars -out=staging.tfplan",
               "module.network.aws_vpc.main: Refreshing state... [id=vpc-0c41e8a2f7d95b013]\n\n"
               "Terraform will perform the following actions:\n\n  # module.network.aws_eip.nat will be created\n"
               "  # module.network.aws_nat_gateway.main will be created\n  # module.network.aws_route.private_nat will be created\n"
               "  # module.network.aws_route_table.private will be updated in-place\n\n"
               "Plan: 3 to add, 1 to change, 0 to destroy.\n\nSaved the plan to: staging.tfplan"),
            A("Plan: 3 to add (EIP, NAT gateway, route) and 1 in-place change, saved to staging.tfplan. The variables "
              "come from envs/<env>.tfvars, so plans need -var-file (make plan ENV=staging wraps the same)."),
        ],
        mistake="terraform plan",
        lesson="millbrook: terraform plan needs the env's var file — terraform plan -var-file=envs/<env>.tfvars (or make plan ENV=<env>); a bare plan dies on missing required variables.",
        warn=[same("terraform plan"), reword("terraform plan -out=tfplan"), reword("terraform plan -target=module.network")],
        silent=[fix("terraform plan -var-file=envs/staging.tfvars -out=tfplan"), fix("make plan ENV=prod"),
                fix("terraform plan -target=module.network -var-file envs/prod.tfvars"),
                other("terraform fmt -check -recursive"), help_("terraform plan -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-rails-08", ERROR_FIX, CODEX, "tallowmere",
        session=[
            U("Run the pending migrations."),
            err("rails db:migrate", "bash: line 1: rails: command not found", 127),
            ok("bundle config get path",
               "Settings for `path` in order of priority. The top value will be used\n"
               "Set for your local app (/home/dev/tallowmere/.bundle/config): \"vendor/bundle\""),
            ok("bin/rails db:migrate",
               "== 20260302084500 AddDueOnToInvoices: migrating ===============================\n"
               "-- add_column(:invoices, :due_on, :date)\n   -> 0.0038s\n"
               "== 20260302084500 AddDueOnToInvoices: migrated (0.0040s) ======================"),
            A("Migrated (AddDueOnToInvoices). The gems are installed into vendor/bundle, so there is no `rails` on "
              "PATH — it's bin/rails (or bundle exec rails) in this app."),
        ],
        mistake="rails db:migrate",
        lesson="tallowmere installs its gems into vendor/bundle, so there's no global rails on PATH — always bin/rails … or bundle exec rails …",
        warn=[same("rails db:migrate"), reword("rails test test/models/invoice_test.rb"),
              reword("rails generate migration AddPaidAtToInvoices paid_at:datetime")],
        silent=[fix("bundle exec rails test test/models/invoice_test.rb"),
                fix("bin/rails generate migration AddPaidAtToInvoices paid_at:datetime"),
                other("bin/rails routes -g invoices"), help_("bin/rails --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-artisan-09", ERROR_FIX, GEMINI, "larchmont",
        session=[
            U("Run the new migration for the invoices table."),
            err("php artisan migrate", _SAIL_DB_HOST),
            ok("grep -n '^DB_' .env",
               "11:DB_CONNECTION=mysql\n12:DB_HOST=mysql\n13:DB_PORT=3306\n14:DB_DATABASE=larchmont\n15:DB_USERNAME=sail\n16:DB_PASSWORD=password"),
            ok("./vendor/bin/sail artisan migrate",
               "\n   INFO  Running migrations.  \n\n  2026_03_01_101500_create_invoices_table ........................ 41.27ms DONE\n"),
            A("Migrated. .env points DB_HOST at the `mysql` container, a name that only resolves inside Sail's network — "
              "artisan commands that touch the database have to run through ./vendor/bin/sail artisan."),
        ],
        mistake="php artisan migrate",
        lesson="larchmont runs on Sail: DB_HOST=mysql only resolves inside the containers, so database artisan commands go through ./vendor/bin/sail artisan …, not php artisan on the host.",
        warn=[same("php artisan migrate"), reword("php artisan migrate:rollback --step=1"), reword("php artisan db:seed --class=PlanSeeder")],
        silent=[fix("./vendor/bin/sail artisan db:seed --class=PlanSeeder"),
                fix("docker compose exec laravel.test php artisan migrate:rollback --step=1"),
                other("php artisan route:list --path=api"), help_("php artisan help migrate")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-flyctl-10", ERROR_FIX, CC, "oxbow",
        session=[
            U("Deploy the web app to Fly, main is green."),
            err("fly deploy",
                "Error: the config for your app is missing an app name, add an app field to the fly.toml file or specify with the -a flag"),
            ok("ls fly*.toml", "fly.web.toml\nfly.worker.toml"),
            ok("fly deploy --config fly.web.toml", _FLY_DEPLOY_OK),
            A("Deployed to oxbow-web (both machines updated). There is no fly.toml in this repo: web and worker each have "
              "their own config, so fly deploy needs --config fly.web.toml (or fly.worker.toml for the worker)."),
        ],
        mistake="fly deploy",
        lesson="oxbow has no fly.toml, one config per app — deploy with fly deploy --config fly.web.toml (or -c fly.worker.toml for the worker).",
        warn=[same("fly deploy"), reword("fly deploy --remote-only"), reword("flyctl deploy --strategy rolling")],
        silent=[fix("fly deploy --config fly.web.toml --remote-only"), fix("flyctl deploy -c fly.worker.toml --strategy rolling"),
                other("fly status -a oxbow-web"), help_("fly deploy --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-ansible-11", ERROR_FIX, CODEX, "skerry",
        session=[
            U("Roll the nginx config change out to the staging web hosts."),
            err("ansible-playbook playbooks/web.yml --limit staging_web", _ANSIBLE_NO_INVENTORY),
            ok("grep -n inventory ansible.cfg; ls inventories", "prod\nstaging"),
            ok("ansible-playbook -i inventories/staging/hosts.yml playbooks/web.yml --limit staging_web",
               "\nPLAY [web] *********************************************************************\n\n"
               "TASK [Gathering Facts] *********************************************************\nok: [web-stg-01]\nok: [web-stg-02]\n\n"
               "TASK [nginx : render site config] **********************************************\nchanged: [web-stg-01]\nchanged: [web-stg-02]\n\n"
               "RUNNING HANDLER [nginx : reload nginx] *****************************************\nchanged: [web-stg-01]\nchanged: [web-stg-02]\n\n"
               "PLAY RECAP *********************************************************************\n"
               "web-stg-01                 : ok=12   changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\n"
               "web-stg-02                 : ok=12   changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0"),
            A("Rolled out to web-stg-01 and web-stg-02 (site config changed, nginx reloaded). ansible.cfg sets no "
              "inventory, so every run needs -i inventories/<env>/hosts.yml."),
        ],
        mistake="ansible-playbook playbooks/web.yml --limit staging_web",
        lesson="skerry's ansible.cfg sets no inventory: pass -i inventories/<env>/hosts.yml to ansible-playbook (or export ANSIBLE_INVENTORY), or it finds no hosts.",
        warn=[same("ansible-playbook playbooks/web.yml --limit staging_web"),
              reword("ansible-playbook playbooks/db.yml --tags postgres --limit staging_db"),
              reword("ansible-playbook --check --diff playbooks/web.yml -l web-stg-02")],
        silent=[fix("ansible-playbook -i inventories/staging/hosts.yml playbooks/db.yml --tags postgres --limit staging_db"),
                fix("ANSIBLE_INVENTORY=inventories/staging/hosts.yml ansible-playbook --check --diff playbooks/web.yml -l web-stg-02"),
                fix("ansible-playbook --inventory=inventories/staging/hosts.yml playbooks/web.yml --limit staging_web"),
                other("ansible-playbook --syntax-check playbooks/web.yml"), help_("ansible-playbook --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-rsync-12", ERROR_FIX, GEMINI, "skerry",
        session=[
            U("Push the updated nginx site configs to lb-01."),
            err("rsync -avz config/nginx/ ops@lb-01.skerry.net:/etc/nginx/sites-available/", _RSYNC_ETC_DENIED, 23),
            ok("ssh ops@lb-01.skerry.net 'ls -ld /etc/nginx/sites-available && sudo -n true && echo sudo-ok'",
               "drwxr-xr-x 2 root root 4096 Feb 11 14:02 /etc/nginx/sites-available\nsudo-ok"),
            ok("rsync -avz --rsync-path=\"sudo rsync\" config/nginx/ ops@lb-01.skerry.net:/etc/nginx/sites-available/",
               "sending incremental file list\nskerry.conf\nskerry-admin.conf\n\n"
               "sent 2,318 bytes  received 89 bytes  4,814.00 bytes/sec\ntotal size is 5,904  speedup is 2.45"),
            A("Both site configs are on lb-01. /etc/nginx is root-owned and ops can't write there; ops has passwordless "
              "sudo, so rsync works with --rsync-path=\"sudo rsync\"."),
        ],
        mistake="rsync -avz config/nginx/ ops@lb-01.skerry.net:/etc/nginx/sites-available/",
        lesson="skerry: ops can't write root-owned paths on the load balancers — rsync into /etc with --rsync-path=\"sudo rsync\" (or copy to /tmp, then sudo cp).",
        warn=[same("rsync -avz config/nginx/ ops@lb-01.skerry.net:/etc/nginx/sites-available/"),
              reword("rsync -av config/haproxy/haproxy.cfg ops@lb-01.skerry.net:/etc/haproxy/haproxy.cfg"),
              reword("rsync --checksum -avz config/nginx/ ops@lb-02.skerry.net:/etc/nginx/sites-available/")],
        silent=[fix("rsync -av --rsync-path=\"sudo rsync\" config/haproxy/haproxy.cfg ops@lb-01.skerry.net:/etc/haproxy/haproxy.cfg"),
                fix("rsync -avz config/nginx/ ops@lb-02.skerry.net:/tmp/nginx-sites/ && ssh ops@lb-02.skerry.net 'sudo cp /tmp/nginx-sites/*.conf /etc/nginx/sites-available/'"),
                other("rsync -avz ops@lb-01.skerry.net:/var/log/nginx/error.log logs/lb-01/"), help_("rsync --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-xcodebuild-13", ERROR_FIX, CC, "pellucid",
        session=[
            U("Run the iOS unit tests."),
            err("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid", _XCODE_NO_DEST, 70),
            ok("xcrun simctl list devices available | grep -m3 iPhone",
               "    iPhone 16 Pro (6A1B3C5D-7E9F-4A2B-8C1D-3E5F7A9B1C2D) (Shutdown) \n"
               "    iPhone 16 Pro Max (0F2E4D6C-8B1A-4C3E-9D5F-7A1B3C5D7E9F) (Shutdown) \n"
               "    iPhone 16 (9A8B7C6D-5E4F-4321-8A9B-0C1D2E3F4A5B) (Shutdown) "),
            ok("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid -destination 'platform=iOS Simulator,name=iPhone 16'",
               "Test Suite 'All tests' started at 2026-03-02 09:14:02.118.\n"
               "Test Suite 'PellucidTests.xctest' passed at 2026-03-02 09:14:14.922.\n"
               "\t Executed 164 tests, with 0 failures (0 unexpected) in 12.804 (13.117) seconds\n** TEST SUCCEEDED **"),
            A("164 tests pass. xcodebuild test needs a concrete simulator: -destination 'platform=iOS Simulator,name=iPhone 16'."),
        ],
        mistake="xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid",
        lesson="pellucid: xcodebuild test without -destination fails (\"Tests must be run on a concrete device\"); pass -destination 'platform=iOS Simulator,name=iPhone 16' (or use make test-ios).",
        warn=[same("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid"),
              reword("xcodebuild -workspace Pellucid.xcworkspace -scheme PellucidKit test"),
              reword("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid -only-testing:PellucidTests/ExposureTests")],
        silent=[fix("xcodebuild -workspace Pellucid.xcworkspace -scheme PellucidKit -destination 'platform=iOS Simulator,name=iPhone 16 Pro' test"),
                fix("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid -destination 'platform=iOS Simulator,name=iPhone 16' -only-testing:PellucidTests/ExposureTests"),
                fix("make test-ios"), other("xcodebuild -list -workspace Pellucid.xcworkspace"), help_("xcodebuild -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-gradle-14", ERROR_FIX, CODEX, "wrenfield",
        session=[
            U("Run the InvoiceService tests."),
            err("gradle test --tests '*InvoiceServiceTest'", _GRADLE_APT),
            ok("gradle --version | head -3; grep distributionUrl gradle/wrapper/gradle-wrapper.properties",
               "\n------------------------------------------------------------\nGradle 4.4.1\n"
               "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10.2-bin.zip"),
            ok("./gradlew test --tests '*InvoiceServiceTest'",
               "> Task :api:test\n\nInvoiceServiceTest > issues a credit note for a partial refund() PASSED\n"
               "InvoiceServiceTest > rejects a refund above the paid amount() PASSED\n"
               "InvoiceServiceTest > settles when payments add up() PASSED\n\nBUILD SUCCESSFUL in 41s\n"
               "9 actionable tasks: 4 executed, 5 up-to-date"),
            A("The InvoiceService tests pass. The gradle on PATH is Ubuntu's 4.4.1, far too old for this build (it "
              "wants 8.10.2) — always go through the wrapper, ./gradlew."),
        ],
        mistake="gradle test --tests '*InvoiceServiceTest'",
        lesson="wrenfield: the gradle on PATH is Ubuntu's 4.4.1 and can't build this project — always use the wrapper (./gradlew …).",
        warn=[same("gradle test --tests '*InvoiceServiceTest'"), reword("gradle build"),
              reword("gradle :api:dependencies --configuration runtimeClasspath")],
        silent=[fix("./gradlew build"), fix("./gradlew :api:dependencies --configuration runtimeClasspath"),
                other("gradle --version"), help_("./gradlew help --task test")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-dotnet-15", ERROR_FIX, GEMINI, "gannet",
        session=[
            U("Build and test gannet in Release."),
            err("dotnet test -c Release",
                "MSBUILD : error MSB1011: Specify which project or solution file to use because this folder contains more than one project or solution file."),
            ok("ls *.sln *.slnf", "Gannet.Api.slnf\nGannet.sln"),
            ok("dotnet test Gannet.sln -c Release",
               "  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
               "  Gannet.Domain -> /home/dev/gannet/src/Gannet.Domain/bin/Release/net8.0/Gannet.Domain.dll\n"
               "Passed!  - Failed:     0, Passed:   212, Skipped:     0, Total:   212, Duration: 9 s - Gannet.Api.Tests.dll (net8.0)\n"
               "Passed!  - Failed:     0, Passed:    87, Skipped:     0, Total:    87, Duration: 3 s - Gannet.Payments.Tests.dll (net8.0)"),
            A("All 299 tests pass in Release. The root holds Gannet.sln and the solution filter Gannet.Api.slnf, so "
              "dotnet build/test need the file (or a project path) named."),
        ],
        mistake="dotnet test -c Release",
        lesson="gannet's root has two solution files (Gannet.sln, Gannet.Api.slnf): dotnet build/test/restore must name one (dotnet test Gannet.sln) or a project path, else MSB1011.",
        warn=[same("dotnet test -c Release"), reword("dotnet build"), reword("dotnet test --filter \"FullyQualifiedName~Payouts\"")],
        silent=[fix("dotnet build Gannet.Api.slnf"), fix("dotnet test tests/Gannet.Payments.Tests --filter \"FullyQualifiedName~Payouts\""),
                other("dotnet --list-sdks"), help_("dotnet test --help")],
        variants=(),
    ),
    Incident(
        "b5-errorfix-nix-16", ERROR_FIX, CC, "halyard",
        session=[
            U("Build the halyard CLI with nix."),
            err("nix build .#halyard-cli",
                "error: experimental Nix feature 'nix-command' is disabled; add '--extra-experimental-features nix-command' to enable it"),
            ok("cat /etc/nix/nix.conf", "build-users-group = nixbld\nsandbox = true\ntrusted-users = root"),
            ok("nix --extra-experimental-features 'nix-command flakes' build .#halyard-cli && ls result/bin", "halyard"),
            A("Built: result/bin/halyard. This machine's nix.conf doesn't enable flakes, so every nix command needs "
              "--extra-experimental-features 'nix-command flakes' (or NIX_CONFIG=\"experimental-features = nix-command flakes\")."),
        ],
        mistake="nix build .#halyard-cli",
        lesson="halyard: nix.conf here doesn't enable flakes, so nix build/develop/flake … need --extra-experimental-features 'nix-command flakes' (or NIX_CONFIG with experimental-features).",
        warn=[same("nix build .#halyard-cli"), reword("nix develop"), reword("nix flake check --all-systems")],
        silent=[fix("nix --extra-experimental-features 'nix-command flakes' develop"),
                fix("NIX_CONFIG='experimental-features = nix-command flakes' nix flake check --all-systems"),
                other("nix-shell -p jq --run 'jq --version'"), help_("nix --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-prisma-17", ERROR_FIX, CODEX, "marigold",
        session=[
            U("Create a migration for the refunds table I added to schema.prisma."),
            err("bunx prisma migrate dev --name add_refunds", _PRISMA_NO_URL),
            ok("grep -n '\"db:' package.json",
               "12:    \"db:migrate\": \"dotenv -e .env.local -- prisma migrate dev\",\n"
               "13:    \"db:deploy\": \"dotenv -e .env.local -- prisma migrate deploy\",\n"
               "14:    \"db:studio\": \"dotenv -e .env.local -- prisma studio\","),
            ok("bun run db:migrate --name add_refunds",
               "$ dotenv -e .env.local -- prisma migrate dev --name add_refunds\nPrisma schema loaded from prisma/schema.prisma\n"
               "Datasource \"db\": PostgreSQL database \"marigold\", schema \"public\" at \"localhost:5432\"\n\n"
               "Applying migration `20260302091544_add_refunds`\n\n"
               "The following migration(s) have been created and applied from new schema changes:\n\n"
               "migrations/\n  └─ 20260302091544_add_refunds/\n    └─ migration.sql\n\nYour database is now in sync with your schema.\n\n"
               "✔ Generated Prisma Client (v6.4.1) to ./node_modules/@prisma/client in 87ms"),
            A("Created and applied 20260302091544_add_refunds. DATABASE_URL lives in .env.local, which the Prisma CLI "
              "doesn't read; the package scripts (db:migrate, db:deploy, db:studio) wrap it in dotenv -e .env.local."),
        ],
        mistake="bunx prisma migrate dev --name add_refunds",
        lesson="marigold: DATABASE_URL is only in .env.local, which prisma doesn't load — use the package scripts (bun run db:migrate --name …, db:deploy, db:studio) or prefix dotenv -e .env.local --.",
        warn=[same("bunx prisma migrate dev --name add_refunds"), reword("bunx prisma migrate status"),
              reword("npx prisma migrate dev --name add_coupon_codes")],
        silent=[fix("bun run db:migrate --name add_coupon_codes"), fix("bunx dotenv -e .env.local -- prisma migrate status"),
                other("bunx prisma format"), help_("bunx prisma migrate --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-bun-18", ERROR_FIX, GEMINI, "marigold",
        session=[
            U("Run the CartDrawer tests, I changed how the subtotal is shown."),
            err("bun test src/components/CartDrawer.test.tsx", _BUN_NO_DOM),
            ok("grep -n '\"test\"' package.json; ls jest.config.*", "9:    \"test\": \"jest\",\njest.config.ts"),
            ok("bun run test -- src/components/CartDrawer.test.tsx",
               "$ jest src/components/CartDrawer.test.tsx\n PASS  src/components/CartDrawer.test.tsx\n  CartDrawer\n"
               "    ✓ shows the subtotal (41 ms)\n    ✓ removes a line (18 ms)\n    ✓ applies a coupon (22 ms)\n"
               "    ✓ shows free shipping above the threshold (9 ms)\n    ✓ closes on escape (7 ms)\n    ✓ traps focus (11 ms)\n\n"
               "Test Suites: 1 passed, 1 total\nTests:       6 passed, 6 total"),
            A("All 6 CartDrawer tests pass. `bun test` is Bun's own test runner (no jsdom, no jest.config); marigold's "
              "suite is jest, which `bun run test` runs via the package script."),
        ],
        mistake="bun test src/components/CartDrawer.test.tsx",
        lesson="marigold's tests are jest with jsdom; `bun test` runs Bun's built-in runner instead and fails — use bun run test (-- <file>) or bunx jest.",
        warn=[same("bun test src/components/CartDrawer.test.tsx"), reword("bun test"), reword("bun test --watch src/lib")],
        silent=[fix("bun run test -- src/lib"), fix("bunx jest src/components/CartDrawer.test.tsx --coverage"),
                other("bun run lint"), help_("bun test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-sbt-19", ERROR_FIX, CC, "drumlin",
        session=[
            U("Run the pipeline tests."),
            err("sbt pipeline/test", _SBT_METASPACE),
            ok("grep -n -i metaspace README.md",
               "48:Spark tests need a bigger heap: `SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" sbt pipeline/test`."),
            ok("SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" sbt pipeline/test",
               "[info] SessionizerSpec:\n[info] - splits sessions on a 30 minute gap\n[info] - keeps late events in their session\n"
               "[info] Run completed in 1 minute, 51 seconds.\n[info] Total number of tests run: 96\n"
               "[info] Tests: succeeded 96, failed 0, canceled 0, ignored 2, pending 0\n[info] All tests passed.\n"
               "[success] Total time: 142 s (02:22), completed Mar 2, 2026, 9:31:07 AM"),
            A("All 96 pipeline tests pass. The Spark tests run out of Metaspace with sbt's default JVM settings; the "
              "README's SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" is needed."),
        ],
        mistake="sbt pipeline/test",
        lesson="drumlin: the Spark tests run out of Metaspace with sbt's default heap — run them with SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" (or sbt -J-Xmx4G -J-XX:MaxMetaspaceSize=1G …).",
        warn=[same("sbt pipeline/test"), reword("sbt test"), reword("sbt \"pipeline/testOnly *SessionizerSpec\"")],
        silent=[fix("SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" sbt \"pipeline/testOnly *SessionizerSpec\""),
                fix("sbt -J-Xmx4G -J-XX:MaxMetaspaceSize=1G test"),
                fix(W(".sbtopts", "-J-Xmx4G\n-J-XX:MaxMetaspaceSize=1G\n")),
                other("sbt pipeline/compile"), help_("sbt --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-errorfix-aws-20", ERROR_FIX, CODEX, "sorrel",
        session=[
            U("Upload the v7 model artifacts to the models bucket."),
            err("aws s3 sync models/v7/ s3://sorrel-models/v7/", _S3_EXPLICIT_DENY),
            ok("aws s3api get-bucket-policy --bucket sorrel-models --query Policy --output text | jq '.Statement[] | select(.Effect==\"Deny\") | .Condition'",
               "{\n  \"StringNotEquals\": {\n    \"s3:x-amz-server-side-encryption\": \"aws:kms\"\n  }\n}"),
            ok("aws s3 sync models/v7/ s3://sorrel-models/v7/ --sse aws:kms --sse-kms-key-id alias/sorrel-models",
               "upload: models/v7/config.json to s3://sorrel-models/v7/config.json\n"
               "upload: models/v7/tokenizer.json to s3://sorrel-models/v7/tokenizer.json\n"
               "upload: models/v7/model.safetensors to s3://sorrel-models/v7/model.safetensors"),
            A("v7 is uploaded. The bucket policy denies any PutObject that isn't KMS-encrypted, so uploads into "
              "sorrel-models need --sse aws:kms --sse-kms-key-id alias/sorrel-models (scripts/push-model.sh passes both)."),
        ],
        mistake="aws s3 sync models/v7/ s3://sorrel-models/v7/",
        lesson="sorrel-models denies unencrypted uploads: every aws s3 cp/sync into it needs --sse aws:kms --sse-kms-key-id alias/sorrel-models (./scripts/push-model.sh does that).",
        warn=[same("aws s3 sync models/v7/ s3://sorrel-models/v7/"),
              reword("aws s3 cp reports/eval-v7.json s3://sorrel-models/v7/eval.json"),
              reword("aws s3 sync s3://sorrel-scratch/run-41/ s3://sorrel-models/v8/")],
        silent=[fix("aws s3 cp reports/eval-v7.json s3://sorrel-models/v7/eval.json --sse aws:kms --sse-kms-key-id alias/sorrel-models"),
                fix("./scripts/push-model.sh v8"),
                other("aws s3 sync s3://sorrel-models/v6/ models/v6/"), help_("aws s3 sync help")],
        variants=("diagnostic",),
    ),
]
