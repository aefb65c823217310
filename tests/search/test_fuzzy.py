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


def _whole_group_match(vocabulary: list[str], word: str) -> tuple[str, float] | None:
    """The match as found by comparing `word` with every name word of its first letter (no length windows)."""
    from collections import Counter

    from rapidfuzz import process
    from rapidfuzz.distance import OSA, LCSseq

    counts = Counter(w for w in vocabulary if len(w) >= 3 and w.isalpha())
    group = sorted(w for w in counts if w[0] == word[0])
    if len(word) < 3 or not word.isalpha() or not group:
        return None
    limit = 1 if len(word) <= 6 else 2
    found = process.extract(word, group, scorer=OSA.distance, score_cutoff=limit, limit=8)
    if found:
        letters = Counter(word)
        best = min(found, key=lambda hit: (hit[1], -sum((letters & Counter(hit[0])).values()), -counts[hit[0]]))
        return best[0], 1.0 - best[1] / max(len(word), len(best[0]))
    if len(word) > 5:
        return None
    hits = process.extract_iter(word, group, scorer=LCSseq.similarity, score_cutoff=len(word))
    longer = [w for w, _, _ in hits if len(w) > len(word)]
    if not longer:
        return None
    chosen = max(longer, key=lambda w: (counts[w], -len(w)))
    return chosen, len(word) / len(chosen)


def test_only_name_words_of_a_near_length_are_compared_and_the_match_is_the_same() -> None:
    """A typo is compared with the name words within its edit limit in length, an abbreviation with longer ones:
    every word, of every length around the vocabulary's, gets the match a comparison with the whole group gives."""
    vocabulary = [
        *("set", "sets", "send", "sender", "sent", "seed", "settings", "setting", "session", "sessions"),
        *("statement", "statements", "status", "stat", "station", "stationery", "msg", "message", "messages"),
        *("managed", "manager", "map", "maps", "mapping", "sed", "sedan", "sedentary", "secrets", "secret"),
    ]
    fuzzy = FuzzyVocabulary(vocabulary)
    typed = {w[:cut] + extra for w in vocabulary for cut in range(2, len(w) + 1) for extra in ("", "x", "es", "ing")}
    typed |= {w[:i] + w[i + 1 :] for w in vocabulary for i in range(len(w))}  # a letter missing
    typed |= {w[:i] + w[i + 1] + w[i] + w[i + 2 :] for w in vocabulary for i in range(len(w) - 1)}  # two swapped
    typed |= {"s" * n for n in range(1, 40)} | {"m" + "e" * n for n in range(1, 40)}
    assert len(typed) > 600
    for word in sorted(typed):
        match = fuzzy.match(word)
        assert (None if match is None else (match.word, match.similarity)) == _whole_group_match(vocabulary, word), word


def test_words_longer_than_any_name_word_keep_no_length_window() -> None:
    fuzzy = FuzzyVocabulary(["send", "message"])
    for n in range(12, 400):
        assert fuzzy.match("m" * n) is None
    assert len(fuzzy._near_length) <= 2  # private: the windows kept, bounded whatever words are asked
