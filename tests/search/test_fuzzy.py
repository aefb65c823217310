import pytest

from toolscout.search._fuzzy import FuzzyVocabulary

VOCABULARY = FuzzyVocabulary(["get", "weather", "send", "message", "messages", "seed", "calendar", "event"])


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        pytest.param("wether", "weather", id="missing-letter"),
        pytest.param("sned", "send", id="swapped-letters"),
        pytest.param("calender", "calendar", id="wrong-vowel"),
        pytest.param("msg", "message", id="abbreviation"),
    ],
)
def test_fuzzy_vocabulary_corrects_typos_and_abbreviations(typed: str, expected: str) -> None:
    match = VOCABULARY.match(typed)
    assert match is not None
    assert match.word == expected
    assert 0 < match.similarity <= 1


@pytest.mark.parametrize("typed", ["paris", "xyzzy", "ab", "2021", "zebra"])
def test_fuzzy_vocabulary_leaves_unrelated_words_alone(typed: str) -> None:
    assert VOCABULARY.match(typed) is None
