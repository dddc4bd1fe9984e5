"""Project fingerprints: clones of one repository share one; unrelated folders don't."""

from __future__ import annotations

from pathlib import Path

from twiceshy.base.project import fingerprint, project_root


def _clone(path: Path, origin: str | None) -> Path:
    (path / ".git").mkdir(parents=True)
    config = "[core]\n\tbare = false\n"
    if origin:
        config += f'[remote "origin"]\n\turl = {origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
    (path / ".git" / "config").write_text(config)
    (path / "src").mkdir()
    return path


def test_two_clones_of_one_repo_share_a_fingerprint(tmp_path: Path) -> None:
    a = _clone(tmp_path / "work" / "fetcher", "git@github.com:acme/fetcher.git")
    b = _clone(tmp_path / "other" / "fetcher-copy", "git@github.com:acme/fetcher.git")
    assert fingerprint(str(a / "src")) == fingerprint(str(b))
    assert fingerprint(str(a)).startswith("fetcher-")


def test_unrelated_folders_differ_and_subdirs_resolve_to_the_root(tmp_path: Path) -> None:
    a = _clone(tmp_path / "one", None)
    b = _clone(tmp_path / "two", None)
    assert project_root(a / "src") == a.resolve()
    assert fingerprint(str(a)) != fingerprint(str(b))
    other_remote = _clone(tmp_path / "three", "https://github.com/acme/other.git")
    assert fingerprint(str(other_remote)).startswith("other-")
