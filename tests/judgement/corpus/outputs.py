"""Longer tool outputs, written the way the real programs print them.

Deterministic: no randomness, no clock."""

from __future__ import annotations

# Claude Code's Bash tool result when a command hits the 2-minute timeout.
CC_TIMEOUT = "Command timed out after 2m 0.0s"

_CRATES = [
    "proc-macro2 v1.0.81", "unicode-ident v1.0.12", "libc v0.2.154", "cfg-if v1.0.0", "autocfg v1.3.0",
    "once_cell v1.19.0", "pin-project-lite v0.2.14", "itoa v1.0.11", "bytes v1.6.0", "memchr v2.7.2",
    "log v0.4.21", "futures-core v0.3.30", "smallvec v1.13.2", "quote v1.0.36", "syn v2.0.60",
    "serde v1.0.200", "serde_derive v1.0.200", "tokio-macros v2.2.0", "mio v0.8.11", "socket2 v0.5.7",
    "tokio v1.37.0", "tracing-core v0.1.32", "tracing v0.1.40", "http v1.1.0", "httparse v1.8.0",
    "cc v1.0.96", "pkg-config v0.3.30", "vcpkg v0.2.15", "foreign-types-shared v0.1.1", "openssl-probe v0.1.5",
    "bitflags v2.5.0", "percent-encoding v2.3.1", "form_urlencoded v1.2.1", "futures-task v0.3.30",
    "futures-util v0.3.30", "slab v0.4.9", "h2 v0.4.4", "hyper v1.3.1", "tower-service v0.3.2",
    "base64 v0.22.1", "serde_json v1.0.116", "ryu v1.0.17", "encoding_rs v0.8.34", "mime v0.3.17",
]  # fmt: skip


def cargo_compiling(last: list[str], count: int = 0) -> str:
    """``   Compiling <crate>`` lines: the first ``count`` common crates, then ``last``."""
    lines = [f"   Compiling {c}" for c in _CRATES[:count]]
    lines += [f"   Compiling {c}" for c in last]
    return "\n".join(lines)


def openssl_sys_failure() -> str:
    """``cargo build`` of a reqwest/native-tls crate on a machine without OpenSSL headers (long)."""
    head = cargo_compiling(["openssl-sys v0.9.102", "openssl v0.10.64", "native-tls v0.2.11"], count=len(_CRATES))
    body = """error: failed to run custom build command for `openssl-sys v0.9.102`

Caused by:
  process didn't exit successfully: `/home/dev/relay/target/debug/build/openssl-sys-5d8e2f0b3c9a1e77/build-script-main` (exit status: 101)
  --- stdout
  cargo:rerun-if-env-changed=X86_64_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR
  X86_64_UNKNOWN_LINUX_GNU_OPENSSL_LIB_DIR unset
  cargo:rerun-if-env-changed=OPENSSL_LIB_DIR
  OPENSSL_LIB_DIR unset
  cargo:rerun-if-env-changed=X86_64_UNKNOWN_LINUX_GNU_OPENSSL_INCLUDE_DIR
  X86_64_UNKNOWN_LINUX_GNU_OPENSSL_INCLUDE_DIR unset
  cargo:rerun-if-env-changed=OPENSSL_INCLUDE_DIR
  OPENSSL_INCLUDE_DIR unset
  cargo:rerun-if-env-changed=X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR
  X86_64_UNKNOWN_LINUX_GNU_OPENSSL_DIR unset
  cargo:rerun-if-env-changed=OPENSSL_DIR
  OPENSSL_DIR unset
  cargo:rerun-if-env-changed=OPENSSL_NO_PKG_CONFIG
  cargo:rerun-if-env-changed=PKG_CONFIG_x86_64-unknown-linux-gnu
  cargo:rerun-if-env-changed=PKG_CONFIG_x86_64_unknown_linux_gnu
  cargo:rerun-if-env-changed=HOST_PKG_CONFIG
  cargo:rerun-if-env-changed=PKG_CONFIG
  cargo:rerun-if-env-changed=OPENSSL_STATIC
  cargo:rerun-if-env-changed=OPENSSL_DYNAMIC
  cargo:rerun-if-env-changed=PKG_CONFIG_ALL_STATIC
  cargo:rerun-if-env-changed=PKG_CONFIG_ALL_DYNAMIC
  cargo:rerun-if-env-changed=PKG_CONFIG_PATH_x86_64-unknown-linux-gnu
  cargo:rerun-if-env-changed=PKG_CONFIG_PATH
  cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR
  cargo:rerun-if-env-changed=PKG_CONFIG_SYSROOT_DIR
  run pkg_config fail: Could not run `PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 pkg-config --libs --cflags openssl`
  The pkg-config command could not be found.

  Most likely, you need to install a pkg-config package for your OS.
  Try `apt install pkg-config`, or `yum install pkg-config`,
  or `pkg install pkg-config`, or `apk add pkgconfig` depending on your distribution.

  If you've already installed it, ensure the pkg-config command is one of the
  directories in the PATH environment variable.

  If you did not expect this build to link to a pre-installed system library,
  then check documentation of the openssl-sys crate for an option to
  build the library from source, or disable features or dependencies
  that require pkg-config.

  --- stderr
  thread 'main' panicked at /home/dev/.cargo/registry/src/index.crates.io-6f17d22bba15001f/openssl-sys-0.9.102/build/find_normal.rs:190:5:


  Could not find directory of OpenSSL installation, and this `-sys` crate cannot
  proceed without this knowledge. If OpenSSL is installed and this crate had
  trouble finding it,  you can set the `OPENSSL_DIR` environment variable for the
  compilation process.

  Make sure you also have the development packages of openssl installed.
  For example, `libssl-dev` on Ubuntu or `openssl-devel` on Fedora.

  If you're in a situation where you think the directory *should* be found
  automatically, please open a bug at https://github.com/sfackler/rust-openssl
  and include information about your system as well as this message.

  $HOST = x86_64-unknown-linux-gnu
  $TARGET = x86_64-unknown-linux-gnu
  openssl-sys = 0.9.102


  note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
warning: build failed, waiting for other jobs to finish..."""
    return head + "\n" + body


def pnpm_install_ok(packages: int) -> str:
    return (
        "Scope: all 5 workspace projects\nLockfile is up to date, resolution step is skipped\n"
        f"Packages: +{packages}\n" + "+" * 72 + "\n"
        f"Progress: resolved {packages}, reused {packages}, downloaded 0, added {packages}, done\n\n"
        "dependencies:\n+ next 14.2.3\n+ react 18.3.1\n+ react-dom 18.3.1\n\n"
        "devDependencies:\n+ turbo 1.13.3\n+ typescript 5.4.5\n\nDone in 9.8s"
    )


def docker_build_ok(tag: str) -> str:
    steps = [
        '#0 building with "default" instance using docker driver',
        "#1 [internal] load build definition from Dockerfile",
        "#1 transferring dockerfile: 812B done",
        "#2 [internal] load metadata for docker.io/library/golang:1.22-alpine",
        "#3 [internal] load metadata for gcr.io/distroless/static-debian12:nonroot",
        "#4 [build 1/6] FROM docker.io/library/golang:1.22-alpine@sha256:7e7b1c1b1d7b4e5f",
        "#5 [build 2/6] WORKDIR /src",
        "#6 [build 3/6] COPY go.mod go.sum ./",
        "#7 [build 4/6] RUN go mod download",
        "#8 [build 5/6] COPY . .",
        "#9 [build 6/6] RUN CGO_ENABLED=0 go build -trimpath -o /out/billing ./cmd/billing",
        "#9 DONE 38.2s",
        "#10 [stage-1 1/2] COPY --from=build /out/billing /billing",
        "#11 exporting to image",
        "#11 exporting layers 0.3s done",
        "#11 writing image sha256:9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d done",
        f"#12 naming to docker.io/library/{tag} done",
    ]
    return "\n".join(steps)


def go_get_u_output() -> str:
    mods = [
        ("github.com/jackc/pgx/v5", "v5.5.1", "v5.5.4"), ("github.com/stripe/stripe-go/v76", "v76.8.0", "v76.25.0"),
        ("golang.org/x/crypto", "v0.17.0", "v0.23.0"), ("golang.org/x/net", "v0.19.0", "v0.25.0"),
        ("golang.org/x/sync", "v0.5.0", "v0.7.0"), ("golang.org/x/text", "v0.14.0", "v0.15.0"),
        ("github.com/prometheus/client_golang", "v1.17.0", "v1.19.1"), ("google.golang.org/grpc", "v1.60.1", "v1.64.0"),
        ("google.golang.org/protobuf", "v1.31.0", "v1.34.1"), ("github.com/spf13/cobra", "v1.7.0", "v1.8.0"),
    ]  # fmt: skip
    lines = [f"go: downloading {m} {new}" for m, _, new in mods]
    lines += [f"go: upgraded {m} {old} => {new}" for m, old, new in mods]
    return "\n".join(lines)


def pnpm_build_oom() -> str:
    return (
        "\n> shopfront@ build /home/dev/shopfront\n> turbo run build\n\n• Packages in scope: @shopfront/ui, web\n"
        "• Running build in 2 packages\n• Remote caching disabled\n@shopfront/ui:build: cache hit, replaying logs 3f9a1c2b\n"
        "web:build: cache miss, executing 8d2e4f6a\nweb:build: \nweb:build: > web@0.1.0 build /home/dev/shopfront/apps/web\n"
        "web:build: > next build\nweb:build: \nweb:build:   ▲ Next.js 14.2.3\nweb:build: \n"
        "web:build:    Creating an optimized production build ...\nweb:build: \n"
        "web:build: <--- Last few GCs --->\nweb:build: \n"
        "web:build: [48211:0x5d4e0a0]    81234 ms: Mark-Compact 2037.6 (2083.2) -> 2034.9 (2084.5) MB, 1602.44 / 0.00 ms  "
        "(average mu = 0.112, current mu = 0.031) allocation failure; scavenge might not succeed\n"
        "web:build: \nweb:build: <--- JS stacktrace --->\nweb:build: \n"
        "web:build: FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n"
        "web:build:  1: 0xb8cf83 node::Abort() [/usr/bin/node]\n"
        "web:build:  2: 0xa98c4e void node::FPrintF<>(_IO_FILE*, char const*) [/usr/bin/node]\n"
        "web:build:  3: 0xd4a1ee v8::Utils::ReportOOMFailure(v8::internal::Isolate*, char const*, v8::OOMDetails const&) [/usr/bin/node]\n"
        "web:build:  ELIFECYCLE  Command failed.\nweb:build: ERROR: command finished with error: command (/home/dev/shopfront/apps/web) "
        "/usr/bin/pnpm run build exited (134)\n\n Tasks:    1 successful, 2 total\nCached:    1 cached, 2 total\n"
        "  Time:    1m24.381s \nFailed:    web#build\n\n ERROR  run failed: command  exited (134)\n ELIFECYCLE  Command failed with exit code 134."
    )


def next_build_ok() -> str:
    routes = [
        ("/", "5.2 kB", "94.1 kB"), ("/_not-found", "871 B", "88.2 kB"), ("/cart", "3.9 kB", "101 kB"),
        ("/catalogue", "7.4 kB", "112 kB"), ("/orders", "4.1 kB", "99.6 kB"), ("/orders/[id]", "2.7 kB", "97.3 kB"),
        ("/api/orders", "0 B", "0 B"), ("/api/health", "0 B", "0 B"),
    ]  # fmt: skip
    lines = [
        "web:build:   ▲ Next.js 14.2.3",
        "web:build:    Creating an optimized production build ...",
        "web:build:  ✓ Compiled successfully",
        "web:build:    Linting and checking validity of types ...",
        "web:build:  ✓ Collecting page data",
        "web:build:  ✓ Generating static pages (11/11)",
        "web:build: Route (app)                              Size     First Load JS",
    ]
    lines += [f"web:build: ├ ○ {r:<36} {s:<8} {f}" for r, s, f in routes]
    lines += [
        "web:build: + First Load JS shared by all            87.3 kB",
        "",
        " Tasks:    2 successful, 2 total",
        "  Time:    2m3.117s",
    ]
    return "\n".join(lines)


def psycopg_syntax_error_traceback() -> str:
    """A long pytest failure through psycopg's internals."""
    return (
        "F\n=================================== FAILURES ===================================\n"
        "__________________________ test_find_customer_with_apostrophe __________________________\n\n"
        "db = <psycopg.Connection [IDLE] (host=localhost user=ledger database=ledger_test) at 0x7f3c1a2b4d90>\n\n"
        '    def test_find_customer_with_apostrophe(db):\n        insert_customer(db, name="Siobhan O\'Brien")\n'
        '>       rows = find_by_name(db, "Siobhan O\'Brien")\n\ntests/test_customers.py:41: \n'
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
        "app/repo/customers.py:3: in find_by_name\n"
        "    cur.execute(f\"SELECT id, name, email FROM customers WHERE name = '{name}'\")\n"
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n\n"
        "self = <psycopg.Cursor [closed] [INERROR] (host=localhost user=ledger database=ledger_test) at 0x7f3c1a2a8e50>\n"
        "query = \"SELECT id, name, email FROM customers WHERE name = 'Siobhan O'Brien'\", params = None\n\n"
        "    def execute(\n        self,\n        query: Query,\n        params: Params | None = None,\n        *,\n"
        "        prepare: bool | None = None,\n        binary: bool | None = None,\n    ) -> Self:\n"
        '        """\n        Execute a query or command to the database.\n        """\n        try:\n'
        "            with self._conn.lock:\n                self._conn.wait(\n"
        "                    self._execute_gen(query, params, prepare=prepare, binary=binary)\n                )\n"
        "        except e._NO_TRACEBACK as ex:\n>           raise ex.with_traceback(None)\n"
        'E           psycopg.errors.SyntaxError: syntax error at or near "Brien"\n'
        "E           LINE 1: ...ECT id, name, email FROM customers WHERE name = 'Siobhan O'Brien'\n"
        "E                                                                             ^\n\n"
        ".venv/lib/python3.12/site-packages/psycopg/cursor.py:732: SyntaxError\n"
        "=========================== short test summary info ============================\n"
        'FAILED tests/test_customers.py::test_find_customer_with_apostrophe - psycopg.errors.SyntaxError: syntax error at or near "Brien"\n'
        "!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!\n1 failed, 3 passed in 0.92s"
    )


def ingest_logs() -> str:
    """200 lines of an ingest pod's log (long output), deterministic."""
    lines = []
    for i in range(200):
        ts = f"2026-03-04T10:{i // 60:02d}:{i % 60:02d}.{(i * 37) % 1000:03d}Z"
        if i % 25 == 24:
            lines.append(
                f'time={ts} level=error msg="clickhouse insert failed" shard={i % 4} batch=5000 '
                'err="code: 241, message: Memory limit (for query) exceeded: would use 9.31 GiB"'
            )
        elif i % 10 == 0:
            lines.append(f'time={ts} level=info msg="flushed batch" shard={i % 4} rows=5000 took_ms={180 + i % 40}')
        else:
            lines.append(f'time={ts} level=debug msg="consumed" subject=events.raw seq={91_000 + i * 7}')
    return "\n".join(lines)


def rsync_ok() -> str:
    files = ["./", "index.html", "404.html", "cart.html", "catalogue.html", "orders.html"]
    files += [
        f"_next/static/chunks/{name}.js"
        for name in (
            "main-app-9c1d2e3f",
            "webpack-4a5b6c7d",
            "framework-8e9f0a1b",
            "app/layout-2b3c4d5e",
            "app/page-6f7a8b9c",
            "app/cart/page-0d1e2f3a",
        )
    ]
    files += [f"_next/static/media/{n}.woff2" for n in ("inter-latin-400", "inter-latin-600")]
    return (
        "sending incremental file list\n"
        + "\n".join(files)
        + "\n\nsent 4,182,331 bytes  received 1,204 bytes  1,673,414.00 bytes/sec\ntotal size is 11,930,112  speedup is 2.85"
    )
