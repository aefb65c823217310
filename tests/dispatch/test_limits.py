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
