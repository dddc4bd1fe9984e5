"""Sealed split, shape 3 (part b): the assistant writes a ``GOTCHA:`` / ``LEARNING:`` line about a call to avoid."""

# Compact incident data: kept as written (one probe or step per line where it fits).
# fmt: off
from __future__ import annotations

from ..spec import (
    CC,
    CODEX,
    GEMINI,
    MARKER,
    A,
    Incident,
    U,
    err,
    fix,
    help_,
    ok,
    other,
    read,
    reword,
    same,
)
from ._eco import eco

_BQ = "'SELECT COUNT(*) FROM raw_events.clicks WHERE DATE(ts) = \"2026-03-01\"'"
_INVOKE = "aws lambda invoke --function-name saltmarsh-queue-drainer --payload '{}' --cli-binary-format raw-in-base64-out out.json"

INCIDENTS = [
    eco("docker", Incident(
        "s-mk-kelpfleet-buildx-multiarch", MARKER, CC, "kelpfleet",
        session=[
            U("Build and push the api image 1.4.0 for the cluster."),
            ok("docker build -t ghcr.io/kelpfleet/api:1.4.0 . && docker push ghcr.io/kelpfleet/api:1.4.0",
               "[+] Building 48.2s (14/14) FINISHED\n => => naming to ghcr.io/kelpfleet/api:1.4.0\n"
               "The push refers to repository [ghcr.io/kelpfleet/api]\n1.4.0: digest: sha256:9b2f61c0a8e4 size: 1784"),
            ok("kubectl -n kelp logs deploy/kelp-api --tail=3", "exec /usr/local/bin/kelp-api: exec format error"),
            ok("docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/kelpfleet/api:1.4.0 --push .",
               "[+] Building 131.7s (24/24) FINISHED\n => exporting to image\n"
               " => => pushing manifest for ghcr.io/kelpfleet/api:1.4.0@sha256:0c4d8e7f1a92"),
            A("GOTCHA: the build box is arm64 and the cluster nodes are amd64, so a plain `docker build` + push gives "
              "'exec format error'; build cluster images with `docker buildx build --platform linux/amd64,linux/arm64 ... --push`."),
        ],
        mistake="docker build -t ghcr.io/kelpfleet/api:1.4.0 .",
        lesson="kelpfleet: images for the cluster must be built with docker buildx build --platform linux/amd64,linux/arm64 --push (the builder is arm64).",
        warn=[same("docker build -t ghcr.io/kelpfleet/api:1.4.0 ."),
              reword("docker build --tag ghcr.io/kelpfleet/worker:1.4.1 -f worker/Dockerfile worker")],
        silent=[fix("docker buildx build --platform linux/amd64,linux/arm64 --tag ghcr.io/kelpfleet/worker:1.4.1 -f worker/Dockerfile --push worker"),
                other("docker buildx ls"), other("docker pull ghcr.io/kelpfleet/api:1.3.2")],
        variants=("diagnostic",),
    )),
    eco("node", Incident(
        "s-mk-foxglove-vitest-watch", MARKER, CODEX, "foxglove-admin",
        session=[
            U("Run the Table component tests."),
            err("npx vitest src/components/Table.test.tsx",
                "\n DEV  v2.1.8 /home/dev/foxglove-admin\n\n ✓ src/components/Table.test.tsx (12 tests) 412ms\n\n"
                " Test Files  1 passed (1)\n      Tests  12 passed (12)\n   Start at  09:01:02\n   Duration  1.61s\n\n"
                " PASS  Waiting for file changes...\n       press h to show help, press q to quit\n\ncommand timed out after 120000 ms", 124),
            ok("npx vitest run src/components/Table.test.tsx",
               "\n RUN  v2.1.8 /home/dev/foxglove-admin\n\n ✓ src/components/Table.test.tsx (12 tests) 398ms\n\n"
               " Test Files  1 passed (1)\n      Tests  12 passed (12)"),
            A("All 12 pass.\n\nGOTCHA: `npx vitest` starts watch mode and never exits inside a tool call; use `npx vitest run ...`."),
        ],
        mistake="npx vitest src/components/Table.test.tsx",
        lesson="foxglove-admin: npx vitest without run stays in watch mode and hangs; use npx vitest run.",
        warn=[same("npx vitest src/components/Table.test.tsx"), reword("npx vitest --reporter=verbose src/hooks")],
        silent=[fix("npx vitest run --reporter=verbose src/hooks"), help_("npx vitest --help"), other("npm run lint")],
    )),
    eco("cloud-cli", Incident(
        "s-mk-nimbus-bq-location", MARKER, CC, "nimbus-etl",
        session=[
            U("How many click events landed yesterday?"),
            err(f"bq query --use_legacy_sql=false {_BQ}",
                "BigQuery error in query operation: Error processing job 'nimbus-prod:bqjob_r4a1c7e0_0000018f2b': "
                "Not found: Dataset nimbus-prod:raw_events was not found in location US", 2),
            ok(f"bq query --location=EU --use_legacy_sql=false {_BQ}",
               "+---------+\n|   f0_   |\n+---------+\n| 3418220 |\n+---------+"),
            A("3,418,220 clicks on 2026-03-01.\n\nLEARNING: nimbus datasets live in the EU multi-region; `bq query` defaults to US "
              "and fails with 'Not found: Dataset ... in location US' — always pass `--location=EU`."),
        ],
        mistake=f"bq query --use_legacy_sql=false {_BQ}",
        lesson="nimbus-etl: BigQuery datasets are in the EU; pass --location=EU to bq query.",
        warn=[same(f"bq query --use_legacy_sql=false {_BQ}"),
              reword("bq query --nouse_legacy_sql \"SELECT COUNT(*) FROM raw_events.sessions\"")],
        silent=[fix("bq query --location=EU --nouse_legacy_sql \"SELECT COUNT(*) FROM raw_events.sessions\""),
                other("bq ls nimbus-prod:raw_events"), other("bq show --schema raw_events.clicks")],
    )),
    eco("python", Incident(
        "s-mk-tidewatch-no-xdist", MARKER, GEMINI, "tidewatch",
        session=[
            U("Why did the station tests fail in my last run but pass now?"),
            read("tests/conftest.py",
                 "import pytest\n\nFIXTURE_DB = \"/tmp/tidewatch-fixtures.sqlite\"\n\n\n@pytest.fixture(scope=\"session\")\n"
                 "def station_db():\n    db = build_fixture_db(FIXTURE_DB)\n    yield db\n    db.close()\n"),
            A("Every test session writes the same /tmp/tidewatch-fixtures.sqlite; with xdist workers they overwrite each other.\n\n"
              "LEARNING: `uv run pytest -n auto` makes the tidewatch station tests flaky because all workers share one sqlite "
              "fixture file; run pytest serially (no `-n`)."),
        ],
        mistake="uv run pytest -n auto",
        lesson="tidewatch: don't run pytest with -n (xdist); the workers share one sqlite fixture file. Run serially.",
        warn=[same("uv run pytest -n auto"), reword("uv run pytest tests/ -n 4")],
        silent=[fix("uv run pytest tests/"), other("uv run pytest --collect-only -q")],
    )),
    eco("go", Incident(
        "s-mk-gridkeeper-golangci-scope", MARKER, CODEX, "gridkeeper",
        session=[
            U("Lint the repo before I open the PR."),
            ok("golangci-lint run ./internal/... ./cmd/...", "0 issues."),
            A("Clean.\n\nGOTCHA: running `golangci-lint run` from the root also lints the generated protobuf code under gen/ and "
              "drowns the output in ~400 issues; lint `./internal/... ./cmd/...` only."),
        ],
        mistake="golangci-lint run",
        lesson="gridkeeper: golangci-lint run on the whole repo lints generated gen/ code; run it on ./internal/... ./cmd/... only.",
        warn=[same("golangci-lint run"), reword("golangci-lint run ./... --timeout 5m")],
        silent=[fix("golangci-lint run --timeout 5m ./internal/... ./cmd/..."), other("golangci-lint linters"),
                help_("golangci-lint run --help")],
    )),
    eco("cloud-cli", Incident(
        "s-mk-saltmarsh-lambda-region", MARKER, CC, "saltmarsh-infra",
        session=[
            U("Invoke the queue-drainer lambda with an empty event to test it."),
            ok("aws lambda invoke --function-name saltmarsh-queue-drainer --region eu-west-1 --payload '{}' "
               "--cli-binary-format raw-in-base64-out out.json",
               "{\n    \"StatusCode\": 200,\n    \"ExecutedVersion\": \"$LATEST\"\n}"),
            A("It returned 200 and out.json is {\"drained\": 0}.\n\nGOTCHA: `aws lambda invoke` without `--region eu-west-1` fails "
              "with ResourceNotFoundException here: the default profile's region is us-east-1 and saltmarsh lives in eu-west-1."),
        ],
        mistake=_INVOKE,
        lesson="saltmarsh-infra: the functions live in eu-west-1; pass --region eu-west-1 to aws lambda invoke.",
        warn=[same(_INVOKE),
              reword("aws lambda invoke --function-name saltmarsh-api --payload file://events/ping.json "
                     "--cli-binary-format raw-in-base64-out resp.json")],
        silent=[fix("aws lambda invoke --function-name saltmarsh-api --region eu-west-1 --payload file://events/ping.json "
                    "--cli-binary-format raw-in-base64-out resp.json"),
                other("aws sts get-caller-identity")],
    )),
    eco("ruby", Incident(
        "s-mk-quillpress-bundle-update-conservative", MARKER, CC, "quillpress",
        session=[
            U("Update nokogiri, there's a CVE."),
            ok("bundle update --conservative nokogiri",
               "Fetching gem metadata from https://rubygems.org/.........\nResolving dependencies...\n"
               "Fetching nokogiri 1.18.3 (x86_64-linux-gnu)\nInstalling nokogiri 1.18.3 (x86_64-linux-gnu) (was 1.16.7)\nBundle updated!"),
            A("nokogiri is at 1.18.3 and nothing else moved.\n\nLEARNING: in quillpress never run a bare `bundle update` — it "
              "upgrades rails and every unpinned gem; update one gem with `bundle update --conservative <gem>`."),
        ],
        mistake="bundle update",
        lesson="quillpress: never a bare bundle update (it upgrades rails); use bundle update --conservative <gem>.",
        warn=[same("bundle update"), reword("bundle update --all")],
        silent=[fix("bundle update --conservative rack"), other("bundle outdated --strict")],
    )),
    eco("git", Incident(
        "s-mk-heronry-lfs-videos", MARKER, CC, "heronry",
        session=[
            U("Add the intro video to the landing page and push the branch."),
            ok("git add static/video/intro.mp4 content/_index.md && git commit -m \"landing: intro video\"",
               "[feat/landing 1a2b3c4] landing: intro video\n 2 files changed, 6 insertions(+)\n create mode 100644 static/video/intro.mp4"),
            err("git push origin feat/landing",
                "remote: error: Trace: 7f3c0b6e2d1a9c84\nremote: error: See https://gh.io/lfs for more information.\n"
                "remote: error: File static/video/intro.mp4 is 148.27 MB; this exceeds GitHub's file size limit of 100.00 MB\n"
                "remote: error: GH001: Large files detected. You may want to try Git Large File Storage - https://git-lfs.github.com.\n"
                "To github.com:heronry/heronry-docs.git\n ! [remote rejected] feat/landing -> feat/landing (pre-receive hook declined)\n"
                "error: failed to push some refs to 'github.com:heronry/heronry-docs.git'", 1),
            ok("git reset --soft HEAD~1 && git lfs track \"*.mp4\" && git add .gitattributes static/video/intro.mp4 content/_index.md "
               "&& git commit -m \"landing: intro video (lfs)\" && git push origin feat/landing",
               "Tracking \"*.mp4\"\n[feat/landing 5d6e7f8] landing: intro video (lfs)\nUploading LFS objects: 100% (1/1), 148 MB | 21 MB/s, done.\n"
               "To github.com:heronry/heronry-docs.git\n * [new branch]      feat/landing -> feat/landing"),
            A("GOTCHA: videos under static/ must go through Git LFS — `git add static/video/*.mp4` without `git lfs track \"*.mp4\"` "
              "first gets the push rejected (GH001, file over 100 MB)."),
        ],
        mistake="git add static/video/intro.mp4",
        lesson="heronry: run git lfs track \"*.mp4\" before git add of videos under static/ (GitHub rejects files over 100 MB).",
        warn=[same("git add static/video/intro.mp4"), reword("git add static/video/demo-2026.mp4 content/demo.md")],
        silent=[fix("git lfs track \"*.mp4\" && git add static/video/demo-2026.mp4 content/demo.md"),
                other("git add content/posts/launch.md"), other("git lfs ls-files")],
        variants=("long_output",),
    )),
    eco("docker", Incident(
        "s-mk-lanternd-compose-profile", MARKER, GEMINI, "lanternd",
        session=[
            U("Start the background worker too."),
            err("docker compose up -d worker", "no such service: worker", 1),
            ok("grep -n -A1 -E '^  (worker|scheduler):' compose.yaml",
               "41:  worker:\n42-    profiles: [\"jobs\"]\n58:  scheduler:\n59-    profiles: [\"jobs\"]"),
            ok("docker compose --profile jobs up -d worker", "[+] Running 1/1\n ✔ Container lanternd-worker-1  Started"),
            A("LEARNING: lanternd's worker and scheduler sit behind the `jobs` profile; `docker compose up -d worker` says "
              "'no such service' — use `docker compose --profile jobs up -d worker`."),
        ],
        mistake="docker compose up -d worker",
        lesson="lanternd: worker and scheduler are in the jobs profile; start them with docker compose --profile jobs up.",
        warn=[same("docker compose up -d worker"), reword("docker compose up --build -d scheduler")],
        silent=[fix("docker compose --profile jobs up --build -d scheduler"), other("docker compose up -d api"),
                other("docker compose ps")],
        variants=("intervening",),
    )),
    eco("rust", Incident(
        "s-mk-ferrocask-wasm-pack", MARKER, CODEX, "ferrocask",
        session=[
            U("Check that ferrocask still builds for the browser."),
            err("cargo build --target wasm32-unknown-unknown",
                "   Compiling getrandom v0.2.15\nerror: the wasm*-unknown-unknown targets are not supported by default, you may need to "
                "enable the \"js\" feature. For more information see: https://docs.rs/getrandom/#webassembly-support\n"
                "   --> /home/dev/.cargo/registry/src/index.crates.io-6f17d22bba15001f/getrandom-0.2.15/src/lib.rs:342:9\n"
                "error: could not compile `getrandom` (lib) due to 1 previous error", 101),
            read("crates/ferrocask-wasm/Cargo.toml",
                 "[package]\nname = \"ferrocask-wasm\"\nversion = \"0.7.2\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n\n[dependencies]\n"
                 "ferrocask = { path = \"../..\", default-features = false }\ngetrandom = { version = \"0.2\", features = [\"js\"] }\n"
                 "wasm-bindgen = \"0.2\"\n"),
            ok("wasm-pack build crates/ferrocask-wasm --target web",
               "[INFO]: 🎯  Checking for the Wasm target...\n[INFO]: 🌀  Compiling to Wasm...\n"
               "    Finished `release` profile [optimized] target(s) in 22.41s\n[INFO]: ✨   Done in 23.90s\n"
               "[INFO]: 📦   Your wasm pkg is ready to publish at /home/dev/ferrocask/crates/ferrocask-wasm/pkg."),
            A("LEARNING: don't `cargo build --target wasm32-unknown-unknown` the main crate (getrandom needs its js feature, which only "
              "ferrocask-wasm enables); build the browser package with `wasm-pack build crates/ferrocask-wasm --target web`."),
        ],
        mistake="cargo build --target wasm32-unknown-unknown",
        lesson="ferrocask: build for the browser with wasm-pack build crates/ferrocask-wasm --target web, not cargo build --target wasm32-unknown-unknown.",
        warn=[same("cargo build --target wasm32-unknown-unknown"), reword("cargo build --release --target=wasm32-unknown-unknown --lib")],
        silent=[fix("wasm-pack build crates/ferrocask-wasm --target web --release"), other("rustup target list --installed")],
        variants=("intervening", "other_program"),
    )),
    eco("dotnet", Incident(
        "s-mk-sundial-nuget-local-config", MARKER, CC, "sundial-ledger",
        session=[
            U("Restore packages, I added the internal Sundial.Money package."),
            err("dotnet restore Sundial.sln",
                "  Determining projects to restore...\n"
                "/usr/share/dotnet/sdk/8.0.404/NuGet.targets(174,5): error NU1301: Unable to load the service index for source "
                "https://pkgs.dev.azure.com/sundial/_packaging/internal/nuget/v3/index.json. [/home/dev/sundial-ledger/Sundial.sln]\n"
                "/usr/share/dotnet/sdk/8.0.404/NuGet.targets(174,5): error NU1301:   Response status code does not indicate success: "
                "401 (Unauthorized). [/home/dev/sundial-ledger/Sundial.sln]", 1),
            ok("ls *.config", "NuGet.config\nNuGet.local.config"),
            ok("dotnet restore Sundial.sln --configfile NuGet.local.config",
               "  Determining projects to restore...\n  Restored /home/dev/sundial-ledger/src/Sundial.Core/Sundial.Core.csproj (in 1.42 sec).\n"
               "  Restored /home/dev/sundial-ledger/src/Sundial.Api/Sundial.Api.csproj (in 1.77 sec)."),
            A("GOTCHA: `dotnet restore` with the default NuGet.config hits the Azure feed and gets 401 without a PAT; on dev "
              "machines restore with `--configfile NuGet.local.config` (internal packages come from the vendor/nuget mirror)."),
        ],
        mistake="dotnet restore Sundial.sln",
        lesson="sundial-ledger: dotnet restore needs --configfile NuGet.local.config on dev machines (the Azure feed returns 401).",
        warn=[same("dotnet restore Sundial.sln"), reword("dotnet restore src/Sundial.Api/Sundial.Api.csproj --verbosity minimal")],
        silent=[fix("dotnet restore src/Sundial.Api/Sundial.Api.csproj --verbosity minimal --configfile NuGet.local.config"),
                other("dotnet nuget list source"), help_("dotnet restore --help")],
        variants=("intervening",),
    )),
]
