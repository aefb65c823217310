"""Languages as data: each language search knows is one TOML file, behind a registry.

A file (``en.toml``, ``zh.toml``, ...; format in docs/LANGUAGES.md) holds a language's script, stemmer,
segmenter, stopwords, function words, idioms, synonym groups and its words for each concept of the
lexicon. The tokenizer, the lexicon translation and the query rules read them through `languages()`;
a new language is one file and `register_language(load_language(path))`.
"""

from ._language import Idiom, Language, SynonymGroups, load_language
from ._registry import HUB, get_language, languages, on_languages_changed, register_language
from ._scripts import SCRIPTS, SEGMENTERS, Script, bigrams, script_named

__all__ = [
    "bigrams",
    "get_language",
    "HUB",
    "Idiom",
    "Language",
    "languages",
    "load_language",
    "on_languages_changed",
    "register_language",
    "Script",
    "script_named",
    "SCRIPTS",
    "SEGMENTERS",
    "SynonymGroups",
]
