"""How each real agent CLI is driven headless and offline against a fake model server.

Each driver writes the agent's per-user config into the temp HOME, builds the
environment and argv, runs the CLI in the project directory and returns the
finished process. Recipes (see docs/e2e.md):

- Claude Code: ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=dummy,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, ``claude -p ... --output-format
  json --allowedTools Bash`` (root refuses --dangerously-skip-permissions).
- Gemini CLI: GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY=dummy,
  GEMINI_CLI_TRUST_WORKSPACE=true (untrusted folders run no hooks),
  GEMINI_CLI_NO_RELAUNCH=true (start-up), user
  settings ``security.auth.selectedType = gemini-api-key``, ``-p ... --yolo``.
- Codex CLI: CODEX_HOME/config.toml with a ``wire_api = "responses"`` provider,
  ``codex exec --skip-git-repo-check --json
  --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust
  --trust`` (without --trust, project ``.codex/`` config and its hooks are ignored;
  without the hook-trust flag, hooks are skipped silently).
- Qwen Code: OPENAI_BASE_URL/_API_KEY/_MODEL, Node 22 first on PATH,
  ``qwen -p ... --yolo --auth-type openai --output-format json``.
- Factory Droid: FACTORY_AIRGAP_ENABLED=true and a bring-your-own-key model in
  ``~/.factory/settings.json``, ``droid exec --skip-permissions-unsafe``.
- OpenCode: a provider with ``"npm": "@ai-sdk/openai-compatible"`` (bundled)
  in the project's ``opencode.json``, OPENCODE_DISABLE_MODELS_FETCH=1,
  ``opencode run ... --format json``; its own npm install of
  ``@opencode-ai/plugin`` is skipped by seeding the config folders'
  ``node_modules/`` and lock file (offline it would wait about a minute).
- Copilot CLI: BYOK (COPILOT_PROVIDER_BASE_URL) with COPILOT_OFFLINE=true, so
  no GitHub sign-in; ``copilot -p ... --allow-all-tools --trust-folder
  --output-format json`` (--trust-folder lets the repository hooks load).

Each CLI has ``<cli>_command(prompt, project, home, server)``, which writes the
CLI's config and returns ``(argv, env)`` (for a test that starts the process
itself, e.g. to kill it), and ``run_<cli>``, which runs that to the end.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from . import agents
from .conftest import base_env, require_cli, run_cli
from .fake_base import FakeServer

Command = tuple[list[str], dict[str, str]]  # argv, env
CommandFn = Callable[[str, Path, Path, FakeServer], Command]
Done = subprocess.CompletedProcess[str]


def claude_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    env = base_env(home) | {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    argv = [str(require_cli("claude")), "-p", prompt, "--output-format", "json", "--allowedTools", "Bash"]
    return argv, env


def gemini_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    settings.write_text(json.dumps(data, indent=2))
    env = base_env(home) | {
        "GOOGLE_GEMINI_BASE_URL": server.url,
        "GEMINI_API_KEY": "dummy",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        # Skip the self-relaunch with a bigger heap: halves start-up (~5 s) on a small box.
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    argv = [str(require_cli("gemini")), "-p", prompt, "--yolo", "--output-format", "json"]
    return argv, env


def codex_home(home: Path) -> Path:
    return home / ".codex"


def codex_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    chome = codex_home(home)
    chome.mkdir(parents=True, exist_ok=True)
    config = chome / "config.toml"
    ours = (
        'model = "gpt-fake"\nmodel_provider = "fake"\n\n'
        f'[model_providers.fake]\nname = "fake"\nbase_url = "{server.url}/v1"\nwire_api = "responses"\n'
        'env_key = "FAKE_OPENAI_KEY"\n\n[features]\nplugins = false\nremote_plugin = false\napps = false\n'
    )
    # Keep whatever a user-scope install wrote after our block (hooks, trust state).
    existing = config.read_text() if config.exists() else ""
    marker = "# --- e2e fake provider end ---\n"
    rest = existing.split(marker, 1)[1] if marker in existing else existing
    config.write_text(ours + marker + rest)
    env = base_env(home) | {"CODEX_HOME": str(chome), "FAKE_OPENAI_KEY": "dummy"}
    argv = [
        str(require_cli("codex")),
        "exec",
        "--skip-git-repo-check",
        "--json",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--trust",
        prompt,
    ]
    return argv, env


# Qwen Code: OpenAI-compatible chat completions (OPENAI_BASE_URL/_API_KEY/_MODEL), Node 22 first on
# PATH (agents.cli_env_path), `qwen -p ... --yolo --auth-type openai --output-format json`.
def qwen_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    env = base_env(home) | {
        "PATH": agents.cli_env_path("qwen", base_env(home)["PATH"]),
        "OPENAI_BASE_URL": f"{server.url}/v1",
        "OPENAI_API_KEY": "dummy",
        "OPENAI_MODEL": "gpt-fake",
        "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
    }
    argv = [str(require_cli("qwen")), "-p", prompt, "--yolo", "--auth-type", "openai", "--output-format", "json"]
    return argv, env


# Factory Droid: offline only with FACTORY_AIRGAP_ENABLED=true and a bring-your-own-key model
# in ~/.factory/settings.json (customModels, provider generic-chat-completion-api), addressed as
# custom:<displayName>-<index>; `droid exec --skip-permissions-unsafe` (else read-only autonomy).
DROID_MODEL = "custom:Fake-0"


def droid_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    settings = home / ".factory" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(settings.read_text()) if settings.exists() else {}
    data["customModels"] = [
        {
            "model": "gpt-fake",
            "displayName": "Fake",
            "baseUrl": f"{server.url}/v1",
            "apiKey": "dummy",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }
    ]
    settings.write_text(json.dumps(data, indent=2))
    env = base_env(home) | {"FACTORY_AIRGAP_ENABLED": "true"}
    argv = [str(require_cli("droid")), "exec", "--skip-permissions-unsafe", "-m", DROID_MODEL, "-o", "json", prompt]
    return argv, env


# OpenCode: the plugin dependency it would npm-install into its config folder at start-up.
OPENCODE_PLUGIN_VERSION = agents.PACKAGES["opencode"][1]


def seed_plugin_dependency(folder: Path) -> None:
    """Make OpenCode's dependency check find ``@opencode-ai/plugin`` installed in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "node_modules").mkdir(exist_ok=True)
    lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": OPENCODE_PLUGIN_VERSION}}}}
    (folder / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def opencode_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    # Both config folders: the user's, and the project's .opencode/ (where the plugin's copy is).
    seed_plugin_dependency(home / ".config" / "opencode")
    seed_plugin_dependency(project / ".opencode")
    config_path = project / "opencode.json"
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.exists() else {}
    config.update(
        {
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": f"{server.url}/v1", "apiKey": "dummy"},
                    "models": {"gpt-fake": {"name": "Fake GPT", "tool_call": True}},
                }
            },
            "model": "fake/gpt-fake",
            "small_model": "fake/gpt-fake",
            "autoupdate": False,
            "share": "disabled",
        }
    )
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    env = base_env(home) | {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1"}
    return [str(require_cli("opencode")), "run", prompt, "--format", "json"], env


def copilot_command(prompt: str, project: Path, home: Path, server: FakeServer) -> Command:
    env = base_env(home) | {
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_PROVIDER_BASE_URL": f"{server.url}/v1",
        "COPILOT_PROVIDER_API_KEY": "dummy",
        "COPILOT_MODEL": "gpt-4.1",
        # The binary unpacks its 88 MB package on first start: once per checkout, not per test.
        "COPILOT_CACHE_HOME": str(agents.PREFIX / "copilot-cache"),
    }
    argv = [str(require_cli("copilot")), "-p", prompt, "--allow-all-tools", "--trust-folder", "--output-format", "json"]
    return argv, env


def _run(command: CommandFn, prompt: str, project: Path, home: Path, server: FakeServer) -> Done:
    argv, env = command(prompt, project, home, server)
    return run_cli(argv, project, env)


def run_claude(prompt: str, project: Path, home: Path, server: FakeServer) -> Done:
    return _run(claude_command, prompt, project, home, server)


def run_gemini(prompt: str, project: Path, home: Path, server: FakeServer) -> Done:
    return _run(gemini_command, prompt, project, home, server)


def run_codex(prompt: str, project: Path, home: Path, server: FakeServer) -> Done:
    return _run(codex_command, prompt, project, home, server)


def run_copilot(prompt: str, project: Path, home: Path, server: FakeServer) -> Done:
    return _run(copilot_command, prompt, project, home, server)
