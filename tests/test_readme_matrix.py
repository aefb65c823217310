"""The README's "what works where" tables: every row names tests, and every test it names exists.

A row is a claim (a client or framework, a style, a transport: works, or is refused with a message);
the tests it names are the proof and run with the rest of the suite. A renamed or deleted test, or a
parameter id that no longer exists, would leave the claim unproven: this fails instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import parse_python

ROOT = Path(__file__).parent.parent
TESTS = Path(__file__).parent
FOLDERS = (TESTS / "integrations", TESTS / "gateway")
_REFERENCE = re.compile(r"`((?:test_\w+\.py)?::test_\w+(?:\[[^\]`]*\])?)`")


def matrix_rows() -> list[str]:
    """The table rows of the README section that names tests in its cells."""
    section = (ROOT / "README.md").read_text().split("## Use with your framework", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "test_" in line]


def references(row: str) -> list[tuple[str, str, list[str]]]:
    """(file, test, parameter ids) for each test a row names; ``::name`` continues the previous file."""
    found: list[tuple[str, str, list[str]]] = []
    current = ""
    for reference in _REFERENCE.findall(row.replace("\\|", "|")):
        path, _, rest = reference.partition("::")
        current = path or current
        name, _, ids = rest.partition("[")
        found.append((current, name, [part for part in ids.rstrip("]").split("|") if part]))
    return found


def test_the_readme_names_tests_for_every_row_of_its_framework_and_client_tables() -> None:
    rows = matrix_rows()
    assert len(rows) >= 15
    for row in rows:
        assert references(row), f"a row names no test: {row}"
        assert "not supported" not in row, f"every cell works or is refused with a message: {row}"


@pytest.mark.parametrize("row", matrix_rows(), ids=lambda row: row.split("|")[1].strip()[:60])
def test_every_test_a_readme_row_names_exists_with_its_parameter_ids(row: str) -> None:
    for file, name, ids in references(row):
        homes = [folder / file for folder in FOLDERS if (folder / file).exists()]
        assert len(homes) == 1, f"{file} is not one file in tests/integrations or tests/gateway"
        source = homes[0].read_text()
        functions = {
            node.name: node
            for node in ast.walk(parse_python(source))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert name in functions, f"{file} has no {name}"
        cases = parameter_ids(functions[name])
        assert not ids or cases, f"{name} is not parametrized"
        for parameter_id in ids:
            assert parameter_id in cases, f"{name} has no case {parameter_id} (it has {sorted(cases)})"


def parameter_ids(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The ids pytest gives the cases of `function`'s literal ``parametrize`` decorators (nearest first)."""
    combined = [""]
    for decorator in reversed(function.decorator_list):
        if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("parametrize")):
            continue
        given = next((ast.literal_eval(keyword.value) for keyword in decorator.keywords if keyword.arg == "ids"), None)
        values = ast.literal_eval(decorator.args[1])
        ids = given or ["-".join(map(str, value)) if isinstance(value, tuple) else str(value) for value in values]
        combined = [f"{before}-{own}" if before else own for before in combined for own in ids]
    return set(combined) - {""}
