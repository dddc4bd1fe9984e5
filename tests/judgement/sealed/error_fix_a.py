"""Sealed split, shape 1 (part a): a call fails with an error, a changed call works."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    ERROR_FIX,
    GEMINI,
    A,
    Incident,
    U,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
)
from ._eco import eco

INCIDENTS = [
    eco("node", Incident(
        "s-ef-bramble-npm-in-pnpm-workspace", ERROR_FIX, CC, "bramble-shop",
        session=[
            U("Add zod to the web app, we need it for the checkout form validation."),
            err("npm install zod",
                "npm error code EUNSUPPORTEDPROTOCOL\n"
                "npm error Unsupported URL Type \"workspace:\": workspace:*\n"
                "npm error A complete log of this run can be found in: /home/dev/.npm/_logs/2026-03-02T09_00_14_221Z-debug-0.log", 1),
            read("pnpm-workspace.yaml", "packages:\n  - \"apps/*\"\n  - \"packages/*\"\n"),
            ok("pnpm add zod --filter web",
               "Progress: resolved 812, reused 790, downloaded 1, added 1, done\n\napps/web:\n+ zod 3.24.2\n\nDone in 3.1s"),
            A("bramble-shop is a pnpm workspace (`workspace:*` deps), so npm can't install in it. "
              "I added zod to apps/web with `pnpm add zod --filter web`."),
        ],
        mistake="npm install zod",
        lesson="bramble-shop is a pnpm workspace: npm install fails on workspace:* deps; use pnpm add <pkg> --filter <app>.",
        warn=[same("npm install zod"), reword("npm i react-hook-form"), reword("cd apps/web && npm install @tanstack/react-query")],
        silent=[fix("pnpm add react-hook-form --filter web"), other("npm view zod version"),
                help_("npm help install")],
        variants=("other_program", "intervening"),
    )),
    eco("python", Incident(
        "s-ef-tidewatch-pip-externally-managed", ERROR_FIX, CC, "tidewatch",
        session=[
            U("We need httpx for the new NOAA client. Install it."),
            err("pip install httpx",
                "error: externally-managed-environment\n\n"
                "× This environment is externally managed\n"
                "╰─> To install Python packages system-wide, try apt install\n"
                "    python3-xyz, where xyz is the package you are trying to\n"
                "    install.\n\n"
                "    If you wish to install a non-Debian-packaged Python package,\n"
                "    create a virtual environment using python3 -m venv path/to/venv.\n\n"
                "note: If you believe this is a mistake, please contact your Python installation or OS distribution provider. "
                "You can override this, at the risk of breaking your Python installation or OS, by passing --break-system-packages.\n"
                "hint: See PEP 668 for the detailed specification.", 1),
            ok("uv add httpx",
               "Resolved 41 packages in 212ms\nPrepared 3 packages in 98ms\nInstalled 3 packages in 4ms\n"
               " + h11==0.14.0\n + httpcore==1.0.7\n + httpx==0.28.1"),
            A("tidewatch is managed by uv (pyproject + uv.lock), so I added httpx with `uv add httpx` instead of pip."),
        ],
        mistake="pip install httpx",
        lesson="tidewatch is a uv project: pip install fails (externally-managed-environment); add packages with uv add.",
        warn=[same("pip install httpx"), reword("python3 -m pip install pydantic-settings"), reword("pip3 install -U tenacity")],
        silent=[fix("uv add pydantic-settings"), other("pip show httpx"), help_("pip install --help")],
        variants=("other_program",),
    )),
    eco("rust", Incident(
        "s-ef-ferrocask-test-needs-feature", ERROR_FIX, CC, "ferrocask",
        session=[
            U("Run the test suite, I touched the S3 backend."),
            err("cargo test",
                "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n"
                "error[E0432]: unresolved import `ferrocask::backend::s3`\n"
                " --> tests/s3_roundtrip.rs:3:24\n"
                "  |\n3 | use ferrocask::backend::s3::S3Store;\n"
                "  |                        ^^ could not find `s3` in `backend`\n"
                "  |\nnote: found an item that was configured out\n"
                " --> src/backend/mod.rs:6:9\n  |\n5 | #[cfg(feature = \"s3\")]\n  |       -------------- the item is gated behind the `s3` feature\n"
                "6 | pub mod s3;\n  |         ^^\n\n"
                "For more information about this error, try `rustc --explain E0432`.\n"
                "error: could not compile `ferrocask` (test \"s3_roundtrip\") due to 1 previous error", 101),
            ok("cargo test --features s3",
               "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 14.82s\n"
               "     Running unittests src/lib.rs (target/debug/deps/ferrocask-3f1e0a9c2b7d4e11)\n\n"
               "running 38 tests\n......................................\ntest result: ok. 38 passed; 0 failed; 0 ignored\n\n"
               "     Running tests/s3_roundtrip.rs (target/debug/deps/s3_roundtrip-9a0c55e1d2f3b6a7)\n\n"
               "running 4 tests\n....\ntest result: ok. 4 passed; 0 failed; 0 ignored"),
        ],
        mistake="cargo test",
        lesson="ferrocask: the S3 tests are gated behind the s3 feature; run cargo test --features s3.",
        warn=[same("cargo test"), reword("cargo test --test s3_roundtrip -- --nocapture")],
        silent=[fix("cargo test --features s3 --test s3_roundtrip -- --nocapture"), other("cargo fmt --check"),
                other("cargo doc --no-deps")],
    )),
    eco("go", Incident(
        "s-ef-gridkeeper-goprivate", ERROR_FIX, CODEX, "gridkeeper",
        session=[
            U("Fetch the modules so we can build offline on the train."),
            err("go mod download",
                "go: github.com/gridkeeper/proto@v0.14.2: verifying module: github.com/gridkeeper/proto@v0.14.2: "
                "reading https://sum.golang.org/lookup/github.com/gridkeeper/proto@v0.14.2: 404 Not Found\n"
                "\tserver response:\n\tnot found: github.com/gridkeeper/proto@v0.14.2: invalid version: "
                "git ls-remote -q origin in /tmp/gopath/pkg/mod/cache/vcs/5d1c...: exit status 128:\n"
                "\t\tfatal: could not read Username for 'https://github.com': terminal prompts disabled", 1),
            ok("go env GOPRIVATE GOPROXY", "\nhttps://proxy.golang.org,direct"),
            ok("GOPRIVATE=github.com/gridkeeper/* go mod download", ""),
            A("The proto module is private: with GOPRIVATE unset Go asks the public checksum DB and proxy for it. "
              "`GOPRIVATE=github.com/gridkeeper/* go mod download` fetches it straight from GitHub over SSH."),
        ],
        mistake="go mod download",
        lesson="gridkeeper depends on private github.com/gridkeeper/* modules: set GOPRIVATE=github.com/gridkeeper/* for go mod download / go get.",
        warn=[same("go mod download"), reword("go get github.com/gridkeeper/proto@v0.15.0")],
        silent=[fix("GOPRIVATE=github.com/gridkeeper/* go get github.com/gridkeeper/proto@v0.15.0"), other("go vet ./..."),
                other("go env GOPATH")],
        variants=("intervening",),
    )),
    eco("docker", Incident(
        "s-ef-lanternd-build-needs-dist", ERROR_FIX, GEMINI, "lanternd",
        session=[
            U("Build the lanternd image locally so I can try the new config loader."),
            err("docker build -t lanternd .",
                "[+] Building 1.9s (7/9)                                                    docker:default\n"
                " => [internal] load build definition from Dockerfile                                0.0s\n"
                " => [internal] load .dockerignore                                                    0.0s\n"
                " => [internal] load metadata for docker.io/library/debian:bookworm-slim             1.2s\n"
                " => [1/4] FROM docker.io/library/debian:bookworm-slim@sha256:6ac2c08566499cc2415926653cf2ed7c3aedac445675a013cc09469c9e118fdd  0.0s\n"
                " => ERROR [3/4] COPY dist/lanternd /usr/local/bin/lanternd                           0.0s\n"
                "------\n > [3/4] COPY dist/lanternd /usr/local/bin/lanternd:\n------\n"
                "ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref "
                "moby::q8w1l0v3: \"/dist/lanternd\": not found", 1),
            read("Dockerfile", "FROM debian:bookworm-slim\nRUN apt-get update && apt-get install -y ca-certificates\n"
                               "COPY dist/lanternd /usr/local/bin/lanternd\nENTRYPOINT [\"lanternd\"]\n"),
            ok("make dist && docker build -t lanternd .",
               "go build -trimpath -o dist/lanternd ./cmd/lanternd\n[+] Building 6.4s (9/9) FINISHED\n"
               " => exporting to image\n => => naming to docker.io/library/lanternd:latest"),
        ],
        mistake="docker build -t lanternd .",
        lesson="lanternd's Dockerfile copies dist/lanternd: run make dist before docker build.",
        warn=[same("docker build -t lanternd ."), reword("docker build --file Dockerfile --tag lanternd:dev .")],
        silent=[fix("make dist && docker build --file Dockerfile --tag lanternd:dev ."), other("docker images lanternd"),
                other("docker ps --filter name=lanternd")],
        variants=("intervening", "long_output"),
    )),
    eco("kubernetes", Incident(
        "s-ef-kelpfleet-apply-kustomize", ERROR_FIX, CC, "kelpfleet",
        session=[
            U("Roll out the new staging manifests."),
            err("kubectl apply -f k8s/overlays/staging",
                "configmap/kelp-api-config unchanged\n"
                "error: resource mapping not found for name: \"\" namespace: \"\" from \"k8s/overlays/staging/kustomization.yaml\": "
                "no matches for kind \"Kustomization\" in version \"kustomize.config.k8s.io/v1beta1\"\n"
                "ensure CRDs are installed first", 1),
            ok("kubectl apply -k k8s/overlays/staging",
               "configmap/kelp-api-config-7c9g2h5b8t created\nservice/kelp-api unchanged\ndeployment.apps/kelp-api configured\n"
               "horizontalpodautoscaler.autoscaling/kelp-api unchanged"),
            A("The overlay is a kustomization, so it has to be applied with `-k`, not `-f`."),
        ],
        mistake="kubectl apply -f k8s/overlays/staging",
        lesson="kelpfleet's k8s/ directories are kustomizations: apply them with kubectl apply -k, not -f.",
        warn=[same("kubectl apply -f k8s/overlays/staging"), reword("kubectl apply -f ./k8s/overlays/prod --server-side"),
              reword("kubectl apply --filename=k8s/base")],
        silent=[fix("kubectl apply -k k8s/overlays/prod --server-side"), other("kubectl get pods -n kelp -o wide"),
                other("kubectl diff -k k8s/overlays/staging")],
    )),
    eco("kubernetes", Incident(
        "s-ef-kelpfleet-helm-dependency-build", ERROR_FIX, CODEX, "kelpfleet",
        session=[
            U("Install the api chart into the kelp-dev namespace."),
            err("helm install kelp-api charts/api -n kelp-dev",
                "Error: INSTALLATION FAILED: An error occurred while checking for chart dependencies. You may need to run "
                "`helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: "
                "postgresql, redis", 1),
            ok("helm dependency build charts/api && helm install kelp-api charts/api -n kelp-dev",
               "Hang tight while we grab the latest from your chart repositories...\n"
               "Saving 2 charts\nDownloading postgresql from repo oci://registry-1.docker.io/bitnamicharts\n"
               "Downloading redis from repo oci://registry-1.docker.io/bitnamicharts\nDeleting outdated charts\n"
               "NAME: kelp-api\nLAST DEPLOYED: Mon Mar  2 09:01:12 2026\nNAMESPACE: kelp-dev\nSTATUS: deployed\nREVISION: 1"),
        ],
        mistake="helm install kelp-api charts/api -n kelp-dev",
        lesson="kelpfleet charts vendor their subcharts: run helm dependency build charts/<chart> before helm install/upgrade.",
        warn=[same("helm install kelp-api charts/api -n kelp-dev"),
              reword("helm install kelp-api-preview ./charts/api --namespace kelp-preview --set image.tag=pr-412")],
        silent=[fix("helm dependency build charts/api && helm install kelp-api-preview ./charts/api --namespace kelp-preview --set image.tag=pr-412"),
                other("helm list -n kelp-dev"), other("helm repo list")],
    )),
    eco("terraform", Incident(
        "s-ef-stratocum-terraform-chdir", ERROR_FIX, CODEX, "stratocum",
        session=[
            U("What would terraform change in staging after my IAM edits?"),
            err("terraform plan",
                "╷\n│ Error: No configuration files\n│ \n"
                "│ Plan requires configuration to be present. Planning without a configuration would mark everything for\n"
                "│ destruction, which is normally not what is desired. If you would like to destroy everything, run plan with\n"
                "│ the -destroy option. Otherwise, create a Terraform configuration file (.tf file) and try again.\n╵", 1),
            ok("ls envs", "prod\nstaging\nmodules"),
            ok("terraform -chdir=envs/staging plan",
               "module.iam.aws_iam_role_policy.ingest: Refreshing state... [id=stratocum-ingest:s3-read]\n\n"
               "Terraform will perform the following actions:\n\n"
               "  # module.iam.aws_iam_role_policy.ingest will be updated in-place\n"
               "  ~ resource \"aws_iam_role_policy\" \"ingest\" {\n        id     = \"stratocum-ingest:s3-read\"\n"
               "      ~ policy = jsonencode(...)\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy."),
            A("The root of stratocum holds no configuration; each environment lives under envs/. "
              "`terraform -chdir=envs/staging plan` shows one in-place policy change."),
        ],
        mistake="terraform plan",
        lesson="stratocum has no Terraform config at the root: run terraform -chdir=envs/<env> plan (or cd envs/<env> first).",
        warn=[same("terraform plan"), reword("terraform plan -out=tfplan -var-file=prod.tfvars")],
        silent=[fix("terraform -chdir=envs/prod plan -out=tfplan -var-file=prod.tfvars"),
                fix("cd envs/staging && terraform plan -out=tfplan"), other("terraform fmt -recursive -check"),
                other("terraform version")],
        variants=("intervening",),
    )),
    eco("cloud-cli", Incident(
        "s-ef-stratocum-aws-profile", ERROR_FIX, CC, "stratocum",
        session=[
            U("List what's in the artifacts bucket, I want to see the last release zip."),
            err("aws s3 ls s3://stratocum-artifacts/releases/",
                "\nUnable to locate credentials. You can configure credentials by running \"aws configure\".", 255),
            ok("grep -A3 stratocum ~/.aws/config",
               "[profile stratocum-dev]\nsso_session = acme\nsso_account_id = 481516234200\nsso_role_name = DeveloperAccess"),
            ok("aws s3 ls s3://stratocum-artifacts/releases/ --profile stratocum-dev",
               "2026-02-26 17:40:11   18877312 stratocum-2.8.0.zip\n2026-03-01 10:02:47   18890544 stratocum-2.8.1.zip"),
        ],
        mistake="aws s3 ls s3://stratocum-artifacts/releases/",
        lesson="stratocum: there are no default AWS credentials; pass --profile stratocum-dev to every aws command.",
        warn=[same("aws s3 ls s3://stratocum-artifacts/releases/"),
              reword("aws s3 cp dist/stratocum-2.8.2.zip s3://stratocum-artifacts/releases/")],
        silent=[fix("aws s3 cp dist/stratocum-2.8.2.zip s3://stratocum-artifacts/releases/ --profile stratocum-dev"),
                other("aws --version"), help_("aws s3 cp help")],
        variants=("intervening",),
    )),
    eco("ruby", Incident(
        "s-ef-quillpress-bundle-exec-rake", ERROR_FIX, GEMINI, "quillpress",
        session=[
            U("Run the pending migrations."),
            err("rake db:migrate",
                "rake aborted!\nGem::LoadError: You have already activated rake 13.2.1, but your Gemfile requires rake 13.1.0. "
                "Prepending `bundle exec` to your command may solve this.\n"
                "/home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.16/lib/bundler/runtime.rb:304:in `check_for_activated_spec!'\n"
                "/home/dev/.gem/ruby/3.3.0/gems/bundler-2.5.16/lib/bundler/runtime.rb:25:in `block in setup'\n"
                "(See full trace by running task with --trace)", 1),
            ok("bundle exec rake db:migrate",
               "== 20260301120000 AddSlugToPosts: migrating ===================================\n"
               "-- add_column(:posts, :slug, :string)\n   -> 0.0031s\n-- add_index(:posts, :slug, {:unique=>true})\n   -> 0.0042s\n"
               "== 20260301120000 AddSlugToPosts: migrated (0.0075s) =========================="),
        ],
        mistake="rake db:migrate",
        lesson="quillpress pins rake in its Gemfile: run rake tasks with bundle exec rake (plain rake loads the wrong version).",
        warn=[same("rake db:migrate"), reword("rake db:seed"), reword("rake assets:precompile RAILS_ENV=production")],
        silent=[fix("bundle exec rake db:seed"), other("bundle outdated --only-explicit"), help_("rake --help")],
        variants=("other_program",),
    )),
    eco("java", Incident(
        "s-ef-marrowbank-maven-also-make", ERROR_FIX, CC, "marrowbank",
        session=[
            U("Run the api module's tests."),
            err("mvn -pl marrowbank-api test",
                "[INFO] Scanning for projects...\n[INFO] \n[INFO] -------------------< com.marrowbank:marrowbank-api >-------------------\n"
                "[INFO] Building marrowbank-api 2.3.0-SNAPSHOT\n[INFO] --------------------------------[ jar ]---------------------------------\n"
                "[INFO] ------------------------------------------------------------------------\n[INFO] BUILD FAILURE\n"
                "[INFO] ------------------------------------------------------------------------\n"
                "[ERROR] Failed to execute goal on project marrowbank-api: Could not resolve dependencies for project "
                "com.marrowbank:marrowbank-api:jar:2.3.0-SNAPSHOT: The following artifacts could not be resolved: "
                "com.marrowbank:marrowbank-common:jar:2.3.0-SNAPSHOT (absent): Could not find artifact "
                "com.marrowbank:marrowbank-common:jar:2.3.0-SNAPSHOT -> [Help 1]", 1),
            ok("mvn -pl marrowbank-api -am test",
               "[INFO] Reactor Build Order:\n[INFO] marrowbank-common                                                  [jar]\n"
               "[INFO] marrowbank-api                                                     [jar]\n"
               "[INFO] Tests run: 212, Failures: 0, Errors: 0, Skipped: 3\n[INFO] BUILD SUCCESS"),
            A("marrowbank-common is a SNAPSHOT sibling that is never installed; `-am` builds it in the same reactor."),
        ],
        mistake="mvn -pl marrowbank-api test",
        lesson="marrowbank: building one module with -pl needs -am (also-make) so the marrowbank-common SNAPSHOT is built too.",
        warn=[same("mvn -pl marrowbank-api test"), reword("mvn test -pl marrowbank-api -Dtest=LedgerServiceTest")],
        silent=[fix("mvn -pl marrowbank-api -am test -Dtest=LedgerServiceTest -Dsurefire.failIfNoSpecifiedTests=false"),
                other("mvn -v"), other("mvn -q help:evaluate -Dexpression=project.version -DforceStdout")],
        variants=("long_output",),
    )),
    eco("java", Incident(
        "s-ef-marrowbank-use-gradle-wrapper", ERROR_FIX, CODEX, "marrowbank",
        session=[
            U("The ledger module moved to Gradle. Build it and run its tests."),
            err("gradle :ledger:test",
                "\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Could not open cp_settings generic class cache for settings file '/home/dev/marrowbank/settings.gradle.kts' "
                "(/home/dev/.gradle/caches/7.4.2/scripts/6c2b1f0...).\n> BUG! exception in phase 'semantic analysis' in source unit "
                "'_BuildScript_' Unsupported class file major version 65\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n\n"
                "BUILD FAILED in 2s", 1),
            ok("cat gradle/wrapper/gradle-wrapper.properties",
               "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10.2-bin.zip\nnetworkTimeout=10000"),
            ok("./gradlew :ledger:test",
               "> Task :ledger:compileJava\n> Task :ledger:test\n\nLedgerPostingTest > postsBalancedEntries() PASSED\n\n"
               "BUILD SUCCESSFUL in 41s\n7 actionable tasks: 7 executed"),
        ],
        mistake="gradle :ledger:test",
        lesson="marrowbank: the system gradle is 7.4 and cannot run on Java 21; always use the wrapper ./gradlew.",
        warn=[same("gradle :ledger:test"), reword("gradle build --info")],
        silent=[fix("./gradlew build --info"), other("gradle --version"), other("./gradlew tasks --all")],
        variants=("other_program", "intervening"),
    )),
]
