"""Random JSON thrown at the catalog loader: only `CatalogError` may ever escape."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscout import Catalog, CatalogError

# Keys and values that steer random documents into the loader's interesting branches.
KEYS = st.sampled_from(
    [
        "name",
        "description",
        "parameters",
        "input_schema",
        "inputSchema",
        "outputSchema",
        "parametersJsonSchema",
        "parameters_json_schema",
        "function",
        "type",
        "tools",
        "function_declarations",
        "functionDeclarations",
        "properties",
        "required",
        "items",
        "enum",
        "nullable",
        "$schema",
        "$ref",
        "anyOf",
        "pattern",
        "format",
        "default",
        "title",
        "annotations",
        "namespace",
        "defer",
        "defer_loading",
    ]
) | st.text(max_size=8)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["object", "OBJECT", "string", "STRING", "function", "custom", "web_search", "tool", "("])
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=6),
    max_leaves=40,
)


SCHEMAS = st.dictionaries(
    st.sampled_from(["type", "properties", "required", "items", "nullable", "$schema", "$ref", "anyOf", "enum"]),
    JSON,
    max_size=4,
)
TOOLS = st.fixed_dictionaries(
    {"name": st.sampled_from(["get_weather", "search", "a.b-c"]) | st.text(max_size=6)},
    optional={
        "type": st.sampled_from(["function", "custom", "web_search_20250305"]),
        "description": SCALARS,
        "parameters": SCHEMAS,
        "inputSchema": SCHEMAS,
        "parameters_json_schema": SCHEMAS,
        "annotations": JSON,
        "defer": SCALARS,
    },
)
DOCUMENTS = st.lists(TOOLS | st.fixed_dictionaries({"functionDeclarations": st.lists(TOOLS, max_size=3)}), max_size=4)


def check_loaded(catalog: Catalog) -> None:
    for spec in catalog:
        assert isinstance(spec.name, str)
        assert spec.name
        assert isinstance(spec.parameters, dict)
        assert spec.parameters.get("type") == "object" or "object" in spec.parameters.get("type", [])  # type: ignore[operator]
    assert len({spec.name for spec in catalog}) == len(catalog)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_random_json_values_load_or_raise_catalog_error(value: object) -> None:
    try:
        catalog = Catalog.from_definitions(value, source="fuzz.json")
    except CatalogError as exc:
        assert str(exc)
    else:
        check_loaded(catalog)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS | st.lists(st.dictionaries(KEYS, JSON, max_size=6), max_size=4))
def test_random_tool_like_objects_load_or_raise_catalog_error(value: list[dict[str, object]]) -> None:
    try:
        catalog = Catalog.from_definitions(value)
    except CatalogError:
        return
    check_loaded(catalog)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200) | JSON.map(lambda value: json.dumps(value).encode()))
def test_random_file_contents_load_or_raise_catalog_error(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "catalog.json"
        path.write_bytes(content)
        try:
            Catalog.from_file(path)
        except CatalogError as exc:
            assert exc.position is not None
