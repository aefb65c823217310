"""docs/SEEDS.md: every row of the seed tables names a test, and every test it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "SEEDS.md"
TESTS = ROOT / "tests"
REFERENCE = re.compile(r"(?:(tests/[\w/]+\.py)::)?(?<![\w/])(test_\w+)(?!\.py)")
DEFINED = re.compile(r"^(?:async )?def (test_\w+)", re.MULTILINE)


def defined_tests() -> dict[str, set[str]]:
    return {
        path.relative_to(ROOT).as_posix(): set(DEFINED.findall(path.read_text(encoding="utf-8")))
        for path in TESTS.rglob("test_*.py")
    }


def table_rows(section_title_prefixes: tuple[str, ...]) -> list[str]:
    rows: list[str] = []
    section = ""
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif section.startswith(section_title_prefixes) and line.startswith("| ") and not line.startswith("| ---"):
            rows.append(line)
    return [row for row in rows if not row.startswith(("| behaviour or key", "| system", "| seed behaviour"))]


def test_every_behaviour_row_names_a_test() -> None:
    rows = table_rows(("Hermes", "everruns", "AstrBot", "mcpagent"))
    assert len(rows) >= 40
    for row in rows:
        assert REFERENCE.search(row.rsplit("|", 2)[-2]), f"no test named in: {row}"


def test_every_test_the_page_names_exists_in_the_file_it_names() -> None:
    tests = defined_tests()
    everywhere = set().union(*tests.values())
    for path, name in REFERENCE.findall(DOC.read_text(encoding="utf-8")):
        if path:
            assert path in tests, f"{path} does not exist"
            assert name in tests[path], f"{path} has no {name}"
        else:
            assert name in everywhere, f"no test is called {name}"
