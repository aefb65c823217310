"""One language as data: the `Language` record a language file (TOML) is validated into."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Annotated

import Stemmer
from pydantic import AfterValidator, Field, field_validator

from ..._errors import ConfigError
from ..._validation import CheckedModel, validate_section
from ._scripts import SCRIPTS, SEGMENTERS

__all__ = ["Idiom", "Language", "SynonymGroups", "load_language"]

_MAX_PATTERN = 500
_MAX_ENTRY = 100


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"is not a valid regular expression: {exc}") from None
    return pattern


def _known_script(name: str) -> str:
    if name not in {script.name for script in SCRIPTS}:
        raise ValueError(f"unknown script {name!r}; use one of: {', '.join(script.name for script in SCRIPTS)}")
    return name


Pattern = Annotated[str, Field(min_length=1, max_length=_MAX_PATTERN), AfterValidator(_compiles)]
ScriptName = Annotated[str, AfterValidator(_known_script)]
Entry = Annotated[str, Field(min_length=1, max_length=_MAX_ENTRY)]


class Idiom(CheckedModel):
    """A phrase that means a verb a tool would use: ``let the team know`` -> ``notify the team``."""

    pattern: Pattern
    """A regular expression (``(?i)`` for any case)."""
    means: str = Field(max_length=_MAX_PATTERN)
    """What a match becomes (``\\1`` for the pattern's first group)."""


class SynonymGroups(CheckedModel):
    """Words that name the same operation or thing in tool descriptions; each expands to the others."""

    actions: tuple[tuple[Entry, ...], ...] = ()
    """Verbs (``delete``, ``remove``, ``erase``)."""
    objects: tuple[tuple[Entry, ...], ...] = ()
    """Nouns (``folder``, ``directory``); a member may be a phrase (``pull request``)."""


class Language(CheckedModel):
    """What toolscout's lexical search knows about one language; one TOML file (docs/LANGUAGES.md).

    A language either owns a script (`script` without `function_words`: its words are that language's, stemmed
    with its `stemmer`, split by its `segmenter`), or shares one and is told apart by its `function_words`
    (Spanish within Latin script). Its `lexicon` maps the concepts of the English lexicon to its own words,
    so a request in it finds tools described in English.
    """

    code: str = Field(pattern=r"^[a-z]{2,3}$")
    """ISO 639 code (``en``, ``zh``)."""
    name: str = Field(min_length=1, max_length=64)
    """English name."""
    script: ScriptName = "latin"
    """The script it is written in (`SCRIPTS`)."""
    takes_over: tuple[ScriptName, ...] = ()
    """Scripts whose words are this language's when a request also has its own script (Japanese: Han with
    kana); lexicon entries written only in them are matched as inside this language's sentences (as bigrams)."""
    stemmer: str | None = None
    """Snowball algorithm (PyStemmer's name: ``english``, ``russian``); none: words are compared whole."""
    segmenter: str | None = None
    """How runs of an unspaced script split into words (``jieba``); none: character bigrams."""
    stopwords: str = ""
    """Words never searched for, separated by spaces: dropped from every text."""
    function_words: str = ""
    """Words that tell a request is in this language (``der``, ``la``); dropped when it is."""
    clitics: Pattern | None = None
    """Pronouns an imperative carries at its end (``muéstrame``); a long word is also matched without them."""
    compound_heads: bool = False
    """A compound also matches on its last word (``Projektordner`` -> ``Ordner``)."""
    frames: tuple[Pattern, ...] = ()
    """Phrases that only frame a request (``tell me``): removed before searching."""
    idioms: tuple[Idiom, ...] = ()
    """Phrases that mean a verb a tool would use, rewritten to it."""
    synonyms: SynonymGroups = SynonymGroups()
    """Interchangeable words of tool descriptions (only the language tools are described in needs them)."""
    lexicon: dict[Entry, tuple[Entry, ...]] = {}
    """Concept (the English lexicon's key) -> this language's words for it; a phrase's words joined by spaces."""

    @field_validator("stemmer")
    @classmethod
    def _stemmer_exists(cls, value: str | None) -> str | None:
        if value is not None and value not in Stemmer.algorithms():
            raise ValueError(f"unknown Snowball stemmer {value!r}; use one of: {', '.join(Stemmer.algorithms())}")
        return value

    @field_validator("segmenter")
    @classmethod
    def _segmenter_exists(cls, value: str | None) -> str | None:
        if value is not None and value not in SEGMENTERS:
            raise ValueError(f"unknown segmenter {value!r}; use one of: {', '.join(SEGMENTERS)}")
        return value

    @property
    def stopword_set(self) -> frozenset[str]:
        """`stopwords` as a set."""
        return frozenset(self.stopwords.split())

    @property
    def detected(self) -> bool:
        """Told apart from the other languages of its script by its function words."""
        return bool(self.function_words.strip())


def load_language(path: str | Path) -> Language:
    """Read and validate the language file `path` (TOML).

    Raises:
        ConfigError: The file cannot be read or parsed, or a field is invalid; the error names the file,
            the field and the limit it broke.
    """
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the language file {path}: {exc}", key="language") from None
    return validate_section(Language, data, "language", source=str(path))
