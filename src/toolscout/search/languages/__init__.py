"""Languages as data: each language search knows is one TOML file, behind a registry.

A file (``en.toml``, ``zh.toml``, ...; format in docs/LANGUAGES.md) holds a language's script, stemmer,
segmenter, stopwords, function words, idioms, synonym groups and its words for each concept of the
lexicon. The tokenizer, the lexicon translation and the query rules read them through `languages()`;
a new language is one file and `register_language(load_language(path))`.
"""

from ._language import Language, load_language
from ._registry import get_language, languages, register_language

__all__ = [
    "get_language",
    "Language",
    "languages",
    "load_language",
    "register_language",
]
