"""Sealed split, shape 4 (part b): a test run fails, the agent changes something (code, a flag, an env var), the test passes."""

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

_JOB_OLD = ("\tjob, err := h.store.Job(ctx, id)\n\tif err != nil {\n"
            "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)\n\t\treturn\n\t}")
_JOB_BAD = ("\tjob, err := h.store.Job(ctx, id)\n\tif err == store.ErrNotFound {\n"
            "\t\thttp.Error(w, \"job not found\", http.StatusNotFound)\n\t\treturn\n\t}\n\tif err != nil {\n"
            "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)\n\t\treturn\n\t}")
_PUSH_OLD = "\tif err := h.queue.Push(ctx, req.Job); err != nil {"
_PUSH_TAIL = ("\t\thttp.Error(w, \"queue full\", http.StatusTooManyRequests)\n\t\treturn\n"
              "\t} else if err != nil {")

_EXPORTER = (
    "# frozen_string_literal: true\n\nmodule Tallyho\n  class CsvExporter\n"
    "    HEADER = \"number,customer,total,due_on\\n\"\n\n"
    "    def initialize(invoices)\n      @invoices = invoices\n    end\n\n"
    "    def call\n      out = \"\"\n      out << HEADER\n      @invoices.each do |inv|\n"
    "        out << [inv.number, inv.customer_name, inv.total.to_s(\"F\"), inv.due_on.iso8601].join(\",\") << \"\\n\"\n"
    "      end\n      out\n    end\n  end\nend\n"
)

_REFUND_OLD = "        refund.Status = RefundStatus.Posted;"
_SETTLE_OLD = "        entry.Settled = true;"

_STATIONS_OLD = "def add_station(registry: Registry, name: str) -> Station:\n    station = Station(name=name)"
_STATIONS_BAD = ("def add_station(registry: Registry, name: str, tags: list[str] = []) -> Station:\n"
                 "    station = Station(name=name, tags=tags)")
_MERGE_OLD = "def merge_readings(batches: list[Batch]) -> dict[str, Reading]:\n    merged = {}"

_MEM_OLD = "#[cfg(test)]\nmod tests {\n    use super::*;\n"
_MEM_BAD = (_MEM_OLD + "\n    #[test]\n    async fn put_then_get_roundtrip() {\n"
            "        let store = MemoryStore::default();\n"
            "        store.put(\"a/b\", Bytes::from_static(b\"hi\")).await.unwrap();\n"
            "        assert_eq!(store.get(\"a/b\").await.unwrap(), Bytes::from_static(b\"hi\"));\n    }\n")
_S3_OLD = "use ferrocask::backend::s3::S3Store;\n"
_S3_TEST = ("async fn list_prefix_paginates() {\n    let store = S3Store::from_env().await.unwrap();\n"
            "    let page = store.list(\"logs/\", Some(2)).await.unwrap();\n    assert_eq!(page.items.len(), 2);\n}\n")

_PERIOD_OLD = "    public StatementPeriod currentPeriod() {\n        throw new UnsupportedOperationException();\n    }"
_PERIOD_BAD = ("    public StatementPeriod currentPeriod() {\n"
               "        YearMonth previous = YearMonth.from(LocalDate.now()).minusMonths(1);\n"
               "        return new StatementPeriod(previous.atDay(1), previous.atEndOfMonth());\n    }")
_STATEMENTS = "ledger/src/main/java/com/marrowbank/ledger/StatementService.java"
_ACCRUAL = "ledger/src/main/java/com/marrowbank/ledger/InterestAccrualService.java"

_STORE_FAIL = ("--- FAIL: TestMigrationsApply (0.00s)\n"
               "    store_test.go:31: connect: failed to connect to `user=lantern database=lantern_test`: "
               "127.0.0.1:5432 (localhost): dial error: dial tcp 127.0.0.1:5432: connect: connection refused\n"
               "--- FAIL: TestLeaseRenewal (0.00s)\n"
               "    store_test.go:31: connect: failed to connect to `user=lantern database=lantern_test`: "
               "127.0.0.1:5432 (localhost): dial error: dial tcp 127.0.0.1:5432: connect: connection refused\n"
               "FAIL\nFAIL\tgithub.com/lanternd/lanternd/internal/store\t0.012s\nFAIL")

_ACTIVE = ("-- migrate:up\nCREATE OR REPLACE FUNCTION active_tenants() RETURNS SETOF tenants\n"
           "LANGUAGE sql STABLE AS $$\n  SELECT * FROM tenants WHERE deleted_at = NULL ORDER BY name\n$$;\n\n"
           "-- migrate:down\nCREATE OR REPLACE FUNCTION active_tenants() RETURNS SETOF tenants\n"
           "LANGUAGE sql STABLE AS $$\n  SELECT * FROM tenants ORDER BY name\n$$;\n")
_LEDGER_Q = "WHERE tenant_id = sqlc.arg(tenant_id)"

_HC_OLD = "resource \"aws_route53_health_check\" \"api\" {\n"
_HC_BAD = _HC_OLD + "  count             = var.enable_health_check\n"
_MON_OLD = "resource \"aws_cloudfront_monitoring_subscription\" \"this\" {\n"

_SPEC_FAIL_HEAD = "F\n\nFailures:\n\n"

INCIDENTS = [
    eco("terraform", Incident(
        "s-tf-stratocum-module-test-fixtures", TEST_FIX, GEMINI, "stratocum",
        session=[
            U("I added a validation to the iam module's role names. Run its tests."),
            err("terraform -chdir=modules/iam test",
                "tests/roles.tftest.hcl... in progress\n  run \"rejects_uppercase_names\"... fail\n"
                "╷\n│ Error: No value for required variable\n│ \n│   on variables.tf line 1:\n│    1: variable \"account_id\" {\n│ \n"
                "│ The module under test requires a value for the \"account_id\" input variable. Assign a value using the "
                "variables block in the run block or the -var and -var-file options.\n╵\n"
                "  run \"accepts_service_names\"... skip\ntests/roles.tftest.hcl... tearing down\n"
                "tests/roles.tftest.hcl... fail\n\nFailure! 0 passed, 1 failed, 1 skipped.", 1),
            ok("ls modules/iam/tests", "fixtures.tfvars\nroles.tftest.hcl"),
            ok("terraform -chdir=modules/iam test -var-file=tests/fixtures.tfvars",
               "tests/roles.tftest.hcl... in progress\n  run \"rejects_uppercase_names\"... pass\n"
               "  run \"accepts_service_names\"... pass\ntests/roles.tftest.hcl... tearing down\n"
               "tests/roles.tftest.hcl... pass\n\nSuccess! 2 passed, 0 failed."),
            A("The module tests take their inputs from tests/fixtures.tfvars; both runs pass with it."),
        ],
        mistake="terraform -chdir=modules/iam test",
        lesson="stratocum: module tests need their fixture variables: terraform -chdir=modules/<module> test "
               "-var-file=tests/fixtures.tfvars.",
        warn=[same("terraform -chdir=modules/iam test"),
              reword("terraform -chdir=modules/network test -filter=tests/subnets.tftest.hcl"),
              reword("cd modules/iam && terraform test -verbose")],
        silent=[fix("terraform -chdir=modules/network test -filter=tests/subnets.tftest.hcl -var-file=tests/fixtures.tfvars"),
                other("terraform -chdir=modules/iam validate"), other("terraform fmt -check -recursive modules/")],
        variants=("intervening",),
    )),
    eco("go", Incident(
        "s-tf-gridkeeper-errors-is", TEST_FIX, CODEX, "gridkeeper",
        session=[
            U("GET /jobs/{id} returns 500 for a missing job; it should be a 404."),
            edit("internal/api/jobs.go", _JOB_OLD, _JOB_BAD),
            err("go test ./internal/api/...",
                "--- FAIL: TestGetJobNotFound (0.00s)\n"
                "    jobs_test.go:57: GET /jobs/42: status = 500, want 404 (body: \"lookup job 42: store: not found\\n\")\n"
                "FAIL\nFAIL\tgithub.com/gridkeeper/gridkeeper/internal/api\t0.021s\nFAIL", 1),
            ok("grep -n 'ErrNotFound' internal/store/*.go",
               "internal/store/errors.go:5:var ErrNotFound = errors.New(\"store: not found\")\n"
               "internal/store/jobs.go:48:\t\treturn Job{}, fmt.Errorf(\"lookup job %d: %w\", id, ErrNotFound)"),
            edit("internal/api/jobs.go", "\tif err == store.ErrNotFound {", "\tif errors.Is(err, store.ErrNotFound) {"),
            ok("go test ./internal/api/...", "ok  \tgithub.com/gridkeeper/gridkeeper/internal/api\t0.019s"),
            A("The store wraps ErrNotFound with %w, so `==` never matched; `errors.Is` unwraps."),
        ],
        mistake="err == store.ErrNotFound",
        lesson="gridkeeper wraps its errors with %w: compare with errors.Is(err, ErrX), never err == ErrX.",
        warn=[same(E("internal/api/jobs.go", _JOB_OLD, _JOB_BAD)),
              reword(E("internal/api/queue.go", _PUSH_OLD,
                       "\tif err := h.queue.Push(ctx, req.Job); err == queue.ErrFull {\n" + _PUSH_TAIL))],
        silent=[fix(E("internal/api/queue.go", _PUSH_OLD,
                      "\tif err := h.queue.Push(ctx, req.Job); errors.Is(err, queue.ErrFull) {\n" + _PUSH_TAIL)),
                code(E("internal/api/jobs.go", "\tif err != nil {\n\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)",
                       "\tif err != nil {\n\t\th.log.Error(\"get job\", \"id\", id, \"err\", err)\n"
                       "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)")),
                other("go test ./internal/api/...")],
        variants=("intervening",),
    )),
    eco("ruby", Incident(
        "s-tf-tallyho-frozen-string", TEST_FIX, CC, "tallyho",
        session=[
            U("Add a CSV export of invoices (Tallyho::CsvExporter#call) for the accountants."),
            write("lib/tallyho/csv_exporter.rb", _EXPORTER),
            err("bundle exec rspec spec/lib/csv_exporter_spec.rb",
                _SPEC_FAIL_HEAD + "  1) Tallyho::CsvExporter#call writes a header and one row per invoice\n"
                "     Failure/Error: out << HEADER\n\n     FrozenError:\n       can't modify frozen String: \"\"\n"
                "     # ./lib/tallyho/csv_exporter.rb:13:in `call'\n"
                "     # ./spec/lib/csv_exporter_spec.rb:9:in `block (3 levels) in <top (required)>'\n\n"
                "Finished in 0.04121 seconds (files took 1.82 seconds to load)\n2 examples, 1 failure\n\n"
                "Failed examples:\n\nrspec ./spec/lib/csv_exporter_spec.rb:7 # Tallyho::CsvExporter#call writes a header and one row per invoice", 1),
            edit("lib/tallyho/csv_exporter.rb", "      out = \"\"", "      out = +\"\""),
            ok("bundle exec rspec spec/lib/csv_exporter_spec.rb",
               "..\n\nFinished in 0.03318 seconds (files took 1.79 seconds to load)\n2 examples, 0 failures"),
            A("The file has `# frozen_string_literal: true`, so `\"\"` is frozen; `+\"\"` gives a mutable copy."),
        ],
        mistake="out = \"\" followed by out << ... (appending to a frozen literal)",
        lesson="tallyho files start with # frozen_string_literal: true: a string you append to with << must start as "
               "+\"\" or String.new, never a bare \"\" / '' literal.",
        warn=[same(W("lib/tallyho/csv_exporter.rb", _EXPORTER)),
              reword(E("lib/tallyho/reminder_body.rb", "    def render\n",
                       "    def render\n      body = ''\n      body << greeting\n"))],
        silent=[fix(E("lib/tallyho/reminder_body.rb", "    def render\n",
                      "    def render\n      body = +''\n      body << greeting\n")),
                code(E("lib/tallyho/reminder_body.rb", "    def subject\n",
                       "    def subject\n      prefix = \"[Tallyho]\"\n      return \"#{prefix} Payment reminder\" if overdue?\n")),
                other("bundle exec rspec spec/lib/csv_exporter_spec.rb")],
    )),
    eco("dotnet", Incident(
        "s-tf-sundial-utcnow-npgsql", TEST_FIX, GEMINI, "sundial-ledger",
        session=[
            U("Record when a refund is posted: set PostedAt in RefundService.Post."),
            edit("src/Sundial.Core/Refunds/RefundService.cs", _REFUND_OLD,
                 _REFUND_OLD + "\n        refund.PostedAt = DateTime.Now;"),
            err("dotnet test Sundial.sln --filter FullyQualifiedName~RefundServiceTests",
                "  Sundial.Data.Tests -> /home/dev/sundial-ledger/tests/Sundial.Data.Tests/bin/Debug/net8.0/Sundial.Data.Tests.dll\n"
                "Test run for /home/dev/sundial-ledger/tests/Sundial.Data.Tests/bin/Debug/net8.0/Sundial.Data.Tests.dll (.NETCoreApp,Version=v8.0)\n"
                "Starting test execution, please wait...\n"
                "[xUnit.net 00:00:01.12]     Sundial.Data.Tests.RefundServiceTests.Post_marks_refund_posted [FAIL]\n"
                "  Failed Sundial.Data.Tests.RefundServiceTests.Post_marks_refund_posted [212 ms]\n  Error Message:\n"
                "   Microsoft.EntityFrameworkCore.DbUpdateException : An error occurred while saving the entity changes. "
                "See the inner exception for details.\n"
                "---- System.ArgumentException : Cannot write DateTime with Kind=Local to PostgreSQL type 'timestamp with time zone', "
                "only UTC is supported. Note that it's not possible to mix DateTimes with different Kinds in an array, range, "
                "or multirange. (Parameter 'value')\n  Stack Trace:\n"
                "     at Microsoft.EntityFrameworkCore.Update.ReaderModificationCommandBatch.ExecuteAsync(IRelationalConnection connection, "
                "CancellationToken cancellationToken)\n"
                "     at Sundial.Core.Refunds.RefundService.Post(Guid refundId) in /home/dev/sundial-ledger/src/Sundial.Core/Refunds/RefundService.cs:line 58\n\n"
                "Failed!  - Failed:     1, Passed:    11, Skipped:     0, Total:    12, Duration: 1 s - Sundial.Data.Tests.dll (net8.0)", 1),
            edit("src/Sundial.Core/Refunds/RefundService.cs", "        refund.PostedAt = DateTime.Now;",
                 "        refund.PostedAt = DateTime.UtcNow;"),
            ok("dotnet test Sundial.sln --filter FullyQualifiedName~RefundServiceTests",
               "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 1 s - Sundial.Data.Tests.dll (net8.0)"),
        ],
        mistake="DateTime.Now",
        lesson="sundial-ledger stores timestamptz through Npgsql: use DateTime.UtcNow (or DateTimeOffset.UtcNow); "
               "DateTime.Now is Kind=Local and Npgsql refuses to write it.",
        warn=[same(E("src/Sundial.Core/Refunds/RefundService.cs", _REFUND_OLD,
                     _REFUND_OLD + "\n        refund.PostedAt = DateTime.Now;")),
              reword(E("src/Sundial.Core/Ledger/EntryPoster.cs", _SETTLE_OLD,
                       _SETTLE_OLD + "\n        entry.SettledAt = DateTime.Now;"))],
        silent=[fix(E("src/Sundial.Core/Ledger/EntryPoster.cs", _SETTLE_OLD,
                      _SETTLE_OLD + "\n        entry.SettledAt = DateTime.UtcNow;")),
                code(E("src/Sundial.Core/Ledger/EntryPoster.cs", _SETTLE_OLD,
                       _SETTLE_OLD + "\n        entry.SettledBy = _currentUser.Id;")),
                other("dotnet test Sundial.sln --filter FullyQualifiedName~RefundServiceTests")],
        variants=("long_output",),
    )),
    eco("node", Incident(
        "s-tf-bramble-jest-esm", TEST_FIX, CC, "bramble-shop",
        session=[
            U("Run the api package's tests, I refactored the order totals."),
            err("pnpm --filter @bramble/api test",
                "\n> @bramble/api@0.9.0 test /home/dev/bramble-shop/apps/api\n> jest\n\n"
                " FAIL  src/orders/totals.test.ts\n  ● Test suite failed to run\n\n    Jest encountered an unexpected token\n\n"
                "    Jest failed to parse a file. This happens e.g. when your code or its dependencies use non-standard "
                "JavaScript syntax, or when Jest is not configured to support such syntax.\n\n    Details:\n\n"
                "    /home/dev/bramble-shop/apps/api/src/orders/totals.test.ts:1\n"
                "    ({\"Object.<anonymous>\":function(module,exports,require,__dirname,__filename,jest){import { describe, "
                "expect, it } from \"@jest/globals\";\n"
                "                                                                                      ^^^^^^\n\n"
                "    SyntaxError: Cannot use import statement outside a module\n\n"
                "Test Suites: 4 failed, 4 total\nTests:       0 total\nSnapshots:   0 total\nTime:        1.208 s\n"
                "Ran all test suites.\n/home/dev/bramble-shop/apps/api:\n"
                " ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @bramble/api@0.9.0 test: `jest`\nExit status 1", 1),
            read("apps/api/README.md",
                 "## Tests\n\nThe api package is native ESM (ts-jest `useESM`). Jest needs the VM modules flag:\n\n"
                 "    NODE_OPTIONS=--experimental-vm-modules pnpm --filter @bramble/api test\n"),
            ok("NODE_OPTIONS=--experimental-vm-modules pnpm --filter @bramble/api test",
               "\n> @bramble/api@0.9.0 test /home/dev/bramble-shop/apps/api\n> jest\n\n"
               "(node:48211) ExperimentalWarning: VM Modules is an experimental feature and might change at any time\n"
               " PASS  src/orders/totals.test.ts\n PASS  src/orders/discounts.test.ts\n PASS  src/cart/cart.test.ts\n"
               " PASS  src/health.test.ts\n\nTest Suites: 4 passed, 4 total\nTests:       37 passed, 37 total\n"
               "Snapshots:   0 total\nTime:        2.914 s"),
        ],
        mistake="pnpm --filter @bramble/api test",
        lesson="bramble-shop: @bramble/api runs jest as native ESM; run its tests with NODE_OPTIONS=--experimental-vm-modules "
               "(pnpm --filter @bramble/api test / exec jest).",
        warn=[same("pnpm --filter @bramble/api test"), reword("pnpm --filter @bramble/api exec jest src/orders --coverage"),
              reword("cd apps/api && pnpm exec jest src/cart")],
        silent=[fix("NODE_OPTIONS=--experimental-vm-modules pnpm --filter @bramble/api exec jest src/orders --coverage"),
                other("pnpm --filter web test"), other("pnpm --filter @bramble/api typecheck")],
        variants=("intervening",),
    )),
    eco("python", Incident(
        "s-tf-tidewatch-mutable-default", TEST_FIX, CC, "tidewatch",
        session=[
            U("Let add_station take optional tags."),
            edit("src/tidewatch/stations.py", _STATIONS_OLD, _STATIONS_BAD),
            err("uv run pytest tests/test_stations.py",
                "============================= test session starts ==============================\n"
                "platform linux -- Python 3.12.8, pytest-8.3.4, pluggy-1.5.0\nrootdir: /home/dev/tidewatch\n"
                "configfile: pyproject.toml\ncollected 9 items\n\n"
                "tests/test_stations.py ........F                                         [100%]\n\n"
                "=================================== FAILURES ===================================\n"
                "__________________________ test_tags_are_per_station ___________________________\n\n"
                "    def test_tags_are_per_station(registry):\n        a = add_station(registry, \"Dover\")\n"
                "        a.tags.append(\"harbour\")\n        b = add_station(registry, \"Calais\")\n"
                ">       assert b.tags == []\nE       AssertionError: assert ['harbour'] == []\nE         \n"
                "E         Left contains one more item: 'harbour'\n\ntests/test_stations.py:74: AssertionError\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_stations.py::test_tags_are_per_station - AssertionError: assert ['harbour'] == []\n"
                "========================= 1 failed, 8 passed in 0.19s ==========================", 1),
            edit("src/tidewatch/stations.py", _STATIONS_BAD,
                 "def add_station(registry: Registry, name: str, tags: list[str] | None = None) -> Station:\n"
                 "    station = Station(name=name, tags=list(tags or []))"),
            ok("uv run pytest tests/test_stations.py",
               "collected 9 items\n\ntests/test_stations.py .........                                         [100%]\n\n"
               "============================== 9 passed in 0.17s ==============================="),
            A("The `[]` default is created once and shared by every call; it defaults to None now."),
        ],
        mistake="a mutable default argument (tags: list[str] = [])",
        lesson="tidewatch: never use a mutable default argument (= [] / = {}); default to None and build a new list or "
               "dict inside the function.",
        warn=[same(E("src/tidewatch/stations.py", _STATIONS_OLD, _STATIONS_BAD)),
              reword(E("src/tidewatch/readings.py", _MERGE_OLD,
                       "def merge_readings(batches: list[Batch], merged: dict[str, Reading] = {}) -> dict[str, Reading]:"))],
        silent=[fix(E("src/tidewatch/readings.py", _MERGE_OLD,
                      "def merge_readings(batches: list[Batch], merged: dict[str, Reading] | None = None) -> dict[str, Reading]:\n"
                      "    merged = {} if merged is None else merged")),
                code(E("src/tidewatch/stations.py", "def find_stations(registry: Registry, prefix: str) -> list[Station]:",
                       "def find_stations(registry: Registry, prefix: str, kinds: tuple[str, ...] = ()) -> list[Station]:")),
                other("uv run pytest tests/test_stations.py")],
    )),
    eco("rust", Incident(
        "s-tf-ferrocask-tokio-test", TEST_FIX, GEMINI, "ferrocask",
        session=[
            U("Add a put/get roundtrip test for the in-memory backend."),
            edit("src/backend/memory.rs", _MEM_OLD, _MEM_BAD),
            err("cargo test --features s3 --lib backend::memory",
                "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\nerror: async functions cannot be used for tests\n"
                "  --> src/backend/memory.rs:71:5\n   |\n71 | /     async fn put_then_get_roundtrip() {\n"
                "72 | |         let store = MemoryStore::default();\n"
                "73 | |         store.put(\"a/b\", Bytes::from_static(b\"hi\")).await.unwrap();\n"
                "74 | |         assert_eq!(store.get(\"a/b\").await.unwrap(), Bytes::from_static(b\"hi\"));\n"
                "75 | |     }\n   | |_____^\n\nerror: could not compile `ferrocask` (lib test) due to 1 previous error", 101),
            edit("src/backend/memory.rs", "    #[test]\n    async fn put_then_get_roundtrip() {",
                 "    #[tokio::test]\n    async fn put_then_get_roundtrip() {"),
            ok("cargo test --features s3 --lib backend::memory",
               "   Compiling ferrocask v0.7.2 (/home/dev/ferrocask)\n"
               "    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.40s\n"
               "     Running unittests src/lib.rs (target/debug/deps/ferrocask-3f1e0a9c2b7d4e11)\n\n"
               "running 5 tests\n.....\ntest result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 35 filtered out; finished in 0.01s"),
        ],
        mistake="#[test] on an async fn",
        lesson="ferrocask: async tests need #[tokio::test]; a plain #[test] on an async fn does not compile.",
        warn=[same(E("src/backend/memory.rs", _MEM_OLD, _MEM_BAD)),
              reword(E("tests/s3_roundtrip.rs", _S3_OLD, _S3_OLD + "\n#[test]\n" + _S3_TEST))],
        silent=[fix(E("tests/s3_roundtrip.rs", _S3_OLD, _S3_OLD + "\n#[tokio::test]\n" + _S3_TEST)),
                code(E("src/backend/memory.rs", _MEM_OLD,
                       _MEM_OLD + "\n    #[test]\n    fn key_normalises_slashes() {\n"
                       "        assert_eq!(normalise_key(\"/a//b\"), \"a/b\");\n    }\n")),
                other("cargo test --features s3 --lib backend::memory")],
    )),
    eco("java", Incident(
        "s-tf-marrowbank-injected-clock", TEST_FIX, CC, "marrowbank",
        session=[
            U("Statements cover the previous calendar month. Implement StatementService.currentPeriod()."),
            edit(_STATEMENTS, _PERIOD_OLD, _PERIOD_BAD),
            err("./gradlew :ledger:test --tests '*StatementServiceTest'",
                "> Task :ledger:compileJava\n> Task :ledger:test FAILED\n\n"
                "StatementServiceTest > currentPeriodIsPreviousMonth() FAILED\n"
                "    org.opentest4j.AssertionFailedError: expected: <StatementPeriod[start=2025-12-01, end=2025-12-31]> "
                "but was: <StatementPeriod[start=2026-02-01, end=2026-02-28]>\n"
                "        at app//com.marrowbank.ledger.StatementServiceTest.currentPeriodIsPreviousMonth(StatementServiceTest.java:31)\n\n"
                "4 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Execution failed for task ':ledger:test'.\n> There were failing tests. See the report at: "
                "file:///home/dev/marrowbank/ledger/build/reports/tests/test/index.html\n\nBUILD FAILED in 9s", 1),
            read("ledger/src/test/java/com/marrowbank/ledger/StatementServiceTest.java",
                 "    private final Clock clock = Clock.fixed(Instant.parse(\"2026-01-15T10:00:00Z\"), ZoneOffset.UTC);\n"
                 "    private final StatementService service = new StatementService(repository, clock);\n"),
            edit(_STATEMENTS, "YearMonth.from(LocalDate.now())", "YearMonth.from(LocalDate.now(clock))"),
            ok("./gradlew :ledger:test --tests '*StatementServiceTest'",
               "> Task :ledger:compileJava\n> Task :ledger:test\n\nBUILD SUCCESSFUL in 8s\n4 actionable tasks: 2 executed, 2 up-to-date"),
            A("StatementService already gets a `Clock` injected (the test fixes it at 2026-01-15); it reads it now."),
        ],
        mistake="LocalDate.now()",
        lesson="marrowbank services get an injected java.time.Clock: read the time with LocalDate.now(clock) / "
               "Instant.now(clock), never the no-argument now() (the tests fix the clock).",
        warn=[same(E(_STATEMENTS, _PERIOD_OLD, _PERIOD_BAD)),
              reword(E(_ACCRUAL, "    public void accrueToday() {\n", "    public void accrueToday() {\n        LocalDate today = LocalDate.now();\n")),
              reword(E("ledger/src/main/java/com/marrowbank/ledger/PostingService.java", "        posting.setStatus(Status.POSTED);",
                       "        posting.setStatus(Status.POSTED);\n        posting.setPostedAt(Instant.now());"))],
        silent=[fix(E(_ACCRUAL, "    public void accrueToday() {\n",
                      "    public void accrueToday() {\n        LocalDate today = LocalDate.now(clock);\n")),
                code(E("ledger/src/test/java/com/marrowbank/ledger/InterestAccrualServiceTest.java",
                       "    private final LocalDate opened = LocalDate.of(2025, 12, 1);",
                       "    private final LocalDate opened = LocalDate.of(2025, 11, 1);")),
                other("./gradlew :ledger:test --tests '*StatementServiceTest'")],
        variants=("intervening",),
    )),
    eco("docker", Incident(
        "s-tf-lanternd-compose-db-host", TEST_FIX, CODEX, "lanternd",
        session=[
            U("Run the store tests inside the app container against the compose postgres."),
            err("docker compose run --rm -e DATABASE_URL=postgres://lantern:lantern@localhost:5432/lantern_test app go test ./internal/store/...",
                "[+] Creating 1/0\n ✔ Container lanternd-db-1  Running                                          0.0s\n" + _STORE_FAIL, 1),
            ok("docker compose config --services", "db\napp\napi"),
            ok("docker compose run --rm -e DATABASE_URL=postgres://lantern:lantern@db:5432/lantern_test app go test ./internal/store/...",
               "[+] Creating 1/0\n ✔ Container lanternd-db-1  Running                                          0.0s\n"
               "ok  \tgithub.com/lanternd/lanternd/internal/store\t2.416s"),
            A("Inside the app container `localhost` is the container itself; postgres is the compose service `db`."),
        ],
        mistake="docker compose run --rm -e DATABASE_URL=postgres://lantern:lantern@localhost:5432/lantern_test app go test ./internal/store/...",
        lesson="lanternd: inside compose containers postgres is db:5432 (the service name), not localhost / 127.0.0.1.",
        warn=[same("docker compose run --rm -e DATABASE_URL=postgres://lantern:lantern@localhost:5432/lantern_test app go test ./internal/store/..."),
              reword("docker compose exec app sh -c 'DATABASE_URL=postgres://lantern:lantern@127.0.0.1:5432/lantern_test "
                     "go test -run TestLease ./internal/store'")],
        silent=[fix("docker compose exec app sh -c 'DATABASE_URL=postgres://lantern:lantern@db:5432/lantern_test "
                    "go test -run TestLease ./internal/store'"),
                other("docker compose ps db"), other("docker compose logs --tail=50 db")],
        variants=("diagnostic",),
    )),
    eco("database", Incident(
        "s-tf-copperline-is-null", TEST_FIX, GEMINI, "copperline",
        session=[
            U("active_tenants() should skip soft-deleted tenants."),
            write("db/migrations/20260302100000_active_tenants_skip_deleted.sql", _ACTIVE),
            err("make test",
                "dbmate --env-file .env.test up\nApplying: 20260302100000_active_tenants_skip_deleted.sql\n"
                "Writing: ./db/schema.sql\npg_prove -d copperline_test db/tests/*.sql\ndb/tests/ledger.sql ..... ok\n"
                "db/tests/tenants.sql .... 1/12 \n#   Failed test 4: 'active_tenants() returns the 3 live demo tenants'\n"
                "#          have: 0\n#          want: 3\n# Looks like you failed 1 test of 12\n"
                "db/tests/tenants.sql .... Failed 1/12 subtests \n\nTest Summary Report\n-------------------\n"
                "db/tests/tenants.sql (Wstat: 0 Tests: 12 Failed: 1)\n  Failed test:  4\n"
                "Files=2, Tests=31,  1 wallclock secs\nResult: FAIL\nmake: *** [Makefile:15: test] Error 1", 2),
            edit("db/migrations/20260302100000_active_tenants_skip_deleted.sql",
                 "WHERE deleted_at = NULL", "WHERE deleted_at IS NULL"),
            ok("make test",
               "dbmate --env-file .env.test up\nApplying: 20260302100000_active_tenants_skip_deleted.sql\n"
               "Writing: ./db/schema.sql\npg_prove -d copperline_test db/tests/*.sql\ndb/tests/ledger.sql ..... ok\n"
               "db/tests/tenants.sql .... ok\nAll tests successful.\nFiles=2, Tests=31,  1 wallclock secs\nResult: PASS"),
            A("`deleted_at = NULL` is NULL, never true, so the function returned nothing; `IS NULL` is the test."),
        ],
        mistake="WHERE deleted_at = NULL",
        lesson="copperline SQL: = NULL / <> NULL is never true; test for missing values with IS NULL / IS NOT NULL.",
        warn=[same(W("db/migrations/20260302100000_active_tenants_skip_deleted.sql", _ACTIVE)),
              reword(E("db/queries/ledger.sql", _LEDGER_Q, _LEDGER_Q + "\n  AND settled_at <> NULL"))],
        silent=[fix(E("db/queries/ledger.sql", _LEDGER_Q, _LEDGER_Q + "\n  AND settled_at IS NOT NULL")),
                code(E("db/queries/tenants.sql", "-- name: RestoreTenant :exec",
                       "-- name: RestoreTenant :exec\nUPDATE tenants SET deleted_at = NULL WHERE id = sqlc.arg(id);")),
                code(E("db/queries/ledger.sql", "ORDER BY posted_at DESC", "ORDER BY posted_at DESC, id DESC")),
                other("make test")],
    )),
    eco("terraform", Incident(
        "s-tf-stratocum-count-bool", TEST_FIX, CC, "stratocum",
        session=[
            U("var.enable_health_check already exists in modules/dns; use it to make the Route 53 health check optional."),
            edit("modules/dns/main.tf", _HC_OLD, _HC_BAD),
            err("terraform -chdir=modules/dns test -var-file=tests/fixtures.tfvars",
                "tests/dns.tftest.hcl... in progress\n  run \"health_check_off_by_default\"... fail\n"
                "╷\n│ Error: Incorrect value type\n│ \n│   on main.tf line 2, in resource \"aws_route53_health_check\" \"api\":\n"
                "│    2:   count             = var.enable_health_check\n│     ├────────────────\n"
                "│     │ var.enable_health_check is false\n│ \n│ Invalid expression value: number required.\n╵\n"
                "  run \"health_check_on\"... skip\ntests/dns.tftest.hcl... tearing down\ntests/dns.tftest.hcl... fail\n\n"
                "Failure! 0 passed, 1 failed, 1 skipped.", 1),
            edit("modules/dns/main.tf", "  count             = var.enable_health_check\n",
                 "  count             = var.enable_health_check ? 1 : 0\n"),
            ok("terraform -chdir=modules/dns test -var-file=tests/fixtures.tfvars",
               "tests/dns.tftest.hcl... in progress\n  run \"health_check_off_by_default\"... pass\n  run \"health_check_on\"... pass\n"
               "tests/dns.tftest.hcl... tearing down\ntests/dns.tftest.hcl... pass\n\nSuccess! 2 passed, 0 failed."),
        ],
        mistake="count = var.enable_health_check (a bool)",
        lesson="Terraform count takes a number: write count = var.enable_x ? 1 : 0, never count = var.enable_x (a bool).",
        warn=[same(E("modules/dns/main.tf", _HC_OLD, _HC_BAD)),
              reword(E("modules/cdn/main.tf", _MON_OLD, _MON_OLD + "  count           = var.realtime_metrics\n"))],
        silent=[fix(E("modules/cdn/main.tf", _MON_OLD, _MON_OLD + "  count           = var.realtime_metrics ? 1 : 0\n")),
                code(E("modules/dns/main.tf", "  failure_threshold = 3", "  failure_threshold = 5")),
                code(E("modules/network/main.tf", "resource \"aws_subnet\" \"private\" {\n",
                       "resource \"aws_subnet\" \"private\" {\n  count             = length(var.private_cidrs)\n")),
                other("terraform -chdir=modules/dns test -var-file=tests/fixtures.tfvars")],
    )),
    eco("ruby", Incident(
        "s-tf-tallyho-chrome-bin", TEST_FIX, GEMINI, "tallyho",
        session=[
            U("Run the checkout system spec, I changed the payment step."),
            err("bundle exec rspec spec/system/checkout_spec.rb",
                _SPEC_FAIL_HEAD + "  1) Checkout pays an open invoice by card\n     Failure/Error: visit invoice_path(invoice)\n\n"
                "     Selenium::WebDriver::Error::SessionNotCreatedError:\n"
                "       session not created: Chrome failed to start: exited normally.\n"
                "         (session not created: DevToolsActivePort file doesn't exist)\n"
                "         (The process started from chrome location /opt/google/chrome/chrome is no longer running, so "
                "ChromeDriver is assuming that Chrome has crashed.)\n"
                "     # ./spec/system/checkout_spec.rb:12:in `block (2 levels) in <top (required)>'\n\n"
                "Finished in 3.12 seconds (files took 2.41 seconds to load)\n1 example, 1 failure", 1),
            ok("grep -n CHROME_BIN spec/support/capybara.rb",
               "7:    options.binary = ENV[\"CHROME_BIN\"] if ENV[\"CHROME_BIN\"]"),
            ok("CHROME_BIN=/usr/bin/chromium bundle exec rspec spec/system/checkout_spec.rb",
               ".\n\nFinished in 4.87 seconds (files took 2.38 seconds to load)\n1 example, 0 failures"),
            A("The Google Chrome under /opt crashes on start on this box; the Capybara driver takes CHROME_BIN, and "
              "with Chromium the spec passes."),
        ],
        mistake="bundle exec rspec spec/system/checkout_spec.rb",
        lesson="tallyho: system specs need CHROME_BIN=/usr/bin/chromium (the Google Chrome in /opt crashes on start).",
        warn=[same("bundle exec rspec spec/system/checkout_spec.rb"), reword("bundle exec rspec spec/system --fail-fast"),
              reword("bundle exec rspec spec/system/refunds_spec.rb:24")],
        silent=[fix("CHROME_BIN=/usr/bin/chromium bundle exec rspec spec/system --fail-fast"),
                other("bundle exec rspec spec/models"), other("bundle exec rspec spec/requests/invoices_spec.rb")],
        variants=("diagnostic",),
    )),
]
