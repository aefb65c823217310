import pytest

from toolscout import CatalogError, ScoutSettings, SqliteStore, ToolScout, ToolSpec

pytestmark = pytest.mark.anyio

TOOLS = [
    ToolSpec(name="terminal", description="Run a shell command."),
    *[
        ToolSpec(name=f"jira__{verb}_ticket", namespace="jira", description=f"{verb.title()} a Jira ticket.")
        for verb in ("create", "close", "assign", "comment", "link")
    ],
    ToolSpec(name="weather__forecast", namespace="weather", description="Weather forecast for a city."),
]


def _scout(store) -> ToolScout:
    return ToolScout(TOOLS, core=["terminal"], settings=ScoutSettings(mode="on", style="reveal"), store=store)


async def test_reveal_discoveries_survive_a_process_restart_with_sqlite(tmp_path):
    path = tmp_path / "sessions.db"
    first = _scout(SqliteStore(path))
    outcome = await first.session("chat-1").dispatch("tool_search", {"query": "weather forecast"})
    assert outcome.revealed == ("weather__forecast",)
    assert outcome.content["tools"][0]["parameters"] == {"type": "object", "properties": {}}
    first.close()

    second = _scout(SqliteStore(path))
    assembly = second.session("chat-1").assemble()
    assert assembly.names == ("terminal", "tool_search", "weather__forecast")
    assert second.session("chat-2").assemble().names == ("terminal", "tool_search")
    second.close()


async def test_a_revealed_tool_is_called_directly_on_the_next_step(tmp_path):
    scout = _scout(SqliteStore(tmp_path / "s.db"))
    scout.add_function(_forecast, namespace="weather", name="weather__forecast_for")
    session = scout.session("s")
    await session.dispatch("tool_search", {"query": "forecast city"})
    assert "weather__forecast_for" in session.assemble().names
    outcome = await session.dispatch("weather__forecast_for", {"city": "Oslo"})
    assert outcome.content == "Oslo: sunny"
    assert not outcome.bridged
    scout.close()


async def test_searching_again_reveals_nothing_new_and_keeps_the_order():
    scout = _scout(None)
    session = scout.session("s")
    await session.dispatch("tool_search", {"query": "close jira ticket", "limit": 1})
    again = await session.dispatch("tool_search", {"query": "close jira ticket", "limit": 1})
    assert again.revealed == ()
    assert again.content["tools"][0].get("listed") is True
    await session.dispatch("tool_search", {"query": "assign jira ticket", "limit": 1})
    assert session.discovered == ("jira__close_ticket", "jira__assign_ticket")


def _forecast(city: str) -> str:
    """Forecast for a city."""
    return f"{city}: sunny"


def test_a_rejected_tool_list_leaves_the_previous_tools_and_handlers_in_place():
    def first() -> str:
        """The original tool."""
        return "original"

    scout = ToolScout([first])

    def replacement() -> str:
        """A replacement with the same name."""
        return "replacement"

    replacement.__name__ = "first"
    with pytest.raises(CatalogError):
        scout.set_tools([replacement, {"name": "first"}])
    assert scout.session("s").dispatch_sync("first", {}).content == "original"


def test_configuration_is_fixed_and_replace_gives_a_scout_with_new_settings() -> None:
    import pytest

    from toolscout import ScoutSettings, ToolScout

    tools = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    scout = ToolScout(tools, settings=ScoutSettings(mode="on", style="bridge"))
    assert scout.session("a").assemble().names == ("tool_search", "tool_describe", "tool_call")
    with pytest.raises(AttributeError):
        scout.settings = ScoutSettings(mode="off")  # type: ignore[misc]
    reveal = scout.replace(settings=ScoutSettings(mode="on", style="reveal"))
    assert reveal.session("a").assemble().names == ("tool_search",)
    assert scout.session("a").assemble().names == ("tool_search", "tool_describe", "tool_call")
    assert reveal.catalog is scout.catalog and reveal.store is scout.store


def test_a_scout_replaced_with_another_style_reuses_the_plan_but_not_across_core_or_deferral_changes() -> None:
    """Style, stubs and pre-discovered tools shape only the assembly: a page rendering every style plans once."""
    tools = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    scout = ToolScout(tools, settings=ScoutSettings(mode="on", style="bridge"))
    plan = scout.plan()
    reveal = scout.replace(settings=ScoutSettings(mode="on", style="reveal", reveal_stubs=True))
    assert reveal.plan() is plan
    assert reveal.session("a").assemble().stubs  # the assembly still follows its own settings
    assert scout.replace(settings=ScoutSettings(mode="off")).plan() is not plan
    assert scout.replace(settings=ScoutSettings(mode="on", never_defer=("crm__op_1",))).plan() is not plan
    core = scout.replace(core={"crm__op_2"})
    assert core.plan() is not plan
    reveal.add_function(lambda: None, name="late", core=True)  # its catalog and core change; not the others
    assert scout.plan() is plan


def test_relisting_an_unchanged_tool_list_reuses_the_search_index() -> None:
    import json

    listing = json.dumps([tool.to_definition() for tool in TOOLS])
    scout = ToolScout(json.loads(listing))
    index = scout.index()
    scout.set_tools(json.loads(listing))  # a fresh tools/list answer with the same content
    assert scout.index() is index
    scout.set_tools([*json.loads(listing), {"name": "weather__alerts", "description": "Weather alerts."}])
    assert scout.index() is not index


class _CatalogChangingCounter:
    """Counts chars/4; once armed, its next count replaces the scout's tools (as an upstream attaching would)."""

    name = "chars/4"

    def __init__(self) -> None:
        self.scout: ToolScout | None = None
        self.replacement: list[dict[str, str]] = []

    def count(self, text: str) -> int:
        scout, self.scout = self.scout, None
        if scout is not None:
            scout.set_tools(self.replacement)
        return -(-len(text) // 4)


def test_a_catalog_change_while_a_search_is_resolved_answers_from_one_catalog() -> None:
    """The gateway swaps catalogs on its event loop while a worker thread resolves a search."""
    before = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    added = {"name": "weather__forecast", "description": "Weather forecast for a city"}
    counter = _CatalogChangingCounter()
    scout = ToolScout(before, settings=ScoutSettings(style="bridge", search_mode="lexical"), token_counter=counter)
    counter.scout, counter.replacement = scout, [*before, added]
    outcome = scout.session("s").dispatch_sync("tool_search", {"query": "weather forecast"})
    assert not outcome.is_error, outcome.content
    later = scout.session("s").dispatch_sync("tool_search", {"query": "weather forecast"})
    assert [tool["name"] for tool in later.found][:1] == ["weather__forecast"]


def test_the_turns_definitions_are_the_tools_array_as_json():
    """`turn.tools` holds `ToolSpec`s; `turn.definitions` is the same array, ready for `json.dumps`."""
    import json

    turn = ToolScout(TOOLS, settings=ScoutSettings(mode="on", style="bridge")).session("s").assemble()
    sent = json.loads(json.dumps(turn.definitions))
    assert [tool["name"] for tool in sent] == list(turn.names)
    assert sent[0]["parameters"] == turn.tools[0].parameters and sent[0]["description"] == turn.tools[0].description


def test_the_sample_catalog_is_named_as_the_cli_names_it(tmp_path, monkeypatch):
    from toolscout import Catalog
    from toolscout.data import sample_catalog_path

    scout = ToolScout("sample")
    assert len(scout.catalog) == len(Catalog.from_file(sample_catalog_path())) > 100
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample").write_text('[{"name": "local_tool", "description": "A local file named sample."}]')
    assert [tool.name for tool in ToolScout("sample").catalog] == ["local_tool"]
    assert [tool.name for tool in ToolScout(tmp_path / "sample").catalog] == ["local_tool"]


def test_a_string_that_names_no_catalog_file_is_refused_naming_it():
    with pytest.raises(CatalogError, match="no-such-catalog.json"):
        ToolScout("no-such-catalog.json")


def test_a_scout_sharing_plans_lists_its_own_pre_discovered_tools_in_search_answers():
    bridge = ToolScout(TOOLS, core=["terminal"], settings=ScoutSettings(mode="on"))
    first = bridge.session("s").resolve("tool_search", {"query": "weather forecast", "limit": 1})
    assert "listed" not in first.content["tools"][0]
    shown = bridge.replace(settings=ScoutSettings(mode="on", pre_discovered=("weather__forecast",)))
    again = shown.session("s").resolve("tool_search", {"query": "weather forecast", "limit": 1})
    assert again.content["tools"][0]["listed"] is True
    assert (
        bridge.session("t").resolve("tool_search", {"query": "weather forecast"}).content["tools"][0].get("listed")
        is None
    )
