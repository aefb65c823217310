"""Oversized model input is refused with the limit it broke, before anything reads it, and never echoed."""

from __future__ import annotations

import json

import pytest

from toolscout import ScoutSettings, ToolScout

BIG = "x" * 3_500_000
LONG = "y" * 100_000  # under the payload limit, over the name and query limits


@pytest.fixture
def session():
    tools = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    return ToolScout(tools, settings=ScoutSettings(mode="on"), executor=lambda call: "ran").session("limits")


@pytest.mark.parametrize(
    ("name", "arguments", "what", "limit"),
    [
        ("tool_call", {"name": LONG, "arguments": {}}, "tool name", "256"),
        (BIG, {}, "tool name", "256"),
        ("tool_search", {"query": LONG}, "query", "2,000"),
        ("tool_describe", {"names": ["crm__op_1", LONG]}, "tool name", "256"),
        ("tool_search", {"query": BIG}, "arguments payload", "1,048,576"),
        ("tool_call", {"name": "crm__op_1", "arguments": {"blob": BIG}}, "arguments payload", "1,048,576"),
        ("crm__op_1", json.dumps({"blob": BIG}), "arguments payload", "1,048,576"),
    ],
)
def test_an_oversized_value_is_refused_naming_the_limit_without_echoing_it(session, name, arguments, what, limit):
    outcome = session.dispatch_sync(name, arguments)
    assert outcome.error is not None and outcome.error.code == "invalid_request"
    assert what in outcome.error.message and limit in outcome.error.message
    assert len(outcome.to_text()) < 1_000


def test_the_limits_are_settings(session) -> None:
    tools = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    strict = ToolScout(tools, settings=ScoutSettings(mode="on", max_query_chars=20)).session("strict")
    assert strict.dispatch_sync("tool_search", {"query": "a query longer than twenty"}).error is not None
    assert strict.dispatch_sync("tool_search", {"query": "crm operation"}).error is None


@pytest.mark.parametrize(
    "fill",
    [
        lambda n: {"note": "\x01" * n},  # control characters: 6 bytes each in JSON
        lambda n: {"note": "a" * n},
        lambda n: {f"k{i}": 1.0000000000000002e-300 for i in range(n // 20)},  # long floats
        lambda n: {f"k{i}": -(10**17) for i in range(n // 20)},
        lambda n: {f"k{i}": None for i in range(n // 10)} | {"t": True},
        lambda n: {"note": "é" * n},  # not ASCII: 2 bytes each
    ],
)
def test_an_object_of_plain_values_is_refused_exactly_when_its_json_is_over_the_limit(fill) -> None:
    # flat objects skip writing their JSON when a bound shows them under the limit: the bound must never let one pass
    limit = 1024
    scout = ToolScout(
        [{"name": "crm__op", "description": "CRM operation"}],
        settings=ScoutSettings(mode="on", max_argument_bytes=limit),
        executor=lambda call: "ran",
    )
    session = scout.session("bound")
    seen = set()
    for n in range(1, 1200, 7):
        arguments = fill(n)
        over = len(json.dumps(arguments, ensure_ascii=False).encode()) > limit
        result = session.resolve("crm__op", arguments)
        refused = getattr(result, "code", None) == "invalid_request" and "arguments payload" in result.message
        assert refused == over, (n, arguments)
        seen.add(over)
    assert seen == {True, False}


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("tool_search", {"query": "\ud800 weather"}),
        ("tool_search", {"query": "weather", "pattern": "\udfff"}),
        ("tool_describe", {"names": ["crm__op_1", "\ud83d"]}),
        ("tool_call", {"name": "crm__op_1", "arguments": {"note": "\udc80"}}),
        ("crm__op_1", {"note": {"nested": ["\ud800"]}}),
        ("crm__op_1", '{"note": "\ud800"}'),
        ("tool_\ud800", {}),
    ],
)
def test_text_that_is_not_unicode_is_refused_naming_what_is_wrong(session, name, arguments) -> None:
    # a lone surrogate (JSON's "\ud800" decodes to one) cannot be written as UTF-8: refused, never raised
    outcome = session.dispatch_sync(name, arguments)
    assert outcome.error is not None and outcome.error.code == "invalid_request"
    assert "surrogate" in outcome.error.message
    outcome.to_text().encode()  # the refusal itself is valid UTF-8
    assert session.resolve("tool_search", {"query": "crm operation"}) is not None  # the session still serves
