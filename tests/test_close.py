"""One "did you mean" for every caller: tool names in calls, searches that matched nothing, settings keys."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toolscout
from tests.conftest import parse_python
from toolscout import ConfigError, ScoutSettings
from toolscout._close import close_names, did_you_mean

SRC = Path(toolscout.__file__).parent
FUZZY = ("difflib", "rapidfuzz.fuzz", "get_close_matches", "extract", "extractOne", "WRatio")


def _fuzzy_matchers(path: Path) -> list[str]:
    """The string matchers a module imports (a second suggester would need one)."""
    found = []
    for node in ast.walk(parse_python(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name in FUZZY]
        elif isinstance(node, ast.ImportFrom) and node.module in ("difflib", "rapidfuzz", "rapidfuzz.process"):
            found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name in ("fuzz", *FUZZY)]
    return found


def test_close_names_is_the_only_module_that_matches_names_fuzzily() -> None:
    found = {str(path.relative_to(SRC)): _fuzzy_matchers(path) for path in sorted(SRC.rglob("*.py"))}
    assert {path: names for path, names in found.items() if names} == {"_close.py": ["rapidfuzz.fuzz"]}


def test_a_tool_written_without_its_namespace_gets_the_namespaced_ones_first() -> None:
    names = ["github__create_issue", "gitlab__create_issue", "github__close_issue", "create_issues"]

    assert close_names("create_issue", names) == ("github__create_issue", "gitlab__create_issue", "create_issues")


def test_a_name_is_no_suggestion_for_itself_but_a_request_may_name_a_tool() -> None:
    assert "search" not in close_names("search", ["search", "research"])
    assert close_names("search", {"search": "search", "research": "research"}, endings_first=False)[0] == "search"


def test_a_misspelt_setting_gets_the_close_key() -> None:
    assert did_you_mean("serch_mode", ScoutSettings.model_fields) == "search_mode"
    with pytest.raises(ConfigError, match="did you mean 'search_mode'"):
        ScoutSettings(serch_mode="lexical")  # type: ignore[call-arg]


def test_a_misspelt_key_is_a_typo_of_a_whole_key_in_any_case() -> None:
    keys = sorted(ScoutSettings.model_fields) + ["store", "store_timeout_s"]
    assert did_you_mean("stor", keys) == "store"
    assert did_you_mean("SEARCH_MODE", keys) == "search_mode"
    assert did_you_mean("search-mode", keys) == "search_mode"
    assert did_you_mean("s", keys) is None  # a key that merely ends with the letter is no typo of it
