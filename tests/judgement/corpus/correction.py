"""Shape 2: the user corrects the agent — as a rejection of the call (with or
without a typed reason), as a message right after it, or after an
intervening status or build call."""

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
    W,
    code,
    edit,
    fix,
    help_,
    ok,
    other,
    reject,
    reject_edit,
    reword,
    same,
    write,
)
from .outputs import go_get_u_output

INCIDENTS = [
    Incident(
        "uc-moment-rejected",
        CORRECTION,
        CC,
        "shopfront",
        session=[
            U("Show the order date as '3 days ago' on the order history page."),
            A("I'll add a date library for relative times."),
            reject(
                "pnpm add moment --filter web",
                "no moment please, it's huge and in maintenance mode. date-fns is already a dependency, use its formatDistanceToNow",
            ),
            A("Understood, I'll use date-fns' formatDistanceToNow, which is already installed."),
            edit(
                "apps/web/src/components/OrderRow.tsx",
                "<td>{order.createdAt}</td>",
                "<td>{formatDistanceToNow(new Date(order.createdAt), { addSuffix: true })}</td>",
            ),
        ],
        mistake="pnpm add moment --filter web",
        lesson="Don't add moment to shopfront (huge, in maintenance); use date-fns, already a dependency (formatDistanceToNow, format).",
        warn=[same("pnpm add moment --filter web"), reword("pnpm add moment-timezone@0.5.45 --filter web")],
        silent=[
            fix(
                E(
                    "apps/web/src/components/OrderRow.tsx",
                    "<td>{order.createdAt}</td>",
                    "<td>{formatDistanceToNow(new Date(order.createdAt), { addSuffix: true })}</td>",
                )
            ),
            other("pnpm add zod --filter web"),
            other("pnpm why date-fns"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-compose-down-volumes",
        CORRECTION,
        CC,
        "ledger-api",
        session=[
            U("The db container is in a weird state, restart the stack."),
            ok(
                "docker compose down -v",
                "[+] Running 4/4\n ✔ Container ledger-api-api-1  Removed   0.4s\n ✔ Container ledger-api-db-1   Removed   0.6s\n"
                " ✔ Volume ledger-api_pgdata      Removed   0.1s\n ✔ Network ledger-api_default  Removed   0.2s",
            ),
            ok("docker compose ps", "NAME      IMAGE     COMMAND   SERVICE   CREATED   STATUS    PORTS"),
            U(
                "Stop — don't use `down -v` here, it wipes the pgdata volume with my local test data. "
                "Just `docker compose down` / `docker compose restart db`."
            ),
            A(
                "Sorry about that — the volume is gone. From now on I'll use `docker compose down` without -v, or restart just the db."
            ),
            ok(
                "docker compose up -d db",
                '[+] Running 2/2\n ✔ Volume "ledger-api_pgdata"  Created\n ✔ Container ledger-api-db-1  Started',
            ),
        ],
        mistake="docker compose down -v",
        lesson="ledger-api: never docker compose down -v (it deletes the pgdata volume with local data); use docker compose down or restart db.",
        warn=[same("docker compose down -v"), reword("docker compose down --volumes --remove-orphans")],
        silent=[
            fix("docker compose down"),
            fix("docker compose restart db"),
            other("docker compose logs db --tail=50"),
            help_("docker compose down --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        "uc-force-push-shared-branch",
        CORRECTION,
        CC,
        "ingest",
        session=[
            U("Rebase feature/batch-writer on main and push it."),
            ok(
                "git fetch origin && git rebase origin/main",
                "Successfully rebased and updated refs/heads/feature/batch-writer.",
            ),
            reject("git push --force origin feature/batch-writer"),
            U("Never plain --force on this branch, Ana pushes to it too. Use --force-with-lease."),
            A("Got it — pushing with --force-with-lease so her commits can't be overwritten."),
            ok(
                "git push --force-with-lease origin feature/batch-writer",
                "To github.com:acme/ingest.git\n + 4f1c2d3...9a8b7c6 feature/batch-writer -> feature/batch-writer (forced update)",
            ),
        ],
        mistake="git push --force origin feature/batch-writer",
        lesson="Never git push --force on shared branches in ingest; use git push --force-with-lease.",
        warn=[same("git push --force origin feature/batch-writer"), reword("git push -f origin feature/batch-writer")],
        silent=[
            fix("git push --force-with-lease origin feature/batch-writer"),
            other("git push origin feature/batch-writer"),
            help_("git push --help"),
        ],
        variants=("rejection",),
    ),
    Incident(
        "uc-no-prod-apply",
        CORRECTION,
        CC,
        "infra",
        session=[
            U("The staging plan looks good; also roll the NAT change to prod."),
            ok(
                "terraform plan -var-file=envs/prod.tfvars -out=prod.tfplan",
                "Plan: 2 to add, 1 to change, 0 to destroy.\n\nSaved the plan to: prod.tfplan",
            ),
            reject(
                "terraform apply -auto-approve -var-file=envs/prod.tfvars",
                "don't apply prod from a laptop. Prod only goes through the Atlantis pipeline: push the branch and comment "
                "`atlantis plan -- -var-file=envs/prod.tfvars` on the PR",
            ),
            A("OK — I won't apply prod locally. I'll push the branch so Atlantis can plan and apply it."),
            ok(
                "git push origin infra/nat-gateway-ha",
                "To github.com:acme/infra.git\n * [new branch]      infra/nat-gateway-ha -> infra/nat-gateway-ha",
            ),
        ],
        mistake="terraform apply -auto-approve -var-file=envs/prod.tfvars",
        lesson="Never terraform apply prod locally in infra; prod changes go through the Atlantis pipeline on the PR.",
        warn=[
            same("terraform apply -auto-approve -var-file=envs/prod.tfvars"),
            reword("terraform apply prod.tfplan"),
            reword("terraform apply -var-file=envs/prod.tfvars -target=module.vpc"),
        ],
        silent=[
            fix("terraform plan -var-file=envs/prod.tfvars -out=prod.tfplan"),
            other("terraform validate"),
            help_("terraform apply -help"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-requirements-txt-generated",
        CORRECTION,
        CC,
        "scraper",
        session=[
            U("Add tenacity so the fetcher can retry."),
            reject_edit(
                "requirements.txt",
                "requests==2.31.0\n",
                "requests==2.31.0\ntenacity==8.2.3\n",
                "requirements.txt is generated by pip-compile, don't edit it by hand. Add it to requirements.in and run "
                "pip-compile",
            ),
            A("Right — I'll add it to requirements.in and regenerate."),
            edit("requirements.in", "requests\n", "requests\ntenacity\n"),
            ok(
                "pip-compile requirements.in",
                "#\n# This file is autogenerated by pip-compile with Python 3.12\n#    pip-compile requirements.in\n#\n"
                "certifi==2024.2.2\n    # via requests\nrequests==2.31.0\n    # via -r requirements.in\ntenacity==8.2.3\n    # via -r requirements.in",
            ),
        ],
        mistake="Edit requirements.txt: tenacity==8.2.3",
        lesson="scraper's requirements.txt is generated by pip-compile: add dependencies to requirements.in and run pip-compile.",
        warn=[
            same(E("requirements.txt", "requests==2.31.0\n", "requests==2.31.0\ntenacity==8.2.3\n")),
            reword(E("requirements.txt", "lxml==5.2.1\n", "lxml==5.2.1\nparsel==1.9.1\n")),
        ],
        silent=[
            fix(E("requirements.in", "tenacity\n", "tenacity\nparsel\n")),
            fix("pip-compile requirements.in"),
            code(E("scraper/settings.py", "RETRY_TIMES = 2\n", "RETRY_TIMES = 3\n")),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        "uc-yarn-test-watch-mode",
        CORRECTION,
        CC,
        "dash",
        session=[
            U("Run the tests for the chart components."),
            ok(
                "yarn test src/components/Chart.test.tsx",
                "\n DEV  v1.6.0 /home/dev/dash\n\n ✓ src/components/Chart.test.tsx (4)\n\n Test Files  1 passed (1)\n"
                "      Tests  4 passed (4)\n   Start at  10:41:07\n   Duration  1.92s\n\n PASS  Waiting for file changes...\n"
                "       press h to show help, press q to quit",
            ),
            U("That started vitest in watch mode and it never exits. Don't run `yarn test` — use `yarn vitest run`."),
            A("Understood: `yarn test` is vitest's watch mode. I'll use `yarn vitest run`."),
            ok(
                "yarn vitest run src/components/Chart.test.tsx",
                " ✓ src/components/Chart.test.tsx (4)\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)",
            ),
        ],
        mistake="yarn test src/components/Chart.test.tsx",
        lesson="In dash, yarn test starts vitest in watch mode and never exits; run yarn vitest run instead.",
        warn=[same("yarn test src/components/Chart.test.tsx"), reword("yarn test src/utils")],
        silent=[fix("yarn vitest run src/utils"), other("yarn lint"), other("yarn tsc --noEmit")],
        variants=(),
    ),
    Incident(
        "uc-go-get-u-all",
        CORRECTION,
        CODEX,
        "billing-svc",
        session=[
            U("Bump pgx to pick up the pool fix."),
            ok("go get -u ./...", go_get_u_output()),
            ok("go build ./...", ""),
            U(
                "No, don't use `go get -u ./...` — it upgraded every dependency in go.mod. Revert that and bump only pgx: "
                "go get github.com/jackc/pgx/v5@v5.5.4"
            ),
            ok(
                "git checkout go.mod go.sum && go get github.com/jackc/pgx/v5@v5.5.4",
                "go: upgraded github.com/jackc/pgx/v5 v5.5.1 => v5.5.4",
            ),
            A("Reverted go.mod/go.sum and bumped only pgx to v5.5.4."),
        ],
        mistake="go get -u ./...",
        lesson="In billing-svc, don't go get -u ./... (upgrades every dependency); bump one module: go get <module>@<version>.",
        warn=[same("go get -u ./..."), reword("go get -u all")],
        silent=[fix("go get github.com/jackc/pgx/v5@v5.6.0"), other("go mod tidy"), help_("go help get")],
        variants=("intervening",),
    ),
    Incident(
        "uc-npm-audit-fix-force",
        CORRECTION,
        CODEX,
        "docs-site",
        session=[
            U("npm says there are vulnerabilities, fix them."),
            ok(
                "npm audit fix --force",
                "npm warn using --force Recommended protections disabled.\n"
                "npm warn audit Updating @docusaurus/core to 3.3.2, which is a SemVer major change.\n\n"
                "added 212 packages, removed 87 packages, changed 341 packages, and audited 1402 packages in 38s\n\n"
                "found 0 vulnerabilities",
            ),
            ok(
                "npm run build",
                "> docs-site@1.0.0 build\n> docusaurus build\n\n[ERROR] Error: Docusaurus found broken links!\n",
            ),
            U(
                "No! Don't run `npm audit fix --force` — it bumped Docusaurus a major version and broke the build. "
                "Revert package.json and the lockfile; plain `npm audit fix` only."
            ),
            ok("git checkout package.json package-lock.json && npm ci", "added 1277 packages in 24s"),
            A("Reverted and reinstalled from the lockfile."),
        ],
        mistake="npm audit fix --force",
        lesson="docs-site: never npm audit fix --force (it takes SemVer-major upgrades, e.g. Docusaurus, and breaks the build); use npm audit fix.",
        warn=[same("npm audit fix --force"), reword("npm audit fix --force --omit=dev")],
        silent=[fix("npm audit fix"), other("npm audit --json"), other("npm run build")],
        variants=("intervening",),
    ),
    Incident(
        "uc-rm-rf-data",
        CORRECTION,
        GEMINI,
        "scraper",
        session=[
            U("Clean out the old scrape output before the next run."),
            ok("rm -rf data/ && mkdir -p data/interim", ""),
            U(
                "Please don't `rm -rf data/` — data/raw isn't in git and takes hours to download again. "
                "`make clean` only removes data/interim, use that."
            ),
            A("Sorry — I'll only use `make clean`, which removes data/interim."),
            ok("make clean", "rm -rf data/interim/*"),
        ],
        mistake="rm -rf data/",
        lesson="scraper: never rm -rf data/ (data/raw is untracked and slow to re-download); make clean removes only data/interim.",
        warn=[same("rm -rf data/"), reword("rm -rf ./data/*")],
        silent=[fix("make clean"), other("rm -rf build/ dist/"), other("rm -rf data/interim/listings-2026-02.jl")],
        variants=(),
    ),
    Incident(
        "uc-uv-pip-install",
        CORRECTION,
        GEMINI,
        "ledger-api",
        session=[
            U("We need httpx for the webhook client."),
            ok(
                "uv pip install httpx",
                "Resolved 5 packages in 212ms\nPrepared 2 packages in 95ms\nInstalled 2 packages in 8ms\n + httpcore==1.0.5\n + httpx==0.27.0",
            ),
            U("Use `uv add`, not `uv pip install` — otherwise it never lands in pyproject.toml and uv.lock."),
            ok("uv add httpx", "Resolved 41 packages in 318ms\nAudited 38 packages in 0.15ms"),
            A("Added httpx with `uv add`, so pyproject.toml and uv.lock have it."),
        ],
        mistake="uv pip install httpx",
        lesson="ledger-api: add dependencies with uv add (records them in pyproject.toml and uv.lock), not uv pip install.",
        warn=[same("uv pip install httpx"), reword('uv pip install "pydantic-settings>=2.2"')],
        silent=[fix("uv add pydantic-settings"), other("uv sync"), other("uv pip list")],
        variants=(),
    ),
    Incident(
        "uc-crate-wide-allow-dead-code",
        CORRECTION,
        CC,
        "tidepool",
        session=[
            U("Get rid of the warnings in tidepool-core."),
            edit(
                "crates/tidepool-core/src/lib.rs",
                "//! Columnar batch processing.\n",
                "//! Columnar batch processing.\n#![allow(dead_code)]\n",
            ),
            ok(
                "cargo build -p tidepool-core",
                "   Compiling tidepool-core v0.4.0 (/home/dev/tidepool/crates/tidepool-core)\n"
                "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.87s",
            ),
            U(
                "No, don't blanket-allow dead_code at the crate root, that hides real problems. Delete the unused functions instead."
            ),
            edit(
                "crates/tidepool-core/src/lib.rs",
                "//! Columnar batch processing.\n#![allow(dead_code)]\n",
                "//! Columnar batch processing.\n",
            ),
            edit(
                "crates/tidepool-core/src/batch.rs",
                "fn legacy_split(buf: &[u8]) -> Vec<&[u8]> {\n    buf.chunks(4096).collect()\n}\n\n",
                "",
            ),
        ],
        mistake="Edit crates/tidepool-core/src/lib.rs: #![allow(dead_code)]",
        lesson="tidepool: don't silence warnings with a crate-wide #![allow(dead_code)]; delete the unused code.",
        warn=[
            same(
                E(
                    "crates/tidepool-core/src/lib.rs",
                    "//! Columnar batch processing.\n",
                    "//! Columnar batch processing.\n#![allow(dead_code)]\n",
                )
            ),
            reword(
                E(
                    "crates/tidepool-cli/src/main.rs",
                    "use clap::Parser;\n",
                    "#![allow(dead_code, unused_imports)]\nuse clap::Parser;\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "crates/tidepool-core/src/batch.rs",
                    "fn old_merge(a: &Batch, b: &Batch) -> Batch {\n    todo!()\n}\n",
                    "",
                )
            ),
            code(
                E(
                    "crates/tidepool-core/src/batch.rs",
                    "pub struct Batch {",
                    "#[derive(Debug, Clone)]\npub struct Batch {",
                )
            ),
            other("cargo build -p tidepool-core"),
        ],
        variants=("intervening",),
    ),
    Incident(
        "uc-kubectl-delete-pod",
        CORRECTION,
        CC,
        "ingest",
        session=[
            U("ingest is stuck on the old config, restart it."),
            ok(
                "kubectl get pods -n ingest",
                "NAME                      READY   STATUS    RESTARTS   AGE\ningest-7c9f8d6b5-abcde     1/1     Running   0          3d\n"
                "ingest-7c9f8d6b5-x2x9q     1/1     Running   0          3d",
            ),
            ok("kubectl delete pod ingest-7c9f8d6b5-abcde -n ingest", 'pod "ingest-7c9f8d6b5-abcde" deleted'),
            U(
                "Don't delete pods by hand, it skips the PodDisruptionBudget and drops in-flight batches. "
                "Use `kubectl rollout restart deployment/ingest -n ingest`."
            ),
            ok("kubectl rollout restart deployment/ingest -n ingest", "deployment.apps/ingest restarted"),
            A("Restarted through a rollout."),
        ],
        mistake="kubectl delete pod ingest-7c9f8d6b5-abcde -n ingest",
        lesson="ingest: restart with kubectl rollout restart deployment/ingest -n ingest; deleting pods by hand drops in-flight batches.",
        warn=[
            same("kubectl delete pod ingest-7c9f8d6b5-abcde -n ingest"),
            reword("kubectl delete pod ingest-7c9f8d6b5-x2x9q -n ingest"),
            reword("kubectl delete pods -l app=ingest -n ingest"),
        ],
        silent=[
            fix("kubectl rollout restart deployment/ingest -n ingest"),
            other("kubectl get pods -n ingest"),
            other("kubectl logs deployment/ingest -n ingest --tail=100"),
        ],
        variants=(),
    ),
    Incident(
        "uc-prisma-client-per-module",
        CORRECTION,
        CC,
        "shopfront",
        session=[
            U("Add an API route that returns the last 20 orders."),
            write(
                "apps/web/src/app/api/orders/route.ts",
                'import { PrismaClient } from "@prisma/client";\nimport { NextResponse } from "next/server";\n\n'
                "const prisma = new PrismaClient();\n\nexport async function GET() {\n"
                '  const orders = await prisma.order.findMany({ take: 20, orderBy: { createdAt: "desc" } });\n'
                "  return NextResponse.json(orders);\n}\n",
            ),
            U(
                "Don't create a new PrismaClient in route files — in dev every hot reload opens another pool and we run out of "
                "connections. Import the shared client from @/lib/prisma."
            ),
            edit(
                "apps/web/src/app/api/orders/route.ts",
                'import { PrismaClient } from "@prisma/client";\nimport { NextResponse } from "next/server";\n\nconst prisma = new PrismaClient();\n',
                'import { NextResponse } from "next/server";\nimport { prisma } from "@/lib/prisma";\n',
            ),
            A("The route now uses the shared client from @/lib/prisma."),
        ],
        mistake="Write apps/web/src/app/api/orders/route.ts: const prisma = new PrismaClient();",
        lesson='shopfront: never new PrismaClient() in route/modules (each hot reload opens a pool); import { prisma } from "@/lib/prisma".',
        warn=[
            same(
                W(
                    "apps/web/src/app/api/orders/route.ts",
                    'import { PrismaClient } from "@prisma/client";\nimport { NextResponse } from "next/server";\n\n'
                    "const prisma = new PrismaClient();\n\nexport async function GET() {\n"
                    '  const orders = await prisma.order.findMany({ take: 20, orderBy: { createdAt: "desc" } });\n'
                    "  return NextResponse.json(orders);\n}\n",
                )
            ),
            reword(
                E(
                    "apps/web/src/lib/reports.ts",
                    'import { startOfMonth } from "date-fns";\n',
                    'import { startOfMonth } from "date-fns";\nimport { PrismaClient } from "@prisma/client";\n\nconst db = new PrismaClient();\n',
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "apps/web/src/lib/reports.ts",
                    'import { startOfMonth } from "date-fns";\n',
                    'import { startOfMonth } from "date-fns";\nimport { prisma } from "@/lib/prisma";\n',
                )
            ),
            code(
                W(
                    "apps/web/src/app/api/health/route.ts",
                    'import { NextResponse } from "next/server";\n\nexport function GET() {\n  return NextResponse.json({ ok: true });\n}\n',
                )
            ),
            other("pnpm --filter web exec prisma generate"),
        ],
        variants=(),
    ),
]
