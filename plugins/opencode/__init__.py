"""The OpenCode agent plugin (agent name ``opencode``).

Contract assumed — checked against ``opencode-ai@1.18.33`` (linux-x64): the
JS bundle inside its Bun-compiled binary, the ``@opencode-ai/plugin@1.18.33``
type definitions it installs itself, and real ``opencode run`` sessions
offline against a scripted chat-completions server (a provider with
``"npm": "@ai-sdk/openai-compatible"``, which is bundled, and a local
``baseURL``). Samples in ``tests/fixtures/opencode/``; the full account in
``docs/agents-new.md``.

How it is wired
    OpenCode runs JS/TS plugins, not hook commands. We ship ``twiceshy.js``
    (Node built-ins only) and list it in the ``plugin`` array of
    ``~/.config/opencode/opencode.json`` (user) or ``<project>/opencode.json``
    with the hook-client commands as its options (:mod:`.settings`). The
    plugin runs the client once per event and fails open on every error and
    timeout.

What OpenCode offers a plugin (1.18.33)
    ``tool.execute.before`` (args only; throwing blocks the call and the
    model reads the message as the tool's error), ``tool.execute.after``
    (successful calls only; ``output.output`` is what the model reads),
    ``chat.message`` (parts of the user's prompt, before the model sees it),
    ``experimental.chat.system.transform`` (system prompt of every request),
    ``event`` (session.created, session.idle, message.part.updated — a failed
    tool's part turns to status ``error``), ``dispose`` (shutdown). No
    channel reaches the model between a tool call and its run.

What twiceshy does (see docs/agents.md and :mod:`.adapter`)
    deny/hold -> the plugin throws the reason; warn -> appended to the same
    call's result (late, as with Claude Code's PreToolUse context); session
    context -> system prompt; prompt context -> a synthetic text part;
    Stop (session.idle) and SessionEnd (dispose) -> lessons from OpenCode's
    SQLite store (:mod:`.transcript`).

Context file: ``AGENTS.md``.
"""

from __future__ import annotations

from twiceshy.plugin.agent import AgentPlugin
from twiceshy.plugins.opencode import adapter, transcript
from twiceshy.plugins.opencode import settings as opencode_settings

AGENT = adapter.AGENT
EVENTS = opencode_settings.EVENTS
VERIFIED_VERSION = "1.18.33"

plugin = AgentPlugin(AGENT, adapter, opencode_settings, transcript)
