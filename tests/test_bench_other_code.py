"""bench/other_code.py: a "before" measured on another commit runs that commit's code in every process."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

from other_code import run_other_code  # noqa: E402


def test_the_other_commits_code_reaches_processes_started_isolated(tmp_path: Path) -> None:
    # The engine and the hook client are started `python -I` (no PYTHONPATH): they must
    # import the other commit's twiceshy too, not the installed one.
    out = tmp_path / "where.txt"
    script = tmp_path / "probe.py"
    script.write_text(
        "import subprocess, sys\n"
        "probe = 'import twiceshy; print(twiceshy.__file__)'\n"
        "where = subprocess.run([sys.executable, '-I', '-c', probe], capture_output=True, text=True, check=True)\n"
        f"open({str(out)!r}, 'w').write(where.stdout)\n"
    )
    assert run_other_code("HEAD", script, []) == 0
    where = Path(out.read_text().strip())
    assert "twiceshy-code-" in str(where) and where.parts[-2:] == ("twiceshy", "__init__.py")
