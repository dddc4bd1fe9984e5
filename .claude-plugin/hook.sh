#!/bin/sh
# twiceshy's Claude Code plugin hook: run the stdlib hook client (hooks/client.py of this
# plugin) with the Python that has twiceshy installed — found through the `twiceshy`
# command's shebang (pip, pipx and `uv tool install` all write one). Fails open: with no
# twiceshy on PATH the hook does nothing and Claude Code carries on.
event="$1"
ts=$(command -v twiceshy 2>/dev/null) || exit 0
py=$(sed -n '1s/^#!//p' "$ts" | cut -d' ' -f1)
case "$py" in
*python*) ;;
*) exit 0 ;; # a launcher we cannot read: do nothing rather than guess
esac
# The data dir, as twiceshy's platformdirs default computes it (TWICESHY_HOME wins).
if [ -n "$TWICESHY_HOME" ]; then
    home="$TWICESHY_HOME"
elif [ "$(uname -s)" = Darwin ]; then
    home="$HOME/Library/Application Support/twiceshy"
else
    home="${XDG_DATA_HOME:-$HOME/.local/share}/twiceshy"
fi
exec "$py" -I -S "$(dirname "$0")/../hooks/client.py" --home "$home" claude-code "$event"
