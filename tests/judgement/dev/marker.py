"""Dev split, shape 3: the assistant writes a ``GOTCHA:`` / ``LEARNING:`` line
naming a call and its fix — after the mistake ran in the session, or (from a
runbook, a config comment, a Makefile) without it ever running."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, MARKER, A, Incident, U, err, fix, help_, ok, other, read, reword, same

_SUREFIRE_NO_TESTS = (
    "[INFO] Reactor Build Order:\n[INFO] \n[INFO] kestrel-parent                                                     [pom]\n"
    "[INFO] kestrel-core                                                       [jar]\n"
    "[INFO] kestrel-api                                                        [jar]\n[INFO] \n"
    "[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n"
    "[INFO] -------------------------------------------------------\n[INFO] Running dev.kestrel.core.retry.RetryPolicyTest\n"
    "[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.212 s -- in dev.kestrel.core.retry.RetryPolicyTest\n"
    "[INFO] ------------------------------------------------------------------------\n[INFO] Reactor Summary for kestrel-parent 3.2.0-SNAPSHOT:\n"
    "[INFO] \n[INFO] kestrel-parent ..................................... SUCCESS [  0.211 s]\n"
    "[INFO] kestrel-core ....................................... SUCCESS [  4.102 s]\n"
    "[INFO] kestrel-api ........................................ FAILURE [  1.337 s]\n"
    "[INFO] ------------------------------------------------------------------------\n[INFO] BUILD FAILURE\n"
    "[INFO] ------------------------------------------------------------------------\n"
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project "
    "kestrel-api: No tests matching pattern \"RetryPolicyTest\" were executed! (Set -Dsurefire.failIfNoSpecifiedTests=false "
    "to ignore this error.) -> [Help 1]"
)

_RUSTFMT_NIGHTLY = "\n".join(
    ["Warning: can't set `imports_granularity = Crate`, unstable features are only available in nightly channel.",
     "Warning: can't set `group_imports = StdExternalCrate`, unstable features are only available in nightly channel."] * 3
)

_MAKEFILE_LANTERN = (
    "GO ?= go\n\n.PHONY: generate test test-race lint\n\n"
    "# Don't run `go generate ./...` directly: the //go:generate lines call whatever\n"
    "# mockgen is on PATH (an old github.com/golang/mock here), which writes mocks\n"
    "# that don't compile against go.uber.org/mock. This target pins the generator.\n"
    "generate:\n"
    "\t$(GO) run go.uber.org/mock/mockgen@v0.4.0 -source=internal/store/store.go -destination=internal/store/mock_store.go -package=store\n"
    "\t$(GO) run go.uber.org/mock/mockgen@v0.4.0 -source=internal/tiles/fetcher.go -destination=internal/tiles/mock_fetcher.go -package=tiles\n\n"
    "test:\n\t$(GO) test ./...\n\n"
    "# No C toolchain on dev machines: the race detector runs in the golang image.\n"
    "test-race:\n\tdocker run --rm -v $(PWD):/src -v $(HOME)/go/pkg/mod:/go/pkg/mod -w /src golang:1.22 go test -race ./...\n\n"
    "lint:\n\tgolangci-lint run ./...\n"
)

_HARBOR_APP_YML = (
    "spring:\n  application:\n    name: harbor-api\n"
    "  # No profile = the SHARED STAGING database (read/write!). Local runs must use\n"
    "  # --spring.profiles.active=local, which points at compose's postgres on 5433.\n"
    "  datasource:\n    url: jdbc:postgresql://staging-db.harbor.internal:5432/harbor\n"
    "    username: ${DB_USER}\n    password: ${DB_PASSWORD}\n---\n"
    "spring:\n  config:\n    activate:\n      on-profile: local\n"
    "  datasource:\n    url: jdbc:postgresql://localhost:5433/harbor\n    username: harbor\n    password: harbor\n"
)

INCIDENTS = [
    Incident(
        "mk-kestrel-surefire-dtest", MARKER, CC, "kestrel",
        session=[
            U("Run RetryPolicyTest, I changed the backoff cap."),
            err("mvn test -Dtest=RetryPolicyTest", _SUREFIRE_NO_TESTS),
            ok("mvn -pl kestrel-core test -Dtest=RetryPolicyTest",
               "[INFO] Running dev.kestrel.core.retry.RetryPolicyTest\n"
               "[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.208 s -- in dev.kestrel.core.retry.RetryPolicyTest\n"
               "[INFO] \n[INFO] Results:\n[INFO] \n[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n"
               "[INFO] BUILD SUCCESS"),
            A("RetryPolicyTest passes (9 tests).\n\n"
              "GOTCHA: in kestrel, `mvn test -Dtest=X` from the root fails in every module that has no matching test "
              "(surefire's failIfNoSpecifiedTests); scope it to the module: `mvn -pl kestrel-core test -Dtest=X`."),
        ],
        mistake="mvn test -Dtest=RetryPolicyTest",
        lesson="kestrel: mvn test -Dtest=X from the root fails in modules without that test; scope it to the module: mvn -pl <module> test -Dtest=X.",
        warn=[same("mvn test -Dtest=RetryPolicyTest"), reword("mvn -q test -Dtest='MoneyTest#rounds*'"),
              reword("mvn verify -Dtest=HttpTransportTest")],
        silent=[fix("mvn -pl kestrel-api test -Dtest=HttpTransportTest"), other("mvn -B -pl kestrel-core dependency:tree"),
                other("mvn -B test")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-beacon-dotnet-ef-projects", MARKER, CODEX, "beacon",
        session=[
            U("Add an InvoiceNumber column to invoices and create the EF migration."),
            read("src/Beacon.Data/BeaconDbContext.cs",
                 "using Beacon.Data.Entities;\nusing Microsoft.EntityFrameworkCore;\n\nnamespace Beacon.Data;\n\n"
                 "public class BeaconDbContext(DbContextOptions<BeaconDbContext> options) : DbContext(options)\n{\n"
                 "    public DbSet<Invoice> Invoices => Set<Invoice>();\n    public DbSet<Customer> Customers => Set<Customer>();\n}\n"),
            err("dotnet ef migrations add AddInvoiceNumber",
                "No project was found. Change the current working directory or use the --project option."),
            ok("ls src", "Beacon.Api\nBeacon.Data\nBeacon.Domain\nBeacon.Worker"),
            ok("dotnet ef migrations add AddInvoiceNumber --project src/Beacon.Data --startup-project src/Beacon.Api",
               "Build started...\nBuild succeeded.\nDone. To undo this action, use 'ef migrations remove'"),
            A("Migration AddInvoiceNumber is in src/Beacon.Data/Migrations.\n\n"
              "LEARNING: beacon's DbContext lives in src/Beacon.Data and its configuration in src/Beacon.Api, so every "
              "`dotnet ef` command needs `--project src/Beacon.Data --startup-project src/Beacon.Api`."),
        ],
        mistake="dotnet ef migrations add AddInvoiceNumber",
        lesson="beacon: every dotnet ef command needs --project src/Beacon.Data --startup-project src/Beacon.Api.",
        warn=[same("dotnet ef migrations add AddInvoiceNumber"), reword("dotnet ef database update"),
              reword("cd src/Beacon.Data && dotnet ef migrations add AddDueDate")],
        silent=[fix("dotnet ef database update --project src/Beacon.Data --startup-project src/Beacon.Api"),
                other("dotnet tool list"), help_("dotnet ef migrations add --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-harbor-port-forward-5432", MARKER, CC, "harbor-api",
        session=[
            U("How many orders are in PENDING_PAYMENT on the staging database?"),
            err("kubectl port-forward svc/postgres 5432:5432 -n harbor",
                "Unable to listen on port 5432: Listeners failed to create with the following errors: [unable to create "
                "listener: Error listen tcp4 127.0.0.1:5432: bind: address already in use unable to create listener: "
                "Error listen tcp6 [::1]:5432: bind: address already in use]\n"
                "error: unable to listen on any of the requested ports: [{5432 5432}]"),
            ok("ss -ltnp | grep ':5432 '",
               'LISTEN 0      244        127.0.0.1:5432       0.0.0.0:*    users:(("postgres",pid=1187,fd=6))'),
            ok("(kubectl port-forward svc/postgres 15432:5432 -n harbor > /tmp/pf.log 2>&1 &) && sleep 2 && "
               "psql -h localhost -p 15432 -U harbor_ro harbor -c \"select count(*) from orders where status = 'PENDING_PAYMENT'\"",
               " count \n-------\n   212\n(1 row)"),
            A("212 orders are in PENDING_PAYMENT on staging.\n\n"
              "GOTCHA: the local Postgres on this machine holds port 5432; port-forward the cluster database to 15432 "
              "(`kubectl port-forward svc/postgres 15432:5432 -n harbor`)."),
        ],
        mistake="kubectl port-forward svc/postgres 5432:5432 -n harbor",
        lesson="harbor-api: local Postgres already holds port 5432; port-forward the cluster DB to 15432: kubectl port-forward svc/postgres 15432:5432 -n harbor.",
        warn=[same("kubectl port-forward svc/postgres 5432:5432 -n harbor"), reword("kubectl -n harbor port-forward pod/postgres-0 5432"),
              reword("kubectl port-forward -n harbor service/postgres 5432:5432 --address 127.0.0.1")],
        silent=[fix("kubectl -n harbor port-forward pod/postgres-0 15432:5432"),
                other("kubectl port-forward svc/harbor-api 8080:80 -n harbor"), help_("kubectl port-forward --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-lantern-helm-reuse-values", MARKER, CC, "lantern",
        session=[
            U("Upgrade lantern to 1.9.0 on prod."),
            err("helm upgrade lantern charts/lantern -n lantern --reuse-values --set image.tag=1.9.0",
                "Error: UPGRADE FAILED: template: lantern/templates/servicemonitor.yaml:1:14: executing "
                "\"lantern/templates/servicemonitor.yaml\" at <.Values.metrics.serviceMonitor.enabled>: nil pointer "
                "evaluating interface {}.enabled"),
            ok("git log --oneline -1 -- charts/lantern/values.yaml", "b71c0e2 chart: add metrics.serviceMonitor (default off)"),
            ok("helm upgrade lantern charts/lantern -n lantern -f charts/lantern/values-prod.yaml --set image.tag=1.9.0 --wait",
               "Release \"lantern\" has been upgraded. Happy Helming!\nNAME: lantern\nLAST DEPLOYED: Mon Mar  2 10:12:31 2026\n"
               "NAMESPACE: lantern\nSTATUS: deployed\nREVISION: 44\nTEST SUITE: None"),
            A("lantern 1.9.0 is deployed (revision 44).\n\n"
              "GOTCHA: `helm upgrade --reuse-values` on lantern keeps the previous release's values and ignores new chart "
              "defaults, so templates using new keys (metrics.serviceMonitor) hit nil pointers; upgrade with "
              "`-f charts/lantern/values-prod.yaml` instead."),
        ],
        mistake="helm upgrade lantern charts/lantern -n lantern --reuse-values --set image.tag=1.9.0",
        lesson="lantern: don't helm upgrade with --reuse-values (it drops new chart defaults → nil pointer errors); pass the env values file: -f charts/lantern/values-prod.yaml.",
        warn=[same("helm upgrade lantern charts/lantern -n lantern --reuse-values --set image.tag=1.9.0"),
              reword("helm upgrade --install lantern ./charts/lantern --namespace lantern --set image.tag=1.9.1 --reuse-values"),
              reword("helm upgrade lantern charts/lantern -n lantern --reuse-values --set replicaCount=4")],
        silent=[fix("helm upgrade lantern charts/lantern -n lantern -f charts/lantern/values-prod.yaml --set image.tag=1.9.1"),
                other("helm get values lantern -n lantern"), help_("helm upgrade --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-platform-terraform-workspace", MARKER, GEMINI, "platform-ops",
        session=[
            U("Show me what the Cloud SQL tier change would do in prod."),
            ok("terraform plan -var-file=envs/prod.tfvars",
               "Terraform will perform the following actions:\n\n"
               "  # google_sql_database_instance.main will be created\n  + resource \"google_sql_database_instance\" \"main\" {\n"
               "      + name = \"platform-prod\"\n      + region = \"europe-west4\"\n    }\n\n"
               "  # module.gke.google_container_cluster.main must be replaced\n"
               "-/+ resource \"google_container_cluster\" \"main\" {\n      ~ name = \"dev-gke\" -> \"prod-gke\" # forces replacement\n    }\n\n"
               "Plan: 14 to add, 0 to change, 9 to destroy."),
            ok("terraform workspace show", "dev"),
            A("That plan compared the prod variables with the dev workspace's state — it would recreate everything. "
              "Switching to the prod workspace."),
            ok("terraform workspace select prod && terraform plan -var-file=envs/prod.tfvars",
               "google_sql_database_instance.main: Refreshing state... [id=platform-prod]\n\n"
               "Terraform will perform the following actions:\n\n"
               "  # google_sql_database_instance.main will be updated in-place\n"
               "  ~ resource \"google_sql_database_instance\" \"main\" {\n        name = \"platform-prod\"\n"
               "      ~ settings {\n          ~ tier = \"db-custom-4-16384\" -> \"db-custom-8-32768\"\n        }\n    }\n\n"
               "Plan: 0 to add, 1 to change, 0 to destroy."),
            A("In prod it's a single in-place update of the Cloud SQL tier (db-custom-4-16384 → db-custom-8-32768).\n\n"
              "LEARNING: platform-ops keeps one Terraform workspace per environment; always put "
              "`terraform workspace select <env> &&` in front of plan/apply, or the env's tfvars get compared with "
              "another environment's state."),
        ],
        mistake="terraform plan -var-file=envs/prod.tfvars",
        lesson="platform-ops: one Terraform workspace per env; always terraform workspace select <env> && terraform plan/apply -var-file=envs/<env>.tfvars.",
        warn=[same("terraform plan -var-file=envs/prod.tfvars"), reword("terraform apply -var-file=envs/staging.tfvars"),
              reword("terraform plan -out=prod.tfplan -var-file=envs/prod.tfvars -target=google_sql_database_instance.main")],
        silent=[fix("terraform workspace select staging && terraform apply -var-file=envs/staging.tfvars"),
                other("terraform workspace list"), help_("terraform workspace select -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-fjord-settings-module", MARKER, CC, "fjord",
        session=[
            U("Apply the new catalog migration locally."),
            err(".venv/bin/python manage.py migrate catalog",
                'Traceback (most recent call last):\n  File "/home/dev/fjord/manage.py", line 22, in <module>\n    main()\n'
                '  File "/home/dev/fjord/manage.py", line 18, in main\n    execute_from_command_line(sys.argv)\n'
                "  ...\n"
                '  File "/home/dev/fjord/fjord/settings/prod.py", line 9, in <module>\n'
                '    SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]\n                 ~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^\n'
                '  File "<frozen os>", line 714, in __getitem__\nKeyError: \'DJANGO_SECRET_KEY\''),
            ok("grep -n DJANGO_SETTINGS_MODULE manage.py pytest.ini",
               'manage.py:9:    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "fjord.settings.prod")\n'
               "pytest.ini:2:DJANGO_SETTINGS_MODULE = fjord.settings.test"),
            ok("DJANGO_SETTINGS_MODULE=fjord.settings.local .venv/bin/python manage.py migrate catalog",
               "Operations to perform:\n  Apply all migrations: catalog\nRunning migrations:\n"
               "  Applying catalog.0014_product_weight_grams... OK"),
            A("Applied catalog.0014.\n\n"
              "LEARNING: fjord's manage.py defaults to fjord.settings.prod; every local manage.py command needs "
              "`DJANGO_SETTINGS_MODULE=fjord.settings.local` in front of it."),
        ],
        mistake=".venv/bin/python manage.py migrate catalog",
        lesson="fjord: manage.py defaults to fjord.settings.prod; run local manage.py commands as DJANGO_SETTINGS_MODULE=fjord.settings.local .venv/bin/python manage.py ….",
        warn=[same(".venv/bin/python manage.py migrate catalog"),
              reword(".venv/bin/python manage.py makemigrations catalog --name product_weight"),
              reword('.venv/bin/python manage.py shell -c "from catalog.models import Product; print(Product.objects.count())"')],
        silent=[fix("DJANGO_SETTINGS_MODULE=fjord.settings.local .venv/bin/python manage.py makemigrations catalog --name product_weight"),
                other(".venv/bin/pytest catalog/tests -q"), other(".venv/bin/python -m pip list --outdated")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-mosaic-npm-publish-access", MARKER, GEMINI, "mosaic",
        session=[
            U("Publish the new @mosaic-kit/ui 0.7.0 to npm."),
            ok("npm whoami", "mosaic-bot"),
            err("npm publish -w packages/ui",
                "npm notice\nnpm notice 📦  @mosaic-kit/ui@0.7.0\nnpm notice Tarball Contents\nnpm notice 1.2kB README.md\n"
                "npm notice 48.3kB dist/index.js\nnpm notice 9.1kB dist/index.d.ts\nnpm notice 1.1kB package.json\n"
                "npm notice Tarball Details\nnpm notice name: @mosaic-kit/ui\nnpm notice version: 0.7.0\nnpm notice total files: 42\n"
                "npm notice Publishing to https://registry.npmjs.org/ with tag latest and default access\n"
                "npm error code E402\nnpm error 402 Payment Required - PUT https://registry.npmjs.org/@mosaic-kit%2fui - "
                "You must sign up for private packages\n"
                "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-02T10_22_41_871Z-debug-0.log"),
            ok("npm publish --access public -w packages/ui",
               "npm notice 📦  @mosaic-kit/ui@0.7.0\nnpm notice total files: 42\n"
               "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access\n+ @mosaic-kit/ui@0.7.0"),
            A("Published @mosaic-kit/ui@0.7.0.\n\n"
              "GOTCHA: our packages are scoped (@mosaic-kit/*) and npm publishes scoped packages as private by default; "
              "always `npm publish --access public`."),
        ],
        mistake="npm publish -w packages/ui",
        lesson="mosaic: @mosaic-kit/* packages are scoped, npm publish defaults to private (402 Payment Required); always npm publish --access public.",
        warn=[same("npm publish -w packages/ui"), reword("cd packages/icons && npm publish"),
              reword("npm publish --workspace packages/ui --tag next")],
        silent=[fix("npm publish --access public -w packages/icons"), other("npm pack -w packages/ui --dry-run"),
                other("npm view @mosaic-kit/ui versions --json")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-pipeline-mysqldump-replica", MARKER, CC, "pipeline",
        session=[
            U("Take a dump of the legacy_shop database from the replica so we can load it into the warehouse."),
            read("docs/runbooks/legacy-db.md",
                 "# legacy-db\n\nlegacy-db-replica is the MySQL 8.0 read replica of the old shop.\n\n## Dumps\n\n"
                 "All tables are InnoDB. A plain `mysqldump` takes LOCK TABLES on every table and stalls replication for\n"
                 "the length of the dump (hours). Always dump with `--single-transaction --skip-lock-tables --quick`.\n"),
            ok("mysqldump --single-transaction --skip-lock-tables --quick -h legacy-db-replica -u reporting legacy_shop | gzip > /tmp/legacy_shop.sql.gz", ""),
            ok("ls -lh /tmp/legacy_shop.sql.gz", "-rw-r--r-- 1 dev dev 2.3G Mar  2 11:48 /tmp/legacy_shop.sql.gz"),
            A("Dumped legacy_shop to /tmp/legacy_shop.sql.gz (2.3 GB).\n\n"
              "GOTCHA: never run a plain `mysqldump` against legacy-db-replica — it locks every table and stalls "
              "replication; always use `--single-transaction --skip-lock-tables --quick`."),
        ],
        mistake="mysqldump -h legacy-db-replica -u reporting legacy_shop > /tmp/legacy_shop.sql",
        lesson="pipeline: a plain mysqldump of legacy-db-replica locks every table and stalls replication; always mysqldump --single-transaction --skip-lock-tables --quick.",
        warn=[same("mysqldump -h legacy-db-replica -u reporting legacy_shop > /tmp/legacy_shop.sql"),
              reword("mysqldump -u reporting -h legacy-db-replica legacy_shop orders order_items | gzip > /tmp/orders.sql.gz"),
              reword("mysqldump --lock-all-tables -h legacy-db-replica -u reporting --all-databases > /tmp/all.sql")],
        silent=[fix("mysqldump --single-transaction --skip-lock-tables --quick -h legacy-db-replica -u reporting legacy_shop orders order_items | gzip > /tmp/orders.sql.gz"),
                other("mysql -h legacy-db-replica -u reporting -e 'SHOW REPLICA STATUS\\G'"), help_("mysqldump --help")],
        variants=(),
    ),
    Incident(
        "mk-lantern-go-generate", MARKER, CODEX, "lantern",
        session=[
            U("I changed the Store interface; regenerate the mocks."),
            read("Makefile", _MAKEFILE_LANTERN),
            ok("make generate",
               "go run go.uber.org/mock/mockgen@v0.4.0 -source=internal/store/store.go -destination=internal/store/mock_store.go -package=store\n"
               "go run go.uber.org/mock/mockgen@v0.4.0 -source=internal/tiles/fetcher.go -destination=internal/tiles/mock_fetcher.go -package=tiles"),
            ok("go build ./... && go test ./internal/store/...", "ok  \tgithub.com/acme/lantern/internal/store\t0.041s"),
            A("Mocks regenerated; the store tests pass.\n\n"
              "GOTCHA: in lantern never run `go generate ./...` — it uses the old mockgen on PATH; regenerate mocks with "
              "`make generate`, which pins go.uber.org/mock v0.4.0."),
        ],
        mistake="go generate ./...",
        lesson="lantern: don't go generate ./... (the //go:generate lines use the old mockgen on PATH); regenerate mocks with make generate.",
        warn=[same("go generate ./..."), reword("go generate ./internal/store/..."), reword("cd internal/tiles && go generate")],
        silent=[fix("make generate"), other("go vet ./..."), help_("go help generate")],
        variants=(),
    ),
    Incident(
        "mk-orchard-bin-dev", MARKER, CC, "orchard",
        session=[
            U("Start the app so I can click through the new checkout page."),
            ok("bin/rails server -d -p 3000",
               "=> Booting Puma\n=> Rails 7.1.3 application starting in development \n"
               "=> Run `bin/rails server --help` for more startup options"),
            err("curl -sf -o /dev/null localhost:3000/checkout", "", 22),
            ok("tail -n 4 log/development.log",
               "Completed 500 Internal Server Error in 41ms (ActiveRecord: 2.1ms | Allocations: 11820)\n\n"
               "ActionView::Template::Error (The asset \"tailwind.css\" is not present in the asset pipeline.\n):\n"
               "    9:     <%= stylesheet_link_tag \"tailwind\", \"data-turbo-track\": \"reload\" %>"),
            ok("cat Procfile.dev", "web: bin/rails server -p 3000\ncss: bin/rails tailwindcss:watch"),
            ok("kill $(cat tmp/pids/server.pid) && (bin/dev > log/dev.log 2>&1 &) && sleep 6 && "
               "curl -s -o /dev/null -w '%{http_code}\\n' localhost:3000/checkout", "200"),
            A("The app runs on http://localhost:3000 and /checkout renders.\n\n"
              "LEARNING: orchard has to be started with `bin/dev` (foreman + Procfile.dev, which builds Tailwind); "
              "`bin/rails server` on its own serves pages without tailwind.css and they 500."),
        ],
        mistake="bin/rails server -d -p 3000",
        lesson="orchard: start the app with bin/dev (Procfile.dev builds tailwind.css); bin/rails server alone 500s with 'tailwind.css is not present in the asset pipeline'.",
        warn=[same("bin/rails server -d -p 3000"), reword("bundle exec rails s -b 0.0.0.0 -p 3001"), reword("bin/rails server")],
        silent=[fix("bin/dev"), other("bin/rails routes -g checkout"), other("bin/rails tailwindcss:build")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-harbor-bootrun-profile", MARKER, CODEX, "harbor-api",
        session=[
            U("Run harbor-api locally so I can try the new /orders/export endpoint."),
            read("app/src/main/resources/application.yml", _HARBOR_APP_YML),
            ok("docker compose up -d postgres", "[+] Running 1/1\n ✔ Container harbor-api-postgres-1  Started"),
            ok("(./gradlew bootRun --args='--spring.profiles.active=local' > /tmp/bootrun.log 2>&1 &) && sleep 25 && "
               "curl -s localhost:8080/actuator/health", '{"status":"UP"}'),
            A("harbor-api is running on http://localhost:8080 against the local database.\n\n"
              "GOTCHA: a plain `./gradlew bootRun` in harbor-api uses the default profile, which points at the shared "
              "staging database; always run `./gradlew bootRun --args='--spring.profiles.active=local'`."),
        ],
        mistake="./gradlew bootRun",
        lesson="harbor-api: without a profile the app talks to the shared staging DB; run locally with ./gradlew bootRun --args='--spring.profiles.active=local'.",
        warn=[same("./gradlew bootRun"), reword("./gradlew :app:bootRun --args='--server.port=8081'"),
              reword("java -jar app/build/libs/harbor-api-2.4.1.jar")],
        silent=[fix("./gradlew :app:bootRun --args='--spring.profiles.active=local --server.port=8081'"),
                other("./gradlew :app:test"), other("./gradlew :app:bootJar")],
        variants=(),
    ),
    Incident(
        "mk-quarry-nightly-rustfmt", MARKER, CC, "quarry",
        session=[
            U("Format the code before I commit."),
            ok("cargo fmt", _RUSTFMT_NIGHTLY),
            ok("git diff --stat",
               " src/lint/rules.rs | 18 ++++++++++--------\n src/main.rs       | 12 +++++++-----\n"
               " src/parser/mod.rs | 22 +++++++++++-----------\n src/report.rs     |  6 +++---\n"
               " 4 files changed, 31 insertions(+), 27 deletions(-)"),
            A("Stable rustfmt ignored the repo's unstable options and regrouped imports in files you didn't touch. "
              "Formatting again with nightly, which applies rustfmt.toml as intended."),
            ok("cargo +nightly fmt --all", ""),
            ok("git diff --stat", " src/report.rs | 6 +++---\n 1 file changed, 3 insertions(+), 3 deletions(-)"),
            A("Formatted; only your change in src/report.rs is left in the diff.\n\n"
              "GOTCHA: quarry's rustfmt.toml uses nightly-only options (imports_granularity, group_imports); stable "
              "`cargo fmt` ignores them and rewrites imports everywhere — always `cargo +nightly fmt`."),
        ],
        mistake="cargo fmt",
        lesson="quarry: rustfmt.toml uses nightly-only options; stable cargo fmt rewrites imports wrongly — always cargo +nightly fmt.",
        warn=[same("cargo fmt"), reword("cargo fmt --all -- --check"), reword("rustfmt src/lint/rules.rs")],
        silent=[fix("cargo +nightly fmt --all -- --check"), other("cargo clippy --all-targets -- -D warnings"),
                other("rustup toolchain list")],
        variants=(),
    ),
]
