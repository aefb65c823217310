"""Interchangeable words: a request says "remove", the tool says "delete"; or says "删除", or "löschen".

Tool names and descriptions use a small set of conventional verbs (create, get, update,
delete, search, ...) while people asking for them use many others. `ActionSynonyms` expands
a query's action words to the conventional ones the catalog uses, at a reduced weight, so a
literal match still ranks first and an expansion only breaks ties or fills a gap. The groups
come from the language files (``synonyms``: English only today, actions and objects); stems are
compared, so "removing" and "removes" expand like "remove".

`Translations` bridges languages with the language files' lexicons (the most frequent words of
tool names and descriptions, per concept of the English lexicon). A query word in another language
also counts as the English word of its concept (and expands to that word's synonyms), so a request
in Chinese or German finds English-described tools on the words they share; English words are never
translated. A language written in its own script is matched on the tokenizer's terms (Chinese as
jieba words, Japanese, Korean and Thai as character bigrams, Russian by its stems); one that shares
Latin script (Spanish, French, German, Portuguese) on its Snowball stems, only when the query's
function words say it is in that language (then those function words are ignored, imperatives also
match without their pronouns, and German compounds also match on their last word:
``Projektordner`` -> ``ordner``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import Stemmer

from ._tokenize import stem, stopwords, tokenize, words
from .languages import Language, languages
from .languages._internal import HUB, bigrams, on_languages_changed, script_named

__all__ = [
    "ActionSynonyms",
    "Translation",
    "Translations",
    "default_translations",
    "latin_language",
    "synonym_groups",
]


def synonym_groups() -> tuple[tuple[str, ...], ...]:
    """Every registered language's synonym groups: actions, then objects (``IndexConfig.synonyms``' default)."""
    return tuple(group for language in languages() for group in language.synonyms.actions) + tuple(
        group for language in languages() for group in language.synonyms.objects
    )


class ActionSynonyms:
    """Expands query stems to the other stems of their group.

    A group member may be a two-word phrase ("pull request"): a query word expands to it (as the
    phrase's stems joined by a space), never the other way round.
    """

    def __init__(self, groups: Iterable[Sequence[str]] | None = None) -> None:
        """Index `groups` (default: the languages' action groups) by stem; a word in several groups expands to all."""
        if groups is None:
            groups = [group for language in languages() for group in language.synonyms.actions]
        expansions: dict[str, dict[str, None]] = {}
        for group in groups:
            stems = [" ".join(stem(part) for part in word.lower().split()) for word in group]
            for one in stems:
                expansions.setdefault(one, {}).update(dict.fromkeys(s for s in stems if s != one))
        self._expansions: Mapping[str, tuple[str, ...]] = {key: tuple(found) for key, found in expansions.items()}

    def expand(self, stems: Iterable[str]) -> list[str]:
        """The stems `stems` expand to, in order, without the ones already in `stems`."""
        given, expansions = dict.fromkeys(stems), self._expansions
        if expansions.keys().isdisjoint(given):  # half of BFCL's requests: no word of any group
            return []
        return list(dict.fromkeys(s for one in given if one in expansions for s in expansions[one] if s not in given))


_COMPOUND_HEAD = 4
# A stem this short is compared as the whole word: Spanish "comando" and "como" both stem to "com".
_SHORT_STEM = 4


@dataclass(frozen=True, slots=True)
class Translation:
    """What a query's words in other languages stand for."""

    terms: tuple[str, ...] = ()
    """English terms (stemmed) the query's foreign words stand for, minus the query's own terms."""
    ignored: frozenset[str] = frozenset()
    """The query's function words in the language it was detected to be in (``la``, ``der``): not search terms."""


_NOTHING = Translation()


@dataclass(frozen=True, slots=True)
class _Entry:
    keys: tuple[str, ...]
    concept: int


class Translations:
    """Expands the words of a query in another language to the English words of the same concepts."""

    def __init__(self, known: Sequence[Language] | None = None) -> None:
        """Index the lexicons of `known` (default: every registered language) by how a query's words are matched.

        Concepts are the English lexicon's, in its order; a language written in its own script is matched on the
        tokenizer's terms (its segmenter's words only once a query in its script arrives, as loading one may
        take a dictionary), one told apart by function words on its Snowball stems.
        """
        known = languages() if known is None else tuple(known)
        hub = next((language for language in known if language.code == HUB), None)
        english = hub.lexicon if hub is not None else {}
        concepts = list(english)
        self._english: list[tuple[str, ...]] = [
            tuple(dict.fromkeys(term for word in english[concept] for term in tokenize(word))) for concept in concepts
        ]
        self._detection = _Detection(known)
        self._guests = [language for language in known if language.detected]
        self._by_term: dict[str, list[_Entry]] = {}
        self._segmented = [_Segmented(language) for language in known if not language.detected and language.segmenter]
        self._by_stem: dict[str, dict[str, list[_Entry]]] = {language.code: {} for language in self._guests}
        self._stemmers = {language.code: _stemmer(language) for language in self._guests}
        segmented = {one.language.code: one for one in self._segmented}
        others = [language for language in known if language is not hub]
        for concept, name in enumerate(concepts):
            for language in others:
                for entry in language.lexicon.get(name, ()):
                    if language.detected:
                        stemmer = self._stemmers[language.code]
                        keys = tuple(_stem_key(stemmer, word) for word in words(entry))
                        self._by_stem[language.code].setdefault(keys[0], []).append(_Entry(keys, concept))
                    elif language.code in segmented:
                        segmented[language.code].entries.append((entry.replace(" ", ""), concept))
                    elif terms := _terms(language, entry):
                        self._by_term.setdefault(terms[0], []).append(_Entry(terms, concept))

    def translate(self, query: str, known: Callable[[str], bool] | None = None) -> Translation:
        """The English terms the words of `query` in other languages stand for, and its foreign function words.

        Args:
            query: The request.
            known: Whether the catalog has a term (an English stem); a Latin-script word the catalog
                already has is taken as it is, never translated ("data" is not Portuguese for "date").
        """
        query_words = words(query)
        detected, guests = self._detection.languages(query_words)
        if not guests and query.isascii():
            return _NOTHING  # the other lexicon entries are all in other scripts
        dropped = stopwords()
        terms = [stem(word) for word in query_words if word not in dropped]  # = tokenize(query)
        found = [entry.concept for _, entry in _matches(terms, self._by_term)]
        for segmented in self._segmented:
            if segmented.script.search(query):
                found.extend(entry.concept for _, entry in _matches(terms, segmented.index()))
        fresh = [not (known and known(stem(word))) for word in query_words] if guests else []
        for code in guests:
            stemmer, index, language = self._stemmers[code], self._by_stem[code], self._detection.by_code[code]
            stems = [_stem_key(stemmer, word) for word in query_words]
            for at, entry in _matches(stems, index):
                found.extend([entry.concept] if any(fresh[at : at + len(entry.keys)]) else [])
            if (clitic := self._detection.clitics.get(code)) is not None:
                bare = [_stem_key(stemmer, clitic.sub("", word)) if len(word) > 5 else "" for word in query_words]
                found.extend(entry.concept for at, entry in _matches(bare, index) if fresh[at])
            if language.compound_heads and detected:
                new_words = [word for word, new in zip(query_words, fresh, strict=True) if new]
                found.extend(self._compound_heads(code, new_words))
        given = set(terms)
        english = [term for term in dict.fromkeys(t for c in found for t in self._english[c]) if term not in given]
        function_words = self._detection.function_words
        ignored = frozenset(word for word in query_words for code in guests if word in function_words[code])
        return Translation(terms=tuple(english), ignored=ignored)

    def _compound_heads(self, code: str, query_words: list[str]) -> list[int]:
        """Concepts named by the last part of a compound (German ``projektordner`` -> ``ordner``)."""
        stemmer, index = self._stemmers[code], self._by_stem[code]
        return [
            entry.concept
            for word in query_words
            for size in range(_COMPOUND_HEAD, len(word) - 2)
            for entry in index.get(_stem_key(stemmer, word[-size:]), ())
            if len(entry.keys) == 1
        ]


class _Segmented:
    """The entries of a language with its own segmenter, indexed when a query in its script first arrives.

    Segmenting them may load a dictionary (jieba's, for Chinese).
    """

    def __init__(self, language: Language) -> None:
        self.language = language
        self.script = script_named(language.script).pattern
        self.entries: list[tuple[str, int]] = []
        self._index: dict[str, list[_Entry]] | None = None

    def index(self) -> dict[str, list[_Entry]]:
        if self._index is None:
            index: dict[str, list[_Entry]] = {}
            for entry, concept in self.entries:
                if terms := tuple(tokenize(entry)):
                    index.setdefault(terms[0], []).append(_Entry(terms, concept))
            self._index = index
        return self._index


class _Detection:
    """Which of the languages told apart by function words a request is in."""

    def __init__(self, known: Sequence[Language]) -> None:
        guests = [language for language in known if language.detected]
        self.by_code = {language.code: language for language in guests}
        self.function_words = {language.code: frozenset(words(language.function_words)) for language in guests}
        self.word_languages: dict[str, tuple[str, ...]] = {
            word: tuple(code for code, listed in self.function_words.items() if word in listed)
            for word in frozenset().union(*self.function_words.values())
        }
        self.clitics = {language.code: re.compile(language.clitics) for language in guests if language.clitics}
        self.owner = {language.script: language.code for language in known if not language.detected}
        self._english: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        """`stopwords()` as last read, and those of its words that are no language's function word."""

    def languages(self, query_words: list[str]) -> tuple[bool, list[str]]:
        """The languages a query may be in, and whether they were detected by its function words.

        Detected: those with the most function words in it, if more than its English ones (words that are
        stopwords of any language). As many as its English ones: those are tried, not detected. With no
        function words at all, every language is tried.
        """
        dropped = stopwords()
        listed = self.word_languages
        cached = self._english
        if cached[0] is not dropped:  # read once per set of stopwords (again after a language is registered)
            cached = self._english = (dropped, dropped.difference(listed))
        # More English words than function words of every language together: no language can have as many.
        if sum(map(cached[1].__contains__, query_words)) > sum(map(listed.__contains__, query_words)):
            return False, []
        english = 0
        counts = dict.fromkeys(self.by_code, 0)
        for word in query_words:
            codes = listed.get(word)
            if codes is None:
                english += word in dropped
                continue
            for code in codes:
                counts[code] += 1
        best = max(counts.values(), default=0)
        if best and best >= english:
            return best > english, [code for code, count in counts.items() if count == best]
        return False, [] if english else list(self.by_code)


@cache
def _detection() -> _Detection:
    return _Detection(languages())


def latin_language(query_words: list[str]) -> str:
    """The language of the Latin-script words of a query: the one its function words name, else English."""
    detection = _detection()
    detected, codes = detection.languages(query_words)
    return codes[0] if detected and len(codes) == 1 else detection.owner.get("latin", HUB)


@cache
def default_translations() -> Translations:
    """The `Translations` of the registered languages, built once per process (again after a registration)."""
    return Translations()


def _forget() -> None:
    _detection.cache_clear()
    default_translations.cache_clear()


on_languages_changed(_forget)


def _stemmer(language: Language) -> Stemmer.Stemmer | None:
    return Stemmer.Stemmer(language.stemmer) if language.stemmer else None


def _stem_key(stemmer: Stemmer.Stemmer | None, word: str) -> str:
    """`word`'s stem in that language, or the word itself when the stem is too short to tell words apart."""
    stemmed = str(stemmer.stemWord(word)) if stemmer is not None else word
    return stemmed if len(stemmed) >= _SHORT_STEM else word


def _terms(language: Language, entry: str) -> tuple[str, ...]:
    """The search terms of one lexicon entry, as they appear inside a sentence of its language."""
    for name in language.takes_over:  # as inside this language's sentences: character bigrams
        if re.fullmatch(f"[{script_named(name).ranges}]+", entry):
            return tuple(bigrams(entry))
    return tuple(tokenize(entry))


def _matches(terms: Sequence[str], index: Mapping[str, list[_Entry]]) -> Iterator[tuple[int, _Entry]]:
    """The entries of `index` whose keys occur as a contiguous run of `terms`, with where the run starts."""
    for at, term in enumerate(terms):
        for entry in index.get(term, ()):
            if tuple(terms[at : at + len(entry.keys)]) == entry.keys:
                yield at, entry
