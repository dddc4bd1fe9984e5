"""The shape every agent plugin shares.

An agent plugin is three modules — ``adapter`` (payload in, native output
out), ``settings`` (where its settings and context files are; merging our
hook entries in and out) and ``transcript`` (its session log) — plus one
:class:`AgentPlugin` that answers the ``agent_*`` hooks for its own agent
name and returns ``None`` for every other agent (they are firstresult
hooks, so "not mine" must be ``None``).

A new agent needs only those three modules and
``plugin = AgentPlugin("my-agent", adapter, settings, transcript)``; register
it through the ``twiceshy`` entry-point group as ``"pkg.module:plugin"``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from twiceshy.base.types import CoreEvent, Decision, NativeOutput, TranscriptEntry
from twiceshy.plugin.hookspecs import hookimpl


class AgentPlugin:
    """Answers the agent-adapter hooks for ``name`` by delegating to its modules.

    ``adapter`` provides ``parse_payload(native_event, payload)`` and
    ``format_decision(event, decision)``; ``settings`` provides
    ``settings_file(scope, project_dir)``, ``context_file(project_dir)``,
    ``install_hooks(settings, hook_command)``, ``uninstall_hooks(settings)``
    and optionally ``install_notes(scope, project_dir)``; ``transcript``
    provides ``read_transcript(path)``.
    """

    def __init__(self, name: str, adapter: ModuleType, settings: ModuleType, transcript: ModuleType) -> None:
        self.name = name
        self.adapter = adapter
        self.settings = settings
        self.transcript = transcript

    def __repr__(self) -> str:
        return f"<AgentPlugin {self.name}>"

    @hookimpl
    def agent_names(self) -> list[str]:
        return [self.name]

    @hookimpl
    def agent_parse_payload(self, agent: str, native_event: str, payload: dict[str, Any]) -> CoreEvent | None:
        return self.adapter.parse_payload(native_event, payload) if agent == self.name else None

    @hookimpl
    def agent_format_decision(self, agent: str, event: CoreEvent, decision: Decision) -> NativeOutput | None:
        return self.adapter.format_decision(event, decision) if agent == self.name else None

    @hookimpl
    def agent_settings_file(self, agent: str, scope: str, project_dir: Path) -> Path | None:
        return self.settings.settings_file(scope, project_dir) if agent == self.name else None

    @hookimpl
    def agent_context_file(self, agent: str, project_dir: Path) -> Path | None:
        return self.settings.context_file(project_dir) if agent == self.name else None

    @hookimpl
    def agent_install_hooks(
        self, agent: str, settings: dict[str, Any], hook_command: Callable[[str], str]
    ) -> dict[str, Any] | None:
        return self.settings.install_hooks(settings, hook_command) if agent == self.name else None

    @hookimpl
    def agent_uninstall_hooks(self, agent: str, settings: dict[str, Any]) -> dict[str, Any] | None:
        return self.settings.uninstall_hooks(settings) if agent == self.name else None

    @hookimpl
    def agent_install_notes(self, agent: str, scope: str, project_dir: Path) -> list[str] | None:
        notes = getattr(self.settings, "install_notes", None)
        if agent != self.name or notes is None:
            return None
        return notes(scope, project_dir) or None

    @hookimpl
    def agent_read_transcript(self, agent: str, path: Path) -> list[TranscriptEntry] | None:
        return self.transcript.read_transcript(Path(path)) if agent == self.name else None
