"""blind4 / test_fix: a failing test run, an edit to the code, a passing run; the lesson is a code pattern."""

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
)

INCIDENTS = [
    Incident(
        id="b4-testfix-python-01",
        shape=TEST_FIX,
        agent=CC,
        project="harbor-api",
        session=[
            U("test_refresh_token_expired fails since the auth refactor, fix it"),
            err(
                "uv run pytest tests/auth -q",
                "F...........                                                             [100%]\n"
                "_________________________ test_refresh_token_expired _________________________\n\n"
                "    def test_refresh_token_expired(token_factory):\n"
                "        token = token_factory(expires_in=-5)\n"
                ">       assert not token.is_valid()\n\ntests/auth/test_tokens.py:27: \n"
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n"
                "harbor/auth/tokens.py:41: in is_valid\n    return self.expires_at > datetime.utcnow()\n"
                "E   TypeError: can't compare offset-naive and offset-aware datetimes\n"
                "1 failed, 11 passed in 0.42s",
            ),
            read(
                "harbor/auth/tokens.py",
                "from datetime import datetime, timedelta\n\n\nclass RefreshToken:\n"
                "    def is_valid(self) -> bool:\n        return self.expires_at > datetime.utcnow()\n",
            ),
            edit(
                "harbor/auth/tokens.py",
                "from datetime import datetime, timedelta",
                "from datetime import datetime, timedelta, timezone",
            ),
            edit(
                "harbor/auth/tokens.py",
                "        return self.expires_at > datetime.utcnow()",
                "        return self.expires_at > datetime.now(timezone.utc)",
            ),
            ok(
                "uv run pytest tests/auth -q",
                "............                                                             [100%]\n12 passed in 0.39s",
            ),
        ],
        mistake="datetime.utcnow()",
        lesson=(
            "harbor stores timezone-aware UTC datetimes: use datetime.now(timezone.utc), never the naive "
            "datetime.utcnow() (comparing the two raises TypeError)."
        ),
        warn=[
            same(
                E(
                    "harbor/auth/tokens.py",
                    "        return self.expires_at > datetime.now(timezone.utc)",
                    "        return self.expires_at > datetime.utcnow()",
                )
            ),
            reword(
                W(
                    "harbor/shipments/archive.py",
                    "from datetime import datetime, timedelta\n\n\ndef is_stale(shipment, days: int = 30) -> bool:\n"
                    "    cutoff = datetime.utcnow() - timedelta(days=days)\n    return shipment.updated_at < cutoff\n",
                )
            ),
            reword(
                E(
                    "harbor/webhooks/retry.py",
                    "        next_try = last_try + backoff",
                    "        next_try = datetime.utcnow() + backoff",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "harbor/shipments/archive.py",
                    "from datetime import datetime, timedelta, timezone\n\n\n"
                    "def is_stale(shipment, days: int = 30) -> bool:\n"
                    "    cutoff = datetime.now(timezone.utc) - timedelta(days=days)\n"
                    "    return shipment.updated_at < cutoff\n",
                )
            ),
            code(
                E(
                    "harbor/webhooks/retry.py",
                    "        next_try = last_try + backoff",
                    "        next_try = datetime.now(tz=timezone.utc) + backoff",
                )
            ),
            code(
                E(
                    "harbor/shipments/models.py",
                    "    carrier: Mapped[str]",
                    "    carrier: Mapped[str]\n    carrier_ref: Mapped[str | None]",
                )
            ),
            other("uv run pytest tests/auth -q"),
        ],
    ),
    Incident(
        id="b4-testfix-python-02",
        shape=TEST_FIX,
        agent=CODEX,
        project="harbor-api",
        session=[
            U("the shipments API tests are red after the pydantic upgrade"),
            err(
                "uv run pytest tests/api/test_shipments.py -q",
                "..F..                                                                    [100%]\n"
                "___________________________ test_patch_shipment ____________________________\n"
                "harbor/api/shipments.py:58: in patch_shipment\n    payload = body.dict(exclude_unset=True)\n"
                "E   pydantic.warnings.PydanticDeprecatedSince20: The `dict` method is deprecated; use `model_dump` "
                "instead. Deprecated in Pydantic V2.0 to be removed in V3.0.\n"
                "1 failed, 4 passed in 0.57s",
            ),
            ok("grep -n filterwarnings pyproject.toml", '48:filterwarnings = ["error"]'),
            A("Warnings are errors in this suite, so the v1-style `.dict()` call fails; switching to `model_dump`."),
            edit(
                "harbor/api/shipments.py",
                "    payload = body.dict(exclude_unset=True)",
                "    payload = body.model_dump(exclude_unset=True)",
            ),
            ok(
                "uv run pytest tests/api/test_shipments.py -q",
                ".....                                                                    [100%]\n5 passed in 0.51s",
            ),
        ],
        mistake="payload = body.dict(exclude_unset=True)",
        lesson=(
            "harbor runs pydantic v2 with warnings as errors: use model_dump() (and model_validate, "
            "model_dump_json), never the deprecated v1 methods .dict() / .json() / parse_obj()."
        ),
        warn=[
            same(
                E(
                    "harbor/api/shipments.py",
                    "    payload = body.model_dump(exclude_unset=True)",
                    "    payload = body.dict(exclude_unset=True)",
                )
            ),
            reword(E("harbor/api/carriers.py", "    data = carrier_in.model_dump()", "    data = carrier_in.dict()")),
            reword(
                W(
                    "harbor/webhooks/serialize.py",
                    "from harbor.schemas import WebhookEvent\n\n\ndef to_row(event: WebhookEvent) -> dict:\n"
                    "    return event.dict(exclude_none=True)\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "harbor/webhooks/serialize.py",
                    "from harbor.schemas import WebhookEvent\n\n\ndef to_row(event: WebhookEvent) -> dict:\n"
                    "    return event.model_dump(exclude_none=True)\n",
                )
            ),
            code(
                E(
                    "harbor/api/carriers.py",
                    "    data = carrier_in.model_dump()",
                    '    data = carrier_in.model_dump(mode="json")',
                )
            ),
            code(
                E(
                    "harbor/api/carriers.py",
                    "    rows = await repo.list_carriers()",
                    "    params = dict(limit=limit, offset=offset)\n    rows = await repo.list_carriers(**params)",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-node-03",
        shape=TEST_FIX,
        agent=GEMINI,
        project="fernweh-web",
        session=[
            U("the 'cheapest first' sort on the trips page is wrong, there's a failing test for it"),
            err(
                "pnpm --filter web test -- --run src/trips/price.test.ts",
                " FAIL  src/trips/price.test.ts > cheapestFirst > orders prices numerically\n"
                "AssertionError: expected [ 100, 25, 9 ] to deeply equal [ 9, 25, 100 ]\n\n"
                "- Expected\n+ Received\n\n  [\n-   9,\n-   25,\n    100,\n+   25,\n+   9,\n  ]\n\n"
                " ❯ src/trips/price.test.ts:8:33\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)",
            ),
            read(
                "apps/web/src/trips/price.ts",
                "export function cheapestFirst(prices: number[]): number[] {\n  return [...prices].sort();\n}\n",
            ),
            edit(
                "apps/web/src/trips/price.ts",
                "  return [...prices].sort();",
                "  return [...prices].sort((a, b) => a - b);",
            ),
            ok(
                "pnpm --filter web test -- --run src/trips/price.test.ts",
                " ✓ src/trips/price.test.ts (5 tests) 4ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)",
            ),
        ],
        mistake="[...prices].sort()",
        lesson=(
            "Array.prototype.sort() without a comparator sorts numbers as strings (100 before 9): always pass a "
            "comparator for numbers, e.g. .sort((a, b) => a - b)."
        ),
        warn=[
            same(
                E(
                    "apps/web/src/trips/price.ts",
                    "  return [...prices].sort((a, b) => a - b);",
                    "  return [...prices].sort();",
                )
            ),
            reword(
                E(
                    "apps/web/src/trips/ranking.ts",
                    "  const ordered = durations;",
                    "  const ordered = durations.slice().sort();",
                )
            ),
            reword(
                W(
                    "apps/web/src/stats/percentile.ts",
                    "export function percentile(samples: number[], p: number): number {\n"
                    "  const sorted = [...samples].sort();\n"
                    "  const idx = Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length));\n"
                    "  return sorted[idx];\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "apps/web/src/stats/percentile.ts",
                    "export function percentile(samples: number[], p: number): number {\n"
                    "  const sorted = [...samples].sort((a, b) => a - b);\n"
                    "  const idx = Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length));\n"
                    "  return sorted[idx];\n}\n",
                )
            ),
            code(
                E(
                    "apps/web/src/trips/ranking.ts",
                    "  const ordered = durations;",
                    "  const ordered = durations.toSorted((x, y) => x - y);",
                )
            ),
            code(
                E(
                    "apps/web/src/trips/TripList.tsx",
                    "  const names = trips.map((t) => t.name);",
                    "  const names = trips.map((t) => t.name).sort((a, b) => a.localeCompare(b));",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-go-04",
        shape=TEST_FIX,
        agent=CC,
        project="lumen-cluster",
        session=[
            U("the admission webhook returns 500 instead of 403 for namespaces without a tenant"),
            err(
                "cd webhook && go test ./...",
                "--- FAIL: TestAdmit_MissingTenant (0.00s)\n    admit_test.go:58: expected 403 for missing tenant, got 500\n"
                "FAIL\nFAIL\tgithub.com/lumen-eng/lumen-cluster/webhook/admit\t0.214s\n"
                "ok  \tgithub.com/lumen-eng/lumen-cluster/webhook/tenants\t0.101s\nFAIL",
            ),
            read(
                "webhook/admit/admit.go",
                "\tt, err := a.tenants.Lookup(ctx, ns)\n\tif err == tenants.ErrNotFound {\n"
                '\t\treturn deny(403, "namespace has no tenant")\n\t}\n\tif err != nil {\n'
                "\t\treturn deny(500, err.Error())\n\t}\n",
            ),
            ok(
                "grep -n ErrNotFound webhook/tenants/lookup.go",
                '14:var ErrNotFound = errors.New("tenant not found")\n'
                '41:\t\treturn Tenant{}, fmt.Errorf("lookup %s: %w", ns, ErrNotFound)',
            ),
            edit(
                "webhook/admit/admit.go",
                "\tif err == tenants.ErrNotFound {",
                "\tif errors.Is(err, tenants.ErrNotFound) {",
            ),
            ok(
                "cd webhook && go test ./...",
                "ok  \tgithub.com/lumen-eng/lumen-cluster/webhook/admit\t0.198s\n"
                "ok  \tgithub.com/lumen-eng/lumen-cluster/webhook/tenants\t0.097s",
            ),
        ],
        mistake="if err == tenants.ErrNotFound {",
        lesson=(
            "lumen's Go code wraps errors with %w: compare sentinel errors with errors.Is(err, ErrX), never "
            "err == ErrX."
        ),
        warn=[
            same(
                E(
                    "webhook/admit/admit.go",
                    "\tif errors.Is(err, tenants.ErrNotFound) {",
                    "\tif err == tenants.ErrNotFound {",
                )
            ),
            reword(
                E(
                    "webhook/quota/quota.go",
                    "\tif err != nil {\n\t\treturn nil, err\n\t}",
                    "\tif err == ErrNoLimit {\n\t\treturn unlimited, nil\n\t}\n\tif err != nil {\n\t\treturn nil, err\n\t}",
                )
            ),
            reword(
                E(
                    "webhook/tenants/cache.go",
                    "\tif err != nil {\n\t\treturn Tenant{}, err\n\t}",
                    "\tif err == sql.ErrNoRows {\n\t\treturn Tenant{}, ErrNotFound\n\t}\n\tif err != nil {\n\t\treturn Tenant{}, err\n\t}",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "webhook/quota/quota.go",
                    "\tif err != nil {\n\t\treturn nil, err\n\t}",
                    "\tif errors.Is(err, ErrNoLimit) {\n\t\treturn unlimited, nil\n\t}\n\tif err != nil {\n\t\treturn nil, err\n\t}",
                )
            ),
            code(
                E(
                    "webhook/tenants/cache.go",
                    "\tif err != nil {\n\t\treturn Tenant{}, err\n\t}",
                    "\tif errors.Is(err, sql.ErrNoRows) {\n\t\treturn Tenant{}, ErrNotFound\n\t}\n"
                    "\tif err != nil {\n\t\treturn Tenant{}, err\n\t}",
                )
            ),
            code(
                E(
                    "webhook/admit/admit.go",
                    "\tif err != nil {\n\t\treturn deny(500, err.Error())\n\t}",
                    '\tif err != nil {\n\t\treturn deny(500, fmt.Sprintf("tenant lookup: %v", err))\n\t}',
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-cargo-05",
        shape=TEST_FIX,
        agent=CODEX,
        project="tallow-cli",
        session=[
            U("the table renderer panics on accented titles, there's a test for it now"),
            err(
                "cargo test -p tallow-render",
                "running 23 tests\n......................F\nfailures:\n\n"
                "---- table::tests::truncates_unicode_titles stdout ----\n\n"
                "thread 'table::tests::truncates_unicode_titles' panicked at crates/tallow-render/src/table.rs:64:22:\n"
                "byte index 10 is not a char boundary; it is inside 'è' (bytes 9..11) of `Café crème brûlée`\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n"
                "test result: FAILED. 22 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            ),
            edit(
                "crates/tallow-render/src/table.rs",
                '        format!("{}…", &title[..width])',
                '        format!("{}…", title.chars().take(width).collect::<String>())',
            ),
            ok(
                "cargo test -p tallow-render",
                "running 23 tests\n.......................\n"
                "test result: ok. 23 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
            ),
        ],
        mistake="&title[..width]",
        lesson=(
            "Never truncate user text by byte slicing (&s[..n]): it panics inside multi-byte characters. Truncate "
            "by chars: s.chars().take(n).collect::<String>()."
        ),
        warn=[
            same(
                E(
                    "crates/tallow-render/src/table.rs",
                    '        format!("{}…", title.chars().take(width).collect::<String>())',
                    '        format!("{}…", &title[..width])',
                )
            ),
            reword(
                E(
                    "crates/tallow-cli/src/status.rs",
                    "    let shown = name.to_string();",
                    "    let shown = if name.len() > max { name[..max].to_string() } else { name.to_string() };",
                )
            ),
            reword(
                W(
                    "crates/tallow-render/src/summary.rs",
                    "pub fn headline(text: &str, limit: usize) -> &str {\n    if text.len() <= limit {\n"
                    "        return text;\n    }\n    &text[..limit]\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "crates/tallow-render/src/summary.rs",
                    "pub fn headline(text: &str, limit: usize) -> String {\n    text.chars().take(limit).collect()\n}\n",
                )
            ),
            code(
                E(
                    "crates/tallow-cli/src/status.rs",
                    "    let shown = name.to_string();",
                    "    let shown: String = name.chars().take(max).collect();",
                )
            ),
            code(E("crates/tallow-cli/src/status.rs", '    println!("{}", shown);', '    println!("{shown:<max$}");')),
        ],
    ),
    Incident(
        id="b4-testfix-go-06",
        shape=TEST_FIX,
        agent=GEMINI,
        project="gantry-svc",
        session=[
            U("TestListJobs_DBDown panics, find out why"),
            err(
                "go test ./internal/jobs/...",
                "--- FAIL: TestListJobs_DBDown (0.00s)\n"
                "panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n"
                "\tpanic: runtime error: invalid memory address or nil pointer dereference\n"
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x5c1f2a]\n\n"
                "goroutine 7 [running]:\ndatabase/sql.(*Rows).Close(0x0)\n"
                "\t/usr/local/go/src/database/sql/sql.go:3340 +0x2a\n"
                "gantry/internal/jobs.(*Repo).List(0xc000120080, {0x7a1e60, 0xc00012c000}, 50)\n"
                "\t/repo/internal/jobs/repo.go:42 +0x8c\nFAIL\tgantry/internal/jobs\t0.031s",
            ),
            read(
                "internal/jobs/repo.go",
                "func (r *Repo) List(ctx context.Context, limit int) ([]Job, error) {\n"
                "\trows, err := r.db.QueryContext(ctx, listJobsSQL, limit)\n\tdefer rows.Close()\n"
                '\tif err != nil {\n\t\treturn nil, fmt.Errorf("list jobs: %w", err)\n\t}\n',
            ),
            edit(
                "internal/jobs/repo.go",
                "\trows, err := r.db.QueryContext(ctx, listJobsSQL, limit)\n\tdefer rows.Close()\n"
                '\tif err != nil {\n\t\treturn nil, fmt.Errorf("list jobs: %w", err)\n\t}',
                "\trows, err := r.db.QueryContext(ctx, listJobsSQL, limit)\n"
                '\tif err != nil {\n\t\treturn nil, fmt.Errorf("list jobs: %w", err)\n\t}\n\tdefer rows.Close()',
            ),
            ok("go test ./internal/jobs/...", "ok  \tgantry/internal/jobs\t0.027s"),
        ],
        mistake="rows, err := r.db.QueryContext(...) followed by defer rows.Close() before if err != nil",
        lesson=(
            "In gantry check err before deferring Close on a result (rows, resp.Body, a file): `defer x.Close()` "
            "placed before `if err != nil` panics with a nil pointer when the call fails."
        ),
        warn=[
            same(
                E(
                    "internal/jobs/repo.go",
                    "\trows, err := r.db.QueryContext(ctx, listJobsSQL, limit)\n"
                    '\tif err != nil {\n\t\treturn nil, fmt.Errorf("list jobs: %w", err)\n\t}\n\tdefer rows.Close()',
                    "\trows, err := r.db.QueryContext(ctx, listJobsSQL, limit)\n\tdefer rows.Close()\n"
                    '\tif err != nil {\n\t\treturn nil, fmt.Errorf("list jobs: %w", err)\n\t}',
                )
            ),
            reword(
                E(
                    "internal/notify/webhook.go",
                    "\tresp, err := c.http.Do(req)\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer resp.Body.Close()",
                    "\tresp, err := c.http.Do(req)\n\tdefer resp.Body.Close()\n\tif err != nil {\n\t\treturn err\n\t}",
                )
            ),
            reword(
                W(
                    "internal/export/csv.go",
                    'package export\n\nimport (\n\t"encoding/csv"\n\t"os"\n)\n\n'
                    "func WriteFile(path string, records [][]string) error {\n\tf, err := os.Create(path)\n"
                    "\tdefer f.Close()\n\tif err != nil {\n\t\treturn err\n\t}\n"
                    "\treturn csv.NewWriter(f).WriteAll(records)\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "internal/export/csv.go",
                    'package export\n\nimport (\n\t"encoding/csv"\n\t"os"\n)\n\n'
                    "func WriteFile(path string, records [][]string) error {\n\tf, err := os.Create(path)\n"
                    "\tif err != nil {\n\t\treturn err\n\t}\n\tdefer f.Close()\n"
                    "\treturn csv.NewWriter(f).WriteAll(records)\n}\n",
                )
            ),
            code(
                E(
                    "internal/notify/webhook.go",
                    "\tresp, err := c.http.Do(req)\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer resp.Body.Close()",
                    "\tresp, err := c.http.Do(req)\n\tif err != nil {\n"
                    '\t\treturn fmt.Errorf("notify %s: %w", c.url, err)\n\t}\n\tdefer resp.Body.Close()',
                )
            ),
            other("go test ./internal/jobs/..."),
        ],
    ),
    Incident(
        id="b4-testfix-ruby-07",
        shape=TEST_FIX,
        agent=CC,
        project="ledgerline",
        session=[
            U("the invoice due date spec fails on CI but not for me"),
            err(
                "bundle exec rspec spec/models/invoice_spec.rb",
                "....F..\n\nFailures:\n\n"
                "  1) Invoice#due_on defaults to 30 days after issue in the account's time zone\n"
                "     Failure/Error: expect(invoice.due_on).to eq(Date.new(2026, 3, 31))\n\n"
                "       expected: Tue, 31 Mar 2026\n            got: Wed, 01 Apr 2026\n\n"
                "       (compared using ==)\n     # ./spec/models/invoice_spec.rb:22:in `block (3 levels) in <top (required)>'\n\n"
                "Finished in 0.41 seconds (files took 2.1 seconds to load)\n7 examples, 1 failure",
            ),
            read(
                "app/models/invoice.rb",
                "class Invoice < ApplicationRecord\n  before_validation :set_due_on, on: :create\n\n  private\n\n"
                "  def set_due_on\n    self.due_on ||= Date.today + 30\n  end\nend\n",
            ),
            A(
                "Date.today uses the server's zone, not Time.zone; the spec freezes time near midnight in the account's zone."
            ),
            edit(
                "app/models/invoice.rb", "    self.due_on ||= Date.today + 30", "    self.due_on ||= Date.current + 30"
            ),
            ok(
                "bundle exec rspec spec/models/invoice_spec.rb",
                ".......\n\nFinished in 0.38 seconds\n7 examples, 0 failures",
            ),
        ],
        mistake="self.due_on ||= Date.today + 30",
        lesson=(
            "ledgerline code must use the Rails zone-aware clock: Time.current / Date.current (or Time.zone.now), "
            "never Time.now / Date.today, which use the server's time zone."
        ),
        warn=[
            same(
                E(
                    "app/models/invoice.rb",
                    "    self.due_on ||= Date.current + 30",
                    "    self.due_on ||= Date.today + 30",
                )
            ),
            reword(
                E(
                    "app/models/subscription.rb",
                    "    self.renews_on = started_on.next_month",
                    "    self.renews_on = Date.today.next_month",
                )
            ),
            reword(
                W(
                    "app/services/reminder_scheduler.rb",
                    'class ReminderScheduler\n  def due_invoices\n    Invoice.unpaid.where("due_on < ?", Time.now)\n  end\nend\n',
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "app/services/reminder_scheduler.rb",
                    'class ReminderScheduler\n  def due_invoices\n    Invoice.unpaid.where("due_on < ?", Time.current)\n  end\nend\n',
                )
            ),
            code(
                E(
                    "app/models/subscription.rb",
                    "    self.renews_on = started_on.next_month",
                    "    self.renews_on = Date.current.next_month",
                )
            ),
            code(
                E(
                    "app/models/invoice.rb",
                    "  before_validation :set_due_on, on: :create",
                    "  before_validation :set_due_on, on: :create\n  scope :unpaid, -> { where(paid_at: nil) }",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-flutter-08",
        shape=TEST_FIX,
        agent=CODEX,
        project="orchard-mobile",
        session=[
            U("the note editor widget test started failing after the save refactor"),
            err(
                "flutter test test/widgets/note_editor_test.dart",
                "00:02 +3 -1: NoteEditor saving pops the route [E]\n"
                "  Looking up a deactivated widget's ancestor is unsafe.\n"
                "  At this point the state of the widget's element tree is no longer stable.\n"
                "  package:flutter/src/widgets/framework.dart 4842:9  Element._debugCheckStateIsActiveForAncestorLookup\n"
                "  package:orchard/notes/note_editor.dart 88:21        _NoteEditorState._save\n\n"
                "00:02 +3 -1: Some tests failed.",
            ),
            read(
                "lib/notes/note_editor.dart",
                "  Future<void> _save() async {\n    final note = _draft.toNote();\n"
                "    await ref.read(noteRepositoryProvider).save(note);\n    Navigator.of(context).pop(note);\n  }\n",
            ),
            edit(
                "lib/notes/note_editor.dart",
                "    await ref.read(noteRepositoryProvider).save(note);\n    Navigator.of(context).pop(note);",
                "    await ref.read(noteRepositoryProvider).save(note);\n    if (!context.mounted) return;\n"
                "    Navigator.of(context).pop(note);",
            ),
            ok("flutter test test/widgets/note_editor_test.dart", "00:02 +4: All tests passed!"),
        ],
        mistake="await repo.save(note); Navigator.of(context).pop(note); with no context.mounted check after the await",
        lesson=(
            "After an await in a widget, check `if (!context.mounted) return;` before using context again "
            "(Navigator.of(context), ScaffoldMessenger.of(context)): the widget may be gone."
        ),
        warn=[
            same(
                E(
                    "lib/notes/note_editor.dart",
                    "    await ref.read(noteRepositoryProvider).save(note);\n    if (!context.mounted) return;\n"
                    "    Navigator.of(context).pop(note);",
                    "    await ref.read(noteRepositoryProvider).save(note);\n    Navigator.of(context).pop(note);",
                )
            ),
            reword(
                E(
                    "lib/settings/account_page.dart",
                    "      await auth.signOut();",
                    "      await auth.signOut();\n      Navigator.of(context).pushReplacementNamed('/login');",
                )
            ),
            reword(
                E(
                    "lib/notes/share_sheet.dart",
                    "    final link = await sharing.createLink(noteId);",
                    "    final link = await sharing.createLink(noteId);\n"
                    "    ScaffoldMessenger.of(context).showSnackBar(SnackBar(content: Text('Copied $link')));",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "lib/settings/account_page.dart",
                    "      await auth.signOut();",
                    "      await auth.signOut();\n      if (!context.mounted) return;\n"
                    "      Navigator.of(context).pushReplacementNamed('/login');",
                )
            ),
            code(
                E(
                    "lib/notes/share_sheet.dart",
                    "    final link = await sharing.createLink(noteId);",
                    "    final messenger = ScaffoldMessenger.of(context);\n"
                    "    final link = await sharing.createLink(noteId);\n"
                    "    messenger.showSnackBar(SnackBar(content: Text('Copied $link')));",
                )
            ),
            code(
                E(
                    "lib/notes/share_sheet.dart",
                    "  void _close() {",
                    "  void _close() {\n    Navigator.of(context).pop();",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-jvm-09",
        shape=TEST_FIX,
        agent=GEMINI,
        project="basalt-ledger",
        session=[
            U("TransferServiceTest has one failure about frozen accounts, fix the service"),
            err(
                "mvn -pl basalt-api -am test -Dtest=TransferServiceTest -Dsurefire.failIfNoSpecifiedTests=false",
                "[ERROR] Tests run: 9, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.412 s <<< FAILURE! -- in "
                "io.basalt.api.transfer.TransferServiceTest\n"
                "[ERROR] io.basalt.api.transfer.TransferServiceTest.rejectsTransferThatEmptiesFrozenAccount -- "
                "Time elapsed: 0.011 s <<< FAILURE!\norg.opentest4j.AssertionFailedError: expected: <true> but was: <false>\n"
                "\tat io.basalt.api.transfer.TransferServiceTest.rejectsTransferThatEmptiesFrozenAccount(TransferServiceTest.java:88)\n"
                "[INFO] BUILD FAILURE",
            ),
            read(
                "basalt-api/src/main/java/io/basalt/api/transfer/TransferService.java",
                "        BigDecimal remaining = balance.subtract(amount);\n"
                "        if (account.isFrozen() && remaining.equals(BigDecimal.ZERO)) {\n"
                '            return Decision.reject("frozen account cannot be emptied");\n        }\n',
            ),
            A("`remaining` is 0.00 (scale 2) and BigDecimal.equals compares scale, so it never equals ZERO."),
            edit(
                "basalt-api/src/main/java/io/basalt/api/transfer/TransferService.java",
                "        if (account.isFrozen() && remaining.equals(BigDecimal.ZERO)) {",
                "        if (account.isFrozen() && remaining.compareTo(BigDecimal.ZERO) == 0) {",
            ),
            ok(
                "mvn -pl basalt-api -am test -Dtest=TransferServiceTest -Dsurefire.failIfNoSpecifiedTests=false",
                "[INFO] Tests run: 9, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
            ),
        ],
        mistake="remaining.equals(BigDecimal.ZERO)",
        lesson=(
            "BigDecimal.equals compares the scale too (0.00 is not 0): compare amounts in basalt with "
            "compareTo(...) == 0 (or signum()), never equals."
        ),
        warn=[
            same(
                E(
                    "basalt-api/src/main/java/io/basalt/api/transfer/TransferService.java",
                    "        if (account.isFrozen() && remaining.compareTo(BigDecimal.ZERO) == 0) {",
                    "        if (account.isFrozen() && remaining.equals(BigDecimal.ZERO)) {",
                )
            ),
            reword(
                E(
                    "basalt-api/src/main/java/io/basalt/api/fees/FeeCalculator.java",
                    "        if (fee == null) {",
                    "        if (fee == null || fee.equals(BigDecimal.ZERO)) {",
                )
            ),
            reword(
                W(
                    "basalt-common/src/main/java/io/basalt/common/money/Limits.java",
                    "package io.basalt.common.money;\n\nimport java.math.BigDecimal;\n\npublic final class Limits {\n"
                    "    public static boolean atLimit(BigDecimal used, BigDecimal limit) {\n"
                    "        return used.equals(limit);\n    }\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "basalt-common/src/main/java/io/basalt/common/money/Limits.java",
                    "package io.basalt.common.money;\n\nimport java.math.BigDecimal;\n\npublic final class Limits {\n"
                    "    public static boolean atLimit(BigDecimal used, BigDecimal limit) {\n"
                    "        return used.compareTo(limit) == 0;\n    }\n}\n",
                )
            ),
            code(
                E(
                    "basalt-api/src/main/java/io/basalt/api/fees/FeeCalculator.java",
                    "        if (fee == null) {",
                    "        if (fee == null || fee.signum() == 0) {",
                )
            ),
            code(
                E(
                    "basalt-api/src/main/java/io/basalt/api/fees/FeeCalculator.java",
                    "        return fee;",
                    "        return fee.setScale(2, RoundingMode.HALF_EVEN);",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-jvm-10",
        shape=TEST_FIX,
        agent=CC,
        project="basalt-ledger",
        session=[
            U("StatementExportTest.exportsInParallel fails randomly, look at it"),
            err(
                "mvn -pl basalt-batch -am test -Dtest=StatementExportTest -Dsurefire.failIfNoSpecifiedTests=false",
                "[ERROR] io.basalt.batch.export.StatementExportTest.exportsInParallel -- Time elapsed: 0.208 s <<< ERROR!\n"
                "java.lang.NumberFormatException: multiple points\n"
                "\tat java.base/jdk.internal.math.FloatingDecimal.readJavaFormatString(FloatingDecimal.java:1890)\n"
                "\tat java.base/java.text.DigitList.getDouble(DigitList.java:169)\n"
                "\tat java.base/java.text.SimpleDateFormat.subParse(SimpleDateFormat.java:2163)\n"
                "\tat io.basalt.batch.export.StatementRow.parseBookedAt(StatementRow.java:31)\n[INFO] BUILD FAILURE",
            ),
            A("A static SimpleDateFormat shared by the parallel export threads; it isn't thread-safe."),
            edit(
                "basalt-batch/src/main/java/io/basalt/batch/export/StatementRow.java",
                "    private static final SimpleDateFormat BOOKED = new SimpleDateFormat(\"yyyy-MM-dd'T'HH:mm:ss\");",
                "    private static final DateTimeFormatter BOOKED = DateTimeFormatter.ofPattern(\"yyyy-MM-dd'T'HH:mm:ss\");",
            ),
            edit(
                "basalt-batch/src/main/java/io/basalt/batch/export/StatementRow.java",
                "        return BOOKED.parse(raw).toInstant();",
                "        return LocalDateTime.parse(raw, BOOKED).toInstant(ZoneOffset.UTC);",
            ),
            ok(
                "mvn -pl basalt-batch -am test -Dtest=StatementExportTest -Dsurefire.failIfNoSpecifiedTests=false",
                "[INFO] Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS",
            ),
        ],
        mistake="private static final SimpleDateFormat BOOKED = new SimpleDateFormat(\"yyyy-MM-dd'T'HH:mm:ss\");",
        lesson=(
            "SimpleDateFormat is not thread-safe: never keep one in a static field (basalt's batch exports run in "
            "parallel). Use an immutable java.time DateTimeFormatter."
        ),
        warn=[
            same(
                E(
                    "basalt-batch/src/main/java/io/basalt/batch/export/StatementRow.java",
                    "    private static final DateTimeFormatter BOOKED = DateTimeFormatter.ofPattern(\"yyyy-MM-dd'T'HH:mm:ss\");",
                    "    private static final SimpleDateFormat BOOKED = new SimpleDateFormat(\"yyyy-MM-dd'T'HH:mm:ss\");",
                )
            ),
            reword(
                W(
                    "basalt-api/src/main/java/io/basalt/api/audit/AuditStamp.java",
                    "package io.basalt.api.audit;\n\nimport java.text.SimpleDateFormat;\nimport java.util.Date;\n\n"
                    "final class AuditStamp {\n"
                    '    private static final SimpleDateFormat STAMP = new SimpleDateFormat("yyyyMMddHHmmss");\n\n'
                    "    static String of(Date when) {\n        return STAMP.format(when);\n    }\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "basalt-api/src/main/java/io/basalt/api/audit/AuditStamp.java",
                    "package io.basalt.api.audit;\n\nimport java.time.LocalDateTime;\n"
                    "import java.time.format.DateTimeFormatter;\n\nfinal class AuditStamp {\n"
                    '    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");\n\n'
                    "    static String of(LocalDateTime when) {\n        return STAMP.format(when);\n    }\n}\n",
                )
            ),
            code(
                E(
                    "basalt-batch/src/main/java/io/basalt/batch/export/StatementRow.java",
                    '    private static final String HEADER = "booked_at,amount,currency";',
                    '    private static final String HEADER = "booked_at,amount,currency,reference";',
                )
            ),
            other("mvn -pl basalt-batch -am test"),
        ],
    ),
    Incident(
        id="b4-testfix-dotnet-11",
        shape=TEST_FIX,
        agent=CODEX,
        project="mosaic-portal",
        session=[
            U("the worker test run crashes when the directory service is down, it should report the error"),
            err(
                'dotnet test tests/Mosaic.Worker.Tests --filter "FullyQualifiedName~TenantSyncTests"',
                "The active test run was aborted. Reason: Test host process crashed : Unhandled exception. "
                "Mosaic.Worker.DirectoryUnavailableException: directory service returned 503\n"
                "   at Mosaic.Worker.TenantSync.SyncAsync() in /repo/src/Mosaic.Worker/TenantSync.cs:line 37\n"
                "   at System.Threading.Tasks.Task.<>c.<ThrowAsync>b__128_1(Object state)\n"
                "   at System.Threading.ThreadPoolWorkQueue.Dispatch()\n\n"
                "Test Run Aborted with error System.Exception: One or more errors occurred.",
            ),
            ok("grep -n 'async void' -r src", "src/Mosaic.Worker/TenantSync.cs:22:    public async void SyncAsync()"),
            edit(
                "src/Mosaic.Worker/TenantSync.cs",
                "    public async void SyncAsync()",
                "    public async Task SyncAsync()",
            ),
            edit(
                "src/Mosaic.Worker/TenantSyncJob.cs", "        _sync.SyncAsync();", "        await _sync.SyncAsync();"
            ),
            ok(
                'dotnet test tests/Mosaic.Worker.Tests --filter "FullyQualifiedName~TenantSyncTests"',
                "Passed!  - Failed:     0, Passed:     6, Skipped:     0, Total:     6, Duration: 182 ms - "
                "Mosaic.Worker.Tests.dll (net8.0)",
            ),
        ],
        mistake="public async void SyncAsync()",
        lesson=(
            "No `async void` methods in mosaic (outside UI event handlers): their exceptions crash the process and "
            "they can't be awaited. Return `async Task`."
        ),
        warn=[
            same(
                E(
                    "src/Mosaic.Worker/TenantSync.cs",
                    "    public async Task SyncAsync()",
                    "    public async void SyncAsync()",
                )
            ),
            reword(
                E(
                    "src/Mosaic.Api/Services/InvoiceMailer.cs",
                    "    public async Task SendReminderAsync(Guid invoiceId)",
                    "    public async void SendReminderAsync(Guid invoiceId)",
                )
            ),
            reword(
                W(
                    "src/Mosaic.Worker/AuditFlusher.cs",
                    "namespace Mosaic.Worker;\n\npublic sealed class AuditFlusher(IAuditStore store)\n{\n"
                    "    public async void FlushAsync(CancellationToken ct)\n    {\n"
                    "        await store.FlushAsync(ct);\n    }\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "src/Mosaic.Worker/AuditFlusher.cs",
                    "namespace Mosaic.Worker;\n\npublic sealed class AuditFlusher(IAuditStore store)\n{\n"
                    "    public async Task FlushAsync(CancellationToken ct)\n    {\n"
                    "        await store.FlushAsync(ct);\n    }\n}\n",
                )
            ),
            code(
                E(
                    "src/Mosaic.Api/Services/InvoiceMailer.cs",
                    "    public async Task SendReminderAsync(Guid invoiceId)",
                    "    public async Task SendReminderAsync(Guid invoiceId, CancellationToken ct = default)",
                )
            ),
            code(
                E(
                    "src/Mosaic.Worker/TenantSync.cs",
                    "    private void Log(string message)",
                    "    private void Log(string message, LogLevel level = LogLevel.Information)",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-dotnet-12",
        shape=TEST_FIX,
        agent=GEMINI,
        project="mosaic-portal",
        session=[
            U("a Turkish client can't log in to their tenant; I added a culture test that reproduces it"),
            err(
                'dotnet test tests/Mosaic.Api.Tests --filter "FullyQualifiedName~TenantSlugTests"',
                '  Failed Mosaic.Api.Tests.TenantSlugTests.Matches_IgnoringCase(culture: "tr-TR") [4 ms]\n'
                "  Error Message:\n   Assert.True() Failure\nExpected: True\nActual:   False\n  Stack Trace:\n"
                "     at Mosaic.Api.Tests.TenantSlugTests.Matches_IgnoringCase(String culture) in "
                "/repo/tests/Mosaic.Api.Tests/TenantSlugTests.cs:line 27\n\n"
                "Failed!  - Failed:     1, Passed:    11, Skipped:     0, Total:    12, Duration: 96 ms",
            ),
            read(
                "src/Mosaic.Api/Tenants/TenantResolver.cs",
                "    public bool Matches(Tenant tenant, string requested)\n    {\n"
                "        return tenant.Slug.ToLower() == requested.ToLower();\n    }\n",
            ),
            edit(
                "src/Mosaic.Api/Tenants/TenantResolver.cs",
                "        return tenant.Slug.ToLower() == requested.ToLower();",
                "        return string.Equals(tenant.Slug, requested, StringComparison.OrdinalIgnoreCase);",
            ),
            ok(
                'dotnet test tests/Mosaic.Api.Tests --filter "FullyQualifiedName~TenantSlugTests"',
                "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 88 ms",
            ),
        ],
        mistake="tenant.Slug.ToLower() == requested.ToLower()",
        lesson=(
            "Compare identifiers case-insensitively with string.Equals(a, b, StringComparison.OrdinalIgnoreCase), "
            "never a.ToLower() == b.ToLower(): culture-sensitive lowering breaks under tr-TR (I becomes ı)."
        ),
        warn=[
            same(
                E(
                    "src/Mosaic.Api/Tenants/TenantResolver.cs",
                    "        return string.Equals(tenant.Slug, requested, StringComparison.OrdinalIgnoreCase);",
                    "        return tenant.Slug.ToLower() == requested.ToLower();",
                )
            ),
            reword(
                E(
                    "src/Mosaic.Api/Auth/RoleCheck.cs",
                    "        return user.Roles.Contains(role);",
                    "        return user.Roles.Any(r => r.ToLower() == role.ToLower());",
                )
            ),
            reword(
                W(
                    "src/Mosaic.Api/Features/FeatureFlags.cs",
                    "namespace Mosaic.Api.Features;\n\npublic sealed class FeatureFlags(IReadOnlyList<string> enabled)\n{\n"
                    "    public bool IsOn(string name) => enabled.Any(f => f.ToUpper() == name.ToUpper());\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/Mosaic.Api/Auth/RoleCheck.cs",
                    "        return user.Roles.Contains(role);",
                    "        return user.Roles.Contains(role, StringComparer.OrdinalIgnoreCase);",
                )
            ),
            code(
                E(
                    "src/Mosaic.Api/Tenants/SlugNormalizer.cs",
                    "        return slug.Trim();",
                    "        return slug.Trim().ToLowerInvariant();",
                )
            ),
            code(
                E(
                    "src/Mosaic.Api/Auth/RoleCheck.cs",
                    '    public const string Admin = "admin";',
                    '    public const string Admin = "admin";\n    public const string Auditor = "auditor";',
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-php-13",
        shape=TEST_FIX,
        agent=CC,
        project="kestrel-shop",
        session=[
            U("security report: download links accept some forged signatures. there's a failing test now"),
            err(
                "./vendor/bin/sail artisan test --filter=DownloadLinkTest",
                "\n   FAIL  Tests\\Feature\\DownloadLinkTest\n  ✓ it serves a file for a valid signature\n"
                "  ⨯ it rejects a forged magic-hash signature\n\n"
                "  FAILED  Tests\\Feature\\DownloadLinkTest > it rejects a forged magic-hash signature\n"
                "  Expected response status code [403] but received 200.\n\n  at tests/Feature/DownloadLinkTest.php:41\n\n"
                "  Tests:    1 failed, 1 passed (3 assertions)",
            ),
            read(
                "app/Http/Controllers/DownloadController.php",
                "        $expected = md5($file->id.$file->token);\n"
                "        if ($request->query('sig') == $expected) {\n"
                "            return Storage::download($file->path);\n        }\n",
            ),
            A("`==` between two '0e…' digit strings compares them as numbers (both 0), so forged hashes pass."),
            edit(
                "app/Http/Controllers/DownloadController.php",
                "        if ($request->query('sig') == $expected) {",
                "        if (hash_equals($expected, (string) $request->query('sig'))) {",
            ),
            ok(
                "./vendor/bin/sail artisan test --filter=DownloadLinkTest",
                "\n   PASS  Tests\\Feature\\DownloadLinkTest\n  ✓ it serves a file for a valid signature\n"
                "  ✓ it rejects a forged magic-hash signature\n\n  Tests:    2 passed (4 assertions)",
            ),
        ],
        mistake="if ($request->query('sig') == $expected) {",
        lesson=(
            "Compare signatures and tokens in kestrel with hash_equals($known, $given) (constant-time, strict), "
            "never == / != : loose comparison lets '0e…' magic hashes match."
        ),
        warn=[
            same(
                E(
                    "app/Http/Controllers/DownloadController.php",
                    "        if (hash_equals($expected, (string) $request->query('sig'))) {",
                    "        if ($request->query('sig') == $expected) {",
                )
            ),
            reword(
                E(
                    "app/Http/Middleware/VerifyWebhookToken.php",
                    "        $token = $request->header('X-Webhook-Token');",
                    "        $token = $request->header('X-Webhook-Token');\n"
                    "        if ($token != config('services.carrier.webhook_token')) {\n            abort(401);\n        }",
                )
            ),
            reword(
                W(
                    "app/Support/ResetCode.php",
                    "<?php\n\nnamespace App\\Support;\n\nfinal class ResetCode\n{\n"
                    "    public static function matches(string $stored, string $given): bool\n    {\n"
                    "        return md5($given) == $stored;\n    }\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "app/Support/ResetCode.php",
                    "<?php\n\nnamespace App\\Support;\n\nfinal class ResetCode\n{\n"
                    "    public static function matches(string $stored, string $given): bool\n    {\n"
                    "        return hash_equals($stored, md5($given));\n    }\n}\n",
                )
            ),
            code(
                E(
                    "app/Http/Middleware/VerifyWebhookToken.php",
                    "        $token = $request->header('X-Webhook-Token');",
                    "        $token = $request->header('X-Webhook-Token');\n"
                    "        if (! hash_equals((string) config('services.carrier.webhook_token'), (string) $token)) {\n"
                    "            abort(401);\n        }",
                )
            ),
            code(
                E(
                    "app/Models/Order.php",
                    "        return $this->paid_at !== null;",
                    "        return $this->status === 'paid' && $this->paid_at !== null;",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-php-14",
        shape=TEST_FIX,
        agent=CODEX,
        project="kestrel-shop",
        session=[
            U("coupons show the wrong start date, CouponTest is red"),
            err(
                "./vendor/bin/sail artisan test --filter=CouponTest",
                "\n   FAIL  Tests\\Unit\\CouponTest\n  ⨯ it starts on the issue date\n\n"
                "  FAILED  Tests\\Unit\\CouponTest > it starts on the issue date\n"
                "  Failed asserting that two strings are equal.\n  -'2026-03-02'\n  +'2026-04-01'\n\n"
                "  at tests/Unit/CouponTest.php:19\n\n  Tests:    1 failed, 5 passed (11 assertions)",
            ),
            read(
                "app/Models/Coupon.php",
                "    public function activate(Carbon $issuedAt): void\n    {\n"
                "        $this->starts_at = $issuedAt;\n        $this->expires_at = $issuedAt->addDays(30);\n    }\n",
            ),
            A("Carbon is mutable: addDays() moved $issuedAt itself, so starts_at ends up 30 days later too."),
            edit(
                "app/Models/Coupon.php",
                "        $this->expires_at = $issuedAt->addDays(30);",
                "        $this->expires_at = $issuedAt->copy()->addDays(30);",
            ),
            ok(
                "./vendor/bin/sail artisan test --filter=CouponTest",
                "\n   PASS  Tests\\Unit\\CouponTest\n  ✓ it starts on the issue date\n\n  Tests:    6 passed (12 assertions)",
            ),
        ],
        mistake="$this->expires_at = $issuedAt->addDays(30);",
        lesson=(
            "kestrel's dates are mutable Carbon: $date->addDays() changes $date itself. Use "
            "$date->copy()->addDays(...) (or CarbonImmutable) when the original value is still used."
        ),
        warn=[
            same(
                E(
                    "app/Models/Coupon.php",
                    "        $this->expires_at = $issuedAt->copy()->addDays(30);",
                    "        $this->expires_at = $issuedAt->addDays(30);",
                )
            ),
            reword(
                E(
                    "app/Models/Subscription.php",
                    "        $this->period_start = $start;",
                    "        $this->period_start = $start;\n        $this->period_end = $start->addMonth();",
                )
            ),
            reword(
                W(
                    "app/Services/TrialService.php",
                    "<?php\n\nnamespace App\\Services;\n\nuse Illuminate\\Support\\Carbon;\n\nfinal class TrialService\n{\n"
                    "    public function window(Carbon $signup): array\n    {\n"
                    "        return [$signup, $signup->addDays(14)];\n    }\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "app/Services/TrialService.php",
                    "<?php\n\nnamespace App\\Services;\n\nuse Illuminate\\Support\\Carbon;\n\nfinal class TrialService\n{\n"
                    "    public function window(Carbon $signup): array\n    {\n"
                    "        return [$signup, $signup->copy()->addDays(14)];\n    }\n}\n",
                )
            ),
            code(
                E(
                    "app/Models/Subscription.php",
                    "        $this->period_start = $start;",
                    "        $this->period_start = $start;\n        $this->period_end = $start->toImmutable()->addMonth();",
                )
            ),
            code(
                E(
                    "app/Models/Coupon.php",
                    "    protected $casts = [",
                    "    protected $casts = [\n        'max_uses' => 'integer',",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-python-15",
        shape=TEST_FIX,
        agent=GEMINI,
        project="tidewater-etl",
        session=[
            U("dedupe drops rows in the second batch of a run, I wrote a test that shows it"),
            err(
                "pytest tests/transforms/test_dedupe.py -q",
                "..F.                                                                     [100%]\n"
                "________________________ test_batches_are_independent ________________________\n\n"
                "    def test_batches_are_independent():\n"
                '        dedupe_batch([{"id": 1}, {"id": 2}])\n        second = dedupe_batch([{"id": 1}])\n'
                ">       assert second == [{\"id\": 1}]\nE       AssertionError: assert [] == [{'id': 1}]\n\n"
                "tests/transforms/test_dedupe.py:31: AssertionError\n1 failed, 3 passed in 0.08s",
            ),
            read(
                "tidewater/transforms/dedupe.py",
                'def dedupe_batch(rows, seen=set()):\n    out = []\n    for row in rows:\n        if row["id"] in seen:\n'
                '            continue\n        seen.add(row["id"])\n        out.append(row)\n    return out\n',
            ),
            edit(
                "tidewater/transforms/dedupe.py",
                "def dedupe_batch(rows, seen=set()):",
                "def dedupe_batch(rows, seen=None):\n    seen = set() if seen is None else seen",
            ),
            ok(
                "pytest tests/transforms/test_dedupe.py -q",
                "....                                                                     [100%]\n4 passed in 0.05s",
            ),
        ],
        mistake="def dedupe_batch(rows, seen=set()):",
        lesson=(
            "Never use a mutable default argument (seen=set(), cache={}, rows=[]) in tidewater: it is shared "
            "across calls. Default to None and create the object inside the function."
        ),
        warn=[
            same(
                E(
                    "tidewater/transforms/dedupe.py",
                    "def dedupe_batch(rows, seen=None):\n    seen = set() if seen is None else seen",
                    "def dedupe_batch(rows, seen=set()):",
                )
            ),
            reword(
                E(
                    "tidewater/transforms/merge.py",
                    "def merge_frames(frames, key):",
                    "def merge_frames(frames, key, cache={}):",
                )
            ),
            reword(
                W(
                    "tidewater/jobs/collect.py",
                    'def collect_errors(batch, errors=[]):\n    for row in batch:\n        if row.get("error"):\n'
                    "            errors.append(row)\n    return errors\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "tidewater/jobs/collect.py",
                    "def collect_errors(batch, errors=None):\n    errors = [] if errors is None else errors\n"
                    '    for row in batch:\n        if row.get("error"):\n            errors.append(row)\n    return errors\n',
                )
            ),
            code(
                E(
                    "tidewater/transforms/merge.py",
                    "def merge_frames(frames, key):",
                    "def merge_frames(frames, key, cache: dict | None = None):\n    cache = {} if cache is None else cache",
                )
            ),
            code(
                E(
                    "tidewater/transforms/merge.py",
                    "def merge_frames(frames, key):",
                    'def merge_frames(frames, key, how: str = "left"):',
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-python-16",
        shape=TEST_FIX,
        agent=CC,
        project="tidewater-etl",
        session=[
            U("after the dependency refresh the config tests fail, fix it"),
            err(
                "pytest tests/test_config.py -q",
                "F..                                                                      [100%]\n"
                "__________________________ test_loads_pipeline_config __________________________\n"
                "tidewater/config.py:18: in load_config\n    return yaml.load(fh)\n"
                "E   TypeError: load() missing 1 required positional argument: 'Loader'\n"
                "1 failed, 2 passed in 0.11s",
            ),
            edit("tidewater/config.py", "        return yaml.load(fh)", "        return yaml.safe_load(fh)"),
            ok(
                "pytest tests/test_config.py -q",
                "...                                                                      [100%]\n3 passed in 0.06s",
            ),
        ],
        mistake="return yaml.load(fh)",
        lesson=(
            "Load YAML in tidewater with yaml.safe_load(...): yaml.load without a Loader fails on PyYAML 6, and with "
            "the full Loader it can build arbitrary objects."
        ),
        warn=[
            same(E("tidewater/config.py", "        return yaml.safe_load(fh)", "        return yaml.load(fh)")),
            reword(
                E("tidewater/jobs/schedule.py", "    raw = path.read_text()", "    raw = yaml.load(path.read_text())")
            ),
            reword(
                W(
                    "tidewater/dbt_meta.py",
                    'import yaml\n\n\ndef read_sources(stream):\n    return yaml.load(stream)["sources"]\n',
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "tidewater/dbt_meta.py",
                    'import yaml\n\n\ndef read_sources(stream):\n    return yaml.safe_load(stream)["sources"]\n',
                )
            ),
            code(
                E(
                    "tidewater/jobs/schedule.py",
                    "    raw = path.read_text()",
                    "    raw = yaml.safe_load(path.read_text())",
                )
            ),
            code(E("tidewater/config.py", "def load_config(path):", "def load_config(path: Path) -> dict:")),
        ],
    ),
    Incident(
        id="b4-testfix-node-17",
        shape=TEST_FIX,
        agent=CODEX,
        project="beacon-mono",
        session=[
            U("reindex returns before the documents are written, the indexer test catches it"),
            err(
                "bazel test //services/indexer:indexer_test",
                "FAIL: //services/indexer:indexer_test (see /home/dev/.cache/bazel/_bazel_dev/8c1f/execroot/_main/"
                "bazel-out/k8-fastbuild/testlogs/services/indexer/indexer_test/test.log)\n"
                " FAIL  src/reindex.test.ts > reindex > waits for every document to be written\n"
                "AssertionError: expected 0 to be 3 // Object.is equality\n\n"
                "Executed 1 out of 1 test: 1 fails locally.",
            ),
            read(
                "services/indexer/src/reindex.ts",
                "export async function reindex(source: Source, store: Store): Promise<void> {\n"
                "  const docs = await source.load();\n  docs.forEach(async (doc) => {\n"
                "    await store.put(doc.id, doc);\n  });\n}\n",
            ),
            edit(
                "services/indexer/src/reindex.ts",
                "  docs.forEach(async (doc) => {\n    await store.put(doc.id, doc);\n  });",
                "  for (const doc of docs) {\n    await store.put(doc.id, doc);\n  }",
            ),
            ok(
                "bazel test //services/indexer:indexer_test",
                "//services/indexer:indexer_test                                        PASSED in 2.1s\n\n"
                "Executed 1 out of 1 test: 1 test passes.",
            ),
        ],
        mistake="docs.forEach(async (doc) => { await store.put(doc.id, doc); });",
        lesson=(
            "forEach doesn't await async callbacks, so the function returns before the writes finish: use "
            "for...of with await, or await Promise.all(items.map(async ...))."
        ),
        warn=[
            same(
                E(
                    "services/indexer/src/reindex.ts",
                    "  for (const doc of docs) {\n    await store.put(doc.id, doc);\n  }",
                    "  docs.forEach(async (doc) => {\n    await store.put(doc.id, doc);\n  });",
                )
            ),
            reword(
                E(
                    "services/indexer/src/purge.ts",
                    "  const stale = await store.listStale(cutoff);",
                    "  const stale = await store.listStale(cutoff);\n  stale.forEach(async (key) => {\n"
                    "    await store.delete(key);\n  });",
                )
            ),
            reword(
                W(
                    "services/indexer/src/backfill.ts",
                    'import type { Store } from "./store";\n\n'
                    "export async function backfill(store: Store, rows: { id: string }[]): Promise<void> {\n"
                    "  rows.forEach(async (row) => {\n    await store.put(row.id, row);\n  });\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "services/indexer/src/backfill.ts",
                    'import type { Store } from "./store";\n\n'
                    "export async function backfill(store: Store, rows: { id: string }[]): Promise<void> {\n"
                    "  await Promise.all(rows.map((row) => store.put(row.id, row)));\n}\n",
                )
            ),
            code(
                E(
                    "services/indexer/src/purge.ts",
                    "  const stale = await store.listStale(cutoff);",
                    "  const stale = await store.listStale(cutoff);\n"
                    "  await Promise.all(stale.map((key) => store.delete(key)));",
                )
            ),
            code(
                E(
                    "services/indexer/src/reindex.ts",
                    "  const docs = await source.load();",
                    "  const docs = await source.load();\n  docs.forEach((doc) => metrics.count(doc.kind));",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-go-18",
        shape=TEST_FIX,
        agent=GEMINI,
        project="beacon-mono",
        session=[
            U("the rank endpoint returns an empty JSON object, TestRankResponse shows it"),
            err(
                "bazel test //services/api:server_test",
                "FAIL: //services/api:server_test (see /home/dev/.cache/bazel/_bazel_dev/8c1f/execroot/_main/"
                "bazel-out/k8-fastbuild/testlogs/services/api/server_test/test.log)\n"
                "--- FAIL: TestRankResponse (0.00s)\n"
                '    rank_test.go:34: got body {}, want {"doc_id":"d1","score":0.93}\nFAIL\n\n'
                "Executed 1 out of 1 test: 1 fails locally.",
            ),
            read(
                "services/api/rank.go",
                'type rankResult struct {\n\tdocID string  `json:"doc_id"`\n\tscore float64 `json:"score"`\n}\n',
            ),
            A("encoding/json skips unexported fields even when they carry a tag."),
            edit(
                "services/api/rank.go",
                'type rankResult struct {\n\tdocID string  `json:"doc_id"`\n\tscore float64 `json:"score"`\n}',
                'type rankResult struct {\n\tDocID string  `json:"doc_id"`\n\tScore float64 `json:"score"`\n}',
            ),
            edit(
                "services/api/rank.go",
                "\t\tout = append(out, rankResult{docID: d.ID, score: s})",
                "\t\tout = append(out, rankResult{DocID: d.ID, Score: s})",
            ),
            ok(
                "bazel test //services/api:server_test",
                "//services/api:server_test                                             PASSED in 0.8s\n\n"
                "Executed 1 out of 1 test: 1 test passes.",
            ),
        ],
        mistake='docID string `json:"doc_id"`',
        lesson=(
            "encoding/json ignores unexported struct fields, even with a json tag: fields that must be "
            'marshalled are exported, e.g. DocID string `json:"doc_id"`.'
        ),
        warn=[
            same(
                E(
                    "services/api/rank.go",
                    'type rankResult struct {\n\tDocID string  `json:"doc_id"`\n\tScore float64 `json:"score"`\n}',
                    'type rankResult struct {\n\tdocID string  `json:"doc_id"`\n\tscore float64 `json:"score"`\n}',
                )
            ),
            reword(
                W(
                    "services/search/facet.go",
                    'package search\n\ntype facetCount struct {\n\tname  string `json:"name"`\n\tcount int    `json:"count"`\n}\n',
                )
            ),
            reword(
                E(
                    "services/api/health.go",
                    'type healthResponse struct {\n\tStatus string `json:"status"`\n}',
                    'type healthResponse struct {\n\tStatus  string `json:"status"`\n\tversion string `json:"version"`\n}',
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "services/search/facet.go",
                    'package search\n\ntype facetCount struct {\n\tName  string `json:"name"`\n\tCount int    `json:"count"`\n}\n',
                )
            ),
            code(
                E(
                    "services/api/health.go",
                    'type healthResponse struct {\n\tStatus string `json:"status"`\n}',
                    'type healthResponse struct {\n\tStatus  string `json:"status"`\n\tVersion string `json:"version"`\n}',
                )
            ),
            code(
                E(
                    "services/api/rank.go",
                    "type ranker struct {\n\tmodel *Model\n}",
                    "type ranker struct {\n\tmodel *Model\n\tcache map[string]float64\n}",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-deno-19",
        shape=TEST_FIX,
        agent=CC,
        project="driftwood-edge",
        session=[
            U("resolve_test fails with a leak error since I added the unknown-upstream case"),
            err(
                "deno test -A --env-file=.env.test tests/resolve_test.ts",
                "running 3 tests from ./tests/resolve_test.ts\nresolve > finds a route ... ok (4ms)\n"
                "resolve > returns null for unknown upstream ... FAILED (12ms)\n\n ERRORS \n\n"
                "resolve > returns null for unknown upstream => ./tests/resolve_test.ts:18:6\nerror: Leaks detected:\n"
                "  - A fetch response body was created during the test, but not consumed during the test. Consume or "
                "close the response body `ReadableStream`, e.g `await resp.text()` or `await resp.body.cancel()`.\n\n"
                "FAILED | 2 passed | 1 failed (41ms)",
            ),
            read(
                "src/resolve.ts",
                "export async function resolve(upstream: string, key: string): Promise<Route | null> {\n"
                "  const res = await fetch(`${upstream}/routes/${key}`);\n  if (!res.ok) return null;\n"
                "  return await res.json();\n}\n",
            ),
            edit(
                "src/resolve.ts",
                "  if (!res.ok) return null;",
                "  if (!res.ok) {\n    await res.body?.cancel();\n    return null;\n  }",
            ),
            ok(
                "deno test -A --env-file=.env.test tests/resolve_test.ts",
                "running 3 tests from ./tests/resolve_test.ts\nresolve > finds a route ... ok (4ms)\n"
                "resolve > returns null for unknown upstream ... ok (9ms)\nresolve > caches ... ok (2ms)\n\n"
                "ok | 3 passed | 0 failed (28ms)",
            ),
        ],
        mistake="const res = await fetch(url); if (!res.ok) return null;  (response body never consumed)",
        lesson=(
            "In driftwood every fetch response body must be consumed or cancelled, early returns included: "
            "`await res.body?.cancel()` before returning on !res.ok (Deno's tests fail on leaked bodies)."
        ),
        warn=[
            same(
                E(
                    "src/resolve.ts",
                    "  if (!res.ok) {\n    await res.body?.cancel();\n    return null;\n  }",
                    "  if (!res.ok) return null;",
                )
            ),
            reword(
                E(
                    "src/geo.ts",
                    "  const resp = await fetch(GEO_URL + ip);",
                    "  const resp = await fetch(GEO_URL + ip);\n  if (resp.status === 404) return undefined;",
                )
            ),
            reword(
                W(
                    "src/health.ts",
                    "export async function upstreamUp(base: string): Promise<boolean> {\n"
                    "  const r = await fetch(`${base}/healthz`);\n  return r.ok;\n}\n",
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "src/health.ts",
                    "export async function upstreamUp(base: string): Promise<boolean> {\n"
                    "  const r = await fetch(`${base}/healthz`);\n  await r.body?.cancel();\n  return r.ok;\n}\n",
                )
            ),
            code(
                E(
                    "src/geo.ts",
                    "  const resp = await fetch(GEO_URL + ip);",
                    "  const resp = await fetch(GEO_URL + ip);\n  if (resp.status === 404) {\n"
                    "    await resp.body?.cancel();\n    return undefined;\n  }",
                )
            ),
            code(
                E(
                    "src/resolve.ts",
                    "  return await res.json();",
                    "  const body = await res.json();\n  return body.target ?? null;",
                )
            ),
        ],
    ),
    Incident(
        id="b4-testfix-scripts-20",
        shape=TEST_FIX,
        agent=CODEX,
        project="copperline",
        session=[
            U("bump_version.bats fails on my mac but passes on CI"),
            err(
                "bats tests/bump_version.bats",
                "1..3\nok 1 bump_version rejects a missing version\nnot ok 2 bump_version writes the new version\n"
                '# (in test file tests/bump_version.bats, line 17)\n#   `[ "$status" -eq 0 ]\' failed\n'
                '# sed: 1: "VERSION": invalid command code V\nok 3 bump_version keeps the changelog header',
            ),
            read(
                "scripts/bump_version.sh",
                '#!/usr/bin/env bash\nset -euo pipefail\nsed -i "s/^version=.*/version=$1/" VERSION\n',
            ),
            A(
                "BSD sed on macOS takes the next argument as the -i backup suffix; GNU sed doesn't. A suffix works on both."
            ),
            edit(
                "scripts/bump_version.sh",
                'sed -i "s/^version=.*/version=$1/" VERSION',
                'sed -i.bak "s/^version=.*/version=$1/" VERSION && rm VERSION.bak',
            ),
            ok(
                "bats tests/bump_version.bats",
                "1..3\nok 1 bump_version rejects a missing version\nok 2 bump_version writes the new version\n"
                "ok 3 bump_version keeps the changelog header",
            ),
        ],
        mistake='sed -i "s/^version=.*/version=$1/" VERSION',
        lesson=(
            "copperline's scripts run on macOS (BSD sed) and Linux: never `sed -i '...' file` without a suffix; "
            "use `sed -i.bak '...' file && rm file.bak`, which works with both."
        ),
        warn=[
            same(
                E(
                    "scripts/bump_version.sh",
                    'sed -i.bak "s/^version=.*/version=$1/" VERSION && rm VERSION.bak',
                    'sed -i "s/^version=.*/version=$1/" VERSION',
                )
            ),
            reword(E("scripts/set-api-url.sh", 'echo "API_URL=$1"', 'sed -i "s|^API_URL=.*|API_URL=$1|" .env')),
            reword(
                W(
                    "scripts/rename-service.sh",
                    '#!/usr/bin/env bash\nset -euo pipefail\nold=$1\nnew=$2\nsed -i -e "s/$old/$new/g" compose.yaml\n',
                )
            ),
        ],
        silent=[
            fix(
                W(
                    "scripts/rename-service.sh",
                    "#!/usr/bin/env bash\nset -euo pipefail\nold=$1\nnew=$2\n"
                    'sed -i.bak -e "s/$old/$new/g" compose.yaml && rm compose.yaml.bak\n',
                )
            ),
            code(
                E(
                    "scripts/set-api-url.sh",
                    'echo "API_URL=$1"',
                    'grep -v "^API_URL=" .env > .env.tmp && echo "API_URL=$1" >> .env.tmp && mv .env.tmp .env',
                )
            ),
            code(
                E(
                    "scripts/changelog.sh",
                    'git log --oneline "$from..HEAD"',
                    'git log --oneline "$from..HEAD" | sed "s/^/- /"',
                )
            ),
        ],
    ),
]
