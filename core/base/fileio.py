"""Replacing a file safely: settings files, context files, our own data files. Stdlib only."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import IO


def _umask_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomic(path: Path, data: str | bytes, private: bool = False, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its permission bits.

    A temp file in the same folder is written and fsynced, then renamed over
    ``path``, so a reader sees the old file or the new one, never half
    (``durable=False`` skips the fsync: for a file that only has to outlive
    the process, not a machine crash, written on a hot path). A new
    file gets the mode the umask gives (0644 usually) — or 0600 with
    ``private`` (our own data files). ``str`` is written as UTF-8; ``bytes``
    exactly as given.

    A symlink (dotfiles managers link ``settings.json`` or ``CLAUDE.md`` into a
    repository) is written through: its final target is replaced atomically
    and the link stays a link. A dangling link creates its target.
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600 if private else _umask_mode()
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def open_private(path: Path, mode: str = "a+") -> IO[str]:
    """Open (creating it 0600, whatever the umask) a file of our own, e.g. a lock file."""
    flags = os.O_CREAT | (os.O_RDWR if "+" in mode else os.O_WRONLY) | (os.O_APPEND if "a" in mode else 0)
    fd = os.open(path, flags, 0o600)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) & 0o077:
            os.fchmod(fd, 0o600)  # a file an older version left 0644
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise
