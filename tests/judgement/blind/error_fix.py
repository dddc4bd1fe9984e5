"""Error → fix: a call fails with a real-looking error, maybe a diagnostic or two,
then the corrected call works."""

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
    read,
    reword,
    same,
)

PNPM_NO_MATCH = """\
No projects matched the filters in "/home/dev/harbor-monorepo"
"""

HARBOR_WEB_PKG = """\
{
  "name": "@harbor/web",
  "version": "0.14.2",
  "private": true,
  "type": "module",
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "test": "vitest run",
    "lint": "eslint src --max-warnings 0"
  },
"""

HARBOR_WEB_BUILD = """\

> @harbor/web@0.14.2 build /home/dev/harbor-monorepo/apps/web
> tsc -b && vite build

vite v5.4.11 building for production...
✓ 812 modules transformed.
dist/index.html                   0.61 kB │ gzip:   0.38 kB
dist/assets/index-BqU3c8xk.css   38.20 kB │ gzip:   7.02 kB
dist/assets/index-D9xH1f0A.js   412.77 kB │ gzip: 131.40 kB
✓ built in 6.48s
"""

TF_NO_VALUE = """\
╷
│ Error: No value for required variable
│
│   on variables.tf line 12:
│   12: variable "db_instance_class" {
│
│ The root module input variable "db_instance_class" is not set, and has no
│ default value. Use a -var or -var-file command line argument to provide a
│ value for this variable.
╵
╷
│ Error: No value for required variable
│
│   on variables.tf line 17:
│   17: variable "vpc_cidr" {
│
│ The root module input variable "vpc_cidr" is not set, and has no default
│ value. Use a -var or -var-file command line argument to provide a value for
│ this variable.
╵
"""

TF_PLAN_OK = """\
module.vpc.aws_vpc.this[0]: Refreshing state... [id=vpc-0a7c4e91d2f3b5618]
module.rds.aws_db_subnet_group.this: Refreshing state... [id=orbit-staging-db]
module.rds.aws_db_instance.this: Refreshing state... [id=orbit-staging-pg]

Terraform used the selected providers to generate the following execution
plan. Resource actions are indicated with the following symbols:
  ~ update in-place

Terraform will perform the following actions:

  # module.rds.aws_db_instance.this will be updated in-place
  ~ resource "aws_db_instance" "this" {
      ~ instance_class = "db.t4g.medium" -> "db.t4g.large"
        id             = "orbit-staging-pg"
        # (41 unchanged attributes hidden)
    }

Plan: 0 to add, 1 to change, 0 to destroy.
"""

RSPEC_GEM = """\
/usr/local/lib/ruby/3.3.0/rubygems/specification.rb:2245:in `check_version_conflict': You have already activated rspec-core 3.13.2, but your Gemfile requires rspec-core 3.12.3. Prepending `bundle exec` to your command may solve this. (Gem::LoadError)
	from /usr/local/lib/ruby/3.3.0/rubygems/specification.rb:1383:in `activate'
	from /usr/local/lib/ruby/3.3.0/rubygems.rb:217:in `activate_bin_path'
	from /usr/local/bin/rspec:25:in `<main>'
"""

RSPEC_OK = """\
Randomized with seed 40217
..........................................

Finished in 2.84 seconds (files took 3.11 seconds to load)
42 examples, 0 failures

Randomized with seed 40217
"""

GO_RACE_CGO = """\
go: -race requires cgo; enable cgo by setting CGO_ENABLED=1
"""

GO_RACE_OK = """\
ok  	github.com/pika-dev/pika-api/internal/auth	1.214s
ok  	github.com/pika-dev/pika-api/internal/ratelimit	2.087s
ok  	github.com/pika-dev/pika-api/internal/store	3.551s
?   	github.com/pika-dev/pika-api/cmd/pika	[no test files]
ok  	github.com/pika-dev/pika-api/internal/httpapi	1.902s
"""

CARGO_FEATURE = """\
   Compiling quill-sync v0.7.0 (/home/dev/quill-rs/crates/quill-sync)
error[E0432]: unresolved import `crate::backend::s3`
  --> crates/quill-sync/src/upload.rs:9:5
   |
9  | use crate::backend::s3::S3Backend;
   |     ^^^^^^^^^^^^^^^^^^ could not find `s3` in `backend`
   |
note: found an item that was configured out
  --> crates/quill-sync/src/backend/mod.rs:4:9
   |
3  | #[cfg(feature = "s3")]
   |       -------------- the item is gated behind the `s3` feature
4  | pub mod s3;
   |         ^^

For more information about this error, try `rustc --explain E0432`.
error: could not compile `quill-sync` (lib test) due to 1 previous error
"""

CARGO_TEST_OK = """\
   Compiling aws-sdk-s3 v1.65.0
   Compiling quill-sync v0.7.0 (/home/dev/quill-rs/crates/quill-sync)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 48.20s
     Running unittests src/lib.rs (target/debug/deps/quill_sync-5f0c2a9e1b7d4c36)

running 23 tests
.......................
test result: ok. 23 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.41s
"""

GRADLE_JAVA11 = """\

FAILURE: Build failed with an exception.

* Where:
Build file '/home/dev/mosaic-android/app/build.gradle.kts' line: 1

* What went wrong:
An exception occurred applying plugin request [id: 'com.android.application']
> Failed to apply plugin 'com.android.internal.application'.
   > Android Gradle plugin requires Java 17 to run. You are currently using Java 11.
      Your current JDK is located in /usr/lib/jvm/java-11-openjdk-amd64
      You can try some of the following options:
       - changing the IDE settings.
       - changing the JAVA_HOME environment variable.
       - changing `org.gradle.java.home` in `gradle.properties`.

* Try:
> Run with --stacktrace option to get the stack trace.
> Run with --info or --debug option to get more log output.

BUILD FAILED in 4s
"""

GRADLE_OK = """\
> Task :app:preBuild UP-TO-DATE
> Task :app:compileDebugKotlin
> Task :app:mergeDebugResources
> Task :app:packageDebug
> Task :app:assembleDebug

BUILD SUCCESSFUL in 1m 12s
38 actionable tasks: 21 executed, 17 up-to-date
"""

DOTNET_MSB1011 = """\
MSBUILD : error MSB1011: Specify which project or solution file to use because this folder contains more than one project or solution file.
"""

DOTNET_TEST_OK = """\
  Determining projects to restore...
  All projects are up-to-date for restore.
  Compass.Domain -> /home/dev/compass-dotnet/src/Compass.Domain/bin/Debug/net8.0/Compass.Domain.dll
  Compass.Billing -> /home/dev/compass-dotnet/src/Compass.Billing/bin/Debug/net8.0/Compass.Billing.dll
  Compass.Billing.Tests -> /home/dev/compass-dotnet/tests/Compass.Billing.Tests/bin/Debug/net8.0/Compass.Billing.Tests.dll
Test run for /home/dev/compass-dotnet/tests/Compass.Billing.Tests/bin/Debug/net8.0/Compass.Billing.Tests.dll (.NETCoreApp,Version=v8.0)
A total of 1 test files matched the specified pattern.

Passed!  - Failed:     0, Passed:   118, Skipped:     0, Total:   118, Duration: 3 s - Compass.Billing.Tests.dll (net8.0)
"""

COMPOSER_PHP = """\
Installing dependencies from lock file (including require-dev)
Verifying lock file contents can be installed on current platform.
Your lock file does not contain a compatible set of packages. Please run composer update.

  Problem 1
    - laravel/framework is locked to version v11.31.0 and an update of this package was not requested.
    - laravel/framework v11.31.0 requires php ^8.2 -> your php version (8.1.27) does not satisfy that requirement.
  Problem 2
    - symfony/console is locked to version v7.1.8 and an update of this package was not requested.
    - symfony/console v7.1.8 requires php >=8.2 -> your php version (8.1.27) does not satisfy that requirement.

"""

COMPOSER_OK = """\
Installing dependencies from lock file (including require-dev)
Verifying lock file contents can be installed on current platform.
Package operations: 112 installs, 0 updates, 0 removals
  - Installing doctrine/inflector (2.0.10): Extracting archive
  - Installing symfony/polyfill-mbstring (v1.31.0): Extracting archive
  ...
  - Installing laravel/framework (v11.31.0): Extracting archive
Generating optimized autoload files
> Illuminate\\Foundation\\ComposerScripts::postAutoloadDump
> @php artisan package:discover --ansi

   INFO  Discovering packages.

  laravel/sanctum ............................................... DONE
  nesbot/carbon ................................................. DONE

81 packages you are using are looking for funding.
"""

ANSIBLE_NO_INV = """\
[WARNING]: No inventory was parsed, only implicit localhost is available
[WARNING]: provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'
[WARNING]: Could not match supplied host pattern, ignoring: web
ERROR! Specified inventory, host pattern and/or --limit leaves us with no hosts to target.
"""

ANSIBLE_OK = """\

PLAY [web] *********************************************************************

TASK [Gathering Facts] *********************************************************
ok: [web1.fleet.example.net]
ok: [web2.fleet.example.net]

TASK [nginx : render site config] **********************************************
changed: [web1.fleet.example.net]
changed: [web2.fleet.example.net]

RUNNING HANDLER [nginx : reload nginx] *****************************************
changed: [web1.fleet.example.net]
changed: [web2.fleet.example.net]

PLAY RECAP *********************************************************************
web1.fleet.example.net     : ok=3    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
web2.fleet.example.net     : ok=3    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
"""

PSQL_REFUSED = """\
psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused
	Is the server running on that host and accepting TCP/IP connections?
"""

COMPOSE_PS = """\
NAME                 IMAGE                COMMAND                  SERVICE   CREATED       STATUS                 PORTS
harbor-db-1          postgres:16-alpine   "docker-entrypoint.s…"   db        3 hours ago   Up 3 hours (healthy)   0.0.0.0:5433->5432/tcp
harbor-redis-1       redis:7-alpine       "docker-entrypoint.s…"   redis     3 hours ago   Up 3 hours             0.0.0.0:6379->6379/tcp
harbor-mailpit-1     axllent/mailpit      "/mailpit"               mailpit   3 hours ago   Up 3 hours (healthy)   0.0.0.0:1025->1025/tcp, 0.0.0.0:8025->8025/tcp
"""

PSQL_DT = """\
              List of relations
 Schema |        Name        | Type  | Owner
--------+--------------------+-------+--------
 public | _prisma_migrations | table | harbor
 public | bookings           | table | harbor
 public | berths             | table | harbor
 public | invoices           | table | harbor
 public | users              | table | harbor
(5 rows)
"""

MIX_NO_DB_URL = """\
** (RuntimeError) environment variable DATABASE_URL is missing.
For example: ecto://USER:PASS@HOST/DATABASE

    /home/dev/lumen-phx/config/runtime.exs:28: (file)
    (elixir 1.17.3) src/elixir_compiler.erl:77: :elixir_compiler.dispatch/4
    (elixir 1.17.3) src/elixir_compiler.erl:52: :elixir_compiler.compile/4
    (elixir 1.17.3) lib/code.ex:1489: Code.eval_file/2
    (mix 1.17.3) lib/mix/tasks/loadconfig.ex:56: Mix.Tasks.Loadconfig.load_runtime/1
"""

MIX_MIGRATE_OK = """\
Compiling 3 files (.ex)
Generated lumen app

09:14:02.311 [info] == Running 20260228161200 Lumen.Repo.Migrations.AddArchivedAtToBoards.change/0 forward

09:14:02.318 [info] alter table boards

09:14:02.329 [info] == Migrated 20260228161200 in 0.0s
"""

XCODE_NO_DEST = """\
Command line invocation:
    /Applications/Xcode.app/Contents/Developer/usr/bin/xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 15"

User defaults from command line:
    IDEPackageSupportUseBuiltinSCM = YES

2026-03-02 09:12:44.118 xcodebuild[51823:2210934] Writing error result bundle to /var/folders/7k/T/ResultBundle_2026-02-03_09-12-0044.xcresult
xcodebuild: error: Unable to find a destination matching the provided destination specifier:
		{ platform:iOS Simulator, OS:latest, name:iPhone 15 }

	The requested device could not be found because no available devices matched the request.

	Available destinations for the "Skylark" scheme:
		{ platform:macOS, arch:arm64, variant:Designed for [iPad,iPhone], id:00008112-001A2C3E0C82201E, name:My Mac }
		{ platform:iOS Simulator, arch:arm64, id:5B1E0C1A-3F0D-4C52-9B1E-6D5F2C7A8E11, OS:18.2, name:iPhone 16 }
		{ platform:iOS Simulator, arch:arm64, id:9A7C2E44-0B7F-4E8A-A1D3-2C6B8F0E5D42, OS:18.2, name:iPhone 16 Pro }
"""

SIMCTL = """\
== Devices ==
-- iOS 18.2 --
    iPhone 16 (5B1E0C1A-3F0D-4C52-9B1E-6D5F2C7A8E11) (Shutdown)
    iPhone 16 Pro (9A7C2E44-0B7F-4E8A-A1D3-2C6B8F0E5D42) (Shutdown)
    iPad Air 11-inch (M2) (0D3E7F51-8A21-4B6C-9E2F-71C4A5B8D903) (Shutdown)
"""

XCODE_OK = """\
Test Suite 'All tests' started at 2026-03-02 09:15:10.401.
Test Suite 'SkylarkTests.xctest' started at 2026-03-02 09:15:10.402.
Test Suite 'FeedViewModelTests' passed at 2026-03-02 09:15:11.017.
     Executed 14 tests, with 0 failures (0 unexpected) in 0.598 (0.611) seconds
Test Suite 'All tests' passed at 2026-03-02 09:15:11.903.
     Executed 61 tests, with 0 failures (0 unexpected) in 1.402 (1.502) seconds
** TEST SUCCEEDED **
"""

INCIDENTS = [
    Incident(
        id="ef-harbor-pnpm-filter-name",
        shape=ERROR_FIX,
        agent=CC,
        project="harbor-monorepo",
        session=[
            U("build the web app so I can check the bundle size"),
            err("pnpm --filter web build", PNPM_NO_MATCH),
            read("apps/web/package.json", HARBOR_WEB_PKG),
            A("The filter takes the package name, not the folder — it's @harbor/web."),
            ok("pnpm --filter @harbor/web build", HARBOR_WEB_BUILD),
            A("Built: the main chunk is 412.77 kB (131.40 kB gzipped)."),
        ],
        mistake="pnpm --filter web build",
        lesson="pnpm --filter wants the package name, not the folder: use pnpm --filter @harbor/web build (apps/web is @harbor/web)",
        warn=[
            same("pnpm --filter web build"),
            reword("pnpm --filter=web build"),
            reword("pnpm -F web build"),
        ],
        silent=[
            fix("pnpm --filter @harbor/web build"),
            fix("pnpm -F @harbor/web build"),
            other("pnpm --filter @harbor/api test"),
            other("pnpm install --frozen-lockfile"),
            help_("pnpm help filter"),
        ],
    ),
    Incident(
        id="ef-orbit-terraform-var-file",
        shape=ERROR_FIX,
        agent=CODEX,
        project="orbit-infra",
        session=[
            U("bump the staging RDS instance to db.t4g.large and show me the plan (cwd is envs/staging)"),
            err("terraform plan", TF_NO_VALUE),
            ok("ls", "backend.tf\nmain.tf\noutputs.tf\nstaging.tfvars\nvariables.tf\nversions.tf\n"),
            ok("terraform plan -var-file=staging.tfvars", TF_PLAN_OK),
            A("Plan is one in-place change: the instance class goes db.t4g.medium -> db.t4g.large."),
        ],
        mistake="terraform plan",
        lesson="terraform plan in envs/staging needs the env's values: terraform plan -var-file=staging.tfvars",
        warn=[
            same("terraform plan"),
            reword("terraform plan -out=staging.tfplan"),
        ],
        silent=[
            fix("terraform plan -var-file=staging.tfvars"),
            fix("terraform plan -var-file staging.tfvars -out=staging.tfplan"),
            other("terraform fmt -recursive"),
            other("terraform validate"),
            help_("terraform plan -help"),
        ],
    ),
    Incident(
        id="ef-ledgerline-rspec-bundle-exec",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="ledgerline",
        session=[
            U("run the model specs please"),
            err("rspec spec/models", RSPEC_GEM),
            ok("bundle exec rspec spec/models", RSPEC_OK),
            A("All 42 model specs pass."),
        ],
        mistake="rspec spec/models",
        lesson="the global rspec is the wrong version for ledgerline's Gemfile; always run it as bundle exec rspec ...",
        warn=[
            same("rspec spec/models"),
            reword("rspec spec/requests/invoices_spec.rb --format documentation"),
        ],
        silent=[
            fix("bundle exec rspec spec/models"),
            fix("bundle exec rspec spec/requests/invoices_spec.rb --format documentation"),
            other("bundle exec rubocop app/models"),
            other("bundle install"),
        ],
    ),
    Incident(
        id="ef-pika-go-race-cgo",
        shape=ERROR_FIX,
        agent=CC,
        project="pika-api",
        session=[
            U("I think the rate limiter has a data race, can you run the tests with the race detector"),
            err("go test -race ./...", GO_RACE_CGO, code=2),
            ok("go env CGO_ENABLED", "0\n"),
            A("CGO is off in this environment and the race detector needs it."),
            ok("CGO_ENABLED=1 go test -race ./...", GO_RACE_OK),
            A("No races reported — every package passes under -race."),
        ],
        mistake="go test -race ./...",
        lesson="CGO is disabled here, so go test -race fails; prefix it: CGO_ENABLED=1 go test -race ./...",
        warn=[
            same("go test -race ./..."),
            reword("go test -race -run TestLimiter ./internal/ratelimit/..."),
            reword("go test -count=1 -race ./internal/..."),
        ],
        silent=[
            fix("CGO_ENABLED=1 go test -race ./..."),
            fix("CGO_ENABLED=1 go test -race -run TestLimiter ./internal/ratelimit/..."),
            other("go test ./..."),
            other("go vet ./..."),
        ],
    ),
    Incident(
        id="ef-quill-cargo-feature-s3",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="quill-rs",
        session=[
            U("run quill-sync's tests"),
            err("cargo test -p quill-sync", CARGO_FEATURE, code=101),
            ok(
                "grep -n -A4 '\\[features\\]' crates/quill-sync/Cargo.toml",
                '14:[features]\n15-default = []\n16-s3 = ["dep:aws-sdk-s3", "dep:aws-config"]\n17-gcs = ["dep:google-cloud-storage"]\n',
            ),
            ok("cargo test -p quill-sync --features s3", CARGO_TEST_OK),
            A("23 passed. The upload code needs the `s3` feature, which isn't on by default."),
        ],
        mistake="cargo test -p quill-sync",
        lesson="quill-sync's tests don't compile without the s3 feature: cargo test -p quill-sync --features s3",
        warn=[
            same("cargo test -p quill-sync"),
            reword("cargo test --package quill-sync --lib"),
        ],
        silent=[
            fix("cargo test -p quill-sync --features s3"),
            fix("cargo test --package quill-sync --features=s3 --lib"),
            other("cargo test -p quill-core"),
            other("cargo fmt --all"),
            help_("cargo test --help"),
        ],
    ),
    Incident(
        id="ef-mosaic-gradle-java17",
        shape=ERROR_FIX,
        agent=CODEX,
        project="mosaic-android",
        session=[
            U("build a debug apk"),
            err("./gradlew assembleDebug", GRADLE_JAVA11),
            ok(
                "java -version",
                'openjdk version "11.0.24" 2024-07-16\nOpenJDK Runtime Environment (build 11.0.24+8-post-Ubuntu-1ubuntu322.04)\n',
            ),
            ok("ls /usr/lib/jvm", "java-1.11.0-openjdk-amd64\njava-11-openjdk-amd64\njava-17-openjdk-amd64\n"),
            ok("JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 ./gradlew assembleDebug", GRADLE_OK),
            A("The debug APK is in app/build/outputs/apk/debug/. The default java here is 11; AGP 8 needs 17."),
        ],
        mistake="./gradlew assembleDebug",
        lesson="the default JDK is 11 and AGP needs 17: run gradle as JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 ./gradlew ...",
        warn=[
            same("./gradlew assembleDebug"),
            reword("./gradlew :app:assembleRelease"),
            reword("./gradlew testDebugUnitTest"),
        ],
        silent=[
            fix("JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 ./gradlew assembleDebug"),
            fix("JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 ./gradlew :app:testDebugUnitTest"),
            other("ls app/build/outputs/apk/debug"),
            help_("./gradlew --version"),
        ],
    ),
    Incident(
        id="ef-compass-dotnet-test-sln",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="compass-dotnet",
        session=[
            U("run the unit tests"),
            err("dotnet test", DOTNET_MSB1011),
            ok("ls", "Compass.sln\nCompass.Tools.sln\nDirectory.Build.props\nREADME.md\nsrc\ntests\n"),
            ok("dotnet test Compass.sln", DOTNET_TEST_OK),
            A("118 passed. There are two solutions at the root, so dotnet test needs Compass.sln named."),
        ],
        mistake="dotnet test",
        lesson="the repo root has two .sln files; name the solution: dotnet test Compass.sln",
        warn=[
            same("dotnet test"),
            reword("dotnet test --filter Category=Unit"),
        ],
        silent=[
            fix("dotnet test Compass.sln"),
            fix("dotnet test Compass.sln --filter Category=Unit"),
            other("dotnet format Compass.sln --verify-no-changes"),
            other("dotnet --list-sdks"),
        ],
    ),
    Incident(
        id="ef-granary-composer-in-container",
        shape=ERROR_FIX,
        agent=CC,
        project="granary-php",
        session=[
            U("install the php deps, I just cloned this"),
            err("composer install", COMPOSER_PHP, code=2),
            ok(
                "php -v",
                "PHP 8.1.27 (cli) (built: Dec 21 2023 20:19:54) (NTS)\nCopyright (c) The PHP Group\nZend Engine v4.1.27, Copyright (c) Zend Technologies\n",
            ),
            ok("grep -n image docker-compose.yml", "4:    image: granary/php:8.3-fpm\n22:    image: mysql:8.4\n"),
            A("The host has PHP 8.1 but Laravel 11 needs 8.2+. The app container has 8.3, so I'll run composer there."),
            ok("docker compose run --rm app composer install", COMPOSER_OK),
        ],
        mistake="composer install",
        lesson="host php is 8.1 and granary needs 8.2+: run composer inside the container, docker compose run --rm app composer install",
        warn=[
            same("composer install"),
            reword("composer install --no-interaction --prefer-dist"),
        ],
        silent=[
            fix("docker compose run --rm app composer install"),
            fix("docker compose run --rm app composer install --no-interaction --prefer-dist"),
            other("docker compose ps"),
            help_("composer --version"),
        ],
    ),
    Incident(
        id="ef-fleet-ansible-inventory",
        shape=ERROR_FIX,
        agent=CODEX,
        project="fleet-ops",
        session=[
            U("roll the new nginx config out to the web hosts"),
            err("ansible-playbook site.yml --limit web", ANSIBLE_NO_INV),
            ok("ls inventories", "prod\nstaging\n"),
            ok(
                "cat ansible.cfg",
                "[defaults]\nroles_path = roles\nretry_files_enabled = False\nstdout_callback = yaml\n",
            ),
            ok("ansible-playbook -i inventories/prod/hosts.ini site.yml --limit web", ANSIBLE_OK),
            A("nginx config rolled out to web1 and web2 and nginx reloaded."),
        ],
        mistake="ansible-playbook site.yml --limit web",
        lesson="ansible.cfg sets no inventory; always pass one: ansible-playbook -i inventories/prod/hosts.ini site.yml ...",
        warn=[
            same("ansible-playbook site.yml --limit web"),
            reword("ansible-playbook site.yml --check --limit db"),
        ],
        silent=[
            fix("ansible-playbook -i inventories/prod/hosts.ini site.yml --limit web"),
            fix("ansible-playbook --inventory inventories/staging/hosts.ini site.yml --check --limit db"),
            other("ansible-inventory -i inventories/prod/hosts.ini --graph"),
            help_("ansible-playbook --version"),
        ],
    ),
    Incident(
        id="ef-harbor-psql-port-5433",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="harbor-monorepo",
        session=[
            U("which tables does the local db have?"),
            err("psql -h localhost -U harbor harbor_dev -c '\\dt'", PSQL_REFUSED, code=2),
            ok("docker compose ps", COMPOSE_PS),
            A("Postgres is published on 5433 on the host, not 5432."),
            ok("psql -h localhost -p 5433 -U harbor harbor_dev -c '\\dt'", PSQL_DT),
        ],
        mistake="psql -h localhost -U harbor harbor_dev -c '\\dt'",
        lesson="the compose postgres is on host port 5433; pass -p 5433 to psql (psql -h localhost -p 5433 -U harbor harbor_dev)",
        warn=[
            same("psql -h localhost -U harbor harbor_dev -c '\\dt'"),
            reword("psql -U harbor -h 127.0.0.1 harbor_dev -f db/seed.sql"),
        ],
        silent=[
            fix("psql -h localhost -p 5433 -U harbor harbor_dev -c '\\dt'"),
            fix('psql "postgresql://harbor@localhost:5433/harbor_dev" -c "select count(*) from bookings"'),
            other("psql -h db.staging.harbor.internal -U harbor_ro harbor -c '\\dt'"),
            help_("psql --version"),
        ],
    ),
    Incident(
        id="ef-lumen-mix-source-envrc",
        shape=ERROR_FIX,
        agent=CC,
        project="lumen-phx",
        session=[
            U("run the pending migrations"),
            err("mix ecto.migrate", MIX_NO_DB_URL),
            ok(
                "ls -a",
                ".\n..\n.envrc\n.formatter.exs\n.git\n.gitignore\nassets\nconfig\ndeps\nlib\nmix.exs\nmix.lock\npriv\ntest\n",
            ),
            ok("grep -c export .envrc", "4\n"),
            ok("source .envrc && mix ecto.migrate", MIX_MIGRATE_OK),
            A(
                "Migrated (AddArchivedAtToBoards). DATABASE_URL lives in .envrc and the shell doesn't load it by itself."
            ),
        ],
        mistake="mix ecto.migrate",
        lesson="DATABASE_URL is only in .envrc and the shell doesn't load it: run source .envrc && mix ecto.migrate",
        warn=[
            same("mix ecto.migrate"),
            reword("mix ecto.rollback --step 1"),
        ],
        silent=[
            fix("source .envrc && mix ecto.migrate"),
            fix("source .envrc && mix ecto.rollback --step 1"),
            other("mix format"),
            other("mix compile --warnings-as-errors"),
        ],
    ),
    Incident(
        id="ef-skylark-xcodebuild-simulator",
        shape=ERROR_FIX,
        agent=CODEX,
        project="skylark-ios",
        session=[
            U("run the iOS unit tests"),
            err(
                'xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 15"',
                XCODE_NO_DEST,
                code=70,
            ),
            ok("xcrun simctl list devices available", SIMCTL),
            ok(
                'xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 16"',
                XCODE_OK,
            ),
            A("61 tests pass. Only iOS 18.2 simulators are installed, so there's no iPhone 15 — use iPhone 16."),
        ],
        mistake='xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 15"',
        lesson="there is no iPhone 15 simulator here (only iOS 18.2 devices): use -destination 'platform=iOS Simulator,name=iPhone 16'",
        warn=[
            same(
                'xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 15"'
            ),
            reword(
                "xcodebuild build -scheme Skylark -workspace Skylark.xcworkspace -destination 'platform=iOS Simulator,name=iPhone 15'"
            ),
        ],
        silent=[
            fix(
                'xcodebuild test -workspace Skylark.xcworkspace -scheme Skylark -destination "platform=iOS Simulator,name=iPhone 16"'
            ),
            fix(
                "xcodebuild build -scheme Skylark -workspace Skylark.xcworkspace -destination 'platform=iOS Simulator,name=iPhone 16 Pro'"
            ),
            other("xcodebuild -list -workspace Skylark.xcworkspace"),
            help_("xcodebuild -version"),
        ],
    ),
]
