"""blind4 / error_fix: a call fails with a real error, the agent's next call fixes it."""

from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    ERROR_FIX,
    GEMINI,
    A,
    Incident,
    U,
    edit,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
    write,
)

_KOTLIN_WARNINGS = "\n".join(
    f"w: file:///home/dev/.pub-cache/hosted/pub.dev/{plugin}/android/src/main/kotlin/{cls}.kt:{line}:9 "
    f"'{api}' is deprecated. Deprecated in Java"
    for plugin, cls, line, api in [
        ("shared_preferences_android-2.3.4", "SharedPreferencesPlugin", 41, "getString(String, String): String?"),
        ("path_provider_android-2.2.15", "PathProviderPlugin", 88, "getExternalStorageDirectory(): File"),
        ("url_launcher_android-6.3.14", "UrlLauncher", 112, "resolveActivity(PackageManager): ComponentName?"),
        ("image_picker_android-0.8.12", "ImagePickerDelegate", 317, "startActivityForResult(Intent, Int): Unit"),
        ("firebase_messaging-15.2.1", "FlutterFirebaseMessagingPlugin", 64, "getParcelableExtra(String): T?"),
        ("camera_android-0.10.10", "CameraPlugin", 203, "setTargetResolution(Size): Builder"),
    ]
    * 6
)

_MAVEN_DOWNLOADS = "\n".join(
    f"[INFO] Downloading from central: https://repo.maven.apache.org/maven2/{path}"
    for path in [
        "io/basalt/basalt-common/1.4.0-SNAPSHOT/maven-metadata.xml",
        "org/springframework/boot/spring-boot-starter-data-jpa/3.4.2/spring-boot-starter-data-jpa-3.4.2.pom",
        "org/hibernate/orm/hibernate-core/6.6.5.Final/hibernate-core-6.6.5.Final.pom",
        "org/postgresql/postgresql/42.7.5/postgresql-42.7.5.pom",
        "org/flywaydb/flyway-core/10.20.1/flyway-core-10.20.1.pom",
        "org/testcontainers/postgresql/1.20.4/postgresql-1.20.4.pom",
        "io/micrometer/micrometer-registry-prometheus/1.14.3/micrometer-registry-prometheus-1.14.3.pom",
    ]
    * 4
)

INCIDENTS = [
    Incident(
        id="b4-errorfix-python-01",
        shape=ERROR_FIX,
        agent=CC,
        project="harbor-api",
        session=[
            U("add httpx so the webhook client can make async calls, then run the webhook tests"),
            ok("git status --short", " M harbor/webhooks/client.py"),
            err(
                "pip install httpx",
                "error: externally-managed-environment\n\n"
                "× This environment is externally managed\n"
                "╰─> To install Python packages system-wide, try apt install\n"
                "    python3-xyz, where xyz is the package you are trying to\n"
                "    install.\n\n"
                "note: If you believe this is a mistake, please contact your Python installation or OS distribution "
                "provider. You can override this, at the risk of breaking your Python installation or OS, by passing "
                "--break-system-packages.\nhint: See PEP 668 for the detailed specification.",
            ),
            ok("ls", "Dockerfile\nalembic\nalembic.ini\ncompose.yaml\nharbor\npyproject.toml\ntests\nuv.lock"),
            A("There's a uv.lock: this project is managed by uv, so the dependency goes in with `uv add`, not pip."),
            ok(
                "uv add httpx",
                "Resolved 41 packages in 312ms\nPrepared 2 packages in 88ms\nInstalled 2 packages in 6ms\n"
                " + httpcore==1.0.7\n + httpx==0.28.1",
            ),
            ok(
                "uv run pytest tests/webhooks -q",
                "........                                       [100%]\n8 passed in 0.61s",
            ),
        ],
        mistake="pip install httpx",
        lesson=(
            "harbor-api is a uv project: add dependencies with `uv add <pkg>` (dev ones with `uv add --dev`), never "
            "pip install into the system Python (it fails with externally-managed-environment)."
        ),
        warn=[
            same("pip install httpx"),
            reword("pip3 install tenacity"),
            reword("python3 -m pip install python-multipart"),
        ],
        silent=[
            fix("uv add tenacity"),
            fix("uv add --dev respx"),
            other("pip show httpx"),
            help_("pip help install"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b4-errorfix-node-02",
        shape=ERROR_FIX,
        agent=CODEX,
        project="fernweh-web",
        session=[
            U("the web app needs zod for the new form schemas, add it"),
            ok("ls", "apps\npackages\npackage.json\npnpm-lock.yaml\npnpm-workspace.yaml\nturbo.json"),
            err(
                "npm install zod",
                'npm error code EUNSUPPORTEDPROTOCOL\nnpm error Unsupported URL Type "workspace:": workspace:*\n'
                "npm error A complete log of this run can be found in: "
                "/home/dev/.npm/_logs/2026-03-02T09_01_12_411Z-debug-0.log",
            ),
            A("This is a pnpm workspace (`workspace:*` dependencies), which npm can't resolve. Adding it with pnpm."),
            ok(
                "pnpm add zod --filter web",
                "Progress: resolved 812, reused 790, downloaded 1, added 1, done\n\n"
                "dependencies:\n+ zod 3.24.2\n\nDone in 2.4s",
            ),
            ok("pnpm --filter web typecheck", "\n> web@0.1.0 typecheck /repo/apps/web\n> tsc --noEmit\n"),
        ],
        mistake="npm install zod",
        lesson=(
            "fernweh-web is a pnpm workspace (workspace:* dependencies): npm install fails with EUNSUPPORTEDPROTOCOL. "
            "Add packages with `pnpm add <pkg> --filter <app>`."
        ),
        warn=[
            same("npm install zod"),
            reword("npm i date-fns"),
            reword("cd apps/web && npm install --save-dev @types/lodash"),
        ],
        silent=[
            fix("pnpm add date-fns --filter web"),
            fix("pnpm --filter web add -D @types/lodash"),
            other("npm view zod version"),
            help_("npm help install"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-errorfix-node-03",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="fernweh-web",
        session=[
            U("check the production build of the web app still works after the nav refactor"),
            err(
                "pnpm --filter web build",
                "\n> web@0.1.0 build /repo/apps/web\n> next build\n\n   ▲ Next.js 15.1.6\n\n"
                "   Creating an optimized production build ...\n"
                "❌ Invalid environment variables: { NEXT_PUBLIC_API_URL: [ 'Required' ] }\n"
                "Error: Invalid environment variables\n"
                "    at onValidationError (file:///repo/apps/web/src/env.mjs:14:11)\n"
                "/repo/apps/web:\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  web@0.1.0 build: `next build`\nExit status 1",
            ),
            read(
                "apps/web/src/env.mjs",
                'import { createEnv } from "@t3-oss/env-nextjs";\nimport { z } from "zod";\n\n'
                "export const env = createEnv({\n  client: {\n    NEXT_PUBLIC_API_URL: z.string().url(),\n  },\n"
                "  runtimeEnv: {\n    NEXT_PUBLIC_API_URL: process.env.NEXT_PUBLIC_API_URL,\n  },\n});\n",
            ),
            A("The build validates NEXT_PUBLIC_API_URL and this shell has no .env; building against staging's API."),
            ok(
                "NEXT_PUBLIC_API_URL=https://api.staging.fernweh.dev pnpm --filter web build",
                "   ▲ Next.js 15.1.6\n\n   Creating an optimized production build ...\n ✓ Compiled successfully\n"
                " ✓ Generating static pages (24/24)\n\nRoute (app)                Size     First Load JS\n"
                "┌ ○ /                      5.2 kB          112 kB\n└ ○ /trips/[id]             8.9 kB          121 kB",
            ),
        ],
        mistake="pnpm --filter web build",
        lesson=(
            "The web build validates NEXT_PUBLIC_API_URL at build time: run it as "
            "`NEXT_PUBLIC_API_URL=<api url> pnpm --filter web build` (staging: https://api.staging.fernweh.dev)."
        ),
        warn=[
            same("pnpm --filter web build"),
            reword("pnpm -F web build"),
            reword("pnpm --filter=web run build"),
        ],
        silent=[
            fix("NEXT_PUBLIC_API_URL=https://api.staging.fernweh.dev pnpm --filter web build"),
            fix("NEXT_PUBLIC_API_URL=http://localhost:8080 pnpm -F web build"),
            other("pnpm --filter web lint"),
            help_("pnpm help run"),
        ],
    ),
    Incident(
        id="b4-errorfix-terraform-04",
        shape=ERROR_FIX,
        agent=CC,
        project="quarry-infra",
        session=[
            U("plan the staging changes for the new SQS dead-letter queue"),
            ok("ls envs vars", "envs:\nprod\nstaging\n\nvars:\nprod.tfvars\nstaging.tfvars"),
            err(
                "terraform -chdir=envs/staging plan -var-file=vars/staging.tfvars",
                "╷\n│ Error: Failed to read variables file\n│ \n"
                "│ Given variables file vars/staging.tfvars does not exist.\n╵",
            ),
            A("With -chdir, terraform resolves -var-file inside envs/staging, not at the repo root. Going two up."),
            ok(
                "terraform -chdir=envs/staging plan -var-file=../../vars/staging.tfvars",
                "module.queues.aws_sqs_queue.ingest: Refreshing state... "
                "[id=https://sqs.eu-west-1.amazonaws.com/418273645521/quarry-staging-ingest]\n\n"
                "Terraform will perform the following actions:\n\n"
                "  # module.queues.aws_sqs_queue.ingest_dlq will be created\n"
                '  + resource "aws_sqs_queue" "ingest_dlq" {\n      + name = "quarry-staging-ingest-dlq"\n    }\n\n'
                "Plan: 2 to add, 1 to change, 0 to destroy.",
            ),
        ],
        mistake="terraform -chdir=envs/staging plan -var-file=vars/staging.tfvars",
        lesson=(
            "With terraform -chdir=envs/<env>, -var-file is resolved inside envs/<env>: pass "
            "-var-file=../../vars/<env>.tfvars (the tfvars live in vars/ at the repo root)."
        ),
        warn=[
            same("terraform -chdir=envs/staging plan -var-file=vars/staging.tfvars"),
            reword("terraform -chdir=envs/prod plan -var-file=vars/prod.tfvars"),
            reword("terraform -chdir=envs/staging plan -out=tfplan -var-file vars/staging.tfvars"),
        ],
        silent=[
            fix("terraform -chdir=envs/prod plan -var-file=../../vars/prod.tfvars"),
            fix("cd envs/staging && terraform plan -var-file=../../vars/staging.tfvars"),
            other("terraform -chdir=envs/staging validate"),
            help_("terraform plan -help"),
        ],
    ),
    Incident(
        id="b4-errorfix-k8s-05",
        shape=ERROR_FIX,
        agent=CODEX,
        project="lumen-cluster",
        session=[
            U("ingest picked up the bad config map, restart it please"),
            err(
                "kubectl rollout restart deployment/ingest",
                'Error from server (NotFound): deployments.apps "ingest" not found',
            ),
            ok(
                "kubectl get deploy -A | grep ingest",
                "lumen         ingest              3/3     3            3           41d",
            ),
            A("ingest is in the `lumen` namespace; this context defaults to `default`."),
            ok("kubectl -n lumen rollout restart deployment/ingest", "deployment.apps/ingest restarted"),
            ok(
                "kubectl -n lumen rollout status deployment/ingest",
                'Waiting for deployment "ingest" rollout to finish: 1 of 3 updated replicas are available...\n'
                'deployment "ingest" successfully rolled out',
            ),
        ],
        mistake="kubectl rollout restart deployment/ingest",
        lesson=(
            "The ingest deployment lives in namespace lumen, and the kube context defaults to `default`: "
            "pass -n lumen (kubectl -n lumen rollout restart deployment/ingest)."
        ),
        warn=[
            same("kubectl rollout restart deployment/ingest"),
            reword("kubectl rollout restart deploy ingest"),
            reword("kubectl rollout restart deploy/ingest"),
        ],
        silent=[
            fix("kubectl rollout restart deployment/ingest --namespace=lumen"),
            fix("kubectl -n lumen rollout restart deploy/ingest"),
            other("kubectl get deploy -A"),
            help_("kubectl rollout restart --help"),
        ],
    ),
    Incident(
        id="b4-errorfix-cargo-06",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="tallow-cli",
        session=[
            U("run sync in dry-run mode against the fixture config and tell me what it would change"),
            err(
                "cargo run -- sync --dry-run --config fixtures/sync.toml",
                "error: `cargo run` could not determine which binary to run. Use the `--bin` option to specify a "
                "binary, or the `default-run` manifest key.\navailable binaries: tallow, tallow-gen",
            ),
            A("Two binaries in the workspace; the CLI is `tallow`."),
            ok(
                "cargo run --bin tallow -- sync --dry-run --config fixtures/sync.toml",
                "   Compiling tallow-cli v0.9.3 (/repo/crates/tallow-cli)\n"
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.81s\n"
                "     Running `target/debug/tallow sync --dry-run --config fixtures/sync.toml`\n"
                "would update 3 entries, create 1, delete 0",
            ),
        ],
        mistake="cargo run -- sync --dry-run --config fixtures/sync.toml",
        lesson=(
            "tallow's workspace has two binaries (tallow, tallow-gen): `cargo run` needs `--bin tallow` "
            "(or `--bin tallow-gen`)."
        ),
        warn=[
            same("cargo run -- sync --dry-run --config fixtures/sync.toml"),
            reword("cargo run --release -- sync --config fixtures/sync.toml"),
            reword("cargo run -- --version"),
        ],
        silent=[
            fix("cargo run --bin tallow -- sync --config fixtures/sync.toml"),
            fix("cargo run --bin tallow-gen -- schema"),
            other("cargo build --workspace"),
            help_("cargo run --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-errorfix-go-07",
        shape=ERROR_FIX,
        agent=CC,
        project="gantry-svc",
        session=[
            U("install golangci-lint and lint the service"),
            err(
                "go install github.com/golangci/golangci-lint/cmd/golangci-lint@latest",
                "go: downloading github.com/golangci/golangci-lint v1.64.8\n"
                "go: github.com/golangci/golangci-lint/cmd/golangci-lint@latest: "
                "github.com/golangci/golangci-lint@v1.64.8 requires go >= 1.23.0 (running go 1.22.5; GOTOOLCHAIN=local)",
            ),
            read(
                ".golangci.yml",
                "# pinned in CI (.github/workflows/lint.yml): golangci-lint v1.61.0\nrun:\n  timeout: 5m\n"
                "linters:\n  enable:\n    - errcheck\n    - govet\n    - staticcheck\n",
            ),
            A("CI pins v1.61.0, which builds with our Go 1.22 toolchain."),
            ok(
                "go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.61.0",
                "go: downloading github.com/golangci/golangci-lint v1.61.0",
            ),
            err(
                "golangci-lint run ./...",
                "internal/queue/worker.go:88:12: Error return value of `conn.Close` is not checked (errcheck)\n"
                "\tdefer conn.Close()\n\t           ^",
            ),
        ],
        mistake="go install github.com/golangci/golangci-lint/cmd/golangci-lint@latest",
        lesson=(
            "golangci-lint@latest needs a newer Go than gantry's 1.22 toolchain (GOTOOLCHAIN=local): install the "
            "CI-pinned version, go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.61.0."
        ),
        warn=[
            same("go install github.com/golangci/golangci-lint/cmd/golangci-lint@latest"),
            reword("GOBIN=$PWD/bin go install github.com/golangci/golangci-lint/cmd/golangci-lint@latest"),
            reword("go run github.com/golangci/golangci-lint/cmd/golangci-lint@latest run ./..."),
        ],
        silent=[
            fix("go install github.com/golangci/golangci-lint/cmd/golangci-lint@v1.61.0"),
            fix("go run github.com/golangci/golangci-lint/cmd/golangci-lint@v1.61.0 run ./..."),
            other("go install ./cmd/gantry"),
            help_("go help install"),
        ],
    ),
    Incident(
        id="b4-errorfix-ansible-08",
        shape=ERROR_FIX,
        agent=CODEX,
        project="pinewood-ops",
        session=[
            U("roll the new nginx config out to the staging web hosts"),
            ok(
                "git log --oneline -3",
                "a41c9e2 nginx: add gzip for json\n77d02b1 certbot: renew hook\n1f3e0aa bump roles",
            ),
            err(
                "ansible-playbook site.yml --tags nginx --limit web",
                "[WARNING]: No inventory was parsed, only implicit localhost is available\n"
                "[WARNING]: provided hosts list is empty, only localhost is available. Note that the implicit "
                "localhost does not match 'all'\n"
                "ERROR! Specified inventory, host pattern and/or --limit leaves us with no hosts to target.",
            ),
            ok("ls inventories", "prod\nstaging"),
            ok(
                "cat ansible.cfg",
                "[defaults]\nroles_path = roles\nstdout_callback = yaml\nretry_files_enabled = False\n"
                "# no default inventory on purpose: pass -i inventories/<env>/hosts.ini",
            ),
            ok(
                "git diff HEAD~1 --stat",
                " roles/nginx/templates/site.conf.j2 | 6 ++++++\n 1 file changed, 6 insertions(+)",
            ),
            A("No default inventory by design; naming the staging one."),
            ok(
                "ansible-playbook -i inventories/staging/hosts.ini site.yml --tags nginx --limit web",
                "PLAY [web] *********************************************************************\n\n"
                "TASK [nginx : template site config] ********************************************\n"
                "changed: [web1.staging]\nchanged: [web2.staging]\n\n"
                "RUNNING HANDLER [nginx : reload nginx] *****************************************\n"
                "changed: [web1.staging]\nchanged: [web2.staging]\n\n"
                "PLAY RECAP *********************************************************************\n"
                "web1.staging               : ok=6    changed=2    unreachable=0    failed=0\n"
                "web2.staging               : ok=6    changed=2    unreachable=0    failed=0",
            ),
        ],
        mistake="ansible-playbook site.yml --tags nginx --limit web",
        lesson=(
            "pinewood's ansible.cfg has no default inventory on purpose: every ansible-playbook run needs "
            "-i inventories/<env>/hosts.ini (staging or prod), otherwise no hosts match."
        ),
        warn=[
            same("ansible-playbook site.yml --tags nginx --limit web"),
            reword("ansible-playbook site.yml --limit web --tags nginx,certbot"),
            reword("ansible-playbook db.yml --check"),
        ],
        silent=[
            fix("ansible-playbook -i inventories/staging/hosts.ini site.yml --tags nginx,certbot --limit web"),
            fix("ansible-playbook --inventory inventories/staging/hosts.ini db.yml --check"),
            other("ansible-playbook -i inventories/staging/hosts.ini site.yml --list-tasks"),
            help_("ansible-playbook --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b4-errorfix-ssh-09",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="pinewood-ops",
        session=[
            U("push the updated nginx site file to web1 by hand, ansible is too slow for this test"),
            err(
                'rsync -avz -e "ssh -J bastion.pinewood.io" files/nginx/pinewood.conf '
                "deploy@10.20.1.11:/etc/nginx/sites-available/",
                "sending incremental file list\npinewood.conf\n"
                'rsync: [receiver] mkstemp "/etc/nginx/sites-available/.pinewood.conf.Qk3f9a" failed: '
                "Permission denied (13)\n\nsent 1,204 bytes  received 127 bytes  887.33 bytes/sec\n"
                "total size is 2,981  speedup is 2.24\n"
                "rsync error: some files/attrs were not transferred (see previous errors) (code 23) at main.c(1338) "
                "[sender=3.2.7]",
                code=23,
            ),
            A(
                "deploy can't write /etc/nginx directly, but it has passwordless sudo for rsync: run the far side under sudo."
            ),
            ok(
                'rsync -avz -e "ssh -J bastion.pinewood.io" --rsync-path="sudo rsync" files/nginx/pinewood.conf '
                "deploy@10.20.1.11:/etc/nginx/sites-available/",
                "sending incremental file list\npinewood.conf\n\nsent 1,204 bytes  received 41 bytes  830.00 bytes/sec\n"
                "total size is 2,981  speedup is 2.39",
            ),
        ],
        mistake=(
            'rsync -avz -e "ssh -J bastion.pinewood.io" files/nginx/pinewood.conf '
            "deploy@10.20.1.11:/etc/nginx/sites-available/"
        ),
        lesson=(
            "deploy can't write under /etc on the pinewood web hosts: rsync there with "
            '--rsync-path="sudo rsync" (deploy has passwordless sudo for rsync).'
        ),
        warn=[
            same(
                'rsync -avz -e "ssh -J bastion.pinewood.io" files/nginx/pinewood.conf '
                "deploy@10.20.1.11:/etc/nginx/sites-available/"
            ),
            reword(
                'rsync -avz -e "ssh -J bastion.pinewood.io" files/nginx/conf.d/ deploy@10.20.1.12:/etc/nginx/conf.d/'
            ),
        ],
        silent=[
            fix(
                'rsync -avz -e "ssh -J bastion.pinewood.io" --rsync-path="sudo rsync" files/nginx/conf.d/ '
                "deploy@10.20.1.12:/etc/nginx/conf.d/"
            ),
            other('rsync -avz -e "ssh -J bastion.pinewood.io" site/ deploy@10.20.1.11:/var/www/site/'),
            help_("rsync --help"),
        ],
    ),
    Incident(
        id="b4-errorfix-ruby-10",
        shape=ERROR_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("add a unique index on invoices.number and run the migration"),
            write(
                "db/migrate/20260302090412_add_index_to_invoices_number.rb",
                "class AddIndexToInvoicesNumber < ActiveRecord::Migration[7.2]\n"
                "  def change\n    add_index :invoices, :number, unique: true\n  end\nend\n",
            ),
            err(
                "rails db:migrate",
                "Rails is not currently installed on this system. To get the latest version, simply type:\n\n"
                '    $ sudo gem install rails\n\nYou can then rerun your "rails" command.',
            ),
            A("No global rails gem here; the app's Rails comes from Bundler, so I'll use the binstub."),
            ok(
                "bin/rails db:migrate",
                "== 20260302090412 AddIndexToInvoicesNumber: migrating ========================\n"
                "-- add_index(:invoices, :number, {:unique=>true})\n   -> 0.0123s\n"
                "== 20260302090412 AddIndexToInvoicesNumber: migrated (0.0124s) ===============",
            ),
        ],
        mistake="rails db:migrate",
        lesson=(
            "ledgerline has no global rails gem: run Rails commands through the binstub (`bin/rails db:migrate`, "
            "`bin/rails g ...`) or `bundle exec rails`."
        ),
        warn=[
            same("rails db:migrate"),
            reword("rails db:rollback STEP=1"),
            reword("rails g migration AddDueOnToInvoices due_on:date"),
        ],
        silent=[
            fix("bin/rails db:rollback STEP=1"),
            fix("bundle exec rails db:migrate"),
            other("bin/rails routes -g invoices"),
            help_("bin/rails --help"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b4-errorfix-flutter-11",
        shape=ERROR_FIX,
        agent=CODEX,
        project="orchard-mobile",
        session=[
            U("build a release apk so QA can try the new onboarding flow"),
            err(
                "flutter build apk --release",
                "Running Gradle task 'assembleRelease'...\n"
                + _KOTLIN_WARNINGS
                + "\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Task 'assembleRelease' is ambiguous in project ':app'. Candidates are: 'assembleDevRelease', "
                "'assembleProdRelease'.\n\n* Try:\n> Run gradle tasks to get a list of available tasks.\n\n"
                "BUILD FAILED in 14s\nGradle task assembleRelease failed with exit code 1",
            ),
            ok(
                "grep -n -A8 productFlavors android/app/build.gradle",
                '41:    productFlavors {\n42:        dev {\n43:            dimension "env"\n'
                '44:            applicationIdSuffix ".dev"\n45:        }\n46:        prod {\n47:            dimension "env"\n48:        }',
            ),
            A("The app has dev and prod flavors with their own entrypoints; QA builds use dev."),
            ok(
                "flutter build apk --release --flavor dev -t lib/main_dev.dart",
                "Running Gradle task 'assembleDevRelease'...                        84.2s\n"
                "✓ Built build/app/outputs/flutter-apk/app-dev-release.apk (24.8MB)",
            ),
        ],
        mistake="flutter build apk --release",
        lesson=(
            "orchard-mobile has dev/prod flavors: flutter build needs --flavor <dev|prod> -t lib/main_<flavor>.dart, "
            "otherwise Gradle's assembleRelease is ambiguous."
        ),
        warn=[
            same("flutter build apk --release"),
            reword("flutter build apk"),
            reword("flutter build appbundle --release"),
        ],
        silent=[
            fix("flutter build apk --release --flavor dev -t lib/main_dev.dart"),
            fix("flutter build apk --debug --flavor prod -t lib/main_prod.dart"),
            other("flutter analyze"),
            help_("flutter build apk --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b4-errorfix-jvm-12",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="orchard-mobile",
        session=[
            U("make the prod release bundle for the Play Store upload"),
            err(
                "cd android && ./gradlew bundleProdRelease",
                "> Task :app:validateSigningProdRelease FAILED\n\nFAILURE: Build failed with an exception.\n\n"
                "* What went wrong:\nExecution failed for task ':app:validateSigningProdRelease'.\n"
                "> Keystore file not set for signing config release\n\n* Try:\n"
                "> Run with --stacktrace option to get the stack trace.\n\nBUILD FAILED in 9s",
            ),
            read(
                "android/app/build.gradle",
                "    signingConfigs {\n        release {\n"
                '            storeFile System.getenv("ORCHARD_KEYSTORE") ? file(System.getenv("ORCHARD_KEYSTORE")) : null\n'
                '            storePassword System.getenv("ORCHARD_KEYSTORE_PASSWORD")\n'
                '            keyAlias "orchard-upload"\n'
                '            keyPassword System.getenv("ORCHARD_KEY_PASSWORD")\n        }\n    }\n',
            ),
            ok("grep -c ORCHARD_ .env.signing", "3"),
            A("Signing reads ORCHARD_KEYSTORE* from the environment and .env.signing exports them; sourcing it first."),
            ok(
                "cd android && source ../.env.signing && ./gradlew bundleProdRelease",
                "> Task :app:bundleProdRelease\n\nBUILD SUCCESSFUL in 2m 11s\n412 actionable tasks: 398 executed, 14 up-to-date",
            ),
        ],
        mistake="cd android && ./gradlew bundleProdRelease",
        lesson=(
            "Release signing reads ORCHARD_KEYSTORE* from the environment: `source ../.env.signing` before "
            "./gradlew bundleProdRelease / assembleProdRelease in android/."
        ),
        warn=[
            same("cd android && ./gradlew bundleProdRelease"),
            reword("cd android && ./gradlew :app:bundleProdRelease --stacktrace"),
            reword("cd android && ./gradlew assembleProdRelease"),
        ],
        silent=[
            fix("cd android && source ../.env.signing && ./gradlew assembleProdRelease"),
            other("cd android && ./gradlew assembleDevDebug"),
            help_("cd android && ./gradlew help --task bundleProdRelease"),
        ],
    ),
    Incident(
        id="b4-errorfix-jvm-13",
        shape=ERROR_FIX,
        agent=CC,
        project="basalt-ledger",
        session=[
            U("run the basalt-api tests after my ledger service change"),
            err(
                "mvn -pl basalt-api test",
                "[INFO] Scanning for projects...\n[INFO] \n"
                "[INFO] -----------------------< io.basalt:basalt-api >------------------------\n"
                "[INFO] Building basalt-api 1.4.0-SNAPSHOT\n[INFO]   from basalt-api/pom.xml\n"
                "[INFO] --------------------------------[ jar ]---------------------------------\n"
                + _MAVEN_DOWNLOADS
                + "\n[WARNING] The POM for io.basalt:basalt-common:jar:1.4.0-SNAPSHOT is missing, no dependency "
                "information available\n[INFO] BUILD FAILURE\n"
                "[ERROR] Failed to execute goal on project basalt-api: Could not resolve dependencies for project "
                "io.basalt:basalt-api:jar:1.4.0-SNAPSHOT\n"
                "[ERROR] dependency: io.basalt:basalt-common:jar:1.4.0-SNAPSHOT (compile)\n"
                "[ERROR] \tio.basalt:basalt-common:jar:1.4.0-SNAPSHOT was not found in "
                "https://repo.maven.apache.org/maven2 during a previous attempt.",
            ),
            A("basalt-common is a sibling module that isn't installed in ~/.m2; -am builds it in the same reactor."),
            ok(
                "mvn -pl basalt-api -am test",
                "[INFO] Reactor Summary for basalt 1.4.0-SNAPSHOT:\n[INFO] \n"
                "[INFO] basalt-common ...................................... SUCCESS [  8.114 s]\n"
                "[INFO] basalt-api ......................................... SUCCESS [ 41.920 s]\n"
                "[INFO] Tests run: 214, Failures: 0, Errors: 0, Skipped: 2\n[INFO] BUILD SUCCESS",
            ),
        ],
        mistake="mvn -pl basalt-api test",
        lesson=(
            "basalt-api depends on the unreleased sibling module basalt-common: build it in the same reactor with "
            "-am (`mvn -pl basalt-api -am test`)."
        ),
        warn=[
            same("mvn -pl basalt-api test"),
            reword("mvn test -pl basalt-api"),
            reword("mvn --projects basalt-api verify"),
        ],
        silent=[
            fix("mvn -pl basalt-api -am verify"),
            fix("mvn --projects basalt-api --also-make test"),
            other("mvn -pl basalt-common test"),
            help_("mvn --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b4-errorfix-dotnet-14",
        shape=ERROR_FIX,
        agent=CODEX,
        project="mosaic-portal",
        session=[
            U("tenant slugs must be unique; add the index and an EF migration for it"),
            edit(
                "src/Mosaic.Data/Configurations/TenantConfiguration.cs",
                "        builder.Property(t => t.Slug).HasMaxLength(64);",
                "        builder.Property(t => t.Slug).HasMaxLength(64);\n        builder.HasIndex(t => t.Slug).IsUnique();",
            ),
            err(
                "dotnet ef migrations add AddTenantSlugIndex",
                "No project was found. Change the current working directory or use the --project option.",
            ),
            ok("ls src", "Mosaic.Api\nMosaic.Data\nMosaic.Domain\nMosaic.Worker"),
            A("The DbContext lives in Mosaic.Data and the design-time host is Mosaic.Api."),
            ok(
                "dotnet ef migrations add AddTenantSlugIndex --project src/Mosaic.Data --startup-project src/Mosaic.Api",
                "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'",
            ),
        ],
        mistake="dotnet ef migrations add AddTenantSlugIndex",
        lesson=(
            "dotnet ef in mosaic-portal needs --project src/Mosaic.Data --startup-project src/Mosaic.Api; from the "
            "repo root it finds no project."
        ),
        warn=[
            same("dotnet ef migrations add AddTenantSlugIndex"),
            reword("dotnet ef database update"),
            reword("dotnet ef migrations add AddAuditLog -o Migrations"),
        ],
        silent=[
            fix("dotnet ef database update --project src/Mosaic.Data --startup-project src/Mosaic.Api"),
            fix("dotnet ef migrations add AddAuditLog -p src/Mosaic.Data -s src/Mosaic.Api"),
            other("dotnet build Mosaic.sln"),
            help_("dotnet ef migrations add --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-errorfix-php-15",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="kestrel-shop",
        session=[
            U("run the new coupon migrations"),
            err(
                "php artisan migrate",
                "\n   Illuminate\\Database\\QueryException \n\n"
                "  SQLSTATE[HY000] [2002] Connection refused (Connection: mysql, SQL: select table_name as `name` "
                "from information_schema.tables where table_schema = 'kestrel' and table_type in ('BASE TABLE', "
                "'SYSTEM VERSIONED') order by table_name)\n\n"
                "  at vendor/laravel/framework/src/Illuminate/Database/Connection.php:825",
            ),
            ok(
                "./vendor/bin/sail ps",
                "NAME                     IMAGE                    STATUS\n"
                "kestrel-laravel.test-1   sail-8.3/app             Up 3 hours\n"
                "kestrel-mysql-1          mysql/mysql-server:8.0   Up 3 hours (healthy)\n"
                "kestrel-redis-1          redis:alpine             Up 3 hours (healthy)",
            ),
            A("MySQL only exists inside Sail (DB_HOST=mysql), so artisan has to run in the container."),
            ok(
                "./vendor/bin/sail artisan migrate",
                "\n   INFO  Running migrations.  \n\n"
                "  2026_03_01_101500_create_coupons_table .............................. 18.42ms DONE\n"
                "  2026_03_01_101600_add_coupon_id_to_orders ........................... 31.07ms DONE",
            ),
        ],
        mistake="php artisan migrate",
        lesson=(
            "kestrel-shop's database is in Laravel Sail: run database artisan commands in the container "
            "(`./vendor/bin/sail artisan migrate`), not with the host php."
        ),
        warn=[
            same("php artisan migrate"),
            reword("php artisan migrate --step"),
            reword("php artisan migrate:status"),
        ],
        silent=[
            fix("./vendor/bin/sail artisan migrate --step"),
            fix("./vendor/bin/sail php artisan migrate:status"),
            other("php artisan route:list --path=coupons"),
            help_("php artisan migrate --help"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b4-errorfix-cloud-16",
        shape=ERROR_FIX,
        agent=CC,
        project="tidewater-etl",
        session=[
            U("deploy the 1.8.2 api image to the staging Cloud Run service"),
            err(
                "gcloud run deploy etl-api --image europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.2 "
                "--region europe-west1",
                "Deploying container to Cloud Run service [etl-api] in project [tidewater-prod] region [europe-west1]\n"
                "X Deploying...\n"
                "ERROR: (gcloud.run.deploy) PERMISSION_DENIED: Permission 'run.services.get' denied on resource "
                "'namespaces/tidewater-prod/services/etl-api' (or resource may not exist).",
            ),
            ok("gcloud config list --format='value(core.project)'", "tidewater-prod"),
            A("The active gcloud project is tidewater-prod; the staging deploy has to name its project."),
            ok(
                "gcloud run deploy etl-api --image europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.2 "
                "--region europe-west1 --project tidewater-staging",
                "Deploying container to Cloud Run service [etl-api] in project [tidewater-staging] region "
                "[europe-west1]\nOK Deploying... Done.\n  OK Creating Revision...\n  OK Routing traffic...\nDone.\n"
                "Service [etl-api] revision [etl-api-00042-kud] has been deployed and is serving 100 percent of traffic.\n"
                "Service URL: https://etl-api-5k2j3x-ew.a.run.app",
            ),
        ],
        mistake="gcloud run deploy etl-api --image europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.2 --region europe-west1",
        lesson=(
            "gcloud's active project on this machine is tidewater-prod: staging Cloud Run deploys need "
            "--project tidewater-staging."
        ),
        warn=[
            same(
                "gcloud run deploy etl-api --image europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.2 "
                "--region europe-west1"
            ),
            reword(
                "gcloud run deploy etl-worker --image europe-west1-docker.pkg.dev/tidewater-staging/etl/worker:1.8.2 "
                "--region europe-west1"
            ),
            reword(
                "gcloud run deploy etl-api --region=europe-west1 "
                "--image=europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.3"
            ),
        ],
        silent=[
            fix(
                "gcloud run deploy etl-worker --image europe-west1-docker.pkg.dev/tidewater-staging/etl/worker:1.8.2 "
                "--region europe-west1 --project tidewater-staging"
            ),
            fix(
                "CLOUDSDK_CORE_PROJECT=tidewater-staging gcloud run deploy etl-api "
                "--image europe-west1-docker.pkg.dev/tidewater-staging/etl/api:1.8.3 --region europe-west1"
            ),
            other("gcloud run services list --project tidewater-staging --region europe-west1"),
            help_("gcloud run deploy --help"),
        ],
    ),
    Incident(
        id="b4-errorfix-bazel-17",
        shape=ERROR_FIX,
        agent=CODEX,
        project="beacon-mono",
        session=[
            U("build the api service"),
            err(
                "bazel build //services/api",
                "ERROR: Skipping '//services/api': no such target '//services/api:api': target 'api' not declared in "
                "package 'services/api' defined by /repo/services/api/BUILD.bazel (Tip: use "
                '`query "//services/api:*"` to see all the targets in that package)\n'
                "ERROR: no such target '//services/api:api': target 'api' not declared in package 'services/api'\n"
                "INFO: Elapsed time: 0.412s\nINFO: 0 processes.\n"
                "ERROR: Build did NOT complete successfully (0 packages loaded)",
            ),
            ok(
                'bazel query "//services/api:*"',
                "//services/api:BUILD.bazel\n//services/api:image\n//services/api:server\n"
                "//services/api:server_lib\n//services/api:server_test",
            ),
            A("No target named after the package; the binary is :server."),
            ok(
                "bazel build //services/api:server",
                "INFO: Analyzed target //services/api:server (42 packages loaded, 1318 targets configured).\n"
                "INFO: Found 1 target...\nTarget //services/api:server up-to-date:\n"
                "  bazel-bin/services/api/server_/server\nINFO: Build completed successfully, 214 total actions",
            ),
        ],
        mistake="bazel build //services/api",
        lesson=(
            "beacon's packages have no default target named after the directory: name the target "
            "(//services/api:server, :server_test, :image) or use //services/api/..."
        ),
        warn=[
            same("bazel build //services/api"),
            reword("bazel run //services/api"),
            reword("bazel build -c opt //services/api"),
        ],
        silent=[
            fix("bazel build -c opt //services/api:server"),
            fix("bazel build //services/api/..."),
            other('bazel query "//services/api:*"'),
            help_("bazel help build"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-errorfix-deno-18",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="driftwood-edge",
        session=[
            U("start the edge router locally so I can hit it with curl"),
            err(
                "deno run main.ts",
                'error: Uncaught (in promise) NotCapable: Requires net access to "0.0.0.0:8000", run again with the '
                "--allow-net flag\n    at listen (ext:deno_net/01_net.js:504:35)\n"
                "    at Object.serve (ext:deno_http/00_serve.ts:563:16)\n    at file:///repo/main.ts:9:6",
            ),
            read(
                "deno.json",
                '{\n  "tasks": {\n    "dev": "deno run --watch --allow-net --allow-env --allow-read=./routes main.ts",\n'
                '    "test": "deno test -A --env-file=.env.test"\n  },\n  "imports": {\n'
                '    "@std/http": "jsr:@std/http@^1.0.13"\n  }\n}\n',
            ),
            A("The router needs net, env and read access; the dev task has the flags."),
            ok("deno run --allow-net --allow-env --allow-read=./routes main.ts > /tmp/router.log 2>&1 &", ""),
            ok("sleep 1 && curl -s localhost:8000/healthz", '{"ok":true,"routes":38}'),
        ],
        mistake="deno run main.ts",
        lesson=(
            "The driftwood router needs permissions: `deno run --allow-net --allow-env --allow-read=./routes main.ts` "
            "(what `deno task dev` runs); a bare `deno run main.ts` dies with NotCapable."
        ),
        warn=[
            same("deno run main.ts"),
            reword("deno run --watch main.ts"),
            reword("deno run ./main.ts"),
        ],
        silent=[
            fix("deno task dev"),
            fix("deno run --allow-net --allow-env --allow-read=./routes --watch main.ts"),
            other("deno check main.ts"),
            help_("deno run --help"),
        ],
    ),
    Incident(
        id="b4-errorfix-git-19",
        shape=ERROR_FIX,
        agent=CC,
        project="copperline",
        session=[
            U("fold the lint fix into the last commit"),
            ok("git status --short", " M src/ledger/rounding.ts"),
            ok("git add src/ledger/rounding.ts", ""),
            err(
                "git commit --amend",
                "hint: Waiting for your editor to close the file... error: cannot run vi: No such file or directory\n"
                "error: unable to start editor 'vi'\nPlease supply the message using either -m or -F option.",
            ),
            A("No editor in this shell; keep the existing message."),
            ok(
                "git commit --amend --no-edit",
                "[feat/ledger-rounding 4be91c2] ledger: round half-even in totals\n"
                " Date: Mon Mar 2 08:41:07 2026 +0000\n 3 files changed, 41 insertions(+), 9 deletions(-)",
            ),
        ],
        mistake="git commit --amend",
        lesson=(
            'There is no editor in the agent\'s shell (vi is missing): amend with --no-edit or -m "..."; a bare '
            "git commit --amend fails."
        ),
        warn=[
            same("git commit --amend"),
            reword("git commit -a --amend"),
            reword("git commit --amend --reset-author"),
        ],
        silent=[
            fix("git commit --amend --no-edit"),
            fix('git commit --amend -m "ledger: round half-even in totals and fees"'),
            other('git commit -m "ledger: fix fee rounding"'),
            help_("git commit -h"),
        ],
    ),
    Incident(
        id="b4-errorfix-docker-20",
        shape=ERROR_FIX,
        agent=CODEX,
        project="copperline",
        session=[
            U("the api container keeps restarting, find out why"),
            ok(
                "docker compose ps",
                "NAME               IMAGE                  STATUS\n"
                "copperline-api-1   copperline/api:dev     Restarting (1) 8 seconds ago\n"
                "copperline-db-1    postgres:16            Up 2 hours (healthy)",
            ),
            err(
                "docker compose logs -f api",
                "api-1  | 2026-03-02T09:01:02Z INFO  starting copperline-api 3.2.0\n"
                "api-1  | 2026-03-02T09:01:02Z ERROR config: LEDGER_URL is not set\n"
                "api-1 exited with code 1\n"
                "api-1  | 2026-03-02T09:01:09Z INFO  starting copperline-api 3.2.0\n"
                "api-1  | 2026-03-02T09:01:09Z ERROR config: LEDGER_URL is not set\n"
                "api-1 exited with code 1\ncommand timed out after 120 seconds",
                code=124,
            ),
            A("`-f` follows forever and hit the timeout; a bounded tail is enough."),
            ok(
                "docker compose logs --tail 50 api",
                "api-1  | 2026-03-02T09:03:15Z INFO  starting copperline-api 3.2.0\n"
                "api-1  | 2026-03-02T09:03:15Z ERROR config: LEDGER_URL is not set",
            ),
            ok("grep -n LEDGER_URL compose.yaml .env.example", ".env.example:7:LEDGER_URL=http://ledger:8081"),
        ],
        mistake="docker compose logs -f api",
        lesson=(
            "`docker compose logs -f` never returns in the agent's shell (it hit the 120 s timeout): read logs "
            "bounded, `docker compose logs --tail 200 <service>` or `--since 10m`."
        ),
        warn=[
            same("docker compose logs -f api"),
            reword("docker compose logs --follow worker"),
            reword("docker logs -f copperline-api-1"),
        ],
        silent=[
            fix("docker compose logs --tail 200 worker"),
            fix("docker compose logs --since 10m api"),
            other("docker compose ps"),
            help_("docker compose logs --help"),
        ],
    ),
]
