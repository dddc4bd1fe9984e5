"""Fresh split, shape 2: the user corrects the agent — a rejected call (with or
without a typed reason), a rejected edit, a message right after the call, or a
message after an intervening call."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
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

_TF_PLAN_PROD = (
    "aws_db_instance.main: Refreshing state... [id=tidewater-prod]\naws_s3_bucket.artifacts: Refreshing state... [id=tidewater-artifacts]\n\n"
    "Terraform will perform the following actions:\n\n  # aws_db_instance.main will be updated in-place\n"
    "  ~ resource \"aws_db_instance\" \"main\" {\n      ~ instance_class = \"db.t4g.large\" -> \"db.r6g.large\"\n        id             = \"tidewater-prod\"\n    }\n\n"
    "Plan: 0 to add, 1 to change, 0 to destroy.\n\n"
    "Saved the plan to: prod.tfplan\n\nTo perform exactly these actions, run the following command to apply:\n    terraform apply \"prod.tfplan\""
)

_SCOPE_OLD = "class Project < ApplicationRecord\n  belongs_to :account\n"
_SCOPE_BAD = _SCOPE_OLD + "\n  default_scope { where(archived: false) }\n"
_SCOPE_OK = _SCOPE_OLD + "\n  scope :active, -> { where(archived: false) }\n"
_TASK_OLD = "class Task < ApplicationRecord\n  belongs_to :project\n"

_FETCH_OLD = (
    "def fetch_site(client: httpx.Client, site_id: str) -> dict:\n"
    "    resp = client.get(f\"/sites/{site_id}/readings\", timeout=10)\n"
    "    resp.raise_for_status()\n    return resp.json()\n"
)
_FETCH_BAD = (
    "def fetch_site(client: httpx.Client, site_id: str) -> dict:\n    try:\n"
    "        resp = client.get(f\"/sites/{site_id}/readings\", timeout=10)\n"
    "        resp.raise_for_status()\n        return resp.json()\n    except:\n"
    "        log.warning(\"site %s unreachable, skipping\", site_id)\n        return {}\n"
)
_FETCH_OK = _FETCH_BAD.replace("    except:\n", "    except httpx.HTTPError:\n")
_SENSOR_OLD = "def parse_payload(raw: bytes) -> Reading:\n    data = json.loads(raw)\n"

_LARKSPUR_RSYNC = (
    "sending incremental file list\ndeleting uploads/2026/02/team-photo.jpg\ndeleting uploads/2026/02/brochure.pdf\n"
    "deleting uploads/2026/01/press-kit.zip\ndeleting uploads/2026/01/\ndeleting uploads/2026/02/\ndeleting uploads/\n"
    "./\nindex.html\nblog/index.html\nassets/site-41c9e2.css\n\n"
    "sent 96,112 bytes  received 1,874 bytes  65,324.00 bytes/sec\ntotal size is 2,904,117  speedup is 29.64"
)

INCIDENTS = [
    Incident(
        "uc-tidewater-auto-approve", CORRECTION, CC, "tidewater",
        session=[
            U("Resize the prod database to db.r6g.large, the change is already in env/prod.tfvars."),
            reject("terraform apply -auto-approve -var-file=env/prod.tfvars",
                   "never -auto-approve, least of all in prod. Write a plan file, show me the plan, and apply that plan "
                   "file once I've read it."),
            A("Understood — planning to a file first."),
            ok("terraform plan -out=prod.tfplan -var-file=env/prod.tfvars", _TF_PLAN_PROD),
            U("Looks right, apply it."),
            ok("terraform apply prod.tfplan",
               "aws_db_instance.main: Modifying... [id=tidewater-prod]\naws_db_instance.main: Still modifying... [id=tidewater-prod, 10m0s elapsed]\n"
               "aws_db_instance.main: Modifications complete after 14m21s [id=tidewater-prod]\n\n"
               "Apply complete! Resources: 0 added, 1 changed, 0 destroyed."),
        ],
        mistake="terraform apply -auto-approve -var-file=env/prod.tfvars",
        lesson="tidewater: never terraform apply/destroy -auto-approve; terraform plan -out=<env>.tfplan, let the user review, then terraform apply <env>.tfplan.",
        warn=[same("terraform apply -auto-approve -var-file=env/prod.tfvars"),
              reword("terraform apply -var-file=env/staging.tfvars -auto-approve"),
              reword("terraform destroy -auto-approve -target=aws_instance.bastion -var-file=env/staging.tfvars")],
        silent=[fix("terraform plan -out=staging.tfplan -var-file=env/staging.tfvars"), fix("terraform apply staging.tfplan"),
                other("terraform output -json"), help_("terraform apply -help")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-foundry-delete-pods", CORRECTION, CODEX, "foundry",
        session=[
            U("The api pods picked up the wrong config map version; restart them."),
            ok("kubectl -n foundry get pods -l app=foundry-api",
               "NAME                           READY   STATUS    RESTARTS   AGE\nfoundry-api-6b7d9c5f4-8kq2m    1/1     Running   0          2d\n"
               "foundry-api-6b7d9c5f4-tx9vl    1/1     Running   0          2d\nfoundry-api-6b7d9c5f4-zz41p    1/1     Running   0          2d"),
            reject("kubectl -n foundry delete pod -l app=foundry-api"),
            U("No, don't delete pods to restart them — all three go at once and we drop requests. Use a rollout "
              "restart, it respects the PDB and the surge settings."),
            A("Right — a rolling restart instead."),
            ok("kubectl -n foundry rollout restart deployment/foundry-api && kubectl -n foundry rollout status deployment/foundry-api",
               "deployment.apps/foundry-api restarted\nWaiting for deployment \"foundry-api\" rollout to finish: 1 out of 3 new replicas have been updated...\n"
               "Waiting for deployment \"foundry-api\" rollout to finish: 2 out of 3 new replicas have been updated...\n"
               "deployment \"foundry-api\" successfully rolled out"),
        ],
        mistake="kubectl -n foundry delete pod -l app=foundry-api",
        lesson="foundry: never restart by deleting pods (kubectl delete pod …); use kubectl rollout restart deployment/<name>, which keeps capacity.",
        warn=[same("kubectl -n foundry delete pod -l app=foundry-api"),
              reword("kubectl delete pods --all --namespace foundry"),
              reword("kubectl -n foundry delete pod foundry-worker-5c8d7b9f6-q2lxz")],
        silent=[fix("kubectl -n foundry rollout restart deployment/foundry-worker"),
                other("kubectl -n foundry get pods -o wide"), help_("kubectl rollout restart --help")],
        variants=("rejection",),
    ),
    Incident(
        "uc-wayfarer-force-push", CORRECTION, CC, "wayfarer",
        session=[
            U("Rebase my trip-search branch on main and push it."),
            ok("git fetch origin && git rebase origin/main",
               "Successfully rebased and updated refs/heads/feature/trip-search."),
            ok("git push --force origin feature/trip-search",
               "Enumerating objects: 31, done.\nCounting objects: 100% (31/31), done.\nWriting objects: 100% (19/19), 5.21 KiB | 5.21 MiB/s, done.\n"
               "To github.com:wayfarer-app/wayfarer.git\n + 8c1d2e4...b71f09a feature/trip-search -> feature/trip-search (forced update)"),
            U("Careful: Priya pushes to that branch too. Never plain --force on shared branches — use --force-with-lease "
              "so you don't overwrite commits you haven't fetched."),
            A("Understood — --force-with-lease from now on. Checking that nothing of hers was lost."),
            ok("git log --oneline origin/feature/trip-search -3",
               "b71f09a search: debounce the destination field\n4e0a9c2 search: keyboard navigation in results\n"
               "2d77b51 search: query trips by date range"),
        ],
        mistake="git push --force origin feature/trip-search",
        lesson="wayfarer: branches are shared; never git push --force / -f / +refspec — use git push --force-with-lease.",
        warn=[same("git push --force origin feature/trip-search"), reword("git push -f origin HEAD"),
              reword("git push origin +feature/saved-trips")],
        silent=[fix("git push --force-with-lease origin feature/saved-trips"), other("git push origin feature/saved-trips"),
                help_("git push --help")],
        variants=(),
    ),
    Incident(
        "uc-thornbury-default-scope", CORRECTION, GEMINI, "thornbury",
        session=[
            U("Archived projects keep showing up in the project picker. Hide them."),
            read("app/models/project.rb", _SCOPE_OLD + "  has_many :tasks, dependent: :destroy\nend\n"),
            reject_edit("app/models/project.rb", _SCOPE_OLD, _SCOPE_BAD,
                        "no default_scope — it leaks into every association and unscoped is a pain. Add a named scope "
                        "and use it in the picker."),
            A("Got it — a named `active` scope, used where the picker loads projects."),
            edit("app/models/project.rb", _SCOPE_OLD, _SCOPE_OK),
            edit("app/controllers/project_picker_controller.rb", "    @projects = current_account.projects.order(:name)\n",
                 "    @projects = current_account.projects.active.order(:name)\n"),
        ],
        mistake="Edit app/models/project.rb: default_scope { where(archived: false) }",
        lesson="thornbury: no default_scope in models (it leaks into associations); add a named scope (scope :active, -> { … }) and call it where needed.",
        warn=[same(E("app/models/project.rb", _SCOPE_OLD, _SCOPE_BAD)),
              reword(E("app/models/task.rb", _TASK_OLD, _TASK_OLD + "\n  default_scope -> { order(position: :asc) }\n"))],
        silent=[fix(E("app/models/task.rb", _TASK_OLD, _TASK_OLD + "\n  scope :ordered, -> { order(position: :asc) }\n")),
                code(E("app/models/project.rb", "  has_many :tasks, dependent: :destroy\n",
                       "  has_many :tasks, dependent: :destroy\n  validates :name, presence: true, length: { maximum: 120 }\n")),
                other("bin/rails test test/models/project_test.rb")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-lodestar-go-test-short", CORRECTION, CC, "lodestar",
        session=[
            U("I refactored the billing package; check that nothing broke."),
            ok("go test ./...",
               "ok  \tgithub.com/lodestar-io/lodestar/internal/api\t0.412s\n"
               "ok  \tgithub.com/lodestar-io/lodestar/internal/billing\t48.903s\n"
               "ok  \tgithub.com/lodestar-io/lodestar/internal/ledger\t0.087s\n"
               "?   \tgithub.com/lodestar-io/lodestar/cmd/lodestar\t[no test files]"),
            ok("git status --short", " M internal/billing/invoice.go\n M internal/billing/charge.go"),
            U("Everything passes, but please don't run the full `go test ./...` locally: the long billing tests create "
              "real charges in the shared Stripe sandbox. Always use `go test -short` here; CI runs the long ones."),
            A("Understood — -short locally from now on."),
            ok("go test -short ./internal/billing/...", "ok  \tgithub.com/lodestar-io/lodestar/internal/billing\t0.231s"),
        ],
        mistake="go test ./...",
        lesson="lodestar: always go test -short locally; without it the billing integration tests hit the shared Stripe sandbox.",
        warn=[same("go test ./..."), reword("go test ./internal/billing/..."), reword("go test -v -run TestCharge ./internal/billing")],
        silent=[fix("go test -short ./internal/billing/..."), fix("go test -short -v -run TestCharge ./internal/billing"),
                other("go vet ./..."), help_("go help testflag")],
        variants=("intervening",),
    ),
    Incident(
        "uc-millrace-newtonsoft", CORRECTION, CODEX, "millrace",
        session=[
            U("The webhook payloads have snake_case keys; make the API deserialize them."),
            reject("dotnet add src/Millrace.Api package Newtonsoft.Json",
                   "we don't use Newtonsoft in millrace, everything is System.Text.Json. Use JsonNamingPolicy.SnakeCaseLower."),
            A("OK — configuring System.Text.Json's snake_case naming policy instead."),
            edit("src/Millrace.Api/Program.cs", "builder.Services.AddControllers();\n",
                 "builder.Services.AddControllers()\n    .AddJsonOptions(o => o.JsonSerializerOptions.PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower);\n"),
            ok("dotnet build Millrace.sln", "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:11.42"),
        ],
        mistake="dotnet add src/Millrace.Api package Newtonsoft.Json",
        lesson="millrace uses System.Text.Json only: never add Newtonsoft.Json (dotnet add … package Newtonsoft.Json); configure JsonSerializerOptions instead.",
        warn=[same("dotnet add src/Millrace.Api package Newtonsoft.Json"),
              reword("dotnet add src/Millrace.Worker/Millrace.Worker.csproj package Newtonsoft.Json --version 13.0.3"),
              reword("dotnet add src/Millrace.Api package Microsoft.AspNetCore.Mvc.NewtonsoftJson")],
        silent=[fix(E("src/Millrace.Worker/Program.cs", "var options = new JsonSerializerOptions();\n",
                      "var options = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower };\n")),
                other("dotnet add src/Millrace.Api package Polly --version 8.3.1"), help_("dotnet add package --help")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-fernhill-ecto-reset", CORRECTION, CC, "fernhill",
        session=[
            U("The last migration has a typo in the column name; fix it."),
            edit("priv/repo/migrations/20260301101500_add_booking_notes.exs", "add :booking_nots, :text\n", "add :booking_notes, :text\n"),
            ok("mix ecto.reset",
               "The database for Fernhill.Repo has been dropped\nThe database for Fernhill.Repo has been created\n\n"
               "10:21:07.514 [info] == Running 20260301101500 Fernhill.Repo.Migrations.AddBookingNotes.change/0 forward\n"
               "10:21:07.531 [info] == Migrated 20260301101500 in 0.0s\n[debug] seeds: 12 venues, 40 bookings"),
            U("Argh, ecto.reset wiped my dev data — I had a week of test bookings in there. Never reset or drop the "
              "database; roll back the last migration and migrate again (mix ecto.rollback --step 1, then mix ecto.migrate)."),
            A("I'm sorry about the data. I'll only roll back and re-migrate from now on."),
        ],
        mistake="mix ecto.reset",
        lesson="fernhill: never mix ecto.reset / ecto.drop on the dev database (it holds hand-made data); fix migrations with mix ecto.rollback --step 1 && mix ecto.migrate.",
        warn=[same("mix ecto.reset"), reword("mix ecto.drop && mix ecto.setup"), reword("MIX_ENV=dev mix ecto.reset")],
        silent=[fix("mix ecto.rollback --step 1 && mix ecto.migrate"), other("mix ecto.migrations"),
                help_("mix help ecto.rollback")],
        variants=(),
    ),
    Incident(
        "uc-sundial-uv-add", CORRECTION, GEMINI, "sundial",
        session=[
            U("Use pandas for the monthly report aggregation."),
            reject("uv pip install pandas",
                   "don't uv pip install into the venv, it's not recorded anywhere and the next uv sync removes it. "
                   "Add it with uv add so pyproject and uv.lock get it."),
            A("Right — adding it as a project dependency."),
            ok("uv add pandas",
               "Resolved 48 packages in 612ms\nPrepared 3 packages in 1.41s\nInstalled 3 packages in 88ms\n"
               " + numpy==2.2.3\n + pandas==2.2.3\n + tzdata==2025.1"),
        ],
        mistake="uv pip install pandas",
        lesson="sundial: add dependencies with uv add (uv add --dev for tools) so pyproject.toml and uv.lock record them; never uv pip install / pip install into the venv.",
        warn=[same("uv pip install pandas"), reword("uv pip install -U httpx"), reword("uv pip install 'polars>=1.0' pyarrow")],
        silent=[fix("uv add 'polars>=1.0' pyarrow"), fix("uv add --dev pytest-xdist"), other("uv pip list"),
                help_("uv add --help")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-larkspur-rsync-delete", CORRECTION, CC, "larkspur",
        session=[
            U("Publish the rebuilt site."),
            ok("npm run build", "> larkspur@1.0.0 build\n> eleventy --output=public\n\n[11ty] Wrote 64 files in 1.12 seconds (17.5ms each, v2.0.1)"),
            ok("rsync -av --delete public/ deploy@larkspur.io:/srv/www/", _LARKSPUR_RSYNC),
            U("Stop — --delete removed uploads/, that's where the CMS puts the editors' files and they aren't in the "
              "build. Never rsync --delete into /srv/www. Restore uploads from last night's backup."),
            A("Sorry — restoring uploads/ from the backup now, and I won't use --delete against /srv/www again."),
            ok("ssh deploy@larkspur.io 'tar -xzf /var/backups/www/uploads-2026-03-02.tar.gz -C /srv/www'", ""),
        ],
        mistake="rsync -av --delete public/ deploy@larkspur.io:/srv/www/",
        lesson="larkspur: never rsync --delete (or --delete-after etc.) into deploy@larkspur.io:/srv/www — it removes the CMS uploads/; publish with plain rsync -av public/ … .",
        warn=[same("rsync -av --delete public/ deploy@larkspur.io:/srv/www/"),
              reword("rsync -avz --delete-after public/ deploy@larkspur.io:/srv/www/"),
              reword("rsync -a --del ./public/ deploy@larkspur.io:/srv/www")],
        silent=[fix("rsync -av public/ deploy@larkspur.io:/srv/www/"),
                other("rsync -av --delete public/ /tmp/larkspur-preview/"), help_("rsync --help")],
        variants=(),
    ),
    Incident(
        "uc-sundial-bare-except", CORRECTION, CODEX, "sundial",
        session=[
            U("One flaky site shouldn't abort the whole ingest run. Skip sites that fail."),
            reject_edit("sundial/ingest/fetch.py", _FETCH_OLD, _FETCH_BAD,
                        "no bare except: — it also swallows KeyboardInterrupt and our own bugs. Catch httpx.HTTPError."),
            A("Right — catching only httpx.HTTPError."),
            edit("sundial/ingest/fetch.py", _FETCH_OLD, _FETCH_OK),
            ok("uv run pytest tests/ingest -q", "..........                                                               [100%]\n10 passed in 0.84s"),
        ],
        mistake="except:",
        lesson="sundial: never a bare except: (or except Exception: pass); catch the specific error, e.g. except httpx.HTTPError:.",
        warn=[same(E("sundial/ingest/fetch.py", _FETCH_OLD, _FETCH_BAD)),
              reword(E("sundial/ingest/sensors.py", _SENSOR_OLD,
                       "def parse_payload(raw: bytes) -> Reading | None:\n    try:\n        data = json.loads(raw)\n    except:\n        return None\n"))],
        silent=[fix(E("sundial/ingest/sensors.py", _SENSOR_OLD,
                      "def parse_payload(raw: bytes) -> Reading | None:\n    try:\n        data = json.loads(raw)\n"
                      "    except json.JSONDecodeError:\n        return None\n")),
                code(E("sundial/ingest/fetch.py", "DEFAULT_TIMEOUT = 10\n", "DEFAULT_TIMEOUT = 20\n")),
                other("uv run pytest tests/ingest -q")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-quayside-compose-down-volumes", CORRECTION, CC, "quayside",
        session=[
            U("Postgres in compose is acting up after the image bump; restart the stack."),
            reject("docker compose down -v && docker compose up -d",
                   "not -v! that deletes the pgdata volume with the anonymised prod snapshot, it takes an hour to "
                   "restore. Plain down/up is enough."),
            A("Understood — keeping the volumes."),
            ok("docker compose down && docker compose up -d",
               "[+] Running 3/3\n ✔ Container quayside-postgres-1  Removed\n ✔ Container quayside-kafka-1     Removed\n"
               " ✔ Network quayside_default       Removed\n[+] Running 3/3\n ✔ Network quayside_default       Created\n"
               " ✔ Container quayside-postgres-1  Started\n ✔ Container quayside-kafka-1     Started"),
        ],
        mistake="docker compose down -v && docker compose up -d",
        lesson="quayside: never docker compose down -v / --volumes (or docker volume rm quayside_pgdata): the pgdata volume holds the prod snapshot; plain docker compose down / restart.",
        warn=[same("docker compose down -v && docker compose up -d"), reword("docker compose down --volumes --remove-orphans"),
              reword("docker volume rm quayside_pgdata")],
        silent=[fix("docker compose down"), fix("docker compose restart postgres"), other("docker compose ps"),
                help_("docker compose down --help")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-ferrule-git-clean-x", CORRECTION, GEMINI, "ferrule",
        session=[
            U("There are stray generated files from the old build script; clean the working tree."),
            ok("git status --short --ignored",
               "?? crates/ferrule-core/src/generated_tables.rs\n?? scratch/\n!! .env\n!! target/\n!! bench-data/"),
            ok("git clean -fdx",
               "Removing .env\nRemoving bench-data/\nRemoving crates/ferrule-core/src/generated_tables.rs\nRemoving scratch/\nRemoving target/"),
            U("-x removed .env and bench-data/, which took me ages to download. Never -x in this repo: `git clean -n` "
              "first, then `git clean -fd`, which leaves ignored files alone."),
            A("Sorry about that — I'll preview with -n and use -fd only."),
        ],
        mistake="git clean -fdx",
        lesson="ferrule: never git clean -x (it deletes .env and bench-data/); preview with git clean -n, then git clean -fd.",
        warn=[same("git clean -fdx"), reword("git clean -xdf"), reword("git clean -f -d -x -- crates/")],
        silent=[fix("git clean -fd"), fix("git clean -n -d"), other("git stash list"), help_("git clean -h")],
        variants=(),
    ),
    Incident(
        "uc-marlin-s3-rm-dryrun", CORRECTION, CC, "marlin",
        session=[
            U("Clean up the temporary exports under tmp/ in the marlin-exports bucket."),
            ok("aws s3 ls s3://marlin-exports/tmp/ --summarize | tail -2", "Total Objects: 3812\n   Total Size: 41.2 GiB"),
            reject("aws s3 rm s3://marlin-exports/tmp/ --recursive",
                   "run recursive deletes with --dryrun first and show me what would go — last time the prefix was wrong."),
            A("Sure — dry run first."),
            ok("aws s3 rm s3://marlin-exports/tmp/ --recursive --dryrun | head -3",
               "(dryrun) delete: s3://marlin-exports/tmp/2026-01-04/orders-0001.parquet\n"
               "(dryrun) delete: s3://marlin-exports/tmp/2026-01-04/orders-0002.parquet\n"
               "(dryrun) delete: s3://marlin-exports/tmp/2026-01-05/orders-0001.parquet"),
            A("The dry run only lists objects under tmp/ (3,812 objects, 41.2 GiB). Shall I run it for real?"),
        ],
        mistake="aws s3 rm s3://marlin-exports/tmp/ --recursive",
        lesson="marlin: run aws s3 rm --recursive with --dryrun first and show the list before deleting for real.",
        warn=[same("aws s3 rm s3://marlin-exports/tmp/ --recursive"), reword("aws s3 rm --recursive s3://marlin-exports/2025-12/")],
        silent=[fix("aws s3 rm --recursive s3://marlin-exports/2025-12/ --dryrun"), other("aws s3 ls s3://marlin-exports/tmp/"),
                other("aws s3 rm s3://marlin-exports/tmp/orders-test.csv"), help_("aws s3 rm help")],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-foundry-apply-kustomize", CORRECTION, CODEX, "foundry",
        session=[
            U("Apply the new HPA for foundry-api to the dev cluster."),
            reject("kubectl apply -f k8s/base/",
                   "base/ isn't meant to be applied alone, the overlays set the namespace, labels and image tags. Use "
                   "kustomize: kubectl apply -k k8s/overlays/dev"),
            A("Understood — applying the dev overlay."),
            ok("kubectl apply -k k8s/overlays/dev",
               "configmap/foundry-api-config-7g8b5k2m9t unchanged\nservice/foundry-api unchanged\n"
               "deployment.apps/foundry-api unchanged\nhorizontalpodautoscaler.autoscaling/foundry-api created"),
        ],
        mistake="kubectl apply -f k8s/base/",
        lesson="foundry: never kubectl apply -f the k8s/base manifests; apply an overlay with kustomize (kubectl apply -k k8s/overlays/<env>).",
        warn=[same("kubectl apply -f k8s/base/"), reword("kubectl apply -f k8s/base/hpa.yaml"), reword("kubectl apply -R -f k8s/base")],
        silent=[fix("kubectl apply -k k8s/overlays/staging"), fix("kubectl diff -k k8s/overlays/dev"),
                other("kubectl -n foundry get hpa"), help_("kubectl apply --help")],
        variants=("rejection_reason",),
    ),
]
