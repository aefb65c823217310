from __future__ import annotations

from typing import Literal, Optional

import pytest

from toolscout import Catalog, CatalogError, tool_from_callable


def search_issues(
    repo: str,
    query: str,
    state: Literal["open", "closed", "all"] = "open",
    limit: int = 20,
    labels: list[str] | None = None,
    assignee: Optional[str] = None,  # noqa: UP045 - the old spelling must work too
    *extra: str,
    **options: str,
) -> list[dict[str, object]]:
    """Search issues in a GitHub repository.

    Matches words in titles and bodies.

    Args:
        repo: Repository as owner/name.
        query: Words to look for.
        state: Which issues to include.
        limit: Most results to return.
        labels: Only issues carrying all of these labels.
        extra: Ignored.
    """
    return []


def test_name_and_description_come_from_the_function() -> None:
    spec = tool_from_callable(search_issues)
    assert spec.name == "search_issues"
    assert spec.description == "Search issues in a GitHub repository.\n\nMatches words in titles and bodies."


def test_parameter_types_come_from_the_type_hints() -> None:
    properties = tool_from_callable(search_issues).parameters["properties"]
    assert isinstance(properties, dict)
    assert properties["repo"]["type"] == "string"
    assert properties["limit"]["type"] == "integer"
    assert properties["labels"]["anyOf"] == [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]


def test_google_docstring_args_become_parameter_descriptions() -> None:
    properties = tool_from_callable(search_issues).parameters["properties"]
    assert isinstance(properties, dict)
    assert properties["repo"]["description"] == "Repository as owner/name."
    assert properties["labels"]["description"] == "Only issues carrying all of these labels."
    assert "description" not in properties["assignee"]


def test_parameters_with_defaults_are_not_required() -> None:
    spec = tool_from_callable(search_issues)
    assert spec.parameters["required"] == ["repo", "query"]
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict)
    assert properties["limit"]["default"] == 20


def test_optional_allows_null() -> None:
    properties = tool_from_callable(search_issues).parameters["properties"]
    assert isinstance(properties, dict)
    assert properties["assignee"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert properties["assignee"]["default"] is None


def test_literal_becomes_an_enum() -> None:
    properties = tool_from_callable(search_issues).parameters["properties"]
    assert isinstance(properties, dict)
    assert properties["state"]["enum"] == ["open", "closed", "all"]
    assert properties["state"]["type"] == "string"


def test_star_args_and_star_star_kwargs_are_not_exposed() -> None:
    properties = tool_from_callable(search_issues).parameters["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == ["repo", "query", "state", "limit", "labels", "assignee"]


def test_no_pydantic_titles_leak_into_the_schema() -> None:
    spec = tool_from_callable(search_issues)
    assert "title" not in spec.parameters
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict)
    assert all("title" not in prop for prop in properties.values())


def test_extra_arguments_are_forbidden() -> None:
    assert tool_from_callable(search_issues).parameters["additionalProperties"] is False


def test_a_function_without_parameters_or_docstring() -> None:
    def ping() -> str:
        return "pong"

    spec = tool_from_callable(ping)
    assert spec.description == ""
    assert spec.parameters["properties"] == {}


def test_async_functions_work_the_same() -> None:
    async def fetch_url(url: str, timeout: float = 10.0) -> str:
        """Fetch a URL.

        Args:
            url: Absolute http(s) URL.
        """
        return ""

    spec = tool_from_callable(fetch_url)
    assert spec.parameters["required"] == ["url"]
    assert spec.parameters["properties"]["timeout"]["type"] == "number"


def test_name_description_namespace_and_defer_can_be_given() -> None:
    spec = tool_from_callable(
        search_issues, name="gh_search", description="Find issues.", namespace="github", defer="never"
    )
    assert (spec.name, spec.description, spec.namespace, spec.defer) == ("gh_search", "Find issues.", "github", "never")


def test_parameter_names_pydantic_reserves_are_kept() -> None:
    def configure(schema: str, model_config: str = "", json: bool = False, _private: int = 0) -> None:
        """Configure.

        Args:
            model_config: The configuration name.
        """

    spec = tool_from_callable(configure)
    properties = spec.parameters["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == ["schema", "model_config", "json", "_private"]
    assert properties["model_config"]["description"] == "The configuration name."
    assert spec.parameters["required"] == ["schema"]


def test_a_lambda_needs_a_name() -> None:
    with pytest.raises(CatalogError, match="pass name="):
        tool_from_callable(lambda city: city)
    assert tool_from_callable(lambda city: city, name="echo_city").parameters["required"] == ["city"]


def test_unresolvable_type_hints_are_a_catalog_error_naming_the_tool() -> None:
    def broken(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    with pytest.raises(CatalogError, match="cannot resolve type hints") as info:
        tool_from_callable(broken)
    assert info.value.tool_name == "broken"


class Opaque:
    """A class pydantic cannot describe."""


def test_a_type_without_a_json_schema_is_a_catalog_error_naming_the_tool() -> None:
    def use(thing: Opaque) -> None:
        pass

    with pytest.raises(CatalogError, match="cannot build a JSON schema") as info:
        tool_from_callable(use)
    assert info.value.tool_name == "use"


def test_callable_tools_join_a_catalog() -> None:
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    catalog = Catalog([tool_from_callable(add), tool_from_callable(search_issues)])
    assert [tool.name for tool in catalog] == ["add", "search_issues"]
