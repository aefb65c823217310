"""Parameter schemas are checked fast (jsonschema_rs) and fail with jsonschema's own errors."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, SchemaError
from jsonschema.validators import validator_for

from toolscout import Catalog, CatalogError
from toolscout.catalog._schemas import _valid_for_rust, check_schema

DRAFT_3 = "http://json-schema.org/draft-03/schema#"
DRAFT_4 = "http://json-schema.org/draft-04/schema#"
DRAFT_7 = "http://json-schema.org/draft-07/schema#"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"

BAD: list[dict[str, Any]] = [
    {"type": "object", "properties": {"n": {"type": "numbr"}}},
    {"type": "object", "properties": {"s": {"type": "string", "minLength": -1}}},
    {"type": "object", "required": "city"},
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "("}}},
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "\\p{L}+"}}},  # not a Python regex
    {"type": "object", "patternProperties": {"[": {}}},
    {"type": "object", "properties": {"n": {"type": ["string", "string"]}}},
    {"type": "object", "properties": {"n": {"enum": "abc"}}},
    {"type": "object", "additionalProperties": "no"},
    {"type": "object", "properties": {"d": {"type": "string", "format": 3}}},
    {"type": "object", "properties": {"u": {"anyOf": []}}},
    {"$schema": DRAFT_7, "type": "object", "properties": {"n": {"exclusiveMinimum": True}}},
    {"$schema": DRAFT_4, "type": "object", "properties": {"n": {"exclusiveMinimum": 3}}},
    {"$schema": DRAFT_2019, "type": "object", "$defs": {"x": {"type": "strin"}}},
    {"$schema": DRAFT_3, "type": "object", "properties": {"n": {"required": "yes"}}},  # a dialect only jsonschema has
    {"$schema": "https://example.com/my-dialect", "type": "object", "properties": {"n": {"maxItems": 1.5}}},
]

GOOD: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}},
    {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]+(?P<tail>\\d*)$"}}},
    {"type": "object", "properties": {"e": {"type": "string", "format": "email", "default": "not an email"}}},
    {"$schema": DRAFT_7, "type": "object", "definitions": {"x": {"type": "integer"}}, "additionalItems": False},
    {"$schema": DRAFT_4, "type": "object", "properties": {"n": {"minimum": 0, "exclusiveMinimum": True}}},
    {"$schema": DRAFT_3, "type": "object", "properties": {"n": {"type": "string", "required": True}}},
    {"type": "object", "$id": "not a uri, which only jsonschema_rs checks"},
    {"type": "object", "properties": {1: {"type": "string"}}},  # a key JSON cannot hold, from Python code
]


def jsonschema_error(schema: dict[str, Any]) -> SchemaError:
    with pytest.raises(SchemaError) as caught:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    return caught.value


@pytest.mark.parametrize("schema", BAD)
def test_an_invalid_schema_gets_jsonschemas_own_error_with_the_tool_and_path(schema: dict[str, Any]) -> None:
    expected = jsonschema_error(schema)
    with pytest.raises(CatalogError) as caught:
        Catalog.from_definitions([{"name": "bad", "parameters": schema}], source="catalog.json")
    where = "/".join(str(part) for part in expected.path) or "(root)"
    assert str(caught.value).startswith(f"tool 'bad': invalid JSON Schema at {where}: {expected.message}")
    assert caught.value.tool_name == "bad"
    assert caught.value.position == "catalog.json: tools[0]"


@pytest.mark.parametrize("schema", GOOD)
def test_a_schema_jsonschema_accepts_loads(schema: dict[str, Any]) -> None:
    validator_for(schema, default=Draft202012Validator).check_schema(schema)
    (tool,) = Catalog.from_definitions([{"name": "good", "parameters": schema}])
    assert tool.parameters == schema


def test_the_fast_check_accepts_every_schema_of_the_sample_catalog() -> None:
    catalog = Catalog.from_file(str(resources.files("toolscout") / "data" / "sample_catalog.json"))
    schemas = [tool.parameters for tool in catalog]
    assert len(schemas) > 100
    assert all(_valid_for_rust(Draft202012Validator, schema) for schema in schemas)


# Schema keywords with values of every kind, valid and not, so both outcomes are common.
KEYWORDS = st.sampled_from(
    ["type", "properties", "required", "items", "enum", "minLength", "maximum", "exclusiveMinimum", "pattern",
     "patternProperties", "additionalProperties", "anyOf", "format", "$ref", "$defs", "const", "minItems", "default",
     "description", "uniqueItems", "oneOf", "not", "prefixItems", "dependentRequired"]
)  # fmt: skip
NAMES = st.sampled_from(["a", "b"])
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-3, max_value=3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["string", "integer", "object", "array", "strin", "(", "^a+$", "#/$defs/x", "email", "date"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYWORDS | NAMES, children, max_size=4),
    max_leaves=12,
)
DIALECTS = st.sampled_from([None, DRAFT_4, DRAFT_7, DRAFT_2019])
PROPERTY = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean", "array", "object", ["string", "null"]])},
    optional={
        "description": st.text(max_size=10),
        "minLength": st.integers(min_value=-1, max_value=5),
        "pattern": st.sampled_from(["^[a-z]+$", "\\d{3}", "(", "[a-"]),
        "format": st.sampled_from(["email", "date", "uri", "uuid", "no-such-format"]),
        "enum": st.lists(st.integers() | st.text(max_size=3), max_size=3),
        "items": st.fixed_dictionaries({"type": st.sampled_from(["string", "integer"])}),
        "default": VALUES,
    },
)
TOOL_SCHEMAS = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(NAMES, PROPERTY, max_size=3)},
    optional={"required": st.lists(NAMES, max_size=2), "additionalProperties": st.booleans()},
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(TOOL_SCHEMAS | st.dictionaries(KEYWORDS, VALUES, max_size=5), DIALECTS)
def test_the_fast_check_decides_as_jsonschema_does(schema: dict[str, Any], dialect: str | None) -> None:
    schema = {**schema, "$schema": dialect} if dialect else schema
    try:
        validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as expected:
        with pytest.raises(SchemaError) as caught:
            check_schema(schema)
        assert (caught.value.message, caught.value.path) == (expected.message, expected.path)
    else:
        check_schema(schema)
