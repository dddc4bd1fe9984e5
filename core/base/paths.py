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
