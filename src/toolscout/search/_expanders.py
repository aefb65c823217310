"""The query expanders by name (a registry a third party can add to), and toolscout's five.

In their default order (`DEFAULT_EXPANDERS`):

1. ``idioms``: the verbs that only frame a request go ("tell me the time" -> "the time"), idioms
   become the verb they mean ("let the team know" -> "notify the team"), `plain_request`.
2. ``function-words``: the function words of a request in another language (``la``, ``der``) are
   not search terms.
3. ``translations``: words in other languages also count as the English words they translate to
   ("删除", "löschen" -> "delete"), at `IndexConfig.translation_weight`, from the built-in lexicon.
4. ``synonyms``: words (and the English words of step 3) also count as the other words of their
   synonym group ("erase" -> "delete"), at `IndexConfig.synonym_weight`.
5. ``corrections``: request words no tool has count as the name word they are a typo or an
   abbreviation of, at `IndexConfig.fuzzy_weight` times the similarity.
"""

from __future__ import annotations

import functools
import re

from .._errors import ConfigError
from .._plugins import provide_names
from ._expand import ExpandedQuery, ExpanderFactory, ExpansionContext, QueryExpander
from ._fuzzy import FuzzyVocabulary
from ._lexical import QueryTerms
from ._synonyms import ActionSynonyms, Translation, default_translations, synonym_groups
from ._tokenize import stem, stopwords, words
from .languages import languages
from .languages._internal import on_languages_changed

__all__ = ["expander_names", "get_expander", "plain_request", "register_expander"]

_EXPANDERS: dict[str, ExpanderFactory] = {}


def register_expander(name: str, factory: ExpanderFactory) -> None:
    """Make a query expander available as `name` (for ``search_expanders``)."""
    _EXPANDERS[name] = factory


def get_expander(name: str) -> ExpanderFactory:
    """The factory of expander `name`.

    Raises:
        ConfigError: No expander has that name; the registered ones are listed.
    """
    try:
        return _EXPANDERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown query expander {name!r}; use some of: {', '.join(_EXPANDERS)}", key="expanders"
        ) from None


def expander_names() -> tuple[str, ...]:
    """The registered expanders, in registration order."""
    return tuple(_EXPANDERS)


provide_names("search_expanders", expander_names)


@functools.cache
def _request_rules() -> tuple[tuple[re.Pattern[str], ...], tuple[tuple[re.Pattern[str], str], ...]]:
    """Every language's frames, then every language's idioms, compiled."""
    frames = tuple(re.compile(frame) for language in languages() for frame in language.frames)
    idioms = tuple((re.compile(idiom.pattern), idiom.means) for language in languages() for idiom in language.idioms)
    return frames, idioms


on_languages_changed(_request_rules.cache_clear)


def plain_request(query: str) -> str:
    """`query` without the phrases that only frame a request, and with idioms as the verb they mean.

    "tell me the time" -> "the time"; "let the team know the build is green" -> "notify the team the
    build is green" (the languages' ``frames`` and ``idioms``).
    """
    frames, idioms = _request_rules()
    # A search costs less than a substitution that finds nothing (a template with ``\\1`` is parsed on every call).
    for frame in frames:
        if frame.search(query):
            query = frame.sub(" ", query)
    for pattern, means in idioms:
        if pattern.search(query):
            query = pattern.sub(means, query)
    return query


class _Idioms:
    """Stage 1: the request without framing verbs, idioms as their verb."""

    def rewrite(self, text: str) -> str:
        return plain_request(text)

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        return query


class _Translator:
    """The lexicon lookup of one index, shared by ``function-words`` and ``translations`` (computed once a text)."""

    def __init__(self, context: ExpansionContext) -> None:
        vocabulary = context.lexical.vocabulary
        translations = default_translations()
        self.translate = functools.lru_cache(maxsize=256)(
            lambda text: translations.translate(text, vocabulary.__contains__)
        )


def _translator(context: ExpansionContext) -> _Translator:
    return context.shared("translator", lambda: _Translator(context))


class _FunctionWords:
    """Stage 2: a foreign request's function words are dropped from its terms."""

    def __init__(self, context: ExpansionContext) -> None:
        self._translate = _translator(context).translate
        self._vocabulary = context.lexical.vocabulary

    def rewrite(self, text: str) -> str:
        return text

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        translation: Translation = self._translate(query.text)
        if not translation.ignored:
            return query
        dropped = {self._vocabulary.get(stem(word)) for word in translation.ignored}
        terms = query.terms
        kept = QueryTerms(
            weights={i: weight for i, weight in terms.weights.items() if i not in dropped},
            words=tuple(i for i in terms.words if i not in dropped),
            unknown=terms.unknown,
            stems=terms.stems,
        )
        return ExpandedQuery(
            text=query.text,
            terms=kept,
            added={i: weight for i, weight in query.added.items() if i not in dropped},
            counted=tuple(i for i in query.counted if i not in dropped),
            stands_for=query.stands_for,
            ignored=query.ignored | translation.ignored,
        )


class _Translations:
    """Stage 3: words in other languages also count as their English words."""

    def __init__(self, context: ExpansionContext) -> None:
        self._translate = _translator(context).translate
        self._term_id = context.lexical.term_id
        self._weight = context.config.translation_weight

    def rewrite(self, text: str) -> str:
        return text

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        translation: Translation = self._translate(query.text)
        if not translation.terms:
            return query
        found = ((self._term_id(word), self._weight) for word in translation.terms)
        expanded = query.adding((term, weight) for term, weight in found if term is not None)
        return ExpandedQuery(
            text=expanded.text,
            terms=expanded.terms,
            added=expanded.added,
            counted=expanded.counted,
            stands_for=expanded.stands_for + translation.terms,
            ignored=expanded.ignored,
        )


class _Synonyms:
    """Stage 4: words also count as the other words of their synonym group."""

    def __init__(self, context: ExpansionContext) -> None:
        groups = context.config.synonyms
        self._synonyms = ActionSynonyms(synonym_groups() if groups is None else groups)
        self._term_id = functools.lru_cache(maxsize=4096)(context.lexical.term_id)  # words of the synonym groups
        self._weight = context.config.synonym_weight

    def rewrite(self, text: str) -> str:
        return text

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        synonyms = self._synonyms.expand((*query.terms.stems, *query.stands_for))
        if not synonyms:
            return query
        found = ((self._term_id(word), self._weight) for word in synonyms)
        return query.adding((term, weight) for term, weight in found if term is not None)


class _Corrections:
    """Stage 5: words no tool has count as the name word they are a typo or abbreviation of."""

    def __init__(self, context: ExpansionContext) -> None:
        tools = context.catalog.tools
        self._fuzzy = FuzzyVocabulary(words("\n".join(f"{tool.namespace or ''} {tool.name}" for tool in tools)))
        self._vocabulary = context.lexical.vocabulary
        self._weight = context.config.fuzzy_weight

    def rewrite(self, text: str) -> str:
        return text

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        unknown = set(query.terms.unknown)
        if not unknown:
            return query
        corrections: list[tuple[int, float]] = []
        dropped = stopwords()
        for word in dict.fromkeys(words(query.text)):
            if word in dropped or word in query.ignored or stem(word) not in unknown:
                continue
            match = self._fuzzy.match(word)
            corrected = self._vocabulary.get(stem(match.word)) if match else None
            if match is not None and corrected is not None:
                corrections.append((corrected, self._weight * match.similarity))
        return query.adding(corrections, counted=True)


def _function_words(context: ExpansionContext) -> QueryExpander | None:
    return _FunctionWords(context) if context.config.translation_weight else None


def _translations(context: ExpansionContext) -> QueryExpander | None:
    return _Translations(context) if context.config.translation_weight else None


def _synonyms(context: ExpansionContext) -> QueryExpander | None:
    return _Synonyms(context) if context.config.synonym_weight else None


register_expander("idioms", lambda context: _Idioms())
register_expander("function-words", _function_words)
register_expander("translations", _translations)
register_expander("synonyms", _synonyms)
register_expander("corrections", _Corrections)
