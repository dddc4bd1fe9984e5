"""``twiceshy config``: the effective configuration and where each value came from.

* ``config show [--json]`` — every ``section.key`` with its value and source:
  ``default``, the user file, the project file (``trusted``, or ``ignored``
  when an untrusted project sets a key that needs ``twiceshy trust``), or the
  environment variable (``TWICESHY_SECTION__KEY``). Header values (tokens)
  are masked.
* ``config set KEY VALUE [--project]`` — write one key to the user file (or
  the project's ``.twiceshy.yaml``), checked against the schema first; the
  file is rewritten as YAML (comments in it are not kept).
* ``config edit [--project]`` — open the file in ``$EDITOR``; checked after.
* ``config path`` — the files and folders twiceshy uses.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from twiceshy.plugin.hookspecs import hookimpl

SECRET_KEYS = {("store", "headers")}


def _read_yaml(path: Path | None) -> dict[str, Any]:
    import yaml

    if path is None or not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _mask(section: str, key: str, value: Any) -> Any:
    if (section, key) in SECRET_KEYS and isinstance(value, list):
        return [str(v).split(":", 1)[0] + ": ***" for v in value]
    return value


def effective(project_dir: Path) -> list[dict[str, Any]]:
    """One row per ``section.key``: value, source and (for a project key not applied) a note."""
    from twiceshy.base.config import SCHEMA, ConfigError, load_config, project_may_set
    from twiceshy.base.paths import user_config_file

    try:
        config = load_config(project_dir)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    user = _read_yaml(user_config_file())
    project = _read_yaml(config.project_file)
    trusted = config.project_trust == "trusted"
    rows: list[dict[str, Any]] = []
    for section, keys in SCHEMA.items():
        for key in keys:
            source, note = "default", ""
            if isinstance(user.get(section), dict) and key in user[section]:
                source = f"user file {user_config_file()}"
            if isinstance(project.get(section), dict) and key in project[section]:
                if trusted or (project_may_set(section, key) and f"{section}.{key}" not in config.ignored):
                    source = f"project file {config.project_file}" + (" (trusted)" if trusted else "")
                elif project_may_set(section, key):
                    note = f"ignored from {config.project_file} (untrusted, it may only narrow this: `twiceshy trust`)"
                else:
                    note = f"ignored from {config.project_file} (project not trusted: `twiceshy trust`)"
            env = f"TWICESHY_{section.upper()}__{key.upper()}"
            if env in os.environ:
                source = f"environment {env}"
            value = _mask(section, key, config.values[section][key])
            rows.append({"key": f"{section}.{key}", "value": value, "source": source, "note": note})
    return rows


def _target(project: bool) -> Path:
    from twiceshy.base.paths import PROJECT_CONFIG_NAME, find_project_config, user_config_file

    if not project:
        return user_config_file()
    return find_project_config(Path.cwd()) or Path.cwd() / PROJECT_CONFIG_NAME


def _check(path: Path, old: str | None) -> None:
    """Load the config with ``path`` as written; put ``old`` back and fail if it does not load."""
    from twiceshy.base.config import ConfigError, load_config

    try:
        load_config(Path.cwd())
    except ConfigError as exc:
        if old is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(old, encoding="utf-8")
        raise click.ClickException(f"{exc} (the file was left as it was)") from None


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.group(name="config")
    def config_group() -> None:
        """Show, set or edit the configuration (and where each value comes from)."""

    @config_group.command(name="show")
    @click.option("--json", "as_json", is_flag=True)
    def show(as_json: bool) -> None:
        """Every setting with its value and where it came from."""
        rows = effective(Path.cwd())
        if as_json:
            click.echo(json.dumps(rows, indent=2, default=str))
            return
        width = max(len(r["key"]) for r in rows)
        for row in rows:
            value = json.dumps(row["value"], default=str)
            click.echo(f"{row['key']:<{width}}  {value}  ({row['source']})")
            if row["note"]:
                click.echo(f"{'':<{width}}  note: {row['note']}")

    @config_group.command(name="set")
    @click.argument("key")
    @click.argument("value")
    @click.option("--project", is_flag=True, help="Write the project's .twiceshy.yaml instead of the user file.")
    def set_cmd(key: str, value: str, project: bool) -> None:
        """Set KEY (section.key, e.g. llm.model) to VALUE."""
        import yaml
        from twiceshy.base.config import PROJECT_NARROW, SCHEMA, ConfigError, _coerce, project_may_set
        from twiceshy.base.fileio import write_atomic
        from twiceshy.base.paths import ensure_private_dir

        section, _, name = key.partition(".")
        if section not in SCHEMA or name not in SCHEMA[section]:
            known = ", ".join(f"{s}.{k}" for s in SCHEMA for k in SCHEMA[s])
            raise click.BadParameter(f"unknown key {key!r} (known: {known})", param_hint="KEY")
        raw: Any = None if value.lower() in ("null", "none") and SCHEMA[section][name][0] == "str?" else value
        try:
            coerced = _coerce(section, name, raw, "command line")
        except ConfigError as exc:
            raise click.BadParameter(str(exc), param_hint="VALUE") from None
        path = _target(project)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        data = _read_yaml(path) if old is not None else {}
        if old is not None and not data and old.strip():
            raise click.ClickException(f"{path} is not a YAML mapping; fix it with `twiceshy config edit`")
        data.setdefault(section, {})
        if not isinstance(data[section], dict):
            raise click.ClickException(f"{path}: section {section!r} is not a mapping")
        data[section][name] = coerced
        ensure_private_dir(path.parent)
        # The user's file is private (0600); a project's is the team's, made as the umask says.
        write_atomic(path, yaml.safe_dump(data, sort_keys=False), private=not project)
        _check(path, old)
        click.echo(f"{key} = {json.dumps(_mask(section, name, coerced))} in {path}")
        if project and not project_may_set(section, name):
            click.echo(f"note: {key} in a project file needs `twiceshy trust {path.parent}` to apply", err=True)
        elif project and section in PROJECT_NARROW and name in PROJECT_NARROW[section]:
            click.echo(
                f"note: untrusted, a project's {key} applies only when it narrows your setting "
                f"(`twiceshy trust {path.parent}` to apply it either way)",
                err=True,
            )

    @config_group.command(name="edit")
    @click.option("--project", is_flag=True, help="Edit the project's .twiceshy.yaml instead of the user file.")
    def edit(project: bool) -> None:
        """Open the config file in $EDITOR (created if missing), then check it."""
        from twiceshy.base.fileio import write_atomic
        from twiceshy.base.paths import ensure_private_dir

        path = _target(project)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old is None:
            ensure_private_dir(path.parent)
            header = "# twiceshy config: see `twiceshy config show` for every key\n"
            write_atomic(path, header, private=not project)
        click.edit(filename=str(path))
        _check(path, old)
        click.echo(f"{path}: ok")

    @config_group.command(name="path")
    def path_cmd() -> None:
        """The config files and data folder twiceshy uses."""
        from twiceshy.base.paths import data_dir, find_project_config, user_config_file

        project = find_project_config(Path.cwd())
        click.echo(f"user config:    {user_config_file()}{'' if user_config_file().is_file() else ' (not created)'}")
        click.echo(f"project config: {project or '(none here)'}")
        click.echo(f"data dir:       {data_dir()}")
