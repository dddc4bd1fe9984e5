"""The built wheel has the agreed shape: everything under `twiceshy`, data files
included, no bare `core`/`plugins` package, and it imports and runs from the wheel."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(REPO)],
        check=True,
    )
    (built,) = out.glob("twiceshy-*.whl")
    return built


def test_wheel_has_only_the_twiceshy_namespace(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.startswith("twiceshy-")}
    assert top == {"twiceshy"}
    for needed in (
        "twiceshy/plugin/hookspecs.py",
        "twiceshy/py.typed",
        "twiceshy/hooks/client.py",
        "twiceshy/data/minilm_tokenizer.json",
        "twiceshy/plugins/claude_code/__init__.py",
        "twiceshy/builtins/recall.py",
    ):
        assert needed in names, needed
    # Every source module of the checkout is in the wheel (a subpackage missing from
    # pyproject's package list would silently drop out).
    root = Path(__file__).resolve().parents[1]
    for folder, prefix in (("core", "twiceshy"), ("plugins", "twiceshy/plugins"), ("hooks", "twiceshy/hooks")):
        for source in (root / folder).rglob("*.py"):
            wanted = f"{prefix}/{source.relative_to(root / folder).as_posix()}"
            assert wanted in names, wanted


def test_wheel_imports_and_runs(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    # Dependencies come from the test environment; the package itself only from the wheel.
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import twiceshy, twiceshy.plugins.claude_code, twiceshy.plugin.manager as m\n"
        "assert twiceshy.__file__.startswith(%r), twiceshy.__file__\n"
        "pm = m.make_manager(load_entry_points=False)\n"
        "print(','.join(sorted(m.agent_names(pm))))\n"
    ) % (str(target), str(target))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "claude-code" in result.stdout.split(",")
