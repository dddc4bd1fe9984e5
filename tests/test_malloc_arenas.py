"""The engine caps glibc's malloc arenas (``server.cap_malloc_arenas``): fewer
arenas, less freed memory kept per thread (engine RSS at 100k lessons)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

# A child process: optionally cap, then 8 threads allocate at once (each new
# thread that finds the arenas busy gets a new one, up to the cap), then count
# the heaps glibc's malloc_info reports.
CHILD = textwrap.dedent(
    """
    import ctypes, sys, tempfile, threading
    from twiceshy.engine.server import cap_malloc_arenas
    if sys.argv[1] == "cap":
        cap_malloc_arenas()
    barrier = threading.Barrier(8)
    keep = []
    def work():
        barrier.wait()
        for _ in range(2000):
            keep.append(bytearray(2048))
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    libc = ctypes.CDLL("libc.so.6")
    libc.fopen.restype = ctypes.c_void_p
    with tempfile.NamedTemporaryFile(suffix=".xml") as out:
        fp = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, ctypes.c_void_p(fp))
        libc.fclose(ctypes.c_void_p(fp))
        print(open(out.name).read().count("<heap nr="))
    """
)


def heaps(mode: str, env_extra: dict[str, str] | None = None) -> int:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    env.update(env_extra or {})
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, env=env, timeout=120, check=True
    )
    return int(out.stdout.strip())


def test_engine_keeps_at_most_two_malloc_arenas() -> None:
    assert heaps("cap") <= 2
    # the same threads without the cap: more arenas (so the count above means something)
    assert heaps("nocap") > 2
    # a user's own MALLOC_ARENA_MAX wins over ours
    assert heaps("cap", {"MALLOC_ARENA_MAX": "6"}) > 2
