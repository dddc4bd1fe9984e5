"""Blind split 2, shape retry: the agent tries the same thing several times with
variations (another flag, sudo, another spelling) until one form works. Four incidents
per agent."""

from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, RETRY, A, Incident, U, err, fix, help_, ok, other, reword, same

_PLIST = "~/Library/LaunchAgents/dev.hearth.sync.plist"
_LOAD_ERR = "Load failed: 5: Input/output error\nTry running `launchctl bootstrap` as root for richer errors."

_BILLINGPB = (
    "services/billing/invoice/invoice.go:9:2: no required module provides package quarry.dev/gen/billingpb; "
    "to add it:\n\tgo get quarry.dev/gen/billingpb"
)

_SB_REF = "qbzkvhtmxwrdnlspaefo"
_SB_TOKEN = "SUPABASE_ACCESS_TOKEN=$(op read op://dev/supabase/access-token)"
_SB_NO_TOKEN = (
    "Access token not provided. Supply an access token by running supabase login or setting the "
    "SUPABASE_ACCESS_TOKEN environment variable."
)

_COOKIE = '--cookie "$(cat .erlang.cookie)"'
_NODEDOWN = "Could not contact remote node ember@127.0.0.1, reason: :nodedown. Aborting..."

_CABAL_ERR = (
    "Resolving dependencies...\nError: [Cabal-7043]\n"
    "Cannot test the package stackyard-0.2.0 because none of the components are available to build: the test "
    "suite 'stackyard-test' is not available because building test suites has been disabled in the "
    "configuration (tests: False in cabal.project). To enable them, use --enable-tests"
)

_AVRO_BYTES = "\ufffd\ufffd\ufffd\ufffd\u0007H8f2c1a0e-5b7d\u0006EUR\u0002\ufffd\u001f\n\ufffd\ufffd\ufffd\ufffd\u0007Hc41d9e22-07aa\u0006USD\u0002\ufffd\u0007"
_KAFKA_PLAIN = (
    "kafka-console-consumer.sh --bootstrap-server localhost:9092 --topic orders.v1 --from-beginning --max-messages 5"
)
_KAFKA_AVRO = (
    "kafka-avro-console-consumer --bootstrap-server localhost:9092 --topic orders.v1 --from-beginning "
    "--max-messages 5 --property schema.registry.url=http://localhost:18081"
)

_NO_TESTS = "Test project /home/dev/vane\nNo tests were found!!!"

_AKS_OK = "az aks get-credentials --resource-group pier-rg --name pier-aks --subscription pier-prod"

_PASSPHRASE = (
    "error: getting stack configuration: get stack secrets manager: passphrase must be set with "
    "PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE environment variables"
)
_PULUMI_OK = "export PULUMI_CONFIG_PASSPHRASE_FILE=$HOME/.config/pier/dev.passphrase; pulumi preview --stack dev"

_LIQUIBASE_BANNER = (
    "####################################################\n##   _     _             _ _                      ##\n"
    "##  | |   (_)           (_) |                     ##\n##  | |    _  __ _ _   _ _| |__   __ _ ___  ___   ##\n"
    "####################################################\n"
    "Starting Liquibase at 09:55:02 using Java 21.0.5 (version 4.31.1 #6739 built at 2025-02-13 13:46+0000)\n"
    "Liquibase Version: 4.31.1\n"
)

INCIDENTS = [
    Incident(
        id="b2-rt01-launchctl-bootstrap",
        shape=RETRY,
        agent=CC,
        project="hearth",
        session=[
            U("install the sync agent so it runs at login"),
            ok("cp launchd/dev.hearth.sync.plist ~/Library/LaunchAgents/"),
            err(f"launchctl load {_PLIST}", _LOAD_ERR, code=5),
            err(f"launchctl load -w {_PLIST}", _LOAD_ERR, code=5),
            err(f"launchctl load -F {_PLIST}", _LOAD_ERR, code=5),
            A("The legacy load subcommand keeps failing. Using the modern bootstrap into the GUI domain."),
            ok(f"launchctl bootstrap gui/$(id -u) {_PLIST}"),
            ok(
                "launchctl print gui/$(id -u)/dev.hearth.sync | head -5",
                "gui/501/dev.hearth.sync = {\n\tactive count = 1\n"
                "\tpath = /Users/dev/Library/LaunchAgents/dev.hearth.sync.plist\n\ttype = LaunchAgent\n\tstate = running",
            ),
        ],
        mistake=f"launchctl load {_PLIST}",
        lesson=(
            "On this Mac `launchctl load` fails with Input/output error: install the agent with "
            f"`launchctl bootstrap gui/$(id -u) {_PLIST}`."
        ),
        warn=[
            same(f"launchctl load {_PLIST}"),
            reword('launchctl load -w "$HOME/Library/LaunchAgents/dev.hearth.sync.plist"'),
        ],
        silent=[
            fix(f"launchctl bootstrap gui/$(id -u) {_PLIST}"),
            fix('launchctl bootstrap gui/501 "$HOME/Library/LaunchAgents/dev.hearth.sync.plist"'),
            other("launchctl kickstart -k gui/$(id -u)/dev.hearth.sync"),
            other("launchctl list | grep hearth"),
            help_("launchctl help bootstrap"),
        ],
    ),
    Incident(
        id="b2-rt02-go-test-via-bazel",
        shape=RETRY,
        agent=CODEX,
        project="quarry",
        session=[
            U("run the billing unit tests"),
            err("go test ./services/billing/...", _BILLINGPB),
            err("go generate ./services/billing/... && go test ./services/billing/...", _BILLINGPB),
            err(
                "GOFLAGS=-mod=mod go test ./services/billing/...",
                "go: finding module for package quarry.dev/gen/billingpb\n"
                "services/billing/invoice/invoice.go:9:2: cannot find module providing package "
                'quarry.dev/gen/billingpb: unrecognized import path "quarry.dev/gen/billingpb": https fetch: '
                'Get "https://quarry.dev/gen/billingpb?go-get=1": dial tcp: lookup quarry.dev: no such host',
            ),
            A(
                "The generated protobuf packages only exist inside Bazel (rules_go generates them into bazel-bin), "
                "so plain go test can't build billing. Going through Bazel."
            ),
            ok(
                "bazel test //services/billing:billing_test",
                "INFO: Analyzed target //services/billing:billing_test (3 packages loaded, 412 targets configured).\n"
                "//services/billing:billing_test          PASSED in 1.2s\n\nExecuted 1 out of 1 test: 1 test passes.",
            ),
        ],
        mistake="go test ./services/billing/...",
        lesson=(
            "In quarry the generated proto packages (quarry.dev/gen/...) only exist in Bazel: run the billing "
            "tests with `bazel test //services/billing:billing_test`, not `go test ./services/billing/...`."
        ),
        warn=[
            same("go test ./services/billing/..."),
            reword("go test -run TestInvoiceTotals ./services/billing/invoice/"),
            reword("go test -v -count=1 ./services/billing/..."),
        ],
        silent=[
            fix("bazel test //services/billing:billing_test"),
            fix("bazel test //services/billing:billing_test --test_filter=TestInvoiceTotals --test_output=errors"),
            other("go version"),
            other("gofmt -l services/billing"),
            help_("go help test"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b2-rt03-supabase-access-token",
        shape=RETRY,
        agent=GEMINI,
        project="tidepool",
        session=[
            U("deploy the sync-tides edge function"),
            err("supabase functions deploy sync-tides", _SB_NO_TOKEN),
            err(
                "supabase login",
                "Cannot use automatic login flow inside non-TTY environments. Please provide --token flag or set "
                "the SUPABASE_ACCESS_TOKEN environment variable.",
            ),
            err(f"supabase functions deploy sync-tides --project-ref {_SB_REF}", _SB_NO_TOKEN),
            A("No login session on this machine; the team token is in 1Password. Passing it through the environment."),
            ok(
                f"{_SB_TOKEN} supabase functions deploy sync-tides --project-ref {_SB_REF}",
                "Bundling Function: sync-tides\nDeploying Function: sync-tides (script size: 48.2kB)\n"
                f"Deployed Functions on project {_SB_REF}: sync-tides\n"
                f"You can inspect your deployment in the Dashboard: https://supabase.com/dashboard/project/{_SB_REF}/functions",
            ),
        ],
        mistake="supabase functions deploy sync-tides",
        lesson=(
            "There is no supabase login on this machine: deploy functions with the token from 1Password, "
            f"`{_SB_TOKEN} supabase functions deploy sync-tides --project-ref {_SB_REF}`."
        ),
        warn=[
            same("supabase functions deploy sync-tides"),
            reword(f"supabase functions deploy tide-alerts --project-ref {_SB_REF} --no-verify-jwt"),
        ],
        silent=[
            fix(f"{_SB_TOKEN} supabase functions deploy sync-tides --project-ref {_SB_REF}"),
            fix(f"{_SB_TOKEN} supabase functions deploy tide-alerts --project-ref {_SB_REF} --no-verify-jwt"),
            fix(f"export {_SB_TOKEN}; supabase functions deploy sync-tides --project-ref {_SB_REF}"),
            other("supabase functions serve sync-tides --env-file supabase/.env.local"),
            other("supabase functions new tide-digest"),
            help_("supabase functions deploy --help"),
        ],
    ),
    Incident(
        id="b2-rt04-elixir-remsh-longnames",
        shape=RETRY,
        agent=CC,
        project="ember",
        session=[
            U("attach a shell to the running dev node so I can inspect the ETS tables"),
            err(
                "iex --remsh ember@127.0.0.1",
                "ERROR! --remsh requires distribution to be started. Start iex with --sname or --name",
            ),
            err("iex --sname dbg --remsh ember@127.0.0.1", _NODEDOWN),
            err(f"iex --sname dbg {_COOKIE} --remsh ember@127.0.0.1", _NODEDOWN),
            ok(
                "ps -o args= -C beam.smp | head -1",
                "/usr/lib/erlang/erts-15.2/bin/beam.smp -- -root /usr/lib/erlang -name ember@127.0.0.1 -setcookie ...",
            ),
            A(
                "The dev node runs with long names (-name ember@127.0.0.1); a short-name node can't reach it. Using --name with the project cookie."
            ),
            ok(
                f"iex --name dbg@127.0.0.1 {_COOKIE} --remsh ember@127.0.0.1",
                "Erlang/OTP 27 [erts-15.2] [source] [64-bit] [smp:8:8] [ds:8:8:10] [async-threads:1] [jit:ns]\n\n"
                "Interactive Elixir (1.18.2) - press Ctrl+C to exit (type h() ENTER for help)\niex(ember@127.0.0.1)1>",
            ),
        ],
        mistake="iex --sname dbg --remsh ember@127.0.0.1",
        lesson=(
            "ember's dev node uses long names: attach with "
            f"`iex --name dbg@127.0.0.1 {_COOKIE} --remsh ember@127.0.0.1`; --sname (or no name) gives :nodedown."
        ),
        warn=[
            same("iex --sname dbg --remsh ember@127.0.0.1"),
            reword(f"iex --sname inspect {_COOKIE} --remsh ember@127.0.0.1"),
        ],
        silent=[
            fix(f"iex --name dbg@127.0.0.1 {_COOKIE} --remsh ember@127.0.0.1"),
            fix(f'iex --name ops@127.0.0.1 {_COOKIE} --erl "-kernel shell_history enabled" --remsh ember@127.0.0.1'),
            other("iex -S mix"),
            other("iex --version"),
            help_("iex --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-rt05-haskell-cabal-enable-tests",
        shape=RETRY,
        agent=CODEX,
        project="stackyard",
        session=[
            U("run the test suite with cabal, CI uses cabal not stack"),
            err("cabal test", _CABAL_ERR),
            err("cabal test all", _CABAL_ERR),
            err("cabal test stackyard-test", _CABAL_ERR),
            ok(
                "cabal test --enable-tests",
                "Resolving dependencies...\nBuild profile: -w ghc-9.8.4 -O1\n"
                "In order, the following will be built (use -v for more details):\n"
                " - stackyard-0.2.0 (test:stackyard-test) (first run)\n...\n"
                "Running 1 test suites...\nTest suite stackyard-test: RUNNING...\nTest suite stackyard-test: PASS\n"
                "1 of 1 test suites (1 of 1 test cases) passed.",
            ),
        ],
        mistake="cabal test",
        lesson=(
            "stackyard's cabal.project sets tests: False, so `cabal test` finds no test suite: run "
            "`cabal test --enable-tests`."
        ),
        warn=[
            same("cabal test"),
            reword("cabal test stackyard-test --test-show-details=direct"),
        ],
        silent=[
            fix("cabal test --enable-tests"),
            fix("cabal test --enable-tests stackyard-test --test-show-details=direct"),
            other("cabal build"),
            other("cabal update"),
            help_("cabal test --help"),
        ],
    ),
    Incident(
        id="b2-rt06-kafka-avro-consumer",
        shape=RETRY,
        agent=GEMINI,
        project="kelp",
        session=[
            U("show me a few events on orders.v1, I want to check the new currency field"),
            err(
                "kafka-console-consumer.sh --bootstrap-server localhost:9092 --topic orders.v1 --max-messages 5 "
                "--timeout-ms 10000",
                "[2026-03-02 09:40:11,204] ERROR Error processing message, terminating consumer process:  "
                "(kafka.tools.ConsoleConsumer$)\norg.apache.kafka.common.errors.TimeoutException\n"
                "Processed a total of 0 messages",
            ),
            ok(_KAFKA_PLAIN, _AVRO_BYTES + "\nProcessed a total of 5 messages"),
            A(
                "Those are Avro-encoded records (magic byte 0 + schema id 7); the plain console consumer can't decode them."
            ),
            err(
                "kafka-avro-console-consumer --bootstrap-server localhost:9092 --topic orders.v1 --from-beginning --max-messages 5",
                "[2026-03-02 09:41:02,118] ERROR Unknown error when running consumer:  (kafka.tools.ConsoleConsumer$)\n"
                "org.apache.kafka.common.errors.SerializationException: Error retrieving Avro value schema for id 7\n"
                "Caused by: java.net.ConnectException: Connection refused (http://localhost:8081/schemas/ids/7)",
            ),
            ok("docker compose port schema-registry 8081", "0.0.0.0:18081"),
            ok(
                _KAFKA_AVRO,
                '{"order_id":"8f2c1a0e-5b7d","amount_cents":4200,"currency":"EUR"}\n'
                '{"order_id":"c41d9e22-07aa","amount_cents":1000,"currency":"USD"}\nProcessed a total of 5 messages',
            ),
        ],
        mistake=_KAFKA_PLAIN,
        lesson=(
            "orders.v1 carries Avro: read it with `kafka-avro-console-consumer ... --property "
            "schema.registry.url=http://localhost:18081` (the registry is on 18081 here), not kafka-console-consumer.sh."
        ),
        warn=[
            same(_KAFKA_PLAIN),
            reword(
                "kafka-console-consumer.sh --topic orders.v1 --bootstrap-server localhost:9092 --from-beginning "
                "--max-messages 20 --property print.key=true"
            ),
            reword("kafka-avro-console-consumer --bootstrap-server localhost:9092 --topic orders.v1 --from-beginning"),
        ],
        silent=[
            fix(_KAFKA_AVRO),
            fix(
                "kafka-avro-console-consumer --bootstrap-server localhost:9092 --topic orders.v1 --max-messages 20 "
                "--property schema.registry.url=http://localhost:18081 --property print.key=true"
            ),
            other("kafka-topics.sh --bootstrap-server localhost:9092 --describe --topic orders.v1"),
            other("kafka-consumer-groups.sh --bootstrap-server localhost:9092 --describe --group kelp-router"),
            help_("kafka-avro-console-consumer --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-rt07-ctest-test-dir",
        shape=RETRY,
        agent=CC,
        project="vane",
        session=[
            U("run the unit tests for the uart driver"),
            ok("ctest -R uart", _NO_TESTS),
            ok("ctest -R uart --output-on-failure", _NO_TESTS),
            err("ctest --preset firmware-debug -R uart", 'No such test preset in /home/dev/vane: "firmware-debug"'),
            A("The unit tests run on the host, from the host-tests build tree, not from the repo root."),
            ok(
                "ctest --test-dir build/host-tests -R uart --output-on-failure",
                "Internal ctest changing into directory: /home/dev/vane/build/host-tests\n"
                "Test project /home/dev/vane/build/host-tests\n"
                "    Start 4: uart_ring_buffer\n1/2 Test #4: uart_ring_buffer .................   Passed    0.01 sec\n"
                "    Start 5: uart_framing\n2/2 Test #5: uart_framing .....................   Passed    0.02 sec\n\n"
                "100% tests passed, 0 tests failed out of 2",
            ),
        ],
        mistake="ctest -R uart",
        lesson=(
            "vane's unit tests live in the host-tests build tree: run `ctest --test-dir build/host-tests -R uart "
            "--output-on-failure`; from the repo root plain ctest finds no tests."
        ),
        warn=[
            same("ctest -R uart"),
            reword("ctest -R spi --output-on-failure -j4"),
        ],
        silent=[
            fix("ctest --test-dir build/host-tests -R uart --output-on-failure"),
            fix("ctest --test-dir build/host-tests -R spi -j4"),
            fix("cd build/host-tests && ctest -R uart"),
            other("cmake --build build/host-tests --target uart_tests"),
            other("ctest --version"),
        ],
    ),
    Incident(
        id="b2-rt08-journalctl-user-unit",
        shape=RETRY,
        agent=CODEX,
        project="harbor",
        session=[
            U("the indexer restarted twice overnight, find out why"),
            ok("journalctl -u harbor-indexer --since yesterday", "-- No entries --"),
            ok("sudo journalctl -u harbor-indexer.service --since yesterday", "-- No entries --"),
            err("systemctl status harbor-indexer", "Unit harbor-indexer.service could not be found.", code=4),
            ok(
                "systemctl --user status harbor-indexer",
                "● harbor-indexer.service - Harbor indexer (podman)\n"
                "     Loaded: loaded (/home/ops/.config/systemd/user/harbor-indexer.service; enabled; preset: disabled)\n"
                "     Active: active (running) since Mon 2026-03-02 03:12:40 UTC; 6h ago",
            ),
            A("It is a systemd user unit, so its logs are in the user journal."),
            ok(
                "journalctl --user -u harbor-indexer --since yesterday",
                "Mar 02 02:58:11 harbor-01 indexer[88213]: ERROR compaction: out of memory (limit 512MiB)\n"
                "Mar 02 02:58:12 harbor-01 systemd[1411]: harbor-indexer.service: Main process exited, code=exited, "
                "status=137/n/a\nMar 02 02:58:12 harbor-01 systemd[1411]: harbor-indexer.service: Failed with result "
                "'exit-code'.\nMar 02 03:12:40 harbor-01 systemd[1411]: Started harbor-indexer.service - Harbor indexer (podman).",
            ),
        ],
        mistake="journalctl -u harbor-indexer --since yesterday",
        lesson=(
            "harbor-indexer is a systemd user unit: read its logs with `journalctl --user -u harbor-indexer`; "
            "the system journal shows -- No entries --."
        ),
        warn=[
            same("journalctl -u harbor-indexer --since yesterday"),
            reword("journalctl -u harbor-indexer.service -n 200 --no-pager"),
        ],
        silent=[
            fix("journalctl --user -u harbor-indexer --since yesterday"),
            fix("journalctl --user-unit=harbor-indexer -n 200 --no-pager"),
            other("journalctl -u sshd --since today"),
            other("journalctl --disk-usage"),
            help_("journalctl --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-rt09-az-aks-subscription",
        shape=RETRY,
        agent=GEMINI,
        project="pier",
        session=[
            U("get me kubectl access to the pier AKS cluster"),
            err(
                "az aks get-credentials --name pier-aks",
                "the following arguments are required: --resource-group/-g\n\n"
                "Examples from AI knowledge base:\naz aks get-credentials --resource-group MyResourceGroup --name MyManagedCluster",
                code=2,
            ),
            err(
                "az aks get-credentials --resource-group pier-rg --name pier-aks",
                "(ResourceNotFound) The Resource 'Microsoft.ContainerService/managedClusters/pier-aks' under resource "
                "group 'pier-rg' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix\n"
                "Code: ResourceNotFound",
                code=3,
            ),
            ok("az account show --query name -o tsv", "dev-sandbox"),
            A("The default subscription is dev-sandbox; the cluster is in pier-prod."),
            ok(_AKS_OK, 'Merged "pier-aks" as current context in /home/dev/.kube/config'),
        ],
        mistake="az aks get-credentials --resource-group pier-rg --name pier-aks",
        lesson=(f"pier-aks lives in the pier-prod subscription, not the default one: `{_AKS_OK}`."),
        warn=[
            same("az aks get-credentials --resource-group pier-rg --name pier-aks"),
            reword("az aks get-credentials -n pier-aks -g pier-rg --overwrite-existing"),
        ],
        silent=[
            fix(_AKS_OK),
            fix("az aks get-credentials -g pier-rg -n pier-aks --subscription pier-prod --overwrite-existing"),
            fix("az account set --subscription pier-prod && az aks get-credentials -g pier-rg -n pier-aks"),
            other("az account list -o table"),
            other("az aks list --subscription pier-prod -o table"),
            help_("az aks get-credentials --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-rt10-npm-workspaces-if-present",
        shape=RETRY,
        agent=CC,
        project="plume",
        session=[
            U("build everything before I tag the release"),
            err(
                "npm run build",
                'npm error Missing script: "build"\nnpm error\nnpm error To see a list of scripts, run:\n'
                "npm error   npm run\nnpm error A complete log of this run can be found in: "
                "/home/dev/.npm/_logs/2026-03-02T09_50_12_114Z-debug-0.log",
            ),
            err(
                "npm run build --workspaces",
                "\n> @plume/web@0.8.0 build\n> next build\n\n   ▲ Next.js 15.2.1\n   Creating an optimized production build ...\n"
                " ✓ Compiled successfully\n\n> @plume/ui@0.8.0 build\n> tsup\n\nESM Build success in 812ms\n"
                'npm error Missing script: "build"\nnpm error\nnpm error To see a list of scripts, run:\n'
                "npm error   npm run\nnpm error in workspace: @plume/docs-content@0.1.0\n"
                "npm error at location: /home/dev/plume/packages/docs-content",
            ),
            A("@plume/docs-content has no build script; --if-present skips workspaces without one."),
            ok(
                "npm run build --workspaces --if-present",
                "\n> @plume/web@0.8.0 build\n> next build\n\n ✓ Compiled successfully\n\n"
                "> @plume/ui@0.8.0 build\n> tsup\n\nESM Build success in 790ms",
            ),
        ],
        mistake="npm run build --workspaces",
        lesson=(
            "At plume's root, build all workspaces with `npm run build --workspaces --if-present`: the root has "
            "no build script and @plume/docs-content has none either."
        ),
        warn=[
            same("npm run build --workspaces"),
            same("npm run build"),
            reword("npm run build -ws"),
        ],
        silent=[
            fix("npm run build --workspaces --if-present"),
            fix("npm run build -ws --if-present"),
            other("npm run build -w @plume/web"),
            other("npm ls --workspaces --depth 0"),
            help_("npm help run-script"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b2-rt11-pulumi-passphrase-file",
        shape=RETRY,
        agent=CODEX,
        project="pier",
        session=[
            U("show me what the pending infra change would do on dev"),
            err("pulumi preview --stack dev", _PASSPHRASE, code=255),
            err(
                "pulumi preview --stack dev --secrets-provider passphrase",
                "error: unknown flag: --secrets-provider\nUsage:\n  pulumi preview [flags]\n",
                code=255,
            ),
            err("pulumi preview -s dev --non-interactive", _PASSPHRASE, code=255),
            ok("ls ~/.config/pier", "dev.passphrase\nprod.passphrase"),
            ok(
                _PULUMI_OK,
                "Previewing update (dev):\n     Type                                   Name       Plan\n"
                "     pulumi:pulumi:Stack                    pier-dev\n"
                " ~   └─ azure-native:network:VirtualNetwork  pier-vnet  update\n\n"
                "Resources:\n    ~ 1 to update\n    23 unchanged",
            ),
        ],
        mistake="pulumi preview --stack dev",
        lesson=(f"pier's stacks use the passphrase secrets provider: set the passphrase file first, `{_PULUMI_OK}`."),
        warn=[
            same("pulumi preview --stack dev"),
            reword("pulumi preview -s dev --diff"),
        ],
        silent=[
            fix(_PULUMI_OK),
            fix("PULUMI_CONFIG_PASSPHRASE_FILE=~/.config/pier/dev.passphrase pulumi preview -s dev --diff"),
            other("pulumi stack ls"),
            other("pulumi whoami -v"),
            help_("pulumi preview --help"),
        ],
    ),
    Incident(
        id="b2-rt12-liquibase-defaults-file",
        shape=RETRY,
        agent=GEMINI,
        project="ledger",
        session=[
            U("apply the new changelog to my local database"),
            err(
                "liquibase update",
                _LIQUIBASE_BANNER + "\nError parsing command line: Invalid argument '--changelog-file': missing "
                "required argument. If you need to configure new liquibase project files and arguments, add the "
                "'init project' command.",
            ),
            err(
                "liquibase update --changelog-file=db/changelog/db.changelog-master.xml "
                "--url=jdbc:postgresql://localhost:5432/ledger",
                _LIQUIBASE_BANNER + "\nUnexpected error running Liquibase: Connection could not be created to "
                "jdbc:postgresql://localhost:5432/ledger with driver org.postgresql.Driver.  FATAL: password "
                'authentication failed for user "dev"',
            ),
            ok("ls *.properties", "liquibase.ci.properties\nliquibase.dev.properties"),
            A("The changelog path, URL and credentials are in liquibase.dev.properties."),
            ok(
                "liquibase --defaults-file=liquibase.dev.properties update",
                _LIQUIBASE_BANNER + "Running Changeset: db/changelog/2026/03-add-period-lock.xml::1::ana\n\n"
                "UPDATE SUMMARY\nRun:                          1\nPreviously run:              41\n"
                "Filtered out:                 0\n-------------------------------\nTotal change sets:           42\n\n"
                "Liquibase: Update has been successful. Rows affected: 1\n"
                "Liquibase command 'update' was executed successfully.",
            ),
        ],
        mistake="liquibase update",
        lesson=(
            "ledger's liquibase settings (changelog, url, credentials) are in liquibase.dev.properties: run "
            "`liquibase --defaults-file=liquibase.dev.properties update`."
        ),
        warn=[
            same("liquibase update"),
            reword("liquibase update --changelog-file=db/changelog/db.changelog-master.xml --log-level=info"),
        ],
        silent=[
            fix("liquibase --defaults-file=liquibase.dev.properties update"),
            fix("liquibase --defaults-file=liquibase.dev.properties update --log-level=info"),
            other("liquibase --defaults-file=liquibase.dev.properties status --verbose"),
            other("liquibase --version"),
            help_("liquibase update --help"),
        ],
        variants=("long_output",),
    ),
]
