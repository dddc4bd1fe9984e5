"""Retry loop: the agent tries two to four failing variants of a call before one
works."""

from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    RETRY,
    A,
    Incident,
    U,
    edit,
    err,
    fix,
    help_,
    ok,
    other,
    reword,
    same,
)

K_NOTFOUND = 'error: error from server (NotFound): pods "%s" not found in namespace "shop"\n'

K_LOGS = """\
Found 3 pods, using pod/checkout-7d9f8c6b5-x2kqp
{"level":"info","ts":"2026-03-02T09:02:11Z","msg":"config loaded","config_map":"checkout-config","revision":"41"}
{"level":"error","ts":"2026-03-02T09:02:14Z","msg":"payment provider handshake failed","provider":"stripe-sandbox","err":"x509: certificate signed by unknown authority"}
{"level":"info","ts":"2026-03-02T09:02:14Z","msg":"retrying","attempt":2,"backoff":"2s"}
{"level":"error","ts":"2026-03-02T09:02:16Z","msg":"payment provider handshake failed","provider":"stripe-sandbox","err":"x509: certificate signed by unknown authority"}
"""

MAKE_HELP = """\
Usage: make <target>

  build          Build the pika binary into ./bin
  run            Run the API locally (needs docker compose up -d)
  test           go test ./...
  lint           golangci-lint (pinned) on ./...
  migrate-up     Apply all pending migrations (DATABASE_URL, default local)
  migrate-down   Roll back STEPS migrations (default 1)
  migrate-new    Create a new migration: make migrate-new NAME=add_x
  proto          Regenerate protobuf stubs
"""

UV_CONFLICT = """\
  × No solution found when resolving dependencies:
  ╰─▶ Because pytest-asyncio==%s depends on pytest>=7.0.0,<8 and your project depends on pytest>=8.3, we can conclude that your project and pytest-asyncio==%s are incompatible.
      And because your project depends on pytest-asyncio==%s, we can conclude that your project's requirements are unsatisfiable.
  help: If you want to add the package regardless of the failed resolution, provide the `--frozen` flag to skip locking and syncing.
"""

CARGO_NO_TARGET = """\
   Compiling libc v0.2.167
   Compiling proc-macro2 v1.0.92
error[E0463]: can't find crate for `core`
  |
  = note: the `aarch64-unknown-linux-gnu` target may not be installed
  = help: consider downloading the target with `rustup target add aarch64-unknown-linux-gnu`

For more information about this error, try `rustc --explain E0463`.
error: could not compile `libc` (lib) due to 1 previous error
"""

CARGO_WRONG_LINKER = """\
   Compiling quill-cli v0.7.0 (/home/dev/quill-rs/crates/quill-cli)
error: linking with `cc` failed: exit status: 1
  |
  = note: LC_ALL="C" PATH="/home/dev/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/bin:..." "cc" ...
  = note: /usr/bin/ld: /home/dev/quill-rs/target/aarch64-unknown-linux-gnu/release/deps/quill-3c1f09a2be4d7e11.quill.8f2c1d-cgu.0.rcgu.o: Relocations in generic ELF (EM: 183)
          /usr/bin/ld: /home/dev/quill-rs/target/aarch64-unknown-linux-gnu/release/deps/quill-3c1f09a2be4d7e11.quill.8f2c1d-cgu.0.rcgu.o: error adding symbols: file in wrong format
          collect2: error: ld returned 1 exit status

error: could not compile `quill-cli` (bin "quill") due to 1 previous error
"""

CROSS_OK = """\
info: downloading component 'rust-src'
Unable to find image 'ghcr.io/cross-rs/aarch64-unknown-linux-gnu:0.2.5' locally
0.2.5: Pulling from cross-rs/aarch64-unknown-linux-gnu
Status: Downloaded newer image for ghcr.io/cross-rs/aarch64-unknown-linux-gnu:0.2.5
   Compiling quill-core v0.7.0 (/project/crates/quill-core)
   Compiling quill-sync v0.7.0 (/project/crates/quill-sync)
   Compiling quill-cli v0.7.0 (/project/crates/quill-cli)
    Finished `release` profile [optimized] target(s) in 2m 41s
"""

ANSIBLE_DEPLOY_OK = """\

PLAY [Deploy fleet app] ********************************************************

TASK [Gathering Facts] *********************************************************
ok: [web1.fleet.example.net]
ok: [web2.fleet.example.net]

TASK [app : render env file] ***************************************************
changed: [web1.fleet.example.net]
changed: [web2.fleet.example.net]

TASK [app : restart fleet-app] *************************************************
changed: [web1.fleet.example.net]
changed: [web2.fleet.example.net]

PLAY RECAP *********************************************************************
web1.fleet.example.net     : ok=3    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
web2.fleet.example.net     : ok=3    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0
"""

NU1101 = """\
  Determining projects to restore...
  Writing /tmp/tmp3xQk2d.tmp
info : X.509 certificate chain validation will use the default trust store selected by .NET for code signing.
info : Adding PackageReference for package 'Compass.Shared.Telemetry' into project '/home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj'.
info : Restoring packages for /home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj...
info :   GET https://api.nuget.org/v3-flatcontainer/compass.shared.telemetry/index.json
info :   NotFound https://api.nuget.org/v3-flatcontainer/compass.shared.telemetry/index.json 212ms
error: NU1101: Unable to find package Compass.Shared.Telemetry. No packages exist with this id in source(s): nuget.org
error: Package 'Compass.Shared.Telemetry' is incompatible with 'all' frameworks in project '/home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj'.
"""

NUGET_SOURCES = """\
Registered Sources:
  1.  nuget.org [Enabled]
      https://api.nuget.org/v3/index.json
  2.  compass-internal [Disabled]
      https://nuget.compass.internal/v3/index.json
"""

NUGET_OK = """\
info : Adding PackageReference for package 'Compass.Shared.Telemetry' into project '/home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj'.
info :   GET https://nuget.compass.internal/v3/flatcontainer/compass.shared.telemetry/index.json
info :   OK https://nuget.compass.internal/v3/flatcontainer/compass.shared.telemetry/index.json 88ms
info : PackageReference for package 'Compass.Shared.Telemetry' version '2.3.0' added to file '/home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj'.
info : Writing assets file to disk. Path: /home/dev/compass-dotnet/src/Compass.Api/obj/project.assets.json
log  : Restored /home/dev/compass-dotnet/src/Compass.Api/Compass.Api.csproj (in 1.41 sec).
"""

INTERNAL_FEED = "https://nuget.compass.internal/v3/index.json"

GCLOUD_IMAGE = "europe-west1-docker.pkg.dev/juniper-staging/web/juniper-web:1.8.0"

GCLOUD_OK = """\
Deploying container to Cloud Run service [juniper-web] in project [juniper-staging] region [europe-west1]
Deploying...
  Setting IAM Policy.....done
  Creating Revision.......................done
  Routing traffic.....done
Done.
Service [juniper-web] revision [juniper-web-00042-xav] has been deployed and is serving 100 percent of traffic.
Service URL: https://juniper-web-5kq2x7wlaq-ew.a.run.app
"""

REDIS_KEYS = """\
1) "sidekiq:queues"
2) "sidekiq:queue:default"
3) "sidekiq:queue:mailers"
4) "sidekiq:stat:processed"
5) "sidekiq:stat:failed"
6) "sidekiq:retry"
"""

FLUTTER_DEVICES = """\
sdk gphone64 x86 64 (mobile) • emulator-5554 • android-x64    • Android 14 (API 34) (emulator)
Linux (desktop)              • linux         • linux-x64      • Ubuntu 22.04.4 LTS 6.5.0-41-generic
Chrome (web)                 • chrome        • web-javascript • Google Chrome 131.0.6778.85
"""

FLUTTER_RUN_OK = """\
Launching lib/main.dart on sdk gphone64 x86 64 in debug mode...
Running Gradle task 'assembleDebug'...                             41.2s
✓ Built build/app/outputs/flutter-apk/app-debug.apk
Installing build/app/outputs/flutter-apk/app-debug.apk...           1,804ms
Syncing files to device sdk gphone64 x86 64...                      92ms

Flutter run key commands.
r Hot reload. 🔥🔥🔥
R Hot restart.
q Quit (terminate the application on the device).

A Dart VM Service on sdk gphone64 x86 64 is available at: http://127.0.0.1:40233/Xk2Lq9aPz1c=/
"""

MVN_DEPS = """\
[INFO] Scanning for projects...
[INFO]
[INFO] --------------------------< com.tessera:billing >--------------------------
[INFO] Building billing 0.9.0-SNAPSHOT
[INFO]   from billing/pom.xml
[INFO] --------------------------------[ jar ]---------------------------------
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
[INFO] Total time:  1.912 s
[ERROR] Failed to execute goal on project billing: Could not resolve dependencies for project com.tessera:billing:jar:0.9.0-SNAPSHOT
[ERROR] dependency: com.tessera:tessera-common:jar:0.9.0-SNAPSHOT (compile)
[ERROR] 	Could not find artifact com.tessera:tessera-common:jar:0.9.0-SNAPSHOT in central (https://repo.maven.apache.org/maven2)
[ERROR]
[ERROR] -> [Help 1]
"""

MVN_REACTOR_OK = """\
[INFO] Reactor Build Order:
[INFO]
[INFO] tessera-common                                                     [jar]
[INFO] billing                                                            [jar]
[INFO]
[INFO] Tests run: 41, Failures: 0, Errors: 0, Skipped: 0
[INFO] ------------------------------------------------------------------------
[INFO] Reactor Summary for tessera 0.9.0-SNAPSHOT:
[INFO]
[INFO] tessera-common ..................................... SUCCESS [  5.201 s]
[INFO] billing ............................................ SUCCESS [  9.874 s]
[INFO] ------------------------------------------------------------------------
[INFO] BUILD SUCCESS
[INFO] ------------------------------------------------------------------------
"""

GIT_PROTECTED = """\
Enumerating objects: 7, done.
Counting objects: 100% (7/7), done.
Delta compression using up to 8 threads
Compressing objects: 100% (4/4), done.
Writing objects: 100% (4/4), 612 bytes | 612.00 KiB/s, done.
Total 4 (delta 3), reused 0 (delta 0), pack-reused 0
remote: error: GH006: Protected branch update failed for refs/heads/main.
remote: error: Changes must be made through a pull request.
To github.com:bramble-dev/bramble-cli.git
 ! [remote rejected] main -> main (protected branch hook declined)
error: failed to push some refs to 'github.com:bramble-dev/bramble-cli.git'
"""

GIT_PUSH_BRANCH = """\
Enumerating objects: 7, done.
Writing objects: 100% (4/4), 612 bytes | 612.00 KiB/s, done.
Total 4 (delta 3), reused 0 (delta 0), pack-reused 0
remote:
remote: Create a pull request for 'fix/median-numeric-sort' on GitHub by visiting:
remote:      https://github.com/bramble-dev/bramble-cli/pull/new/fix/median-numeric-sort
remote:
To github.com:bramble-dev/bramble-cli.git
 * [new branch]      fix/median-numeric-sort -> fix/median-numeric-sort
branch 'fix/median-numeric-sort' set up to track 'origin/fix/median-numeric-sort'.
"""

POD_STALE = """\
Analyzing dependencies
[!] CocoaPods could not find compatible versions for pod "FirebaseAnalytics":
  In Podfile:
    FirebaseAnalytics (~> 11.6)

None of your spec sources contain a spec satisfying the dependency: `FirebaseAnalytics (~> 11.6)`.

You have either:
 * out-of-date source repos which you can update with `pod repo update` or with `pod install --repo-update`.
 * mistyped the name or version.
 * not added the source repo that hosts the Podspec to your Podfile.
"""

POD_OK = """\
Updating local specs repositories
Analyzing dependencies
Downloading dependencies
Installing FirebaseAnalytics (11.6.0)
Installing FirebaseCore (11.6.0)
Installing GoogleAppMeasurement (11.6.0)
Generating Pods project
Integrating client project
Pod installation complete! There are 14 dependencies from the Podfile and 31 total pods installed.
"""

INCIDENTS = [
    Incident(
        id="rl-orbit-kubectl-logs-deployment",
        shape=RETRY,
        agent=CC,
        project="orbit-infra",
        session=[
            U("checkout on staging keeps failing payments, what do its logs say?"),
            err("kubectl logs checkout -n shop --context staging-eu", K_NOTFOUND % "checkout"),
            err("kubectl logs pod/checkout -n shop --context staging-eu", K_NOTFOUND % "checkout"),
            err("kubectl logs checkout-api -n shop --context staging-eu", K_NOTFOUND % "checkout-api"),
            ok("kubectl logs deploy/checkout -n shop --context staging-eu --tail=200", K_LOGS),
            A("The handshake with stripe-sandbox fails: `x509: certificate signed by unknown authority`."),
        ],
        mistake="kubectl logs checkout -n shop --context staging-eu",
        lesson="checkout is a deployment, not a pod name: kubectl logs deploy/checkout -n shop --context staging-eu",
        warn=[
            same("kubectl logs checkout -n shop --context staging-eu"),
            reword("kubectl logs cart --namespace shop --context=staging-eu --tail 100"),
        ],
        silent=[
            fix("kubectl logs deploy/checkout -n shop --context staging-eu --tail=200"),
            fix("kubectl logs deployment/cart --namespace shop --context=staging-eu --tail 100"),
            other("kubectl get pods -n shop --context staging-eu"),
        ],
    ),
    Incident(
        id="rl-pika-make-migrate-target",
        shape=RETRY,
        agent=GEMINI,
        project="pika-api",
        session=[
            U("apply the new migration locally"),
            err("make migrate", "make: *** No rule to make target 'migrate'.  Stop.\n", code=2),
            err("make db-migrate", "make: *** No rule to make target 'db-migrate'.  Stop.\n", code=2),
            err("make migrations", "make: *** No rule to make target 'migrations'.  Stop.\n", code=2),
            ok("make help", MAKE_HELP),
            ok(
                "make migrate-up",
                "migrate -path db/migrations -database postgres://pika:pika@localhost:5432/pika?sslmode=disable up\n"
                "20260301120000/u add_sessions_expires_at_idx (21.4ms)\n",
            ),
            A("Applied 20260301120000_add_sessions_expires_at_idx. The target is `make migrate-up`."),
        ],
        mistake="make migrate",
        lesson="pika-api has no make migrate target; migrations run with make migrate-up (make migrate-down to roll back)",
        warn=[
            same("make migrate"),
            reword("make db-migrate"),
        ],
        silent=[
            fix("make migrate-up"),
            fix("make migrate-up DATABASE_URL='postgres://pika:pika@localhost:5432/pika_test?sslmode=disable'"),
            other("make test"),
            help_("make help"),
        ],
    ),
    Incident(
        id="rl-tallybook-uv-pytest-asyncio-pin",
        shape=RETRY,
        agent=CC,
        project="tallybook",
        session=[
            U("add pytest-asyncio, the bank sync tests are async"),
            err("uv add --dev pytest-asyncio==0.21.1", UV_CONFLICT % ("0.21.1", "0.21.1", "0.21.1")),
            err("uv add --dev pytest-asyncio==0.22.0", UV_CONFLICT % ("0.22.0", "0.22.0", "0.22.0")),
            ok(
                "uv add --dev 'pytest-asyncio>=0.23'",
                "Resolved 44 packages in 301ms\nPrepared 1 package in 64ms\nInstalled 1 package in 3ms\n + pytest-asyncio==0.24.0\n",
            ),
            A("pytest-asyncio 0.24.0 is in the dev group; versions before 0.23 require pytest < 8."),
        ],
        mistake="uv add --dev pytest-asyncio==0.21.1",
        lesson="pytest-asyncio < 0.23 needs pytest < 8 and tallybook is on pytest 8.3: uv add --dev 'pytest-asyncio>=0.23'",
        warn=[
            same("uv add --dev pytest-asyncio==0.21.1"),
            reword("uv add pytest-asyncio==0.21.1 --dev"),
            reword("uv add --group dev pytest-asyncio==0.22.0"),
        ],
        silent=[
            fix("uv add --dev 'pytest-asyncio>=0.23'"),
            fix("uv add --dev pytest-asyncio==0.24.0"),
            other("uv add httpx"),
            other("uv lock --upgrade-package pytest"),
        ],
    ),
    Incident(
        id="rl-quill-cross-aarch64",
        shape=RETRY,
        agent=CC,
        project="quill-rs",
        session=[
            U("build a release binary for the arm64 NAS"),
            err("cargo build --release --target aarch64-unknown-linux-gnu", CARGO_NO_TARGET, code=101),
            ok(
                "rustup target add aarch64-unknown-linux-gnu",
                "info: downloading component 'rust-std' for 'aarch64-unknown-linux-gnu'\n"
                "info: installing component 'rust-std' for 'aarch64-unknown-linux-gnu'\n",
            ),
            err("cargo build --release --target aarch64-unknown-linux-gnu", CARGO_WRONG_LINKER, code=101),
            err(
                "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc cargo build --release --target aarch64-unknown-linux-gnu",
                "error: linker `aarch64-linux-gnu-gcc` not found\n  |\n  = note: No such file or directory (os error 2)\n\n"
                'error: could not compile `quill-cli` (bin "quill") due to 1 previous error\n',
                code=101,
            ),
            ok("cross build --release --target aarch64-unknown-linux-gnu", CROSS_OK),
            A("The arm64 binary is at target/aarch64-unknown-linux-gnu/release/quill (built with cross)."),
        ],
        mistake="cargo build --release --target aarch64-unknown-linux-gnu",
        lesson="no aarch64 cross linker on this box: build arm64 with cross build --release --target aarch64-unknown-linux-gnu",
        warn=[
            same("cargo build --release --target aarch64-unknown-linux-gnu"),
            reword("cargo build --target=aarch64-unknown-linux-gnu -p quill-cli --release"),
        ],
        silent=[
            fix("cross build --release --target aarch64-unknown-linux-gnu"),
            fix("cross build --target=aarch64-unknown-linux-gnu -p quill-cli --release"),
            other("cargo build --release"),
            other("rustup target list --installed"),
        ],
    ),
    Incident(
        id="rl-fleet-ansible-vault-password",
        shape=RETRY,
        agent=GEMINI,
        project="fleet-ops",
        session=[
            U("deploy the app to prod, the new env vars are in the vault"),
            err(
                "ansible-playbook -i inventories/prod/hosts.ini deploy.yml",
                "ERROR! Attempting to decrypt but no vault secrets found\n",
            ),
            err(
                "ANSIBLE_VAULT_PASSWORD_FILE=.vault-pass ansible-playbook -i inventories/prod/hosts.ini deploy.yml",
                "ERROR! The vault password file /home/dev/fleet-ops/.vault-pass was not found\n",
            ),
            ok("ls ~/.config/fleet", "vault-pass\n"),
            ok(
                "ansible-playbook -i inventories/prod/hosts.ini deploy.yml --vault-password-file ~/.config/fleet/vault-pass",
                ANSIBLE_DEPLOY_OK,
            ),
            A("Deployed to web1 and web2 with the vault decrypted from ~/.config/fleet/vault-pass."),
        ],
        mistake="ansible-playbook -i inventories/prod/hosts.ini deploy.yml",
        lesson="deploy.yml reads vaulted vars: pass --vault-password-file ~/.config/fleet/vault-pass to ansible-playbook",
        warn=[
            same("ansible-playbook -i inventories/prod/hosts.ini deploy.yml"),
            reword("ansible-playbook deploy.yml -i inventories/staging/hosts.ini --limit web1"),
        ],
        silent=[
            fix(
                "ansible-playbook -i inventories/prod/hosts.ini deploy.yml --vault-password-file ~/.config/fleet/vault-pass"
            ),
            fix(
                'ansible-playbook --vault-password-file="$HOME/.config/fleet/vault-pass" deploy.yml -i inventories/staging/hosts.ini --limit web1'
            ),
            other("ansible-inventory -i inventories/prod/hosts.ini --graph"),
            help_("ansible-playbook --version"),
        ],
    ),
    Incident(
        id="rl-compass-nuget-internal-feed",
        shape=RETRY,
        agent=GEMINI,
        project="compass-dotnet",
        session=[
            U("wire the shared telemetry package into the API"),
            err("dotnet add src/Compass.Api package Compass.Shared.Telemetry", NU1101),
            err("dotnet add src/Compass.Api package Compass.Shared.Telemetry --version 2.3.0", NU1101),
            ok("dotnet nuget list source", NUGET_SOURCES),
            ok(
                f"dotnet add src/Compass.Api package Compass.Shared.Telemetry --version 2.3.0 --source {INTERNAL_FEED}",
                NUGET_OK,
            ),
            A("Compass.Shared.Telemetry 2.3.0 is referenced; it only exists on the internal feed."),
        ],
        mistake="dotnet add src/Compass.Api package Compass.Shared.Telemetry",
        lesson=f"Compass.Shared.* packages are only on the internal feed: dotnet add ... package Compass.Shared.X --source {INTERNAL_FEED}",
        warn=[
            same("dotnet add src/Compass.Api package Compass.Shared.Telemetry"),
            reword("dotnet add src/Compass.Worker package Compass.Shared.Messaging --version 1.4.0"),
        ],
        silent=[
            fix(
                f"dotnet add src/Compass.Api package Compass.Shared.Telemetry --version 2.3.0 --source {INTERNAL_FEED}"
            ),
            fix(f"dotnet add src/Compass.Worker package Compass.Shared.Messaging -s {INTERNAL_FEED} --version 1.4.0"),
            other("dotnet add src/Compass.Api package Polly --version 8.5.0"),
            other("dotnet nuget list source"),
        ],
    ),
    Incident(
        id="rl-juniper-gcloud-run-project-region",
        shape=RETRY,
        agent=CODEX,
        project="juniper-web",
        session=[
            U("deploy web 1.8.0 to the staging Cloud Run service"),
            err(
                f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE}",
                "ERROR: (gcloud.run.deploy) Missing required argument [--region]: You must specify a region. "
                "Either use the `--region` flag or set the run/region property.\n",
            ),
            err(
                f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE} --region europe-west1",
                "ERROR: (gcloud.run.deploy) PERMISSION_DENIED: Permission 'run.services.get' denied on resource "
                "'namespaces/juniper-prod/services/juniper-web' (or resource may not exist). This command is "
                "authenticated as dev@juniper.dev which is the active account specified by the [core/account] property.\n",
            ),
            ok("gcloud config get-value project", "juniper-prod\n"),
            ok(
                f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE} --region europe-west1 --project juniper-staging",
                GCLOUD_OK,
            ),
            A(
                "Revision juniper-web-00042-xav serves 100% of staging traffic. The gcloud default project here is prod."
            ),
        ],
        mistake=f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE}",
        lesson="gcloud defaults to juniper-prod with no region: gcloud run deploy ... --region europe-west1 --project juniper-staging",
        warn=[
            same(f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE}"),
            reword(
                "gcloud run deploy juniper-web --region=europe-west1 --image europe-west1-docker.pkg.dev/juniper-staging/web/juniper-web:1.8.1"
            ),
        ],
        silent=[
            fix(
                f"gcloud run deploy juniper-web --image {GCLOUD_IMAGE} --region europe-west1 --project juniper-staging"
            ),
            fix(
                "gcloud run deploy juniper-worker --project=juniper-staging --region=europe-west1 "
                "--image europe-west1-docker.pkg.dev/juniper-staging/web/juniper-worker:1.8.0"
            ),
            other("gcloud run services list --project juniper-staging --region europe-west1"),
            other("gcloud auth list"),
        ],
    ),
    Incident(
        id="rl-ledgerline-redis-url",
        shape=RETRY,
        agent=CODEX,
        project="ledgerline",
        session=[
            U("are there sidekiq retries piling up locally?"),
            err(
                "redis-cli KEYS 'sidekiq*'",
                "Could not connect to Redis at 127.0.0.1:6379: Connection refused\n",
            ),
            err("redis-cli -p 6380 KEYS 'sidekiq*'", "(error) NOAUTH Authentication required.\n"),
            ok("grep REDIS .env.development", "REDIS_URL=redis://:devpass@localhost:6380/2\n"),
            ok(
                "redis-cli -p 6380 -a devpass KEYS 'sidekiq*'",
                "Warning: Using a password with '-a' or '-u' option on the command line interface may not be safe.\n(empty array)\n",
            ),
            ok("redis-cli -u redis://:devpass@localhost:6380/2 --no-auth-warning KEYS 'sidekiq*'", REDIS_KEYS),
            ok(
                "redis-cli -u redis://:devpass@localhost:6380/2 --no-auth-warning ZCARD sidekiq:retry", "(integer) 37\n"
            ),
            A("37 jobs are waiting in the retry set. Ledgerline's redis is on 6380, db 2, with a password."),
        ],
        mistake="redis-cli KEYS 'sidekiq*'",
        lesson="ledgerline's local redis is redis://:devpass@localhost:6380/2: use redis-cli -u redis://:devpass@localhost:6380/2 ...",
        warn=[
            same("redis-cli KEYS 'sidekiq*'"),
            reword("redis-cli ZCARD sidekiq:retry"),
        ],
        silent=[
            fix("redis-cli -u redis://:devpass@localhost:6380/2 --no-auth-warning KEYS 'sidekiq*'"),
            fix("redis-cli -u redis://:devpass@localhost:6380/2 ZCARD sidekiq:retry"),
            help_("redis-cli --version"),
        ],
    ),
    Incident(
        id="rl-fernwood-flutter-run-device",
        shape=RETRY,
        agent=GEMINI,
        project="fernwood-mobile",
        session=[
            U("start the app on the emulator"),
            err(
                "flutter run",
                "More than one device connected; please specify a device with the '-d <deviceId>' flag, "
                "or use '-d all' to act on all devices.\n\n" + FLUTTER_DEVICES,
            ),
            err(
                "flutter run -d android",
                "No supported devices found with name or id matching 'android'.\n\nThe following devices were found:\n"
                + FLUTTER_DEVICES,
            ),
            ok("flutter devices", "Found 3 connected devices:\n" + FLUTTER_DEVICES),
            ok("flutter run -d emulator-5554", FLUTTER_RUN_OK),
            A("The app is running on emulator-5554; hot reload is available."),
        ],
        mistake="flutter run",
        lesson="several devices are connected (emulator, linux, chrome): flutter run -d emulator-5554",
        warn=[
            same("flutter run"),
            reword("flutter run --release"),
        ],
        silent=[
            fix("flutter run -d emulator-5554"),
            fix("flutter run --release -d emulator-5554"),
            other("flutter devices"),
            other("flutter test test/widgets"),
        ],
    ),
    Incident(
        id="rl-tessera-maven-also-make",
        shape=RETRY,
        agent=CODEX,
        project="tessera-api",
        session=[
            U("run the billing module tests"),
            err("./mvnw -pl billing test", MVN_DEPS),
            err("./mvnw -U -pl billing test", MVN_DEPS),
            ok("./mvnw -pl billing -am test", MVN_REACTOR_OK),
            A("41 tests pass. billing depends on the tessera-common SNAPSHOT, so it needs -am to build it too."),
        ],
        mistake="./mvnw -pl billing test",
        lesson="a single module needs its SNAPSHOT siblings built: ./mvnw -pl billing -am test (-am / --also-make)",
        warn=[
            same("./mvnw -pl billing test"),
            reword("./mvnw verify -pl api"),
        ],
        silent=[
            fix("./mvnw -pl billing -am test"),
            fix("./mvnw verify -pl api --also-make"),
            other("./mvnw spotless:apply"),
            help_("./mvnw -v"),
        ],
    ),
    Incident(
        id="rl-bramble-push-protected-main",
        shape=RETRY,
        agent=CC,
        project="bramble-cli",
        session=[
            U("commit the median fix and push it"),
            ok(
                "git commit -am 'stats: sort numerically in median'",
                "[main 4e1a9c2] stats: sort numerically in median\n 1 file changed, 1 insertion(+), 1 deletion(-)\n",
            ),
            err("git push origin main", GIT_PROTECTED),
            err("git push --force-with-lease origin main", GIT_PROTECTED),
            ok("git switch -c fix/median-numeric-sort", "Switched to a new branch 'fix/median-numeric-sort'\n"),
            ok("git push -u origin fix/median-numeric-sort", GIT_PUSH_BRANCH),
            ok("gh pr create --fill --base main", "https://github.com/bramble-dev/bramble-cli/pull/212\n"),
            A("main is protected, so the fix went up as PR #212 from fix/median-numeric-sort."),
        ],
        mistake="git push origin main",
        lesson="main is protected on bramble-cli: push a branch (git push -u origin <branch>) and open a PR with gh pr create",
        warn=[
            same("git push origin main"),
            reword("git push origin HEAD:main"),
            reword("git push -f origin main"),
        ],
        silent=[
            fix("git push -u origin fix/median-numeric-sort"),
            fix("gh pr create --fill --base main"),
            other("git pull --rebase origin main"),
            other("git fetch origin"),
        ],
    ),
    Incident(
        id="rl-skylark-pod-repo-update",
        shape=RETRY,
        agent=CODEX,
        project="skylark-ios",
        session=[
            U("bump FirebaseAnalytics to 11.6 and install the pods"),
            edit("Podfile", "  pod 'FirebaseAnalytics', '~> 10.29'\n", "  pod 'FirebaseAnalytics', '~> 11.6'\n"),
            err("pod install", POD_STALE),
            err("bundle exec pod install", POD_STALE),
            ok("bundle exec pod install --repo-update", POD_OK),
            A("Installed FirebaseAnalytics 11.6.0; the local specs repo was stale, so it needed --repo-update."),
        ],
        mistake="pod install",
        lesson="the CocoaPods specs repo is stale here: pod install --repo-update (bundle exec pod install --repo-update)",
        warn=[
            same("pod install"),
            reword("bundle exec pod install"),
        ],
        silent=[
            fix("bundle exec pod install --repo-update"),
            fix("pod install --repo-update"),
            help_("pod --version"),
            other("bundle exec pod outdated"),
        ],
    ),
]
