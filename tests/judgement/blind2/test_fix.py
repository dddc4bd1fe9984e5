"""Blind split 2, shape test_fix: a test run fails, an edit fixes the code (its ``old`` /
``new`` carry the bad and the good code), the run passes. Every lesson here is about
code: an Edit/Write that puts the bad pattern back (in the same file, or in another file
with other names) must be held; the corrected code, fine edits that look alike and the
test run itself must pass. Four incidents per agent."""

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

# -- Go (quarry) -------------------------------------------------------------------------

_GO_BAD = "\tif err := json.Unmarshal(data, cfg); err != nil {\n"
_GO_GOOD = "\tif err := json.Unmarshal(data, &cfg); err != nil {\n"
_GO_CLIENT_OLD = "\treturn parseInvoice(body)\n"


def _go_client(target: str) -> str:
    return (
        "\tvar resp invoiceResponse\n"
        f"\tif err := json.Unmarshal(body, {target}); err != nil {{\n"
        '\t\treturn nil, fmt.Errorf("decode invoice: %w", err)\n'
        "\t}\n"
        "\treturn resp.Invoice, nil\n"
    )


def _go_webhook(target: str) -> str:
    return (
        'package payouts\n\nimport "encoding/json"\n\ntype event struct {\n'
        '\tID     string `json:"id"`\n\tAmount int64  `json:"amount"`\n}\n\n'
        "func decodeEvent(raw []byte) (event, error) {\n\tvar ev event\n"
        f"\terr := json.Unmarshal(raw, {target})\n\treturn ev, err\n}}\n"
    )


# -- Deno (tidepool) ---------------------------------------------------------------------

_DENO_BAD = "  const text = Deno.readTextFile(path);\n"
_DENO_GOOD = "  const text = await Deno.readTextFile(path);\n"


def _deno_cache(awaited: bool) -> str:
    call = "await Deno.readTextFile(file)" if awaited else "Deno.readTextFile(file)"
    return (
        "export async function readCache(file: string): Promise<Record<string, number>> {\n"
        f"  const raw = {call};\n"
        "  return JSON.parse(raw);\n"
        "}\n"
    )


# -- Elixir (ember) ----------------------------------------------------------------------

_EX_BAD = "    now > ends_at\n"
_EX_GOOD = "    DateTime.compare(now, ends_at) == :gt\n"
_EX_TOKEN_OLD = "  def valid?(%Token{} = _token) do\n    true\n  end\n"

# -- R (okra) ----------------------------------------------------------------------------

_R_BAD = "  sapply(rows, function(r) r$weight * r$value)\n"
_R_GOOD = "  vapply(rows, function(r) r$weight * r$value, numeric(1))\n"
_R_SUM_OLD = "  totals <- numeric(0)\n"
_R_TEST = "Rscript -e 'devtools::test(filter = \"scores\")'"

# -- OCaml (camlroute) -------------------------------------------------------------------

_ML_BAD = "let lookup t path =\n  Some (Hashtbl.find t.routes path)\n"
_ML_GOOD = "let lookup t path =\n  Hashtbl.find_opt t.routes path\n"
_ML_MW_OLD = "let header_value headers name =\n  None\n"

# -- Haskell (stackyard) -----------------------------------------------------------------

_HS_BAD = "parsePort :: String -> Maybe Int\nparsePort s = Just (read s)\n"
_HS_GOOD = "parsePort :: String -> Maybe Int\nparsePort s = readMaybe s\n"
_HS_Q_OLD = "pageParam :: Text -> Maybe Int\npageParam _ = Nothing\n"

# -- Scala (kelp) ------------------------------------------------------------------------

_SC_BAD = '    record.headers.get("X-Tenant").get\n'
_SC_GOOD = '    record.headers.get("X-Tenant").getOrElse(DefaultTenant)\n'
_SC_P_OLD = '    val region = "eu"\n'
_SC_TEST = 'sbt "core/testOnly kelp.RouterSpec"'

# -- Clojure (ledger) --------------------------------------------------------------------

_CLJ_BAD = '  (contains? (:roles user) "admin"))\n'
_CLJ_GOOD = '  (boolean (some #{"admin"} (:roles user))))\n'
_CLJ_P_OLD = "(defn frozen? [period]\n  false)\n"

# -- Zig (vane) --------------------------------------------------------------------------

_ZIG_BAD = '    if (name == "reset") return .reset;\n'
_ZIG_GOOD = '    if (std.mem.eql(u8, name, "reset")) return .reset;\n'
_ZIG_C_OLD = "fn isBaud(key: []const u8) bool {\n    _ = key;\n    return false;\n}\n"

# -- TypeScript / vitest (plume) ---------------------------------------------------------

_VT_BAD = "    expect(slugify('')).toThrow('title must not be empty')\n"
_VT_GOOD = "    expect(() => slugify('')).toThrow('title must not be empty')\n"


def _price_test(wrapped: bool) -> str:
    call = "() => parsePrice('-3.50')" if wrapped else "parsePrice('-3.50')"
    return (
        "import { describe, expect, it } from 'vitest'\nimport { parsePrice } from './price'\n\n"
        "describe('parsePrice', () => {\n"
        "  it('parses euros', () => {\n    expect(parsePrice('3.50')).toBe(350)\n  })\n\n"
        "  it('rejects negative amounts', () => {\n"
        f"    expect({call}).toThrow(RangeError)\n"
        "  })\n})\n"
    )


# -- Python (sable) ----------------------------------------------------------------------

_PY_BAD = "        data = yaml.load(fh)\n"
_PY_GOOD = "        data = yaml.safe_load(fh)\n"
_PY_T_OLD = "def load_template(path):\n    return {}\n"

# -- Playwright (plume) ------------------------------------------------------------------

_PW_BAD = "    expect(await page.getByText('Post published').isVisible()).toBe(true);\n"
_PW_GOOD = "    await expect(page.getByText('Post published')).toBeVisible();\n"
_PW_S_OLD = "    await page.getByRole('button', { name: 'Save' }).click();\n"

INCIDENTS = [
    Incident(
        id="b2-tf01-go-unmarshal-pointer",
        shape=TEST_FIX,
        agent=CC,
        project="quarry",
        session=[
            U("billing_test is failing on main, fix it"),
            err(
                "bazel test //services/billing:billing_test --test_output=errors",
                "INFO: Analyzed target //services/billing:billing_test (0 packages loaded, 0 targets configured).\n"
                "FAIL: //services/billing:billing_test (see /home/dev/.cache/bazel/_bazel_dev/4c1e/execroot/_main/"
                "bazel-out/k8-fastbuild/testlogs/services/billing/billing_test/test.log)\n"
                "==================== Test output for //services/billing:billing_test:\n"
                "--- FAIL: TestLoadConfig (0.00s)\n"
                "    config_test.go:21: LoadConfig: json: Unmarshal(non-pointer config.Config)\nFAIL\n"
                "================================================================================\n"
                "//services/billing:billing_test          FAILED in 0.4s\n\n"
                "Executed 1 out of 1 test: 1 fails locally.",
                code=3,
            ),
            read(
                "services/billing/config/config.go",
                'package config\n\nimport (\n\t"encoding/json"\n\t"fmt"\n)\n\n'
                "func LoadConfig(data []byte) (Config, error) {\n\tvar cfg Config\n"
                + _GO_BAD
                + '\t\treturn Config{}, fmt.Errorf("LoadConfig: %w", err)\n\t}\n\treturn cfg, nil\n}\n',
            ),
            A("json.Unmarshal is given the struct value; it needs a pointer to fill it."),
            edit("services/billing/config/config.go", _GO_BAD, _GO_GOOD),
            ok(
                "bazel test //services/billing:billing_test --test_output=errors",
                "//services/billing:billing_test          PASSED in 0.3s\n\nExecuted 1 out of 1 test: 1 test passes.",
            ),
        ],
        mistake="json.Unmarshal(data, cfg)",
        lesson=(
            "json.Unmarshal needs a pointer to the target: `json.Unmarshal(data, &cfg)`; passing the struct value "
            "fails with json: Unmarshal(non-pointer ...)."
        ),
        warn=[
            same(E("services/billing/config/config.go", _GO_GOOD, _GO_BAD)),
            reword(E("services/ledger/client/invoice.go", _GO_CLIENT_OLD, _go_client("resp"))),
            reword(W("services/payouts/webhook.go", _go_webhook("ev"))),
        ],
        silent=[
            fix(E("services/ledger/client/invoice.go", _GO_CLIENT_OLD, _go_client("&resp"))),
            fix(W("services/payouts/webhook.go", _go_webhook("&ev"))),
            code(
                E(
                    "services/payouts/encode.go",
                    "func encodeEvent(ev event) ([]byte, error) {\n\treturn nil, nil\n}\n",
                    "func encodeEvent(ev event) ([]byte, error) {\n\treturn json.Marshal(ev)\n}\n",
                )
            ),
            other("bazel test //services/billing:billing_test --test_output=errors"),
        ],
    ),
    Incident(
        id="b2-tf02-deno-await-read",
        shape=TEST_FIX,
        agent=CODEX,
        project="tidepool",
        session=[
            U("the config tests broke after my refactor, can you look?"),
            err(
                "deno test -A",
                "running 3 tests from ./src/config_test.ts\nparses station ids ... ok (1ms)\n"
                "loads station list ... FAILED (4ms)\nrejects empty file ... ok (1ms)\n\n ERRORS \n\n"
                "loads station list => ./src/config_test.ts:12:6\n"
                "error: TypeError: text.split is not a function\n"
                '  const lines = text.split("\\n");\n                    ^\n'
                "    at loadStations (file:///home/dev/tidepool/src/config.ts:9:22)\n\n FAILURES \n\n"
                "loads station list => ./src/config_test.ts:12:6\n\nFAILED | 2 passed | 1 failed (41ms)\n\n"
                "error: Test failed",
            ),
            A("Deno.readTextFile returns a Promise; loadStations uses it without awaiting."),
            edit("src/config.ts", _DENO_BAD, _DENO_GOOD),
            ok("deno test -A", "running 3 tests from ./src/config_test.ts\n...\nok | 3 passed | 0 failed (38ms)"),
        ],
        mistake="const text = Deno.readTextFile(path);",
        lesson=(
            "Deno.readTextFile returns a Promise: always `await Deno.readTextFile(path)`; without await the "
            "caller gets a Promise (text.split is not a function)."
        ),
        warn=[
            same(E("src/config.ts", _DENO_GOOD, _DENO_BAD)),
            reword(W("src/tides/cache.ts", _deno_cache(awaited=False))),
        ],
        silent=[
            fix(W("src/tides/cache.ts", _deno_cache(awaited=True))),
            code(
                E(
                    "src/stations.ts",
                    "export function loadDefaults(path: string): string[] {\n  return [];\n}\n",
                    "export function loadDefaults(path: string): string[] {\n"
                    '  const text = Deno.readTextFileSync(path);\n  return text.split("\\n").filter(Boolean);\n}\n',
                )
            ),
            code(
                E(
                    "src/config.ts",
                    "export async function loadStations(",
                    "/** Reads one station id per line. */\nexport async function loadStations(",
                )
            ),
            other("deno test -A src/config_test.ts"),
        ],
    ),
    Incident(
        id="b2-tf03-elixir-datetime-compare",
        shape=TEST_FIX,
        agent=GEMINI,
        project="ember",
        session=[
            U("subscription_test fails since yesterday, please fix"),
            err(
                "mix test test/ember/billing/subscription_test.exs",
                "....\n\n  1) test expired?/2 is true once the period has ended (Ember.Billing.SubscriptionTest)\n"
                "     test/ember/billing/subscription_test.exs:18\n     Expected truthy, got false\n"
                "     code: assert Subscription.expired?(sub, ~U[2026-03-01 00:00:00Z])\n     stacktrace:\n"
                "       test/ember/billing/subscription_test.exs:21: (test)\n\n.\n"
                "Finished in 0.1 seconds (0.1s async, 0.00s sync)\n6 tests, 1 failure",
                code=2,
            ),
            read(
                "lib/ember/billing/subscription.ex",
                "defmodule Ember.Billing.Subscription do\n  defstruct [:id, :plan, :ends_at]\n\n"
                "  def expired?(%__MODULE__{ends_at: ends_at}, now \\\\ DateTime.utc_now()) do\n"
                + _EX_BAD
                + "  end\nend\n",
            ),
            A(
                "`>` on two DateTime structs compares them structurally, not chronologically, so it gives the wrong "
                "answer across month boundaries. DateTime.compare/2 is the right tool."
            ),
            edit("lib/ember/billing/subscription.ex", _EX_BAD, _EX_GOOD),
            ok(
                "mix test test/ember/billing/subscription_test.exs",
                "......\nFinished in 0.1 seconds (0.1s async, 0.00s sync)\n6 tests, 0 failures",
            ),
        ],
        mistake="now > ends_at",
        lesson=(
            "Never compare DateTime structs with > or < (that is a structural comparison): use "
            "`DateTime.compare(now, ends_at) == :gt`."
        ),
        warn=[
            same(E("lib/ember/billing/subscription.ex", _EX_GOOD, _EX_BAD)),
            reword(
                E(
                    "lib/ember/accounts/token.ex",
                    _EX_TOKEN_OLD,
                    "  def valid?(%Token{expires_at: %DateTime{} = expires_at}) do\n"
                    "    DateTime.utc_now() < expires_at\n  end\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "lib/ember/accounts/token.ex",
                    _EX_TOKEN_OLD,
                    "  def valid?(%Token{expires_at: %DateTime{} = expires_at}) do\n"
                    "    DateTime.compare(DateTime.utc_now(), expires_at) == :lt\n  end\n",
                )
            ),
            code(
                E(
                    "lib/ember/billing/invoice.ex",
                    "  def payable?(%Invoice{} = _invoice), do: false\n",
                    "  def payable?(%Invoice{amount_cents: amount_cents}), do: amount_cents > 0\n",
                )
            ),
            other("mix test test/ember/billing/subscription_test.exs"),
            other("mix format --check-formatted"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-tf04-r-vapply",
        shape=TEST_FIX,
        agent=CC,
        project="okra",
        session=[
            U("the scores tests fail on the empty-input case, fix score_all"),
            err(
                _R_TEST,
                "ℹ Testing okra\n✔ | F W  S  OK | Context\n✖ | 1        3 | scores\n"
                "────────────────────────────────────────────────────────────────────────────────\n"
                "Failure (test-scores.R:14:3): score_all() returns a numeric vector for no rows\n"
                "`score_all(list())` is not a numeric vector.\n`actual` is a list\n"
                "────────────────────────────────────────────────────────────────────────────────\n\n"
                "══ Results ═════════════════════════════════════════════════════════════════════\n"
                "[ FAIL 1 | WARN 0 | SKIP 0 | PASS 3 ]",
            ),
            A(
                "sapply returns list() for empty input. vapply with a declared result type always returns a numeric vector."
            ),
            edit("R/scores.R", _R_BAD, _R_GOOD),
            ok(
                _R_TEST,
                "ℹ Testing okra\n✔ | F W  S  OK | Context\n✔ |          4 | scores\n\n[ FAIL 0 | WARN 0 | SKIP 0 | PASS 4 ]",
            ),
        ],
        mistake="sapply(rows, function(r) r$weight * r$value)",
        lesson=(
            "sapply returns a list on empty input: in okra use vapply with the result type, "
            "`vapply(rows, function(r) r$weight * r$value, numeric(1))`."
        ),
        warn=[
            same(E("R/scores.R", _R_GOOD, _R_BAD)),
            reword(E("R/summaries.R", _R_SUM_OLD, "  totals <- sapply(groups, function(g) sum(g$amount))\n")),
        ],
        silent=[
            fix(E("R/summaries.R", _R_SUM_OLD, "  totals <- vapply(groups, function(g) sum(g$amount), numeric(1))\n")),
            code(
                E(
                    "R/scores.R",
                    "#' Score every row\n",
                    "#' Score every row\n#'\n#' @param rows A list of rows with `weight` and `value`.\n"
                    "#' @return A numeric vector, one score per row.\n",
                )
            ),
            other(_R_TEST),
            other("Rscript -e 'devtools::document()'"),
        ],
    ),
    Incident(
        id="b2-tf05-ocaml-find-opt",
        shape=TEST_FIX,
        agent=CODEX,
        project="camlroute",
        session=[
            U("one of the router tests raises, fix it"),
            err(
                "dune test",
                "Testing `router'.\nThis run has ID `Q4M2XH7C'.\n\n"
                "  [OK]          lookup          0   known path.\n"
                "  [OK]          lookup          1   path params.\n"
                "> [FAIL]        lookup          2   unknown path returns None.\n\n"
                "┌──────────────────────────────────────────────────────────────────────────────┐\n"
                "│ [FAIL]        lookup          2   unknown path returns None.                 │\n"
                "└──────────────────────────────────────────────────────────────────────────────┘\n"
                "[exception] Not_found\n"
                'Raised at Stdlib__Hashtbl.find in file "hashtbl.ml", line 541, characters 13-28\n'
                'Called from Camlroute__Router.lookup in file "lib/router.ml", line 27, characters 7-33\n\n'
                "1 failure! in 0.002s. 6 tests run.",
            ),
            A("Hashtbl.find raises Not_found for a missing key; lookup should return None there. find_opt does that."),
            edit("lib/router.ml", _ML_BAD, _ML_GOOD),
            ok(
                "dune test",
                "Testing `router'.\nThis run has ID `8TZK1P0B'.\n\n...\nTest Successful in 0.002s. 6 tests run.",
            ),
        ],
        mistake="Some (Hashtbl.find t.routes path)",
        lesson=(
            "Hashtbl.find raises Not_found on a missing key: for an optional lookup use "
            "`Hashtbl.find_opt t.routes path`, never `Some (Hashtbl.find ...)`."
        ),
        warn=[
            same(E("lib/router.ml", _ML_GOOD, _ML_BAD)),
            reword(
                E(
                    "lib/middleware.ml",
                    _ML_MW_OLD,
                    "let header_value headers name =\n  Some (Hashtbl.find headers (String.lowercase_ascii name))\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "lib/middleware.ml",
                    _ML_MW_OLD,
                    "let header_value headers name =\n  Hashtbl.find_opt headers (String.lowercase_ascii name)\n",
                )
            ),
            code(
                E(
                    "lib/router.ml",
                    "let create () = { routes = Hashtbl.create 16 }\n",
                    "let create () = { routes = Hashtbl.create 16 }\n\n"
                    "let add t path handler = Hashtbl.replace t.routes path handler\n",
                )
            ),
            other("dune test"),
            other("dune build @fmt"),
        ],
    ),
    Incident(
        id="b2-tf06-haskell-readmaybe",
        shape=TEST_FIX,
        agent=GEMINI,
        project="stackyard",
        session=[
            U("the config spec crashes on bad input, fix parsePort"),
            err(
                "stack test",
                "stackyard> test (suite: stackyard-test)\n\nConfig\n  parsePort\n    parses a valid port [✔]\n"
                "    rejects garbage [✘]\n\nFailures:\n\n  test/ConfigSpec.hs:19:5: \n"
                "  1) Config.parsePort rejects garbage\n       uncaught exception: ErrorCall\n"
                "       Prelude.read: no parse\n\n"
                '  To rerun use: --match "/Config/parsePort/rejects garbage/"\n\n'
                "Randomized with seed 1187342\n\nFinished in 0.0021 seconds\n2 examples, 1 failure\n\n"
                "stackyard> Test suite stackyard-test failed\nError: [S-7282]\n"
                "       Stack failed to execute the build plan.",
            ),
            A("`read` throws on input it can't parse. readMaybe from Text.Read returns Nothing instead."),
            edit(
                "src/Stackyard/Config.hs",
                "import Data.Char (isSpace)\n",
                "import Data.Char (isSpace)\nimport Text.Read (readMaybe)\n",
            ),
            edit("src/Stackyard/Config.hs", _HS_BAD, _HS_GOOD),
            ok(
                "stack test",
                "stackyard> test (suite: stackyard-test)\n\nConfig\n  parsePort\n    parses a valid port [✔]\n"
                "    rejects garbage [✔]\n\nFinished in 0.0018 seconds\n2 examples, 0 failures\n\n"
                "stackyard> Test suite stackyard-test passed",
            ),
        ],
        mistake="parsePort s = Just (read s)",
        lesson=(
            "`read` throws Prelude.read: no parse on bad input: parse untrusted strings with readMaybe "
            "(Text.Read), e.g. `parsePort s = readMaybe s`, never `Just (read s)`."
        ),
        warn=[
            same(E("src/Stackyard/Config.hs", _HS_GOOD, _HS_BAD)),
            reword(
                E(
                    "src/Stackyard/Http/Query.hs",
                    _HS_Q_OLD,
                    "pageParam :: Text -> Maybe Int\npageParam t = Just (read (T.unpack t))\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/Stackyard/Http/Query.hs",
                    _HS_Q_OLD,
                    "pageParam :: Text -> Maybe Int\npageParam t = readMaybe (T.unpack t)\n",
                )
            ),
            code(
                E(
                    "src/Stackyard/Http/Query.hs",
                    "renderPage :: Int -> Text\nrenderPage _ = T.empty\n",
                    "renderPage :: Int -> Text\nrenderPage n = T.pack (show n)\n",
                )
            ),
            other("stack test --ta '--match \"/Config/parsePort/\"'"),
            other("stack build --fast"),
        ],
    ),
    Incident(
        id="b2-tf07-scala-option-getorelse",
        shape=TEST_FIX,
        agent=CC,
        project="kelp",
        session=[
            U("RouterSpec fails on the default-tenant case, fix it"),
            err(
                _SC_TEST,
                "[info] RouterSpec:\n[info] - routes an event with a tenant header\n"
                "[info] - falls back to the default tenant *** FAILED ***\n"
                "[info]   java.util.NoSuchElementException: None.get\n"
                "[info]   at scala.None$.get(Option.scala:627)\n"
                "[info]   at kelp.Router.tenantOf(Router.scala:22)\n"
                "[info]   at kelp.RouterSpec.$anonfun$new$2(RouterSpec.scala:17)\n"
                "[info] Run completed in 612 milliseconds.\n[info] Tests: succeeded 1, failed 1\n"
                "[info] *** 1 TEST FAILED ***\n[error] Failed tests:\n[error] \tkelp.RouterSpec\n"
                "[error] (core / Test / testOnly) sbt.TestsFailedException: Tests unsuccessful",
            ),
            A("tenantOf calls .get on the Option from headers.get, which throws when the header is absent."),
            edit("core/src/main/scala/kelp/Router.scala", _SC_BAD, _SC_GOOD),
            ok(
                _SC_TEST,
                "[info] RouterSpec:\n[info] - routes an event with a tenant header\n"
                "[info] - falls back to the default tenant\n[info] All tests passed.\n[success] Total time: 9 s",
            ),
        ],
        mistake='record.headers.get("X-Tenant").get',
        lesson=(
            "Never call .get on an Option (None.get throws NoSuchElementException): use .getOrElse with a "
            'default, e.g. `record.headers.get("X-Tenant").getOrElse(DefaultTenant)`.'
        ),
        warn=[
            same(E("core/src/main/scala/kelp/Router.scala", _SC_GOOD, _SC_BAD)),
            reword(
                E(
                    "core/src/main/scala/kelp/Partitioner.scala",
                    _SC_P_OLD,
                    '    val region = event.attributes.get("region").get\n',
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "core/src/main/scala/kelp/Partitioner.scala",
                    _SC_P_OLD,
                    '    val region = event.attributes.get("region").getOrElse("eu")\n',
                )
            ),
            code(
                E(
                    "core/src/main/scala/kelp/Partitioner.scala",
                    "  private val partitions = 12\n",
                    '  private val partitions = config.getInt("kelp.partitioner.partitions")\n',
                )
            ),
            other(_SC_TEST),
            other("sbt scalafmtAll"),
        ],
    ),
    Incident(
        id="b2-tf08-clojure-contains-vector",
        shape=TEST_FIX,
        agent=CODEX,
        project="ledger",
        session=[
            U("admins can't close periods any more, the auth test shows it"),
            err(
                "lein test ledger.auth-test",
                "\nlein test ledger.auth-test\n\nlein test :only ledger.auth-test/admin-can-close-period\n\n"
                "FAIL in (admin-can-close-period) (auth_test.clj:12)\n"
                'expected: (can-close-period? {:roles ["admin" "viewer"]})\n'
                '  actual: (not (can-close-period? {:roles ["admin" "viewer"]}))\n\n'
                "Ran 4 tests containing 7 assertions.\n1 failures, 0 errors.\nTests failed.",
            ),
            A(
                "`contains?` on a vector checks whether an index exists, not a value. Checking membership with a set instead."
            ),
            edit("src/ledger/auth.clj", _CLJ_BAD, _CLJ_GOOD),
            ok(
                "lein test ledger.auth-test",
                "\nlein test ledger.auth-test\n\nRan 4 tests containing 7 assertions.\n0 failures, 0 errors.",
            ),
        ],
        mistake='(contains? (:roles user) "admin")',
        lesson=(
            "`contains?` on a vector tests indexes, not values: check membership with a set, "
            '`(some #{"admin"} (:roles user))`.'
        ),
        warn=[
            same(E("src/ledger/auth.clj", _CLJ_GOOD, _CLJ_BAD)),
            reword(
                E(
                    "src/ledger/periods.clj",
                    _CLJ_P_OLD,
                    "(defn frozen? [period]\n  (contains? [:closed :locked] (:status period)))\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "src/ledger/periods.clj",
                    _CLJ_P_OLD,
                    "(defn frozen? [period]\n  (contains? #{:closed :locked} (:status period)))\n",
                )
            ),
            code(
                E(
                    "src/ledger/accounts.clj",
                    "(defn has-iban? [account]\n  false)\n",
                    "(defn has-iban? [account]\n  (contains? account :iban))\n",
                )
            ),
            other("lein test ledger.auth-test"),
            other("lein cljfmt check"),
        ],
    ),
    Incident(
        id="b2-tf09-zig-mem-eql",
        shape=TEST_FIX,
        agent=GEMINI,
        project="vane",
        session=[
            U("zig build test fails to compile after the command parser change"),
            err(
                "zig build test",
                "test\n└─ run test\n   └─ zig test Debug native 1 errors\n"
                "src/cmd.zig:14:14: error: operator == not allowed for type '[]const u8'\n"
                '    if (name == "reset") return .reset;\n        ~~~~~^~~~~~~~~~\n'
                "error: the following command failed with 1 compilation errors:\n"
                "/opt/zig-0.13.0/zig test -ODebug -Mroot=/home/dev/vane/src/cmd.zig --cache-dir /home/dev/vane/.zig-cache "
                "--global-cache-dir /home/dev/.cache/zig --name test --listen=-\n"
                "Build Summary: 0/3 steps succeeded; 1 failed",
            ),
            A("Slices can't be compared with == in Zig; std.mem.eql compares their contents."),
            edit("src/cmd.zig", _ZIG_BAD, _ZIG_GOOD),
            ok("zig build test", ""),
        ],
        mistake='if (name == "reset") return .reset;',
        lesson=(
            "Zig can't compare slices with == (operator == not allowed for type '[]const u8'): compare strings "
            'with `std.mem.eql(u8, name, "reset")`.'
        ),
        warn=[
            same(E("src/cmd.zig", _ZIG_GOOD, _ZIG_BAD)),
            reword(
                E("src/config.zig", _ZIG_C_OLD, 'fn isBaud(key: []const u8) bool {\n    return key == "baud";\n}\n')
            ),
        ],
        silent=[
            fix(
                E(
                    "src/config.zig",
                    _ZIG_C_OLD,
                    'fn isBaud(key: []const u8) bool {\n    return std.mem.eql(u8, key, "baud");\n}\n',
                )
            ),
            code(
                E(
                    "src/config.zig",
                    "fn parseLine(line: []const u8) !Entry {\n",
                    "fn parseLine(line: []const u8) !Entry {\n    if (line.len == 0) return error.EmptyLine;\n",
                )
            ),
            other("zig build test"),
            other("zig fmt src/config.zig"),
        ],
    ),
    Incident(
        id="b2-tf10-vitest-tothrow-fn",
        shape=TEST_FIX,
        agent=CC,
        project="plume",
        session=[
            U("slug.test.ts is red, fix it"),
            err(
                "npx vitest run src/lib/slug.test.ts",
                " FAIL  src/lib/slug.test.ts > slugify > rejects an empty title\n"
                "Error: title must not be empty\n ❯ slugify src/lib/slug.ts:4:11\n"
                "      2| export function slugify(title: string): string {\n"
                "      3|   if (!title.trim()) {\n      4|     throw new Error('title must not be empty')\n"
                " ❯ src/lib/slug.test.ts:12:12\n\n"
                " Test Files  1 failed (1)\n      Tests  1 failed | 5 passed (6)\n   Duration  412ms",
            ),
            A(
                "The test calls slugify('') before expect sees it, so the error escapes. toThrow needs a function to call."
            ),
            edit("src/lib/slug.test.ts", _VT_BAD, _VT_GOOD),
            ok(
                "npx vitest run src/lib/slug.test.ts",
                " ✓ src/lib/slug.test.ts (6 tests) 4ms\n\n Test Files  1 passed (1)\n      Tests  6 passed (6)",
            ),
        ],
        mistake="expect(slugify('')).toThrow('title must not be empty')",
        lesson=(
            "toThrow needs a function: write `expect(() => slugify('')).toThrow(...)`; "
            "`expect(slugify('')).toThrow()` runs the call outside expect and the test dies with the error."
        ),
        warn=[
            same(E("src/lib/slug.test.ts", _VT_GOOD, _VT_BAD)),
            reword(W("src/lib/price.test.ts", _price_test(wrapped=False))),
        ],
        silent=[
            fix(W("src/lib/price.test.ts", _price_test(wrapped=True))),
            code(
                E(
                    "src/lib/slug.test.ts",
                    "describe('slugify', () => {\n",
                    "describe('slugify', () => {\n  it('lowercases and dashes words', () => {\n"
                    "    expect(slugify('Hello World')).toBe('hello-world')\n  })\n\n",
                )
            ),
            code(
                E(
                    "src/lib/posts.test.ts",
                    "describe('fetchPost', () => {\n",
                    "describe('fetchPost', () => {\n  it('rejects an unknown slug', async () => {\n"
                    "    await expect(fetchPost('nope')).rejects.toThrow('not found')\n  })\n\n",
                )
            ),
            other("npx vitest run src/lib/slug.test.ts"),
        ],
    ),
    Incident(
        id="b2-tf11-python-yaml-safe-load",
        shape=TEST_FIX,
        agent=CODEX,
        project="sable",
        session=[
            U("tests/test_settings.py fails after the PyYAML bump"),
            err(
                "pytest -q tests/test_settings.py",
                "F.                                                                       [100%]\n"
                "=================================== FAILURES ===================================\n"
                "_________________________ test_load_settings_defaults __________________________\n\n"
                "tmp_path = PosixPath('/tmp/pytest-of-dev/pytest-41/test_load_settings_defaults0')\n\n"
                "    def test_load_settings_defaults(tmp_path):\n"
                '        cfg = tmp_path / "settings.yaml"\n'
                '        cfg.write_text("db_url: sqlite:///x.db\\n")\n'
                ">       settings = load_settings(cfg)\n\ntests/test_settings.py:9: \n"
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
                "sable/settings.py:14: in load_settings\n    data = yaml.load(fh)\n"
                "E   TypeError: load() missing 1 required positional argument: 'Loader'\n"
                "=========================== short test summary info ============================\n"
                "FAILED tests/test_settings.py::test_load_settings_defaults - TypeError: load() missing 1 required "
                "positional argument: 'Loader'\n1 failed, 1 passed in 0.12s",
            ),
            A(
                "PyYAML 6 requires a Loader for yaml.load, and the full loader is unsafe for config anyway. Using safe_load."
            ),
            edit("sable/settings.py", _PY_BAD, _PY_GOOD),
            ok(
                "pytest -q tests/test_settings.py",
                "..                                                                       [100%]\n2 passed in 0.08s",
            ),
        ],
        mistake="data = yaml.load(fh)",
        lesson=(
            "PyYAML 6's yaml.load requires a Loader and the full loader is unsafe: read YAML with `yaml.safe_load(fh)`."
        ),
        warn=[
            same(E("sable/settings.py", _PY_GOOD, _PY_BAD)),
            reword(
                E(
                    "sable/reports/templates.py",
                    _PY_T_OLD,
                    "def load_template(path):\n    with open(path) as stream:\n        return yaml.load(stream)\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "sable/reports/templates.py",
                    _PY_T_OLD,
                    "def load_template(path):\n    with open(path) as stream:\n        return yaml.safe_load(stream)\n",
                )
            ),
            fix(
                E(
                    "sable/reports/templates.py",
                    _PY_T_OLD,
                    "def load_template(path):\n    with open(path) as stream:\n"
                    "        return yaml.load(stream, Loader=yaml.SafeLoader)\n",
                )
            ),
            code(
                E(
                    "sable/exports.py",
                    "def read_manifest(path):\n    return {}\n",
                    "def read_manifest(path):\n    with open(path) as fh:\n        return json.load(fh)\n",
                )
            ),
            other("pytest -q tests/test_settings.py"),
        ],
    ),
    Incident(
        id="b2-tf12-playwright-web-first",
        shape=TEST_FIX,
        agent=GEMINI,
        project="plume",
        session=[
            U("the publish e2e test is flaky on CI, make it reliable"),
            err(
                "npx playwright test tests/e2e/publish.spec.ts",
                "Running 3 tests using 3 workers\n\n"
                "  1) [chromium] › tests/e2e/publish.spec.ts:14:5 › publish › shows a toast after publishing ───\n\n"
                "    Error: expect(received).toBe(expected) // Object.is equality\n\n"
                "    Expected: true\n    Received: false\n\n"
                "      18 |     await page.getByRole('button', { name: 'Publish' }).click();\n"
                "    > 20 |     expect(await page.getByText('Post published').isVisible()).toBe(true);\n"
                "         |                                                                ^\n\n"
                "  1 failed\n    [chromium] › tests/e2e/publish.spec.ts:14:5 › publish › shows a toast after publishing\n"
                "  2 passed (6.2s)",
            ),
            A(
                "isVisible() checks once, immediately after the click, before the toast renders. The web-first "
                "assertion toBeVisible() retries until the timeout."
            ),
            edit("tests/e2e/publish.spec.ts", _PW_BAD, _PW_GOOD),
            ok("npx playwright test tests/e2e/publish.spec.ts", "Running 3 tests using 3 workers\n  3 passed (5.8s)"),
            ok(
                "npx playwright test tests/e2e/publish.spec.ts --repeat-each=10",
                "Running 30 tests using 4 workers\n  30 passed (41.3s)",
            ),
        ],
        mistake="expect(await page.getByText('Post published').isVisible()).toBe(true);",
        lesson=(
            "isVisible() checks once and does not wait: assert visibility with the retrying web-first assertion "
            "`await expect(locator).toBeVisible()`."
        ),
        warn=[
            same(E("tests/e2e/publish.spec.ts", _PW_GOOD, _PW_BAD)),
            reword(
                E(
                    "tests/e2e/settings.spec.ts",
                    _PW_S_OLD,
                    _PW_S_OLD + "    expect(await page.locator('.alert-success').isVisible()).toBeTruthy();\n",
                )
            ),
        ],
        silent=[
            fix(
                E(
                    "tests/e2e/settings.spec.ts",
                    _PW_S_OLD,
                    _PW_S_OLD + "    await expect(page.locator('.alert-success')).toBeVisible();\n",
                )
            ),
            code(
                E(
                    "tests/e2e/settings.spec.ts",
                    "    await page.getByLabel('Display name').fill('Ana');\n",
                    "    await page.getByLabel('Display name').fill('Ana');\n"
                    "    await expect(page.getByLabel('Display name')).toHaveValue('Ana');\n",
                )
            ),
            other("npx playwright test tests/e2e/publish.spec.ts --project=chromium"),
            other("npx playwright show-report"),
        ],
    ),
]
