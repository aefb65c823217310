from toolscout import ScoutSettings, ToolScout
from toolscout.providers import anthropic, openai_responses
from toolscout.providers._internal import build_surface


def test_native_with_deferral_inactive_sends_everything_in_full_without_a_search_tool(tools):
    session = ToolScout(tools, settings=ScoutSettings(mode="off")).session("s")
    surface = build_surface(session, "native")
    assert not surface.active and surface.deferred == () and len(surface.head) == len(tools)
    rendering = anthropic.render(session, style="native")
    assert "system" not in rendering.fields and rendering.search is None
    assert not any(tool.get("defer_loading") for tool in rendering.fields["tools"])


def test_pre_discovered_tools_are_sent_in_full_in_native_style(make_scout):
    session = make_scout(pre_discovered=("jira__create_ticket",)).session("s")
    tools = openai_responses.render(session, style="native", history=[]).fields["tools"]
    assert [tool.get("name", tool["type"]) for tool in tools[:3]] == ["terminal", "tool_search", "jira__create_ticket"]
    assert "defer_loading" not in tools[2]


def test_the_searchable_tools_are_every_deferred_tool_in_catalog_order(make_scout, tools):
    surface = build_surface(make_scout().session("s"), "bridge")
    assert [tool.name for tool in surface.searchable] == [tool.name for tool in tools[1:]]
    assert [tool.name for tool in surface.fixed] == ["terminal", "tool_search", "tool_describe", "tool_call"]


def test_reveal_stubs_come_after_the_search_tool(make_scout, tools):
    session = make_scout("reveal", reveal_stubs=True).session("s")
    surface = build_surface(session, "reveal")
    assert [tool.name for tool in surface.bridge] == ["tool_search"]
    assert len(surface.loaded) == len(tools) - 1
