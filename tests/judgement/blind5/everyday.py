"""Blind5 split: everyday tool calls in the blind5 projects. None repeats a mistake of any
blind5 incident — they use each project's right forms (the settings module, the compose
port, the package filter, the overlay with -k, the var files and the region, the nightly
formatter, bin/rails, Sail, the fly config files, the inventory and the bastion, the
simulator that exists, the wrapper, the solution file and the subscription, the flakes
flag, the env-file scripts, the heap options, the billing project, the KMS flags …) —
so every one of them must stay silent whatever was learned.

Claude Code, Codex and Gemini payloads (shell calls, edits, writes and reads) in the same
project folders as the incidents, so the projects' own lessons are in scope.
"""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, E, Everyday, R, W


def _calls(project: str, *actions, agent: str = CC) -> list[Everyday]:
    return [Everyday(project, a, agent) for a in actions]


EVERYDAY = (
    _calls(
        "brackenridge",
        "git status",
        "DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest tests/billing -q",
        "uv run ruff format brackenridge",
        "docker compose ps",
        "docker compose logs --tail=50 db",
        "uv sync --frozen",
        E("brackenridge/billing/models.py", "    due_days = models.PositiveIntegerField(default=14)\n",
          "    due_days = models.PositiveIntegerField(default=30)\n"),
        R("pyproject.toml"),
    )
    + _calls(
        "cinderpath",
        "pnpm install",
        "pnpm -r lint",
        "pnpm --filter @cinderpath/api exec tsc --noEmit",
        "pnpm vitest run packages/ui/src/Badge.test.tsx",
        "git log --oneline -10",
        "pnpm --filter @cinderpath/web build",
        E("apps/web/src/components/Header.tsx", "      <Logo size=\"sm\" />\n", "      <Logo size=\"md\" />\n"),
        R("pnpm-workspace.yaml"),
        agent=CODEX,
    )
    + _calls(
        "quayside",
        "kubectl get pods",
        "kubectl logs deploy/gateway --tail=100",
        "kubectl apply -k deploy/overlays/staging --dry-run=server",
        "helm upgrade quayside charts/quayside -f values/staging.yaml --set gateway.image.tag=1.8.4",
        "go vet ./...",
        "go test ./internal/ledger/...",
        "git diff",
        E("internal/gateway/router.go", "\tr.Get(\"/healthz\", h.health)\n", "\tr.Get(\"/healthz\", h.health)\n\tr.Get(\"/readyz\", h.ready)\n"),
        R("deploy/overlays/staging/kustomization.yaml"),
    )
    + _calls(
        "millbrook",
        "terraform fmt -recursive",
        "terraform validate",
        "terraform plan -var-file=envs/prod.tfvars -out=prod.tfplan",
        "make plan ENV=staging",
        "aws ecs list-clusters --region eu-central-1",
        "git status",
        E("modules/network/main.tf", "  enable_dns_hostnames = true\n", "  enable_dns_hostnames = true\n  enable_dns_support   = true\n"),
        R("envs/staging.tfvars"),
        agent=GEMINI,
    )
    + _calls(
        "ferrow",
        "cargo check --workspace",
        "cargo +nightly fmt --all",
        "cargo test -p ferrow-core",
        "cargo clippy --all-targets -- -D warnings",
        "gh run list --limit 5",
        "git log --oneline -5",
        E("crates/ferrow-core/src/lib.rs", "pub const VERSION: &str = \"0.9.0\";\n", "pub const VERSION: &str = \"0.9.1\";\n"),
        R("rustfmt.toml"),
    )
    + _calls(
        "tallowmere",
        "bin/rails test",
        "bin/rails db:migrate:status",
        "bundle exec rubocop -a app/models",
        "redis-cli -h redis.tallowmere.internal INFO memory",
        "bin/rails routes -g payouts",
        "git status",
        E("app/models/invoice.rb", "  belongs_to :account\n", "  belongs_to :account\n  has_many :credit_notes, dependent: :restrict_with_error\n"),
        R("config/database.yml"),
        agent=CODEX,
    )
    + _calls(
        "larchmont",
        "./vendor/bin/sail artisan test",
        "./vendor/bin/sail artisan migrate:status",
        "./vendor/bin/sail composer dump-autoload",
        "./vendor/bin/sail npm run build",
        "php artisan route:list --path=admin",
        "git diff --stat",
        E("app/Models/Invoice.php", "    protected $fillable = ['number', 'status'];\n",
          "    protected $fillable = ['number', 'status', 'due_on'];\n"),
        R(".env.example"),
    )
    + _calls(
        "oxbow",
        "mix test",
        "mix format --check-formatted",
        "mix compile --warnings-as-errors",
        "mix ecto.migrate -r Oxbow.Repo",
        "fly status -a oxbow-web",
        "fly logs -a oxbow-worker --no-tail",
        "git switch -c feature/hold-expiry",
        E("lib/oxbow/bookings.ex", "  @hold_ttl_minutes 15\n", "  @hold_ttl_minutes 20\n"),
        R("config/runtime.exs"),
        agent=GEMINI,
    )
    + _calls(
        "skerry",
        "ansible-lint playbooks/",
        "ansible-playbook -i inventories/staging/hosts.yml playbooks/web.yml --check --diff",
        "ansible-inventory -i inventories/staging/hosts.yml --list",
        "ssh -J ops@bastion.skerry.net deploy@10.20.1.12 'df -h'",
        "bats tests/",
        "shellcheck scripts/*.sh",
        E("roles/nginx/templates/site.conf.j2", "    client_max_body_size 10m;\n", "    client_max_body_size 25m;\n"),
        R("inventories/staging/hosts.yml"),
    )
    + _calls(
        "pellucid",
        "xcodebuild -list -workspace Pellucid.xcworkspace",
        "swift build --package-path Packages/PellucidKit",
        "bundle exec fastlane test",
        "xcrun simctl list runtimes",
        "swiftlint --strict",
        "git status",
        E("Packages/PellucidKit/Sources/PellucidKit/Exposure/ExposureCurve.swift", "    static let defaultGamma: Double = 2.2\n",
          "    static let defaultGamma: Double = 2.4\n"),
        R("fastlane/Fastfile"),
        agent=CODEX,
    )
    + _calls(
        "wrenfield",
        "./gradlew build",
        "./gradlew :api:test",
        "./gradlew ktlintCheck",
        "docker compose up -d postgres",
        "docker compose ps",
        "kubectl -n wrenfield get pods",
        E("api/src/main/resources/application-local.yml", "    maximum-pool-size: 5\n", "    maximum-pool-size: 10\n"),
        R("build.gradle.kts"),
    )
    + _calls(
        "gannet",
        "dotnet build Gannet.sln",
        "dotnet test Gannet.sln --no-build",
        "dotnet format Gannet.sln --verify-no-changes",
        "az webapp list -o table --subscription gannet-nonprod",
        "dotnet ef migrations list --project src/Gannet.Data --startup-project src/Gannet.Api",
        "git log --oneline -8",
        E("src/Gannet.Api/appsettings.json", "    \"PayoutBatchSize\": 200\n", "    \"PayoutBatchSize\": 500\n"),
        R("Directory.Build.props"),
        agent=GEMINI,
    )
    + _calls(
        "halyard",
        "nix --extra-experimental-features 'nix-command flakes' flake show",
        "pulumi preview --stack staging",
        "pulumi stack output --stack staging",
        "gcloud config list",
        "go test ./...",
        "git status --short",
        E("infra/main.go", "\t\tNodeCount: pulumi.Int(3),\n", "\t\tNodeCount: pulumi.Int(4),\n"),
        R("flake.nix"),
        W("infra/Pulumi.dev.yaml", "config:\n  gcp:project: halyard-dev-2231\n  gcp:region: europe-west4\n  halyard:nodeCount: \"2\"\n"),
    )
    + _calls(
        "marigold",
        "bun install",
        "bun run test",
        "bun run lint",
        "bunx prisma generate",
        "gh pr list",
        "gh pr checks 214",
        "git log --oneline -5",
        E("src/lib/cart.ts", "export const FREE_SHIPPING_THRESHOLD = 50;\n", "export const FREE_SHIPPING_THRESHOLD = 60;\n"),
        R("prisma/schema.prisma"),
        agent=CODEX,
    )
    + _calls(
        "drumlin",
        "sbt compile",
        "sbt pipeline/assembly",
        "SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" sbt test",
        "sbt scalafmtCheckAll",
        "bq ls drumlin-data:events",
        "gcloud storage ls --billing-project=drumlin-data gs://drumlin-raw/events/",
        E("pipeline/src/main/scala/drumlin/pipeline/Sessionizer.scala", "  val MaxEventsPerSession: Int = 5000\n",
          "  val MaxEventsPerSession: Int = 10000\n"),
        R("build.sbt"),
    )
    + _calls(
        "sorrel",
        "poetry install --with train",
        "poetry run pytest -q",
        "poetry run ruff check sorrel",
        "aws s3 ls s3://sorrel-models/",
        "docker compose build trainer",
        "SORREL_DEVICE=cpu make train EPOCHS=1",
        E("sorrel/train/config.py", "    learning_rate: float = 3e-4\n", "    learning_rate: float = 1e-4\n"),
        R("pyproject.toml"),
        agent=GEMINI,
    )
)
