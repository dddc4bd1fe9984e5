"""blind3 / marker: the assistant writes the lesson down itself (GOTCHA: / LEARNING: / NOTE TO SELF:)."""

from __future__ import annotations

from ..spec import CC, CODEX, GEMINI, MARKER, A, Incident, U, err, fix, help_, ok, other, read, reword, same

INCIDENTS = [
    Incident(
        id="b3-marker-git-01",
        shape=MARKER,
        agent=CC,
        project="glasshouse",
        session=[
            U("pull the latest main and rebuild"),
            ok(
                "git pull",
                "Updating 41c2e9a..b7d0f13\nFast-forward\n api | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
            ),
            err(
                "make build",
                "go build -o bin/manager cmd/main.go\n"
                "internal/controller/widget_controller.go:88:14: w.Spec.Replicas undefined (type v1alpha1.WidgetSpec has no field or method Replicas)",
                2,
            ),
            ok("git submodule status", "+9e1d4c2 api (v0.9.1-3-g9e1d4c2)"),
            A(
                "The api/ submodule pointer moved but its checkout did not: a plain git pull leaves the submodule behind."
            ),
            ok(
                "git pull --recurse-submodules", "Already up to date.\nSubmodule path 'api': checked out '9e1d4c2a77f0'"
            ),
            ok("make build", "go build -o bin/manager cmd/main.go"),
            A(
                "GOTCHA: in glasshouse a bare `git pull` leaves the api/ submodule at the old commit and the build breaks; "
                "always `git pull --recurse-submodules`."
            ),
        ],
        mistake="git pull",
        lesson="glasshouse vendors api/ as a submodule: pull with git pull --recurse-submodules, never a bare git pull",
        warn=[
            same("git pull"),
            reword("git pull --rebase origin main"),
            reword("git pull --ff-only"),
        ],
        silent=[
            fix("git pull --recurse-submodules"),
            fix("git pull --rebase --recurse-submodules origin main"),
            other("git submodule status"),
            other("git fetch --all --prune"),
        ],
    ),
    Incident(
        id="b3-marker-git-02",
        shape=MARKER,
        agent=CODEX,
        project="quarry",
        session=[
            U("rebase my branch on main, CI says it's out of date"),
            ok("git rebase main", "Current branch feat/fuzzy-index is up to date."),
            ok("git log --oneline -1 origin/main", "c02e7b1 (origin/main) index: cap mmap size"),
            ok("git log --oneline -1 main", "8d9a3f0 (main) ci: cache sccache dir"),
            A("Local main is weeks old; the rebase did nothing. Rebasing on the fetched remote branch."),
            ok(
                "git fetch origin && git rebase origin/main",
                "Successfully rebased and updated refs/heads/feat/fuzzy-index.",
            ),
            A(
                "NOTE TO SELF: in quarry nobody updates the local main; `git rebase main` rebases onto a stale branch. "
                "Use `git fetch origin && git rebase origin/main`."
            ),
        ],
        mistake="git rebase main",
        lesson="quarry's local main is stale: rebase with git fetch origin && git rebase origin/main, not git rebase main",
        warn=[
            same("git rebase main"),
            reword("git rebase --autostash main"),
            reword("git rebase main feat/fuzzy-index"),
        ],
        silent=[
            fix("git fetch origin && git rebase origin/main"),
            fix("git rebase --autostash origin/main"),
            other("git rebase --continue"),
            other("git log --oneline origin/main..HEAD"),
        ],
    ),
    Incident(
        id="b3-marker-docker-03",
        shape=MARKER,
        agent=GEMINI,
        project="mosaic-shop",
        session=[
            U("add guzzle to the shop"),
            ok(
                "docker compose exec php composer require guzzlehttp/guzzle",
                "./composer.json has been updated\nRunning composer update guzzlehttp/guzzle\n  - Installing guzzlehttp/guzzle (7.9.2): Extracting archive",
            ),
            ok(
                "git status --short",
                "warning: could not open directory 'vendor/guzzlehttp/': Permission denied\n M composer.json\n M composer.lock",
            ),
            ok("ls -ld vendor/guzzlehttp", "drwxr-xr-x 5 root root 4096 Mar  2 09:12 vendor/guzzlehttp"),
            ok("docker compose exec php chown -R 1000:1000 vendor"),
            A(
                "GOTCHA: in mosaic-shop `docker compose exec php composer ...` runs as root and leaves root-owned files in vendor/; "
                "run composer as www-data: `docker compose exec -u www-data php composer ...`."
            ),
        ],
        mistake="docker compose exec php composer require guzzlehttp/guzzle",
        lesson="mosaic-shop: run composer in the php container as www-data (docker compose exec -u www-data php composer ...), never as root",
        warn=[
            same("docker compose exec php composer require guzzlehttp/guzzle"),
            reword("docker compose exec php composer install --no-interaction"),
            reword("docker compose exec -T php composer update symfony/mailer"),
        ],
        silent=[
            fix("docker compose exec -u www-data php composer require guzzlehttp/guzzle"),
            fix("docker compose exec --user www-data php composer install --no-interaction"),
            other("docker compose exec php php -v"),
            other("docker compose logs php"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b3-marker-docker-04",
        shape=MARKER,
        agent=CC,
        project="switchyard",
        session=[
            U("push a dev image to ghcr and roll it into the staging cluster"),
            ok(
                "docker buildx build -f build/Dockerfile -t ghcr.io/acme/switchyard:dev --push .",
                "[+] Building 52.3s (15/15) FINISHED\n => pushing ghcr.io/acme/switchyard:dev with docker",
            ),
            ok("kubectl rollout restart deployment/switchyard -n staging", "deployment.apps/switchyard restarted"),
            err(
                "kubectl logs deployment/switchyard -n staging",
                "exec /usr/local/bin/switchyard: exec format error",
            ),
            A("The laptop is arm64 and the staging nodes are amd64, so the image has the wrong architecture."),
            ok(
                "docker buildx build --platform linux/amd64 -f build/Dockerfile -t ghcr.io/acme/switchyard:dev --push .",
                "[+] Building 118.0s (15/15) FINISHED\n => pushing ghcr.io/acme/switchyard:dev with docker",
            ),
            ok("kubectl rollout restart deployment/switchyard -n staging", "deployment.apps/switchyard restarted"),
            A(
                "LEARNING: images for switchyard's clusters must be built with `--platform linux/amd64`; "
                "a plain buildx build on this arm64 laptop pushes an image that dies with 'exec format error'."
            ),
        ],
        mistake="docker buildx build -f build/Dockerfile -t ghcr.io/acme/switchyard:dev --push .",
        lesson="switchyard images pushed for the cluster must be built with --platform linux/amd64 (the laptop is arm64)",
        warn=[
            same("docker buildx build -f build/Dockerfile -t ghcr.io/acme/switchyard:dev --push ."),
            reword("docker buildx build --push -f build/Dockerfile -t ghcr.io/acme/switchyard:pr-42 ."),
            reword("docker buildx build -t ghcr.io/acme/switchyard:dev -f build/Dockerfile . --push --progress=plain"),
        ],
        silent=[
            fix(
                "docker buildx build --platform linux/amd64 -f build/Dockerfile -t ghcr.io/acme/switchyard:dev --push ."
            ),
            fix(
                "docker buildx build -f build/Dockerfile -t ghcr.io/acme/switchyard:pr-42 --push --platform=linux/amd64 ."
            ),
            other("docker buildx ls"),
            other("docker build -f build/Dockerfile -t switchyard:local ."),
        ],
    ),
    Incident(
        id="b3-marker-k8s-05",
        shape=MARKER,
        agent=CODEX,
        project="harborview",
        session=[
            U("drain ip-10-0-3-17 so we can replace it"),
            err(
                "kubectl drain ip-10-0-3-17.eu-west-1.compute.internal",
                "node/ip-10-0-3-17.eu-west-1.compute.internal cordoned\n"
                'error: unable to drain node "ip-10-0-3-17.eu-west-1.compute.internal" due to error: [cannot delete DaemonSet-managed Pods '
                "(use --ignore-daemonsets to ignore): kube-system/aws-node-7xk2p, kube-system/kube-proxy-q9v4c, "
                "cannot delete Pods with local storage (use --delete-emptydir-data to override): edge/gateway-5f7c9d8b6-x2kqp]",
            ),
            ok(
                "kubectl drain ip-10-0-3-17.eu-west-1.compute.internal --ignore-daemonsets --delete-emptydir-data",
                "node/ip-10-0-3-17.eu-west-1.compute.internal already cordoned\nevicting pod edge/gateway-5f7c9d8b6-x2kqp\n"
                "pod/gateway-5f7c9d8b6-x2kqp evicted\nnode/ip-10-0-3-17.eu-west-1.compute.internal drained",
            ),
            A(
                "GOTCHA: every harborview node runs daemonsets and the gateway uses emptyDir, so `kubectl drain <node>` "
                "always fails; drain with `--ignore-daemonsets --delete-emptydir-data`."
            ),
        ],
        mistake="kubectl drain ip-10-0-3-17.eu-west-1.compute.internal",
        lesson="harborview nodes: kubectl drain always needs --ignore-daemonsets --delete-emptydir-data",
        warn=[
            same("kubectl drain ip-10-0-3-17.eu-west-1.compute.internal"),
            reword("kubectl drain ip-10-0-5-88.eu-west-1.compute.internal --timeout=5m"),
            reword("kubectl drain --grace-period=60 ip-10-0-7-201.eu-west-1.compute.internal"),
        ],
        silent=[
            fix("kubectl drain ip-10-0-3-17.eu-west-1.compute.internal --ignore-daemonsets --delete-emptydir-data"),
            fix(
                "kubectl drain --ignore-daemonsets --delete-emptydir-data --timeout=5m ip-10-0-5-88.eu-west-1.compute.internal"
            ),
            other("kubectl cordon ip-10-0-3-17.eu-west-1.compute.internal"),
            other("kubectl uncordon ip-10-0-3-17.eu-west-1.compute.internal"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b3-marker-k8s-06",
        shape=MARKER,
        agent=GEMINI,
        project="glasshouse",
        session=[
            U("bump the chart to 0.9.2 on the dev cluster and keep my overrides"),
            ok(
                "helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system --reuse-values",
                'Release "glasshouse" has been upgraded. Happy Helming!\nREVISION: 7',
            ),
            err(
                "kubectl get pods -n glasshouse-system",
                "NAME                                              READY   STATUS                       RESTARTS   AGE\n"
                "glasshouse-controller-manager-6b9f7c8d4-7twq2    0/2     CreateContainerConfigError   0          31s",
            ),
            ok(
                "kubectl describe pod -n glasshouse-system glasshouse-controller-manager-6b9f7c8d4-7twq2 | tail -3",
                "  Warning  Failed  12s  kubelet  Error: couldn't find key webhookCertSecret in values: new chart default missing",
            ),
            A("--reuse-values kept the old values only, so the new chart defaults (webhook.certSecret) never applied."),
            ok(
                "helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system --reset-then-reuse-values",
                'Release "glasshouse" has been upgraded. Happy Helming!\nREVISION: 8',
            ),
            A(
                "LEARNING: for glasshouse chart bumps `--reuse-values` drops the new chart's defaults; "
                "use `--reset-then-reuse-values` to keep the overrides and pick up new defaults."
            ),
        ],
        mistake="helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system --reuse-values",
        lesson="glasshouse chart upgrades: --reuse-values loses new chart defaults; use --reset-then-reuse-values",
        warn=[
            same("helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system --reuse-values"),
            reword(
                "helm upgrade -i glasshouse ./charts/glasshouse --reuse-values -n glasshouse-system --set image.tag=v0.9.2"
            ),
            reword("helm upgrade --reuse-values --install -n glasshouse-system glasshouse charts/glasshouse"),
        ],
        silent=[
            fix("helm upgrade --install glasshouse ./charts/glasshouse -n glasshouse-system --reset-then-reuse-values"),
            fix(
                "helm upgrade -i glasshouse ./charts/glasshouse --reset-then-reuse-values -n glasshouse-system --set image.tag=v0.9.2"
            ),
            other("helm get values glasshouse -n glasshouse-system"),
            other("helm list -n glasshouse-system"),
        ],
    ),
    Incident(
        id="b3-marker-npm-07",
        shape=MARKER,
        agent=CC,
        project="tidepool-web",
        session=[
            U("build just the web app"),
            err(
                "pnpm --filter web build",
                'No projects matched the filters in "/work/tidepool-web"',
            ),
            ok("cat apps/web/package.json | head -3", '{\n  "name": "@tidepool/web",\n  "version": "0.42.0",'),
            ok(
                "pnpm --filter @tidepool/web build",
                "> @tidepool/web@0.42.0 build /work/tidepool-web/apps/web\n> next build\n\n   ▲ Next.js 14.2.15\n ✓ Compiled successfully",
            ),
            A(
                "NOTE TO SELF: tidepool-web's packages are scoped; `pnpm --filter web` matches nothing. "
                "Filter with the full name: `pnpm --filter @tidepool/web ...`."
            ),
        ],
        mistake="pnpm --filter web build",
        lesson="tidepool-web packages are scoped: use pnpm --filter @tidepool/web, not --filter web",
        warn=[
            same("pnpm --filter web build"),
            reword("pnpm -F web test"),
            reword("pnpm --filter=web run lint"),
        ],
        silent=[
            fix("pnpm --filter @tidepool/web build"),
            fix("pnpm -F @tidepool/web test"),
            other("pnpm -r build"),
            other("pnpm --filter @tidepool/ui build"),
        ],
    ),
    Incident(
        id="b3-marker-python-08",
        shape=MARKER,
        agent=CODEX,
        project="riverbed-ml",
        session=[
            U("add torch to the venv so the CI smoke test can import the model"),
            ok(
                ".venv/bin/pip install torch==2.4.1",
                "Collecting torch==2.4.1\n  Downloading torch-2.4.1-cp312-cp312-manylinux1_x86_64.whl (797.1 MB)\n"
                "Collecting nvidia-cudnn-cu12==9.1.0.70\n  Downloading nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl (664.8 MB)\n"
                "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
            ),
            A("The default wheel drags in the whole CUDA stack. The CI and dev boxes have no GPU."),
            ok(
                ".venv/bin/pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cpu",
                "Looking in indexes: https://download.pytorch.org/whl/cpu\nCollecting torch==2.4.1\n"
                "  Downloading https://download.pytorch.org/whl/cpu/torch-2.4.1%2Bcpu-cp312-cp312-linux_x86_64.whl (194.9 MB)\nSuccessfully installed torch-2.4.1+cpu",
            ),
            A(
                "LEARNING: in riverbed-ml install torch from the CPU index (`--index-url https://download.pytorch.org/whl/cpu`); "
                "the default PyPI wheel pulls ~3GB of CUDA libs and fills the disk."
            ),
        ],
        mistake=".venv/bin/pip install torch==2.4.1",
        lesson="riverbed-ml dev/CI has no GPU: pip install torch with --index-url https://download.pytorch.org/whl/cpu",
        warn=[
            same(".venv/bin/pip install torch==2.4.1"),
            reword(".venv/bin/pip install torch torchvision"),
            reword("source .venv/bin/activate && pip install 'torch>=2.4'"),
        ],
        silent=[
            fix(".venv/bin/pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cpu"),
            fix(".venv/bin/pip install --index-url https://download.pytorch.org/whl/cpu torch torchvision"),
            other(".venv/bin/pip install numpy"),
            other(".venv/bin/pip show torch"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b3-marker-go-09",
        shape=MARKER,
        agent=GEMINI,
        project="glasshouse",
        session=[
            U("run the controller tests"),
            err(
                "go test ./internal/controller/...",
                "--- FAIL: TestAPIs (0.01s)\n    suite_test.go:62: unable to start the controlplane. retried 5 times: "
                "fork/exec /usr/local/kubebuilder/bin/etcd: no such file or directory\nFAIL\n"
                "FAIL\tgithub.com/glasshouse-dev/glasshouse/internal/controller\t0.093s",
            ),
            read(
                "Makefile",
                'test: manifests generate fmt vet envtest\n\tKUBEBUILDER_ASSETS="$(shell $(ENVTEST) use $(ENVTEST_K8S_VERSION) -p path)" go test ./... -coverprofile cover.out\n',
            ),
            ok(
                "make test",
                'KUBEBUILDER_ASSETS="/work/glasshouse/bin/k8s/1.30.0-linux-amd64" go test ./... -coverprofile cover.out\n'
                "ok  \tgithub.com/glasshouse-dev/glasshouse/internal/controller\t9.812s\tcoverage: 71.3% of statements",
            ),
            A(
                "GOTCHA: glasshouse's controller tests need envtest binaries; bare `go test ./internal/controller/...` "
                "fails to start etcd. Run `make test`, which sets KUBEBUILDER_ASSETS."
            ),
        ],
        mistake="go test ./internal/controller/...",
        lesson="glasshouse controller tests need envtest: run make test (it sets KUBEBUILDER_ASSETS), not a bare go test on internal/controller",
        warn=[
            same("go test ./internal/controller/..."),
            reword("go test -v ./internal/controller/... -run TestReconcile"),
            reword("go test ./internal/controller/ -count=1"),
        ],
        silent=[
            fix("make test"),
            fix('KUBEBUILDER_ASSETS="$(bin/setup-envtest use 1.30.0 -p path)" go test ./internal/controller/...'),
            other("go test ./api/..."),
            other("go vet ./..."),
        ],
    ),
    Incident(
        id="b3-marker-terraform-10",
        shape=MARKER,
        agent=CC,
        project="harborview",
        session=[
            U("only the node group needs changing, apply just that"),
            ok(
                "terraform apply -target=module.eks_nodes -lock-timeout=10m",
                "Warning: Resource targeting is in effect\n\nApply complete! Resources: 0 added, 1 changed, 0 destroyed.",
            ),
            err(
                "kubectl get nodes",
                "E0302 09:31:12.404118   memcache.go:265] couldn't get current server API group list: the server has asked for the client to provide credentials\n"
                "error: You must be logged in to the server (the server has asked for the client to provide credentials)",
            ),
            A(
                "The targeted apply replaced the node role but skipped module.eks's aws-auth mapping that depends on it."
            ),
            ok("terraform plan -lock-timeout=10m -out=tfplan", "Plan: 0 to add, 1 to change, 0 to destroy."),
            ok(
                "terraform apply -lock-timeout=10m tfplan",
                "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.",
            ),
            A(
                "GOTCHA: never `terraform apply -target=...` in harborview's cluster stack: it leaves aws-auth out of sync "
                "and locks everyone out. Plan and apply the whole root."
            ),
        ],
        mistake="terraform apply -target=module.eks_nodes",
        lesson="harborview: no terraform apply -target (leaves aws-auth out of sync); plan -out and apply the whole root",
        warn=[
            same("terraform apply -target=module.eks_nodes"),
            reword("terraform apply -target module.eks_nodes -target module.vpc -lock-timeout=10m"),
            reword("terraform apply -target='module.eks_nodes[\"blue\"]'"),
        ],
        silent=[
            fix("terraform plan -lock-timeout=10m -out=tfplan"),
            fix("terraform apply -lock-timeout=10m tfplan"),
            other("terraform state show module.eks_nodes.aws_eks_node_group.this"),
            other("terraform output cluster_endpoint"),
        ],
    ),
    Incident(
        id="b3-marker-make-11",
        shape=MARKER,
        agent=CODEX,
        project="atlas-mono",
        session=[
            U("full build please"),
            err(
                "make -j8 build",
                "tsc -p packages/router\ntsc -p packages/schema\npackages/router/src/routes.ts(3,29): error TS2307: "
                "Cannot find module '../gen/routes.gen' or its corresponding type declarations.\nmake: *** [Makefile:27: build-router] Error 2\n"
                "make: *** Waiting for unfinished jobs....",
                2,
            ),
            ok("make gen", "node scripts/gen-routes.mjs\nwrote packages/router/gen/routes.gen.ts"),
            ok("make -j8 build", "tsc -p packages/router\ntsc -p packages/schema\ntsc -p packages/app"),
            A(
                "NOTE TO SELF: atlas-mono's build targets don't depend on codegen, so `make -j8 build` on a fresh tree races; "
                "run `make gen` first, then `make -j8 build`."
            ),
        ],
        mistake="make -j8 build",
        lesson="atlas-mono: run make gen before a parallel build (make gen && make -j8 build); -j build alone races on codegen",
        warn=[
            same("make -j8 build"),
            reword("make build -j 8"),
            reword("make -j build"),
        ],
        silent=[
            fix("make gen && make -j8 build"),
            fix("make gen && make build -j 8"),
            other("make gen"),
            other("make lint"),
        ],
    ),
    Incident(
        id="b3-marker-gh-12",
        shape=MARKER,
        agent=GEMINI,
        project="cinder-docs",
        session=[
            U("publish the 3.2.0 docs"),
            err(
                "gh workflow run publish.yml -f version=3.2.0",
                "could not create workflow dispatch event: HTTP 422: Required input 'channel' not provided "
                "(https://api.github.com/repos/cinder-dev/cinder-docs/actions/workflows/118822/dispatches)",
            ),
            ok(
                "gh workflow run publish.yml -f version=3.2.0 -f channel=stable",
                "✓ Created workflow_dispatch event for publish.yml at main",
            ),
            A(
                "LEARNING: cinder-docs' publish.yml requires a `channel` input; "
                "always dispatch it with `-f channel=stable` (or beta) next to `-f version=...`."
            ),
        ],
        mistake="gh workflow run publish.yml -f version=3.2.0",
        lesson="cinder-docs publish.yml needs -f channel=stable|beta as well as -f version=...",
        warn=[
            same("gh workflow run publish.yml -f version=3.2.0"),
            reword("gh workflow run publish.yml --field version=3.2.1"),
            reword("gh workflow run publish.yml --ref main -f version=3.2.0"),
        ],
        silent=[
            fix("gh workflow run publish.yml -f version=3.2.0 -f channel=stable"),
            fix("gh workflow run publish.yml -f channel=beta -f version=3.3.0-rc.1"),
            other("gh run list --workflow publish.yml"),
            other("gh workflow view publish.yml"),
        ],
    ),
    Incident(
        id="b3-marker-cloud-13",
        shape=MARKER,
        agent=CC,
        project="riverbed-ml",
        session=[
            U("upload the epoch 12 checkpoint for run 0412"),
            err(
                "aws s3 cp checkpoints/epoch-12.pt s3://riverbed-models/runs/0412/",
                "upload failed: checkpoints/epoch-12.pt to s3://riverbed-models/runs/0412/epoch-12.pt An error occurred (AccessDenied) "
                "when calling the CreateMultipartUpload operation: User is not authorized to perform: s3:PutObject with an explicit deny in a resource-based policy",
            ),
            ok(
                "aws s3api get-bucket-policy --bucket riverbed-models --query Policy --output text | head -c 300",
                '{"Statement":[{"Sid":"DenyUnencrypted","Effect":"Deny","Action":"s3:PutObject","Condition":{"StringNotEquals":{"s3:x-amz-server-side-encryption":"aws:kms"}}',
            ),
            ok(
                "aws s3 cp checkpoints/epoch-12.pt s3://riverbed-models/runs/0412/ --sse aws:kms",
                "upload: checkpoints/epoch-12.pt to s3://riverbed-models/runs/0412/epoch-12.pt",
            ),
            A(
                "GOTCHA: s3://riverbed-models denies unencrypted PUTs; every `aws s3 cp`/`sync` into it needs `--sse aws:kms`."
            ),
        ],
        mistake="aws s3 cp checkpoints/epoch-12.pt s3://riverbed-models/runs/0412/",
        lesson="uploads to s3://riverbed-models must pass --sse aws:kms (the bucket denies unencrypted PutObject)",
        warn=[
            same("aws s3 cp checkpoints/epoch-12.pt s3://riverbed-models/runs/0412/"),
            reword("aws s3 cp ./checkpoints/best.pt s3://riverbed-models/runs/0413/best.pt"),
            reword("aws s3 sync checkpoints/ s3://riverbed-models/runs/0412/"),
        ],
        silent=[
            fix("aws s3 cp checkpoints/epoch-12.pt s3://riverbed-models/runs/0412/ --sse aws:kms"),
            fix(
                "aws s3 sync checkpoints/ s3://riverbed-models/runs/0412/ --sse aws:kms --sse-kms-key-id alias/riverbed-models"
            ),
            other("aws s3 ls s3://riverbed-models/runs/"),
            other("aws s3 cp s3://riverbed-models/runs/0411/best.pt checkpoints/"),
        ],
    ),
    Incident(
        id="b3-marker-cloud-14",
        shape=MARKER,
        agent=CODEX,
        project="pipewise",
        session=[
            U("deploy the ingest service to prod from source"),
            err(
                "gcloud run deploy ingest --source . --project pipewise-prod",
                "Please specify a region:\n [1] africa-south1\n [2] asia-east1\n ...\n [38] cancel\nPlease enter numeric choice or text value (must exactly match list item):  \n"
                "ERROR: (gcloud.run.deploy) Command timed out waiting for input on a non-interactive terminal.",
            ),
            ok(
                "gcloud run deploy ingest --source . --project pipewise-prod --region europe-west4",
                "Building using Buildpacks and deploying container to Cloud Run service [ingest] in project [pipewise-prod] region [europe-west4]\n"
                "✓ Deploying... Done.\nService [ingest] revision [ingest-00043-qiv] has been deployed and is serving 100 percent of traffic.",
            ),
            A(
                "NOTE TO SELF: `gcloud run deploy` without `--region` prompts for one and hangs in this shell; "
                "pipewise's services are all in europe-west4, always pass `--region europe-west4`."
            ),
        ],
        mistake="gcloud run deploy ingest --source . --project pipewise-prod",
        lesson="gcloud run deploy in pipewise needs --region europe-west4 (without it it prompts and hangs)",
        warn=[
            same("gcloud run deploy ingest --source . --project pipewise-prod"),
            reword(
                "gcloud run deploy ingest --image europe-docker.pkg.dev/pipewise-prod/apps/ingest:1.4 --project pipewise-prod"
            ),
            reword("gcloud --project=pipewise-prod run deploy scorer --source ."),
        ],
        silent=[
            fix("gcloud run deploy ingest --source . --project pipewise-prod --region europe-west4"),
            fix("gcloud run deploy scorer --region=europe-west4 --project=pipewise-prod --source ."),
            other("gcloud run revisions list --service ingest --project pipewise-prod --region europe-west4"),
            other("gcloud builds list --project pipewise-prod --limit 5"),
        ],
    ),
    Incident(
        id="b3-marker-sql-15",
        shape=MARKER,
        agent=GEMINI,
        project="orchard",
        session=[
            U("load the prod snapshot into my dev db so I can reproduce the refund bug"),
            err(
                "pg_restore -h localhost -p 5433 -U orchard -d orchard_dev tmp/prod-snapshot.dump",
                'pg_restore: error: could not execute query: ERROR:  role "orchard_prod_rw" does not exist\n'
                "Command was: ALTER TABLE public.orders OWNER TO orchard_prod_rw;\n"
                'pg_restore: error: could not execute query: ERROR:  role "metabase_ro" does not exist\n'
                "Command was: GRANT SELECT ON TABLE public.orders TO metabase_ro;\npg_restore: warning: errors ignored on restore: 214",
            ),
            ok(
                "pg_restore -h localhost -p 5433 -U orchard -d orchard_dev --clean --no-owner --no-acl tmp/prod-snapshot.dump",
                "",
            ),
            A(
                "GOTCHA: prod dumps reference roles that don't exist locally; restoring into orchard_dev needs "
                "`pg_restore --no-owner --no-acl` or it spews hundreds of role errors."
            ),
        ],
        mistake="pg_restore -h localhost -p 5433 -U orchard -d orchard_dev tmp/prod-snapshot.dump",
        lesson="restoring prod dumps into orchard_dev: pg_restore needs --no-owner --no-acl",
        warn=[
            same("pg_restore -h localhost -p 5433 -U orchard -d orchard_dev tmp/prod-snapshot.dump"),
            reword("pg_restore -d orchard_dev -h localhost -p 5433 -U orchard --clean tmp/prod-snapshot.dump"),
            reword("pg_restore -U orchard -h localhost -p 5433 -d orchard_dev tmp/snapshot-0301.dump"),
        ],
        silent=[
            fix(
                "pg_restore -h localhost -p 5433 -U orchard -d orchard_dev --clean --no-owner --no-acl tmp/prod-snapshot.dump"
            ),
            fix("pg_restore --no-owner --no-acl -U orchard -h localhost -p 5433 -d orchard_dev tmp/snapshot-0301.dump"),
            other("pg_restore -l tmp/prod-snapshot.dump"),
            other("pg_dump -h localhost -p 5433 -U orchard -Fc orchard_dev -f tmp/dev.dump"),
        ],
        variants=("long_output",),
    ),
    Incident(
        id="b3-marker-ansible-16",
        shape=MARKER,
        agent=CC,
        project="kestrel-ops",
        session=[
            U("install the role requirements"),
            ok(
                "ansible-galaxy install -r requirements.yml",
                "Starting galaxy role install process\n- downloading role 'nginx', owned by geerlingguy\n"
                "- extracting geerlingguy.nginx to /home/dev/.ansible/roles/geerlingguy.nginx\n- geerlingguy.nginx (3.2.0) was installed successfully",
            ),
            err(
                "ansible-playbook -i inventories/prod site.yml --vault-password-file ~/.kestrel-vault --check",
                "ERROR! the role 'geerlingguy.nginx' was not found in /work/kestrel-ops/roles/vendor:/work/kestrel-ops/roles",
            ),
            read("ansible.cfg", "[defaults]\nroles_path = roles/vendor:roles\n"),
            ok(
                "ansible-galaxy install -r requirements.yml -p roles/vendor",
                "- extracting geerlingguy.nginx to /work/kestrel-ops/roles/vendor/geerlingguy.nginx\n- geerlingguy.nginx (3.2.0) was installed successfully",
            ),
            A(
                "LEARNING: kestrel-ops' ansible.cfg only looks in roles/vendor; `ansible-galaxy install` must be given "
                "`-p roles/vendor` or the roles land in ~/.ansible and the playbooks can't find them."
            ),
        ],
        mistake="ansible-galaxy install -r requirements.yml",
        lesson="kestrel-ops roles live in roles/vendor: ansible-galaxy install needs -p roles/vendor",
        warn=[
            same("ansible-galaxy install -r requirements.yml"),
            reword("ansible-galaxy role install -r requirements.yml --force"),
            reword("ansible-galaxy install geerlingguy.certbot"),
        ],
        silent=[
            fix("ansible-galaxy install -r requirements.yml -p roles/vendor"),
            fix("ansible-galaxy role install -p roles/vendor -r requirements.yml --force"),
            other("ansible-galaxy role list -p roles/vendor"),
            other("ansible-galaxy collection list"),
        ],
    ),
    Incident(
        id="b3-marker-ssh-17",
        shape=MARKER,
        agent=CODEX,
        project="kestrel-ops",
        session=[
            U("check why kestrel-api is slow on app1"),
            err(
                "ssh deploy@app1.kestrel.internal 'uptime'",
                "ssh: connect to host app1.kestrel.internal port 22: Connection timed out",
                255,
            ),
            ok(
                "ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'uptime'",
                " 09:41:07 up 41 days,  3:12,  0 users,  load average: 7.81, 7.44, 6.90",
            ),
            A(
                "GOTCHA: the kestrel app hosts are only reachable through the bastion; plain `ssh deploy@appN.kestrel.internal` "
                "times out. Always `ssh -J ops@bastion.kestrel.io ...`."
            ),
        ],
        mistake="ssh deploy@app1.kestrel.internal 'uptime'",
        lesson="kestrel app hosts need the jump host: ssh -J ops@bastion.kestrel.io deploy@appN.kestrel.internal",
        warn=[
            same("ssh deploy@app1.kestrel.internal 'uptime'"),
            reword("ssh deploy@app2.kestrel.internal 'sudo systemctl status kestrel-api'"),
            reword("ssh -o ConnectTimeout=5 deploy@app1.kestrel.internal"),
        ],
        silent=[
            fix("ssh -J ops@bastion.kestrel.io deploy@app1.kestrel.internal 'uptime'"),
            fix(
                "ssh -o ProxyJump=ops@bastion.kestrel.io deploy@app2.kestrel.internal 'sudo systemctl status kestrel-api'"
            ),
            other("ssh ops@bastion.kestrel.io uptime"),
            other("ssh-add -l"),
        ],
    ),
    Incident(
        id="b3-marker-script-18",
        shape=MARKER,
        agent=GEMINI,
        project="cinder-docs",
        session=[
            U("publish the stable docs bundle to the internal mirror"),
            err(
                "./scripts/publish.sh --channel stable",
                "publishing channel=stable to https://mirror.cinder.internal\ncurl: (6) Could not resolve host: mirror.cinder.internal\npublish failed",
                6,
            ),
            ok("./bin/vpn status", "disconnected"),
            ok(
                "./bin/vpn up && ./scripts/publish.sh --channel stable",
                "vpn: connected (wg0, 10.40.0.17)\npublishing channel=stable to https://mirror.cinder.internal\nuploaded cinder-docs-3.2.0.tar.gz (18.4 MB)",
            ),
            A(
                "NOTE TO SELF: cinder-docs' publish.sh talks to mirror.cinder.internal, which only resolves on the VPN; "
                "run `./bin/vpn up && ./scripts/publish.sh ...`."
            ),
        ],
        mistake="./scripts/publish.sh --channel stable",
        lesson="cinder-docs publish.sh needs the VPN: ./bin/vpn up && ./scripts/publish.sh --channel ...",
        warn=[
            same("./scripts/publish.sh --channel stable"),
            reword("bash ./scripts/publish.sh --channel=stable"),
            reword("./scripts/publish.sh --channel beta"),
        ],
        silent=[
            fix("./bin/vpn up && ./scripts/publish.sh --channel stable"),
            fix("./bin/vpn up && ./scripts/publish.sh --channel=beta --verbose"),
            other("./scripts/build.sh"),
            other("./bin/vpn status"),
        ],
        variants=("diagnostic",),
    ),
    Incident(
        id="b3-marker-script-19",
        shape=MARKER,
        agent=CC,
        project="mosaic-shop",
        session=[
            U("deploy main to staging"),
            ok(
                "./deploy.sh --env staging",
                "no --tag given: building image on staging-1 ...\nstopping mosaic-web ... done\n"
                "building ... (step 4/19) composer install --no-dev\n",
            ),
            U("why is staging down?? it's been 6 minutes"),
            A(
                "Without --tag the script builds the image on the staging box itself and stops the shop while it builds."
            ),
            ok("git rev-parse --short HEAD", "4f2a9c1"),
            ok(
                "./deploy.sh --env staging --tag 4f2a9c1",
                "using prebuilt image ghcr.io/mosaic/shop:4f2a9c1\nrolling mosaic-web (2 replicas) ... done\nstaging is serving 4f2a9c1",
            ),
            A(
                "GOTCHA: `./deploy.sh --env staging` without `--tag` builds on the staging host and takes the shop down for minutes; "
                "always pass `--tag <sha>` of an image CI already built."
            ),
        ],
        mistake="./deploy.sh --env staging",
        lesson="mosaic-shop: ./deploy.sh always with --tag <sha> of a CI-built image; without it it builds on the host and takes staging down",
        warn=[
            same("./deploy.sh --env staging"),
            reword("./deploy.sh --env=staging --verbose"),
            reword("bash deploy.sh --env production"),
        ],
        silent=[
            fix("./deploy.sh --env staging --tag 4f2a9c1"),
            fix("./deploy.sh --tag 9b1e77d --env=staging"),
            other("./scripts/build-assets.sh"),
            help_("./deploy.sh --help"),
        ],
        variants=("intervening",),
    ),
    Incident(
        id="b3-marker-dotnet-20",
        shape=MARKER,
        agent=CODEX,
        project="northwind",
        session=[
            U("apply the AddOrderNotes migration to the docker sql server"),
            err(
                "dotnet ef database update --project src/Northwind.Data",
                "Build started...\nBuild succeeded.\nMicrosoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error occurred "
                "while establishing a connection to SQL Server. (provider: Named Pipes Provider, error: 40 - Could not open a connection to SQL Server)\n"
                "   at Microsoft.Data.SqlClient.SqlInternalConnection.OnError(SqlException exception, Boolean breakConnection)",
            ),
            read(
                "src/Northwind.Api/appsettings.Docker.json",
                '{\n  "ConnectionStrings": {\n    "Northwind": "Server=localhost,1433;Database=Northwind;User Id=sa;TrustServerCertificate=true"\n  }\n}\n',
            ),
            ok(
                "ASPNETCORE_ENVIRONMENT=Docker dotnet ef database update --project src/Northwind.Data",
                "Build started...\nBuild succeeded.\nApplying migration '20260301113012_AddOrderNotes'.\nDone.",
            ),
            A(
                "LEARNING: northwind's default (Development) settings point at LocalDB; for the docker SQL Server run "
                "`ASPNETCORE_ENVIRONMENT=Docker dotnet ef database update ...`."
            ),
        ],
        mistake="dotnet ef database update --project src/Northwind.Data",
        lesson="northwind: dotnet ef database update against the docker sql server needs ASPNETCORE_ENVIRONMENT=Docker",
        warn=[
            same("dotnet ef database update --project src/Northwind.Data"),
            reword("dotnet ef database update --project src/Northwind.Data --startup-project src/Northwind.Api"),
            reword("cd src/Northwind.Data && dotnet ef database update"),
        ],
        silent=[
            fix("ASPNETCORE_ENVIRONMENT=Docker dotnet ef database update --project src/Northwind.Data"),
            fix(
                "ASPNETCORE_ENVIRONMENT=Docker dotnet ef database update --startup-project src/Northwind.Api --project src/Northwind.Data"
            ),
            other("dotnet ef migrations add AddOrderTags --project src/Northwind.Data"),
            other("dotnet build"),
        ],
    ),
]
