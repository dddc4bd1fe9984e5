"""blind3 / error_fix: a call fails with a real error, the agent's next call fixes it."""

from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, R, U, err, fix, help_, ok, other, read, reword, same

INCIDENTS = [
    Incident(
        id="b3-errorfix-git-01",
        shape=ERROR_FIX,
        agent=CC,
        project="atlas-mono",
        session=[
            U("the retry budget fix is committed, push it please"),
            err(
                "git push origin main",
                "Enumerating objects: 9, done.\nCounting objects: 100% (9/9), done.\nWriting objects: 100% (5/5), 1.21 KiB | 1.21 MiB/s, done.\n"
                "remote: error: GH006: Protected branch update failed for refs/heads/main.\n"
                "remote: error: Changes must be made through a pull request.\n"
                "To github.com:atlas-eng/atlas-mono.git\n ! [remote rejected] main -> main (protected branch hook declined)\n"
                "error: failed to push some refs to 'github.com:atlas-eng/atlas-mono.git'",
            ),
            A("main is protected here; I'll push the work to a branch and open a pull request instead."),
            ok("git switch -c fix/retry-budget", "Switched to a new branch 'fix/retry-budget'"),
            ok(
                "git push -u origin fix/retry-budget",
                "remote: Create a pull request for 'fix/retry-budget' on GitHub by visiting:\n"
                "remote:      https://github.com/atlas-eng/atlas-mono/pull/new/fix/retry-budget\n"
                "To github.com:atlas-eng/atlas-mono.git\n * [new branch]      fix/retry-budget -> fix/retry-budget\n"
                "branch 'fix/retry-budget' set up to track 'origin/fix/retry-budget'.",
            ),
            ok("gh pr create --fill", "https://github.com/atlas-eng/atlas-mono/pull/1187"),
        ],
        mistake="git push origin main",
        lesson="main is a protected branch in atlas-mono: never push to it directly; push a branch (git push -u origin <branch>) and open a PR.",
        warn=[
            same("git push origin main"),
            reword("git push origin HEAD:main"),
            reword("cd ~/src/atlas-mono && git push -v origin main"),
        ],
        silent=[
            fix("git push -u origin fix/retry-budget"),
            fix("git push --set-upstream origin fix/retry-budget"),
            other("git fetch origin main"),
            other("git pull --rebase origin main"),
        ],
    ),
    Incident(
        id="b3-errorfix-git-02",
        shape=ERROR_FIX,
        agent=CODEX,
        project="ledgerline",
        session=[
            U("tag the release v2.4.0 and push the tag"),
            ok("git tag -a v2.4.0 -m 'ledgerline 2.4.0'"),
            err(
                "git push --tags",
                "Enumerating objects: 1, done.\nWriting objects: 100% (1/1), 171 bytes | 171.00 KiB/s, done.\n"
                "To github.com:ledgerline/ledgerline.git\n * [new tag]         v2.4.0 -> v2.4.0\n"
                " ! [rejected]        v1.9.0-rc1 -> v1.9.0-rc1 (already exists)\n"
                "error: failed to push some refs to 'github.com:ledgerline/ledgerline.git'\n"
                "hint: Updates were rejected because the tag already exists in the remote.",
            ),
            A(
                "--tags pushed every local tag, including a stale local v1.9.0-rc1 that differs from the remote one. "
                "I'll push only the release tag by name."
            ),
            ok("git push origin v2.4.0", "Everything up-to-date"),
            ok("git ls-remote --tags origin v2.4.0", "8c1f0e2a9d3b4c5e6f708192a3b4c5d6e7f80912\trefs/tags/v2.4.0"),
        ],
        mistake="git push --tags",
        lesson="don't push all tags in ledgerline (stale local rc tags get rejected); push the one release tag: git push origin v2.4.0",
        warn=[
            same("git push --tags"),
            reword("git push origin --tags"),
            reword("git push --tags --verbose origin"),
        ],
        silent=[
            fix("git push origin v2.4.0"),
            fix("git push origin refs/tags/v2.4.0"),
            other("git tag -l 'v2.*'"),
            other("git push origin main"),
        ],
    ),
    Incident(
        id="b3-errorfix-docker-03",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="switchyard",
        session=[
            U("build a dev image of switchyard so I can try it locally"),
            err(
                "docker build -t switchyard:dev .",
                "[+] Building 0.1s (1/1) FINISHED\n => [internal] load build definition from Dockerfile                0.0s\n"
                " => => transferring dockerfile: 2B                                  0.0s\n"
                "ERROR: failed to solve: failed to read dockerfile: open Dockerfile: no such file or directory",
            ),
            ok("ls build", "Dockerfile\nDockerfile.debug\nentrypoint.sh"),
            A("The Dockerfile lives in build/, with the repo root as context. Passing it with -f."),
            ok(
                "docker build -f build/Dockerfile -t switchyard:dev .",
                "[+] Building 41.7s (14/14) FINISHED\n => [builder 6/6] RUN go build -o /out/switchyard ./cmd/switchyard   31.2s\n"
                " => exporting to image                                               0.4s\n => => naming to docker.io/library/switchyard:dev",
            ),
        ],
        mistake="docker build -t switchyard:dev .",
        lesson="switchyard's Dockerfile is build/Dockerfile, not at the root: always pass -f build/Dockerfile to docker build.",
        warn=[
            same("docker build -t switchyard:dev ."),
            reword("docker build . -t switchyard:dev"),
            reword("docker build --tag switchyard:local --progress=plain ."),
        ],
        silent=[
            fix("docker build -f build/Dockerfile -t switchyard:dev ."),
            fix("docker build -t switchyard:dev --file build/Dockerfile ."),
            other("docker images switchyard"),
            other("docker run --rm switchyard:dev --version"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b3-errorfix-docker-04",
        shape=ERROR_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("start the local stack, I want to hit the api"),
            err(
                "docker-compose up -d",
                "ERROR: The Compose file './compose.yaml' is invalid because:\n"
                'Invalid top-level property "name". Valid top-level sections for this Compose file are: version, services, networks, volumes, secrets, configs, and extensions starting with "x-".\n\n'
                "You might be seeing this error because you're using the wrong Compose file version.",
            ),
            ok("docker-compose version --short", "1.29.2"),
            A(
                "That's the old python docker-compose 1.29; the compose file uses the v2 spec. Using the docker compose plugin."
            ),
            ok(
                "docker compose up -d",
                "[+] Running 3/3\n ✔ Network ledgerline_default  Created\n ✔ Container ledgerline-db-1   Started\n ✔ Container ledgerline-api-1  Started",
            ),
        ],
        mistake="docker-compose up -d",
        lesson="the docker-compose v1 binary on this machine can't read ledgerline's compose.yaml; use the v2 plugin: docker compose up -d",
        warn=[
            same("docker-compose up -d"),
            reword("docker-compose up -d --build"),
            reword("docker-compose -f compose.yaml up"),
        ],
        silent=[
            fix("docker compose up -d"),
            fix("docker compose up --detach --build"),
            other("docker compose ps"),
            other("docker compose logs api"),
        ],
    ),
    Incident(
        id="b3-errorfix-k8s-05",
        shape=ERROR_FIX,
        agent=CODEX,
        project="harborview",
        session=[
            U("the gateway pods are serving a stale config map, restart them"),
            err(
                "kubectl rollout restart deployment/gateway",
                'Error from server (NotFound): deployments.apps "gateway" not found',
            ),
            ok(
                "kubectl get deployments -A | grep gateway",
                "edge          gateway                 6/6     6            6           212d",
            ),
            A("gateway runs in the edge namespace, not default."),
            ok("kubectl rollout restart deployment/gateway -n edge", "deployment.apps/gateway restarted"),
            ok(
                "kubectl rollout status deployment/gateway -n edge",
                'Waiting for deployment "gateway" rollout to finish: 3 of 6 updated replicas are available...\n'
                'deployment "gateway" successfully rolled out',
            ),
        ],
        mistake="kubectl rollout restart deployment/gateway",
        lesson="the gateway deployment is in namespace edge: pass -n edge to kubectl for it (the default namespace has no gateway).",
        warn=[
            same("kubectl rollout restart deployment/gateway"),
            reword("kubectl rollout restart deploy gateway"),
            reword("kubectl rollout restart deployment gateway --context harbor-prod"),
        ],
        silent=[
            fix("kubectl rollout restart deployment/gateway -n edge"),
            fix("kubectl -n edge rollout restart deployment/gateway"),
            fix("kubectl rollout restart --namespace=edge deployment/gateway"),
            other("kubectl rollout status deployment/gateway -n edge"),
            other("kubectl get deployments -n edge"),
        ],
    ),
    Incident(
        id="b3-errorfix-k8s-06",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="glasshouse",
        session=[
            U("deploy the chart to the dev cluster"),
            err(
                "helm upgrade glasshouse ./charts/glasshouse -n glasshouse-system",
                'Error: UPGRADE FAILED: "glasshouse" has no deployed releases',
            ),
            A("There is no release yet on this cluster, so upgrade has nothing to upgrade. --install creates it."),
            ok(
                "helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system",
                'Release "glasshouse" does not exist. Installing it now.\nNAME: glasshouse\nLAST DEPLOYED: Mon Mar  2 09:14:03 2026\n'
                "NAMESPACE: glasshouse-system\nSTATUS: deployed\nREVISION: 1",
            ),
        ],
        mistake="helm upgrade glasshouse ./charts/glasshouse -n glasshouse-system",
        lesson="on a fresh cluster helm upgrade fails with 'has no deployed releases': use helm upgrade --install for glasshouse.",
        warn=[
            same("helm upgrade glasshouse ./charts/glasshouse -n glasshouse-system"),
            reword("helm upgrade -n glasshouse-system glasshouse ./charts/glasshouse"),
            reword("helm upgrade glasshouse charts/glasshouse --namespace glasshouse-system --wait"),
        ],
        silent=[
            fix("helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system"),
            fix("helm upgrade -i glasshouse ./charts/glasshouse -n glasshouse-system --wait"),
            other("helm list -n glasshouse-system"),
            other("helm history glasshouse -n glasshouse-system"),
        ],
    ),
    Incident(
        id="b3-errorfix-npm-07",
        shape=ERROR_FIX,
        agent=CC,
        project="tidepool-web",
        session=[
            U("install the deps, I just cloned it"),
            err(
                "npm install",
                'npm ERR! code EUNSUPPORTEDPROTOCOL\nnpm ERR! Unsupported URL Type "workspace:": workspace:*\n\n'
                "npm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-02T09_03_11_118Z-debug-0.log",
            ),
            read(
                "package.json", '{\n  "name": "tidepool",\n  "private": true,\n  "packageManager": "pnpm@9.12.1"\n}\n'
            ),
            A("It's a pnpm workspace (workspace:* deps, packageManager pnpm). npm can't install it."),
            ok(
                "pnpm install",
                "Scope: all 6 workspace projects\nLockfile is up to date, resolution step is skipped\nPackages: +1184\n"
                "Progress: resolved 1184, reused 1102, downloaded 82, added 1184, done\nDone in 14.2s",
            ),
        ],
        mistake="npm install",
        lesson="tidepool-web is a pnpm workspace: npm install fails on workspace:* deps; use pnpm install.",
        warn=[
            same("npm install"),
            reword("npm i --legacy-peer-deps"),
            reword("cd apps/web && npm install"),
        ],
        silent=[
            fix("pnpm install"),
            fix("pnpm install --frozen-lockfile"),
            other("npm view next version"),
            other("pnpm run build"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b3-errorfix-npm-08",
        shape=ERROR_FIX,
        agent=CODEX,
        project="cinder-docs",
        session=[
            U("deploy the docs to gh-pages"),
            err(
                "yarn deploy",
                "[INFO] Deploy command invoked...\n[ERROR] Error: Please set the GIT_USER environment variable, or explicitly specify USE_SSH instead!\n"
                "    at runDeploy (/work/cinder-docs/node_modules/@docusaurus/core/lib/commands/deploy.js:71:19)",
            ),
            A("Docusaurus deploy wants either GIT_USER or USE_SSH; this machine pushes over ssh."),
            ok(
                "USE_SSH=true yarn deploy",
                '[INFO] Deploy command invoked...\n[INFO] `git push` to gh-pages...\n[SUCCESS] Website is live at "https://cinder-docs.github.io/".',
            ),
        ],
        mistake="yarn deploy",
        lesson="cinder-docs' docusaurus deploy needs USE_SSH=true (no GIT_USER here): run USE_SSH=true yarn deploy",
        warn=[
            same("yarn deploy"),
            reword("yarn run deploy"),
            reword("npm run deploy"),
        ],
        silent=[
            fix("USE_SSH=true yarn deploy"),
            fix("USE_SSH=true yarn run deploy"),
            other("yarn build"),
            other("yarn serve"),
        ],
    ),
    Incident(
        id="b3-errorfix-python-09",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="riverbed-ml",
        session=[
            U("set up the env so I can run the training smoke test"),
            err(
                "pip install -r requirements.txt",
                "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try apt install\n"
                "    python3-xyz, where xyz is the package you are trying to\n    install.\n\n"
                "    If you wish to install a non-Debian-packaged Python package,\n    create a virtual environment using python3 -m venv path/to/venv.\n\n"
                "note: If you believe this is a mistake, please contact your Python installation or OS distribution provider.",
            ),
            ok("python3 -m venv .venv"),
            ok(
                ".venv/bin/pip install -r requirements.txt",
                "Collecting numpy==1.26.4\n  Using cached numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.whl (18.0 MB)\n...\n"
                "Successfully installed numpy-1.26.4 pyyaml-6.0.2 tqdm-4.66.5 safetensors-0.4.5",
            ),
        ],
        mistake="pip install -r requirements.txt",
        lesson="riverbed-ml: system pip is externally managed; install into the project venv: .venv/bin/pip install -r requirements.txt",
        warn=[
            same("pip install -r requirements.txt"),
            reword("pip3 install -r requirements.txt"),
            reword("python3 -m pip install --requirement requirements.txt"),
        ],
        silent=[
            fix(".venv/bin/pip install -r requirements.txt"),
            fix("source .venv/bin/activate && pip install -r requirements.txt"),
            other(".venv/bin/pip list"),
            help_("pip install --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b3-errorfix-python-10",
        shape=ERROR_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("apply the new migration to my local db"),
            err("alembic upgrade head", "bash: alembic: command not found", 127),
            A("alembic is a project dependency managed by uv, not on PATH. Running it through uv."),
            ok(
                "uv run alembic upgrade head",
                "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                "INFO  [alembic.runtime.migration] Running upgrade 0041_fx_rates -> 0042_statement_cutoff, add statement cutoff",
            ),
        ],
        mistake="alembic upgrade head",
        lesson="in ledgerline alembic is only in the uv env: run it as uv run alembic ...",
        warn=[
            same("alembic upgrade head"),
            reword("alembic -c alembic.ini upgrade head"),
            reword("alembic upgrade heads"),
        ],
        silent=[
            fix("uv run alembic upgrade head"),
            fix("uv run alembic -c alembic.ini upgrade head"),
            other("uv run alembic history"),
            other("uv run alembic current"),
        ],
    ),
    Incident(
        id="b3-errorfix-cargo-11",
        shape=ERROR_FIX,
        agent=CODEX,
        project="quarry",
        session=[
            U("index ./data with the cli"),
            err(
                "cargo run -- index ./data",
                "error: `cargo run` could not determine which binary to run. Use the `--bin` option to specify a binary, or the `default-run` manifest key.\n"
                "available binaries: quarry, quarry-bench",
                101,
            ),
            ok(
                "cargo run --bin quarry -- index ./data",
                "   Compiling quarry v0.7.2 (/work/quarry/crates/quarry-cli)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.41s\n"
                "     Running `target/debug/quarry index ./data`\nindexed 1,204 files (38.2 MB) in 1.9s",
            ),
        ],
        mistake="cargo run -- index ./data",
        lesson="quarry has two binaries (quarry, quarry-bench): cargo run needs --bin quarry.",
        warn=[
            same("cargo run -- index ./data"),
            reword("cargo run --release -- index ./samples"),
            reword("cargo run -- search 'fn main'"),
        ],
        silent=[
            fix("cargo run --bin quarry -- index ./data"),
            fix("cargo run --release --bin quarry -- search 'fn main'"),
            other("cargo build --bin quarry-bench"),
            other("cargo run --bin quarry-bench -- --iterations 10"),
        ],
    ),
    Incident(
        id="b3-errorfix-go-12",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="switchyard",
        session=[
            U("run the tests before I open the PR"),
            err(
                "go test ./...",
                "ok  \tgithub.com/acme/switchyard/internal/router\t0.412s\nok  \tgithub.com/acme/switchyard/internal/config\t0.037s\n"
                "--- FAIL: TestPostgresStore_Save (0.00s)\n    store_test.go:31: dial tcp 127.0.0.1:5432: connect: connection refused\n"
                "--- FAIL: TestPostgresStore_List (0.00s)\n    store_test.go:58: dial tcp 127.0.0.1:5432: connect: connection refused\n"
                "FAIL\nFAIL\tgithub.com/acme/switchyard/internal/store\t0.021s\nFAIL",
            ),
            read(
                "internal/store/store_test.go",
                'func TestPostgresStore_Save(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip("needs postgres")\n\t}\n',
            ),
            A("The store tests are integration tests that skip under -short; there is no postgres here."),
            ok(
                "go test -short ./...",
                "ok  \tgithub.com/acme/switchyard/internal/router\t0.398s\nok  \tgithub.com/acme/switchyard/internal/config\t0.031s\n"
                "ok  \tgithub.com/acme/switchyard/internal/store\t0.012s",
            ),
        ],
        mistake="go test ./...",
        lesson="switchyard's store tests need a running postgres: without it run go test -short ./...",
        warn=[
            same("go test ./..."),
            reword("go test -v ./... -count=1"),
            reword("cd services/switchyard && go test ./..."),
        ],
        silent=[
            fix("go test -short ./..."),
            fix("go test -short -count=1 ./..."),
            other("go vet ./..."),
            other("go build ./..."),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b3-errorfix-terraform-13",
        shape=ERROR_FIX,
        agent=CC,
        project="fernhill-infra",
        session=[
            U("plan the staging change to the cdn module"),
            err(
                "terraform plan",
                '╷\n│ Error: No value for required variable\n│\n│   on variables.tf line 1:\n│    1: variable "environment" {\n│\n'
                '│ The root module input variable "environment" is not set, and has no default value. Use a -var or -var-file command line argument\n'
                "│ to provide a value for this variable.\n╵",
            ),
            ok("ls envs", "prod.tfvars\nstaging.tfvars"),
            ok(
                "terraform plan -var-file=envs/staging.tfvars",
                "module.cdn.aws_cloudfront_distribution.site: Refreshing state... [id=E2Q4ZK1XW0ABCD]\n\n"
                "Plan: 0 to add, 1 to change, 0 to destroy.",
            ),
        ],
        mistake="terraform plan",
        lesson="fernhill-infra has no default vars: terraform plan needs -var-file=envs/<env>.tfvars",
        warn=[
            same("terraform plan"),
            reword("terraform plan -out=tfplan"),
            reword("cd ~/src/fernhill-infra && terraform plan"),
        ],
        silent=[
            fix("terraform plan -var-file=envs/staging.tfvars"),
            fix("terraform plan -var-file envs/staging.tfvars -out=tfplan"),
            other("terraform validate"),
            other("terraform fmt -recursive"),
        ],
    ),
    Incident(
        id="b3-errorfix-terraform-14",
        shape=ERROR_FIX,
        agent=CODEX,
        project="harborview",
        session=[
            U("init terraform in the cluster stack, I just cloned"),
            err(
                "terraform init",
                'Initializing the backend...\n╷\n│ Error: "bucket": required field is not set\n│\n'
                "│ The S3 backend in this configuration is partial; provide the remaining settings with -backend-config.\n╵",
            ),
            ok("ls backends", "prod.hcl\nstaging.hcl"),
            ok(
                "terraform init -backend-config=backends/prod.hcl",
                'Initializing the backend...\n\nSuccessfully configured the backend "s3"! Terraform will automatically\nuse this backend unless the backend configuration changes.\n'
                'Initializing provider plugins...\n- Finding hashicorp/aws versions matching "~> 5.60"...\n- Installing hashicorp/aws v5.82.2...\n'
                '- Installed hashicorp/aws v5.82.2 (signed by HashiCorp)\n- Finding hashicorp/kubernetes versions matching "~> 2.31"...\n'
                '- Installing hashicorp/kubernetes v2.35.1...\n- Installed hashicorp/kubernetes v2.35.1 (signed by HashiCorp)\n- Finding hashicorp/helm versions matching "~> 2.14"...\n'
                "- Installing hashicorp/helm v2.17.0...\n- Installed hashicorp/helm v2.17.0 (signed by HashiCorp)\n\nTerraform has been successfully initialized!",
            ),
        ],
        mistake="terraform init",
        lesson="harborview's s3 backend is partial: terraform init needs -backend-config=backends/prod.hcl (or staging.hcl)",
        warn=[
            same("terraform init"),
            reword("terraform init -upgrade"),
            reword("terraform -chdir=stacks/cluster init"),
        ],
        silent=[
            fix("terraform init -backend-config=backends/prod.hcl"),
            fix("terraform init -reconfigure -backend-config=backends/staging.hcl"),
            other("terraform fmt -check"),
            other("terraform providers"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b3-errorfix-make-15",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="atlas-mono",
        session=[
            U("cut the 1.8.0 release"),
            err("make release", "Makefile:42: *** VERSION is not set. Stop.", 2),
            read(
                "Makefile",
                "release:\nifndef VERSION\n\t$(error VERSION is not set)\nendif\n\t./scripts/release.sh $(VERSION)\n",
            ),
            ok(
                "make release VERSION=1.8.0",
                "./scripts/release.sh 1.8.0\nbumped 7 packages to 1.8.0\ncreated tag v1.8.0",
            ),
        ],
        mistake="make release",
        lesson="atlas-mono's make release needs VERSION=x.y.z on the command line.",
        warn=[
            same("make release"),
            reword("make -j4 release"),
            reword("cd ~/src/atlas-mono && make release"),
        ],
        silent=[
            fix("make release VERSION=1.8.0"),
            fix("VERSION=1.8.1 make release"),
            other("make lint"),
            other("make test"),
        ],
    ),
    Incident(
        id="b3-errorfix-gh-16",
        shape=ERROR_FIX,
        agent=CC,
        project="tidepool-web",
        session=[
            U("412 is approved, merge it"),
            err(
                "gh pr merge 412 --merge",
                "GraphQL: Merge commits are not allowed on this repository. (mergePullRequest)",
            ),
            A("The repo only allows squash merges."),
            ok(
                "gh pr merge 412 --squash --delete-branch",
                "✓ Squashed and merged pull request #412 (Cart badge shows item count)\n✓ Deleted branch feat/cart-badge and switched to branch main",
            ),
        ],
        mistake="gh pr merge 412 --merge",
        lesson="tidepool-web allows only squash merges: gh pr merge <n> --squash, never --merge",
        warn=[
            same("gh pr merge 412 --merge"),
            reword("gh pr merge --merge --delete-branch 419"),
            reword("gh pr merge 430 -m"),
        ],
        silent=[
            fix("gh pr merge 412 --squash --delete-branch"),
            fix("gh pr merge --squash 412"),
            other("gh pr checks 412"),
            other("gh pr view 412"),
        ],
    ),
    Incident(
        id="b3-errorfix-cloud-17",
        shape=ERROR_FIX,
        agent=CODEX,
        project="fernhill-infra",
        session=[
            U("upload the rebuilt landing page assets"),
            ok("ls dist | head -3", "assets\nfavicon.ico\nindex.html"),
            err(
                "aws s3 sync ./dist s3://fernhill-assets",
                "upload failed: dist/index.html to s3://fernhill-assets/index.html An error occurred (AccessDenied) when calling the PutObject operation: "
                'User: arn:aws:iam::210987654321:user/dev-readonly is not authorized to perform: s3:PutObject on resource: "arn:aws:s3:::fernhill-assets/index.html"',
            ),
            ok("aws configure list-profiles", "default\nfernhill-prod\nfernhill-staging"),
            U("while you're at it, what's the cdn distribution id? I need it for the ticket"),
            ok(
                "terraform output -raw cdn_distribution_id",
                "E2Q4ZK1XW0ABCD",
            ),
            A(
                "E2Q4ZK1XW0ABCD. Now the upload: the default profile is read-only; the assets bucket is written with fernhill-prod."
            ),
            ok(
                "aws s3 sync ./dist s3://fernhill-assets --profile fernhill-prod",
                "upload: dist/index.html to s3://fernhill-assets/index.html\nupload: dist/assets/app.4f1c.js to s3://fernhill-assets/assets/app.4f1c.js",
            ),
        ],
        mistake="aws s3 sync ./dist s3://fernhill-assets",
        lesson="the default aws profile is read-only: writes to s3://fernhill-assets need --profile fernhill-prod",
        warn=[
            same("aws s3 sync ./dist s3://fernhill-assets"),
            reword("aws s3 sync dist/ s3://fernhill-assets/ --delete"),
            reword("aws s3 cp ./dist s3://fernhill-assets --recursive"),
        ],
        silent=[
            fix("aws s3 sync ./dist s3://fernhill-assets --profile fernhill-prod"),
            fix("AWS_PROFILE=fernhill-prod aws s3 sync ./dist s3://fernhill-assets"),
            other("aws sts get-caller-identity"),
            other("aws s3 ls s3://fernhill-assets --profile fernhill-prod"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b3-errorfix-sql-18",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="orchard",
        session=[
            U("how many orders are in my dev db?"),
            err(
                "psql -d orchard_dev -c 'select count(*) from orders'",
                'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory\n'
                "\tIs the server running locally and accepting connections on that socket?",
                2,
            ),
            ok(
                "docker compose ps db",
                "NAME          IMAGE         STATUS        PORTS\norchard-db-1  postgres:16   Up 3 hours    0.0.0.0:5433->5432/tcp",
            ),
            A("Postgres runs in docker on port 5433, so the socket default misses it."),
            ok(
                "psql -h localhost -p 5433 -U orchard -d orchard_dev -c 'select count(*) from orders'",
                " count \n-------\n  4812\n(1 row)",
            ),
        ],
        mistake="psql -d orchard_dev -c 'select count(*) from orders'",
        lesson="orchard's dev postgres is the docker one on localhost:5433: psql needs -h localhost -p 5433 -U orchard",
        warn=[
            same("psql -d orchard_dev -c 'select count(*) from orders'"),
            reword("psql orchard_dev"),
            reword("psql -d orchard_dev -f db/checks/orphans.sql"),
        ],
        silent=[
            fix("psql -h localhost -p 5433 -U orchard -d orchard_dev -c 'select count(*) from orders'"),
            fix("psql -p 5433 -h localhost -U orchard orchard_dev"),
            other("pg_isready -h localhost -p 5433"),
            other("bin/rails dbconsole"),
        ],
    ),
    Incident(
        id="b3-errorfix-ansible-19",
        shape=ERROR_FIX,
        agent=CC,
        project="kestrel-ops",
        session=[
            U("roll the new nginx config out to prod"),
            err(
                "ansible-playbook -i inventories/prod site.yml",
                "ERROR! Attempting to decrypt but no vault secrets found",
            ),
            A("group_vars/prod/vault.yml is vaulted; the password file is ~/.kestrel-vault."),
            ok(
                "ansible-playbook -i inventories/prod site.yml --vault-password-file ~/.kestrel-vault",
                "PLAY [web] *********************************************************************\n\n"
                "TASK [nginx : render site config] **********************************************\nchanged: [web1]\nchanged: [web2]\n\n"
                "PLAY RECAP *********************************************************************\n"
                "web1                       : ok=14   changed=2    unreachable=0    failed=0    skipped=1\n"
                "web2                       : ok=14   changed=2    unreachable=0    failed=0    skipped=1",
            ),
        ],
        mistake="ansible-playbook -i inventories/prod site.yml",
        lesson="kestrel-ops prod vars are vaulted: ansible-playbook needs --vault-password-file ~/.kestrel-vault",
        warn=[
            same("ansible-playbook -i inventories/prod site.yml"),
            reword("ansible-playbook site.yml -i inventories/prod --limit web"),
            reword("ansible-playbook --inventory inventories/prod site.yml --check"),
        ],
        silent=[
            fix("ansible-playbook -i inventories/prod site.yml --vault-password-file ~/.kestrel-vault"),
            fix("ansible-playbook --vault-password-file ~/.kestrel-vault -i inventories/prod site.yml --limit web"),
            other("ansible -i inventories/prod web -m ping"),
            other("ansible-inventory -i inventories/prod --graph"),
        ],
    ),
    Incident(
        id="b3-errorfix-script-20",
        shape=ERROR_FIX,
        agent=CODEX,
        project="mosaic-shop",
        session=[
            U("push the new product images to the cdn"),
            err(
                "./scripts/sync-assets.sh",
                "./scripts/sync-assets.sh: line 7: CDN_BUCKET: unbound variable",
            ),
            read(
                "scripts/sync-assets.sh",
                "#!/usr/bin/env bash\nset -euo pipefail\n# expects the variables from .env (source it first)\n\n"
                'echo "syncing to $CDN_BUCKET"\n',
            ),
            ok(
                "source .env && ./scripts/sync-assets.sh",
                "syncing to mosaic-cdn-prod\nupload: public/img/p/1182.webp\nupload: public/img/p/1183.webp\n2 files synced",
            ),
        ],
        mistake="./scripts/sync-assets.sh",
        lesson="mosaic-shop's scripts/sync-assets.sh reads CDN_BUCKET from .env: run source .env first",
        warn=[
            same("./scripts/sync-assets.sh"),
            reword("bash scripts/sync-assets.sh"),
            reword("./scripts/sync-assets.sh --verbose"),
        ],
        silent=[
            fix("source .env && ./scripts/sync-assets.sh"),
            fix(". ./.env && ./scripts/sync-assets.sh --verbose"),
            other("./scripts/build-assets.sh"),
            other(R("scripts/sync-assets.sh")),
        ],
    ),
]
