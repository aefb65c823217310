from __future__ import annotations

import dataclasses

import pytest

from toolscout import Catalog, CatalogError, ToolScout, ToolSpec


def tool(name: str, description: str = "", namespace: str | None = None) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description or f"The {name} tool.",
        parameters={"type": "object", "properties": {"x": {"type": "string"}}},
        namespace=namespace,
    )


def test_the_fingerprint_is_stable_across_builds() -> None:
    definitions = [{"name": "a", "description": "A."}, {"name": "b", "parameters": {"type": "object"}}]
    assert Catalog.from_definitions(definitions).fingerprint == Catalog.from_definitions(definitions).fingerprint


def test_the_fingerprint_ignores_json_key_order() -> None:
    one = Catalog.from_definitions([{"name": "a", "description": "A.", "parameters": {"type": "object"}}])
    two = Catalog.from_definitions([{"parameters": {"type": "object"}, "description": "A.", "name": "a"}])
    assert one.fingerprint == two.fingerprint


def test_the_fingerprint_changes_with_tool_order() -> None:
    assert Catalog([tool("a"), tool("b")]).fingerprint != Catalog([tool("b"), tool("a")]).fingerprint


@pytest.mark.parametrize(
    "change",
    [
        {"description": "Something else."},
        {"parameters": {"type": "object", "properties": {"y": {"type": "string"}}}},
        {"namespace": "other"},
        {"title": "A title"},
        {"annotations": {"readOnlyHint": True}},
        {"output_schema": {"type": "object"}},
        {"defer": "never"},
    ],
)
def test_the_fingerprint_changes_with_any_content_change(change: dict[str, object]) -> None:
    base = tool("a")
    changed = dataclasses.replace(base, **change)  # type: ignore[arg-type]
    assert Catalog([base]).fingerprint != Catalog([changed]).fingerprint
    assert base.fingerprint != changed.fingerprint


def test_catalogs_with_equal_content_are_equal_and_hash_alike() -> None:
    one, two = Catalog([tool("a")]), Catalog([tool("a")])
    assert one == two
    assert hash(one) == hash(two)
    assert one != Catalog([tool("b")])
    assert one != "not a catalog"


def test_an_empty_catalog() -> None:
    catalog = Catalog()
    assert len(catalog) == 0
    assert catalog.tools == ()
    assert catalog.namespaces() == {}


def test_lookup_by_name() -> None:
    catalog = Catalog([tool("a"), tool("b")])
    assert catalog["b"].name == "b"
    assert catalog.get("b") is catalog["b"]
    assert catalog.get("zzz") is None
    assert "a" in catalog
    assert "zzz" not in catalog
    with pytest.raises(KeyError):
        catalog["zzz"]


def test_iteration_and_tools_keep_catalog_order() -> None:
    catalog = Catalog([tool("c"), tool("a"), tool("b")])
    assert [t.name for t in catalog] == ["c", "a", "b"]
    assert [t.name for t in catalog.tools] == ["c", "a", "b"]


def test_duplicate_records_are_a_catalog_error_naming_the_tool() -> None:
    with pytest.raises(CatalogError) as info:
        Catalog([tool("a"), tool("b"), tool("a")])
    assert info.value.tool_name == "a"
    assert info.value.position == "tools[2]"


def test_merge_appends_in_order_and_matches_building_at_once() -> None:
    first = Catalog([tool("a"), tool("b")])
    second = Catalog([tool("c")])
    third = Catalog([tool("d")])
    merged = first.merge(second, third)
    assert [t.name for t in merged] == ["a", "b", "c", "d"]
    assert merged == Catalog([*first, *second, *third])
    assert [t.name for t in first] == ["a", "b"]


def test_merge_refuses_a_name_present_in_two_catalogs() -> None:
    with pytest.raises(CatalogError, match="duplicate tool name 'b'") as info:
        Catalog([tool("a"), tool("b")]).merge(Catalog([tool("b", "Another b.")]))
    assert info.value.tool_name == "b"


def test_namespaces_group_tools_in_first_seen_order() -> None:
    catalog = Catalog(
        [tool("gh_issue", namespace="github"), tool("fs_read", namespace="fs"), tool("gh_pr", namespace="github")]
        + [tool("loose")]
    )
    groups = catalog.namespaces()
    assert list(groups) == ["github", "fs", None]
    assert [t.name for t in groups["github"]] == ["gh_issue", "gh_pr"]
    assert [t.name for t in groups[None]] == ["loose"]


def test_the_default_namespace_applies_only_to_tools_without_their_own() -> None:
    catalog = Catalog.from_definitions([{"name": "a"}, {"name": "b", "namespace": "mine"}], namespace="server")
    assert [t.namespace for t in catalog] == ["server", "mine"]


def test_the_same_name_in_two_namespaces_still_clashes() -> None:
    github = Catalog.from_definitions([{"name": "search"}], namespace="github")
    jira = Catalog.from_definitions([{"name": "search"}], namespace="jira")
    with pytest.raises(CatalogError, match="different namespaces"):
        github.merge(jira)


def test_to_definition_gives_the_neutral_shape_that_reads_back_identically() -> None:
    original = tool("a", namespace="ns")
    definition = original.to_definition()
    assert definition == {
        "name": "a",
        "description": "The a tool.",
        "parameters": original.parameters,
        "namespace": "ns",
    }
    assert Catalog.from_definitions([definition]).tools == (original,)


def test_repr_shows_size_and_fingerprint_prefix() -> None:
    catalog = Catalog([tool("a")])
    assert repr(catalog) == f"Catalog(1 tools, fingerprint={catalog.fingerprint[:12]})"


def test_a_namespaced_name_gives_its_namespace_in_the_library_as_in_the_gateway():
    """``ops__create_invoice`` is tool ``create_invoice`` of namespace ``ops``, whatever shape it came in."""

    def ops__refund_invoice(invoice: str) -> str:
        """Refund an invoice."""
        return invoice

    definitions = [{"name": f"ops__op_{i}", "description": f"Operation {i}"} for i in range(100)]
    definitions += [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(100)]
    definitions += [{"name": "billing__charge", "namespace": "payments"}, {"name": "plain"}]
    scout = ToolScout([*definitions, ops__refund_invoice, ToolSpec(name="ops__create_invoice")])
    namespaces = {tool.name: tool.namespace for tool in scout.catalog}
    assert namespaces["ops__op_0"] == namespaces["ops__refund_invoice"] == namespaces["ops__create_invoice"] == "ops"
    assert namespaces["crm__op_7"] == "crm"
    assert namespaces["billing__charge"] == "payments" and namespaces["plain"] is None
    guidance = scout.session("s").assemble().guidance
    assert guidance.endswith("crm (100 tools); general (1 tools); ops (102 tools); payments (1 tools)")
