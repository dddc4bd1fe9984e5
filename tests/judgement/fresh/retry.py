"""Fresh split, shape 5: several failing variations, then one that works
(usually with a diagnostic call in between)."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same

_ECR = "318204775091.dkr.ecr.eu-west-1.amazonaws.com"

_PF_IN_USE = (
    "Forwarding from 127.0.0.1:5432 -> 5432\n"
    "Unable to listen on port 5432: Listeners failed to create with the following errors: "
    "[unable to create listener: Error listen tcp4 127.0.0.1:5432: bind: address already in use "
    "unable to create listener: Error listen tcp6 [::1]:5432: bind: address already in use]\n"
    "error: unable to listen on any of the requested ports: [{5432 5432}]"
)

_JAVA_RELEASE_21 = (
    "[INFO] --- compiler:3.13.0:compile (default-compile) @ anvil-core ---\n"
    "[INFO] Compiling 142 source files with javac [debug release 21] to target/classes\n"
    "[INFO] ------------------------------------------------------------------------\n[INFO] BUILD FAILURE\n"
    "[INFO] ------------------------------------------------------------------------\n"
    "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile (default-compile) on project "
    "anvil-core: Fatal error compiling: error: release version 21 not supported -> [Help 1]"
)

_CARGO_WHICH_BIN = (
    "error: `cargo run` could not determine which binary to run. Use the `--bin` option to specify a binary, or the "
    "`default-run` manifest key.\navailable binaries: ferrule, ferrule-migrate"
)

_NODE_ENGINE = (
    "npm error code EBADENGINE\nnpm error engine Unsupported engine\n"
    "npm error engine Not compatible with your version of node/npm: driftwood@3.1.0\n"
    "npm error notsup Not compatible with your version of node/npm: driftwood@3.1.0\n"
    "npm error notsup Required: {\"node\":\">=20.11.0\"}\nnpm error notsup Actual:   {\"npm\":\"9.2.0\",\"node\":\"v18.19.1\"}"
)

_TF_IMPORT_NO_ADDR = (
    "╷\n│ Error: resource address \"aws_s3_bucket.{name}\" does not exist in the configuration.\n│ \n"
    "│ Before importing this resource, please create its configuration in the root module. For example:\n│ \n"
    "│ resource \"aws_s3_bucket\" \"{name}\" {{\n│   # (resource arguments)\n│ }}\n╵"
)

_HELM_NO_REPO = "Error: INSTALLATION FAILED: repo bitnami not found"

_PHP_NO_DRIVER = (
    "\n   Illuminate\\Database\\QueryException \n\n  could not find driver (Connection: mysql, SQL: select table_name as `name`, "
    "(data_length + index_length) as `size`, table_comment as `comment`, engine as `engine`, table_collation as `collation` "
    "from information_schema.tables where table_schema = 'saltmarsh' and table_type in ('BASE TABLE', 'SYSTEM VERSIONED') "
    "order by table_name)\n\n  at vendor/laravel/framework/src/Illuminate/Database/Connection.php:813\n"
    "    809▕                     $this->getName(), $query, $this->prepareBindings($bindings), $e\n"
    "    810▕                 );\n    811▕             }\n    812▕ \n  ➜ 813▕             throw new QueryException(\n\n"
    "      +37 vendor frames \n\n  38  artisan:13\n      Illuminate\\Foundation\\Application::handleCommand()"
)

_GCR_DENIED = (
    "Creating temporary archive of 214 file(s) totalling 3.1 MiB before compression.\n"
    "Uploading tarball of [.] to [gs://quill-prod_cloudbuild/source/1709457712.48-4c1e9a.tgz]\n"
    "ERROR: (gcloud.builds.submit) INVALID_ARGUMENT: could not resolve source: googleapi: Error 403: "
    "Container Registry is deprecated and shutting down: gcr.io repositories can no longer be written to in this project. "
    "Push to Artifact Registry instead (docker.pkg.dev)."
)

_SSH_DENIED = "deploy@ember.host: Permission denied (publickey)."

_ECR_NO_AUTH = (
    f"The push refers to repository [{_ECR}/marlin/api]\n"
    "5f70bf18a086: Preparing\n9e4b2c1d0a7f: Preparing\nno basic auth credentials"
)

_EADDRINUSE = (
    "[error] Running FernhillWeb.Endpoint with Bandit 1.4.2 at http failed, port 4000 already in use\n"
    "** (EXIT) shutdown: failed to start child: FernhillWeb.Endpoint\n    ** (EXIT) :eaddrinuse"
)

_PULL_DIVERGENT = (
    "hint: You have divergent branches and need to specify how to reconcile them.\n"
    "hint: You can do so by running one of the following commands sometime before\nhint: your next pull:\nhint:\n"
    "hint:   git config pull.rebase false  # merge\nhint:   git config pull.rebase true   # rebase\n"
    "hint:   git config pull.ff only       # fast-forward only\nhint:\n"
    "hint: You can replace \"git config\" with \"git config --global\" to set a default\n"
    "hint: preference for all repositories. You can also pass --rebase, --no-rebase,\n"
    "hint: or --ff-only on the command line to override the configured default per\nhint: invocation.\n"
    "fatal: Need to specify how to reconcile divergent branches."
)

INCIDENTS = [
    Incident(
        "rl-gantry-port-forward-5432", RETRY, CC, "gantry",
        session=[
            U("Open a tunnel to the staging payments database so I can point DBeaver at it."),
            err("kubectl --context gantry-staging -n payments port-forward svc/payments-db 5432:5432", _PF_IN_USE),
            err("kubectl --context gantry-staging -n payments port-forward svc/payments-db 5432", _PF_IN_USE),
            err("kubectl --context gantry-staging -n payments port-forward --address 127.0.0.1 svc/payments-db 5432:5432", _PF_IN_USE),
            ok("ss -ltnp 'sport = :5432'", "State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process\n"
               "LISTEN 0      244        127.0.0.1:5432      0.0.0.0:*     users:((\"postgres\",pid=1184,fd=6))"),
            ok("(kubectl --context gantry-staging -n payments port-forward svc/payments-db 15432:5432 > /tmp/pf.log 2>&1 &) && sleep 2 && cat /tmp/pf.log",
               "Forwarding from 127.0.0.1:15432 -> 5432\nForwarding from [::1]:15432 -> 5432"),
            A("The tunnel is open: point DBeaver at localhost:15432. Local port 5432 is taken by this machine's own "
              "Postgres, so database forwards have to use another local port."),
        ],
        mistake="kubectl --context gantry-staging -n payments port-forward svc/payments-db 5432:5432",
        lesson="gantry: local port 5432 is taken by the machine's own Postgres; port-forward databases to another local port (… port-forward svc/<db> 15432:5432).",
        warn=[same("kubectl --context gantry-staging -n payments port-forward svc/payments-db 5432:5432"),
              reword("kubectl --context gantry-prod -n payments port-forward svc/payments-db 5432"),
              reword("kubectl --context gantry-staging -n ledger port-forward service/ledger-db 5432:5432")],
        silent=[fix("kubectl --context gantry-staging -n ledger port-forward service/ledger-db 15432:5432"),
                other("kubectl --context gantry-staging -n payments port-forward svc/payments-api 8080:80"),
                help_("kubectl port-forward --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-anvil-java-home", RETRY, CODEX, "anvil",
        session=[
            U("Build anvil, I need the jar."),
            err("mvn package", _JAVA_RELEASE_21),
            err("mvn package -Dmaven.compiler.release=17",
                "[ERROR] /home/dev/anvil/anvil-core/src/main/java/dev/anvil/core/Invoice.java:[14,8] records are not supported in -source 17\n"
                "[ERROR] /home/dev/anvil/anvil-core/src/main/java/dev/anvil/core/ship/Shipment.java:[31,20] "
                "pattern matching in switch is a preview feature and is disabled by default.\n[INFO] BUILD FAILURE"),
            err("JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 mvn package", _JAVA_RELEASE_21),
            ok("ls /usr/lib/jvm", "java-1.17.0-openjdk-amd64\njava-17-openjdk-amd64\ntemurin-21-jdk-amd64"),
            ok("JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64 mvn package",
               "[INFO] Compiling 142 source files with javac [debug release 21] to target/classes\n"
               "[INFO] Tests run: 311, Failures: 0, Errors: 0, Skipped: 0\n"
               "[INFO] Building jar: /home/dev/anvil/anvil-core/target/anvil-core-0.9.0-SNAPSHOT.jar\n[INFO] BUILD SUCCESS"),
            A("Built anvil-core-0.9.0-SNAPSHOT.jar. anvil targets Java 21 and the default JDK here is 17; Maven has to "
              "run with JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64."),
        ],
        mistake="mvn package",
        lesson="anvil needs JDK 21 but the default java here is 17; run Maven as JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64 mvn …",
        warn=[same("mvn package"), reword("mvn -q verify -pl anvil-core"), reword("mvn test -Dtest=InvoiceMapperTest")],
        silent=[fix("JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64 mvn -q verify -pl anvil-core"),
                fix("JAVA_HOME=/usr/lib/jvm/temurin-21-jdk-amd64 mvn test -Dtest=InvoiceMapperTest"),
                other("mvn -v"), help_("mvn --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-ferrule-cargo-run-bin", RETRY, GEMINI, "ferrule",
        session=[
            U("Run ferrule's check command on the examples."),
            err("cargo run -- check examples/", _CARGO_WHICH_BIN, 101),
            err("cargo run -p ferrule -- check examples/",
                "error: package(s) `ferrule` not found in workspace `/home/dev/ferrule`", 101),
            err("cargo run ferrule check examples/", _CARGO_WHICH_BIN, 101),
            ok("grep -n -A2 '\\[\\[bin\\]\\]' crates/ferrule-cli/Cargo.toml",
               '18:[[bin]]\n19-name = "ferrule"\n20-path = "src/main.rs"\n21:[[bin]]\n22-name = "ferrule-migrate"\n23-path = "src/migrate.rs"'),
            ok("cargo run --bin ferrule -- check examples/",
               "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.21s\n"
               "     Running `target/debug/ferrule check examples/`\nchecked 12 files: 0 errors, 2 warnings"),
            A("12 files checked: no errors, 2 warnings. The CLI crate has two binaries (ferrule, ferrule-migrate), so "
              "cargo run needs --bin ferrule."),
        ],
        mistake="cargo run -- check examples/",
        lesson="ferrule: the workspace has two binaries; cargo run needs --bin ferrule (or --bin ferrule-migrate).",
        warn=[same("cargo run -- check examples/"), reword("cargo run --release -- fmt src/"), reword("cargo run -p ferrule-cli -- --version")],
        silent=[fix("cargo run --release --bin ferrule -- fmt src/"), fix("cargo run -p ferrule-cli --bin ferrule -- --version"),
                other("cargo build --workspace"), help_("cargo run --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-driftwood-nvm-use", RETRY, CC, "driftwood",
        session=[
            U("Install driftwood's dependencies."),
            err("npm ci", _NODE_ENGINE),
            err("npm ci --force",
                "npm warn using --force Recommended protections disabled.\nnpm error code 1\nnpm error path /home/dev/driftwood/node_modules/sharp\n"
                "npm error sharp: Installation error: Expected Node.js version >=18.17.0 || >=20.3.0 but found 18.12.1"),
            err("npm install --engine-strict=false", _NODE_ENGINE),
            ok("cat .nvmrc", "20.11.1"),
            ok("source ~/.nvm/nvm.sh && nvm use && npm ci",
               "Found '/home/dev/driftwood/.nvmrc' with version <20.11.1>\nNow using node v20.11.1 (npm v10.2.4)\n\n"
               "added 812 packages, and audited 813 packages in 19s\n\nfound 0 vulnerabilities"),
            A("Installed with Node 20.11.1 from .nvmrc. The default node in this shell is 18, which driftwood doesn't "
              "support; npm has to run after `source ~/.nvm/nvm.sh && nvm use`."),
        ],
        mistake="npm ci",
        lesson="driftwood needs Node 20 (.nvmrc); the shell's default node is 18 — run source ~/.nvm/nvm.sh && nvm use before npm ci / npm install.",
        warn=[same("npm ci"), reword("npm install"), reword("npm ci --force")],
        silent=[fix("source ~/.nvm/nvm.sh && nvm use && npm install"), other("npm --version"), help_("npm help ci")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-tidewater-import-module", RETRY, CODEX, "tidewater",
        session=[
            U("The logs bucket was created by hand; import it into terraform state."),
            err("terraform import aws_s3_bucket.logs tidewater-logs", _TF_IMPORT_NO_ADDR.format(name="logs")),
            err("terraform import -var-file=env/prod.tfvars aws_s3_bucket.logs tidewater-logs", _TF_IMPORT_NO_ADDR.format(name="logs")),
            err("terraform import aws_s3_bucket.tidewater_logs tidewater-logs", _TF_IMPORT_NO_ADDR.format(name="tidewater_logs")),
            ok("grep -rn 'resource \"aws_s3_bucket\"' --include=*.tf .",
               "./modules/storage/main.tf:1:resource \"aws_s3_bucket\" \"artifacts\" {\n"
               "./modules/storage/main.tf:9:resource \"aws_s3_bucket\" \"logs\" {\n"
               "./modules/storage/main.tf:17:resource \"aws_s3_bucket\" \"assets\" {"),
            ok("terraform import -var-file=env/prod.tfvars module.storage.aws_s3_bucket.logs tidewater-logs",
               "module.storage.aws_s3_bucket.logs: Importing from ID \"tidewater-logs\"...\n"
               "module.storage.aws_s3_bucket.logs: Import prepared!\n  Prepared aws_s3_bucket for import\n"
               "module.storage.aws_s3_bucket.logs: Refreshing state... [id=tidewater-logs]\n\nImport successful!"),
            A("Imported. tidewater's buckets are defined in modules/storage, so their addresses are "
              "module.storage.aws_s3_bucket.<name>."),
        ],
        mistake="terraform import aws_s3_bucket.logs tidewater-logs",
        lesson="tidewater: the S3 buckets live in modules/storage; address them as module.storage.aws_s3_bucket.<name> (terraform import / state commands).",
        warn=[same("terraform import aws_s3_bucket.logs tidewater-logs"),
              reword("terraform import -var-file=env/prod.tfvars aws_s3_bucket.assets tidewater-assets"),
              reword("terraform state show aws_s3_bucket.artifacts")],
        silent=[fix("terraform import -var-file=env/prod.tfvars module.storage.aws_s3_bucket.assets tidewater-assets"),
                fix("terraform state show module.storage.aws_s3_bucket.artifacts"),
                other("terraform state list"), help_("terraform import -help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-stormglass-bitnami-oci", RETRY, GEMINI, "stormglass",
        session=[
            U("Install a throwaway Postgres in the payments-dev namespace."),
            err("helm install pg bitnami/postgresql -n payments-dev", _HELM_NO_REPO),
            err("helm repo add bitnami https://charts.bitnami.com/bitnami",
                "Error: looks like \"https://charts.bitnami.com/bitnami\" is not a valid chart repository or cannot be reached: "
                "failed to fetch https://charts.bitnami.com/bitnami/index.yaml : 403 Forbidden"),
            err("helm install pg https://charts.bitnami.com/bitnami/postgresql-15.2.5.tgz -n payments-dev",
                "Error: INSTALLATION FAILED: failed to fetch https://charts.bitnami.com/bitnami/postgresql-15.2.5.tgz : 403 Forbidden"),
            ok("grep -rn 'repository:' charts/*/Chart.yaml",
               "charts/payments/Chart.yaml:14:    repository: oci://registry-1.docker.io/bitnamicharts\n"
               "charts/payments/Chart.yaml:18:    repository: oci://registry-1.docker.io/bitnamicharts"),
            ok("helm install pg oci://registry-1.docker.io/bitnamicharts/postgresql -n payments-dev",
               "Pulled: registry-1.docker.io/bitnamicharts/postgresql:15.2.5\n"
               "Digest: sha256:0d2a4c6e8f1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f\n"
               "NAME: pg\nLAST DEPLOYED: Tue Mar  3 14:08:51 2026\nNAMESPACE: payments-dev\nSTATUS: deployed\nREVISION: 1"),
            A("Postgres is installed as release `pg` in payments-dev. The proxy blocks charts.bitnami.com; Bitnami charts "
              "come from the OCI registry, oci://registry-1.docker.io/bitnamicharts/<chart>."),
        ],
        mistake="helm install pg bitnami/postgresql -n payments-dev",
        lesson="stormglass: charts.bitnami.com is blocked (403); install Bitnami charts from OCI: oci://registry-1.docker.io/bitnamicharts/<chart>, no helm repo add.",
        warn=[same("helm install pg bitnami/postgresql -n payments-dev"),
              reword("helm upgrade --install cache bitnami/redis -n payments-dev --set auth.enabled=false"),
              reword("helm repo add bitnami https://charts.bitnami.com/bitnami")],
        silent=[fix("helm upgrade --install cache oci://registry-1.docker.io/bitnamicharts/redis -n payments-dev --set auth.enabled=false"),
                other("helm list -n payments-dev"), help_("helm install --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-lodestar-subtest-names", RETRY, CC, "lodestar",
        session=[
            U("Run only the 'negative balance' case of TestPost."),
            ok("go test -short -run 'TestPost/negative balance' ./internal/ledger",
               "testing: warning: no tests to run\nPASS\nok  \tgithub.com/lodestar-io/lodestar/internal/ledger\t0.008s [no tests to run]"),
            ok("go test -short -run \"TestPost/negative balance\" -v ./internal/ledger",
               "testing: warning: no tests to run\nPASS\nok  \tgithub.com/lodestar-io/lodestar/internal/ledger\t0.008s [no tests to run]"),
            ok("go test -short -v -run TestPost ./internal/ledger | grep -- '--- '",
               "    --- PASS: TestPost/simple_debit (0.00s)\n    --- PASS: TestPost/negative_balance (0.00s)\n"
               "    --- PASS: TestPost/currency_mismatch (0.00s)"),
            ok("go test -short -v -run 'TestPost/negative_balance' ./internal/ledger",
               "=== RUN   TestPost\n=== RUN   TestPost/negative_balance\n--- PASS: TestPost (0.00s)\n"
               "    --- PASS: TestPost/negative_balance (0.00s)\nPASS\nok  \tgithub.com/lodestar-io/lodestar/internal/ledger\t0.009s"),
            A("TestPost/negative_balance passes. Go replaces spaces in subtest names with underscores, so -run patterns "
              "have to use `negative_balance`; with a space nothing matches and go test reports 'no tests to run'."),
        ],
        mistake="go test -short -run 'TestPost/negative balance' ./internal/ledger",
        lesson="Go: subtest names have spaces replaced by underscores; -run patterns must use them (-run 'TestPost/negative_balance'), or nothing runs.",
        warn=[same("go test -short -run 'TestPost/negative balance' ./internal/ledger"),
              reword("go test -short -v -run 'TestTransfer/insufficient funds' ./internal/transfer")],
        silent=[fix("go test -short -v -run 'TestTransfer/insufficient_funds' ./internal/transfer"),
                other("go test -short -run TestPost ./internal/ledger"), help_("go help testflag")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-saltmarsh-sail-artisan", RETRY, CODEX, "saltmarsh",
        session=[
            U("Run the pending migrations."),
            err("php artisan migrate", _PHP_NO_DRIVER),
            err("php8.1 artisan migrate",
                "Composer detected issues in your platform:\n\nYour Composer dependencies require a PHP version \">= 8.2.0\". "
                "You are running 8.1.27.\n\nPHP Fatal error:  Composer detected issues in your platform"),
            err("php -d extension=pdo_mysql artisan migrate",
                "PHP Warning:  PHP Startup: Unable to load dynamic library 'pdo_mysql' (tried: /usr/lib/php/20230831/pdo_mysql "
                "(/usr/lib/php/20230831/pdo_mysql: cannot open shared object file: No such file or directory))\n" + _PHP_NO_DRIVER),
            ok("grep -n sail composer.json", '22:        "laravel/sail": "^1.29",'),
            ok("./vendor/bin/sail artisan migrate",
               "\n   INFO  Running migrations.  \n\n  2026_03_01_120000_add_gift_note_to_orders ....................... 18.41ms DONE\n"
               "  2026_03_02_093000_create_returns_table ........................... 31.07ms DONE\n"),
            A("Both migrations ran. The host PHP has no MySQL driver; saltmarsh runs in Sail, so artisan goes through "
              "./vendor/bin/sail artisan."),
        ],
        mistake="php artisan migrate",
        lesson="saltmarsh runs in Laravel Sail; the host php has no MySQL driver — run artisan as ./vendor/bin/sail artisan … (tests too).",
        warn=[same("php artisan migrate"), reword("php artisan test --filter OrderTest"),
              reword("php artisan tinker --execute 'echo App\\Models\\Order::count();'")],
        silent=[fix("./vendor/bin/sail artisan test --filter OrderTest"), fix("./vendor/bin/sail artisan migrate:status"),
                other("php -v"), help_("php artisan help migrate")],
        variants=("diagnostic", "other_program"),
    ),
    Incident(
        "rl-quill-artifact-registry", RETRY, GEMINI, "quill",
        session=[
            U("Build the api image with Cloud Build as version 1.8."),
            err("gcloud builds submit --tag gcr.io/quill-prod/api:1.8 .", _GCR_DENIED),
            err("gcloud builds submit --tag eu.gcr.io/quill-prod/api:1.8 .", _GCR_DENIED),
            err("gcloud builds submit --tag europe-west1-docker.pkg.dev/quill-prod/api:1.8 .",
                "ERROR: (gcloud.builds.submit) INVALID_ARGUMENT: invalid image name "
                "\"europe-west1-docker.pkg.dev/quill-prod/api:1.8\": Artifact Registry image names need a repository: "
                "LOCATION-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE"),
            ok("gcloud artifacts repositories list --location europe-west1 --format='value(name)'", "app"),
            ok("gcloud builds submit --tag europe-west1-docker.pkg.dev/quill-prod/app/api:1.8 .",
               "Creating temporary archive of 214 file(s) totalling 3.1 MiB before compression.\n"
               "...\nDONE\n--------------------------------------------------------------------------------\n"
               "ID                                    CREATE_TIME                DURATION  SOURCE  IMAGES  STATUS\n"
               "6f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0  2026-03-03T09:21:52+00:00  1M48S     gs://quill-prod_cloudbuild/source/1709457712.48-4c1e9a.tgz  "
               "europe-west1-docker.pkg.dev/quill-prod/app/api:1.8  SUCCESS"),
            A("Built and pushed europe-west1-docker.pkg.dev/quill-prod/app/api:1.8. gcr.io can't be written to any more; "
              "quill's images go to the Artifact Registry repository `app` in europe-west1."),
        ],
        mistake="gcloud builds submit --tag gcr.io/quill-prod/api:1.8 .",
        lesson="quill: gcr.io is read-only; push images to Artifact Registry: europe-west1-docker.pkg.dev/quill-prod/app/<image>:<tag>.",
        warn=[same("gcloud builds submit --tag gcr.io/quill-prod/api:1.8 ."),
              reword("gcloud builds submit --tag=eu.gcr.io/quill-prod/worker:1.9 ."),
              reword("docker push gcr.io/quill-prod/api:1.8")],
        silent=[fix("gcloud builds submit --tag=europe-west1-docker.pkg.dev/quill-prod/app/worker:1.9 ."),
                fix("docker push europe-west1-docker.pkg.dev/quill-prod/app/api:1.8"),
                other("gcloud builds list --limit 5"), help_("gcloud builds submit --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-ember-ssh-key-port", RETRY, CC, "ember",
        session=[
            U("Check how full the disk on the ember server is."),
            err("ssh deploy@ember.host 'df -h /'", _SSH_DENIED, 255),
            err("ssh -i ~/.ssh/id_ed25519 deploy@ember.host 'df -h /'", _SSH_DENIED, 255),
            err("ssh root@ember.host 'df -h /'", "root@ember.host: Permission denied (publickey).", 255),
            ok("grep -n -i -A3 'ember' docs/ops.md",
               "7:## ember server\n8-SSH listens on port 2222 (22 is a honeypot).\n"
               "9-Use the deploy key: ~/.ssh/ember_deploy (ask ops if you don't have it)."),
            ok("ssh -p 2222 -i ~/.ssh/ember_deploy deploy@ember.host 'df -h /'",
               "Filesystem      Size  Used Avail Use% Mounted on\n/dev/sda1        79G   61G   15G  81% /"),
            A("The root disk is 81% full (15 GB free). ember's real SSH is on port 2222 with the deploy key "
              "~/.ssh/ember_deploy; port 22 is a honeypot that rejects every key."),
        ],
        mistake="ssh deploy@ember.host 'df -h /'",
        lesson="ember: SSH is on port 2222 with key ~/.ssh/ember_deploy (22 is a honeypot): ssh -p 2222 -i ~/.ssh/ember_deploy deploy@ember.host (scp -P 2222).",
        warn=[same("ssh deploy@ember.host 'df -h /'"), reword("scp dist/ember.tar.gz deploy@ember.host:/tmp/"),
              reword("ssh -i ~/.ssh/id_ed25519 deploy@ember.host 'sudo systemctl restart ember'")],
        silent=[fix("ssh -p 2222 -i ~/.ssh/ember_deploy deploy@ember.host 'sudo systemctl restart ember'"),
                fix("scp -P 2222 -i ~/.ssh/ember_deploy dist/ember.tar.gz deploy@ember.host:/tmp/"),
                other("ssh-keygen -lf ~/.ssh/ember_deploy.pub")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-marlin-ecr-login", RETRY, CODEX, "marlin",
        session=[
            U("Push marlin api 2.1 to ECR."),
            err(f"docker push {_ECR}/marlin/api:2.1", _ECR_NO_AUTH),
            err(f"docker login {_ECR}",
                "Error: Cannot perform an interactive login from a non TTY device"),
            err(f"aws ecr get-login-password | docker login --username AWS --password-stdin {_ECR}",
                "Error response from daemon: login attempt to https://318204775091.dkr.ecr.eu-west-1.amazonaws.com/v2/ "
                "failed with status: 400 Bad Request"),
            ok("aws configure get region", "us-east-1"),
            ok(f"aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin {_ECR} && "
               f"docker push {_ECR}/marlin/api:2.1",
               "Login Succeeded\nThe push refers to repository [318204775091.dkr.ecr.eu-west-1.amazonaws.com/marlin/api]\n"
               "5f70bf18a086: Pushed\n9e4b2c1d0a7f: Pushed\n2.1: digest: sha256:9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b size: 1782"),
            A("Pushed marlin/api:2.1. ECR tokens last 12 hours and the registry is in eu-west-1 (the CLI defaults to "
              "us-east-1), so pushes need `aws ecr get-login-password --region eu-west-1 | docker login …` first."),
        ],
        mistake=f"docker push {_ECR}/marlin/api:2.1",
        lesson=f"marlin: log in to ECR before pushing or pulling: aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin {_ECR}.",
        warn=[same(f"docker push {_ECR}/marlin/api:2.1"), reword(f"docker push {_ECR}/marlin/worker:2.1"),
              reword(f"docker pull {_ECR}/marlin/api:2.0")],
        silent=[fix(f"aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin {_ECR} && "
                    f"docker push {_ECR}/marlin/worker:2.1"),
                other("docker push ghcr.io/marlin-oss/marlin-cli:0.4.0"), help_("docker push --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-fernhill-phx-port", RETRY, GEMINI, "fernhill",
        session=[
            U("Start the Phoenix server so I can check the booking page."),
            err("mix phx.server", _EADDRINUSE),
            err("PORT=4001 mix phx.server", _EADDRINUSE),
            err("mix phx.server --port 4001", "** (Mix) Could not invoke task \"phx.server\": 1 error found!\n--port : Unknown option"),
            ok("grep -n 'port:' config/dev.exs",
               "12:  http: [ip: {127, 0, 0, 1}, port: String.to_integer(System.get_env(\"FERNHILL_PORT\") || \"4000\")],"),
            ok("(FERNHILL_PORT=4001 mix phx.server > /tmp/phx.log 2>&1 &) && sleep 6 && curl -s -o /dev/null -w '%{http_code}\\n' localhost:4001/bookings",
               "200"),
            A("The server runs on http://localhost:4001. Port 4000 is taken by another service on this machine and "
              "fernhill's dev config reads its port from FERNHILL_PORT (not PORT)."),
        ],
        mistake="mix phx.server",
        lesson="fernhill: port 4000 is taken here; start Phoenix with FERNHILL_PORT=4001 (the dev config ignores PORT).",
        warn=[same("mix phx.server"), reword("iex -S mix phx.server"), reword("PORT=4001 mix phx.server")],
        silent=[fix("FERNHILL_PORT=4001 iex -S mix phx.server"), other("mix test"), help_("mix help phx.server")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-keelson-pull-rebase", RETRY, CC, "keelson",
        session=[
            U("Update my branch with the latest main."),
            err("git pull", _PULL_DIVERGENT, 128),
            err("git pull origin main", _PULL_DIVERGENT, 128),
            ok("grep -n -i rebase CONTRIBUTING.md", "9:We keep a linear history: update branches with `git pull --rebase`, never merge commits."),
            ok("git pull --rebase origin main",
               "From github.com:keelson/keelson\n * branch            main       -> FETCH_HEAD\n"
               "Successfully rebased and updated refs/heads/feature/route-header."),
            A("Your branch is rebased on main. The repo wants a linear history and has no pull default configured, so "
              "pulls need --rebase."),
        ],
        mistake="git pull",
        lesson="keelson keeps a linear history and no pull default is set: always git pull --rebase (never a plain or --no-rebase pull).",
        warn=[same("git pull"), reword("git pull origin main"), reword("git pull --no-rebase origin develop")],
        silent=[fix("git pull --rebase origin main"), fix("git pull -r"), other("git fetch --all --prune"), help_("git pull --help")],
        variants=("diagnostic",),
    ),
    Incident(
        "rl-millrace-az-subscription", RETRY, CODEX, "millrace",
        session=[
            U("Get kubectl credentials for the millrace AKS cluster."),
            err("az aks get-credentials --name millrace-aks",
                "the following arguments are required: --resource-group/-g\n\nExamples from AI knowledge base:\n"
                "az aks get-credentials --name MyManagedCluster --resource-group MyResourceGroup", 2),
            err("az aks get-credentials -g millrace -n millrace-aks",
                "(ResourceGroupNotFound) Resource group 'millrace' could not be found.\nCode: ResourceGroupNotFound"),
            err("az aks get-credentials -g rg-millrace-prod -n millrace-aks",
                "(ResourceGroupNotFound) Resource group 'rg-millrace-prod' could not be found.\nCode: ResourceGroupNotFound"),
            ok("az account list --query '[].{name:name, default:isDefault}' -o table",
               "Name                 Default\n-------------------  ---------\nPay-As-You-Go        True\nMillrace Production  False"),
            ok("az aks get-credentials -g rg-millrace-prod -n millrace-aks --subscription \"Millrace Production\"",
               "Merged \"millrace-aks\" as current context in /home/dev/.kube/config"),
            A("kubectl now points at millrace-aks. The default az subscription here is a personal Pay-As-You-Go one; "
              "millrace's resources are in \"Millrace Production\", so az commands need --subscription \"Millrace Production\"."),
        ],
        mistake="az aks get-credentials -g rg-millrace-prod -n millrace-aks",
        lesson="millrace: the default az subscription is not millrace's; pass --subscription \"Millrace Production\" (resources in rg-millrace-prod).",
        warn=[same("az aks get-credentials -g rg-millrace-prod -n millrace-aks"),
              reword("az webapp list -g rg-millrace-prod -o table"),
              reword("az aks show --resource-group rg-millrace-prod --name millrace-aks --query kubernetesVersion")],
        silent=[fix("az webapp list -g rg-millrace-prod -o table --subscription \"Millrace Production\""),
                fix("az aks show --resource-group rg-millrace-prod --name millrace-aks --query kubernetesVersion --subscription \"Millrace Production\""),
                other("az account show"), help_("az aks get-credentials --help")],
        variants=("diagnostic",),
    ),
]
