import json

from toolscout import BridgeNames, CharsPerToken, ScoutSettings, ToolScout, ToolSpec
from toolscout.disclosure._bridge import bridge_tools

COUNTER = CharsPerToken()


def _mcp_tools(count: int, namespace: str = "github") -> list[ToolSpec]:
    return [
        ToolSpec(
            name=f"{namespace}__op_{i}",
            namespace=namespace,
            description=f"Operation {i} on {namespace}.",
            parameters={"type": "object", "properties": {"value": {"type": "string"}}},
        )
        for i in range(count)
    ]


CORE = [ToolSpec(name="terminal", description="Run a shell command."), ToolSpec(name="read_file")]


def _scout(tools, **settings) -> ToolScout:
    return ToolScout(tools, core=["terminal", "read_file"], settings=ScoutSettings(**settings), token_counter=COUNTER)


def _bytes(assembly) -> list[str]:
    return [json.dumps(tool.to_definition(), sort_keys=True) for tool in assembly.tools]


def test_bridge_style_sends_core_then_bridge_tools():
    assembly = _scout([*CORE, *_mcp_tools(40)], mode="on").session("s").assemble()
    assert assembly.names == ("terminal", "read_file", "tool_search", "tool_describe", "tool_call")
    assert assembly.activation.active
    assert "tool_search" in assembly.guidance


def test_core_tools_come_first_whatever_their_catalog_position():
    tools = [*_mcp_tools(3), CORE[1], *_mcp_tools(3, "slack"), CORE[0]]
    assembly = _scout(tools, mode="on").session("s").assemble()
    assert assembly.names[:2] == ("read_file", "terminal")


def test_core_tool_survives_alongside_many_mcp_tools():
    assembly = _scout([CORE[0], *_mcp_tools(300)], mode="on").session("s").assemble()
    assert "terminal" in assembly.names
    assert assembly.activation.deferrable_count == 300


def test_below_threshold_is_a_pass_through_in_catalog_order():
    tools = [*_mcp_tools(3), *CORE]
    assembly = _scout(tools, mode="auto", context_window=1_000_000).session("s").assemble()
    assert not assembly.activation.active
    assert assembly.names == tuple(tool.name for tool in tools)
    assert assembly.guidance == ""


def test_bridge_definitions_do_not_change_when_the_catalog_changes_size():
    small = _scout([*CORE, *_mcp_tools(40)], mode="on").session("s").assemble()
    large = _scout([*CORE, *_mcp_tools(400), *_mcp_tools(50, "slack")], mode="on").session("s").assemble()
    assert _bytes(small) == _bytes(large)


def test_reveal_appends_discoveries_in_order_and_keeps_the_prefix():
    scout = _scout([*CORE, *_mcp_tools(40)], mode="on", style="reveal")
    session = scout.session("s")
    before = _bytes(session.assemble())
    scout.store.discover("s", ["github__op_7"])
    middle = _bytes(session.assemble())
    scout.store.discover("s", ["github__op_3", "github__op_7"])
    after = session.assemble()
    assert after.names == ("terminal", "read_file", "tool_search", "github__op_7", "github__op_3")
    assert middle[: len(before)] == before
    assert _bytes(after)[: len(middle)] == middle


def test_bridge_style_does_not_grow_the_array_with_discoveries():
    scout = _scout([*CORE, *_mcp_tools(40)], mode="on")
    before = scout.session("s").assemble().names
    scout.store.discover("s", ["github__op_7"])
    assert scout.session("s").assemble().names == before


def test_pre_discovered_tools_follow_the_bridge_tools():
    assembly = _scout([*CORE, *_mcp_tools(40)], mode="on", pre_discovered=("github__op_5",)).session("s").assemble()
    assert assembly.names[-1] == "github__op_5"
    assert assembly.discovered == ("github__op_5",)


def test_reveal_with_stubs_sends_name_and_description_after_discoveries():
    scout = _scout([*CORE, *_mcp_tools(3)], mode="on", style="reveal", reveal_stubs=True)
    scout.store.discover("s", ["github__op_2"])
    assembly = scout.session("s").assemble()
    assert assembly.names == ("terminal", "read_file", "tool_search", "github__op_2", "github__op_0", "github__op_1")
    stub = assembly.tools[-1]
    assert stub.parameters == {"type": "object", "properties": {}}
    assert stub.description.startswith("Operation 1 on github.")
    assert "tool_search" in stub.description


def test_stale_bridge_tools_in_the_input_are_stripped():
    tools = [*CORE, *_mcp_tools(40)]
    first = _scout(tools, mode="on").session("s").assemble()
    again = _scout([*tools, *bridge_tools("bridge", BridgeNames())], mode="on").session("s").assemble()
    assert again.names == first.names
    off = _scout([*tools, *bridge_tools("bridge", BridgeNames())], mode="off").session("s").assemble()
    assert "tool_search" not in off.names


def test_activation_is_decided_afresh_when_tools_change():
    scout = _scout([*CORE, *_mcp_tools(2)], mode="auto", context_window=1_000_000, threshold_tools=30)
    assert not scout.session("s").assemble().activation.active
    scout.set_tools([*CORE, *_mcp_tools(31)])
    assert scout.session("s").assemble().activation.active
    scout.set_tools(CORE)
    assert not scout.session("s").assemble().activation.active


def test_guidance_lists_what_exists_and_is_byte_stable():
    scout = _scout([*CORE, *_mcp_tools(5), *_mcp_tools(4, "slack")], mode="on")
    guidance = scout.session("a").assemble().guidance
    assert "github (5 tools):" in guidance
    assert "slack (4 tools):" in guidance
    scout.store.discover("a", ["github__op_1"])
    assert scout.session("a").assemble().guidance == guidance
    assert scout.session("b").assemble().guidance == guidance
