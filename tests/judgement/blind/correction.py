"""User correction: the agent does something (it works, or the user rejects it
with a typed reason) and the user says in their own words what to do instead."""

from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    CORRECTION,
    GEMINI,
    A,
    E,
    Incident,
    U,
    W,
    code,
    edit,
    fix,
    help_,
    ok,
    other,
    read,
    reject,
    reject_edit,
    reword,
    same,
)

PNPM_ADD_ZOD = """\
Progress: resolved 1184, reused 1102, downloaded 1, added 1, done

dependencies:
+ zod 3.23.8

Done in 3.2s
"""

COMPOSE_DOWN = """\
 Container harbor-api-1  Stopping
 Container harbor-web-1  Stopping
 Container harbor-web-1  Stopped
 Container harbor-web-1  Removing
 Container harbor-api-1  Stopped
 Container harbor-api-1  Removing
 Container harbor-db-1  Stopping
 Container harbor-db-1  Stopped
 Network harbor_default  Removing
 Network harbor_default  Removed
"""

COMPOSE_UP = """\
 Network harbor_default  Creating
 Network harbor_default  Created
 Container harbor-db-1  Started
 Container harbor-redis-1  Started
 Container harbor-db-1  Healthy
 Container harbor-api-1  Started
 Container harbor-web-1  Started
"""

HELM_UPGRADED = """\
Release "checkout" has been upgraded. Happy Helming!
NAME: checkout
LAST DEPLOYED: Mon Mar  2 09:21:37 2026
NAMESPACE: shop
STATUS: deployed
REVISION: %d
TEST SUITE: None
"""

LEDGER_MIGRATION = """\
class AddStatusToInvoices < ActiveRecord::Migration[7.2]
  def change
    add_column :invoices, :status, :string, null: false, default: "draft"
    add_index :invoices, :status
  end
end
"""

UPLOAD_RS_OLD = """\
        let key = object_key(&self.prefix, &path);
"""

UPLOAD_RS_BAD = """\
        let key = object_key(&self.prefix, &path);
        let body = fs::read(&path).unwrap();
        let digest = sha256_hex(&body);
"""

UPLOAD_RS_GOOD = """\
        let key = object_key(&self.prefix, &path);
        let body = fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let digest = sha256_hex(&body);
"""

INVOICE_CS_OLD = """\
        var invoice = new Invoice(customer.Id, lines);
"""

INVOICE_CS_BAD = """\
        var issuedAt = DateTime.Now;
        var invoice = new Invoice(customer.Id, lines) { IssuedAt = issuedAt, DueAt = issuedAt.AddDays(customer.PaymentTermsDays) };
"""

INVOICE_CS_GOOD = """\
        var issuedAt = _clock.GetUtcNow();
        var invoice = new Invoice(customer.Id, lines) { IssuedAt = issuedAt, DueAt = issuedAt.AddDays(customer.PaymentTermsDays) };
"""

PIP_HTTPX = """\
Collecting httpx
  Downloading httpx-0.27.2-py3-none-any.whl.metadata (7.1 kB)
Collecting anyio (from httpx)
  Downloading anyio-4.6.2.post1-py3-none-any.whl.metadata (4.7 kB)
Collecting httpcore==1.* (from httpx)
  Downloading httpcore-1.0.7-py3-none-any.whl.metadata (21 kB)
Installing collected packages: sniffio, h11, anyio, httpcore, httpx
Successfully installed anyio-4.6.2.post1 h11-0.14.0 httpcore-1.0.7 httpx-0.27.2 sniffio-1.3.1
"""

UV_ADD_HTTPX = """\
Resolved 41 packages in 388ms
Prepared 4 packages in 96ms
Installed 4 packages in 12ms
 + anyio==4.6.2.post1
 + httpcore==1.0.7
 + httpx==0.27.2
 + sniffio==1.3.1
"""

INCIDENTS = [
    Incident(
        id="uc-harbor-npm-in-pnpm-workspace",
        shape=CORRECTION,
        agent=CC,
        project="harbor-monorepo",
        session=[
            U("add zod to the api package, we'll validate the booking payloads with it"),
            reject(
                "npm install zod",
                "no npm in this repo, it's a pnpm workspace and npm would write a package-lock.json. "
                "use pnpm add zod --filter @harbor/api",
            ),
            ok("pnpm add zod --filter @harbor/api", PNPM_ADD_ZOD),
            A("Added zod 3.23.8 to @harbor/api with pnpm."),
        ],
        mistake="npm install zod",
        lesson="harbor is a pnpm workspace: never npm install, use pnpm add <pkg> --filter <package>",
        warn=[
            same("npm install zod"),
            reword("npm i zod"),
            reword("npm install --save-dev msw"),
        ],
        silent=[
            fix("pnpm add zod --filter @harbor/api"),
            fix("pnpm add -D msw --filter @harbor/web"),
            other("npm view zod version"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-harbor-compose-down-volumes",
        shape=CORRECTION,
        agent=GEMINI,
        project="harbor-monorepo",
        session=[
            U("the api container is in a weird state, can you reset the stack"),
            reject(
                "docker compose down -v",
                "not -v!! that deletes the postgres volume with all my local bookings. "
                "just docker compose down and then docker compose up -d",
            ),
            ok("docker compose down", COMPOSE_DOWN),
            ok("docker compose up -d", COMPOSE_UP),
            A("Stack restarted without touching the volumes; api is up again."),
        ],
        mistake="docker compose down -v",
        lesson="don't pass -v/--volumes to docker compose down here, it wipes the postgres data; plain docker compose down, then up -d",
        warn=[
            same("docker compose down -v"),
            reword("docker compose down --volumes --remove-orphans"),
        ],
        silent=[
            fix("docker compose down"),
            fix("docker compose down --remove-orphans"),
            other("docker compose up -d --build api"),
            other("docker compose logs --tail=100 api"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-orbit-kubectl-explicit-context",
        shape=CORRECTION,
        agent=GEMINI,
        project="orbit-infra",
        session=[
            U("restart the checkout deployment on staging, it's still on the old config map"),
            ok("kubectl rollout restart deployment/checkout -n shop", "deployment.apps/checkout restarted\n"),
            U(
                "wait, which cluster did that hit? my current context is prod-eu. for anything that changes a cluster "
                "in this repo pass --context staging-eu explicitly, never rely on the current context"
            ),
            ok("kubectl config current-context", "prod-eu\n"),
            ok(
                "kubectl --context staging-eu rollout restart deployment/checkout -n shop",
                "deployment.apps/checkout restarted\n",
            ),
            A(
                "You're right — the first restart went to prod-eu (a rolling restart, so no downtime). "
                "Staging is restarted now, with the context passed explicitly."
            ),
        ],
        mistake="kubectl rollout restart deployment/checkout -n shop",
        lesson="never rely on the current kube context here: pass --context staging-eu to kubectl commands that change the cluster",
        warn=[
            same("kubectl rollout restart deployment/checkout -n shop"),
            reword("kubectl -n shop rollout restart deploy/cart"),
        ],
        silent=[
            fix("kubectl --context staging-eu rollout restart deployment/checkout -n shop"),
            fix("kubectl rollout restart deploy/cart -n shop --context=staging-eu"),
            other("kubectl config get-contexts"),
            other("kubectl --context staging-eu get pods -n shop"),
        ],
    ),
    Incident(
        id="uc-orbit-helm-values-file",
        shape=CORRECTION,
        agent=CODEX,
        project="orbit-infra",
        session=[
            U("ship checkout chart 2.4.0 to staging"),
            ok("helm upgrade checkout charts/checkout -n shop --kube-context staging-eu", HELM_UPGRADED % 14),
            U(
                "the ingress is gone and it's down to one replica — you deployed the chart defaults. "
                "the staging values file has to be passed every time: -f charts/checkout/values-staging.yaml. redo it"
            ),
            ok(
                "helm upgrade checkout charts/checkout -n shop --kube-context staging-eu -f charts/checkout/values-staging.yaml",
                HELM_UPGRADED % 15,
            ),
            ok(
                "kubectl --context staging-eu get deploy,ingress -n shop -l app.kubernetes.io/instance=checkout",
                "NAME                       READY   UP-TO-DATE   AVAILABLE   AGE\ndeployment.apps/checkout   3/3     3            3           212d\n\n"
                "NAME                                 CLASS   HOSTS                         ADDRESS        PORTS     AGE\n"
                "ingress.networking.k8s.io/checkout   nginx   checkout.staging.orbit.dev   10.40.12.7     80, 443   3s\n",
            ),
            A("Redeployed with values-staging.yaml: 3/3 replicas and the ingress is back."),
        ],
        mistake="helm upgrade checkout charts/checkout -n shop --kube-context staging-eu",
        lesson="helm upgrade without the env values file deploys chart defaults; always add -f charts/<chart>/values-staging.yaml",
        warn=[
            same("helm upgrade checkout charts/checkout -n shop --kube-context staging-eu"),
            reword("helm upgrade cart charts/cart --namespace shop --kube-context=staging-eu"),
        ],
        silent=[
            fix(
                "helm upgrade checkout charts/checkout -n shop --kube-context staging-eu -f charts/checkout/values-staging.yaml"
            ),
            fix(
                "helm upgrade --install cart charts/cart -n shop --kube-context staging-eu --values charts/cart/values-staging.yaml"
            ),
            other("helm list -n shop --kube-context staging-eu"),
            other("helm history checkout -n shop --kube-context staging-eu"),
        ],
    ),
    Incident(
        id="uc-ledgerline-edit-applied-migration",
        shape=CORRECTION,
        agent=CODEX,
        project="ledgerline",
        session=[
            U("invoices need a due_on date column"),
            read("db/migrate/20240611093012_add_status_to_invoices.rb", LEDGER_MIGRATION),
            reject_edit(
                "db/migrate/20240611093012_add_status_to_invoices.rb",
                '    add_column :invoices, :status, :string, null: false, default: "draft"\n',
                '    add_column :invoices, :status, :string, null: false, default: "draft"\n'
                "    add_column :invoices, :due_on, :date\n",
                "don't edit migrations that already ran, production ran that one last june. "
                "make a new migration with bin/rails g migration",
            ),
            ok(
                "bin/rails generate migration AddDueOnToInvoices due_on:date",
                "      invoke  active_record\n      create    db/migrate/20260302090412_add_due_on_to_invoices.rb\n",
            ),
            ok(
                "bin/rails db:migrate",
                "== 20260302090412 AddDueOnToInvoices: migrating ===============================\n"
                "-- add_column(:invoices, :due_on, :date)\n   -> 0.0031s\n"
                "== 20260302090412 AddDueOnToInvoices: migrated (0.0032s) ======================\n",
            ),
            A("Added the column in a new migration, 20260302090412_add_due_on_to_invoices.rb, and ran it."),
        ],
        mistake="Edit db/migrate/20240611093012_add_status_to_invoices.rb: add_column :invoices, :due_on, :date",
        lesson="never edit a migration under db/migrate that has already run; generate a new one with bin/rails g migration",
        warn=[
            same(
                E(
                    "db/migrate/20240611093012_add_status_to_invoices.rb",
                    '    add_column :invoices, :status, :string, null: false, default: "draft"\n',
                    '    add_column :invoices, :status, :string, null: false, default: "draft"\n'
                    "    add_column :invoices, :due_on, :date\n",
                )
            ),
            reword(
                E(
                    "db/migrate/20240302141500_create_customers.rb",
                    "      t.string :email, null: false\n",
                    "      t.string :email, null: false\n      t.string :vat_number\n",
                )
            ),
        ],
        silent=[
            fix("bin/rails generate migration AddVatNumberToCustomers vat_number:string"),
            fix(
                W(
                    "db/migrate/20260302090412_add_due_on_to_invoices.rb",
                    "class AddDueOnToInvoices < ActiveRecord::Migration[7.2]\n  def change\n"
                    "    add_column :invoices, :due_on, :date\n  end\nend\n",
                )
            ),
            code(
                E(
                    "app/models/invoice.rb",
                    "  validates :number, presence: true, uniqueness: true\n",
                    "  validates :number, presence: true, uniqueness: true\n"
                    "  validates :due_on, comparison: { greater_than_or_equal_to: :issued_on }, allow_nil: true\n",
                )
            ),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-pika-go-get-pinned",
        shape=CORRECTION,
        agent=CC,
        project="pika-api",
        session=[
            U("add go-redis, we'll use it for the session cache"),
            ok(
                "go get github.com/redis/go-redis/v9@latest",
                "go: downloading github.com/redis/go-redis/v9 v9.7.0\ngo: downloading github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f\n"
                "go: added github.com/cespare/xxhash/v2 v2.3.0\ngo: added github.com/redis/go-redis/v9 v9.7.0\n",
            ),
            U(
                "we don't take @latest in this repo, every dependency is pinned to what the platform team vetted. "
                "for go-redis that's v9.5.1 — pin it"
            ),
            ok(
                "go get github.com/redis/go-redis/v9@v9.5.1",
                "go: downgraded github.com/redis/go-redis/v9 v9.7.0 => v9.5.1\n",
            ),
            ok("go mod tidy", ""),
            A("Pinned go-redis to v9.5.1; go.mod and go.sum are tidy."),
        ],
        mistake="go get github.com/redis/go-redis/v9@latest",
        lesson="never go get <module>@latest in pika-api; pin the vetted version, e.g. go get github.com/redis/go-redis/v9@v9.5.1",
        warn=[
            same("go get github.com/redis/go-redis/v9@latest"),
            reword("go get github.com/jackc/pgx/v5@latest"),
        ],
        silent=[
            fix("go get github.com/redis/go-redis/v9@v9.5.1"),
            fix("go get github.com/jackc/pgx/v5@v5.6.0"),
            other("go mod tidy"),
            other("go list -m -versions github.com/redis/go-redis/v9"),
        ],
    ),
    Incident(
        id="uc-quill-no-unwrap-in-lib",
        shape=CORRECTION,
        agent=CODEX,
        project="quill-rs",
        session=[
            U("hash the file body before upload so we can skip unchanged objects"),
            reject_edit(
                "crates/quill-sync/src/upload.rs",
                UPLOAD_RS_OLD,
                UPLOAD_RS_BAD,
                "no unwrap() in the library crates. propagate with ? and add context with anyhow's with_context",
            ),
            edit("crates/quill-sync/src/upload.rs", UPLOAD_RS_OLD, UPLOAD_RS_GOOD),
            ok(
                "cargo check -p quill-sync --features s3",
                "    Checking quill-sync v0.7.0 (/home/dev/quill-rs/crates/quill-sync)\n"
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.71s\n",
            ),
            A("The read error now propagates with the path in its context."),
        ],
        mistake="Edit crates/quill-sync/src/upload.rs: let body = fs::read(&path).unwrap();",
        lesson="no .unwrap() in quill's library crates: return the error with ? and add context with anyhow's .with_context(...)",
        warn=[
            same(E("crates/quill-sync/src/upload.rs", UPLOAD_RS_OLD, UPLOAD_RS_BAD)),
            reword(
                E(
                    "crates/quill-core/src/manifest.rs",
                    "    let manifest_path = root.join(MANIFEST_FILE);\n",
                    "    let manifest_path = root.join(MANIFEST_FILE);\n"
                    "    let raw = std::fs::read_to_string(&manifest_path).unwrap();\n"
                    "    let manifest: Manifest = toml::from_str(&raw).unwrap();\n",
                )
            ),
        ],
        silent=[
            fix(E("crates/quill-sync/src/upload.rs", UPLOAD_RS_OLD, UPLOAD_RS_GOOD)),
            fix(
                E(
                    "crates/quill-core/src/manifest.rs",
                    "    let manifest_path = root.join(MANIFEST_FILE);\n",
                    "    let manifest_path = root.join(MANIFEST_FILE);\n"
                    "    let raw = std::fs::read_to_string(&manifest_path)\n"
                    '        .with_context(|| format!("reading {}", manifest_path.display()))?;\n'
                    '    let manifest: Manifest = toml::from_str(&raw).context("parsing quill.toml")?;\n',
                )
            ),
            code(
                E(
                    "crates/quill-sync/src/upload.rs",
                    "const CHUNK_SIZE: usize = 8 * 1024 * 1024;\n",
                    "const CHUNK_SIZE: usize = 16 * 1024 * 1024;\n",
                )
            ),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-compass-datetime-now",
        shape=CORRECTION,
        agent=CC,
        project="compass-dotnet",
        session=[
            U("stamp invoices with an issue date and a due date from the customer's payment terms"),
            edit("src/Compass.Billing/InvoiceService.cs", INVOICE_CS_OLD, INVOICE_CS_BAD),
            U(
                "don't use DateTime.Now anywhere in Billing — it's local time and the tests can't control it. "
                "use the injected TimeProvider, _clock.GetUtcNow()"
            ),
            edit("src/Compass.Billing/InvoiceService.cs", INVOICE_CS_BAD, INVOICE_CS_GOOD),
            ok(
                "dotnet build Compass.sln",
                "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:09.12\n",
            ),
            A("Switched to the injected TimeProvider (_clock.GetUtcNow())."),
        ],
        mistake="Edit src/Compass.Billing/InvoiceService.cs: var issuedAt = DateTime.Now;",
        lesson="never DateTime.Now in Compass.Billing: use the injected TimeProvider, _clock.GetUtcNow()",
        warn=[
            same(E("src/Compass.Billing/InvoiceService.cs", INVOICE_CS_OLD, INVOICE_CS_BAD)),
            reword(
                E(
                    "src/Compass.Billing/ReminderJob.cs",
                    "        foreach (var invoice in open)\n        {\n",
                    "        foreach (var invoice in open)\n        {\n"
                    "            if (invoice.DueAt >= DateTime.Now) continue;\n",
                )
            ),
        ],
        silent=[
            fix(E("src/Compass.Billing/InvoiceService.cs", INVOICE_CS_OLD, INVOICE_CS_GOOD)),
            fix(
                E(
                    "src/Compass.Billing/ReminderJob.cs",
                    "        foreach (var invoice in open)\n        {\n",
                    "        foreach (var invoice in open)\n        {\n"
                    "            if (invoice.DueAt >= _clock.GetUtcNow()) continue;\n",
                )
            ),
            code(
                E(
                    "src/Compass.Billing/InvoiceService.cs",
                    "    private const int MaxLinesPerInvoice = 200;\n",
                    "    private const int MaxLinesPerInvoice = 500;\n",
                )
            ),
        ],
    ),
    Incident(
        id="uc-granary-artisan-migrate-fresh",
        shape=CORRECTION,
        agent=CODEX,
        project="granary-php",
        session=[
            U("run the new migrations and seed the plans table"),
            reject(
                "docker compose exec app php artisan migrate:fresh --seed",
                "no, migrate:fresh drops every table and I have test accounts in there. "
                "run plain migrate, and db:seed --class=... when you need one seeder",
            ),
            ok(
                "docker compose exec app php artisan migrate",
                "\n   INFO  Running migrations.\n\n  2026_02_27_101500_create_plans_table ............................. 18.41ms DONE\n",
            ),
            ok(
                "docker compose exec app php artisan db:seed --class=PlanSeeder",
                "\n   INFO  Seeding database.\n\n  Database\\Seeders\\PlanSeeder ............................................ RUNNING\n"
                "  Database\\Seeders\\PlanSeeder ......................................... 41 ms DONE\n",
            ),
            A("Migrated and seeded only the plans; the existing data is untouched."),
        ],
        mistake="docker compose exec app php artisan migrate:fresh --seed",
        lesson="never php artisan migrate:fresh on the dev db (drops all tables): use php artisan migrate, then db:seed --class=<Seeder>",
        warn=[
            same("docker compose exec app php artisan migrate:fresh --seed"),
            reword("docker compose exec app php artisan migrate:fresh"),
        ],
        silent=[
            fix("docker compose exec app php artisan migrate"),
            fix("docker compose exec app php artisan db:seed --class=PlanSeeder"),
            other("docker compose exec app php artisan route:list --path=api"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-fleet-rsync-no-delete",
        shape=CORRECTION,
        agent=CC,
        project="fleet-ops",
        session=[
            U("push the rebuilt static site to web1"),
            reject(
                "rsync -avz --delete public/ deploy@web1.fleet.example.net:/var/www/fleet/",
                "no --delete to the web hosts — /var/www/fleet/uploads only exists there and it would be wiped. "
                "rsync without --delete",
            ),
            ok(
                "rsync -avz public/ deploy@web1.fleet.example.net:/var/www/fleet/",
                "sending incremental file list\nindex.html\nassets/app.9c1e.js\nassets/app.3f0a.css\n\n"
                "sent 184,022 bytes  received 1,217 bytes  74,095.60 bytes/sec\ntotal size is 2,904,113  speedup is 15.68\n",
            ),
            A("Synced to web1 without --delete; uploads/ is untouched."),
        ],
        mistake="rsync -avz --delete public/ deploy@web1.fleet.example.net:/var/www/fleet/",
        lesson="never rsync --delete to the fleet web hosts (it wipes /var/www/fleet/uploads); rsync -avz public/ ... without --delete",
        warn=[
            same("rsync -avz --delete public/ deploy@web1.fleet.example.net:/var/www/fleet/"),
            reword("rsync --delete -az public/ deploy@web2.fleet.example.net:/var/www/fleet/"),
        ],
        silent=[
            fix("rsync -avz public/ deploy@web1.fleet.example.net:/var/www/fleet/"),
            fix("rsync -az public/ deploy@web2.fleet.example.net:/var/www/fleet/"),
            other("rsync -avz deploy@web1.fleet.example.net:/var/log/nginx/ ./logs/web1/"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="uc-tallybook-uv-not-pip",
        shape=CORRECTION,
        agent=GEMINI,
        project="tallybook",
        session=[
            U("we need an http client for the bank sync, add httpx"),
            ok("pip install httpx", PIP_HTTPX),
            U(
                "this project is managed with uv, please don't pip install into whatever python happens to be active. "
                "uv add, so it ends up in pyproject.toml and uv.lock"
            ),
            ok("uv add httpx", UV_ADD_HTTPX),
            ok(
                "git diff --stat",
                " pyproject.toml |  1 +\n uv.lock        | 48 ++++++++++++++++++++\n 2 files changed, 49 insertions(+)\n",
            ),
            A("httpx is now a declared dependency (pyproject.toml + uv.lock)."),
        ],
        mistake="pip install httpx",
        lesson="tallybook is uv-managed: never pip install, add dependencies with uv add <pkg> (uv add --dev for test tools)",
        warn=[
            same("pip install httpx"),
            reword("python -m pip install respx"),
            reword("pip3 install -U pydantic-settings"),
        ],
        silent=[
            fix("uv add httpx"),
            fix("uv add --dev respx"),
            other("uv sync"),
            help_("pip --version"),
        ],
    ),
    Incident(
        id="uc-kestrel-mysqldump-single-transaction",
        shape=CORRECTION,
        agent=GEMINI,
        project="kestrel-data",
        session=[
            U("grab a dump of the dev database so I can debug the orders job locally"),
            reject(
                "mysqldump -h db.dev.kestrel.internal -u kestrel kestrel > /tmp/kestrel.sql",
                "that locks every table on the shared dev server for the whole dump. "
                "always use --single-transaction (and --quick) with mysqldump against it",
            ),
            ok(
                "mysqldump --single-transaction --quick -h db.dev.kestrel.internal -u kestrel kestrel > /tmp/kestrel.sql",
                "",
            ),
            ok("ls -lh /tmp/kestrel.sql", "-rw-r--r-- 1 dev dev 412M Mar  2 09:31 /tmp/kestrel.sql\n"),
            A("Dumped without locking: /tmp/kestrel.sql, 412 MB."),
        ],
        mistake="mysqldump -h db.dev.kestrel.internal -u kestrel kestrel > /tmp/kestrel.sql",
        lesson="mysqldump against the shared dev db must not lock tables: always add --single-transaction --quick",
        warn=[
            same("mysqldump -h db.dev.kestrel.internal -u kestrel kestrel > /tmp/kestrel.sql"),
            reword("mysqldump -u kestrel -h db.dev.kestrel.internal kestrel orders line_items > /tmp/orders.sql"),
        ],
        silent=[
            fix(
                "mysqldump --single-transaction --quick -h db.dev.kestrel.internal -u kestrel kestrel > /tmp/kestrel.sql"
            ),
            fix(
                "mysqldump -u kestrel -h db.dev.kestrel.internal --single-transaction --quick kestrel orders line_items > /tmp/orders.sql"
            ),
            other("mysql -h db.dev.kestrel.internal -u kestrel kestrel -e 'SHOW TABLES'"),
            help_("mysqldump --version"),
        ],
        variants=("rejection_reason",),
    ),
]
