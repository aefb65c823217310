"""The one exact-name recogniser: the tools a written name, a whole query or a name inside a request stand for."""

from __future__ import annotations

import random
import re

import pytest

from toolscout import Catalog, ToolSpec
from toolscout.catalog._internal import ToolNames
from toolscout.catalog._names import _MENTION, _QUERY_HINT

NAMES = ToolNames(
    Catalog(
        [
            ToolSpec(name="create_issue", namespace="github"),
            ToolSpec(name="temperature"),
            ToolSpec(name="runThis"),
            ToolSpec(name="slack__post"),
        ]
    )
)


def whole(query: str) -> tuple[str, ...]:
    found = NAMES.query_match(query)
    return found.names if found is not None else ()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("create_issue", ("create_issue",), id="bare"),
        pytest.param("CREATE_ISSUE", ("create_issue",), id="any-case"),
        pytest.param(" `create_issue()` ", ("create_issue",), id="backticked-call"),
        pytest.param("github/create_issue", ("create_issue",), id="slash-namespace"),
        pytest.param("temperature", ("temperature",), id="plain-word-as-whole-query"),
        pytest.param("create an issue", (), id="no-name"),
    ],
)
def test_a_whole_query_names_a_tool_in_its_accepted_forms(query: str, expected: tuple[str, ...]) -> None:
    assert whole(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("set the 'temperature' to 20", (), id="plain-quoted-word-is-a-value"),
        pytest.param("please call `runThis` now", ("runThis",), id="camel-case-part"),
        pytest.param("slack.post, then github.create_issue.", ("slack__post", "create_issue"), id="several-in-order"),
        pytest.param("create an issue", (), id="no-name"),
    ],
)
def test_names_inside_a_request_are_found_in_order_of_mention(query: str, expected: tuple[str, ...]) -> None:
    assert NAMES.mentions(query) == expected


def test_only_allowed_tools_are_named() -> None:
    assert NAMES.query_match("github.create_issue", {"temperature"}) is None
    assert NAMES.mentions("use slack__post now", {"temperature"}) == ()


def test_a_whole_query_name_is_told_apart_from_a_name_mentioned_in_a_request() -> None:
    assert whole("github.create_issue") == ("create_issue",)
    assert NAMES.mentions("github.create_issue") == ()
    assert whole("use slack__post now") == ()
    assert NAMES.mentions("use slack__post now") == ("slack__post",)


def test_a_tool_named_with_its_namespace_answers_to_its_bare_identifier_name() -> None:
    names = ToolNames(
        Catalog(
            [ToolSpec(name="github__create_issue", namespace="github"), ToolSpec(name="slack__post", namespace="slack")]
        )
    )
    found = names.query_match("`Create_Issue`")
    assert found is not None and found.names == ("github__create_issue",) and found.bare
    assert names.mentions("then create_issue for it") == ("github__create_issue",)
    assert names.query_match("post") is None  # a plain word stays a keyword


def test_the_mention_patterns_find_what_their_plain_forms_find() -> None:
    """The regexes are written to start with one character class; they match where their plain forms match."""
    hint, mention = re.compile(r"[_:/]|[a-z][A-Z]|\.[^\s.,;!?'\"`“”‘’]"), re.compile(r"[_.:/]|[a-z][A-Z]")
    rng = random.Random(38)
    alphabet = list("aZb_:/. ,;!?'\"`“”‘’\tQz1é\n\u3000-")
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(10)))
        assert bool(_QUERY_HINT.search(text)) == bool(hint.search(text)), repr(text)
        assert bool(_MENTION.search(text)) == bool(mention.search(text)), repr(text)
