"""A seeded generator of plausible, unrelated lessons (the "large store" mode).

Lessons about many other programs, and some about the corpus programs' *other*
subcommands (``npm publish``, ``cargo update``, ``git stash``, ``kubectl
rollout undo`` …), plus code lessons in the corpus languages about other
patterns. None of them is about a mistake of the corpus: a (program,
subcommand) pair that any probe or everyday call uses is never generated, so a
noise lesson shown on a probe is always a wrong lesson.

Returned as plain dicts (text, trigger, kind, tier, project slot) so this module
needs no twiceshy import; the harness turns them into ``Experience`` objects.
"""

from __future__ import annotations

import random
import re
import shlex

SLOTS: dict[str, list[str]] = {
    "js": ["lodash", "axios", "zod", "dayjs", "uuid", "chalk", "commander", "express", "fastify", "pino", "sharp", "undici"],
    "py": ["requests", "pandas", "numpy", "boto3", "celery", "redis", "sqlalchemy", "pillow", "orjson", "structlog"],
    "crate": ["serde", "tokio", "clap", "anyhow", "thiserror", "reqwest", "tracing", "rayon", "regex", "chrono"],
    "gomod": ["github.com/rs/zerolog", "github.com/spf13/viper", "go.uber.org/zap", "github.com/redis/go-redis/v9",
              "github.com/google/uuid", "golang.org/x/exp"],
    "ver": ["1.2.3", "2.0.1", "0.9.4", "3.1.0", "4.17.21", "5.0.0-rc.1"],
    "branch": ["release/2.4", "hotfix/login-loop", "feat/export-csv", "chore/deps", "fix/race-in-cache"],
    "ns": ["payments", "search", "auth", "web", "jobs", "monitoring"],
    "env": ["dev", "qa", "preprod", "eu", "us"],
    "region": ["us-east-1", "eu-central-1", "ap-southeast-2", "us-west-2"],
    "svc": ["api", "worker", "scheduler", "gateway", "indexer", "mailer"],
    "db": ["orders", "analytics", "users", "events"],
    "bucket": ["acme-logs", "acme-backups", "media-uploads", "tf-state-shared"],
    "file_py": ["app/utils.py", "src/tasks.py", "pkg/io.py", "service/handlers.py", "lib/cache.py"],
    "file_ts": ["src/api/client.ts", "src/store/index.ts", "src/pages/Home.tsx", "server/routes.ts", "src/hooks/useAuth.ts"],
    "file_go": ["pkg/cache/cache.go", "internal/api/handler.go", "cmd/worker/main.go", "internal/queue/consumer.go"],
    "file_rs": ["src/cache.rs", "src/server.rs", "src/bin/cli.rs", "src/codec.rs"],
    "n": ["2", "3", "5", "8", "10", "20"],
    "port": ["5433", "6380", "9090", "8443", "3307"],
    "host": ["bastion.internal", "db1.internal", "build01", "ci-runner-3"],
    "img": ["api", "worker", "frontend", "migrator"],
    "tag": ["v1.8.0", "v2.3.1", "2026.02", "rc-7"],
}  # fmt: skip

# (trigger, lesson). Slots in braces. Corpus programs appear only with other subcommands.
TEMPLATES: list[tuple[str, str]] = [
    # npm / pnpm / yarn / npx — other subcommands
    ("npm publish --access public", "npm publish fails with E403 without an OTP here; publish from CI, which has the automation token."),
    ("npm version {ver}", "npm version refuses on a dirty tree (Git working directory not clean); commit first."),
    ("npm link {js}", "npm link breaks peer deps of {js}; use a file: dependency or pnpm link --global instead."),
    ("npm cache clean --force", "Clearing the npm cache does not fix EINTEGRITY here; delete package-lock.json entries for the package instead."),
    ("npm outdated", "npm outdated exits 1 when anything is outdated; don't chain it with && in scripts."),
    ("npm dedupe", "npm dedupe rewrote the lockfile for the whole monorepo; run it only in a dedicated PR."),
    ("npm pack --dry-run", "npm pack includes .env.local unless it is in .npmignore; check the file list."),
    ("npm uninstall {js}", "Removing {js} breaks the build of packages/legacy that imports it transitively."),
    ("pnpm publish -r", "pnpm publish -r fails with ERR_PNPM_GIT_UNCLEAN; changesets publishes from CI."),
    ("pnpm store prune", "pnpm store prune while another install runs corrupts the store; run it alone."),
    ("pnpm patch {js}@{ver}", "pnpm patch needs pnpm patch-commit afterwards or the patch is lost."),
    ("pnpm up -r --latest {js}", "pnpm up -r --latest {js} jumps a major version; pin with {js}@^{ver}."),
    ("pnpm deploy --filter {svc} out/", "pnpm deploy needs inject-workspace-packages=true in .npmrc for {svc}."),
    ("yarn npm publish", "yarn npm publish needs npmAuthToken in .yarnrc.yml; use the CI job."),
    ("yarn set version {ver}", "yarn set version rewrites .yarnrc.yml and the release file; commit both."),
    ("yarn workspaces foreach -A run build", "foreach -A builds in the wrong order; add --topological."),
    ("yarn cache clean --all", "Cleaning the yarn cache forces 2 GB of downloads; use yarn cache clean {js} instead."),
    ("npx create-react-app {svc}", "create-react-app is deprecated; scaffold with npm create vite@latest."),
    ("npx prettier --write .", "prettier --write . also formats generated files under dist/; scope it to src/."),
    # cargo — other subcommands
    ("cargo publish -p {crate}", "cargo publish -p {crate} fails when path dependencies have no version; add version = to them."),
    ("cargo update -p {crate} --precise {ver}", "cargo update --precise fails if another crate pins {crate}; update that crate first."),
    ("cargo doc --open", "cargo doc --open cannot open a browser in this container; read target/doc directly."),
    ("cargo bench -p {crate}", "Benchmarks need --features bench on {crate}."),
    ("cargo add {crate}", "cargo add {crate} enables default features; add with --no-default-features for the wasm build."),
    ("cargo expand", "cargo expand needs the nightly toolchain: cargo +nightly expand."),
    ("cargo audit", "cargo audit flags RUSTSEC-2023-0071 (rsa) which has no fix; it is ignored in audit.toml."),
    # go — other subcommands
    ("go install {gomod}@latest", "go install @latest pulls an untested version; pin the tool version in tools.go."),
    ("go generate ./...", "go generate needs mockgen v1.6.0 on PATH; install with go install go.uber.org/mock/mockgen@v0.4.0."),
    ("go work sync", "go work sync rewrites go.mod of every module; don't commit go.work changes."),
    ("go clean -modcache", "go clean -modcache takes 10 minutes to recover from on this network."),
    ("go mod vendor", "This repo does not vendor; go mod vendor adds 40k files."),
    # git — other subcommands
    ("git stash pop", "git stash pop conflicted with local changes in {file_py}; commit or stash them first."),
    ("git cherry-pick {tag}", "Cherry-picking a merge commit needs -m 1."),
    ("git submodule update --init", "The proto submodule needs --recursive."),
    ("git tag -d {tag}", "Deleting a tag locally doesn't delete it on origin: git push origin :refs/tags/{tag}."),
    ("git clean -fdx", "git clean -fdx deletes .env and the local database file; use git clean -fd."),
    ("git bisect start", "Run git bisect with a script (git bisect run) so it doesn't stop for input."),
    ("git lfs pull", "git lfs pull needs the LFS credentials helper; clone over https."),
    ("git worktree add ../{svc} {branch}", "A worktree of {branch} shares hooks; pre-commit needs reinstalling there."),
    ("git commit --amend --no-edit", "Amending a pushed commit needs a force-push; add a new commit instead."),
    ("git merge --squash {branch}", "A squash merge of {branch} loses co-author trailers; add them by hand."),
    # docker / compose — other subcommands
    ("docker system prune -a", "docker system prune -a deletes the cached base images and the next build takes 15 minutes."),
    ("docker exec -it {svc} sh", "The {svc} image is distroless: there is no shell; use docker debug."),
    ("docker run --rm -p {port}:{port} {img}", "{img} reads config from /etc/{img}; mount it or it exits immediately."),
    ("docker push {img}:{tag}", "Pushing {img}:{tag} by hand bypasses signing; let CI push release tags."),
    ("docker login ghcr.io", "docker login ghcr.io needs a PAT with read:packages, not the account password."),
    ("docker compose build --no-cache {svc}", "A no-cache build of {svc} re-downloads 2 GB of wheels; use --pull instead."),
    ("docker compose exec {svc} bash", "The {svc} container only has sh."),
    ("docker volume rm {svc}_data", "Removing {svc}_data deletes the local Elasticsearch index; rebuilding takes an hour."),
    # kubectl / helm — other subcommands
    ("kubectl rollout undo deployment/{svc} -n {ns}", "Rollback of {svc} must go through Argo CD or it is reverted in 3 minutes."),
    ("kubectl scale deployment/{svc} --replicas={n} -n {ns}", "The HPA owns replicas for {svc}; scaling by hand is undone."),
    ("kubectl edit configmap {svc}-config -n {ns}", "Edits to {svc}-config are overwritten by the next deploy; change the kustomize overlay."),
    ("kubectl port-forward svc/{svc} {port}:80 -n {ns}", "port-forward to {svc} drops after 5 minutes idle; add --address 127.0.0.1 and retry."),
    ("kubectl exec -it deploy/{svc} -n {ns} -- sh", "exec into {svc} picks the sidecar by default; add -c {svc}."),
    ("kubectl drain {host} --ignore-daemonsets", "Draining needs --delete-emptydir-data for the cache pods."),
    ("helm rollback {svc} {n} -n {ns}", "helm rollback of {svc} leaves the CRDs at the new version."),
    ("helm repo update", "helm repo update fails on the internal chart museum without VPN."),
    ("helm uninstall {svc} -n {ns}", "helm uninstall {svc} deletes the PVCs of the release; back up first."),
    ("helm dependency update charts/{svc}", "helm dependency update bumps sub-chart versions; use helm dependency build."),
    # terraform — other subcommands
    ("terraform state rm module.{svc}", "terraform state rm orphans the real resource; use terraform state mv."),
    ("terraform import aws_s3_bucket.{svc} {bucket}", "Import needs the provider alias for {region}."),
    ("terraform workspace new {env}", "Workspaces are not used here; environments are var files."),
    ("terraform init -upgrade", "init -upgrade bumps provider versions past the lock file; commit .terraform.lock.hcl."),
    ("terraform taint aws_instance.{svc}", "taint is deprecated; use terraform apply -replace=aws_instance.{svc}."),
    ("terraform force-unlock {n}", "Only force-unlock after checking nobody else is running; ask in #infra."),
    # aws / gcloud / az — other services
    ("aws s3 rm s3://{bucket} --recursive", "The {bucket} bucket has versioning; rm --recursive leaves delete markers, not free space."),
    ("aws logs tail /aws/lambda/{svc} --follow", "logs tail needs --region {region}; the default region has no such group."),
    ("aws ssm start-session --target i-0{n}a2b3c4d", "SSM sessions need the session-manager-plugin installed."),
    ("aws rds reboot-db-instance --db-instance-identifier {db}", "Rebooting {db} fails over to the standby; announce it first."),
    ("aws lambda update-function-code --function-name {svc} --zip-file fileb://{svc}.zip", "Deploy {svc} with sam deploy, not raw update-function-code."),
    ("gcloud auth login", "Use gcloud auth application-default login for local SDK credentials."),
    ("gcloud run deploy {svc} --source .", "gcloud run deploy --source builds without the cache; use the Cloud Build trigger."),
    ("gcloud container clusters get-credentials {env}", "get-credentials needs --region, the clusters are regional."),
    ("gcloud sql connect {db}", "gcloud sql connect needs the public IP allow-list; use cloud-sql-proxy."),
    ("az login", "az login opens a browser; use az login --use-device-code in the container."),
    ("az aks get-credentials -n {env} -g rg-{env}", "Add --admin only for break-glass; normal access is via AAD."),
    # python tooling — other subcommands
    ("poetry lock", "poetry lock without --no-update upgrades everything (poetry < 2)."),
    ("poetry publish --build", "poetry publish needs the PyPI token in POETRY_PYPI_TOKEN_PYPI."),
    ("poetry add {py}@latest", "poetry add @latest ignores the python constraint; pin {py} manually."),
    ("pip download {py} -d wheels/", "pip download picks the host platform; pass --platform manylinux2014_x86_64 --only-binary=:all:."),
    ("pip freeze > requirements.txt", "pip freeze also writes editable installs and local paths; use pip-compile."),
    ("pipx install {py}", "pipx installs into ~/.local/bin which is not on PATH in CI."),
    ("conda env create -f environment.yml", "conda env create takes 20 minutes; use mamba env create."),
    ("pyenv install {ver}", "pyenv install needs libssl-dev and libbz2-dev or Python builds without ssl."),
    ("tox -e py312", "tox recreates envs every run unless --develop is used."),
    ("mypy --install-types", "mypy --install-types prompts; add --non-interactive."),
    ("black .", "black and ruff format disagree on this repo; ruff format is the formatter."),
    ("python manage.py migrate", "Django migrations run against the prod DATABASE_URL if .env is loaded; check DJANGO_SETTINGS_MODULE."),
    ("python manage.py makemigrations", "makemigrations with no app label also creates a migration for the vendored app."),
    ("celery -A {svc} worker", "celery worker needs -P solo on Windows runners."),
    ("jupyter nbconvert --execute report.ipynb", "nbconvert times out after 30s per cell; pass --ExecutePreprocessor.timeout=600."),
    # other programs
    ("brew upgrade", "brew upgrade also upgrades postgresql and breaks the local data directory."),
    ("apt-get install -y {py}", "Install Python packages in the venv, not python3-{py} from apt."),
    ("sudo systemctl restart nginx", "Test the config first: sudo nginx -t."),
    ("journalctl -u {svc} -f", "journalctl needs sudo or the systemd-journal group here."),
    ("ssh {host}", "{host} only accepts the jump host: ssh -J bastion.internal {host}."),
    ("scp dump.sql {host}:/tmp/", "{host} has /tmp on a 1 GB tmpfs; copy to /var/tmp."),
    ("redis-cli -p {port} FLUSHALL", "FLUSHALL on {port} also clears the session store of the staging app."),
    ("mongosh --eval 'db.{db}.drop()'", "Never drop collections from a shell; use the migration tool."),
    ("mysql -h 127.0.0.1 -P {port} -u root", "The local MySQL listens on {port} only inside docker; use docker compose exec."),
    ("pg_dump {db} > {db}.sql", "pg_dump without -Fc can't be restored in parallel; use pg_dump -Fc."),
    ("pg_restore -d {db} {db}.dump", "pg_restore into an existing db needs --clean --if-exists."),
    ("sqlite3 data/{db}.db", "The sqlite file is locked while the dev server runs."),
    ("ffmpeg -i input.mov output.mp4", "ffmpeg defaults to a 10 Mbit/s bitrate here; pass -crf 23."),
    ("openssl req -new -x509 -days 365", "Self-signed certs need subjectAltName or browsers reject them."),
    ("gpg --sign-key", "Sign with the release key on the YubiKey, not the local key."),
    ("jq '.items[]' {svc}.json", "jq '.items[]' fails on the paginated export; use .data.items[]."),
    ("curl -k https://{host}", "-k hides the expired internal CA; update the bundle instead."),
    ("wget -r -np https://{host}/", "wget -r against the internal wiki gets the IP blocked."),
    ("tar -xzf backup.tgz -C /", "Extracting to / overwrites /etc; extract to a temp dir."),
    ("find . -name '*.pyc' -delete", "find -delete before -name deletes everything; put -delete last."),
    ("chmod -R 777 {svc}", "chmod 777 breaks ssh key permissions in the repo's deploy folder."),
    ("gh pr merge --admin", "--admin skips required reviews; wait for approval."),
    ("gh release create {tag}", "Releases are created by release-please; don't create them by hand."),
    ("glab mr create --fill", "--fill uses the last commit only; write the description."),
    ("vercel --prod", "Prod deploys go through the main branch; vercel --prod from a laptop skips checks."),
    ("netlify deploy --prod", "netlify deploy --prod publishes drafts too."),
    ("firebase deploy", "firebase deploy deploys functions too; use --only hosting."),
    ("supabase db reset", "supabase db reset wipes local auth users; reseed with supabase/seed.sql."),
    ("flyctl deploy", "fly deploy needs --remote-only; local builders can't reach the registry."),
    ("heroku run rails console -a {svc}", "Use a read-only follower for console sessions on {svc}."),
    ("ansible-playbook site.yml", "Run with --check --diff first; site.yml targets prod by default."),
    ("vagrant destroy -f", "vagrant destroy deletes the synced dev database."),
    ("packer build ami.pkr.hcl", "packer build needs AWS_PROFILE=images."),
    ("pulumi up --yes", "pulumi up --yes skips the preview; run pulumi preview first."),
    ("vault kv put secret/{svc}", "vault kv put replaces all keys; use vault kv patch."),
    ("argocd app sync {svc}", "argocd app sync {svc} with --prune deletes hand-made resources."),
    ("skaffold dev", "skaffold dev rebuilds every image; use --module {svc}."),
    ("minikube start", "minikube start needs --memory 8192 for the full stack."),
    ("kind create cluster", "kind needs the config in hack/kind.yaml for the ingress ports."),
    ("istioctl install", "istioctl install without -f resets the mesh config."),
    ("bazel build //...", "bazel build //... builds the mobile targets too; use //services/..."),
    ("cmake --build build -j", "cmake -j with no number starts hundreds of jobs; use -j{n}."),
    ("mvn clean install", "mvn install runs the integration tests; add -DskipITs."),
    ("./gradlew build", "gradle build needs JAVA_HOME for JDK 17."),
    ("dotnet ef database update", "dotnet ef database update targets Production unless ASPNETCORE_ENVIRONMENT=Development."),
    ("bundle exec rails db:migrate", "Run db:migrate with RAILS_ENV=development explicitly."),
    ("composer update", "composer update upgrades every package; use composer update vendor/pkg."),
    ("php artisan migrate:fresh", "migrate:fresh drops all tables including the seeded reference data."),
    ("mix ecto.reset", "ecto.reset drops the dev database; use ecto.rollback."),
    ("flutter pub upgrade --major-versions", "--major-versions breaks the null-safety pins."),
    ("pod install", "pod install needs pod repo update on a fresh machine."),
    ("xcodebuild -scheme App", "xcodebuild needs -destination for the simulator."),
    ("deno task dev", "deno task dev needs --allow-env in the task definition."),
    ("bun install", "bun install rewrites the yarn.lock of the legacy app; keep bun to apps/edge."),
    ("rustup update", "rustup update moves stable past the MSRV pinned in rust-toolchain.toml."),
    ("nvm alias default {n}", "Changing the default node version breaks the global CLIs installed for the old one."),
    ("sed -n '/BEGIN/,/END/p' {svc}.pem", "Use openssl x509 -in to read certs."),
    ("rsync --delete-excluded {svc}/ {host}:/srv/{svc}/", "--delete-excluded removes the uploads dir on the server."),
    ("make release", "make release tags and pushes; run make release-dry first."),
    ("make docker-push", "make docker-push pushes :latest; pass TAG={tag}."),
    ("psql -c 'VACUUM FULL'", "VACUUM FULL locks the table for minutes; use plain VACUUM."),
    ("alembic stamp head", "alembic stamp head hides missing migrations; only stamp after checking the schema."),
    ("alembic downgrade base", "downgrade base drops every table."),
    ("pytest --lf", "--lf runs nothing after a cache clear; drop it in CI."),
    ("pytest --snapshot-update", "Review snapshot diffs before --snapshot-update."),
    ("uv python install {ver}", "uv python install downloads a standalone build without tkinter."),
    ("uv tool run ruff@{ver}", "Use the ruff version pinned in pyproject, not an ad-hoc tool run."),
    ("scrapy shell 'https://{host}/'", "scrapy shell ignores the project settings' USER_AGENT unless run inside the project."),
    ("yarn dlx {js}", "yarn dlx {js} uses a global cache that isn't shared with CI."),
    ("pnpm dlx create-next-app {svc}", "Create apps from the turbo generator (pnpm turbo gen app)."),
    ("npm exec -- tsc --build --clean", "tsc --build --clean also removes the generated API client."),
]  # fmt: skip

# Code lessons: (file slot, code, lesson). The trigger is "Edit <file>\n<code>" like an edit's action text.
CODE_TEMPLATES: list[tuple[str, str, str]] = [
    ("file_py", "print(f\"debug {value}\")", "Use the module logger, not print, in library code."),
    ("file_py", "except:\n    pass", "Never a bare except: pass; catch the specific exception and log it."),
    ("file_py", "subprocess.run(cmd, shell=True)", "No shell=True with interpolated input; pass an argument list."),
    ("file_py", "yaml.load(stream)", "yaml.load without a Loader is unsafe; use yaml.safe_load."),
    ("file_py", "pickle.loads(payload)", "Never unpickle data from the queue; it is JSON."),
    ("file_py", "requests.get(url, verify=False)", "Don't disable TLS verification; the internal CA bundle is in certs/."),
    ("file_py", "logger.info(f\"user {user_id} logged in\")", "Use lazy logging args (logger.info('user %s', user_id))."),
    ("file_py", "time.sleep(1)", "No time.sleep inside async handlers; use await asyncio.sleep."),
    ("file_py", "assert user.is_admin", "assert is stripped with -O; raise PermissionError instead."),
    ("file_py", "os.environ[\"API_KEY\"]", "Read settings from the Settings object, not os.environ, so tests can override them."),
    ("file_py", "json.dumps(obj, default=str)", "default=str hides non-serialisable bugs; write a proper encoder."),
    ("file_ts", "const data: any = await res.json();", "No any for API data; parse it with the zod schema."),
    ("file_ts", "console.log(\"state\", state);", "Remove console.log before committing; the linter rejects it in CI."),
    ("file_ts", "useEffect(() => { fetchUser(); }, []);", "List fetchUser in the deps or wrap it in useCallback."),
    ("file_ts", "element.innerHTML = html;", "Never assign innerHTML with server data; use textContent or DOMPurify."),
    ("file_ts", "parseInt(value)", "Pass the radix: parseInt(value, 10)."),
    ("file_ts", "export default function", "The codebase uses named exports only."),
    ("file_ts", "localStorage.setItem(\"token\", token);", "Tokens go in the httpOnly cookie, never localStorage."),
    ("file_go", "fmt.Println(\"debug\", v)", "Use the structured logger (slog), not fmt.Println."),
    ("file_go", "panic(err)", "Handlers must return errors, not panic."),
    ("file_go", "_ = json.Unmarshal(body, &req)", "Never ignore Unmarshal errors; return 400."),
    ("file_go", "ctx := context.Background()", "Use the request's context, not context.Background, in handlers."),
    ("file_go", "http.DefaultClient.Do(req)", "http.DefaultClient has no timeout; use the shared client from internal/httpx."),
    ("file_go", "sync.Mutex{}\n\tcopy := *c", "Don't copy structs that contain a sync.Mutex."),
    ("file_rs", "println!(\"{:?}\", value);", "Use tracing::debug!, not println!, in library crates."),
    ("file_rs", "data.clone()", "Avoid cloning the buffer in the hot loop; borrow it."),
    ("file_rs", "std::thread::sleep(Duration::from_secs(1));", "Don't block in async code; use tokio::time::sleep."),
    ("file_rs", "unsafe {", "unsafe blocks need a // SAFETY: comment."),
]  # fmt: skip

KINDS = ["error_fix", "correction", "learning", "gotcha", "retry", "test_fix", "manual"]


NESTED = {("docker", "compose"), ("kubectl", "rollout"), ("kubectl", "config"), ("terraform", "state"), ("uv", "pip"),
          ("pnpm", "dlx"), ("yarn", "dlx"), ("npm", "exec"), ("git", "stash"), ("cargo", "run")}  # fmt: skip


def command_key(command: str) -> tuple[str, ...]:
    """(program, subcommand[, sub-subcommand]) of a command, for the no-overlap rule.

    Two levels for the cloud CLIs and a few nested subcommands (``docker compose
    up``, ``kubectl rollout undo``, ``aws s3 rm``), one level otherwise
    (``git push``, ``npm publish``). ``uv run`` / ``poetry run`` / ``VAR=value``
    prefixes are skipped.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # VAR=value prefixes
    if len(words) > 1 and words[0] in ("uv", "poetry") and words[1] == "run":
        words = words[2:]
    if words and words[0] in ("sudo", "env", "time"):
        words = words[1:]
    if not words:
        return ("",)
    prog = words[0].rsplit("/", 1)[-1]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if prog in ("aws", "gcloud", "az") or (prog, rest[0] if rest else "") in NESTED:
        return (prog, *rest[:2])
    return (prog, *rest[:1])


def generate(count: int, seed: int, forbidden_commands: list[str]) -> list[dict]:
    """``count`` distinct noise lessons, deterministic for ``seed``.

    ``forbidden_commands``: every shell command of the corpus (probes, everyday
    calls, session calls); a template whose (program, subcommand) matches one of
    them is skipped, so no noise lesson is about something the corpus does.
    Each lesson: ``text``, ``trigger``, ``kind``, ``rule`` (bool, about 12%),
    ``scope`` ("global", "corpus" or "foreign": which project it belongs to).
    """
    rng = random.Random(seed)
    forbidden = {command_key(seg) for c in forbidden_commands for seg in re.split(r"\|\||&&|;|\|", c) if seg.strip()}
    shell = [t for t in TEMPLATES if command_key(t[0].format(**{k: v[0] for k, v in SLOTS.items()})) not in forbidden]
    out: list[dict] = []
    seen: set[str] = set()
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        fill = {k: rng.choice(v) for k, v in SLOTS.items()}
        if rng.random() < 0.2:
            slot, code, text = rng.choice(CODE_TEMPLATES)
            trigger = f"Edit {fill[slot]}\n{code}"
        else:
            trig, text = rng.choice(shell)
            trigger = trig.format(**fill)
            text = text.format(**fill)
            # a second variant of the same lesson: another value of a slot-free flag
            if trigger in seen:
                trigger = f"{trigger} {rng.choice(['--verbose', '-q', '--dry-run', '--yes', '-v'])}"
        if trigger in seen:
            continue
        seen.add(trigger)
        roll = rng.random()
        out.append(
            {
                "text": text,
                "trigger": trigger,
                "kind": rng.choice(KINDS),
                "rule": rng.random() < 0.12,
                "scope": "global" if roll < 0.45 else ("corpus" if roll < 0.85 else "foreign"),
                "pick": rng.random(),  # which corpus / foreign project, chosen by the harness
            }
        )
    if len(out) < count:
        raise RuntimeError(f"noise generator produced only {len(out)} distinct lessons")
    return out
