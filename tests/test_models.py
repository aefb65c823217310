from __future__ import annotations

import pytest

from toolscout import ConfigError, context_window
from toolscout._context_windows import MODEL_CONTEXT_WINDOWS


@pytest.mark.parametrize(
    ("model", "window"),
    [
        # Anthropic
        ("claude-haiku-4-5", 200_000),
        ("claude-haiku-4-5-20251001", 200_000),
        ("claude-sonnet-4-5-20250929", 200_000),
        ("claude-opus-4-1-20250805", 200_000),
        ("claude-3-5-sonnet-latest", 200_000),
        ("claude-3-5-sonnet-v2@20241022", 200_000),
        ("claude-opus-4-6", 1_000_000),
        ("claude-sonnet-4-6", 1_000_000),
        ("claude-opus-4-7", 1_000_000),
        ("claude-2.0", 100_000),
        # OpenAI
        ("gpt-4o", 128_000),
        ("gpt-4o-2024-08-06", 128_000),
        ("gpt-4o-mini", 128_000),
        ("gpt-4", 8_192),
        ("gpt-4-0613", 8_192),
        ("gpt-4-turbo-2024-04-09", 128_000),
        ("gpt-4.1", 1_047_576),
        ("gpt-4.1-mini-2025-04-14", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-5-mini", 400_000),
        ("gpt-5.1", 400_000),
        ("gpt-5.2-2025-12-11", 400_000),
        ("gpt-5-chat-latest", 128_000),
        ("o3", 200_000),
        ("o3-mini", 200_000),
        ("o4-mini-2025-04-16", 200_000),
        ("o1-mini", 128_000),
        # Google
        ("gemini-2.5-pro", 1_048_576),
        ("gemini-2.0-flash-lite", 1_048_576),
        ("gemini-3-pro-preview", 1_048_576),
        ("gemini-1.5-pro-002", 2_097_152),
        # Open models
        ("llama-3.3-70b-versatile", 131_072),
        ("llama3.1:8b", 131_072),
        ("qwen3-coder-480b-a35b-instruct", 262_144),
        ("mistral-large-latest", 131_072),
        ("deepseek-chat", 128_000),
        ("deepseek-r1-0528", 128_000),
    ],
)
def test_common_models_have_a_built_in_window(model: str, window: int) -> None:
    assert context_window(model) == window


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("anthropic/claude-sonnet-4-5", 200_000),
        ("anthropic/claude-sonnet-4.6", 1_000_000),
        ("openai/gpt-4o", 128_000),
        ("openrouter/openai/gpt-4.1", 1_047_576),
        ("models/gemini-2.5-flash", 1_048_576),
        ("google/gemini-2.5-pro", 1_048_576),
        ("us.anthropic.claude-opus-4-6-v1:0", 1_000_000),
        ("anthropic.claude-3-5-haiku-20241022-v1:0", 200_000),
        ("meta-llama/Meta-Llama-3.1-70B-Instruct", 131_072),
        ("Qwen/Qwen2.5-72B-Instruct", 32_768),
        ("deepseek-ai/DeepSeek-V3", 128_000),
        ("GPT-4O", 128_000),
    ],
)
def test_provider_prefixes_and_case_are_ignored(model: str, window: int) -> None:
    assert context_window(model) == window


@pytest.mark.parametrize("model", ["claude-sonnet-4-5[1m]", "sonnet[1m]", "opus[1m]"])
def test_a_1m_suffix_means_a_million_token_window(model: str) -> None:
    assert context_window(model) == 1_000_000


@pytest.mark.parametrize("model", [None, "", "my-local-model", "gpt-40", "o5", "claudette"])
def test_unknown_models_give_none(model: str | None) -> None:
    assert context_window(model) is None


def test_a_prefix_only_matches_up_to_a_separator() -> None:
    assert context_window("gpt-4") == 8_192
    assert context_window("gpt-4o") == 128_000
    assert context_window("gpt-4x") is None


def test_the_longest_matching_prefix_wins() -> None:
    assert context_window("gpt-5-chat-latest") == 128_000
    assert context_window("gpt-5-codex") == 400_000


def test_overrides_take_precedence_over_the_table() -> None:
    assert context_window("gpt-4o-2024-08-06", {"gpt-4o": 64_000}) == 64_000
    assert context_window("gpt-4o-mini", {"gpt-4o": 64_000}) == 64_000


def test_overrides_add_unknown_models_and_match_by_prefix() -> None:
    overrides = {"my-local-model": 32_768}
    assert context_window("my-local-model", overrides) == 32_768
    assert context_window("ollama/my-local-model:q4", overrides) == 32_768


def test_an_override_keyed_with_a_provider_prefix_matches_with_or_without_it() -> None:
    overrides = {"openrouter/acme-large": 65_536}
    assert context_window("openrouter/acme-large", overrides) == 65_536
    assert context_window("acme-large", overrides) == 65_536


def test_an_exact_override_of_a_1m_id_wins_over_the_suffix_rule() -> None:
    assert context_window("sonnet[1m]", {"sonnet[1m]": 500_000}) == 500_000


@pytest.mark.parametrize("value", [0, -5, 1.5, True, "200000"])
def test_an_override_that_is_not_a_positive_integer_is_a_config_error(value: object) -> None:
    with pytest.raises(ConfigError) as info:
        context_window("gpt-4o", {"gpt-4o": value})  # type: ignore[dict-item]
    assert info.value.key == "context_windows.gpt-4o"


def test_the_built_in_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        MODEL_CONTEXT_WINDOWS["gpt-4o"] = 1


def test_every_built_in_window_is_a_positive_integer_and_every_key_is_normalized() -> None:
    for key, window in MODEL_CONTEXT_WINDOWS.items():
        assert isinstance(window, int)
        assert window > 0
        assert key == key.strip().lower()
        assert "/" not in key
