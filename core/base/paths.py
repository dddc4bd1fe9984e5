"""Where twiceshy keeps things. ``TWICESHY_HOME`` overrides the data dir
(tests and multiple installs use it); otherwise platformdirs decides."""

from __future__ import annotations

import os
from pathlib import Path

APP = "twiceshy"


def data_dir() -> Path:
    override = os.environ.get("TWICESHY_HOME")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


def config_dir() -> Path:
    override = os.environ.get("TWICESHY_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    if os.environ.get("TWICESHY_HOME"):
        return Path(os.environ["TWICESHY_HOME"]).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP, appauthor=False))


def user_config_file() -> Path:
    return config_dir() / "config.yaml"


def store_dir() -> Path:
    return data_dir() / "store"


PROJECT_CONFIG_NAME = ".twiceshy.yaml"


def find_project_config(start: Path) -> Path | None:
    """The nearest ``.twiceshy.yaml`` at or above ``start``."""
    current = start.resolve()
    for folder in (current, *current.parents):
        candidate = folder / PROJECT_CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and its missing parents) 0700, whatever the umask.

    Only folders this call creates are changed; an existing folder keeps its
    mode (``make_private`` tightens our own trees)."""
    path = Path(path)
    missing = []
    for folder in (path, *path.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR_MODE)
        except FileExistsError:
            continue  # another process made it first
        os.chmod(folder, PRIVATE_DIR_MODE)  # mkdir's mode is masked by the umask
    return path


def make_private(root: Path) -> None:
    """chmod our own tree: folders 0700, files 0600 (symlinks and other users'
    files untouched). For files a library creates with the umask (Chroma's
    ``chroma.sqlite3`` and index segments)."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    for folder, dirs, files in os.walk(root):
        for name, mode in [(n, PRIVATE_DIR_MODE) for n in dirs] + [(n, PRIVATE_FILE_MODE) for n in files]:
            target = os.path.join(folder, name)
            try:
                st = os.lstat(target)
                if os.path.islink(target) or (uid is not None and st.st_uid != uid):
                    continue
                if st.st_mode & 0o777 != mode:
                    os.chmod(target, mode)
            except OSError:
                continue
    try:
        if os.stat(root).st_mode & 0o777 != PRIVATE_DIR_MODE and not os.path.islink(root):
            os.chmod(root, PRIVATE_DIR_MODE)
    except OSError:
        pass
