import random
import re

import numpy as np

from toolscout import ToolSpec
from toolscout.search._lexical import (
    _STANDALONE_NUMBER,
    LexicalConfig,
    LexicalIndex,
    _Columns,
    _number_terms,
    _sort_keys,
)
from toolscout.search._tokenize import tokenize

TOOLS = [
    ToolSpec(name="weather_report", description="Summarise news articles."),
    ToolSpec(name="summarise_news", description="Get the weather report for a city."),
    ToolSpec(name="final_velocity", description="Final velocity of a falling object."),
    ToolSpec(name="velocity_final_check", description="Check the velocity of the final lap."),
]


def _ranking(index: LexicalIndex, query: str) -> list[str]:
    scores = index.scores(index.query_terms(query))
    order = sorted(range(len(TOOLS)), key=lambda i: -scores[i])
    return [TOOLS[i].name for i in order if scores[i] > 0]


def test_a_name_hit_beats_a_description_hit() -> None:
    assert _ranking(LexicalIndex(TOOLS), "weather report")[0] == "weather_report"


def test_adjacent_words_beat_the_same_words_apart() -> None:
    assert _ranking(LexicalIndex(TOOLS), "compute the final velocity")[0] == "final_velocity"


def test_query_terms_report_unknown_words_and_skip_standalone_numbers() -> None:
    index = LexicalIndex(TOOLS)
    terms = index.query_terms("weather in Zanzibar for 2024")
    assert terms.unknown == ("zanzibar",)
    assert len(terms.words) == 1
    assert index.scores(terms).max() > 0


def test_field_weights_are_configurable() -> None:
    descriptions_only = LexicalConfig(
        weights={"description": 1.0}, phrase_weights={"description": 1.0}, description_coverage=0.0
    )
    assert _ranking(LexicalIndex(TOOLS, config=descriptions_only), "weather report")[0] == "summarise_news"


def test_ideal_bounds_every_score() -> None:
    index = LexicalIndex(TOOLS)
    terms = index.query_terms("final velocity weather report news")
    assert index.scores(terms).max() <= index.ideal(terms)


def test_an_empty_query_scores_nothing() -> None:
    index = LexicalIndex(TOOLS)
    assert index.scores(index.query_terms("the of and")).max() == 0


def test_tools_without_a_description_at_the_end_of_the_catalog_are_indexed() -> None:
    catalog = [ToolSpec(name="deploy_app", description="Deploy the app."), ToolSpec(name="log_tail")]

    index = LexicalIndex(catalog)

    scores = index.scores(index.query_terms("tail the log"))
    assert scores[1] > 0.0 and scores[0] == 0.0


def test_a_number_that_a_tool_mentions_decides_between_otherwise_equal_tools() -> None:
    tools = [ToolSpec(name=f"crm__op_{i}", description=f"CRM operation {i}") for i in range(200)]
    index = LexicalIndex(tools)
    scores = index.scores(index.query_terms("CRM operation 123"))
    assert tools[int(scores.argmax())].name == "crm__op_123"
    assert sorted(scores)[-2] > 0  # the other operations still match, below it


def test_a_number_no_tool_mentions_is_ignored_rather_than_reported_unknown() -> None:
    terms = LexicalIndex(TOOLS).query_terms("weather for 1987")
    assert terms.unknown == ()


def test_triples_sum_per_tool_and_term_in_the_order_given() -> None:
    docs, cols = np.array([1, 0, 1, 1, 2]), np.array([2, 2, 2, 0, 2])
    vals = np.array([0.1, 5.0, 0.2, 7.0, 1e16])
    columns = _Columns.from_triples([docs], [cols], [vals], size=3, width=4)

    assert columns.indptr.tolist() == [0, 1, 1, 4, 4]  # term 0: one tool, terms 1 and 3: none, term 2: three
    assert columns.docs.tolist() == [1, 0, 1, 2]
    assert columns.values.tolist() == [7.0, 5.0, 0.1 + 0.2, 1e16]
    assert columns.weighted_sum([2, 0], [2.0, 1.0], 3).tolist() == [10.0, (0.1 + 0.2) * 2.0 + 7.0, 2e16]


def test_weighted_columns_of_two_matrices_joined_sum_into_one_vector() -> None:
    first = _Columns.from_triples([np.array([0, 1])], [np.array([0, 1])], [np.array([1.0, 2.0])], size=3, width=2)
    second = _Columns.from_triples([np.array([1, 2])], [np.array([0, 0])], [np.array([4.0, 8.0])], size=3, width=1)
    joined = first.followed_by(second)  # second's column 0 is column 2 of the joined matrix
    assert joined.weighted_sum([0, 1, 2], [10.0, 1.0, 0.5], 3).tolist() == [10.0, 2.0 + 2.0, 4.0]
    assert joined.weighted_sum([], [], 3).tolist() == [0.0, 0.0, 0.0]
    assert joined.weighted_sum([2, 0, 2], [1.0, 1.0, 1.0], 3).tolist() == [1.0, 8.0, 16.0]  # a column twice adds twice


def test_keys_too_large_for_the_fast_sort_are_sorted_stably_too() -> None:
    for top in (1_000, 2**62):  # the fast path, then the fallback (key * count would overflow)
        keys = np.array([top, 3, top, 0, 3, top - 1], dtype=np.int64)
        ordered, order, first = _sort_keys(keys)
        assert ordered.tolist() == [0, 3, 3, top - 1, top, top]
        assert order.tolist() == [3, 1, 4, 5, 0, 2]
        assert first.tolist() == [True, True, False, True, True, False]


def test_a_query_of_only_numbers_no_tool_mentions_scores_nothing_and_does_not_fail() -> None:
    index = LexicalIndex(TOOLS)
    terms = index.query_terms("4 2024")
    assert terms.unknown == ("4", "2024")
    assert index.scores(terms).max() == 0


def test_standalone_numbers_are_found_and_split_as_their_plain_pattern_and_tokenize_do() -> None:
    """The number regex starts with one character class; ASCII numbers' terms are their digit runs."""
    plain = re.compile(r"(?<![\w.])[-+$€£]?\d+(?:[.,:/]\d+)*%?(?![\w])")
    rng = random.Random(38)
    alphabet = "0123456789-+$.,:/% ab_£٤"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(16)))
        found = _STANDALONE_NUMBER.findall(text)
        assert found == plain.findall(text), repr(text)
        if found:
            assert _number_terms(" ".join(found)) == set(tokenize(" ".join(found))), repr(text)
