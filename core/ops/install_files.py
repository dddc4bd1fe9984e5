"""What install leaves behind, kept where the user's files are not: backups, and what it created.

* **Backups** of a settings file go to ``<data dir>/settings-backups/<key>/`` (``<key>``: a hash of
  the file's absolute path; ``origin`` in the folder names the file), never next to the file: a
  backup beside ``.claude/settings.json`` would be an untracked file in the user's repository.
  ``twiceshy doctor`` lists them, ``twiceshy uninstall --purge`` deletes them. Backups an older
  twiceshy wrote beside a file (``<name>.twiceshy-backup-<time>``) are still read, and moved
  into the data dir by the next install or uninstall of that file.
* **Created paths** are logged in ``<data dir>/created-files.json``: files (settings, context),
  folders (``kind: dir``, made to hold one of them), lines appended to ``.git/info/exclude``
  (``kind: exclude``, with ``line``) and settings ``env`` variables it set (``kind: env``,
  ``line``: the variable). Uninstall takes back exactly those once nothing of the
  user's is in them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from twiceshy.base.fileio import write_atomic
from twiceshy.base.paths import data_dir, ensure_private_dir

BACKUP_INFIX = ".twiceshy-backup-"  # the name older versions gave a backup beside the file
BACKUPS = "settings-backups"


# --------------------------------------------------------------------------
# Backups
# --------------------------------------------------------------------------


def backups_root() -> Path:
    return data_dir() / BACKUPS


def _key(path: Path) -> str:
    return hashlib.sha256(str(Path(path).absolute()).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def backup_folder(path: Path) -> Path:
    """Where the backups of ``path`` live (the folder may not exist yet)."""
    return backups_root() / _key(path)


def _legacy_backups(path: Path) -> list[Path]:
    try:
        return list(path.parent.glob(f"{path.name}{BACKUP_INFIX}*"))
    except OSError:
        return []


def backups_of(path: Path) -> list[Path]:
    """Our backups of ``path``, newest first (the data dir's, and any an older version left beside it)."""
    folder = backup_folder(path)
    found = [p for p in folder.iterdir() if p.name != "origin"] if folder.is_dir() else []
    found += _legacy_backups(path)

    def mtime(p: Path) -> int:
        try:
            return p.stat().st_mtime_ns
        except OSError:
            return 0

    return sorted(found, key=lambda p: (mtime(p), p.name), reverse=True)


def _new_backup_path(path: Path) -> Path:
    folder = backup_folder(path)
    ensure_private_dir(backups_root())
    ensure_private_dir(folder)
    origin = folder / "origin"
    if not origin.exists():
        write_atomic(origin, str(Path(path).absolute()) + "\n")
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    target = folder / f"{path.name}.{stamp}"
    counter = 1
    while target.exists():
        target = folder / f"{path.name}.{stamp}-{counter}"
        counter += 1
    return target


def backup_file(path: Path) -> Path:
    """Copy ``path`` into its backup folder in the data dir (0600; never overwriting one)."""
    target = _new_backup_path(path)
    data = path.read_bytes()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return target


def adopt_legacy_backups(path: Path) -> list[Path]:
    """Move backups an older twiceshy wrote beside ``path`` into the data dir; the new paths."""
    moved = []
    for old in _legacy_backups(path):
        try:
            target = _new_backup_path(path)
            target = target.with_name(f"{path.name}.{old.name[len(path.name) + len(BACKUP_INFIX) :]}")
            if target.exists():
                target = _new_backup_path(path)
            shutil.move(str(old), str(target))
            os.chmod(target, 0o600)
            moved.append(target)
        except OSError:
            continue
    return moved


def all_backups() -> list[dict[str, Any]]:
    """Every backup folder: ``{"origin", "folder", "files", "bytes"}`` (doctor lists them)."""
    root = backups_root()
    rows: list[dict[str, Any]] = []
    if not root.is_dir():
        return rows
    for folder in sorted(root.iterdir()):
        if not folder.is_dir():
            continue
        try:
            origin = (folder / "origin").read_text(encoding="utf-8").strip()
        except OSError:
            origin = ""
        files = [p for p in folder.iterdir() if p.name != "origin" and p.is_file()]
        if files:
            rows.append(
                {
                    "origin": origin,
                    "folder": str(folder),
                    "files": len(files),
                    "bytes": sum(p.stat().st_size for p in files),
                }
            )
    return rows


def purge_backups() -> int:
    """Delete every backup in the data dir (``uninstall --purge``); how many files went."""
    root = backups_root()
    if not root.is_dir():
        return 0
    count = sum(1 for folder in root.iterdir() if folder.is_dir() for p in folder.iterdir() if p.name != "origin")
    shutil.rmtree(root)
    return count


# --------------------------------------------------------------------------
# Files, folders and exclude lines twiceshy created
# --------------------------------------------------------------------------


def _created_log() -> Path:
    return data_dir() / "created-files.json"


def created_files() -> list[dict[str, str]]:
    """What twiceshy created: ``{"path", "agent", "kind"}`` (kind: settings | context | dir | exclude)."""
    try:
        rows = json.loads(_created_log().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [r for r in rows if isinstance(r, dict) and isinstance(r.get("path"), str)] if isinstance(rows, list) else []


def _save_created(rows: list[dict[str, str]]) -> None:
    ensure_private_dir(_created_log().parent)
    write_atomic(_created_log(), json.dumps(rows, indent=2) + "\n")


def _same(row: dict[str, str], key: str, kind: str | None, line: str | None) -> bool:
    if row["path"] != key:
        return False
    if kind in ("exclude", "env") or row.get("kind") in ("exclude", "env"):
        return row.get("kind") == kind and row.get("line") == line
    return kind != "dir" or row.get("kind") == "dir"


def record_created(path: Path, agent: str = "", kind: str = "context", line: str | None = None) -> None:
    """Remember that twiceshy created ``path`` (uninstall removes it when nothing else is in it)."""
    key = str(Path(path).absolute())
    rows = [r for r in created_files() if not _same(r, key, kind, line)]
    row = {"path": key, "agent": agent, "kind": kind}
    if line is not None:
        row["line"] = line
    _save_created([*rows, row])


def forget_created(path: Path, kind: str | None = None, line: str | None = None) -> None:
    key = str(Path(path).absolute())
    rows = created_files()
    kept = [r for r in rows if not (r["path"] == key and (kind is None or _same(r, key, kind, line)))]
    if len(kept) != len(rows):
        _save_created(kept)


def was_created(path: Path) -> bool:
    key = str(Path(path).absolute())
    return any(r["path"] == key and r.get("kind") not in ("dir", "exclude", "env") for r in created_files())


def set_by_us(path: Path, variable: str) -> bool:
    """Whether twiceshy put the settings ``env`` variable into ``path`` (kind ``env``)."""
    key = str(Path(path).absolute())
    return any(r["path"] == key and r.get("kind") == "env" and r.get("line") == variable for r in created_files())


def make_parents(path: Path, agent: str) -> None:
    """Create the missing folders above ``path``, each one recorded (uninstall removes them if empty)."""
    missing = []
    parent = Path(path).absolute().parent
    while not parent.exists():
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True)
        record_created(folder, agent, "dir")


def remove_created_dirs(agent: str) -> list[Path]:
    """Folders install created for ``agent`` that are empty now: removed (deepest first)."""
    removed = []
    rows = [r for r in created_files() if r.get("kind") == "dir" and r.get("agent") == agent]
    for row in sorted(rows, key=lambda r: len(r["path"]), reverse=True):
        folder = Path(row["path"])
        try:
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
                removed.append(folder)
        except OSError:
            continue
        if not folder.exists():
            forget_created(folder, "dir")
    return removed


# --------------------------------------------------------------------------
# .git/info/exclude: keeping a per-machine file out of git
# --------------------------------------------------------------------------


def git_exclude(path: Path, agent: str = "") -> Path | None:
    """List ``path`` (and its ``*`` siblings) in its repository's ``.git/info/exclude`` (local, never
    committed) unless already there; the line added is recorded for uninstall. Returns the exclude
    file, or None outside a plain git checkout."""
    folder = Path(path).parent.resolve()
    for root in (folder, *folder.parents):
        git = root / ".git"
        if git.exists():
            if not git.is_dir():
                return None  # a worktree or submodule: its exclude lives elsewhere
            exclude = git / "info" / "exclude"
            line = "/" + (folder / Path(path).name).relative_to(root).as_posix() + "*"
            try:
                text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
                if line not in text.splitlines():
                    if not exclude.exists():
                        make_parents(exclude, agent)
                        record_created(exclude, agent, "settings")
                    with open(exclude, "a", encoding="utf-8") as fh:
                        fh.write(("" if not text or text.endswith("\n") else "\n") + line + "\n")
                    record_created(exclude, agent, "exclude", line)
            except OSError:
                return None
            return exclude
    return None


def remove_exclude_lines(agent: str, local: Path) -> list[Path]:
    """Take back the exclude lines install added for ``local`` once that file is gone."""
    if local.exists():
        return []
    changed = []
    name = "/" + local.name + "*"
    for row in [r for r in created_files() if r.get("kind") == "exclude" and r.get("agent") == agent]:
        line = row.get("line") or ""
        if not line.endswith(name):
            continue
        exclude = Path(row["path"])
        try:
            text = exclude.read_text(encoding="utf-8")
            lines = text.splitlines(keepends=True)
            kept = [x for x in lines if x.rstrip("\r\n") != line]
            if len(kept) != len(lines):
                if not "".join(kept).strip() and was_created(exclude):
                    exclude.unlink()
                    forget_created(exclude)
                else:
                    write_atomic(exclude, "".join(kept))
                changed.append(exclude)
        except OSError:
            pass
        forget_created(exclude, "exclude", line)
    return changed


def remove_context_blocks(pm: Any, agent: str, project_dir: Path) -> tuple[list[Path], list[Path]]:
    """Take our managed block out of ``agent``'s memory file in ``project_dir`` and out of every
    memory file we recorded creating for it. Returns (cleaned, deleted): a file left empty by
    the removal is deleted (``remove_managed_block``), a whole-file Cursor rule of ours too."""
    from twiceshy.guidance.context_file import is_mdc, remove_managed_block

    candidates: list[Path] = []
    own = pm.hook.agent_context_file(agent=agent, project_dir=Path(project_dir))
    if own is not None:
        candidates.append(Path(own))
    candidates += [Path(r["path"]) for r in created_files() if r.get("kind") == "context" and r.get("agent") == agent]
    cleaned: list[Path] = []
    deleted: list[Path] = []
    for path in dict.fromkeys(p.absolute() for p in candidates):
        try:
            if is_mdc(path):
                if path.is_file() and was_created(path):
                    path.unlink()
                    deleted.append(path)
            elif remove_managed_block(path):
                (cleaned if path.exists() else deleted).append(path)
        except OSError:
            continue  # a file we cannot edit stays; uninstall of the hooks still counts
        if not path.exists():
            forget_created(path)
    return cleaned, deleted


def write_project_files(files: dict[Path, bytes], agent: str, dry_run: bool) -> str:
    """Write ``files`` (backup first when one differs); the diff lines, empty when nothing changed."""
    diff = ""
    for path, content in files.items():
        try:
            current = path.read_bytes()
        except OSError:
            current = None
        if current == content:
            continue
        diff += f"{'new' if current is None else 'changed'} file: {path} ({len(content)} bytes)\n"
        if dry_run:
            continue
        if current is not None:
            backup_file(path)
        else:
            make_parents(path, agent)
        write_atomic(path, content)
        if current is None:
            record_created(path, agent, "settings")
    return diff


def remove_project_files(files: dict[Path, bytes]) -> list[Path]:
    """Uninstall: the files :func:`write_project_files` created go (returned); one it replaced comes back."""
    removed = []
    for path, content in files.items():
        try:
            if was_created(path):
                path.unlink(missing_ok=True)
                forget_created(path)
                removed.append(path)
            elif path.exists() and path.read_bytes() == content:
                older = next((b for b in backups_of(path) if b.read_bytes() != content), None)
                if older is not None:
                    write_atomic(path, older.read_bytes())
        except OSError:
            continue
    return removed
