"""Dev split, shape 1: a call fails, a different call works (a flag, a path, a
prefix step or another program)."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, U, err, fix, help_, ok, other, reword, same

# Claude Code's Bash tool result when a command hits the 2-minute timeout.
CC_TIMEOUT = "Command timed out after 2m 0.0s"

_GRADLE_OLD_JAVA = (
    "\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not determine java version from '21.0.2'.\n\n"
    "* Try:\nRun with --stacktrace option to get the stack trace. Run with --info or --debug option to get more log output."
)

_GEM_LOAD_ERROR = (
    "/home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.6/lib/bundler/runtime.rb:304:in `check_for_activated_spec!': "
    "You have already activated rspec-core 3.13.0, but your Gemfile requires rspec-core 3.12.2. "
    "Prepending `bundle exec` to your command may solve this. (Gem::LoadError)\n"
    "\tfrom /home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.6/lib/bundler/runtime.rb:25:in `block in setup'\n"
    "\tfrom /home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.6/lib/bundler/spec_set.rb:165:in `each'\n"
    "\tfrom /home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.6/lib/bundler/runtime.rb:24:in `map'\n"
    "\tfrom /home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.6/lib/bundler/runtime.rb:24:in `setup'\n"
    "\tfrom /home/dev/.gem/ruby/3.3.0/gems/rspec-core-3.13.0/exe/rspec:4:in `<top (required)>'"
)

_PEP668 = (
    "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install\n"
    "    python3-xyz, where xyz is the package you are trying to\n    install.\n    \n"
    "    If you wish to install a non-Debian-packaged Python package,\n"
    "    create a virtual environment using python3 -m venv path/to/venv.\n"
    "    Then use path/to/venv/bin/python and path/to/venv/bin/pip. Make\n    sure you have python3-full installed.\n    \n"
    "    If you wish to install a non-Debian packaged Python application,\n"
    "    it may be easiest to use pipx install xyz, which will manage a\n"
    "    virtual environment for you. Make sure you have pipx installed.\n    \n"
    "    See /usr/share/doc/python3.12/README.venv for more information.\n\n"
    "note: If you believe this is a mistake, please contact your Python installation or OS distribution provider. "
    "You can override this, at the risk of breaking your Python installation or OS, by passing --break-system-packages.\n"
    "hint: See PEP 668 for the detailed specification."
)

_JEST_NO_TS = (
    " FAIL  apps/api/src/routes/orders.test.ts\n  ● Test suite failed to run\n\n    Jest encountered an unexpected token\n\n"
    "    Jest failed to parse a file. This happens e.g. when your code or its dependencies use non-standard JavaScript "
    "syntax, or when Jest is not configured to support such syntax.\n\n"
    "    Out of the box Jest supports Babel, which will be used to transform your files into valid JS based on your "
    "Babel configuration.\n\n    By default \"node_modules\" folder is ignored by transformers.\n\n"
    "    Here's what you can do:\n"
    "     • If you are trying to use ECMAScript Modules, see https://jestjs.io/docs/ecmascript-modules for how to enable it.\n"
    "     • If you are trying to use TypeScript, see https://jestjs.io/docs/getting-started#using-typescript\n"
    "     • To have some of your \"node_modules\" files transformed, you can specify a custom \"transformIgnorePatterns\" "
    "in your config.\n\n    Details:\n\n    /home/dev/mosaic/apps/api/src/routes/orders.test.ts:1\n"
    "    ({\"Object.<anonymous>\":function(module,exports,require,__dirname,__filename,jest){import request from \"supertest\";\n"
    "                                                                                      ^^^^^^\n\n"
    "    SyntaxError: Cannot use import statement outside a module\n\n"
    "      at Runtime.createScriptFromCode (node_modules/jest-runtime/build/index.js:1505:14)\n\n"
    "Test Suites: 1 failed, 1 total\nTests:       0 total\nSnapshots:   0 total\nTime:        0.412 s\n"
    "Ran all test suites matching /apps\\/api\\/src\\/routes\\/orders.test.ts/i."
)

_GO_PRIVATE_404 = (
    "go: github.com/acme/protos@v0.10.0: reading https://proxy.golang.org/github.com/acme/protos/@v/v0.10.0.info: 404 Not Found\n"
    "\tserver response:\n\tnot found: module github.com/acme/protos: git ls-remote -q origin in "
    "/home/dev/go/pkg/mod/cache/vcs/5a1e0c2f9d8b7a6e4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c: exit status 128:\n"
    "\t\tfatal: could not read Username for 'https://github.com': terminal prompts disabled\n"
    "\tConfirm the import path was typed correctly.\n"
    "\tIf this is a private repository, see https://golang.org/doc/faq#git_https for additional information."
)

INCIDENTS = [
    Incident(
        "ef-harbor-system-gradle", ERROR_FIX, CC, "harbor-api",
        session=[
            U("Build harbor-api and make sure it still compiles after the Spring Boot bump."),
            err("gradle build", _GRADLE_OLD_JAVA),
            ok("gradle --version | head -3", "\n------------------------------------------------------------\nGradle 4.4.1"),
            ok("ls", "Dockerfile\napp\nbuild.gradle.kts\ncommon\ncompose.yaml\ngradle\ngradlew\ngradlew.bat\nk8s\nsettings.gradle.kts"),
            A("The `gradle` on PATH is Ubuntu's 4.4.1, which predates Java 21. The repo ships a wrapper pinned to Gradle 8.7."),
            ok("./gradlew build",
               "Downloading https://services.gradle.org/distributions/gradle-8.7-bin.zip\n"
               "............10%.............20%.............30%.............40%.............50%......"
               ".......60%.............70%.............80%.............90%.............100%\n\n"
               "> Task :common:compileJava\n> Task :app:compileJava\n> Task :app:test\n\n"
               "BUILD SUCCESSFUL in 1m 48s\n14 actionable tasks: 14 executed"),
            A("It builds with the wrapper."),
        ],
        mistake="gradle build",
        lesson="harbor-api: the system gradle is 4.4.1 and dies on Java 21 ('Could not determine java version'); always use the wrapper, ./gradlew.",
        warn=[same("gradle build"), reword("gradle clean build -x test"),
              reword("cd app && gradle dependencies --configuration runtimeClasspath")],
        silent=[fix("./gradlew clean build -x test"), fix("./gradlew :app:dependencies --configuration runtimeClasspath"),
                other("java -version"), help_("./gradlew help --task build")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "ef-beacon-dotnet-two-solutions", ERROR_FIX, CODEX, "beacon",
        session=[
            U("Run the beacon test suite."),
            err("dotnet test",
                "MSBUILD : error MSB1011: Specify which project or solution file to use because this folder contains "
                "more than one project or solution file."),
            ok("ls *.sln", "Beacon.Legacy.sln\nBeacon.sln"),
            ok("dotnet test Beacon.sln",
               "  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
               "  Beacon.Domain -> /home/dev/beacon/src/Beacon.Domain/bin/Debug/net8.0/Beacon.Domain.dll\n"
               "  Beacon.Data -> /home/dev/beacon/src/Beacon.Data/bin/Debug/net8.0/Beacon.Data.dll\n"
               "  Beacon.Api -> /home/dev/beacon/src/Beacon.Api/bin/Debug/net8.0/Beacon.Api.dll\n"
               "  Beacon.Api.Tests -> /home/dev/beacon/tests/Beacon.Api.Tests/bin/Debug/net8.0/Beacon.Api.Tests.dll\n"
               "Test run for /home/dev/beacon/tests/Beacon.Api.Tests/bin/Debug/net8.0/Beacon.Api.Tests.dll (.NETCoreApp,Version=v8.0)\n"
               "Microsoft (R) Test Execution Command Line Tool Version 17.9.0 (x64)\n"
               "Copyright (c) Microsoft Corporation.  All rights reserved.\n\nStarting test execution, please wait...\n"
               "A total of 1 test files matched the specified pattern.\n\n"
               "Passed!  - Failed:     0, Passed:   148, Skipped:     2, Total:   150, Duration: 6 s - Beacon.Api.Tests.dll (net8.0)"),
            A("148 passed, 2 skipped. The root holds two solutions (Beacon.sln and the old Beacon.Legacy.sln), so dotnet "
              "commands there have to name the solution."),
        ],
        mistake="dotnet test",
        lesson="beacon's root has two solutions: a bare dotnet test/build fails with MSB1011; name it (dotnet test Beacon.sln).",
        warn=[same("dotnet test"), reword("dotnet build -c Release"), reword("dotnet test --no-restore --filter Category=Unit")],
        silent=[fix("dotnet build Beacon.sln -c Release"), fix("dotnet test Beacon.sln --no-restore --filter Category=Unit"),
                other("dotnet --list-sdks"), help_("dotnet test --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-orchard-rspec-bundle-exec", ERROR_FIX, CC, "orchard",
        session=[
            U("Run the Order model specs."),
            err("rspec spec/models/order_spec.rb", _GEM_LOAD_ERROR),
            ok("bundle exec rspec spec/models/order_spec.rb",
               "\nRandomized with seed 41207\n..................\n\n"
               "Finished in 1.42 seconds (files took 2.87 seconds to load)\n18 examples, 0 failures\n\nRandomized with seed 41207"),
            A("18 examples, 0 failures. The globally installed rspec is newer than the one pinned in Gemfile.lock, so the "
              "specs have to run through `bundle exec`."),
        ],
        mistake="rspec spec/models/order_spec.rb",
        lesson="orchard: run gem executables through Bundler; bare rspec/rake load the wrong versions (Gem::LoadError) — use bundle exec rspec, bin/rails.",
        warn=[same("rspec spec/models/order_spec.rb"), reword("rspec spec/requests/checkout_spec.rb --format documentation")],
        silent=[fix("bundle exec rspec spec/requests/checkout_spec.rb --format documentation"),
                other("gem list rspec-core"), help_("bundle exec rspec --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-orchard-exec-bash-alpine", ERROR_FIX, GEMINI, "orchard",
        session=[
            U("How many orders are stuck in pending on staging? Check from inside the web pod."),
            err("kubectl exec deploy/orchard-web -n orchard -- bash -c 'bin/rails runner \"puts Order.pending.count\"'",
                "error: Internal error occurred: error executing command in container: failed to exec in container: "
                "failed to start exec \"6f2d0c1b9a8e7f6d5c4b3a291807f6e5d4c3b2a1908f7e6d5c4b3a29180f7e6d\": OCI runtime exec failed: "
                "exec failed: unable to start container process: exec: \"bash\": executable file not found in $PATH: unknown"),
            ok("kubectl get deploy orchard-web -n orchard -o jsonpath='{.spec.template.spec.containers[0].image}'",
               "ghcr.io/acme/orchard:2026.03.1-alpine"),
            A("The image is Alpine-based: it has sh but no bash."),
            ok("kubectl exec deploy/orchard-web -n orchard -- sh -c 'bin/rails runner \"puts Order.pending.count\"'", "37"),
            A("37 orders are pending on staging."),
        ],
        mistake="kubectl exec deploy/orchard-web -n orchard -- bash",
        lesson="orchard's image is Alpine (no bash): kubectl exec into its pods with sh (-- sh -c '…'), never bash.",
        warn=[same("kubectl exec deploy/orchard-web -n orchard -- bash -c 'bin/rails runner \"puts Order.pending.count\"'"),
              reword("kubectl -n orchard exec -it deploy/orchard-worker -- bash"),
              reword("kubectl exec orchard-web-6d9c7b8f5-q2xlm -n orchard -- /bin/bash -lc 'env | grep DATABASE'")],
        silent=[fix("kubectl -n orchard exec deploy/orchard-worker -- sh -c 'ps aux'"),
                other("kubectl logs deploy/orchard-web -n orchard --tail=100"), help_("kubectl exec --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-platform-terraform-init-backend", ERROR_FIX, CC, "platform-ops",
        session=[
            U("I cloned platform-ops fresh; initialise terraform so I can look at the GKE module."),
            err("terraform init",
                CC_TIMEOUT + "\nInitializing the backend...\nbucket\n  The name of the Google Cloud Storage bucket\n\n  Enter a value: "),
            ok("cat backend.tf", 'terraform {\n  backend "gcs" {}\n}'),
            ok("ls *.tfbackend", "backend.gcs.tfbackend"),
            ok("terraform init -backend-config=backend.gcs.tfbackend",
               "Initializing the backend...\n\nSuccessfully configured the backend \"gcs\"! Terraform will automatically\n"
               "use this backend unless the backend configuration changes.\nInitializing modules...\n- gke in modules/gke\n"
               "- network in modules/network\n\nInitializing provider plugins...\n"
               "- Reusing previous version of hashicorp/google from the dependency lock file\n"
               "- Installing hashicorp/google v5.21.0...\n- Installed hashicorp/google v5.21.0 (signed by HashiCorp)\n\n"
               "Terraform has been successfully initialized!"),
            A("Initialised. The gcs backend block is empty on purpose: bucket and prefix come from backend.gcs.tfbackend; "
              "without it, init sits waiting for input."),
        ],
        mistake="terraform init",
        lesson="platform-ops has a partial gcs backend: a plain terraform init hangs asking for the bucket; run terraform init -backend-config=backend.gcs.tfbackend.",
        warn=[same("terraform init"), reword("terraform init -upgrade"), reword("terraform init -reconfigure -input=false")],
        silent=[fix("terraform init -upgrade -backend-config=backend.gcs.tfbackend"), other("terraform fmt -check -recursive"),
                help_("terraform init -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-fjord-pip-pep668", ERROR_FIX, CC, "fjord",
        session=[
            U("Install the dev requirements so I can run fjord's tests."),
            err("pip install -r requirements-dev.txt", _PEP668),
            ok("ls -a", ".\n..\n.env.example\n.git\n.venv\ncatalog\nfjord\nmanage.py\npytest.ini\nrequirements-dev.txt\nrequirements.txt"),
            ok(".venv/bin/pip install -r requirements-dev.txt",
               "Collecting pytest==8.1.1 (from -r requirements-dev.txt (line 2))\n  Using cached pytest-8.1.1-py3-none-any.whl.metadata (7.6 kB)\n"
               "Collecting pytest-django==4.8.0 (from -r requirements-dev.txt (line 3))\n"
               "Successfully installed factory-boy-3.3.0 faker-24.4.0 pytest-8.1.1 pytest-django-4.8.0 ruff-0.3.4"),
            A("Installed into the project's .venv. The system Python is Debian's and refuses pip installs (PEP 668)."),
        ],
        mistake="pip install -r requirements-dev.txt",
        lesson="fjord: the system Python is externally managed (PEP 668); install into the project venv with .venv/bin/pip, never bare pip or --break-system-packages.",
        warn=[same("pip install -r requirements-dev.txt"), reword("pip3 install django-debug-toolbar==4.3.0"),
              reword("pip install --break-system-packages -r requirements.txt")],
        silent=[fix(".venv/bin/pip install django-debug-toolbar==4.3.0"), other("pip --version"), help_("pip install --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-harbor-buildx-multiplatform", ERROR_FIX, CODEX, "harbor-api",
        session=[
            U("Build the harbor-api image for amd64 and arm64 and push it as 2.4.1."),
            err("docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/acme/harbor-api:2.4.1 --push .",
                "ERROR: Multi-platform build is not supported for the docker driver.\n"
                "Switch to a different driver, or turn on the containerd image store, and try again.\n"
                "Learn more at https://docs.docker.com/go/build-multi-platform/"),
            ok("docker buildx ls",
               "NAME/NODE       DRIVER/ENDPOINT             STATUS   BUILDKIT PLATFORMS\n"
               "multiarch       docker-container                                 \n"
               "  multiarch0    unix:///var/run/docker.sock running  v0.13.1  linux/amd64, linux/amd64/v2, linux/arm64, linux/386\n"
               "default *       docker                                           \n"
               "  default       default                     running  v0.12.5  linux/amd64, linux/amd64/v2, linux/386"),
            ok("docker buildx build --builder multiarch --platform linux/amd64,linux/arm64 -t ghcr.io/acme/harbor-api:2.4.1 --push .",
               "#1 [internal] load build definition from Dockerfile\n#1 transferring dockerfile: 912B done\n#1 DONE 0.0s\n"
               "...\n#21 exporting to image\n#21 pushing layers 6.1s done\n"
               "#21 pushing manifest for ghcr.io/acme/harbor-api:2.4.1@sha256:8c1f0e9d2b3a4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5 0.9s done\n"
               "#21 DONE 14.2s"),
            A("Pushed 2.4.1 for both platforms with the `multiarch` builder. The default builder uses the docker driver, "
              "which can't build multi-platform images."),
        ],
        mistake="docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/acme/harbor-api:2.4.1 --push .",
        lesson="harbor-api: multi-platform builds fail on the default (docker driver) builder; pass --builder multiarch to docker buildx build --platform linux/amd64,linux/arm64.",
        warn=[same("docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/acme/harbor-api:2.4.1 --push ."),
              reword("docker build --platform=linux/arm64,linux/amd64 -t ghcr.io/acme/harbor-api:2.5.0-rc1 --push ."),
              reword("docker buildx build --push --platform linux/amd64,linux/arm64 --tag ghcr.io/acme/harbor-api:latest .")],
        silent=[fix("docker buildx build --builder multiarch --platform linux/amd64,linux/arm64 -t ghcr.io/acme/harbor-api:2.5.0-rc1 --push ."),
                other("docker build -t harbor-api:dev ."), help_("docker buildx build --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-lantern-goprivate", ERROR_FIX, CC, "lantern",
        session=[
            U("Bump the protos module to v0.10.0, we need the new Route message."),
            err("go get github.com/acme/protos@v0.10.0", _GO_PRIVATE_404),
            ok("go env GOPRIVATE", ""),
            ok("git config --get-regexp '^url\\.'", "url.git@github.com:.insteadof https://github.com/"),
            ok("GOPRIVATE=github.com/acme/* go get github.com/acme/protos@v0.10.0",
               "go: downloading github.com/acme/protos v0.10.0\ngo: upgraded github.com/acme/protos v0.9.2 => v0.10.0"),
            A("Bumped to v0.10.0. github.com/acme modules are private: they have to bypass the public proxy and checksum "
              "database (GOPRIVATE=github.com/acme/*), then git fetches them over SSH."),
        ],
        mistake="go get github.com/acme/protos@v0.10.0",
        lesson="lantern: github.com/acme/* modules are private; go get / go mod download need GOPRIVATE=github.com/acme/* or the public proxy answers 404.",
        warn=[same("go get github.com/acme/protos@v0.10.0"), reword("go get -u github.com/acme/authkit@latest"),
              reword("go mod download github.com/acme/protos")],
        silent=[fix("GOPRIVATE=github.com/acme/* go get -u github.com/acme/authkit@latest"),
                other("go get github.com/prometheus/client_golang@v1.19.0"), help_("go help module-private")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-platform-gcloud-location", ERROR_FIX, GEMINI, "platform-ops",
        session=[
            U("Point kubectl at the staging GKE cluster."),
            err("gcloud container clusters get-credentials staging-gke",
                "ERROR: (gcloud.container.clusters.get-credentials) One of [--zone, --region] must be supplied: Please specify location."),
            ok("gcloud container clusters list --format='table(name,location,status)'",
               "NAME         LOCATION      STATUS\nprod-gke     europe-west4  RUNNING\nstaging-gke  europe-west4  RUNNING"),
            ok("gcloud container clusters get-credentials staging-gke --region europe-west4",
               "Fetching cluster endpoint and auth data.\nkubeconfig entry generated for staging-gke."),
            A("kubectl now points at staging-gke. Both clusters are regional (europe-west4) and gcloud has no default "
              "location configured, so cluster commands need --region europe-west4."),
        ],
        mistake="gcloud container clusters get-credentials staging-gke",
        lesson="platform-ops: gcloud has no default location; GKE cluster commands need --region europe-west4 (gcloud container clusters get-credentials prod-gke --region europe-west4).",
        warn=[same("gcloud container clusters get-credentials staging-gke"),
              reword("gcloud container clusters get-credentials prod-gke --project acme-platform-prod"),
              reword("gcloud container clusters describe staging-gke --format='value(currentMasterVersion)'")],
        silent=[fix("gcloud container clusters get-credentials prod-gke --region europe-west4 --project acme-platform-prod"),
                other("gcloud container clusters list"), help_("gcloud container clusters get-credentials --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-pipeline-psql-env", ERROR_FIX, CC, "pipeline",
        session=[
            U("Recreate the daily_revenue view from sql/views/daily_revenue.sql."),
            err('psql "$DATABASE_URL" -f sql/views/daily_revenue.sql',
                'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory\n'
                "\tIs the server running locally and accepting connections on that socket?", 2),
            ok("echo ${DATABASE_URL:-unset}", "unset"),
            ok("grep -c '^DATABASE_URL=' .env", "1"),
            ok('source .env && psql "$DATABASE_URL" -f sql/views/daily_revenue.sql', "DROP VIEW\nCREATE VIEW\nGRANT"),
            A("The view is recreated. DATABASE_URL is only defined in .env (not exported in this shell), so psql fell back "
              "to the local socket."),
        ],
        mistake='psql "$DATABASE_URL" -f sql/views/daily_revenue.sql',
        lesson='pipeline: DATABASE_URL lives in .env and is not exported; run psql as source .env && psql "$DATABASE_URL" ….',
        warn=[same('psql "$DATABASE_URL" -f sql/views/daily_revenue.sql'),
              reword("psql $DATABASE_URL -c 'REFRESH MATERIALIZED VIEW CONCURRENTLY daily_revenue'"),
              reword('cd sql && psql "$DATABASE_URL" -f views/customer_ltv.sql')],
        silent=[fix('source .env && psql "$DATABASE_URL" -f sql/views/customer_ltv.sql'), other("psql --version"),
                other("ls sql/views")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-mosaic-npx-jest-config", ERROR_FIX, CC, "mosaic",
        session=[
            U("Run the order route tests in the API."),
            err("npx jest apps/api/src/routes/orders.test.ts", _JEST_NO_TS),
            ok("grep '\"test\"' package.json", '    "test": "jest --config config/jest.config.ts",'),
            ok("npm test -- apps/api/src/routes/orders.test.ts",
               "\n> mosaic@0.0.0 test\n> jest --config config/jest.config.ts apps/api/src/routes/orders.test.ts\n\n"
               " PASS  apps/api/src/routes/orders.test.ts\n  POST /orders\n    ✓ creates an order (41 ms)\n"
               "    ✓ rejects a negative quantity (9 ms)\n  GET /orders/:id\n    ✓ returns the order (7 ms)\n\n"
               "Test Suites: 1 passed, 1 total\nTests:       3 passed, 3 total\nSnapshots:   0 total\nTime:        2.114 s"),
            A("3 passed. Jest's config (with the ts-jest transform) is config/jest.config.ts and only `npm test` passes it; "
              "a bare `npx jest` finds no config and can't parse TypeScript."),
        ],
        mistake="npx jest apps/api/src/routes/orders.test.ts",
        lesson="mosaic: jest's config is config/jest.config.ts; bare npx jest can't parse TS ('Cannot use import statement outside a module'); run npm test -- <path>.",
        warn=[same("npx jest apps/api/src/routes/orders.test.ts"), reword('npx jest -t "rejects a negative quantity"'),
              reword("cd apps/api && npx jest src/services")],
        silent=[fix('npm test -- -t "rejects a negative quantity"'),
                fix("npx jest --config config/jest.config.ts apps/api/src/services"),
                other("npx tsc -p apps/api --noEmit"), help_("npx jest --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "ef-platform-ansible-inventory", ERROR_FIX, CODEX, "platform-ops",
        session=[
            U("Run the web playbook against the staging web hosts."),
            err("ansible-playbook playbooks/web.yml --limit web",
                "[WARNING]: No inventory was parsed, only implicit localhost is available\n"
                "[WARNING]: provided hosts list is empty, only localhost is available. Note that\n"
                "the implicit localhost does not match 'all'\n"
                "ERROR! Specified inventory, host pattern and/or --limit leaves us with no hosts to target."),
            ok("ls inventories", "prod\nstaging"),
            ok("ansible-playbook -i inventories/staging/hosts.yml playbooks/web.yml --limit web",
               "\nPLAY [web] *********************************************************************\n\n"
               "TASK [Gathering Facts] *********************************************************\n"
               "ok: [web1.staging.acme.internal]\nok: [web2.staging.acme.internal]\n\n"
               "TASK [nginx : render site config] **********************************************\n"
               "changed: [web1.staging.acme.internal]\nchanged: [web2.staging.acme.internal]\n\n"
               "RUNNING HANDLER [nginx : reload nginx] *****************************************\n"
               "changed: [web1.staging.acme.internal]\nchanged: [web2.staging.acme.internal]\n\n"
               "PLAY RECAP *********************************************************************\n"
               "web1.staging.acme.internal : ok=14   changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\n"
               "web2.staging.acme.internal : ok=14   changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0"),
            A("Applied to both staging web hosts. ansible.cfg sets no default inventory, so each run needs "
              "-i inventories/<env>/hosts.yml."),
        ],
        mistake="ansible-playbook playbooks/web.yml --limit web",
        lesson="platform-ops' ansible.cfg has no default inventory: always pass -i inventories/<env>/hosts.yml to ansible-playbook.",
        warn=[same("ansible-playbook playbooks/web.yml --limit web"), reword("ansible-playbook playbooks/db.yml --check --diff"),
              reword("ansible-playbook --limit db1 playbooks/db.yml -t postgres")],
        silent=[fix("ansible-playbook -i inventories/prod/hosts.yml playbooks/db.yml --check --diff"),
                other("ansible-lint playbooks/web.yml"), other("ansible-galaxy collection list"), help_("ansible-playbook --help")],
        variants=("diagnostic",),
    ),
]
