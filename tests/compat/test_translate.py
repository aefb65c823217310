"""Other systems' tool-search config blocks → toolscout settings; every error names key, range and file."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolscout import ConfigError, ScoutSettings
from toolscout.cli import main
from toolscout.compat import KeyNote, Translated, register_translator, translate_config
from toolscout.compat._internal import translators
from toolscout.gateway import GatewayConfig, load_config

OK = {"command": "x"}


def section(document: Mapping[str, object]) -> dict[str, object]:
    return translate_config(document, source="cfg.yaml").section


def test_the_four_systems_are_registered_in_order() -> None:
    assert [translator.name for translator in translators()][:4] == ["Hermes Agent", "everruns", "AstrBot", "mcpagent"]


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        pytest.param(
            {"tools": {"tool_search": {"enabled": "on", "threshold_pct": 5, "search_default_limit": 3}}},
            {"mode": "on", "threshold_pct": 5, "search_default_limit": 3, "search_max_limit": 20},
            id="hermes-block",
        ),
        pytest.param({"tools": {"tool_search": {}}}, {"mode": "auto", "threshold_pct": 10}, id="hermes-defaults"),
        pytest.param({"tools": {"tool_search": True}}, {"mode": "auto", "style": "bridge"}, id="hermes-legacy-true"),
        pytest.param({"tools": {"tool_search": False}}, {"mode": "off"}, id="hermes-legacy-false"),
        pytest.param({"tools": {"tool_search": {"enabled": True}}}, {"mode": "on"}, id="hermes-yaml-on-is-true"),
        pytest.param({"tools": {"tool_search": {"enabled": False}}}, {"mode": "off"}, id="hermes-yaml-off-is-false"),
        pytest.param(
            {"capabilities": ["tool_search"]},
            {"mode": "auto", "threshold_tools": 15, "threshold_pct": None, "style": "reveal", "reveal_stubs": True},
            id="everruns-list",
        ),
        pytest.param(
            {"capabilities": {"tool_search": {"threshold": 20, "never_defer": ["read_file", "bash"]}}},
            {
                "threshold_tools": 20,
                "never_defer": ["read_file", "bash"],
                "search_max_reveal": 8,
                "search_top_band": 0.5,
                "search_max_limit": 8,
            },
            id="everruns-object",
        ),
        pytest.param({"capabilities": {"tool_search": None}}, {"threshold_tools": 15}, id="everruns-bare-key"),
        pytest.param({"provider_settings": {"tool_schema_mode": "full"}}, {"mode": "off"}, id="astrbot-full"),
        pytest.param(
            {"provider_settings": {"tool_schema_mode": "tool_search", "tool_search": {"max_results": 7}}},
            {"mode": "on", "style": "reveal", "reveal_stubs": False, "search_default_limit": 7, "search_max_limit": 7},
            id="astrbot-tool-search",
        ),
        pytest.param(
            {"provider_settings": {"tool_schema_mode": "auto"}},
            {"mode": "auto", "threshold_tools": 26, "threshold_pct": None, "search_max_limit": 5},
            id="astrbot-auto-above-25",
        ),
        pytest.param(
            {"provider_settings": {"tool_schema_mode": "auto", "tool_search": {"always_loaded_tools": ["x"]}}},
            {"never_defer": ["x"]},
            id="astrbot-always-loaded",
        ),
        pytest.param(
            {"provider_settings": {"tool_schema_mode": "skills_like"}},
            {"mode": "on", "style": "reveal", "reveal_stubs": True},
            id="astrbot-skills-like",
        ),
        pytest.param(
            {"mcpagent": {"toolSearchMode": True, "preDiscoveredTools": ["get_weather"]}},
            {
                "mode": "on",
                "style": "reveal",
                "pre_discovered": ["get_weather"],
                "bridge_names": {"search": "search_tools", "describe": "add_tool"},
            },
            id="mcpagent-tool-search",
        ),
        pytest.param(
            {"mcpagent": {"selectedServers": ["github"], "selectedTools": ["workspace:read_workspace_file"]}},
            {"mode": "off", "scope": {"servers": ["github"], "tools": ["workspace:read_workspace_file"]}},
            id="mcpagent-selection",
        ),
        pytest.param(
            {"mcpagent": {"toolSearchMode": True, "selectedServers": [], "selectedTools": []}},
            {"mode": "on"},
            id="mcpagent-empty-lists-filter-nothing",
        ),
    ],
)
def test_each_block_becomes_the_settings_that_reproduce_it(document, expected) -> None:
    translated = section(document)
    assert {key: translated.get(key, "(unset)") for key in expected} == expected
    if "scope" not in expected:
        assert "scope" not in translated
    ScoutSettings.from_mapping(translated)  # valid toolscout settings


def test_every_key_of_a_block_gets_a_line_saying_what_it_maps_to_or_why_it_is_ignored() -> None:
    document = {
        "provider_settings": {
            "enable": True,
            "tool_schema_mode": "auto",
            "tool_search": {"threshold": 30, "max_results": 6, "auto_always_load_builtin": False},
        }
    }
    lines = [note.line() for note in translate_config(document).notes]
    assert 'provider_settings.tool_schema_mode = "auto"  → mode = "auto"' in lines[0]
    threshold = "provider_settings.tool_search.threshold = 30  → threshold_tools = 31"
    assert any(line.startswith(threshold) for line in lines)
    assert any("max_results = 6  → search_default_limit = 6, search_max_limit = 6" in line for line in lines)
    assert any(line.startswith("provider_settings.enable = true  ignored: not part of") for line in lines)
    builtin = next(line for line in lines if "auto_always_load_builtin" in line)
    assert "ignored: toolscout has no built-in tools" in builtin
    assert any(line.startswith('(implied by provider_settings)  → style = "reveal"') for line in lines)


def test_a_block_with_no_effect_in_full_mode_says_so() -> None:
    document = {"provider_settings": {"tool_schema_mode": "full", "tool_search": {"threshold": 3}}}
    notes = translate_config(document).notes
    assert any(note.key.endswith("threshold") and not note.mapped and "full" in note.reason for note in notes)


@pytest.mark.parametrize(
    ("document", "key", "message"),
    [
        pytest.param(
            {"tools": {"tool_search": {"max_search_limit": 60}}},
            "tools.tool_search.max_search_limit",
            "must be at most 50 (allowed: from 1 to 50) (in cfg.yaml)",
            id="hermes-max-limit-over-50",
        ),
        pytest.param(
            {"tools": {"tool_search": {"threshold_pct": 120}}},
            "tools.tool_search.threshold_pct",
            "must be at most 100 (allowed: from 0 to 100) (in cfg.yaml)",
            id="hermes-threshold-over-100",
        ),
        pytest.param(
            {"tools": {"tool_search": {"search_default_limit": 30}}},
            "tools.tool_search",
            "search_default_limit (30) is above max_search_limit (20)",
            id="hermes-default-above-max-no-clamping",
        ),
        pytest.param(
            {"tools": {"tool_search": {"enabled": "sometimes"}}},
            "tools.tool_search.enabled",
            "must be one of 'auto', 'on' or 'off'",
            id="hermes-enabled",
        ),
        pytest.param(
            {"tools": {"tool_search": {"threshold_pc": 5}}},
            "tools.tool_search.threshold_pc",
            "did you mean 'threshold_pct'? (in cfg.yaml)",
            id="hermes-unknown-key",
        ),
        pytest.param(
            {"tools": {"tool_serch": {}}}, "tools.tool_serch", "did you mean 'tool_search'?", id="hermes-block-typo"
        ),
        pytest.param({"tools": {"tool_search": 3}}, "tools.tool_search", "object or true/false", id="hermes-shape"),
        pytest.param(
            {"capabilities": {"tool_search": {"threshold": 0}}},
            "capabilities.tool_search.threshold",
            "must be at least 1 (in cfg.yaml)",
            id="everruns-threshold",
        ),
        pytest.param(
            {"capabilities": {"tool_search": {"never_defers": []}}},
            "capabilities.tool_search.never_defers",
            "did you mean 'never_defer'?",
            id="everruns-unknown-key",
        ),
        pytest.param(
            {"capabilities": [{"name": "tool_search"}]}, "capabilities[0]", "capability name", id="everruns-list-item"
        ),
        pytest.param(
            {"provider_settings": {"tool_schema_mode": "sometimes"}},
            "provider_settings.tool_schema_mode",
            "must be one of 'full', 'skills_like', 'tool_search' or 'auto'",
            id="astrbot-mode",
        ),
        pytest.param(
            {"provider_settings": {"tool_search": {"max_results": 0}}},
            "provider_settings.tool_search.max_results",
            "must be at least 1 (allowed: from 1 to 100) (in cfg.yaml)",
            id="astrbot-max-results",
        ),
        pytest.param(
            {"provider_settings": {"tool_search": {"threshhold": 3}}},
            "provider_settings.tool_search.threshhold",
            "did you mean 'threshold'?",
            id="astrbot-unknown-key",
        ),
        pytest.param(
            {"provider_settings": {"tool_schema_mod": "auto"}},
            "provider_settings.tool_schema_mod",
            "did you mean 'tool_schema_mode'?",
            id="astrbot-mode-typo",
        ),
        pytest.param(
            {"mcpagent": {"selectedServer": ["github"]}},
            "mcpagent.selectedServer",
            "did you mean 'selectedServers'?",
            id="mcpagent-unknown-key",
        ),
        pytest.param(
            {"mcpagent": {"toolSearchMode": "yes"}}, "mcpagent.toolSearchMode", "true or false", id="mcpagent-type"
        ),
        pytest.param(
            {"tools": {"tool_search": True}, "capabilities": ["tool_search"]},
            "capabilities.tool_search",
            "sets toolscout.threshold_tools to 15, but tools.tool_search (Hermes Agent) sets it to null",
            id="two-systems-disagree",
        ),
    ],
)
def test_bad_values_are_errors_naming_the_key_the_range_and_the_file(document, key, message) -> None:
    with pytest.raises(ConfigError) as caught:
        translate_config(document, source="cfg.yaml")
    assert caught.value.key == key
    assert message in str(caught.value)


def test_the_gateway_reads_the_blocks_and_refuses_a_toolscout_key_that_contradicts_one() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"a": OK}, "capabilities": ["tool_search"]})
    assert config.settings.style == "reveal" and config.settings.reveal_stubs
    assert config.imported and all(isinstance(note, KeyNote) for note in config.imported)
    agreeing = {"mcpServers": {"a": OK}, "capabilities": ["tool_search"], "toolscout": {"style": "reveal", "port": 1}}
    assert GatewayConfig.from_mapping(agreeing).settings.port == 1
    with pytest.raises(ConfigError) as caught:
        hermes = {"mcpServers": {"a": OK}, "tools": {"tool_search": True}, "toolscout": {"mode": "on"}}
        GatewayConfig.from_mapping(hermes, source="gw.json")
    assert caught.value.key == "toolscout.mode"
    expected = 'also set by tools.tool_search (Hermes Agent) to "auto": keep one of the two (in gw.json)'
    assert expected in str(caught.value)


def test_the_gateway_resolves_mcpagent_server_references_and_server_tool_names() -> None:
    document = {
        "mcpServers": {"Google Sheets": OK, "workspace": OK},
        "mcpagent": {
            "toolSearchMode": True,
            "preDiscoveredTools": ["workspace:read_workspace_file"],
            "selectedServers": ["google_sheets"],
            "selectedTools": ["workspace:*"],
        },
    }
    settings = GatewayConfig.from_mapping(document).settings
    assert settings.pre_discovered == ("workspace__read_workspace_file",)
    assert settings.scope.servers == ("Google-Sheets",) and settings.scope.tools == ("workspace:*",)
    with pytest.raises(ConfigError, match="unknown server 'slack'"):
        GatewayConfig.from_mapping({**document, "mcpagent": {"selectedServers": ["slack"]}})


def test_yaml_config_files_load_and_repeated_keys_are_refused(tmp_path: Path) -> None:
    good = tmp_path / "gw.yaml"
    good.write_text("mcpServers:\n  time:\n    command: x\ntools:\n  tool_search:\n    enabled: on\n")
    assert load_config(good).settings.mode == "on"
    twice = tmp_path / "twice.yml"
    twice.write_text("mcpServers:\n  time: {command: x}\n  time: {command: y}\n")
    with pytest.raises(ConfigError, match="'time' appears twice"):
        load_config(twice)
    broken = tmp_path / "broken.yaml"
    broken.write_text("mcpServers: [\n")
    with pytest.raises(ConfigError, match="invalid YAML") as caught:
        load_config(broken)
    assert caught.value.key == str(broken)


class _Upper:
    """A third-party translator: ``shout.loud: true`` turns tool search on."""

    name = "Shout"
    roots = ("shout",)

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        out = Translated(system=self.name, block="shout")
        out.set("mode", "on", source="shout.loud", written=True, reason="loud")
        return out


def test_a_registered_translator_joins_every_translation() -> None:
    register_translator(_Upper())
    try:
        assert translate_config({"shout": {"loud": True}}).section == {"mode": "on"}
        assert translate_config({"other": 1}).section == {}
    finally:
        from toolscout.compat import _registry

        _registry._TRANSLATORS.pop("Shout")


def test_config_import_prints_the_section_and_a_line_per_key(tmp_path: Path) -> None:
    file = tmp_path / "agent.json"
    file.write_text(json.dumps({"capabilities": {"tool_search": {"threshold": 20}, "web_fetch": {}}}))
    result = CliRunner().invoke(main, ["config", "import", str(file)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["toolscout"]["threshold_tools"] == 20
    assert "capabilities.tool_search.threshold = 20  → threshold_tools = 20" in result.stderr
    assert "capabilities.web_fetch = {}  ignored: another everruns capability" in result.stderr
    as_yaml = CliRunner().invoke(main, ["config", "import", str(file), "--format", "yaml"])
    assert as_yaml.stdout.startswith("toolscout:\n  mode: auto\n")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param({"tools": {"tool_search": {"max_search_limit": 0}}}, "must be at least 1", id="range"),
        pytest.param({"mcpServers": {}}, "no tool-search block of Hermes Agent, everruns, AstrBot", id="nothing"),
        pytest.param({"tools": {"tool_search": True}, "toolscout": {"style": "reveal"}}, "also set by", id="conflict"),
    ],
)
def test_config_import_fails_in_one_line_naming_the_file(tmp_path: Path, content, message) -> None:
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(content))
    result = CliRunner().invoke(main, ["config", "import", str(file)])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
