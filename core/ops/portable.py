"""Moving memory in and out: export/import, backup/restore, seed.

* **export / import** — portable JSON of lessons (by default the principles
  and rules, tiers T0/T1) with their provenance: where each came from
  (``source``, ``kind``), when (``created_at``, ``last_seen``) and the
  evidence behind it (seen, shown, followed, ignored, irrelevant), its
  structured lesson and streak; vectors only when asked. Import keeps every
  lesson of the file under its id (:mod:`twiceshy.ops.exact_import`: the
  same lesson only by id or by exact words, never by a similar trigger);
  re-importing the same file changes nothing. The format is
  :mod:`twiceshy.ops.export_format` (re-exported here), the streamed reader
  :mod:`twiceshy.ops.export_file`.
* **backup / restore** — the whole data dir (Chroma store, judge ledger,
  event log, patterns, trajectories) as one ``.tar.gz`` with a manifest.
  Consistency: the resident engine is the only steady writer, so both
  refuse while it runs unless asked to stop it (``stop_engine``), and then
  hold the engine's own lock (``run/engine.lock``) for the whole copy so no
  hook can start a new engine meanwhile (hooks fail open during that
  second). SQLite files are copied with SQLite's online backup API.
  ``restore`` moves everything it replaces into
  ``<data dir>/backups/pre-restore-<time>/`` first.
* **seed** — bootstrap from the instructions a user already wrote: bullet
  lines under headings of CLAUDE.md / AGENTS.md / GEMINI.md / ``.mdc`` rules
  (frontmatter, code fences and twiceshy's own managed block skipped).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import socket
import sqlite3
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twiceshy.base.locking import fcntl
from twiceshy.base.paths import data_dir
from twiceshy.base.types import Tier
from twiceshy.ops.bulk import Progress, _Item, bulk_store
from twiceshy.ops.export_file import PortableError
from twiceshy.ops.export_format import (
    EXPORT_FORMAT,
    EXPORT_SCHEMA_VERSION,
    export_data,
    import_data,
    import_file,
    lesson_record,
    validate_export,
    write_export,
)

if TYPE_CHECKING:
    from twiceshy.engine.context import EngineContext

BACKUP_FORMAT = "twiceshy-backup"
BACKUP_VERSION = 1
# Never part of a backup: runtime state, the engine's own log, other backups.
SKIP_TOP = frozenset({"run", "backups", "engine.log"})
SKIP_SUFFIXES = ("-wal", "-shm", "-journal", ".tmp", ".lock")
BACKUP_GZIP_LEVEL = 1


# --------------------------------------------------------------------------
# Export / import: twiceshy.ops.export_format (the format), twiceshy.ops.export_file (reading a file)
# --------------------------------------------------------------------------


def _iso(ts: float | None) -> str | None:
    if not ts:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


# --------------------------------------------------------------------------
# Pausing writes: the engine lock
# --------------------------------------------------------------------------


class EngineRunning(PortableError):
    """The engine runs and we were not allowed to stop it."""


@contextlib.contextmanager
def writes_paused(home: Path, stop_engine: bool = False, wait_s: float = 5.0) -> Iterator[None]:
    """Hold the engine's lock so no engine writes (or starts) for the duration.

    A running engine is stopped first when ``stop_engine`` (it finishes its
    queued work; the next hook call after we return starts a new one), else
    :class:`EngineRunning` is raised with what to do.
    """
    from twiceshy.engine import server as engine

    paths = engine.EnginePaths(home)
    if engine.lock_is_held(paths):
        pid = engine.read_pid(paths)
        if not stop_engine:
            raise EngineRunning(
                f"the engine (pid {pid}) is running and writes to the store, so a copy taken now could be "
                "inconsistent. Re-run with --stop-engine (it stops the engine, which restarts on the next "
                "hook call), or run `twiceshy engine stop` first."
            )
        if not engine.stop(home):
            raise EngineRunning(f"the engine (pid {pid}) did not stop; stop it (`twiceshy engine stop`) and retry")
    paths.run.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + wait_s
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise EngineRunning(
                        "an engine started meanwhile (a hook fired); run again with --stop-engine"
                    ) from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)  # releases the lock


# --------------------------------------------------------------------------
# Backup / restore
# --------------------------------------------------------------------------


def store_path(ctx: EngineContext) -> Path:
    from twiceshy.base.paths import store_dir

    raw = ctx.config["store"]["path"]
    return Path(raw).expanduser() if raw else store_dir()


def _backup_entries(home: Path, store: Path) -> list[tuple[Path, str]]:
    """(path on disk, name in the archive) for each top-level thing backed up."""
    from twiceshy.base.paths import config_dir

    entries: list[tuple[Path, str]] = []
    if store.exists():
        entries.append((store, "store"))
    # Config is settings, not memory: a restore must not swap the user's config.
    skip = {store.resolve(), config_dir().resolve()}
    if home.is_dir():
        for child in sorted(home.iterdir()):
            if child.name in SKIP_TOP or child.name.startswith(".restore-") or child.resolve() in skip:
                continue
            if child.name == "store":
                continue  # a store dir that is not the configured one is stale; never mix two
            entries.append((child, child.name))
    return entries


@contextlib.contextmanager
def _sqlite_copy(src: Path) -> Iterator[Path]:
    """A consistent snapshot of an SQLite database (WAL included) via the backup
    API, as a temporary file (streamed into the archive, never held in memory)."""
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "copy.sqlite3"
        source = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=10)
        try:
            dest = sqlite3.connect(str(target))
            try:
                source.backup(dest)
            finally:
                dest.close()
        finally:
            source.close()
        yield target


def _is_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _add_tree(tar: tarfile.TarFile, path: Path, arcname: str) -> int:
    files = 0
    if path.is_symlink():
        return 0
    if path.is_dir():
        info = tar.gettarinfo(str(path), arcname)
        tar.addfile(info)
        for child in sorted(path.iterdir()):
            files += _add_tree(tar, child, f"{arcname}/{child.name}")
        return files
    if not path.is_file() or path.name.endswith(SKIP_SUFFIXES):
        return 0
    info = tar.gettarinfo(str(path), arcname)
    if _is_sqlite(path):
        with _sqlite_copy(path) as copy, open(copy, "rb") as fh:
            info.size = copy.stat().st_size
            tar.addfile(info, fh)
    else:
        with open(path, "rb") as fh:
            tar.addfile(info, fh)
    return 1


def _lesson_total(ctx: EngineContext) -> int:
    """How many lessons the store holds: from its SQLite file when it can say
    (no chromadb import; Chroma's own count costs seconds at 100k)."""
    from twiceshy.memory.census import open_census

    census = open_census(ctx, (), scan=False)
    if census is None:
        return int(ctx.store.count())
    with census:
        return census.size()


def backup(ctx: EngineContext, out: Path | None = None, stop_engine: bool = False) -> tuple[Path, dict[str, Any]]:
    """Write the whole data dir (and the store, wherever configured) to a ``.tar.gz``.
    Returns (archive path, manifest)."""
    from twiceshy import __version__

    if ctx.config["store"]["mode"] != "embedded":
        raise PortableError(
            "store.mode is server: back up the Chroma server's own --path folder; "
            "`twiceshy export` gives a portable copy of the lessons"
        )
    home = data_dir()
    store = store_path(ctx)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    if out is None:
        out = home / "backups" / f"twiceshy-backup-{stamp}.tar.gz"
    elif out.is_dir():
        out = out / f"twiceshy-backup-{stamp}.tar.gz"
    out.parent.mkdir(parents=True, exist_ok=True)
    lessons = _lesson_total(ctx) if store.exists() else 0
    with writes_paused(home, stop_engine=stop_engine):
        entries = _backup_entries(home, store)
        manifest: dict[str, Any] = {
            "format": BACKUP_FORMAT,
            "version": BACKUP_VERSION,
            "created_at": time.time(),
            "created": _iso(time.time()),
            "twiceshy_version": __version__,
            "host": socket.gethostname(),
            "data_dir": str(home),
            "store_path": str(store),
            "collection": ctx.config["store"]["collection"],
            "lessons": lessons,
            "entries": [name for _, name in entries],
        }
        tmp = out.with_name(out.name + ".partial")
        files = 0
        # gzip level 1: the vector index barely compresses at any level, and level 9
        # cost 3x the time of level 1 on the SQLite file for 7% less (100k lessons: 62 s of 90).
        with tarfile.open(tmp, "w:gz", compresslevel=BACKUP_GZIP_LEVEL) as tar:
            body = json.dumps(manifest, indent=2).encode()
            info = tarfile.TarInfo("manifest.json")
            info.size, info.mtime, info.mode = len(body), int(time.time()), 0o600
            tar.addfile(info, io.BytesIO(body))
            for path, name in entries:
                files += _add_tree(tar, path, name)
        manifest["files"] = files
        os.replace(tmp, out)
    return out, manifest


def read_manifest(archive: Path) -> dict[str, Any]:
    """The manifest of a backup archive; :class:`PortableError` if it is not one."""
    try:
        with tarfile.open(archive, "r:gz") as tar:
            member = tar.getmember("manifest.json")
            fh = tar.extractfile(member)
            manifest = json.loads(fh.read() if fh else b"")
    except (OSError, tarfile.TarError, KeyError, ValueError) as exc:
        raise PortableError(f"{archive} is not a twiceshy backup ({type(exc).__name__}: {exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        raise PortableError(f"{archive} is not a twiceshy backup (no {BACKUP_FORMAT} manifest)")
    if int(manifest.get("version", 0)) > BACKUP_VERSION:
        raise PortableError(f"{archive} was made by a newer twiceshy (backup version {manifest.get('version')})")
    return manifest


def _safe_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    members = []
    for m in tar.getmembers():
        parts = Path(m.name).parts
        if m.name.startswith(("/", "\\")) or ".." in parts or not parts:
            raise PortableError(f"refusing archive member with an unsafe path: {m.name!r}")
        if not (m.isfile() or m.isdir()):
            raise PortableError(f"refusing archive member that is not a plain file or folder: {m.name!r}")
        members.append(m)
    return members


def restore(ctx: EngineContext, archive: Path, stop_engine: bool = False) -> tuple[dict[str, Any], Path]:
    """Replace the data dir's contents (and the store) with a backup.

    Everything replaced is moved to ``<data dir>/backups/pre-restore-<time>/``
    first (its path is returned with the manifest). Validates the whole
    archive before touching anything.
    """
    manifest = read_manifest(archive)
    home = data_dir()
    store = store_path(ctx)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    saved = home / "backups" / f"pre-restore-{stamp}"
    home.mkdir(parents=True, exist_ok=True)
    with writes_paused(home, stop_engine=stop_engine):
        staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=home))
        try:
            with tarfile.open(archive, "r:gz") as tar:
                members = [m for m in _safe_members(tar) if m.name != "manifest.json"]
                if hasattr(tarfile, "data_filter"):  # Python >= 3.10.12 / 3.11.4: refuse links out, devices
                    tar.extractall(staging, members=members, filter="data")
                else:  # _safe_members already dropped absolute paths, "..", links and devices
                    tar.extractall(staging, members=members)
            saved.mkdir(parents=True, exist_ok=True)
            # Move aside everything a backup would hold, so the result is the backup exactly.
            for path, name in _backup_entries(home, store):
                shutil.move(str(path), str(saved / name))
            for child in sorted(staging.iterdir()):
                target = store if child.name == "store" else home / child.name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(child), str(target))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return manifest, saved


# --------------------------------------------------------------------------
# Seed from instruction files
# --------------------------------------------------------------------------

SEED_NAMES = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".cursorrules", ".windsurfrules")
SEED_GLOBS = (".cursor/rules/*.mdc", ".cursor/rules/*.md", ".github/copilot-instructions.md", ".claude/CLAUDE.md")
BEGIN_MARK = "<!-- twiceshy:begin -->"
END_MARK = "<!-- twiceshy:end -->"
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.*\S)\s*$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
MIN_WORDS = 3


@dataclass
class SeedItem:
    """One bullet found in an instruction file."""

    text: str
    file: str
    line: int
    heading: str = ""
    headings: list[str] = field(default_factory=list)


def _clean(text: str) -> str:
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)  # [label](url) -> label
    text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
    return " ".join(text.split())


def parse_seed_text(text: str, file: str = "") -> list[SeedItem]:
    """Bullet lines of a markdown (or .mdc) document, with the heading they sit under.

    Skipped: YAML frontmatter, fenced code, HTML comments, twiceshy's managed
    block, and bullets of fewer than three words. An indented line right
    after a bullet continues it.
    """
    lines = text.splitlines()
    items: list[SeedItem] = []
    stack: list[tuple[int, str]] = []
    in_fence = in_managed = in_comment = False
    start = 0
    if lines and lines[0].strip() == "---":  # frontmatter (.mdc, some AGENTS.md)
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    current: SeedItem | None = None
    current_indent = 0

    def flush() -> None:
        nonlocal current
        if current is not None:
            current.text = _clean(current.text)
            if len(current.text.split()) >= MIN_WORDS:
                items.append(current)
        current = None

    for number in range(start, len(lines)):
        raw = lines[number]
        stripped = raw.strip()
        if BEGIN_MARK in stripped:
            flush()
            in_managed = END_MARK not in stripped.split(BEGIN_MARK, 1)[1]
            continue
        if in_managed:
            in_managed = END_MARK not in stripped
            continue
        if _FENCE.match(raw):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        heading = _HEADING.match(raw)
        if heading:
            flush()
            level = len(heading.group(1))
            stack = [(lvl, name) for lvl, name in stack if lvl < level] + [(level, _clean(heading.group(2)))]
            continue
        bullet = _BULLET.match(raw)
        if bullet:
            flush()
            names = [name for _, name in stack]
            current = SeedItem(bullet.group(2), file, number + 1, names[-1] if names else "", names)
            current_indent = len(bullet.group(1))
            continue
        if current is not None and stripped and len(raw) - len(raw.lstrip()) > current_indent:
            current.text += " " + stripped  # continuation of the bullet
            continue
        flush()
    flush()
    return items


def find_seed_files(path: Path) -> list[Path]:
    """The instruction files at ``path``: the file itself, or the known names in a folder."""
    path = Path(path).expanduser()
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise PortableError(f"{path} does not exist")
    found = [path / name for name in SEED_NAMES if (path / name).is_file()]
    for pattern in SEED_GLOBS:
        found.extend(sorted(p for p in path.glob(pattern) if p.is_file() and p not in found))
    return found


_USER_DIRS = (".claude", ".codex", ".gemini", ".cursor")


def seed_scope(file: Path, scope: str) -> str | None:
    """Project fingerprint for ``scope`` (``project``/``global``/``auto``).
    ``auto``: global for files in a user-wide agent folder (~/.claude …), else the file's project."""
    from twiceshy.base.project import fingerprint

    if scope == "global":
        return None
    if scope == "auto":
        home = Path.home().resolve()
        resolved = file.resolve()
        if any(resolved.is_relative_to(home / d) for d in _USER_DIRS):
            return None
    return fingerprint(str(file.resolve().parent))


def seed(
    ctx: EngineContext,
    path: Path,
    tier: int = int(Tier.QA),
    scope: str = "auto",
    dry_run: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Store every bullet of the instruction files at ``path`` as a lesson.

    Default tier QA: the advice is shown before matching actions but never
    blocks one until the judge has seen it followed. Returns counts per
    outcome plus the files read and the items found.
    """
    from twiceshy.base.redact import redact

    files = find_seed_files(path)
    items: list[tuple[SeedItem, str | None]] = []
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise PortableError(f"cannot read {file}: {exc.strerror}") from None
        project = seed_scope(file, scope)
        items.extend((item, project) for item in parse_seed_text(text, str(file)))
    counts: dict[str, Any] = {
        "files": [str(f) for f in files],
        "found": len(items),
        "new": 0,
        "related": 0,
        "supersedes": 0,
        "seen": 0,
    }
    if dry_run:
        counts["items"] = [
            {"text": redact(i.text), "file": i.file, "line": i.line, "heading": i.heading} for i, _ in items
        ]
        return counts
    bulk = [
        _Item(
            text=redact(item.text.strip()),
            trigger=redact(item.text.strip()),
            project=project,
            tags=["seed"],
            kind="seed",
            source=f"seed:{item.file}:{item.line}",
            confidence=0.6,
            tier=int(tier),
        )
        for item, project in items
    ]
    outcome, _ = bulk_store(ctx, bulk, progress=progress, count_once=True, stronger_tier_on_seen=False)
    for name in ("new", "related", "supersedes", "seen"):
        counts[name] = outcome.get(name, 0)
    return counts


__all__ = [
    "EXPORT_FORMAT",
    "EXPORT_SCHEMA_VERSION",
    "EngineRunning",
    "PortableError",
    "SeedItem",
    "backup",
    "export_data",
    "write_export",
    "find_seed_files",
    "import_data",
    "import_file",
    "lesson_record",
    "parse_seed_text",
    "read_manifest",
    "restore",
    "seed",
    "validate_export",
    "writes_paused",
]
