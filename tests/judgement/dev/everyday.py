"""Dev split: everyday tool calls in the dev projects. None repeats a mistake of
any dev incident (they use the projects' right forms: the wrapper, the
solution name, bundle exec, the venv, source .env, …), so every one of them
must stay silent whatever was learned.

Claude Code payloads (``Bash``, ``Edit``, ``Write``, ``Read``), in the same
project folders as the incidents, so the project's own lessons are in scope.
"""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import E, Everyday, R, W


def _calls(project: str, *actions) -> list[Everyday]:
    return [Everyday(project, a) for a in actions]


EVERYDAY = (
    _calls(
        "harbor-api",
        "git status",
        "git diff app/src/main/java/com/acme/harbor/order/OrderService.java",
        "./gradlew :app:test",
        "./gradlew :app:compileJava",
        "docker build -t harbor-api:dev .",
        "kubectl -n harbor get pods",
        E("app/src/main/java/com/acme/harbor/order/OrderController.java",
          '    @GetMapping("/orders/{id}")\n', '    @GetMapping(value = "/orders/{id}", produces = "application/json")\n'),
        R("app/build.gradle.kts"),
    )
    + _calls(
        "kestrel",
        "git log --oneline -10",
        "mvn -B -pl kestrel-core verify",
        "mvn -B -pl kestrel-api -am compile",
        E("kestrel-core/src/main/java/dev/kestrel/core/retry/RetryPolicy.java",
          "    private static final int MAX_ATTEMPTS = 5;\n", "    private static final int MAX_ATTEMPTS = 6;\n"),
        R("pom.xml"),
    )
    + _calls(
        "orchard",
        "git status",
        "bundle install",
        "bundle exec rspec spec/models",
        "bundle exec rubocop app/models/order.rb",
        "bin/rails routes -g orders",
        E("app/models/order.rb", "  has_many :line_items\n", "  has_many :line_items, dependent: :destroy\n"),
        W("app/services/coupon_validator.rb",
          "class CouponValidator\n  def initialize(coupon)\n    @coupon = coupon\n  end\n\n"
          "  def valid?\n    @coupon.active? && (@coupon.expires_at.nil? || @coupon.expires_at.future?)\n  end\nend\n"),
        R("config/routes.rb"),
    )
    + _calls(
        "beacon",
        "dotnet build Beacon.sln",
        "dotnet test Beacon.sln --filter Category=Unit",
        "dotnet format Beacon.sln --verify-no-changes",
        "docker compose ps",
        E("src/Beacon.Api/Program.cs", "builder.Services.AddControllers();\n",
          "builder.Services.AddControllers();\nbuilder.Services.AddProblemDetails();\n"),
        R("src/Beacon.Api/appsettings.Development.json"),
    )
    + _calls(
        "mosaic",
        "git status",
        "npm test -- apps/api/src/routes",
        "npm run build -w apps/api",
        "npm install zod -w apps/api",
        "npx prettier --check apps/api/src",
        E("apps/api/src/schemas/order.ts", "  quantity: z.number().int(),\n", "  quantity: z.number().int().positive(),\n"),
        W("packages/ui/src/Badge.tsx",
          'import type { ReactNode } from "react";\n\nexport function Badge({ children }: { children: ReactNode }) {\n'
          '  return <span className="badge">{children}</span>;\n}\n'),
        R("package.json"),
    )
    + _calls(
        "fjord",
        ".venv/bin/pytest -q",
        ".venv/bin/ruff check .",
        "DJANGO_SETTINGS_MODULE=fjord.settings.local .venv/bin/python manage.py showmigrations catalog",
        E("catalog/models.py", "    name = models.CharField(max_length=120)\n",
          "    name = models.CharField(max_length=200)\n"),
        R("fjord/settings/local.py"),
    )
    + _calls(
        "quarry",
        "cargo test",
        "cargo clippy --all-targets -- -D warnings",
        "cargo build --release",
        "cargo run -- lint examples/",
        E("src/lint/rules/mod.rs", "pub mod naming;\n", "pub mod naming;\npub mod select_star;\n"),
        R("Cargo.toml"),
    )
    + _calls(
        "lantern",
        "git log --oneline -5",
        "go build ./...",
        "go vet ./...",
        "go test ./internal/...",
        "make generate",
        "helm lint charts/lantern",
        "helm history lantern -n lantern",
        E("internal/cache/lru.go", "const defaultCapacity = 4096\n", "const defaultCapacity = 8192\n"),
        R("go.mod"),
    )
    + _calls(
        "platform-ops",
        "git status",
        "terraform fmt -recursive",
        "terraform validate",
        "terraform workspace show",
        "gcloud config list",
        "ansible-lint playbooks/",
        E("modules/gke/main.tf", "    machine_type = \"e2-standard-4\"\n", "    machine_type = \"e2-standard-8\"\n"),
        R("envs/staging.tfvars"),
    )
    + _calls(
        "pipeline",
        "bats tests/",
        "shellcheck scripts/*.sh",
        'source .env && psql "$DATABASE_URL" -c "\\dt staging.*"',
        "ls data/exports",
        E("scripts/load_orders.sh", 'readonly BATCH_SIZE=5000\n', 'readonly BATCH_SIZE=10000\n'),
        R("sql/views/daily_revenue.sql"),
    )
    + _calls(
        "tally",
        "uv sync",
        "uv run pytest -q",
        R("tally/tasks.py"),
    )
)
