"""Everyday tool calls in the corpus projects: none repeats a mistake of any
incident, so every one of them must stay silent whatever was learned.

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
        "shopfront",
        "git status",
        "git diff --stat",
        "git log --oneline -10",
        'git add apps/web/src/lib/cart.ts && git commit -m "cart: persist to localStorage"',
        "pnpm --filter web typecheck",
        "pnpm --filter web test -- cart",
        "pnpm add -D @testing-library/user-event --filter web",
        "ls apps/web/src/components",
        'grep -rn "useCart" apps/web/src',
        "pnpm prettier --write apps/web/src/lib/cart.ts",
        "pnpm --filter web exec next info",
        E("apps/web/src/components/CartButton.tsx", "  Add to cart\n", "  Add to basket\n"),
        W("apps/web/src/lib/currency.ts",
          'export function formatCurrency(cents: number, currency = "EUR"): string {\n'
          '  return new Intl.NumberFormat("de-DE", { style: "currency", currency }).format(cents / 100);\n}\n'),
        E("apps/web/src/app/layout.tsx", "  title: \"Shopfront\",\n", "  title: \"Shopfront — fast checkout\",\n"),
        R("apps/web/next.config.mjs"),
    )
    + _calls(
        "ledger-api",
        "git status",
        "git diff app/routers/invoices.py",
        "uv run pytest tests/test_health.py -q",
        "uv run ruff check app",
        "uv run ruff format app tests",
        "uv run mypy app",
        "uv run uvicorn app.main:app --reload --port 8001",
        "docker compose ps",
        "docker compose logs db --tail=50",
        "ls app/routers",
        'grep -rn "def create_invoice" app',
        "uv lock --upgrade-package httpx",
        "uv run alembic -c migrations/alembic.ini current",
        E("app/routers/invoices.py", '@router.get("/invoices/{invoice_id}")\n',
          '@router.get("/invoices/{invoice_id}", response_model=InvoiceOut)\n'),
        W("app/schemas/customer.py",
          "from pydantic import BaseModel, EmailStr\n\n\nclass CustomerIn(BaseModel):\n    name: str\n    email: EmailStr\n"),
        E("tests/test_invoices.py", "def test_list_invoices(client):\n", "def test_list_invoices(client, seeded_db):\n"),
        R("app/main.py"),
    )
    + _calls(
        "ingest",
        "go build ./...",
        "go vet ./...",
        "go test ./internal/shard/ -run TestSplit -v",
        "git status",
        "git log -p -1",
        "git checkout -b fix/backoff-jitter",
        "git fetch origin",
        "gofmt -l .",
        "go mod tidy",
        "ls internal",
        'rg "func New" internal',
        "kubectl get pods -n ingest",
        E("internal/shard/split.go", "const maxShards = 16\n", "const maxShards = 32\n"),
        W("internal/backoff/backoff.go",
          "package backoff\n\nimport \"time\"\n\n// Next returns the delay before attempt n (n >= 1).\n"
          "func Next(n int) time.Duration {\n\td := time.Duration(1<<uint(n)) * 100 * time.Millisecond\n"
          "\tif d > 30*time.Second {\n\t\treturn 30 * time.Second\n\t}\n\treturn d\n}\n"),
        R("go.mod"),
    )
    + _calls(
        "tidepool",
        "cargo check",
        "cargo fmt --all",
        "cargo clippy --all-targets -- -D warnings",
        "cargo test -p tidepool-core parse::",
        "git status",
        "git diff",
        "ls crates",
        "cat Cargo.toml",
        "cargo tree -p tidepool-core -i serde",
        "cargo doc -p tidepool-core --no-deps",
        E("crates/tidepool-core/src/lib.rs", "pub mod batch;\n", "pub mod batch;\npub mod checksum;\n"),
        W("crates/tidepool-core/src/checksum.rs",
          "/// CRC32 of a block.\npub fn crc32(data: &[u8]) -> u32 {\n    crc32fast::hash(data)\n}\n"),
        R("crates/tidepool-cli/src/main.rs"),
    )
    + _calls(
        "infra",
        "terraform fmt -recursive",
        "terraform validate",
        "terraform plan -var-file=envs/staging.tfvars -out=staging.tfplan",
        "git status",
        "git diff modules/vpc",
        "helm lint charts/ingest",
        "kubectl --context staging-eks get pods -A",
        "kubectl config current-context",
        "aws sts get-caller-identity --profile infra-admin",
        "tflint --recursive",
        E("modules/vpc/main.tf", "  single_nat_gateway = true\n", "  single_nat_gateway = false\n"),
        W("envs/dev.tfvars", "environment = \"dev\"\nregion      = \"eu-west-1\"\nnat_gateways = 1\n"),
        R("modules/vpc/variables.tf"),
    )
    + _calls(
        "billing-svc",
        "make build",
        "make lint",
        "go test ./internal/billing/ -run TestInvoiceTotal",
        "docker compose --profile dev ps",
        "docker images | grep billing",
        "git status",
        "git log --oneline -5",
        "go mod download",
        "docker build -f deploy/Dockerfile -t billing:ci .",
        "kubectl get pods -n billing",
        "curl -s localhost:8080/healthz",
        E("internal/billing/invoice.go", "\tStatusVoid   Status = \"void\"\n",
          "\tStatusVoid   Status = \"void\"\n\tStatusRefund Status = \"refund\"\n"),
        W("internal/billing/discount_test.go",
          "package billing\n\nimport \"testing\"\n\nfunc TestApplyDiscount(t *testing.T) {\n"
          "\tif got := ApplyDiscount(1000, 10); got != 900 {\n\t\tt.Fatalf(\"got %d, want 900\", got)\n\t}\n}\n"),
        R("internal/billing/total.go"),
    )
    + _calls(
        "dash",
        "yarn vitest run src/components",
        "yarn lint",
        "yarn tsc --noEmit",
        "yarn dev --port 5174",
        "git status",
        "git diff --stat",
        "yarn add recharts",
        "yarn why vite",
        "ls src/components",
        E("src/components/Chart.tsx", "  height={240}\n", "  height={320}\n"),
        W("src/hooks/useDebounce.ts",
          'import { useEffect, useState } from "react";\n\nexport function useDebounce<T>(value: T, ms = 300): T {\n'
          "  const [v, setV] = useState(value);\n  useEffect(() => {\n    const t = setTimeout(() => setV(value), ms);\n"
          "    return () => clearTimeout(t);\n  }, [value, ms]);\n  return v;\n}\n"),
        R("vite.config.ts"),
    )
    + _calls(
        "scraper",
        "poetry run pytest -q tests/test_parse.py",
        "poetry install",
        "poetry show --tree",
        "poetry run ruff check .",
        "git status",
        "scrapy list",
        "scrapy crawl listings -s HTTPCACHE_ENABLED=1 -O /tmp/out.jl",
        "ls scraper/spiders",
        "head -n 5 data/interim/listings.jl",
        "wc -l data/interim/listings.jl",
        E("scraper/parse.py", "    price = int(raw.replace(\"$\", \"\"))\n",
          "    price = int(raw.replace(\"$\", \"\").replace(\",\", \"\"))\n"),
        W("scraper/items.py",
          "import scrapy\n\n\nclass ListingItem(scrapy.Item):\n    id = scrapy.Field()\n    title = scrapy.Field()\n"
          "    city = scrapy.Field()\n    price = scrapy.Field()\n"),
        R("scraper/settings.py"),
    )
    + _calls(
        "docs-site",
        "npm run start -- --port 3001",
        "npm run build",
        "git status",
        "npm ls @docusaurus/core",
        "node --test scripts/",
        "ls docs",
        "aws s3 ls s3://docs-site-prod --profile docs-deploy",
        E("docs/intro.md", "# Introduction\n", "# Getting started\n"),
        W("docs/guides/deploy.md", "---\ntitle: Deploying\n---\n\nThe site is published by CI on every merge to main.\n"),
        R("docusaurus.config.js"),
    )
    + _calls(
        "notify",
        "git status",
        "ls src",
        "source ~/.nvm/nvm.sh && nvm use && npm test",
        E("src/index.ts", "export { send } from \"./send\";\n", "export { send } from \"./send\";\nexport { render } from \"./render\";\n"),
        R("package.json"),
    )
    + _calls(
        "relay",
        "git status",
        "cargo fmt --check",
        "cargo build --no-default-features --features rustls --release",
        R("src/main.rs"),
    )
)
