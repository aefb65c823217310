"""The query-expansion stage of lexical search: the `QueryExpander` contract and the record it passes on.

`ToolIndex` maps a request onto its vocabulary through an ordered list of expanders
(``search_expanders``, names in the registry of `_expanders.py`): each may rewrite the request's
text, then each may add weighted terms to what the request's own words give.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from .._slots import slot_setters
from ..catalog import Catalog
from ._lexical import LexicalIndex, QueryTerms, query_terms_of

if TYPE_CHECKING:
    from ._index import IndexConfig

__all__ = ["ExpandedQuery", "ExpanderFactory", "ExpansionContext", "QueryExpander"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpandedQuery:
    """A request on its way through the expanders (immutable: an expander returns a new one)."""

    text: str
    """The request's text as every expander rewrote it."""
    terms: QueryTerms
    """The terms of the request's own words (`LexicalIndex.query_terms` of `text`), less any an expander dropped."""
    added: Mapping[int, float] = field(default_factory=dict)
    """Terms the expanders added (term id -> weight), in the order they were added; never one of `terms`."""
    counted: tuple[int, ...] = ()
    """Added terms that count as words of the request (its relevance floor and word coverage), e.g. a typo's
    correction; the other added terms only add to a tool's score."""
    stands_for: tuple[str, ...] = ()
    """English stems the request's words in other languages stand for, so later expanders expand them too."""
    ignored: frozenset[str] = frozenset()
    """Words of the request that are not search terms (function words of another language)."""

    def has(self, term: int) -> bool:
        """Whether `term` is already one of the request's terms, its own or added."""
        return term in self.terms.weights or term in self.added

    def adding(self, terms: Iterable[tuple[int, float]], *, counted: bool = False) -> ExpandedQuery:
        """This query plus the (term id, weight) pairs it does not have yet, in order (the first weight wins)."""
        added = dict(self.added)
        fresh: list[int] = []
        own = self.terms.weights
        for term, weight in terms:
            if term not in own and term not in added:
                added[term] = weight
                fresh.append(term)
        if not fresh:
            return self
        return ExpandedQuery(  # not `dataclasses.replace`, which costs more than the expansion on every search
            text=self.text,
            terms=self.terms,
            added=added,
            counted=self.counted + tuple(fresh) if counted else self.counted,
            stands_for=self.stands_for,
            ignored=self.ignored,
        )

    def final(self) -> QueryTerms:
        """The terms lexical scoring reads: the request's own, then the added ones."""
        if not self.added:
            return self.terms
        terms = self.terms
        return query_terms_of({**terms.weights, **self.added}, terms.words + self.counted, terms.unknown, terms.stems)


_TEXT, _TERMS, _ADDED, _COUNTED, _STANDS_FOR, _IGNORED = slot_setters(
    ExpandedQuery, "text", "terms", "added", "counted", "stands_for", "ignored"
)


def unexpanded(text: str, terms: QueryTerms) -> ExpandedQuery:
    """``ExpandedQuery(text=text, terms=terms)``, before any expander, its slots set directly.

    Every search makes one (`slot_setters`: half the cost of the generated `__init__`).
    """
    query: ExpandedQuery = object.__new__(ExpandedQuery)
    _TEXT(query, text)
    _TERMS(query, terms)
    _ADDED(query, {})
    _COUNTED(query, ())
    _STANDS_FOR(query, ())
    _IGNORED(query, frozenset())
    return query


class QueryExpander(Protocol):
    """One stage of query expansion, built once per index by its registered `ExpanderFactory`.

    Contract:

    - `rewrite` gets the request's text (as the expanders before it left it) and returns the text to
      search; the request is tokenized after every expander's `rewrite`. Return `text` unchanged when
      the stage only adds terms.
    - `expand` gets the request after the expanders before it and returns it with this stage's
      terms added (`ExpandedQuery.adding`: only term ids of this index, `context.lexical`), or with
      words dropped from `terms`; it never raises the weight of a term already there and never
      mutates its argument.
    - Both are deterministic (same input, same output) and safe to call from several threads at
      once: searches run on worker threads.
    """

    def rewrite(self, text: str) -> str:
        """The request's text as this stage wants it searched."""
        ...

    def expand(self, query: ExpandedQuery) -> ExpandedQuery:
        """The request with this stage's terms added."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ExpansionContext:
    """What an `ExpanderFactory` builds its expander from: one index's catalog, vocabulary and settings."""

    catalog: Catalog
    """The indexed catalog."""
    lexical: LexicalIndex
    """The catalog's lexical index (`vocabulary`, `term_id`, `query_terms`)."""
    config: IndexConfig
    """The index's settings (the expanders' weights)."""
    _shared: dict[str, object] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def shared(self, key: str, make: Callable[[], _T]) -> _T:
        """One object per index under `key`, made on first use (for work two expanders of one index share)."""
        with self._lock:
            if key not in self._shared:
                self._shared[key] = make()
            value: _T = self._shared[key]  # type: ignore[assignment]
            return value


ExpanderFactory: TypeAlias = Callable[[ExpansionContext], QueryExpander | None]
"""Builds an index's expander; None leaves the stage out for that index (its weight is 0)."""
