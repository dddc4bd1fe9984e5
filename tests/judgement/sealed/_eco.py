"""Which ecosystem each sealed incident belongs to (for the balance checks only).

``eco("node", Incident(...))`` records the tag and returns the incident unchanged.
"""

from __future__ import annotations

from ..spec import Incident

ECOSYSTEMS = (
    "node", "python", "rust", "go", "docker", "kubernetes", "terraform", "git", "cloud-cli", "shell",
    "java", "ruby", "dotnet", "database",
)  # fmt: skip

ECOSYSTEM: dict[str, str] = {}


def eco(name: str, incident: Incident) -> Incident:
    if name not in ECOSYSTEMS:
        raise ValueError(f"{incident.id}: unknown ecosystem {name!r}")
    ECOSYSTEM[incident.id] = name
    return incident
