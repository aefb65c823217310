import re

import pytest

from toolscout import CharsPerToken, ToolError
from toolscout.offload._document import Document
from toolscout.offload._grep import search_document

COUNTER = CharsPerToken()
LOG = "".join(f"{i:05d} {'ERROR disk full' if i % 97 == 0 else 'ok'}\n" for i in range(1, 5001))


def search(text, pattern, **options):
    options.setdefault("max_matches", 20)
    options.setdefault("max_tokens", 4000)
    return search_document(Document(text.encode()), pattern, counter=COUNTER, **options)


def test_matching_lines_come_with_their_numbers_and_context():
    answer = search(LOG, "error", context=1)
    first = answer["matches"][0]
    lines = LOG.splitlines()
    assert first == {"line": 97, "text": lines[96], "before": [lines[95]], "after": [lines[97]]}
    assert [match["line"] for match in answer["matches"]] == [97 * k for k in range(1, 21)]


def test_paging_with_next_visits_every_match_exactly_once():
    expected = [i for i, line in enumerate(LOG.splitlines(), 1) if "ERROR" in line]
    seen: list[object] = []
    arguments: dict[str, object] = {}
    while True:
        answer = search(LOG, "ERROR", case_sensitive=True, max_matches=7, **arguments)
        seen += [match["line"] for match in answer["matches"]]
        if answer["next"] is None:
            break
        arguments = answer["next"]
    assert seen == expected


def test_remaining_matches_are_counted():
    answer = search(LOG, "ERROR", max_matches=10)
    assert answer["remaining_matches"] == 51 - 10
    assert answer["next"] == {"start_line": 97 * 11}


def test_literal_search_takes_regex_characters_literally():
    text = "a.b\naxb\n(a+)+$\n"
    assert [m["line"] for m in search(text, "a.b")["matches"]] == [1]
    assert [m["line"] for m in search(text, "(a+)+$")["matches"]] == [3]
    assert [m["line"] for m in search(text, "a.b", regex=True)["matches"]] == [1, 2]


def test_case_insensitive_by_default_including_non_ascii():
    assert [m["line"] for m in search("Émile\némile\nÉMILE\nEmile\n", "émile")["matches"]] == [1, 2, 3]
    assert [m["line"] for m in search("Émile\némile\n", "émile", case_sensitive=True)["matches"]] == [2]


def test_regex_anchors_work_per_line():
    text = "foo\nxfoo\nfoo bar\n"
    assert [m["line"] for m in search(text, "^foo", regex=True)["matches"]] == [1, 3]


def test_a_match_never_spans_a_line_end():
    assert search("alpha\nbeta\n", "alpha.beta", regex=True)["matches"] == []
    assert search("alpha\nbeta\n", "a[^x]*b", regex=True)["matches"] == []


def test_crlf_lines_are_shown_without_the_carriage_return():
    answer = search("one\r\ntwo\r\nthree\r\n", "two", context=1)
    assert answer["matches"][0] == {"line": 2, "text": "two", "before": ["one"], "after": ["three"]}


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("(a+)+$", id="nested-quantifier"),
        pytest.param("(a|aa)*c", id="alternation-blowup"),
        pytest.param("(x+x+)+y", id="classic-bomb"),
        pytest.param("(.*a){20}", id="stacked-dot-star"),
        pytest.param("^(([a-z])+.)+[A-Z]([a-z])+$", id="email-style-bomb"),
    ],
)
def test_catastrophic_patterns_run_in_linear_time(pattern):
    text = "a" * 200_000 + "!\n" + "x" * 200_000 + "\n"
    answer = search(text, pattern, regex=True)
    assert isinstance(answer, dict)
    assert {match["line"] for match in answer["matches"]} <= {1, 2}


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param("(a)\\1", "invalid escape sequence", id="backreference"),
        pytest.param("(?<=a)b", "invalid perl operator", id="lookbehind"),
        pytest.param("a{1000}{1000}", "bad repetition operator", id="huge-repetition"),
        pytest.param("((a{100}){100}){100}", "invalid repetition size", id="nested-repetition"),
        pytest.param("[z-a]", "invalid character class range", id="bad-range"),
        pytest.param("(", "missing )", id="unbalanced"),
    ],
)
def test_unsupported_or_oversized_patterns_are_clear_errors(pattern, message):
    answer = search(LOG, pattern, regex=True)
    assert isinstance(answer, ToolError)
    assert answer.code == "query_failed"
    assert message in answer.message
    assert "RE2 syntax" in answer.hint


def test_over_long_and_empty_patterns_are_refused():
    assert "limit is 1000" in search(LOG, "a" * 1001).message
    assert "empty" in search(LOG, "").message


def test_a_single_enormous_line_is_reported_per_occurrence_with_offsets():
    line = ('{"id": 1, "name": "needle"}, ' * 20_000).strip()
    text = line + "\n"
    answer = search(text, "needle", max_matches=3)
    offsets = [m.start() for m in re.finditer("needle", text)]
    assert [m["offset"] for m in answer["matches"]] == offsets[:3]
    assert all(m["line"] == 1 and "needle" in m["text"] and len(m["text"]) < 400 for m in answer["matches"])
    assert answer["next"] == {"offset": offsets[3]}
    following = search(text, "needle", max_matches=3, offset=answer["next"]["offset"])
    assert [m["offset"] for m in following["matches"]] == offsets[3:6]


def test_the_window_of_a_long_line_never_splits_a_character():
    text = "é" * 5000 + "needle" + "😀" * 5000
    match = search(text, "needle")["matches"][0]
    assert match["text"].startswith("…é") and match["text"].endswith("😀…")
    assert match["offset"] == 5000


def test_answers_stay_within_the_token_cap():
    text = "".join(f"match {'x' * 250} {i}\n" for i in range(500))
    answer = search(text, "match", max_matches=500, max_tokens=1000, context=3)
    assert sum(COUNTER.count(str(m)) for m in answer["matches"]) <= 1200
    assert answer["next"] is not None


def test_an_empty_pattern_match_terminates_on_an_empty_or_newline_ended_text():
    assert len(search("", "x*", regex=True)["matches"]) == 1
    assert [m["line"] for m in search("a\nb\n", "x*", regex=True)["matches"]] == [1, 2]


def test_starting_past_the_end_is_an_error():
    assert "past the end" in search("a\n", "a", start_line=5).message
