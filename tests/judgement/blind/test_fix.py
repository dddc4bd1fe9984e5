"""Failing → passing test: an edit introduces a bug, a test command fails with
real-looking output, an edit fixes it and the test passes. The probes are edits:
the bug again (same file, another file with other names), the corrected code,
and unrelated edits that must pass."""

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
    read,
    reword,
    same,
)

# --- juniper-web (TypeScript, vitest) -------------------------------------

FORMAT_OLD = """\
export function formatShortDate(iso: string): string {
  return iso.slice(0, 10);
}
"""

FORMAT_BAD = """\
export function formatShortDate(iso: string): string {
  const d = new Date(iso);
  const day = String(d.getDay()).padStart(2, "0");
  const month = String(d.getMonth() + 1).padStart(2, "0");
  return `${day}.${month}.${d.getFullYear()}`;
}
"""

FORMAT_GOOD = """\
export function formatShortDate(iso: string): string {
  const d = new Date(iso);
  const day = String(d.getDate()).padStart(2, "0");
  const month = String(d.getMonth() + 1).padStart(2, "0");
  return `${day}.${month}.${d.getFullYear()}`;
}
"""

VITEST_FAIL = """\

 RUN  v2.1.8 /home/dev/juniper-web

 ❯ src/lib/format.test.ts (4 tests | 1 failed) 9ms
   × formatShortDate > formats an ISO date as dd.mm.yyyy 5ms
     → expected '03.03.2026' to be '18.03.2026' // Object.is equality

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯

 FAIL  src/lib/format.test.ts > formatShortDate > formats an ISO date as dd.mm.yyyy
AssertionError: expected '03.03.2026' to be '18.03.2026' // Object.is equality

- Expected
+ Received

- 18.03.2026
+ 03.03.2026

 ❯ src/lib/format.test.ts:8:47
      6|   it("formats an ISO date as dd.mm.yyyy", () => {
      7|     expect(formatShortDate("2026-03-18T10:00:00Z")).toBe("18.03.2026");
       |                                               ^

 Test Files  1 failed (1)
      Tests  1 failed | 3 passed (4)
   Duration  412ms
"""

VITEST_OK = """\

 RUN  v2.1.8 /home/dev/juniper-web

 ✓ src/lib/format.test.ts (4 tests) 4ms

 Test Files  1 passed (1)
      Tests  4 passed (4)
   Duration  388ms
"""

# --- pika-api (Go) ---------------------------------------------------------

SESSIONS_OLD = """\
func (s *Store) ListExpired(ctx context.Context, before time.Time) ([]Session, error) {
	return nil, errors.New("not implemented")
}
"""

SESSIONS_BAD = """\
func (s *Store) ListExpired(ctx context.Context, before time.Time) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, listExpiredSQL, before)
	defer rows.Close()
	if err != nil {
		return nil, fmt.Errorf("list expired sessions: %w", err)
	}
	var out []Session
	for rows.Next() {
		var sess Session
		if err := rows.Scan(&sess.ID, &sess.UserID, &sess.ExpiresAt); err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}
"""

SESSIONS_GOOD = """\
func (s *Store) ListExpired(ctx context.Context, before time.Time) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, listExpiredSQL, before)
	if err != nil {
		return nil, fmt.Errorf("list expired sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var sess Session
		if err := rows.Scan(&sess.ID, &sess.UserID, &sess.ExpiresAt); err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}
"""

GO_PANIC = """\
--- FAIL: TestListExpired_QueryError (0.00s)
panic: runtime error: invalid memory address or nil pointer dereference [recovered]
	panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x38 pc=0x6b2f14]

goroutine 23 [running]:
testing.tRunner.func1.2({0x7a1c40, 0xb0e2a0})
	/usr/local/go/src/testing/testing.go:1632 +0x230
testing.tRunner.func1()
	/usr/local/go/src/testing/testing.go:1635 +0x35e
panic({0x7a1c40?, 0xb0e2a0?})
	/usr/local/go/src/runtime/panic.go:785 +0x132
database/sql.(*Rows).close(0x0, {0x0, 0x0})
	/usr/local/go/src/database/sql/sql.go:3354 +0x3a
database/sql.(*Rows).Close(...)
	/usr/local/go/src/database/sql/sql.go:3350
github.com/pika-dev/pika-api/internal/store.(*Store).ListExpired(0xc0001a6000, {0x8c9e70, 0xc0000b2000}, {0x0, 0x0, 0x0})
	/home/dev/pika-api/internal/store/sessions.go:61 +0x10c
github.com/pika-dev/pika-api/internal/store.TestListExpired_QueryError(0xc000103a00)
	/home/dev/pika-api/internal/store/sessions_test.go:88 +0x1d8
FAIL	github.com/pika-dev/pika-api/internal/store	0.031s
FAIL
"""

# --- quill-rs (Rust) -------------------------------------------------------

PROGRESS_OLD = """\
    pub fn remaining(&self) -> u64 {
        self.total
    }
"""

PROGRESS_BAD = """\
    pub fn remaining(&self) -> u64 {
        self.total - self.uploaded
    }
"""

PROGRESS_GOOD = """\
    pub fn remaining(&self) -> u64 {
        self.total.saturating_sub(self.uploaded)
    }
"""

CARGO_OVERFLOW = """\
   Compiling quill-sync v0.7.0 (/home/dev/quill-rs/crates/quill-sync)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 6.12s
     Running unittests src/lib.rs (target/debug/deps/quill_sync-5f0c2a9e1b7d4c36)

running 4 tests
test progress::tests::remaining_counts_down ... ok
test progress::tests::remaining_is_total_at_start ... ok
test progress::tests::remaining_after_retry_overshoot ... FAILED
test progress::tests::percent_is_capped ... ok

failures:

---- progress::tests::remaining_after_retry_overshoot stdout ----

thread 'progress::tests::remaining_after_retry_overshoot' panicked at crates/quill-sync/src/progress.rs:31:9:
attempt to subtract with overflow
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    progress::tests::remaining_after_retry_overshoot

test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 19 filtered out; finished in 0.00s

error: test failed, to rerun pass `-p quill-sync --lib`
"""

# --- ledgerline (Ruby) -----------------------------------------------------

IMPORTER_OLD = """\
      amount_cents: Integer(row["amount_cents"]),
"""

IMPORTER_BAD = """\
      amount_cents: (row["amount"].to_f * 100).to_i,
"""

IMPORTER_GOOD = """\
      amount_cents: (BigDecimal(row["amount"]) * 100).to_i,
"""

RSPEC_CENTS_FAIL = """\
Randomized with seed 7731
..F....

Failures:

  1) InvoiceImporter#call converts decimal amounts to cents
     Failure/Error: expect(invoice.amount_cents).to eq(1999)

       expected: 1999
            got: 1998

       (compared using ==)
     # ./spec/services/invoice_importer_spec.rb:24:in `block (3 levels) in <top (required)>'

Finished in 0.412 seconds (files took 2.98 seconds to load)
7 examples, 1 failure

Failed examples:

rspec ./spec/services/invoice_importer_spec.rb:19 # InvoiceImporter#call converts decimal amounts to cents

Randomized with seed 7731
"""

# --- mosaic-android (Kotlin) -----------------------------------------------

QTY_OLD = """\
object QuantityParser {
    const val MAX_QTY = 99
}
"""

QTY_BAD = """\
object QuantityParser {
    const val MAX_QTY = 99

    fun parse(input: String): Int = input.trim().toInt().coerceIn(0, MAX_QTY)
}
"""

QTY_GOOD = """\
object QuantityParser {
    const val MAX_QTY = 99

    fun parse(input: String): Int = input.trim().toIntOrNull()?.coerceIn(0, MAX_QTY) ?: 0
}
"""

GRADLE_TEST_FAIL = """\
> Task :app:compileDebugUnitTestKotlin
> Task :app:testDebugUnitTest FAILED

QuantityParserTest > parses plain numbers PASSED
QuantityParserTest > clamps to max PASSED
QuantityParserTest > empty input is zero FAILED
    java.lang.NumberFormatException at QuantityParserTest.kt:18

QuantityParserTest > garbage input is zero FAILED
    java.lang.NumberFormatException at QuantityParserTest.kt:23

4 tests completed, 2 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':app:testDebugUnitTest'.
> There were failing tests. See the report at: file:///home/dev/mosaic-android/app/build/reports/tests/testDebugUnitTest/index.html

BUILD FAILED in 21s
"""

GRADLE_TEST_OK = """\
> Task :app:testDebugUnitTest

QuantityParserTest > parses plain numbers PASSED
QuantityParserTest > clamps to max PASSED
QuantityParserTest > empty input is zero PASSED
QuantityParserTest > garbage input is zero PASSED

BUILD SUCCESSFUL in 17s
"""

JDK17 = "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 "

# --- compass-dotnet (C#) ---------------------------------------------------

TAX_OLD = """\
        return net * rate;
"""

TAX_BAD = """\
        return Math.Round(net * rate, 2);
"""

TAX_GOOD = """\
        return Math.Round(net * rate, 2, MidpointRounding.AwayFromZero);
"""

XUNIT_FAIL = """\
  Compass.Billing.Tests -> /home/dev/compass-dotnet/tests/Compass.Billing.Tests/bin/Debug/net8.0/Compass.Billing.Tests.dll
Test run for /home/dev/compass-dotnet/tests/Compass.Billing.Tests/bin/Debug/net8.0/Compass.Billing.Tests.dll (.NETCoreApp,Version=v8.0)
A total of 1 test files matched the specified pattern.
[xUnit.net 00:00:00.41]     Compass.Billing.Tests.TaxCalculatorTests.Rounds_half_cent_up(net: 9.70, rate: 0.25) [FAIL]
  Failed Compass.Billing.Tests.TaxCalculatorTests.Rounds_half_cent_up(net: 9.70, rate: 0.25) [3 ms]
  Error Message:
   Assert.Equal() Failure: Values differ
Expected: 2.43
Actual:   2.42
  Stack Trace:
     at Compass.Billing.Tests.TaxCalculatorTests.Rounds_half_cent_up(Decimal net, Decimal rate) in /home/dev/compass-dotnet/tests/Compass.Billing.Tests/TaxCalculatorTests.cs:line 31

Failed!  - Failed:     1, Passed:    11, Skipped:     0, Total:    12, Duration: 58 ms - Compass.Billing.Tests.dll (net8.0)
"""

# --- lumen-phx (Elixir) ----------------------------------------------------

BOARDS_OLD = """\
  def overdue_cards(cards, _today) do
    cards
  end
"""

BOARDS_BAD = """\
  def overdue_cards(cards, today) do
    Enum.filter(cards, &(&1.due_on && &1.due_on < today))
  end
"""

BOARDS_GOOD = """\
  def overdue_cards(cards, today) do
    Enum.filter(cards, &(&1.due_on && Date.compare(&1.due_on, today) == :lt))
  end
"""

EXUNIT_FAIL = """\
Running ExUnit with seed: 90412, max_cases: 16

...

  1) test overdue_cards/2 returns cards due before today (Lumen.BoardsTest)
     test/lumen/boards_test.exs:41
     Assertion with == failed
     code:  assert Enum.map(Boards.overdue_cards(cards, ~D[2026-03-02]), & &1.title) == ["pay invoice"]
     left:  ["pay invoice", "renew domain"]
     right: ["pay invoice"]
     stacktrace:
       test/lumen/boards_test.exs:47: (test)

.....
Finished in 0.3 seconds (0.3s async, 0.0s sync)
9 tests, 1 failure
"""

# --- tallybook (Python) ----------------------------------------------------

LEDGER_OLD = """\
    def add_entry(self, amount: Decimal, memo: str) -> Entry:
        entry = Entry(amount=amount, memo=memo, tags=[self.default_tag])
"""

LEDGER_BAD = """\
    def add_entry(self, amount: Decimal, memo: str, tags: list[str] = []) -> Entry:
        tags.append(self.default_tag)
        entry = Entry(amount=amount, memo=memo, tags=tags)
"""

LEDGER_GOOD = """\
    def add_entry(self, amount: Decimal, memo: str, tags: list[str] | None = None) -> Entry:
        tags = [*(tags or []), self.default_tag]
        entry = Entry(amount=amount, memo=memo, tags=tags)
"""

PYTEST_FAIL = """\
..F....                                                                  [100%]
=================================== FAILURES ===================================
________________________ test_entries_do_not_share_tags ________________________

    def test_entries_do_not_share_tags():
        ledger = Ledger(default_tag="household")
        ledger.add_entry(Decimal("12.50"), "groceries")
        second = ledger.add_entry(Decimal("3.20"), "bus")
>       assert second.tags == ["household"]
E       AssertionError: assert ['household', 'household'] == ['household']
E
E         Left contains one more item: 'household'
E         Use -v to get more diff

tests/test_ledger.py:41: AssertionError
=========================== short test summary info ============================
FAILED tests/test_ledger.py::test_entries_do_not_share_tags - AssertionError: assert ['household', 'household'] == ['household']
1 failed, 6 passed in 0.09s
"""

# --- fleet-ops (bash, bats) ------------------------------------------------

ROTATE_OLD = """\
# compress every log in $LOG_DIR
"""

ROTATE_BAD = """\
# compress every log in $LOG_DIR
for f in $(ls $LOG_DIR/*.log); do
  gzip -9 "$f"
done
"""

ROTATE_GOOD = """\
# compress every log in $LOG_DIR
for f in "$LOG_DIR"/*.log; do
  [ -e "$f" ] || continue
  gzip -9 "$f"
done
"""

BATS_FAIL = """\
rotate_logs.bats
 ✓ compresses plain log files
 ✗ handles log names with spaces
   (in test file test/rotate_logs.bats, line 27)
     `[ -f "$LOG_DIR/app worker.log.gz" ]' failed
   gzip: /tmp/bats-run-Xk2Lq9/suite/logs/app: No such file or directory
   gzip: worker.log: No such file or directory
 ✓ leaves .gz files alone

3 tests, 1 failure
"""

# --- granary-php (SQL view) -------------------------------------------------

VIEW_OLD = """\
WHERE s.status = 'active'
"""

VIEW_BAD = """\
WHERE s.status = 'active'
  AND s.cancelled_at = NULL
"""

VIEW_GOOD = """\
WHERE s.status = 'active'
  AND s.cancelled_at IS NULL
"""

ARTISAN_VIEW_FAIL = """\

   FAIL  Tests\\Feature\\ActiveSubscriptionsViewTest
  ⨯ it lists subscriptions that are not cancelled                        0.31s
  ✓ it hides cancelled subscriptions                                     0.05s
  ────────────────────────────────────────────────────────────────────────────
   FAILED  Tests\\Feature\\ActiveSubscriptionsViewTest > it lists subscriptions that are not cancelled
  Failed asserting that actual size 0 matches expected size 2.

  at tests/Feature/ActiveSubscriptionsViewTest.php:24
     20▕         Subscription::factory()->count(2)->create(['status' => 'active']);
     21▕
     22▕         $rows = DB::table('active_subscriptions')->get();
     23▕
  ➜  24▕         $this->assertCount(2, $rows);
     25▕     }

  Tests:    1 failed, 1 passed (2 assertions)
  Duration: 0.52s
"""

GRANARY_TEST = (
    "docker compose exec -e DB_DATABASE=granary_test app php artisan test --filter=ActiveSubscriptionsViewTest"
)

# --- tessera-api (Java, maven) ----------------------------------------------

SUB_OLD = """\
        if (sub.isTrial()) {
            return InvoiceMode.NONE;
        }
"""

SUB_BAD = """\
        if (sub.isTrial()) {
            return InvoiceMode.NONE;
        }
        if (sub.getPlan().getCode() == "ENTERPRISE") {
            return InvoiceMode.MANUAL;
        }
"""

SUB_GOOD = """\
        if (sub.isTrial()) {
            return InvoiceMode.NONE;
        }
        if ("ENTERPRISE".equals(sub.getPlan().getCode())) {
            return InvoiceMode.MANUAL;
        }
"""

MVN_FAIL = """\
[INFO] -------------------------------------------------------
[INFO]  T E S T S
[INFO] -------------------------------------------------------
[INFO] Running com.tessera.billing.SubscriptionServiceTest
[ERROR] Tests run: 6, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.284 s <<< FAILURE! -- in com.tessera.billing.SubscriptionServiceTest
[ERROR] com.tessera.billing.SubscriptionServiceTest.enterprisePlansAreInvoicedManually -- Time elapsed: 0.021 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <MANUAL> but was: <AUTOMATIC>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:182)
	at com.tessera.billing.SubscriptionServiceTest.enterprisePlansAreInvoicedManually(SubscriptionServiceTest.java:58)

[INFO]
[INFO] Results:
[INFO]
[ERROR] Failures:
[ERROR]   SubscriptionServiceTest.enterprisePlansAreInvoicedManually:58 expected: <MANUAL> but was: <AUTOMATIC>
[INFO]
[ERROR] Tests run: 6, Failures: 1, Errors: 0, Skipped: 0
[INFO]
[INFO] ------------------------------------------------------------------------
[INFO] Reactor Summary for tessera 0.9.0-SNAPSHOT:
[INFO]
[INFO] tessera-common ..................................... SUCCESS [  4.112 s]
[INFO] billing ............................................ FAILURE [  6.870 s]
[INFO] ------------------------------------------------------------------------
[INFO] BUILD FAILURE
[INFO] ------------------------------------------------------------------------
"""

MVN_OK = """\
[INFO] Running com.tessera.billing.SubscriptionServiceTest
[INFO] Tests run: 6, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.271 s -- in com.tessera.billing.SubscriptionServiceTest
[INFO]
[INFO] Results:
[INFO]
[INFO] Tests run: 6, Failures: 0, Errors: 0, Skipped: 0
[INFO]
[INFO] BUILD SUCCESS
"""

TESSERA_TEST = "./mvnw -pl billing -am test -Dtest=SubscriptionServiceTest -Dsurefire.failIfNoSpecifiedTests=false"

# --- bramble-cli (TypeScript, bun) -------------------------------------------

STATS_OLD = """\
export function median(values: number[]): number {
  const sorted = [...values];
"""

STATS_BAD = """\
export function median(values: number[]): number {
  const sorted = [...values].sort();
"""

STATS_GOOD = """\
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
"""

BUN_FAIL = """\
bun test v1.1.38 (bf2f153f)

src/stats.test.ts:
✓ median > single value [0.18ms]
12 |   test("multi-digit values", () => {
13 |     expect(median([2, 10, 3])).toBe(3);
                                    ^
error: expect(received).toBe(expected)

Expected: 3
Received: 2

      at /home/dev/bramble-cli/src/stats.test.ts:13:32
✗ median > multi-digit values [0.41ms]
✓ p95 > small sample [0.06ms]

 2 pass
 1 fail
 3 expect() calls
Ran 3 tests across 1 files. [38.00ms]
"""

INCIDENTS = [
    Incident(
        id="tf-juniper-getday-vs-getdate",
        shape=TEST_FIX,
        agent=CC,
        project="juniper-web",
        session=[
            U("show booking dates as dd.mm.yyyy instead of the raw ISO string"),
            edit("src/lib/format.ts", FORMAT_OLD, FORMAT_BAD),
            err("yarn vitest run src/lib/format.test.ts", VITEST_FAIL),
            A("getDay() is the weekday (0–6), not the day of the month; it should be getDate()."),
            edit("src/lib/format.ts", FORMAT_BAD, FORMAT_GOOD),
            ok("yarn vitest run src/lib/format.test.ts", VITEST_OK),
        ],
        mistake='Edit src/lib/format.ts: const day = String(d.getDay()).padStart(2, "0");',
        lesson="Date.getDay() is the weekday; for the day of the month use getDate()",
        warn=[
            same(E("src/lib/format.ts", FORMAT_OLD, FORMAT_BAD)),
            reword(
                W(
                    "src/lib/invoice-date.ts",
                    "export function invoiceDay(issued: Date): string {\n"
                    '  const dd = issued.getDay().toString().padStart(2, "0");\n'
                    '  const mm = (issued.getMonth() + 1).toString().padStart(2, "0");\n'
                    "  return `${issued.getFullYear()}-${mm}-${dd}`;\n}\n",
                )
            ),
        ],
        silent=[
            fix(E("src/lib/format.ts", FORMAT_OLD, FORMAT_GOOD)),
            code(
                E(
                    "src/lib/format.ts",
                    'export const DEFAULT_LOCALE = "en-GB";\n',
                    'export const DEFAULT_LOCALE = "en-GB";\n\n'
                    "export function isWeekend(d: Date): boolean {\n  return d.getDay() === 0 || d.getDay() === 6;\n}\n",
                )
            ),
            code(
                E(
                    "src/lib/format.ts",
                    'export const DEFAULT_LOCALE = "en-GB";\n',
                    'export const DEFAULT_LOCALE = "de-DE";\n',
                )
            ),
        ],
    ),
    Incident(
        id="tf-pika-defer-close-before-err",
        shape=TEST_FIX,
        agent=CODEX,
        project="pika-api",
        session=[
            U("implement Store.ListExpired so the janitor can purge old sessions"),
            edit("internal/store/sessions.go", SESSIONS_OLD, SESSIONS_BAD),
            err("go test ./internal/store/ -run TestListExpired", GO_PANIC),
            A("rows is nil when the query fails, and the deferred Close runs on it — check err before deferring."),
            edit("internal/store/sessions.go", SESSIONS_BAD, SESSIONS_GOOD),
            ok(
                "go test ./internal/store/ -run TestListExpired",
                "ok  \tgithub.com/pika-dev/pika-api/internal/store\t0.024s\n",
            ),
        ],
        mistake="Edit internal/store/sessions.go: defer rows.Close() before if err != nil",
        lesson="check the error from QueryContext before defer rows.Close(); rows is nil on error and Close panics",
        warn=[
            same(E("internal/store/sessions.go", SESSIONS_OLD, SESSIONS_BAD)),
            reword(
                E(
                    "internal/store/apikeys.go",
                    "func (s *Store) KeysForOwner(ctx context.Context, ownerID int64) ([]APIKey, error) {\n",
                    "func (s *Store) KeysForOwner(ctx context.Context, ownerID int64) ([]APIKey, error) {\n"
                    "\tres, qerr := s.db.QueryContext(ctx, `SELECT id, prefix, created_at FROM api_keys WHERE owner_id = $1`, ownerID)\n"
                    "\tdefer res.Close()\n"
                    "\tif qerr != nil {\n"
                    "\t\treturn nil, qerr\n"
                    "\t}\n",
                )
            ),
        ],
        silent=[
            fix(E("internal/store/sessions.go", SESSIONS_OLD, SESSIONS_GOOD)),
            code(
                E(
                    "internal/store/sessions.go",
                    "const listExpiredSQL = `SELECT id, user_id, expires_at FROM sessions WHERE expires_at < $1`\n",
                    "const listExpiredSQL = `SELECT id, user_id, expires_at FROM sessions WHERE expires_at < $1 ORDER BY expires_at LIMIT 5000`\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-quill-u64-subtract-overflow",
        shape=TEST_FIX,
        agent=GEMINI,
        project="quill-rs",
        session=[
            U("add a remaining() to UploadProgress for the progress bar"),
            edit("crates/quill-sync/src/progress.rs", PROGRESS_OLD, PROGRESS_BAD),
            err("cargo test -p quill-sync --features s3 progress", CARGO_OVERFLOW, code=101),
            A("After a retried chunk `uploaded` can exceed `total`, so the u64 subtraction underflows."),
            edit("crates/quill-sync/src/progress.rs", PROGRESS_BAD, PROGRESS_GOOD),
            ok(
                "cargo test -p quill-sync --features s3 progress",
                "running 4 tests\n....\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 19 filtered out; finished in 0.00s\n",
            ),
        ],
        mistake="Edit crates/quill-sync/src/progress.rs: self.total - self.uploaded",
        lesson="byte counters are u64 and can overshoot: use saturating_sub instead of a plain - (it panics with 'attempt to subtract with overflow')",
        warn=[
            same(E("crates/quill-sync/src/progress.rs", PROGRESS_OLD, PROGRESS_BAD)),
            reword(
                E(
                    "crates/quill-core/src/quota.rs",
                    "    pub fn free_bytes(&self) -> u64 {\n        unimplemented!()\n    }\n",
                    "    pub fn free_bytes(&self) -> u64 {\n        self.capacity_bytes - self.used_bytes\n    }\n",
                )
            ),
        ],
        silent=[
            fix(E("crates/quill-sync/src/progress.rs", PROGRESS_OLD, PROGRESS_GOOD)),
            fix(
                E(
                    "crates/quill-core/src/quota.rs",
                    "    pub fn free_bytes(&self) -> u64 {\n        unimplemented!()\n    }\n",
                    "    pub fn free_bytes(&self) -> u64 {\n        self.capacity_bytes.saturating_sub(self.used_bytes)\n    }\n",
                )
            ),
            code(
                E(
                    "crates/quill-sync/src/progress.rs",
                    "    pub fn is_done(&self) -> bool {\n        false\n    }\n",
                    "    pub fn is_done(&self) -> bool {\n        self.uploaded >= self.total\n    }\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-ledgerline-float-cents",
        shape=TEST_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("the bank CSV now has amounts like 19.99 instead of cents, update the importer"),
            edit("app/services/invoice_importer.rb", IMPORTER_OLD, IMPORTER_BAD),
            err("bundle exec rspec spec/services/invoice_importer_spec.rb", RSPEC_CENTS_FAIL),
            A("19.99 * 100 is 1998.9999… as a Float, and to_i truncates. Parse it as a BigDecimal."),
            edit("app/services/invoice_importer.rb", IMPORTER_BAD, IMPORTER_GOOD),
            ok(
                "bundle exec rspec spec/services/invoice_importer_spec.rb",
                ".......\n\nFinished in 0.398 seconds (files took 2.91 seconds to load)\n7 examples, 0 failures\n",
            ),
        ],
        mistake='Edit app/services/invoice_importer.rb: amount_cents: (row["amount"].to_f * 100).to_i',
        lesson="never convert money with to_f * 100 then to_i (19.99 -> 1998); use BigDecimal(str) * 100",
        warn=[
            same(E("app/services/invoice_importer.rb", IMPORTER_OLD, IMPORTER_BAD)),
            reword(
                E(
                    "app/services/refund_calculator.rb",
                    "    refund_cents = 0\n",
                    "    refund_cents = (params[:refund_amount].to_f * 100).to_i\n",
                )
            ),
        ],
        silent=[
            fix(E("app/services/invoice_importer.rb", IMPORTER_OLD, IMPORTER_GOOD)),
            fix(
                E(
                    "app/services/refund_calculator.rb",
                    "    refund_cents = 0\n",
                    "    refund_cents = (BigDecimal(params[:refund_amount]) * 100).to_i\n",
                )
            ),
            code(
                E(
                    "app/services/invoice_importer.rb",
                    '      currency: row["currency"],\n',
                    '      currency: row["currency"].presence || "EUR",\n',
                )
            ),
        ],
    ),
    Incident(
        id="tf-mosaic-kotlin-toint-empty",
        shape=TEST_FIX,
        agent=CODEX,
        project="mosaic-android",
        session=[
            U("add a QuantityParser for the cart's quantity text field"),
            edit("app/src/main/java/com/mosaic/app/cart/QuantityParser.kt", QTY_OLD, QTY_BAD),
            err(JDK17 + "./gradlew :app:testDebugUnitTest --tests '*QuantityParserTest'", GRADLE_TEST_FAIL),
            A("toInt() throws on an empty or non-numeric field; the field can be empty while typing."),
            edit("app/src/main/java/com/mosaic/app/cart/QuantityParser.kt", QTY_BAD, QTY_GOOD),
            ok(JDK17 + "./gradlew :app:testDebugUnitTest --tests '*QuantityParserTest'", GRADLE_TEST_OK),
        ],
        mistake="Edit app/src/main/java/com/mosaic/app/cart/QuantityParser.kt: input.trim().toInt()",
        lesson='don\'t call toInt() on user text (NumberFormatException on ""); use toIntOrNull() ?: default',
        warn=[
            same(E("app/src/main/java/com/mosaic/app/cart/QuantityParser.kt", QTY_OLD, QTY_BAD)),
            reword(
                E(
                    "app/src/main/java/com/mosaic/app/catalog/CatalogViewModel.kt",
                    "    private val page: Int = 1\n",
                    '    private val page: Int = savedState.get<String>("page").orEmpty().toInt()\n',
                )
            ),
        ],
        silent=[
            fix(E("app/src/main/java/com/mosaic/app/cart/QuantityParser.kt", QTY_OLD, QTY_GOOD)),
            fix(
                E(
                    "app/src/main/java/com/mosaic/app/catalog/CatalogViewModel.kt",
                    "    private val page: Int = 1\n",
                    '    private val page: Int = savedState.get<String>("page")?.toIntOrNull() ?: 1\n',
                )
            ),
            code(
                E(
                    "app/src/main/java/com/mosaic/app/cart/QuantityParser.kt",
                    "    const val MAX_QTY = 99\n",
                    "    const val MAX_QTY = 50\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-compass-midpoint-rounding",
        shape=TEST_FIX,
        agent=GEMINI,
        project="compass-dotnet",
        session=[
            U("tax amounts should be rounded to cents"),
            edit("src/Compass.Billing/TaxCalculator.cs", TAX_OLD, TAX_BAD),
            err("dotnet test Compass.sln --filter FullyQualifiedName~TaxCalculatorTests", XUNIT_FAIL),
            A("Math.Round defaults to banker's rounding (2.425 -> 2.42); invoices need half away from zero."),
            edit("src/Compass.Billing/TaxCalculator.cs", TAX_BAD, TAX_GOOD),
            ok(
                "dotnet test Compass.sln --filter FullyQualifiedName~TaxCalculatorTests",
                "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 41 ms - Compass.Billing.Tests.dll (net8.0)\n",
            ),
        ],
        mistake="Edit src/Compass.Billing/TaxCalculator.cs: return Math.Round(net * rate, 2);",
        lesson="Math.Round(x, 2) rounds half to even; money must use Math.Round(x, 2, MidpointRounding.AwayFromZero)",
        warn=[
            same(E("src/Compass.Billing/TaxCalculator.cs", TAX_OLD, TAX_BAD)),
            reword(
                E(
                    "src/Compass.Billing/DiscountService.cs",
                    "        var discount = lineTotal * percent / 100m;\n",
                    "        var discount = Math.Round(lineTotal * percent / 100m, 2);\n",
                )
            ),
        ],
        silent=[
            fix(E("src/Compass.Billing/TaxCalculator.cs", TAX_OLD, TAX_GOOD)),
            fix(
                E(
                    "src/Compass.Billing/DiscountService.cs",
                    "        var discount = lineTotal * percent / 100m;\n",
                    "        var discount = Math.Round(lineTotal * percent / 100m, 2, MidpointRounding.AwayFromZero);\n",
                )
            ),
            code(
                E(
                    "src/Compass.Billing/TaxCalculator.cs",
                    '    public const string DefaultRegion = "EU";\n',
                    '    public const string DefaultRegion = "EU-DE";\n',
                )
            ),
        ],
    ),
    Incident(
        id="tf-lumen-struct-date-compare",
        shape=TEST_FIX,
        agent=CC,
        project="lumen-phx",
        session=[
            U("add Boards.overdue_cards/2 for the reminder email"),
            edit("lib/lumen/boards.ex", BOARDS_OLD, BOARDS_BAD),
            err("mix test test/lumen/boards_test.exs", EXUNIT_FAIL, code=2),
            A("`<` on Date structs compares them structurally, not by date; it has to be Date.compare/2."),
            edit("lib/lumen/boards.ex", BOARDS_BAD, BOARDS_GOOD),
            ok(
                "mix test test/lumen/boards_test.exs",
                "Running ExUnit with seed: 90412, max_cases: 16\n\n.........\nFinished in 0.3 seconds (0.3s async, 0.0s sync)\n9 tests, 0 failures\n",
            ),
        ],
        mistake="Edit lib/lumen/boards.ex: &1.due_on < today",
        lesson="never compare Date structs with < or >; use Date.compare/2 (or Date.before?/after?)",
        warn=[
            same(E("lib/lumen/boards.ex", BOARDS_OLD, BOARDS_BAD)),
            reword(
                E(
                    "lib/lumen/billing.ex",
                    "  def stale_invoices(invoices, cutoff) do\n    invoices\n  end\n",
                    "  def stale_invoices(invoices, cutoff) do\n    Enum.filter(invoices, fn inv -> inv.issued_on < cutoff end)\n  end\n",
                )
            ),
        ],
        silent=[
            fix(E("lib/lumen/boards.ex", BOARDS_OLD, BOARDS_GOOD)),
            fix(
                E(
                    "lib/lumen/billing.ex",
                    "  def stale_invoices(invoices, cutoff) do\n    invoices\n  end\n",
                    "  def stale_invoices(invoices, cutoff) do\n    Enum.filter(invoices, fn inv -> Date.before?(inv.issued_on, cutoff) end)\n  end\n",
                )
            ),
            code(
                E(
                    "lib/lumen/boards.ex",
                    "  @max_cards_per_column 200\n",
                    "  @max_cards_per_column 500\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-tallybook-mutable-default-arg",
        shape=TEST_FIX,
        agent=CODEX,
        project="tallybook",
        session=[
            U("let add_entry take extra tags; the default tag should still be added"),
            read(
                "src/tallybook/ledger.py",
                "class Ledger:\n    def __init__(self, default_tag: str) -> None:\n        self.default_tag = default_tag\n"
                "        self.entries: list[Entry] = []\n\n"
                + LEDGER_OLD
                + "        self.entries.append(entry)\n        return entry\n",
            ),
            edit("src/tallybook/ledger.py", LEDGER_OLD, LEDGER_BAD),
            err("uv run pytest tests/test_ledger.py -q", PYTEST_FAIL),
            A("The `tags=[]` default is shared between calls, so each call appends to the same list."),
            edit("src/tallybook/ledger.py", LEDGER_BAD, LEDGER_GOOD),
            ok(
                "uv run pytest tests/test_ledger.py -q",
                ".......                                                                  [100%]\n7 passed in 0.08s\n",
            ),
        ],
        mistake="Edit src/tallybook/ledger.py: def add_entry(self, amount, memo, tags: list[str] = [])",
        lesson="no mutable default arguments (tags=[] / filters={}): default to None and build a new list/dict inside",
        warn=[
            same(E("src/tallybook/ledger.py", LEDGER_OLD, LEDGER_BAD)),
            reword(
                E(
                    "src/tallybook/reports.py",
                    "def monthly_report(entries: list[Entry]) -> Report:\n",
                    "def monthly_report(entries: list[Entry], filters: dict[str, str] = {}) -> Report:\n"
                    '    filters.setdefault("currency", "EUR")\n',
                )
            ),
        ],
        silent=[
            fix(E("src/tallybook/ledger.py", LEDGER_OLD, LEDGER_GOOD)),
            fix(
                E(
                    "src/tallybook/reports.py",
                    "def monthly_report(entries: list[Entry]) -> Report:\n",
                    "def monthly_report(entries: list[Entry], filters: dict[str, str] | None = None) -> Report:\n"
                    '    filters = {"currency": "EUR", **(filters or {})}\n',
                )
            ),
            code(
                E(
                    "src/tallybook/ledger.py",
                    "    def __init__(self, default_tag: str) -> None:\n",
                    '    def __init__(self, default_tag: str = "uncategorised") -> None:\n',
                )
            ),
        ],
    ),
    Incident(
        id="tf-fleet-bash-ls-loop",
        shape=TEST_FIX,
        agent=CC,
        project="fleet-ops",
        session=[
            U("make rotate-logs.sh gzip the logs instead of deleting them"),
            edit("scripts/rotate-logs.sh", ROTATE_OLD, ROTATE_BAD),
            err("bats test/rotate_logs.bats", BATS_FAIL),
            A("`$(ls ...)` word-splits file names with spaces; loop over the glob directly and quote it."),
            edit("scripts/rotate-logs.sh", ROTATE_BAD, ROTATE_GOOD),
            ok(
                "bats test/rotate_logs.bats",
                "rotate_logs.bats\n ✓ compresses plain log files\n ✓ handles log names with spaces\n ✓ leaves .gz files alone\n\n3 tests, 0 failures\n",
            ),
        ],
        mistake="Edit scripts/rotate-logs.sh: for f in $(ls $LOG_DIR/*.log); do",
        lesson='never loop over $(ls ...) in shell scripts (breaks on spaces); use for f in "$DIR"/*.log; do',
        warn=[
            same(E("scripts/rotate-logs.sh", ROTATE_OLD, ROTATE_BAD)),
            reword(
                E(
                    "scripts/prune-backups.sh",
                    "# drop archives older than $KEEP_DAYS\n",
                    "# drop archives older than $KEEP_DAYS\n"
                    "for archive in $(ls ${BACKUP_DIR}/*.tar.gz); do\n"
                    '  if [ "$(find "$archive" -mtime +"$KEEP_DAYS")" ]; then rm -f "$archive"; fi\n'
                    "done\n",
                )
            ),
        ],
        silent=[
            fix(E("scripts/rotate-logs.sh", ROTATE_OLD, ROTATE_GOOD)),
            fix(
                E(
                    "scripts/prune-backups.sh",
                    "# drop archives older than $KEEP_DAYS\n",
                    '# drop archives older than $KEEP_DAYS\nfind "$BACKUP_DIR" -name \'*.tar.gz\' -mtime +"$KEEP_DAYS" -delete\n',
                )
            ),
            code(
                E(
                    "scripts/rotate-logs.sh",
                    'LOG_DIR="${LOG_DIR:-/var/log/fleet}"\n',
                    'LOG_DIR="${LOG_DIR:-/var/log/fleet}"\nKEEP_DAYS="${KEEP_DAYS:-14}"\n',
                )
            ),
        ],
    ),
    Incident(
        id="tf-granary-sql-equals-null",
        shape=TEST_FIX,
        agent=CODEX,
        project="granary-php",
        session=[
            U("the active_subscriptions view should leave out cancelled subscriptions"),
            edit("database/sql/views/active_subscriptions.sql", VIEW_OLD, VIEW_BAD),
            ok(
                "docker compose exec app php artisan migrate",
                "\n   INFO  Running migrations.\n\n  2026_03_02_093000_recreate_active_subscriptions_view ............. 12.10ms DONE\n",
            ),
            err(GRANARY_TEST, ARTISAN_VIEW_FAIL, code=2),
            A("`= NULL` is never true in SQL, so the view is empty. It needs IS NULL."),
            edit("database/sql/views/active_subscriptions.sql", VIEW_BAD, VIEW_GOOD),
            ok(
                GRANARY_TEST,
                "\n   PASS  Tests\\Feature\\ActiveSubscriptionsViewTest\n  ✓ it lists subscriptions that are not cancelled   0.29s\n  ✓ it hides cancelled subscriptions   0.04s\n\n  Tests:    2 passed (3 assertions)\n",
            ),
        ],
        mistake="Edit database/sql/views/active_subscriptions.sql: AND s.cancelled_at = NULL",
        lesson="= NULL never matches in SQL; write IS NULL / IS NOT NULL",
        warn=[
            same(E("database/sql/views/active_subscriptions.sql", VIEW_OLD, VIEW_BAD)),
            reword(
                E(
                    "database/sql/views/overdue_invoices.sql",
                    "WHERE i.due_on < CURRENT_DATE\n",
                    "WHERE i.due_on < CURRENT_DATE\n  AND i.paid_at = NULL\n",
                )
            ),
        ],
        silent=[
            fix(E("database/sql/views/active_subscriptions.sql", VIEW_OLD, VIEW_GOOD)),
            fix(
                E(
                    "database/sql/views/overdue_invoices.sql",
                    "WHERE i.due_on < CURRENT_DATE\n",
                    "WHERE i.due_on < CURRENT_DATE\n  AND i.paid_at IS NULL\n",
                )
            ),
            code(
                E(
                    "database/sql/views/active_subscriptions.sql",
                    "SELECT s.id, s.customer_id, s.plan_id, s.started_at\n",
                    "SELECT s.id, s.customer_id, s.plan_id, s.started_at, s.renews_at\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-tessera-java-string-identity",
        shape=TEST_FIX,
        agent=GEMINI,
        project="tessera-api",
        session=[
            U("enterprise plans should be invoiced manually"),
            edit("billing/src/main/java/com/tessera/billing/SubscriptionService.java", SUB_OLD, SUB_BAD),
            err(TESSERA_TEST, MVN_FAIL),
            A("`==` compares String references; the plan code comes from the database, so it's never the same object."),
            edit("billing/src/main/java/com/tessera/billing/SubscriptionService.java", SUB_BAD, SUB_GOOD),
            ok(TESSERA_TEST, MVN_OK),
        ],
        mistake='Edit billing/src/main/java/com/tessera/billing/SubscriptionService.java: if (sub.getPlan().getCode() == "ENTERPRISE")',
        lesson='never compare Java Strings with ==; use "CONST".equals(value)',
        warn=[
            same(E("billing/src/main/java/com/tessera/billing/SubscriptionService.java", SUB_OLD, SUB_BAD)),
            reword(
                E(
                    "api/src/main/java/com/tessera/api/auth/RoleGuard.java",
                    "    public boolean canRefund(User user) {\n        return false;\n",
                    '    public boolean canRefund(User user) {\n        if (user.getRole() == "ADMIN") {\n            return true;\n        }\n        return false;\n',
                )
            ),
        ],
        silent=[
            fix(E("billing/src/main/java/com/tessera/billing/SubscriptionService.java", SUB_OLD, SUB_GOOD)),
            fix(
                E(
                    "api/src/main/java/com/tessera/api/auth/RoleGuard.java",
                    "    public boolean canRefund(User user) {\n        return false;\n",
                    '    public boolean canRefund(User user) {\n        if ("ADMIN".equals(user.getRole())) {\n            return true;\n        }\n        return false;\n',
                )
            ),
            code(
                E(
                    "billing/src/main/java/com/tessera/billing/SubscriptionService.java",
                    "    private static final int GRACE_DAYS = 7;\n",
                    "    private static final int GRACE_DAYS = 10;\n",
                )
            ),
        ],
    ),
    Incident(
        id="tf-bramble-default-sort-numbers",
        shape=TEST_FIX,
        agent=GEMINI,
        project="bramble-cli",
        session=[
            U("median() returns garbage for unsorted input, fix it"),
            edit("src/stats.ts", STATS_OLD, STATS_BAD),
            err("bun test src/stats.test.ts", BUN_FAIL),
            A('Array.prototype.sort() without a comparator sorts as strings ("10" < "2").'),
            edit("src/stats.ts", STATS_BAD, STATS_GOOD),
            ok(
                "bun test src/stats.test.ts",
                "bun test v1.1.38 (bf2f153f)\n\nsrc/stats.test.ts:\n✓ median > single value [0.15ms]\n✓ median > multi-digit values [0.09ms]\n"
                "✓ p95 > small sample [0.05ms]\n\n 3 pass\n 0 fail\n 3 expect() calls\nRan 3 tests across 1 files. [35.00ms]\n",
            ),
        ],
        mistake="Edit src/stats.ts: const sorted = [...values].sort();",
        lesson="sort() without a comparator sorts numbers as strings; always .sort((a, b) => a - b) for numbers",
        warn=[
            same(E("src/stats.ts", STATS_OLD, STATS_BAD)),
            reword(
                E(
                    "src/report.ts",
                    "  const durationsMs = runs.map((r) => r.durationMs);\n",
                    "  const durationsMs = runs.map((r) => r.durationMs).sort();\n",
                )
            ),
        ],
        silent=[
            fix(E("src/stats.ts", STATS_OLD, STATS_GOOD)),
            fix(
                E(
                    "src/report.ts",
                    "  const durationsMs = runs.map((r) => r.durationMs);\n",
                    "  const durationsMs = runs.map((r) => r.durationMs).sort((a, b) => a - b);\n",
                )
            ),
            code(
                E(
                    "src/report.ts",
                    "  const tagNames = [...new Set(runs.flatMap((r) => r.tags))];\n",
                    "  const tagNames = [...new Set(runs.flatMap((r) => r.tags))].sort();\n",
                )
            ),
        ],
    ),
]
