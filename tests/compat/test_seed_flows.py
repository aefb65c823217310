"""Each seed system's config, imported as written, reproduces its behaviour through the public library API."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from toolscout import ScoutSettings, ToolScout, ToolSpec
from toolscout.compat import translate_config

CORE = [
    ToolSpec(name="terminal", description="Run a shell command.", parameters={"type": "object", "properties": {}}),
    ToolSpec(name="read_file", description="Read a file.", parameters={"type": "object", "properties": {}}),
]
# Models usually pass the search mode explicitly; lexical keeps these tests free of embedding start-up.
LEXICAL = {"search_mode": "lexical"}


def mcp_tools(count: int, *, words: int = 5, server: str = "crm") -> list[ToolSpec]:
    record_id = {"type": "string", "description": " ".join(["id"] * words)}
    schema = {"type": "object", "properties": {"record_id": record_id}}
    return [
        ToolSpec(
            name=f"{server}__operation_{i}",
            namespace=server,
            description=f"CRM operation number {i} on customer records.",
            parameters={**schema, "required": ["record_id"]},
        )
        for i in range(count)
    ]


def settings(document: Mapping[str, object], **extra: object) -> ScoutSettings:
    return ScoutSettings.from_mapping({**translate_config(document).section, **LEXICAL, **extra})


# --- Hermes Agent: bridge tools once deferrable schemas reach 10% of the context window --------------------------


def test_hermes_auto_bridges_above_10_percent_of_the_window_and_passes_through_below() -> None:
    config = settings({"tools": {"tool_search": {"enabled": "auto"}}}, context_window=20_000)
    small = ToolScout([*CORE, *mcp_tools(3)], core=["terminal", "read_file"], settings=config)
    assert len(small.session("s").assemble().names) == 5  # below 2,000 tokens: every tool in full
    big = ToolScout([*CORE, *mcp_tools(40, words=30)], core=["terminal", "read_file"], settings=config)
    assert big.session("s").assemble().names == ("terminal", "read_file", "tool_search", "tool_describe", "tool_call")
    assert "10% of a 20000-token context window" in big.plan().activation.reason


def test_hermes_many_small_tools_under_the_share_stay_in_full_as_hermes_has_no_count_threshold() -> None:
    config = settings({"tools": {"tool_search": True}}, context_window=1_000_000)
    scout = ToolScout([*CORE, *mcp_tools(60, words=1)], core=["terminal", "read_file"], settings=config)
    assert not scout.plan().activation.active


def test_hermes_on_yaml_true_bridges_any_deferrable_tool_and_search_limits_follow_the_block() -> None:
    config = settings({"tools": {"tool_search": {"enabled": True, "search_default_limit": 3, "max_search_limit": 4}}})
    scout = ToolScout([*CORE, *mcp_tools(12)], core=["terminal", "read_file"], settings=config)
    session = scout.session("s")
    assert session.assemble().names[2:] == ("tool_search", "tool_describe", "tool_call")
    assert len(session.dispatch_sync("tool_search", {"query": "CRM operation"}).content["tools"]) == 3
    assert len(session.dispatch_sync("tool_search", {"query": "CRM operation", "limit": 50}).content["tools"]) == 4
    described = session.dispatch_sync("tool_describe", {"names": ["crm__operation_7"]})
    assert described.error is None and "record_id" in str(described.content)
    refused = session.dispatch_sync("tool_call", {"name": "terminal", "arguments": {}})
    assert refused.error is not None and refused.error.code == "call_directly"  # core tools are called directly
    recursion = session.dispatch_sync("tool_call", {"name": "tool_search", "arguments": {}})
    assert recursion.error is not None and recursion.error.code == "bridge_recursion"


def test_hermes_off_sends_every_tool() -> None:
    scout = ToolScout(mcp_tools(80, words=50), settings=settings({"tools": {"tool_search": {"enabled": "off"}}}))
    assert len(scout.session("s").assemble().names) == 80


# --- everruns: stubs at 15+ tools, the search loads full schemas that the next step carries ----------------------


def test_everruns_below_the_tool_count_nothing_is_deferred_however_large_the_schemas() -> None:
    scout = ToolScout(mcp_tools(14, words=3_000), settings=settings({"capabilities": ["tool_search"]}))
    assert not scout.plan().activation.active


def test_everruns_stubs_then_search_reveals_the_full_schema_from_the_next_step() -> None:
    document = {"capabilities": {"tool_search": {"threshold": 15, "never_defer": ["read_file"]}}}
    scout = ToolScout([*CORE[1:], *mcp_tools(15)], settings=settings(document))
    session = scout.session("s")
    first = session.assemble()
    assert first.names[:2] == ("read_file", "tool_search")
    stub = next(tool for tool in first.tools if tool.name == "crm__operation_3")
    assert stub.parameters.get("properties") in (None, {})  # name + description only
    found = session.dispatch_sync("tool_search", {"query": "crm__operation_3"}).content
    assert found["tools"][0]["name"] == "crm__operation_3"
    assert "record_id" in found["tools"][0]["parameters"]["properties"]
    assert len(found["tools"]) <= 8
    following = session.assemble()
    full = next(tool for tool in following.tools if tool.name == "crm__operation_3")
    assert "record_id" in str(full.parameters["properties"]) and "crm__operation_3" not in following.stubs
    bad = session.dispatch_sync("crm__operation_3", {"record_id": 7})
    assert bad.error is not None and bad.error.code == "invalid_arguments"  # checked against the full schema


def test_everruns_a_broad_search_lists_at_most_8_tools() -> None:
    scout = ToolScout(mcp_tools(30), settings=settings({"capabilities": ["tool_search"]}))
    found = scout.session("s").dispatch_sync("tool_search", {"query": "CRM operation customer records"}).content
    assert len(found["tools"]) == 8


def test_everruns_a_search_reveals_at_most_8_tools_even_when_asked_for_more() -> None:
    scout = ToolScout(mcp_tools(30), settings=settings({"capabilities": ["tool_search"]}, search_max_limit=20))
    session = scout.session("s")
    outcome = session.dispatch_sync("tool_search", {"query": "CRM operation customer records", "limit": 20})
    assert len(outcome.content["tools"]) == 20
    assert len(outcome.revealed) == 8 and len(outcome.content["not_revealed"]) == 12
    assert sum(name.startswith("crm__") for name in session.assemble().loaded) == 8


def test_everruns_drops_hits_scoring_under_half_the_top_score() -> None:
    weak = [
        ToolSpec(name="crm__export", namespace="crm", description="Export records as CSV."),
        ToolSpec(name="audit__log", namespace="audit", description="Read the log of audit records."),
    ]
    others = [ToolSpec(name=f"weather__city_{i}", description=f"Weather forecast for city {i}.") for i in range(12)]
    tools = [*mcp_tools(3), *weak, *others]
    everruns = {"capabilities": ["tool_search"]}
    query = {"query": "customer records"}
    found = ToolScout(tools, settings=settings(everruns)).session("s").dispatch_sync("tool_search", query)
    unbanded = ToolScout(tools, settings=settings(everruns, search_top_band=0)).session("s")
    assert [tool["name"] for tool in found.content["tools"]] == [f"crm__operation_{i}" for i in range(3)]
    assert len(unbanded.dispatch_sync("tool_search", query).content["tools"]) == 5


# --- AstrBot: auto above 25 tools; only core + tool_search + discovered are sent -------------------------------


@pytest.mark.parametrize(("count", "deferred"), [(25, False), (26, True)])
def test_astrbot_auto_defers_only_above_the_threshold(count: int, deferred: bool) -> None:
    document = {"provider_settings": {"tool_schema_mode": "auto", "tool_search": {"threshold": 25}}}
    scout = ToolScout(mcp_tools(count), settings=settings(document))
    assert scout.plan().activation.active is deferred


def test_astrbot_tool_search_sends_always_loaded_and_tool_search_then_discovered_tools() -> None:
    document = {
        "provider_settings": {
            "tool_schema_mode": "tool_search",
            "tool_search": {"max_results": 2, "always_loaded_tools": ["crm__operation_0"]},
        }
    }
    scout = ToolScout(mcp_tools(10), settings=settings(document))
    session = scout.session("s")
    assert session.assemble().names == ("crm__operation_0", "tool_search")
    found = session.dispatch_sync("tool_search", {"query": "CRM operation", "limit": 10}).content
    assert len(found["tools"]) == 2  # max_results bounds every search
    revealed = [tool["name"] for tool in found["tools"] if not tool.get("listed")]
    assert revealed and session.assemble().names == ("crm__operation_0", "tool_search", *revealed)


def test_astrbot_full_mode_sends_every_tool() -> None:
    scout = ToolScout(mcp_tools(60), settings=settings({"provider_settings": {"tool_schema_mode": "full"}}))
    assert len(scout.session("s").assemble().names) == 60


# --- mcpagent: tool search mode, pre-discovered tools, selected servers and tools ------------------------------


def test_mcpagent_tool_search_mode_sends_the_search_tool_and_pre_discovered_tools() -> None:
    document = {"mcpagent": {"toolSearchMode": True, "preDiscoveredTools": ["crm__operation_5"]}}
    scout = ToolScout(mcp_tools(6), settings=settings(document))
    session = scout.session("s")
    assert session.assemble().names == ("search_tools", "crm__operation_5")
    session.dispatch_sync("search_tools", {"query": "crm__operation_2"})
    assert session.assemble().names[:3] == ("search_tools", "crm__operation_5", "crm__operation_2")


def test_mcpagent_names_search_tools_add_tool_and_show_all_tools_map_to_search_load_and_browse() -> None:
    session = ToolScout(mcp_tools(6), settings=settings({"mcpagent": {"toolSearchMode": True}})).session("s")
    turn = session.assemble()
    assert turn.names == ("search_tools",)
    assert "call search_tools with a few keywords" in turn.guidance and "tool_search" not in turn.guidance
    # add_tool(tool_names): search_tools with names, or add_tool itself (answered, though not in the list)
    loaded = session.dispatch_sync("search_tools", {"names": ["crm__operation_1"]})
    added = session.dispatch_sync("add_tool", {"names": ["crm__operation_2"]})
    assert loaded.revealed == ("crm__operation_1",) and added.revealed == ("crm__operation_2",)
    assert session.assemble().names == ("search_tools", "crm__operation_1", "crm__operation_2")
    # show_all_tools: an empty query lists every tool's name, page by page
    browsed = session.dispatch_sync("search_tools", {"query": "", "limit": 4}).content
    assert browsed["total"] == 6 and len(browsed["tools"]) == 4
    assert "Call search_tools with an empty query and this offset" in browsed["hint"]


def test_mcpagent_selected_servers_and_tools_bound_what_search_finds() -> None:
    tools = [*mcp_tools(3, server="github"), *mcp_tools(3, server="slack"), *mcp_tools(3, server="jira")]
    document = {
        "mcpagent": {"toolSearchMode": True, "selectedServers": ["github"], "selectedTools": ["jira:jira__operation_1"]}
    }
    session = ToolScout(tools, settings=settings(document)).session("s")
    found = session.dispatch_sync("search_tools", {"query": ""}).content
    assert {tool["name"] for tool in found["tools"]} == {
        "github__operation_0",
        "github__operation_1",
        "github__operation_2",
        "jira__operation_1",
    }
    refused = session.dispatch_sync("slack__operation_0", {"record_id": "1"})
    assert refused.error is not None and refused.error.code == "unknown_tool"
