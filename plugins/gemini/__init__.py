"""The Gemini CLI agent plugin (agent name ``gemini``).

Contract assumed — checked against ``@google/gemini-cli@0.61.0``: its bundled
docs (``bundle/docs/hooks/reference.md``), the bundled hook runner, planner,
aggregator and ChatRecordingService code, and real headless runs
(``gemini -p … --yolo --fake-responses``) whose hook payloads and chat files
are in ``tests/fixtures/gemini/``.

Settings
    ``~/.gemini/settings.json`` (user; under ``$GEMINI_CLI_HOME`` when set)
    or ``<project>/.gemini/settings.json``. The file holds many other user
    keys (ui, model, security, mcpServers …); we touch only ``hooks``::

        {"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [
            {"name": "twiceshy", "type": "command", "command": "...", "timeout": 10000}]}]}}

    ``timeout`` is in **milliseconds** (default 60000). Matchers are regexes
    for tool events, exact strings for lifecycle triggers; ``"*"`` matches
    all. Identical ``name:command`` hooks from several files run once.
    ``hooksConfig.enabled`` (default true) switches all hooks;
    ``hooksConfig.disabled`` lists names. In an untrusted folder no hook
    runs at all (``GEMINI_CLI_TRUST_WORKSPACE=true`` for automation); project
    hooks are fingerprinted and confirmed once.

Payload (JSON on stdin), every event
    ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``,
    ``timestamp`` (ISO 8601). BeforeTool ``tool_name``, ``tool_input``
    (optional ``mcp_context``, ``original_request_name``); AfterTool adds
    ``tool_response`` {``llmContent``, ``returnDisplay``, ``error``?};
    BeforeAgent ``prompt``; AfterAgent ``prompt``, ``prompt_response``,
    ``stop_hook_active``; SessionStart ``source`` (startup|resume|clear);
    SessionEnd ``reason`` (exit|clear|logout|prompt_input_exit|other).
    Tools: ``run_shell_command`` {``command``, ``description``, ``dir_path``},
    ``write_file`` {``file_path``, ``content``}, ``replace`` {``file_path``,
    ``old_string``, ``new_string``}, ``read_file``, ``mcp_<server>_<tool>``.

Output (stdout JSON, exit 0; stdout must be JSON only — any other text,
and stderr text when stdout is empty, becomes a ``systemMessage``)
    ``decision`` ``"deny"``/``"block"`` + ``reason``: BeforeTool blocks the
    call (reason sent to the model as the tool error); AfterAgent would
    force a retry (we never send it). ``hookSpecificOutput.additionalContext``
    reaches the model from AfterTool (appended to the tool result inside
    ``<hook_context>``, with ``<`` and ``>`` escaped), BeforeAgent (appended
    to the prompt) and SessionStart. **BeforeTool additionalContext is
    dropped** (the BeforeTool output class reads only decision, continue and
    ``tool_input``). Exit 2 blocks with stderr as the reason.
    ``hookSpecificOutput.permissionDecision`` is ignored by Gemini.

Degradation: a pre-tool *warning* goes to the user as ``systemMessage`` and
to the model with the same call's AfterTool (see :mod:`.adapter`). SessionEnd
is best effort (Gemini does not wait for it); the hook client spools it.

Transcript: :mod:`.transcript`. Context file: ``GEMINI.md`` (or the name in
``context.fileName``).
"""

from __future__ import annotations

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.gemini import adapter, transcript
from twiceshy.plugins.gemini import settings as gemini_settings

AGENT = adapter.AGENT
EVENTS = gemini_settings.EVENTS
VERIFIED_VERSION = "0.61.0"

# Answers the agent_* hooks for gemini (see twiceshy.plugin.agent).
plugin = AgentPlugin(AGENT, adapter, gemini_settings, transcript)
