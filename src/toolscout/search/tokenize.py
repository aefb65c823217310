"""Turn names and prose into search terms.

`words` splits text into lowercase words: identifiers break at snake_case, camelCase
(``HTTPServer`` -> ``http server``), kebab-case, dots, colons, slashes and digit boundaries;
text is NFKC-normalised and Latin accents are folded (``café`` -> ``cafe``). Scripts written
without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar) become overlapping
character bigrams, or the single character when a run is one character long.

`tokenize` then drops stopwords and stems each word (English Snowball for Latin words,
Russian Snowball for Cyrillic words, via PyStemmer). Results are memoised per raw word, so
tokenizing a large catalog costs little more than one regex pass over its text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate, chain, pairwise

import Stemmer

__all__ = ["STOPWORDS", "stem", "tokenize", "tokenize_many", "words"]

STOPWORDS: frozenset[str] = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have how i if in into is it
    its me my of on or our please should so than that the their them then there these they this those to us was
    we were what when where which while who whom why will with would you your""".split()
)
"""Function words dropped by `tokenize` (never from tool names alone: see `toolscout.search.fields`)."""

# Scripts written without spaces between words; each run becomes character bigrams.
_UNSPACED = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f\u31a0-\u31ff"  # Bopomofo, Katakana extensions
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"  # Hangul
    "\uff66-\uff9f"  # half-width Katakana
)
# Combining marks that Python's \w does not count as word characters but that live inside words.
_MARKS = "\u0300-\u036f\u0483-\u0489\u0900-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u3099\u309a"
_RAW_WORD = re.compile(rf"(?:[^\W_]|[{_MARKS}{_UNSPACED}])+")
_UNSPACED_RUN = re.compile(rf"[{_UNSPACED}]+|[^{_UNSPACED}]+")
_UNSPACED_CHAR = re.compile(rf"[{_UNSPACED}]")
# ASCII identifier pieces: acronyms before a capitalised word (HTTP|Server), words, digit runs.
_ASCII_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_MEMO_LIMIT = 500_000

_english = Stemmer.Stemmer("english")
_russian = Stemmer.Stemmer("russian")
_memo_words: dict[str, tuple[str, ...]] = {}
_memo_terms: dict[str, tuple[str, ...]] = {}


def words(text: str) -> list[str]:
    """Split `text` into lowercase words (identifier-aware, Unicode-aware), without stemming.

    Args:
        text: Any text: a tool name, a description, a user's request.

    Returns:
        The words in order; stopwords are kept.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    raw = _RAW_WORD.findall(text)
    return list(chain.from_iterable(map(_table(_memo_words, raw, _split_word), raw)))


def tokenize(text: str) -> list[str]:
    """Return the search terms of `text`: its words, minus stopwords, stemmed.

    Args:
        text: Any text: a tool name, a description, a user's request.

    Returns:
        The terms in order (repeats kept, so callers can count them).

    Example:
        >>> tokenize("getURL2Text: fetches pages")
        ['get', 'url', '2', 'text', 'fetch', 'page']
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    raw = _RAW_WORD.findall(text)
    return list(chain.from_iterable(map(_table(_memo_terms, raw, _terms_of), raw)))


def tokenize_many(texts: Sequence[str]) -> tuple[list[str], list[int]]:
    """Tokenize many texts at once (the fast path for building an index).

    Args:
        texts: The texts.

    Returns:
        All terms of all texts, concatenated in order, and the number of terms of each text.
    """
    normal = [text if text.isascii() else unicodedata.normalize("NFKC", text) for text in texts]
    raws = list(map(_RAW_WORD.findall, normal))
    flat_raw = list(chain.from_iterable(raws))
    per_word = list(map(_table(_memo_terms, flat_raw, _terms_of), flat_raw))
    terms_before = [0, *accumulate(map(len, per_word))]
    bounds = accumulate(map(len, raws), initial=0)
    counts = [terms_before[end] - terms_before[start] for start, end in pairwise(bounds)]
    return list(chain.from_iterable(per_word)), counts


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """Stem one lowercase word (English for Latin script, Russian for Cyrillic, else unchanged)."""
    first = word[0]
    if first.isdigit() or _UNSPACED_CHAR.match(first):
        return word
    if first < "\u0250":
        return str(_english.stemWord(word))
    if "\u0400" <= first <= "\u04ff":
        return str(_russian.stemWord(word))
    return word


def _table(
    memo: dict[str, tuple[str, ...]], raw: list[str], make: Callable[[str], tuple[str, ...]]
) -> Callable[[str], tuple[str, ...]]:
    """Return a lookup that covers every word of `raw`, filling the shared memo while it has room.

    The memo only ever grows (up to a bound), so concurrent readers never miss an entry they saw.
    """
    missing = set(raw).difference(memo)
    if not missing:
        return memo.__getitem__
    fresh = {word: make(word) for word in missing}
    if len(memo) < _MEMO_LIMIT:
        memo.update(fresh)
        return memo.__getitem__
    fresh.update((word, memo[word]) for word in set(raw).difference(missing))
    return fresh.__getitem__


def _terms_of(word: str) -> tuple[str, ...]:
    return tuple(stem(w) for w in _split_word(word) if w not in STOPWORDS)


def _split_word(word: str) -> tuple[str, ...]:
    """Split one run of word characters into lowercase words."""
    if word.isascii():
        return tuple(piece.lower() for piece in _ASCII_PIECE.findall(word))
    out: list[str] = []
    for run in _UNSPACED_RUN.findall(word):
        if _UNSPACED_CHAR.match(run):
            out.extend(_bigrams(run))
        else:
            out.extend(_split_cased(_fold(run)))
    return tuple(out)


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _fold(text: str) -> str:
    """Drop accents from Latin, Greek and Cyrillic letters (``é`` -> ``e``); other scripts keep their marks."""
    decomposed = unicodedata.normalize("NFD", text)
    kept: list[str] = []
    base = ""
    for char in decomposed:
        if unicodedata.combining(char):
            if base >= "\u0530":
                kept.append(char)
            continue
        base = char
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


def _split_cased(word: str) -> list[str]:
    """Split a non-ASCII word at case changes and letter/digit boundaries, lowercasing the pieces."""
    pieces: list[str] = []
    start = 0
    for i in range(1, len(word)):
        prev, cur = word[i - 1], word[i]
        nxt = word[i + 1] if i + 1 < len(word) else ""
        boundary = (
            prev.isdigit() != cur.isdigit()
            or (prev.islower() and cur.isupper())
            or (prev.isupper() and cur.isupper() and nxt.islower())
        )
        if boundary:
            pieces.append(word[start:i])
            start = i
    pieces.append(word[start:])
    return [piece.casefold() for piece in pieces if piece]
