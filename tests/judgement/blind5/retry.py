"""Blind5 split, shape 5: the agent retries variants until one works (often with a
diagnostic call in between); the lesson is the working form."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same

_PSYCOPG2_BUILD = (
    "Resolved 84 packages in 1.21s\n  × Failed to build `psycopg2==2.9.10`\n  ├─▶ The build backend returned an error\n"
    "  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n\n      [stdout]\n"
    "      running egg_info\n      writing psycopg2.egg-info/PKG-INFO\n\n      [stderr]\n\n"
    "      Error: pg_config executable not found.\n\n"
    "      pg_config is required to build psycopg2 from source.  Please add the directory\n"
    "      containing pg_config to the $PATH or specify the full executable path with the\n      option:\n\n"
    "          python setup.py build_ext --pg-config /path/to/pg_config build ...\n\n"
    "      If you prefer to avoid building psycopg2 from source, please install the PyPI\n"
    "      'psycopg2-binary' package instead.\n\n"
    "      hint: This usually indicates a problem with the package or the build environment.\n"
    "  help: If you want to add the package regardless of the failed resolution, provide the `--frozen` flag to skip locking and syncing."
)

_VERCEL_NO_NEXT = (
    "Vercel CLI 39.2.0\n🔍  Inspect: https://vercel.com/cinderpath/cinderpath/7mK2pQ9xR4sT6vW8yZ0aB2cD4eF6 [2s]\n"
    "Error: No Next.js version detected. Make sure your package.json has \"next\" in either \"dependencies\" or "
    "\"devDependencies\". Also check your Root Directory setting matches the directory of your package.json file."
)

_NOT_THAT_TSC = (
    "\n                This is not the tsc command you are looking for\n\n\n"
    "To get access to the TypeScript compiler, tsc, from the command line either:\n\n"
    "- Use npm install typescript to first add TypeScript to your project before using npx\n"
    "- Use yarn to avoid accidentally running code from un-installed packages"
)

_DISTROLESS = (
    "error: Internal error occurred: error executing command in container: failed to exec in container: failed to start "
    "exec \"{id}\": OCI runtime exec failed: exec failed: unable to start container process: exec: \"{exe}\": "
    "executable file not found in $PATH: unknown"
)

_TF_PARTIAL_BACKEND = (
    "Initializing the backend...\n╷\n│ Error: \"{field}\": required field is not set\n│ \n"
    "│   with the backend \"s3\" block,\n│   on backend.tf line 2, in terraform:\n│    2:   backend \"s3\" {{}}\n╵"
)

_LINK_WRONG_FORMAT = (
    "   Compiling ferrow-core v0.9.0 (/home/dev/ferrow/crates/ferrow-core)\n"
    "   Compiling ferrow-cli v0.9.0 (/home/dev/ferrow/crates/ferrow-cli)\n"
    "error: linking with `cc` failed: exit status: 1\n  |\n"
    "  = note: LC_ALL=\"C\" PATH=\"/home/dev/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/x86_64-unknown-linux-gnu/bin:...\" \"cc\" ...\n"
    "  = note: /usr/bin/ld: /home/dev/ferrow/target/aarch64-unknown-linux-gnu/release/deps/ferrow-3b1c9e5a7d2f4068.ferrow.4e1f-cgu.0.rcgu.o: "
    "error adding symbols: file in wrong format\n          collect2: error: ld returned 1 exit status\n\n"
    "error: could not compile `ferrow-cli` (bin \"ferrow\") due to 1 previous error"
)


def _pg_restore_errors(dump: str) -> str:
    tables = ["accounts", "invoices", "invoice_lines", "payouts", "payout_schedules", "projects", "tasks", "users",
              "subscriptions", "credit_notes", "audit_events", "webhooks"]
    lines = []
    for table in tables:
        lines.append(f"pg_restore: error: could not execute query: ERROR:  role \"tallowmere_prod\" does not exist\n"
                     f"Command was: ALTER TABLE public.{table} OWNER TO tallowmere_prod;")
        lines.append(f"pg_restore: error: could not execute query: ERROR:  role \"tallowmere_readonly\" does not exist\n"
                     f"Command was: GRANT SELECT ON TABLE public.{table} TO tallowmere_readonly;")
    lines.append(f"pg_restore: warning: errors ignored on restore: 214\n(restoring from {dump})")
    return "\n".join(lines)


_SAIL_PORT_TAKEN = (
    "[+] Running 4/5\n ✔ Network larchmont_sail             Created   0.1s\n ✔ Container larchmont-redis-1        Started   0.6s\n"
    " ✔ Container larchmont-mailpit-1      Started   0.6s\n ⠿ Container larchmont-mysql-1        Starting  0.7s\n"
    " ✔ Container larchmont-laravel.test-1 Created   0.1s\n"
    "Error response from daemon: driver failed programming external connectivity on endpoint larchmont-mysql-1 "
    "(5b1e4f2a9c7d3e8b1a6f0c2d4e9b7a3f5c1d8e2b6a4f9c0d3e7b1a5f8c2d6e4b): Bind for 0.0.0.0:3306 failed: port is already allocated"
)

_SCP_NO_SFTP = "subsystem request failed on channel 0\nscp: Connection closed"

_HIKARI_REFUSED = (
    "  .   ____          _            __ _ _\n /\\\\ / ___'_ __ _ _(_)_ __  __ _ \\ \\ \\ \\\n"
    "2026-03-02T09:52:11.402Z  INFO 1 --- [           main] i.w.api.WrenfieldApiApplication          : Starting WrenfieldApiApplication v1.7.0\n"
    "2026-03-02T09:52:14.118Z ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Exception during pool initialization.\n\n"
    "org.postgresql.util.PSQLException: Connection to {host}:5432 refused. Check that the hostname and port are correct "
    "and that the postmaster is accepting TCP/IP connections.\n...\nAPPLICATION FAILED TO START"
)

_NO_DATASOURCE = (
    "> Task :api:bootRun\n\n  .   ____          _            __ _ _\n"
    "2026-03-02T10:04:51.377Z  INFO 48211 --- [           main] i.w.api.WrenfieldApiApplication          : "
    "No active profile set, falling back to 1 default profile: \"default\"\n\n"
    "***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\n"
    "Failed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\n"
    "Reason: Failed to determine a suitable driver class\n\n\nAction:\n\nConsider the following:\n"
    "\tIf you want an embedded database (H2, HSQL or Derby), please put it on the classpath.\n"
    "\tIf you have database settings to be loaded from a particular profile you may need to activate it (no profiles are currently active).\n\n"
    "> Task :api:bootRun FAILED\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
    "Execution failed for task ':api:bootRun'.\n> Process 'command '/usr/lib/jvm/temurin-21-jdk-amd64/bin/java'' finished with non-zero exit value 1"
)

_ODBC18_CERT = (
    "Sqlcmd: Error: Microsoft ODBC Driver 18 for SQL Server : SSL Provider: [error:0A000086:SSL routines::certificate "
    "verify failed:self-signed certificate].\nSqlcmd: Error: Microsoft ODBC Driver 18 for SQL Server : Client unable to "
    "establish connection. For solutions related to encryption errors, see https://go.microsoft.com/fwlink/?linkid=2226722."
)

_SQL_NO_IPV4 = (
    "ERROR: (gcloud.sql.connect) It seems your client does not have ipv6 connectivity and the database instance does not "
    "have an ipv4 address. Please request an ipv4 address for this database instance."
)

_NO_EDITOR = "error: cannot run vi: No such file or directory\nerror: There was a problem with the editor 'vi'."

_ASSEMBLY_DEDUP = (
    "[info] welcome to sbt 1.10.2 (Eclipse Adoptium Java 17.0.12)\n[info] loading settings for project root from build.sbt ...\n"
    "[info] Strategy 'discard' was applied to 212 files (Run the task at debug level to see details)\n"
    "[error] 1 error(s) were encountered during the merge:\n[error] java.lang.RuntimeException: \n"
    "[error] Deduplicate found different file contents in the following:\n"
    "[error]   Jar name = jackson-core-2.15.2.jar, jar org = com.fasterxml.jackson.core, entry target = META-INF/versions/9/module-info.class\n"
    "[error]   Jar name = jackson-databind-2.15.2.jar, jar org = com.fasterxml.jackson.core, entry target = META-INF/versions/9/module-info.class\n"
    "[error] (devtools / assembly) Deduplicate found different file contents in the following:\n"
    "[error] Total time: 58 s, completed Mar 2, 2026, 10:21:33 AM"
)

INCIDENTS = [
    Incident(
        "b5-retry-uv-01", RETRY, CC, "brackenridge",
        session=[
            U("Add a Postgres driver so the reporting job can talk to the warehouse."),
            err("uv add psycopg2", _PSYCOPG2_BUILD),
            err("uv add psycopg2 --no-build-isolation", _PSYCOPG2_BUILD),
            err("sudo apt-get install -y libpq-dev",
                "sudo: a terminal is required to read the password; either use the -S option to read from standard input "
                "or configure an askpass helper\nsudo: a password is required"),
            ok("uv add \"psycopg[binary]\"",
               "Resolved 86 packages in 412ms\nPrepared 2 packages in 1.02s\nInstalled 2 packages in 9ms\n"
               " + psycopg==3.2.4\n + psycopg-binary==3.2.4"),
            A("Added psycopg 3 with its prebuilt wheel. psycopg2 only builds from source here, and there is no pg_config "
              "/ libpq-dev (and no sudo to install them); the wheels are psycopg[binary] or psycopg2-binary."),
        ],
        mistake="uv add psycopg2",
        lesson="brackenridge: psycopg2 can't build here (no pg_config / libpq-dev, no sudo) — install a wheel instead: uv add \"psycopg[binary]\" (or psycopg2-binary).",
        warn=[same("uv add psycopg2"), reword("uv pip install psycopg2==2.9.10"), reword("uv add --group reporting psycopg2")],
        silent=[fix("uv add --group reporting \"psycopg[binary]\""), fix("uv pip install psycopg2-binary==2.9.10"),
                other("uv remove psycopg2"), other("uv add httpx"), help_("uv add --help")],
        variants=(),
    ),
    Incident(
        "b5-retry-vercel-02", RETRY, CODEX, "cinderpath",
        session=[
            U("Deploy a preview of the web app to Vercel."),
            err("vercel deploy", _VERCEL_NO_NEXT),
            err("vercel deploy --prebuilt",
                "Vercel CLI 39.2.0\nError: The \"--prebuilt\" option was used, but no prebuilt output found in "
                "\".vercel/output\". Run `vercel build` to generate a local build."),
            err("vercel build && vercel deploy --prebuilt", "Vercel CLI 39.2.0\n" + _VERCEL_NO_NEXT.split("\n", 2)[2]),
            ok("cat apps/web/.vercel/project.json", "{\"projectId\":\"prj_4Fq9Lm2Xc7Tz1Wb8\",\"orgId\":\"team_cinderpath\"}"),
            ok("vercel deploy --cwd apps/web",
               "Vercel CLI 39.2.0\n🔍  Inspect: https://vercel.com/cinderpath/cinderpath-web/9fQ1wE3rT5yU7iO9pA1sD3fG [3s]\n"
               "✅  Preview: https://cinderpath-web-git-main-cinderpath.vercel.app [52s]"),
            A("Preview deployed: https://cinderpath-web-git-main-cinderpath.vercel.app. The Vercel project is linked in "
              "apps/web (where the Next app lives), so deploys run with --cwd apps/web."),
        ],
        mistake="vercel deploy",
        lesson="cinderpath: the Next app is in apps/web and the Vercel project is linked there — deploy with vercel deploy --cwd apps/web (or cd apps/web && vercel …); from the root Vercel finds no Next.js.",
        warn=[same("vercel deploy"), reword("vercel deploy --prod --yes"), reword("vercel --yes")],
        silent=[fix("vercel deploy --cwd apps/web --prod --yes"), fix("cd apps/web && vercel --yes"),
                other("vercel whoami"), help_("vercel deploy --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-npm-03", RETRY, GEMINI, "cinderpath",
        session=[
            U("Type-check the api package."),
            err("npx tsc --noEmit -p apps/api", _NOT_THAT_TSC),
            err("npx typescript --noEmit -p apps/api",
                "npm error could not determine executable to run\n"
                "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-02T09_44_12_908Z-debug-0.log"),
            ok("ls node_modules/.bin | grep -c tsc; ls apps/api/node_modules/.bin | grep tsc", "0\ntsc\ntsserver"),
            ok("pnpm --filter @cinderpath/api exec tsc --noEmit", ""),
            A("The api package type-checks cleanly. TypeScript is installed per package, not at the root, so `npx tsc` "
              "went and fetched the unrelated `tsc` package from npm; the workspace's compiler runs with pnpm exec."),
        ],
        mistake="npx tsc --noEmit -p apps/api",
        lesson="cinderpath: don't npx tsc — there's no typescript at the root, so npx runs the bogus `tsc` npm package; use pnpm --filter @cinderpath/<pkg> exec tsc (or npx -p typescript tsc).",
        warn=[same("npx tsc --noEmit -p apps/api"), reword("npx tsc -p apps/web/tsconfig.json --noEmit"), reword("npx --yes tsc --build")],
        silent=[fix("pnpm --filter @cinderpath/web exec tsc -p tsconfig.json --noEmit"), fix("npx -p typescript tsc --noEmit -p apps/api"),
                other("npx prettier --check apps/api/src"), help_("pnpm --filter @cinderpath/api exec tsc --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-kubectl-04", RETRY, CC, "quayside",
        session=[
            U("Check the ledger's /etc/ledger/config.yaml on staging, I think the new feature flag didn't land."),
            err("kubectl exec deploy/ledger -- cat /etc/ledger/config.yaml", _DISTROLESS.format(id="9c1d4e7f2a", exe="cat")),
            err("kubectl exec deploy/ledger -- /bin/sh -c 'cat /etc/ledger/config.yaml'",
                "error: Internal error occurred: error executing command in container: failed to exec in container: failed to "
                "start exec \"3b8e2d5a1c\": OCI runtime exec failed: exec failed: unable to start container process: exec: "
                "\"/bin/sh\": stat /bin/sh: no such file or directory: unknown"),
            err("kubectl cp ledger-7c9f8d6b4-x2kqp:/etc/ledger/config.yaml /tmp/ledger-config.yaml",
                _DISTROLESS.format(id="6a2f9c1e4b", exe="tar")),
            ok("kubectl get deploy ledger -o jsonpath='{.spec.template.spec.volumes[*].configMap.name}'", "ledger-config-b8k2t9m4c6"),
            ok("kubectl get configmap ledger-config-b8k2t9m4c6 -o jsonpath='{.data.config\\.yaml}'",
               "listen: :8080\npostings:\n  batch_size: 500\nfeatures:\n  idempotent_postings: false\n  multi_currency: true"),
            A("The flag did not land: idempotent_postings is still false in the ledger's ConfigMap. The images are "
              "distroless (no sh, cat or tar), so kubectl exec/cp can't read files in them; the config is readable from "
              "the ConfigMap, or with an ephemeral busybox container via kubectl debug."),
        ],
        mistake="kubectl exec deploy/ledger -- cat /etc/ledger/config.yaml",
        lesson="quayside: the ledger/gateway images are distroless (no sh, cat or tar), so kubectl exec … cat/sh and kubectl cp fail; read the config from the ConfigMap (kubectl get configmap …) or use kubectl debug with a busybox image.",
        warn=[same("kubectl exec deploy/ledger -- cat /etc/ledger/config.yaml"), reword("kubectl exec -it deploy/gateway -- sh"),
              reword("kubectl cp ledger-7c9f8d6b4-x2kqp:/etc/ledger/config.yaml ./ledger-config.yaml")],
        silent=[fix("kubectl get configmap -l app=gateway -o yaml"),
                fix("kubectl debug -it ledger-7c9f8d6b4-x2kqp --image=busybox:1.36 --target=ledger -- sh"),
                other("kubectl exec deploy/ledger -- /ledger healthcheck"), other("kubectl logs deploy/ledger --tail=50"),
                help_("kubectl debug --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-terraform-05", RETRY, CODEX, "millbrook",
        session=[
            U("I cloned millbrook fresh; set it up so we can plan staging."),
            err("terraform init", _TF_PARTIAL_BACKEND.format(field="bucket")),
            err("terraform init -reconfigure", _TF_PARTIAL_BACKEND.format(field="bucket")),
            err("terraform init -backend-config=\"bucket=millbrook-tf-state\"", _TF_PARTIAL_BACKEND.format(field="key")),
            ok("ls backend && cat backend/staging.hcl",
               "prod.hcl\nstaging.hcl\nbucket         = \"millbrook-tf-state\"\nkey            = \"staging/terraform.tfstate\"\n"
               "region         = \"eu-central-1\"\ndynamodb_table = \"millbrook-tf-locks\"\nencrypt        = true"),
            ok("terraform init -backend-config=backend/staging.hcl",
               "Initializing the backend...\n\nSuccessfully configured the backend \"s3\"! Terraform will automatically\n"
               "use this backend unless the backend configuration changes.\nInitializing modules...\n"
               "Initializing provider plugins...\n- Installing hashicorp/aws v5.82.2...\n\nTerraform has been successfully initialized!"),
            A("Initialized against the staging state. The s3 backend block is empty on purpose; bucket, key, region and "
              "lock table come from backend/<env>.hcl, so init always needs -backend-config=backend/<env>.hcl."),
        ],
        mistake="terraform init",
        lesson="millbrook's s3 backend is partial — terraform init needs -backend-config=backend/<env>.hcl (add -reconfigure when switching env).",
        warn=[same("terraform init"), reword("terraform init -reconfigure"), reword("terraform init -upgrade")],
        silent=[fix("terraform init -reconfigure -backend-config=backend/prod.hcl"),
                fix("terraform init -upgrade -backend-config=backend/staging.hcl"),
                other("terraform validate"), help_("terraform init -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-cargo-06", RETRY, GEMINI, "ferrow",
        session=[
            U("Build a release binary for the Raspberry Pi (aarch64 Linux)."),
            err("cargo build --release --target aarch64-unknown-linux-gnu", _LINK_WRONG_FORMAT, 101),
            err("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc cargo build --release --target aarch64-unknown-linux-gnu",
                "   Compiling ferrow-cli v0.9.0 (/home/dev/ferrow/crates/ferrow-cli)\n"
                "error: linker `aarch64-linux-gnu-gcc` not found\n  |\n  = note: No such file or directory (os error 2)\n\n"
                "error: could not compile `ferrow-cli` (bin \"ferrow\") due to 1 previous error", 101),
            err("cargo zigbuild --release --target aarch64-unknown-linux-gnu",
                "error: no such command: `zigbuild`\n\n\tView all installed commands with `cargo --list`\n"
                "\tFind a package to install `zigbuild` with `cargo search cargo-zigbuild`", 101),
            ok("cross build --release --target aarch64-unknown-linux-gnu",
               "info: downloading component 'rust-std' for 'aarch64-unknown-linux-gnu'\n"
               "   Compiling ferrow-core v0.9.0 (/project/crates/ferrow-core)\n   Compiling ferrow-cli v0.9.0 (/project/crates/ferrow-cli)\n"
               "    Finished `release` profile [optimized] target(s) in 1m 48s"),
            A("Built target/aarch64-unknown-linux-gnu/release/ferrow. There is no aarch64 cross linker on this machine; "
              "`cross` builds inside its container, which has one."),
        ],
        mistake="cargo build --release --target aarch64-unknown-linux-gnu",
        lesson="ferrow: there's no aarch64 cross linker here — build ARM binaries with cross (cross build --release --target aarch64-unknown-linux-gnu), not cargo build --target.",
        warn=[same("cargo build --release --target aarch64-unknown-linux-gnu"),
              reword("cargo build --target aarch64-unknown-linux-gnu -p ferrow-cli"),
              reword("cargo build --release --target=aarch64-unknown-linux-musl")],
        silent=[fix("cross build --target aarch64-unknown-linux-gnu -p ferrow-cli"),
                fix("cross build --release --target aarch64-unknown-linux-musl"),
                other("cargo build --release"), help_("cross --help")],
        variants=("other_program",),
    ),
    Incident(
        "b5-retry-gh-07", RETRY, CC, "ferrow",
        session=[
            U("Kick off the 0.9.1 release."),
            err("gh workflow run release.yml",
                "could not create workflow dispatch event: HTTP 422: Required input 'version' not provided "
                "(https://api.github.com/repos/ferrow-rs/ferrow/actions/workflows/148822913/dispatches)"),
            err("gh workflow run release.yml version=0.9.1", "accepts at most 1 arg(s), received 2"),
            ok("gh workflow run release.yml -f version=0.9.1",
               "✓ Created workflow_dispatch event for release.yml at main\n\n"
               "To see runs for this workflow, try: gh run list --workflow=\"release.yml\""),
            A("The 0.9.1 release workflow is running. release.yml has a required `version` input, passed with "
              "-f version=X.Y.Z (no leading v)."),
        ],
        mistake="gh workflow run release.yml",
        lesson="ferrow's release.yml requires the version input — gh workflow run release.yml -f version=X.Y.Z (no leading v); without it the dispatch is rejected (HTTP 422).",
        warn=[same("gh workflow run release.yml"), reword("gh workflow run release.yml --ref main"),
              reword("gh workflow run release.yml version=0.9.2")],
        silent=[fix("gh workflow run release.yml --ref main -f version=0.9.2"),
                fix("echo '{\"version\":\"0.9.2\"}' | gh workflow run release.yml --json"),
                other("gh workflow run ci.yml --ref main"), other("gh run list --workflow=release.yml --limit 3"),
                help_("gh workflow run --help")],
        variants=(),
    ),
    Incident(
        "b5-retry-psql-08", RETRY, CODEX, "tallowmere",
        session=[
            U("Restore this morning's anonymised snapshot (tmp/snapshot-2026-03-02.dump) into my dev database."),
            err("pg_restore -d tallowmere_development tmp/snapshot-2026-03-02.dump", _pg_restore_errors("tmp/snapshot-2026-03-02.dump")),
            err("pg_restore --clean --if-exists -d tallowmere_development tmp/snapshot-2026-03-02.dump",
                _pg_restore_errors("tmp/snapshot-2026-03-02.dump")),
            err("pg_restore --role=dev -d tallowmere_development tmp/snapshot-2026-03-02.dump",
                _pg_restore_errors("tmp/snapshot-2026-03-02.dump")),
            ok("pg_restore --no-owner --no-privileges --clean --if-exists -d tallowmere_development tmp/snapshot-2026-03-02.dump", ""),
            ok("psql tallowmere_development -c 'select count(*) from invoices'", " count \n-------\n 48211\n(1 row)"),
            A("Restored (48,211 invoices). The dump's ownership and GRANT statements name the prod roles (tallowmere_prod, "
              "tallowmere_readonly), which don't exist locally — pg_restore needs --no-owner --no-privileges (-O -x)."),
        ],
        mistake="pg_restore -d tallowmere_development tmp/snapshot-2026-03-02.dump",
        lesson="tallowmere: prod dumps reference prod roles that don't exist locally — always pg_restore --no-owner --no-privileges (-O -x) …",
        warn=[same("pg_restore -d tallowmere_development tmp/snapshot-2026-03-02.dump"),
              reword("pg_restore --if-exists --clean -d tallowmere_scratch tmp/snapshot-2026-02-23.dump"),
              reword("pg_restore -j 4 -d tallowmere_test tmp/snapshot-2026-03-02.dump")],
        silent=[fix("pg_restore --no-owner --no-privileges --clean --if-exists -d tallowmere_scratch tmp/snapshot-2026-02-23.dump"),
                fix("pg_restore -O -x -j 4 -d tallowmere_test tmp/snapshot-2026-03-02.dump"),
                other("pg_restore --list tmp/snapshot-2026-03-02.dump"), help_("pg_restore --help")],
        variants=("long_output",),
    ),
    Incident(
        "b5-retry-sail-09", RETRY, GEMINI, "larchmont",
        session=[
            U("Start the Sail stack, I want to work on the invoices page."),
            err("./vendor/bin/sail up -d", _SAIL_PORT_TAKEN),
            err("./vendor/bin/sail up -d --force-recreate", _SAIL_PORT_TAKEN),
            err("./vendor/bin/sail down && ./vendor/bin/sail up -d",
                "[+] Running 5/5\n ✔ Container larchmont-laravel.test-1  Removed\n ✔ Network larchmont_sail  Removed\n" + _SAIL_PORT_TAKEN),
            ok("ss -ltn 'sport = :3306'",
               "State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\nLISTEN 0      151        127.0.0.1:3306      0.0.0.0:*"),
            ok("FORWARD_DB_PORT=3307 ./vendor/bin/sail up -d",
               "[+] Running 5/5\n ✔ Network larchmont_sail             Created   0.1s\n ✔ Container larchmont-mysql-1        Started   0.8s\n"
               " ✔ Container larchmont-redis-1        Started   0.6s\n ✔ Container larchmont-mailpit-1      Started   0.6s\n"
               " ✔ Container larchmont-laravel.test-1 Started   1.1s"),
            A("Sail is up, with MySQL forwarded on host port 3307. The host runs its own MySQL on 3306, so Sail has to "
              "forward the database elsewhere: FORWARD_DB_PORT=3307 (or set it in .env)."),
        ],
        mistake="./vendor/bin/sail up -d",
        lesson="larchmont: the host's own MySQL holds port 3306 — start Sail with FORWARD_DB_PORT=3307 ./vendor/bin/sail up -d (or put FORWARD_DB_PORT=3307 in .env).",
        warn=[same("./vendor/bin/sail up -d"), reword("./vendor/bin/sail up -d --build"), reword("./vendor/bin/sail up")],
        silent=[fix("FORWARD_DB_PORT=3307 ./vendor/bin/sail up -d --build"), fix("echo FORWARD_DB_PORT=3307 >> .env && ./vendor/bin/sail up -d"),
                other("./vendor/bin/sail ps"), other("./vendor/bin/sail down"), help_("./vendor/bin/sail --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-flyctl-10", RETRY, CC, "oxbow",
        session=[
            U("Run the pending migrations on production."),
            err("fly ssh console -a oxbow-web -C \"bin/oxbow eval Oxbow.Release.migrate\"",
                "Connecting to fdaa:2:4e1b:a7b:1c4:9e21:8d3f:2... complete\nError: ssh shell: Process exited with status 127\n"
                "exec: \"bin/oxbow\": stat bin/oxbow: no such file or directory"),
            err("fly ssh console -a oxbow-web -C \"/app/bin/oxbow eval Oxbow.Release.migrate\"",
                "Connecting to fdaa:2:4e1b:a7b:1c4:9e21:8d3f:2... complete\n"
                "** (UndefinedFunctionError) function Oxbow.Release.migrate/0 is undefined (module Oxbow.Release is not available)\n"
                "    Oxbow.Release.migrate()\n    nofile:1: (file)\nError: ssh shell: Process exited with status 1"),
            ok("fly ssh console -a oxbow-web -C \"ls /app/bin\"",
               "Connecting to fdaa:2:4e1b:a7b:1c4:9e21:8d3f:2... complete\nmigrate\noxbow\nserver"),
            ok("fly ssh console -a oxbow-web -C /app/bin/migrate",
               "Connecting to fdaa:2:4e1b:a7b:1c4:9e21:8d3f:2... complete\n"
               "10:31:02.114 [info] == Running 20260302094512 Oxbow.Repo.Migrations.CreateBookingHolds.change/0 forward\n"
               "10:31:02.118 [info] create table booking_holds\n10:31:02.140 [info] == Migrated 20260302094512 in 0.0s"),
            A("Production is migrated (CreateBookingHolds). The release ships a /app/bin/migrate overlay that calls the "
              "right release module and only the main repo; hand-written bin/oxbow eval calls get the path or the module wrong."),
        ],
        mistake="fly ssh console -a oxbow-web -C \"bin/oxbow eval Oxbow.Release.migrate\"",
        lesson="oxbow: run prod migrations with fly ssh console -a oxbow-web -C /app/bin/migrate (the release's overlay script); don't hand-roll bin/oxbow eval … calls.",
        warn=[same("fly ssh console -a oxbow-web -C \"bin/oxbow eval Oxbow.Release.migrate\""),
              reword("fly ssh console -a oxbow-web -C \"/app/bin/oxbow eval 'Oxbow.Release.migrate()'\""),
              reword("flyctl ssh console --app oxbow-worker --command 'bin/oxbow eval Oxbow.Release.migrate'")],
        silent=[fix("fly ssh console -a oxbow-worker -C /app/bin/migrate"), fix("flyctl ssh console --app oxbow-web --command /app/bin/migrate"),
                other("fly ssh console -a oxbow-web -C \"ls /app/bin\""), help_("fly ssh console --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-scp-11", RETRY, CODEX, "skerry",
        session=[
            U("Copy last night's Postgres base backup from the bastion into backups/."),
            err("scp -r ops@bastion.skerry.net:/var/backups/pg/2026-03-01 backups/", _SCP_NO_SFTP, 255),
            err("scp -O -r ops@bastion.skerry.net:/var/backups/pg/2026-03-01 backups/", "bash: line 1: scp: command not found"),
            err("rsync -av ops@bastion.skerry.net:/var/backups/pg/2026-03-01/ backups/2026-03-01/",
                "bash: line 1: rsync: command not found\nrsync: connection unexpectedly closed (0 bytes received so far) [Receiver]\n"
                "rsync error: error in rsync protocol data stream (code 12) at io.c(232) [Receiver=3.2.7]", 12),
            ok("ssh ops@bastion.skerry.net 'command -v scp rsync tar; grep -i subsystem /etc/ssh/sshd_config'",
               "/usr/bin/tar\n#Subsystem sftp /usr/lib/openssh/sftp-server"),
            ok("ssh ops@bastion.skerry.net 'tar -C /var/backups/pg -cf - 2026-03-01' | tar -C backups -xf -", ""),
            A("backups/2026-03-01 is here (base.tar.gz and the WAL segments). The bastion is hardened: no sftp subsystem "
              "and no scp or rsync binaries, so scp (both protocols) and rsync can't copy from it; streaming a tar over "
              "plain ssh works."),
        ],
        mistake="scp -r ops@bastion.skerry.net:/var/backups/pg/2026-03-01 backups/",
        lesson="skerry: the bastion has no sftp subsystem and no scp/rsync binaries, so scp and rsync from it fail; copy with ssh ops@bastion.skerry.net 'tar -C <dir> -cf - <name>' | tar -C <dest> -xf - (or ssh … 'cat <file>' > <file>).",
        warn=[same("scp -r ops@bastion.skerry.net:/var/backups/pg/2026-03-01 backups/"),
              reword("scp ops@bastion.skerry.net:/var/backups/pg/2026-02-28/base.tar.gz ."),
              reword("rsync -av ops@bastion.skerry.net:/var/backups/pg/2026-03-01/ backups/2026-03-01/")],
        silent=[fix("ssh ops@bastion.skerry.net 'cat /var/backups/pg/2026-02-28/base.tar.gz' > base.tar.gz"),
                fix("ssh ops@bastion.skerry.net 'tar -C /var/backups/pg -cf - 2026-02-28' | tar -C backups -xf -"),
                other("ssh ops@bastion.skerry.net 'ls -lh /var/backups/pg'"), other("scp config/motd ops@lb-01.skerry.net:/tmp/motd"),
                help_("man scp")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-simctl-12", RETRY, GEMINI, "pellucid",
        session=[
            U("Boot a simulator for the UI tests."),
            err("xcrun simctl boot \"iPhone 15\"", "Invalid device or device pair: iPhone 15", 148),
            err("xcrun simctl boot \"iPhone 15 Pro\"", "Invalid device or device pair: iPhone 15 Pro", 148),
            err("xcrun simctl boot iPhone15", "Invalid device or device pair: iPhone15", 148),
            ok("xcrun simctl list devices available | grep iPhone",
               "    iPhone 16 Pro (6A1B3C5D-7E9F-4A2B-8C1D-3E5F7A9B1C2D) (Shutdown) \n"
               "    iPhone 16 Pro Max (0F2E4D6C-8B1A-4C3E-9D5F-7A1B3C5D7E9F) (Shutdown) \n"
               "    iPhone 16 (9A8B7C6D-5E4F-4321-8A9B-0C1D2E3F4A5B) (Shutdown) \n"
               "    iPhone 16 Plus (1B2C3D4E-5F6A-4B7C-8D9E-0F1A2B3C4D5E) (Shutdown) \n"
               "    iPhone SE (3rd generation) (7C8D9E0F-1A2B-4C3D-8E4F-5A6B7C8D9E0F) (Shutdown) "),
            ok("xcrun simctl boot \"iPhone 16\"", ""),
            A("The iPhone 16 simulator is booted. Only the iOS 18.2 runtime is installed on this Mac, so the devices are "
              "the iPhone 16 family (and SE 3rd gen) — there's no iPhone 15."),
        ],
        mistake="xcrun simctl boot \"iPhone 15\"",
        lesson="pellucid's Mac only has iOS 18 simulators — there's no iPhone 15; use \"iPhone 16\" / \"iPhone 16 Pro\" for simctl and for xcodebuild -destination.",
        warn=[same("xcrun simctl boot \"iPhone 15\""), reword("xcrun simctl boot 'iPhone 15 Pro'"),
              reword("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid -destination 'platform=iOS Simulator,name=iPhone 15'")],
        silent=[fix("xcrun simctl boot \"iPhone 16 Pro\""),
                fix("xcodebuild test -workspace Pellucid.xcworkspace -scheme Pellucid -destination 'platform=iOS Simulator,name=iPhone 16 Pro'"),
                other("xcrun simctl shutdown all"), other("xcrun simctl list devices available"), help_("xcrun simctl help boot")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-docker-13", RETRY, CC, "wrenfield",
        session=[
            U("Run the api image locally against the compose database so I can try the new endpoint."),
            err("docker run --rm -p 8080:8080 wrenfield-api:dev", _HIKARI_REFUSED.format(host="localhost")),
            err("docker run --rm -p 8080:8080 -e DB_HOST=host.docker.internal wrenfield-api:dev",
                "2026-03-02T09:53:40.771Z ERROR 1 --- [           main] com.zaxxer.hikari.pool.HikariPool        : "
                "HikariPool-1 - Exception during pool initialization.\n\njava.net.UnknownHostException: host.docker.internal\n...\n"
                "APPLICATION FAILED TO START"),
            err("docker run --rm -p 8080:8080 --add-host=host.docker.internal:host-gateway -e DB_HOST=host.docker.internal wrenfield-api:dev",
                _HIKARI_REFUSED.format(host="host.docker.internal")),
            ok("docker compose ps postgres --format '{{.Name}} {{.Ports}}' && docker network ls --filter name=wrenfield",
               "wrenfield-postgres-1 5432/tcp\nNETWORK ID     NAME                DRIVER    SCOPE\n3c9d1e2f4a5b   wrenfield_default   bridge    local"),
            ok("docker run --rm -d --name api-dev --network wrenfield_default -e DB_HOST=postgres -p 8080:8080 wrenfield-api:dev",
               "5e9a1c7b3d2f4e6081a9c3b5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5"),
            A("The api is running on localhost:8080 against the compose database. The compose Postgres isn't published on "
              "the host, so the container has to join the compose network (wrenfield_default) and use DB_HOST=postgres."),
        ],
        mistake="docker run --rm -p 8080:8080 wrenfield-api:dev",
        lesson="wrenfield: the compose Postgres isn't published on the host — run the api image on the compose network: docker run --network wrenfield_default -e DB_HOST=postgres … (or docker compose up api).",
        warn=[same("docker run --rm -p 8080:8080 wrenfield-api:dev"), reword("docker run -d --name api-dev -p 8081:8080 wrenfield-api:dev"),
              reword("docker run --rm -p 8080:8080 -e DB_HOST=host.docker.internal --add-host=host.docker.internal:host-gateway wrenfield-api:dev")],
        silent=[fix("docker run -d --name api-dev --network wrenfield_default -e DB_HOST=postgres -p 8081:8080 wrenfield-api:dev"),
                fix("docker compose up -d api"), other("docker run --rm --entrypoint java wrenfield-api:dev -version"),
                help_("docker run --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-gradle-14", RETRY, CODEX, "wrenfield",
        session=[
            U("Start the api locally."),
            err("./gradlew :api:bootRun", _NO_DATASOURCE),
            err("./gradlew :api:bootRun -Dspring.profiles.active=local", _NO_DATASOURCE),
            err("./gradlew :api:bootRun --spring.profiles.active=local",
                "\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Problem configuring task :api:bootRun from command line.\n> Unknown command-line option '--spring.profiles.active'.\n\n"
                "BUILD FAILED in 1s"),
            ok("./gradlew :api:bootRun --args='--spring.profiles.active=local'",
               "> Task :api:bootRun\n2026-03-02T10:07:12.004Z  INFO 48977 --- [           main] i.w.api.WrenfieldApiApplication          : "
               "The following 1 profile is active: \"local\"\n"
               "2026-03-02T10:07:17.612Z  INFO 48977 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : "
               "Tomcat started on port 8080 (http) with context path '/'\n"
               "2026-03-02T10:07:17.630Z  INFO 48977 --- [           main] i.w.api.WrenfieldApiApplication          : "
               "Started WrenfieldApiApplication in 6.218 seconds"),
            A("The api is up on :8080. It only starts with the `local` profile (that's where the datasource is), and "
              "-D on gradlew sets a property of Gradle's JVM, not the app's — the profile goes in --args (or "
              "SPRING_PROFILES_ACTIVE=local)."),
        ],
        mistake="./gradlew :api:bootRun",
        lesson="wrenfield: the api only starts with the local profile — ./gradlew :api:bootRun --args='--spring.profiles.active=local' (or SPRING_PROFILES_ACTIVE=local); -Dspring.profiles.active on gradlew never reaches the app.",
        warn=[same("./gradlew :api:bootRun"), reword("./gradlew :api:bootRun -Dspring.profiles.active=local"), reword("./gradlew bootRun")],
        silent=[fix("SPRING_PROFILES_ACTIVE=local ./gradlew :api:bootRun"),
                fix("./gradlew :api:bootRun --args='--spring.profiles.active=local --server.port=8081'"),
                other("./gradlew :api:bootJar"), help_("./gradlew help --task bootRun")],
        variants=(),
    ),
    Incident(
        "b5-retry-sqlcmd-15", RETRY, GEMINI, "gannet",
        session=[
            U("Which databases exist on the local SQL Server container?"),
            err("sqlcmd -S localhost -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT name FROM sys.databases\"", _ODBC18_CERT),
            err("sqlcmd -S localhost,1433 -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT name FROM sys.databases\"", _ODBC18_CERT),
            err("sqlcmd -S tcp:127.0.0.1,1433 -U sa -P \"$MSSQL_SA_PASSWORD\" -N -Q \"SELECT name FROM sys.databases\"", _ODBC18_CERT),
            ok("sqlcmd -S localhost -U sa -P \"$MSSQL_SA_PASSWORD\" -C -Q \"SELECT name FROM sys.databases\"",
               "name\n--------------------------------------------------------------------------------------------------------------------------------\n"
               "master\ntempdb\nmodel\nmsdb\nGannet\nGannet_Test\n\n(6 rows affected)"),
            A("Six databases: the four system ones plus Gannet and Gannet_Test. ODBC Driver 18 encrypts by default and "
              "the container's certificate is self-signed, so sqlcmd needs -C (trust the server certificate)."),
        ],
        mistake="sqlcmd -S localhost -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT name FROM sys.databases\"",
        lesson="gannet: the local SQL Server container has a self-signed cert and ODBC Driver 18 encrypts by default — pass -C (trust server certificate) to sqlcmd.",
        warn=[same("sqlcmd -S localhost -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT name FROM sys.databases\""),
              reword("sqlcmd -S localhost,1433 -U sa -P \"$MSSQL_SA_PASSWORD\" -d Gannet -i scripts/seed.sql"),
              reword("sqlcmd -S 127.0.0.1 -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT COUNT(*) FROM Gannet.dbo.Payouts\"")],
        silent=[fix("sqlcmd -S localhost,1433 -U sa -P \"$MSSQL_SA_PASSWORD\" -C -d Gannet -i scripts/seed.sql"),
                fix("sqlcmd -C -S 127.0.0.1 -U sa -P \"$MSSQL_SA_PASSWORD\" -Q \"SELECT COUNT(*) FROM Gannet.dbo.Payouts\""),
                other("docker compose ps mssql"), help_("sqlcmd -?")],
        variants=(),
    ),
    Incident(
        "b5-retry-gcloud-16", RETRY, CC, "halyard",
        session=[
            U("Open a psql session on the prod Cloud SQL instance, I need to check one row."),
            err("gcloud sql connect halyard-db --user=postgres", _SQL_NO_IPV4),
            err("gcloud sql connect halyard-db --user=postgres --quiet", _SQL_NO_IPV4),
            err("gcloud beta sql connect halyard-db --user=postgres",
                "ERROR: (gcloud.beta.sql.connect) Cloud SQL Proxy (v2) couldn't be found in PATH. Either install the "
                "component with 'gcloud components install cloud-sql-proxy' or install it manually."),
            ok("which cloud-sql-proxy && gcloud sql instances describe halyard-db --format='value(connectionName)'",
               "/usr/local/bin/cloud-sql-proxy\nhalyard-prod-4711:europe-west4:halyard-db"),
            ok("(cloud-sql-proxy halyard-prod-4711:europe-west4:halyard-db --port 15432 > /tmp/csp.log 2>&1 &) && sleep 3 && "
               "psql -h 127.0.0.1 -p 15432 -U postgres halyard -c 'select 1'",
               " ?column? \n----------\n        1\n(1 row)"),
            A("Connected through the proxy on 127.0.0.1:15432. halyard-db has no public IPv4 and gcloud's own proxy "
              "component isn't installed, so gcloud sql connect can't work; the standalone cloud-sql-proxy can."),
        ],
        mistake="gcloud sql connect halyard-db --user=postgres",
        lesson="halyard: gcloud sql connect can't reach halyard-db (no public IPv4, gcloud's proxy component isn't installed); start cloud-sql-proxy halyard-prod-4711:europe-west4:halyard-db --port 15432 and psql -h 127.0.0.1 -p 15432.",
        warn=[same("gcloud sql connect halyard-db --user=postgres"),
              reword("gcloud sql connect halyard-db --user=halyard_app --database=halyard"),
              reword("gcloud beta sql connect halyard-db --user=postgres")],
        silent=[fix("cloud-sql-proxy halyard-prod-4711:europe-west4:halyard-db --port 15432"),
                fix("psql -h 127.0.0.1 -p 15432 -U halyard_app halyard"),
                other("gcloud sql instances describe halyard-db --format='value(ipAddresses)'"),
                other("gcloud sql backups list --instance halyard-db"), help_("gcloud sql connect --help")],
        variants=("other_program",),
    ),
    Incident(
        "b5-retry-git-17", RETRY, CODEX, "marigold",
        session=[
            U("Squash my last three commits on this branch into one before I open the PR."),
            err("git rebase -i HEAD~3", "hint: Waiting for your editor to close the file... " + _NO_EDITOR),
            err("EDITOR=nano git rebase -i HEAD~3",
                "Standard input is not a terminal\nerror: There was a problem with the editor 'nano'."),
            err("git rebase -i --autosquash HEAD~3", _NO_EDITOR),
            ok("git log --oneline -4",
               "c3e9a1f cart: fix coupon rounding\n7b21d40 cart: store coupon in session\n4f8e2c6 cart: coupon model\n"
               "a19d3b7 Merge pull request #209 from marigold-shop/feature/search-filters"),
            ok("git reset --soft HEAD~3 && git commit -m \"cart: persist coupon codes across sessions\"",
               "[feature/coupon-persistence 8d41f2c] cart: persist coupon codes across sessions\n 6 files changed, 142 insertions(+), 17 deletions(-)"),
            A("The three commits are now one (8d41f2c). Interactive rebase needs an editor and a terminal, which this "
              "shell doesn't have; a soft reset and one commit squashes the same way."),
        ],
        mistake="git rebase -i HEAD~3",
        lesson="marigold: git rebase -i can't work from the agent's shell (no editor, no TTY); squash with git reset --soft HEAD~N && git commit -m …, or run the rebase with GIT_SEQUENCE_EDITOR set.",
        warn=[same("git rebase -i HEAD~3"), reword("git rebase --interactive origin/main"), reword("GIT_EDITOR=vim git rebase -i HEAD~5")],
        silent=[fix("git reset --soft HEAD~2 && git commit -m \"checkout: validate postcode\""),
                fix("GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash origin/main"),
                other("git rebase origin/main"), help_("git rebase -h")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-gcloud-18", RETRY, GEMINI, "drumlin",
        session=[
            U("Download the raw events for March 1st into data/raw/."),
            err("gsutil cp -r gs://drumlin-raw/events/2026-03-01 data/raw/",
                "BadRequestException: 400 Bucket is a requester pays bucket but no user project provided."),
            err("gsutil cp -r gs://drumlin-raw/events/2026-03-01 data/raw/ --billing-project drumlin-data",
                "CommandException: Incorrect option(s) specified. Usage:\n\n  gsutil cp [OPTION]... src_url dst_url\n"
                "  gsutil cp [OPTION]... src_url... dst_url\n  gsutil cp [OPTION]... -I dst_url"),
            err("gcloud storage cp -r gs://drumlin-raw/events/2026-03-01 data/raw/",
                "ERROR: (gcloud.storage.cp) HTTPError 400: Bucket is a requester pays bucket but no user project provided."),
            ok("gcloud storage cp -r gs://drumlin-raw/events/2026-03-01 data/raw/ --billing-project=drumlin-data",
               "Copying gs://drumlin-raw/events/2026-03-01/part-00000.parquet to file://data/raw/2026-03-01/part-00000.parquet\n"
               "Copying gs://drumlin-raw/events/2026-03-01/part-00001.parquet to file://data/raw/2026-03-01/part-00001.parquet\n"
               "  Completed files 48/48 | 3.1GiB/3.1GiB | 84.2MiB/s"),
            A("All 48 parquet files for 2026-03-01 are in data/raw/. gs://drumlin-raw is a requester-pays bucket, so "
              "reads must be billed to a project: --billing-project=drumlin-data (gsutil's form is -u drumlin-data)."),
        ],
        mistake="gsutil cp -r gs://drumlin-raw/events/2026-03-01 data/raw/",
        lesson="drumlin: gs://drumlin-raw is requester-pays — bill reads to drumlin-data: gcloud storage … --billing-project=drumlin-data (or gsutil -u drumlin-data …).",
        warn=[same("gsutil cp -r gs://drumlin-raw/events/2026-03-01 data/raw/"), reword("gsutil ls gs://drumlin-raw/events/"),
              reword("gcloud storage cp gs://drumlin-raw/events/2026-02-28/part-00000.parquet data/raw/")],
        silent=[fix("gcloud storage cp gs://drumlin-raw/events/2026-02-28/part-00000.parquet data/raw/ --billing-project=drumlin-data"),
                fix("gsutil -u drumlin-data ls gs://drumlin-raw/events/"),
                other("gcloud storage ls gs://drumlin-exports/daily/"), help_("gcloud storage cp --help")],
        variants=(),
    ),
    Incident(
        "b5-retry-sbt-19", RETRY, CC, "drumlin",
        session=[
            U("Build the fat jar for the Dataproc job."),
            err("sbt assembly", _ASSEMBLY_DEDUP),
            err("sbt clean assembly", _ASSEMBLY_DEDUP),
            err("sbt root/assembly", "[error] Expected ID character\n[error] Not a valid command: root (similar: reboot, boot)\n"
                "[error] Not a valid project ID: root\n[error] root/assembly\n[error]     ^"),
            ok("grep -n -A4 assemblyMergeStrategy build.sbt",
               "42:  .settings(assembly / assemblyMergeStrategy := {\n43-    case PathList(\"META-INF\", _*) => MergeStrategy.discard\n"
               "44-    case \"reference.conf\"             => MergeStrategy.concat\n45-    case _                            => MergeStrategy.first\n46-  })"),
            ok("sbt pipeline/assembly",
               "[info] Strategy 'discard' was applied to 318 files\n"
               "[info] Built: /home/dev/drumlin/pipeline/target/scala-2.13/drumlin-pipeline-assembly-0.14.0.jar\n"
               "[success] Total time: 71 s (01:11), completed Mar 2, 2026, 10:24:40 AM"),
            A("Built pipeline/target/scala-2.13/drumlin-pipeline-assembly-0.14.0.jar. Only the pipeline module has a "
              "merge strategy; the root aggregate also assembles the devtools module, which fails deduplicating META-INF."),
        ],
        mistake="sbt assembly",
        lesson="drumlin: only the pipeline module has a merge strategy — build the fat jar with sbt pipeline/assembly; a root sbt assembly fails deduplicating META-INF.",
        warn=[same("sbt assembly"), reword("sbt clean assembly"), reword("sbt ';clean;assembly'")],
        silent=[fix("sbt clean pipeline/assembly"), fix("sbt \"project pipeline\" assembly"), other("sbt pipeline/package"),
                help_("sbt \"help assembly\"")],
        variants=("diagnostic",),
    ),
    Incident(
        "b5-retry-docker-20", RETRY, CODEX, "sorrel",
        session=[
            U("Kick off a quick 3-epoch training run in the training container."),
            err("docker run --rm --gpus all -v $PWD/data:/data sorrel-train:dev python -m sorrel.train --epochs 3",
                "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].", 125),
            err("docker run --rm --runtime=nvidia -v $PWD/data:/data sorrel-train:dev python -m sorrel.train --epochs 3",
                "docker: Error response from daemon: unknown or invalid runtime name: nvidia.", 125),
            err("nvidia-smi", "bash: line 1: nvidia-smi: command not found", 127),
            ok("docker run --rm -e SORREL_DEVICE=cpu -v $PWD/data:/data sorrel-train:dev python -m sorrel.train --epochs 3",
               "device: cpu\nepoch 1/3  loss 0.6912  val_loss 0.6745\nepoch 2/3  loss 0.6120  val_loss 0.6233\n"
               "epoch 3/3  loss 0.5581  val_loss 0.5902\nsaved checkpoint to /data/checkpoints/run-0302-0958.pt"),
            A("The 3-epoch run finished on CPU (val_loss 0.590). This machine has no NVIDIA GPU or container runtime, so "
              "training runs with SORREL_DEVICE=cpu."),
        ],
        mistake="docker run --rm --gpus all -v $PWD/data:/data sorrel-train:dev python -m sorrel.train --epochs 3",
        lesson="sorrel: this machine has no NVIDIA GPU or runtime — don't docker run with --gpus or --runtime=nvidia; train on CPU with -e SORREL_DEVICE=cpu (or SORREL_DEVICE=cpu make train).",
        warn=[same("docker run --rm --gpus all -v $PWD/data:/data sorrel-train:dev python -m sorrel.train --epochs 3"),
              reword("docker run --gpus=all sorrel-train:dev python -m sorrel.train --epochs 1 --batch-size 16"),
              reword("docker run --rm --runtime=nvidia -v $PWD/data:/data sorrel-train:dev python -m sorrel.eval --checkpoint latest")],
        silent=[fix("docker run --rm -e SORREL_DEVICE=cpu sorrel-train:dev python -m sorrel.train --epochs 1 --batch-size 16"),
                fix("SORREL_DEVICE=cpu make train EPOCHS=3"),
                other("docker run --rm sorrel-train:dev python -c \"import torch; print(torch.__version__)\""),
                help_("docker run --help")],
        variants=("diagnostic",),
    ),
]
