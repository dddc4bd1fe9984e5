"""Dev split, shape 4: an edit makes a test fail, a different edit makes it pass.

The lesson is a code pattern: it should fire on an Edit/Write that brings the
bad pattern back (``same`` is the session's own buggy edit, ``reword`` the same
bug in another file, with other names), not on test runs, not on edits that
use the fix, and not on fine code that merely looks alike.
"""

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
    reword,
    same,
    write,
)

# Java: String compared with ==
_PAY_PATH = "app/src/main/java/com/acme/harbor/order/OrderService.java"
_PAY_OLD = "        Order order = orders.findById(event.orderId()).orElseThrow();\n        orders.save(order);\n"
_PAY_BAD = ("        Order order = orders.findById(event.orderId()).orElseThrow();\n"
            "        if (event.status() == \"PAID\") {\n            order.markPaid(event.paidAt());\n        }\n"
            "        orders.save(order);\n")
_PAY_OK = _PAY_BAD.replace('event.status() == "PAID"', '"PAID".equals(event.status())')
_SHIP_PATH = "app/src/main/java/com/acme/harbor/shipping/ShippingRules.java"
_SHIP_OLD = "    public boolean needsSignature(Shipment s) {\n"

# Java: BigDecimal.equals
_MONEY_PATH = "kestrel-core/src/main/java/dev/kestrel/core/money/Money.java"
_MONEY_OLD = "    public Money negate() {\n"
_MONEY_BAD = "    public boolean isZero() {\n        return amount.equals(BigDecimal.ZERO);\n    }\n\n    public Money negate() {\n"
_FEE_PATH = "kestrel-core/src/main/java/dev/kestrel/core/fees/FeeCalculator.java"
_FEE_OLD = "    public Money fee(Money amount, BigDecimal rate) {\n"

# Java: shared SimpleDateFormat
_DATES_PATH = "kestrel-api/src/main/java/dev/kestrel/api/http/HttpDates.java"
_DATES_BAD = (
    "package dev.kestrel.api.http;\n\nimport java.text.ParseException;\nimport java.text.SimpleDateFormat;\n"
    "import java.time.Instant;\nimport java.util.Locale;\nimport java.util.TimeZone;\n\nfinal class HttpDates {\n"
    "    private static final SimpleDateFormat RFC_1123 =\n"
    "            new SimpleDateFormat(\"EEE, dd MMM yyyy HH:mm:ss zzz\", Locale.US);\n\n"
    "    static {\n        RFC_1123.setTimeZone(TimeZone.getTimeZone(\"GMT\"));\n    }\n\n"
    "    static Instant parse(String value) throws ParseException {\n        return RFC_1123.parse(value).toInstant();\n    }\n}\n"
)
_DATES_OK = (
    "package dev.kestrel.api.http;\n\nimport java.time.Instant;\nimport java.time.ZonedDateTime;\n"
    "import java.time.format.DateTimeFormatter;\n\nfinal class HttpDates {\n"
    "    static Instant parse(String value) {\n"
    "        return ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();\n    }\n}\n"
)
_AUDIT_PATH = "kestrel-core/src/main/java/dev/kestrel/core/log/AuditLog.java"
_AUDIT_OLD = "public final class AuditLog {\n"

# Ruby: Date.today in a Rails app with a time zone
_SUB_OLD = "  def active?\n"
_SUB_BAD = "  def renews_today?\n    renews_on == Date.today\n  end\n\n  def active?\n"

# Helm: unquoted numeric env value
_ENV_OLD = "            - name: RAILS_ENV\n              value: production\n"
_ENV_BAD = _ENV_OLD + "            - name: RAILS_MAX_THREADS\n              value: {{ .Values.web.maxThreads }}\n"
_KUBECONFORM_FAIL = (
    "helm template orchard charts/orchard -f charts/orchard/values-staging.yaml | kubeconform -strict -summary\n"
    "stdin - Deployment orchard-web is invalid: problem validating schema. Check JSON formatting: jsonschema: "
    "'/spec/template/spec/containers/0/env/1/value' does not validate with "
    "https://raw.githubusercontent.com/yannh/kubernetes-json-schema/master/master-standalone-strict/deployment-apps-v1.json"
    "#/properties/spec/properties/template/properties/spec/properties/containers/items/properties/env/items/properties/value/type: "
    "expected string or null, but got number\n"
    "Summary: 9 resources found parsing stdin - Valid: 8, Invalid: 1, Errors: 0, Skipped: 0\n"
    "make: *** [Makefile:31: chart-test] Error 1"
)

# C#: mutating what a deferred LINQ query filters on
_REM_PATH = "src/Beacon.Worker/Reminders/ReminderJob.cs"
_REM_OLD = "    public int SendReminders(IEnumerable<Invoice> invoices, DateOnly today)\n    {\n        return 0;\n    }\n"
_REM_BAD = (
    "    public int SendReminders(IEnumerable<Invoice> invoices, DateOnly today)\n    {\n"
    "        var due = invoices.Where(i => i.DueDate < today && !i.ReminderSent);\n"
    "        foreach (var invoice in due)\n        {\n            _mailer.SendReminder(invoice);\n"
    "            invoice.ReminderSent = true;\n        }\n        return due.Count();\n    }\n"
)
_REM_OK = _REM_BAD.replace("!i.ReminderSent);\n", "!i.ReminderSent).ToList();\n")
_SETTLE_PATH = "src/Beacon.Domain/Billing/Settlement.cs"
_SETTLE_OLD = "    public decimal SettleAll(IEnumerable<Invoice> invoices)\n    {\n"

# Python: deleting from a dict while iterating it
_CART_OLD = "    def save(self):\n        self.session[CART_KEY] = self.lines\n"
_CART_BAD = ("    def save(self):\n        for sku in self.lines:\n            if self.lines[sku][\"qty\"] == 0:\n"
             "                del self.lines[sku]\n        self.session[CART_KEY] = self.lines\n")
_CART_OK = ("    def save(self):\n        self.lines = {sku: line for sku, line in self.lines.items() if line[\"qty\"] > 0}\n"
            "        self.session[CART_KEY] = self.lines\n")
_STOCK_OLD = "def release_expired(reservations, now):\n"

# Express: no return after sending the error response
_ORD_OLD = "  const order = await findOrder(req.params.id);\n  res.json(order);\n"
_ORD_BAD = ("  const order = await findOrder(req.params.id);\n  if (!order) {\n"
            "    res.status(404).json({ error: \"order not found\" });\n  }\n  res.json(order);\n")
_CUST_OLD = "  const customer = await findCustomer(req.params.id);\n  res.json(customer);\n"

# Rust: byte-slicing a UTF-8 string
_SNIP_OLD = "    let snippet = diag.snippet.trim();\n"
_SNIP_BAD = _SNIP_OLD + "    let snippet = if snippet.len() > 40 { &snippet[..40] } else { snippet };\n"
_SNIP_OK = _SNIP_OLD + "    let snippet: String = snippet.chars().take(40).collect();\n"

# Go: comparing wrapped errors with ==
_TILE_OLD = ("\ttile, err := h.store.GetTile(r.Context(), z, x, y)\n\tif err != nil {\n"
             "\t\thttp.Error(w, \"internal error\", http.StatusInternalServerError)\n\t\treturn\n\t}\n")
_TILE_BAD = ("\ttile, err := h.store.GetTile(r.Context(), z, x, y)\n\tif err == store.ErrNotFound {\n"
             "\t\thttp.Error(w, \"tile not found\", http.StatusNotFound)\n\t\treturn\n\t}\n\tif err != nil {\n"
             "\t\thttp.Error(w, \"internal error\", http.StatusInternalServerError)\n\t\treturn\n\t}\n")
_STYLE_OLD = "\tstyle, err := h.store.GetStyle(r.Context(), name)\n\tif err != nil {\n"

# Shell: looping over $(ls) with unquoted paths
_LOAD_OLD = "load_file \"$SPOOL/orders.csv\"\n"
_LOAD_BAD = "for f in $(ls $SPOOL/*.csv); do\n  load_file $f\ndone\n"
_LOAD_OK = "for f in \"$SPOOL\"/*.csv; do\n  [ -e \"$f\" ] || continue\n  load_file \"$f\"\ndone\n"
_ARCH_OLD = "# move processed files to the archive\n"

# SQL: NOT IN over a nullable column
_INACTIVE_BAD = (
    "CREATE OR REPLACE VIEW reporting.inactive_customers AS\nSELECT c.id, c.email, c.created_at\nFROM customers c\n"
    "WHERE c.id NOT IN (SELECT o.customer_id FROM orders o);\n"
)
_UNSHIPPED_OLD = "WHERE o.status = 'paid'\n"

INCIDENTS = [
    Incident(
        "tf-harbor-string-identity", TEST_FIX, CC, "harbor-api",
        session=[
            U("Handle the payment webhook: when the event status is PAID, mark the order paid."),
            edit(_PAY_PATH, _PAY_OLD, _PAY_BAD),
            err("./gradlew :app:test --tests OrderServiceTest",
                "> Task :app:test FAILED\n\nOrderServiceTest > marksOrderPaidOnPaidEvent() FAILED\n"
                "    org.opentest4j.AssertionFailedError: expected: <PAID> but was: <PENDING_PAYMENT>\n"
                "        at app//org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n"
                "        at app//org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:182)\n"
                "        at app//com.acme.harbor.order.OrderServiceTest.marksOrderPaidOnPaidEvent(OrderServiceTest.java:48)\n\n"
                "6 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Execution failed for task ':app:test'.\n> There were failing tests. See the report at: "
                "file:///home/dev/harbor-api/app/build/reports/tests/test/index.html\n\nBUILD FAILED in 9s"),
            edit(_PAY_PATH, _PAY_BAD, _PAY_OK),
            ok("./gradlew :app:test --tests OrderServiceTest", "BUILD SUCCESSFUL in 7s\n5 actionable tasks: 2 executed, 3 up-to-date"),
            A("Fixed: `==` compares String references, and the status deserialised from the webhook JSON is a different "
              "object from the literal, so it needs .equals."),
        ],
        mistake=f'Edit {_PAY_PATH}: if (event.status() == "PAID")',
        lesson='Java: compare strings with .equals ("PAID".equals(status)), never ==; == compares references and fails for deserialised strings.',
        warn=[same(E(_PAY_PATH, _PAY_OLD, _PAY_BAD)),
              reword(E(_SHIP_PATH, _SHIP_OLD,
                       _SHIP_OLD + "        if (s.carrier() == \"DHL_EXPRESS\") {\n            return true;\n        }\n"))],
        silent=[fix(E(_SHIP_PATH, _SHIP_OLD,
                      _SHIP_OLD + "        if (\"DHL_EXPRESS\".equals(s.carrier())) {\n            return true;\n        }\n")),
                code(E("app/src/main/java/com/acme/harbor/order/RefundService.java", "    public Refund refund(Order order) {\n",
                       "    public Refund refund(Order order) {\n        if (order.status() != OrderStatus.PAID) {\n"
                       "            throw new IllegalStateException(\"order \" + order.id() + \" is not paid\");\n        }\n")),
                other("./gradlew :app:test --tests OrderServiceTest")],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-kestrel-bigdecimal-equals", TEST_FIX, CC, "kestrel",
        session=[
            U("Add Money.isZero() for the fee calculator."),
            edit(_MONEY_PATH, _MONEY_OLD, _MONEY_BAD),
            err("mvn -pl kestrel-core test -Dtest=MoneyTest",
                "[INFO] Running dev.kestrel.core.money.MoneyTest\n"
                "[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.081 s <<< FAILURE! -- in dev.kestrel.core.money.MoneyTest\n"
                "[ERROR] dev.kestrel.core.money.MoneyTest.zeroWithScaleIsZero -- Time elapsed: 0.004 s <<< FAILURE!\n"
                "org.opentest4j.AssertionFailedError: expected: <true> but was: <false>\n"
                "\tat dev.kestrel.core.money.MoneyTest.zeroWithScaleIsZero(MoneyTest.java:77)\n\n"
                "[INFO] Results:\n[INFO] \n[ERROR] Failures: \n[ERROR]   MoneyTest.zeroWithScaleIsZero:77 expected: <true> but was: <false>\n"
                "[INFO] \n[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE"),
            edit(_MONEY_PATH, "        return amount.equals(BigDecimal.ZERO);\n", "        return amount.signum() == 0;\n"),
            ok("mvn -pl kestrel-core test -Dtest=MoneyTest",
               "[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.077 s -- in dev.kestrel.core.money.MoneyTest\n"
               "[INFO] BUILD SUCCESS"),
            A("isZero() is right for 0.00 now: BigDecimal.equals also compares the scale (0.00 is not equal to 0), so "
              "values have to be compared with signum() or compareTo()."),
        ],
        mistake=f"Edit {_MONEY_PATH}: return amount.equals(BigDecimal.ZERO);",
        lesson="Java: never compare BigDecimal values with equals (it compares scale too: 0.00 ≠ 0); use compareTo(...) == 0 or signum().",
        warn=[same(E(_MONEY_PATH, _MONEY_OLD, _MONEY_BAD)),
              reword(E(_FEE_PATH, _FEE_OLD,
                       _FEE_OLD + "        if (rate.equals(new BigDecimal(\"0.00\"))) {\n            return Money.zero(amount.currency());\n        }\n"))],
        silent=[fix(E(_FEE_PATH, _FEE_OLD,
                      _FEE_OLD + "        if (rate.compareTo(BigDecimal.ZERO) == 0) {\n            return Money.zero(amount.currency());\n        }\n")),
                code(E(_MONEY_PATH, _MONEY_OLD,
                       "    @Override\n    public String toString() {\n        return amount.toPlainString() + \" \" + currency;\n    }\n\n"
                       + _MONEY_OLD)),
                other("mvn -pl kestrel-core test -Dtest=MoneyTest")],
        variants=(),
    ),
    Incident(
        "tf-kestrel-shared-simpledateformat", TEST_FIX, CODEX, "kestrel",
        session=[
            U("Parse the Retry-After header when it's an HTTP date."),
            write(_DATES_PATH, _DATES_BAD),
            err("mvn -pl kestrel-api test -Dtest=HttpDatesTest",
                "[INFO] Running dev.kestrel.api.http.HttpDatesTest\n"
                "[ERROR] Tests run: 3, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 0.341 s <<< FAILURE! -- in dev.kestrel.api.http.HttpDatesTest\n"
                "[ERROR] dev.kestrel.api.http.HttpDatesTest.parsesConcurrently -- Time elapsed: 0.312 s <<< ERROR!\n"
                "java.util.concurrent.ExecutionException: java.lang.NumberFormatException: multiple points\n"
                "\tat java.base/java.util.concurrent.FutureTask.report(FutureTask.java:122)\n"
                "\tat java.base/java.util.concurrent.FutureTask.get(FutureTask.java:191)\n"
                "\tat dev.kestrel.api.http.HttpDatesTest.parsesConcurrently(HttpDatesTest.java:44)\n"
                "Caused by: java.lang.NumberFormatException: multiple points\n"
                "\tat java.base/jdk.internal.math.FloatingDecimal.readJavaFormatString(FloatingDecimal.java:1914)\n"
                "\tat java.base/java.lang.Double.parseDouble(Double.java:651)\n"
                "\tat java.base/java.text.DigitList.getDouble(DigitList.java:169)\n"
                "\tat java.base/java.text.DecimalFormat.parse(DecimalFormat.java:2202)\n"
                "\tat java.base/java.text.SimpleDateFormat.subParse(SimpleDateFormat.java:1937)\n"
                "\tat java.base/java.text.SimpleDateFormat.parse(SimpleDateFormat.java:1545)\n"
                "\tat java.base/java.text.DateFormat.parse(DateFormat.java:397)\n"
                "\tat dev.kestrel.api.http.HttpDates.parse(HttpDates.java:18)\n\n"
                "[ERROR] Tests run: 3, Failures: 0, Errors: 1, Skipped: 0\n[INFO] BUILD FAILURE"),
            edit(_DATES_PATH, _DATES_BAD, _DATES_OK),
            ok("mvn -pl kestrel-api test -Dtest=HttpDatesTest",
               "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.198 s -- in dev.kestrel.api.http.HttpDatesTest\n"
               "[INFO] BUILD SUCCESS"),
            A("Fixed: SimpleDateFormat keeps parse state in the instance, so one static formatter shared by the HTTP "
              "client threads corrupts concurrent parses. java.time's DateTimeFormatter is immutable and thread-safe."),
        ],
        mistake=f"Write {_DATES_PATH}: private static final SimpleDateFormat RFC_1123 = new SimpleDateFormat(...)",
        lesson="Java: never share a SimpleDateFormat (e.g. a static field) between threads, it isn't thread-safe; use java.time's DateTimeFormatter.",
        warn=[same(W(_DATES_PATH, _DATES_BAD)),
              reword(E(_AUDIT_PATH, _AUDIT_OLD,
                       _AUDIT_OLD + "    private static final SimpleDateFormat STAMP = new SimpleDateFormat(\"yyyy-MM-dd'T'HH:mm:ss.SSSXXX\");\n"))],
        silent=[fix(E(_AUDIT_PATH, _AUDIT_OLD,
                      _AUDIT_OLD + "    private static final DateTimeFormatter STAMP = DateTimeFormatter.ISO_OFFSET_DATE_TIME;\n")),
                code(E(_DATES_PATH, "    static Instant parse(String value) {\n",
                       "    /** Parses an RFC 1123 date, e.g. \"Sun, 06 Nov 1994 08:49:37 GMT\". */\n    static Instant parse(String value) {\n")),
                other("mvn -pl kestrel-api test -Dtest=HttpDatesTest")],
        variants=("long_output",),
    ),
    Incident(
        "tf-orchard-date-today", TEST_FIX, CC, "orchard",
        session=[
            U("Add Subscription#renews_today? for the renewal reminder job."),
            edit("app/models/subscription.rb", _SUB_OLD, _SUB_BAD),
            err("bundle exec rspec spec/models/subscription_spec.rb",
                "\nRandomized with seed 18422\n....F..\n\nFailures:\n\n"
                "  1) Subscription#renews_today? is true on the renewal date in the shop's time zone\n"
                "     Failure/Error: expect(subscription.renews_today?).to be(true)\n\n       expected true\n            got false\n"
                "     # ./spec/models/subscription_spec.rb:41:in `block (4 levels) in <top (required)>'\n"
                "     # ./spec/support/time_helpers.rb:9:in `block (2 levels) in <top (required)>'\n\n"
                "Finished in 0.38 seconds (files took 2.91 seconds to load)\n7 examples, 1 failure\n\nFailed examples:\n\n"
                "rspec ./spec/models/subscription_spec.rb:38 # Subscription#renews_today? is true on the renewal date in the shop's time zone"),
            ok("grep -n time_zone config/application.rb", '24:    config.time_zone = "Pacific/Auckland"'),
            edit("app/models/subscription.rb", "    renews_on == Date.today\n", "    renews_on == Date.current\n"),
            ok("bundle exec rspec spec/models/subscription_spec.rb",
               "\nRandomized with seed 50311\n.......\n\nFinished in 0.36 seconds (files took 2.88 seconds to load)\n7 examples, 0 failures"),
            A("Fixed: Date.today uses the server's zone (UTC) while renews_on is in the shop's zone; Date.current uses "
              "config.time_zone (Pacific/Auckland)."),
        ],
        mistake="Edit app/models/subscription.rb: renews_on == Date.today",
        lesson="orchard (config.time_zone = Pacific/Auckland): use Date.current / Time.current (Time.zone.now), never Date.today / Time.now.",
        warn=[same(E("app/models/subscription.rb", _SUB_OLD, _SUB_BAD)),
              reword(E("app/jobs/renewal_reminder_job.rb", "  def perform\n", "  def perform\n    cutoff = Time.now + 3.days\n"))],
        silent=[fix(E("app/jobs/renewal_reminder_job.rb", "  def perform\n", "  def perform\n    cutoff = Time.current + 3.days\n")),
                code(E("app/models/subscription.rb", "  belongs_to :customer\n", "  belongs_to :customer\n  belongs_to :plan\n")),
                other("bundle exec rspec spec/models/subscription_spec.rb")],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-orchard-helm-env-quote", TEST_FIX, GEMINI, "orchard",
        session=[
            U("Pass the Puma thread count to the web pods as RAILS_MAX_THREADS, from values."),
            edit("charts/orchard/templates/deployment.yaml", _ENV_OLD, _ENV_BAD),
            err("make chart-test", _KUBECONFORM_FAIL, 2),
            edit("charts/orchard/templates/deployment.yaml", "              value: {{ .Values.web.maxThreads }}\n",
                 "              value: {{ .Values.web.maxThreads | quote }}\n"),
            ok("make chart-test",
               "helm template orchard charts/orchard -f charts/orchard/values-staging.yaml | kubeconform -strict -summary\n"
               "Summary: 9 resources found parsing stdin - Valid: 9, Invalid: 0, Errors: 0, Skipped: 0"),
            A("Env var values must be strings; `maxThreads: 5` rendered as a bare number. `| quote` fixes it."),
        ],
        mistake="Edit charts/orchard/templates/deployment.yaml: value: {{ .Values.web.maxThreads }}",
        lesson="orchard chart: env var values must be strings; pipe numbers and booleans through quote (value: {{ .Values.x | quote }}).",
        warn=[same(E("charts/orchard/templates/deployment.yaml", _ENV_OLD, _ENV_BAD)),
              reword(E("charts/orchard/templates/worker.yaml", _ENV_OLD,
                       _ENV_OLD + "            - name: SIDEKIQ_CONCURRENCY\n              value: {{ .Values.worker.concurrency }}\n"))],
        silent=[fix(E("charts/orchard/templates/worker.yaml", _ENV_OLD,
                      _ENV_OLD + "            - name: SIDEKIQ_CONCURRENCY\n              value: {{ .Values.worker.concurrency | quote }}\n")),
                code(E("charts/orchard/templates/deployment.yaml", "  replicas: {{ .Values.web.replicas }}\n",
                       "  replicas: {{ .Values.web.replicas | default 2 }}\n")),
                other("make chart-test")],
        variants=(),
    ),
    Incident(
        "tf-beacon-linq-deferred", TEST_FIX, CC, "beacon",
        session=[
            U("Implement ReminderJob.SendReminders: email every overdue invoice once and return how many were sent."),
            edit(_REM_PATH, _REM_OLD, _REM_BAD),
            err("dotnet test tests/Beacon.Worker.Tests --filter FullyQualifiedName~ReminderJobTests",
                "  Failed Beacon.Worker.Tests.ReminderJobTests.ReturnsNumberOfRemindersSent [4 ms]\n  Error Message:\n"
                "   Assert.Equal() Failure: Values differ\nExpected: 3\nActual:   0\n  Stack Trace:\n"
                "     at Beacon.Worker.Tests.ReminderJobTests.ReturnsNumberOfRemindersSent() in "
                "/home/dev/beacon/tests/Beacon.Worker.Tests/ReminderJobTests.cs:line 41\n\n"
                "Failed!  - Failed:     1, Passed:     5, Skipped:     0, Total:     6, Duration: 31 ms - Beacon.Worker.Tests.dll (net8.0)"),
            edit(_REM_PATH, _REM_BAD, _REM_OK),
            ok("dotnet test tests/Beacon.Worker.Tests --filter FullyQualifiedName~ReminderJobTests",
               "Passed!  - Failed:     0, Passed:     6, Skipped:     0, Total:     6, Duration: 29 ms - Beacon.Worker.Tests.dll (net8.0)"),
            A("Fixed: `due` was a deferred query, so Count() re-ran the filter after the loop had set ReminderSent and "
              "found nothing. Materialising it with ToList() keeps the list we actually sent."),
        ],
        mistake=f"Edit {_REM_PATH}: var due = invoices.Where(i => ... && !i.ReminderSent); mutate in foreach; return due.Count();",
        lesson="C#: materialise a LINQ query (ToList()) before mutating the items it filters on; re-enumerating a deferred Where re-runs the filter.",
        warn=[same(E(_REM_PATH, _REM_OLD, _REM_BAD)),
              reword(E(_SETTLE_PATH, _SETTLE_OLD,
                       _SETTLE_OLD + "        var open = invoices.Where(x => !x.Paid);\n        foreach (var inv in open)\n        {\n"
                       "            inv.Paid = true;\n        }\n        return open.Sum(x => x.Total);\n"))],
        silent=[fix(E(_SETTLE_PATH, _SETTLE_OLD,
                      _SETTLE_OLD + "        var open = invoices.Where(x => !x.Paid).ToList();\n        foreach (var inv in open)\n        {\n"
                      "            inv.Paid = true;\n        }\n        return open.Sum(x => x.Total);\n")),
                code(E(_REM_PATH, "public sealed class ReminderJob\n", "/// <summary>Sends overdue-invoice reminders once a day.</summary>\npublic sealed class ReminderJob\n")),
                other("dotnet test tests/Beacon.Worker.Tests --filter FullyQualifiedName~ReminderJobTests")],
        variants=(),
    ),
    Incident(
        "tf-fjord-dict-mutation", TEST_FIX, CC, "fjord",
        session=[
            U("Drop zero-quantity lines when the cart is saved."),
            edit("catalog/cart.py", _CART_OLD, _CART_BAD),
            err(".venv/bin/pytest catalog/tests/test_cart.py -q",
                "..F.                                                                     [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________ test_save_drops_zero_quantity_lines ______________________\n\n"
                "cart = <catalog.cart.Cart object at 0x7f3a2c1d5e90>\n\n"
                "    def test_save_drops_zero_quantity_lines(cart):\n        cart.add(\"SKU-1\", qty=2)\n        cart.add(\"SKU-2\", qty=0)\n"
                ">       cart.save()\n\ncatalog/tests/test_cart.py:31: \n"
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n\n"
                "self = <catalog.cart.Cart object at 0x7f3a2c1d5e90>\n\n    def save(self):\n>       for sku in self.lines:\n"
                "E       RuntimeError: dictionary changed size during iteration\n\ncatalog/cart.py:42: RuntimeError\n"
                "=========================== short test summary info ============================\n"
                "FAILED catalog/tests/test_cart.py::test_save_drops_zero_quantity_lines - RuntimeError: dictionary changed size during iteration\n"
                "1 failed, 3 passed in 0.22s"),
            edit("catalog/cart.py", _CART_BAD, _CART_OK),
            ok(".venv/bin/pytest catalog/tests/test_cart.py -q",
               "....                                                                     [100%]\n4 passed in 0.19s"),
            A("Fixed: deleting keys while iterating the dict raises; the cart now rebuilds the dict without zero lines."),
        ],
        mistake='Edit catalog/cart.py: for sku in self.lines: ... del self.lines[sku]',
        lesson="Python: never delete from a dict (or list) while iterating over it; build a new one with a comprehension or iterate over list(d.items()).",
        warn=[same(E("catalog/cart.py", _CART_OLD, _CART_BAD)),
              reword(E("catalog/services/stock.py", _STOCK_OLD,
                       _STOCK_OLD + "    for key, res in reservations.items():\n        if res.expires_at < now:\n"
                       "            reservations.pop(key)\n"))],
        silent=[fix(E("catalog/services/stock.py", _STOCK_OLD,
                      _STOCK_OLD + "    for key, res in list(reservations.items()):\n        if res.expires_at < now:\n"
                      "            reservations.pop(key)\n")),
                code(E("catalog/cart.py", 'CART_KEY = "cart"\n', 'CART_KEY = "cart-v2"\n')),
                other(".venv/bin/pytest catalog/tests/test_cart.py -q")],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-mosaic-express-missing-return", TEST_FIX, GEMINI, "mosaic",
        session=[
            U("GET /orders/:id should return 404 when the order doesn't exist."),
            edit("apps/api/src/routes/orders.ts", _ORD_OLD, _ORD_BAD),
            err("npm test -- apps/api/src/routes/orders.test.ts",
                "\n> mosaic@0.0.0 test\n> jest --config config/jest.config.ts apps/api/src/routes/orders.test.ts\n\n"
                " FAIL  apps/api/src/routes/orders.test.ts\n  GET /orders/:id\n    ✓ returns the order (8 ms)\n"
                "    ✕ returns 404 for an unknown order (14 ms)\n\n"
                "  ● GET /orders/:id › returns 404 for an unknown order\n\n"
                "    Error [ERR_HTTP_HEADERS_SENT]: Cannot set headers after they are sent to the client\n\n"
                "      at ServerResponse.setHeader (node:_http_outgoing:659:11)\n"
                "      at ServerResponse.header (node_modules/express/lib/response.js:794:10)\n"
                "      at ServerResponse.json (node_modules/express/lib/response.js:275:10)\n"
                "      at apps/api/src/routes/orders.ts:31:7\n\n"
                "Test Suites: 1 failed, 1 total\nTests:       1 failed, 2 passed, 3 total\nSnapshots:   0 total\nTime:        2.41 s"),
            edit("apps/api/src/routes/orders.ts", '    res.status(404).json({ error: "order not found" });\n',
                 '    return res.status(404).json({ error: "order not found" });\n'),
            ok("npm test -- apps/api/src/routes/orders.test.ts",
               " PASS  apps/api/src/routes/orders.test.ts\n\nTest Suites: 1 passed, 1 total\nTests:       3 passed, 3 total"),
            A("Fixed: without `return`, the handler went on to res.json(order) after the 404 had been sent."),
        ],
        mistake="Edit apps/api/src/routes/orders.ts: res.status(404).json(...) without return, then res.json(order)",
        lesson="Express: return after sending an early response (return res.status(404).json(...)); otherwise the handler responds twice (ERR_HTTP_HEADERS_SENT).",
        warn=[same(E("apps/api/src/routes/orders.ts", _ORD_OLD, _ORD_BAD)),
              reword(E("apps/api/src/routes/customers.ts", _CUST_OLD,
                       "  const customer = await findCustomer(req.params.id);\n  if (!customer) {\n    res.sendStatus(404);\n  }\n"
                       "  res.json(customer);\n"))],
        silent=[fix(E("apps/api/src/routes/customers.ts", _CUST_OLD,
                      "  const customer = await findCustomer(req.params.id);\n  if (!customer) {\n    return res.sendStatus(404);\n  }\n"
                      "  res.json(customer);\n")),
                code(E("apps/api/src/routes/orders.ts", "const router = Router();\n", "const router = Router({ mergeParams: true });\n")),
                other("npm test -- apps/api/src/routes/orders.test.ts")],
        variants=(),
    ),
    Incident(
        "tf-quarry-utf8-byte-slice", TEST_FIX, CC, "quarry",
        session=[
            U("Truncate long SQL snippets in the lint report to 40 characters."),
            edit("src/report.rs", _SNIP_OLD, _SNIP_BAD),
            err("cargo test report::",
                "   Compiling quarry v0.9.0 (/home/dev/quarry)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.12s\n"
                "     Running unittests src/main.rs (target/debug/deps/quarry-5b8e1f0c2d3a4b69)\n\n"
                "running 3 tests\ntest report::tests::short_snippet_unchanged ... ok\ntest report::tests::truncates_long_snippet ... ok\n"
                "test report::tests::truncates_non_ascii_snippet ... FAILED\n\nfailures:\n\n"
                "---- report::tests::truncates_non_ascii_snippet stdout ----\n"
                "thread 'report::tests::truncates_non_ascii_snippet' panicked at src/report.rs:58:52:\n"
                "byte index 40 is not a char boundary; it is inside 'é' (bytes 39..41) of "
                "`SELECT * FROM orders WHERE name = 'Chloé Dubois' AND paid`\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n"
                "    report::tests::truncates_non_ascii_snippet\n\n"
                "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 84 filtered out; finished in 0.00s\n\n"
                "error: test failed, to rerun pass `--bin quarry`", 101),
            edit("src/report.rs", _SNIP_BAD, _SNIP_OK),
            ok("cargo test report::",
               "running 3 tests\ntest report::tests::short_snippet_unchanged ... ok\ntest report::tests::truncates_long_snippet ... ok\n"
               "test report::tests::truncates_non_ascii_snippet ... ok\n\n"
               "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 84 filtered out; finished in 0.00s"),
            A("Fixed: `&snippet[..40]` slices bytes and panics inside a multi-byte character; taking 40 chars is safe."),
        ],
        mistake="Edit src/report.rs: &snippet[..40]",
        lesson="Rust: don't byte-slice a &str by a length (&s[..n]) — it panics inside multi-byte UTF-8 chars; use s.chars().take(n) (or char_indices).",
        warn=[same(E("src/report.rs", _SNIP_OLD, _SNIP_BAD)),
              reword(E("src/lint/rules/naming.rs", "    let name = ident.as_str();\n",
                       "    let name = ident.as_str();\n    let prefix = &name[..3];\n"))],
        silent=[fix(E("src/lint/rules/naming.rs", "    let name = ident.as_str();\n",
                      "    let name = ident.as_str();\n    let prefix: String = name.chars().take(3).collect();\n")),
                code(E("src/report.rs", "const MAX_DIAGNOSTICS: usize = 200;\n", "const MAX_DIAGNOSTICS: usize = 500;\n")),
                other("cargo test report::")],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-lantern-errors-is", TEST_FIX, CODEX, "lantern",
        session=[
            U("Return 404 from GET /tiles/{z}/{x}/{y} when the tile isn't in the store."),
            edit("internal/api/tiles.go", _TILE_OLD, _TILE_BAD),
            err("go test ./internal/api/ -run TestGetTile",
                "--- FAIL: TestGetTile_NotFound (0.00s)\n    tiles_test.go:52: status = 500, want 404\n"
                "FAIL\nFAIL\tgithub.com/acme/lantern/internal/api\t0.019s\nFAIL"),
            ok("grep -n 'ErrNotFound' internal/store/tiles.go",
               '14:var ErrNotFound = errors.New("tile not found")\n'
               '61:\t\treturn nil, fmt.Errorf("get tile %d/%d/%d: %w", z, x, y, ErrNotFound)'),
            edit("internal/api/tiles.go", "\tif err == store.ErrNotFound {\n", "\tif errors.Is(err, store.ErrNotFound) {\n"),
            ok("go test ./internal/api/ -run TestGetTile", "ok  \tgithub.com/acme/lantern/internal/api\t0.018s"),
            A("Fixed: the store wraps ErrNotFound with %w, so `==` never matches; errors.Is unwraps the chain."),
        ],
        mistake="Edit internal/api/tiles.go: if err == store.ErrNotFound {",
        lesson="Go (lantern): store errors are wrapped with %w; test them with errors.Is(err, store.ErrX), never err == store.ErrX.",
        warn=[same(E("internal/api/tiles.go", _TILE_OLD, _TILE_BAD)),
              reword(E("internal/api/styles.go", _STYLE_OLD,
                       "\tstyle, err := h.store.GetStyle(r.Context(), name)\n\tif err == store.ErrStyleNotFound {\n"
                       "\t\thttp.NotFound(w, r)\n\t\treturn\n\t}\n\tif err != nil {\n"))],
        silent=[fix(E("internal/api/styles.go", _STYLE_OLD,
                      "\tstyle, err := h.store.GetStyle(r.Context(), name)\n\tif errors.Is(err, store.ErrStyleNotFound) {\n"
                      "\t\thttp.NotFound(w, r)\n\t\treturn\n\t}\n\tif err != nil {\n")),
                code(E("internal/api/tiles.go", 'const tileCacheControl = "public, max-age=3600"\n',
                       'const tileCacheControl = "public, max-age=86400"\n')),
                other("go test ./internal/api/ -run TestGetTile")],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-pipeline-ls-loop", TEST_FIX, CC, "pipeline",
        session=[
            U("Make load_orders.sh load every CSV in the incoming spool, not just orders.csv."),
            edit("scripts/load_orders.sh", _LOAD_OLD, _LOAD_BAD),
            err("bats tests/load_orders.bats",
                "load_orders.bats\n ✓ loads a single file\n ✗ loads files with spaces in the name\n"
                "   (in test file tests/load_orders.bats, line 27)\n     `[ \"$status\" -eq 0 ]' failed\n"
                "   load_file: /tmp/bats-run-8Kq2/spool/orders: No such file or directory\n"
                " ✗ skips an empty spool\n   (in test file tests/load_orders.bats, line 35)\n     `[ \"$status\" -eq 0 ]' failed\n"
                "   ls: cannot access '/tmp/bats-run-8Kq2/spool/*.csv': No such file or directory\n\n3 tests, 2 failures"),
            edit("scripts/load_orders.sh", _LOAD_BAD, _LOAD_OK),
            ok("bats tests/load_orders.bats",
               "load_orders.bats\n ✓ loads a single file\n ✓ loads files with spaces in the name\n ✓ skips an empty spool\n\n3 tests, 0 failures"),
            A("Fixed: `$(ls …)` splits 'orders 2026-03-01.csv' into two words and errors on an empty spool; a quoted "
              "glob with an existence check handles both."),
        ],
        mistake="Edit scripts/load_orders.sh: for f in $(ls $SPOOL/*.csv); do load_file $f; done",
        lesson='Shell: never loop over $(ls …) or leave paths unquoted (names with spaces split); use for f in "$DIR"/*.csv with [ -e "$f" ] || continue and "$f".',
        warn=[same(E("scripts/load_orders.sh", _LOAD_OLD, _LOAD_BAD)),
              reword(E("scripts/archive_spool.sh", _ARCH_OLD,
                       _ARCH_OLD + "for file in `ls $SPOOL/done`; do\n  mv $SPOOL/done/$file $ARCHIVE/\ndone\n"))],
        silent=[fix(E("scripts/archive_spool.sh", _ARCH_OLD,
                      _ARCH_OLD + "for file in \"$SPOOL\"/done/*; do\n  [ -e \"$file\" ] || continue\n  mv \"$file\" \"$ARCHIVE\"/\ndone\n")),
                code(E("scripts/load_orders.sh", "set -euo pipefail\n", "set -euo pipefail\nshopt -s nullglob\n")),
                other("bats tests/load_orders.bats")],
        variants=(),
    ),
    Incident(
        "tf-pipeline-not-in-null", TEST_FIX, GEMINI, "pipeline",
        session=[
            U("Add a reporting view of customers who never ordered."),
            write("sql/views/inactive_customers.sql", _INACTIVE_BAD),
            err('source .env && pg_prove -d "$TEST_DATABASE_URL" tests/sql/inactive_customers.sql',
                "tests/sql/inactive_customers.sql .. 1/3 \n"
                "# Failed test 2: \"lists customers without orders\"\n#     Results differ beyond row 0:\n"
                "#         have: NULL\n#         want: (17,ana@example.com)\n# Looks like you failed 1 test of 3\n"
                "tests/sql/inactive_customers.sql .. Failed 1/3 subtests \n\nTest Summary Report\n-------------------\n"
                "tests/sql/inactive_customers.sql (Wstat: 0 Tests: 3 Failed: 1)\n  Failed test:  2\n"
                "Files=1, Tests=3,  0 wallclock secs ( 0.02 usr  0.00 sys +  0.01 cusr  0.00 csys =  0.03 CPU)\nResult: FAIL"),
            ok('source .env && psql "$TEST_DATABASE_URL" -c "select count(*) from orders where customer_id is null"',
               " count \n-------\n     4\n(1 row)"),
            A("Guest checkouts have a NULL customer_id, and `x NOT IN (…, NULL)` is never true, so the view is empty."),
            edit("sql/views/inactive_customers.sql", "WHERE c.id NOT IN (SELECT o.customer_id FROM orders o);\n",
                 "WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id);\n"),
            ok('source .env && pg_prove -d "$TEST_DATABASE_URL" tests/sql/inactive_customers.sql',
               "tests/sql/inactive_customers.sql .. ok\nAll tests successful.\n"
               "Files=1, Tests=3,  0 wallclock secs ( 0.02 usr  0.00 sys +  0.01 cusr  0.00 csys =  0.03 CPU)\nResult: PASS"),
        ],
        mistake="Write sql/views/inactive_customers.sql: WHERE c.id NOT IN (SELECT o.customer_id FROM orders o)",
        lesson="SQL (pipeline): never NOT IN (subquery) over a nullable column — one NULL makes it match nothing (orders.customer_id is NULL for guests); use NOT EXISTS.",
        warn=[same(W("sql/views/inactive_customers.sql", _INACTIVE_BAD)),
              reword(E("sql/views/unshipped_orders.sql", _UNSHIPPED_OLD,
                       _UNSHIPPED_OLD + "  AND o.id NOT IN (SELECT s.order_id FROM shipments s)\n"))],
        silent=[fix(E("sql/views/unshipped_orders.sql", _UNSHIPPED_OLD,
                      _UNSHIPPED_OLD + "  AND NOT EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.id)\n")),
                code(E("sql/views/daily_revenue.sql", "WHERE o.status = 'paid'\n", "WHERE o.status NOT IN ('cancelled', 'refunded')\n")),
                code(E("sql/views/inactive_customers.sql", "SELECT c.id, c.email, c.created_at\n",
                       "SELECT c.id, c.email, c.created_at, c.country\n")),
                other('source .env && pg_prove -d "$TEST_DATABASE_URL" tests/sql/')],
        variants=(),
    ),
]
