import pytest

from toolscout import ConfigError
from toolscout.providers import choose_style
from toolscout.providers._internal import native_supported


@pytest.mark.parametrize(
    ("model", "api", "native"),
    [
        ("claude-opus-4-8", "anthropic", True),
        ("claude-sonnet-4-5-20250929", "anthropic", True),
        ("claude-haiku-4-5", "anthropic", True),
        ("claude-fable-5", "anthropic", True),
        ("claude-mythos-5", "anthropic", True),
        ("claude-sonnet-5-5", "anthropic", True),
        ("claude-opus-4-1-20250805", "anthropic", False),
        ("claude-opus-4-20250514", "anthropic", False),
        ("claude-3-7-sonnet-latest", "anthropic", False),
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "anthropic", False),
        ("claude-sonnet-4-5@20250929", "anthropic", False),
        ("gpt-5.4", "openai-responses", True),
        ("gpt-5.4-mini", "openai-responses", True),
        ("gpt-5.6", "openai-responses", True),
        ("gpt-6", "openai-responses", True),
        ("gpt-5", "openai-responses", False),
        ("gpt-4o", "openai-responses", False),
        ("openai/gpt-5.4", "openai-responses", False),
        ("gpt-5.4", "openai-chat", False),
        ("claude-opus-4-8", "openai-chat", False),
        ("gemini-2.5-pro", "gemini", False),
    ],
)
def test_native_support_is_judged_by_the_first_party_model_id(model, api, native):
    assert native_supported(model, api) is native
    choice = choose_style(model, api, client_style="reveal")
    assert choice.style == ("native" if native else "reveal")
    assert (choice.search is not None) is native
    assert choice.reason


def test_an_override_wins_and_says_so():
    choice = choose_style("claude-opus-4-8", "anthropic", override="bridge")
    assert (choice.style, choice.reason) == ("bridge", "style 'bridge' was requested")
    assert choose_style("claude-3-haiku", "anthropic", override="native").search == "hybrid"


def test_native_cannot_be_forced_where_the_api_has_none():
    with pytest.raises(ConfigError):
        choose_style("gpt-5.4", "openai-chat", override="native")
