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

import re
from collections.abc import Set

from ._synonyms import latin_language
from ._tokenize import words

__all__ = ["known_share", "word_languages"]

_SCRIPTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"[\u3040-\u30ff\uff66-\uff9f]"), "ja"),
    (re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"), "ko"),
    (re.compile(r"[\u0e00-\u0e7f]"), "th"),
    (re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"), "zh"),
    (re.compile(r"[\u0400-\u04ff]"), "ru"),
)
_KANA = _SCRIPTS[0][0]
_LETTER = re.compile(r"[^\W\d_]")


def word_languages(query: str) -> list[str]:
    """The language of each word of `query` that has letters, in order (ISO 639-1 codes)."""
    query_words = [word for word in words(query) if _LETTER.search(word)]
    latin = latin_language(query_words)
    japanese = bool(_KANA.search(query))
    found: list[str] = []
    for word in query_words:
        language = next((code for pattern, code in _SCRIPTS if pattern.search(word)), latin)
        found.append("ja" if language == "zh" and japanese else language)
    return found


def known_share(query: str, languages: Set[str] | None) -> float:
    """The share of `query`'s words written in `languages` (None: the model knows every language, 1.0).

    A query without letters (digits, symbols) counts as known.
    """
    if languages is None:
        return 1.0
    found = word_languages(query)
    return sum(language in languages for language in found) / len(found) if found else 1.0
