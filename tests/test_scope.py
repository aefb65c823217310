import pytest

from toolscout import Catalog, ConfigError, ScopeSettings, ScoutSettings, ToolScout, ToolSpec
from toolscout._scope import Scope

GITHUB = ToolSpec(name="github__create_issue", namespace="github")
SLACK = ToolSpec(name="slack__post_message", namespace="slack")
PLAIN = ToolSpec(name="read_file")
COLON = ToolSpec(name="db:query")


@pytest.mark.parametrize(
    ("scope", "permitted"),
    [
        pytest.param(Scope(), {GITHUB, SLACK, PLAIN, COLON}, id="unrestricted"),
        pytest.param(Scope.of(["github:*"]), {GITHUB}, id="whole-namespace"),
        pytest.param(Scope.of(["github:create_*"]), set(), id="namespace-glob-matches-full-name-only"),
        pytest.param(Scope.of(["github:github__create_*"]), {GITHUB}, id="namespace-and-name-glob"),
        pytest.param(Scope.of(["*__post_*"]), {SLACK}, id="name-glob"),
        pytest.param(Scope.of(["read_file"]), {PLAIN}, id="exact-name"),
        pytest.param(Scope.of(["db:query"]), {COLON}, id="exact-name-with-colon"),
        pytest.param(Scope.of(deny=["slack:*"]), {GITHUB, PLAIN, COLON}, id="deny-namespace"),
        pytest.param(Scope.of(["github:*", "slack:*"], deny=["*post*"]), {GITHUB}, id="deny-wins"),
    ],
)
def test_scope_patterns(scope, permitted):
    assert {tool for tool in (GITHUB, SLACK, PLAIN, COLON) if scope.permits(tool)} == permitted


def test_filter_returns_the_in_scope_catalog():
    catalog = Catalog([GITHUB, SLACK, PLAIN])
    assert [tool.name for tool in Scope.of(["github:*"]).filter(catalog)] == ["github__create_issue"]
    assert Scope().filter(catalog) is catalog


def test_a_bare_string_is_not_accepted_as_a_pattern_list():
    with pytest.raises(ConfigError):
        Scope(allow="github:*")  # type: ignore[arg-type]


def test_a_session_scope_never_removes_the_hosts_core_tools() -> None:
    tools = [{"name": "terminal", "description": "Run a shell command."}]
    tools += [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    scout = ToolScout(tools, core=["terminal"], settings=ScoutSettings(mode="on"))
    session = scout.session("s", scope=Scope.of(deny=["terminal", "crm__*"]))
    assert "terminal" in session.assemble().names
    assert session.dispatch_sync("tool_search", {"query": "CRM operation"}).content["tools"] == []


# mcpagent's tool filtering (selectedServers / selectedTools), as ScoutSettings.scope, end to end.
MCPAGENT_TOOLS = [
    ToolSpec(name="create_issue", description="Open a GitHub issue in a repository.", namespace="github"),
    ToolSpec(name="list_pulls", description="List the pull requests of a GitHub repository.", namespace="github"),
    ToolSpec(name="post_message", description="Post a message to a Slack channel.", namespace="slack"),
    ToolSpec(name="read_workspace_file", description="Read a file from the workspace.", namespace="workspace"),
    ToolSpec(name="write_workspace_file", description="Write a file in the workspace.", namespace="workspace"),
    ToolSpec(name="get_weather", description="Current weather for a city.", namespace="weather"),
]
ALL = {tool.name for tool in MCPAGENT_TOOLS}


@pytest.mark.parametrize(
    ("scope", "visible"),
    [
        pytest.param({}, ALL, id="no-filtering-everything"),
        pytest.param({"servers": ["github"]}, {"create_issue", "list_pulls"}, id="selected-servers-only"),
        pytest.param(
            {"tools": ["workspace:read_workspace_file", "get_weather"]},
            {"read_workspace_file", "get_weather"},
            id="selected-tools-only",
        ),
        pytest.param(
            {"servers": ["github", "slack"], "tools": ["workspace:read_workspace_file"]},
            {"create_issue", "list_pulls", "post_message", "read_workspace_file"},
            id="servers-and-tools-union",
        ),
        pytest.param(
            {"tools": ["workspace:*"]}, {"read_workspace_file", "write_workspace_file"}, id="server-star-pattern"
        ),
        pytest.param({"servers": ["github"], "deny": ["list_*"]}, {"create_issue"}, id="deny-wins"),
    ],
)
def test_selected_servers_and_tools_follow_mcpagents_filtering_table(scope, visible) -> None:
    scout = ToolScout(MCPAGENT_TOOLS, settings=ScoutSettings(mode="on", style="reveal", scope=ScopeSettings(**scope)))
    session = scout.session("s")
    browsed = session.dispatch_sync("tool_search", {"query": ""}).content
    assert {tool["name"] for tool in browsed["tools"]} == visible
    for tool in MCPAGENT_TOOLS:
        found = session.dispatch_sync("tool_search", {"query": tool.name}).content["tools"]
        assert (tool.name in {hit["name"] for hit in found}) == (tool.name in visible), tool.name
        called = session.dispatch_sync(tool.name, {})
        if tool.name not in visible:
            assert called.error is not None and called.error.code == "unknown_tool", tool.name


def test_a_filtered_tool_cannot_be_reached_through_the_bridge_either() -> None:
    settings = ScoutSettings(mode="on", scope=ScopeSettings(servers=("github",)))
    session = ToolScout(MCPAGENT_TOOLS, settings=settings).session("s")
    assert session.dispatch_sync("tool_describe", {"names": ["post_message"]}).error is not None
    refused = session.dispatch_sync("tool_call", {"name": "post_message", "arguments": {}})
    assert refused.error is not None and refused.error.code == "unknown_tool"
    assert session.dispatch_sync("tool_describe", {"names": ["create_issue"]}).error is None


def test_a_session_scope_narrows_the_settings_scope_and_never_widens_it() -> None:
    settings = ScoutSettings(mode="off", scope=ScopeSettings(servers=("github", "slack")))
    scout = ToolScout(MCPAGENT_TOOLS, settings=settings)
    assert set(scout.session("a").assemble().names) == {"create_issue", "list_pulls", "post_message"}
    narrowed = scout.session("b", scope=Scope.of(["slack:*", "weather:*"]))
    assert narrowed.assemble().names == ("post_message",)
    assert scout.session("c", scope=Scope.of(deny=["list_pulls"])).assemble().names == ("create_issue", "post_message")


def test_the_settings_scope_never_removes_core_tools() -> None:
    settings = ScoutSettings(scope=ScopeSettings(servers=("github",)))
    scout = ToolScout(MCPAGENT_TOOLS, core=["get_weather"], settings=settings)
    assert "get_weather" in scout.session("s").assemble().names


def test_narrowed_scopes_compare_equal_so_plans_are_cached() -> None:
    base = Scope.select(servers=["github"])
    assert base.narrowed(Scope()) is base
    assert Scope().narrowed(base) is base
    assert base.narrowed(Scope.of(deny=["x"])) == base.narrowed(Scope.of(deny=["x"]))
    assert not base.narrowed(Scope.of(deny=["x"])).unrestricted


def test_an_empty_selection_selects_nothing_but_no_selection_selects_everything() -> None:
    assert Scope.select().unrestricted
    assert not Scope.select(servers=[]).permits(GITHUB)
    assert Scope.select(servers=["github"], tools=[]).permits(GITHUB)
