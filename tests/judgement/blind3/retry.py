"""blind3 / retry: two to four failing variants of a call before one works."""

from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same

INCIDENTS = [
    Incident(
        id="b3-retry-git-01",
        shape=RETRY,
        agent=CC,
        project="atlas-mono",
        session=[
            U("backport the merged PR #1187 (merge commit 9f3e2a1) to release/1.8"),
            ok("git switch release/1.8", "Switched to branch 'release/1.8'"),
            err(
                "git cherry-pick 9f3e2a1",
                "error: commit 9f3e2a1c0b7d44e2a8f1c3d5e6b7a8c9d0e1f2a3 is a merge but no -m option was given.\nfatal: cherry-pick failed",
                128,
            ),
            err(
                "git cherry-pick -m 2 9f3e2a1",
                "On branch release/1.8\nYou are currently cherry-picking commit 9f3e2a1.\n\nnothing to commit, working tree clean\n"
                "The previous cherry-pick is now empty, possibly due to conflict resolution.",
            ),
            ok("git cherry-pick --abort"),
            ok(
                "git cherry-pick -m 1 9f3e2a1",
                "[release/1.8 4c7d0a2] Merge pull request #1187 from atlas-eng/fix/retry-budget\n 3 files changed, 41 insertions(+), 9 deletions(-)",
            ),
        ],
        mistake="git cherry-pick 9f3e2a1",
        lesson="9f3e2a1 (PR #1187) is a merge commit: cherry-pick it with -m 1 (mainline = main); without -m it fails, -m 2 is empty",
        warn=[
            same("git cherry-pick 9f3e2a1"),
            reword("git cherry-pick -x 9f3e2a1"),
            reword("git cherry-pick -m 2 9f3e2a1"),
        ],
        silent=[
            fix("git cherry-pick -m 1 9f3e2a1"),
            fix("git cherry-pick -x -m 1 9f3e2a1"),
            other("git cherry-pick --abort"),
            other("git show --stat 9f3e2a1"),
        ],
    ),
    Incident(
        id="b3-retry-git-02",
        shape=RETRY,
        agent=CODEX,
        project="tidepool-web",
        session=[
            U("check out the design-tokens repo into packages/tokens so I can link it"),
            err(
                "git clone https://github.com/tidepool/design-tokens.git packages/tokens",
                "Cloning into 'packages/tokens'...\nremote: Repository not found.\nfatal: Authentication failed for 'https://github.com/tidepool/design-tokens.git/'",
                128,
            ),
            err(
                "git clone git@github.com:tidepool/design-tokens.git packages/tokens",
                "Cloning into 'packages/tokens'...\ngit@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.\n\n"
                "Please make sure you have the correct access rights\nand the repository exists.",
                128,
            ),
            ok(
                "gh auth status",
                "github.com\n  ✓ Logged in to github.com account tidepool-dev (keyring)\n  - Git operations protocol: https",
            ),
            ok(
                "gh repo clone tidepool/design-tokens packages/tokens",
                "Cloning into 'packages/tokens'...\nremote: Enumerating objects: 812, done.\nReceiving objects: 100% (812/812), 204.11 KiB | 2.1 MiB/s, done.",
            ),
        ],
        mistake="git clone https://github.com/tidepool/design-tokens.git packages/tokens",
        lesson="tidepool's private repos clone only through gh's credentials: gh repo clone tidepool/<repo>, not git clone https/ssh",
        warn=[
            same("git clone https://github.com/tidepool/design-tokens.git packages/tokens"),
            reword("git clone --depth 1 https://github.com/tidepool/design-tokens vendor/tokens"),
            reword("git clone git@github.com:tidepool/design-tokens.git packages/tokens"),
        ],
        silent=[
            fix("gh repo clone tidepool/design-tokens packages/tokens"),
            fix("gh repo clone tidepool/design-tokens vendor/tokens -- --depth 1"),
            other("git submodule update --init"),
            other("gh repo view tidepool/design-tokens"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b3-retry-docker-03",
        shape=RETRY,
        agent=GEMINI,
        project="northwind",
        session=[
            U("I need a throwaway sql server on 1434 for the migration test, outside compose"),
            err(
                "docker run -d --name nw-sql-scratch -p 1434:1433 -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest && sleep 5 && docker logs nw-sql-scratch",
                "5b1e0c7d9a2f\nSQL Server 2022 will run as non-root by default.\nThe SQL Server End-User License Agreement (EULA) must be accepted before SQL\n"
                "Server can start. The license terms for this product can be downloaded from\nhttp://go.microsoft.com/fwlink/?LinkId=746388.\n\n"
                "You can accept the EULA by specifying the --accept-eula command line option,\nsetting the ACCEPT_EULA environment variable, or using the mssql-conf tool.",
            ),
            ok("docker rm -f nw-sql-scratch", "nw-sql-scratch"),
            err(
                "docker run -d --name nw-sql-scratch -p 1434:1433 -e ACCEPT_EULA=1 -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest && sleep 5 && docker logs nw-sql-scratch",
                "a9c2e4f1b7d3\nThe SQL Server End-User License Agreement (EULA) must be accepted before SQL\nServer can start.",
            ),
            ok("docker rm -f nw-sql-scratch", "nw-sql-scratch"),
            ok(
                "docker run -d --name nw-sql-scratch -p 1434:1433 -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest && sleep 5 && docker logs nw-sql-scratch | tail -2",
                "c4d8e1a6f2b9\n2026-03-02 09:22:41.17 spid41s     SQL Server is now ready for client connections. This is an informational message; no user action is required.",
            ),
        ],
        mistake="docker run -d --name nw-sql-scratch -p 1434:1433 -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest",
        lesson="the mssql/server image only starts with -e ACCEPT_EULA=Y (not 1, not missing)",
        warn=[
            same(
                "docker run -d --name nw-sql-scratch -p 1434:1433 -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest"
            ),
            reword(
                "docker run -d -p 1435:1433 -e MSSQL_SA_PASSWORD='Nw_other_2026!' mcr.microsoft.com/mssql/server:2022-latest"
            ),
            reword(
                "docker run -d --name nw-sql-scratch -e ACCEPT_EULA=1 -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' -p 1434:1433 mcr.microsoft.com/mssql/server:2022-latest"
            ),
        ],
        silent=[
            fix(
                "docker run -d --name nw-sql-scratch -p 1434:1433 -e ACCEPT_EULA=Y -e MSSQL_SA_PASSWORD='Nw_scratch_2026!' mcr.microsoft.com/mssql/server:2022-latest"
            ),
            fix(
                "docker run -d -e MSSQL_SA_PASSWORD='Nw_other_2026!' -e ACCEPT_EULA=Y -p 1435:1433 mcr.microsoft.com/mssql/server:2022-latest"
            ),
            other("docker logs nw-sql-scratch"),
            other("docker rm -f nw-sql-scratch"),
        ],
    ),
    Incident(
        id="b3-retry-docker-04",
        shape=RETRY,
        agent=CC,
        project="ledgerline",
        session=[
            U("open a psql shell in the db container and count the accounts"),
            err(
                "docker compose exec db psql -c 'select count(*) from accounts'",
                'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  role "root" does not exist',
                2,
            ),
            err(
                "docker compose exec db psql -d ledgerline -c 'select count(*) from accounts'",
                'psql: error: connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: FATAL:  role "root" does not exist',
                2,
            ),
            ok("docker compose exec db env | grep POSTGRES_USER", "POSTGRES_USER=ledger"),
            ok(
                "docker compose exec db psql -U ledger -d ledgerline -c 'select count(*) from accounts'",
                " count \n-------\n   318\n(1 row)",
            ),
        ],
        mistake="docker compose exec db psql -d ledgerline -c 'select count(*) from accounts'",
        lesson="ledgerline's db container has no root role: docker compose exec db psql always needs -U ledger",
        warn=[
            same("docker compose exec db psql -d ledgerline -c 'select count(*) from accounts'"),
            reword("docker compose exec db psql ledgerline -c 'select 1'"),
            reword("docker compose exec -T db psql -d ledgerline < scripts/check_balances.sql"),
        ],
        silent=[
            fix("docker compose exec db psql -U ledger -d ledgerline -c 'select count(*) from accounts'"),
            fix("docker compose exec -T db psql -U ledger ledgerline < scripts/check_balances.sql"),
            other("docker compose exec db pg_isready -U ledger"),
            other("docker compose logs db"),
        ],
    ),
    Incident(
        id="b3-retry-k8s-05",
        shape=RETRY,
        agent=CODEX,
        project="glasshouse",
        session=[
            U("why is the operator crashlooping? show me its logs"),
            ok(
                "kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager",
                'Defaulted container "kube-rbac-proxy" out of: kube-rbac-proxy, manager\n'
                "I0302 09:12:01.118842       1 main.go:186] Valid token audiences: \n"
                "I0302 09:12:01.119201       1 main.go:316] Generating self signed cert as no cert is provided",
            ),
            err(
                "kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager -c controller",
                "error: container controller is not valid for pod glasshouse-controller-manager-6b9f7c8d4-7twq2",
            ),
            ok(
                "kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager -c manager --tail=20",
                '2026-03-02T09:12:03Z\tERROR\tsetup\tunable to create controller\t{"controller": "Widget", "error": "no matches for kind \\"Widget\\" in version \\"glasshouse.dev/v1alpha1\\""}',
            ),
            A("The first call showed the rbac proxy sidecar's logs; the operator's container is `manager`."),
        ],
        mistake="kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager",
        lesson="the glasshouse operator pod has a kube-rbac-proxy sidecar: kubectl logs needs -c manager (not controller, not the default)",
        warn=[
            same("kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager"),
            reword("kubectl -n glasshouse-system logs deployment/glasshouse-controller-manager --tail=200 -f"),
            reword("kubectl logs deploy/glasshouse-controller-manager -n glasshouse-system -c controller"),
        ],
        silent=[
            fix("kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager -c manager"),
            fix("kubectl logs -c manager -f --tail=100 -n glasshouse-system deploy/glasshouse-controller-manager"),
            other("kubectl get pods -n glasshouse-system"),
            other("kubectl logs -n glasshouse-system deploy/glasshouse-controller-manager -c kube-rbac-proxy"),
        ],
    ),
    Incident(
        id="b3-retry-k8s-06",
        shape=RETRY,
        agent=GEMINI,
        project="harborview",
        session=[
            U("get a shell in a gateway pod and check what's in /etc/gateway"),
            err(
                "kubectl exec -it -n edge gateway-5f7c9d8b6-x2kqp -- bash",
                "error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "
                '"3c1e...": OCI runtime exec failed: exec failed: unable to start container process: exec: "bash": executable file not found in $PATH: unknown',
                1,
            ),
            err(
                "kubectl exec -it -n edge gateway-5f7c9d8b6-x2kqp -- sh",
                "error: Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "
                '"8a2f...": OCI runtime exec failed: exec failed: unable to start container process: exec: "sh": executable file not found in $PATH: unknown',
                1,
            ),
            err(
                "kubectl exec -n edge gateway-5f7c9d8b6-x2kqp -- ls /etc/gateway",
                'OCI runtime exec failed: exec failed: unable to start container process: exec: "ls": executable file not found in $PATH: unknown',
                126,
            ),
            A(
                "The gateway image is distroless: nothing to exec. An ephemeral debug container sharing its process namespace works."
            ),
            ok(
                "kubectl debug -it -n edge gateway-5f7c9d8b6-x2kqp --image=busybox:1.36 --target=gateway -- ls /proc/1/root/etc/gateway",
                "Targeting container \"gateway\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.\n"
                "Defaulting debug container name to debugger-m4kq7.\nconfig.yaml\nroutes.d\ntls",
            ),
        ],
        mistake="kubectl exec -it -n edge gateway-5f7c9d8b6-x2kqp -- bash",
        lesson="harborview's gateway image is distroless (no bash, sh or ls): inspect it with kubectl debug --image=busybox:1.36 --target=gateway, not kubectl exec",
        warn=[
            same("kubectl exec -it -n edge gateway-5f7c9d8b6-x2kqp -- bash"),
            reword("kubectl exec -n edge -it gateway-5f7c9d8b6-m8zrt -- sh"),
            reword("kubectl -n edge exec gateway-5f7c9d8b6-x2kqp -- cat /etc/gateway/config.yaml"),
        ],
        silent=[
            fix("kubectl debug -it -n edge gateway-5f7c9d8b6-x2kqp --image=busybox:1.36 --target=gateway"),
            fix("kubectl debug -n edge -it gateway-5f7c9d8b6-m8zrt --target=gateway --image=busybox:1.36 -- sh"),
            other("kubectl exec -it -n edge redis-0 -- redis-cli ping"),
            other("kubectl describe pod -n edge gateway-5f7c9d8b6-x2kqp"),
        ],
    ),
    Incident(
        id="b3-retry-npm-07",
        shape=RETRY,
        agent=CC,
        project="tidepool-web",
        session=[
            U("publish @tidepool/ui 0.8.1, the version bump is already merged"),
            err(
                "pnpm --filter @tidepool/ui publish",
                "npm notice 📦  @tidepool/ui@0.8.1\nnpm notice Publishing to https://registry.npmjs.org/\n"
                "npm ERR! code E402\nnpm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@tidepool%2fui - You must sign up for private packages",
            ),
            err(
                "pnpm --filter @tidepool/ui publish --no-git-checks",
                "npm ERR! code E402\nnpm ERR! 402 Payment Required - PUT https://registry.npmjs.org/@tidepool%2fui - You must sign up for private packages",
            ),
            A("Scoped packages publish as private by default; @tidepool/ui is public."),
            ok(
                "pnpm --filter @tidepool/ui publish --access public",
                "npm notice 📦  @tidepool/ui@0.8.1\nnpm notice Publishing to https://registry.npmjs.org/ with tag latest and public access\n+ @tidepool/ui@0.8.1",
            ),
        ],
        mistake="pnpm --filter @tidepool/ui publish",
        lesson="tidepool's scoped packages are public: pnpm publish needs --access public (else 402 Payment Required)",
        warn=[
            same("pnpm --filter @tidepool/ui publish"),
            reword("pnpm -F @tidepool/ui publish --no-git-checks"),
            reword("cd packages/icons && pnpm publish"),
        ],
        silent=[
            fix("pnpm --filter @tidepool/ui publish --access public"),
            fix("cd packages/ui && pnpm publish --access=public --no-git-checks"),
            other("pnpm --filter @tidepool/ui build"),
            other("npm view @tidepool/ui version"),
        ],
    ),
    Incident(
        id="b3-retry-python-08",
        shape=RETRY,
        agent=CODEX,
        project="ledgerline",
        session=[
            U("install the project editable so I can run the cli"),
            err(
                "uv pip install -e .",
                "error: No virtual environment found; run `uv venv` to create an environment, or pass `--system` to install into a non-virtual environment",
                2,
            ),
            err(
                "uv pip install --system -e .",
                "error: The interpreter at /usr is externally managed, and indicates the following:\n\n"
                "  To install Python packages system-wide, try apt install\n  python3-xyz, where xyz is the package you are trying to\n  install.\n\n"
                "Consider creating a virtual environment with `uv venv`.",
                2,
            ),
            ok(
                "uv sync",
                "Using CPython 3.12.8\nCreating virtual environment at: .venv\nResolved 64 packages in 1ms\n"
                "Installed 61 packages in 212ms\n + ledgerline==2.4.0 (from file:///work/ledgerline)",
            ),
            ok("uv run ledgerline --version", "ledgerline 2.4.0"),
        ],
        mistake="uv pip install -e .",
        lesson="ledgerline is a uv project: install with uv sync (and add deps with uv add), never uv pip install",
        warn=[
            same("uv pip install -e ."),
            reword("uv pip install --system -e '.[dev]'"),
            reword("uv pip install httpx"),
        ],
        silent=[
            fix("uv sync"),
            fix("uv sync --all-extras"),
            fix("uv add httpx"),
            other("uv run pytest -q"),
            other("uv lock --check"),
        ],
    ),
    Incident(
        id="b3-retry-cargo-09",
        shape=RETRY,
        agent=GEMINI,
        project="quarry",
        session=[
            U("build a static musl binary of quarry for the alpine image"),
            err(
                "cargo build --release --target x86_64-unknown-linux-musl",
                "   Compiling quarry-core v0.7.2 (/work/quarry/crates/quarry-core)\nerror[E0463]: can't find crate for `core`\n  |\n"
                "  = note: the `x86_64-unknown-linux-musl` target may not be installed\n  = help: consider downloading the target with `rustup target add x86_64-unknown-linux-musl`",
                101,
            ),
            ok(
                "rustup target add x86_64-unknown-linux-musl",
                "info: downloading component 'rust-std' for 'x86_64-unknown-linux-musl'\ninfo: installing component 'rust-std'",
            ),
            err(
                "cargo build --release --target x86_64-unknown-linux-musl",
                "   Compiling ring v0.17.8\nerror: failed to run custom build command for `ring v0.17.8`\n\n"
                '  running: "musl-gcc" "-O3" "-ffunction-sections" "-fdata-sections" "-fPIC" "-m64" ...\n'
                "  --- stderr\n  error occurred: Failed to find tool. Is `musl-gcc` installed?",
                101,
            ),
            ok(
                "cargo zigbuild --release --target x86_64-unknown-linux-musl",
                "   Compiling ring v0.17.8\n   Compiling quarry-core v0.7.2\n   Compiling quarry-cli v0.7.2\n"
                "    Finished `release` profile [optimized] target(s) in 1m 12s",
            ),
        ],
        mistake="cargo build --release --target x86_64-unknown-linux-musl",
        lesson="quarry's musl builds need cargo zigbuild (no musl-gcc on this box): cargo zigbuild --release --target x86_64-unknown-linux-musl",
        warn=[
            same("cargo build --release --target x86_64-unknown-linux-musl"),
            reword("cargo build -r --target=x86_64-unknown-linux-musl"),
            reword("cargo build --target x86_64-unknown-linux-musl --bin quarry --release"),
        ],
        silent=[
            fix("cargo zigbuild --release --target x86_64-unknown-linux-musl"),
            fix("cargo zigbuild --target x86_64-unknown-linux-musl -r --bin quarry"),
            other("cargo build --release"),
            other("rustup target list --installed"),
        ],
    ),
    Incident(
        id="b3-retry-go-10",
        shape=RETRY,
        agent=CC,
        project="switchyard",
        session=[
            U("bump authkit to v0.7.0 and make sure everything downloads"),
            err(
                "go get github.com/acme/authkit@v0.7.0",
                "go: github.com/acme/authkit@v0.7.0: reading https://proxy.golang.org/github.com/acme/authkit/@v/v0.7.0.info: 404 Not Found\n"
                "\tserver response: not found: github.com/acme/authkit@v0.7.0: invalid version: git ls-remote -q origin in /tmp/gopath/pkg/mod/cache/vcs/9c1e: "
                "exit status 128:\n\tfatal: could not read Username for 'https://github.com': terminal prompts disabled",
            ),
            err(
                "GOPROXY=direct go get github.com/acme/authkit@v0.7.0",
                "go: github.com/acme/authkit@v0.7.0: verifying module: github.com/acme/authkit@v0.7.0: reading https://sum.golang.org/lookup/github.com/acme/authkit@v0.7.0: 404 Not Found\n"
                "\tserver response: not found: github.com/acme/authkit@v0.7.0: invalid version: git ls-remote -q origin: exit status 128",
            ),
            ok(
                "GOPRIVATE=github.com/acme/* go get github.com/acme/authkit@v0.7.0",
                "go: downloading github.com/acme/authkit v0.7.0\ngo: upgraded github.com/acme/authkit v0.6.1 => v0.7.0",
            ),
            ok("GOPRIVATE=github.com/acme/* go mod download", ""),
        ],
        mistake="go get github.com/acme/authkit@v0.7.0",
        lesson="github.com/acme/* modules are private: go get / go mod download need GOPRIVATE=github.com/acme/* (the public proxy and sumdb 404)",
        warn=[
            same("go get github.com/acme/authkit@v0.7.0"),
            reword("GOPROXY=direct go get github.com/acme/authkit@v0.7.0"),
            reword("go get -u github.com/acme/ratelimit@latest"),
        ],
        silent=[
            fix("GOPRIVATE=github.com/acme/* go get github.com/acme/authkit@v0.7.0"),
            fix("GOPRIVATE=github.com/acme/* go mod download"),
            other("go env GOPRIVATE"),
            help_("go help module-private"),
        ],
    ),
    Incident(
        id="b3-retry-terraform-11",
        shape=RETRY,
        agent=CODEX,
        project="fernhill-infra",
        session=[
            U("the assets bucket was created by hand, import it into the cdn module"),
            err(
                "terraform import aws_s3_bucket.assets fernhill-assets",
                '╷\n│ Error: resource address "aws_s3_bucket.assets" does not exist in the configuration.\n│\n'
                "│ Before importing this resource, please create its configuration in the root module.\n╵",
            ),
            err(
                "terraform import module.cdn.aws_s3_bucket.assets fernhill-assets",
                '╷\n│ Error: No value for required variable\n│\n│   on variables.tf line 1:\n│    1: variable "environment" {\n╵',
            ),
            ok(
                "terraform import -var-file=envs/prod.tfvars module.cdn.aws_s3_bucket.assets fernhill-assets",
                'module.cdn.aws_s3_bucket.assets: Importing from ID "fernhill-assets"...\nmodule.cdn.aws_s3_bucket.assets: Import prepared!\n'
                "  Prepared aws_s3_bucket for import\nmodule.cdn.aws_s3_bucket.assets: Refreshing state... [id=fernhill-assets]\n\nImport successful!",
            ),
        ],
        mistake="terraform import aws_s3_bucket.assets fernhill-assets",
        lesson="fernhill's assets bucket lives in the cdn module: import it as module.cdn.aws_s3_bucket.assets (with -var-file=envs/prod.tfvars)",
        warn=[
            same("terraform import aws_s3_bucket.assets fernhill-assets"),
            reword("terraform import -var-file=envs/prod.tfvars aws_s3_bucket.assets fernhill-assets"),
            reword("terraform import aws_s3_bucket.assets fernhill-assets-logs"),
        ],
        silent=[
            fix("terraform import -var-file=envs/prod.tfvars module.cdn.aws_s3_bucket.assets fernhill-assets"),
            fix("terraform import -var-file envs/prod.tfvars 'module.cdn.aws_s3_bucket.assets' fernhill-assets"),
            other("terraform state list module.cdn"),
            other("terraform state show module.cdn.aws_s3_bucket.assets"),
        ],
    ),
    Incident(
        id="b3-retry-make-12",
        shape=RETRY,
        agent=GEMINI,
        project="atlas-mono",
        session=[
            U("build the docs locally so I can check the new architecture page"),
            err("make docs", "make: *** No rule to make target 'docs'.  Stop.", 2),
            err("make doc", "make: *** No rule to make target 'doc'.  Stop.", 2),
            ok("ls docs", "Makefile\nconf.py\nindex.rst\narchitecture.rst\n_static"),
            ok(
                "make -C docs html",
                "make: Entering directory '/work/atlas-mono/docs'\nRunning Sphinx v7.4.7\nbuilding [html]: targets for 14 source files that are out of date\n"
                "build succeeded.\n\nThe HTML pages are in _build/html.\nmake: Leaving directory '/work/atlas-mono/docs'",
            ),
        ],
        mistake="make docs",
        lesson="atlas-mono's root Makefile has no docs target: build the docs with make -C docs html",
        warn=[
            same("make docs"),
            reword("make doc"),
            reword("cd ~/src/atlas-mono && make docs -j4"),
        ],
        silent=[
            fix("make -C docs html"),
            fix("make -C docs html SPHINXOPTS=-W"),
            other("make -C docs clean"),
            other("make lint"),
        ],
    ),
    Incident(
        id="b3-retry-gh-13",
        shape=RETRY,
        agent=CC,
        project="cinder-docs",
        session=[
            U("grab the built site from CI run 9912 so I can diff it locally"),
            err("gh run download 9912 -n site", "no artifact matches any of the names or patterns provided"),
            err(
                "gh run download 9912 -n docs-site -D build/",
                "no artifact matches any of the names or patterns provided",
            ),
            ok("gh run view 9912 --json artifacts --jq '.artifacts[].name'", "github-pages\nlighthouse-report"),
            ok("gh run download 9912 -n github-pages -D build/", ""),
            ok("ls build", "artifact.tar"),
        ],
        mistake="gh run download 9912 -n site",
        lesson="cinder-docs' CI uploads the site as the artifact github-pages: gh run download <id> -n github-pages",
        warn=[
            same("gh run download 9912 -n site"),
            reword("gh run download 9931 --name site"),
            reword("gh run download -n docs-site 9912 -D build/"),
        ],
        silent=[
            fix("gh run download 9912 -n github-pages -D build/"),
            fix("gh run download 9931 --name github-pages"),
            other("gh run view 9912"),
            other("gh run list --workflow deploy.yml"),
        ],
    ),
    Incident(
        id="b3-retry-cloud-14",
        shape=RETRY,
        agent=CODEX,
        project="riverbed-ml",
        session=[
            U("push the new training image to ecr"),
            err(
                "docker push 123456789012.dkr.ecr.eu-west-1.amazonaws.com/riverbed/train:0412",
                "The push refers to repository [123456789012.dkr.ecr.eu-west-1.amazonaws.com/riverbed/train]\n5f70bf18a086: Preparing\nno basic auth credentials",
            ),
            err(
                "aws ecr get-login-password | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com",
                'You must specify a region. You can also configure your region by running "aws configure".\n'
                "Error: Cannot perform an interactive login from a non TTY device",
            ),
            ok(
                "aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com",
                "Login Succeeded",
            ),
            ok(
                "docker push 123456789012.dkr.ecr.eu-west-1.amazonaws.com/riverbed/train:0412",
                "0412: digest: sha256:7c1e9f0a2b3d4c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6 size: 3261",
            ),
        ],
        mistake="aws ecr get-login-password | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com",
        lesson="no default aws region here: aws ecr get-login-password needs --region eu-west-1",
        warn=[
            same(
                "aws ecr get-login-password | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com"
            ),
            reword(
                "aws ecr get-login-password --profile riverbed | docker login -u AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com"
            ),
        ],
        silent=[
            fix(
                "aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com"
            ),
            fix(
                "aws --region eu-west-1 ecr get-login-password | docker login -u AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com"
            ),
            other("aws ecr describe-repositories --region eu-west-1"),
            other("aws sts get-caller-identity"),
        ],
    ),
    Incident(
        id="b3-retry-sql-15",
        shape=RETRY,
        agent=GEMINI,
        project="mosaic-shop",
        session=[
            U("list the tables in the local shop db"),
            err(
                "mysql -u app mosaic -e 'show tables'",
                "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)",
                1,
            ),
            err(
                "mysql -u app -h 127.0.0.1 -P 3307 mosaic -e 'show tables'",
                "ERROR 1045 (28000): Access denied for user 'app'@'172.19.0.1' (using password: NO)",
                1,
            ),
            ok("cat .mysql-dev.cnf | grep -v password", "[client]\nhost=127.0.0.1\nport=3307\nuser=app"),
            ok(
                "mysql --defaults-extra-file=.mysql-dev.cnf mosaic -e 'show tables'",
                "+------------------+\n| Tables_in_mosaic |\n+------------------+\n| carts            |\n| customers        |\n| orders           |\n| order_items      |\n| products         |\n+------------------+",
            ),
        ],
        mistake="mysql -u app mosaic -e 'show tables'",
        lesson="mosaic-shop's local mysql is the docker one on 127.0.0.1:3307 with a password: connect with mysql --defaults-extra-file=.mysql-dev.cnf",
        warn=[
            same("mysql -u app mosaic -e 'show tables'"),
            reword("mysql -u app -h 127.0.0.1 -P 3307 mosaic -e 'select count(*) from orders'"),
            reword("mysql -uapp mosaic < db/fixtures/products.sql"),
        ],
        silent=[
            fix("mysql --defaults-extra-file=.mysql-dev.cnf mosaic -e 'show tables'"),
            fix("mysql --defaults-extra-file=.mysql-dev.cnf mosaic < db/fixtures/products.sql"),
            other("mysqladmin --defaults-extra-file=.mysql-dev.cnf status"),
            other("docker compose ps mysql"),
        ],
    ),
    Incident(
        id="b3-retry-ansible-16",
        shape=RETRY,
        agent=CC,
        project="kestrel-ops",
        session=[
            U("apply the postgres tuning playbook to db2"),
            err(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2",
                "TASK [Gathering Facts] *********************************************************\n"
                'fatal: [db2]: FAILED! => {"ansible_facts": {}, "changed": false, "failed_modules": {"ansible.legacy.setup": '
                '{"failed": true, "module_stderr": "/bin/sh: 1: /usr/bin/python: not found\\n", "rc": 127}}, "msg": "The following modules failed to execute: ansible.legacy.setup\\n"}',
                2,
            ),
            err(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2 -e ansible_python_interpreter=/usr/bin/python",
                'fatal: [db2]: FAILED! => {"changed": false, "module_stderr": "/bin/sh: 1: /usr/bin/python: not found\\n", "rc": 127}',
                2,
            ),
            ok(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2 -e ansible_python_interpreter=/usr/bin/python3",
                "TASK [postgres : tune shared_buffers] ******************************************\nchanged: [db2]\n\n"
                "PLAY RECAP *********************************************************************\ndb2 : ok=9 changed=2 unreachable=0 failed=0",
            ),
        ],
        mistake="ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2",
        lesson="kestrel's db hosts only have python3: playbooks/db.yml needs -e ansible_python_interpreter=/usr/bin/python3",
        warn=[
            same(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2"
            ),
            reword(
                "ansible-playbook playbooks/db.yml -i inventories/prod --vault-password-file ~/.kestrel-vault --limit db1 --check"
            ),
            reword(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault -e ansible_python_interpreter=/usr/bin/python"
            ),
        ],
        silent=[
            fix(
                "ansible-playbook -i inventories/prod playbooks/db.yml --vault-password-file ~/.kestrel-vault --limit db2 -e ansible_python_interpreter=/usr/bin/python3"
            ),
            fix(
                "ansible-playbook -e ansible_python_interpreter=/usr/bin/python3 --vault-password-file ~/.kestrel-vault -i inventories/prod playbooks/db.yml --check"
            ),
            other("ansible-playbook -i inventories/prod site.yml --vault-password-file ~/.kestrel-vault --limit web"),
            other("ansible db -i inventories/prod -m ping -e ansible_python_interpreter=/usr/bin/python3"),
        ],
    ),
    Incident(
        id="b3-retry-ssh-17",
        shape=RETRY,
        agent=CODEX,
        project="cinder-docs",
        session=[
            U("put the PR 118 build on the preview server"),
            err(
                "rsync -avz build/ preview@preview.cinder.dev:/srv/previews/pr-118/",
                "ssh: connect to host preview.cinder.dev port 22: Connection refused\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]\n"
                "rsync error: unexplained error (code 255) at io.c(231) [sender=3.2.7]",
                255,
            ),
            err(
                "rsync -avz -e 'ssh -p 2222' build/ preview@preview.cinder.dev:/srv/previews/pr-118/",
                "preview@preview.cinder.dev: Permission denied (publickey).\nrsync: connection unexpectedly closed (0 bytes received so far) [sender]",
                255,
            ),
            ok("ls ~/.ssh", "cinder_preview\ncinder_preview.pub\nconfig\nid_ed25519\nid_ed25519.pub\nknown_hosts"),
            ok(
                "rsync -avz -e 'ssh -p 2222 -i ~/.ssh/cinder_preview' build/ preview@preview.cinder.dev:/srv/previews/pr-118/",
                "sending incremental file list\ncreated directory /srv/previews/pr-118\n./\nindex.html\n...\nsent 48,201,114 bytes  received 9,212 bytes",
            ),
        ],
        mistake="rsync -avz build/ preview@preview.cinder.dev:/srv/previews/pr-118/",
        lesson="preview.cinder.dev listens on ssh port 2222 and takes only ~/.ssh/cinder_preview: use -e 'ssh -p 2222 -i ~/.ssh/cinder_preview' (or ssh -p 2222 -i ...)",
        warn=[
            same("rsync -avz build/ preview@preview.cinder.dev:/srv/previews/pr-118/"),
            reword("rsync -az --delete build/ preview@preview.cinder.dev:/srv/previews/pr-121/"),
            reword("ssh preview@preview.cinder.dev ls /srv/previews"),
        ],
        silent=[
            fix(
                "rsync -avz -e 'ssh -p 2222 -i ~/.ssh/cinder_preview' build/ preview@preview.cinder.dev:/srv/previews/pr-118/"
            ),
            fix("ssh -p 2222 -i ~/.ssh/cinder_preview preview@preview.cinder.dev ls /srv/previews"),
            other("rsync -avz --delete build/ deploy@docs1:/var/www/cinder/"),
            help_("rsync --version"),
        ],
    ),
    Incident(
        id="b3-retry-ssh-18",
        shape=RETRY,
        agent=GEMINI,
        project="kestrel-ops",
        session=[
            U("copy the 1.9 release tarball to app1's releases dir"),
            err(
                "scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/opt/kestrel/releases/",
                'scp: dest open "/opt/kestrel/releases/kestrel-api-1.9.tar.gz": Permission denied\nscp: failed to upload file dist/kestrel-api-1.9.tar.gz to /opt/kestrel/releases/',
            ),
            err(
                "scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/opt/kestrel/releases/kestrel-api-1.9.tar.gz",
                'scp: dest open "/opt/kestrel/releases/kestrel-api-1.9.tar.gz": Permission denied',
            ),
            ok(
                "ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'ls -ld /opt/kestrel/releases'",
                "drwxr-xr-x 6 root root 4096 Feb 27 17:02 /opt/kestrel/releases",
            ),
            ok("scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/tmp/", ""),
            ok(
                "ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'sudo mv /tmp/kestrel-api-1.9.tar.gz /opt/kestrel/releases/'",
                "",
            ),
        ],
        mistake="scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/opt/kestrel/releases/",
        lesson="/opt/kestrel/releases is root-owned: scp release tarballs to /tmp/ and sudo mv them into place over ssh",
        warn=[
            same(
                "scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/opt/kestrel/releases/"
            ),
            reword(
                "scp -J ops@bastion.kestrel.io dist/kestrel-worker-1.9.tar.gz deploy@app2.kestrel.internal:/opt/kestrel/releases/"
            ),
            reword(
                "rsync -avz -e 'ssh -J ops@bastion.kestrel.io' dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/opt/kestrel/releases/"
            ),
        ],
        silent=[
            fix("scp -J ops@bastion.kestrel.io dist/kestrel-api-1.9.tar.gz deploy@app1.kestrel.internal:/tmp/"),
            fix(
                "ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'sudo mv /tmp/kestrel-api-1.9.tar.gz /opt/kestrel/releases/'"
            ),
            other("scp -J ops@bastion.kestrel.io deploy@app1.kestrel.internal:/var/log/kestrel/api.log ./logs/"),
            other("ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'ls -l /opt/kestrel/releases'"),
        ],
    ),
    Incident(
        id="b3-retry-script-19",
        shape=RETRY,
        agent=CC,
        project="beacon-apps",
        session=[
            U("build the iOS app for the simulator"),
            err(
                "./scripts/build-ios.sh",
                "xcodebuild -scheme Beacon -destination 'platform=iOS Simulator,OS=17.2,name=iPhone 15' build\n"
                "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n"
                '\t\t{ platform:iOS Simulator, OS:17.2, name:iPhone 15 }\n\n\tAvailable destinations for the "Beacon" scheme:\n'
                "\t\t{ platform:iOS Simulator, id:4F1C2E9A-..., OS:18.2, name:iPhone 16 }\n\t\t{ platform:iOS Simulator, id:8B2D..., OS:18.2, name:iPhone 16 Pro }",
                70,
            ),
            err(
                "./scripts/build-ios.sh --simulator 'iPhone 15'",
                "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n\t\t{ platform:iOS Simulator, OS:17.2, name:iPhone 15 }",
                70,
            ),
            ok(
                "xcrun simctl list devices available | grep iPhone",
                "    iPhone 16 (4F1C2E9A-7B3D-4E21-9C8A-1D2E3F4A5B6C) (Shutdown)\n    iPhone 16 Pro (8B2D...) (Shutdown)",
            ),
            ok(
                "./scripts/build-ios.sh --simulator 'iPhone 16' --os 18.2",
                "xcodebuild -scheme Beacon -destination 'platform=iOS Simulator,OS=18.2,name=iPhone 16' build\n** BUILD SUCCEEDED **",
            ),
        ],
        mistake="./scripts/build-ios.sh",
        lesson="beacon's build-ios.sh defaults to a simulator that isn't installed (iOS 17.2 / iPhone 15): pass --simulator 'iPhone 16' --os 18.2",
        warn=[
            same("./scripts/build-ios.sh"),
            reword("./scripts/build-ios.sh --simulator 'iPhone 15'"),
            reword("bash scripts/build-ios.sh --scheme BeaconWidgets"),
        ],
        silent=[
            fix("./scripts/build-ios.sh --simulator 'iPhone 16' --os 18.2"),
            fix('./scripts/build-ios.sh --os 18.2 --simulator "iPhone 16" --scheme BeaconWidgets'),
            other("./scripts/lint.sh"),
            other("xcrun simctl list devices available"),
        ],
    ),
    Incident(
        id="b3-retry-gradle-20",
        shape=RETRY,
        agent=CODEX,
        project="beacon-apps",
        session=[
            U("build a debug apk"),
            err(
                "cd android && ./gradlew :app:assembleDebug",
                "FAILURE: Build failed with an exception.\n\n* Where:\nBuild file '/work/beacon-apps/android/app/build.gradle.kts' line: 1\n\n"
                "* What went wrong:\nAn exception occurred applying plugin request [id: 'com.android.application']\n"
                "> Failed to apply plugin 'com.android.internal.application'.\n   > Android Gradle plugin requires Java 17 to run. You are currently using Java 11.\n"
                "      Your current JDK is located in /usr/lib/jvm/java-11-openjdk\n\nBUILD FAILED in 3s",
            ),
            err(
                "cd android && ./gradlew :app:assembleDebug -Dorg.gradle.java.home=/usr/lib/jvm/java-21-openjdk",
                "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not open cp_settings generic class cache for settings file '/work/beacon-apps/android/settings.gradle.kts'.\n"
                "> BUG! exception in phase 'semantic analysis' in source unit '_BuildScript_' Unsupported class file major version 65\n\nBUILD FAILED in 2s",
            ),
            ok("ls /usr/lib/jvm", "java-11-openjdk\njava-17-openjdk\njava-21-openjdk"),
            ok(
                "cd android && JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew :app:assembleDebug",
                "> Task :app:assembleDebug\n\nBUILD SUCCESSFUL in 1m 4s\n52 actionable tasks: 52 executed",
            ),
        ],
        mistake="cd android && ./gradlew :app:assembleDebug",
        lesson="beacon's android build needs JDK 17 (default java is 11, 21 is too new for this gradle): JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew ...",
        warn=[
            same("cd android && ./gradlew :app:assembleDebug"),
            reword("cd android && ./gradlew assembleDebug --info"),
            reword(
                "cd android && ./gradlew :app:testDebugUnitTest -Dorg.gradle.java.home=/usr/lib/jvm/java-21-openjdk"
            ),
        ],
        silent=[
            fix("cd android && JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew :app:assembleDebug"),
            fix("cd android && JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew :app:testDebugUnitTest --info"),
            other("cd android && ./gradlew --stop"),
            other("ls /usr/lib/jvm"),
        ],
    ),
]
