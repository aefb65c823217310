"""Configured bridge tool names: every text the model reads uses them, and no catalog is refused for them."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.golden.regen_texts import collect
from toolscout import BridgeNames, CharsPerToken, ConfigError, ScoutSettings, ToolCall, ToolScout, ToolSpec
from toolscout.offload import Offloader, OffloadSettings

DEFAULTS = ("tool_search", "tool_describe", "tool_call")
CUSTOM = BridgeNames(search="find_tools", describe="load_tools", call="run_tool")
NUMBER: dict[str, object] = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def _tools(count: int = 12) -> list[ToolSpec]:
    described = {i: f"CRM operation {i} on customer records." for i in range(count)}
    return [
        ToolSpec(name=f"crm__op_{i}", namespace="crm", description=text, parameters=NUMBER)
        for i, text in described.items()
    ]


def _scout(tools: object, **settings: object) -> ToolScout:
    chosen = ScoutSettings(mode="on", search_mode="lexical", **settings)  # type: ignore[arg-type]
    return ToolScout(tools, settings=chosen, token_counter=CharsPerToken())  # type: ignore[arg-type]


def _defaults_in(value: object) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return [name for name in DEFAULTS if name in text]


def test_every_text_that_names_a_bridge_tool_uses_the_configured_names() -> None:
    default, custom = collect(), collect(CUSTOM)
    changed = {key for key in default if default[key] != custom[key]}
    assert changed >= {"Guidance.bridge", "Bridge.describe", "Dispatch.find_then_call", "Upstream.unrouted_hint"}
    assert {key: text for key, text in custom.items() if _defaults_in(text)} == {}


def test_a_bridge_style_session_under_other_names_never_shows_the_default_ones() -> None:
    session = _scout(_tools(), bridge_names=CUSTOM, listing_budget_tokens=2000).session("s")
    turn = session.assemble()
    assert turn.names == CUSTOM.all
    seen: list[object] = [turn.guidance, [tool.to_definition() for tool in turn.tools]]
    calls = [
        ("find_tools", {"query": "customer records operation"}),
        ("find_tools", {"query": "", "limit": 3}),
        ("find_tools", {"names": "not a list"}),
        ("find_tools", {"names": ["nope"]}),
        ("load_tools", {"names": ["crm__op_1"]}),
        ("run_tool", {"arguments": {}}),
        ("run_tool", {"name": "find_tools", "arguments": {}}),
        ("run_tool", {"name": "crm__nope", "arguments": {}}),
        ("crm__nope", {}),
    ]
    for name, arguments in calls:
        outcome = session.dispatch_sync(name, arguments)
        seen.append(outcome.content)
    assert _defaults_in(seen) == []
    searched, browsed, bad, unknown, loaded, nameless, recursion, missing, direct = seen[2:]
    assert "Call load_tools with the names you need, then run_tool." in json.dumps(searched)
    assert "Call find_tools with an empty query" in json.dumps(browsed)
    assert "run_tool(name, arguments)" in json.dumps(loaded) and "find_tools" in json.dumps(unknown)
    assert "cannot be run through run_tool" in json.dumps(recursion)
    assert "Use find_tools to find the exact name" in json.dumps(missing)
    assert session.dispatch_sync("tool_search", {"query": "crm"}).error is not None  # no tool has that name now


def test_reveal_stubs_and_guidance_name_the_configured_search_tool() -> None:
    session = _scout(_tools(), style="reveal", reveal_stubs=True, bridge_names=CUSTOM).session("s")
    turn = session.assemble()
    assert turn.names[0] == "find_tools" and len(turn.stubs) == 12
    assert "call find_tools with a few keywords" in turn.guidance
    assert all("call find_tools with this exact name" in tool.description for tool in turn.tools[1:])
    assert _defaults_in([turn.guidance, [tool.to_definition() for tool in turn.tools]]) == []


@pytest.mark.parametrize(
    ("names", "message"),
    [
        pytest.param({"search": "find tools"}, "not a tool name every provider accepts", id="space"),
        pytest.param({"call": "1run"}, "starting with a letter or '_'", id="leading-digit"),
        pytest.param({"describe": "x" * 65}, "1-64 letters", id="too-long"),
        pytest.param({"search": "tool_call"}, "the three names must differ", id="duplicate"),
        pytest.param({"serch": "x"}, "did you mean 'search'", id="typo"),
    ],
)
def test_bad_bridge_names_are_errors_naming_the_key_and_the_rule(names: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        ScoutSettings.from_mapping({"bridge_names": names})
    assert info.value.key.startswith("tool_search.bridge_names")


def test_bridge_names_come_from_the_environment_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BRIDGE_NAMES__SEARCH", "search_tools")
    assert ScoutSettings().bridge_names == BridgeNames(search="search_tools")


def test_a_bridge_tool_may_not_take_an_offload_tools_name(tmp_path: Path) -> None:
    offload = Offloader(OffloadSettings(folder=tmp_path))
    with pytest.raises(ConfigError, match="offload tools are named") as info:
        ToolScout([], settings=ScoutSettings(bridge_names=BridgeNames(search="output_read")), offload=offload)
    assert info.value.key == "bridge_names"
    offload.close()


# --- a catalog tool named like a bridge tool (BFCL has a function called tool_search) ----------------------------


def tool_search(keyword: str) -> str:
    """Search the user's saved tools by keyword."""
    return f"saved tools matching {keyword}"


def test_a_user_tool_named_tool_search_is_renamed_found_described_and_called(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolscout"):
        scout = _scout([tool_search, *_tools()])
    assert dict(scout.renamed) == {"tool_search_2": "tool_search"}
    assert "'tool_search' has a bridge tool's name; the model sees it as 'tool_search_2'" in caplog.text
    session = scout.session("s")
    turn = session.assemble()
    assert turn.names == DEFAULTS and "tool_search_2" in turn.guidance  # the listing shows the reported name
    found = session.dispatch_sync("tool_search", {"query": "saved tools keyword"}).content
    assert found["tools"][0]["name"] == "tool_search_2"
    described = session.dispatch_sync("tool_describe", {"names": ["tool_search_2"]}).content
    assert described["tools"][0]["parameters"]["required"] == ["keyword"]
    called = session.dispatch_sync("tool_call", {"name": "tool_search_2", "arguments": {"keyword": "crm"}})
    assert called.error is None and called.content == "saved tools matching crm" and called.name == "tool_search_2"
    again = scout.replace(settings=scout.settings.model_copy(update={"search_default_limit": 3}))
    assert dict(again.renamed) == {"tool_search_2": "tool_search"}
    rerun = again.session("s").dispatch_sync("tool_call", {"name": "tool_search_2", "arguments": {"keyword": "x"}})
    assert rerun.content == "saved tools matching x"


def test_the_executor_gets_a_renamed_tool_under_its_own_name() -> None:
    seen: list[ToolCall] = []

    def executor(call: ToolCall) -> str:
        seen.append(call)
        return "ran"

    tools = [ToolSpec(name="tool_call", description="Place a phone call."), *_tools()]
    scout = ToolScout(tools, settings=ScoutSettings(mode="on", search_mode="lexical"), executor=executor)
    outcome = scout.session("s").dispatch_sync("tool_call", {"name": "tool_call_2", "arguments": {}})
    assert outcome.content == "ran" and outcome.name == "tool_call_2"
    assert [(call.name, call.tool.name) for call in seen] == [("tool_call", "tool_call")]


def test_renaming_skips_taken_names_and_follows_the_configured_names() -> None:
    tools = [
        ToolSpec(name="tool_search", description="a"),
        ToolSpec(name="tool_search_2", description="b"),
        ToolSpec(name="search_tools", description="c"),
    ]
    assert dict(_scout(tools).renamed) == {"tool_search_3": "tool_search"}
    custom = _scout(tools, bridge_names=BridgeNames(search="search_tools"))
    assert dict(custom.renamed) == {"search_tools_2": "search_tools"}
    assert [tool.name for tool in custom.catalog] == ["tool_search", "tool_search_2", "search_tools_2"]


def test_a_function_added_under_a_bridge_name_is_renamed_and_keeps_earlier_renames() -> None:
    scout = _scout([tool_search, *_tools()])

    def tool_describe(topic: str) -> str:
        return f"about {topic}"

    spec = scout.add_function(tool_describe, core=True)
    assert spec.name == "tool_describe_2" and "tool_describe_2" in scout.core
    assert dict(scout.renamed) == {"tool_search_2": "tool_search", "tool_describe_2": "tool_describe"}
    outcome = scout.session("s").dispatch_sync("tool_describe_2", {"topic": "x"})
    assert outcome.content == "about x"
