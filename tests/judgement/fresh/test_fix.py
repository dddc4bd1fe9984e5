"""Fresh split, shape 4: an edit makes a test fail, a different edit makes it pass.

The lesson is a code pattern: it should fire on an Edit/Write that brings the
bad pattern back (``same`` is the session's own buggy edit, ``reword`` the same
bug in another file with other names), not on test runs, not on edits that
write the corrected form, and not on fine code that merely looks alike.
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
)

# Python (PyYAML 6): yaml.load without a Loader
_CFG_OLD = "def load_sources(path: Path) -> list[Source]:\n    with path.open() as f:\n        raw = json.load(f)\n"
_CFG_BAD = "def load_sources(path: Path) -> list[Source]:\n    with path.open() as f:\n        raw = yaml.load(f)\n"
_ALERT_OLD = "def read_rules(rules_file: str) -> dict:\n"

# TypeScript: default sort on numbers
_TIERS_OLD = "export function priceTiers(prices: number[]): number[] {\n  return [...new Set(prices)];\n}\n"
_TIERS_BAD = "export function priceTiers(prices: number[]): number[] {\n  return [...new Set(prices)].sort();\n}\n"
_LAT_OLD = "export function p95(latenciesMs: number[]): number {\n"

# Go: writing to a nil map
_TALLY_OLD = "func TallyByAccount(entries []Entry) map[string]int64 {\n\tvar totals map[string]int64\n\treturn totals\n}\n"
_TALLY_BAD = ("func TallyByAccount(entries []Entry) map[string]int64 {\n\tvar totals map[string]int64\n"
              "\tfor _, e := range entries {\n\t\ttotals[e.Account] += e.AmountCents\n\t}\n\treturn totals\n}\n")
_DEDUP_OLD = "func DedupTransfers(ts []Transfer) []Transfer {\n"

# Rust: split('\n') keeps the '\r' of CRLF files
_PARSE_OLD = "fn parse_manifest(content: &str) -> Vec<Entry> {\n    let entries = content\n        .split(';')\n"
_PARSE_BAD = "fn parse_manifest(content: &str) -> Vec<Entry> {\n    let entries = content\n        .split('\\n')\n"
_IGNORE_OLD = "pub fn load_ignore(text: &str) -> Vec<Pattern> {\n"

# Ruby: SQL string interpolation
_SEARCH_OLD = "  def self.search(q)\n    all\n  end\n"
_SEARCH_BAD = "  def self.search(q)\n    where(\"title ILIKE '%#{q}%'\")\n  end\n"
_MEMBER_OLD = "  def self.with_email(email)\n"

# Elixir: comparing DateTime structs with < / >
_VALID_OLD = "  def valid?(%Hold{} = hold, now) do\n    true\n  end\n"
_VALID_BAD = "  def valid?(%Hold{} = hold, now) do\n    hold.expires_at > now\n  end\n"
_DUE_OLD = "  def overdue(bookings, today) do\n"

# C#: culture-dependent decimal.Parse
_CSV_OLD = "        var amount = 0m;\n"
_CSV_BAD = "        var amount = decimal.Parse(fields[3]);\n"
_CSV_OK = "        var amount = decimal.Parse(fields[3], CultureInfo.InvariantCulture);\n"
_RATE_OLD = "    public ExchangeRate ParseRate(string line)\n    {\n        var parts = line.Split(';');\n"

# Java: String.split with a regex metacharacter
_VER_OLD = "    public static SemVer parse(String version) {\n"
_VER_BAD = _VER_OLD + "        String[] parts = version.split(\".\");\n"
_ROUTE_OLD = "    public Route parseRoute(String header) {\n"

# TypeScript: new Date("YYYY-MM-DD") is UTC midnight
_TRIP_OLD = "export function tripStartLabel(trip: Trip): string {\n  return trip.startDate;\n}\n"
_TRIP_BAD = "export function tripStartLabel(trip: Trip): string {\n  return format(new Date(trip.startDate), \"EEE d MMM\");\n}\n"
_STAY_OLD = "export function nightsLabel(stay: Stay): string {\n"

# pandas: == None on a column
_OPEN_OLD = "def open_incidents(df: pd.DataFrame) -> pd.DataFrame:\n    return df\n"
_OPEN_BAD = "def open_incidents(df: pd.DataFrame) -> pd.DataFrame:\n    return df[df[\"closed_at\"] == None]\n"
_OPEN_OK = "def open_incidents(df: pd.DataFrame) -> pd.DataFrame:\n    return df[df[\"closed_at\"].isna()]\n"
_GAPS_OLD = "def sensor_gaps(readings: pd.DataFrame) -> pd.DataFrame:\n"

# Shell: unquoted variable in [ ]
_ENV_OLD = "DEPLOY_ENV=\"${1:-}\"\n"
_ENV_BAD = _ENV_OLD + "if [ $DEPLOY_ENV == \"prod\" ]; then\n  confirm_prod\nfi\n"
_ROT_OLD = "# rotate logs older than $KEEP_DAYS days\n"

# Rust: Path::join with an absolute component
_CACHE_OLD = "    pub fn cache_dir(&self) -> PathBuf {\n        self.root.clone()\n    }\n"
_CACHE_BAD = "    pub fn cache_dir(&self) -> PathBuf {\n        self.root.join(\"/cache\")\n    }\n"
_LOCK_OLD = "fn lock_path(workspace: &Path) -> PathBuf {\n"

# JavaScript: forEach with an async callback
_NOTIFY_OLD = "export async function notifyAll(users) {\n  let sent = 0;\n  return sent;\n}\n"
_NOTIFY_BAD = ("export async function notifyAll(users) {\n  let sent = 0;\n  users.forEach(async (user) => {\n"
               "    await mailer.send(user.email, \"digest\");\n    sent += 1;\n  });\n  return sent;\n}\n")
_NOTIFY_OK = ("export async function notifyAll(users) {\n  let sent = 0;\n  for (const user of users) {\n"
              "    await mailer.send(user.email, \"digest\");\n    sent += 1;\n  }\n  return sent;\n}\n")
_ARCHIVE_OLD = "export async function archiveOrders(orders) {\n"

# Python asyncio: time.sleep inside async def
_POLL_OLD = ("async def wait_for_render(client: httpx.AsyncClient, job_id: str) -> dict:\n"
             "    while True:\n        job = (await client.get(f\"/jobs/{job_id}\")).json()\n"
             "        if job[\"state\"] == \"done\":\n            return job\n")
_POLL_BAD = _POLL_OLD + "        time.sleep(1)\n"
_RETRY_OLD = "async def post_with_retry(client: httpx.AsyncClient, url: str, body: dict) -> httpx.Response:\n"

INCIDENTS = [
    Incident(
        "tf-sundial-yaml-load", TEST_FIX, CC, "sundial",
        session=[
            U("Read the sources config from sources.yaml instead of sources.json."),
            edit("sundial/config.py", _CFG_OLD, _CFG_BAD),
            err("uv run pytest tests/test_config.py -q",
                "F..                                                                      [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_____________________________ test_load_sources ______________________________\n"
                "sundial/config.py:22: in load_sources\n    raw = yaml.load(f)\n"
                "E   TypeError: load() missing 1 required positional argument: 'Loader'\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_config.py::test_load_sources - TypeError: load() missing 1 required positional argument: 'Loader'\n"
                "1 failed, 2 passed in 0.12s"),
            edit("sundial/config.py", "        raw = yaml.load(f)\n", "        raw = yaml.safe_load(f)\n"),
            ok("uv run pytest tests/test_config.py -q", "...                                                                      [100%]\n3 passed in 0.09s"),
            A("Fixed: PyYAML 6 requires a Loader for yaml.load; yaml.safe_load is the right call for config files."),
        ],
        mistake="yaml.load(f)",
        lesson="Python: never yaml.load(stream) (PyYAML 6 needs a Loader, and the full loader is unsafe); use yaml.safe_load.",
        warn=[same(E("sundial/config.py", _CFG_OLD, _CFG_BAD)),
              reword(E("sundial/alerts/rules.py", _ALERT_OLD,
                       _ALERT_OLD + "    with open(rules_file, encoding=\"utf-8\") as fh:\n        return yaml.load(fh)\n"))],
        silent=[fix(E("sundial/alerts/rules.py", _ALERT_OLD,
                      _ALERT_OLD + "    with open(rules_file, encoding=\"utf-8\") as fh:\n        return yaml.safe_load(fh)\n")),
                code(E("sundial/config.py", "DEFAULT_SOURCES = \"sources.json\"\n", "DEFAULT_SOURCES = \"sources.yaml\"\n")),
                other("uv run pytest tests/test_config.py -q")],
        variants=(),
    ),
    Incident(
        "tf-cobalt-numeric-sort", TEST_FIX, CODEX, "cobalt",
        session=[
            U("priceTiers should return the distinct prices in ascending order."),
            edit("src/pricing/tiers.ts", _TIERS_OLD, _TIERS_BAD),
            err("npm test -- src/pricing/tiers.test.ts",
                "\n> cobalt@2.3.0 test\n> vitest run src/pricing/tiers.test.ts\n\n"
                " ❯ src/pricing/tiers.test.ts (3)\n   ✓ removes duplicates\n   × sorts ascending\n   ✓ handles an empty list\n\n"
                " FAIL  src/pricing/tiers.test.ts > sorts ascending\nAssertionError: expected [ 100, 25, 5 ] to deeply equal [ 5, 25, 100 ]\n\n"
                "- Expected\n+ Received\n\n  Array [\n-   5,\n-   25,\n    100,\n+   25,\n+   5,\n  ]\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)"),
            edit("src/pricing/tiers.ts", "  return [...new Set(prices)].sort();\n", "  return [...new Set(prices)].sort((a, b) => a - b);\n"),
            ok("npm test -- src/pricing/tiers.test.ts", " ✓ src/pricing/tiers.test.ts (3)\n\n Test Files  1 passed (1)\n      Tests  3 passed (3)"),
            A("Fixed: Array.prototype.sort() without a comparator compares as strings, so 100 sorts before 25."),
        ],
        mistake="Edit src/pricing/tiers.ts: [...new Set(prices)].sort()",
        lesson="JS/TS: never sort numbers with a bare .sort() (it compares as strings); pass a comparator, .sort((a, b) => a - b).",
        warn=[same(E("src/pricing/tiers.ts", _TIERS_OLD, _TIERS_BAD)),
              reword(E("src/metrics/latency.ts", _LAT_OLD,
                       _LAT_OLD + "  const sorted = [...latenciesMs].sort();\n  return sorted[Math.floor(sorted.length * 0.95)];\n"))],
        silent=[fix(E("src/metrics/latency.ts", _LAT_OLD,
                      _LAT_OLD + "  const sorted = [...latenciesMs].sort((a, b) => a - b);\n  return sorted[Math.floor(sorted.length * 0.95)];\n")),
                code(E("src/tags/normalize.ts", "export function normalizeTags(tags: string[]): string[] {\n",
                       "export function normalizeTags(tags: string[]): string[] {\n  const names: string[] = tags.map((t) => t.trim().toLowerCase());\n"
                       "  return names.sort();\n")),
                other("npm test -- src/pricing/tiers.test.ts")],
        variants=(),
    ),
    Incident(
        "tf-lodestar-nil-map", TEST_FIX, GEMINI, "lodestar",
        session=[
            U("Implement TallyByAccount: sum entry amounts per account."),
            edit("internal/ledger/tally.go", _TALLY_OLD, _TALLY_BAD),
            err("go test -short ./internal/ledger/ -run TestTally",
                "--- FAIL: TestTallyByAccount (0.00s)\npanic: assignment to entry in nil map [recovered]\n"
                "\tpanic: assignment to entry in nil map\n\ngoroutine 7 [running]:\n"
                "github.com/lodestar-io/lodestar/internal/ledger.TallyByAccount(...)\n"
                "\t/home/dev/lodestar/internal/ledger/tally.go:12\n"
                "FAIL\tgithub.com/lodestar-io/lodestar/internal/ledger\t0.011s\nFAIL"),
            edit("internal/ledger/tally.go", "\tvar totals map[string]int64\n", "\ttotals := make(map[string]int64, len(entries))\n"),
            ok("go test -short ./internal/ledger/ -run TestTally", "ok  \tgithub.com/lodestar-io/lodestar/internal/ledger\t0.009s"),
            A("Fixed: `var totals map[string]int64` declares a nil map, and writing to it panics; make() allocates it."),
        ],
        mistake="Edit internal/ledger/tally.go: var totals map[string]int64 then totals[e.Account] += ...",
        lesson="Go: a map declared with var m map[K]V is nil and writing to it panics; create it with make(map[K]V) or a literal before assigning.",
        warn=[same(E("internal/ledger/tally.go", _TALLY_OLD, _TALLY_BAD)),
              reword(E("internal/transfer/dedup.go", _DEDUP_OLD,
                       _DEDUP_OLD + "\tvar seen map[string]bool\n\tout := ts[:0]\n\tfor _, t := range ts {\n"
                       "\t\tif seen[t.ID] {\n\t\t\tcontinue\n\t\t}\n\t\tseen[t.ID] = true\n\t\tout = append(out, t)\n\t}\n\treturn out\n"))],
        silent=[fix(E("internal/transfer/dedup.go", _DEDUP_OLD,
                      _DEDUP_OLD + "\tseen := map[string]bool{}\n\tout := ts[:0]\n\tfor _, t := range ts {\n"
                      "\t\tif seen[t.ID] {\n\t\t\tcontinue\n\t\t}\n\t\tseen[t.ID] = true\n\t\tout = append(out, t)\n\t}\n\treturn out\n")),
                code(E("internal/ledger/tally.go", "// Entry is one posted ledger line.\n",
                       "// Entry is one posted ledger line; AmountCents is negative for debits.\n")),
                other("go test -short ./internal/ledger/ -run TestTally")],
        variants=(),
    ),
    Incident(
        "tf-spindle-crlf-split", TEST_FIX, CC, "spindle",
        session=[
            U("Manifests now list one entry per line instead of ';'-separated; update the parser."),
            edit("src/manifest.rs", _PARSE_OLD, _PARSE_BAD),
            err("cargo test --no-default-features --features rustls manifest::",
                "running 4 tests\ntest manifest::tests::parses_unix_manifest ... ok\ntest manifest::tests::parses_windows_manifest ... FAILED\n"
                "test manifest::tests::skips_blank_lines ... ok\ntest manifest::tests::keeps_order ... ok\n\nfailures:\n\n"
                "---- manifest::tests::parses_windows_manifest stdout ----\n"
                "thread 'manifest::tests::parses_windows_manifest' panicked at src/manifest.rs:71:9:\n"
                "assertion `left == right` failed\n  left: \"assets/logo.png\\r\"\n right: \"assets/logo.png\"\n\n"
                "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 38 filtered out; finished in 0.00s", 101),
            edit("src/manifest.rs", "        .split('\\n')\n", "        .lines()\n"),
            ok("cargo test --no-default-features --features rustls manifest::",
               "running 4 tests\n....\ntest result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 38 filtered out; finished in 0.00s"),
            A("Fixed: split('\\n') leaves the '\\r' of CRLF files on each entry; str::lines() strips both endings."),
        ],
        mistake="Edit src/manifest.rs: content.split('\\n')",
        lesson="Rust: split text into lines with str::lines(), not split('\\n') (which keeps the \\r of CRLF input).",
        warn=[same(E("src/manifest.rs", _PARSE_OLD, _PARSE_BAD)),
              reword(E("src/ignore.rs", _IGNORE_OLD,
                       _IGNORE_OLD + "    text.split(\"\\n\").filter(|l| !l.starts_with('#')).map(Pattern::new).collect()\n"))],
        silent=[fix(E("src/ignore.rs", _IGNORE_OLD,
                      _IGNORE_OLD + "    text.lines().filter(|l| !l.starts_with('#')).map(Pattern::new).collect()\n")),
                code(E("src/ignore.rs", "const IGNORE_FILE: &str = \".spindleignore\";\n",
                       "const IGNORE_FILE: &str = \".spindleignore\";\nconst MAX_PATTERNS: usize = 4096;\n")),
                other("cargo test --no-default-features --features rustls manifest::")],
        variants=(),
    ),
    Incident(
        "tf-thornbury-sql-interpolation", TEST_FIX, CODEX, "thornbury",
        session=[
            U("Add Task.search(q) for the search box: title contains q, case-insensitive."),
            edit("app/models/task.rb", _SEARCH_OLD, _SEARCH_BAD),
            err("bin/rails test test/models/task_test.rb",
                "Run options: --seed 48120\n\n# Running:\n\n..E.\n\nError:\nTaskTest#test_search_handles_quotes:\n"
                "ActiveRecord::StatementInvalid: PG::SyntaxError: ERROR:  syntax error at or near \"s\"\n"
                "LINE 1: SELECT \"tasks\".* FROM \"tasks\" WHERE (title ILIKE '%Bob's%')\n"
                "                                                                 ^\n"
                "    app/models/task.rb:14:in `search'\n    test/models/task_test.rb:31:in `block in <class:TaskTest>'\n\n"
                "4 runs, 5 assertions, 0 failures, 1 errors, 0 skips"),
            edit("app/models/task.rb", "    where(\"title ILIKE '%#{q}%'\")\n",
                 "    where(\"title ILIKE ?\", \"%#{sanitize_sql_like(q)}%\")\n"),
            ok("bin/rails test test/models/task_test.rb", "Run options: --seed 2231\n\n# Running:\n\n....\n\n4 runs, 7 assertions, 0 failures, 0 errors, 0 skips"),
            A("Fixed: interpolating q into the SQL string broke on the quote in \"Bob's\" — and was an SQL injection. "
              "The value now goes in as a bind parameter."),
        ],
        mistake="Edit app/models/task.rb: where(\"title ILIKE '%#{q}%'\")",
        lesson="Rails: never interpolate values into SQL strings (where(\"col = '#{x}'\")); use bind parameters (where(\"col ILIKE ?\", …)) or hash conditions.",
        warn=[same(E("app/models/task.rb", _SEARCH_OLD, _SEARCH_BAD)),
              reword(E("app/models/member.rb", _MEMBER_OLD,
                       _MEMBER_OLD + "    find_by(\"lower(email) = '#{email.downcase}'\")\n"))],
        silent=[fix(E("app/models/member.rb", _MEMBER_OLD, _MEMBER_OLD + "    find_by(\"lower(email) = ?\", email.downcase)\n")),
                code(E("app/models/task.rb", "  belongs_to :project\n", "  belongs_to :project, touch: true\n")),
                other("bin/rails test test/models/task_test.rb")],
        variants=(),
    ),
    Incident(
        "tf-fernhill-datetime-compare", TEST_FIX, GEMINI, "fernhill",
        session=[
            U("A booking hold is valid until its expires_at; implement Hold.valid?/2."),
            edit("lib/fernhill/bookings/hold.ex", _VALID_OLD, _VALID_BAD),
            err("mix test test/fernhill/bookings/hold_test.exs",
                "..\n\n  1) test valid?/2 is false once the hold has expired (Fernhill.Bookings.HoldTest)\n"
                "     test/fernhill/bookings/hold_test.exs:22\n     Expected truthy, got false\n"
                "     code: refute Hold.valid?(hold, ~U[2026-03-03 10:00:00Z])\n"
                "     stacktrace:\n       test/fernhill/bookings/hold_test.exs:25: (test)\n\n"
                "Finished in 0.04 seconds (0.04s async, 0.00s sync)\n3 tests, 1 failure"),
            edit("lib/fernhill/bookings/hold.ex", "    hold.expires_at > now\n", "    DateTime.compare(hold.expires_at, now) == :gt\n"),
            ok("mix test test/fernhill/bookings/hold_test.exs", "...\nFinished in 0.03 seconds (0.03s async, 0.00s sync)\n3 tests, 0 failures"),
            A("Fixed: `>` on DateTime structs compares the maps field by field, not the instants; DateTime.compare/2 "
              "compares the times."),
        ],
        mistake="Edit lib/fernhill/bookings/hold.ex: hold.expires_at > now",
        lesson="Elixir: never compare DateTime/Date/NaiveDateTime structs with < or > (structural map comparison); use DateTime.compare/2, Date.compare/2 or before?/after?.",
        warn=[same(E("lib/fernhill/bookings/hold.ex", _VALID_OLD, _VALID_BAD)),
              reword(E("lib/fernhill/bookings/reminders.ex", _DUE_OLD,
                       _DUE_OLD + "    Enum.filter(bookings, fn b -> b.starts_on < today and not b.paid end)\n"))],
        silent=[fix(E("lib/fernhill/bookings/reminders.ex", _DUE_OLD,
                      _DUE_OLD + "    Enum.filter(bookings, fn b -> Date.before?(b.starts_on, today) and not b.paid end)\n")),
                code(E("lib/fernhill/bookings/hold.ex", "  @hold_minutes 15\n", "  @hold_minutes 20\n")),
                other("mix test test/fernhill/bookings/hold_test.exs")],
        variants=(),
    ),
    Incident(
        "tf-millrace-decimal-culture", TEST_FIX, CC, "millrace",
        session=[
            U("Read the amount column (4th field) in the bank CSV importer."),
            edit("src/Millrace.Import/BankCsvImporter.cs", _CSV_OLD, _CSV_BAD),
            err("dotnet test tests/Millrace.Import.Tests --filter FullyQualifiedName~BankCsvImporterTests",
                "  Failed Millrace.Import.Tests.BankCsvImporterTests.ParsesAmountWithDecimals [12 ms]\n  Error Message:\n"
                "   Assert.Equal() Failure: Values differ\nExpected: 12.50\nActual:   1250\n"
                "  Stack Trace:\n     at Millrace.Import.Tests.BankCsvImporterTests.ParsesAmountWithDecimals() in "
                "/home/dev/millrace/tests/Millrace.Import.Tests/BankCsvImporterTests.cs:line 38\n\n"
                "Failed!  - Failed:     1, Passed:     7, Skipped:     0, Total:     8, Duration: 41 ms - Millrace.Import.Tests.dll (net8.0)"),
            edit("src/Millrace.Import/BankCsvImporter.cs", _CSV_BAD, _CSV_OK),
            ok("dotnet test tests/Millrace.Import.Tests --filter FullyQualifiedName~BankCsvImporterTests",
               "Passed!  - Failed:     0, Passed:     8, Skipped:     0, Total:     8, Duration: 38 ms - Millrace.Import.Tests.dll (net8.0)"),
            A("Fixed: the test host runs with de-DE, where '.' is the thousands separator, so decimal.Parse read 12.50 "
              "as 1250. The file format is invariant, so it parses with CultureInfo.InvariantCulture."),
        ],
        mistake="decimal.Parse(fields[3])",
        lesson="C#: parse machine-formatted numbers with CultureInfo.InvariantCulture (decimal.Parse(s, CultureInfo.InvariantCulture)); the current culture may use ',' as the decimal separator.",
        warn=[same(E("src/Millrace.Import/BankCsvImporter.cs", _CSV_OLD, _CSV_BAD)),
              reword(E("src/Millrace.Import/RateFileParser.cs", _RATE_OLD,
                       _RATE_OLD + "        var rate = double.Parse(parts[2]);\n"))],
        silent=[fix(E("src/Millrace.Import/RateFileParser.cs", _RATE_OLD,
                      _RATE_OLD + "        var rate = double.Parse(parts[2], NumberStyles.Float, CultureInfo.InvariantCulture);\n")),
                code(E("src/Millrace.Import/BankCsvImporter.cs", "    private const char Separator = ';';\n",
                       "    private const char Separator = ',';\n")),
                other("dotnet test tests/Millrace.Import.Tests --filter FullyQualifiedName~BankCsvImporterTests")],
        variants=(),
    ),
    Incident(
        "tf-keelson-split-regex", TEST_FIX, CODEX, "keelson",
        session=[
            U("Add SemVer.parse for the version header."),
            edit("keelson-common/src/main/java/com/keelson/common/SemVer.java", _VER_OLD,
                 _VER_BAD + "        return new SemVer(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));\n"),
            err("mvn -s settings-internal.xml -pl keelson-common test -Dtest=SemVerTest",
                "[ERROR] Tests run: 3, Failures: 0, Errors: 3, Skipped: 0, Time elapsed: 0.052 s <<< FAILURE! -- in com.keelson.common.SemVerTest\n"
                "[ERROR] com.keelson.common.SemVerTest.parsesPlainVersion -- Time elapsed: 0.011 s <<< ERROR!\n"
                "java.lang.ArrayIndexOutOfBoundsException: Index 0 out of bounds for length 0\n"
                "\tat com.keelson.common.SemVer.parse(SemVer.java:19)\n\tat com.keelson.common.SemVerTest.parsesPlainVersion(SemVerTest.java:12)\n"
                "[INFO] BUILD FAILURE"),
            edit("keelson-common/src/main/java/com/keelson/common/SemVer.java", "        String[] parts = version.split(\".\");\n",
                 "        String[] parts = version.split(\"\\\\.\");\n"),
            ok("mvn -s settings-internal.xml -pl keelson-common test -Dtest=SemVerTest",
               "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.041 s -- in com.keelson.common.SemVerTest\n[INFO] BUILD SUCCESS"),
            A("Fixed: String.split takes a regex, and \".\" matches every character, leaving an empty array; the dot "
              "has to be escaped (\"\\\\.\")."),
        ],
        mistake="version.split(\".\")",
        lesson="Java: String.split takes a regex; escape metacharacters (split(\"\\\\.\"), split(\"\\\\|\")) or use Pattern.quote — split(\".\") returns an empty array.",
        warn=[same(E("keelson-common/src/main/java/com/keelson/common/SemVer.java", _VER_OLD,
                     _VER_BAD + "        return new SemVer(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));\n")),
              reword(E("keelson-app/src/main/java/com/keelson/app/routing/RouteHeader.java", _ROUTE_OLD,
                       _ROUTE_OLD + "        String[] hops = header.split(\"|\");\n"))],
        silent=[fix(E("keelson-app/src/main/java/com/keelson/app/routing/RouteHeader.java", _ROUTE_OLD,
                      _ROUTE_OLD + "        String[] hops = header.split(Pattern.quote(\"|\"));\n")),
                code(E("keelson-app/src/main/java/com/keelson/app/routing/RouteHeader.java", "    public Route parseCsv(String line) {\n",
                       "    public Route parseCsv(String line) {\n        String[] cols = line.split(\",\");\n")),
                other("mvn -s settings-internal.xml -pl keelson-common test -Dtest=SemVerTest")],
        variants=(),
    ),
    Incident(
        "tf-wayfarer-date-only-utc", TEST_FIX, GEMINI, "wayfarer",
        session=[
            U("Show the trip start date as 'Mon 2 Mar' on the trip card."),
            edit("apps/web/src/lib/tripLabels.ts", _TRIP_OLD, _TRIP_BAD),
            err("pnpm --filter @wayfarer/web test -- tripLabels",
                " FAIL  src/lib/tripLabels.test.ts > tripStartLabel > formats the local start date\n"
                "AssertionError: expected 'Sun 1 Mar' to be 'Mon 2 Mar' // Object.is equality\n\n"
                "- Expected\n+ Received\n\n- Mon 2 Mar\n+ Sun 1 Mar\n\n ❯ src/lib/tripLabels.test.ts:9:40\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)"),
            edit("apps/web/src/lib/tripLabels.ts", "format(new Date(trip.startDate), \"EEE d MMM\")", "format(parseISO(trip.startDate), \"EEE d MMM\")"),
            ok("pnpm --filter @wayfarer/web test -- tripLabels", " ✓ src/lib/tripLabels.test.ts (4)\n\n Test Files  1 passed (1)\n      Tests  4 passed (4)"),
            A("Fixed: new Date(\"2026-03-02\") is UTC midnight, which is still 1 March in the test's America/New_York "
              "zone; date-fns parseISO reads a date-only string as local midnight."),
        ],
        mistake="new Date(trip.startDate)",
        lesson="wayfarer: never new Date(\"YYYY-MM-DD\") for date-only strings (parsed as UTC midnight, a day off west of UTC); use date-fns parseISO.",
        warn=[same(E("apps/web/src/lib/tripLabels.ts", _TRIP_OLD, _TRIP_BAD)),
              reword(E("apps/admin/src/lib/stays.ts", _STAY_OLD,
                       _STAY_OLD + "  const nights = differenceInCalendarDays(new Date(stay.checkOut), new Date(stay.checkIn));\n"))],
        silent=[fix(E("apps/admin/src/lib/stays.ts", _STAY_OLD,
                      _STAY_OLD + "  const nights = differenceInCalendarDays(parseISO(stay.checkOut), parseISO(stay.checkIn));\n")),
                code(E("apps/web/src/lib/tripLabels.ts", "export const LABEL_LOCALE = \"en-GB\";\n", "export const LABEL_LOCALE = \"en-IE\";\n")),
                other("pnpm --filter @wayfarer/web test -- tripLabels")],
        variants=(),
    ),
    Incident(
        "tf-sundial-pandas-eq-none", TEST_FIX, CODEX, "sundial",
        session=[
            U("open_incidents should return the incidents that have no closed_at."),
            edit("sundial/reports/incidents.py", _OPEN_OLD, _OPEN_BAD),
            err("uv run pytest tests/reports/test_incidents.py -q",
                "F                                                                        [100%]\n"
                "=================================== FAILURES ===================================\n"
                "___________________________ test_open_incidents ____________________________\n"
                ">       assert list(out[\"id\"]) == [2, 5]\nE       assert [] == [2, 5]\nE         Right contains 2 more items, first extra item: 2\n\n"
                "tests/reports/test_incidents.py:17: AssertionError\n"
                "FAILED tests/reports/test_incidents.py::test_open_incidents - assert [] == [2, 5]\n1 failed in 0.41s"),
            edit("sundial/reports/incidents.py", _OPEN_BAD, _OPEN_OK),
            ok("uv run pytest tests/reports/test_incidents.py -q", ".                                                                        [100%]\n1 passed in 0.38s"),
            A("Fixed: in pandas `column == None` is elementwise and always False (missing values are NaN/NaT); "
              "`.isna()` finds them."),
        ],
        mistake="df[df[\"closed_at\"] == None]",
        lesson="pandas: never test a column for missing values with == None (always False); use .isna() / .notna().",
        warn=[same(E("sundial/reports/incidents.py", _OPEN_OLD, _OPEN_BAD)),
              reword(E("sundial/reports/gaps.py", _GAPS_OLD,
                       _GAPS_OLD + "    missing = readings.loc[readings.value == None, [\"sensor_id\", \"ts\"]]\n"))],
        silent=[fix(E("sundial/reports/gaps.py", _GAPS_OLD,
                      _GAPS_OLD + "    missing = readings.loc[readings.value.isna(), [\"sensor_id\", \"ts\"]]\n")),
                code(E("sundial/reports/incidents.py", "SEVERITIES = (\"low\", \"high\")\n", "SEVERITIES = (\"low\", \"medium\", \"high\")\n")),
                other("uv run pytest tests/reports -q")],
        variants=(),
    ),
    Incident(
        "tf-bramble-unquoted-test", TEST_FIX, CC, "bramble",
        session=[
            U("deploy.sh should ask for confirmation when the environment is prod."),
            edit("scripts/deploy.sh", _ENV_OLD, _ENV_BAD),
            err("bats tests/deploy.bats",
                "deploy.bats\n ✓ asks for confirmation in prod\n ✗ runs without an environment argument\n"
                "   (in test file tests/deploy.bats, line 19)\n     `[ \"$status\" -eq 0 ]' failed\n"
                "   scripts/deploy.sh: line 6: [: ==: unary operator expected\n\n2 tests, 1 failure"),
            edit("scripts/deploy.sh", "if [ $DEPLOY_ENV == \"prod\" ]; then\n", "if [ \"$DEPLOY_ENV\" = \"prod\" ]; then\n"),
            ok("bats tests/deploy.bats", "deploy.bats\n ✓ asks for confirmation in prod\n ✓ runs without an environment argument\n\n2 tests, 0 failures"),
            A("Fixed: with the variable unquoted, an empty DEPLOY_ENV leaves `[ == \"prod\" ]`; quoting it (and POSIX `=`) "
              "keeps the test well-formed."),
        ],
        mistake="if [ $DEPLOY_ENV == \"prod\" ]; then",
        lesson="Shell: always quote variables inside [ ] ([ \"$X\" = \"y\" ]); an empty unquoted variable breaks the test (unary operator expected).",
        warn=[same(E("scripts/deploy.sh", _ENV_OLD, _ENV_BAD)),
              reword(E("scripts/rotate-logs.sh", _ROT_OLD,
                       _ROT_OLD + "if [ $KEEP_DAYS -lt 7 ]; then\n  echo \"refusing to keep less than a week\" >&2\n  exit 1\nfi\n"))],
        silent=[fix(E("scripts/rotate-logs.sh", _ROT_OLD,
                      _ROT_OLD + "if [ \"$KEEP_DAYS\" -lt 7 ]; then\n  echo \"refusing to keep less than a week\" >&2\n  exit 1\nfi\n")),
                code(E("scripts/deploy.sh", "readonly RELEASES_TO_KEEP=5\n", "readonly RELEASES_TO_KEEP=8\n")),
                other("bats tests/deploy.bats")],
        variants=(),
    ),
    Incident(
        "tf-ferrule-join-absolute", TEST_FIX, GEMINI, "ferrule",
        session=[
            U("Give the workspace a cache directory under its root."),
            edit("crates/ferrule-core/src/workspace.rs", _CACHE_OLD, _CACHE_BAD),
            err("cargo test -p ferrule-core --all-features workspace::",
                "running 3 tests\ntest workspace::tests::cache_dir_is_inside_root ... FAILED\n"
                "test workspace::tests::opens_existing ... ok\ntest workspace::tests::rejects_missing_root ... ok\n\nfailures:\n\n"
                "---- workspace::tests::cache_dir_is_inside_root stdout ----\n"
                "thread 'workspace::tests::cache_dir_is_inside_root' panicked at crates/ferrule-core/src/workspace.rs:88:9:\n"
                "assertion `left == right` failed\n  left: \"/cache\"\n right: \"/tmp/.tmpQ3xk9a/cache\"\n\n"
                "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 44 filtered out; finished in 0.00s", 101),
            edit("crates/ferrule-core/src/workspace.rs", "        self.root.join(\"/cache\")\n", "        self.root.join(\"cache\")\n"),
            ok("cargo test -p ferrule-core --all-features workspace::",
               "running 3 tests\n...\ntest result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 44 filtered out; finished in 0.00s"),
            A("Fixed: Path::join with an absolute path (\"/cache\") replaces the base instead of appending to it."),
        ],
        mistake="self.root.join(\"/cache\")",
        lesson="Rust: Path::join with an absolute component (\"/x\") replaces the base path; join relative names (root.join(\"cache\")).",
        warn=[same(E("crates/ferrule-core/src/workspace.rs", _CACHE_OLD, _CACHE_BAD)),
              reword(E("crates/ferrule-cli/src/lock.rs", _LOCK_OLD, _LOCK_OLD + "    workspace.join(\"/ferrule.lock\")\n"))],
        silent=[fix(E("crates/ferrule-cli/src/lock.rs", _LOCK_OLD, _LOCK_OLD + "    workspace.join(\"ferrule.lock\")\n")),
                code(E("crates/ferrule-core/src/workspace.rs", "const MAX_DEPTH: usize = 32;\n", "const MAX_DEPTH: usize = 64;\n")),
                other("cargo test -p ferrule-core --all-features workspace::")],
        variants=(),
    ),
    Incident(
        "tf-cobalt-foreach-async", TEST_FIX, CC, "cobalt",
        session=[
            U("notifyAll should send the digest to every user and return how many were sent."),
            edit("src/jobs/digest.js", _NOTIFY_OLD, _NOTIFY_BAD),
            err("npm test -- src/jobs/digest.test.js",
                " FAIL  src/jobs/digest.test.js > notifyAll > returns the number of mails sent\n"
                "AssertionError: expected +0 to be 3 // Object.is equality\n\n ❯ src/jobs/digest.test.js:14:28\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 1 passed (2)"),
            edit("src/jobs/digest.js", _NOTIFY_BAD, _NOTIFY_OK),
            ok("npm test -- src/jobs/digest.test.js", " ✓ src/jobs/digest.test.js (2)\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)"),
            A("Fixed: forEach doesn't await async callbacks, so notifyAll returned before any mail was sent; a for…of "
              "loop awaits each send."),
        ],
        mistake="users.forEach(async (user) => { await mailer.send(...) })",
        lesson="JS: never pass an async callback to forEach (nothing awaits it); use for…of with await, or await Promise.all(items.map(async …)).",
        warn=[same(E("src/jobs/digest.js", _NOTIFY_OLD, _NOTIFY_BAD)),
              reword(E("src/jobs/archive.js", _ARCHIVE_OLD,
                       _ARCHIVE_OLD + "  orders.forEach(async (o) => {\n    await db.orders.update(o.id, { archived: true });\n  });\n"))],
        silent=[fix(E("src/jobs/archive.js", _ARCHIVE_OLD,
                      _ARCHIVE_OLD + "  await Promise.all(orders.map((o) => db.orders.update(o.id, { archived: true })));\n")),
                code(E("src/jobs/archive.js", "export function summarize(orders) {\n",
                       "export function summarize(orders) {\n  orders.forEach((o) => console.log(o.id, o.total));\n")),
                other("npm test -- src/jobs/digest.test.js")],
        variants=(),
    ),
    Incident(
        "tf-quill-sleep-in-async", TEST_FIX, CODEX, "quill",
        session=[
            U("wait_for_render should poll the job once a second until it's done."),
            edit("quill/render/client.py", _POLL_OLD, _POLL_BAD),
            err("uv run pytest tests/render/test_client.py -q",
                ".F                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "________________________ test_polls_concurrently ________________________\n"
                ">       assert elapsed < 1.5, f\"renders were polled serially ({elapsed:.1f}s)\"\n"
                "E       AssertionError: renders were polled serially (3.0s)\nE       assert 3.0 < 1.5\n\n"
                "tests/render/test_client.py:41: AssertionError\n"
                "FAILED tests/render/test_client.py::test_polls_concurrently - AssertionError: renders were polled serially (3.0s)\n"
                "1 failed, 1 passed in 3.14s"),
            edit("quill/render/client.py", "        time.sleep(1)\n", "        await asyncio.sleep(1)\n"),
            ok("uv run pytest tests/render/test_client.py -q", "..                                                                       [100%]\n2 passed in 1.09s"),
            A("Fixed: time.sleep blocks the whole event loop, so three concurrent polls ran one after another; "
              "await asyncio.sleep yields to the loop."),
        ],
        mistake="time.sleep(1) inside async def",
        lesson="Python asyncio: never time.sleep() inside async def (it blocks the event loop); use await asyncio.sleep().",
        warn=[same(E("quill/render/client.py", _POLL_OLD, _POLL_BAD)),
              reword(E("quill/http/retry.py", _RETRY_OLD,
                       _RETRY_OLD + "    for attempt in range(5):\n        resp = await client.post(url, json=body)\n"
                       "        if resp.status_code < 500:\n            return resp\n        time.sleep(2 ** attempt)\n"))],
        silent=[fix(E("quill/http/retry.py", _RETRY_OLD,
                      _RETRY_OLD + "    for attempt in range(5):\n        resp = await client.post(url, json=body)\n"
                      "        if resp.status_code < 500:\n            return resp\n        await asyncio.sleep(2 ** attempt)\n")),
                code(W("scripts/wait_for_db.py",
                       "import sys\nimport time\n\nimport psycopg\n\n\ndef main() -> int:\n    for _ in range(30):\n        try:\n"
                       "            psycopg.connect(sys.argv[1]).close()\n            return 0\n        except psycopg.OperationalError:\n"
                       "            time.sleep(1)\n    return 1\n\n\nif __name__ == \"__main__\":\n    raise SystemExit(main())\n")),
                other("uv run pytest tests/render/test_client.py -q")],
        variants=(),
    ),
]
