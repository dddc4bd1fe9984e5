"""Sealed split, shape 4 (part a): a test run fails, the agent changes something (code, a flag, an env var), the test passes."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    TEST_FIX,
    A,
    E,
    Incident,
    U,
    W,
    code,
    edit,
    err,
    fix,
    ok,
    other,
    read,
    reword,
    same,
    write,
)
from ._eco import eco

_NAMES_OLD = "func (r *Registry) Len() int {"
_NAMES_BAD = ("func (r *Registry) Names() []string {\n\tnames := make([]string, 0, len(r.plugins))\n"
              "\tfor name := range r.plugins {\n\t\tnames = append(names, name)\n\t}\n\treturn names\n}\n\n"
              "func (r *Registry) Len() int {")
_LABELS_OLD = "func labelKeys(l map[string]string) []string {\n\treturn nil\n}"

_OVERDUE_BAD = "  def overdue?\n    publish_on.present? && published_at.nil? && publish_on < Date.today\n  end\n\n  def published?\n"
_NEWSLETTER_OLD = "  def due?\n    scheduled?\n  end"

_DLQ = ("resource \"aws_sqs_queue\" \"dlq\" {\n  name                      = \"${var.name}-dlq\"\n"
        "  message_retention_seconds = 1209600\n  tags                      = var.tags\n}\n")
_ALARM_OLD = "  alarm_actions       = [var.sns_topic_arn]\n}"

_SETTLED = ("-- migrate:up\nALTER TABLE ledger_entries ADD COLUMN settled boolean NOT NULL;\n\n"
            "-- migrate:down\nALTER TABLE ledger_entries DROP COLUMN settled;\n")
_MAKE_TEST_HEAD = ("dbmate --env-file .env.test drop\nDropping: copperline_test\ndbmate --env-file .env.test up\n"
                   "Creating: copperline_test\nApplying: 20251104120000_create_tenants.sql\n"
                   "Applying: 20251104121500_create_ledger_entries.sql\nApplying: 20260110083000_seed_demo_ledger.sql\n"
                   "Applying: 20260302090000_add_settled_to_ledger_entries.sql\n")

_INVOICE_TEST = (
    "import { render, screen } from \"@testing-library/react\";\n"
    "import userEvent from \"@testing-library/user-event\";\n"
    "import { InvoiceForm } from \"./InvoiceForm\";\n\n"
    "test(\"shows a toast after saving\", async () => {\n"
    "  const user = userEvent.setup();\n"
    "  render(<InvoiceForm />);\n"
    "  user.type(screen.getByLabelText(\"Customer\"), \"Acme GmbH\");\n"
    "  user.click(screen.getByRole(\"button\", { name: \"Save\" }));\n"
    "  expect(await screen.findByText(\"Saved\")).toBeInTheDocument();\n"
    "});\n"
)
_PICKER_OLD = "  render(<CustomerPicker customers={customers} onSelect={onSelect} />);\n"

_PYTEST_HEAD = ("============================= test session starts ==============================\n"
                "platform linux -- Python 3.12.8, pytest-8.3.4, pluggy-1.5.0\n"
                "rootdir: /home/dev/nimbus-etl\nconfigfile: pyproject.toml\ncollected 6 items\n\n")

_USAGE_BAD = ("use serde::Serialize;\n\n#[derive(Serialize)]\npub struct BucketUsage {\n"
              "    pub object_count: u64,\n    pub total_bytes: u64,\n}\n")

_FEES = (
    "package com.quayside.billing;\n\nimport java.math.BigDecimal;\nimport java.math.RoundingMode;\n\n"
    "public final class FeeCalculator {\n"
    "    private static final BigDecimal RATE = new BigDecimal(0.0015);\n"
    "    private static final BigDecimal MINIMUM = new BigDecimal(2.50);\n\n"
    "    public BigDecimal fee(BigDecimal shipmentValue) {\n"
    "        BigDecimal fee = shipmentValue.multiply(RATE);\n"
    "        return fee.max(MINIMUM);\n"
    "    }\n}\n"
)
_SURCHARGE_OLD = "    private static final BigDecimal FUEL = BigDecimal.ZERO;"

_RATELIMITER = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ratelimiter\n  namespace: edge\nspec:\n  replicas: 2\n"
    "  selector:\n    matchLabels:\n      app: ratelimiter\n  template:\n    metadata:\n      labels:\n        app: ratelimiter\n"
    "    spec:\n      containers:\n        - name: ratelimiter\n          image: ghcr.io/kestrel/ratelimiter:0.6.0\n"
    "          ports:\n            - containerPort: 8081\n"
)
_LIMITS = ("          resources:\n            requests:\n              cpu: 100m\n              memory: 64Mi\n"
           "            limits:\n              memory: 128Mi\n")
_AUDIT_CRON = (
    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: audit-export\n  namespace: edge\nspec:\n"
    "  schedule: \"15 3 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
    "          restartPolicy: OnFailure\n          containers:\n            - name: audit-export\n"
    "              image: ghcr.io/kestrel/audit-export:1.2.0\n              args: [\"--since\", \"24h\"]\n"
)
_AUDIT_LIMITS = ("              resources:\n                requests:\n                  cpu: 50m\n"
                 "                limits:\n                  memory: 256Mi\n")

_SYNC_OLD = "  process \"$f\"\ndone"
_SYNC_BAD = "  process \"$f\"\n  if [ -n \"$ARCHIVE_DIR\" ]; then\n    mv $f $ARCHIVE_DIR/\n  fi\ndone"

INCIDENTS = [
    eco("go", Incident(
        "s-tf-gridkeeper-map-order", TEST_FIX, CC, "gridkeeper",
        session=[
            U("Add a Names() method to the plugin registry listing the registered plugins; /plugins will use it."),
            edit("internal/plugins/registry.go", _NAMES_OLD, _NAMES_BAD),
            err("go test ./internal/plugins/...",
                "--- FAIL: TestRegistryNames (0.00s)\n"
                "    registry_test.go:38: Names() = [webhook cron backup], want [backup cron webhook]\n"
                "FAIL\nFAIL\tgithub.com/gridkeeper/gridkeeper/internal/plugins\t0.014s\nFAIL", 1),
            edit("internal/plugins/registry.go",
                 "\tnames := make([]string, 0, len(r.plugins))\n\tfor name := range r.plugins {\n"
                 "\t\tnames = append(names, name)\n\t}\n\treturn names",
                 "\treturn slices.Sorted(maps.Keys(r.plugins))"),
            ok("go test ./internal/plugins/...", "ok  \tgithub.com/gridkeeper/gridkeeper/internal/plugins\t0.011s"),
            A("Go randomises map iteration order, so Names() came back shuffled. It now returns "
              "`slices.Sorted(maps.Keys(r.plugins))`."),
        ],
        mistake="for name := range r.plugins { names = append(names, name) }; return names",
        lesson="gridkeeper: never return a slice built by ranging over a map (random order: tests and API output flake); "
               "return slices.Sorted(maps.Keys(m)).",
        warn=[same(E("internal/plugins/registry.go", _NAMES_OLD, _NAMES_BAD)),
              reword(E("internal/api/labels.go", _LABELS_OLD,
                       "func labelKeys(l map[string]string) []string {\n\tkeys := []string{}\n\tfor k := range l {\n"
                       "\t\tkeys = append(keys, k)\n\t}\n\treturn keys\n}"))],
        silent=[fix(E("internal/api/labels.go", _LABELS_OLD,
                      "func labelKeys(l map[string]string) []string {\n\treturn slices.Sorted(maps.Keys(l))\n}")),
                code(E("internal/metrics/totals.go", "func total(counts map[string]int) int {\n\treturn 0\n}",
                       "func total(counts map[string]int) int {\n\tsum := 0\n\tfor _, n := range counts {\n"
                       "\t\tsum += n\n\t}\n\treturn sum\n}")),
                other("go test ./internal/plugins/...")],
    )),
    eco("ruby", Incident(
        "s-tf-quillpress-date-today", TEST_FIX, GEMINI, "quillpress",
        session=[
            U("Scheduled posts whose publish date has passed should show as overdue in the editor list. Add Post#overdue?."),
            edit("app/models/post.rb", "  def published?\n", _OVERDUE_BAD),
            err("bin/rails test test/models/post_test.rb",
                "Running 14 tests in a single process (parallelization threshold is 50)\nRun options: --seed 40122\n\n"
                "# Running:\n\n.......F......\n\nFailure:\n"
                "PostTest#test_overdue_uses_the_site_time_zone [test/models/post_test.rb:61]:\nExpected false to be truthy.\n\n"
                "bin/rails test test/models/post_test.rb:55\n\n"
                "Finished in 0.412s, 33.98 runs/s, 41.26 assertions/s.\n14 runs, 17 assertions, 1 failures, 0 errors, 0 skips", 1),
            read("test/models/post_test.rb",
                 "  test \"overdue uses the site time zone\" do\n"
                 "    # 00:30 on 3 March in Auckland is still 2 March in UTC\n"
                 "    travel_to Time.zone.local(2026, 3, 3, 0, 30) do\n"
                 "      assert posts(:scheduled_march_2).overdue?\n    end\n  end\n"),
            edit("app/models/post.rb", "publish_on < Date.today", "publish_on < Date.current"),
            ok("bin/rails test test/models/post_test.rb",
               "Running 14 tests in a single process (parallelization threshold is 50)\nRun options: --seed 7781\n\n"
               "# Running:\n\n..............\n\nFinished in 0.398s, 35.18 runs/s, 42.71 assertions/s.\n"
               "14 runs, 17 assertions, 0 failures, 0 errors, 0 skips"),
            A("`Date.today` uses the server's zone (UTC) while quillpress runs in `config.time_zone = \"Auckland\"`; "
              "`Date.current` uses the app zone."),
        ],
        mistake="Date.today",
        lesson="quillpress: config.time_zone is Auckland; compare dates with Date.current (Time.zone), never Date.today "
               "(the server's zone is UTC).",
        warn=[same(E("app/models/post.rb", "  def published?\n", _OVERDUE_BAD)),
              reword(E("app/models/newsletter.rb", _NEWSLETTER_OLD,
                       "  def due?\n    scheduled? && send_on <= Date.today\n  end"))],
        silent=[fix(E("app/models/newsletter.rb", _NEWSLETTER_OLD,
                      "  def due?\n    scheduled? && send_on <= Date.current\n  end")),
                code(E("app/models/post.rb", "  validates :title, presence: true",
                       "  validates :title, presence: true, length: { maximum: 120 }")),
                other("bin/rails test test/models/post_test.rb")],
        variants=("intervening",),
    )),
    eco("dotnet", Incident(
        "s-tf-sundial-invariant-culture", TEST_FIX, CODEX, "sundial-ledger",
        session=[
            U("Statements should show amounts like 1,234.50. Add a FormatAmount helper to Sundial.Core's Money class."),
            edit("src/Sundial.Core/Formatting/Money.cs", "public static class Money\n{\n",
                 "public static class Money\n{\n    public static string FormatAmount(decimal amount) => amount.ToString(\"N2\");\n\n"),
            err("dotnet test Sundial.sln --filter FullyQualifiedName~MoneyTests",
                "  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
                "  Sundial.Core -> /home/dev/sundial-ledger/src/Sundial.Core/bin/Debug/net8.0/Sundial.Core.dll\n"
                "  Sundial.Core.Tests -> /home/dev/sundial-ledger/tests/Sundial.Core.Tests/bin/Debug/net8.0/Sundial.Core.Tests.dll\n"
                "Test run for /home/dev/sundial-ledger/tests/Sundial.Core.Tests/bin/Debug/net8.0/Sundial.Core.Tests.dll (.NETCoreApp,Version=v8.0)\n"
                "Starting test execution, please wait...\n"
                "[xUnit.net 00:00:00.41]     Sundial.Core.Tests.Formatting.MoneyTests.FormatAmount_groups_thousands [FAIL]\n"
                "  Failed Sundial.Core.Tests.Formatting.MoneyTests.FormatAmount_groups_thousands [4 ms]\n"
                "  Error Message:\n   Assert.Equal() Failure: Strings differ\n"
                "           ↓ (pos 1)\nExpected: \"1,234.50\"\nActual:   \"1.234,50\"\n           ↓ (pos 1)\n"
                "  Stack Trace:\n     at Sundial.Core.Tests.Formatting.MoneyTests.FormatAmount_groups_thousands() in "
                "/home/dev/sundial-ledger/tests/Sundial.Core.Tests/Formatting/MoneyTests.cs:line 14\n\n"
                "Failed!  - Failed:     1, Passed:     6, Skipped:     0, Total:     7, Duration: 38 ms - Sundial.Core.Tests.dll (net8.0)", 1),
            edit("src/Sundial.Core/Formatting/Money.cs", "amount.ToString(\"N2\");",
                 "amount.ToString(\"N2\", CultureInfo.InvariantCulture);"),
            ok("dotnet test Sundial.sln --filter FullyQualifiedName~MoneyTests",
               "Passed!  - Failed:     0, Passed:     7, Skipped:     0, Total:     7, Duration: 31 ms - Sundial.Core.Tests.dll (net8.0)"),
            A("The dev box runs with LANG=de_DE.UTF-8, so `ToString(\"N2\")` used German separators; ledger output is "
              "culture-invariant now."),
        ],
        mistake="ToString(\"N2\")",
        lesson="sundial-ledger: format amounts with CultureInfo.InvariantCulture (ToString(\"N2\", CultureInfo.InvariantCulture)); "
               "a bare ToString(\"N2\") follows the machine's culture (de-DE here).",
        warn=[same(E("src/Sundial.Core/Formatting/Money.cs", "public static class Money\n{\n",
                     "public static class Money\n{\n    public static string FormatAmount(decimal amount) => amount.ToString(\"N2\");\n\n")),
              reword(E("src/Sundial.Core/Statements/StatementLine.cs", "    public string Balance => string.Empty;",
                       "    public string Balance => RunningBalance.ToString(\"N2\");"))],
        silent=[fix(E("src/Sundial.Core/Statements/StatementLine.cs", "    public string Balance => string.Empty;",
                      "    public string Balance => RunningBalance.ToString(\"N2\", CultureInfo.InvariantCulture);")),
                code(E("src/Sundial.Core/Statements/StatementLine.cs", "    public string Period => string.Empty;",
                       "    public string Period => PostedOn.ToString(\"yyyy-MM\", CultureInfo.InvariantCulture);")),
                other("dotnet test Sundial.sln --filter FullyQualifiedName~MoneyTests")],
    )),
    eco("terraform", Incident(
        "s-tf-saltmarsh-default-tags", TEST_FIX, CC, "saltmarsh-infra",
        session=[
            U("Add a dead-letter queue module for the queue drainer."),
            write("modules/dlq/main.tf", _DLQ),
            err("terraform test -filter=tests/dlq.tftest.hcl",
                "tests/dlq.tftest.hcl... in progress\n  run \"dlq_has_cost_tags\"... fail\n"
                "╷\n│ Error: Test assertion failed\n│ \n│   on tests/dlq.tftest.hcl line 9, in run \"dlq_has_cost_tags\":\n"
                "│    9:     condition     = module.drainer_dlq.queue_tags[\"CostCenter\"] == \"saltmarsh\"\n"
                "│     ├────────────────\n│     │ module.drainer_dlq.queue_tags is map of string with 1 element\n│ \n"
                "│ every resource must carry the default CostCenter/Owner tags\n╵\n"
                "tests/dlq.tftest.hcl... tearing down\ntests/dlq.tftest.hcl... fail\n\nFailure! 0 passed, 1 failed.", 1),
            read("modules/queue/main.tf",
                 "locals {\n  default_tags = { CostCenter = \"saltmarsh\", Owner = \"platform\" }\n}\n\n"
                 "resource \"aws_sqs_queue\" \"this\" {\n  name = var.name\n  tags = merge(local.default_tags, var.tags)\n}\n"),
            edit("modules/dlq/main.tf", "resource \"aws_sqs_queue\" \"dlq\" {",
                 "locals {\n  default_tags = { CostCenter = \"saltmarsh\", Owner = \"platform\" }\n}\n\nresource \"aws_sqs_queue\" \"dlq\" {"),
            edit("modules/dlq/main.tf", "  tags                      = var.tags",
                 "  tags                      = merge(local.default_tags, var.tags)"),
            ok("terraform test -filter=tests/dlq.tftest.hcl",
               "tests/dlq.tftest.hcl... in progress\n  run \"dlq_has_cost_tags\"... pass\n"
               "tests/dlq.tftest.hcl... tearing down\ntests/dlq.tftest.hcl... pass\n\nSuccess! 1 passed, 0 failed."),
            A("The other modules merge `local.default_tags` into `var.tags`; the DLQ does the same now."),
        ],
        mistake="tags = var.tags",
        lesson="saltmarsh-infra: every resource takes tags = merge(local.default_tags, var.tags); tags = var.tags drops the "
               "CostCenter/Owner tags and fails the tag tests.",
        warn=[same(W("modules/dlq/main.tf", _DLQ)),
              reword(E("modules/alarms/main.tf", _ALARM_OLD,
                       "  alarm_actions       = [var.sns_topic_arn]\n  tags                = var.tags\n}"))],
        silent=[fix(E("modules/alarms/main.tf", _ALARM_OLD,
                      "  alarm_actions       = [var.sns_topic_arn]\n  tags                = merge(local.default_tags, var.tags)\n}")),
                code(E("modules/dlq/main.tf", "  message_retention_seconds = 1209600", "  message_retention_seconds = 345600")),
                other("terraform test")],
        variants=("intervening",),
    )),
    eco("database", Incident(
        "s-tf-copperline-not-null-default", TEST_FIX, CC, "copperline",
        session=[
            U("Add a settled flag to ledger_entries. It must never be null."),
            write("db/migrations/20260302090000_add_settled_to_ledger_entries.sql", _SETTLED),
            err("make test",
                _MAKE_TEST_HEAD + "Error: pq: column \"settled\" of relation \"ledger_entries\" contains null values\n"
                "make: *** [Makefile:14: test] Error 1", 2),
            edit("db/migrations/20260302090000_add_settled_to_ledger_entries.sql",
                 "ADD COLUMN settled boolean NOT NULL;", "ADD COLUMN settled boolean NOT NULL DEFAULT false;"),
            ok("make test",
               _MAKE_TEST_HEAD + "Writing: ./db/schema.sql\npg_prove -d copperline_test db/tests/*.sql\n"
               "db/tests/ledger.sql ..... ok\ndb/tests/tenants.sql .... ok\nAll tests successful.\n"
               "Files=2, Tests=31,  1 wallclock secs ( 0.02 usr  0.00 sys +  0.04 cusr  0.01 csys =  0.07 CPU)\nResult: PASS"),
            A("The seed migration fills ledger_entries, so a NOT NULL column without a DEFAULT fails on the existing rows."),
        ],
        mistake="ALTER TABLE ... ADD COLUMN ... NOT NULL (without DEFAULT)",
        lesson="copperline: the seed migration fills the tables, so ADD COLUMN ... NOT NULL needs a DEFAULT "
               "(ADD COLUMN settled boolean NOT NULL DEFAULT false) or the migration fails on existing rows.",
        warn=[same(W("db/migrations/20260302090000_add_settled_to_ledger_entries.sql", _SETTLED)),
              reword(W("db/migrations/20260303101500_add_region_to_tenants.sql",
                       "-- migrate:up\nALTER TABLE tenants ADD COLUMN region text NOT NULL;\n\n"
                       "-- migrate:down\nALTER TABLE tenants DROP COLUMN region;\n"))],
        silent=[fix(W("db/migrations/20260303101500_add_region_to_tenants.sql",
                      "-- migrate:up\nALTER TABLE tenants ADD COLUMN region text NOT NULL DEFAULT 'eu';\n\n"
                      "-- migrate:down\nALTER TABLE tenants DROP COLUMN region;\n")),
                code(W("db/migrations/20260303110000_add_note_to_ledger_entries.sql",
                       "-- migrate:up\nALTER TABLE ledger_entries ADD COLUMN note text;\n\n"
                       "-- migrate:down\nALTER TABLE ledger_entries DROP COLUMN note;\n")),
                code(W("db/migrations/20260303120000_create_payouts.sql",
                       "-- migrate:up\nCREATE TABLE payouts (\n  id bigserial PRIMARY KEY,\n"
                       "  tenant_id bigint NOT NULL REFERENCES tenants(id),\n  amount_cents bigint NOT NULL\n);\n\n"
                       "-- migrate:down\nDROP TABLE payouts;\n")),
                other("make test")],
    )),
    eco("node", Incident(
        "s-tf-foxglove-await-user-event", TEST_FIX, CODEX, "foxglove-admin",
        session=[
            U("Write a test that saving the invoice form shows the 'Saved' toast."),
            write("src/components/InvoiceForm.test.tsx", _INVOICE_TEST),
            err("npx vitest run src/components/InvoiceForm.test.tsx",
                "\n RUN  v2.1.8 /home/dev/foxglove-admin\n\n"
                " ❯ src/components/InvoiceForm.test.tsx (1 test | 1 failed) 1043ms\n   × shows a toast after saving 1041ms\n"
                "     → Unable to find an element with the text: Saved. This could be because the text is broken up by "
                "multiple elements. In this case, you can provide a function for your text matcher to make your matcher more flexible.\n\n"
                "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  src/components/InvoiceForm.test.tsx > shows a toast after saving\n"
                "TestingLibraryElementError: Unable to find an element with the text: Saved.\n\n"
                "Ignored nodes: comments, script, style\n<body>\n  <div>\n    <form aria-label=\"Invoice\">\n"
                "      <p role=\"alert\">Customer is required</p>\n...\n\n Test Files  1 failed (1)\n      Tests  1 failed (1)", 1),
            edit("src/components/InvoiceForm.test.tsx",
                 "  user.type(screen.getByLabelText(\"Customer\"), \"Acme GmbH\");\n"
                 "  user.click(screen.getByRole(\"button\", { name: \"Save\" }));",
                 "  await user.type(screen.getByLabelText(\"Customer\"), \"Acme GmbH\");\n"
                 "  await user.click(screen.getByRole(\"button\", { name: \"Save\" }));"),
            ok("npx vitest run src/components/InvoiceForm.test.tsx",
               "\n RUN  v2.1.8 /home/dev/foxglove-admin\n\n ✓ src/components/InvoiceForm.test.tsx (1 test) 212ms\n\n"
               " Test Files  1 passed (1)\n      Tests  1 passed (1)"),
            A("user-event v14 calls return promises; without `await` the click ran before the typing finished, so "
              "validation rejected the empty customer."),
        ],
        mistake="user.type(...) / user.click(...) without await",
        lesson="foxglove-admin tests use @testing-library/user-event v14: await every user.* call (user.type, user.click, "
               "user.keyboard); un-awaited calls race and the test fails.",
        warn=[same(W("src/components/InvoiceForm.test.tsx", _INVOICE_TEST)),
              reword(E("src/components/CustomerPicker.test.tsx", _PICKER_OLD,
                       _PICKER_OLD + "  user.keyboard(\"{ArrowDown}{Enter}\");\n"))],
        silent=[fix(E("src/components/CustomerPicker.test.tsx", _PICKER_OLD,
                      _PICKER_OLD + "  await user.keyboard(\"{ArrowDown}{Enter}\");\n")),
                code(E("src/components/CustomerPicker.test.tsx", "  expect(onSelect).toHaveBeenCalledTimes(1);",
                       "  expect(onSelect).toHaveBeenCalledWith(customers[0]);")),
                code(E("src/components/InvoiceForm.test.tsx", "  expect(await screen.findByText(\"Saved\")).toBeInTheDocument();",
                       "  expect(await screen.findByText(\"Saved\")).toBeInTheDocument();\n"
                       "  fireEvent.click(screen.getByRole(\"button\", { name: \"Dismiss\" }));")),
                other("npx vitest run src/components/InvoiceForm.test.tsx")],
    )),
    eco("python", Incident(
        "s-tf-nimbus-gcs-emulator", TEST_FIX, GEMINI, "nimbus-etl",
        session=[
            U("Run the GCS sink integration tests, I changed the object naming."),
            err(".venv/bin/pytest tests/integration/test_gcs_sink.py",
                _PYTEST_HEAD + "tests/integration/test_gcs_sink.py EEEEEE                                 [100%]\n\n"
                "==================================== ERRORS ====================================\n"
                "_____________________ ERROR at setup of test_upload_names ______________________\n\n"
                "    @pytest.fixture(scope=\"session\")\n    def gcs_client():\n"
                ">       return storage.Client(project=\"nimbus-test\")\n\ntests/integration/conftest.py:14: \n"
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n"
                "E   google.auth.exceptions.DefaultCredentialsError: Your default credentials were not found. To set up "
                "Application Default Credentials, see https://cloud.google.com/docs/authentication/external/set-up-adc for more information.\n"
                "=========================== short test summary info ============================\n"
                "ERROR tests/integration/test_gcs_sink.py::test_upload_names - google.auth.exceptions.DefaultCredentialsError\n"
                "============================== 6 errors in 0.84s ===============================", 1),
            read("tests/integration/README.md",
                 "Integration tests run against fake-gcs-server (docker compose up -d gcs):\n\n"
                 "    STORAGE_EMULATOR_HOST=http://localhost:4443 .venv/bin/pytest tests/integration\n\n"
                 "Never point them at a real project.\n"),
            ok("STORAGE_EMULATOR_HOST=http://localhost:4443 .venv/bin/pytest tests/integration/test_gcs_sink.py",
               _PYTEST_HEAD + "tests/integration/test_gcs_sink.py ......                                 [100%]\n\n"
               "============================== 6 passed in 1.92s ==============================="),
        ],
        mistake=".venv/bin/pytest tests/integration/test_gcs_sink.py",
        lesson="nimbus-etl: the integration tests run against fake-gcs-server; run them with "
               "STORAGE_EMULATOR_HOST=http://localhost:4443 (without it they look for real GCP credentials).",
        warn=[same(".venv/bin/pytest tests/integration/test_gcs_sink.py"),
              reword(".venv/bin/python -m pytest -x tests/integration/test_gcs_sink.py::test_upload_names"),
              reword("source .venv/bin/activate && pytest tests/integration")],
        silent=[fix("STORAGE_EMULATOR_HOST=http://localhost:4443 .venv/bin/python -m pytest -x "
                    "tests/integration/test_gcs_sink.py::test_upload_names"),
                other(".venv/bin/pytest tests/unit -q"), other("docker compose up -d gcs")],
        variants=("intervening",),
    )),
    eco("rust", Incident(
        "s-tf-ferrocask-serde-camelcase", TEST_FIX, CC, "ferrocask",
        session=[
            U("Expose bucket usage in the admin API: GET /api/buckets/{name}/usage returning objectCount and totalBytes."),
            edit("src/api/usage.rs", "use serde::Serialize;\n", _USAGE_BAD),
            err("cargo test --features s3 --lib api::",
                "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n"
                "    Finished `test` profile [unoptimized + debuginfo] target(s) in 9.14s\n"
                "     Running unittests src/lib.rs (target/debug/deps/ferrocask-3f1e0a9c2b7d4e11)\n\n"
                "running 9 tests\n........F\nfailures:\n\n---- api::usage::tests::usage_json_shape stdout ----\n\n"
                "thread 'api::usage::tests::usage_json_shape' panicked at src/api/usage.rs:41:9:\n"
                "assertion `left == right` failed\n  left: \"{\\\"object_count\\\":3,\\\"total_bytes\\\":4096}\"\n"
                " right: \"{\\\"objectCount\\\":3,\\\"totalBytes\\\":4096}\"\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\n"
                "failures:\n    api::usage::tests::usage_json_shape\n\n"
                "test result: FAILED. 8 passed; 1 failed; 0 ignored; 0 measured; 31 filtered out; finished in 0.02s\n\n"
                "error: test failed, to rerun pass `--lib`", 101),
            edit("src/api/usage.rs", "#[derive(Serialize)]\npub struct BucketUsage {",
                 "#[derive(Serialize)]\n#[serde(rename_all = \"camelCase\")]\npub struct BucketUsage {"),
            ok("cargo test --features s3 --lib api::",
               "    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.02s\n"
               "     Running unittests src/lib.rs (target/debug/deps/ferrocask-3f1e0a9c2b7d4e11)\n\n"
               "running 9 tests\n.........\ntest result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 31 filtered out; finished in 0.02s"),
        ],
        mistake="#[derive(Serialize)] struct in src/api/ without #[serde(rename_all = \"camelCase\")]",
        lesson="ferrocask's admin API speaks camelCase JSON: every #[derive(Serialize)] struct in src/api/ needs "
               "#[serde(rename_all = \"camelCase\")].",
        warn=[same(E("src/api/usage.rs", "use serde::Serialize;\n", _USAGE_BAD)),
              reword(E("src/api/buckets.rs", "use serde::Serialize;\n",
                       "use serde::Serialize;\n\n#[derive(Debug, Serialize)]\npub struct BucketSummary {\n"
                       "    pub name: String,\n    pub created_at: String,\n    pub versioning_enabled: bool,\n}\n"))],
        silent=[fix(E("src/api/buckets.rs", "use serde::Serialize;\n",
                      "use serde::Serialize;\n\n#[derive(Debug, Serialize)]\n#[serde(rename_all = \"camelCase\")]\n"
                      "pub struct BucketSummary {\n    pub name: String,\n    pub created_at: String,\n"
                      "    pub versioning_enabled: bool,\n}\n")),
                code(E("src/store/index.rs", "struct IndexEntry {", "#[derive(Debug, Clone, PartialEq, Eq)]\nstruct IndexEntry {")),
                other("cargo test --features s3 --lib api::")],
    )),
    eco("java", Incident(
        "s-tf-quayside-bigdecimal-double", TEST_FIX, CODEX, "quayside",
        session=[
            U("Port the fee calculation: 0.15% of the shipment value, at least 2.50."),
            write("src/main/java/com/quayside/billing/FeeCalculator.java", _FEES),
            err("mvn test -Dtest=FeeCalculatorTest",
                "[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n"
                "[INFO] -------------------------------------------------------\n"
                "[INFO] Running com.quayside.billing.FeeCalculatorTest\n"
                "[ERROR] Tests run: 3, Failures: 2, Errors: 0, Skipped: 0, Time elapsed: 0.061 s <<< FAILURE! -- in com.quayside.billing.FeeCalculatorTest\n"
                "[ERROR] com.quayside.billing.FeeCalculatorTest.feeForLargeShipment -- Time elapsed: 0.009 s <<< FAILURE!\n"
                "org.opentest4j.AssertionFailedError: expected: <18.45> but was: "
                "<18.449999999999999615965811125863834720803424715995788574218750>\n"
                "\tat com.quayside.billing.FeeCalculatorTest.feeForLargeShipment(FeeCalculatorTest.java:21)\n"
                "[ERROR] com.quayside.billing.FeeCalculatorTest.minimumFee -- Time elapsed: 0.001 s <<< FAILURE!\n"
                "org.opentest4j.AssertionFailedError: expected: <2.50> but was: <2.5>\n"
                "[ERROR] Tests run: 3, Failures: 2, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n"
                "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.5.2:test (default-test) "
                "on project quayside: There are test failures.", 1),
            edit("src/main/java/com/quayside/billing/FeeCalculator.java",
                 "    private static final BigDecimal RATE = new BigDecimal(0.0015);\n"
                 "    private static final BigDecimal MINIMUM = new BigDecimal(2.50);",
                 "    private static final BigDecimal RATE = new BigDecimal(\"0.0015\");\n"
                 "    private static final BigDecimal MINIMUM = new BigDecimal(\"2.50\");"),
            edit("src/main/java/com/quayside/billing/FeeCalculator.java",
                 "        BigDecimal fee = shipmentValue.multiply(RATE);",
                 "        BigDecimal fee = shipmentValue.multiply(RATE).setScale(2, RoundingMode.HALF_UP);"),
            ok("mvn test -Dtest=FeeCalculatorTest",
               "[INFO] Running com.quayside.billing.FeeCalculatorTest\n"
               "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.052 s -- in com.quayside.billing.FeeCalculatorTest\n"
               "[INFO] BUILD SUCCESS"),
            A("`new BigDecimal(0.0015)` takes the binary double's exact value; money needs the String constructor and a scale."),
        ],
        mistake="new BigDecimal(0.0015)",
        lesson="quayside: never build a BigDecimal from a double literal (new BigDecimal(0.0015) is inexact); use "
               "new BigDecimal(\"0.0015\") or BigDecimal.valueOf, and setScale(2, RoundingMode.HALF_UP) for money.",
        warn=[same(W("src/main/java/com/quayside/billing/FeeCalculator.java", _FEES)),
              reword(E("src/main/java/com/quayside/billing/Surcharge.java", _SURCHARGE_OLD,
                       "    private static final BigDecimal FUEL = new BigDecimal(0.07);"))],
        silent=[fix(E("src/main/java/com/quayside/billing/Surcharge.java", _SURCHARGE_OLD,
                      "    private static final BigDecimal FUEL = new BigDecimal(\"0.07\");")),
                fix(E("src/main/java/com/quayside/billing/Surcharge.java", _SURCHARGE_OLD,
                      "    private static final BigDecimal FUEL = BigDecimal.valueOf(7, 2);")),
                code(E("src/main/java/com/quayside/billing/Invoice.java", "    private static final int CENTS = 100;",
                       "    private static final BigDecimal CENTS = new BigDecimal(100);")),
                other("mvn test -Dtest=FeeCalculatorTest")],
    )),
    eco("go", Incident(
        "s-tf-pebblemq-cgo-sqlite", TEST_FIX, CC, "pebblemq",
        session=[
            U("Run the store tests, I changed the sqlite schema."),
            err("go test ./internal/store/...",
                "--- FAIL: TestAppendAndRead (0.00s)\n"
                "    store_test.go:22: open store: Binary was compiled with 'CGO_ENABLED=0', go-sqlite3 requires cgo to work. This is a stub\n"
                "--- FAIL: TestCompaction (0.00s)\n"
                "    store_test.go:22: open store: Binary was compiled with 'CGO_ENABLED=0', go-sqlite3 requires cgo to work. This is a stub\n"
                "FAIL\nFAIL\tgithub.com/pebblemq/pebblemq/internal/store\t0.009s\nFAIL", 1),
            ok("go env CGO_ENABLED GOFLAGS", "0\n-trimpath"),
            ok("CGO_ENABLED=1 go test ./internal/store/...", "ok  \tgithub.com/pebblemq/pebblemq/internal/store\t1.284s"),
            A("This machine's go env has CGO_ENABLED=0 (set with `go env -w` for the static release builds); the sqlite "
              "store needs cgo, so its tests run with CGO_ENABLED=1."),
        ],
        mistake="go test ./internal/store/...",
        lesson="pebblemq: go env has CGO_ENABLED=0; tests that reach the go-sqlite3 store (./internal/store/..., ./...) "
               "need CGO_ENABLED=1 go test.",
        warn=[same("go test ./internal/store/..."), reword("go test -run TestCompaction -v ./internal/store"),
              reword("go test -count=1 ./...")],
        silent=[fix("CGO_ENABLED=1 go test -run TestCompaction -v ./internal/store"),
                other("go test ./internal/protocol/..."), other("gofmt -l .")],
        variants=("diagnostic",),
    )),
    eco("kubernetes", Incident(
        "s-tf-kestrel-conftest-resources", TEST_FIX, CODEX, "kestrel-ops",
        session=[
            U("Add a staging deployment for the rate-limiter service."),
            write("k8s/staging/ratelimiter.yaml", _RATELIMITER),
            err("conftest test k8s/staging",
                "FAIL - k8s/staging/ratelimiter.yaml - main - Deployment/ratelimiter: container \"ratelimiter\" has no resources.limits.memory\n"
                "FAIL - k8s/staging/ratelimiter.yaml - main - Deployment/ratelimiter: container \"ratelimiter\" has no resources.requests.cpu\n\n"
                "23 tests, 21 passed, 0 warnings, 2 failures, 0 exceptions", 1),
            edit("k8s/staging/ratelimiter.yaml", "            - containerPort: 8081\n",
                 "            - containerPort: 8081\n" + _LIMITS),
            ok("conftest test k8s/staging", "23 tests, 23 passed, 0 warnings, 0 failures, 0 exceptions"),
        ],
        mistake="a container without resources.requests.cpu / resources.limits.memory",
        lesson="kestrel-ops policy (conftest test k8s/...): every container needs resources.requests.cpu and "
               "resources.limits.memory.",
        warn=[same(W("k8s/staging/ratelimiter.yaml", _RATELIMITER)),
              reword(W("k8s/staging/audit-cron.yaml", _AUDIT_CRON))],
        silent=[fix(W("k8s/staging/audit-cron.yaml", _AUDIT_CRON + _AUDIT_LIMITS)),
                code(E("k8s/staging/ratelimiter.yaml", "  replicas: 2", "  replicas: 3")),
                other("conftest test k8s/staging")],
    )),
    eco("shell", Incident(
        "s-tf-owlpost-quote-paths", TEST_FIX, GEMINI, "owlpost",
        session=[
            U("Add an --archive DIR option to scripts/sync.sh that moves processed messages there."),
            edit("scripts/sync.sh", "  --dry-run) DRY_RUN=1; shift ;;",
                 "  --dry-run) DRY_RUN=1; shift ;;\n  --archive) ARCHIVE_DIR=\"$2\"; shift 2 ;;"),
            edit("scripts/sync.sh", _SYNC_OLD, _SYNC_BAD),
            err("bats test/sync.bats",
                "sync.bats\n ✓ syncs new messages\n ✓ --dry-run changes nothing\n ✗ --archive moves processed files\n"
                "   (in test file test/sync.bats, line 41)\n"
                "     `[ -f \"$BATS_TEST_TMPDIR/My Archive/0001.eml\" ]' failed\n"
                "   mv: cannot stat '/tmp/bats-run-3Xk2/test/3/My': No such file or directory\n"
                "   mv: target 'Archive/': No such file or directory\n\n3 tests, 1 failure", 1),
            edit("scripts/sync.sh", "    mv $f $ARCHIVE_DIR/", "    mv -- \"$f\" \"$ARCHIVE_DIR/\""),
            ok("bats test/sync.bats",
               "sync.bats\n ✓ syncs new messages\n ✓ --dry-run changes nothing\n ✓ --archive moves processed files\n\n3 tests, 0 failures"),
            A("The test mailbox is 'My Archive': unquoted `$f` / `$ARCHIVE_DIR` split on the space."),
        ],
        mistake="mv $f $ARCHIVE_DIR/ (unquoted variables in a command)",
        lesson="owlpost scripts get paths with spaces (mail folders like 'My Archive'): always double-quote variable "
               "expansions in commands (mv -- \"$f\" \"$ARCHIVE_DIR/\").",
        warn=[same(E("scripts/sync.sh", _SYNC_OLD, _SYNC_BAD)),
              reword(E("scripts/backup.sh", "echo \"backup done\"", "cp $MAILDIR/*.eml $BACKUP_DIR/\necho \"backup done\""))],
        silent=[fix(E("scripts/backup.sh", "echo \"backup done\"", "cp -- \"$MAILDIR\"/*.eml \"$BACKUP_DIR/\"\necho \"backup done\"")),
                code(E("scripts/sync.sh", "set -eu", "set -euo pipefail")),
                other("bats test/sync.bats"), other("shellcheck scripts/*.sh")],
    )),
]
