"""Blind split 2, shape error_fix: a call fails with a real error, the agent reads the
error and the next call (another flag, value, path, subcommand or a step before)
works. Four incidents per agent."""

from __future__ import annotations

from ..spec import CC, CODEX, ERROR_FIX, GEMINI, A, Incident, U, err, fix, help_, ok, other, read, reword, same

_NIX_ERR = """error:
       … while evaluating the attribute 'packages.x86_64-linux.devshell-tools'
         at /nix/store/3q8v0c1xkz7m2l9w5d4hbyf6ra0jgs1p-source/flake.nix:41:9:
           40|       packages.${system} = {
           41|         devshell-tools = pkgs.callPackage ./pkgs/devshell-tools { };
             |         ^
           42|         server = pkgs.callPackage ./pkgs/server { };

       … while calling the 'import' builtin

       error: attribute 'currentSystem' missing
       at /nix/store/3q8v0c1xkz7m2l9w5d4hbyf6ra0jgs1p-source/pkgs/devshell-tools/default.nix:3:20:
            2| let
            3|   system = builtins.currentSystem;
             |                    ^
            4| in"""

_R_CHECK_ERR = """* using log directory '/home/dev/okra/okra.Rcheck'
* using R version 4.4.2 (2024-10-31)
* using platform: x86_64-pc-linux-gnu
* checking for file 'okra/DESCRIPTION' ... OK
* this is package 'okra' version '0.3.0'
* checking package namespace information ... OK
* checking package dependencies ... OK
* checking if this is a source package ... OK
* checking whether package 'okra' can be installed ... OK
* checking installed package size ... OK
* checking R code for possible problems ... OK
* checking Rd files ... OK
* checking Rd cross-references ... OK
* checking for missing documentation entries ... OK
* checking examples ... OK
* checking tests ...
  Running 'testthat.R'
 OK
* checking PDF version of manual ... WARNING
LaTeX errors when creating PDF version.
This typically indicates Rd problems.
* checking PDF version of manual without index ... ERROR
Re-running with no redirection of stdout/stderr.
Hmm ... looks like a package
Error in texi2dvi(file = file, pdf = TRUE, clean = clean, quiet = quiet,  :
  pdflatex is not available
Error in texi2dvi(file = file, pdf = TRUE, clean = clean, quiet = quiet,  :
  pdflatex is not available
Error in running tools::texi2pdf()
* DONE

Status: 1 ERROR, 1 WARNING
See
  '/home/dev/okra/okra.Rcheck/00check.log'
for details."""

_MONGO = 'mongosh "mongodb://db.relay.internal:27017/relay" --quiet --eval "db.deliveries.countDocuments({status: \'failed\'})"'

INCIDENTS = [
    Incident(
        id="b2-ef01-nix-devshell-impure",
        shape=ERROR_FIX,
        agent=CC,
        project="hearth",
        session=[
            U("build the devshell-tools package from the flake, I want to check its closure size"),
            err("nix build .#devshell-tools", _NIX_ERR),
            A(
                "pkgs/devshell-tools reads `builtins.currentSystem`, which pure flake evaluation does not provide. "
                "Building it with --impure."
            ),
            ok("nix build .#devshell-tools --impure"),
            ok(
                "nix path-info -Sh ./result",
                "/nix/store/m2k9d0q7ylw3c8z1v5fxb4nh6pa2rj1s-devshell-tools-0.4.0\t 412.7M",
            ),
            A("Built. The closure of devshell-tools is 412.7 MiB."),
        ],
        mistake="nix build .#devshell-tools",
        lesson=(
            "The devshell-tools output reads builtins.currentSystem, so pure evaluation fails with "
            "\"attribute 'currentSystem' missing\": build it with `nix build .#devshell-tools --impure`."
        ),
        warn=[
            same("nix build .#devshell-tools"),
            reword("nix build --print-build-logs .#devshell-tools"),
            reword("nix build '.#devshell-tools' -o result-tools"),
        ],
        silent=[
            fix("nix build .#devshell-tools --impure"),
            fix("nix build --impure -L .#devshell-tools -o result-tools"),
            other("nix flake metadata"),
            other("nix path-info -Sh ./result"),
            help_("nix build --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-ef02-deno-allow-net",
        shape=ERROR_FIX,
        agent=CODEX,
        project="tidepool",
        session=[
            U("run the sync script once against the real API and tell me if the tide tables come through"),
            err(
                "deno run src/sync.ts",
                'error: Uncaught (in promise) NotCapable: Requires net access to "api.tidepool.dev:443", '
                "run again with the --allow-net flag\n"
                "  const res = await fetch(`${BASE}/v2/tables?station=${id}`);\n"
                "                    ^\n"
                "    at mainFetch (ext:deno_fetch/26_fetch.js:170:5)\n"
                "    at fetch (ext:deno_fetch/26_fetch.js:395:7)\n"
                "    at fetchTables (file:///home/dev/tidepool/src/sync.ts:18:23)",
            ),
            A("Deno denies network access by default. Granting it for the API host only."),
            ok("deno run --allow-net=api.tidepool.dev src/sync.ts", "synced 14 stations, 2016 rows (2026-03-02)"),
            A("The sync works: 14 stations, 2016 rows."),
        ],
        mistake="deno run src/sync.ts",
        lesson=(
            "src/sync.ts fetches from api.tidepool.dev and Deno denies network access by default: run it as "
            "`deno run --allow-net=api.tidepool.dev src/sync.ts`."
        ),
        warn=[
            same("deno run src/sync.ts"),
            reword("deno run src/sync.ts --station 9414290"),
            reword("deno run --quiet ./src/sync.ts"),
        ],
        silent=[
            fix("deno run --allow-net=api.tidepool.dev src/sync.ts"),
            fix("deno run --allow-net=api.tidepool.dev --allow-read=./data src/sync.ts --station 9414290"),
            other("deno check src/sync.ts"),
            other("deno lint src/"),
            help_("deno run --help"),
        ],
    ),
    Incident(
        id="b2-ef03-fly-cd-staging",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="ember",
        session=[
            U("deploy the current main to staging"),
            err(
                "fly deploy",
                "Error: app config not found: open /home/dev/ember/fly.toml: no such file or directory",
            ),
            ok("ls deploy", "production\nstaging"),
            read(
                "deploy/staging/fly.toml",
                'app = "ember-staging"\nprimary_region = "ams"\n\n[build]\n  dockerfile = "../../Dockerfile"\n\n'
                "[http_service]\n  internal_port = 4000\n  force_https = true\n",
            ),
            A(
                "There is no fly.toml at the root; each environment has its own directory. Deploying from deploy/staging."
            ),
            ok(
                "cd deploy/staging && fly deploy",
                "==> Verifying app config\nValidating fly.toml\n✓ Configuration is valid\n--> Verified app config\n"
                "==> Building image\n...\n--> Pushing image done\nimage: registry.fly.io/ember-staging:deployment-01JN8W3Q\n"
                "Watch your deployment at https://fly.io/apps/ember-staging/monitoring\n"
                "Visit your newly deployed app at https://ember-staging.fly.dev/",
            ),
        ],
        mistake="fly deploy",
        lesson=(
            "ember has no fly.toml at the repository root; the staging config is deploy/staging/fly.toml: "
            "deploy with `cd deploy/staging && fly deploy`."
        ),
        warn=[
            same("fly deploy"),
            reword("flyctl deploy --remote-only"),
            reword("fly deploy --strategy rolling"),
        ],
        silent=[
            fix("cd deploy/staging && fly deploy"),
            fix("cd deploy/staging && fly deploy --remote-only --strategy rolling"),
            fix("fly deploy --config deploy/staging/fly.toml"),
            other("fly status -a ember-staging"),
            other("fly logs -a ember-staging --no-tail"),
            help_("fly deploy --help"),
        ],
        variants=("diagnostic", "intervening"),
    ),
    Incident(
        id="b2-ef04-r-check-no-manual",
        shape=ERROR_FIX,
        agent=CC,
        project="okra",
        session=[
            U("run R CMD check on the built tarball before I submit to CRAN"),
            ok(
                "R CMD build .",
                "* checking for file './DESCRIPTION' ... OK\n* preparing 'okra':\n"
                "* checking DESCRIPTION meta-information ... OK\n* installing the package to build vignettes\n"
                "* building 'okra_0.3.0.tar.gz'",
            ),
            err("R CMD check okra_0.3.0.tar.gz", _R_CHECK_ERR),
            A(
                "Everything passes except the PDF manual: there is no LaTeX on this machine. "
                "Re-running without the manual; CRAN builds it on their side."
            ),
            ok(
                "R CMD check --no-manual okra_0.3.0.tar.gz",
                "* using log directory '/home/dev/okra/okra.Rcheck'\n...\n* checking tests ...\n  Running 'testthat.R'\n"
                " OK\n* DONE\n\nStatus: OK",
            ),
        ],
        mistake="R CMD check okra_0.3.0.tar.gz",
        lesson=(
            "This machine has no LaTeX, so R CMD check fails on the PDF manual (pdflatex is not available): "
            "run `R CMD check --no-manual okra_0.3.0.tar.gz`."
        ),
        warn=[
            same("R CMD check okra_0.3.0.tar.gz"),
            reword("R CMD check --as-cran okra_0.3.1.tar.gz"),
        ],
        silent=[
            fix("R CMD check --no-manual okra_0.3.0.tar.gz"),
            fix("R CMD check --as-cran --no-manual okra_0.3.1.tar.gz"),
            other("R CMD build ."),
            other("R CMD INSTALL okra_0.3.0.tar.gz"),
            help_("R CMD check --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b2-ef05-julia-project",
        shape=ERROR_FIX,
        agent=CODEX,
        project="okra",
        session=[
            U("run the Julia benchmark package's tests too"),
            err(
                "julia -e 'using Pkg; Pkg.test(\"OkraBench\")'",
                "ERROR: The following package names could not be resolved:\n"
                " * OkraBench (not found in project or manifest)\n"
                "Stacktrace:\n"
                "  [1] pkgerror(msg::String)\n"
                "    @ Pkg.Types ~/.julia/juliaup/julia-1.11.3+0.x64.linux.gnu/share/julia/stdlib/v1.11/Pkg/src/Types.jl:68\n"
                "  [2] ensure_resolved(ctx::Pkg.Types.Context, manifest::Pkg.Types.Manifest, pkgs::Vector{Pkg.Types.PackageSpec})\n"
                "    @ Pkg.Types ~/.julia/juliaup/julia-1.11.3+0.x64.linux.gnu/share/julia/stdlib/v1.11/Pkg/src/Types.jl:1049",
            ),
            ok("ls julia", "Manifest.toml\nProject.toml\nsrc\ntest"),
            A("That ran in the default environment. OkraBench is the project in julia/, so activating it."),
            ok(
                "julia --project=julia -e 'using Pkg; Pkg.test(\"OkraBench\")'",
                "     Testing OkraBench\n      Status `/tmp/jl_4Qm1Xc/Project.toml`\n...\n"
                "Test Summary: | Pass  Total  Time\nOkraBench     |   48     48  6.1s\n     Testing OkraBench tests passed ",
            ),
        ],
        mistake="julia -e 'using Pkg; Pkg.test(\"OkraBench\")'",
        lesson=(
            "OkraBench is the Julia project in julia/, not in the default environment: run its tests with "
            "`julia --project=julia -e 'using Pkg; Pkg.test(\"OkraBench\")'`."
        ),
        warn=[
            same("julia -e 'using Pkg; Pkg.test(\"OkraBench\")'"),
            reword('julia -e "import Pkg; Pkg.test(\\"OkraBench\\")"'),
            reword("julia --threads=4 -e 'using Pkg; Pkg.test(\"OkraBench\")'"),
        ],
        silent=[
            fix("julia --project=julia -e 'using Pkg; Pkg.test(\"OkraBench\")'"),
            fix("julia --project=julia --threads=4 -e 'using Pkg; Pkg.test(\"OkraBench\"; coverage=true)'"),
            fix("cd julia && julia --project=. -e 'using Pkg; Pkg.test(\"OkraBench\")'"),
            other("julia --version"),
            other("julia -e 'println(VERSION)'"),
            help_("julia --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-ef06-ocaml-dune-exec-path",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="camlroute",
        session=[
            U("start the router locally on port 8080"),
            err("dune exec router -- --port 8080", 'Error: Program "router" not found!'),
            read("bin/dune", "(executable\n (name main)\n (libraries camlroute cmdliner lwt.unix))\n"),
            A("The executable has no public_name, so dune only knows it by path. Running bin/main.exe."),
            ok("dune exec ./bin/main.exe -- --port 8080", "camlroute: listening on 0.0.0.0:8080 (14 routes)"),
        ],
        mistake="dune exec router -- --port 8080",
        lesson=(
            "The router executable has no public name: run it as `dune exec ./bin/main.exe -- --port 8080`; "
            '`dune exec router` fails with Program "router" not found.'
        ),
        warn=[
            same("dune exec router -- --port 8080"),
            reword("dune exec router -- --port 9090 --log-level debug"),
            reword("dune exec --profile release router -- --port 8080"),
        ],
        silent=[
            fix("dune exec ./bin/main.exe -- --port 8080"),
            fix("dune exec --profile release ./bin/main.exe -- --port 9090 --log-level debug"),
            other("dune build @fmt --auto-promote"),
            other("dune test"),
            help_("dune exec --help"),
        ],
    ),
    Incident(
        id="b2-ef07-haskell-cabal-run",
        shape=ERROR_FIX,
        agent=CC,
        project="stackyard",
        session=[
            U("apply the new migrations to the dev database, with cabal like CI does"),
            err(
                "cabal exec stackyard-migrate -- up",
                "cabal: stackyard-migrate: createProcess: posix_spawnp: does not exist (No such file or directory)",
            ),
            A(
                "`cabal exec` only sets up the build environment; it neither builds nor puts the project's own "
                "executables on the PATH. `cabal run` builds the migrator and runs it."
            ),
            ok(
                "cabal run stackyard-migrate -- up",
                "Resolving dependencies...\nBuild profile: -w ghc-9.8.4 -O1\n"
                "In order, the following will be built (use -v for more details):\n"
                " - stackyard-0.2.0 (exe:stackyard-migrate) (first run)\n"
                "Preprocessing executable 'stackyard-migrate' for stackyard-0.2.0...\n"
                "Building executable 'stackyard-migrate' for stackyard-0.2.0...\n[1 of 2] Compiling Main\n"
                "applied 3 migrations: 0007_tags, 0008_slugs, 0009_audit",
            ),
        ],
        mistake="cabal exec stackyard-migrate -- up",
        lesson=(
            "cabal exec neither builds nor finds the project's executables: run migrations with "
            "`cabal run stackyard-migrate -- up`, which builds the migrator first."
        ),
        warn=[
            same("cabal exec stackyard-migrate -- up"),
            reword("cabal exec -- stackyard-migrate up --dry-run"),
        ],
        silent=[
            fix("cabal run stackyard-migrate -- up"),
            fix("cabal run -v0 stackyard-migrate -- up --dry-run"),
            other("cabal exec -- ghc-pkg list"),
            other("cabal build exe:stackyard-migrate"),
            help_("cabal run --help"),
        ],
    ),
    Incident(
        id="b2-ef08-scala-sbt-integration",
        shape=ERROR_FIX,
        agent=CODEX,
        project="kelp",
        session=[
            U("run the integration tests against the local broker"),
            err(
                "sbt it:test",
                "[info] welcome to sbt 1.10.7 (Eclipse Adoptium Java 21.0.5)\n"
                "[info] loading settings for project kelp-build from plugins.sbt ...\n"
                "[info] loading project definition from /home/dev/kelp/project\n"
                "[info] loading settings for project root from build.sbt ...\n"
                "[info] set current project to kelp (in build file:/home/dev/kelp/)\n"
                "[error] Not a valid configuration: it (similar: compile, test, runtime)\n"
                "[error] it:test\n[error]   ^",
            ),
            read(
                "build.sbt",
                'lazy val core = (project in file("core"))\n  .settings(name := "kelp-core")\n\n'
                'lazy val integration = (project in file("integration"))\n'
                '  .dependsOn(core % "compile->compile;test->test")\n  .settings(publish / skip := true)\n',
            ),
            A("No IntegrationTest configuration here: the integration tests are their own subproject."),
            ok(
                "sbt integration/test",
                "[info] ConsumerSpec:\n[info] - consumes an order event\n[info] - retries on a transient error\n"
                "[info] Run completed in 41 seconds, 212 milliseconds.\n[info] Tests: succeeded 23, failed 0, canceled 0\n"
                "[info] All tests passed.\n[success] Total time: 48 s",
            ),
        ],
        mistake="sbt it:test",
        lesson=(
            "kelp's integration tests are the `integration` subproject, not an `it` configuration: run "
            "`sbt integration/test` (`sbt it:test` fails with Not a valid configuration: it)."
        ),
        warn=[
            same("sbt it:test"),
            reword('sbt "it:testOnly kelp.ConsumerSpec"'),
            reword("sbt IntegrationTest/test"),
        ],
        silent=[
            fix("sbt integration/test"),
            fix('sbt "integration/testOnly kelp.ConsumerSpec"'),
            other("sbt test"),
            other("sbt compile"),
            help_("sbt --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-ef09-zig-optimize",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="vane",
        session=[
            U("build a size-optimised release of the tooling binary"),
            err(
                "zig build -Drelease-small=true",
                "error: invalid option: -Drelease-small\nerror: access the help menu with 'zig build -h'",
            ),
            A("Zig 0.11 replaced the -Drelease-* options with -Doptimize."),
            ok("zig build -Doptimize=ReleaseSmall"),
            ok("ls -l zig-out/bin", "-rwxr-xr-x 1 dev dev 18432 Mar  2 09:14 vane-tool"),
        ],
        mistake="zig build -Drelease-small=true",
        lesson=(
            "Zig 0.11+ has no -Drelease-small / -Drelease-fast options: build a release with "
            "`zig build -Doptimize=ReleaseSmall`."
        ),
        warn=[
            same("zig build -Drelease-small=true"),
            reword("zig build -Drelease-small"),
            reword("zig build install -Dtarget=thumb-freestanding-eabihf -Drelease-small=true"),
        ],
        silent=[
            fix("zig build -Doptimize=ReleaseSmall"),
            fix("zig build install -Dtarget=thumb-freestanding-eabihf -Doptimize=ReleaseSmall"),
            other("zig build test"),
            other("zig fmt --check src/"),
            help_("zig build --help"),
        ],
    ),
    Incident(
        id="b2-ef10-restic-source-env",
        shape=ERROR_FIX,
        agent=CC,
        project="harbor",
        session=[
            U("when did the last backup of harbor-01 run?"),
            err("restic snapshots", "Fatal: Please specify repository location (-r or --repository-file)"),
            read(
                "restic.env",
                "export RESTIC_REPOSITORY=s3:https://s3.eu-central-1.wasabisys.com/harbor-backups\n"
                "export RESTIC_PASSWORD_COMMAND='pass show ops/restic-harbor'\nexport AWS_PROFILE=wasabi-harbor\n",
            ),
            A("The repository settings live in ./restic.env; loading them first."),
            ok(
                "source ./restic.env; restic snapshots",
                "repository 6f1c2a9e opened (version 2, compression level auto)\n"
                "ID        Time                 Host        Tags        Paths\n"
                "--------------------------------------------------------------------\n"
                "a81c0f3e  2026-03-01 02:00:14  harbor-01   nightly     /srv/harbor\n"
                "5d7e92b1  2026-03-02 02:00:11  harbor-01   nightly     /srv/harbor\n"
                "--------------------------------------------------------------------\n2 snapshots",
            ),
            A("The last snapshot of harbor-01 is from 2026-03-02 02:00."),
        ],
        mistake="restic snapshots",
        lesson=(
            "restic has no repository configured in the environment here: load the settings first with "
            "`source ./restic.env; restic snapshots`."
        ),
        warn=[
            same("restic snapshots"),
            reword("restic snapshots --latest 3 --host harbor-01"),
        ],
        silent=[
            fix("source ./restic.env; restic snapshots"),
            fix("source ./restic.env && restic snapshots --latest 3 --host harbor-01"),
            other("restic version"),
            other("restic -r /mnt/usb/harbor-restic snapshots"),
            help_("restic snapshots --help"),
        ],
    ),
    Incident(
        id="b2-ef11-alembic-heads",
        shape=ERROR_FIX,
        agent=CODEX,
        project="sable",
        session=[
            U("bring my local database up to date with main"),
            err(
                "alembic upgrade head",
                "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                "ERROR [alembic.util.messaging] Multiple head revisions are present for given argument 'head'; "
                "please specify a specific target revision, '<branchname>@head' to narrow to a specific head, "
                "or 'heads' for all heads\n"
                "  FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific "
                "target revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads",
            ),
            ok("alembic heads", "3c1e9d07a2b4 (reporting) (head)\n9f2a6be1c0d3 (core) (head)"),
            A("sable has two migration branches, core and reporting, each with its own head. Upgrading to all heads."),
            ok(
                "alembic upgrade heads",
                "INFO  [alembic.runtime.migration] Running upgrade 51d0a8e2f7c1 -> 9f2a6be1c0d3, add invoice due_at\n"
                "INFO  [alembic.runtime.migration] Running upgrade 7aa2c94d0b18 -> 3c1e9d07a2b4, reporting: monthly rollup view",
            ),
        ],
        mistake="alembic upgrade head",
        lesson=(
            "sable has two alembic branches (core, reporting), so `alembic upgrade head` fails with "
            "Multiple head revisions: use `alembic upgrade heads`."
        ),
        warn=[
            same("alembic upgrade head"),
            reword("alembic -c alembic.ini upgrade head"),
            reword("alembic -x tenant=acme upgrade head"),
        ],
        silent=[
            fix("alembic upgrade heads"),
            fix("alembic -c alembic.ini upgrade heads"),
            other("alembic heads"),
            other("alembic current --verbose"),
            other("alembic upgrade core@head"),
            help_("alembic upgrade --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-ef12-mongosh-vpn-up",
        shape=ERROR_FIX,
        agent=GEMINI,
        project="relay",
        session=[
            U("how many deliveries are in failed state right now?"),
            err(_MONGO, "MongoServerSelectionError: getaddrinfo ENOTFOUND db.relay.internal"),
            A("db.relay.internal only resolves inside the office network. Bringing the VPN up first."),
            ok("./bin/vpn up && " + _MONGO, "wireguard: relay-office up (10.40.0.17)\n1284"),
            A("1284 deliveries are in failed state."),
        ],
        mistake=_MONGO,
        lesson=(
            "db.relay.internal is only reachable over the office VPN: run `./bin/vpn up && mongosh "
            '"mongodb://db.relay.internal:27017/relay" ...`; without it mongosh fails with getaddrinfo ENOTFOUND.'
        ),
        warn=[
            same(_MONGO),
            reword(
                'mongosh mongodb://db.relay.internal:27017/relay --eval "db.endpoints.find({disabled: true}).count()"'
            ),
        ],
        silent=[
            fix("./bin/vpn up && " + _MONGO),
            fix(
                "./bin/vpn up && mongosh mongodb://db.relay.internal:27017/relay --quiet "
                '--eval "db.endpoints.find({disabled: true}).count()"'
            ),
            other('mongosh "mongodb://localhost:27017/relay_dev" --quiet --eval "db.deliveries.countDocuments()"'),
            other("./bin/vpn status"),
            help_("mongosh --help"),
        ],
        variants=("other_program",),
    ),
]
