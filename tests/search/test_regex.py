import numpy as np
import pytest

from toolscout import SearchError, ToolSpec
from toolscout.search._fields import tool_fields
from toolscout.search._regex import MAX_PATTERN_LENGTH, RegexIndex, compile_pattern


def test_regex_scores_name_above_description_above_parameters() -> None:
    tools = [
        ToolSpec(name="notify", description="Send a note.", parameters={"properties": {"weather_alert": {}}}),
        ToolSpec(name="forecast", description="Weather for a city."),
        ToolSpec(name="get_weather", description="Current conditions."),
    ]
    index = RegexIndex([tool_fields(tool) for tool in tools])
    assert index.scores("weather", np.arange(3)).tolist() == [1.0, 2.0, 3.0]


def test_regex_matches_case_insensitively() -> None:
    assert compile_pattern("SLACK").search("slack_post_message") is not None


def test_catastrophic_pattern_on_long_input_completes() -> None:
    assert compile_pattern("(a+)+$").search("a" * 100_000 + "!") is None


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param("get_(weather", "missing )", id="unbalanced"),
        pytest.param(r"(a)\1", "invalid regex pattern", id="backreference"),
        pytest.param("(?<=get_)weather", "look-around", id="lookbehind"),
        pytest.param("", "empty regex pattern", id="empty"),
        pytest.param("a" * (MAX_PATTERN_LENGTH + 1), "the limit is 200", id="too-long"),
    ],
)
def test_bad_patterns_raise_search_error_with_the_reason(pattern: str, message: str) -> None:
    with pytest.raises(SearchError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_pattern(pattern)
