"""Typo and abbreviation fallback for query words that no tool contains.

A query word that is not in the catalog's vocabulary is compared with the words of the tool
names (and namespaces): first as a typo (optimal-string-alignment distance, so a swap of two
letters counts once: "sned" -> "send", "wether" -> "weather"), then, for short words, as an
abbreviation (the word's letters appear in order in a longer name word with the same first
letter: "msg" -> "message"). Only candidates with the same first letter are considered, which
keeps the fallback cheap and avoids most false friends.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA, LCSseq

__all__ = ["FuzzyMatch", "FuzzyVocabulary"]

_MIN_LENGTH = 3
_MAX_ABBREVIATION = 5
_MEMO_LIMIT = 20_000


@dataclass(frozen=True, slots=True, kw_only=True)
class FuzzyMatch:
    """A vocabulary word standing in for an unknown query word."""

    word: str
    """The vocabulary word."""
    similarity: float
    """How close the match is, in (0, 1]."""


class FuzzyVocabulary:
    """The words of tool names, grouped by first letter for typo and abbreviation lookups."""

    def __init__(self, words: Iterable[str]) -> None:
        """Collect the alphabetic words of at least three letters (lowercase) from `words`."""
        counts = Counter(w for w in words if len(w) >= _MIN_LENGTH and w.isalpha())
        self._frequency = counts
        groups: dict[str, list[str]] = {}
        for word in sorted(counts):
            groups.setdefault(word[0], []).append(word)
        self._by_initial = groups
        self._longest = max(map(len, counts), default=0)
        self._near_length: dict[tuple[str, int, int], list[str]] = {}
        self._memo: dict[str, FuzzyMatch | None] = {}

    def match(self, word: str) -> FuzzyMatch | None:
        """Return the closest vocabulary word to `word`, or None when nothing is close enough.

        Args:
            word: A lowercase query word the catalog does not contain.
        """
        if word in self._memo:
            return self._memo[word]
        found = self._match(word)
        if len(self._memo) < _MEMO_LIMIT:
            self._memo[word] = found
        return found

    def _match(self, word: str) -> FuzzyMatch | None:
        if len(word) < _MIN_LENGTH or not word.isalpha():
            return None
        group = self._by_initial.get(word[0])
        if not group:
            return None
        limit = 1 if len(word) <= 6 else 2
        # A word whose length differs by more than `limit` is that many edits away at least: the others are compared.
        near = self._of_length(word[0], len(word) - limit, len(word) + limit)
        found = process.extract(word, near, scorer=OSA.distance, score_cutoff=limit, limit=8)
        if found:
            letters = Counter(word)
            # Equal distances: prefer the candidate sharing more letters (a swap keeps them all).
            best = min(
                found, key=lambda hit: (hit[1], -sum((letters & Counter(hit[0])).values()), -self._frequency[hit[0]])
            )
            return FuzzyMatch(word=best[0], similarity=1.0 - best[1] / max(len(word), len(best[0])))
        if len(word) <= _MAX_ABBREVIATION:
            return self._abbreviation(word)
        return None

    def _of_length(self, initial: str, shortest: int, longest: int | None) -> list[str]:
        """The name words starting with `initial` of `shortest` to `longest` letters (None: any longer), in order.

        Each list is made on first use and kept: one per initial and window that can hold a word (a few hundred).
        """
        if shortest > self._longest:
            return []
        key = (initial, shortest, -1 if longest is None else longest)
        found = self._near_length.get(key)
        if found is None:
            group = self._by_initial[initial]
            found = [w for w in group if shortest <= len(w) and (longest is None or len(w) <= longest)]
            self._near_length[key] = found
        return found

    def _abbreviation(self, word: str) -> FuzzyMatch | None:
        # The name words (of `word`'s first letter) that hold its letters in order: their longest common subsequence
        # with it is all of it (in C, without compiling a pattern per word).
        longer = self._of_length(word[0], len(word) + 1, None)
        found = process.extract_iter(word, longer, scorer=LCSseq.similarity, score_cutoff=len(word))
        candidates = [w for w, _, _ in found]
        if not candidates:
            return None
        best = max(candidates, key=lambda w: (self._frequency[w], -len(w)))
        return FuzzyMatch(word=best, similarity=len(word) / len(best))
