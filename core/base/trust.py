"""Which projects' ``.twiceshy.yaml`` the user trusts (like direnv's ``allow``).

A repository's config file is written by whoever wrote the repository. Until
the user runs ``twiceshy trust`` in it, only the keys in
:data:`twiceshy.base.config.PROJECT_SAFE` are read from it (ranking and
learning tuning); the keys that decide where data and credentials go, which
model is called, which plugins run, or how strongly the guard acts are
ignored with a warning. A trust record is keyed by the config file's resolved
path and holds the SHA-256 of its bytes: an edited file (a ``git pull`` that
changed it) needs trusting again.

Records live in the user's config dir (``trusted-projects.json``, 0600), never
in the project. Stdlib only.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import config_dir

TRUST_FILE = "trusted-projects.json"


def trust_file() -> Path:
    return config_dir() / TRUST_FILE


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _key(path: Path) -> str:
    return str(Path(path).resolve())


def load_records() -> dict[str, dict[str, Any]]:
    """{config file path: {"sha256": …, "trusted_at": …}}; {} when none or unreadable."""
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def _save(records: dict[str, dict[str, Any]]) -> None:
    write_atomic(trust_file(), json.dumps(records, indent=2, sort_keys=True) + "\n", private=True)


def status(path: Path) -> str:
    """``trusted``, ``changed`` (trusted once, edited since) or ``untrusted``."""
    record = load_records().get(_key(path))
    if record is None:
        return "untrusted"
    try:
        digest = file_digest(path)
    except OSError:
        return "untrusted"
    return "trusted" if record.get("sha256") == digest else "changed"


def is_trusted(path: Path) -> bool:
    return status(path) == "trusted"


def trust(path: Path) -> str:
    """Trust the config file at ``path`` as it is now; returns its digest."""
    digest = file_digest(path)
    records = load_records()
    records[_key(path)] = {"sha256": digest, "trusted_at": time.time()}
    _save(records)
    return digest


def revoke(path: Path) -> bool:
    """Forget the trust record of ``path``. Returns False if there was none."""
    records = load_records()
    if records.pop(_key(path), None) is None:
        return False
    _save(records)
    return True
