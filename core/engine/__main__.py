"""``python -I -m twiceshy.engine serve --home DIR [--idle-timeout S]``: run the resident engine.

What the hook client spawns (:func:`twiceshy.hooks.wire.engine_argv`). The
same as ``twiceshy serve --foreground`` without building the CLI: no click
command tree, no plugin ``register_commands`` — only what the first answer
needs is imported before it.
"""

from __future__ import annotations

import atexit
import os
import sys


def main(argv: list[str]) -> int:
    home: str | None = None
    idle: float | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--home" and i + 1 < len(argv):
            home, i = argv[i + 1], i + 2
        elif arg.startswith("--home="):
            home, i = arg[len("--home=") :], i + 1
        elif arg == "--idle-timeout" and i + 1 < len(argv):
            idle, i = float(argv[i + 1]), i + 2
        elif arg in ("serve", "--foreground"):  # `serve` names the process (ps, tests find engines by it)
            i += 1
        else:
            print(f"usage: python -m twiceshy.engine --home DIR [--idle-timeout S] (got {arg!r})", file=sys.stderr)
            return 2
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm is not imported here; if a plugin does
    from twiceshy.hooks.wire import norm_home

    if home:
        os.environ["TWICESHY_HOME"] = norm_home(home)  # as `twiceshy serve --home` does
    from twiceshy.base.paths import data_dir
    from twiceshy.engine.server import serve

    return serve(norm_home(home or data_dir()), idle_timeout_s=idle)


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # The engine has shut down cleanly (queues drained, logs flushed, lock released): run the
    # exit handlers (the store's pending hit counts are written by one), then skip the
    # interpreter's teardown of Chroma's and onnxruntime's threads and modules, ~200 ms of
    # `twiceshy engine stop`.
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
