"""Sealed split, shape 5 (part a): the agent retries a failing call with small variations until one works."""

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

_COUNT = "-e \"SELECT COUNT(*) FROM events WHERE created_at >= CURDATE()\""
_PW_WARN = "mysql: [Warning] Using a password on the command line interface can be insecure.\n"

_EF_DESIGN = ("Build started...\nBuild succeeded.\nYour startup project 'Sundial.Migrations' doesn't reference "
              "Microsoft.EntityFrameworkCore.Design. This package is required for the Entity Framework Core Tools to work. "
              "Ensure your startup project is correct, install the package, and try again.")

_SIDEKIQ_BOOT = ("2026-03-02T09:00:04.118Z pid=51327 tid=2bkj INFO: Booted Rails 7.2.2 application in development environment\n"
                 "2026-03-02T09:00:04.119Z pid=51327 tid=2bkj INFO: Running in ruby 3.3.6 (2024-11-05 revision 75015d4c1f) [x86_64-linux]\n")

_PROTO_MISSING = ("google/api/annotations.proto: File not found.\n"
                  "{f}:5:1: Import \"google/api/annotations.proto\" was not found or had errors.\n"
                  "{f}:31:3: \"google.api.http\" is not defined.")

_VITE_BUSY = ("\n> foxglove-admin@1.18.0 dev\n> vite\n\nerror when starting dev server:\n"
              "Error: Port 5173 is already in use\n"
              "    at Server.onError (file:///home/dev/foxglove-admin/node_modules/vite/dist/node/chunks/dep-CB_7IfJ-.js:45596:18)\n"
              "    at Server.emit (node:events:518:28)")

_GCS_403 = ("HTTPError 403: dev@nimbus.io does not have storage.objects.list access to the Google Cloud Storage bucket. "
            "Permission 'storage.objects.list' denied on resource (or it may not exist).")
_SA = "etl-reader@nimbus-prod.iam.gserviceaccount.com"

_DJANGO_TB = "Traceback (most recent call last):\n  File \"/home/dev/larkspur/manage.py\", line 22, in <module>\n    main()\n"

_ARM = "aarch64-unknown-linux-gnu"

_PLAIN = "ledger/build/libs/ledger-2.3.0-SNAPSHOT-plain.jar"

_BASTION = "ops@bastion-staging.kestrel.io"

INCIDENTS = [
    eco("database", Incident(
        "s-rt-ravenlog-mysql-tcp", RETRY, CC, "ravenlog",
        session=[
            U("How many events did the ingest write today? The DB is the local MySQL."),
            err(f"mysql -u root ravenlog {_COUNT}",
                "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: NO)", 1),
            err(f"mysql -u ravenlog -pravenlog ravenlog {_COUNT}",
                _PW_WARN + "ERROR 1045 (28000): Access denied for user 'ravenlog'@'localhost' (using password: YES)", 1),
            err(f"mysql -h localhost -P 3307 -u ravenlog -pravenlog ravenlog {_COUNT}",
                _PW_WARN + "ERROR 1045 (28000): Access denied for user 'ravenlog'@'localhost' (using password: YES)", 1),
            ok("docker compose port mysql 3306", "0.0.0.0:3307"),
            ok(f"mysql -h 127.0.0.1 -P 3307 -u ravenlog -pravenlog ravenlog {_COUNT}",
               _PW_WARN + "+----------+\n| COUNT(*) |\n+----------+\n|   184302 |\n+----------+"),
            A("184,302 events today. `-h localhost` makes the mysql client use the system MySQL's Unix socket and "
              "ignore -P; the project's MySQL is the compose container on 127.0.0.1:3307."),
        ],
        mistake=f"mysql -u root ravenlog {_COUNT}",
        lesson="ravenlog's MySQL is the compose container on 127.0.0.1:3307 (user ravenlog): connect with -h 127.0.0.1 -P 3307; "
               "without -h, or with -h localhost, the client talks to the system MySQL socket and ignores -P.",
        warn=[same(f"mysql -u root ravenlog {_COUNT}"),
              reword("mysql -h localhost -P 3307 -u ravenlog -pravenlog ravenlog -e \"SHOW TABLES\""),
              reword("mysqldump -u ravenlog -pravenlog ravenlog events > /tmp/events.sql")],
        silent=[fix("mysql -h 127.0.0.1 -P 3307 -u ravenlog -pravenlog ravenlog -e \"SHOW TABLES\""),
                fix("mysqldump -h 127.0.0.1 -P 3307 -u ravenlog -pravenlog ravenlog events > /tmp/events.sql"),
                other("mysql --version"), help_("mysql --help")],
        variants=("diagnostic",),
    )),
    eco("dotnet", Incident(
        "s-rt-sundial-ef-projects", RETRY, CODEX, "sundial-ledger",
        session=[
            U("Add an EF migration for the new Refund table."),
            err("dotnet ef migrations add AddRefunds", _EF_DESIGN, 1),
            err("dotnet ef migrations add AddRefunds --project src/Sundial.Data", _EF_DESIGN, 1),
            err("dotnet ef migrations add AddRefunds --startup-project src/Sundial.Api",
                "Build started...\nBuild succeeded.\nYour target project 'Sundial.Migrations' doesn't match your migrations "
                "assembly 'Sundial.Data'. Either change your target project or change your migrations assembly.\n"
                "Change your migrations assembly by using DbContextOptionsBuilder. E.g. options.UseNpgsql(connection, "
                "b => b.MigrationsAssembly(\"Sundial.Migrations\")). By default, the migrations assembly is the assembly "
                "containing the DbContext.\nChange your target project to the migrations project by using the Package "
                "Manager Console's Default project drop-down list, or by executing \"dotnet ef\" from the directory "
                "containing the migrations project.", 1),
            ok("dotnet ef migrations add AddRefunds --project src/Sundial.Data --startup-project src/Sundial.Api",
               "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'"),
            A("Added src/Sundial.Data/Migrations/20260302090412_AddRefunds.cs. The EF model lives in Sundial.Data and "
              "only Sundial.Api references EF Design, so both flags are needed."),
        ],
        mistake="dotnet ef migrations add AddRefunds",
        lesson="sundial-ledger: every dotnet ef command needs --project src/Sundial.Data --startup-project src/Sundial.Api "
               "(the root Sundial.Migrations.csproj is not the EF project).",
        warn=[same("dotnet ef migrations add AddRefunds"),
              reword("dotnet ef migrations add AddRefundReasons --project src/Sundial.Data"),
              reword("dotnet ef migrations script --startup-project src/Sundial.Api -o refunds.sql")],
        silent=[fix("dotnet ef migrations add AddRefundReasons --project src/Sundial.Data --startup-project src/Sundial.Api"),
                other("dotnet ef --version"), help_("dotnet ef migrations add --help")],
    )),
    eco("ruby", Incident(
        "s-rt-tallyho-sidekiq-redis", RETRY, GEMINI, "tallyho",
        session=[
            U("Start sidekiq so the reminder jobs get processed locally."),
            err("bundle exec sidekiq -C config/sidekiq.yml",
                _SIDEKIQ_BOOT + "RedisClient::CannotConnectError: Connection refused - connect(2) for 127.0.0.1:6379 "
                "(redis://localhost:6379)\n/home/dev/.gem/ruby/3.3.0/gems/redis-client-0.22.2/lib/redis_client/"
                "ruby_connection.rb:133:in `rescue in connect'", 1),
            err("REDIS_URL=redis://127.0.0.1:6379/0 bundle exec sidekiq -C config/sidekiq.yml",
                _SIDEKIQ_BOOT + "RedisClient::CannotConnectError: Connection refused - connect(2) for 127.0.0.1:6379 "
                "(redis://127.0.0.1:6379)", 1),
            err("REDIS_URL=redis://redis:6379/0 bundle exec sidekiq -C config/sidekiq.yml",
                _SIDEKIQ_BOOT + "RedisClient::CannotConnectError: getaddrinfo: Name or service not known (redis://redis:6379)", 1),
            ok("docker compose ps redis",
               "NAME              IMAGE       SERVICE   STATUS       PORTS\n"
               "tallyho-redis-1   redis:7.4   redis     Up 2 hours   0.0.0.0:6380->6379/tcp"),
            ok("REDIS_URL=redis://localhost:6380/0 bundle exec sidekiq -C config/sidekiq.yml",
               _SIDEKIQ_BOOT + "2026-03-02T09:01:40.522Z pid=51712 tid=2bm3 INFO: Sidekiq 7.3.6 connecting to Redis with "
               "options {:size=>10, :pool_name=>\"internal\", :url=>\"redis://localhost:6380/0\"}\n"
               "2026-03-02T09:01:40.530Z pid=51712 tid=2bm3 INFO: Starting processing, hit Ctrl-C to stop"),
        ],
        mistake="bundle exec sidekiq -C config/sidekiq.yml",
        lesson="tallyho: Redis is the compose container published on localhost:6380; start sidekiq with "
               "REDIS_URL=redis://localhost:6380/0 (6379 has nothing listening).",
        warn=[same("bundle exec sidekiq -C config/sidekiq.yml"),
              reword("REDIS_URL=redis://localhost:6379/0 bundle exec sidekiq -q mailers -q default"),
              reword("bundle exec sidekiq -q mailers -q default -c 2")],
        silent=[fix("REDIS_URL=redis://localhost:6380/0 bundle exec sidekiq -q mailers -q default -c 2"),
                other("redis-cli -p 6380 ping"), other("bundle exec rspec spec/jobs")],
        variants=("diagnostic",),
    )),
    eco("go", Incident(
        "s-rt-gridkeeper-buf-generate", RETRY, GEMINI, "gridkeeper",
        session=[
            U("Regenerate the Go code for the jobs proto, I added a Cancel RPC."),
            err("protoc --go_out=. --go-grpc_out=. proto/jobs/v1/jobs.proto",
                _PROTO_MISSING.format(f="proto/jobs/v1/jobs.proto"), 1),
            err("protoc -I proto --go_out=gen/go --go-grpc_out=gen/go proto/jobs/v1/jobs.proto",
                _PROTO_MISSING.format(f="jobs/v1/jobs.proto"), 1),
            err("protoc -I proto -I third_party/googleapis --go_out=gen/go --go-grpc_out=gen/go proto/jobs/v1/jobs.proto",
                "third_party/googleapis: warning: directory does not exist.\n" + _PROTO_MISSING.format(f="jobs/v1/jobs.proto"), 1),
            ok("cat buf.gen.yaml",
               "version: v2\nplugins:\n  - remote: buf.build/protocolbuffers/go\n    out: gen/go\n    opt: paths=source_relative\n"
               "  - remote: buf.build/grpc/go\n    out: gen/go\n    opt: paths=source_relative\ninputs:\n  - directory: proto\n"),
            ok("buf generate", ""),
            ok("git status --short gen/", " M gen/go/jobs/v1/jobs.pb.go\n M gen/go/jobs/v1/jobs_grpc.pb.go"),
            A("gridkeeper's protos import googleapis through buf's dependencies (buf.yaml deps), so plain protoc can't "
              "find them; `buf generate` regenerated both files."),
        ],
        mistake="protoc --go_out=. --go-grpc_out=. proto/jobs/v1/jobs.proto",
        lesson="gridkeeper generates protobuf code with buf generate (buf.gen.yaml; googleapis comes from buf deps); protoc "
               "cannot find google/api/annotations.proto.",
        warn=[same("protoc --go_out=. --go-grpc_out=. proto/jobs/v1/jobs.proto"),
              reword("protoc -I proto --go_out=paths=source_relative:gen/go proto/scheduler/v1/scheduler.proto"),
              reword("protoc --proto_path=proto --go-grpc_out=gen/go jobs/v1/jobs.proto")],
        silent=[fix("buf generate --path proto/scheduler/v1/scheduler.proto"), other("buf lint"), other("protoc --version")],
        variants=("diagnostic",),
    )),
    eco("terraform", Incident(
        "s-rt-stratocum-import-address", RETRY, CC, "stratocum",
        session=[
            U("The logs bucket in staging was created by hand; import it into the state."),
            err("terraform -chdir=envs/staging import aws_s3_bucket.logs stratocum-staging-logs",
                "╷\n│ Error: resource address \"aws_s3_bucket.logs\" does not exist in the configuration.\n│ \n"
                "│ Before importing this resource, please create its configuration in the root module. For example:\n│ \n"
                "│ resource \"aws_s3_bucket\" \"logs\" {\n│   # (resource arguments)\n│ }\n╵", 1),
            err("terraform -chdir=envs/staging import module.storage.aws_s3_bucket.logs stratocum-staging-logs",
                "╷\n│ Error: Configuration for import target does not exist\n│ \n"
                "│ The configuration for the given import module.storage.aws_s3_bucket.logs does not exist. All target "
                "instances must have an associated configuration to be imported.\n╵", 1),
            ok("grep -n -A2 'resource \"aws_s3_bucket\"' modules/storage/main.tf",
               "3:resource \"aws_s3_bucket\" \"this\" {\n4-  for_each = var.buckets\n5-  bucket   = \"stratocum-${var.env}-${each.key}\""),
            err("terraform -chdir=envs/staging import module.storage.aws_s3_bucket.this[\"logs\"] stratocum-staging-logs",
                "╷\n│ Error: Index value required\n│ \n│   on  line 1:\n│   (source code not available)\n│ \n"
                "│ Index brackets must contain either a literal number or a literal string.\n╵\n\n"
                "For information on valid syntax, see:\nhttps://developer.hashicorp.com/terraform/cli/state/resource-addressing", 1),
            ok("terraform -chdir=envs/staging import 'module.storage.aws_s3_bucket.this[\"logs\"]' stratocum-staging-logs",
               "module.storage.aws_s3_bucket.this[\"logs\"]: Importing from ID \"stratocum-staging-logs\"...\n"
               "module.storage.aws_s3_bucket.this[\"logs\"]: Import prepared!\n  Prepared aws_s3_bucket for import\n"
               "module.storage.aws_s3_bucket.this[\"logs\"]: Refreshing state... [id=stratocum-staging-logs]\n\n"
               "Import successful!\n\nThe resources that were imported are shown above. These resources are now in\n"
               "your Terraform state and will henceforth be managed by Terraform."),
            A("The buckets come from a for_each in modules/storage, so the address is "
              "`module.storage.aws_s3_bucket.this[\"logs\"]`, and it has to be single-quoted or bash strips the inner quotes."),
        ],
        mistake="terraform -chdir=envs/staging import aws_s3_bucket.logs stratocum-staging-logs",
        lesson="stratocum's buckets are module.storage.aws_s3_bucket.this[\"<name>\"] (a for_each in modules/storage); pass "
               "that address single-quoted to terraform import / state (unquoted, the shell strips the inner quotes).",
        warn=[same("terraform -chdir=envs/staging import aws_s3_bucket.logs stratocum-staging-logs"),
              reword("terraform -chdir=envs/staging state show module.storage.aws_s3_bucket.this[\"artifacts\"]"),
              reword("terraform -chdir=envs/prod import module.storage.aws_s3_bucket.this[\"logs\"] stratocum-prod-logs")],
        silent=[fix("terraform -chdir=envs/staging state show 'module.storage.aws_s3_bucket.this[\"artifacts\"]'"),
                other("terraform -chdir=envs/staging state list module.storage"), help_("terraform import -help")],
        variants=("diagnostic",),
    )),
    eco("kubernetes", Incident(
        "s-rt-kelpfleet-port-forward", RETRY, CODEX, "kelpfleet",
        session=[
            U("Port-forward the api so I can hit it from my browser on 8080."),
            err("kubectl port-forward svc/kelp-api 8080:80", "Error from server (NotFound): services \"kelp-api\" not found", 1),
            err("kubectl port-forward -n kelp svc/kelp-api 8080:80", "error: Service kelp-api does not have a service port 80", 1),
            err("kubectl port-forward -n kelp deploy/kelp-api 8080:80",
                "Forwarding from 127.0.0.1:8080 -> 80\nForwarding from [::1]:8080 -> 80\nHandling connection for 8080\n"
                "E0302 09:02:11.402117   61822 portforward.go:413] an error occurred forwarding 8080 -> 80: error forwarding "
                "port 80 to pod 3c1f9a0d, uid : failed to execute portforward in network namespace: failed to connect to "
                "localhost:80 inside namespace \"3c1f9a0d\", IPv4: dial tcp4 127.0.0.1:80: connect: connection refused\n"
                "error: lost connection to pod", 1),
            ok("kubectl get svc kelp-api -n kelp -o jsonpath='{.spec.ports}'",
               "[{\"name\":\"http\",\"port\":8000,\"protocol\":\"TCP\",\"targetPort\":\"http\"}]"),
            ok("kubectl port-forward -n kelp svc/kelp-api 8080:8000",
               "Forwarding from 127.0.0.1:8080 -> 8000\nForwarding from [::1]:8080 -> 8000"),
        ],
        mistake="kubectl port-forward svc/kelp-api 8080:80",
        lesson="kelpfleet: kelp-api lives in namespace kelp and serves on port 8000 (named http), not 80: "
               "kubectl port-forward -n kelp svc/kelp-api <local>:8000.",
        warn=[same("kubectl port-forward svc/kelp-api 8080:80"),
              reword("kubectl port-forward --namespace kelp service/kelp-api 9090:80"),
              reword("kubectl -n kelp port-forward deploy/kelp-api 8080:80")],
        silent=[fix("kubectl port-forward --namespace kelp service/kelp-api 9090:8000"), other("kubectl get svc -n kelp"),
                other("kubectl port-forward -n kelp svc/kelp-db 5432:5432")],
        variants=("diagnostic",),
    )),
    eco("node", Incident(
        "s-rt-foxglove-vite-port", RETRY, GEMINI, "foxglove-admin",
        session=[
            U("Start the dev server, but 5173 is taken by the other app — use another port."),
            err("PORT=5174 npm run dev", _VITE_BUSY, 1),
            err("npm run dev --port 5174",
                "npm warn Unknown cli config \"--port\". This will stop working in the next major version of npm.\n" + _VITE_BUSY, 1),
            err("PORT=5174 VITE_PORT=5174 npm run dev", _VITE_BUSY, 1),
            ok("grep -n strictPort vite.config.ts", "14:    strictPort: true,"),
            ok("npm run dev -- --port 5174",
               "\n> foxglove-admin@1.18.0 dev\n> vite --port 5174\n\n\n  VITE v5.4.11  ready in 388 ms\n\n"
               "  ➜  Local:   http://localhost:5174/\n  ➜  Network: use --host to expose"),
            A("Vite ignores PORT, and npm keeps a bare `--port` for itself; the flag has to come after `--`."),
        ],
        mistake="PORT=5174 npm run dev",
        lesson="foxglove-admin: vite (strictPort) ignores PORT and npm swallows a bare --port; pick the dev port with "
               "npm run dev -- --port <n>.",
        warn=[same("PORT=5174 npm run dev"), reword("npm run dev --port 5175"), reword("PORT=3001 npm run dev")],
        silent=[fix("npm run dev -- --port 5175"), other("npm run build"), help_("npx vite --help")],
        variants=("diagnostic",),
    )),
    eco("cloud-cli", Incident(
        "s-rt-nimbus-impersonate-reader", RETRY, CC, "nimbus-etl",
        session=[
            U("List yesterday's raw click files in the prod bucket."),
            err("gsutil ls gs://nimbus-raw/clicks/2026-03-01/",
                "AccessDeniedException: 403 dev@nimbus.io does not have storage.objects.list access to the Google Cloud "
                "Storage bucket. Permission 'storage.objects.list' denied on resource (or it may not exist).", 1),
            err("gcloud storage ls gs://nimbus-raw/clicks/2026-03-01/ --project nimbus-prod",
                "ERROR: (gcloud.storage.ls) " + _GCS_403, 1),
            err("gcloud storage ls gs://nimbus-raw/clicks/2026-03-01/ --project nimbus-prod --billing-project nimbus-prod",
                "ERROR: (gcloud.storage.ls) " + _GCS_403, 1),
            read("docs/access.md",
                 "Prod data buckets (nimbus-raw, nimbus-curated) are readable only by " + _SA + ".\n"
                 "Humans impersonate it:\n\n    gcloud storage ls gs://nimbus-raw/... --impersonate-service-account=" + _SA + "\n"),
            ok(f"gcloud storage ls gs://nimbus-raw/clicks/2026-03-01/ --impersonate-service-account={_SA}",
               f"WARNING: This command is using service account impersonation. All API calls will be executed as [{_SA}].\n"
               "gs://nimbus-raw/clicks/2026-03-01/part-00000.json.gz\ngs://nimbus-raw/clicks/2026-03-01/part-00001.json.gz\n"
               "gs://nimbus-raw/clicks/2026-03-01/_SUCCESS"),
        ],
        mistake="gsutil ls gs://nimbus-raw/clicks/2026-03-01/",
        lesson=f"nimbus-etl: the prod buckets (nimbus-raw, nimbus-curated) are readable only through etl-reader: add "
               f"--impersonate-service-account={_SA} (gsutil and a plain gcloud storage get 403).",
        warn=[same("gsutil ls gs://nimbus-raw/clicks/2026-03-01/"),
              reword("gcloud storage cp gs://nimbus-raw/clicks/2026-03-01/part-00000.json.gz /tmp/ --project nimbus-prod"),
              reword("gsutil cat gs://nimbus-curated/sessions/2026-03-01/_SUCCESS")],
        silent=[fix(f"gcloud storage cp gs://nimbus-raw/clicks/2026-03-01/part-00000.json.gz /tmp/ --impersonate-service-account={_SA}"),
                other("gcloud auth list"), other("gcloud storage ls gs://nimbus-dev-scratch/ --project nimbus-dev")],
        variants=("intervening",),
    )),
    eco("python", Incident(
        "s-rt-larkspur-dev-settings", RETRY, CODEX, "larkspur",
        session=[
            U("Apply the new blog migration locally."),
            err("python manage.py migrate",
                _DJANGO_TB + "  File \"/home/dev/larkspur/larkspur/settings/prod.py\", line 9, in <module>\n"
                "    SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]\n                 ~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^\n"
                "  File \"<frozen os>\", line 714, in __getitem__\nKeyError: 'DJANGO_SECRET_KEY'", 1),
            err("DJANGO_SECRET_KEY=dev python manage.py migrate",
                _DJANGO_TB + "  ...\ndjango.db.utils.OperationalError: connection failed: could not translate host name "
                "\"db.larkspur.internal\" to address: Name or service not known", 1),
            err("python manage.py migrate --settings=larkspur.settings",
                _DJANGO_TB + "  ...\ndjango.core.exceptions.ImproperlyConfigured: settings.DATABASES is improperly configured. "
                "Please supply the ENGINE value. Check settings documentation for more details.", 1),
            ok("ls larkspur/settings", "__init__.py\nbase.py\ndev.py\nprod.py\ntest.py"),
            ok("python manage.py migrate --settings=larkspur.settings.dev",
               "Operations to perform:\n  Apply all migrations: admin, auth, blog, contenttypes, sessions\n"
               "Running migrations:\n  Applying blog.0014_post_reading_time... OK"),
            A("manage.py defaults to larkspur.settings.prod (secrets from the environment, the internal prod DB host); "
              "locally it needs `--settings=larkspur.settings.dev`."),
        ],
        mistake="python manage.py migrate",
        lesson="larkspur's manage.py defaults to the prod settings (env secrets, db.larkspur.internal): pass "
               "--settings=larkspur.settings.dev (or DJANGO_SETTINGS_MODULE=larkspur.settings.dev) to manage.py commands.",
        warn=[same("python manage.py migrate"), reword("DJANGO_SECRET_KEY=dev python manage.py makemigrations blog"),
              reword("python manage.py createsuperuser --noinput --username admin --email admin@example.com")],
        silent=[fix("python manage.py makemigrations blog --settings=larkspur.settings.dev"),
                fix("DJANGO_SETTINGS_MODULE=larkspur.settings.dev python manage.py createsuperuser --noinput "
                    "--username admin --email admin@example.com"),
                other("ruff check larkspur/"), other("git diff --stat blog/")],
        variants=("diagnostic",),
    )),
    eco("rust", Incident(
        "s-rt-ferrocask-cross-arm64", RETRY, CC, "ferrocask",
        session=[
            U("Build an arm64 release binary for the Graviton box."),
            err(f"cargo build --release --target {_ARM}",
                "   Compiling cfg-if v1.0.0\nerror[E0463]: can't find crate for `core`\n  |\n"
                f"  = note: the `{_ARM}` target may not be installed\n"
                f"  = help: consider downloading the target with `rustup target add {_ARM}`\n\n"
                "For more information about this error, try `rustc --explain E0463`.\n"
                "error: could not compile `cfg-if` (lib) due to 1 previous error", 101),
            err(f"rustup target add {_ARM} && cargo build --release --target {_ARM}",
                f"info: downloading component 'rust-std' for '{_ARM}'\ninfo: installing component 'rust-std' for '{_ARM}'\n"
                "   Compiling ring v0.17.8\nerror: failed to run custom build command for `ring v0.17.8`\n\n"
                "Caused by:\n  process didn't exit successfully: `/home/dev/ferrocask/target/release/build/ring-3b1d/build-script-build` "
                "(exit status: 1)\n  --- stderr\n\n  error occurred: Failed to find tool. Is `aarch64-linux-gnu-gcc` installed?", 101),
            err(f"CC=clang cargo build --release --target {_ARM}",
                "   Compiling ring v0.17.8\n   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n"
                "error: linking with `cc` failed: exit status: 1\n  |\n"
                f"  = note: /usr/bin/ld: /home/dev/ferrocask/target/{_ARM}/release/deps/ferrocask-5b1e9d0c2a7f3e88.ferrocask.2f1c-cgu.0.rcgu.o: "
                "Relocations in generic ELF (EM: 183)\n          /usr/bin/ld: error adding symbols: file in wrong format\n"
                "          collect2: error: ld returned 1 exit status\n\n"
                "error: could not compile `ferrocask` (bin \"ferrocask\") due to 1 previous error", 101),
            ok(f"cross build --release --target {_ARM}",
               f"info: downloading cross image ghcr.io/cross-rs/{_ARM}:0.2.5\n   Compiling ring v0.17.8\n"
               "   Compiling ferrocask v0.7.2 (/project)\n    Finished `release` profile [optimized] target(s) in 1m 52s"),
            A(f"This box has no aarch64 C toolchain or linker; `cross` builds in its container. The binary is "
              f"target/{_ARM}/release/ferrocask."),
        ],
        mistake=f"cargo build --release --target {_ARM}",
        lesson=f"ferrocask: this box has no aarch64 cross toolchain; build arm64 binaries with cross build --release "
               f"--target {_ARM}, not cargo build --target.",
        warn=[same(f"cargo build --release --target {_ARM}"),
              reword(f"cargo build --target={_ARM} --release -p ferrocask-cli"),
              reword(f"CC=clang cargo build --release --target {_ARM}")],
        silent=[fix(f"cross build --target={_ARM} --release -p ferrocask-cli"), other("cargo build --release"),
                other("rustup target list --installed")],
        variants=("long_output",),
    )),
    eco("java", Incident(
        "s-rt-marrowbank-boot-jar", RETRY, GEMINI, "marrowbank",
        session=[
            U("Start the ledger service from the built jar so I can try the new endpoint."),
            err(f"java -jar {_PLAIN}", f"no main manifest attribute, in {_PLAIN}", 1),
            err(f"java -cp {_PLAIN} com.marrowbank.ledger.LedgerApplication",
                "Exception in thread \"main\" java.lang.NoClassDefFoundError: org/springframework/boot/SpringApplication\n"
                "\tat com.marrowbank.ledger.LedgerApplication.main(LedgerApplication.java:12)\n"
                "Caused by: java.lang.ClassNotFoundException: org.springframework.boot.SpringApplication\n"
                "\tat java.base/jdk.internal.loader.BuiltinClassLoader.loadClass(BuiltinClassLoader.java:641)\n\t... 1 more", 1),
            err(f"java -Dloader.main=com.marrowbank.ledger.LedgerApplication -jar {_PLAIN}",
                f"no main manifest attribute, in {_PLAIN}", 1),
            ok("ls ledger/build/libs", "ledger-2.3.0-SNAPSHOT-plain.jar\nledger-2.3.0-SNAPSHOT.jar"),
            ok("java -jar ledger/build/libs/ledger-2.3.0-SNAPSHOT.jar --spring.profiles.active=local",
               "\n  .   ____          _            __ _ _\n :: Spring Boot ::                (v3.3.5)\n\n"
               "2026-03-02T09:03:12.004Z  INFO 71022 --- [ledger] [           main] c.m.ledger.LedgerApplication             : "
               "Started LedgerApplication in 4.812 seconds (process running for 5.377)"),
            A("Gradle builds two jars: the -plain.jar holds only ledger's classes; the Spring Boot jar next to it has the "
              "launcher and all dependencies."),
        ],
        mistake=f"java -jar {_PLAIN}",
        lesson="marrowbank: Gradle builds two jars; run the Spring Boot jar ledger-<version>.jar, the -plain.jar has no "
               "main manifest and no dependencies.",
        warn=[same(f"java -jar {_PLAIN}"),
              reword("java -Dspring.profiles.active=local -jar ./ledger/build/libs/ledger-2.3.1-SNAPSHOT-plain.jar"),
              reword(f"java -cp {_PLAIN} com.marrowbank.ledger.LedgerApplication")],
        silent=[fix("java -Dspring.profiles.active=local -jar ./ledger/build/libs/ledger-2.3.1-SNAPSHOT.jar"),
                other("ls ledger/build/libs"), other("./gradlew :ledger:bootJar")],
        variants=("diagnostic",),
    )),
    eco("docker", Incident(
        "s-rt-kelpfleet-ghcr-login", RETRY, CC, "kelpfleet",
        session=[
            U("The api 1.4.1 push to ghcr was denied. Log in and push it."),
            err("docker login ghcr.io -u dev", "Error: Cannot perform an interactive login from a non TTY device", 1),
            err("echo $GITHUB_TOKEN | docker login ghcr.io -u dev --password-stdin",
                "Error response from daemon: Get \"https://ghcr.io/v2/\": denied: denied", 1),
            err("docker login ghcr.io --username dev --password \"$GITHUB_TOKEN\"",
                "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n"
                "Error response from daemon: Get \"https://ghcr.io/v2/\": denied: denied", 1),
            ok("gh auth status",
               "github.com\n  ✓ Logged in to github.com account dev (keyring)\n  - Active account: true\n"
               "  - Token scopes: 'gist', 'read:org', 'repo', 'write:packages'"),
            ok("gh auth token | docker login ghcr.io -u dev --password-stdin", "Login Succeeded"),
            ok("docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/kelpfleet/api:1.4.1 --push .",
               "[+] Building 94.3s (24/24) FINISHED\n => exporting to image\n"
               " => => pushing manifest for ghcr.io/kelpfleet/api:1.4.1@sha256:7e1d40c2b9a8"),
            A("$GITHUB_TOKEN in this shell is the repo-scoped token from .envrc without write:packages; the gh CLI's "
              "token has it."),
        ],
        mistake="echo $GITHUB_TOKEN | docker login ghcr.io -u dev --password-stdin",
        lesson="kelpfleet: log in to ghcr.io with gh auth token | docker login ghcr.io -u dev --password-stdin; $GITHUB_TOKEN "
               "(from .envrc) lacks write:packages and an interactive docker login fails.",
        warn=[same("echo $GITHUB_TOKEN | docker login ghcr.io -u dev --password-stdin"),
              reword("printenv GITHUB_TOKEN | docker login ghcr.io --username=dev --password-stdin"),
              reword("docker login ghcr.io --username dev --password \"$GITHUB_TOKEN\"")],
        silent=[fix("gh auth token | docker login ghcr.io --username=dev --password-stdin"), other("gh auth status"),
                other("docker logout ghcr.io")],
        variants=("diagnostic",),
    )),
    eco("shell", Incident(
        "s-rt-kestrel-bastion-alias", RETRY, GEMINI, "kestrel-ops",
        session=[
            U("Check the disk space on the staging bastion."),
            err("ssh bastion.kestrel.internal 'df -h /'",
                "ssh: Could not resolve hostname bastion.kestrel.internal: Name or service not known", 255),
            err(f"ssh {_BASTION} 'df -h /'", f"{_BASTION}: Permission denied (publickey).", 255),
            err(f"ssh -i ~/.ssh/kestrel_ed25519 {_BASTION} 'df -h /'", f"{_BASTION}: Permission denied (publickey).", 255),
            ok("grep -A5 'Host kestrel-' ~/.ssh/config",
               "Host kestrel-bastion-staging\n  HostName bastion-staging.kestrel.io\n  User ops\n"
               "  IdentityFile ~/.ssh/kestrel_ed25519\n  CertificateFile ~/.ssh/kestrel_ed25519-cert.pub"),
            ok("ssh kestrel-bastion-staging 'df -h /'",
               "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1   30G   21G  8.6G  71% /"),
            A("71% used. The bastion only accepts the signed certificate, which the ~/.ssh/config alias adds."),
        ],
        mistake=f"ssh {_BASTION} 'df -h /'",
        lesson="kestrel-ops: reach the bastions through the ~/.ssh/config aliases (ssh kestrel-bastion-staging), which carry "
               "the signed certificate; ssh/scp to ops@bastion-*.kestrel.io directly is refused (publickey).",
        warn=[same(f"ssh {_BASTION} 'df -h /'"), reword(f"scp deploy/env.staging {_BASTION}:/tmp/"),
              reword(f"ssh -i ~/.ssh/kestrel_ed25519 {_BASTION} uptime")],
        silent=[fix("scp deploy/env.staging kestrel-bastion-staging:/tmp/"), other("ssh-add -l"),
                other("ssh -G kestrel-bastion-staging")],
        variants=("diagnostic",),
    )),
]
