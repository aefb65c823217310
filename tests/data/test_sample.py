from __future__ import annotations

import json
from collections import Counter
from typing import Any

from toolscout import Catalog
from toolscout.data import sample_catalog_path, sample_queries_path


def _queries() -> list[dict[str, Any]]:
    lines = sample_queries_path().read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_sample_catalog_loads_with_many_tools_across_many_namespaces() -> None:
    catalog = Catalog.from_file(sample_catalog_path())

    namespaces = {tool.namespace for tool in catalog if tool.namespace is not None}
    assert len(catalog) >= 120
    assert len(namespaces) >= 10


def test_sample_catalog_file_defines_each_name_once() -> None:
    catalog = Catalog.from_file(sample_catalog_path())

    counts = Counter(tool.name for tool in catalog)
    assert [name for name, count in counts.items() if count > 1] == []


def test_sample_catalog_has_core_tools_without_a_namespace() -> None:
    catalog = Catalog.from_file(sample_catalog_path())

    assert {tool.name for tool in catalog if tool.namespace is None} == {"read_file", "run_terminal_command"}


def test_every_gold_tool_in_the_sample_queries_exists_in_the_sample_catalog() -> None:
    catalog = Catalog.from_file(sample_catalog_path())

    missing = [(query["id"], name) for query in _queries() for name in query["gold"] if name not in catalog]
    assert missing == []


def test_sample_query_ids_are_unique() -> None:
    counts = Counter(query["id"] for query in _queries())

    assert [query_id for query_id, count in counts.items() if count > 1] == []


def test_sample_queries_include_unanswerable_requests_and_non_english_ones() -> None:
    queries = _queries()

    assert sum(1 for query in queries if query["gold"] == []) >= 3
    assert any(not str(query["query"]).isascii() for query in queries)
