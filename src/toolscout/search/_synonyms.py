"""Interchangeable words: a request says "remove", the tool says "delete"; or says "删除", or "löschen".

Tool names and descriptions use a small set of conventional verbs (create, get, update,
delete, search, ...) while people asking for them use many others. `ActionSynonyms` expands
a query's action words to the conventional ones the catalog uses, at a reduced weight, so a
literal match still ranks first and an expansion only breaks ties or fills a gap.

The groups are deliberately narrow (words that name the same operation on a tool, not
general-purpose synonyms) and English only; stems are compared, so "removing" and "removes"
expand like "remove". A few groups of nouns for the same thing (`OBJECT_GROUPS`: folder and
directory, movie and film) expand the same way.

`Translations` bridges languages with a small lexicon (``lexicon.txt``: the most frequent words
of tool names and descriptions, in ten languages). A query word in another language also counts
as the English word of its concept (and expands to that word's synonyms), so a request in
Chinese or German finds English-described tools on the words they share; English words are never
translated. Words are matched by script: Chinese as jieba words, Japanese, Korean and Thai as runs
of character bigrams, Russian by its stems, and Spanish, French, German and Portuguese with that
language's Snowball stemmer, only when the query's function words say it is in that language
(then those function words are ignored, and German compounds also match on their last word:
``Projektordner`` -> ``ordner``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import Stemmer

from ._tokenize import STOPWORDS, stem, tokenize, words

__all__ = [
    "ACTION_GROUPS",
    "LANGUAGES",
    "OBJECT_GROUPS",
    "ActionSynonyms",
    "Translation",
    "Translations",
    "default_translations",
    "latin_language",
]

ACTION_GROUPS: tuple[tuple[str, ...], ...] = (
    ("create", "add", "insert", "generate", "establish"),
    ("delete", "remove", "erase", "drop", "destroy", "purge"),
    ("update", "modify", "edit", "alter", "amend"),
    ("get", "fetch", "retrieve", "obtain"),
    ("search", "lookup", "locate"),
    ("list", "enumerate"),
    ("send", "submit", "post", "notify"),
    ("execute", "invoke", "launch"),
    ("stop", "cancel", "terminate", "abort", "halt"),
    ("calculate", "compute"),
    ("convert", "transform"),
    ("book", "reserve"),
    ("buy", "purchase"),
)
"""Groups of words that name the same operation; each word of a group expands to the others."""

OBJECT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("folder", "directory"),
    ("movie", "film"),
    ("picture", "image", "photo"),
    ("repo", "repository"),
    ("doc", "document"),
    ("pr", "pull request"),
    ("mr", "merge request"),
)
"""Groups of nouns that name the same thing in tool descriptions; each expands to the others."""


class ActionSynonyms:
    """Expands query stems to the other stems of their group.

    A group member may be a two-word phrase ("pull request"): a query word expands to it (as the
    phrase's stems joined by a space), never the other way round.
    """

    def __init__(self, groups: Iterable[Sequence[str]] = ACTION_GROUPS) -> None:
        """Index `groups` by stem (a word in several groups expands to all of them)."""
        expansions: dict[str, dict[str, None]] = {}
        for group in groups:
            stems = [" ".join(stem(part) for part in word.lower().split()) for word in group]
            for one in stems:
                expansions.setdefault(one, {}).update(dict.fromkeys(s for s in stems if s != one))
        self._expansions: Mapping[str, tuple[str, ...]] = {key: tuple(found) for key, found in expansions.items()}

    def expand(self, stems: Iterable[str]) -> list[str]:
        """The stems `stems` expand to, in order, without the ones already in `stems`."""
        given = dict.fromkeys(stems)
        out: dict[str, None] = {}
        for one in given:
            out.update(dict.fromkeys(s for s in self._expansions.get(one, ()) if s not in given))
        return list(out)


LANGUAGES: tuple[str, ...] = ("en", "zh", "ja", "ko", "th", "es", "fr", "de", "pt", "ru")
"""The columns of the lexicon, in order."""

# Function words that tell a Latin-script query's language (English ones left out).
_FUNCTION_WORDS_TEXT = {
    "es": "a de el la los las del al un una unos unas que en y con para por su sus mi mis es esta este hay "
    "qué cómo cuándo dónde quién cuál cuáles",
    "fr": "à de le la les des du un une et est dans pour sur au aux ce cette mon ma mes qui que avec "
    "quel quelle quels quelles comment quand où",
    "de": "der die das den dem des ein eine einen und ist im mit für auf von zum zur mein meine ich "
    "welche welcher welches wie wann wo wer",
    "pt": "a de o os as do da dos das um uma que em e com para por no na nos meu minha é qual quais quando onde quem",
}
_FUNCTION_WORDS = {lang: frozenset(words(text)) for lang, text in _FUNCTION_WORDS_TEXT.items()}
_SNOWBALL = {"es": "spanish", "fr": "french", "de": "german", "pt": "portuguese"}
# Spanish and Portuguese imperatives carry their pronouns: "muéstrame", "envíalo", "pásale".
_CLITIC = re.compile(r"(?:me|te|le|lo|la|se|nos|les|los|las)$")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
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

    def __init__(self, lexicon: str | None = None) -> None:
        """Parse `lexicon` (default: the built-in ``lexicon.txt``; one concept a line, columns in `LANGUAGES` order)."""
        if lexicon is None:
            lexicon = (resources.files(__package__) / "lexicon.txt").read_text(encoding="utf-8")
        self._english: list[tuple[str, ...]] = []
        self._by_term: dict[str, list[_Entry]] = {}
        self._chinese: list[tuple[str, int]] = []
        self._by_chinese_term: dict[str, list[_Entry]] | None = None
        self._by_stem: dict[str, dict[str, list[_Entry]]] = {lang: {} for lang in _SNOWBALL}
        self._stemmers = {lang: Stemmer.Stemmer(name) for lang, name in _SNOWBALL.items()}
        for line in filter(None, (line.strip() for line in lexicon.splitlines() if not line.startswith("#"))):
            columns = [column.split() for column in line.split("|")]
            if len(columns) != len(LANGUAGES):
                raise ValueError(f"lexicon line needs {len(LANGUAGES)} columns: {line!r}")
            concept = len(self._english)
            english = (term for word in columns[0] for term in tokenize(word.replace("_", " ")))
            self._english.append(tuple(dict.fromkeys(english)))
            for lang, entries in zip(LANGUAGES[1:], columns[1:], strict=True):
                for entry in entries:
                    if lang in _SNOWBALL:
                        keys = tuple(_stem_key(self._stemmers[lang], word) for word in words(entry.replace("_", " ")))
                        self._by_stem[lang].setdefault(keys[0], []).append(_Entry(keys, concept))
                    elif lang == "zh":
                        self._chinese.append((entry.replace("_", ""), concept))  # segmented on first use
                    elif terms := _terms(lang, entry):
                        self._by_term.setdefault(terms[0], []).append(_Entry(terms, concept))

    def translate(self, query: str, known: Callable[[str], bool] | None = None) -> Translation:
        """The English terms the words of `query` in other languages stand for, and its foreign function words.

        Args:
            query: The request.
            known: Whether the catalog has a term (an English stem); a Latin-script word the catalog
                already has is taken as it is, never translated ("data" is not Portuguese for "date").
        """
        query_words = words(query)
        detected, languages = self._languages(query_words)
        if not languages and query.isascii():
            return _NOTHING  # the lexicon's other entries are all in other scripts
        terms = [stem(word) for word in query_words if word not in STOPWORDS]  # = tokenize(query)
        found = [entry.concept for _, entry in _matches(terms, self._by_term)]
        if _HAN.search(query):
            found.extend(entry.concept for _, entry in _matches(terms, self._chinese_index()))
        fresh = [not (known and known(stem(word))) for word in query_words] if languages else []
        for lang in languages:
            stemmer = self._stemmers[lang]
            stems = [_stem_key(stemmer, word) for word in query_words]
            for at, entry in _matches(stems, self._by_stem[lang]):
                found.extend([entry.concept] if any(fresh[at : at + len(entry.keys)]) else [])
            if lang in ("es", "pt"):
                bare = [_stem_key(stemmer, _CLITIC.sub("", word)) if len(word) > 5 else "" for word in query_words]
                found.extend(entry.concept for at, entry in _matches(bare, self._by_stem[lang]) if fresh[at])
            if lang == "de" and detected:
                found.extend(self._compound_heads([w for w, new in zip(query_words, fresh, strict=True) if new]))
        given = set(terms)
        english = [term for term in dict.fromkeys(t for c in found for t in self._english[c]) if term not in given]
        ignored = frozenset(word for word in query_words for lang in languages if word in _FUNCTION_WORDS[lang])
        return Translation(terms=tuple(english), ignored=ignored)

    def _chinese_index(self) -> dict[str, list[_Entry]]:
        """The Chinese entries by first term, segmented by jieba when the first Chinese query arrives."""
        if self._by_chinese_term is None:
            index: dict[str, list[_Entry]] = {}
            for entry, concept in self._chinese:
                if terms := tuple(tokenize(entry)):
                    index.setdefault(terms[0], []).append(_Entry(terms, concept))
            self._by_chinese_term = index
        return self._by_chinese_term

    @staticmethod
    def _languages(query_words: list[str]) -> tuple[bool, list[str]]:
        """The languages a Latin-script query may be in, and whether they were detected by its function words.

        Detected: those with the most function words in it, if more than its English ones. As many
        as its English ones: those are tried, not detected. With no function words at all, every
        language is tried.
        """
        english = 0
        counts = dict.fromkeys(_SNOWBALL, 0)
        for word in query_words:
            for lang in _FUNCTION_WORD_LANGUAGES.get(word, ()):
                counts[lang] += 1
            english += word in STOPWORDS and word not in _FUNCTION_WORD_LANGUAGES
        best = max(counts.values())
        if best and best >= english:
            return best > english, [lang for lang, count in counts.items() if count == best]
        return False, [] if english else list(_SNOWBALL)

    def _compound_heads(self, query_words: list[str]) -> list[int]:
        """Concepts named by the last part of a German compound (``projektordner`` -> ``ordner``)."""
        stemmer, index = self._stemmers["de"], self._by_stem["de"]
        return [
            entry.concept
            for word in query_words
            for size in range(_COMPOUND_HEAD, len(word) - 2)
            for entry in index.get(_stem_key(stemmer, word[-size:]), ())
            if len(entry.keys) == 1
        ]


def _stem_key(stemmer: Stemmer.Stemmer, word: str) -> str:
    """`word`'s stem in that language, or the word itself when the stem is too short to tell words apart."""
    stemmed = str(stemmer.stemWord(word))
    return stemmed if len(stemmed) >= _SHORT_STEM else word


def _terms(lang: str, entry: str) -> tuple[str, ...]:
    """The search terms of one lexicon entry, as they appear inside a sentence of its language."""
    if lang == "ja" and _HAN.fullmatch(entry):  # bigrams, as inside a Japanese sentence
        return tuple(entry[i : i + 2] for i in range(len(entry) - 1)) or (entry,)
    return tuple(tokenize(entry.replace("_", " ")))


_FUNCTION_WORD_LANGUAGES: dict[str, tuple[str, ...]] = {
    word: tuple(lang for lang, stop in _FUNCTION_WORDS.items() if word in stop)
    for word in frozenset().union(*_FUNCTION_WORDS.values())
}


def latin_language(query_words: list[str]) -> str:
    """The language of the Latin-script words of a query: the one its function words name, else English."""
    detected, languages = Translations._languages(query_words)
    return languages[0] if detected and len(languages) == 1 else "en"


@cache
def default_translations() -> Translations:
    """The `Translations` of the built-in lexicon, parsed once per process."""
    return Translations()


def _matches(terms: Sequence[str], index: Mapping[str, list[_Entry]]) -> Iterator[tuple[int, _Entry]]:
    """The entries of `index` whose keys occur as a contiguous run of `terms`, with where the run starts."""
    for at, term in enumerate(terms):
        for entry in index.get(term, ()):
            if tuple(terms[at : at + len(entry.keys)]) == entry.keys:
                yield at, entry
