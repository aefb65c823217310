"""Which languages a query is written in, so hybrid search trusts an embedder only as far as it knows them.

An English-only embedding model (all-MiniLM-L6-v2, the default) places a Chinese or Thai request
close to arbitrary tools, so its similarities would add noise to the lexical ranking. `known_share`
says what share of a query's words are in the languages a model knows; the dense ranker scales its
similarities by it, so a Chinese request ranks lexically, a mixed one ("发送消息到 slack 频道") leans
on its English words, and an English one is unchanged.

A word's language comes from its script (Han: Chinese, or Japanese when the query has kana;
kana: Japanese; Hangul: Korean; Thai; Cyrillic: Russian) and, for Latin script, from the query's
function words (Spanish, French, German, Portuguese; English otherwise). Digits carry no language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Set

from ._synonyms import latin_language
from ._tokenize import words
from .languages import languages
from .languages._internal import SCRIPTS, script_named

__all__ = ["known_share", "known_share_in", "word_languages"]

_LETTER = re.compile(r"[^\W\d_]")


def word_languages(query: str) -> list[str]:
    """The language of each word of `query` that has letters, in order (ISO 639-1 codes)."""
    if query.isascii():  # every word is in Latin script, the last of `SCRIPTS`, which holds all of ASCII
        # An ASCII word is all letters or all digits (`words`): one without digits has letters.
        query_words = [word for word in words(query) if not word.isdigit()]
        return [latin_language(query_words)] * len(query_words)
    query_words = [word for word in words(query) if _LETTER.search(word)]
    latin = latin_language(query_words)
    owners = {language.script: language for language in languages() if not language.detected}
    by_script = [(script.pattern, owners[script.name]) for script in SCRIPTS if script.name in owners]
    # Japanese takes Han over when the query has kana.
    taken = {
        script: language.code
        for language in owners.values()
        if script_named(language.script).pattern.search(query)
        for script in language.takes_over
    }
    found: list[str] = []
    for word in query_words:
        owner = next((language for pattern, language in by_script if pattern.search(word)), None)
        if owner is None or owner.script == "latin":
            found.append(latin)
        else:
            found.append(taken.get(owner.script, owner.code))
    return found


def known_share(query: str, languages: Set[str] | None) -> float:
    """The share of `query`'s words written in `languages` (None: the model knows every language, 1.0).

    A query without letters (digits, symbols) counts as known.
    """
    if languages is None:
        return 1.0
    found = word_languages(query)
    return sum(language in languages for language in found) / len(found) if found else 1.0


def known_share_in(languages: Set[str] | None) -> Callable[[str], float] | None:
    """`known_share` for a model that knows `languages`, as a `DenseRanker` takes it (None: every language)."""
    return None if languages is None else functools.partial(known_share, languages=languages)
