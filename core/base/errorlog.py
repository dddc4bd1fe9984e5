"""A small append-only log of our own failures, for `twiceshy doctor`.

The hook fails open, so a failure is invisible to the agent; it must be
visible to the user instead. Each line is one JSON object. Stdlib only.
"""

from __future__ import annotations

import json
import os
import time
import traceback
from pathlib import Path
from typing import Any

from twiceshy.base.paths import data_dir

MAX_BYTES = 1_000_000


def error_log_path() -> Path:
    return data_dir() / "errors.jsonl"


def record_error(where: str, exc: BaseException | str, **extra: Any) -> None:
    """Append one failure; never raises (logging must not become the failure)."""
    try:
        path = error_log_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_BYTES:
            path.replace(path.with_suffix(".jsonl.1"))
        if isinstance(exc, BaseException):
            message = f"{type(exc).__name__}: {exc}"
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2000:]
        else:
            message, tb = str(exc), ""
        # Exceptions can quote payloads, commands, URLs with passwords: redact
        # every text field, as for anything else written to disk.
        from twiceshy.base.redact import redact

        fields = {"error": message, "traceback": tb, **{k: str(v) for k, v in extra.items()}}
        entry = {"ts": time.time(), "where": where, **{k: redact(v) for k, v in fields.items()}}
        line = json.dumps(entry, default=str) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except Exception:
        pass


def recent_errors(limit: int = 20) -> list[dict[str, Any]]:
    path = error_log_path()
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[-limit:]
    out = []
    for line in lines:
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
