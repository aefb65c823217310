from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolscout.cli import main

JsonlWriter = Callable[[list[dict[str, object]]], Path]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["search", *args])
    return result.exit_code, result.stdout, result.stderr


def test_search_json_has_the_query_and_ranked_hits_with_name_score_namespace(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "weather forecast for Paris", "--mode", "lexical", "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer["query"] == "weather forecast for Paris"
    assert answer["hits"][0]["name"] == "get_weather"
    for hit in answer["hits"]:
        assert set(hit) == {"name", "score", "namespace"}
        assert isinstance(hit["score"], float)


def test_search_json_reports_the_namespace_of_a_hit(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "open a github issue", "--mode", "lexical", "--json")
    assert code == 0
    first = json.loads(out)["hits"][0]
    assert (first["name"], first["namespace"]) == ("create_issue", "github")


def test_search_limit_caps_the_number_of_hits(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "send convert translate weather", "-n", "2", "--mode", "lexical", "--json")
    assert code == 0
    assert len(json.loads(out)["hits"]) <= 2


def test_search_prints_a_readable_table_without_json(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "send an email", "--mode", "lexical")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["#", "name", "score", "namespace"]
    assert lines[1].split()[:2] == ["1", "send_email"]


def test_search_without_a_match_prints_zero_hits_and_exits_zero(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "zzzqx vvvbn", "--mode", "lexical", "--json")
    assert code == 0
    assert json.loads(out)["hits"] == []
    code, out, _ = _run(str(catalog_file), "zzzqx vvvbn", "--mode", "lexical")
    assert code == 0
    assert out.startswith("No tool matches 'zzzqx vvvbn'")


def test_search_regex_mode_matches_names(catalog_file: Path) -> None:
    code, out, _ = _run(str(catalog_file), "^send_", "--mode", "regex", "--json")
    assert code == 0
    assert [hit["name"] for hit in json.loads(out)["hits"]] == ["send_email"]


def test_search_queries_file_prints_one_json_line_per_input_line(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = write_jsonl(
        [
            {"id": "w", "query": "weather in Rome"},
            {"id": 2, "query": "zzzqx vvvbn"},
            {"id": "m", "query": "email my boss"},
        ]
    )
    code, out, _ = _run(str(catalog_file), "--queries", str(queries), "--mode", "lexical")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["w", 2, "m"]
    assert lines[0]["hits"][0]["name"] == "get_weather"
    assert lines[1]["hits"] == []
    assert lines[2]["hits"][0]["name"] == "send_email"


def test_search_needs_exactly_one_of_query_and_queries_file(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = write_jsonl([{"id": 1, "query": "weather"}])
    assert _run(str(catalog_file))[0] == 2
    assert _run(str(catalog_file), "weather", "--queries", str(queries))[0] == 2


def test_search_missing_catalog_is_a_one_line_error(tmp_path: Path) -> None:
    code, out, err = _run(str(tmp_path / "absent.json"), "weather")
    assert code == 1
    assert out == ""
    assert err.startswith("Error: cannot read catalog file")
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_search_malformed_catalog_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [', encoding="utf-8")
    code, _, err = _run(str(bad), "weather")
    assert code == 1
    assert "invalid JSON" in err
    assert len(err.strip().splitlines()) == 1


def test_search_invalid_regex_is_a_one_line_error(catalog_file: Path) -> None:
    code, out, err = _run(str(catalog_file), "(unclosed", "--mode", "regex", "--json")
    assert code == 1
    assert out == ""
    assert err.startswith("Error: ")
    assert len(err.strip().splitlines()) == 1


def test_search_invalid_regex_in_a_queries_file_names_the_query(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = write_jsonl([{"id": "ok", "query": "^get_"}, {"id": "broken", "query": "(unclosed"}])
    code, _, err = _run(str(catalog_file), "--queries", str(queries), "--mode", "regex")
    assert code == 1
    assert err.startswith("Error: query 'broken': ")


def test_search_malformed_queries_file_names_the_line(catalog_file: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": 1, "query": "weather"}\n{"id": 2}\n', encoding="utf-8")
    code, _, err = _run(str(catalog_file), "--queries", str(queries), "--mode", "lexical")
    assert code == 1
    assert "line 2" in err
    assert '"query" must be a string' in err


def test_search_defaults_to_hybrid_when_the_semantic_extra_is_installed(
    catalog_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The semantic extra is installed in the dev environment, so the default mode is hybrid (the
    # tests' own TOOLSCOUT_SEARCH_MODE=lexical is what tool_search and this command would honour).
    monkeypatch.delenv("TOOLSCOUT_SEARCH_MODE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TOOLSCOUT_CACHE_DIR", str(tmp_path / "cache"))
    code, out, err = _run(str(catalog_file), "weather forecast for Oslo tomorrow", "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["mode"] == "hybrid"
    assert answer["hits"][0]["name"] == "get_weather"


def test_search_follows_the_configured_search_mode(catalog_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "lexical")
    code, out, err = _run(str(catalog_file), "weather forecast for Oslo tomorrow", "--json")
    assert code == 0, err
    assert json.loads(out)["mode"] == "lexical"


def test_search_sample_searches_the_packaged_catalog() -> None:
    code, out, err = _run("sample", "post a message to a slack channel", "--mode", "lexical", "--json")
    assert code == 0, err
    assert json.loads(out)["hits"][0]["namespace"] == "slack"
