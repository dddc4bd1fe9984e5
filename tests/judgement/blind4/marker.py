"""blind4 / marker: the agent writes its own lesson line (GOTCHA: / LEARNING: / PATTERN: / FINDING: / DECISION:)."""

from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    MARKER,
    A,
    Incident,
    U,
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

INCIDENTS = [
    Incident(
        id="b4-marker-python-01",
        shape=MARKER,
        agent=CC,
        project="harbor-api",
        session=[
            U("add a nullable archived_at column to shipments and migrate"),
            edit(
                "harbor/models/shipment.py",
                "    delivered_at: Mapped[datetime | None]",
                "    delivered_at: Mapped[datetime | None]\n    archived_at: Mapped[datetime | None]",
            ),
            write(
                "alembic/versions/8d2e4f6a1c3b_add_shipments_archived_at.py",
                '"""add shipments archived_at"""\n\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
                'revision = "8d2e4f6a1c3b"\ndown_revision = "3f1c2a9d0b7e"\n\n\n'
                "def upgrade() -> None:\n"
                '    op.add_column("shipments", sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))\n\n\n'
                "def downgrade() -> None:\n"
                '    op.drop_column("shipments", "archived_at")\n',
            ),
            err(
                "alembic upgrade head",
                'Traceback (most recent call last):\n  File "/repo/alembic/env.py", line 61, in run_migrations_online\n'
                "    with connectable.connect() as connection:\n"
                "sqlalchemy.exc.OperationalError: (psycopg.OperationalError) [Errno -2] Name or service not known: "
                'could not translate host name "db" to address',
            ),
            A(
                "GOTCHA: alembic run from the host can't reach harbor's database. DATABASE_URL names the compose "
                "service db, a hostname that only resolves inside the compose network, so migrations have to go "
                "through the api container with docker compose exec."
            ),
            ok(
                "docker compose exec api alembic upgrade head",
                "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                "INFO  [alembic.runtime.migration] Running upgrade 3f1c2a9d0b7e -> 8d2e4f6a1c3b, add shipments archived_at",
            ),
        ],
        mistake="alembic upgrade head",
        lesson=(
            "harbor-api's DATABASE_URL points at the compose host `db`, which only resolves inside the compose "
            "network: run alembic as `docker compose exec api alembic ...`, not on the host."
        ),
        warn=[
            same("alembic upgrade head"),
            reword("alembic downgrade -1"),
            reword("alembic revision --autogenerate -m 'add carrier index'"),
        ],
        silent=[
            fix("docker compose exec api alembic downgrade -1"),
            fix("docker compose exec api alembic revision --autogenerate -m 'add carrier index'"),
            other("alembic history --verbose"),
            help_("alembic upgrade --help"),
        ],
    ),
    Incident(
        id="b4-marker-gh-02",
        shape=MARKER,
        agent=CODEX,
        project="fernweh-web",
        session=[
            U("open a PR for the menu focus fix"),
            read(
                "CONTRIBUTING.md",
                "## Branches\n\n- `develop` is the integration branch: every pull request targets `develop`.\n"
                "- `main` only receives release merges from `develop`, done by the release bot.\n",
            ),
            A(
                "DECISION: fernweh PRs target develop, never main (main only takes the release bot's merges), so "
                "every PR here is opened with `gh pr create --base develop`."
            ),
            ok(
                "git push -u origin fix/menu-focus",
                "To github.com:fernweh/fernweh-web.git\n * [new branch]      fix/menu-focus -> fix/menu-focus\n"
                "branch 'fix/menu-focus' set up to track 'origin/fix/menu-focus'.",
            ),
            ok(
                "gh pr create --base develop --fill",
                "Creating pull request for fix/menu-focus into develop in fernweh/fernweh-web\n\n"
                "https://github.com/fernweh/fernweh-web/pull/412",
            ),
        ],
        mistake="gh pr create --fill",
        lesson=(
            "fernweh-web PRs target develop (main only takes release merges): open them with "
            "`gh pr create --base develop`; gh's default base is main."
        ),
        warn=[
            same("gh pr create --fill"),
            reword('gh pr create --title "trips: lazy-load the map" --body "Loads the map bundle on first open."'),
            reword("gh pr create --base main --fill"),
        ],
        silent=[
            fix("gh pr create --base develop --fill"),
            fix(
                'gh pr create -B develop --title "trips: lazy-load the map" --body "Loads the map bundle on first open."'
            ),
            other("gh pr list --base develop"),
            other("gh pr view 412"),
            help_("gh pr create --help"),
        ],
    ),
    Incident(
        id="b4-marker-cloud-03",
        shape=MARKER,
        agent=GEMINI,
        project="quarry-infra",
        session=[
            U("did last night's worker build make it to the staging artifacts bucket?"),
            err(
                "aws s3 ls s3://quarry-staging-artifacts/releases/",
                "An error occurred (AccessDenied) when calling the ListObjectsV2 operation: User: "
                "arn:aws:iam::902114338870:user/jmaier is not authorized to perform: s3:ListBucket on resource: "
                '"arn:aws:s3:::quarry-staging-artifacts" because no identity-based policy allows the s3:ListBucket action',
                code=254,
            ),
            ok("aws configure list-profiles", "default\nquarry-staging\nquarry-prod"),
            ok(
                "aws s3 ls s3://quarry-staging-artifacts/releases/ --profile quarry-staging",
                "2026-03-01 23:14:08   48213394 quarry-worker-1.4.0.zip\n2026-03-02 02:10:41   48220917 quarry-worker-1.4.1.zip",
            ),
            A(
                "LEARNING: the default AWS profile here is a personal account (902114338870), so "
                "`aws s3 ls s3://quarry-staging-artifacts/releases/` without a profile is denied. Every aws call "
                "for quarry needs `--profile quarry-staging` (or quarry-prod).\n\n"
                "And yes: quarry-worker-1.4.1.zip was uploaded at 02:10."
            ),
        ],
        mistake="aws s3 ls s3://quarry-staging-artifacts/releases/",
        lesson=(
            "The default AWS profile on this machine is a personal account: quarry's aws calls need "
            "--profile quarry-staging (or quarry-prod), e.g. aws s3 ls s3://quarry-staging-artifacts/ --profile quarry-staging."
        ),
        warn=[
            same("aws s3 ls s3://quarry-staging-artifacts/releases/"),
            reword("aws s3 cp dist/quarry-worker-1.4.2.zip s3://quarry-staging-artifacts/releases/"),
            reword("aws s3 ls s3://quarry-staging-artifacts --recursive --human-readable"),
        ],
        silent=[
            fix(
                "aws s3 cp dist/quarry-worker-1.4.2.zip s3://quarry-staging-artifacts/releases/ --profile quarry-staging"
            ),
            fix("AWS_PROFILE=quarry-staging aws s3 ls s3://quarry-staging-artifacts --recursive --human-readable"),
            other("aws configure list-profiles"),
            help_("aws s3 ls help"),
        ],
    ),
    Incident(
        id="b4-marker-k8s-04",
        shape=MARKER,
        agent=CC,
        project="lumen-cluster",
        session=[
            U("bump the ingest image to 2.8.1 in the chart and upgrade the release"),
            edit("charts/lumen/values.yaml", "    tag: 2.8.0", "    tag: 2.8.1"),
            ok(
                "helm upgrade lumen ./charts/lumen -n lumen",
                'Release "lumen" has been upgraded. Happy Helming!\nNAME: lumen\n'
                "LAST DEPLOYED: Mon Mar  2 09:14:20 2026\nNAMESPACE: lumen\nSTATUS: deployed\nREVISION: 44",
            ),
            ok(
                "kubectl -n lumen get deploy",
                "NAME        READY   UP-TO-DATE   AVAILABLE   AGE\napi         1/1     1            1           212d\n"
                "ingest      1/1     1            1           212d\nscheduler   1/1     1            1           212d",
            ),
            ok("ls values", "prod.yaml\nstaging.yaml"),
            A(
                "FINDING: the chart's own values.yaml carries dev defaults (one replica each); the production "
                "replica counts, resources and ingress live in values/prod.yaml. The upgrade without it scaled api "
                "and ingest down to 1. Re-running it the right way: "
                "`helm upgrade lumen ./charts/lumen -n lumen -f values/prod.yaml`."
            ),
            ok(
                "helm upgrade lumen ./charts/lumen -n lumen -f values/prod.yaml",
                'Release "lumen" has been upgraded. Happy Helming!\nNAMESPACE: lumen\nSTATUS: deployed\nREVISION: 45',
            ),
            ok(
                "kubectl -n lumen get deploy",
                "NAME        READY   UP-TO-DATE   AVAILABLE   AGE\napi         3/3     3            3           212d\n"
                "ingest      3/3     3            3           212d\nscheduler   2/2     2            2           212d",
            ),
        ],
        mistake="helm upgrade lumen ./charts/lumen -n lumen",
        lesson=(
            "Upgrade the lumen release with the prod values: `helm upgrade lumen ./charts/lumen -n lumen "
            "-f values/prod.yaml`. Without -f the chart defaults scale api and ingest down to one replica."
        ),
        warn=[
            same("helm upgrade lumen ./charts/lumen -n lumen"),
            reword("helm upgrade --install lumen ./charts/lumen --namespace lumen"),
            reword("helm upgrade lumen charts/lumen -n lumen --set ingest.image.tag=2.8.2"),
        ],
        silent=[
            fix("helm upgrade lumen ./charts/lumen -n lumen -f values/prod.yaml --set ingest.image.tag=2.8.2"),
            other("helm list -n lumen"),
            other("helm template lumen ./charts/lumen -f values/prod.yaml"),
            help_("helm upgrade --help"),
        ],
    ),
    Incident(
        id="b4-marker-cargo-05",
        shape=MARKER,
        agent=CODEX,
        project="tallow-cli",
        session=[
            U("did my lexer change make parsing slower?"),
            err(
                "cargo bench",
                "   Compiling tallow-parse v0.9.3 (/repo/crates/tallow-parse)\n"
                "    Finished `bench` profile [optimized] target(s) in 48.20s\n"
                "     Running benches/parse.rs (target/release/deps/parse-3f0a1c)\n"
                "parse/small             time:   [41.210 µs 41.502 µs 41.880 µs]\n"
                "parse/large             time:   [3.1104 ms 3.1287 ms 3.1490 ms]\n"
                "     Running benches/render.rs (target/release/deps/render-9b2d4e)\n"
                "Benchmarking render/table: Warming up for 3.0000 s\ncommand timed out after 600 seconds",
                code=124,
            ),
            A(
                "PATTERN: a bare `cargo bench` runs all five criterion suites (parse, render, sync, diff, io), well "
                "over 20 minutes, so it timed out. For a lexer change, bench only the parse suite: "
                "`cargo bench --bench parse -- --quick`."
            ),
            ok(
                "cargo bench --bench parse -- --quick",
                "parse/small             time:   [41.210 µs 41.502 µs 41.880 µs]\n"
                "                        change: [+1.0211% +1.7132% +2.3318%] (p = 0.00 < 0.05)\n"
                "parse/large             time:   [3.1104 ms 3.1287 ms 3.1490 ms]\n"
                "                        change: [-0.4120% +0.2093% +0.8517%] (p = 0.52 > 0.05)\n"
                "                        No change in performance detected.",
            ),
        ],
        mistake="cargo bench",
        lesson=(
            "A bare `cargo bench` in tallow-cli runs all five criterion suites (over 20 minutes, it times out): "
            "bench one suite, e.g. `cargo bench --bench parse -- --quick`."
        ),
        warn=[
            same("cargo bench"),
            reword("cargo bench --workspace"),
            reword("cargo bench --all-features"),
        ],
        silent=[
            fix("cargo bench --bench parse -- --quick"),
            fix("cargo bench --bench render"),
            other("cargo bench --no-run"),
            help_("cargo bench --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b4-marker-go-06",
        shape=MARKER,
        agent=GEMINI,
        project="gantry-svc",
        session=[
            U("the Store interface got a new method, regenerate the mock and fix the tests"),
            ok("mockgen -source=internal/store/store.go -destination=internal/store/mock_store.go -package=store", ""),
            err(
                "go test ./internal/...",
                "# gantry/internal/api [gantry/internal/api.test]\n"
                "internal/api/handler_test.go:22:15: cannot use mocks.NewMockStore(ctrl) (value of type "
                "*mocks.MockStore) as store.Store value in argument to NewHandler: *mocks.MockStore does not "
                "implement store.Store (missing method ArchiveJob)\nFAIL\tgantry/internal/api [build failed]",
            ),
            ok(
                "grep -rn go:generate internal/store",
                "internal/store/store.go:3://go:generate go run go.uber.org/mock/mockgen@v0.5.0 -source=store.go "
                "-destination=../mocks/store_mock.go -package=mocks",
            ),
            A(
                "DECISION: gantry's mocks are only generated through their //go:generate directives "
                "(`go generate ./internal/...`), which pin mockgen v0.5.0 and write to internal/mocks. Running "
                "mockgen by hand wrote a stray mock_store.go into the wrong package and left the real mock stale."
            ),
            ok("rm internal/store/mock_store.go && go generate ./internal/...", ""),
            ok("go test ./internal/...", "ok  \tgantry/internal/api\t0.412s\nok  \tgantry/internal/store\t0.118s"),
        ],
        mistake="mockgen -source=internal/store/store.go -destination=internal/store/mock_store.go -package=store",
        lesson=(
            "gantry's mocks come from the //go:generate directives (`go generate ./internal/...`, mockgen v0.5.0, "
            "output in internal/mocks); don't run mockgen by hand."
        ),
        warn=[
            same("mockgen -source=internal/store/store.go -destination=internal/store/mock_store.go -package=store"),
            reword("mockgen -source internal/queue/queue.go -destination internal/queue/mock_queue.go"),
            reword(
                "go run go.uber.org/mock/mockgen@latest -source=internal/store/store.go "
                "-destination=internal/mocks/store_mock.go -package=mocks"
            ),
        ],
        silent=[
            fix("go generate ./internal/..."),
            fix("go generate ./internal/queue/"),
            other("mockgen -version"),
            help_("mockgen -help"),
        ],
        variants=("other_program",),
    ),
    Incident(
        id="b4-marker-docker-07",
        shape=MARKER,
        agent=CC,
        project="gantry-svc",
        session=[
            U("build and push gantry 1.9.0 so ops can roll it out"),
            ok(
                "docker build -t registry.gantry.io/gantry:1.9.0 . && docker push registry.gantry.io/gantry:1.9.0",
                "[+] Building 71.3s (17/17) FINISHED\n => exporting to image\n"
                "The push refers to repository [registry.gantry.io/gantry]\n"
                "1.9.0: digest: sha256:0b9e5f41c2d7a8e3b6f1d0c9a8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9 size: 1574",
            ),
            U("ops says the new pods crash straight away with `exec format error`"),
            ok(
                "docker image inspect registry.gantry.io/gantry:1.9.0 --format '{{.Os}}/{{.Architecture}}'",
                "linux/arm64",
            ),
            A(
                "GOTCHA: this laptop is arm64, so a plain docker build makes an arm64 image that the amd64 cluster "
                "can't execute. Anything pushed to registry.gantry.io has to be built for linux/amd64 with buildx."
            ),
            ok(
                "docker buildx build --platform linux/amd64 -t registry.gantry.io/gantry:1.9.0 --push .",
                "[+] Building 212.8s (18/18) FINISHED\n => pushing layers\n"
                " => pushing manifest for registry.gantry.io/gantry:1.9.0",
            ),
        ],
        mistake="docker build -t registry.gantry.io/gantry:1.9.0 .",
        lesson=(
            "gantry images for the registry must be built for amd64 (`docker buildx build --platform linux/amd64 "
            "... --push`): a plain docker build on this arm64 laptop gives 'exec format error' in the cluster."
        ),
        warn=[
            same("docker build -t registry.gantry.io/gantry:1.9.0 ."),
            reword("docker build . -t registry.gantry.io/gantry:1.9.1"),
            reword("docker buildx build -t registry.gantry.io/gantry-worker:1.9.0 --push ."),
        ],
        silent=[
            fix("docker buildx build --platform linux/amd64 -t registry.gantry.io/gantry:1.9.1 --push ."),
            fix("docker build --platform=linux/amd64 -t registry.gantry.io/gantry-worker:1.9.0 ."),
            other("docker image inspect registry.gantry.io/gantry:1.9.0 --format '{{.Architecture}}'"),
            help_("docker buildx build --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b4-marker-ansible-08",
        shape=MARKER,
        agent=CODEX,
        project="pinewood-ops",
        session=[
            U("apply the db role on staging, the new pg_hba rule is merged"),
            err(
                "ansible-playbook -i inventories/staging/hosts.ini db.yml --ask-vault-pass",
                "Vault password: \nERROR! Unexpected Exception, this is probably a bug: (25, 'Inappropriate ioctl for device')",
                code=250,
            ),
            ok(
                "ls ~/.pinewood-vault && grep -n vault ansible.cfg",
                "/home/dev/.pinewood-vault\n"
                "6:# vault_password_file is not set on purpose; pass --vault-password-file ~/.pinewood-vault",
            ),
            A(
                "DECISION: the agent shell has no TTY, so `--ask-vault-pass` can never work here; pinewood "
                "playbooks that read vaulted vars always get `--vault-password-file ~/.pinewood-vault`."
            ),
            ok(
                "ansible-playbook -i inventories/staging/hosts.ini db.yml --vault-password-file ~/.pinewood-vault",
                "PLAY [db] **********************************************************************\n\n"
                "TASK [postgres : pg_hba rules] *************************************************\n"
                "changed: [db1.staging]\n\nRUNNING HANDLER [postgres : reload postgres] *******************************\n"
                "changed: [db1.staging]\n\nPLAY RECAP *********************************************************************\n"
                "db1.staging                : ok=9    changed=2    unreachable=0    failed=0",
            ),
        ],
        mistake="ansible-playbook -i inventories/staging/hosts.ini db.yml --ask-vault-pass",
        lesson=(
            "The agent's shell has no TTY, so --ask-vault-pass (-J) fails: pinewood playbooks with vaulted vars "
            "need --vault-password-file ~/.pinewood-vault."
        ),
        warn=[
            same("ansible-playbook -i inventories/staging/hosts.ini db.yml --ask-vault-pass"),
            reword("ansible-playbook -J -i inventories/staging/hosts.ini db.yml"),
            reword("ansible-playbook -i inventories/staging/hosts.ini site.yml --ask-vault-password --tags postgres"),
        ],
        silent=[
            fix(
                "ansible-playbook -i inventories/staging/hosts.ini site.yml --vault-password-file ~/.pinewood-vault --tags postgres"
            ),
            other("ansible-playbook -i inventories/staging/hosts.ini site.yml --tags nginx --limit web"),
            help_("ansible-playbook --help"),
        ],
    ),
    Incident(
        id="b4-marker-ruby-09",
        shape=MARKER,
        agent=GEMINI,
        project="ledgerline",
        session=[
            U("fix the rubocop offenses in app/models"),
            ok(
                "bundle exec rubocop -A app/models",
                "Inspecting 31 files\n..C...W..C....................\n\nOffenses:\n\n"
                "app/models/invoice.rb:47:5: C: [Corrected] Style/SafeNavigation: Use safe navigation (&.) instead "
                "of checking if an object exists before calling the method.\n"
                "app/models/payment.rb:12:3: W: [Corrected] Lint/UselessAssignment: Useless assignment to variable - fee.\n\n"
                "31 files inspected, 17 offenses detected, 17 offenses corrected",
            ),
            err(
                "bundle exec rspec spec/models/invoice_spec.rb",
                "..F....\n\nFailures:\n\n  1) Invoice#overdue? is false for a draft without a due date\n"
                "     Failure/Error: expect(invoice.overdue?).to be(false)\n\n       expected false\n"
                "            got nil\n     # ./spec/models/invoice_spec.rb:38:in `block (3 levels) in <top (required)>'\n\n"
                "7 examples, 1 failure",
            ),
            ok(
                "git diff app/models/invoice.rb",
                "@@ -44,6 +44,5 @@ class Invoice < ApplicationRecord\n   def overdue?\n"
                "-    return false unless due_on\n-    due_on.past? && !paid?\n+    due_on&.past? && !paid?\n   end",
            ),
            A(
                "LEARNING: `rubocop -A` also applies the unsafe autocorrections; here it turned a nil guard into "
                "safe navigation and overdue? now returns nil instead of false. In ledgerline only the safe "
                "autocorrect (`rubocop -a`) runs, and unsafe cops get fixed by hand."
            ),
            edit(
                "app/models/invoice.rb",
                "    due_on&.past? && !paid?",
                "    return false unless due_on\n\n    due_on.past? && !paid?",
            ),
            ok("bundle exec rspec spec/models/invoice_spec.rb", ".......\n\n7 examples, 0 failures"),
        ],
        mistake="bundle exec rubocop -A app/models",
        lesson=(
            "Don't run `rubocop -A` (--autocorrect-all) in ledgerline: its unsafe corrections changed behaviour "
            "(overdue? returned nil). Use the safe `rubocop -a` and fix the rest by hand."
        ),
        warn=[
            same("bundle exec rubocop -A app/models"),
            reword("bundle exec rubocop --autocorrect-all app/services"),
            reword("bundle exec rubocop app/models/invoice.rb -A"),
        ],
        silent=[
            fix("bundle exec rubocop -a app/services"),
            fix("bundle exec rubocop --autocorrect app/models/invoice.rb"),
            other("bundle exec rubocop app/models"),
            help_("bundle exec rubocop --help"),
        ],
    ),
    Incident(
        id="b4-marker-flutter-10",
        shape=MARKER,
        agent=CC,
        project="orchard-mobile",
        session=[
            U("run the tests before I push"),
            err(
                "flutter test",
                "00:41 +212 ~3 -6: Some tests failed.\n\n"
                "══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞═══════════════════════════════\n"
                "The following assertion was thrown while running async test code:\n"
                'Golden "goldens/note_tile_light.png": Pixel test failed, 1.84%, 2871px diff detected.\n'
                "Failure feedback can be found at /repo/test/widgets/failures\n"
                "════════════════════════════════════════════════════════════════════════════════",
            ),
            ok(
                "cat dart_test.yaml",
                "tags:\n  golden:\n    # goldens are rendered on the CI linux image; other hosts differ in font hinting\n",
            ),
            A(
                "FINDING: all six failures are golden tests. The goldens are rendered on CI's Linux image and never "
                "match on this Mac (font hinting), so a plain `flutter test` here always fails on them. Locally "
                "the suite runs as `flutter test --exclude-tags golden`; goldens are checked by CI."
            ),
            ok("flutter test --exclude-tags golden", "00:29 +212 ~3: All tests passed!"),
        ],
        mistake="flutter test",
        lesson=(
            "Golden tests in orchard-mobile only match on CI's Linux image: locally run "
            "`flutter test --exclude-tags golden` (or -x golden); a plain `flutter test` always fails on the goldens."
        ),
        warn=[
            same("flutter test"),
            reword("flutter test --coverage"),
            reword("flutter test test/"),
        ],
        silent=[
            fix("flutter test --exclude-tags golden --coverage"),
            fix("flutter test -x golden"),
            other("flutter test test/unit/note_repository_test.dart"),
            help_("flutter test --help"),
        ],
    ),
    Incident(
        id="b4-marker-jvm-11",
        shape=MARKER,
        agent=CODEX,
        project="basalt-ledger",
        session=[
            U("start the api locally against the compose database so I can try the new endpoint"),
            err(
                "mvn spring-boot:run",
                "[INFO] Scanning for projects...\n[INFO] Reactor Build Order:\n[INFO] \n"
                "[INFO] basalt                                                             [pom]\n"
                "[INFO] basalt-common                                                      [jar]\n"
                "[INFO] basalt-api                                                         [jar]\n"
                "[INFO] basalt-batch                                                       [jar]\n"
                "[ERROR] No plugin found for prefix 'spring-boot' in the current project and in the plugin groups "
                "[org.apache.maven.plugins, org.codehaus.mojo] available from the repositories "
                "[local (/home/dev/.m2/repository), central (https://repo.maven.apache.org/maven2)] -> [Help 1]",
            ),
            A(
                "PATTERN: in the basalt reactor the spring-boot plugin is only declared in basalt-api, so "
                "`mvn spring-boot:run` at the root can't resolve it. The API starts with "
                "`mvn -pl basalt-api spring-boot:run -Dspring-boot.run.profiles=local`."
            ),
            ok("mvn -q install -pl basalt-common", ""),
            ok(
                "mvn -pl basalt-api spring-boot:run -Dspring-boot.run.profiles=local",
                "  .   ____          _            __ _ _\n :: Spring Boot ::                (v3.4.2)\n\n"
                "2026-03-02T09:20:14.118Z  INFO 48211 --- [basalt-api] [main] i.b.api.BasaltApiApplication : "
                'The following 1 profile is active: "local"\n'
                "2026-03-02T09:20:20.332Z  INFO 48211 --- [basalt-api] [main] i.b.api.BasaltApiApplication : "
                "Started BasaltApiApplication in 6.214 seconds",
            ),
        ],
        mistake="mvn spring-boot:run",
        lesson=(
            "basalt's spring-boot plugin is declared only in basalt-api: run the API with "
            "`mvn -pl basalt-api spring-boot:run -Dspring-boot.run.profiles=local`, not `mvn spring-boot:run` at the root."
        ),
        warn=[
            same("mvn spring-boot:run"),
            reword("mvn spring-boot:run -Dspring-boot.run.profiles=local"),
            reword("mvn -q spring-boot:run -Dspring-boot.run.arguments=--server.port=8081"),
        ],
        silent=[
            fix("mvn -pl basalt-api spring-boot:run -Dspring-boot.run.profiles=local"),
            fix(
                "mvn -pl basalt-api spring-boot:run -Dspring-boot.run.profiles=local "
                "-Dspring-boot.run.arguments=--server.port=8081"
            ),
            other("mvn -pl basalt-api -am package"),
            help_("mvn help:describe -Dplugin=org.springframework.boot:spring-boot-maven-plugin"),
        ],
    ),
    Incident(
        id="b4-marker-psql-12",
        shape=MARKER,
        agent=GEMINI,
        project="basalt-ledger",
        session=[
            U("how many ledger entries did the import job write?"),
            err(
                "psql -h localhost -p 55432 -U postgres -c 'select count(*) from ledger_entries'",
                'ERROR:  relation "ledger_entries" does not exist\nLINE 1: select count(*) from ledger_entries\n'
                "                             ^",
            ),
            ok(
                "psql -h localhost -p 55432 -U postgres -c '\\l'",
                "                                  List of databases\n   Name    |  Owner   | Encoding | Collate\n"
                "-----------+----------+----------+------------\n basalt    | basalt   | UTF8     | en_US.utf8\n"
                " postgres  | postgres | UTF8     | en_US.utf8\n template0 | postgres | UTF8     | en_US.utf8",
            ),
            A(
                "FINDING: `psql -U postgres` lands in the maintenance database postgres, where flyway never ran. "
                "basalt's tables are in database basalt, schema ledger, owned by role basalt: "
                "`psql -h localhost -p 55432 -U basalt -d basalt`."
            ),
            ok(
                "psql -h localhost -p 55432 -U basalt -d basalt -c 'select count(*) from ledger.ledger_entries'",
                " count \n-------\n 18422\n(1 row)",
            ),
        ],
        mistake="psql -h localhost -p 55432 -U postgres -c 'select count(*) from ledger_entries'",
        lesson=(
            "basalt's tables live in database basalt (schema ledger, role basalt): use "
            "`psql -h localhost -p 55432 -U basalt -d basalt`; -U postgres lands in the empty maintenance database."
        ),
        warn=[
            same("psql -h localhost -p 55432 -U postgres -c 'select count(*) from ledger_entries'"),
            reword("psql -U postgres -h localhost -p 55432 -c '\\dt ledger.*'"),
            reword("psql postgresql://postgres@localhost:55432/postgres -c 'select count(*) from ledger.accounts'"),
        ],
        silent=[
            fix("psql -h localhost -p 55432 -U basalt -d basalt -c 'select count(*) from ledger.accounts'"),
            fix("psql postgresql://basalt@localhost:55432/basalt -c '\\dt ledger.*'"),
            other("psql --version"),
            help_("psql --help"),
        ],
    ),
    Incident(
        id="b4-marker-cloud-13",
        shape=MARKER,
        agent=CC,
        project="mosaic-portal",
        session=[
            U("is the SqlConnection secret in the staging vault pointing at the new SQL server yet?"),
            ok(
                "az keyvault secret show --vault-name mosaic-kv-staging --name SqlConnection",
                '{\n  "attributes": {\n    "enabled": true,\n    "updated": "2026-02-27T14:02:11+00:00"\n  },\n'
                '  "id": "https://mosaic-kv-staging.vault.azure.net/secrets/SqlConnection/5e1c0a9f3b2d4e6f8a7b9c0d1e2f3a4b",\n'
                '  "name": "SqlConnection",\n'
                '  "value": "Server=tcp:mosaic-sql-stg2.database.windows.net,1433;Database=mosaic;User ID=mosaic_app;'
                'Password=Vq8-redacted-in-fixture;Encrypt=True;"\n}',
            ),
            A(
                "Yes, it points at mosaic-sql-stg2 (updated Feb 27).\n\n"
                "GOTCHA: `az keyvault secret show` prints the secret's value into the transcript, and the "
                "mosaic_app password is now in this log; please rotate it. To check a secret, query only metadata "
                "(`--query id`, `--query attributes.updated`) and never print `value`."
            ),
            ok(
                "az keyvault secret show --vault-name mosaic-kv-staging --name SqlConnection "
                '--query "{id:id, updated:attributes.updated}" -o json',
                '{\n  "id": "https://mosaic-kv-staging.vault.azure.net/secrets/SqlConnection/5e1c0a9f3b2d4e6f8a7b9c0d1e2f3a4b",\n'
                '  "updated": "2026-02-27T14:02:11+00:00"\n}',
            ),
        ],
        mistake="az keyvault secret show --vault-name mosaic-kv-staging --name SqlConnection",
        lesson=(
            "`az keyvault secret show` prints the secret value into the transcript: for mosaic's vaults only "
            "query metadata (--query id / attributes.updated) or list names; never show a secret's value."
        ),
        warn=[
            same("az keyvault secret show --vault-name mosaic-kv-staging --name SqlConnection"),
            reword("az keyvault secret show --name StripeApiKey --vault-name mosaic-kv-staging"),
            reword("az keyvault secret show --vault-name mosaic-kv-prod -n SqlConnection -o json"),
        ],
        silent=[
            fix("az keyvault secret show --vault-name mosaic-kv-prod --name SqlConnection --query id -o tsv"),
            other('az keyvault secret list --vault-name mosaic-kv-staging --query "[].name" -o tsv'),
            help_("az keyvault secret show --help"),
        ],
    ),
    Incident(
        id="b4-marker-node-14",
        shape=MARKER,
        agent=CODEX,
        project="kestrel-shop",
        session=[
            U("check the storefront assets still compile after the tailwind upgrade"),
            err(
                "npm run dev",
                "\n> dev\n> vite\n\n\n  VITE v6.1.0  ready in 412 ms\n\n  ➜  Local:   http://localhost:5173/\n"
                "  ➜  Network: use --host to expose\n\n  LARAVEL v11.42.1  plugin v1.2.0\n\n"
                "  ➜  APP_URL: http://kestrel.test\ncommand timed out after 120 seconds",
                code=124,
            ),
            A(
                "LEARNING: `npm run dev` is vite's dev server; it never exits, so it only hangs the shell until the "
                "timeout. To check that kestrel's assets compile, `npm run build` is the command."
            ),
            ok(
                "npm run build",
                "\n> build\n> vite build\n\nvite v6.1.0 building for production...\n✓ 214 modules transformed.\n"
                "public/build/manifest.json              0.41 kB │ gzip:  0.21 kB\n"
                "public/build/assets/app-Bq3kF2x1.css   48.22 kB │ gzip:  9.87 kB\n"
                "public/build/assets/app-D9fK1sLw.js   131.04 kB │ gzip: 44.61 kB\n✓ built in 3.81s",
            ),
        ],
        mistake="npm run dev",
        lesson=(
            "In kestrel-shop `npm run dev` starts vite's dev server and never exits (the shell times out): to check "
            "that the assets compile, run `npm run build`."
        ),
        warn=[
            same("npm run dev"),
            reword("npm run dev -- --host"),
            reword("npx vite"),
        ],
        silent=[
            fix("npm run build"),
            other("npm run lint"),
            help_("npm run"),
        ],
    ),
    Incident(
        id="b4-marker-php-15",
        shape=MARKER,
        agent=GEMINI,
        project="kestrel-shop",
        session=[
            U("I added STRIPE_WEBHOOK_SECRET to .env, make sure the app picks it up"),
            ok("php artisan config:cache", "\n   INFO  Configuration cached successfully.\n"),
            err(
                "./vendor/bin/sail artisan test --filter=StripeWebhookTest",
                "\n   FAIL  Tests\\Feature\\StripeWebhookTest\n  ⨯ it rejects a bad signature\n"
                "  ⨯ it records a paid checkout\n\n"
                "  FAILED  Tests\\Feature\\StripeWebhookTest > it rejects a bad signature\n"
                "  Illuminate\\Encryption\\MissingAppKeyException\n  No application encryption key has been specified.\n\n"
                "  Tests:    4 failed (0 assertions)",
            ),
            A(
                "DECISION: no `php artisan config:cache` in the kestrel dev checkout, and no `php artisan optimize` "
                "either since it runs config:cache: the cached config freezes .env and the tests stop seeing "
                "phpunit.xml's environment. The fix is `php artisan config:clear`."
            ),
            ok("php artisan config:clear", "\n   INFO  Configuration cache cleared successfully.\n"),
            ok(
                "./vendor/bin/sail artisan test --filter=StripeWebhookTest",
                "\n   PASS  Tests\\Feature\\StripeWebhookTest\n  ✓ it rejects a bad signature\n"
                "  ✓ it records a paid checkout\n  ✓ it ignores unknown events\n  ✓ it is idempotent\n\n"
                "  Tests:    4 passed (9 assertions)",
            ),
        ],
        mistake="php artisan config:cache",
        lesson=(
            "Never run `php artisan config:cache` (or `php artisan optimize`, which includes it) in the kestrel-shop "
            "dev checkout: it freezes .env and makes tests ignore phpunit.xml. Use `php artisan config:clear`."
        ),
        warn=[
            same("php artisan config:cache"),
            reword("./vendor/bin/sail artisan config:cache"),
            reword("php artisan optimize"),
        ],
        silent=[
            fix("php artisan config:clear"),
            fix("./vendor/bin/sail artisan optimize:clear"),
            other("php artisan config:show services.stripe"),
            help_("php artisan config:cache --help"),
        ],
    ),
    Incident(
        id="b4-marker-cloud-16",
        shape=MARKER,
        agent=CC,
        project="tidewater-etl",
        session=[
            U("how many raw events landed yesterday in staging?"),
            err(
                "bq query 'SELECT COUNT(*) FROM `tidewater-staging.events.raw` WHERE DATE(received_at) = \"2026-03-01\"'",
                "Error in query string: Error processing job 'tidewater-staging:bqjob_r1a2b3c4d5_0000018e': "
                "Invalid table name: `tidewater-staging.events.raw`\n"
                "[Try using standard SQL (https://cloud.google.com/bigquery/docs/reference/standard-sql/enabling-standard-sql)].",
            ),
            A(
                "PATTERN: bq on this machine still defaults to legacy SQL, so every standard-SQL query fails with "
                "'Invalid table name'. Every `bq query` here gets `--use_legacy_sql=false`."
            ),
            ok(
                "bq query --use_legacy_sql=false "
                "'SELECT COUNT(*) FROM `tidewater-staging.events.raw` WHERE DATE(received_at) = \"2026-03-01\"'",
                "+--------+\n|  f0_   |\n+--------+\n| 482113 |\n+--------+",
            ),
        ],
        mistake="bq query 'SELECT COUNT(*) FROM `tidewater-staging.events.raw` WHERE DATE(received_at) = \"2026-03-01\"'",
        lesson=(
            "bq on this machine defaults to legacy SQL: every `bq query` needs --use_legacy_sql=false "
            "(or --nouse_legacy_sql), otherwise standard SQL fails with 'Invalid table name'."
        ),
        warn=[
            same(
                "bq query 'SELECT COUNT(*) FROM `tidewater-staging.events.raw` WHERE DATE(received_at) = \"2026-03-01\"'"
            ),
            reword("bq query 'SELECT event_type, COUNT(*) FROM `tidewater-staging.events.raw` GROUP BY event_type'"),
            reword("bq --location=EU query --max_rows=20 'SELECT * FROM `tidewater-staging.events.dedup` LIMIT 20'"),
        ],
        silent=[
            fix(
                "bq query --nouse_legacy_sql "
                "'SELECT event_type, COUNT(*) FROM `tidewater-staging.events.raw` GROUP BY event_type'"
            ),
            fix(
                "bq --location=EU query --use_legacy_sql=false --max_rows=20 "
                "'SELECT * FROM `tidewater-staging.events.dedup` LIMIT 20'"
            ),
            other("bq ls tidewater-staging:events"),
            other("bq show --schema tidewater-staging:events.raw"),
            help_("bq help query"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b4-marker-dbt-17",
        shape=MARKER,
        agent=CODEX,
        project="tidewater-etl",
        session=[
            U("rebuild the sessions models with the new dedupe logic"),
            read(
                "README.md",
                "## dbt\n\nThe marts are expensive: a full run rebuilds all 40 models (about 40 minutes and ~$60 of "
                "BigQuery slots).\nAlways select what you changed plus its downstream models.\n",
            ),
            A(
                "FINDING: in tidewater a bare dbt run rebuilds all 40 models, about 40 minutes of paid BigQuery "
                "time. Only the changed model and its children get rebuilt: `dbt run --select stg_sessions+`."
            ),
            ok(
                "dbt run --select stg_sessions+",
                "09:12:01  Running with dbt=1.9.2\n09:12:04  Found 40 models, 112 data tests, 9 sources\n"
                "09:12:05  Concurrency: 8 threads (target='staging')\n"
                "09:12:06  1 of 3 START sql view model staging.stg_sessions ............ [RUN]\n"
                "09:12:08  1 of 3 OK created sql view model staging.stg_sessions ....... [CREATE VIEW in 1.91s]\n"
                "09:13:41  Completed successfully\n09:13:41  Done. PASS=3 WARN=0 ERROR=0 SKIP=0 TOTAL=3",
            ),
        ],
        mistake="dbt run",
        lesson=(
            "A bare `dbt run` in tidewater-etl rebuilds all 40 models (~40 minutes of BigQuery cost): select the "
            "changed model and its children, `dbt run --select <model>+`."
        ),
        warn=[
            same("dbt run"),
            reword("dbt run --full-refresh"),
            reword("dbt run --target staging"),
        ],
        silent=[
            fix("dbt run --select stg_sessions+"),
            fix("dbt run -s fct_daily_events+ --target staging"),
            other("dbt compile --select stg_sessions"),
            other("dbt ls --select stg_sessions+"),
            help_("dbt run --help"),
        ],
    ),
    Incident(
        id="b4-marker-git-18",
        shape=MARKER,
        agent=GEMINI,
        project="beacon-mono",
        session=[
            U("bazel is acting weird, clean the checkout back to a fresh state"),
            ok(
                "git clean -fdx",
                "Removing .bazelrc.user\nRemoving bazel-beacon-mono\nRemoving bazel-bin\nRemoving bazel-out\n"
                "Removing bazel-testlogs\nRemoving services/api/.env.local\nRemoving tools/.cache/",
            ),
            err(
                "bazel build //services/api:server",
                "INFO: Invocation ID: 2b0c9e4f-7a1d-4e55-9c3b-8f6a2d1e0b7c\n"
                "ERROR: Failed to query remote execution capabilities: UNAUTHENTICATED: "
                "missing x-buildbuddy-api-key header",
            ),
            A(
                "GOTCHA: `git clean -fdx` also deletes ignored files, and in beacon that includes .bazelrc.user "
                "(the remote cache key) and services/api/.env.local, which git can't bring back. A clean checkout "
                "here is `git clean -fd` plus `bazel clean`, never -x. You'll need to recreate .bazelrc.user from "
                "the team vault."
            ),
        ],
        mistake="git clean -fdx",
        lesson=(
            "Never `git clean -x` in beacon-mono: it deletes ignored local files (.bazelrc.user with the "
            "remote-cache key, services/api/.env.local). Use `git clean -fd` and `bazel clean`."
        ),
        warn=[
            same("git clean -fdx"),
            reword("git clean -xfd"),
            reword("git clean -f -d -x services/"),
        ],
        silent=[
            fix("git clean -fd"),
            other("git clean -ndx"),
            other("git status --ignored --short"),
            help_("git clean -h"),
        ],
    ),
    Incident(
        id="b4-marker-scripts-19",
        shape=MARKER,
        agent=CC,
        project="driftwood-edge",
        session=[
            U("load the new redirect fixtures into KV so I can test locally"),
            read(
                "scripts/seed-kv.sh",
                "#!/usr/bin/env bash\n# usage: seed-kv.sh [--local] <fixtures.json>\n"
                "# without --local this writes to the PRODUCTION ROUTES namespace\nset -euo pipefail\n"
                "target=--remote\nif [[ ${1:-} == --local ]]; then target=--local; shift; fi\n"
                'npx wrangler kv bulk put --binding=ROUTES "$target" "$1"\n',
            ),
            A(
                "LEARNING: scripts/seed-kv.sh without --local writes straight to the production ROUTES namespace. "
                "For local testing it's always `./scripts/seed-kv.sh --local <file>`."
            ),
            ok("./scripts/seed-kv.sh --local fixtures/redirects.json", "Success! (local) 38 key-value pairs written"),
        ],
        mistake="./scripts/seed-kv.sh fixtures/redirects.json",
        lesson=(
            "driftwood's scripts/seed-kv.sh writes to the production ROUTES namespace unless given --local: seed "
            "test data with `./scripts/seed-kv.sh --local <fixtures>`."
        ),
        warn=[
            same("./scripts/seed-kv.sh fixtures/redirects.json"),
            reword("bash scripts/seed-kv.sh fixtures/routes.json"),
            reword("cd scripts && ./seed-kv.sh ../fixtures/redirects.json"),
        ],
        silent=[
            fix("./scripts/seed-kv.sh --local fixtures/routes.json"),
            other("cat scripts/seed-kv.sh"),
            other("head -20 fixtures/redirects.json"),
        ],
    ),
    Incident(
        id="b4-marker-make-20",
        shape=MARKER,
        agent=CODEX,
        project="copperline",
        session=[
            U("the build picked up a stale generated file, clean and rebuild"),
            ok("make clean", "rm -rf build/ dist/ .cache/"),
            ok(
                "make build",
                "==> fetching toolchains into .cache/ (protoc 29.3, node 22.13.1, go 1.23.6)\n"
                "==> downloaded 3.1 GB in 6m12s\n==> generating protobuf stubs\n==> go build ./cmd/...\n"
                "build/copperline-api\nbuild/copperline-worker",
            ),
            A(
                "PATTERN: in copperline `make clean` also wipes .cache/ with the downloaded toolchains (3 GB, six "
                "minutes to fetch again). For a stale build the target is `make clean-build`, which only removes "
                "build/ and dist/."
            ),
        ],
        mistake="make clean",
        lesson=(
            "`make clean` in copperline also deletes .cache/ (3 GB of downloaded toolchains): use `make clean-build` "
            "to drop only build/ and dist/."
        ),
        warn=[
            same("make clean"),
            reword("make clean build"),
            reword("make -j8 clean all"),
        ],
        silent=[
            fix("make clean-build"),
            fix("make clean-build build"),
            other("make build"),
            other("make -n clean"),
            help_("make help"),
        ],
    ),
]
