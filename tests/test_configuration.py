"""One settings model for library and gateway: environment overrides, strict numbers, errors with key and source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolscout import ConfigError, ScoutSettings
from toolscout.gateway import Gateway, load_config

ROOT = Path(__file__).parents[1]


def gateway_file(tmp_path: Path, **settings: object) -> Path:
    path = tmp_path / "gw.json"
    servers = {"time": {"command": sys.executable, "args": ["-c", "pass"]}}
    path.write_text(json.dumps({"mcpServers": servers, "toolscout": {"store": "memory", **settings}}))
    return path


@pytest.mark.slow
def test_the_configuration_reference_is_generated_from_the_models_and_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_config_docs.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_an_environment_variable_sets_a_library_default_but_code_wins(monkeypatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_STYLE", "reveal")
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MAX_LIMIT", "30")
    assert ScoutSettings().style == "reveal"
    assert ScoutSettings().search_max_limit == 30
    assert ScoutSettings(style="bridge").style == "bridge"


def test_in_the_gateway_the_environment_wins_over_the_file_also_for_nested_keys(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_CALL_TIMEOUT_S", "5")
    monkeypatch.setenv("TOOLSCOUT_OFFLOAD__BUDGET_TOKENS", "8000")
    settings = load_config(gateway_file(tmp_path, call_timeout_s=60, offload={"budget_tokens": 4000})).settings
    assert settings.call_timeout_s == 5
    assert settings.offload.budget_tokens == 8000


def test_a_bad_environment_value_names_the_variable(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_PORT", "99999")
    with pytest.raises(ConfigError) as info:
        load_config(gateway_file(tmp_path))
    assert info.value.key == "toolscout.port"
    assert "at most 65535" in str(info.value) and "TOOLSCOUT_PORT" in str(info.value)


@pytest.mark.parametrize(
    ("settings", "key", "says"),
    [
        ({"port": True}, "toolscout.port", "not true/false"),
        ({"call_timeout_s": 1e999}, "toolscout.call_timeout_s", "finite"),
        ({"call_timeout_s": 0}, "toolscout.call_timeout_s", "greater than 0"),
        ({"port": 70000}, "toolscout.port", "at most 65535"),
        ({"threshold_tools": 0}, "toolscout.threshold_tools", "at least 1"),
        ({"stlye": "reveal"}, "toolscout.stlye", "did you mean 'style'"),
        ({"offload": {"budget_tokns": 900}}, "toolscout.offload.budget_tokns", "did you mean 'budget_tokens'"),
    ],
)
def test_a_bad_value_in_the_file_names_key_limit_and_file(tmp_path, settings, key, says) -> None:
    path = gateway_file(tmp_path, **settings)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.key == key
    assert says in str(info.value)
    assert str(path) in str(info.value)


@pytest.mark.anyio
async def test_every_library_setting_is_reachable_from_the_gateway_config(tmp_path) -> None:
    library = {
        "threshold_tools": 7,
        "threshold_pct": 3.5,
        "fallback_threshold_tokens": 999,
        "model": "gpt-4.1",
        "context_window": 64000,
        "pre_discovered": ["time__get_current_time"],
        "search_default_limit": 3,
        "search_max_limit": 9,
        "listing_budget_tokens": 100,
        "description_chars": 120,
        "reveal_stubs": True,
        "style": "reveal",
        "pinned": ["time__*"],
    }
    gateway = Gateway(load_config(gateway_file(tmp_path, **library)), transport="stdio")
    try:
        settings = gateway.scout.settings
        for key, value in library.items():
            field = "never_defer" if key == "pinned" else key
            expected = tuple(value) if isinstance(value, list) else value
            assert getattr(settings, field) == expected, key
    finally:
        gateway.scout.close()
