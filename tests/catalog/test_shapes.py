"""Every supported tool shape, read from a real-looking fixture, and the errors malformed input gets."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from toolscout import Catalog, CatalogError, ToolSpec
from toolscout.catalog._internal import iter_tool_specs, normalize_parameters

WEATHER_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"},
    },
    "required": ["city"],
    "additionalProperties": False,
}

OPENAI_CHAT = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": WEATHER_SCHEMA,
        "strict": True,
    },
}

OPENAI_RESPONSES = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a city.",
    "parameters": WEATHER_SCHEMA,
    "strict": True,
}

ANTHROPIC = {
    "name": "get_stock_price",
    "description": "Retrieve the latest stock price for a ticker symbol.",
    "input_schema": {
        "type": "object",
        "properties": {"ticker": {"type": "string", "description": "Ticker symbol, e.g. AAPL"}},
        "required": ["ticker"],
    },
    "cache_control": {"type": "ephemeral"},
}

ANTHROPIC_CUSTOM_DEFERRED = {
    "type": "custom",
    "name": "search_contacts",
    "description": "Search the CRM for contacts by name or email.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    "defer_loading": True,
}

MCP_TOOL = {
    "name": "git_log",
    "title": "Git log",
    "description": "Show the commit history of a repository.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "repo_path": {"type": "string", "description": "Path to the Git repository"},
            "max_count": {"type": "integer", "default": 10, "minimum": 1},
        },
        "required": ["repo_path"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"commits": {"type": "array", "items": {"type": "string"}}},
        "required": ["commits"],
    },
    "annotations": {
        "title": "Read the Git log",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "_meta": {"io.example/version": "1.2.0"},
}

MCP_TOOLS_LIST = {
    "tools": [
        MCP_TOOL,
        {
            "name": "get_current_time",
            "description": "Get the current time in a specific timezone.",
            "inputSchema": {
                "type": "object",
                "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
                "required": ["timezone"],
            },
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "list_allowed_directories",
            "description": "List directories the server may access.",
            "inputSchema": {},
        },
    ],
    "nextCursor": None,
    "ttlMs": 60000,
}

GEMINI_SNAKE = {
    "function_declarations": [
        {
            "name": "find_movies",
            "description": "Find movies playing in theaters that match a description.",
            "parameters": {
                "type": "OBJECT",
                "properties": {
                    "location": {"type": "STRING", "description": "City and state, e.g. San Francisco, CA"},
                    "description": {"type": "STRING", "description": "Genre, title words or actors"},
                    "type": {"type": "STRING", "enum": ["FEATURE", "SHORT"], "default": "FEATURE"},
                    "max_results": {"type": "INTEGER", "nullable": True},
                    "formats": {"type": "ARRAY", "items": {"type": "STRING"}},
                },
                "required": ["description"],
            },
        },
    ]
}

GEMINI_CAMEL = {
    "functionDeclarations": [
        {
            "name": "set_light_color",
            "description": "Set the color of a smart light.",
            "parameters": {
                "type": "OBJECT",
                "properties": {"rgb_hex": {"type": "STRING"}, "brightness": {"type": "NUMBER"}},
                "required": ["rgb_hex"],
            },
        },
        {
            "name": "dim_lights",
            "description": "Dim all lights.",
            "parametersJsonSchema": {"type": "object", "properties": {"level": {"type": "number"}}},
        },
        {
            "name": "lights_off",
            "description": "Turn every light off.",
            "parameters_json_schema": {"type": "object", "properties": {"room": {"type": "string"}}},
        },
    ]
}

PLAIN = {
    "name": "fs_read_file",
    "description": "Read a UTF-8 text file.",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}


def only(value: object) -> ToolSpec:
    (spec,) = Catalog.from_definitions(value).tools
    return spec


def test_openai_chat_shape() -> None:
    spec = only(OPENAI_CHAT)
    assert spec.name == "get_weather"
    assert spec.description == "Get the current weather for a city."
    assert spec.parameters == WEATHER_SCHEMA
    assert spec.defer == "auto"


def test_openai_responses_shape_reads_like_chat() -> None:
    assert only(OPENAI_RESPONSES) == only(OPENAI_CHAT)


def test_anthropic_shape() -> None:
    spec = only(ANTHROPIC)
    assert spec.name == "get_stock_price"
    assert spec.parameters["required"] == ["ticker"]


def test_anthropic_custom_type_with_defer_loading_is_always_deferred() -> None:
    spec = only(ANTHROPIC_CUSTOM_DEFERRED)
    assert spec.name == "search_contacts"
    assert spec.defer == "always"


def test_defer_loading_false_means_never_deferred() -> None:
    assert only({**PLAIN, "defer_loading": False}).defer == "never"


def test_an_explicit_defer_policy_is_read() -> None:
    assert only({**PLAIN, "defer": "never"}).defer == "never"


def test_mcp_tool_keeps_title_annotations_and_output_schema() -> None:
    spec = only(MCP_TOOL)
    assert spec.name == "git_log"
    assert spec.title == "Git log"
    assert spec.annotations == MCP_TOOL["annotations"]
    assert spec.output_schema == MCP_TOOL["outputSchema"]
    assert spec.parameters["required"] == ["repo_path"]


def test_a_whole_mcp_tools_list_result() -> None:
    catalog = Catalog.from_definitions(MCP_TOOLS_LIST, namespace="git")
    assert [tool.name for tool in catalog] == ["git_log", "get_current_time", "list_allowed_directories"]
    assert {tool.namespace for tool in catalog} == {"git"}
    assert catalog["list_allowed_directories"].parameters == {"type": "object", "properties": {}}


def test_gemini_function_declarations_with_uppercase_openapi_types() -> None:
    spec = only(GEMINI_SNAKE)
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict)
    assert spec.parameters["type"] == "object"
    assert properties["location"] == {"type": "string", "description": "City and state, e.g. San Francisco, CA"}
    assert properties["description"]["type"] == "string"
    assert properties["type"] == {"type": "string", "enum": ["FEATURE", "SHORT"], "default": "FEATURE"}
    assert properties["max_results"] == {"type": ["integer", "null"]}
    assert properties["formats"] == {"type": "array", "items": {"type": "string"}}
    assert spec.parameters["required"] == ["description"]


def test_gemini_camel_case_declarations_and_both_json_schema_spellings() -> None:
    catalog = Catalog.from_definitions(GEMINI_CAMEL)
    assert [tool.name for tool in catalog] == ["set_light_color", "dim_lights", "lights_off"]
    assert catalog["set_light_color"].parameters["properties"] == {
        "rgb_hex": {"type": "string"},
        "brightness": {"type": "number"},
    }
    assert catalog["dim_lights"].parameters["properties"] == {"level": {"type": "number"}}
    assert catalog["lights_off"].parameters["properties"] == {"room": {"type": "string"}}


def test_gemini_keeps_a_property_named_nullable() -> None:
    declaration = {
        "name": "toggle",
        "parameters": {"type": "OBJECT", "properties": {"nullable": True, "on": {"type": "BOOLEAN"}}},
    }
    spec = only({"functionDeclarations": [declaration]})
    assert spec.parameters["properties"] == {"nullable": True, "on": {"type": "boolean"}}


def test_gemini_conversion_does_not_rewrite_default_or_enum_values() -> None:
    declaration = {
        "name": "tag",
        "parameters": {
            "type": "OBJECT",
            "properties": {"meta": {"type": "OBJECT", "default": {"type": "UPPER"}, "enum": [{"type": "UPPER"}]}},
        },
    }
    meta = only({"function_declarations": [declaration]}).parameters["properties"]["meta"]
    assert meta == {"type": "object", "default": {"type": "UPPER"}, "enum": [{"type": "UPPER"}]}


def test_plain_shape() -> None:
    spec = only(PLAIN)
    assert spec.name == "fs_read_file"
    assert spec.parameters == PLAIN["parameters"]


def test_a_missing_schema_means_no_arguments() -> None:
    spec = only({"name": "ping", "description": "Health check."})
    assert spec.parameters == {"type": "object", "properties": {}}


def test_a_schema_without_type_is_read_as_an_object_schema() -> None:
    spec = only({"name": "echo", "parameters": {"properties": {"text": {"type": "string"}}}})
    assert spec.parameters == {"type": "object", "properties": {"text": {"type": "string"}}}


def test_a_nullable_object_schema_is_accepted() -> None:
    assert only({"name": "opt", "parameters": {"type": ["object", "null"]}}).parameters["type"] == ["object", "null"]


def test_a_mixed_list_of_every_shape() -> None:
    mixed = [
        OPENAI_CHAT,
        ANTHROPIC,
        MCP_TOOL,
        GEMINI_SNAKE,
        {**PLAIN, "namespace": "fs"},
        {**OPENAI_RESPONSES, "name": "get_forecast"},
        GEMINI_CAMEL,
    ]
    catalog = Catalog.from_definitions(mixed, namespace="default")
    assert [tool.name for tool in catalog] == [
        "get_weather",
        "get_stock_price",
        "git_log",
        "find_movies",
        "fs_read_file",
        "get_forecast",
        "set_light_color",
        "dim_lights",
        "lights_off",
    ]
    assert catalog["fs_read_file"].namespace == "fs"
    assert catalog["git_log"].namespace == "default"


def test_an_object_with_a_tools_key_such_as_a_request_body() -> None:
    body = {"model": "gpt-4o", "tools": [OPENAI_CHAT, {**OPENAI_CHAT, "function": {**PLAIN}}], "tool_choice": "auto"}
    assert [tool.name for tool in Catalog.from_definitions(body)] == ["get_weather", "fs_read_file"]


def test_reading_does_not_mutate_the_input() -> None:
    value = copy.deepcopy([GEMINI_SNAKE, OPENAI_CHAT, MCP_TOOLS_LIST])
    Catalog.from_definitions(value)
    assert value == [GEMINI_SNAKE, OPENAI_CHAT, MCP_TOOLS_LIST]


def test_a_catalog_file_in_any_shape(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [ANTHROPIC, MCP_TOOL, PLAIN]}), encoding="utf-8")
    catalog = Catalog.from_file(path, namespace="demo")
    assert [tool.name for tool in catalog] == ["get_stock_price", "git_log", "fs_read_file"]
    assert {tool.namespace for tool in catalog} == {"demo"}


def test_iter_tool_specs_reads_lazily_in_order() -> None:
    names = [spec.name for spec in iter_tool_specs([PLAIN, ANTHROPIC])]
    assert names == ["fs_read_file", "get_stock_price"]


# --- malformed input -------------------------------------------------------------------------


def catalog_error(value: object, source: str = "catalog.json") -> CatalogError:
    with pytest.raises(CatalogError) as info:
        Catalog.from_definitions(value, source=source)
    return info.value


def test_a_missing_name_names_the_position() -> None:
    error = catalog_error([PLAIN, {"description": "no name here", "parameters": {}}])
    assert error.tool_name is None
    assert error.position == "catalog.json: tools[1]"
    assert "no 'name'" in str(error)
    assert "catalog.json: tools[1]" in str(error)


def test_a_missing_name_inside_an_openai_chat_function_names_the_position() -> None:
    error = catalog_error({"tools": [OPENAI_CHAT, {"type": "function", "function": {"description": "x"}}]})
    assert error.position == "catalog.json: tools[1]"


def test_a_missing_name_in_a_gemini_declaration_names_the_position() -> None:
    error = catalog_error([{"function_declarations": [{"description": "x"}]}])
    assert error.position == "catalog.json: tools[0].function_declarations[0]"


def test_duplicate_names_name_the_tool_and_the_second_position() -> None:
    error = catalog_error([PLAIN, ANTHROPIC, {**PLAIN, "description": "another reader"}])
    assert error.tool_name == "fs_read_file"
    assert error.position == "catalog.json: tools[2]"
    assert "first defined as tools[0]" in str(error)


@pytest.mark.parametrize(
    ("schema", "kind"), [([], "a list"), ("object", "a string"), (3, "a number"), (True, "a boolean")]
)
def test_a_non_object_schema_names_the_tool_and_position(schema: object, kind: str) -> None:
    error = catalog_error([PLAIN, {"name": "broken", "inputSchema": schema}])
    assert error.tool_name == "broken"
    assert error.position == "catalog.json: tools[1]"
    assert f"must be a JSON object, got {kind}" in str(error)


def test_a_schema_of_type_string_names_the_tool() -> None:
    error = catalog_error([{"name": "say", "parameters": {"type": "string"}}])
    assert error.tool_name == "say"
    assert "must have type 'object', got 'string'" in str(error)


def test_an_invalid_json_schema_names_the_tool_and_the_schema_path() -> None:
    error = catalog_error([{"name": "bad", "parameters": {"type": "object", "properties": {"n": {"type": "numbr"}}}}])
    assert error.tool_name == "bad"
    assert "properties/n/type" in str(error)


@pytest.mark.parametrize("dialect", [[], 5, {"uri": "x"}])
def test_a_non_string_dollar_schema_is_a_catalog_error(dialect: object) -> None:
    error = catalog_error([{"name": "odd", "parameters": {"$schema": dialect, "type": "object"}}])
    assert error.tool_name == "odd"
    assert "'$schema' must be a string" in str(error)


def test_an_unknown_dollar_schema_uri_is_validated_as_the_latest_draft() -> None:
    spec = only({"name": "odd", "parameters": {"$schema": "https://example.com/my-dialect", "type": "object"}})
    assert spec.parameters["$schema"] == "https://example.com/my-dialect"


@pytest.mark.parametrize(
    ("tool", "name"),
    [
        ({"type": "web_search_20250305", "name": "web_search", "max_uses": 5}, "web_search"),
        ({"type": "bash_20250124", "name": "bash"}, "bash"),
        ({"type": "computer_20250124", "name": "computer", "display_width_px": 1024}, "computer"),
        ({"type": "web_search"}, None),
        ({"type": "file_search", "vector_store_ids": ["vs_1"]}, None),
        ({"type": "code_interpreter", "container": {"type": "auto"}}, None),
    ],
)
def test_provider_hosted_tool_types_are_refused_by_name_and_position(tool: dict[str, object], name: str | None) -> None:
    error = catalog_error([PLAIN, tool])
    assert error.tool_name == name
    assert error.position == "catalog.json: tools[1]"
    assert "provider-hosted tool" in str(error)


@pytest.mark.parametrize(
    "name",
    [
        "",
        "has space",
        "tab\there",
        "trailing\n",
        "nul\x00",
        "x" * 257,
        42,
        ["list"],
        {"obj": 1},
        "evil\u202etxt.exe",  # right-to-left override: shows as "evilexe.txt"
        "iso\u2066late",  # bidi isolate
        "zero\u200bwidth",  # zero-width space: looks like "zerowidth"
        "join\u200dme",
        "bom\ufeff",
        "c1\x85control",
    ],
)
def test_an_invalid_tool_name_is_a_catalog_error(name: object) -> None:
    error = catalog_error([{"name": name}])
    assert "is invalid" in str(error)
    assert error.position == "catalog.json: tools[0]"


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        ({"name": "t", "description": 5}, "'description' must be a string"),
        ({"name": "t", "title": ["x"]}, "'title' must be a string"),
        ({"name": "t", "namespace": 1}, "'namespace' must be a string"),
        ({"name": "t", "annotations": "readOnly"}, "'annotations' must be an object"),
        ({"name": "t", "outputSchema": []}, "'outputSchema' must be an object"),
        ({"name": "t", "defer": "sometimes"}, "'defer' must be 'never', 'auto' or 'always'"),
    ],
)
def test_a_mistyped_field_names_the_tool(tool: dict[str, object], message: str) -> None:
    error = catalog_error([tool])
    assert error.tool_name == "t"
    assert message in str(error)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (42, "expected a tool definition object or a list of them, got a number"),
        (None, "got null"),
        ("tools.json", "got a string"),
        ([["nested"], 1], "got a string"),
        ({"tools": {"a": PLAIN}}, "'tools' must be a list"),
        ({"function_declarations": PLAIN}, "'function_declarations' must be a list"),
        ({"functionDeclarations": ["x"]}, "a function declaration must be an object"),
        ({"type": "function", "function": "get_weather"}, "'function' must be an object"),
    ],
)
def test_a_malformed_container_is_a_catalog_error(value: object, message: str) -> None:
    assert message in str(catalog_error(value))


def test_invalid_json_in_a_file_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"name": "a",\n   "description": "x",,\n  }\n]\n', encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        Catalog.from_file(path)
    assert info.value.position == f"{path}: line 3, column 23"
    assert "invalid JSON" in str(info.value)


def test_a_malformed_tool_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [PLAIN, {"name": "x", "parameters": []}]}), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        Catalog.from_file(path)
    assert info.value.tool_name == "x"
    assert info.value.position == "tools.json: tools[1]"


def test_a_missing_file_is_a_catalog_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(CatalogError) as info:
        Catalog.from_file(tmp_path / "nope.json")
    assert info.value.position == str(tmp_path / "nope.json")


def test_a_file_that_is_not_utf8_is_a_catalog_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('[{"name": "caf\xe9"}]'.encode("latin-1"))
    with pytest.raises(CatalogError, match="not UTF-8"):
        Catalog.from_file(path)


def test_normalize_parameters_names_the_tool_it_was_given() -> None:
    with pytest.raises(CatalogError) as info:
        normalize_parameters({"type": "array"}, tool_name="lister", position="here")
    assert (info.value.tool_name, info.value.position) == ("lister", "here")
