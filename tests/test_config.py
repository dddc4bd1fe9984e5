from pathlib import Path

import pytest
from twiceshy.base.config import ConfigError, load_config


def test_defaults_load_without_files(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={})
    assert cfg.get("learning", "dedup_threshold") == 0.80
    assert cfg.sources == []


def test_project_file_overrides_user_file(tmp_path: Path, twiceshy_home: Path) -> None:
    (twiceshy_home / "config").mkdir()
    (twiceshy_home / "config" / "config.yaml").write_text("retrieval:\n  top_k: 4\n  max_warnings: 2\n")
    project = tmp_path / "proj" / "sub"
    project.mkdir(parents=True)
    (tmp_path / "proj" / ".twiceshy.yaml").write_text("retrieval:\n  top_k: 6\n")
    cfg = load_config(project, environ={})
    assert cfg.get("retrieval", "top_k") == 6
    assert cfg.get("retrieval", "max_warnings") == 2
    assert len(cfg.sources) == 2


def test_env_overrides_files(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, environ={"TWICESHY_HOOK__BUDGET_MS": "250", "TWICESHY_LLM__MODEL": "null"})
    assert cfg.get("hook", "budget_ms") == 250
    assert cfg.get("llm", "model") is None


def test_bad_value_names_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / ".twiceshy.yaml"
    bad.write_text("retrieval:\n  top_k: lots\n")
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path, environ={})
    assert str(bad) in str(err.value) and "retrieval.top_k" in str(err.value)


def test_unknown_key_and_corrupt_yaml_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / ".twiceshy.yaml"
    bad.write_text("retrieval:\n  topk: 3\n")
    with pytest.raises(ConfigError, match="unknown key retrieval.topk"):
        load_config(tmp_path, environ={})
    bad.write_text("retrieval: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path, environ={})


def test_bad_env_value_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="TWICESHY_HOOK__BUDGET_MS"):
        load_config(tmp_path, environ={"TWICESHY_HOOK__BUDGET_MS": "fast"})
