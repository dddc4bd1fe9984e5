"""What ``twiceshy doctor`` reports: one :class:`Check` per finding, a :class:`Report` of them
and its one verdict line. Shared by :mod:`twiceshy.ops.doctor` and :mod:`twiceshy.ops.doctor_hooks`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from twiceshy.base.config import Config

LEVELS = ("ok", "info", "warn", "fail")
ERROR_WINDOW_S = 24 * 3600  # errors of the last day count as recent


@dataclass
class Check:
    """One doctor finding. ``fix`` is a command or an instruction, empty when ok."""

    name: str
    level: str
    detail: str
    fix: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.level != "fail"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


@dataclass
class Report:
    """Every check of one doctor run."""

    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def failed(self, strict: bool = False) -> list[Check]:
        bad = ("warn", "fail") if strict else ("fail",)
        return [c for c in self.checks if c.level in bad]

    def verdict(self, strict: bool = False) -> str:
        """The one line doctor ends with; it never contradicts a row (a warning is never "all good")."""
        fails = sum(1 for c in self.checks if c.level == "fail")
        warns = sum(1 for c in self.checks if c.level == "warn")
        if fails or (strict and warns):
            counted = fails + (warns if strict else 0)
            extra = f" and {warns} warning(s)" if warns and not strict else ""
            return f"{counted} problem(s){extra}: see the fixes above"
        if warns:
            return f"working, with {warns} warning(s): see the fixes above"
        return "all good"

    def to_dict(self) -> dict[str, Any]:
        counts = {level: sum(1 for c in self.checks if c.level == level) for level in LEVELS}
        return {
            "ok": self.ok,
            "verdict": self.verdict(),
            "counts": counts,
            "checks": [c.to_dict() for c in self.checks],
        }


class DoctorState:
    """What later checks need from earlier ones."""

    def __init__(self, project_dir: Path, check_model: bool, full: bool = False) -> None:
        self.project_dir = project_dir
        self.check_model = check_model
        self.full = full  # read every lesson back (and a full SQLite integrity check), not a sample
        self.config: Config | None = None
        self.pm: Any = None
        self.embedder: Any = None
        self.engine_running = False
        self.failed: set[str] = set()  # names of the checks that failed so far
        # The running engine's store and embedder figures (twiceshy.ops.doctor_engine), asked once;
        # None with the reason in engine_note when doctor opens the store itself.
        self.engine_asked = False
        self.engine_figures: dict[str, Any] | None = None
        self.engine_note = ""
        self.pending: dict[str, Any] = {}  # name -> twiceshy.ops.doctor_engine.Pending, started after config
