"""Result bounding of tool_search: the top band drops weak hits, the reveal cap bounds what one search reveals."""

from __future__ import annotations

import pytest

from toolscout import ConfigError, ScoutSettings, Style, ToolScout, ToolSpec

SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"record_id": {"type": "string"}},
    "required": ["record_id"],
}


def crm_tools(count: int) -> list[ToolSpec]:
    return [
        ToolSpec(
            name=f"crm__operation_{i}",
            namespace="crm",
            description=f"CRM operation number {i} on customer records.",
            parameters=SCHEMA,
        )
        for i in range(count)
    ]


# Three strong matches for "customer records", two weak ones (a single description word), twelve unrelated.
WEAK = [
    ToolSpec(name="crm__export", namespace="crm", description="Export records as CSV.", parameters=SCHEMA),
    ToolSpec(name="audit__log", namespace="audit", description="Read the log of audit records.", parameters=SCHEMA),
]
UNRELATED = [
    ToolSpec(name=f"weather__forecast_{i}", namespace="weather", description=f"Weather forecast for city {i}.")
    for i in range(12)
]


def search(settings: ScoutSettings, arguments: dict[str, object], tools: list[ToolSpec]) -> dict[str, object]:
    outcome = ToolScout(tools, settings=settings).session("s").dispatch_sync("tool_search", arguments)
    assert outcome.error is None, outcome.error
    assert isinstance(outcome.content, dict)
    return outcome.content


def found(content: dict[str, object]) -> list[str]:
    tools = content["tools"]
    assert isinstance(tools, list)
    return [tool["name"] for tool in tools]


@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_hits_under_the_top_band_are_dropped_and_band_0_keeps_them(style: Style) -> None:
    tools = [*crm_tools(3), *WEAK, *UNRELATED]
    query = {"query": "customer records", "limit": 10}
    kept = search(ScoutSettings(mode="on", style=style, search_top_band=0), query, tools)
    banded = search(ScoutSettings(mode="on", style=style, search_top_band=0.5), query, tools)

    assert set(found(kept)) == {"crm__operation_0", "crm__operation_1", "crm__operation_2", *(t.name for t in WEAK)}
    assert found(banded) == ["crm__operation_0", "crm__operation_1", "crm__operation_2"]
    assert banded["total"] == 3 and "next_offset" not in banded


def test_a_reveal_search_reveals_at_most_search_max_reveal_tools_and_lists_the_rest() -> None:
    scout = ToolScout(crm_tools(12), settings=ScoutSettings(mode="on", style="reveal", search_max_reveal=3))
    session = scout.session("s")

    outcome = session.dispatch_sync("tool_search", {"query": "CRM operation customer records", "limit": 10})

    content = outcome.content
    assert isinstance(content, dict)
    listed = found(content)
    assert len(listed) == 10
    assert [tool["name"] for tool in content["tools"] if "parameters" in tool] == listed[:3]
    assert content["not_revealed"] == listed[3:]
    assert "The first 3 of these tools are now in your tool list" in str(content["hint"])
    assert outcome.revealed == tuple(listed[:3])
    assert session.discovered == tuple(listed[:3])
    following = session.assemble()
    assert [name for name in following.names if name.startswith("crm__")] == listed[:3]
    # A tool listed but not revealed is added by naming it.
    named = session.dispatch_sync("tool_search", {"names": [listed[5]]})
    assert named.revealed == (listed[5],)


def test_the_reveal_cap_counts_only_deferred_tools_and_a_bridge_search_lists_every_hit() -> None:
    settings = ScoutSettings(mode="on", style="bridge", search_max_reveal=1)
    content = search(settings, {"query": "CRM operation customer records", "limit": 6}, crm_tools(6))
    assert len(found(content)) == 6 and "not_revealed" not in content


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param("search_max_reveal", 0, "must be at least 1 (allowed: from 1 to 100)", id="reveal-zero"),
        pytest.param("search_max_reveal", 101, "must be at most 100 (allowed: from 1 to 100)", id="reveal-over-100"),
        pytest.param("search_top_band", 1.0, "must be less than 1 (allowed: at least 0 and less", id="band-one"),
        pytest.param("search_top_band", -0.1, "must be at least 0", id="band-negative"),
        pytest.param("search_top_band", float("nan"), "must be a finite number", id="band-nan"),
        pytest.param("search_top_band", True, "must be a number, not true/false", id="band-bool"),
    ],
)
def test_bounding_settings_out_of_range_are_errors_naming_the_key(key: str, value: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ScoutSettings.from_mapping({key: value})
    assert caught.value.key.endswith(key)
    assert message in str(caught.value)
