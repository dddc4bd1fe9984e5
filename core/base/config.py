"""Configuration: defaults, then the user file, then the project's
``.twiceshy.yaml``, then environment overrides (``TWICESHY_<SECTION>__<KEY>``).

The user's file and the environment are trusted. A project's file is not,
until the user runs ``twiceshy trust`` there (:mod:`twiceshy.base.trust`):
until then only the keys in :data:`PROJECT_SAFE` are read from it, and those
of :data:`PROJECT_NARROW` when they narrow what the user set (a stricter
threshold, fewer writes); every other key it sets, or value that would widen,
is ignored with a warning on stderr (and in ``doctor``).

A bad value raises :class:`ConfigError` naming the file and the key; the hook
path catches it and fails open, ``twiceshy doctor`` shows it.
"""

from __future__ import annotations

import copy
import os
import sys
from pathlib import Path
from typing import Any

from twiceshy.base.paths import find_project_config, user_config_file


class ConfigError(ValueError):
    """A config file or value that cannot be used; the message names where."""


# section -> key -> (type, default). Types: bool, int, float, str, list, "str?"
# (a string or null). Keep each key documented in README's config table.
SCHEMA: dict[str, dict[str, tuple[Any, Any]]] = {
    "store": {
        "mode": (str, "embedded"),  # embedded | server
        "path": ("str?", None),  # default: <data dir>/store
        "host": (str, "127.0.0.1"),
        "port": (int, 8000),
        "collection": (str, "experiences"),
        "ssl": (bool, False),  # server mode: https (docs/team.md)
        "tenant": (str, "default_tenant"),  # server mode: Chroma tenant
        "database": (str, "default_database"),  # server mode: Chroma database (created on first use)
        "token_env": ("str?", None),  # server mode: env var holding the server's token
        "token_header": (str, "Authorization"),  # Authorization (Bearer) | X-Chroma-Token (Chroma Cloud)
        "headers": (list, []),  # server mode: extra "Name: value" HTTP headers
        "timeout_s": (float, 2.0),  # server mode: per request
        "connect_timeout_s": (float, 0.5),  # server mode: TCP connect; bounds a hook when the server is away
        "drain_interval_s": (float, 10.0),  # server mode: outbox delivery / reconnect period
    },
    "embedding": {
        "backend": (str, "minilm"),  # minilm (ONNX, shipped) | hash (lexical, no model)
    },
    "retrieval": {
        "top_k": (int, 8),
        "min_score": (float, 0.55),
        "max_warnings": (int, 3),
        "block_tiers": (list, [1]),
        "block_min_score": (float, 0.7),
        "session_warning_budget": (int, 20),
        # How a (non-rule) warning reaches the model before its call (twiceshy.recall.delivery):
        # hold = deny the first matching call once with the lesson as the reason (the identical
        # retry passes); context = pre-tool additionalContext (arrives with the result on the
        # CLIs we measured); off = show nothing, still record.
        "warn": (str, "hold"),
    },
    "hook": {
        "budget_ms": (int, 400),
        "readonly_skip": (bool, True),  # answer read-only commands (ls, git status…) without a search
    },
    "engine": {
        "idle_timeout_s": (int, 1800),
    },
    "llm": {
        "model": ("str?", None),
        "api_base": ("str?", None),
        "api_key_env": ("str?", None),
        "timeout_s": (float, 1.5),
        "max_retries": (int, 2),
    },
    "ranking": {  # heuristic ranking of recall candidates (see docs/brain.md); weights add to cosine
        "w_confidence": (float, 0.1),  # * (confidence - 0.5)
        "w_recency": (float, 0.05),  # * (recency - 0.5), recency halves every learning.decay_days
        "w_history": (float, 0.1),  # * judged follow balance in [-1, 1]
        "w_filetype": (float, 0.05),  # +/- when the lesson's language/file type matches the action's
        "w_project": (float, 0.03),  # lesson scoped to this project
        "superseded_penalty": (float, 0.2),
        "llm_filter": (bool, True),  # ask the model (if llm.model is set) which candidates apply
        "llm_candidates": (int, 6),  # at most this many numbered candidates in the prompt
    },
    "judge": {  # FOLLOWED/IGNORED/IRRELEVANT/UNCLEAR verdicts on shown warnings
        "enabled": (bool, True),
        "use_llm": (bool, True),  # use llm.model when set; heuristics otherwise
        "window": (int, 3),  # tool calls after the warned one that can still show follow/ignore
        "timeout_s": (float, 8.0),  # per verdict; off the hot path
    },
    "learning": {
        "dedup_threshold": (float, 0.80),  # tuned in bench/dedup_threshold.py (docs/learning.md)
        "related_threshold": (float, 0.70),
        "raw_ttl_days": (int, 14),
        "decay_days": (int, 30),
        "promote_after": (int, 3),
        "demote_after": (int, 3),
        "principle_min_rules": (int, 3),  # rules in a cluster before a T0 principle is generalised
        "principle_similarity": (float, 0.6),  # cosine of trigger+text that puts two rules in one cluster
    },
    "context": {
        "token_budget": (int, 1200),
        "session_token_budget": (int, 800),  # dynamic context returned at session start
        "max_per_group": (int, 6),  # lessons per Apply/Avoid/Consider group
        "auto_write": (bool, True),  # refresh installed agents' context files after each session end
        # which memory file a session end may write: always (create it) | existing (only a file
        # that is already there, e.g. after `twiceshy context --write`) | never
        "write": (str, "existing"),
    },
    "distill": {
        "min_sessions": (int, 10),  # trajectories needed before any rule is distilled
        "min_group": (int, 4),  # sessions needed on each side of a comparison
        "alpha": (float, 0.05),  # false-discovery rate (Benjamini-Hochberg) over all tests
        "min_effect": (float, 0.1),  # smallest outcome_score / success-rate difference worth a rule
    },
    "patterns": {
        "mature_count": (int, 3),
        "mature_confidence": (float, 0.5),
        "rule_count": (int, 6),
        "rule_confidence": (float, 0.75),
        "learn_rate": (float, 0.2),  # confidence += (1 - confidence) * learn_rate per sighting
        "decay_factor": (float, 0.5),  # confidence multiplier per idle --days period
        "drop_confidence": (float, 0.05),  # forget observations that decay below this
    },
    "projects": {
        "promote_min_projects": (int, 3),  # distinct projects before a lesson cluster goes global
    },
    "plugins": {
        "disabled": (list, []),
        # any other key: plugins.<name> is that plugin's own mapping (EngineContext.plugin_config)
    },
}


# The keys a project's .twiceshy.yaml may set to any value without `twiceshy trust`:
# they change only what a command run in that project reads and shows (how many
# lessons, how long to wait), never what is stored, forgotten, promoted or
# written, nor where data goes. Everything else — where data goes (store.*, data
# paths), which credentials and model are used (llm.model/api_base/api_key_env,
# store.token_env/headers), which code runs (plugins.*), how strongly the guard
# acts (retrieval.min_score/max_warnings/block_tiers/block_min_score/warn,
# hook.budget_ms, embedding.backend, ranking weights: a weight can put any lesson
# in front of every call), and what is forgotten, decayed, promoted, demoted or
# moved (learning.raw_ttl_days/decay_days/promote_after/demote_after/principle_*,
# patterns thresholds and decay, projects.promote_min_projects, judge.window/
# use_llm: how a verdict is reached) — needs trust, unless it is in
# PROJECT_NARROW. A new key needs trust until it is listed here (docs/security.md).
PROJECT_SAFE: dict[str, frozenset[str]] = {
    "retrieval": frozenset({"top_k", "session_warning_budget"}),
    "hook": frozenset({"readonly_skip"}),
    "engine": frozenset({"idle_timeout_s"}),
    "llm": frozenset({"timeout_s", "max_retries"}),
    "store": frozenset({"timeout_s", "connect_timeout_s", "drain_interval_s"}),
    "judge": frozenset({"timeout_s"}),
}

# The keys an untrusted project may only *narrow*: its value is applied when it
# makes twiceshy do less than the user's settings would — a stricter threshold,
# fewer or smaller writes, a feature off — and ignored (and named, like any
# ignored key) otherwise. "up": only a value at least the current one; "down": at
# most (and not below zero); "off": only false; a tuple: only a value at or before the current one.
# A key is here only if no narrowed value can remove, demote or move a lesson:
# patterns.mature_*/rule_* are not (a stricter threshold demotes at `decay`), nor
# judge.window (a shorter window turns a follow into an ignore, which demotes).
PROJECT_NARROW: dict[str, dict[str, str | tuple[str, ...]]] = {
    "learning": {"dedup_threshold": "up", "related_threshold": "up"},
    "judge": {"enabled": "off"},
    "ranking": {"llm_candidates": "down"},
    "context": {
        "token_budget": "down",
        "session_token_budget": "down",
        "max_per_group": "down",
        "auto_write": "off",
        "write": ("never", "existing", "always"),
    },
    "distill": {"min_sessions": "up", "min_group": "up", "alpha": "down", "min_effect": "up"},
    "patterns": {"learn_rate": "down"},
}


def project_may_set(section: str, key: str) -> bool:
    """May an untrusted project's config file set ``section.key`` (perhaps only
    narrowing it: :func:`narrows`)?"""
    return key in PROJECT_SAFE.get(section, frozenset()) or key in PROJECT_NARROW.get(section, {})


def narrows(section: str, key: str, current: Any, value: Any) -> bool:
    """Is an untrusted project's ``value`` for ``section.key`` one it may apply,
    given the ``current`` value (defaults, then the user's file)? Always true
    for a :data:`PROJECT_SAFE` key, never for a key that needs trust."""
    if key in PROJECT_SAFE.get(section, frozenset()):
        return True
    rule = PROJECT_NARROW.get(section, {}).get(key)
    if rule is None:
        return False
    if rule == "up":
        return bool(value >= current)
    if rule == "down":  # never below zero: a negative rate or budget is not "less", it inverts
        return bool(0 <= value <= current)
    if rule == "off":
        return value is False or value == current
    order = list(rule)
    value = value.lower() if isinstance(value, str) else value
    current = current.lower() if isinstance(current, str) else current
    if value not in order:
        return False
    return current not in order or order.index(value) <= order.index(current)


def defaults() -> dict[str, dict[str, Any]]:
    return {section: {key: copy.deepcopy(spec[1]) for key, spec in keys.items()} for section, keys in SCHEMA.items()}


def _coerce(section: str, key: str, value: Any, where: str) -> Any:
    kind = SCHEMA[section][key][0]
    label = f"{where}: {section}.{key}"
    if kind == "str?":
        if value is None or isinstance(value, str):
            return value
        raise ConfigError(f"{label} must be a string or null, got {value!r}")
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ConfigError(f"{label} must be true or false, got {value!r}")
    if kind is int:
        if isinstance(value, bool):
            raise ConfigError(f"{label} must be an integer, got {value!r}")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{label} must be an integer, got {value!r}") from None
    if kind is float:
        if isinstance(value, bool):
            raise ConfigError(f"{label} must be a number, got {value!r}")
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{label} must be a number, got {value!r}") from None
    if kind is list:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            return value
        raise ConfigError(f"{label} must be a list, got {value!r}")
    if kind is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise ConfigError(f"{label} must be a string, got {value!r}")
    raise AssertionError(kind)


def _merge_file(config: dict[str, dict[str, Any]], path: Path, ignored: list[str] | None = None) -> None:
    """Merge ``path`` into ``config``. With ``ignored`` (an untrusted project
    file), keys a project may not set are appended there instead of merged."""
    import yaml  # imported here: the hook client never loads config

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    if data is None:
        return
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections")
    for section, values in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"{path}: unknown section {section!r} (known: {', '.join(SCHEMA)})")
        if values is None:
            continue
        if not isinstance(values, dict):
            raise ConfigError(f"{path}: section {section!r} must be a mapping")
        for key, value in values.items():
            if (
                ignored is not None
                and not project_may_set(section, key)
                and (section == "plugins" or key in SCHEMA[section])
            ):
                ignored.append(f"{section}.{key}")
                continue
            if ignored is not None and key in SCHEMA[section] and section != "plugins":
                coerced = _coerce(section, key, value, str(path))
                if not narrows(section, key, config[section][key], coerced):
                    ignored.append(f"{section}.{key}")  # it would widen what the user set: only narrowing
                    continue
            if section == "plugins" and key not in SCHEMA[section]:
                # plugins.<name>: a plugin's own settings (ctx.plugin_config(name)), not checked here.
                if value is not None and not isinstance(value, dict):
                    raise ConfigError(f"{path}: plugins.{key} must be a mapping (a plugin's own settings)")
                config[section][key] = {**(config[section].get(key) or {}), **(value or {})}
                continue
            if key not in SCHEMA[section]:
                raise ConfigError(f"{path}: unknown key {section}.{key} (known: {', '.join(SCHEMA[section])})")
            config[section][key] = _coerce(section, key, value, str(path))


def _merge_env(config: dict[str, dict[str, Any]], environ: dict[str, str]) -> None:
    for name, value in environ.items():
        if not name.startswith("TWICESHY_") or "__" not in name:
            continue
        section, _, key = name[len("TWICESHY_") :].lower().partition("__")
        if section in SCHEMA and key in SCHEMA[section]:
            if SCHEMA[section][key][0] == "str?" and value.lower() in ("", "null", "none"):
                config[section][key] = None
            else:
                config[section][key] = _coerce(section, key, value, f"environment {name}")


class Config:
    """Loaded configuration. Access as ``config.get("retrieval", "top_k")`` or
    ``config["retrieval"]["top_k"]``; ``sources`` lists the files read.

    ``ignored`` lists the ``section.key`` names an untrusted project file set
    and that were not applied; ``warnings`` says so in words."""

    def __init__(
        self,
        values: dict[str, dict[str, Any]],
        sources: list[Path],
        ignored: list[str] | None = None,
        project_file: Path | None = None,
        project_trust: str | None = None,
    ):
        self.values = values
        self.sources = sources
        self.ignored = ignored or []
        self.project_file = project_file
        self.project_trust = project_trust  # trusted | changed | untrusted | None (no project file)

    @property
    def warnings(self) -> list[str]:
        if not self.ignored:
            return []
        why = "it changed since you trusted it" if self.project_trust == "changed" else "this project is not trusted"
        return [
            f"twiceshy: ignored {', '.join(self.ignored)} from {self.project_file} ({why}; untrusted, a project "
            "may only narrow: stricter thresholds, fewer writes — never what is forgotten, promoted or moved, "
            "nor where data goes); "
            f"if you wrote that file, run `twiceshy trust {self.project_file.parent if self.project_file else '.'}`"
        ]

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    def get(self, section: str, key: str) -> Any:
        return self.values[section][key]


def load_config(project_dir: Path | None = None, environ: dict[str, str] | None = None) -> Config:
    config = defaults()
    sources: list[Path] = []
    user_file = user_config_file()
    if user_file.is_file():
        _merge_file(config, user_file)
        sources.append(user_file)
    ignored: list[str] = []
    project_file, project_trust = None, None
    if project_dir is not None:
        project_file = find_project_config(project_dir)
        if project_file is not None:
            from twiceshy.base.trust import status

            project_trust = status(project_file)
            _merge_file(config, project_file, None if project_trust == "trusted" else ignored)
            sources.append(project_file)
    _merge_env(config, dict(os.environ) if environ is None else environ)
    if config["store"]["mode"] not in ("embedded", "server"):
        raise ConfigError(f"store.mode must be 'embedded' or 'server', got {config['store']['mode']!r}")
    if config["embedding"]["backend"] not in ("minilm", "hash"):
        raise ConfigError(f"embedding.backend must be 'minilm' or 'hash', got {config['embedding']['backend']!r}")
    loaded = Config(config, sources, ignored, project_file, project_trust)
    _warn_once(loaded)
    return loaded


_WARNED: set[tuple[str, str]] = set()


def _warn_once(config: Config) -> None:
    """Say on stderr (once per process and file state) which project keys were ignored.

    stderr, never stdout: a hook's stdout is the agent's protocol, and the MCP
    server speaks on stdout too."""
    if not config.ignored:
        return
    key = (str(config.project_file), ",".join(config.ignored) + str(config.project_trust))
    if key in _WARNED:
        return
    _WARNED.add(key)
    for line in config.warnings:
        print(line, file=sys.stderr)
