"""Shared fixtures: every test gets its own data dir (real Chroma on disk)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def twiceshy_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "tshome"
    home.mkdir()
    monkeypatch.setenv("TWICESHY_HOME", str(home))
    monkeypatch.setenv("TWICESHY_CONFIG_DIR", str(home / "config"))
    # The platform default data dir too: a project install names a non-default data dir in
    # <default data dir>/redirect, and no test may write into this machine's real one.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("TWICESHY_RAISE_PLUGIN_ERRORS", "1")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in list(os.environ):
        if name.startswith("TWICESHY_") and "__" in name:
            monkeypatch.delenv(name)
    yield home
    # chromadb caches every embedded client's System per process (~11 open files each):
    # without letting go of them a full run passes 1024 fds and select()-based code breaks.
    cache = sys.modules.get("chromadb.api.shared_system_client")
    if cache is not None:
        cache.SharedSystemClient.clear_system_cache()
        gc.collect()


@pytest.fixture
def python_exe() -> str:
    return sys.executable


@pytest.fixture
def ctx(tmp_path: Path):
    """An EngineContext on a fresh on-disk store, plugins as installed."""
    from twiceshy.engine.context import make_context

    return make_context(tmp_path)
