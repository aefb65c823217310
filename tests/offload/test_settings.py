from pathlib import Path

import pytest

from toolscout import ConfigError, ToolSpec
from toolscout.offload import OffloadSettings


def test_defaults_offload_over_4000_tokens():
    settings = OffloadSettings.from_mapping(None)
    assert settings.enabled and settings.budget_tokens == 4000 and settings.folder is None


def test_a_bare_boolean_switches_offloading():
    assert OffloadSettings.from_mapping(False).enabled is False
    assert OffloadSettings.from_mapping(True).enabled is True


def test_a_full_section_is_read():
    settings = OffloadSettings.from_mapping(
        {
            "budget_tokens": 8000,
            "preview_tokens": 1000,
            "read_tokens": 3000,
            "max_matches": 50,
            "session_bytes": 10 << 20,
            "jq_timeout_s": 2.5,
            "folder": "~/offload",
            "tools": {"github__list_*": "never", "fs__read_text_file": 20000},
            "namespaces": {"browser": 2000},
        }
    )
    assert settings.folder == Path("~/offload").expanduser()
    assert settings.tools == {"github__list_*": "never", "fs__read_text_file": 20000}


@pytest.mark.parametrize(
    ("config", "key"),
    [
        pytest.param({"budget_tokens": 10}, "offload.budget_tokens", id="budget-too-small"),
        pytest.param({"budget_tokens": "lots"}, "offload.budget_tokens", id="budget-string"),
        pytest.param({"budget_tokens": True}, "offload.budget_tokens", id="budget-bool"),
        pytest.param({"preview_tokens": 3000}, "offload.preview_tokens", id="preview-over-half-budget"),
        pytest.param({"max_matches": 0}, "offload.max_matches", id="no-matches"),
        pytest.param({"session_bytes": 100}, "offload.session_bytes", id="tiny-session-cap"),
        pytest.param(
            {"session_bytes": 8 << 20, "total_bytes": 4 << 20}, "offload.total_bytes", id="total-below-session"
        ),
        pytest.param({"total_bytes": "4G"}, "offload.total_bytes", id="total-string"),
        pytest.param(
            {"session_bytes": 8 << 20, "principal_bytes": 4 << 20}, "offload.principal_bytes", id="share-below-session"
        ),
        pytest.param(
            {"session_bytes": 1 << 20, "total_bytes": 8 << 20, "principal_bytes": 16 << 20},
            "offload.principal_bytes",
            id="share-above-total",
        ),
        pytest.param({"jq_timeout_s": float("nan")}, "offload.jq_timeout_s", id="nan-timeout"),
        pytest.param({"tools": {"x": "sometimes"}}, "offload.tools.x", id="bad-override"),
        pytest.param({"namespaces": {"fs": 5}}, "offload.namespaces.fs", id="override-budget-too-small"),
        pytest.param({"tools": ["x"]}, "offload.tools", id="overrides-not-a-table"),
        pytest.param({"budget": 4000}, "offload.budget", id="unknown-key"),
        pytest.param({"enabled": "sometimes"}, "offload.enabled", id="enabled-string"),
        pytest.param({"enabled": 1}, "offload.enabled", id="enabled-number"),
    ],
)
def test_invalid_settings_name_the_key(config, key):
    with pytest.raises(ConfigError) as info:
        OffloadSettings.from_mapping(config)
    assert info.value.key == key


def test_a_non_mapping_is_refused():
    with pytest.raises(ConfigError) as info:
        OffloadSettings.from_mapping(["x"], prefix="toolscout.offload")  # type: ignore[arg-type]
    assert info.value.key == "toolscout.offload"


def test_budget_for_applies_tool_then_namespace_overrides():
    settings = OffloadSettings(tools={"gh__list_*": "never", "fs__read": 9000}, namespaces={"fs": "never", "web": 500})
    assert settings.budget_for(ToolSpec(name="gh__list_repos", namespace="gh", description="")) is None
    assert settings.budget_for(ToolSpec(name="fs__read", namespace="fs", description="")) == 9000
    assert settings.budget_for(ToolSpec(name="fs__write", namespace="fs", description="")) is None
    assert settings.budget_for(ToolSpec(name="web__get", namespace="web", description="")) == 500
    assert settings.budget_for(ToolSpec(name="other", description="")) == 4000


def test_each_caller_gets_a_quarter_of_the_total_by_default_at_least_a_session():
    assert (OffloadSettings().total_cap, OffloadSettings().principal_cap) == (4 << 30, 1 << 30)
    assert OffloadSettings(session_bytes=64 << 20, total_bytes=128 << 20).principal_cap == 64 << 20
    assert (
        OffloadSettings(session_bytes=32 << 20, total_bytes=64 << 20, principal_bytes=64 << 20).principal_cap
        == 64 << 20
    )
