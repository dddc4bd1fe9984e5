"""Per-session trajectory records: what an agent did in a session and how it went.

One JSON object per session end is appended to ``<data_dir>/trajectories.jsonl``.
Stop hooks fire after every turn, so a session may be recorded several times as
it grows; :func:`load_trajectories` keeps the last record of each session.
The guidance plugin distils rules ("sessions that read before editing score
higher") from these records.

Fields: session_id, agent, project, cwd, started, ended, duration_s,
tool_calls, tool_counts {tool: n}, files_read, files_edited, errors,
tests_run, tests_failed_then_passed, last_test_passed (bool or null),
edits_before_read, verified_after_multi_edit, corrections, domains,
outcome_score, digest (of the record: a replayed session end that finds its
session's latest record with the same digest writes nothing), recorded_at.

``outcome_score`` (0..1) is::

    0.6
    + 0.2   if the last test run passed        (- 0.3 if it failed)
    - 0.3 * error_rate                         (failed calls / calls)
    - 0.1   if >= 2 files were edited and no test/build ran after
    - 0.1 * blind_edit_ratio                   (edits_before_read / files edited)
    - 0.05 per user correction, at most 0.15
    clamped to [0, 1], rounded to 3 places.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from twiceshy.base.paths import data_dir
from twiceshy.base.project import fingerprint
from twiceshy.base.types import CoreEvent, TranscriptEntry
from twiceshy.learning.extractors import (
    READ_TOOLS,
    SHELL_TOOLS,
    _command,
    domains_of,
    edited_paths,
    is_build_command,
    is_test_command,
    pair_steps,
    user_corrections,
)

FILE_NAME = "trajectories.jsonl"
_READ_COMMANDS = ("cat", "head", "tail", "less", "more", "bat", "nl")


def trajectories_path() -> Path:
    return data_dir() / FILE_NAME


def _epoch(stamp: str) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        try:
            return float(stamp)
        except ValueError:
            return None


def _read_paths(step: Any) -> list[str]:
    """Files a call read: a read tool's path, or ``cat``/``head``… on a shell."""
    tin = step.call.tool_input or {}
    if step.tool.lower() in READ_TOOLS:
        for key in ("file_path", "path", "notebook_path", "absolute_path", "target_file"):
            if isinstance(tin.get(key), str) and tin[key]:
                return [tin[key]]
        paths = tin.get("paths")
        return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []
    if step.tool.lower() in SHELL_TOOLS or "command" in tin:
        tokens = _command(step).split()
        if tokens and tokens[0] in _READ_COMMANDS:
            return [t for t in tokens[1:] if not t.startswith("-") and not t.isdigit() and "|" not in t][:4]
    return []


def outcome_score(
    tool_calls: int,
    errors: int,
    last_test_passed: bool | None,
    files_edited: int,
    verified_after_multi_edit: bool,
    edits_before_read: int,
    corrections: int,
) -> float:
    """The documented formula (see the module docstring)."""
    score = 0.6
    if last_test_passed is True:
        score += 0.2
    elif last_test_passed is False:
        score -= 0.3
    score -= 0.3 * (errors / tool_calls if tool_calls else 0.0)
    if files_edited >= 2 and not verified_after_multi_edit:
        score -= 0.1
    score -= 0.1 * (edits_before_read / files_edited if files_edited else 0.0)
    score -= min(0.15, 0.05 * corrections)
    return round(min(1.0, max(0.0, score)), 3)


def build_trajectory(event: CoreEvent, transcript: list[TranscriptEntry]) -> dict[str, Any]:
    """The trajectory record of one session, from its transcript (pure)."""
    steps = pair_steps(transcript)
    tool_counts: dict[str, int] = {}
    files_read: list[str] = []
    files_edited: list[str] = []
    blind: list[str] = []
    errors = tests_run = 0
    test_results: list[bool] = []
    failed_then_passed = False
    verified = False
    for step in steps:
        tool_counts[step.tool] = tool_counts.get(step.tool, 0) + 1
        if step.failed:
            errors += 1
        for path in _read_paths(step):
            if path not in files_read:
                files_read.append(path)
        for path in edited_paths(step):
            created = (
                step.tool.lower() in ("write", "write_file", "create_file") and "created" in (step.output or "").lower()
            )
            if path not in files_read and path not in files_edited and not created:
                blind.append(path)
            if path not in files_edited:
                files_edited.append(path)
        command = _command(step)
        if command and is_test_command(command):
            tests_run += 1
            if step.result is not None:
                passed = not step.failed
                if passed and False in test_results:
                    failed_then_passed = True
                test_results.append(passed)
        if command and (is_test_command(command) or is_build_command(command)) and len(files_edited) >= 2:
            verified = True
    stamps = [s for s in (_epoch(e.timestamp) for e in transcript) if s is not None]
    ended = max(stamps) if stamps else event.timestamp
    started = min(stamps) if stamps else ended
    corrections = len(user_corrections(transcript))
    last_test = test_results[-1] if test_results else None
    calls = sum(tool_counts.values())
    record = {
        "session_id": event.session_id,
        "agent": event.agent,
        "project": fingerprint(event.cwd) if event.cwd else None,
        "cwd": event.cwd,
        "started": started,
        "ended": ended,
        "duration_s": round(max(0.0, ended - started), 3),
        "tool_calls": calls,
        "tool_counts": tool_counts,
        "files_read": files_read,
        "files_edited": files_edited,
        "errors": errors,
        "tests_run": tests_run,
        "tests_failed_then_passed": failed_then_passed,
        "last_test_passed": last_test,
        "edits_before_read": len(blind),
        "verified_after_multi_edit": verified,
        "corrections": corrections,
        "domains": domains_of(files_read + files_edited + [_command(s) for s in steps]),
    }
    record["outcome_score"] = outcome_score(
        calls, errors, last_test, len(files_edited), verified, len(blind), corrections
    )
    return record


def record_trajectory(event: CoreEvent, transcript: list[TranscriptEntry]) -> dict[str, Any]:
    """Build the record and append it to ``trajectories.jsonl`` (one line, atomic append)."""
    record = build_trajectory(event, transcript)
    # Idempotent: a replayed session end (the engine killed after this write, before the
    # spool recorded the event done) finds the same record last for its session and adds none.
    record["digest"] = hashlib.sha256(json.dumps(record, sort_keys=True, default=str).encode()).hexdigest()[:16]
    path = trajectories_path()
    if _last_digest(path, record) == record["digest"]:
        return record
    record["recorded_at"] = time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, default=str) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return record


TAIL_BYTES = 256 * 1024  # how far back a replay looks for its own record (cheap, bounded)


def _last_digest(path: Path, record: dict[str, Any]) -> str | None:
    """The digest of this session's latest record within the file's tail (None if none)."""
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - TAIL_BYTES))
            lines = fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            old = json.loads(line)
        except ValueError:
            continue  # a torn first line of the tail, or a bad line
        if isinstance(old, dict) and (old.get("agent"), old.get("session_id")) == (
            record.get("agent"),
            record.get("session_id"),
        ):
            digest = old.get("digest")
            return digest if isinstance(digest, str) else None
    return None


def load_trajectories(path: Path | None = None) -> list[dict[str, Any]]:
    """Every session's latest record, oldest session end first. Bad lines are skipped."""
    path = path or trajectories_path()
    latest: dict[str, dict[str, Any]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for index, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        key = f"{record.get('agent')}:{record.get('session_id') or f'#{index}'}"
        latest[key] = record
    return sorted(latest.values(), key=lambda r: (r.get("ended") or 0, r.get("recorded_at") or 0))
