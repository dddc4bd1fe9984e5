"""Fresh split: everyday tool calls in the fresh projects. None repeats a mistake
of any fresh incident (they use each project's right forms: the profile, the
context, the wrapper, GOTOOLCHAIN, uv run, pnpm, -short, the features, the
settings file, mise exec, the bastion, …), so every one of them must stay silent
whatever was learned.

Mostly Claude Code payloads (``Bash``, ``Edit``, ``Write``, ``Read``), some
Codex and Gemini ones, in the same project folders as the incidents, so the
projects' own lessons are in scope.
"""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, E, Everyday, R, W


def _calls(project: str, *actions, agent: str = CC) -> list[Everyday]:
    return [Everyday(project, a, agent) for a in actions]


EVERYDAY = (
    _calls(
        "tidewater",
        "git status",
        "terraform fmt -recursive",
        "terraform validate",
        "terraform plan -out=staging.tfplan -var-file=env/staging.tfvars",
        "aws s3 ls s3://tidewater-artifacts/ --profile tidewater-dev",
        E("modules/storage/main.tf", "  force_destroy = false\n", "  force_destroy = false\n  tags          = var.tags\n"),
        R("env/staging.tfvars"),
    )
    + _calls(
        "ferrule",
        "cargo check --workspace",
        "cargo clippy --all-targets --all-features -- -D warnings",
        "cargo test --all-features -p ferrule-core",
        "git diff --stat",
        E("crates/ferrule-core/src/lib.rs", "pub const VERSION: &str = \"0.6.2\";\n", "pub const VERSION: &str = \"0.6.3\";\n"),
        R("Cargo.toml"),
        agent=GEMINI,
    )
    + _calls(
        "hopper",
        "GOTOOLCHAIN=go1.23.2 go vet ./...",
        "GOTOOLCHAIN=go1.23.2 go test ./internal/...",
        "docker compose -f compose.dev.yaml ps",
        "git log --oneline -5",
        E("internal/queue/queue.go", "const defaultVisibility = 30 * time.Second\n", "const defaultVisibility = 45 * time.Second\n"),
        R("go.mod"),
    )
    + _calls(
        "gantry",
        "kubectl --context gantry-staging -n payments get pods",
        "kubectl config current-context",
        "source scripts/env.sh staging && ./scripts/smoke.sh --suite ledger",
        "ls overlays",
        E("overlays/staging/payments/kustomization.yaml", "    newTag: 1.14.2\n", "    newTag: 1.14.3\n"),
        R("overlays/prod/payments/kustomization.yaml"),
    )
    + _calls(
        "copperleaf",
        "docker compose up -d db",
        "docker compose up -d db && bin/rails test",
        "bundle exec rubocop app/models",
        "bin/rails routes -g invoices",
        E("app/models/invoice.rb", "  validates :number, presence: true\n", "  validates :number, presence: true, uniqueness: true\n"),
        R("config/database.yml"),
    )
    + _calls(
        "sundial",
        "uv sync",
        "uv run pytest -q",
        "uv run ruff check .",
        "uv run alembic upgrade head",
        "psql -h localhost -p 5433 -U sundial sundial_dev -c 'select count(*) from readings'",
        E("sundial/ingest/fetch.py", "DEFAULT_TIMEOUT = 10\n", "DEFAULT_TIMEOUT = 15\n"),
        W("sundial/reports/summary.py",
          "from datetime import datetime, timezone\n\nimport pandas as pd\n\n\n"
          "def summarize(df: pd.DataFrame) -> dict:\n    return {\n        \"generated_at\": datetime.now(timezone.utc).isoformat(),\n"
          "        \"rows\": len(df),\n        \"missing\": int(df[\"value\"].isna().sum()),\n    }\n"),
        R("pyproject.toml"),
    )
    + _calls(
        "wayfarer",
        "pnpm install",
        "pnpm --filter @wayfarer/web test",
        "pnpm turbo run build --filter=@wayfarer/web",
        "pnpm lint",
        "git push origin feature/saved-trips",
        E("apps/web/src/components/TripCard.tsx", "  const title = trip.name;\n", "  const title = trip.name.trim();\n"),
        R("turbo.json"),
        agent=CODEX,
    )
    + _calls(
        "millrace",
        "dotnet build Millrace.sln",
        "dotnet test Millrace.sln --filter \"Category!=UI\"",
        "dotnet format Millrace.sln --verify-no-changes",
        E("src/Millrace.Api/Program.cs", "builder.Services.AddControllers()\n", "builder.Services.AddControllers()\n    .AddProblemDetails()\n"),
        R("src/Millrace.Api/appsettings.Development.json"),
    )
    + _calls(
        "keelson",
        "mvn -s settings-internal.xml -q compile",
        "git fetch origin",
        "git log --oneline -10",
        E("keelson-app/src/main/java/com/keelson/app/routing/RouteHeader.java",
          "    private static final int MAX_HOPS = 16;\n", "    private static final int MAX_HOPS = 32;\n"),
        R("pom.xml"),
    )
    + _calls(
        "ledgerline",
        "mise exec -- mix test",
        "mise exec -- mix format --check-formatted",
        E("lib/ledgerline/journal.ex", "  def post(entry, opts) do\n", "  def post(entry, _opts) do\n"),
        R("mix.exs"),
        agent=GEMINI,
    )
    + _calls(
        "bramble",
        "shellcheck scripts/*.sh",
        "bats tests/",
        "ssh -J bastion.bramble.net deploy@web1.bramble.net uptime",
        E("scripts/deploy.sh", "readonly RELEASES_TO_KEEP=5\n", "readonly RELEASES_TO_KEEP=6\n"),
    )
    + _calls(
        "stormglass",
        "helm dependency build charts/payments",
        "helm list -A",
        "rg -n 'image:' charts/payments/values-staging.yaml",
        E("charts/payments/values-staging.yaml", "replicaCount: 2\n", "replicaCount: 3\n"),
    )
    + _calls(
        "foundry",
        "kubectl -n foundry get pods",
        "kubectl -n foundry rollout status deployment/foundry-api",
        "kubectl kustomize k8s/overlays/dev",
        E("k8s/overlays/dev/kustomization.yaml", "    newTag: 0.31.0\n", "    newTag: 0.31.1\n"),
        agent=CODEX,
    )
    + _calls(
        "lodestar",
        "go test -short ./...",
        "make lint",
        "go build ./...",
        "go mod tidy",
        E("internal/ledger/post.go", "const maxLines = 500\n", "const maxLines = 1000\n"),
        R("Makefile"),
    )
    + _calls(
        "thornbury",
        "bin/rails test",
        "bin/rails db:migrate:status",
        "bundle exec rubocop app/models/task.rb",
        E("app/models/task.rb", "  belongs_to :project\n", "  belongs_to :project\n  has_many :comments, dependent: :destroy\n"),
    )
    + _calls(
        "fernhill",
        "mix test",
        "mix format",
        "mix ecto.migrate",
        R("config/dev.exs"),
        agent=GEMINI,
    )
    + _calls(
        "spindle",
        "cargo build --no-default-features --features rustls",
        "cargo fmt",
        "cargo clippy --no-default-features --features rustls -- -D warnings",
        R("Cargo.toml"),
    )
    + _calls(
        "cobalt",
        "npm test",
        "npm run lint",
        "npm run build",
        "docker build -t cobalt-api:dev .",
        "git status",
        E("src/pricing/tiers.ts", "export const MAX_TIERS = 5;\n", "export const MAX_TIERS = 6;\n"),
        R("package.json"),
    )
    + _calls(
        "quayside",
        "./mvnw -pl quayside-web -am test",
        "docker compose ps",
        "docker compose logs --tail=50 postgres",
        E("quayside-web/src/main/resources/application.yml", "    max-pool-size: 10\n", "    max-pool-size: 20\n"),
    )
    + _calls(
        "seawall",
        "helm list -n search",
        "helm lint charts/search",
        "kubectl -n search get pods",
    )
    + _calls(
        "saltmarsh",
        "./vendor/bin/sail up -d",
        "./vendor/bin/sail artisan test",
        "composer install",
        E("app/Models/Order.php", "    protected $fillable = ['customer_id', 'total'];\n",
          "    protected $fillable = ['customer_id', 'total', 'gift_note'];\n"),
        agent=CODEX,
    )
    + _calls(
        "quill",
        "uv run pytest -q",
        "gcloud run services list --region europe-west1",
        "gcloud builds list --limit 5",
        R("quill/render/client.py"),
    )
    + _calls(
        "marlin",
        "aws sts get-caller-identity",
        "aws s3 ls s3://marlin-exports/",
        "docker images",
    )
    + _calls(
        "larkspur",
        "npm run build",
        "ls public",
        E("src/_data/site.json", "  \"title\": \"Larkspur\",\n", "  \"title\": \"Larkspur Studio\",\n"),
    )
    + _calls(
        "ember",
        "ssh -p 2222 -i ~/.ssh/ember_deploy deploy@ember.host uptime",
    )
    + _calls(
        "driftwood",
        "source ~/.nvm/nvm.sh && nvm use && npm test",
        "git status",
    )
    + _calls(
        "anvil",
        "JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64 mvn -q test",
        "git log --oneline -5",
    )
)
