"""Project fingerprints: which lessons belong to which project.

A project is identified by its git root (or the working directory when it
is not a git checkout). The fingerprint is a short hash of that path plus
the ``origin`` remote URL when there is one, so two clones of one repository
share lessons and two unrelated folders never do. Stdlib only.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path


def project_root(cwd: str | Path) -> Path:
    try:
        path = Path(cwd or ".").resolve()
    except ValueError:  # a NUL byte or lone surrogate from a malformed hook payload
        path = Path(str(cwd).encode("utf-8", "replace").decode("utf-8").replace("\x00", "") or ".").resolve()
    for folder in (path, *path.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:  # a name too long, a folder we may not enter: not a git root
            continue
    return path


def _origin_url(root: Path) -> str:
    config = root / ".git" / "config"
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    in_origin = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_origin = stripped.replace(" ", "") in ('[remote"origin"]',)
        elif in_origin and stripped.startswith("url"):
            return stripped.split("=", 1)[1].strip()
    return ""


@lru_cache(maxsize=256)
def fingerprint(cwd: str) -> str:
    """A stable id for the project containing ``cwd``: "<name>-<hash8>"."""
    root = project_root(cwd)
    origin = _origin_url(root)
    basis = origin or str(root)
    digest = hashlib.sha256(basis.encode()).hexdigest()[:8]
    # Named after the repository when there is a remote, so two clones in
    # differently named folders are still one project.
    name = origin.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git") if origin else root.name
    return f"{name or 'root'}-{digest}"


__all__ = ["fingerprint", "project_root"]
