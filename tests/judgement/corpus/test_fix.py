"""Shape 4: a test fails, an edit to the code fixes it, the test passes.

The lesson is about the code: it should fire on an Edit/Write that brings the
bad pattern back (``same`` is the session's own buggy edit, ``reword`` the same
bug elsewhere), not on ordinary test runs or on edits that use the fix.
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
    read,
    reword,
    same,
    write,
)
from .outputs import psycopg_syntax_error_traceback

_COLLECT_BAD = "def collect_links(page: str, seen: list[str] = []) -> list[str]:\n"
_COLLECT_OK = "def collect_links(page: str, seen: list[str] | None = None) -> list[str]:\n    seen = [] if seen is None else seen\n"

_OVERDUE_OLD = "    currency: Mapped[str] = mapped_column(String(3))\n"
_OVERDUE_BAD = _OVERDUE_OLD + "\n    @property\n    def is_overdue(self) -> bool:\n        return self.due_at < datetime.utcnow()\n"

_SORT_OLD = "  return products.map((p) => p.price);\n"
_SORT_BAD = "  return products.map((p) => p.price).sort();\n"
_SORT_OK = "  return products.map((p) => p.price).sort((a, b) => a - b);\n"

_FLUSH_OLD = "\tfor _, s := range shards {\n\t\tif err := s.Flush(ctx); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n"
_FLUSH_BAD = (
    "\tvar wg sync.WaitGroup\n\terrs := make(chan error, len(shards))\n\tfor _, s := range shards {\n\t\twg.Add(1)\n"
    "\t\tgo func() {\n\t\t\tdefer wg.Done()\n\t\t\terrs <- s.Flush(ctx)\n\t\t}()\n\t}\n\twg.Wait()\n\tclose(errs)\n"
    "\treturn errors.Join(drain(errs)...)\n"
)

_PORT_OLD = '        "host" => hdr.host = value.trim().to_string(),\n'
_PORT_BAD = _PORT_OLD + '        "port" => hdr.port = value.trim().parse::<u16>().unwrap(),\n'

_DATE_OLD = "  return d.toISOString().slice(0, 10);\n"
_DATE_BAD = "  return d.toLocaleDateString();\n"
_DATE_OK = '  return new Intl.DateTimeFormat("en-GB", { day: "2-digit", month: "2-digit", year: "numeric" }).format(d);\n'

_TOTAL_BAD = "func Total(lines []Line) float64 {\n\tvar total float64\n\tfor _, l := range lines {\n\t\ttotal += float64(l.AmountCents) / 100\n\t}\n"
_TOTAL_OK = "func Total(lines []Line) Money {\n\tvar total Money\n\tfor _, l := range lines {\n\t\ttotal += Money(l.AmountCents)\n\t}\n"

_PAYLOAD_OLD = '        "invoice_id": invoice.id,\n'
_PAYLOAD_BAD = _PAYLOAD_OLD + '        "invoice": invoice.dict(),\n'

_FOREACH_OLD = "export async function publishAll(files, upload) {\n}\n"
_FOREACH_BAD = "export async function publishAll(files, upload) {\n  files.forEach(async (file) => {\n    await upload(file);\n  });\n}\n"
_FOREACH_OK = "export async function publishAll(files, upload) {\n  for (const file of files) {\n    await upload(file);\n  }\n}\n"

_EXPORT_BAD = (
    "import csv\n\nFIELDS = [\"id\", \"title\", \"city\", \"price\"]\n\n\ndef export_csv(rows, path):\n"
    "    with open(path, \"w\", newline=\"\") as f:\n        writer = csv.DictWriter(f, fieldnames=FIELDS)\n"
    "        writer.writeheader()\n        writer.writerows(rows)\n"
)

_PING_BAD = (
    "package health\n\nimport (\n\t\"fmt\"\n\t\"net/http\"\n\t\"time\"\n)\n\nconst timeout = 2 * time.Second\n\n"
    "// Ping checks that the sink answers on /ping.\nfunc Ping(url string) error {\n\tresp, err := http.Get(url)\n"
    "\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn err\n\t}\n\tif resp.StatusCode != http.StatusOK {\n"
    "\t\treturn fmt.Errorf(\"ping %s: %s\", url, resp.Status)\n\t}\n\treturn nil\n}\n"
)

_SQL_BAD = "        cur.execute(f\"SELECT id, name, email FROM customers WHERE name = '{name}'\")\n"
_SQL_OK = "        cur.execute(\"SELECT id, name, email FROM customers WHERE name = %s\", (name,))\n"

_OFFSETS_OLD = "    let count = read_u32(&buf[0..4])? as usize;\n    todo!(\"decode offsets\")\n"
_OFFSETS_BAD = (
    "    let count = read_u32(&buf[0..4])? as usize;\n    let mut offsets = Vec::with_capacity(count);\n"
    "    for i in 0..count {\n        offsets[i] = read_u32(&buf[4 + i * 4..])?;\n    }\n    Ok(offsets)\n"
)

INCIDENTS = [
    Incident(
        "tf-mutable-default-arg", TEST_FIX, CC, "scraper",
        session=[
            U("collect_links returns links from earlier pages too. Fix it."),
            err("poetry run pytest -q tests/test_crawl.py",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________ test_collect_links_fresh_each_call ______________________\n\n"
                "    def test_collect_links_fresh_each_call():\n        first = collect_links(PAGE_A)\n"
                "        second = collect_links(PAGE_B)\n>       assert second == [\"/listings/7\"]\n"
                "E       AssertionError: assert ['/listings/1', '/listings/2', '/listings/7'] == ['/listings/7']\n"
                "E         At index 0 diff: '/listings/1' != '/listings/7'\n"
                "E         Left contains 2 more items, first extra item: '/listings/2'\n\n"
                "tests/test_crawl.py:22: AssertionError\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_crawl.py::test_collect_links_fresh_each_call - AssertionError: assert ['/listings/1', '/listings/2', '/listings/7'] == ['/listings/7']\n"
                "1 failed, 1 passed in 0.09s"),
            read("scraper/crawl.py",
                 "import re\n\nLINK_RE = re.compile(r\"/listings/\\d+\")\n\n\n" + _COLLECT_BAD
                 + "    for link in LINK_RE.findall(page):\n        if link not in seen:\n            seen.append(link)\n    return seen\n"),
            edit("scraper/crawl.py", _COLLECT_BAD, _COLLECT_OK),
            ok("poetry run pytest -q tests/test_crawl.py", "..                                                                       [100%]\n2 passed in 0.08s"),
            A("Fixed: the default list was shared between calls."),
        ],
        mistake="Edit scraper/crawl.py: def collect_links(page: str, seen: list[str] = []) -> list[str]:",
        lesson="Python: never use a mutable default argument (seen=[] is shared between calls); default to None and create it inside.",
        warn=[same(E("scraper/crawl.py", _COLLECT_OK, _COLLECT_BAD)),
              reword(W("scraper/frontier.py",
                       "class Frontier:\n    def __init__(self, pending: list[str] = []):\n        self.pending = pending\n\n"
                       "    def push(self, url: str) -> None:\n        self.pending.append(url)\n"))],
        silent=[fix(W("scraper/frontier.py",
                      "class Frontier:\n    def __init__(self, pending: list[str] | None = None):\n"
                      "        self.pending = [] if pending is None else pending\n\n"
                      "    def push(self, url: str) -> None:\n        self.pending.append(url)\n")),
                other("poetry run pytest -q tests/test_crawl.py"),
                code(E("scraper/crawl.py", 'LINK_RE = re.compile(r"/listings/\\d+")\n', 'LINK_RE = re.compile(r"/listings/\\d+/?")\n'))],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-naive-utcnow", TEST_FIX, CC, "ledger-api",
        session=[
            U("Add an is_overdue property to Invoice."),
            edit("app/models/invoice.py", _OVERDUE_OLD, _OVERDUE_BAD),
            err("uv run pytest tests/test_invoices.py -q",
                "....F...                                                                 [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________________ test_overdue_invoice _____________________________\n\n"
                "    def test_overdue_invoice():\n        inv = make_invoice(due_at=datetime(2026, 1, 1, tzinfo=timezone.utc))\n"
                ">       assert inv.is_overdue\n\ntests/test_invoices.py:71: \n"
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n\n"
                "    @property\n    def is_overdue(self) -> bool:\n>       return self.due_at < datetime.utcnow()\n"
                "E       TypeError: can't compare offset-naive and offset-aware datetimes\n\napp/models/invoice.py:48: TypeError\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_invoices.py::test_overdue_invoice - TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "1 failed, 7 passed in 0.58s"),
            edit("app/models/invoice.py", "        return self.due_at < datetime.utcnow()\n",
                 "        return self.due_at < datetime.now(timezone.utc)\n"),
            ok("uv run pytest tests/test_invoices.py -q", "........                                                                 [100%]\n8 passed in 0.55s"),
            A("is_overdue works; due_at is timezone-aware, so it compares against an aware now."),
        ],
        mistake="Edit app/models/invoice.py: return self.due_at < datetime.utcnow()",
        lesson="ledger-api datetimes are timezone-aware: use datetime.now(timezone.utc), never the naive datetime.utcnow().",
        warn=[same(E("app/models/invoice.py", _OVERDUE_OLD, _OVERDUE_BAD)),
              reword(E("app/services/reminders.py", "def due_soon(invoices):\n",
                       "def due_soon(invoices):\n    now = datetime.utcnow()\n"))],
        silent=[fix(E("app/services/reminders.py", "def due_soon(invoices):\n",
                      "def due_soon(invoices):\n    now = datetime.now(timezone.utc)\n")),
                other("uv run pytest tests/test_invoices.py -q"),
                code(E("app/models/invoice.py", _OVERDUE_OLD, '    currency: Mapped[str] = mapped_column(String(3), default="EUR")\n'))],
        variants=(),
    ),
    Incident(
        "tf-js-default-sort", TEST_FIX, CC, "shopfront",
        session=[
            U("The price filter on the catalogue should list prices in ascending order."),
            edit("apps/web/src/lib/pricing.ts", _SORT_OLD, _SORT_BAD),
            err("pnpm --filter web test -- pricing",
                "\n> web@0.1.0 test /home/dev/shopfront/apps/web\n> vitest run \"pricing\"\n\n\n RUN  v1.6.0 /home/dev/shopfront/apps/web\n\n"
                " ❯ src/lib/pricing.test.ts (3)\n   ✓ sortedPrices > keeps a single price\n   × sortedPrices > sorts numerically\n"
                "   ✓ priceBuckets > groups by 10s\n\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n"
                " FAIL  src/lib/pricing.test.ts > sortedPrices > sorts numerically\n"
                "AssertionError: expected [ 10, 2, 33 ] to deeply equal [ 2, 10, 33 ]\n\n- Expected\n+ Received\n\n"
                "  Array [\n-   2,\n    10,\n+   2,\n    33,\n  ]\n\n ❯ src/lib/pricing.test.ts:14:38\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)\n"
                "/home/dev/shopfront/apps/web:\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  web@0.1.0 test: `vitest run \"pricing\"`\nExit status 1"),
            edit("apps/web/src/lib/pricing.ts", _SORT_BAD, _SORT_OK),
            ok("pnpm --filter web test -- pricing",
               " ✓ src/lib/pricing.test.ts (3)\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)"),
            A("Prices sort numerically now: Array.prototype.sort() compares as strings by default."),
        ],
        mistake="Edit apps/web/src/lib/pricing.ts: return products.map((p) => p.price).sort();",
        lesson="JS/TS: .sort() with no comparator sorts numbers as strings (10 before 2); pass (a, b) => a - b.",
        warn=[same(E("apps/web/src/lib/pricing.ts", _SORT_OLD, _SORT_BAD)),
              reword(E("apps/web/src/lib/stats.ts", "  const durations = orders.map((o) => o.fulfilmentHours);\n",
                       "  const durations = orders.map((o) => o.fulfilmentHours).sort();\n"))],
        silent=[fix(E("apps/web/src/lib/stats.ts", "  const durations = orders.map((o) => o.fulfilmentHours);\n",
                      "  const durations = orders.map((o) => o.fulfilmentHours).sort((a, b) => a - b);\n")),
                code(E("apps/web/src/lib/tags.ts", "  return tags;\n", "  return [...tags].sort((a, b) => a.localeCompare(b));\n")),
                other("pnpm --filter web test -- pricing")],
        variants=(),
    ),
    Incident(
        "tf-go-loop-var-capture", TEST_FIX, CC, "ingest",
        session=[
            U("Flush the shards in parallel instead of one after another."),
            edit("internal/sink/flush.go", _FLUSH_OLD, _FLUSH_BAD),
            err("go test -race ./internal/sink/",
                "--- FAIL: TestFlushAllShards (0.01s)\n    flush_test.go:37: flushed shards = [3 3 3 3], want [0 1 2 3]\n"
                "==================\nWARNING: DATA RACE\nRead at 0x00c0000a4018 by goroutine 9:\n"
                "  github.com/acme/ingest/internal/sink.FlushAll.func1()\n      /home/dev/ingest/internal/sink/flush.go:21 +0x44\n\n"
                "Previous write at 0x00c0000a4018 by goroutine 7:\n  github.com/acme/ingest/internal/sink.FlushAll()\n"
                "      /home/dev/ingest/internal/sink/flush.go:18 +0x1a4\n==================\n"
                "    testing.go:1398: race detected during execution of test\nFAIL\n"
                "FAIL\tgithub.com/acme/ingest/internal/sink\t0.034s\nFAIL"),
            ok("head -3 go.mod", "module github.com/acme/ingest\n\ngo 1.21"),
            edit("internal/sink/flush.go", "\t\tgo func() {\n\t\t\tdefer wg.Done()\n\t\t\terrs <- s.Flush(ctx)\n\t\t}()\n",
                 "\t\tgo func(s *Shard) {\n\t\t\tdefer wg.Done()\n\t\t\terrs <- s.Flush(ctx)\n\t\t}(s)\n"),
            ok("go test -race ./internal/sink/", "ok  \tgithub.com/acme/ingest/internal/sink\t1.102s"),
            A("Fixed: with go 1.21 in go.mod the loop variable is shared, so each goroutine gets it as a parameter."),
        ],
        mistake="Edit internal/sink/flush.go: go func() { ... s.Flush(ctx) }() inside for _, s := range shards",
        lesson="ingest is on go 1.21: a goroutine in a range loop must take the loop variable as a parameter (go func(s *Shard){…}(s)).",
        warn=[same(E("internal/sink/flush.go", _FLUSH_OLD, _FLUSH_BAD)),
              reword(E("internal/shard/rebalance.go", "\tfor _, b := range batches {\n\t\tmove(b)\n\t}\n",
                       "\tfor _, b := range batches {\n\t\twg.Add(1)\n\t\tgo func() {\n\t\t\tdefer wg.Done()\n\t\t\tmove(b)\n\t\t}()\n\t}\n\twg.Wait()\n"))],
        silent=[fix(E("internal/shard/rebalance.go", "\tfor _, b := range batches {\n\t\tmove(b)\n\t}\n",
                      "\tfor _, b := range batches {\n\t\twg.Add(1)\n\t\tgo func(b Batch) {\n\t\t\tdefer wg.Done()\n\t\t\tmove(b)\n\t\t}(b)\n\t}\n\twg.Wait()\n")),
                other("go test -race ./internal/sink/"),
                code(E("internal/sink/flush.go", "// FlushAll flushes every shard.\n",
                       "// FlushAll flushes every shard concurrently and joins their errors.\n"))],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-rust-unwrap-on-input", TEST_FIX, CC, "tidepool",
        session=[
            U("Support a `port` field in the header parser. Bad input must be an error, not a crash."),
            edit("crates/tidepool-net/src/header.rs", _PORT_OLD, _PORT_BAD),
            err("cargo test -p tidepool-net header -- --test-threads=1",
                "running 3 tests\ntest header::tests::parses_host ... ok\ntest header::tests::parses_port ... ok\n"
                "test header::tests::rejects_bad_port ... FAILED\n\nfailures:\n\n---- header::tests::rejects_bad_port stdout ----\n"
                "thread 'header::tests::rejects_bad_port' panicked at crates/tidepool-net/src/header.rs:42:61:\n"
                "called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n"
                "    header::tests::rejects_bad_port\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; "
                "11 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `-p tidepool-net --lib`", 101),
            edit("crates/tidepool-net/src/header.rs", '        "port" => hdr.port = value.trim().parse::<u16>().unwrap(),\n',
                 '        "port" => hdr.port = value.trim().parse::<u16>().map_err(|_| HeaderError::BadPort(value.to_string()))?,\n'),
            ok("cargo test -p tidepool-net header -- --test-threads=1",
               "running 3 tests\ntest header::tests::parses_host ... ok\ntest header::tests::parses_port ... ok\n"
               "test header::tests::rejects_bad_port ... ok\n\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 11 filtered out"),
            A("A bad port is now HeaderError::BadPort instead of a panic."),
        ],
        mistake="Edit crates/tidepool-net/src/header.rs: value.trim().parse::<u16>().unwrap()",
        lesson="tidepool: never unwrap() when parsing untrusted input (header/frame fields); map the error and return it with ?.",
        warn=[same(E("crates/tidepool-net/src/header.rs", _PORT_OLD, _PORT_BAD)),
              reword(E("crates/tidepool-net/src/frame.rs", "    let len = fields[1];\n",
                       "    let len: usize = fields[1].parse().unwrap();\n"))],
        silent=[fix(E("crates/tidepool-net/src/frame.rs", "    let len = fields[1];\n",
                      "    let len: usize = fields[1].parse().map_err(|_| FrameError::BadLength)?;\n")),
                other("cargo test -p tidepool-net header -- --test-threads=1"),
                code(E("crates/tidepool-net/src/header.rs", "pub struct Header {\n",
                       "#[derive(Debug, Default, Clone, PartialEq)]\npub struct Header {\n"))],
        variants=(),
    ),
    Incident(
        "tf-locale-date-format", TEST_FIX, CC, "dash",
        session=[
            U("Show order dates as DD/MM/YYYY in the tables."),
            edit("src/utils/format.ts", _DATE_OLD, _DATE_BAD),
            err("yarn vitest run src/utils",
                "\n RUN  v1.6.0 /home/dev/dash\n\n ❯ src/utils/format.test.ts (5)\n   × formatDate > renders day/month/year\n\n"
                "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  src/utils/format.test.ts > formatDate > renders day/month/year\n"
                "AssertionError: expected '3/4/2026' to be '04/03/2026' // Object.is equality\n\n- Expected\n+ Received\n\n"
                "- 04/03/2026\n+ 3/4/2026\n\n ❯ src/utils/format.test.ts:9:40\n\n Test Files  1 failed (1)\n"
                "      Tests  1 failed | 4 passed (5)"),
            edit("src/utils/format.ts", _DATE_BAD, _DATE_OK),
            ok("yarn vitest run src/utils", " ✓ src/utils/format.test.ts (5)\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)"),
            A("formatDate now formats with an explicit en-GB locale; toLocaleDateString() follows the machine's locale."),
        ],
        mistake="Edit src/utils/format.ts: return d.toLocaleDateString();",
        lesson="dash: don't format dates with toLocaleDateString() (depends on the runtime locale); use formatDate / Intl.DateTimeFormat(\"en-GB\").",
        warn=[same(E("src/utils/format.ts", _DATE_OLD, _DATE_BAD)),
              reword(E("src/components/InvoiceTable.tsx", "        <td>{row.dueDate.toISOString()}</td>\n",
                       "        <td>{row.dueDate.toLocaleDateString()}</td>\n"))],
        silent=[fix(E("src/components/InvoiceTable.tsx", "        <td>{row.dueDate.toISOString()}</td>\n",
                      "        <td>{formatDate(row.dueDate)}</td>\n")),
                other("yarn vitest run src/utils"),
                code(E("src/utils/format.ts", "export function formatDate(d: Date): string {\n",
                       "/** DD/MM/YYYY, whatever the browser locale. */\nexport function formatDate(d: Date): string {\n"))],
        variants=(),
    ),
    Incident(
        "tf-float-money", TEST_FIX, CC, "billing-svc",
        session=[
            U("Invoice totals are sometimes off by a cent. Fix it."),
            read("internal/billing/total.go",
                 "package billing\n\n// Line is one invoice line.\ntype Line struct {\n\tSKU         string\n\tAmountCents int64\n}\n\n"
                 + _TOTAL_BAD + "\treturn total\n}\n"),
            err("go test ./internal/billing/ -run TestTotal",
                "--- FAIL: TestTotal (0.00s)\n    --- FAIL: TestTotal/three_items (0.00s)\n"
                "        total_test.go:31: Total() = 30.299999999999997, want 30.3\nFAIL\n"
                "FAIL\tgithub.com/acme/billing/internal/billing\t0.012s\nFAIL"),
            edit("internal/billing/total.go", _TOTAL_BAD, _TOTAL_OK),
            edit("internal/billing/total_test.go", "\t\twant  float64\n", "\t\twant  Money\n"),
            ok("go test ./internal/billing/ -run TestTotal", "ok  \tgithub.com/acme/billing/internal/billing\t0.011s"),
            A("Totals are summed in integer cents (Money) now; float64 can't represent 0.1."),
        ],
        mistake="Edit internal/billing/total.go: total += float64(l.AmountCents) / 100",
        lesson="billing-svc: keep money in integer cents (Money/int64); never float64 arithmetic on amounts.",
        warn=[same(E("internal/billing/total.go", _TOTAL_OK, _TOTAL_BAD)),
              reword(E("internal/billing/discount.go",
                       "func ApplyDiscount(amount Money, pct int64) Money {\n\treturn amount - amount*Money(pct)/100\n}\n",
                       "func ApplyDiscount(amount float64, pct float64) float64 {\n\treturn amount * (1 - pct/100)\n}\n"))],
        silent=[fix(E("internal/billing/tax.go", "func Tax(subtotal Money, rateBasisPoints int64) Money {\n",
                      "func Tax(subtotal Money, rateBasisPoints int64) Money {\n\treturn subtotal * Money(rateBasisPoints) / 10000\n")),
                other("go test ./internal/billing/ -run TestTotal"),
                code(E("internal/billing/total.go", "// Line is one invoice line.\n", "// Line is one invoice line; amounts are integer cents.\n"))],
        variants=("diagnostic",),
    ),
    Incident(
        "tf-pydantic-dict-deprecated", TEST_FIX, CODEX, "ledger-api",
        session=[
            U("Include the full invoice in the webhook payload."),
            edit("app/webhooks/payload.py", _PAYLOAD_OLD, _PAYLOAD_BAD),
            err("uv run pytest tests/test_webhooks.py -q",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "___________________________ test_payload_has_invoice ___________________________\n\n"
                "    def test_payload_has_invoice():\n>       payload = build_payload(make_invoice())\n\n"
                "tests/test_webhooks.py:12: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
                "app/webhooks/payload.py:9: in build_payload\n    \"invoice\": invoice.dict(),\n"
                "E   pydantic.warnings.PydanticDeprecatedSince20: The `dict` method is deprecated; use `model_dump` instead. "
                "Deprecated in Pydantic V2.0 to be removed in V3.0. See Pydantic V2 Migration Guide at https://errors.pydantic.dev/2.7/migration/\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_webhooks.py::test_payload_has_invoice - pydantic.warnings.PydanticDeprecatedSince20: "
                "The `dict` method is deprecated; use `model_dump` instead. ...\n1 failed, 1 passed in 0.31s"),
            edit("app/webhooks/payload.py", '        "invoice": invoice.dict(),\n', '        "invoice": invoice.model_dump(mode="json"),\n'),
            ok("uv run pytest tests/test_webhooks.py -q", "..                                                                       [100%]\n2 passed in 0.29s"),
            A("The payload now uses model_dump(mode=\"json\"); Pydantic v2 deprecations are errors in this test suite."),
        ],
        mistake="Edit app/webhooks/payload.py: \"invoice\": invoice.dict(),",
        lesson="ledger-api is on Pydantic v2 with warnings as errors: use model_dump(), not the deprecated .dict().",
        warn=[same(E("app/webhooks/payload.py", _PAYLOAD_OLD, _PAYLOAD_BAD)),
              reword(E("app/routers/customers.py", "    return customer\n", "    return customer.dict(exclude_unset=True)\n"))],
        silent=[fix(E("app/routers/customers.py", "    return customer\n", "    return customer.model_dump(exclude_unset=True)\n")),
                code(E("app/webhooks/payload.py", "def build_payload(invoice: Invoice) -> dict:\n",
                       "def build_payload(invoice: Invoice) -> dict:\n    headers = dict(zip(HEADER_KEYS, HEADER_VALUES))\n")),
                other("uv run pytest tests/test_webhooks.py -q")],
        variants=(),
    ),
    Incident(
        "tf-async-foreach", TEST_FIX, CODEX, "docs-site",
        session=[
            U("publishAll in scripts/publish-assets.js should upload every file in static/img."),
            edit("scripts/publish-assets.js", _FOREACH_OLD, _FOREACH_BAD),
            err("node --test scripts/",
                "✖ publishAll uploads every file (1.8ms)\n  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n"
                "  0 !== 3\n\n      at TestContext.<anonymous> (file:///home/dev/docs-site/scripts/publish-assets.test.js:14:10)\n"
                "    generatedMessage: true,\n    code: 'ERR_ASSERTION',\n    actual: 0,\n    expected: 3,\n    operator: 'strictEqual'\n\n"
                "ℹ tests 4\nℹ suites 0\nℹ pass 3\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\nℹ duration_ms 61.2"),
            edit("scripts/publish-assets.js", _FOREACH_BAD, _FOREACH_OK),
            ok("node --test scripts/", "✔ publishAll uploads every file (2.1ms)\nℹ tests 4\nℹ suites 0\nℹ pass 4\nℹ fail 0"),
            A("publishAll awaits each upload now; forEach doesn't wait for async callbacks."),
        ],
        mistake="Edit scripts/publish-assets.js: files.forEach(async (file) => { await upload(file); });",
        lesson="JS: forEach doesn't await async callbacks; use for…of with await (or await Promise.all(items.map(...))).",
        warn=[same(E("scripts/publish-assets.js", _FOREACH_OLD, _FOREACH_BAD)),
              reword(E("scripts/search-index.js", "  for (const page of pages) {\n    await indexPage(page);\n  }\n",
                       "  pages.forEach(async (page) => await indexPage(page));\n"))],
        silent=[fix(E("scripts/search-index.js", "  for (const page of pages) {\n    await indexPage(page);\n  }\n",
                      "  await Promise.all(pages.map((page) => indexPage(page)));\n")),
                code(E("scripts/publish-assets.js", "  for (const file of files) {\n",
                       "  files.forEach((file) => console.log(`queued ${file}`));\n  for (const file of files) {\n")),
                other("node --test scripts/")],
        variants=(),
    ),
    Incident(
        "tf-open-without-encoding", TEST_FIX, GEMINI, "scraper",
        session=[
            U("Add a CSV export of the listings."),
            write("scraper/export.py", _EXPORT_BAD),
            err("poetry run pytest tests/test_export.py -q",
                "F                                                                        [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________________ test_export_accents ______________________________\n\n"
                "tmp_path = PosixPath('/tmp/pytest-of-dev/pytest-12/test_export_accents0')\n\n"
                "    def test_export_accents(tmp_path):\n>       export_csv([{\"id\": 1, \"title\": \"Café loft\", \"city\": \"Montréal\", \"price\": 1}], tmp_path / \"out.csv\")\n\n"
                "tests/test_export.py:9: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
                "scraper/export.py:10: in export_csv\n    writer.writerows(rows)\n"
                "E   UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9' in position 7: ordinal not in range(128)\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_export.py::test_export_accents - UnicodeEncodeError: 'ascii' codec can't encode character '\\xe9' in position 7...\n"
                "1 failed in 0.07s"),
            edit("scraper/export.py", '    with open(path, "w", newline="") as f:\n', '    with open(path, "w", newline="", encoding="utf-8") as f:\n'),
            ok("poetry run pytest tests/test_export.py -q", ".                                                                        [100%]\n1 passed in 0.05s"),
            A("The export passes; the machine's locale is C, so open() defaulted to ASCII."),
        ],
        mistake="Write scraper/export.py: with open(path, \"w\", newline=\"\") as f:",
        lesson="scraper runs under LANG=C: always open text files with encoding=\"utf-8\" (open() defaults to ASCII here).",
        warn=[same(W("scraper/export.py", _EXPORT_BAD)),
              reword(E("scraper/load.py", "def load_listings(path):\n",
                       "def load_listings(path):\n    with open(path) as f:\n        return [json.loads(line) for line in f]\n"))],
        silent=[fix(E("scraper/load.py", "def load_listings(path):\n",
                      "def load_listings(path):\n    with open(path, encoding=\"utf-8\") as f:\n        return [json.loads(line) for line in f]\n")),
                code(E("scraper/images.py", "def save_image(data: bytes, path: str) -> None:\n",
                       "def save_image(data: bytes, path: str) -> None:\n    with open(path, \"wb\") as f:\n        f.write(data)\n")),
                other("poetry run pytest tests/test_export.py -q")],
        variants=(),
    ),
    Incident(
        "tf-defer-before-err-check", TEST_FIX, GEMINI, "ingest",
        session=[
            U("Add a health probe that GETs the sink's /ping endpoint."),
            write("internal/health/probe.go", _PING_BAD),
            err("go test ./internal/health/",
                "--- FAIL: TestPingUnreachable (0.00s)\npanic: runtime error: invalid memory address or nil pointer dereference [recovered]\n"
                "\tpanic: runtime error: invalid memory address or nil pointer dereference\n"
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x40 pc=0x6c1d2a]\n\ngoroutine 7 [running]:\n"
                "testing.tRunner.func1.2({0x6f2e40, 0x9a3b10})\n\t/usr/local/go/src/testing/testing.go:1631 +0x24a\n"
                "panic({0x6f2e40?, 0x9a3b10?})\n\t/usr/local/go/src/runtime/panic.go:770 +0x132\n"
                "github.com/acme/ingest/internal/health.Ping({0x7313a8, 0x16})\n\t/home/dev/ingest/internal/health/probe.go:16 +0x2a\n"
                "FAIL\tgithub.com/acme/ingest/internal/health\t0.014s\nFAIL"),
            edit("internal/health/probe.go",
                 "\tresp, err := http.Get(url)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn err\n\t}\n",
                 "\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer resp.Body.Close()\n"),
            ok("go test ./internal/health/", "ok  \tgithub.com/acme/ingest/internal/health\t0.012s"),
            A("Fixed: resp is nil when Get fails, so the defer has to come after the error check."),
        ],
        mistake="Write internal/health/probe.go: defer resp.Body.Close() before if err != nil",
        lesson="Go: check err before defer resp.Body.Close(); resp is nil when the request fails (nil pointer panic).",
        warn=[same(W("internal/health/probe.go", _PING_BAD)),
              reword(E("internal/sink/clickhouse.go",
                       "\tresp, err := s.client.Do(req)\n\tif err != nil {\n\t\treturn fmt.Errorf(\"clickhouse insert: %w\", err)\n\t}\n\tdefer resp.Body.Close()\n",
                       "\tresp, err := s.client.Do(req)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn fmt.Errorf(\"clickhouse insert: %w\", err)\n\t}\n"))],
        silent=[fix(E("internal/sink/metrics.go", "func scrape(url string) ([]byte, error) {\n",
                      "func scrape(url string) ([]byte, error) {\n\tresp, err := http.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n"
                      "\tdefer resp.Body.Close()\n\treturn io.ReadAll(resp.Body)\n")),
                other("go test ./internal/health/"),
                code(E("internal/health/probe.go", "const timeout = 2 * time.Second\n", "const timeout = 3 * time.Second\n"))],
        variants=(),
    ),
    Incident(
        "tf-sql-fstring", TEST_FIX, CC, "ledger-api",
        session=[
            U("Searching for customers with an apostrophe in their name crashes. Fix it."),
            err("uv run pytest tests/test_customers.py -x -q", psycopg_syntax_error_traceback()),
            read("app/repo/customers.py",
                 "def find_by_name(conn, name: str):\n    with conn.cursor() as cur:\n" + _SQL_BAD + "        return cur.fetchall()\n"),
            edit("app/repo/customers.py", _SQL_BAD, _SQL_OK),
            ok("uv run pytest tests/test_customers.py -x -q", "......                                                                   [100%]\n6 passed in 0.74s"),
            A("The query is parameterised now; the f-string broke on O'Brien (and was injectable)."),
        ],
        mistake="Edit app/repo/customers.py: cur.execute(f\"SELECT ... WHERE name = '{name}'\")",
        lesson="ledger-api: never build SQL with f-strings; pass parameters: cur.execute(\"... WHERE name = %s\", (name,)).",
        warn=[same(E("app/repo/customers.py", _SQL_OK, _SQL_BAD)),
              reword(E("app/repo/invoices.py", "def delete_invoice(conn, invoice_id: int) -> None:\n",
                       "def delete_invoice(conn, invoice_id: int) -> None:\n    with conn.cursor() as cur:\n"
                       "        cur.execute(f\"DELETE FROM invoices WHERE id = {invoice_id}\")\n"))],
        silent=[fix(E("app/repo/invoices.py", "def delete_invoice(conn, invoice_id: int) -> None:\n",
                      "def delete_invoice(conn, invoice_id: int) -> None:\n    with conn.cursor() as cur:\n"
                      "        cur.execute(\"DELETE FROM invoices WHERE id = %s\", (invoice_id,))\n")),
                code(E("app/repo/customers.py", "def count_customers(conn) -> int:\n",
                       "def count_customers(conn) -> int:\n    with conn.cursor() as cur:\n"
                       "        cur.execute(\"SELECT count(*) FROM customers\")\n        return cur.fetchone()[0]\n")),
                other("uv run pytest tests/test_customers.py -x -q")],
        variants=("long_output", "diagnostic"),
    ),
    Incident(
        "tf-vec-with-capacity-index", TEST_FIX, CC, "tidepool",
        session=[
            U("Decode the offsets table in the column reader."),
            edit("crates/tidepool-core/src/column.rs", _OFFSETS_OLD, _OFFSETS_BAD),
            err("cargo test -p tidepool-core column",
                "running 2 tests\ntest column::tests::decodes_offsets ... FAILED\ntest column::tests::empty_column ... ok\n\n"
                "failures:\n\n---- column::tests::decodes_offsets stdout ----\n"
                "thread 'column::tests::decodes_offsets' panicked at crates/tidepool-core/src/column.rs:31:9:\n"
                "index out of bounds: the len is 0 but the index is 0\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n"
                "    column::tests::decodes_offsets\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; "
                "59 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `-p tidepool-core --lib`", 101),
            edit("crates/tidepool-core/src/column.rs", "        offsets[i] = read_u32(&buf[4 + i * 4..])?;\n",
                 "        offsets.push(read_u32(&buf[4 + i * 4..])?);\n"),
            ok("cargo test -p tidepool-core column",
               "running 2 tests\ntest column::tests::decodes_offsets ... ok\ntest column::tests::empty_column ... ok\n\n"
               "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 59 filtered out"),
            A("Fixed: Vec::with_capacity only reserves space, the length is still 0, so the values have to be pushed."),
        ],
        mistake="Edit crates/tidepool-core/src/column.rs: let mut offsets = Vec::with_capacity(count); offsets[i] = …",
        lesson="Rust: Vec::with_capacity(n) has length 0; push() into it (or vec![0; n]), never index-assign v[i] = ….",
        warn=[same(E("crates/tidepool-core/src/column.rs", _OFFSETS_OLD, _OFFSETS_BAD)),
              reword(E("crates/tidepool-core/src/dict.rs", "    let n = read_u32(&buf[0..4])? as usize;\n",
                       "    let n = read_u32(&buf[0..4])? as usize;\n    let mut keys = Vec::with_capacity(n);\n"
                       "    for i in 0..n {\n        keys[i] = read_key(&buf[4..], i)?;\n    }\n"))],
        silent=[fix(E("crates/tidepool-core/src/dict.rs", "    let n = read_u32(&buf[0..4])? as usize;\n",
                      "    let n = read_u32(&buf[0..4])? as usize;\n    let mut keys = Vec::with_capacity(n);\n"
                      "    for i in 0..n {\n        keys.push(read_key(&buf[4..], i)?);\n    }\n")),
                other("cargo test -p tidepool-core column"),
                code(E("crates/tidepool-core/src/column.rs", "pub fn decode_offsets(", "#[inline]\npub fn decode_offsets("))],
        variants=(),
    ),
]
