import re

import pytest

from toolscout import ConfigError
from toolscout._settings import ScoutSettings


def test_missing_config_gives_auto_mode_at_ten_percent():
    settings = ScoutSettings.from_mapping(None)
    assert settings.mode == "auto"
    assert settings.threshold_pct == 10.0
    assert settings.style == "bridge"


@pytest.mark.parametrize(
    ("config", "mode"),
    [
        pytest.param(True, "auto", id="bare-true-is-auto"),
        pytest.param(False, "off", id="bare-false-is-off"),
        pytest.param({"mode": "on"}, "on", id="explicit-on"),
        pytest.param({"mode": True}, "auto", id="mode-true"),
        pytest.param({"mode": False}, "off", id="mode-false"),
    ],
)
def test_mode_values_map_to_modes(config, mode):
    assert ScoutSettings.from_mapping(config).mode == mode


@pytest.mark.parametrize(
    ("config", "key"),
    [
        pytest.param({"mode": "maybe"}, "tool_search.mode", id="unknown-mode"),
        pytest.param({"mode": 1}, "tool_search.mode", id="integer-mode"),
        pytest.param({"threshold_pct": 150}, "tool_search.threshold_pct", id="threshold-over-100"),
        pytest.param({"threshold_pct": -5}, "tool_search.threshold_pct", id="threshold-negative"),
        pytest.param({"threshold_pct": "ten"}, "tool_search.threshold_pct", id="threshold-string"),
        pytest.param({"search_max_limit": 999}, "tool_search.search_max_limit", id="max-limit-too-big"),
        pytest.param(
            {"search_default_limit": 30, "search_max_limit": 20}, "tool_search.search_default_limit", id="default>max"
        ),
        pytest.param({"never_defer": "read_file"}, "tool_search.never_defer", id="allowlist-not-a-list"),
        pytest.param({"treshold_pct": 5}, "tool_search.treshold_pct", id="typo-in-key"),
        pytest.param({"style": "native"}, "tool_search.style", id="unknown-style"),
    ],
)
def test_invalid_settings_raise_config_error_naming_the_key(config, key):
    with pytest.raises(ConfigError) as info:
        ScoutSettings.from_mapping(config)
    assert info.value.key == key


def test_lists_in_config_become_tuples():
    settings = ScoutSettings.from_mapping({"never_defer": ["read_file", "fs__*"], "pre_discovered": ["a"]})
    assert settings.never_defer == ("read_file", "fs__*")
    assert settings.pre_discovered == ("a",)


def test_non_mapping_config_is_rejected():
    with pytest.raises(ConfigError) as info:
        ScoutSettings.from_mapping(["auto"])  # type: ignore[arg-type]
    assert info.value.key == "tool_search"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"embeddings": {"backend": "onxx"}}, "embeddings.backend: unknown embedding backend 'onxx'; use one of: auto"),
        ({"embeddings": {"backend": "openai-compatible"}}, "embeddings: the openai-compatible backend needs both"),
        ({"embeddings": {"treads": 2}}, "embeddings.treads: unknown setting; did you mean 'threads'?"),
        ({"embeddings": {"threads": 0}}, "embeddings.threads"),
        ({"search_mode": "semantic"}, "search_mode: unknown search mode 'semantic'; use one of: auto, lexical, hybrid"),
    ],
)
def test_search_engine_settings_are_checked_with_the_key_named(config: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        ScoutSettings.from_mapping(config)


def test_search_engine_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "hybrid")
    monkeypatch.setenv("TOOLSCOUT_EMBEDDINGS__THREADS", "2")

    settings = ScoutSettings()

    assert (settings.search_mode, settings.embeddings.threads) == ("hybrid", 2)


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("False", False), ("1", True), ("off", False)])
def test_switches_read_true_and_false_from_environment_variables(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: bool
) -> None:
    monkeypatch.setenv("TOOLSCOUT_REVEAL_STUBS", value)
    monkeypatch.setenv("TOOLSCOUT_TRACING", value)

    settings = ScoutSettings()

    assert settings.reveal_stubs is expected and settings.tracing is expected


def test_a_switch_refuses_other_words_and_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_REVEAL_STUBS", "maybe")
    with pytest.raises(ConfigError, match="reveal_stubs"):
        ScoutSettings.from_mapping({}, prefix="toolscout")
    monkeypatch.delenv("TOOLSCOUT_REVEAL_STUBS")
    with pytest.raises(ConfigError, match="reveal_stubs"):
        ScoutSettings.from_mapping({"reveal_stubs": 1}, prefix="toolscout")


def test_offloading_turns_off_from_an_environment_variable(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from toolscout.gateway._config._model import load_config

    config = tmp_path / "gw.json"
    config.write_text('{"mcpServers": {"a": {"command": "true"}}}')
    monkeypatch.setenv("TOOLSCOUT_OFFLOAD__ENABLED", "false")

    assert load_config(config).settings.offload.enabled is False


def test_a_misspelt_keyword_gets_did_you_mean_as_a_config_error() -> None:
    with pytest.raises(ConfigError) as caught:
        ScoutSettings(stlye="bridge")  # type: ignore[call-arg]
    assert str(caught.value) == "stlye: unknown setting; did you mean 'style'?"
    with pytest.raises(ConfigError) as caught:
        ScoutSettings(search_max_limit=0)
    assert caught.value.key == "search_max_limit" and "at least 1" in str(caught.value)
