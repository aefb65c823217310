from __future__ import annotations

import math
from collections.abc import Set
from pathlib import Path

import pytest

from toolscout import Catalog, SearchHit, SearchResult, ToolSpec
from toolscout.search._base import SearchIndex, SearchMode
from toolscout.search._evaluation import (
    QueryFileError,
    evaluate,
    hit_at_k,
    load_labelled_queries,
    load_queries,
    ndcg_at_k,
    percentile,
    recall_at_k,
    reciprocal_rank,
    summarize,
)


@pytest.mark.parametrize(
    ("ranked", "gold", "k", "expected"),
    [
        pytest.param(["a", "b", "c"], ["a"], 1, 1.0, id="single-gold-first"),
        pytest.param(["b", "a", "c"], ["a"], 1, 0.0, id="single-gold-outside-cutoff"),
        pytest.param(["b", "a", "c"], ["a"], 2, 1.0, id="single-gold-inside-cutoff"),
        pytest.param(["a", "x", "b"], ["a", "b"], 2, 0.5, id="two-gold-one-found"),
        pytest.param(["a", "x", "b"], ["a", "b"], 3, 1.0, id="two-gold-both-found"),
        pytest.param(["b", "x"], ["a", "b", "c"], 1, 1.0, id="capped-at-k-when-more-gold-than-k"),
        pytest.param(["b", "x"], ["a", "b", "c"], 2, 0.5, id="capped-denominator-is-k"),
        pytest.param(["a", "a", "x"], ["a", "b"], 3, 0.5, id="duplicate-hit-counts-once"),
        pytest.param(["x", "y"], ["a", "a"], 2, 0.0, id="duplicate-gold-is-one-tool"),
        pytest.param([], ["a"], 5, 0.0, id="no-hits"),
    ],
)
def test_recall_at_k_is_gold_found_in_the_top_k_over_the_most_that_fit(
    ranked: list[str], gold: list[str], k: int, expected: float
) -> None:
    assert recall_at_k(ranked, gold, k) == expected


@pytest.mark.parametrize(
    ("ranked", "gold", "k", "expected"),
    [
        pytest.param(["a", "b"], ["a"], None, 1.0, id="first"),
        pytest.param(["x", "y", "a"], ["a"], None, 1 / 3, id="third"),
        pytest.param(["x", "b", "a"], ["a", "b"], None, 1 / 2, id="first-of-several-gold"),
        pytest.param(["x", "y", "a"], ["a"], 2, 0.0, id="beyond-cutoff"),
        pytest.param(["x"], ["a"], None, 0.0, id="missing"),
    ],
)
def test_reciprocal_rank_uses_the_first_gold_tool(
    ranked: list[str], gold: list[str], k: int | None, expected: float
) -> None:
    assert reciprocal_rank(ranked, gold, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("ranked", "gold", "k", "expected"),
    [
        pytest.param(["x", "b"], ["a", "b", "c"], 2, 1.0, id="any-gold-counts"),
        pytest.param(["x", "b"], ["a", "b", "c"], 1, 0.0, id="outside-cutoff"),
        pytest.param([], ["a"], 3, 0.0, id="no-hits"),
    ],
)
def test_hit_at_k_is_one_when_any_gold_tool_is_in_the_top_k(
    ranked: list[str], gold: list[str], k: int, expected: float
) -> None:
    assert hit_at_k(ranked, gold, k) == expected


def test_ndcg_matches_a_hand_computed_value_for_two_gold_tools() -> None:
    # Gold at ranks 2 and 4; ideal puts them at ranks 1 and 2.
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(["x", "a", "y", "b"], ["a", "b"], 10) == pytest.approx(dcg / ideal)


def test_ndcg_is_one_for_a_perfect_ranking_and_zero_without_hits() -> None:
    assert ndcg_at_k(["a", "b", "x"], ["b", "a"], 5) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "y"], ["a"], 5) == 0.0


def test_ndcg_ideal_is_capped_by_the_cutoff() -> None:
    assert ndcg_at_k(["a"], ["a", "b", "c"], 1) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        pytest.param([5.0], 95, 5.0, id="single"),
        pytest.param([1.0, 2.0, 3.0, 4.0], 50, 2.5, id="median-interpolates"),
        pytest.param([4.0, 1.0, 3.0, 2.0], 50, 2.5, id="unsorted-input"),
        pytest.param([float(v) for v in range(1, 21)], 95, 19.05, id="p95"),
        pytest.param([], 50, 0.0, id="empty"),
    ],
)
def test_percentile_interpolates_linearly(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_summarize_averages_over_queries_and_keys_recall_json_by_string() -> None:
    report = summarize(
        [["a", "x"], ["x", "b"]],
        [["a"], ["b"]],
        ks=(1, 2),
        latencies_ms=[1.0, 3.0],
        build_s=0.25,
        mode="lexical",
    )
    assert report.recall == {1: 0.5, 2: 1.0}
    assert report.mrr == pytest.approx(0.75)
    assert report.to_json() == {
        "n": 2,
        "recall": {"1": 0.5, "2": 1.0},
        "hit": {"1": 0.5, "2": 1.0},
        "mrr": 0.75,
        "ndcg": pytest.approx((1 + 1 / math.log2(3)) / 2, abs=1e-4),
        "latency_ms": {"p50": 2.0, "p95": 2.9},
        "build_s": 0.25,
        "k": 2,
        "mode": "lexical",
        "no_gold": {"n": 0, "zero_hits": None},
    }


def test_summarize_scores_queries_without_gold_only_on_returning_zero_hits() -> None:
    report = summarize([["a"], [], ["x"]], [["a"], [], []], ks=(1,), latencies_ms=[1.0, 2.0, 3.0])
    assert (report.n, report.recall, report.mrr) == (1, {1: 1.0}, 1.0)
    assert (report.no_gold, report.no_gold_empty) == (2, 0.5)
    assert report.latency_p50_ms == 2.0
    assert report.to_json()["no_gold"] == {"n": 2, "zero_hits": 0.5}
    assert summarize([["a"]], [["a"]]).to_json()["no_gold"] == {"n": 0, "zero_hits": None}


def test_summarize_rejects_mismatched_inputs_and_bad_cutoffs() -> None:
    with pytest.raises(ValueError, match="1 rankings for 2"):
        summarize([["a"]], [["a"], ["b"]])
    with pytest.raises(ValueError, match="positive"):
        summarize([["a"]], [["a"]], ks=(0,))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "queries.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def test_load_labelled_queries_reads_ids_queries_and_gold_and_skips_blank_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"id": "q1", "query": "weather in Paris", "gold": ["get_weather"]}\n\n'
        '{"id": 7, "query": "send mail", "gold": ["send_email", "lookup"]}\n',
    )
    queries = load_labelled_queries(path)
    assert [(q.id, q.query, q.gold) for q in queries] == [
        ("q1", "weather in Paris", ("get_weather",)),
        (7, "send mail", ("send_email", "lookup")),
    ]


def test_load_labelled_queries_accepts_an_empty_gold_list_for_a_request_no_tool_answers(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"id": "none", "query": "order a pizza", "gold": []}\n')
    assert load_labelled_queries(path)[0].gold == ()


def test_load_queries_uses_the_line_number_when_the_id_is_missing(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"id": "a", "query": "x"}\n{"query": "y"}\n')
    assert [(q.id, q.gold) for q in load_queries(path)] == [("a", ()), (2, ())]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        pytest.param("{not json", "invalid JSON", id="bad-json"),
        pytest.param('["q"]', "expected a JSON object", id="not-an-object"),
        pytest.param('{"id": "q", "gold": ["a"]}', '"query" must be a string', id="missing-query"),
        pytest.param('{"id": true, "query": "q", "gold": ["a"]}', '"id" must be', id="bool-id"),
        pytest.param('{"id": "q", "query": "q"}', '"gold" must be a list', id="missing-gold"),
        pytest.param('{"id": "q", "query": "q", "gold": "a"}', '"gold" must be a list', id="gold-not-list"),
    ],
)
def test_a_malformed_line_is_reported_with_its_line_number(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path, '{"id": "ok", "query": "fine", "gold": ["a"]}\n\n' + line + "\n")
    with pytest.raises(QueryFileError, match=message) as caught:
        load_labelled_queries(path)
    assert caught.value.line == 3
    assert "line 3" in str(caught.value)


def test_a_missing_or_empty_query_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(QueryFileError, match="cannot read query file"):
        load_labelled_queries(tmp_path / "absent.jsonl")
    with pytest.raises(QueryFileError, match="no queries"):
        load_labelled_queries(_write(tmp_path, "\n"))


class _FixedIndex:
    """A stand-in search engine that answers from a table, to exercise `evaluate` alone."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self._answers = answers
        self.limits: list[int] = []

    @property
    def fingerprint(self) -> str:
        return "fixed"

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        self.limits.append(limit)
        names = self._answers[query][:limit]
        hits = tuple(SearchHit(name=name, score=1.0 / (i + 1)) for i, name in enumerate(names))
        return SearchResult(query=query, mode="lexical", hits=hits, total=len(hits))


def test_evaluate_runs_each_query_at_the_largest_cutoff_and_scores_through_aliases(tmp_path: Path) -> None:
    catalog = Catalog([ToolSpec(name="get_weather"), ToolSpec(name="get_weather_2"), ToolSpec(name="send")])
    # After aliasing, "mail" ranks get_weather twice. The repeat keeps its slot (the model saw it), so send
    # stays 3rd: counted at @3, not at @2, and RR 1/3.
    index = _FixedIndex({"rain": ["get_weather_2", "send"], "mail": ["get_weather_2", "get_weather", "send"]})
    queries = load_labelled_queries(
        _write(
            tmp_path,
            '{"id": 1, "query": "rain", "gold": ["get_weather"]}\n{"id": 2, "query": "mail", "gold": ["send"]}\n',
        )
    )
    ticks: list[None] = []

    def build(_: Catalog) -> SearchIndex:
        return index

    report = evaluate(
        catalog,
        queries,
        build=build,
        ks=(1, 2, 3),
        aliases={"get_weather_2": "get_weather"},
        on_query=lambda: ticks.append(None),
    )
    assert index.limits == [3, 3]
    assert len(ticks) == 2
    assert report.recall == {1: 0.5, 2: 0.5, 3: 1.0}
    assert report.mrr == pytest.approx((1 + 1 / 3) / 2)
    assert report.mode == "lexical"
    assert report.build_s >= 0
    assert report.latency_p95_ms >= report.latency_p50_ms >= 0
