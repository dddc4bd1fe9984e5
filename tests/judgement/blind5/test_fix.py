"""Blind5 split, shape 4: an edit makes a test fail, a different edit makes it pass.

Every lesson is a code pattern with a line of code as its taught trigger. It should hold
an Edit/Write that brings the pattern back (``same``: the session's own buggy edit;
``reword``: the same bug in another file of the same language with other names), and
stay silent on the corrected form (``fix``, sometimes another valid correction than the
session's), on test runs, and on fine code that merely looks alike (``code``).
"""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, TEST_FIX, A, E, Incident, U, W, code, edit, err, fix, ok, other, reword, same

# Python: mutable default argument
_DRAFT_OLD = "def draft_invoice(customer: Customer) -> Invoice:\n    return Invoice(customer=customer, lines=[])\n"
_DRAFT_BAD = ("def draft_invoice(customer: Customer, lines: list[InvoiceLine] = []) -> Invoice:\n"
              "    for item in customer.recurring_items():\n        lines.append(InvoiceLine.from_item(item))\n"
              "    return Invoice(customer=customer, lines=lines)\n")
_MAIL_OLD = "def send_reminder(invoice: Invoice) -> None:\n    message = render(\"reminder\", invoice=invoice)\n"
_MAIL_BAD = ("def send_reminder(invoice: Invoice, cc: list[str] = []) -> None:\n    cc.append(invoice.customer.billing_email)\n"
             "    message = render(\"reminder\", invoice=invoice)\n")
_MAIL_OK = ("def send_reminder(invoice: Invoice, cc: list[str] | None = None) -> None:\n"
            "    cc = [*(cc or []), invoice.customer.billing_email]\n    message = render(\"reminder\", invoice=invoice)\n")
_AGING = ("from collections import defaultdict\n\n\ndef bucket_totals(invoices, buckets={}):\n    for inv in invoices:\n"
          "        key = inv.age_bucket()\n        buckets[key] = buckets.get(key, 0) + inv.amount_due\n    return buckets\n")

# TypeScript: || as a numeric default
_QTY_OLD = "export function lineQuantity(input: LineInput): number {\n  return input.quantity;\n}\n"
_QTY_BAD = "export function lineQuantity(input: LineInput): number {\n  return input.quantity || 1;\n}\n"
_DISC_OLD = "export function applyDiscount(total: number, opts: DiscountOptions): number {\n"

# Go: comparing wrapped errors with ==
_ACC_OLD = ("func (s *Store) Account(ctx context.Context, id string) (*Account, error) {\n\tacc, err := s.q.GetAccount(ctx, id)\n"
            "\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn acc, nil\n}\n")
_ACC_BAD = ("func (s *Store) Account(ctx context.Context, id string) (*Account, error) {\n\tacc, err := s.q.GetAccount(ctx, id)\n"
            "\tif err == sql.ErrNoRows {\n\t\treturn nil, ErrAccountNotFound\n\t}\n"
            "\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn acc, nil\n}\n")
_FWD_OLD = "\tresp, err := f.client.Do(req)\n\tif err != nil {\n"
_FWD_BAD = ("\tresp, err := f.client.Do(req)\n\tif err == context.DeadlineExceeded {\n"
            "\t\treturn nil, ErrUpstreamTimeout\n\t}\n\tif err != nil {\n")
_FWD_OK = ("\tresp, err := f.client.Do(req)\n\tif errors.Is(err, context.DeadlineExceeded) {\n"
           "\t\treturn nil, ErrUpstreamTimeout\n\t}\n\tif err != nil {\n")

# Python boto3: a single list_objects_v2 page
_STALE_OLD = "def stale_exports(s3, bucket: str, prefix: str, cutoff: datetime) -> list[str]:\n    keys = []\n    return keys\n"
_STALE_BAD = ("def stale_exports(s3, bucket: str, prefix: str, cutoff: datetime) -> list[str]:\n    keys = []\n"
              "    resp = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)\n    for obj in resp.get(\"Contents\", []):\n"
              "        if obj[\"LastModified\"] < cutoff:\n            keys.append(obj[\"Key\"])\n    return keys\n")
_REP_OLD = "    def daily_export_keys(self) -> list[str]:\n        client = boto3.client(\"s3\")\n"

# Rust: usize subtraction underflow
_PAD_OLD = "fn pad_label(label: &str, width: usize) -> String {\n    label.to_string()\n}\n"
_PAD_BAD = ("fn pad_label(label: &str, width: usize) -> String {\n    let pad = width - label.len();\n"
            "    format!(\"{label}{}\", \" \".repeat(pad))\n}\n")
_GAP_OLD = "fn column_gap(name: &str, max_width: usize) -> usize {\n    2\n}\n"

# Ruby on Rails: Time.now / Date.today instead of the app's zone
_OVERDUE_OLD = "  def overdue?\n    false\n  end\n"
_OVERDUE_BAD = "  def overdue?\n    due_on < Time.now.to_date\n  end\n"
_RENEW_OLD = "  def renew!\n"

# PHP: array_search used as a condition
_PLAN_OLD = "    public function isAvailable(int $planId): bool\n    {\n        return true;\n    }\n"
_PLAN_BAD = ("    public function isAvailable(int $planId): bool\n    {\n        if (array_search($planId, $this->planIds)) {\n"
             "            return true;\n        }\n        return false;\n    }\n")
_POLICY_OLD = "    public function manage(User $user, Team $team): bool\n    {\n        $role = $team->roleOf($user);\n"

# PHP: mutating Carbon in place
_TRIAL_OLD = "    public function trialWindow(Carbon $start): array\n    {\n        return [$start, $start];\n    }\n"
_TRIAL_BAD = ("    public function trialWindow(Carbon $start): array\n    {\n        $end = $start->addDays(14);\n"
              "        return [$start, $end];\n    }\n")
_SCHED_OLD = "    public function schedule(Carbon $issuedAt): array\n    {\n"

# Elixir: atom keys on controller params
_BOOK_OLD = "  def create(conn, params) do\n    attrs = %{}\n"
_BOOK_BAD = "  def create(conn, params) do\n    attrs = %{guest_email: params[:guest_email], nights: params[:nights]}\n"
_REVIEW_OLD = "  def update(conn, %{\"id\" => id} = params) do\n"

# Elixir: == on Decimal
_SETTLED_OLD = ("  def settled?(%Invoice{} = invoice, payments) do\n"
                "    paid = Enum.reduce(payments, Decimal.new(0), &Decimal.add(&1.amount, &2))\n    false\n  end\n")
_SETTLED_BAD = ("  def settled?(%Invoice{} = invoice, payments) do\n"
                "    paid = Enum.reduce(payments, Decimal.new(0), &Decimal.add(&1.amount, &2))\n    paid == invoice.total\n  end\n")
_FULLREF_OLD = "  def full_refund?(%Refund{} = refund, %Charge{} = charge) do\n"

# Shell: rm -rf on an unguarded variable
_PRUNE_OLD = "KEEP_DAYS=\"${KEEP_DAYS:-14}\"\n"
_PRUNE_BAD = _PRUNE_OLD + "rm -rf \"$BACKUP_DIR/staging\"\nmkdir -p \"$BACKUP_DIR/staging\"\n"
_ROT_OLD = "for old in $(ls -1t \"$RELEASES_ROOT\" | tail -n +6); do\n"

# Swift: fixed-format DateFormatter without a POSIX locale
_EXIF_OLD = "    static func parse(_ raw: String) -> Date? {\n        nil\n    }\n"
_EXIF_BAD = ("    static func parse(_ raw: String) -> Date? {\n        let formatter = DateFormatter()\n"
             "        formatter.dateFormat = \"yyyy:MM:dd HH:mm:ss\"\n        return formatter.date(from: raw)\n    }\n")
_MANIFEST_OLD = "    init(raw: RawManifest) {\n        id = raw.id\n"

# Kotlin: BigDecimal ==
_SETTLE_KT_OLD = ("    fun isSettled(invoice: Invoice, payments: List<Payment>): Boolean {\n"
                  "        val paid = payments.fold(BigDecimal.ZERO) { acc, p -> acc + p.amount }\n        return false\n    }\n")
_SETTLE_KT_BAD = _SETTLE_KT_OLD.replace("return false", "return paid == invoice.total")
_CLASSIFY_OLD = "    fun classify(refund: Refund, charge: Charge): RefundKind {\n"

# C#: async void
_RECEIPT_OLD = ("    public void SendReceipt(Payment payment)\n    {\n"
                "        _log.LogInformation(\"receipt for {PaymentId}\", payment.Id);\n    }\n")
_RECEIPT_BAD = ("    public async void SendReceipt(Payment payment)\n    {\n        var pdf = await _renderer.RenderAsync(payment);\n"
                "        await _mailer.SendAsync(payment.Email, Subject, pdf);\n    }\n")
_RATES_OLD = "    private void RefreshRates()\n    {\n        _rates.Clear();\n    }\n"

# C#: money in double
_FEE_OLD = "    public static decimal PlatformFee(decimal amount)\n    {\n        return 0m;\n    }\n"
_FEE_BAD = ("    public static decimal PlatformFee(decimal amount)\n    {\n        double fee = (double)amount * 0.029 + 0.30;\n"
            "        return (decimal)Math.Round(fee, 2, MidpointRounding.AwayFromZero);\n    }\n")
_FX_OLD = "    public Money Convert(Payout payout, decimal rate, string target)\n    {\n"

# Go: package-level http.Post / http.Get (no timeout)
_SLACK_OLD = "func (n *Notifier) Post(ctx context.Context, msg Message) error {\n\tbody, _ := json.Marshal(msg)\n\treturn nil\n}\n"
_SLACK_BAD = ("func (n *Notifier) Post(ctx context.Context, msg Message) error {\n\tbody, _ := json.Marshal(msg)\n"
              "\tresp, err := http.Post(n.webhookURL, \"application/json\", bytes.NewReader(body))\n"
              "\tif err != nil {\n\t\treturn err\n\t}\n\tdefer resp.Body.Close()\n\treturn nil\n}\n")
_PROBE_OLD = "func Healthy(endpoint string) bool {\n"

# TypeScript: .map(async) without Promise.all
_STOCK_OLD = "export async function stockLevels(skus: string[]): Promise<StockLevel[]> {\n  return [];\n}\n"
_STOCK_BAD = ("export async function stockLevels(skus: string[]): Promise<StockLevel[]> {\n"
              "  return skus.map(async (sku) => ({ sku, available: await warehouse.available(sku) }));\n}\n")
_RELATED_OLD = "export async function relatedProducts(ids: string[]): Promise<Product[]> {\n"

# TypeScript: JSON.stringify of a Map
_RECENT_OLD = "export function saveRecent(recent: Map<string, number>): void {\n}\n"
_RECENT_BAD = ("export function saveRecent(recent: Map<string, number>): void {\n"
               "  localStorage.setItem(\"recent\", JSON.stringify(recent));\n}\n")
_CARTSER_OLD = "export function serializeCart(cart: Cart): string {\n"

# Scala: .head on a possibly empty collection
_START_OLD = "  def sessionStart(events: Seq[Event]): Option[Instant] =\n    None\n"
_START_BAD = "  def sessionStart(events: Seq[Event]): Option[Instant] =\n    Some(events.sortBy(_.ts).head.ts)\n"
_ATTR_OLD = "  def attribute(touches: Seq[Touch]): Attribution = {\n"

# pandas 2: DataFrame.append
_METRICS_OLD = ("def collect_metrics(runs: list[Run]) -> pd.DataFrame:\n"
                "    table = pd.DataFrame(columns=[\"run\", \"epoch\", \"loss\"])\n    return table\n")
_METRICS_LOOP = ("    for run in runs:\n"
                 "        table = table.append({\"run\": run.name, \"epoch\": run.epoch, \"loss\": run.loss}, ignore_index=True)\n")
_METRICS_BAD = _METRICS_OLD.replace("    return table\n", _METRICS_LOOP + "    return table\n")
_EPOCH_OLD = "    def on_epoch_end(self, epoch: int, logs: dict) -> None:\n"

_SBT_SESSIONIZER = "SBT_OPTS=\"-Xmx4G -XX:MaxMetaspaceSize=1G\" sbt \"pipeline/testOnly *SessionizerSpec\""

INCIDENTS = [
    Incident(
        "b5-testfix-python-01", TEST_FIX, CC, "brackenridge",
        session=[
            U("draft_invoice should also take extra lines, and always add the customer's recurring items."),
            edit("brackenridge/billing/invoices.py", _DRAFT_OLD, _DRAFT_BAD),
            err("DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest tests/billing/test_invoices.py -q",
                ".F..                                                                     [100%]\n"
                "=================================== FAILURES ===================================\n"
                "___________________________ test_drafts_do_not_share_lines ___________________________\n\n"
                "    def test_drafts_do_not_share_lines(customer_with_two_recurring):\n"
                "        first = draft_invoice(customer_with_two_recurring)\n        second = draft_invoice(customer_with_two_recurring)\n"
                ">       assert len(second.lines) == 2\nE       assert 4 == 2\n"
                "E        +  where 4 = len([<InvoiceLine hosting>, <InvoiceLine support>, <InvoiceLine hosting>, <InvoiceLine support>])\n\n"
                "tests/billing/test_invoices.py:41: AssertionError\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/billing/test_invoices.py::test_drafts_do_not_share_lines - assert 4 == 2\n1 failed, 3 passed in 0.52s"),
            edit("brackenridge/billing/invoices.py",
                 "def draft_invoice(customer: Customer, lines: list[InvoiceLine] = []) -> Invoice:\n",
                 "def draft_invoice(customer: Customer, lines: list[InvoiceLine] | None = None) -> Invoice:\n    lines = list(lines or [])\n"),
            ok("DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest tests/billing/test_invoices.py -q",
               "....                                                                     [100%]\n4 passed in 0.47s"),
            A("Fixed: the `lines=[]` default was one list shared by every call, so the second draft got the first "
              "draft's recurring items too. It defaults to None now and builds a fresh list."),
        ],
        mistake="def draft_invoice(customer: Customer, lines: list[InvoiceLine] = []) -> Invoice:",
        lesson="Python: never a mutable default argument (def f(x=[]) or ={}) — the one object is shared between calls; default to None and create the list or dict inside.",
        warn=[same(E("brackenridge/billing/invoices.py", _DRAFT_OLD, _DRAFT_BAD)),
              reword(E("brackenridge/notifications/email.py", _MAIL_OLD, _MAIL_BAD)),
              reword(W("brackenridge/reports/aging.py", _AGING))],
        silent=[fix(E("brackenridge/notifications/email.py", _MAIL_OLD, _MAIL_OK)),
                code(E("brackenridge/billing/invoices.py", "DEFAULT_DUE_DAYS = 14\n", "DEFAULT_DUE_DAYS = 30\n")),
                code(E("brackenridge/api/filters.py", "def parse_filters(params):\n",
                       "def parse_filters(params, allowed: tuple[str, ...] = (\"status\", \"customer\")):\n")),
                other("DJANGO_SETTINGS_MODULE=brackenridge.settings.test uv run pytest tests/billing -q")],
        variants=(),
    ),
    Incident(
        "b5-testfix-typescript-02", TEST_FIX, CODEX, "cinderpath",
        session=[
            U("lineQuantity should default to 1 when the client sends no quantity."),
            edit("apps/api/src/orders/quantity.ts", _QTY_OLD, _QTY_BAD),
            err("pnpm --filter @cinderpath/api test -- src/orders/quantity.test.ts",
                "\n> @cinderpath/api@0.14.0 test /home/dev/cinderpath/apps/api\n> vitest run src/orders/quantity.test.ts\n\n"
                " ❯ src/orders/quantity.test.ts (3 tests | 1 failed) 9ms\n   ✓ defaults a missing quantity to 1\n"
                "   × keeps an explicit zero quantity\n   ✓ keeps a positive quantity\n\n"
                " FAIL  src/orders/quantity.test.ts > keeps an explicit zero quantity\n"
                "AssertionError: expected 1 to be +0 // Object.is equality\n\n- Expected\n+ Received\n\n- 0\n+ 1\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)"),
            edit("apps/api/src/orders/quantity.ts", "  return input.quantity || 1;\n", "  return input.quantity ?? 1;\n"),
            ok("pnpm --filter @cinderpath/api test -- src/orders/quantity.test.ts",
               " ✓ src/orders/quantity.test.ts (3 tests) 7ms\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)"),
            A("Fixed: `|| 1` also replaced an explicit 0 (falsy) with 1. `?? 1` only falls back for null/undefined."),
        ],
        mistake="return input.quantity || 1;",
        lesson="TS: don't default a number with || (0 is falsy and gets replaced); use ?? so only null/undefined fall back.",
        warn=[same(E("apps/api/src/orders/quantity.ts", _QTY_OLD, _QTY_BAD)),
              reword(E("apps/api/src/pricing/discount.ts", _DISC_OLD,
                       _DISC_OLD + "  const pct = opts.discountPct || 10;\n  return total * (1 - pct / 100);\n"))],
        silent=[fix(E("apps/api/src/pricing/discount.ts", _DISC_OLD,
                      _DISC_OLD + "  const pct = opts.discountPct ?? 10;\n  return total * (1 - pct / 100);\n")),
                code(E("apps/web/src/components/ProductCard.tsx", "  const title = product.name;\n",
                       "  const title = product.name || \"Untitled product\";\n")),
                code(E("apps/api/src/orders/quantity.ts", "export const MAX_QUANTITY = 99;\n", "export const MAX_QUANTITY = 250;\n")),
                other("pnpm --filter @cinderpath/api test -- src/orders/quantity.test.ts")],
        variants=(),
    ),
    Incident(
        "b5-testfix-go-03", TEST_FIX, GEMINI, "quayside",
        session=[
            U("Store.Account should return ErrAccountNotFound when the account doesn't exist."),
            edit("internal/ledger/accounts.go", _ACC_OLD, _ACC_BAD),
            err("go test ./internal/ledger/ -run TestAccount",
                "--- FAIL: TestAccountNotFound (0.00s)\n    accounts_test.go:58: Account(\"acc_missing\") error = "
                "get account acc_missing: sql: no rows in result set, want ErrAccountNotFound\n"
                "FAIL\nFAIL\tgithub.com/quayside/quayside/internal/ledger\t0.014s\nFAIL"),
            edit("internal/ledger/accounts.go", "\tif err == sql.ErrNoRows {\n", "\tif errors.Is(err, sql.ErrNoRows) {\n"),
            ok("go test ./internal/ledger/ -run TestAccount", "ok  \tgithub.com/quayside/quayside/internal/ledger\t0.011s"),
            A("Fixed: GetAccount wraps the driver error with %w, so `err == sql.ErrNoRows` never matched; errors.Is "
              "looks through the wrapping."),
        ],
        mistake="if err == sql.ErrNoRows {",
        lesson="Go: errors come back wrapped (%w), so never compare them with == (err == sql.ErrNoRows, err == context.DeadlineExceeded …); use errors.Is(err, target).",
        warn=[same(E("internal/ledger/accounts.go", _ACC_OLD, _ACC_BAD)),
              reword(E("internal/gateway/forward.go", _FWD_OLD, _FWD_BAD))],
        silent=[fix(E("internal/gateway/forward.go", _FWD_OLD, _FWD_OK)),
                code(E("internal/ledger/accounts.go", "// Account loads one ledger account by id.\n",
                       "// Account loads one ledger account by id; ErrAccountNotFound if there is none.\n")),
                code(E("internal/ledger/posting.go", "\treturn s.q.InsertPosting(ctx, p)\n",
                       "\tif p.Amount == 0 {\n\t\treturn ErrZeroPosting\n\t}\n\treturn s.q.InsertPosting(ctx, p)\n")),
                other("go test ./internal/ledger/ -run TestAccount")],
        variants=(),
    ),
    Incident(
        "b5-testfix-python-04", TEST_FIX, CC, "millbrook",
        session=[
            U("The cleanup lambda should find every export older than the cutoff."),
            edit("lambdas/cleanup/handler.py", _STALE_OLD, _STALE_BAD),
            err("uv run pytest lambdas/cleanup/tests -q",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_________________________ test_finds_all_stale_exports _________________________\n\n"
                "    @mock_aws\n    def test_finds_all_stale_exports(s3_with_1500_old_exports):\n"
                ">       assert len(stale_exports(s3, \"millbrook-exports\", \"daily/\", CUTOFF)) == 1500\n"
                "E       assert 1000 == 1500\n\nlambdas/cleanup/tests/test_handler.py:27: AssertionError\n"
                "=========================== short test summary info ============================\n"
                "FAILED lambdas/cleanup/tests/test_handler.py::test_finds_all_stale_exports - assert 1000 == 1500\n"
                "1 failed, 1 passed in 2.81s"),
            edit("lambdas/cleanup/handler.py",
                 "    resp = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)\n    for obj in resp.get(\"Contents\", []):\n"
                 "        if obj[\"LastModified\"] < cutoff:\n            keys.append(obj[\"Key\"])\n",
                 "    paginator = s3.get_paginator(\"list_objects_v2\")\n    for page in paginator.paginate(Bucket=bucket, Prefix=prefix):\n"
                 "        for obj in page.get(\"Contents\", []):\n            if obj[\"LastModified\"] < cutoff:\n"
                 "                keys.append(obj[\"Key\"])\n"),
            ok("uv run pytest lambdas/cleanup/tests -q",
               "..                                                                       [100%]\n2 passed in 3.04s"),
            A("Fixed: list_objects_v2 returns at most 1000 keys per call; the paginator walks every page."),
        ],
        mistake="resp = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)",
        lesson="boto3: list_objects_v2 (like other list_* calls) returns one page of at most 1000 keys — iterate s3.get_paginator(\"list_objects_v2\").paginate(...) instead.",
        warn=[same(E("lambdas/cleanup/handler.py", _STALE_OLD, _STALE_BAD)),
              reword(E("lambdas/reports/export.py", _REP_OLD,
                       _REP_OLD + "        listing = client.list_objects_v2(Bucket=self.bucket_name, Prefix=\"exports/daily/\")\n"
                       "        return [o[\"Key\"] for o in listing.get(\"Contents\", [])]\n"))],
        silent=[fix(E("lambdas/reports/export.py", _REP_OLD,
                      _REP_OLD + "        pages = client.get_paginator(\"list_objects_v2\").paginate(Bucket=self.bucket_name, Prefix=\"exports/daily/\")\n"
                      "        return [o[\"Key\"] for page in pages for o in page.get(\"Contents\", [])]\n")),
                code(E("lambdas/cleanup/handler.py", "RETENTION_DAYS = 30\n", "RETENTION_DAYS = 45\n")),
                code(E("lambdas/reports/export.py", "    def export_size(self, key: str) -> int:\n        client = boto3.client(\"s3\")\n",
                       "    def export_size(self, key: str) -> int:\n        client = boto3.client(\"s3\")\n"
                       "        return client.head_object(Bucket=self.bucket_name, Key=key)[\"ContentLength\"]\n")),
                other("uv run pytest lambdas/cleanup/tests -q")],
        variants=(),
    ),
    Incident(
        "b5-testfix-rust-05", TEST_FIX, CODEX, "ferrow",
        session=[
            U("Pad the labels in the summary table to the column width."),
            edit("crates/ferrow-cli/src/render.rs", _PAD_OLD, _PAD_BAD),
            err("cargo test -p ferrow-cli render",
                "   Compiling ferrow-cli v0.9.0 (/home/dev/ferrow/crates/ferrow-cli)\n"
                "    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.12s\n"
                "     Running unittests src/main.rs (target/debug/deps/ferrow-5c7e9a1b3d2f4e60)\n\nrunning 4 tests\n"
                "test render::tests::pads_short_labels ... ok\ntest render::tests::long_labels_are_not_padded ... FAILED\n\n"
                "failures:\n\n---- render::tests::long_labels_are_not_padded stdout ----\n\n"
                "thread 'render::tests::long_labels_are_not_padded' panicked at crates/ferrow-cli/src/render.rs:42:15:\n"
                "attempt to subtract with overflow\n\nfailures:\n    render::tests::long_labels_are_not_padded\n\n"
                "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s", 101),
            edit("crates/ferrow-cli/src/render.rs", "    let pad = width - label.len();\n",
                 "    let pad = width.saturating_sub(label.len());\n"),
            ok("cargo test -p ferrow-cli render",
               "running 4 tests\n....\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 11 filtered out; finished in 0.00s"),
            A("Fixed: a label longer than the column made `width - label.len()` underflow (a panic in debug builds); "
              "saturating_sub stops at 0."),
        ],
        mistake="let pad = width - label.len();",
        lesson="Rust: subtracting usize lengths (width - s.len()) panics in debug and wraps in release when it would go negative; use saturating_sub or checked_sub.",
        warn=[same(E("crates/ferrow-cli/src/render.rs", _PAD_OLD, _PAD_BAD)),
              reword(E("crates/ferrow-cli/src/table.rs", _GAP_OLD,
                       "fn column_gap(name: &str, max_width: usize) -> usize {\n    max_width - name.chars().count() + 2\n}\n"))],
        silent=[fix(E("crates/ferrow-cli/src/table.rs", _GAP_OLD,
                      "fn column_gap(name: &str, max_width: usize) -> usize {\n    max_width.saturating_sub(name.chars().count()) + 2\n}\n")),
                code(E("crates/ferrow-cli/src/render.rs", "const DEFAULT_WIDTH: usize = 80;\n", "const DEFAULT_WIDTH: usize = 100;\n")),
                code(E("crates/ferrow-core/src/diff.rs", "fn delta(old: i64, new: i64) -> i64 {\n    0\n}\n",
                       "fn delta(old: i64, new: i64) -> i64 {\n    new - old\n}\n")),
                other("cargo test -p ferrow-cli render")],
        variants=(),
    ),
    Incident(
        "b5-testfix-ruby-06", TEST_FIX, GEMINI, "tallowmere",
        session=[
            U("Add Invoice#overdue?: true once the due date has passed."),
            edit("app/models/invoice.rb", _OVERDUE_OLD, _OVERDUE_BAD),
            err("bin/rails test test/models/invoice_test.rb",
                "Running 9 tests in a single process (parallelization threshold is 50)\nRun options: --seed 41877\n\n"
                "# Running:\n\n....F....\n\nFailure:\nInvoiceTest#test_not_overdue_on_its_due_date_in_Auckland [test/models/invoice_test.rb:31]:\n"
                "Expected true to be falsy.\n\nbin/rails test test/models/invoice_test.rb:27\n\n"
                "Finished in 0.412398s, 21.8236 runs/s, 26.6732 assertions/s.\n9 runs, 11 assertions, 1 failures, 0 errors, 0 skips"),
            edit("app/models/invoice.rb", "    due_on < Time.now.to_date\n", "    due_on < Time.zone.today\n"),
            ok("bin/rails test test/models/invoice_test.rb",
               "Running 9 tests in a single process (parallelization threshold is 50)\n\n# Running:\n\n.........\n\n"
               "9 runs, 11 assertions, 0 failures, 0 errors, 0 skips"),
            A("Fixed: Time.now uses the server's zone (UTC), while tallowmere runs in Pacific/Auckland, so around "
              "midnight an invoice was overdue on its own due date. Time.zone.today uses the app's zone."),
        ],
        mistake="due_on < Time.now.to_date",
        lesson="tallowmere (Rails, zone Pacific/Auckland): never Time.now / Date.today in app code — they use the server's zone; use Time.current, Time.zone.today or Date.current.",
        warn=[same(E("app/models/invoice.rb", _OVERDUE_OLD, _OVERDUE_BAD)),
              reword(E("app/models/subscription.rb", _RENEW_OLD, _RENEW_OLD + "    self.renews_on = Date.today + 1.month\n")),
              reword(W("app/jobs/payout_cutoff_job.rb",
                       "class PayoutCutoffJob < ApplicationJob\n  def perform\n    cutoff = Time.now.beginning_of_day\n"
                       "    Payout.pending.where(\"created_at < ?\", cutoff).find_each(&:release!)\n  end\nend\n"))],
        silent=[fix(E("app/models/subscription.rb", _RENEW_OLD, _RENEW_OLD + "    self.renews_on = Date.current + 1.month\n")),
                code(E("app/models/invoice.rb", "  validates :number, presence: true\n",
                       "  validates :number, presence: true, uniqueness: { scope: :account_id }\n")),
                other("bin/rails test test/models/invoice_test.rb")],
        variants=(),
    ),
    Incident(
        "b5-testfix-php-07", TEST_FIX, CC, "larchmont",
        session=[
            U("PlanResolver::isAvailable should only accept plans in the configured list."),
            edit("app/Services/PlanResolver.php", _PLAN_OLD, _PLAN_BAD),
            err("./vendor/bin/sail artisan test --filter=PlanResolverTest",
                "\n   FAIL  Tests\\Unit\\PlanResolverTest\n  ✓ unknown plan is not available\n  ⨯ first plan is available\n"
                "  ✓ second plan is available\n  ───────────────────────────────────────────────────────────────\n"
                "   FAILED  Tests\\Unit\\PlanResolverTest > first plan is available\n  Failed asserting that false is true.\n\n"
                "  at tests/Unit/PlanResolverTest.php:22\n\n  Tests:    1 failed, 2 passed (3 assertions)\n  Duration: 0.21s\n"),
            edit("app/Services/PlanResolver.php", "        if (array_search($planId, $this->planIds)) {\n",
                 "        if (array_search($planId, $this->planIds) !== false) {\n"),
            ok("./vendor/bin/sail artisan test --filter=PlanResolverTest",
               "\n   PASS  Tests\\Unit\\PlanResolverTest\n  ✓ unknown plan is not available\n  ✓ first plan is available\n"
               "  ✓ second plan is available\n\n  Tests:    3 passed (3 assertions)\n  Duration: 0.19s\n"),
            A("Fixed: array_search returns the key, and the first plan's key 0 is falsy, so it counted as unavailable. "
              "The check now compares with !== false."),
        ],
        mistake="if (array_search($planId, $this->planIds)) {",
        lesson="PHP: array_search returns the key, and key 0 is falsy — never use its result directly as a condition; compare with !== false, or use in_array($x, $arr, true).",
        warn=[same(E("app/Services/PlanResolver.php", _PLAN_OLD, _PLAN_BAD)),
              reword(E("app/Policies/TeamPolicy.php", _POLICY_OLD,
                       _POLICY_OLD + "        if (! array_search($role, $this->managerRoles)) {\n            return false;\n        }\n"))],
        silent=[fix(E("app/Policies/TeamPolicy.php", _POLICY_OLD,
                      _POLICY_OLD + "        if (! in_array($role, $this->managerRoles, true)) {\n            return false;\n        }\n")),
                code(E("app/Services/PlanResolver.php", "    private array $planIds = [];\n",
                       "    private array $planIds = [];\n\n    private int $cacheTtl = 300;\n")),
                code(E("app/Http/Controllers/PlanController.php", "        $plans = Plan::all();\n",
                       "        $plans = Plan::query()->orderBy('price')->get();\n")),
                other("./vendor/bin/sail artisan test --filter=PlanResolverTest")],
        variants=(),
    ),
    Incident(
        "b5-testfix-php-08", TEST_FIX, CODEX, "larchmont",
        session=[
            U("trialWindow should return the signup day and the day the 14-day trial ends."),
            edit("app/Services/TrialService.php", _TRIAL_OLD, _TRIAL_BAD),
            err("./vendor/bin/sail artisan test --filter=TrialServiceTest",
                "\n   FAIL  Tests\\Unit\\TrialServiceTest\n  ⨯ trial window starts on signup day\n  ✓ trial window ends after 14 days\n"
                "  ───────────────────────────────────────────────────────────────\n"
                "   FAILED  Tests\\Unit\\TrialServiceTest > trial window starts on signup day\n"
                "  Failed asserting that two strings are equal.\n  -'2026-03-02'\n  +'2026-03-16'\n\n"
                "  at tests/Unit/TrialServiceTest.php:18\n\n  Tests:    1 failed, 1 passed (2 assertions)\n"),
            edit("app/Services/TrialService.php", "        $end = $start->addDays(14);\n", "        $end = $start->copy()->addDays(14);\n"),
            ok("./vendor/bin/sail artisan test --filter=TrialServiceTest",
               "\n   PASS  Tests\\Unit\\TrialServiceTest\n  ✓ trial window starts on signup day\n  ✓ trial window ends after 14 days\n\n"
               "  Tests:    2 passed (2 assertions)\n"),
            A("Fixed: Carbon is mutable, so addDays(14) moved $start itself and both ends of the window were the end "
              "date. copy() first leaves $start alone."),
        ],
        mistake="$end = $start->addDays(14);",
        lesson="PHP/Carbon: Carbon is mutable — ->addDays()/->subMonth()… change the object itself; never derive a new date straight off a Carbon you still need: ->copy() first, or use CarbonImmutable (->toImmutable()).",
        warn=[same(E("app/Services/TrialService.php", _TRIAL_OLD, _TRIAL_BAD)),
              reword(E("app/Services/InvoiceScheduler.php", _SCHED_OLD,
                       _SCHED_OLD + "        $dueAt = $issuedAt->addDays($this->termsDays);\n        return [$issuedAt, $dueAt];\n"))],
        silent=[fix(E("app/Services/InvoiceScheduler.php", _SCHED_OLD,
                      _SCHED_OLD + "        $dueAt = $issuedAt->toImmutable()->addDays($this->termsDays);\n        return [$issuedAt, $dueAt];\n")),
                code(E("app/Services/TokenService.php", "    public function issue(User $user): Token\n    {\n",
                       "    public function issue(User $user): Token\n    {\n        $now = CarbonImmutable::now();\n"
                       "        $expiresAt = $now->addMinutes(30);\n")),
                code(E("app/Services/TrialService.php", "    private const TRIAL_DAYS = 14;\n", "    private const TRIAL_DAYS = 21;\n")),
                other("./vendor/bin/sail artisan test --filter=TrialServiceTest")],
        variants=(),
    ),
    Incident(
        "b5-testfix-elixir-09", TEST_FIX, GEMINI, "oxbow",
        session=[
            U("BookingController.create should build the hold from the guest email and number of nights."),
            edit("lib/oxbow_web/controllers/booking_controller.ex", _BOOK_OLD, _BOOK_BAD),
            err("mix test test/oxbow_web/controllers/booking_controller_test.exs",
                "Running ExUnit with seed: 418772, max_cases: 16\n\n.\n\n"
                "  1) test POST /bookings creates a hold (OxbowWeb.BookingControllerTest)\n"
                "     test/oxbow_web/controllers/booking_controller_test.exs:14\n     Assertion with == failed\n"
                "     code:  assert json_response(conn, 201)[\"guest_email\"] == \"ana@example.com\"\n"
                "     left:  nil\n     right: \"ana@example.com\"\n"
                "     stacktrace:\n       test/oxbow_web/controllers/booking_controller_test.exs:19: (test)\n\n"
                "Finished in 0.2 seconds (0.1s async, 0.1s sync)\n3 tests, 1 failure"),
            edit("lib/oxbow_web/controllers/booking_controller.ex",
                 "    attrs = %{guest_email: params[:guest_email], nights: params[:nights]}\n",
                 "    attrs = %{guest_email: params[\"guest_email\"], nights: params[\"nights\"]}\n"),
            ok("mix test test/oxbow_web/controllers/booking_controller_test.exs",
               "Running ExUnit with seed: 91304, max_cases: 16\n\n...\nFinished in 0.2 seconds (0.1s async, 0.1s sync)\n3 tests, 0 failures"),
            A("Fixed: Phoenix params come in with string keys, so params[:guest_email] was always nil."),
        ],
        mistake="attrs = %{guest_email: params[:guest_email], nights: params[:nights]}",
        lesson="Phoenix: controller params have string keys — params[:key] / Map.get(params, :key) is always nil; use params[\"key\"] or match %{\"key\" => value}.",
        warn=[same(E("lib/oxbow_web/controllers/booking_controller.ex", _BOOK_OLD, _BOOK_BAD)),
              reword(E("lib/oxbow_web/controllers/review_controller.ex", _REVIEW_OLD,
                       _REVIEW_OLD + "    rating = Map.get(params, :rating, 5)\n"))],
        silent=[fix(E("lib/oxbow_web/controllers/review_controller.ex", _REVIEW_OLD,
                      _REVIEW_OLD + "    rating = Map.get(params, \"rating\", 5)\n")),
                code(E("lib/oxbow/pricing.ex", "  def nightly_total(opts) do\n",
                       "  def nightly_total(opts) do\n    nights = opts[:nights] || 1\n")),
                code(E("lib/oxbow/bookings.ex", "  def hold_minutes, do: 15\n", "  def hold_minutes, do: 20\n")),
                other("mix test test/oxbow_web/controllers/booking_controller_test.exs")],
        variants=(),
    ),
    Incident(
        "b5-testfix-elixir-10", TEST_FIX, CC, "oxbow",
        session=[
            U("Implement Payments.settled?/2: true once the payments add up to the invoice total."),
            edit("lib/oxbow/billing/payments.ex", _SETTLED_OLD, _SETTLED_BAD),
            err("mix test test/oxbow/billing/payments_test.exs",
                "Running ExUnit with seed: 220931, max_cases: 16\n\n"
                "  1) test settled?/2 is true when the payments add up to the total (Oxbow.Billing.PaymentsTest)\n"
                "     test/oxbow/billing/payments_test.exs:22\n     Expected truthy, got false\n"
                "     code: assert Payments.settled?(invoice, [p1, p2])\n"
                "     arguments:\n\n         # 1\n         %Oxbow.Billing.Invoice{total: Decimal.new(\"120.00\"), ...}\n\n"
                "     stacktrace:\n       test/oxbow/billing/payments_test.exs:26: (test)\n\n.\n"
                "Finished in 0.04 seconds (0.04s async, 0.00s sync)\n2 tests, 1 failure"),
            edit("lib/oxbow/billing/payments.ex", "    paid == invoice.total\n", "    Decimal.equal?(paid, invoice.total)\n"),
            ok("mix test test/oxbow/billing/payments_test.exs",
               "Running ExUnit with seed: 5521, max_cases: 16\n\n..\nFinished in 0.03 seconds (0.03s async, 0.00s sync)\n2 tests, 0 failures"),
            A("Fixed: == compares the Decimal structs, so 120.0 (the sum) and 120.00 (the total) differ; Decimal.equal?/2 "
              "compares the values."),
        ],
        mistake="paid == invoice.total",
        lesson="Elixir: never compare Decimals with == (it compares the structs, so 1.0 != 1.00) — use Decimal.equal?/2 or Decimal.compare/2 == :eq.",
        warn=[same(E("lib/oxbow/billing/payments.ex", _SETTLED_OLD, _SETTLED_BAD)),
              reword(E("lib/oxbow/billing/refunds.ex", _FULLREF_OLD, _FULLREF_OLD + "    refund.amount == charge.amount\n  end\n"))],
        silent=[fix(E("lib/oxbow/billing/refunds.ex", _FULLREF_OLD,
                      _FULLREF_OLD + "    Decimal.compare(refund.amount, charge.amount) == :eq\n  end\n")),
                code(E("lib/oxbow/bookings.ex", "  def single_night?(booking), do: false\n",
                       "  def single_night?(booking), do: booking.nights == 1\n")),
                code(E("lib/oxbow/billing/payments.ex", "  @moduledoc false\n", "  @moduledoc \"Payment settlement helpers.\"\n")),
                other("mix test test/oxbow/billing/payments_test.exs")],
        variants=(),
    ),
    Incident(
        "b5-testfix-bash-11", TEST_FIX, CODEX, "skerry",
        session=[
            U("prune-backups.sh should also reset the staging folder inside the backup dir."),
            edit("scripts/prune-backups.sh", _PRUNE_OLD, _PRUNE_BAD),
            err("bats tests/prune-backups.bats",
                "prune-backups.bats\n ✓ keeps the newest 14 days\n ✓ deletes older dumps\n ✗ refuses to run when BACKUP_DIR is unset\n"
                "   (in test file tests/prune-backups.bats, line 31)\n     `[ \"$status\" -ne 0 ]' failed\n"
                "   rm: cannot remove '/staging': Permission denied\n\n3 tests, 1 failure"),
            edit("scripts/prune-backups.sh", "rm -rf \"$BACKUP_DIR/staging\"\n",
                 "rm -rf \"${BACKUP_DIR:?BACKUP_DIR must be set}/staging\"\n"),
            ok("bats tests/prune-backups.bats",
               "prune-backups.bats\n ✓ keeps the newest 14 days\n ✓ deletes older dumps\n ✓ refuses to run when BACKUP_DIR is unset\n\n3 tests, 0 failures"),
            A("Fixed: with BACKUP_DIR unset the line became `rm -rf /staging`. ${BACKUP_DIR:?} makes the script stop "
              "with an error instead."),
        ],
        mistake="rm -rf \"$BACKUP_DIR/staging\"",
        lesson="shell: never rm -rf \"$VAR/…\" with a variable that may be unset or empty (it becomes rm -rf /…); guard it with ${VAR:?} or check -n first.",
        warn=[same(E("scripts/prune-backups.sh", _PRUNE_OLD, _PRUNE_BAD)),
              reword(E("scripts/rotate-releases.sh", _ROT_OLD, _ROT_OLD + "  rm -rf \"$RELEASES_ROOT/$old\"\n"))],
        silent=[fix(E("scripts/rotate-releases.sh", _ROT_OLD, _ROT_OLD + "  rm -rf \"${RELEASES_ROOT:?}/${old:?}\"\n")),
                code(E("scripts/prune-backups.sh", _PRUNE_OLD, "KEEP_DAYS=\"${KEEP_DAYS:-21}\"\n")),
                code(E("scripts/deploy-lock.sh", "release_lock() {\n", "release_lock() {\n  rm -f /tmp/skerry-deploy.lock\n")),
                other("bats tests/prune-backups.bats")],
        variants=(),
    ),
    Incident(
        "b5-testfix-swift-12", TEST_FIX, GEMINI, "pellucid",
        session=[
            U("Parse the EXIF DateTimeOriginal strings into Dates."),
            edit("Packages/PellucidKit/Sources/PellucidKit/EXIF/ExifDate.swift", _EXIF_OLD, _EXIF_BAD),
            err("swift test --package-path Packages/PellucidKit --filter ExifDateTests",
                "Building for debugging...\nBuild complete! (6.02s)\n"
                "Test Case '-[PellucidKitTests.ExifDateTests testParsesUnderBuddhistCalendar]' started.\n"
                "/Users/dev/pellucid/Packages/PellucidKit/Tests/PellucidKitTests/ExifDateTests.swift:27: error: "
                "-[PellucidKitTests.ExifDateTests testParsesUnderBuddhistCalendar] : XCTAssertEqual failed: "
                "(\"Optional(1483-06-14 09:12:44 +0000)\") is not equal to (\"Optional(2026-06-14 09:12:44 +0000)\")\n"
                "Test Case '-[PellucidKitTests.ExifDateTests testParsesUnderBuddhistCalendar]' failed (0.004 seconds).\n"
                "\t Executed 4 tests, with 1 failure (0 unexpected) in 0.011 (0.012) seconds"),
            edit("Packages/PellucidKit/Sources/PellucidKit/EXIF/ExifDate.swift",
                 "        formatter.dateFormat = \"yyyy:MM:dd HH:mm:ss\"\n",
                 "        formatter.locale = Locale(identifier: \"en_US_POSIX\")\n        formatter.timeZone = TimeZone(secondsFromGMT: 0)\n"
                 "        formatter.dateFormat = \"yyyy:MM:dd HH:mm:ss\"\n"),
            ok("swift test --package-path Packages/PellucidKit --filter ExifDateTests",
               "Building for debugging...\nBuild complete! (3.41s)\n\t Executed 4 tests, with 0 failures (0 unexpected) in 0.009 (0.010) seconds"),
            A("Fixed: a DateFormatter takes the user's calendar and locale, so under the Buddhist calendar the year was "
              "read as 2026 BE. A fixed-format formatter needs the en_US_POSIX locale (and an explicit time zone)."),
        ],
        mistake="let formatter = DateFormatter(); formatter.dateFormat = \"yyyy:MM:dd HH:mm:ss\"  // no en_US_POSIX locale",
        lesson="Swift: a DateFormatter with a fixed dateFormat needs locale = Locale(identifier: \"en_US_POSIX\") and an explicit timeZone, or it parses with the user's calendar and locale; or use ISO8601DateFormatter.",
        warn=[same(E("Packages/PellucidKit/Sources/PellucidKit/EXIF/ExifDate.swift", _EXIF_OLD, _EXIF_BAD)),
              reword(E("Packages/PellucidKit/Sources/PellucidKit/Sync/BackupManifest.swift", _MANIFEST_OLD,
                       _MANIFEST_OLD + "        let df = DateFormatter()\n        df.dateFormat = \"yyyy-MM-dd'T'HH:mm:ssZ\"\n"
                       "        createdAt = df.date(from: raw.created) ?? .distantPast\n"))],
        silent=[fix(E("Packages/PellucidKit/Sources/PellucidKit/Sync/BackupManifest.swift", _MANIFEST_OLD,
                      _MANIFEST_OLD + "        createdAt = ISO8601DateFormatter().date(from: raw.created) ?? .distantPast\n")),
                code(E("Packages/PellucidUI/Sources/PellucidUI/PhotoInfoView.swift", "    private var takenLabel: String {\n",
                       "    private var takenLabel: String {\n        let df = DateFormatter()\n        df.dateStyle = .medium\n"
                       "        df.timeStyle = .short\n        return df.string(from: photo.takenAt)\n")),
                other("swift test --package-path Packages/PellucidKit --filter ExifDateTests")],
        variants=(),
    ),
    Incident(
        "b5-testfix-kotlin-13", TEST_FIX, CC, "wrenfield",
        session=[
            U("Implement InvoiceService.isSettled: true when the payments cover the invoice total."),
            edit("api/src/main/kotlin/io/wrenfield/billing/InvoiceService.kt", _SETTLE_KT_OLD, _SETTLE_KT_BAD),
            err("./gradlew :api:test --tests '*InvoiceServiceTest'",
                "> Task :api:test FAILED\n\nInvoiceServiceTest > settles when payments add up() FAILED\n"
                "    org.opentest4j.AssertionFailedError: expected: <true> but was: <false>\n"
                "        at app//io.wrenfield.billing.InvoiceServiceTest.settles when payments add up(InvoiceServiceTest.kt:48)\n\n"
                "4 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
                "Execution failed for task ':api:test'.\n> There were failing tests.\n\nBUILD FAILED in 18s"),
            edit("api/src/main/kotlin/io/wrenfield/billing/InvoiceService.kt", "        return paid == invoice.total\n",
                 "        return paid.compareTo(invoice.total) == 0\n"),
            ok("./gradlew :api:test --tests '*InvoiceServiceTest'", "> Task :api:test\n\nBUILD SUCCESSFUL in 16s\n9 actionable tasks: 2 executed, 7 up-to-date"),
            A("Fixed: == on BigDecimal is equals(), which also compares the scale — 120.0 (the fold) isn't 120.00 (the "
              "total). compareTo(...) == 0 compares the values."),
        ],
        mistake="return paid == invoice.total",
        lesson="Kotlin/Java: BigDecimal == (equals) also compares the scale, so 120.0 != 120.00 — compare amounts with compareTo(...) == 0.",
        warn=[same(E("api/src/main/kotlin/io/wrenfield/billing/InvoiceService.kt", _SETTLE_KT_OLD, _SETTLE_KT_BAD)),
              reword(E("api/src/main/kotlin/io/wrenfield/billing/RefundPolicy.kt", _CLASSIFY_OLD,
                       _CLASSIFY_OLD + "        if (refund.amount == charge.amount) return RefundKind.FULL\n"))],
        silent=[fix(E("api/src/main/kotlin/io/wrenfield/billing/RefundPolicy.kt", _CLASSIFY_OLD,
                      _CLASSIFY_OLD + "        if (refund.amount.compareTo(charge.amount) == 0) return RefundKind.FULL\n")),
                code(E("api/src/main/kotlin/io/wrenfield/billing/RefundPolicy.kt", "    fun isPartial(refund: Refund): Boolean = false\n",
                       "    fun isPartial(refund: Refund): Boolean = refund.kind == RefundKind.PARTIAL\n")),
                code(E("api/src/main/kotlin/io/wrenfield/billing/InvoiceService.kt", "    private val log = LoggerFactory.getLogger(javaClass)\n",
                       "    private val log = LoggerFactory.getLogger(javaClass)\n    private val defaultCurrency = Currency.getInstance(\"EUR\")\n")),
                other("./gradlew :api:test --tests '*InvoiceServiceTest'")],
        variants=(),
    ),
    Incident(
        "b5-testfix-csharp-14", TEST_FIX, CODEX, "gannet",
        session=[
            U("SendReceipt should render the receipt PDF and mail it."),
            edit("src/Gannet.Payments/ReceiptSender.cs", _RECEIPT_OLD, _RECEIPT_BAD),
            err("dotnet test tests/Gannet.Payments.Tests --filter ReceiptSenderTests",
                "  Determining projects to restore...\n  All projects are up-to-date for restore.\n"
                "Starting test execution, please wait...\nA total of 1 test files matched the specified pattern.\n"
                "The active test run was aborted. Reason: Test host process crashed : Unhandled exception. "
                "System.InvalidOperationException: Mailer is not configured\n"
                "   at Gannet.Payments.ReceiptSender.SendReceipt(Payment payment) in /home/dev/gannet/src/Gannet.Payments/ReceiptSender.cs:line 27\n"
                "   at System.Threading.Tasks.Task.<>c.<ThrowAsync>b__128_1(Object state)\n"
                "   at System.Threading.ThreadPoolWorkQueue.Dispatch()\n\nTest Run Aborted."),
            edit("src/Gannet.Payments/ReceiptSender.cs", "    public async void SendReceipt(Payment payment)\n",
                 "    public async Task SendReceiptAsync(Payment payment)\n"),
            ok("dotnet test tests/Gannet.Payments.Tests --filter ReceiptSenderTests",
               "Passed!  - Failed:     0, Passed:     5, Skipped:     0, Total:     5, Duration: 212 ms - Gannet.Payments.Tests.dll (net8.0)"),
            A("Fixed: an async void method can't be awaited and its exception went to the thread pool and crashed the "
              "test host. It's an async Task (SendReceiptAsync) now, so the caller awaits it and sees the exception."),
        ],
        mistake="public async void SendReceipt(Payment payment)",
        lesson="C#: never async void outside event handlers — callers can't await it and its exceptions crash the process; return Task (async Task FooAsync).",
        warn=[same(E("src/Gannet.Payments/ReceiptSender.cs", _RECEIPT_OLD, _RECEIPT_BAD)),
              reword(E("src/Gannet.Api/Services/RateRefresher.cs", _RATES_OLD,
                       "    private async void RefreshRates()\n    {\n        var latest = await _client.GetLatestAsync();\n"
                       "        _rates.Replace(latest);\n    }\n"))],
        silent=[fix(E("src/Gannet.Api/Services/RateRefresher.cs", _RATES_OLD,
                      "    private async Task RefreshRatesAsync()\n    {\n        var latest = await _client.GetLatestAsync();\n"
                      "        _rates.Replace(latest);\n    }\n")),
                code(E("src/Gannet.Api/Services/PayoutService.cs", "    public Payout? Find(Guid id) => _db.Payouts.Find(id);\n",
                       "    public async Task<Payout?> FindAsync(Guid id) => await _db.Payouts.FindAsync(id);\n")),
                code(E("src/Gannet.Payments/ReceiptSender.cs", "    private const string Subject = \"Your receipt\";\n",
                       "    private const string Subject = \"Your Gannet receipt\";\n")),
                other("dotnet test tests/Gannet.Payments.Tests --filter ReceiptSenderTests")],
        variants=(),
    ),
    Incident(
        "b5-testfix-csharp-15", TEST_FIX, GEMINI, "gannet",
        session=[
            U("PlatformFee: 2.9% plus 30 cents, rounded half away from zero."),
            edit("src/Gannet.Payments/Fees.cs", _FEE_OLD, _FEE_BAD),
            err("dotnet test tests/Gannet.Payments.Tests --filter FeesTests",
                "[xUnit.net 00:00:00.41]     Gannet.Payments.Tests.FeesTests.PlatformFee_rounds_half_up(amount: 10.50, expected: 0.61) [FAIL]\n"
                "  Failed Gannet.Payments.Tests.FeesTests.PlatformFee_rounds_half_up(amount: 10.50, expected: 0.61) [3 ms]\n"
                "  Error Message:\n   Assert.Equal() Failure: Values differ\nExpected: 0.61\nActual:   0.60\n"
                "  Stack Trace:\n     at Gannet.Payments.Tests.FeesTests.PlatformFee_rounds_half_up(Decimal amount, Decimal expected) in "
                "/home/dev/gannet/tests/Gannet.Payments.Tests/FeesTests.cs:line 19\n\n"
                "Failed!  - Failed:     1, Passed:     6, Skipped:     0, Total:     7, Duration: 38 ms - Gannet.Payments.Tests.dll (net8.0)"),
            edit("src/Gannet.Payments/Fees.cs",
                 "        double fee = (double)amount * 0.029 + 0.30;\n        return (decimal)Math.Round(fee, 2, MidpointRounding.AwayFromZero);\n",
                 "        decimal fee = amount * 0.029m + 0.30m;\n        return Math.Round(fee, 2, MidpointRounding.AwayFromZero);\n"),
            ok("dotnet test tests/Gannet.Payments.Tests --filter FeesTests",
               "Passed!  - Failed:     0, Passed:     7, Skipped:     0, Total:     7, Duration: 31 ms - Gannet.Payments.Tests.dll (net8.0)"),
            A("Fixed: in double, 10.50 × 0.029 + 0.30 is 0.60449999…, which rounds to 0.60. The fee is computed in "
              "decimal now (0.029m, 0.30m), so 0.6045 rounds to 0.61."),
        ],
        mistake="double fee = (double)amount * 0.029 + 0.30;",
        lesson="C#: never do money arithmetic in double (0.6045 becomes 0.60449…); keep amounts decimal end to end (0.029m, 0.30m).",
        warn=[same(E("src/Gannet.Payments/Fees.cs", _FEE_OLD, _FEE_BAD)),
              reword(E("src/Gannet.Api/Payouts/FxConverter.cs", _FX_OLD,
                       _FX_OLD + "        double converted = (double)payout.Amount * (double)rate;\n"
                       "        return new Money(Math.Round((decimal)converted, 2), target);\n"))],
        silent=[fix(E("src/Gannet.Api/Payouts/FxConverter.cs", _FX_OLD,
                      _FX_OLD + "        var converted = payout.Amount * rate;\n"
                      "        return new Money(Math.Round(converted, 2, MidpointRounding.AwayFromZero), target);\n")),
                code(E("src/Gannet.Api/Metrics/LatencyTracker.cs", "    public double P95 => 0;\n",
                       "    public double P95 => _samples.Count == 0 ? 0 : Percentile(_samples, 0.95);\n")),
                other("dotnet test tests/Gannet.Payments.Tests --filter FeesTests")],
        variants=(),
    ),
    Incident(
        "b5-testfix-go-16", TEST_FIX, CC, "halyard",
        session=[
            U("Make the Slack notifier actually post the message to the webhook."),
            edit("internal/notify/slack.go", _SLACK_OLD, _SLACK_BAD),
            err("go test ./internal/notify/ -run TestPost -timeout 60s",
                "panic: test timed out after 1m0s\n\trunning tests:\n\t\tTestPostTimesOut (1m0s)\n\n"
                "goroutine 7 [select]:\nnet/http.(*persistConn).roundTrip(0xc0001b4000, 0xc0000a6200)\n"
                "\t/usr/local/go/src/net/http/transport.go:2795 +0x8c5\n"
                "github.com/halyard/halyard/internal/notify.(*Notifier).Post(0xc0000141e0, {0x7a3f20, 0xc0000a2000}, {...})\n"
                "\t/home/dev/halyard/internal/notify/slack.go:31 +0x1a5\n"
                "FAIL\tgithub.com/halyard/halyard/internal/notify\t60.019s\nFAIL"),
            edit("internal/notify/slack.go",
                 "\tresp, err := http.Post(n.webhookURL, \"application/json\", bytes.NewReader(body))\n",
                 "\treq, err := http.NewRequestWithContext(ctx, http.MethodPost, n.webhookURL, bytes.NewReader(body))\n"
                 "\tif err != nil {\n\t\treturn err\n\t}\n\treq.Header.Set(\"Content-Type\", \"application/json\")\n"
                 "\tresp, err := n.client.Do(req) // n.client has a 10s Timeout\n"),
            ok("go test ./internal/notify/ -run TestPost -timeout 60s", "ok  \tgithub.com/halyard/halyard/internal/notify\t2.018s"),
            A("Fixed: http.Post uses the default client, which has no timeout and ignores ctx, so a hanging webhook "
              "blocked forever. The notifier now sends through its own client (10s timeout) with the request context."),
        ],
        mistake="resp, err := http.Post(n.webhookURL, \"application/json\", bytes.NewReader(body))",
        lesson="Go: never the package-level http.Get/http.Post (http.DefaultClient) for outbound calls — no timeout, no context; use a client with a Timeout and http.NewRequestWithContext.",
        warn=[same(E("internal/notify/slack.go", _SLACK_OLD, _SLACK_BAD)),
              reword(E("internal/registry/probe.go", _PROBE_OLD, _PROBE_OLD + "\tresp, err := http.Get(endpoint + \"/healthz\")\n"))],
        silent=[fix(E("internal/registry/probe.go", _PROBE_OLD,
                      _PROBE_OLD + "\tctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)\n\tdefer cancel()\n"
                      "\treq, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+\"/healthz\", nil)\n"
                      "\tresp, err := probeClient.Do(req)\n")),
                code(E("cmd/halyard/main.go", "\tmux := http.NewServeMux()\n",
                       "\tmux := http.NewServeMux()\n\tmux.HandleFunc(\"GET /healthz\", func(w http.ResponseWriter, r *http.Request) {\n"
                       "\t\tw.WriteHeader(http.StatusOK)\n\t})\n")),
                code(E("internal/notify/slack.go", "const defaultChannel = \"#deploys\"\n", "const defaultChannel = \"#platform-deploys\"\n")),
                other("go test ./internal/notify/ -run TestPost -timeout 60s")],
        variants=(),
    ),
    Incident(
        "b5-testfix-typescript-17", TEST_FIX, CODEX, "marigold",
        session=[
            U("stockLevels should look up the available quantity of every SKU."),
            edit("src/lib/stock.ts", _STOCK_OLD, _STOCK_BAD),
            err("bun run test -- src/lib/stock.test.ts",
                "$ jest src/lib/stock.test.ts\n FAIL  src/lib/stock.test.ts\n  ● Test suite failed to run\n\n"
                "    src/lib/stock.ts:4:3 - error TS2322: Type 'Promise<{ sku: string; available: number; }>[]' is not "
                "assignable to type 'StockLevel[]'.\n      Type 'Promise<{ sku: string; available: number; }>' is missing the "
                "following properties from type 'StockLevel': sku, available\n\n"
                "    4   return skus.map(async (sku) => ({ sku, available: await warehouse.available(sku) }));\n"
                "        ~~~~~~\n\nTest Suites: 1 failed, 1 total\nTests:       0 total"),
            edit("src/lib/stock.ts",
                 "  return skus.map(async (sku) => ({ sku, available: await warehouse.available(sku) }));\n",
                 "  return Promise.all(skus.map(async (sku) => ({ sku, available: await warehouse.available(sku) })));\n"),
            ok("bun run test -- src/lib/stock.test.ts",
               "$ jest src/lib/stock.test.ts\n PASS  src/lib/stock.test.ts\n  stockLevels\n    ✓ returns one level per sku (6 ms)\n"
               "    ✓ keeps the sku order (2 ms)\n\nTests:       2 passed, 2 total"),
            A("Fixed: .map with an async callback returns an array of promises; Promise.all waits for them and gives "
              "the levels."),
        ],
        mistake="return skus.map(async (sku) => ({ sku, available: await warehouse.available(sku) }));",
        lesson="TS: .map(async …) gives an array of promises — wrap it in await Promise.all(…) (or Promise.allSettled) before using the results.",
        warn=[same(E("src/lib/stock.ts", _STOCK_OLD, _STOCK_BAD)),
              reword(E("src/lib/recommendations.ts", _RELATED_OLD,
                       _RELATED_OLD + "  const products = ids.map(async (id) => await catalog.product(id));\n"
                       "  return products.filter(Boolean) as Product[];\n"))],
        silent=[fix(E("src/lib/recommendations.ts", _RELATED_OLD,
                      _RELATED_OLD + "  const products = await Promise.all(ids.map((id) => catalog.product(id)));\n"
                      "  return products.filter(Boolean) as Product[];\n")),
                code(E("src/lib/cart.ts", "  const skus = cart.lines;\n", "  const skus = cart.lines.map((line) => line.sku);\n")),
                other("bun run test -- src/lib/stock.test.ts")],
        variants=(),
    ),
    Incident(
        "b5-testfix-typescript-18", TEST_FIX, GEMINI, "marigold",
        session=[
            U("Persist the recently viewed products in localStorage."),
            edit("src/lib/recentlyViewed.ts", _RECENT_OLD, _RECENT_BAD),
            err("bun run test -- src/lib/recentlyViewed.test.ts",
                "$ jest src/lib/recentlyViewed.test.ts\n FAIL  src/lib/recentlyViewed.test.ts\n"
                "  ● saveRecent › stores every viewed sku with its timestamp\n\n"
                "    expect(received).toEqual(expected) // deep equality\n\n    - Expected  - 3\n    + Received  + 1\n\n"
                "    - Object {\n    -   \"sku-1\": 1700000000,\n    -   \"sku-2\": 1700000500,\n    - }\n    + Object {}\n\n"
                "      14 |     saveRecent(recent);\n    > 15 |     expect(JSON.parse(localStorage.getItem(\"recent\")!)).toEqual({\n\n"
                "Tests:       1 failed, 2 passed, 3 total"),
            edit("src/lib/recentlyViewed.ts", "  localStorage.setItem(\"recent\", JSON.stringify(recent));\n",
                 "  localStorage.setItem(\"recent\", JSON.stringify(Object.fromEntries(recent)));\n"),
            ok("bun run test -- src/lib/recentlyViewed.test.ts",
               "$ jest src/lib/recentlyViewed.test.ts\n PASS  src/lib/recentlyViewed.test.ts\n\nTests:       3 passed, 3 total"),
            A("Fixed: JSON.stringify of a Map is \"{}\" (a Map has no enumerable own properties); Object.fromEntries turns "
              "it into a plain object first."),
        ],
        mistake="localStorage.setItem(\"recent\", JSON.stringify(recent));  // recent is a Map",
        lesson="JS/TS: JSON.stringify of a Map (or Set) gives {} — convert it first: JSON.stringify(Object.fromEntries(map)), or [...set].",
        warn=[same(E("src/lib/recentlyViewed.ts", _RECENT_OLD, _RECENT_BAD)),
              reword(E("src/lib/cartCache.ts", _CARTSER_OLD,
                       _CARTSER_OLD + "  const quantities = new Map<string, number>(cart.lines.map((l) => [l.sku, l.qty]));\n"
                       "  return JSON.stringify({ id: cart.id, quantities });\n"))],
        silent=[fix(E("src/lib/cartCache.ts", _CARTSER_OLD,
                      _CARTSER_OLD + "  const quantities = new Map<string, number>(cart.lines.map((l) => [l.sku, l.qty]));\n"
                      "  return JSON.stringify({ id: cart.id, quantities: Object.fromEntries(quantities) });\n")),
                code(E("src/lib/analytics.ts", "export function track(event: string, props: Record<string, unknown>): void {\n",
                       "export function track(event: string, props: Record<string, unknown>): void {\n"
                       "  navigator.sendBeacon(\"/api/events\", JSON.stringify({ event, props }));\n")),
                other("bun run test -- src/lib/recentlyViewed.test.ts")],
        variants=(),
    ),
    Incident(
        "b5-testfix-scala-19", TEST_FIX, CC, "drumlin",
        session=[
            U("sessionStart should return the timestamp of a session's first event."),
            edit("pipeline/src/main/scala/drumlin/pipeline/Sessionizer.scala", _START_OLD, _START_BAD),
            err(_SBT_SESSIONIZER,
                "[info] SessionizerSpec:\n[info] - sessionStart is the earliest event\n"
                "[info] - sessionStart of an empty session is None *** FAILED ***\n"
                "[info]   java.util.NoSuchElementException: head of empty list\n"
                "[info]   at scala.collection.immutable.Nil$.head(List.scala:663)\n"
                "[info]   at drumlin.pipeline.Sessionizer$.sessionStart(Sessionizer.scala:28)\n"
                "[info] Tests: succeeded 11, failed 1, canceled 0, ignored 0, pending 0\n[info] *** 1 TEST FAILED ***\n"
                "[error] Failed tests:\n[error] \tdrumlin.pipeline.SessionizerSpec\n[error] (pipeline / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful"),
            edit("pipeline/src/main/scala/drumlin/pipeline/Sessionizer.scala", "    Some(events.sortBy(_.ts).head.ts)\n",
                 "    events.sortBy(_.ts).headOption.map(_.ts)\n"),
            ok(_SBT_SESSIONIZER,
               "[info] SessionizerSpec:\n[info] Tests: succeeded 12, failed 0, canceled 0, ignored 0, pending 0\n[info] All tests passed.\n"
               "[success] Total time: 41 s, completed Mar 2, 2026, 10:14:19 AM"),
            A("Fixed: .head throws on an empty session; headOption returns None for it."),
        ],
        mistake="Some(events.sortBy(_.ts).head.ts)",
        lesson="Scala: never .head / .last / .maxBy on a collection that can be empty (NoSuchElementException) — use headOption, lastOption, maxByOption or find.",
        warn=[same(E("pipeline/src/main/scala/drumlin/pipeline/Sessionizer.scala", _START_OLD, _START_BAD)),
              reword(E("pipeline/src/main/scala/drumlin/pipeline/Attribution.scala", _ATTR_OLD,
                       _ATTR_OLD + "    val firstTouch = touches.filter(_.channel != Channel.Direct).head\n"))],
        silent=[fix(E("pipeline/src/main/scala/drumlin/pipeline/Attribution.scala", _ATTR_OLD,
                      _ATTR_OLD + "    val firstTouch = touches.find(_.channel != Channel.Direct)\n")),
                code(E("pipeline/src/main/scala/drumlin/pipeline/Sessionizer.scala", "  val DefaultGap: Duration = Duration.ofMinutes(30)\n",
                       "  val DefaultGap: Duration = Duration.ofMinutes(45)\n")),
                other(_SBT_SESSIONIZER)],
        variants=(),
    ),
    Incident(
        "b5-testfix-python-20", TEST_FIX, CODEX, "sorrel",
        session=[
            U("collect_metrics should put one row per run into the table."),
            edit("sorrel/eval/report.py", _METRICS_OLD, _METRICS_BAD),
            err("poetry run pytest tests/eval/test_report.py -q",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "____________________________ test_one_row_per_run ____________________________\n"
                "sorrel/eval/report.py:14: in collect_metrics\n"
                "    table = table.append({\"run\": run.name, \"epoch\": run.epoch, \"loss\": run.loss}, ignore_index=True)\n"
                ".venv/lib/python3.12/site-packages/pandas/core/generic.py:6299: in __getattr__\n    return object.__getattribute__(self, name)\n"
                "E   AttributeError: 'DataFrame' object has no attribute 'append'\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/eval/test_report.py::test_one_row_per_run - AttributeError: 'DataFrame' object has no attribute 'append'\n"
                "1 failed, 1 passed in 0.61s"),
            edit("sorrel/eval/report.py", _METRICS_LOOP,
                 "    rows = [{\"run\": run.name, \"epoch\": run.epoch, \"loss\": run.loss} for run in runs]\n"
                 "    table = pd.concat([table, pd.DataFrame(rows)], ignore_index=True)\n"),
            ok("poetry run pytest tests/eval/test_report.py -q",
               "..                                                                       [100%]\n2 passed in 0.44s"),
            A("Fixed: pandas 2 removed DataFrame.append. The rows are collected in a list and concatenated once."),
        ],
        mistake="table = table.append({\"run\": run.name, \"epoch\": run.epoch, \"loss\": run.loss}, ignore_index=True)",
        lesson="pandas 2 removed DataFrame.append (and Series.append): collect the rows in a list and build one DataFrame, or pd.concat([df, new_rows], ignore_index=True).",
        warn=[same(E("sorrel/eval/report.py", _METRICS_OLD, _METRICS_BAD)),
              reword(E("sorrel/train/callbacks.py", _EPOCH_OLD,
                       _EPOCH_OLD + "        self.history = self.history.append({\"epoch\": epoch, \"val_loss\": logs[\"val_loss\"]}, ignore_index=True)\n"))],
        silent=[fix(E("sorrel/train/callbacks.py", _EPOCH_OLD,
                      _EPOCH_OLD + "        self.rows.append({\"epoch\": epoch, \"val_loss\": logs[\"val_loss\"]})\n")),
                code(E("sorrel/data/split.py", "    folds = []\n",
                       "    folds = []\n    for k in range(n_folds):\n        folds.append(indices[k::n_folds])\n")),
                code(E("sorrel/eval/report.py", "PRECISION = 4\n", "PRECISION = 5\n")),
                other("poetry run pytest tests/eval/test_report.py -q")],
        variants=(),
    ),
]
