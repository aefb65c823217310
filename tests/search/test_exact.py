import numpy as np
import pytest

from toolscout import ToolSpec
from toolscout.search._exact import ExactNames

NAMES = ExactNames(
    [
        ToolSpec(name="create_issue", namespace="github"),
        ToolSpec(name="temperature"),
        ToolSpec(name="runThis"),
        ToolSpec(name="slack__post"),
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("create_issue", [0], id="bare"),
        pytest.param("CREATE_ISSUE", [0], id="any-case"),
        pytest.param(" `create_issue()` ", [0], id="backticked-call"),
        pytest.param("github/create_issue", [0], id="slash-namespace"),
        pytest.param("temperature", [1], id="plain-word-as-whole-query"),
        pytest.param("set the 'temperature' to 20", [], id="plain-quoted-word-is-a-value"),
        pytest.param("please call `runThis` now", [2], id="camel-case-part"),
        pytest.param("slack.post, then github.create_issue.", [3, 0], id="several-in-order"),
        pytest.param("create an issue", [], id="no-name"),
    ],
)
def test_exact_names_are_found_in_their_accepted_forms(query: str, expected: list[int]) -> None:
    assert NAMES.find(query) == expected


def test_exact_names_respect_the_mask() -> None:
    mask = np.array([False, True, True, True])
    assert NAMES.find("github.create_issue", mask) == []


def test_a_whole_query_name_is_told_apart_from_a_name_mentioned_in_a_request() -> None:
    assert NAMES.whole("github.create_issue") == [0]
    assert NAMES.mentions("github.create_issue") == []
    assert NAMES.whole("use slack__post now") == []
    assert NAMES.mentions("use slack__post now") == [3]


def test_a_tool_named_with_its_namespace_answers_to_its_bare_identifier_name() -> None:
    names = ExactNames(
        [ToolSpec(name="github__create_issue", namespace="github"), ToolSpec(name="slack__post", namespace="slack")]
    )
    assert names.whole("`Create_Issue`") == [0]
    assert names.mentions("then create_issue for it") == [0]
    assert names.whole("post") == []  # a plain word stays a keyword
