"""Blind split 2, shape marker: the agent writes its own lesson line (GOTCHA:, LEARNING:,
NOTE TO SELF:) quoting the call that went wrong and the form to use instead — in
backticks, in plain prose, as "always pass X", "never Y", "use A instead of B". Four
incidents per agent."""

from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, MARKER, A, Incident, U, edit, err, fix, help_, ok, other, read, reword, same

_AGE_ME = "age1qz7x8t0d5mfwq3h2v9kxyl6e4cjr8nu0s7gadp5w2t9hzkqe3xsq4lk3m"

_VAULT_PUT = 'vault kv put secret/harbor/db password="$NEW_DB_PASSWORD"'
_VAULT_PATCH = 'vault kv patch secret/harbor/db password="$NEW_DB_PASSWORD"'

_SQLITE_ROWS = "\n".join(
    f"exports/users.csv:{n}: expected 5 columns but found 1 - filling the rest with NULL" for n in range(1, 9)
)

INCIDENTS = [
    Incident(
        id="b2-mk01-nix-gc-older-than",
        shape=MARKER,
        agent=CC,
        project="hearth",
        session=[
            U("the disk on the build box is at 96%, free some space"),
            ok(
                "df -h /",
                "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p2  469G  451G   18G  96% /",
            ),
            ok(
                "sudo nix-collect-garbage -d",
                "removing old generations of profile /nix/var/nix/profiles/system\n"
                "removing profile version 212\nremoving profile version 213\nremoving profile version 214\n"
                "removing profile version 215\nfinding garbage collector roots...\ndeleting garbage...\n"
                "3841 store paths deleted, 118.42 GiB freed",
            ),
            ok(
                "nix-env --list-generations --profile /nix/var/nix/profiles/system",
                "216   2026-03-01 18:22:07   (current)",
            ),
            A(
                "GOTCHA: `nix-collect-garbage -d` deleted every old system generation, so there is nothing left to "
                "roll back to on the build box. Never pass -d here; use `sudo nix-collect-garbage --delete-older-than 14d`, "
                "which keeps the last two weeks of generations."
            ),
        ],
        mistake="sudo nix-collect-garbage -d",
        lesson=(
            "Never run `nix-collect-garbage -d` on the build box: it deletes every old generation, leaving no "
            "rollback. Use `sudo nix-collect-garbage --delete-older-than 14d`."
        ),
        warn=[
            same("sudo nix-collect-garbage -d"),
            reword("sudo nix-collect-garbage --delete-old"),
        ],
        silent=[
            fix("sudo nix-collect-garbage --delete-older-than 14d"),
            fix("sudo nix-collect-garbage --delete-older-than 30d --max-freed 50G"),
            other("nix-store --gc --print-dead"),
            other("nix-env --list-generations --profile /nix/var/nix/profiles/system"),
            help_("nix-collect-garbage --help"),
        ],
    ),
    Incident(
        id="b2-mk02-bazel-clean-no-expunge",
        shape=MARKER,
        agent=CODEX,
        project="quarry",
        session=[
            U("the build keeps picking up a stale generated proto, clear whatever cache is wrong"),
            ok(
                "bazel clean --expunge",
                "INFO: Starting clean (this may take a while). Consider using --async if the clean takes more than "
                "several minutes.",
            ),
            ok(
                "bazel build //services/billing/...",
                "INFO: Repository rules_go~~go_sdk~go_sdk instantiated at:\n...\n"
                "INFO: Analyzed 64 targets (412 packages loaded, 18931 targets configured).\n"
                "INFO: Elapsed time: 1843.27s, Critical Path: 212.04s\n"
                "INFO: Build completed successfully, 4127 total actions",
            ),
            A(
                "NOTE TO SELF: don't run bazel clean --expunge in quarry. It also throws away the external "
                "repository cache, and refetching the toolchains and Maven deps took half an hour. A stale output "
                "only needs a plain bazel clean, which keeps the external repos."
            ),
        ],
        mistake="bazel clean --expunge",
        lesson=(
            "In quarry use `bazel clean`, never `bazel clean --expunge`: expunge drops the external repository "
            "cache and the next build refetches every toolchain for ~30 minutes."
        ),
        warn=[
            same("bazel clean --expunge"),
            reword("bazel clean --expunge --async"),
            reword("bazel clean --expunge_async"),
        ],
        silent=[
            fix("bazel clean"),
            fix("bazel clean --async"),
            other("bazel info output_base"),
            other("bazel shutdown"),
            help_("bazel help clean"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b2-mk03-deno-publish-no-dirty",
        shape=MARKER,
        agent=GEMINI,
        project="tidepool",
        session=[
            U("publish 0.4.1 of the client to JSR"),
            err(
                "deno publish",
                "Checking for slow types in the public API...\n"
                "error: Aborting due to uncommitted changes. Check in source code or run with --allow-dirty",
            ),
            ok(
                "deno publish --allow-dirty",
                "Checking for slow types in the public API...\nPublishing @tidepool/client@0.4.1 ...\n"
                "Successfully published @tidepool/client@0.4.1\nVisit https://jsr.io/@tidepool/client@0.4.1 for details",
            ),
            ok("git status --short", " M src/client.ts\n M src/debug.ts\n?? scratch/notes.ts"),
            A(
                "LEARNING: deno publish --allow-dirty shipped my uncommitted debug edits (src/debug.ts) inside "
                "@tidepool/client@0.4.1. Never use --allow-dirty for tidepool: commit or stash first, then run "
                "plain `deno publish`."
            ),
        ],
        mistake="deno publish --allow-dirty",
        lesson=(
            "Never `deno publish --allow-dirty` in tidepool: it publishes uncommitted working-tree changes to JSR. "
            "Commit first, then `deno publish`."
        ),
        warn=[
            same("deno publish --allow-dirty"),
            reword("deno publish --allow-dirty --no-check"),
            reword('deno publish --token "$JSR_TOKEN" --allow-dirty'),
        ],
        silent=[
            fix("deno publish"),
            fix('deno publish --token "$JSR_TOKEN"'),
            other("deno publish --dry-run"),
            other("deno fmt --check"),
            help_("deno publish --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-mk04-r-renv-snapshot-explicit",
        shape=MARKER,
        agent=CC,
        project="okra",
        session=[
            U("lock the new dependencies"),
            ok(
                "Rscript -e 'renv::snapshot()'",
                "The following package(s) will be updated in the lockfile:\n\n"
                "# CRAN --------------------------------------------------------------------\n"
                "- askpass      [* -> 1.2.1]\n- bslib        [* -> 0.9.0]\n- cachem       [* -> 1.1.0]\n"
                '- data.table   [* -> 1.16.4]\n  ... and 146 more\n\n- Lockfile written to "~/okra/renv.lock".',
            ),
            ok(
                "git diff --stat renv.lock",
                " renv.lock | 1874 ++++++++++++++++++++++++++++++++++++++++++-\n 1 file changed",
            ),
            A(
                "The lockfile now has 150 packages, most of them from my scratch scripts rather than okra's "
                "DESCRIPTION. Redoing it from the declared dependencies."
            ),
            ok(
                "git checkout renv.lock && Rscript -e 'renv::snapshot(type = \"explicit\")'",
                "The following package(s) will be updated in the lockfile:\n\n"
                "# CRAN --------------------------------------------------------------------\n"
                '- data.table   [* -> 1.16.4]\n\n- Lockfile written to "~/okra/renv.lock".',
            ),
            A(
                "GOTCHA: in okra, plain renv::snapshot() records everything the implicit scan finds (scratch/ included). "
                'Always run `renv::snapshot(type = "explicit")` so the lockfile follows DESCRIPTION only.'
            ),
        ],
        mistake="Rscript -e 'renv::snapshot()'",
        lesson=(
            "In okra never run a plain `renv::snapshot()` (it locks every package the implicit scan finds); "
            "always `Rscript -e 'renv::snapshot(type = \"explicit\")'`."
        ),
        warn=[
            same("Rscript -e 'renv::snapshot()'"),
            reword('Rscript -e "renv::snapshot(prompt = FALSE)"'),
        ],
        silent=[
            fix("Rscript -e 'renv::snapshot(type = \"explicit\")'"),
            fix("Rscript -e \"renv::snapshot(type = 'explicit', prompt = FALSE)\""),
            other("Rscript -e 'renv::status()'"),
            other("Rscript -e 'renv::restore()'"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-mk05-clojure-deploy-releases",
        shape=MARKER,
        agent=CODEX,
        project="ledger",
        session=[
            U("release ledger-core 0.9.2"),
            err(
                "lein deploy clojars",
                "No credentials found for clojars\nSee `lein help deploying` for how to configure credentials to avoid "
                "prompts.\nUsername: Password: \n"
                "Could not transfer artifact ledger:ledger-core:jar:0.9.2 from/to clojars (https://repo.clojars.org/): "
                "status code: 401, reason phrase: Unauthorized (401)\n"
                "Failed to deploy artifacts: Could not transfer artifact ledger:ledger-core:jar:0.9.2 from/to clojars",
            ),
            read(
                "project.clj",
                '(defproject ledger/ledger-core "0.9.2"\n  :description "Ledger core domain"\n'
                '  :dependencies [[org.clojure/clojure "1.12.0"]]\n'
                '  :deploy-repositories [["releases" {:url "https://nexus.ledger.internal/repository/maven-releases/"\n'
                "                                     :creds :gpg}]\n"
                '                        ["snapshots" {:url "https://nexus.ledger.internal/repository/maven-snapshots/"\n'
                "                                      :creds :gpg}]])\n",
            ),
            ok(
                "lein deploy releases",
                "Created /home/dev/ledger/target/ledger-core-0.9.2.jar\nWrote /home/dev/ledger/pom.xml\n"
                "Sending ledger/ledger-core/0.9.2/ledger-core-0.9.2.jar (38k)\n"
                "    to https://nexus.ledger.internal/repository/maven-releases/\n"
                "Sending ledger/ledger-core/0.9.2/ledger-core-0.9.2.pom (3k)\n"
                "    to https://nexus.ledger.internal/repository/maven-releases/",
            ),
            A(
                "GOTCHA: `lein deploy clojars` targets public Clojars — ledger-core is internal and it only failed "
                "because I had no Clojars credentials. Always deploy with `lein deploy releases` (our Nexus, from "
                ":deploy-repositories); never name clojars."
            ),
        ],
        mistake="lein deploy clojars",
        lesson=(
            "ledger-core is internal: deploy it with `lein deploy releases` (the Nexus repository), never "
            "`lein deploy clojars`, which would publish it publicly."
        ),
        warn=[
            same("lein deploy clojars"),
            reword("lein deploy clojars ledger/ledger-core 0.9.3 target/ledger-core-0.9.3.jar"),
        ],
        silent=[
            fix("lein deploy releases"),
            fix("lein deploy snapshots"),
            other("lein jar"),
            other("lein install"),
            help_("lein help deploy"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-mk06-vault-kv-patch",
        shape=MARKER,
        agent=GEMINI,
        project="harbor",
        session=[
            U("rotate the harbor db password to the one in the ticket (it's in $NEW_DB_PASSWORD)"),
            ok(
                _VAULT_PUT,
                "==== Secret Path ====\nsecret/data/harbor/db\n\n======= Metadata =======\n"
                "Key                Value\n---                -----\ncreated_time       2026-03-02T09:20:11.5Z\n"
                "custom_metadata    <nil>\ndeletion_time      n/a\ndestroyed          false\nversion            8",
            ),
            ok(
                "vault kv get secret/harbor/db",
                "==== Secret Path ====\nsecret/data/harbor/db\n\n...\n====== Data ======\n"
                "Key         Value\n---         -----\npassword    ********",
            ),
            A(
                "Version 8 only has the password: username, host and port are gone. Restoring version 7 and patching it."
            ),
            ok(
                "vault kv rollback -version=7 secret/harbor/db",
                "Key                Value\n---                -----\nversion            9",
            ),
            ok(_VAULT_PATCH, "Key                Value\n---                -----\nversion            10"),
            A(
                "GOTCHA: vault kv put replaces the whole secret — it dropped username, host and port. To change one key "
                "always use `vault kv patch secret/harbor/db password=...`, never kv put."
            ),
        ],
        mistake=_VAULT_PUT,
        lesson=(
            "To change one key of a harbor secret use `vault kv patch secret/harbor/db password=...`; "
            "`vault kv put` replaces the whole secret and drops the other keys."
        ),
        warn=[
            same(_VAULT_PUT),
            reword('vault kv put -mount=secret harbor/db password="$ROTATED_PW"'),
            reword("vault kv put secret/harbor/db port=5433"),
        ],
        silent=[
            fix(_VAULT_PATCH),
            fix("vault kv patch -mount=secret harbor/db port=5433"),
            other("vault kv get secret/harbor/db"),
            other("vault kv metadata get secret/harbor/db"),
            help_("vault kv patch -h"),
        ],
        variants=("diagnostic", "intervening"),
    ),
    Incident(
        id="b2-mk07-gh-release-notes-file",
        shape=MARKER,
        agent=CC,
        project="pier",
        session=[
            U("cut the v2.3.0 release on GitHub"),
            ok("gh release create v2.3.0 --generate-notes", "https://github.com/pier-cloud/pier/releases/tag/v2.3.0"),
            ok(
                "gh release view v2.3.0",
                "v2.3.0\nsam released this about 1 minute ago\n\n## What's Changed\n"
                "* chore(ci): bump runner image by @dependabot in #219\n"
                "* wip: debug staging dns (revert me) by @sam in #221\n"
                "* Add ingress for pier-api by @ana in #212\n...",
            ),
            A("The generated notes list every PR title, internal chores and a 'revert me' included. Replacing them."),
            ok(
                "gh release edit v2.3.0 --notes-file CHANGELOG-next.md",
                "https://github.com/pier-cloud/pier/releases/tag/v2.3.0",
            ),
            A(
                "LEARNING: for pier releases never use --generate-notes. Always create them from the curated "
                "changelog: gh release create vX.Y.Z --notes-file CHANGELOG-next.md."
            ),
        ],
        mistake="gh release create v2.3.0 --generate-notes",
        lesson=(
            "pier release notes come from the curated changelog: `gh release create vX.Y.Z --notes-file "
            "CHANGELOG-next.md`, never --generate-notes (it lists internal PR titles)."
        ),
        warn=[
            same("gh release create v2.3.0 --generate-notes"),
            reword('gh release create v2.4.0 --title "v2.4.0" --generate-notes --draft'),
        ],
        silent=[
            fix("gh release create v2.3.0 --notes-file CHANGELOG-next.md"),
            fix('gh release create v2.4.0 --title "v2.4.0" --notes-file CHANGELOG-next.md --draft'),
            other("gh release list --limit 5"),
            other("gh release edit v2.3.0 --notes-file CHANGELOG-next.md"),
            help_("gh release create --help"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b2-mk08-prisma-migrate-not-push",
        shape=MARKER,
        agent=CODEX,
        project="plume",
        session=[
            U("add a unique slug column to Post"),
            edit("prisma/schema.prisma", "  title     String\n", "  title     String\n  slug      String   @unique\n"),
            ok(
                "npx prisma db push",
                "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n"
                'Datasource "db": PostgreSQL database "postgres", schema "public" at "localhost:54322"\n\n'
                "🚀  Your database is now in sync with your Prisma schema. Done in 212ms\n\n"
                "✔ Generated Prisma Client (v6.4.1) to ./node_modules/@prisma/client in 88ms",
            ),
            err(
                "npx prisma migrate dev --name add_post_slug",
                "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n"
                'Datasource "db": PostgreSQL database "postgres", schema "public" at "localhost:54322"\n\n'
                "Drift detected: Your database schema is not in sync with your migration history.\n\n"
                "[*] Changed the `Post` table\n  [+] Added column `slug`\n  [+] Added unique index on columns (slug)\n\n"
                'We need to reset the "public" schema at "localhost:54322"\n'
                "You may use prisma migrate reset to drop the development database.\nAll data will be lost.",
            ),
            A(
                "GOTCHA: npx prisma db push changed the dev database without writing a migration, so migrate dev now "
                "reports drift. In plume schema changes always go through `npx prisma migrate dev --name <change>`; "
                "never use db push. Writing the missing migration by hand and marking it applied."
            ),
            ok(
                "mkdir -p prisma/migrations/20260302091500_add_post_slug && npx prisma migrate diff "
                "--from-migrations prisma/migrations --to-schema-datamodel prisma/schema.prisma "
                '--shadow-database-url "$SHADOW_DATABASE_URL" --script '
                "> prisma/migrations/20260302091500_add_post_slug/migration.sql"
            ),
            ok(
                "npx prisma migrate resolve --applied 20260302091500_add_post_slug",
                "Migration 20260302091500_add_post_slug marked as applied.",
            ),
        ],
        mistake="npx prisma db push",
        lesson=(
            "In plume never use `npx prisma db push`: it changes the database without a migration and causes "
            "drift. Use `npx prisma migrate dev --name <change>`."
        ),
        warn=[
            same("npx prisma db push"),
            reword("npx prisma db push --skip-generate"),
            reword("npx prisma db push --accept-data-loss"),
        ],
        silent=[
            fix("npx prisma migrate dev --name add_post_excerpt"),
            fix("npx prisma migrate dev --name add_tag_table --create-only"),
            other("npx prisma generate"),
            other("npx prisma migrate status"),
            help_("npx prisma --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b2-mk09-sqlite3-import-csv",
        shape=MARKER,
        agent=GEMINI,
        project="sable",
        session=[
            U("load exports/users.csv into the local sqlite db for the churn report"),
            ok("sqlite3 data/sable.db '.import exports/users.csv users'", _SQLITE_ROWS),
            ok(
                "sqlite3 data/sable.db 'SELECT * FROM users LIMIT 2'",
                "id,email,org_id,created_at,plan||||\n1,ana@example.com,4,2025-11-02,pro||||",
            ),
            A("The import ran in list mode, so every CSV line went into the first column. Clearing and redoing it."),
            ok(
                "sqlite3 data/sable.db 'DELETE FROM users' && "
                "sqlite3 data/sable.db '.import --csv --skip 1 exports/users.csv users'"
            ),
            ok("sqlite3 data/sable.db 'SELECT count(*), count(plan) FROM users'", "4127|4127"),
            A(
                "NOTE TO SELF: sqlite3's .import without --csv uses the | separator, so "
                "`.import exports/users.csv users` silently loads each row into one column. Always `.import --csv` "
                "(plus --skip 1 for the header row)."
            ),
        ],
        mistake="sqlite3 data/sable.db '.import exports/users.csv users'",
        lesson=(
            "sqlite3's `.import` without --csv splits on | and loads each CSV row into one column: always use "
            "`sqlite3 data/sable.db '.import --csv --skip 1 exports/users.csv users'`."
        ),
        warn=[
            same("sqlite3 data/sable.db '.import exports/users.csv users'"),
            reword('sqlite3 data/sable.db ".import exports/orgs.csv orgs"'),
        ],
        silent=[
            fix("sqlite3 data/sable.db '.import --csv --skip 1 exports/users.csv users'"),
            fix('sqlite3 data/sable.db ".import --csv --skip 1 exports/orgs.csv orgs"'),
            other("sqlite3 data/sable.db '.tables'"),
            other('sqlite3 data/sable.db "SELECT count(*) FROM users"'),
            help_("sqlite3 -help"),
        ],
        variants=("long_output", "diagnostic"),
    ),
    Incident(
        id="b2-mk10-age-recipients-file",
        shape=MARKER,
        agent=CC,
        project="relay",
        session=[
            U("encrypt today's users dump so it can go to the shared bucket"),
            ok(f"age -e -r {_AGE_ME} -o dumps/users-2026-03-02.sql.age dumps/users-2026-03-02.sql"),
            read(
                "ops/README.md",
                "# Dumps\n\nDumps are encrypted to every on-call key in ops/recipients.txt "
                "(`age -R ops/recipients.txt`) so anyone on the rotation can restore them.\n",
            ),
            ok("age -e -R ops/recipients.txt -o dumps/users-2026-03-02.sql.age dumps/users-2026-03-02.sql"),
            A(
                f"GOTCHA: I first encrypted the dump to my own key only (`age -e -r {_AGE_ME[:12]}…`), which nobody "
                "else on the rotation could decrypt. Never encrypt relay dumps to a single -r recipient; always "
                "use `age -e -R ops/recipients.txt`."
            ),
        ],
        mistake=f"age -e -r {_AGE_ME} -o dumps/users-2026-03-02.sql.age dumps/users-2026-03-02.sql",
        lesson=(
            "Encrypt relay dumps to the whole on-call rotation: `age -e -R ops/recipients.txt -o <dump>.age <dump>`, "
            "never to a single `-r` key."
        ),
        warn=[
            same(f"age -e -r {_AGE_ME} -o dumps/users-2026-03-02.sql.age dumps/users-2026-03-02.sql"),
            reword(
                f"age --encrypt --recipient {_AGE_ME} --output dumps/orders-2026-03-02.sql.age "
                "dumps/orders-2026-03-02.sql"
            ),
        ],
        silent=[
            fix("age -e -R ops/recipients.txt -o dumps/users-2026-03-02.sql.age dumps/users-2026-03-02.sql"),
            fix("age -e -a -R ops/recipients.txt -o dumps/orders-2026-03-02.sql.age dumps/orders-2026-03-02.sql"),
            other("age -d -i ~/.config/age/keys.txt dumps/users-2026-03-01.sql.age | head -5"),
            other("age-keygen -y ~/.config/age/keys.txt"),
            help_("age --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b2-mk11-conan-host-profile",
        shape=MARKER,
        agent=CODEX,
        project="vane",
        session=[
            U("pull in the dependencies for the firmware build"),
            ok(
                "conan install . --build=missing",
                "======== Computing dependency graph ========\nGraph root\n"
                "    conanfile.py (vane/0.7.0): /home/dev/vane/conanfile.py\nRequirements\n"
                "    etl/20.39.4#7a1d0e - Cache\n    nanopb/0.4.9#c20f6b - Downloaded (conancenter)\n\n"
                "======== Computing necessary packages ========\n\nProfile host:\n[settings]\narch=x86_64\n"
                "build_type=Release\ncompiler=gcc\ncompiler.version=13\nos=Linux\n\n"
                "======== Finalizing install (deploy, generators) ========\n"
                "conanfile.py (vane/0.7.0): Generator 'CMakeToolchain' calling 'generate()'\n"
                "Install finished successfully",
            ),
            A(
                "That used the machine's default host profile (x86_64 Linux), so nanopb was built for the host, "
                "not the MCU. Reinstalling with the repo's Cortex-M4 profile."
            ),
            ok(
                "conan install . --build=missing -pr:h profiles/cortex-m4 -pr:b default",
                "======== Computing necessary packages ========\n\nProfile host:\n[settings]\narch=armv7hf\n"
                "build_type=MinSizeRel\ncompiler=gcc\ncompiler.version=13\nos=baremetal\n\n"
                "nanopb/0.4.9: Building from source\n...\nInstall finished successfully",
            ),
            A(
                "LEARNING: `conan install . --build=missing` on its own builds the deps for this PC. For vane always "
                "pass the firmware profiles: -pr:h profiles/cortex-m4 -pr:b default."
            ),
        ],
        mistake="conan install . --build=missing",
        lesson=(
            "vane's dependencies must be built for the MCU: `conan install . --build=missing -pr:h "
            "profiles/cortex-m4 -pr:b default`; without -pr:h conan uses the x86_64 default profile."
        ),
        warn=[
            same("conan install . --build=missing"),
            reword("conan install . --build missing --output-folder build/deps"),
        ],
        silent=[
            fix("conan install . --build=missing -pr:h profiles/cortex-m4 -pr:b default"),
            fix("conan install . -pr:h=profiles/cortex-m4 -pr:b=default --build missing --output-folder build/deps"),
            other("conan list 'nanopb/*'"),
            other("conan profile show -pr:h profiles/cortex-m4"),
            help_("conan install --help"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b2-mk12-podman-selinux-label",
        shape=MARKER,
        agent=GEMINI,
        project="harbor",
        session=[
            U("the indexer container can't write its state db, find out why"),
            err(
                "podman run --rm -v ./data:/var/lib/indexer harbor/indexer:1.4",
                "2026-03-02T09:31:02Z INFO  indexer 1.4.2 starting\n"
                "2026-03-02T09:31:02Z ERROR open /var/lib/indexer/state.db: permission denied\n"
                "Error: failed to open state store",
            ),
            ok(
                "ls -lZ data/state.db",
                "-rw-r--r--. 1 ops ops unconfined_u:object_r:user_home_t:s0 8409088 Mar  2 03:10 data/state.db",
            ),
            ok("getenforce", "Enforcing"),
            ok(
                "podman run --rm -v ./data:/var/lib/indexer:Z harbor/indexer:1.4",
                "2026-03-02T09:33:40Z INFO  indexer 1.4.2 starting\n"
                "2026-03-02T09:33:40Z INFO  state store opened (1204 documents)\n"
                "2026-03-02T09:33:41Z INFO  indexer ready",
            ),
            A(
                "GOTCHA: SELinux is enforcing on harbor, so a bind mount without a relabel is unreadable inside the "
                "container (podman run -v ./data:/var/lib/indexer -> permission denied). Always add :Z to the volume: "
                "-v ./data:/var/lib/indexer:Z."
            ),
        ],
        mistake="podman run --rm -v ./data:/var/lib/indexer harbor/indexer:1.4",
        lesson=(
            "SELinux is enforcing on harbor: bind mounts need a relabel, `podman run --rm -v "
            "./data:/var/lib/indexer:Z harbor/indexer:1.4`; without :Z the indexer gets permission denied."
        ),
        warn=[
            same("podman run --rm -v ./data:/var/lib/indexer harbor/indexer:1.4"),
            reword('podman run --rm -it --volume "$PWD/data:/var/lib/indexer" harbor/indexer:1.4 --reindex'),
        ],
        silent=[
            fix("podman run --rm -v ./data:/var/lib/indexer:Z harbor/indexer:1.4"),
            fix('podman run --rm -it --volume "$PWD/data:/var/lib/indexer:Z" harbor/indexer:1.4 --reindex'),
            other("podman run --rm harbor/indexer:1.4 --version"),
            other("podman ps -a --filter name=indexer"),
            help_("podman run --help"),
        ],
        variants=("diagnostic",),
    ),
]
