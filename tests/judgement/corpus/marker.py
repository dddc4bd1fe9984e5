"""Shape 3: the assistant writes a ``LEARNING:`` / ``GOTCHA:`` line naming the call to avoid."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    MARKER,
    A,
    E,
    Incident,
    U,
    W,
    code,
    edit,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
    write,
)
from .outputs import CC_TIMEOUT, next_build_ok, pnpm_build_oom

_FETCH_BAD = (
    'import requests\n\nHEADERS = {"User-Agent": "acme-scraper/1.4"}\n\n\n'
    "def fetch_page(url: str) -> str:\n    resp = requests.get(url, headers=HEADERS)\n"
    "    resp.raise_for_status()\n    return resp.text\n"
)

INCIDENTS = [
    Incident(
        "mk-next-build-heap", MARKER, CC, "shopfront",
        session=[
            U("Make a production build so we can check the bundle size."),
            err("pnpm build", pnpm_build_oom(), 1),
            ok("NODE_OPTIONS=--max-old-space-size=4096 pnpm build", next_build_ok()),
            A("The build succeeds; first-load JS is 87.3 kB shared.\n\n"
              "LEARNING: `pnpm build` in shopfront runs out of heap with Node's default limit; run it as "
              "`NODE_OPTIONS=--max-old-space-size=4096 pnpm build`."),
        ],
        mistake="pnpm build",
        lesson="shopfront: pnpm build runs out of heap; run NODE_OPTIONS=--max-old-space-size=4096 pnpm build.",
        warn=[same("pnpm build"), reword("pnpm --filter web build")],
        silent=[fix("NODE_OPTIONS=--max-old-space-size=4096 pnpm --filter web build"), other("pnpm lint"),
                other("pnpm --filter web dev")],
        variants=("long_output",),
    ),
    Incident(
        "mk-go-test-all-runs-e2e", MARKER, CC, "ingest",
        session=[
            U("Run the unit tests after the shard refactor."),
            err("go test ./...",
                "ok  \tgithub.com/acme/ingest/internal/shard\t0.412s\nok  \tgithub.com/acme/ingest/internal/sink\t1.203s\n"
                "--- FAIL: TestEndToEndIngest (5.00s)\n    e2e_test.go:41: nats: no servers available for connection\n"
                "FAIL\nFAIL\tgithub.com/acme/ingest/e2e\t5.018s\nFAIL"),
            ok("grep -A2 '^unit:' Makefile", "unit:\n\tgo test $$(go list ./... | grep -v /e2e)"),
            ok("make unit",
               "go test $(go list ./... | grep -v /e2e)\nok  \tgithub.com/acme/ingest/internal/shard\t0.398s\n"
               "ok  \tgithub.com/acme/ingest/internal/sink\t1.187s\nok  \tgithub.com/acme/ingest/internal/backoff\t0.021s"),
            A("All unit tests pass.\n\nGOTCHA: `go test ./...` in ingest also runs ./e2e, which needs a running NATS server; "
              "use `make unit` for the unit tests."),
        ],
        mistake="go test ./...",
        lesson="ingest: go test ./... also runs ./e2e (needs NATS); run the unit tests with make unit.",
        warn=[same("go test ./..."), reword("go test -race -count=1 ./...")],
        silent=[fix("make unit"), other("go test ./internal/shard/ -run TestSplit -v"), other("go test ./internal/...")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-cargo-test-threads", MARKER, CC, "tidepool",
        session=[
            U("Run the whole test suite before I cut the release."),
            err("cargo test",
                CC_TIMEOUT + "\n   Compiling tidepool-net v0.4.0 (/home/dev/tidepool/crates/tidepool-net)\n"
                "    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.02s\n"
                "     Running unittests src/lib.rs (target/debug/deps/tidepool_net-9f1e2d3c4b5a6978)\n\n"
                "running 14 tests\ntest listener::tests::binds_ephemeral ... ok\n"
                "test listener::tests::reuses_port has been running for over 60 seconds\n"
                "test server::tests::graceful_shutdown has been running for over 60 seconds"),
            ok("cargo test -- --test-threads=1",
               "running 14 tests\n..............\ntest result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.41s\n\n"
               "running 61 tests\ntest result: ok. 61 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.88s"),
            A("Everything passes when the tests run one at a time.\n\n"
              "GOTCHA: tidepool-net's tests bind the same port, so a parallel `cargo test` hangs; run `cargo test -- --test-threads=1`."),
        ],
        mistake="cargo test",
        lesson="tidepool: tidepool-net's tests share a port, parallel cargo test hangs; run cargo test -- --test-threads=1.",
        warn=[same("cargo test"), reword("cargo test -p tidepool-net")],
        silent=[fix("cargo test -p tidepool-net -- --test-threads=1"), other("cargo test -p tidepool-core"),
                other("cargo check --all-targets")],
        variants=(),
    ),
    Incident(
        "mk-kubectl-default-context-prod", MARKER, CC, "infra",
        session=[
            U("Deploy the redis manifest for the staging cache."),
            ok("kubectl apply -f manifests/redis.yaml", "deployment.apps/redis created\nservice/redis created"),
            ok("kubectl config current-context", "prod-eks"),
            A("That went to prod: the current context is prod-eks. Removing it there and applying to staging."),
            ok("kubectl --context prod-eks delete -f manifests/redis.yaml", 'deployment.apps "redis" deleted\nservice "redis" deleted'),
            ok("kubectl --context staging-eks apply -f manifests/redis.yaml", "deployment.apps/redis created\nservice/redis created"),
            A("Redis is on staging now.\n\n"
              "LEARNING: the default kubectl context on this machine is prod-eks; always pass `--context staging-eks` "
              "when applying anything meant for staging."),
        ],
        mistake="kubectl apply -f manifests/redis.yaml",
        lesson="infra: kubectl's default context here is prod-eks; pass --context staging-eks to every apply/delete meant for staging.",
        warn=[same("kubectl apply -f manifests/redis.yaml"), reword("kubectl apply -f manifests/worker.yaml")],
        silent=[fix("kubectl --context staging-eks apply -f manifests/worker.yaml"), other("kubectl config get-contexts"),
                help_("kubectl apply --help")],
        variants=(),
    ),
    Incident(
        "mk-scrapy-httpcache", MARKER, CC, "scraper",
        session=[
            U("Re-run the listings spider to pick up the new price field."),
            ok("scrapy crawl listings -O data/interim/listings.jl",
               "2026-03-04 10:11:12 [scrapy.core.engine] INFO: Spider opened\n"
               "2026-03-04 10:11:40 [scrapy.downloadermiddlewares.retry] ERROR: Gave up retrying "
               "<GET https://www.example-homes.com/listings?page=3> (failed 3 times): 429 Unknown Status\n"
               "2026-03-04 10:11:41 [scrapy.downloadermiddlewares.retry] ERROR: Gave up retrying "
               "<GET https://www.example-homes.com/listings?page=4> (failed 3 times): 429 Unknown Status\n"
               "2026-03-04 10:12:03 [scrapy.statscollectors] INFO: Dumping Scrapy stats:\n"
               "{'downloader/response_status_count/200': 12,\n 'downloader/response_status_count/429': 57,\n"
               " 'item_scraped_count': 240,\n 'finish_reason': 'finished'}\n"
               "2026-03-04 10:12:03 [scrapy.core.engine] INFO: Spider closed (finished)"),
            ok("grep -n HTTPCACHE scraper/settings.py",
               "41:# HTTPCACHE_ENABLED: off by default, turn on for local runs with -s HTTPCACHE_ENABLED=1\n42:HTTPCACHE_DIR = 'httpcache'"),
            ok("scrapy crawl listings -s HTTPCACHE_ENABLED=1 -O data/interim/listings.jl",
               "2026-03-04 10:14:02 [scrapy.core.engine] INFO: Spider opened\n"
               "{'httpcache/hit': 412,\n 'item_scraped_count': 4120,\n 'finish_reason': 'finished'}\n"
               "2026-03-04 10:14:19 [scrapy.core.engine] INFO: Spider closed (finished)"),
            A("4120 listings with the price field.\n\n"
              "GOTCHA: `scrapy crawl` without `-s HTTPCACHE_ENABLED=1` hits the live site and we get rate-limited (HTTP 429); "
              "local runs should always use the cache."),
        ],
        mistake="scrapy crawl listings -O data/interim/listings.jl",
        lesson="scraper: run scrapy crawl with -s HTTPCACHE_ENABLED=1 locally; without the cache the live site rate-limits us (429).",
        warn=[same("scrapy crawl listings -O data/interim/listings.jl"), reword("scrapy crawl agents -o /tmp/agents.json")],
        silent=[fix("scrapy crawl agents -s HTTPCACHE_ENABLED=1 -o /tmp/agents.json"), other("scrapy list"),
                help_("scrapy crawl --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-billing-injected-clock", MARKER, CC, "billing-svc",
        session=[
            U("Add an IssuedAt timestamp to invoices."),
            read("internal/billing/invoice.go",
                 "package billing\n\nimport (\n\t\"context\"\n\n\t\"github.com/acme/billing/internal/clock\"\n)\n\n"
                 "type Service struct {\n\tclock clock.Clock\n\trepo  Repo\n}\n\n"
                 "func (s *Service) Issue(ctx context.Context, sub Subscription) (*Invoice, error) {\n"
                 "\tinv := &Invoice{\n\t\tCustomer: sub.Customer,\n\t\tStatus:   StatusDraft,\n\t}\n"),
            edit("internal/billing/invoice.go", "\t\tStatus:   StatusDraft,\n", "\t\tStatus:   StatusDraft,\n\t\tIssuedAt: time.Now(),\n"),
            err("go test ./internal/billing/...",
                "--- FAIL: TestIssueInvoice (0.00s)\n    invoice_test.go:58: IssuedAt = 2026-03-04 10:15:42.123 +0000 UTC, "
                "want 2026-01-31 00:00:00 +0000 UTC\nFAIL\nFAIL\tgithub.com/acme/billing/internal/billing\t0.031s\nFAIL"),
            edit("internal/billing/invoice.go", "\t\tIssuedAt: time.Now(),\n", "\t\tIssuedAt: s.clock.Now(),\n"),
            ok("go test ./internal/billing/...", "ok  \tgithub.com/acme/billing/internal/billing\t0.029s"),
            A("IssuedAt is set and the tests pass.\n\n"
              "GOTCHA: billing code must take the time from the injected clock (`s.clock.Now()`), never `time.Now()` — "
              "the tests run on a fake clock."),
        ],
        mistake="Edit internal/billing/invoice.go: IssuedAt: time.Now(),",
        lesson="billing-svc: in internal/billing use the injected clock (s.clock.Now()), never time.Now(); the tests use a fake clock.",
        warn=[same(E("internal/billing/invoice.go", "\t\tStatus:   StatusDraft,\n", "\t\tStatus:   StatusDraft,\n\t\tIssuedAt: time.Now(),\n")),
              reword(E("internal/billing/proration.go",
                       "func (s *Service) Prorate(sub Subscription, newPlan Plan) Money {\n",
                       "func (s *Service) Prorate(sub Subscription, newPlan Plan) Money {\n\tnow := time.Now().UTC()\n"))],
        silent=[fix(E("internal/billing/proration.go",
                      "func (s *Service) Prorate(sub Subscription, newPlan Plan) Money {\n",
                      "func (s *Service) Prorate(sub Subscription, newPlan Plan) Money {\n\tnow := s.clock.Now()\n")),
                other("go test ./internal/billing/..."),
                code(E("internal/billing/invoice.go", "type Invoice struct {\n",
                       "// Invoice is the bill for one billing period.\ntype Invoice struct {\n"))],
        variants=(),
    ),
    Incident(
        "mk-yarn-berry-up", MARKER, CC, "dash",
        session=[
            U("Update vite to the latest 5.x."),
            err("yarn upgrade vite",
                'Usage Error: Couldn\'t find a script named "upgrade".\n\n'
                "$ yarn run [--inspect] [--inspect-brk] [-T,--top-level] [-B,--binaries-only] [--require #0] <scriptName> ..."),
            ok("yarn --version", "4.1.1"),
            ok("yarn up vite@^5",
               "➤ YN0000: · Yarn 4.1.1\n➤ YN0000: ┌ Resolution step\n➤ YN0000: └ Completed in 1s 204ms\n"
               "➤ YN0000: ┌ Fetch step\n➤ YN0013: │ 2 packages were added to the project (+ 1.2 MiB).\n"
               "➤ YN0000: └ Completed in 0s 811ms\n➤ YN0000: · Done in 3s 117ms"),
            A("vite is on the latest 5.x.\n\nLEARNING: dash is on Yarn 4 — `yarn upgrade` is Yarn 1 syntax and fails; use `yarn up <pkg>`."),
        ],
        mistake="yarn upgrade vite",
        lesson="dash uses Yarn 4: yarn upgrade doesn't exist (Yarn 1); update packages with yarn up <pkg>.",
        warn=[same("yarn upgrade vite"), reword("yarn upgrade @vitejs/plugin-react --latest")],
        silent=[fix("yarn up @vitejs/plugin-react"), other("yarn add -D @types/d3"), help_("yarn --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-git-pull-rebase", MARKER, CC, "ingest",
        session=[
            U("Pull the latest main into my branch and push it."),
            ok("git pull origin main",
               "From github.com:acme/ingest\n * branch            main       -> FETCH_HEAD\nMerge made by the 'ort' strategy.\n"
               " internal/sink/clickhouse.go | 14 ++++++++------\n 1 file changed, 8 insertions(+), 6 deletions(-)"),
            err("git push origin feature/batch-writer",
                "remote: error: GH013: Repository rule violations found for refs/heads/feature/batch-writer.\n"
                "remote: \nremote: - This branch must not contain merge commits.\nremote:   Found 1 violation:\nremote: \n"
                "remote:   e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4\nremote: \nTo github.com:acme/ingest.git\n"
                " ! [remote rejected] feature/batch-writer -> feature/batch-writer (push declined due to repository rule violations)\n"
                "error: failed to push some refs to 'github.com:acme/ingest.git'"),
            ok("git reset --hard ORIG_HEAD && git pull --rebase origin main",
               "HEAD is now at 4f1c2d3 batch writer: flush on size or age\nSuccessfully rebased and updated refs/heads/feature/batch-writer."),
            ok("git push origin feature/batch-writer",
               "To github.com:acme/ingest.git\n   4f1c2d3..9a8b7c6  feature/batch-writer -> feature/batch-writer"),
            A("Rebased onto main and pushed.\n\n"
              "GOTCHA: ingest's branch rules reject merge commits — always `git pull --rebase`, never a plain `git pull`."),
        ],
        mistake="git pull origin main",
        lesson="ingest's branch rules reject merge commits: use git pull --rebase, never a plain git pull.",
        warn=[same("git pull origin main"), reword("git pull")],
        silent=[fix("git pull --rebase origin main"), other("git fetch origin"), help_("git pull --help")],
        variants=(),
    ),
    Incident(
        "mk-compose-dev-profile", MARKER, CODEX, "billing-svc",
        session=[
            U("Start the local stack and check the health endpoint."),
            ok("docker compose up -d",
               "[+] Running 3/3\n ✔ Network billing-svc_default       Created\n ✔ Container billing-svc-postgres-1  Started\n"
               " ✔ Container billing-svc-billing-1   Started"),
            err("curl -sf localhost:8080/healthz", "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server", 7),
            ok("docker compose logs billing --tail=20",
               "billing-1  | 2026/03/04 10:20:11 ERROR stripe client: dial tcp: lookup stripe-mock on 127.0.0.11:53: no such host\n"
               "billing-1  | 2026/03/04 10:20:11 exiting"),
            ok("grep -n -B2 'profiles' compose.yaml", "27-  stripe-mock:\n28-    image: stripe/stripe-mock:v0.186.0\n29:    profiles: [\"dev\"]"),
            ok("docker compose --profile dev up -d",
               "[+] Running 2/2\n ✔ Container billing-svc-stripe-mock-1  Started\n ✔ Container billing-svc-billing-1      Started"),
            ok("curl -s localhost:8080/healthz", '{"status":"ok"}'),
            A("Healthy.\n\nLEARNING: in billing-svc, `docker compose up` must be `docker compose --profile dev up` — "
              "stripe-mock is in the dev profile and billing exits without it."),
        ],
        mistake="docker compose up -d",
        lesson="billing-svc: start the stack with docker compose --profile dev up (stripe-mock is in the dev profile; billing exits without it).",
        warn=[same("docker compose up -d"), reword("docker compose up billing")],
        silent=[fix("docker compose --profile dev up -d billing"), other("docker compose logs billing --tail=50"),
                help_("docker compose up --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-cargo-install-virtual-manifest", MARKER, CODEX, "tidepool",
        session=[
            U("Install the tidepool CLI locally so I can try it."),
            err("cargo install --path .",
                "error: found a virtual manifest at `/home/dev/tidepool/Cargo.toml` instead of a package manifest", 101),
            ok("ls crates", "tidepool-cli\ntidepool-core\ntidepool-net"),
            ok("cargo install --path crates/tidepool-cli",
               "  Installing tidepool-cli v0.4.0 (/home/dev/tidepool/crates/tidepool-cli)\n"
               "    Finished `release` profile [optimized] target(s) in 1m 12s\n"
               "  Installing /home/dev/.cargo/bin/tidepool\n   Installed package `tidepool-cli v0.4.0 (/home/dev/tidepool/crates/tidepool-cli)` "
               "(executable `tidepool`)"),
            A("Installed `tidepool`.\n\nGOTCHA: the tidepool root is a virtual workspace — `cargo install --path .` fails; "
              "install the CLI with `cargo install --path crates/tidepool-cli`."),
        ],
        mistake="cargo install --path .",
        lesson="tidepool: cargo install --path . fails (virtual workspace); use cargo install --path crates/tidepool-cli.",
        warn=[same("cargo install --path ."), reword("cargo install --path . --locked --force")],
        silent=[fix("cargo install --path crates/tidepool-cli --locked"), other("cargo install --list"),
                other("cargo install cargo-nextest --locked")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-pnpm-dlx-prisma", MARKER, GEMINI, "shopfront",
        session=[
            U("Create a migration for the new orders.discount column."),
            err("pnpm dlx prisma migrate dev --name add_order_discount",
                "Packages: +6\n++++++\nProgress: resolved 6, reused 0, downloaded 6, added 6, done\n"
                "Prisma schema loaded from apps/web/prisma/schema.prisma\nError: Prisma schema validation - (get-config wasm)\n"
                "Error code: P1012\nerror: The preview feature \"driverAdapters\" is not known. Expected one of: relationJoins, "
                "nativeDistinct, postgresqlExtensions\n  -->  apps/web/prisma/schema.prisma:3\n   | \n 2 |   provider        = \"prisma-client-js\"\n"
                " 3 |   previewFeatures = [\"driverAdapters\"]\n   | \n\nValidation Error Count: 1\n[Context: getConfig]\n\n"
                "Prisma CLI Version : 6.0.1"),
            ok("pnpm --filter web exec prisma --version", "prisma                  : 5.14.0\n@prisma/client          : 5.14.0"),
            ok("pnpm --filter web exec prisma migrate dev --name add_order_discount",
               "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n"
               "Datasource \"db\": PostgreSQL database \"shopfront\", schema \"public\" at \"localhost:5432\"\n\n"
               "Applying migration `20260304102233_add_order_discount`\n\nYour database is now in sync with your schema.\n\n"
               "✔ Generated Prisma Client (v5.14.0)"),
            A("Migration created and applied.\n\n"
              "GOTCHA: `pnpm dlx prisma` downloads the latest Prisma (6.x), which rejects our 5.x schema; always use the repo's "
              "own CLI: `pnpm --filter web exec prisma …`."),
        ],
        mistake="pnpm dlx prisma migrate dev --name add_order_discount",
        lesson="shopfront: pnpm dlx prisma fetches Prisma 6 which rejects the 5.x schema; use pnpm --filter web exec prisma.",
        warn=[same("pnpm dlx prisma migrate dev --name add_order_discount"), reword("pnpm dlx prisma generate")],
        silent=[fix("pnpm --filter web exec prisma generate"), other("pnpm dlx license-checker --summary"),
                help_("pnpm dlx --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-aws-infra-admin-profile", MARKER, GEMINI, "infra",
        session=[
            U("Get kube credentials for the staging cluster."),
            err("aws eks update-kubeconfig --name staging-eks --region eu-west-1",
                "\nAn error occurred (AccessDeniedException) when calling the DescribeCluster operation: User: "
                "arn:aws:sts::123456789012:assumed-role/ReadOnly/dev@example.com is not authorized to perform: "
                "eks:DescribeCluster on resource: arn:aws:eks:eu-west-1:123456789012:cluster/staging-eks", 254),
            ok("aws configure list-profiles", "default\ninfra-admin\nsandbox"),
            ok("aws eks update-kubeconfig --name staging-eks --region eu-west-1 --profile infra-admin",
               "Added new context arn:aws:eks:eu-west-1:123456789012:cluster/staging-eks to /home/dev/.kube/config"),
            A("Done.\n\nLEARNING: in infra the default AWS profile is a read-only role; EKS, IAM and other infra operations "
              "need `--profile infra-admin`."),
        ],
        mistake="aws eks update-kubeconfig --name staging-eks --region eu-west-1",
        lesson="infra: the default AWS profile is read-only; run aws eks/iam/infra commands with --profile infra-admin.",
        warn=[same("aws eks update-kubeconfig --name staging-eks --region eu-west-1"),
              reword("aws eks update-kubeconfig --name prod-eks --region eu-west-1")],
        silent=[fix("aws eks update-kubeconfig --name prod-eks --region eu-west-1 --profile infra-admin"),
                other("aws configure list-profiles"), help_("aws eks help")],
        variants=("diagnostic",),
    ),
    Incident(
        "mk-requests-timeout", MARKER, CC, "scraper",
        session=[
            U("Add a helper that fetches a listing page and returns its HTML."),
            write("scraper/fetch.py", _FETCH_BAD),
            err("poetry run python -c \"from scraper.fetch import fetch_page; print(len(fetch_page('https://www.example-homes.com/listings?page=1')))\"",
                CC_TIMEOUT),
            edit("scraper/fetch.py", "    resp = requests.get(url, headers=HEADERS)\n",
                 "    resp = requests.get(url, headers=HEADERS, timeout=(5, 30))\n"),
            ok("poetry run python -c \"from scraper.fetch import fetch_page; print(len(fetch_page('https://www.example-homes.com/listings?page=1')))\"",
               "184233"),
            A("Works now (it retried through the proxy).\n\n"
              "GOTCHA: requests without `timeout=` hangs forever when the office proxy drops a connection; every "
              "`requests.get/post` in scraper needs `timeout=(5, 30)`."),
        ],
        mistake="Write scraper/fetch.py: resp = requests.get(url, headers=HEADERS)",
        lesson="scraper: every requests.get/post needs timeout=(5, 30); without it a dropped proxy connection hangs forever.",
        warn=[same(W("scraper/fetch.py", _FETCH_BAD)),
              reword(E("scraper/fetch.py", "    resp = requests.get(url, headers=HEADERS, timeout=(5, 30))\n",
                       "    resp = requests.get(url, headers=HEADERS)\n")),
              reword(E("scraper/notify.py", "def post_summary(summary: dict) -> None:\n",
                       "def post_summary(summary: dict) -> None:\n    requests.post(SLACK_WEBHOOK, json={\"text\": summary[\"text\"]})\n"))],
        silent=[fix(E("scraper/notify.py", "def post_summary(summary: dict) -> None:\n",
                      "def post_summary(summary: dict) -> None:\n    requests.post(SLACK_WEBHOOK, json={\"text\": summary[\"text\"]}, timeout=(5, 30))\n")),
                other("poetry run pytest -q tests/test_fetch.py"),
                code(E("scraper/fetch.py", 'HEADERS = {"User-Agent": "acme-scraper/1.4"}\n',
                       'HEADERS = {"User-Agent": "acme-scraper/1.5", "Accept-Language": "en"}\n'))],
        variants=(),
    ),
]
