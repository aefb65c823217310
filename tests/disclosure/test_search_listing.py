"""What exists travels in the search tool's description, for hosts whose framework drops the guidance."""

from __future__ import annotations

import pytest

from toolscout import CharsPerToken, ScoutSettings, ToolScout, ToolSpec
from toolscout._settings import Style
from toolscout._texts import Bridge

COUNTER = CharsPerToken()
TOOLS = [
    *(ToolSpec(name=f"github__op_{i}", namespace="github", description=f"GitHub operation {i}.") for i in range(30)),
    *(ToolSpec(name=f"slack__op_{i}", namespace="slack", description=f"Slack operation {i}.") for i in range(12)),
]


def _search_description(scout: ToolScout, session: str = "s") -> str:
    (search,) = [tool for tool in scout.session(session).assemble().tools if tool.name == "tool_search"]
    return search.description


@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_the_search_tool_lists_what_it_can_find_within_its_budget(style: Style) -> None:
    scout = ToolScout(
        TOOLS, settings=ScoutSettings(mode="on", style=style, search_listing_tokens=60), token_counter=COUNTER
    )

    description = _search_description(scout)

    head, listing = description.split(f"\n\n{Bridge.LISTING_HEADER}\n")
    assert head in (Bridge.SEARCH, Bridge.SEARCH_REVEAL)
    assert "github" in listing and "slack" in listing
    assert COUNTER.count(listing) <= 60


def test_the_listing_is_byte_stable_across_turns_discoveries_and_tool_order() -> None:
    settings = ScoutSettings(mode="on", style="reveal", search_listing_tokens=60)
    scout = ToolScout(TOOLS, settings=settings, token_counter=COUNTER)
    before = _search_description(scout)
    scout.session("s").dispatch_sync("tool_search", {"query": "slack operation 3"})

    assert _search_description(scout) == before
    assert _search_description(ToolScout(list(reversed(TOOLS)), settings=settings, token_counter=COUNTER)) == before


def test_the_library_default_leaves_the_description_alone_and_the_gateway_default_lists() -> None:
    from toolscout.gateway import GatewaySettings

    scout = ToolScout(TOOLS, settings=ScoutSettings(mode="on"), token_counter=COUNTER)

    assert _search_description(scout) == Bridge.SEARCH
    assert GatewaySettings().search_listing_tokens == 150


def test_an_assembled_search_tool_fed_back_as_a_catalog_tool_is_recognised_as_toolscouts_own() -> None:
    settings = ScoutSettings(mode="on", search_listing_tokens=60)
    sent = ToolScout(TOOLS, settings=settings, token_counter=COUNTER).session("s").assemble().tools

    again = ToolScout(list(sent), settings=settings, token_counter=COUNTER)

    assert again.renamed == {}
    assert "tool_search_2" not in again.catalog
