import pytest

from toolscout import Catalog, ConfigError, ToolSpec
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
    from toolscout import ScoutSettings, ToolScout

    tools = [{"name": "terminal", "description": "Run a shell command."}]
    tools += [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    scout = ToolScout(tools, core=["terminal"], settings=ScoutSettings(mode="on"))
    session = scout.session("s", scope=Scope.of(deny=["terminal", "crm__*"]))
    assert "terminal" in session.assemble().names
    assert session.dispatch_sync("tool_search", {"query": "CRM operation"}).content["tools"] == []
