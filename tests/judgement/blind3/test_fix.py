"""blind3 / test_fix: tests fail, a code edit fixes them, the tests pass; the lesson is a code pattern."""

from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, TEST_FIX, A, E, Incident, U, W, code, edit, err, fix, ok, read, reword, same

INCIDENTS = [
    Incident(
        id="b3-testfix-python-01",
        shape=TEST_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("the statement tests started failing after the tz change"),
            err(
                "uv run pytest tests/test_statements.py -q",
                "F.F.                                                                     [100%]\n"
                "=================================== FAILURES ===================================\n"
                "__________________________ test_cutoff_excludes_old ___________________________\n\n"
                "    def test_cutoff_excludes_old():\n>       rows = statement_rows(account, now=datetime(2026, 3, 1, tzinfo=timezone.utc))\n\n"
                "ledgerline/statements.py:27: in statement_rows\n    if entry.booked_at < cutoff:\n"
                "E   TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_statements.py::test_cutoff_excludes_old - TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "FAILED tests/test_statements.py::test_cutoff_boundary - TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "2 failed, 2 passed in 0.31s",
            ),
            read(
                "ledgerline/statements.py",
                "from datetime import datetime, timedelta, timezone\n\n\ndef statement_rows(account, now=None):\n"
                "    cutoff = datetime.utcnow() - timedelta(days=30)\n    ...\n",
            ),
            A("booked_at is timezone-aware now; datetime.utcnow() returns a naive datetime."),
            edit(
                "ledgerline/statements.py",
                "    cutoff = datetime.utcnow() - timedelta(days=30)",
                "    cutoff = datetime.now(timezone.utc) - timedelta(days=30)",
            ),
            ok(
                "uv run pytest tests/test_statements.py -q",
                "....                                                                     [100%]\n4 passed in 0.22s",
            ),
        ],
        mistake="datetime.utcnow()",
        lesson="ledgerline timestamps are tz-aware: never datetime.utcnow() (naive); use datetime.now(timezone.utc)",
        warn=[
            same(
                E(
                    "ledgerline/statements.py",
                    "    cutoff = datetime.now(timezone.utc) - timedelta(days=30)",
                    "    cutoff = datetime.utcnow() - timedelta(days=30)",
                )
            ),
            reword(
                E("ledgerline/reminders.py", "    reminder.sent_at = None", "    reminder.sent_at = datetime.utcnow()")
            ),
            reword(
                W(
                    "ledgerline/jobs/expire_holds.py",
                    "from datetime import datetime\n\n\ndef expired(holds):\n    now = datetime.utcnow()\n"
                    "    return [h for h in holds if h.expires_at < now]\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "ledgerline/reminders.py",
                    "    reminder.sent_at = None",
                    "    reminder.sent_at = datetime.now(timezone.utc)",
                )
            ),
            code(
                E(
                    "ledgerline/statements.py",
                    "def statement_rows(account, now=None):",
                    'def statement_rows(account, now=None):\n    """Entries of the last 30 days, oldest first."""',
                )
            ),
            code(E("ledgerline/reminders.py", "MAX_REMINDERS = 3", "MAX_REMINDERS = 4")),
        ],
    ),
    Incident(
        id="b3-testfix-python-02",
        shape=TEST_FIX,
        agent=CODEX,
        project="pipewise",
        session=[
            U("pandas 2.2 upgrade broke the batching tests, fix them"),
            err(
                "poetry run pytest tests/test_batches.py -q",
                "F                                                                        [100%]\n"
                "=================================== FAILURES ===================================\n"
                "____________________________ test_collect_batches _____________________________\n\n"
                "    def collect(rows):\n        df = pd.DataFrame(columns=COLUMNS)\n        for row in rows:\n"
                ">           df = df.append(row, ignore_index=True)\nE           AttributeError: 'DataFrame' object has no attribute 'append'\n\n"
                "pipewise/batches.py:18: AttributeError\n1 failed in 0.84s",
            ),
            edit(
                "pipewise/batches.py",
                "    df = pd.DataFrame(columns=COLUMNS)\n    for row in rows:\n        df = df.append(row, ignore_index=True)\n    return df",
                "    return pd.DataFrame.from_records(list(rows), columns=COLUMNS)",
            ),
            ok(
                "poetry run pytest tests/test_batches.py -q",
                ".                                                                        [100%]\n1 passed in 0.41s",
            ),
        ],
        mistake="df = df.append(row, ignore_index=True)",
        lesson="pandas 2 removed DataFrame.append: build frames with pd.concat or DataFrame.from_records, never df.append",
        warn=[
            same(
                E(
                    "pipewise/batches.py",
                    "    return pd.DataFrame.from_records(list(rows), columns=COLUMNS)",
                    "    df = pd.DataFrame(columns=COLUMNS)\n    for row in rows:\n        df = df.append(row, ignore_index=True)\n    return df",
                )
            ),
            reword(
                E(
                    "pipewise/enrich.py",
                    "    frames = pd.concat([frames, batch], ignore_index=True)",
                    "    frames = frames.append(batch, ignore_index=True)",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "pipewise/enrich.py",
                    "    frames = frames.merge(lookup, on='sku')",
                    "    frames = pd.concat([frames, batch], ignore_index=True)\n    frames = frames.merge(lookup, on='sku')",
                )
            ),
            code(
                E(
                    "pipewise/batches.py",
                    "COLUMNS = ['sku', 'qty', 'price']",
                    "COLUMNS = ['sku', 'qty', 'price', 'currency']",
                )
            ),
            code(E("pipewise/enrich.py", "import pandas as pd", "import numpy as np\nimport pandas as pd")),
        ],
    ),
    Incident(
        id="b3-testfix-python-03",
        shape=TEST_FIX,
        agent=GEMINI,
        project="riverbed-ml",
        session=[
            U("test_vocab passes alone but fails in the full run, look into it"),
            err(
                ".venv/bin/python -m pytest tests/test_vocab.py -q",
                ".F                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "____________________________ test_vocab_is_fresh ______________________________\n\n"
                "    def test_vocab_is_fresh():\n>       assert build_vocab(['b']) == ['<pad>', 'b']\n"
                "E       AssertionError: assert ['<pad>', 'a', 'b'] == ['<pad>', 'b']\n\ntests/test_vocab.py:11: AssertionError\n1 failed, 1 passed in 0.05s",
            ),
            read(
                "riverbed/vocab.py",
                "def build_vocab(tokens, seen=[]):\n    if not seen:\n        seen.append('<pad>')\n    ...\n",
            ),
            A("`seen=[]` is one list shared by every call, so the first test's tokens leak into the second."),
            edit(
                "riverbed/vocab.py",
                "def build_vocab(tokens, seen=[]):\n    if not seen:",
                "def build_vocab(tokens, seen=None):\n    seen = [] if seen is None else seen\n    if not seen:",
            ),
            ok(
                ".venv/bin/python -m pytest tests/test_vocab.py -q",
                "..                                                                       [100%]\n2 passed in 0.03s",
            ),
        ],
        mistake="def build_vocab(tokens, seen=[]):",
        lesson="no mutable default arguments in riverbed-ml (def f(x, acc=[]) is shared between calls); default to None and create inside",
        warn=[
            same(E("riverbed/vocab.py", "def build_vocab(tokens, seen=None):", "def build_vocab(tokens, seen=[]):")),
            reword(E("riverbed/tags.py", "def merge_tags(tags, acc=None):", "def merge_tags(tags, acc={}):")),
            reword(
                W(
                    "riverbed/data/collate.py",
                    "def pad_batch(batch, lengths=[]):\n    for item in batch:\n        lengths.append(len(item))\n    return max(lengths)\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "riverbed/data/collate.py",
                    "def pad_batch(batch, lengths=None):\n    lengths = [] if lengths is None else lengths\n"
                    "    for item in batch:\n        lengths.append(len(item))\n    return max(lengths)\n",
                )
            ),
            code(
                E(
                    "riverbed/tags.py",
                    "def merge_tags(tags, acc=None):",
                    "def merge_tags(tags, acc=None, *, lower=True):",
                )
            ),
            code(E("riverbed/vocab.py", "PAD = '<pad>'", "PAD = '<pad>'\nUNK = '<unk>'")),
        ],
    ),
    Incident(
        id="b3-testfix-python-04",
        shape=TEST_FIX,
        agent=CC,
        project="pipewise",
        session=[
            U("the revenue rollup is off by a cent in the test for invoice 7"),
            err(
                "poetry run pytest tests/test_rollup.py -q",
                "F..                                                                      [100%]\n"
                "=================================== FAILURES ===================================\n"
                "___________________________ test_rollup_invoice_7 _____________________________\n\n"
                ">       assert rollup(lines)['total'] == Decimal('1.10')\n"
                "E       AssertionError: assert Decimal('1.1000000000000000888178419700125232338905334472656250') == Decimal('1.10')\n\n"
                "tests/test_rollup.py:22: AssertionError\n1 failed, 2 passed in 0.12s",
            ),
            read(
                "pipewise/rollup.py",
                "def rollup(lines):\n    total = 0.0\n    for line in lines:\n        total += float(line['amount'])\n",
            ),
            edit(
                "pipewise/rollup.py",
                "    total = 0.0\n    for line in lines:\n        total += float(line['amount'])",
                "    total = Decimal('0')\n    for line in lines:\n        total += Decimal(line['amount'])",
            ),
            ok(
                "poetry run pytest tests/test_rollup.py -q",
                "...                                                                      [100%]\n3 passed in 0.09s",
            ),
        ],
        mistake="total += float(line['amount'])",
        lesson="money in pipewise is Decimal: never float() amounts; use Decimal(str) all the way",
        warn=[
            same(
                E(
                    "pipewise/rollup.py",
                    "        total += Decimal(line['amount'])",
                    "        total += float(line['amount'])",
                )
            ),
            reword(
                E(
                    "pipewise/refunds.py",
                    "    refunded = sum(Decimal(r.amount) for r in refunds)",
                    "    refunded = sum(float(r.amount) for r in refunds)",
                )
            ),
        ],
        silent=[
            fix(E("pipewise/refunds.py", "    refunded = 0", "    refunded = sum(Decimal(r.amount) for r in refunds)")),
            code(E("pipewise/rollup.py", "def rollup(lines):", "def rollup(lines, *, currency='EUR'):")),
            code(
                E("pipewise/refunds.py", "    ratio = float(count) / total_orders", "    ratio = count / total_orders")
            ),
        ],
    ),
    Incident(
        id="b3-testfix-npm-05",
        shape=TEST_FIX,
        agent=CODEX,
        project="tidepool-web",
        session=[
            U("the price filter test fails, the slider shows 10 before 2"),
            err(
                "pnpm --filter @tidepool/web test -- price-buckets",
                " FAIL  src/lib/price-buckets.test.ts > bucketEdges > sorts numeric edges\n"
                "AssertionError: expected [ 10, 2, 33, 5 ] to deeply equal [ 2, 5, 10, 33 ]\n\n"
                "- Expected\n+ Received\n\n  Array [\n-   2,\n-   5,\n    10,\n+   2,\n    33,\n+   5,\n  ]\n\n"
                " ❯ src/lib/price-buckets.test.ts:14:32\n\n Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)",
            ),
            edit(
                "apps/web/src/lib/price-buckets.ts",
                "  return [...new Set(edges)].sort();",
                "  return [...new Set(edges)].sort((a, b) => a - b);",
            ),
            ok(
                "pnpm --filter @tidepool/web test -- price-buckets",
                " ✓ src/lib/price-buckets.test.ts (4 tests) 6ms\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)",
            ),
        ],
        mistake="edges.sort()",
        lesson="Array.prototype.sort() without a comparator sorts numbers as strings; always pass (a, b) => a - b for numbers",
        warn=[
            same(
                E(
                    "apps/web/src/lib/price-buckets.ts",
                    "  return [...new Set(edges)].sort((a, b) => a - b);",
                    "  return [...new Set(edges)].sort();",
                )
            ),
            reword(
                E(
                    "apps/web/src/lib/durations.ts",
                    "  const ordered = [...durations];",
                    "  const ordered = [...durations].sort();",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "apps/web/src/lib/durations.ts",
                    "  const ordered = [...durations];",
                    "  const ordered = [...durations].sort((a, b) => a - b);",
                )
            ),
            code(
                E(
                    "apps/web/src/lib/labels.ts",
                    "  return names;",
                    "  return [...names].sort((a, b) => a.localeCompare(b));",
                )
            ),
            code(E("apps/web/src/lib/price-buckets.ts", "const MAX_BUCKETS = 6;", "const MAX_BUCKETS = 8;")),
        ],
    ),
    Incident(
        id="b3-testfix-npm-06",
        shape=TEST_FIX,
        agent=GEMINI,
        project="cinder-docs",
        session=[
            U("the frontmatter test says lastUpdated is a string, fix it"),
            err(
                "yarn test src/plugins/frontmatter.test.js",
                " FAIL  src/plugins/frontmatter.test.js\n  ● withDefaults › keeps lastUpdated a Date\n\n"
                "    expect(received).toBeInstanceOf(expected)\n\n    Expected constructor: Date\n    Received constructor: String\n\n"
                "      12 |     const out = withDefaults(fm);\n    > 13 |     expect(out.lastUpdated).toBeInstanceOf(Date);\n\n"
                "Tests:       1 failed, 5 passed, 6 total",
            ),
            read(
                "src/plugins/frontmatter.js",
                "export function withDefaults(frontmatter) {\n  const copy = JSON.parse(JSON.stringify(frontmatter));\n",
            ),
            edit(
                "src/plugins/frontmatter.js",
                "  const copy = JSON.parse(JSON.stringify(frontmatter));",
                "  const copy = structuredClone(frontmatter);",
            ),
            ok(
                "yarn test src/plugins/frontmatter.test.js",
                " PASS  src/plugins/frontmatter.test.js\n\nTests:       6 passed, 6 total",
            ),
        ],
        mistake="JSON.parse(JSON.stringify(frontmatter))",
        lesson="don't deep-clone with JSON.parse(JSON.stringify(x)) in cinder-docs (Dates become strings); use structuredClone(x)",
        warn=[
            same(
                E(
                    "src/plugins/frontmatter.js",
                    "  const copy = structuredClone(frontmatter);",
                    "  const copy = JSON.parse(JSON.stringify(frontmatter));",
                )
            ),
            reword(
                E(
                    "src/sidebar/build.js",
                    "  const config = structuredClone(sidebarConfig);",
                    "  const config = JSON.parse(JSON.stringify(sidebarConfig));",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/sidebar/build.js",
                    "  const config = sidebarConfig;",
                    "  const config = structuredClone(sidebarConfig);",
                )
            ),
            code(
                E(
                    "src/sidebar/build.js",
                    "  return JSON.stringify(items, null, 2);",
                    "  return JSON.stringify(items, null, 4);",
                )
            ),
            code(E("src/plugins/frontmatter.js", "const DEFAULT_TAGS = [];", "const DEFAULT_TAGS = ['docs'];")),
        ],
    ),
    Incident(
        id="b3-testfix-npm-07",
        shape=TEST_FIX,
        agent=CC,
        project="tidepool-web",
        session=[
            U("saveCart test says 0 calls, expected 3"),
            err(
                "pnpm --filter @tidepool/web test -- save-cart",
                " FAIL  src/cart/save-cart.test.ts > saveCart > persists every line\n"
                'AssertionError: expected "spy" to be called 3 times, but got 0 times\n ❯ src/cart/save-cart.test.ts:21:28\n\n'
                " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)",
            ),
            read(
                "apps/web/src/cart/save-cart.ts",
                "export async function saveCart(lines: CartLine[]) {\n  lines.forEach(async (line) => {\n    await api.putLine(line);\n  });\n}\n",
            ),
            A("forEach ignores the promises, so saveCart resolves before any putLine runs."),
            edit(
                "apps/web/src/cart/save-cart.ts",
                "  lines.forEach(async (line) => {\n    await api.putLine(line);\n  });",
                "  await Promise.all(lines.map((line) => api.putLine(line)));",
            ),
            ok(
                "pnpm --filter @tidepool/web test -- save-cart",
                " ✓ src/cart/save-cart.test.ts (3 tests) 9ms\n\n Test Files  1 passed (1)",
            ),
        ],
        mistake="lines.forEach(async (line) => {",
        lesson="never forEach(async ...) in tidepool-web: nothing awaits it; use await Promise.all(xs.map(...)) or for...of",
        warn=[
            same(
                E(
                    "apps/web/src/cart/save-cart.ts",
                    "  await Promise.all(lines.map((line) => api.putLine(line)));",
                    "  lines.forEach(async (line) => {\n    await api.putLine(line);\n  });",
                )
            ),
            reword(
                E(
                    "apps/web/src/orders/sync-orders.ts",
                    "  for (const row of rows) {\n    await saveRow(row);\n  }",
                    "  rows.forEach(async (row) => await saveRow(row));",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "apps/web/src/orders/sync-orders.ts",
                    "  rows.map(saveRow);",
                    "  for (const row of rows) {\n    await saveRow(row);\n  }",
                )
            ),
            code(
                E(
                    "apps/web/src/orders/sync-orders.ts",
                    "  rows.forEach((row) => seen.add(row.id));",
                    "  rows.forEach((row) => seen.add(String(row.id)));",
                )
            ),
            code(E("apps/web/src/cart/save-cart.ts", "const RETRIES = 2;", "const RETRIES = 3;")),
        ],
    ),
    Incident(
        id="b3-testfix-npm-08",
        shape=TEST_FIX,
        agent=CODEX,
        project="atlas-mono",
        session=[
            U("isSlug flips between true and false in the tests, weird"),
            err(
                "pnpm --filter @atlas/schema test",
                " FAIL  src/slug.test.ts > isSlug > accepts the same slug twice\n"
                "AssertionError: expected false to be true // Object.is equality\n ❯ src/slug.test.ts:9:33\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 5 passed (6)",
            ),
            read(
                "packages/schema/src/slug.ts",
                "const SLUG_RE = /^[a-z0-9-]+$/g;\n\nexport const isSlug = (s: string) => SLUG_RE.test(s);\n",
            ),
            A("The /g flag makes .test() stateful through lastIndex, so every second call on the same regex fails."),
            edit("packages/schema/src/slug.ts", "const SLUG_RE = /^[a-z0-9-]+$/g;", "const SLUG_RE = /^[a-z0-9-]+$/;"),
            ok("pnpm --filter @atlas/schema test", " ✓ src/slug.test.ts (6 tests) 3ms\n\n Test Files  1 passed (1)"),
        ],
        mistake="const SLUG_RE = /^[a-z0-9-]+$/g;",
        lesson="no /g flag on a module-level regex used with .test() (lastIndex makes it alternate); drop the g",
        warn=[
            same(
                E("packages/schema/src/slug.ts", "const SLUG_RE = /^[a-z0-9-]+$/;", "const SLUG_RE = /^[a-z0-9-]+$/g;")
            ),
            reword(
                W(
                    "packages/schema/src/hashtag.ts",
                    "const TAG_PATTERN = /^#[\\w-]+$/g;\n\nexport const isHashtag = (value: string) => TAG_PATTERN.test(value);\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "packages/schema/src/hashtag.ts",
                    "const TAG_PATTERN = /^#[\\w-]+$/;\n\nexport const isHashtag = (value: string) => TAG_PATTERN.test(value);\n",
                )
            ),
            code(
                E(
                    "packages/schema/src/slug.ts",
                    "export const slugify = (s: string) => s.toLowerCase();",
                    "export const slugify = (s: string) => s.toLowerCase().replace(/\\s+/g, '-');",
                )
            ),
            code(
                E(
                    "packages/schema/src/index.ts",
                    "export * from './slug';",
                    "export * from './slug';\nexport * from './hashtag';",
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-go-09",
        shape=TEST_FIX,
        agent=GEMINI,
        project="switchyard",
        session=[
            U("TestFetchUpstream_Unreachable panics, fix it"),
            err(
                "go test ./internal/upstream/ -run TestFetchUpstream",
                "--- FAIL: TestFetchUpstream_Unreachable (0.00s)\npanic: runtime error: invalid memory address or nil pointer dereference [recovered]\n"
                "\tpanic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x40 pc=0x6c2f1a]\n\n"
                "goroutine 7 [running]:\ngithub.com/acme/switchyard/internal/upstream.Fetch({0x7a1b20, 0xc000012345}, {0x6f3e0d, 0x16})\n"
                "\t/work/switchyard/internal/upstream/fetch.go:19 +0x5a\nFAIL\tgithub.com/acme/switchyard/internal/upstream\t0.014s",
            ),
            read(
                "internal/upstream/fetch.go",
                "\tresp, err := client.Get(url)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn nil, err\n\t}\n",
            ),
            edit(
                "internal/upstream/fetch.go",
                "\tresp, err := client.Get(url)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn nil, err\n\t}",
                "\tresp, err := client.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()",
            ),
            ok(
                "go test ./internal/upstream/ -run TestFetchUpstream",
                "ok  \tgithub.com/acme/switchyard/internal/upstream\t0.011s",
            ),
        ],
        mistake="resp, err := client.Get(url); defer resp.Body.Close()",
        lesson="in Go check err before defer resp.Body.Close(): on error resp is nil and the deferred Close panics",
        warn=[
            same(
                E(
                    "internal/upstream/fetch.go",
                    "\tresp, err := client.Get(url)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tdefer resp.Body.Close()",
                    "\tresp, err := client.Get(url)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn nil, err\n\t}",
                )
            ),
            reword(
                W(
                    "internal/health/probe.go",
                    'package health\n\nimport "net/http"\n\nfunc Probe(c *http.Client, target string) (int, error) {\n'
                    "\tr, err := c.Head(target)\n\tdefer r.Body.Close()\n\tif err != nil {\n\t\treturn 0, err\n\t}\n\treturn r.StatusCode, nil\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "internal/health/probe.go",
                    'package health\n\nimport "net/http"\n\nfunc Probe(c *http.Client, target string) (int, error) {\n'
                    "\tr, err := c.Head(target)\n\tif err != nil {\n\t\treturn 0, err\n\t}\n\tdefer r.Body.Close()\n\treturn r.StatusCode, nil\n}\n",
                )
            ),
            code(
                E(
                    "internal/upstream/fetch.go",
                    "const defaultTimeout = 5 * time.Second",
                    "const defaultTimeout = 8 * time.Second",
                )
            ),
            code(E("internal/upstream/pool.go", "\tdefer p.mu.Unlock()", "\tdefer p.mu.Unlock()\n\tp.hits++")),
        ],
    ),
    Incident(
        id="b3-testfix-go-10",
        shape=TEST_FIX,
        agent=CC,
        project="glasshouse",
        session=[
            U("the reconcile-not-found test fails since I wrapped the store errors"),
            err(
                "make test",
                "--- FAIL: TestReconcile_MissingWidget (0.02s)\n    widget_controller_test.go:77: expected requeue=false and nil error, "
                "got error: get widget default/w1: widget not found\nFAIL\n"
                "FAIL\tgithub.com/glasshouse-dev/glasshouse/internal/controller\t9.114s",
            ),
            read(
                "internal/controller/widget_controller.go",
                "\tw, err := r.Store.Get(ctx, req.NamespacedName)\n\tif err == store.ErrNotFound {\n\t\treturn ctrl.Result{}, nil\n\t}\n",
            ),
            A('Store.Get now wraps ErrNotFound with fmt.Errorf("...: %w"), so == no longer matches.'),
            edit(
                "internal/controller/widget_controller.go",
                "\tif err == store.ErrNotFound {",
                "\tif errors.Is(err, store.ErrNotFound) {",
            ),
            ok(
                "make test",
                "ok  \tgithub.com/glasshouse-dev/glasshouse/internal/controller\t9.402s\tcoverage: 71.9% of statements",
            ),
        ],
        mistake="if err == store.ErrNotFound {",
        lesson="glasshouse wraps errors with %w: compare sentinel errors with errors.Is(err, X), never err == X",
        warn=[
            same(
                E(
                    "internal/controller/widget_controller.go",
                    "\tif errors.Is(err, store.ErrNotFound) {",
                    "\tif err == store.ErrNotFound {",
                )
            ),
            reword(E("internal/store/sql.go", "\tif errors.Is(err, sql.ErrNoRows) {", "\tif err == sql.ErrNoRows {")),
        ],
        silent=[
            fix(
                E(
                    "internal/controller/gadget_controller.go",
                    "\tif err != nil {\n\t\treturn ctrl.Result{}, err",
                    "\tif errors.Is(err, store.ErrNotFound) {\n\t\treturn ctrl.Result{}, nil\n\t}\n\tif err != nil {\n\t\treturn ctrl.Result{}, err",
                )
            ),
            code(
                E(
                    "internal/controller/widget_controller.go",
                    "\tif err != nil {\n\t\treturn ctrl.Result{}, err",
                    '\tif err != nil {\n\t\treturn ctrl.Result{}, fmt.Errorf("reconcile %s: %w", req.NamespacedName, err)',
                )
            ),
            code(E("internal/store/sql.go", "const listLimit = 500", "const listLimit = 1000")),
        ],
    ),
    Incident(
        id="b3-testfix-go-11",
        shape=TEST_FIX,
        agent=CODEX,
        project="switchyard",
        session=[
            U("config loading test fails: routes are empty"),
            err(
                "go test ./internal/config/",
                "--- FAIL: TestLoadRoutes (0.00s)\n    config_test.go:24: load: json: Unmarshal(non-pointer config.Routes)\nFAIL\n"
                "FAIL\tgithub.com/acme/switchyard/internal/config\t0.006s",
            ),
            edit(
                "internal/config/load.go",
                "\tvar routes Routes\n\tif err := json.Unmarshal(data, routes); err != nil {",
                "\tvar routes Routes\n\tif err := json.Unmarshal(data, &routes); err != nil {",
            ),
            ok("go test ./internal/config/", "ok  \tgithub.com/acme/switchyard/internal/config\t0.005s"),
        ],
        mistake="json.Unmarshal(data, routes)",
        lesson="json.Unmarshal needs a pointer: json.Unmarshal(data, &v), never the value v",
        warn=[
            same(
                E(
                    "internal/config/load.go",
                    "\tif err := json.Unmarshal(data, &routes); err != nil {",
                    "\tif err := json.Unmarshal(data, routes); err != nil {",
                )
            ),
            reword(
                W(
                    "internal/admin/decode.go",
                    'package admin\n\nimport "encoding/json"\n\nfunc decodeLimits(raw []byte) (Limits, error) {\n'
                    "\tvar lim Limits\n\terr := json.Unmarshal(raw, lim)\n\treturn lim, err\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "internal/admin/decode.go",
                    'package admin\n\nimport "encoding/json"\n\nfunc decodeLimits(raw []byte) (Limits, error) {\n'
                    "\tvar lim Limits\n\terr := json.Unmarshal(raw, &lim)\n\treturn lim, err\n}\n",
                )
            ),
            code(
                E(
                    "internal/config/load.go",
                    "\tdata, err := os.ReadFile(path)",
                    "\tdata, err := os.ReadFile(filepath.Clean(path))",
                )
            ),
            code(
                E(
                    "internal/admin/encode.go",
                    "\tout, err := json.Marshal(lim)",
                    '\tout, err := json.MarshalIndent(lim, "", "  ")',
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-cargo-12",
        shape=TEST_FIX,
        agent=GEMINI,
        project="quarry",
        session=[
            U("missing_file_is_an_error panics instead of returning an error"),
            err(
                "cargo test -p quarry-core index::tests",
                "running 4 tests\ntest index::tests::indexes_small_tree ... ok\ntest index::tests::missing_file_is_an_error ... FAILED\n\nfailures:\n\n"
                "---- index::tests::missing_file_is_an_error stdout ----\nthread 'index::tests::missing_file_is_an_error' panicked at crates/quarry-core/src/index.rs:41:38:\n"
                'called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound, message: "No such file or directory" }\n\n'
                "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s\n\nerror: test failed, to rerun pass `-p quarry-core --lib`",
                101,
            ),
            edit(
                "crates/quarry-core/src/index.rs",
                "    let file = File::open(path).unwrap();",
                '    let file = File::open(path).with_context(|| format!("open {}", path.display()))?;',
            ),
            ok(
                "cargo test -p quarry-core index::tests",
                "running 4 tests\ntest index::tests::indexes_small_tree ... ok\ntest index::tests::missing_file_is_an_error ... ok\n\n"
                "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s",
            ),
        ],
        mistake="let file = File::open(path).unwrap();",
        lesson="quarry-core is a library: never .unwrap() I/O results there; propagate with ? and .with_context(...)",
        warn=[
            same(
                E(
                    "crates/quarry-core/src/index.rs",
                    '    let file = File::open(path).with_context(|| format!("open {}", path.display()))?;',
                    "    let file = File::open(path).unwrap();",
                )
            ),
            reword(
                E(
                    "crates/quarry-core/src/manifest.rs",
                    "    let text = fs::read_to_string(&manifest)?;",
                    "    let text = fs::read_to_string(&manifest).unwrap();",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "crates/quarry-core/src/manifest.rs",
                    "    let text = String::new();",
                    '    let text = fs::read_to_string(&manifest).with_context(|| format!("read {}", manifest.display()))?;',
                )
            ),
            code(E("crates/quarry-core/src/index.rs", "const MAX_DEPTH: usize = 32;", "const MAX_DEPTH: usize = 64;")),
            code(
                E(
                    "crates/quarry-core/tests/roundtrip.rs",
                    "    let idx = Index::build(&dir).unwrap();",
                    '    let idx = Index::build(&dir).expect("build index");',
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-cargo-13",
        shape=TEST_FIX,
        agent=CC,
        project="quarry",
        session=[
            U("search results with emoji crash the preview"),
            err(
                "cargo test -p quarry-cli preview",
                "running 3 tests\ntest preview::tests::ascii_line ... ok\ntest preview::tests::multibyte_line ... FAILED\n\nfailures:\n\n"
                "---- preview::tests::multibyte_line stdout ----\nthread 'preview::tests::multibyte_line' panicked at crates/quarry-cli/src/preview.rs:12:20:\n"
                "byte index 80 is not a char boundary; it is inside '🦀' (bytes 78..82) of `let crab = \"🦀🦀🦀...`\n\n"
                "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
                101,
            ),
            read(
                "crates/quarry-cli/src/preview.rs",
                "pub fn preview(line: &str) -> &str {\n    if line.len() <= 80 { return line; }\n    &line[..80]\n}\n",
            ),
            edit(
                "crates/quarry-cli/src/preview.rs",
                "pub fn preview(line: &str) -> &str {\n    if line.len() <= 80 { return line; }\n    &line[..80]\n}",
                "pub fn preview(line: &str) -> &str {\n    match line.char_indices().nth(80) {\n        Some((end, _)) => &line[..end],\n        None => line,\n    }\n}",
            ),
            ok(
                "cargo test -p quarry-cli preview",
                "running 3 tests\n...\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
            ),
        ],
        mistake="&line[..80]",
        lesson="don't slice &str by a byte count (&s[..n]) on user text in quarry; cut at a char boundary (char_indices().nth(n))",
        warn=[
            same(
                E(
                    "crates/quarry-cli/src/preview.rs",
                    "    match line.char_indices().nth(80) {\n        Some((end, _)) => &line[..end],\n        None => line,\n    }",
                    "    if line.len() <= 80 { return line; }\n    &line[..80]",
                )
            ),
            reword(
                E(
                    "crates/quarry-cli/src/highlight.rs",
                    "    let snippet = truncate_chars(text, max_len);",
                    "    let snippet = &text[..max_len];",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "crates/quarry-cli/src/highlight.rs",
                    "    let snippet = text;",
                    "    let snippet: String = text.chars().take(max_len).collect();",
                )
            ),
            code(
                E("crates/quarry-cli/src/highlight.rs", 'const ELLIPSIS: &str = "...";', 'const ELLIPSIS: &str = "…";')
            ),
            code(
                E(
                    "crates/quarry-cli/src/args.rs",
                    "    #[arg(long, default_value_t = 20)]",
                    "    #[arg(long, default_value_t = 50)]",
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-ruby-14",
        shape=TEST_FIX,
        agent=CODEX,
        project="orchard",
        session=[
            U("the gift card expiry spec fails around midnight"),
            err(
                "bundle exec rspec spec/models/gift_card_spec.rb",
                "..F\n\nFailures:\n\n  1) GiftCard#expired? is false on the last valid day in the shop's time zone\n"
                "     Failure/Error: expect(card.expired?).to be(false)\n\n       expected false\n            got true\n"
                "     # ./spec/models/gift_card_spec.rb:18:in `block (3 levels) in <top (required)>'\n\n"
                "Finished in 0.214 seconds (files took 2.1 seconds to load)\n3 examples, 1 failure\n\n"
                "Failed examples:\n\nrspec ./spec/models/gift_card_spec.rb:14 # GiftCard#expired? is false on the last valid day",
            ),
            edit(
                "app/models/gift_card.rb",
                "    expires_on < Time.now.to_date",
                "    expires_on < Time.current.to_date",
            ),
            ok(
                "bundle exec rspec spec/models/gift_card_spec.rb",
                "...\n\nFinished in 0.198 seconds (files took 2.0 seconds to load)\n3 examples, 0 failures",
            ),
        ],
        mistake="Time.now",
        lesson="orchard runs in the shop's time zone: use Time.current / Date.current, never Time.now (system tz)",
        warn=[
            same(
                E(
                    "app/models/gift_card.rb",
                    "    expires_on < Time.current.to_date",
                    "    expires_on < Time.now.to_date",
                )
            ),
            reword(
                E(
                    "app/models/reservation.rb",
                    "    self.expires_at = Time.current + 2.days",
                    "    self.expires_at = Time.now + 2.days",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "app/models/reservation.rb",
                    "    self.expires_at = nil",
                    "    self.expires_at = Time.current + 2.days",
                )
            ),
            code(
                E(
                    "app/models/gift_card.rb",
                    "  validates :code, presence: true",
                    "  validates :code, presence: true, uniqueness: true",
                )
            ),
            code(E("app/models/reservation.rb", "  belongs_to :order", "  belongs_to :order, touch: true")),
        ],
    ),
    Incident(
        id="b3-testfix-ruby-15",
        shape=TEST_FIX,
        agent=GEMINI,
        project="orchard",
        session=[
            U("the customer lookup spec fails for O'Brien"),
            err(
                "bundle exec rspec spec/queries/customer_lookup_spec.rb",
                ".F\n\nFailures:\n\n  1) CustomerLookup finds customers with an apostrophe in the email\n"
                "     Failure/Error: Customer.where(\"email = '#{email}'\").first\n\n     ActiveRecord::StatementInvalid:\n"
                '       PG::SyntaxError: ERROR:  syntax error at or near "brien"\n       LINE 1: ...customers".* FROM "customers" WHERE (email = \'o\'brien@examp...\n'
                "     # ./app/queries/customer_lookup.rb:6:in `call'\n\n2 examples, 1 failure",
            ),
            edit(
                "app/queries/customer_lookup.rb",
                "    Customer.where(\"email = '#{email}'\").first",
                "    Customer.where(email: email).first",
            ),
            ok(
                "bundle exec rspec spec/queries/customer_lookup_spec.rb",
                "..\n\nFinished in 0.31 seconds\n2 examples, 0 failures",
            ),
        ],
        mistake="Customer.where(\"email = '#{email}'\")",
        lesson="never interpolate values into SQL strings in orchard (where(\"x = '#{v}'\")); use hash conditions or ? placeholders",
        warn=[
            same(
                E(
                    "app/queries/customer_lookup.rb",
                    "    Customer.where(email: email).first",
                    "    Customer.where(\"email = '#{email}'\").first",
                )
            ),
            reword(
                E(
                    "app/queries/product_search.rb",
                    '    Product.where("name ILIKE ?", "%#{q}%")',
                    "    Product.where(\"name ILIKE '%#{q}%'\")",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "app/queries/product_search.rb",
                    "    Product.all",
                    '    Product.where("name ILIKE ?", "%#{Product.sanitize_sql_like(q)}%")',
                )
            ),
            code(
                E(
                    "app/queries/customer_lookup.rb",
                    "    Customer.where(email: email).first",
                    "    Customer.where(email: email.downcase).first",
                )
            ),
            code(E("app/queries/product_search.rb", "  LIMIT = 25", "  LIMIT = 50")),
        ],
    ),
    Incident(
        id="b3-testfix-php-16",
        shape=TEST_FIX,
        agent=CC,
        project="mosaic-shop",
        session=[
            U("the webhook signature test accepts a forged signature, that's bad"),
            err(
                "docker compose exec -u www-data php vendor/bin/phpunit tests/Webhook/SignatureTest.php",
                "PHPUnit 11.4.3 by Sebastian Bergmann and contributors.\n\n.F.                                                                 3 / 3 (100%)\n\n"
                "There was 1 failure:\n\n1) Mosaic\\Tests\\Webhook\\SignatureTest::testRejectsMagicHashCollision\nFailed asserting that true is false.\n\n"
                "/var/www/tests/Webhook/SignatureTest.php:34\n\nFAILURES!\nTests: 3, Assertions: 3, Failures: 1.",
            ),
            read(
                "src/Webhook/Signature.php",
                "    public function verify(string $payload, string $signature): bool\n    {\n        $expected = md5($this->secret . $payload);\n        if ($signature == $expected) {\n",
            ),
            edit(
                "src/Webhook/Signature.php",
                "        if ($signature == $expected) {",
                "        if (hash_equals($expected, $signature)) {",
            ),
            ok(
                "docker compose exec -u www-data php vendor/bin/phpunit tests/Webhook/SignatureTest.php",
                "PHPUnit 11.4.3 by Sebastian Bergmann and contributors.\n\n...                                                                 3 / 3 (100%)\n\nOK (3 tests, 3 assertions)",
            ),
        ],
        mistake="if ($signature == $expected) {",
        lesson="compare signatures/tokens with hash_equals() in mosaic-shop, never == (loose '0e..' comparison, timing)",
        warn=[
            same(
                E(
                    "src/Webhook/Signature.php",
                    "        if (hash_equals($expected, $signature)) {",
                    "        if ($signature == $expected) {",
                )
            ),
            reword(
                E(
                    "src/Auth/ApiToken.php",
                    "        return hash_equals($storedToken, $providedToken);",
                    "        return $providedToken == $storedToken;",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/Auth/ApiToken.php",
                    "        return false;",
                    "        return hash_equals($storedToken, $providedToken);",
                )
            ),
            code(
                E(
                    "src/Webhook/Signature.php",
                    "    private const HEADER = 'X-Mosaic-Signature';",
                    "    private const HEADER = 'X-Mosaic-Signature-256';",
                )
            ),
            code(E("src/Auth/ApiToken.php", "        if ($count == 0) {", "        if ($count === 0) {")),
        ],
    ),
    Incident(
        id="b3-testfix-dotnet-17",
        shape=TEST_FIX,
        agent=CODEX,
        project="northwind",
        session=[
            U("the sku matcher test fails on the tr-TR runner"),
            err(
                "dotnet test tests/Northwind.Tests --filter SkuMatcher",
                "  Determining projects to restore...\n  Northwind.Tests -> /work/northwind/tests/Northwind.Tests/bin/Debug/net8.0/Northwind.Tests.dll\n"
                "Test run for /work/northwind/tests/Northwind.Tests/bin/Debug/net8.0/Northwind.Tests.dll (.NETCoreApp,Version=v8.0)\n"
                '  Failed Northwind.Tests.SkuMatcherTests.Matches_ignoring_case(culture: "tr-TR") [4 ms]\n  Error Message:\n'
                "   Assert.True() Failure\n   Expected: True\n   Actual:   False\n  Stack Trace:\n"
                "     at Northwind.Tests.SkuMatcherTests.Matches_ignoring_case(String culture) in /work/northwind/tests/Northwind.Tests/SkuMatcherTests.cs:line 22\n\n"
                "Failed!  - Failed:     1, Passed:     7, Skipped:     0, Total:     8, Duration: 61 ms - Northwind.Tests.dll (net8.0)",
            ),
            edit(
                "src/Northwind.Domain/SkuMatcher.cs",
                "        return sku.ToLower() == other.ToLower();",
                "        return string.Equals(sku, other, StringComparison.OrdinalIgnoreCase);",
            ),
            ok(
                "dotnet test tests/Northwind.Tests --filter SkuMatcher",
                "Passed!  - Failed:     0, Passed:     8, Skipped:     0, Total:     8, Duration: 58 ms - Northwind.Tests.dll (net8.0)",
            ),
        ],
        mistake="sku.ToLower() == other.ToLower()",
        lesson="case-insensitive comparisons in northwind: string.Equals(a, b, StringComparison.OrdinalIgnoreCase), never a.ToLower() == b.ToLower()",
        warn=[
            same(
                E(
                    "src/Northwind.Domain/SkuMatcher.cs",
                    "        return string.Equals(sku, other, StringComparison.OrdinalIgnoreCase);",
                    "        return sku.ToLower() == other.ToLower();",
                )
            ),
            reword(
                E(
                    "src/Northwind.Api/Customers/EmailComparer.cs",
                    "        return string.Equals(a.Email, b.Email, StringComparison.OrdinalIgnoreCase);",
                    "        return a.Email.ToLower() == b.Email.ToLower();",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/Northwind.Api/Customers/EmailComparer.cs",
                    "        return a.Email == b.Email;",
                    "        return string.Equals(a.Email, b.Email, StringComparison.OrdinalIgnoreCase);",
                )
            ),
            code(
                E(
                    "src/Northwind.Domain/SkuMatcher.cs",
                    "    public const int MaxLength = 16;",
                    "    public const int MaxLength = 24;",
                )
            ),
            code(
                E(
                    "src/Northwind.Api/Customers/EmailComparer.cs",
                    "    public int GetHashCode(Customer c) => c.Email.GetHashCode();",
                    "    public int GetHashCode(Customer c) => StringComparer.OrdinalIgnoreCase.GetHashCode(c.Email);",
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-gradle-18",
        shape=TEST_FIX,
        agent=GEMINI,
        project="beacon-apps",
        session=[
            U("PriceFormatterTest fails on the German emulator config"),
            err(
                "cd android && JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew :app:testDebugUnitTest --tests '*PriceFormatterTest'",
                "> Task :app:testDebugUnitTest\n\nPriceFormatterTest > formatsTwoDecimals[de-DE] FAILED\n"
                "    org.junit.ComparisonFailure: expected:<12[.]50> but was:<12[,]50>\n        at app.beacon.format.PriceFormatterTest.formatsTwoDecimals(PriceFormatterTest.kt:19)\n\n"
                "4 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:testDebugUnitTest'.\n"
                "> There were failing tests. See the report at: file:///work/beacon-apps/android/app/build/reports/tests/testDebugUnitTest/index.html\n\nBUILD FAILED in 14s",
            ),
            edit(
                "android/app/src/main/java/app/beacon/format/PriceFormatter.kt",
                '    fun wire(amount: Double): String = String.format("%.2f", amount)',
                '    fun wire(amount: Double): String = String.format(Locale.ROOT, "%.2f", amount)',
            ),
            ok(
                "cd android && JAVA_HOME=/usr/lib/jvm/java-17-openjdk ./gradlew :app:testDebugUnitTest --tests '*PriceFormatterTest'",
                "> Task :app:testDebugUnitTest\n\nBUILD SUCCESSFUL in 11s\n27 actionable tasks: 3 executed, 24 up-to-date",
            ),
        ],
        mistake='String.format("%.2f", amount)',
        lesson="machine-readable numbers in beacon's Android code: format with Locale.ROOT (String.format(Locale.ROOT, ...)); the default locale writes 12,50",
        warn=[
            same(
                E(
                    "android/app/src/main/java/app/beacon/format/PriceFormatter.kt",
                    '    fun wire(amount: Double): String = String.format(Locale.ROOT, "%.2f", amount)',
                    '    fun wire(amount: Double): String = String.format("%.2f", amount)',
                )
            ),
            reword(
                E(
                    "android/app/src/main/java/app/beacon/api/TripPayload.kt",
                    '        "distance" to String.format(Locale.ROOT, "%.1f", distanceKm),',
                    '        "distance" to "%.1f".format(distanceKm),',
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "android/app/src/main/java/app/beacon/api/TripPayload.kt",
                    '        "distance" to distanceKm.toString(),',
                    '        "distance" to String.format(Locale.ROOT, "%.1f", distanceKm),',
                )
            ),
            code(
                E(
                    "android/app/src/main/java/app/beacon/format/PriceFormatter.kt",
                    '    private const val CURRENCY = "EUR"',
                    '    private const val CURRENCY = "EUR"\n    private const val SCALE = 2',
                )
            ),
            code(
                E(
                    "android/app/src/main/java/app/beacon/ui/TripCard.kt",
                    "        text = stringResource(R.string.trip_title),",
                    "        text = stringResource(R.string.trip_title, trip.name),",
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-swift-19",
        shape=TEST_FIX,
        agent=CC,
        project="beacon-apps",
        session=[
            U("DeepLinkTests crash the test run"),
            err(
                "cd ios && swift test --filter DeepLinkTests",
                "Building for debugging...\n[14/14] Linking BeaconKitPackageTests\nBuild complete! (6.21s)\n"
                "Test Suite 'DeepLinkTests' started at 2026-03-02 09:40:11.204\n"
                "Test Case '-[BeaconKitTests.DeepLinkTests testRejectsMalformedLink]' started.\n"
                "BeaconKit/DeepLink.swift:14: Fatal error: Unexpectedly found nil while unwrapping an Optional value\n"
                "error: Exited with unexpected signal code 4",
                1,
            ),
            read(
                "ios/Sources/BeaconKit/DeepLink.swift",
                "    init?(raw: String) {\n        let url = URL(string: raw)!\n",
            ),
            edit(
                "ios/Sources/BeaconKit/DeepLink.swift",
                "        let url = URL(string: raw)!",
                "        guard let url = URL(string: raw) else { return nil }",
            ),
            ok(
                "cd ios && swift test --filter DeepLinkTests",
                "Test Suite 'DeepLinkTests' passed at 2026-03-02 09:41:02.877.\n\t Executed 5 tests, with 0 failures (0 unexpected) in 0.012 (0.013) seconds",
            ),
        ],
        mistake="let url = URL(string: raw)!",
        lesson="never force-unwrap URL(string:) on input in BeaconKit; guard let url = URL(string: ...) else { return nil }",
        warn=[
            same(
                E(
                    "ios/Sources/BeaconKit/DeepLink.swift",
                    "        guard let url = URL(string: raw) else { return nil }",
                    "        let url = URL(string: raw)!",
                )
            ),
            reword(
                E(
                    "ios/Sources/BeaconKit/API/Endpoint.swift",
                    "        guard let endpoint = URL(string: baseURL + path) else { throw APIError.badURL(path) }",
                    "        let endpoint = URL(string: baseURL + path)!",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "ios/Sources/BeaconKit/API/Endpoint.swift",
                    "        let endpoint = makeURL(path)",
                    "        guard let endpoint = URL(string: baseURL + path) else { throw APIError.badURL(path) }",
                )
            ),
            code(
                E(
                    "ios/Sources/BeaconKit/DeepLink.swift",
                    '    static let scheme = "beacon"',
                    '    static let scheme = "beaconapp"',
                )
            ),
            code(
                E(
                    "ios/Sources/BeaconKit/API/Endpoint.swift",
                    "    let timeout: TimeInterval = 15",
                    "    let timeout: TimeInterval = 30",
                )
            ),
        ],
    ),
    Incident(
        id="b3-testfix-python-20",
        shape=TEST_FIX,
        agent=CODEX,
        project="riverbed-ml",
        session=[
            U("config tests broke after the PyYAML 6 bump"),
            err(
                ".venv/bin/python -m pytest tests/test_config.py -q",
                "E                                                                        [100%]\n"
                "==================================== ERRORS ====================================\n"
                "____________________ ERROR at setup of test_load_defaults _____________________\n\n"
                "    def load(path):\n        with open(path) as f:\n>           return yaml.load(f)\n"
                "E           TypeError: load() missing 1 required positional argument: 'Loader'\n\nriverbed/config.py:9: TypeError\n1 error in 0.07s",
            ),
            edit("riverbed/config.py", "        return yaml.load(f)", "        return yaml.safe_load(f)"),
            ok(
                ".venv/bin/python -m pytest tests/test_config.py -q",
                "...                                                                      [100%]\n3 passed in 0.04s",
            ),
        ],
        mistake="yaml.load(f)",
        lesson="riverbed-ml: read YAML with yaml.safe_load(f); yaml.load without a Loader fails on PyYAML 6 (and is unsafe)",
        warn=[
            same(E("riverbed/config.py", "        return yaml.safe_load(f)", "        return yaml.load(f)")),
            reword(
                E(
                    "riverbed/sweeps/grid.py",
                    "    spec = yaml.safe_load(path.read_text())",
                    "    spec = yaml.load(path.read_text())",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "riverbed/sweeps/grid.py",
                    "    spec = json.loads(path.read_text())",
                    "    spec = yaml.safe_load(path.read_text())",
                )
            ),
            code(E("riverbed/config.py", "DEFAULT_SEED = 13", "DEFAULT_SEED = 17")),
            code(
                E(
                    "riverbed/sweeps/grid.py",
                    "    out = yaml.safe_dump(spec)",
                    "    out = yaml.safe_dump(spec, sort_keys=False)",
                )
            ),
        ],
    ),
]
