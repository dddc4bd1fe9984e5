"""blind3 / correction: the user stops or corrects a call (a rejection with a reason, or a message after it)."""

from __future__ import annotations

from ..spec import CC, CODEX, CORRECTION, GEMINI, A, Incident, U, err, fix, help_, ok, other, reject, reword, same

INCIDENTS = [
    Incident(
        id="b3-correction-git-01",
        shape=CORRECTION,
        agent=CC,
        project="ledgerline",
        session=[
            U("I rebased feature/ledger-export on main, push it"),
            err(
                "git push origin feature/ledger-export",
                " ! [rejected]        feature/ledger-export -> feature/ledger-export (non-fast-forward)\n"
                "error: failed to push some refs to 'github.com:ledgerline/ledgerline.git'\n"
                "hint: Updates were rejected because the tip of your current branch is behind",
            ),
            reject(
                "git push --force origin feature/ledger-export",
                "don't plain force push, Priya pushes to that branch too. use --force-with-lease so you don't clobber her commits",
            ),
            ok(
                "git push --force-with-lease origin feature/ledger-export",
                "To github.com:ledgerline/ledgerline.git\n + 3a9c1d2...e71b0f4 feature/ledger-export -> feature/ledger-export (forced update)",
            ),
        ],
        mistake="git push --force origin feature/ledger-export",
        lesson="never plain --force push shared branches in ledgerline; use git push --force-with-lease",
        warn=[
            same("git push --force origin feature/ledger-export"),
            reword("git push -f origin feature/ledger-export"),
            reword("git push origin +feature/ledger-export"),
            reword("git push --force origin HEAD"),
        ],
        silent=[
            fix("git push --force-with-lease origin feature/ledger-export"),
            fix("git push origin feature/ledger-export --force-with-lease"),
            other("git push origin feature/ledger-export"),
            other("git fetch origin"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-git-02",
        shape=CORRECTION,
        agent=CODEX,
        project="atlas-mono",
        session=[
            U("commit the router fix"),
            ok(
                "git add -A && git commit -m 'router: keep query string on redirect'",
                "[fix/router-query 5d2e8a1] router: keep query string on redirect\n 41 files changed, 3120 insertions(+), 12 deletions(-)\n"
                " create mode 100644 .env.local\n create mode 100644 dist/router.js\n create mode 100644 dist/router.js.map",
            ),
            U(
                "ugh, 41 files. don't use git add -A in this repo, it sweeps in dist/ and .env.local. "
                "undo that and add the files you changed by name"
            ),
            ok("git reset --soft HEAD~1 && git restore --staged .", ""),
            ok(
                "git status --short",
                " M packages/router/src/redirect.ts\n M packages/router/src/redirect.test.ts\n?? .env.local\n?? dist/",
            ),
            ok(
                "git add packages/router/src/redirect.ts packages/router/src/redirect.test.ts && git commit -m 'router: keep query string on redirect'",
                "[fix/router-query 9b41c07] router: keep query string on redirect\n 2 files changed, 38 insertions(+), 12 deletions(-)",
            ),
        ],
        mistake="git add -A",
        lesson="in atlas-mono never git add -A / git add . (it picks up dist/ and .env.local); stage the changed files by name",
        warn=[
            same("git add -A"),
            reword("git add --all && git commit -m 'lint fixes'"),
            reword("git add . && git commit -m 'wip'"),
        ],
        silent=[
            fix("git add packages/router/src/redirect.ts packages/router/src/redirect.test.ts"),
            fix("git add -p packages/router/src/redirect.ts"),
            other("git status --short"),
            other("git commit -m 'router: keep query string on redirect'"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b3-correction-docker-03",
        shape=CORRECTION,
        agent=GEMINI,
        project="riverbed-ml",
        session=[
            U("the disk is full again, free some docker space"),
            ok(
                "docker system df",
                "TYPE            TOTAL     ACTIVE    SIZE      RECLAIMABLE\nImages          23        4         61.2GB    38.7GB (63%)\n"
                "Containers      6         1         1.1GB     1.0GB (90%)\nLocal Volumes   9         3         12.4GB    4.2GB (33%)\nBuild Cache     412       0         27.9GB    27.9GB",
            ),
            reject("docker system prune -a -f"),
            U(
                "no! -a wipes the cached CUDA base images, that's 40GB to pull again. "
                "the build cache is what's big, use docker builder prune"
            ),
            ok("docker builder prune -f", "Deleted build cache objects:\n...\nTotal reclaimed space: 27.9GB"),
        ],
        mistake="docker system prune -a -f",
        lesson="on riverbed-ml's box don't docker system prune -a (it deletes the CUDA base images); free space with docker builder prune",
        warn=[
            same("docker system prune -a -f"),
            reword("docker system prune --all --force"),
            reword("docker system prune -af --volumes"),
        ],
        silent=[
            fix("docker builder prune -f"),
            fix("docker builder prune --force --filter until=72h"),
            other("docker system df"),
            other("docker image ls"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-docker-04",
        shape=CORRECTION,
        agent=CC,
        project="northwind",
        session=[
            U("the api container is wedged, reset the compose stack"),
            reject(
                "docker compose down -v",
                "not -v, that deletes the sqlserver volume with my seeded data. just down and up",
            ),
            ok(
                "docker compose down",
                "[+] Running 3/3\n ✔ Container northwind-api-1        Removed\n ✔ Container northwind-sqlserver-1  Removed\n ✔ Network northwind_default       Removed",
            ),
            ok(
                "docker compose up -d",
                "[+] Running 3/3\n ✔ Network northwind_default       Created\n ✔ Container northwind-sqlserver-1  Started\n ✔ Container northwind-api-1        Started",
            ),
        ],
        mistake="docker compose down -v",
        lesson="northwind: never docker compose down -v, it drops the seeded sqlserver volume; use docker compose down",
        warn=[
            same("docker compose down -v"),
            reword("docker compose down --volumes"),
            reword("docker compose down -v --remove-orphans"),
        ],
        silent=[
            fix("docker compose down"),
            fix("docker compose down --remove-orphans"),
            other("docker compose restart api"),
            other("docker compose ps"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-k8s-05",
        shape=CORRECTION,
        agent=CODEX,
        project="harborview",
        session=[
            U("bump the gateway memory limit to 1Gi in prod, it keeps getting OOMKilled"),
            reject("kubectl edit deployment gateway -n edge"),
            U(
                "never kubectl edit in prod, argo will revert it and nobody sees it in git. "
                "change charts/gateway/values-prod.yaml and helm upgrade"
            ),
            ok("grep -n memory charts/gateway/values-prod.yaml", "41:    memory: 512Mi"),
            ok("sed -i 's/memory: 512Mi/memory: 1Gi/' charts/gateway/values-prod.yaml"),
            ok(
                "helm upgrade gateway ./charts/gateway -n edge -f charts/gateway/values-prod.yaml",
                'Release "gateway" has been upgraded. Happy Helming!\nNAME: gateway\nNAMESPACE: edge\nSTATUS: deployed\nREVISION: 58',
            ),
        ],
        mistake="kubectl edit deployment gateway -n edge",
        lesson="no kubectl edit on harborview prod: change the chart values (charts/gateway/values-prod.yaml) and helm upgrade",
        warn=[
            same("kubectl edit deployment gateway -n edge"),
            reword("kubectl -n edge edit deploy/gateway"),
            reword("kubectl edit deployment/gateway --namespace edge"),
        ],
        silent=[
            fix("helm upgrade gateway ./charts/gateway -n edge -f charts/gateway/values-prod.yaml"),
            other("kubectl get deployment gateway -n edge -o yaml"),
            other("kubectl describe deployment gateway -n edge"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-k8s-06",
        shape=CORRECTION,
        agent=GEMINI,
        project="glasshouse",
        session=[
            U("the operator in my kind cluster is in a weird state, start it from scratch"),
            reject("kubectl delete namespace glasshouse-system"),
            U(
                "don't delete the namespace, the Widget CRs have finalizers and the namespace hangs in Terminating forever. "
                "use make undeploy, then make deploy"
            ),
            ok(
                "make undeploy",
                "bin/kustomize build config/default | kubectl delete --ignore-not-found=false -f -\n"
                'deployment.apps "glasshouse-controller-manager" deleted\ncustomresourcedefinition.apiextensions.k8s.io "widgets.glasshouse.dev" deleted',
            ),
            ok("make deploy IMG=glasshouse:dev", "deployment.apps/glasshouse-controller-manager created"),
        ],
        mistake="kubectl delete namespace glasshouse-system",
        lesson="don't delete the glasshouse-system namespace (finalizers hang it); reset the operator with make undeploy && make deploy",
        warn=[
            same("kubectl delete namespace glasshouse-system"),
            reword("kubectl delete ns glasshouse-system"),
            reword("kubectl delete namespace glasshouse-system --wait=false"),
        ],
        silent=[
            fix("make undeploy"),
            fix("make undeploy && make deploy IMG=glasshouse:dev"),
            other("kubectl get ns"),
            other("kubectl delete pod -n glasshouse-system -l control-plane=controller-manager"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-npm-07",
        shape=CORRECTION,
        agent=CC,
        project="tidepool-web",
        session=[
            U("dependabot flagged nanoid, fix the vuln"),
            ok(
                "pnpm update --latest",
                "Scope: all 6 workspace projects\nProgress: resolved 1240, reused 1011, downloaded 229, added 231, done\n\n"
                "dependencies:\n- next 14.2.15\n+ next 15.1.3\n- react 18.3.1\n+ react 19.0.0\n- react-dom 18.3.1\n+ react-dom 19.0.0\n"
                "- zod 3.23.8\n+ zod 3.24.1\n- @tanstack/react-query 5.59.0\n+ @tanstack/react-query 5.62.8\n"
                "- nanoid 3.3.7\n+ nanoid 5.0.9\n\ndevDependencies:\n- typescript 5.5.4\n+ typescript 5.7.2\n- eslint 8.57.1\n+ eslint 9.17.0\n"
                "- vitest 1.6.0\n+ vitest 2.1.8\n\n WARN  Issues with peer dependencies found\n"
                'apps/web\n└─┬ eslint-config-next 14.2.15\n  └── ✕ unmet peer eslint@"^7.23.0 || ^8.0.0": found 9.17.0\nDone in 38.4s',
            ),
            U(
                "whoa, that bumped next and react majors. don't run update --latest on the whole workspace. "
                "revert the lockfile and only update the affected package"
            ),
            ok("git restore package.json pnpm-lock.yaml apps/*/package.json packages/*/package.json"),
            ok(
                "pnpm update nanoid --recursive",
                "Progress: resolved 1184, reused 1184, downloaded 0, added 0, done\n- nanoid 3.3.7\n+ nanoid 3.3.8",
            ),
        ],
        mistake="pnpm update --latest",
        lesson="in tidepool-web don't pnpm update --latest across the workspace (bumps majors); update only the named package: pnpm update <pkg>",
        warn=[
            same("pnpm update --latest"),
            reword("pnpm up -L"),
            reword("pnpm update --latest --recursive"),
        ],
        silent=[
            fix("pnpm update nanoid --recursive"),
            fix("pnpm up nanoid"),
            other("pnpm audit"),
            other("pnpm outdated"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b3-correction-python-08",
        shape=CORRECTION,
        agent=CODEX,
        project="pipewise",
        session=[
            U("the ingest job needs pandas 2.2 for the new parquet reader"),
            ok(
                "pip install pandas==2.2.3",
                "Collecting pandas==2.2.3\n  Downloading pandas-2.2.3-cp311-cp311-manylinux_2_17_x86_64.whl (13.1 MB)\nSuccessfully installed pandas-2.2.3",
            ),
            U(
                "we use poetry here. pip installing into the env means pyproject and the lock don't know about it "
                "and CI breaks. use poetry add"
            ),
            ok(
                "poetry add pandas@^2.2",
                "Updating dependencies\nResolving dependencies... (2.1s)\n\nPackage operations: 0 installs, 1 update, 0 removals\n\n"
                "  - Updating pandas (2.1.4 -> 2.2.3)\n\nWriting lock file",
            ),
        ],
        mistake="pip install pandas==2.2.3",
        lesson="pipewise is managed by poetry: never pip install packages into its env; use poetry add <pkg>",
        warn=[
            same("pip install pandas==2.2.3"),
            reword("pip install 'pandas>=2.2'"),
            reword("python -m pip install pyarrow"),
        ],
        silent=[
            fix("poetry add pandas@^2.2"),
            fix("poetry add pyarrow"),
            other("poetry show pandas"),
            other("poetry install"),
        ],
    ),
    Incident(
        id="b3-correction-cargo-09",
        shape=CORRECTION,
        agent=GEMINI,
        project="quarry",
        session=[
            U("cargo audit reports RUSTSEC-2024-0336 in rustls, fix it"),
            ok("cargo tree -i rustls", "rustls v0.21.10\n└── ureq v2.9.1\n    └── quarry-fetch v0.7.2"),
            reject("cargo update"),
            U("not a bare cargo update, that churns the whole Cargo.lock. update just the crate: cargo update -p"),
            ok(
                "cargo update -p rustls",
                "    Updating crates.io index\n     Locking 1 package to latest compatible version\n    Updating rustls v0.21.10 -> v0.21.12",
            ),
            ok("cargo audit", "    Scanning Cargo.lock for vulnerabilities (212 crate dependencies)\n"),
        ],
        mistake="cargo update",
        lesson="in quarry don't run a bare cargo update (rewrites the whole lock); update the one crate: cargo update -p <crate>",
        warn=[
            same("cargo update"),
            reword("cargo update --verbose"),
            reword("cd crates/quarry-cli && cargo update"),
        ],
        silent=[
            fix("cargo update -p rustls"),
            fix("cargo update --package rustls-webpki --precise 0.102.8"),
            other("cargo tree -i rustls"),
            other("cargo audit"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-terraform-10",
        shape=CORRECTION,
        agent=CC,
        project="fernhill-infra",
        session=[
            U("apply the prod tfvars change for the waf rule"),
            reject(
                "terraform apply -auto-approve -var-file=envs/prod.tfvars",
                "never -auto-approve here. write a plan file, I review it, then you apply that plan",
            ),
            ok(
                "terraform plan -var-file=envs/prod.tfvars -out=prod.tfplan",
                "  # module.waf.aws_wafv2_web_acl.main will be updated in-place\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n\n"
                'Saved the plan to: prod.tfplan\n\nTo perform exactly these actions, run the following command to apply:\n    terraform apply "prod.tfplan"',
            ),
            U("looks right, apply it"),
            ok("terraform apply prod.tfplan", "Apply complete! Resources: 0 added, 1 changed, 0 destroyed."),
        ],
        mistake="terraform apply -auto-approve -var-file=envs/prod.tfvars",
        lesson="fernhill-infra: never terraform apply -auto-approve; terraform plan -out=<file>, let the user review, then terraform apply <file>",
        warn=[
            same("terraform apply -auto-approve -var-file=envs/prod.tfvars"),
            reword("terraform apply --auto-approve -var-file envs/staging.tfvars"),
            reword("cd stacks/network && terraform apply -auto-approve"),
        ],
        silent=[
            fix("terraform plan -var-file=envs/prod.tfvars -out=prod.tfplan"),
            fix("terraform apply prod.tfplan"),
            other("terraform show prod.tfplan"),
            other("terraform output"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-terraform-11",
        shape=CORRECTION,
        agent=CODEX,
        project="harborview",
        session=[
            U("plan the node group change"),
            err(
                "terraform plan -out=tfplan",
                "╷\n│ Error: Error acquiring the state lock\n│\n│ Error message: operation error DynamoDB: PutItem, https response error StatusCode: 400, "
                "ConditionalCheckFailedException: The conditional request failed\n│ Lock Info:\n│   ID:        3f1c9a2e-7b44-4d0e-9a51-2c8e7f0b6d13\n"
                "│   Path:      harborview-tfstate/cluster/terraform.tfstate\n│   Operation: OperationTypeApply\n│   Who:       runner@gha-7f2c\n│   Created:   2026-03-02 08:58:41 UTC\n╵",
            ),
            reject("terraform force-unlock -force 3f1c9a2e-7b44-4d0e-9a51-2c8e7f0b6d13"),
            U("don't force-unlock, that lock is the CI apply (runner@gha). wait for it, use -lock-timeout"),
            ok(
                "terraform plan -lock-timeout=10m -out=tfplan",
                "Acquiring state lock. This may take a few moments...\n\nPlan: 0 to add, 2 to change, 0 to destroy.\n\nSaved the plan to: tfplan",
            ),
        ],
        mistake="terraform force-unlock -force 3f1c9a2e-7b44-4d0e-9a51-2c8e7f0b6d13",
        lesson="never terraform force-unlock harborview's state (the lock is usually a CI apply); wait with -lock-timeout=10m",
        warn=[
            same("terraform force-unlock -force 3f1c9a2e-7b44-4d0e-9a51-2c8e7f0b6d13"),
            reword("terraform force-unlock 8d2b0c4f-1e9a-4b7d-a3c6-5f0e2d1b9a88"),
            reword("terraform force-unlock -force 8d2b0c4f-1e9a-4b7d-a3c6-5f0e2d1b9a88"),
        ],
        silent=[
            fix("terraform plan -lock-timeout=10m -out=tfplan"),
            fix("terraform apply -lock-timeout=10m tfplan"),
            other("terraform state list"),
            other("terraform workspace show"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-make-12",
        shape=CORRECTION,
        agent=GEMINI,
        project="switchyard",
        session=[
            U("the binary seems stale, rebuild from clean"),
            ok(
                "make clean",
                "rm -rf bin/ internal/gen/\n",
            ),
            U(
                "argh, make clean also deletes internal/gen, the protos take ten minutes to regenerate. "
                "for a stale binary use make clean-bin"
            ),
            ok("make proto", "buf generate\n... (9m41s)"),
            ok("make clean-bin build", "rm -rf bin/\ngo build -o bin/switchyard ./cmd/switchyard"),
        ],
        mistake="make clean",
        lesson="in switchyard make clean wipes the generated protos (10 min to rebuild); to drop a stale binary use make clean-bin",
        warn=[
            same("make clean"),
            reword("make clean build"),
            reword("make -C ~/src/switchyard clean"),
        ],
        silent=[
            fix("make clean-bin"),
            fix("make clean-bin build"),
            other("make build"),
            other("make proto-check"),
        ],
    ),
    Incident(
        id="b3-correction-gh-13",
        shape=CORRECTION,
        agent=CC,
        project="atlas-mono",
        session=[
            U("merge 88, the flaky e2e check is taking forever"),
            ok(
                "gh pr checks 88",
                "e2e (chromium)   pending   12m\nunit             pass      3m2s\nlint             pass      48s",
            ),
            reject(
                "gh pr merge 88 --squash --admin",
                "never --admin, it skips the required checks. turn on auto-merge and let it land when e2e passes",
            ),
            ok(
                "gh pr merge 88 --squash --auto",
                "✓ Pull request #88 will be automatically merged via squash when all requirements are met",
            ),
        ],
        mistake="gh pr merge 88 --squash --admin",
        lesson="atlas-mono: never gh pr merge --admin (bypasses required checks); use gh pr merge <n> --squash --auto",
        warn=[
            same("gh pr merge 88 --squash --admin"),
            reword("gh pr merge 91 --admin --squash"),
            reword("gh pr merge --admin --merge 88"),
        ],
        silent=[
            fix("gh pr merge 88 --squash --auto"),
            fix("gh pr merge --auto --squash 91"),
            other("gh pr checks 88 --watch"),
            other("gh pr diff 88"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-cloud-14",
        shape=CORRECTION,
        agent=CODEX,
        project="pipewise",
        session=[
            U("list the cloud run services in prod"),
            ok("gcloud config set project pipewise-prod", "Updated property [core/project]."),
            ok(
                "gcloud run services list --region europe-west4",
                "   SERVICE  REGION        URL                                       LAST DEPLOYED BY\n"
                "✔  ingest   europe-west4  https://ingest-x7k2p-ez.a.run.app          ci@pipewise-prod.iam\n"
                "✔  scorer   europe-west4  https://scorer-x7k2p-ez.a.run.app          ci@pipewise-prod.iam",
            ),
            U(
                "please don't change the global gcloud project, my other terminals deploy to staging with it. "
                "pass --project on the command instead. and set it back to pipewise-staging"
            ),
            ok("gcloud config set project pipewise-staging", "Updated property [core/project]."),
            A("Reset to pipewise-staging. From now on I pass --project pipewise-prod per command."),
        ],
        mistake="gcloud config set project pipewise-prod",
        lesson="don't change the global gcloud project on this machine; pass --project pipewise-prod on each gcloud command",
        warn=[
            same("gcloud config set project pipewise-prod"),
            reword("gcloud config set core/project pipewise-prod"),
            reword("gcloud config set project pipewise-dev"),
        ],
        silent=[
            fix("gcloud run services list --project pipewise-prod --region europe-west4"),
            fix("gcloud --project=pipewise-prod run services describe ingest --region europe-west4"),
            other("gcloud config list"),
            other("gcloud auth list"),
        ],
    ),
    Incident(
        id="b3-correction-sql-15",
        shape=CORRECTION,
        agent=GEMINI,
        project="mosaic-shop",
        session=[
            U("take a dump of the staging db before I run the price migration"),
            reject("mysqldump --defaults-extra-file=.mysql-staging.cnf mosaic > staging.sql"),
            U(
                "add --single-transaction, otherwise mysqldump locks every table for the whole dump and "
                "the staging shop stops taking orders"
            ),
            ok("mysqldump --defaults-extra-file=.mysql-staging.cnf --single-transaction --quick mosaic > staging.sql"),
            ok("ls -lh staging.sql", "-rw-r--r-- 1 dev dev 412M Mar  2 09:21 staging.sql"),
        ],
        mistake="mysqldump --defaults-extra-file=.mysql-staging.cnf mosaic > staging.sql",
        lesson="mosaic-shop: always mysqldump with --single-transaction (without it the dump locks the tables)",
        warn=[
            same("mysqldump --defaults-extra-file=.mysql-staging.cnf mosaic > staging.sql"),
            reword("mysqldump --defaults-extra-file=.mysql-staging.cnf mosaic orders order_items > orders.sql"),
            reword(
                "mysqldump --defaults-extra-file=.mysql-staging.cnf --routines --databases mosaic > /tmp/mosaic-staging.sql"
            ),
        ],
        silent=[
            fix("mysqldump --defaults-extra-file=.mysql-staging.cnf --single-transaction mosaic > staging.sql"),
            fix(
                "mysqldump --single-transaction --quick --defaults-extra-file=.mysql-staging.cnf mosaic orders > orders.sql"
            ),
            other("mysql --defaults-extra-file=.mysql-staging.cnf mosaic -e 'show table status'"),
            help_("mysqldump --help"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-sql-16",
        shape=CORRECTION,
        agent=CC,
        project="ledgerline",
        session=[
            U("the backfill migration 0043 needs to run on my local db"),
            ok(
                "psql -U postgres -d ledgerline -f migrations/versions/0043_backfill_cutoff.sql",
                "BEGIN\nUPDATE 18211\nCOMMIT",
            ),
            U(
                "don't run migration sql by hand, now alembic_version still says 0042 and the next upgrade will run it twice. "
                "stamp it and from now on use alembic"
            ),
            ok("uv run alembic stamp 0043", "INFO  [alembic.runtime.migration] Running stamp_revision 0042 -> 0043"),
            ok("uv run alembic current", "0043 (head)"),
        ],
        mistake="psql -U postgres -d ledgerline -f migrations/versions/0043_backfill_cutoff.sql",
        lesson="ledgerline migrations go through alembic (uv run alembic upgrade head), never psql -f on a migration file",
        warn=[
            same("psql -U postgres -d ledgerline -f migrations/versions/0043_backfill_cutoff.sql"),
            reword("psql -d ledgerline -U postgres < migrations/versions/0044_fx_index.sql"),
            reword("psql postgresql://postgres@localhost/ledgerline -f migrations/versions/0043_backfill_cutoff.sql"),
        ],
        silent=[
            fix("uv run alembic upgrade head"),
            fix("uv run alembic upgrade 0044"),
            other("psql -U postgres -d ledgerline -c 'select version_num from alembic_version'"),
            other("psql -U postgres -d ledgerline -c '\\dt'"),
        ],
    ),
    Incident(
        id="b3-correction-ansible-17",
        shape=CORRECTION,
        agent=CODEX,
        project="kestrel-ops",
        session=[
            U("nginx on the web hosts needs a restart for the new cert"),
            reject("ansible web -i inventories/prod -b -m shell -a 'systemctl restart nginx'"),
            U(
                "not an ad-hoc restart of every web host at once, that drops all traffic. "
                "use playbooks/restart-nginx.yml, it does them one at a time behind the lb"
            ),
            ok(
                "ansible-playbook -i inventories/prod playbooks/restart-nginx.yml --vault-password-file ~/.kestrel-vault",
                "PLAY [web] (serial: 1) ***\nTASK [drain from lb] ***\nchanged: [web1]\nTASK [restart nginx] ***\nchanged: [web1]\n...\n"
                "PLAY RECAP ***\nweb1 : ok=5 changed=3 failed=0\nweb2 : ok=5 changed=3 failed=0",
            ),
        ],
        mistake="ansible web -i inventories/prod -b -m shell -a 'systemctl restart nginx'",
        lesson="kestrel-ops: never restart nginx on all web hosts with an ad-hoc ansible command; run playbooks/restart-nginx.yml (serial, drains the lb)",
        warn=[
            same("ansible web -i inventories/prod -b -m shell -a 'systemctl restart nginx'"),
            reword("ansible all -i inventories/prod --become -m service -a 'name=nginx state=restarted'"),
            reword("ansible web -i inventories/prod -b -a 'systemctl restart nginx'"),
        ],
        silent=[
            fix(
                "ansible-playbook -i inventories/prod playbooks/restart-nginx.yml --vault-password-file ~/.kestrel-vault"
            ),
            fix(
                "ansible-playbook --vault-password-file ~/.kestrel-vault playbooks/restart-nginx.yml -i inventories/prod --limit web2"
            ),
            other("ansible web -i inventories/prod -m ping"),
            other("ansible web -i inventories/prod -b -m shell -a 'systemctl status nginx --no-pager'"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-ssh-18",
        shape=CORRECTION,
        agent=GEMINI,
        project="cinder-docs",
        session=[
            U("ship the built site to docs1"),
            ok("yarn build", '[SUCCESS] Generated static files in "build".'),
            reject("rsync -avz --delete build/ deploy@docs1:/var/www/"),
            U(
                "stop, not /var/www/! that holds the other sites too and --delete would wipe them. "
                "cinder lives in /var/www/cinder/"
            ),
            ok(
                "rsync -avz --delete build/ deploy@docs1:/var/www/cinder/",
                "sending incremental file list\n./\nindex.html\nassets/js/main.8c1f.js\n\nsent 1,204,118 bytes  received 2,311 bytes  total size 48,112,003",
            ),
        ],
        mistake="rsync -avz --delete build/ deploy@docs1:/var/www/",
        lesson="cinder-docs deploys to deploy@docs1:/var/www/cinder/, never to /var/www/ itself (other sites live there; --delete wipes them)",
        warn=[
            same("rsync -avz --delete build/ deploy@docs1:/var/www/"),
            reword("rsync -az --delete ./build/ deploy@docs1:/var/www"),
            reword("rsync --delete -avz build/ deploy@docs1.cinder.internal:/var/www/"),
        ],
        silent=[
            fix("rsync -avz --delete build/ deploy@docs1:/var/www/cinder/"),
            fix("rsync -az --delete --dry-run build/ deploy@docs1:/var/www/cinder/"),
            other("rsync -avz build/ deploy@docs1:/tmp/cinder-preview/"),
            other("ssh deploy@docs1 ls /var/www"),
        ],
        variants=("rejection_reason",),
    ),
    Incident(
        id="b3-correction-script-19",
        shape=CORRECTION,
        agent=CC,
        project="kestrel-ops",
        session=[
            U("the shop cert expires friday, rotate it"),
            reject("./scripts/rotate-certs.sh --all"),
            U(
                "not --all, that rotates the internal CA as well and every service has to be re-trusted. "
                "rotate by domain: --domain shop.kestrel.io"
            ),
            ok(
                "./scripts/rotate-certs.sh --domain shop.kestrel.io",
                "requesting certificate for shop.kestrel.io ... ok\nuploaded to vault: secret/certs/shop.kestrel.io\nreloaded 2 edge nodes",
            ),
        ],
        mistake="./scripts/rotate-certs.sh --all",
        lesson="kestrel-ops: never ./scripts/rotate-certs.sh --all (rotates the internal CA); rotate per domain with --domain <name>",
        warn=[
            same("./scripts/rotate-certs.sh --all"),
            reword("bash scripts/rotate-certs.sh --all --yes"),
            reword("cd scripts && ./rotate-certs.sh --all"),
        ],
        silent=[
            fix("./scripts/rotate-certs.sh --domain shop.kestrel.io"),
            fix("./scripts/rotate-certs.sh --dry-run --domain api.kestrel.io"),
            other("./scripts/rotate-certs.sh --list"),
            other("./scripts/check-certs.sh"),
        ],
        variants=("rejection",),
    ),
    Incident(
        id="b3-correction-ruby-20",
        shape=CORRECTION,
        agent=CODEX,
        project="orchard",
        session=[
            U("the add_gift_note migration is broken, I fixed the column type, rerun it"),
            reject("bin/rails db:reset"),
            U("don't db:reset, it drops my dev database and all the data I set up by hand. redo just that migration"),
            ok(
                "bin/rails db:migrate:redo STEP=1",
                "== 20260301120000 AddGiftNoteToOrders: reverting ===========================\n-- remove_column(:orders, :gift_note)\n"
                "== 20260301120000 AddGiftNoteToOrders: migrating ===========================\n-- add_column(:orders, :gift_note, :text)\n   -> 0.0041s",
            ),
        ],
        mistake="bin/rails db:reset",
        lesson="orchard: never bin/rails db:reset on the dev db (drops hand-made data); rerun a migration with bin/rails db:migrate:redo STEP=1",
        warn=[
            same("bin/rails db:reset"),
            reword("bundle exec rails db:reset RAILS_ENV=development"),
            reword("bin/rails db:drop db:create db:migrate"),
        ],
        silent=[
            fix("bin/rails db:migrate:redo STEP=1"),
            fix("bin/rails db:rollback STEP=1 && bin/rails db:migrate"),
            other("bin/rails db:migrate:status"),
            other("bin/rails routes -g orders"),
        ],
        variants=("rejection_reason",),
    ),
]
