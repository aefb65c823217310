"""Turn names and prose into search terms.

`words` splits text into lowercase words: identifiers break at snake_case, camelCase
(``HTTPServer`` -> ``http server``), kebab-case, dots, colons, slashes and digit boundaries;
text is NFKC-normalised and Latin, Greek and Cyrillic accents are folded (``café`` -> ``cafe``).
A run of a script written without spaces (`SCRIPTS`) is split by the segmenter its language file
names: Chinese (a run of Han characters) with jieba's search mode (`rjieba`, imported on the first
Han character, so text without any costs nothing): each word, plus the dictionary words inside a
longer one (``天气预报`` -> ``天气 预报 天气预报``). The others (Japanese kana, Korean, Thai, Lao,
Khmer, Myanmar, and Han mixed with kana) become overlapping character bigrams, or the single
character when a run is one long. Latin-script words inside such text are words of their own
(``发送到slack`` -> ``发送 到 slack``).

`tokenize` then drops every language's stopwords and stems each word with the stemmer of the
language that owns its script (English Snowball for Latin words, Russian for Cyrillic, via
PyStemmer); all of it comes from the language files (`toolscout.search.languages`). Results are
memoised per raw word, and
`encode_many` splits plain-ASCII text with byte-level C routines, so tokenizing a large
catalog costs little more than one pass over its bytes.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain, filterfalse
from typing import TypeVar, cast

import numpy as np
import numpy.typing as npt
import Stemmer

from .languages import languages
from .languages._internal import SCRIPTS, SEGMENTERS, bigrams, on_languages_changed, script_named

__all__ = ["encode_many", "stem", "stopwords", "tokenize", "words"]

# Scripts written without spaces between words; each run becomes character bigrams (or its language's segmenter).
_UNSPACED = "".join(script.ranges for script in SCRIPTS if script.unspaced)
# Combining marks that Python's \w does not count as word characters but that live inside words.
_MARKS = "\u0300-\u036f\u0483-\u0489\u0900-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u3099\u309a"
_RAW_WORD = re.compile(rf"[\w{_MARKS}{_UNSPACED}]+")
_UNSPACED_RUN = re.compile(rf"[{_UNSPACED}]+|[^{_UNSPACED}_]+")
_UNSPACED_CHAR = re.compile(rf"[{_UNSPACED}]")
# ASCII identifier pieces: acronyms before a capitalised word (HTTP|Server), words, digit runs.
_ASCII_PIECE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# A plural acronym is its acronym: "PRs", "APIs", "URLs", "IDs" (not "P Rs", "AP Is").
_PLURAL_ACRONYM = re.compile(r"([A-Z]{2,})s(?![a-z])")
# Byte-level split of ASCII text: every byte that is not a word character becomes a space.
_WORD_BYTES = (string.ascii_letters + string.digits + "_").encode()
_NON_WORD_BYTES = bytes(c for c in range(1, 128) if c not in _WORD_BYTES)
_TO_SPACE = bytes.maketrans(_NON_WORD_BYTES, b" " * len(_NON_WORD_BYTES))
_ALL_TO_SPACE = bytes.maketrans(b"\x00" + _NON_WORD_BYTES, b" " * (len(_NON_WORD_BYTES) + 1))
_SEPARATOR = b"\x00"
_MEMO_LIMIT = 500_000
_CACHED_TEXT = 512
"""`words` keeps the words of texts up to this long (a request, one of its words) in an LRU cache: one search
splits its request several times (translations, corrections, sentence parts, word languages)."""

_memo_words: dict[str, tuple[str, ...]] = {}
_memo_terms: dict[str | bytes, tuple[str, ...]] = {}
_memo_stems: dict[str, str] = {}


@dataclass(frozen=True, slots=True)
class _Rules:
    """What tokenizing takes from the registered languages."""

    stopwords: frozenset[str]
    stemmers: tuple[tuple[re.Pattern[str], Stemmer.Stemmer], ...]
    """The stemmer of each script's own language, by the script of a word's first character."""
    segmenters: tuple[tuple[re.Pattern[str], Callable[[str], list[str]]], ...]
    """A whole run of a script whose language names a segmenter, and that segmenter."""


@cache
def _rules() -> _Rules:
    owners = [language for language in languages() if not language.detected]
    return _Rules(
        stopwords=frozenset().union(*(language.stopword_set for language in languages())),
        stemmers=tuple(
            (script_named(language.script).pattern, Stemmer.Stemmer(language.stemmer))
            for language in owners
            if language.stemmer
        ),
        segmenters=tuple(
            (re.compile(f"[{script_named(language.script).ranges}]+"), SEGMENTERS[language.segmenter])
            for language in owners
            if language.segmenter
        ),
    )


def _forget() -> None:
    """A language was registered: what was derived from the languages is computed again."""
    _rules.cache_clear()
    stem.cache_clear()
    _stemmer_of.cache_clear()
    _cached_words.cache_clear()
    _memo_words.clear()
    _memo_terms.clear()
    _memo_stems.clear()


def stopwords() -> frozenset[str]:
    """The words `tokenize` drops: every registered language's stopwords (English and Chinese built in)."""
    return _rules().stopwords


_K = TypeVar("_K", bound=Hashable)
IntArray = npt.NDArray[np.int64]


def words(text: str) -> list[str]:
    """Split `text` into lowercase words (identifier-aware, Unicode-aware), without stemming.

    Args:
        text: Any text: a tool name, a description, a user's request.

    Returns:
        The words in order; stopwords are kept.
    """
    return list(_cached_words(text)) if len(text) <= _CACHED_TEXT else _words(text)


@lru_cache(maxsize=4096)
def _cached_words(text: str) -> tuple[str, ...]:
    return tuple(_words(text))


def _words(text: str) -> list[str]:
    raw = _runs(text)
    try:  # a request's words are mostly known ones: looked up at once, the missing ones split on a miss
        return list(chain.from_iterable(map(_memo_words.__getitem__, raw)))
    except KeyError:
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
    if len(text) <= _CACHED_TEXT:  # a request: split once for every use of its words (`words`)
        kept = list(filterfalse(_rules().stopwords.__contains__, _cached_words(text)))
        try:  # a plain dict: a hit costs less than `stem`'s cache, which reorders itself on every hit
            return list(map(_memo_stems.__getitem__, kept))
        except KeyError:
            stems = list(map(stem, kept))
            if len(_memo_stems) < _MEMO_LIMIT:
                _memo_stems.update(zip(kept, stems, strict=True))
            return stems
    raw = cast("list[str | bytes]", _runs(text))
    return list(chain.from_iterable(map(_table(_memo_terms, raw, _terms_of_any), raw)))


def _runs(text: str) -> list[str]:
    """The runs of word characters of `text` (`_RAW_WORD`); ASCII text by byte routines, in a third of the time."""
    if text.isascii():
        return text.encode().translate(_ALL_TO_SPACE).decode().split()
    return _RAW_WORD.findall(_normalize(text))


def encode_many(texts: Sequence[str], vocabulary: dict[str, int]) -> tuple[IntArray, IntArray]:
    """Tokenize many texts at once into term ids (the fast path for building an index).

    Gives the same terms as `tokenize`, text by text. Terms missing from `vocabulary` are added
    with the next free ids. Repeated texts and repeated words are processed once, and plain-ASCII
    texts are split with byte-level routines, so the cost is close to one pass over the bytes.

    Args:
        texts: The texts.
        vocabulary: Term -> id; extended in place.

    Returns:
        The term ids of all texts, concatenated in order, and the number of terms of each text.
    """
    unique_texts = dict.fromkeys(texts)
    raws = _raw_words(list(unique_texts))
    flat = list(chain.from_iterable(raws))
    unique_words = dict.fromkeys(flat)
    terms = list(map(_table(_memo_terms, list(unique_words), _terms_of_any), unique_words))
    for term in dict.fromkeys(chain.from_iterable(terms)).keys() - vocabulary.keys():
        vocabulary[term] = len(vocabulary)
    word_ids = np.fromiter(map(vocabulary.__getitem__, chain.from_iterable(terms)), dtype=np.int64)
    word_lengths = np.fromiter(map(len, terms), dtype=np.int64, count=len(terms))
    for position, word in enumerate(unique_words):
        unique_words[word] = position
    words_of_text = np.fromiter(map(unique_words.__getitem__, flat), dtype=np.int64, count=len(flat))
    text_ids, lengths_in_order = _gather(word_ids, word_lengths, words_of_text)
    terms_before = np.concatenate(([0], np.cumsum(lengths_in_order)))
    words_before = np.cumsum([0, *map(len, raws)])
    text_lengths = terms_before[words_before[1:]] - terms_before[words_before[:-1]]
    for position, text in enumerate(unique_texts):
        unique_texts[text] = position
    order = np.fromiter(map(unique_texts.__getitem__, texts), dtype=np.int64, count=len(texts))
    return _gather(text_ids, text_lengths, order)


def _gather(values: IntArray, lengths: IntArray, picks: IntArray) -> tuple[IntArray, IntArray]:
    """Concatenate the runs `picks` of a ragged array (`values` cut into runs of `lengths`)."""
    starts = np.cumsum(lengths) - lengths
    picked = lengths[picks]
    total = int(picked.sum())
    offsets = np.repeat(starts[picks] - np.cumsum(picked) + picked, picked) + np.arange(total)
    return values[offsets], picked


def _raw_words(texts: list[str]) -> list[list[str | bytes]]:
    """Split each text into runs of word characters; plain-ASCII texts go through fast byte routines."""
    plain = [i for i, text in enumerate(texts) if text.isascii() and "\x00" not in text]
    raws: list[list[str | bytes]] = []
    if plain:
        joined = "\x00".join([texts[i] for i in plain]).encode("ascii").translate(_TO_SPACE)
        raws = [chunk.split() for chunk in joined.split(_SEPARATOR)]  # type: ignore[misc]
    if len(plain) < len(texts):
        fast = iter(raws)
        is_plain = set(plain)
        raws = [next(fast) if i in is_plain else _RAW_WORD.findall(_normalize(text)) for i, text in enumerate(texts)]
    return raws


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """Stem one lowercase word with the stemmer of its script's language; other words are unchanged.

    English for Latin script, Russian for Cyrillic (the language files' ``stemmer``); numbers and words of
    scripts whose language has no stemmer stay as they are.
    """
    stemmer = _stemmer_of(word[0])
    return word if stemmer is None else str(stemmer.stemWord(word))


@lru_cache(maxsize=4096)
def _stemmer_of(first: str) -> Stemmer.Stemmer | None:
    """The stemmer of a word that starts with `first` (its script's language's), if any."""
    if first.isdigit() or _UNSPACED_CHAR.match(first):
        return None
    return next((stemmer for script, stemmer in _rules().stemmers if script.match(first)), None)


def _normalize(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _table(
    memo: dict[_K, tuple[str, ...]], raw: list[_K], make: Callable[[_K], tuple[str, ...]]
) -> Callable[[_K], tuple[str, ...]]:
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
    """The terms of one raw word; its words and their stems are kept for requests that use it too (`tokenize`)."""
    dropped = _rules().stopwords
    pieces = _split_word(word)
    terms = tuple(stem(w) for w in pieces if w not in dropped)
    if len(_memo_words) < _MEMO_LIMIT:
        _memo_words[word] = pieces
    if len(_memo_stems) < _MEMO_LIMIT:
        _memo_stems.update(zip(filterfalse(dropped.__contains__, pieces), terms, strict=True))
    return terms


def _terms_of_any(word: str | bytes) -> tuple[str, ...]:
    return _terms_of(word.decode("ascii") if isinstance(word, bytes) else word)


def _split_word(word: str) -> tuple[str, ...]:
    """Split one run of word characters (underscores included) into lowercase words."""
    if word.isascii():
        if word.isalpha() and (len(word) == 1 or word[1:].islower()):  # a plain word ("Calculate"): one piece
            return (word.lower(),)
        if word.isdigit():  # a number ("2024"): one piece, as `_ASCII_PIECE` finds it
            return (word,)
        if _PLURAL_ACRONYM.search(word):  # a substitution's template is parsed on every call: only when one is due
            word = _PLURAL_ACRONYM.sub(r"\1", word)
        return tuple(piece.lower() for piece in _ASCII_PIECE.findall(word))
    out: list[str] = []
    for run in _UNSPACED_RUN.findall(word):
        segmenter = next((segment for whole, segment in _rules().segmenters if whole.fullmatch(run)), None)
        if segmenter is not None:
            out.extend(segmenter(run))
        elif _UNSPACED_CHAR.match(run):
            out.extend(bigrams(run))
        else:
            out.extend(_split_cased(_fold(run)))
    return tuple(out)


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


on_languages_changed(_forget)
