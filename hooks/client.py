"""The hook command agents run: ``python -I -S .../hooks/client.py --home DIR AGENT EVENT``.

Stdlib only, fails open (exit 0, no output) whatever happens. The work is
in :mod:`wire` next to this file, imported so that its cached bytecode is
used (a script is recompiled on every run). See ``wire.py`` for the
protocol; docs/engine.md for the design.
"""

if __name__ == "__main__":
    import os
    import sys

    # -I keeps the script's own directory off sys.path; put it back (first).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from wire import run
    except BaseException:
        os._exit(0)
    run()
else:
    # Imported as ``twiceshy.hooks.client`` (doctor, older callers): the helpers live in wire.
    from twiceshy.hooks.wire import *  # noqa: F401,F403
    from twiceshy.hooks.wire import main, norm_home, run_dir, socket_path, spool_path  # noqa: F401
