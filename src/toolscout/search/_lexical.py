"""Fielded BM25 (BM25F) over a tool catalog, precomputed into sparse columns.

Each field (name, namespace, description, parameter names, parameter descriptions, enum
values) has a weight and a length normalisation; term frequencies are combined across fields
before saturation, as in BM25F (Robertson, Zaragoza & Taylor, "Simple BM25 extension to
multiple weighted fields", CIKM 2004, https://doi.org/10.1145/1031171.1031181):

    tf~(d, t) = sum_f  w_f * tf_f(d, t) / (1 - b_f + b_f * len_f(d) / avglen_f)
    bm25f(d, q) = sum_{t in q}  idf(t) * tf~ * (k1 + 1) / (k1 + tf~)
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

The terms are stemmed words plus adjacent word pairs (after stopword removal), so a request
that says "final velocity" prefers the tool that says it too. Two more signals, both summed
over the query's distinct terms, separate near-duplicate tools:

- coordination: the idf of every query term the tool contains, in any field, unsaturated
  (rewards matching *more* of the request over matching one word often);
- description coverage: the share of the tool's description (by idf) that the query covers,
  scaled by the query's total idf (rewards a tool that is *about* the request).

Every ``(tool, term)`` contribution is computed at build time (bm25s's "eager" scoring), so a
query only sums a few sparse columns (`_Columns`: each term's tools and their scores, held in
plain numpy arrays).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import filterfalse, islice, repeat
from operator import add, attrgetter, mul
from typing import Annotated, cast

import numpy as np
import numpy.typing as npt
from pydantic import Field

from .._slots import slot_setters
from .._validation import CheckedModel, Finite
from ..catalog import ToolSpec
from ._fields import FIELD_NAMES, FieldName, ToolFields, tool_fields
from ._tokenize import encode_many, stopwords, tokenize

__all__ = ["LexicalConfig", "LexicalIndex", "NonNegative", "QueryTerms"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

NonNegative = Annotated[float, Finite, Field(ge=0)]
"""A finite weight, 0 or more."""

_DIGIT = re.compile(r"\d")
_ASCII_DIGITS = re.compile("[0-9]+")
# ``(?<![\w.])[-+$€£]?\d+(?:[.,:/]\d+)*%?(?![\w])``, written to start with one character class (its first character),
# so the regex engine skips to its characters instead of trying the lookbehind at every position.
_STANDALONE_NUMBER = re.compile(r"[-+$€£\d](?<![\w.][-+$€£\d])(?:(?<=[-+$€£])\d+|(?<=\d)\d*)(?:[.,:/]\d+)*%?(?![\w])")


def _weights() -> dict[FieldName, float]:
    return {
        "name": 1.95,
        "namespace": 1.0,
        "description": 0.6,
        "param_names": 1.4,
        "param_descriptions": 0.27,
        "enums": 0.44,
    }


def _phrase_weights() -> dict[FieldName, float]:
    return {"name": 6.0, "description": 0.75, "param_descriptions": 0.19}


def _b() -> dict[FieldName, float]:
    return {
        "name": 0.6,
        "namespace": 0.0,
        "description": 1.0,
        "param_names": 0.375,
        "param_descriptions": 1.0,
        "enums": 0.75,
    }


class LexicalConfig(CheckedModel):
    """Tuning of the lexical ranking (defaults tuned on BFCL's tuning categories, see bench/)."""

    weights: Mapping[FieldName, NonNegative] = Field(default_factory=_weights)
    """Weight of a word hit in each field (a name hit outweighs a description hit)."""
    phrase_weights: Mapping[FieldName, NonNegative] = Field(default_factory=_phrase_weights)
    """Weight of an adjacent-word-pair hit in each field; fields left out get no pairs."""
    b: Mapping[FieldName, Annotated[float, Finite, Field(ge=0, le=1)]] = Field(default_factory=_b)
    """Length normalisation of each field (0: none, 1: full)."""
    k1: Annotated[float, Finite, Field(gt=0)] = 1.05
    """Term-frequency saturation."""
    coordination: NonNegative = 0.72
    """Weight of the unsaturated idf of each matched query word."""
    description_coverage: NonNegative = 0.35
    """Weight of the share of the tool's description the query covers."""
    number_weight: NonNegative = 0.35
    """Weight of a number standing alone in the query ("error 404") that some tool's text contains
    (0.35 measured best of 0.2/0.35/0.5/1.0 on BFCL and the sample requests together)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryTerms:
    """A query mapped onto the index's vocabulary."""

    weights: Mapping[int, float]
    """Term id (words and word pairs) -> weight."""
    words: tuple[int, ...]
    """The ids of the single-word terms (a subset of `weights`, each once)."""
    unknown: tuple[str, ...]
    """Query words (stemmed) that no tool contains."""
    stems: tuple[str, ...] = ()
    """Every search term of the query, in order (`tokenize`)."""


_WEIGHTS, _WORDS, _UNKNOWN, _STEMS = slot_setters(QueryTerms, "weights", "words", "unknown", "stems")


def query_terms_of(
    weights: Mapping[int, float], words: tuple[int, ...], unknown: tuple[str, ...], stems: tuple[str, ...]
) -> QueryTerms:
    """``QueryTerms(weights=weights, words=words, unknown=unknown, stems=stems)``, its slots set directly.

    Every search makes one or two (`slot_setters`: half the cost of the generated `__init__`).
    """
    terms: QueryTerms = object.__new__(QueryTerms)
    _WEIGHTS(terms, weights)
    _WORDS(terms, words)
    _UNKNOWN(terms, unknown)
    _STEMS(terms, stems)
    return terms


class LexicalIndex:
    """Precomputed fielded BM25 scores of every term of every tool.

    Built once per catalog; every method is read-only and safe to call from several threads.
    """

    def __init__(self, tools: Sequence[ToolSpec | ToolFields], *, config: LexicalConfig | None = None) -> None:
        """Index `tools` (records, or their already extracted fields); their order defines the document ids."""
        self.config = cfg = config or LexicalConfig()
        self.size = n = len(tools)
        fields = [tool if isinstance(tool, ToolFields) else tool_fields(tool) for tool in tools]
        self.vocabulary: dict[str, int] = {}
        tokens = {name: self._tokens(fields, name) for name in FIELD_NAMES}
        vocab = len(self.vocabulary)
        pairs = {name: _pairs(*tokens[name], vocab) for name in cfg.phrase_weights if name in tokens}
        keys = np.concatenate([keys for _, keys in pairs.values()]) if pairs else np.empty(0, np.int64)
        pair_keys, slots = np.unique(keys, return_inverse=True)
        pair_columns = np.split(vocab + slots, np.cumsum([len(keys) for _, keys in pairs.values()])[:-1])
        width = vocab + len(pair_keys)
        self._pair_column = dict(zip(pair_keys.tolist(), range(vocab, width), strict=True))
        docs: list[IntArray] = []
        cols: list[IntArray] = []
        vals: list[FloatArray] = []
        for name, (ids, counts) in tokens.items():
            lengths = counts.astype(np.float64)
            b = cfg.b.get(name, 0.75)
            relative = 1.0 - b + b * lengths / ((lengths.mean() if n else 0.0) or 1.0)
            norm = 1.0 / np.where(relative > 0.0, relative, 1.0)
            owner = np.repeat(np.arange(n, dtype=np.int64), counts)
            if cfg.weights.get(name, 0.0):
                docs.append(owner)
                cols.append(ids)
                vals.append(cfg.weights[name] * norm[owner])
            if name in pairs and cfg.phrase_weights[name]:
                at = pairs[name][0]
                docs.append(owner[at])
                cols.append(pair_columns[list(pairs).index(name)])
                vals.append(cfg.phrase_weights[name] * norm[owner[at]])
        tf = _Columns.from_triples(docs, cols, vals, size=n, width=width)
        self.idf: FloatArray = np.log1p((n - tf.counts + 0.5) / (tf.counts + 0.5))
        self._idf: list[float] = self.idf.tolist()  # a query reads a few: list items are cheaper to read (same values)
        self._rarest_idf = float(self.idf[:vocab].max()) if vocab else 0.0
        columns = tf.columns()
        idf_of = self.idf[columns]
        saturated = idf_of * tf.values * (cfg.k1 + 1.0) / (cfg.k1 + tf.values)
        saturated += cfg.coordination * idf_of * (columns < vocab)
        scores = _Columns(indptr=tf.indptr, docs=tf.docs, values=saturated)
        # One matrix: every term's scores, then (from column `_coverage_at` on) each word's description coverage.
        self._coverage_at = width
        self._columns = scores.followed_by(self._description_coverage(*tokens["description"]))

    def query_terms(self, query: str) -> QueryTerms:
        """Map `query` onto the vocabulary: word ids, adjacent-pair ids, and the unknown words."""
        vocabulary = self.vocabulary
        stems = tokenize(query)
        terms = stems
        # A number standing alone ("error 404", "2024") counts only when some tool's text has it.
        standalone = _STANDALONE_NUMBER.findall(query) if _DIGIT.search(query) else None
        numbers = _number_terms(" ".join(standalone)) if standalone else None
        if numbers:
            terms = [term for term in terms if term not in numbers or term in vocabulary] or terms
        size = len(vocabulary)
        # A term no tool has gets an id so negative that every pair key holding it is negative too (no pair has it).
        missing = -size * size - 1
        ids = list(map(vocabulary.get, terms, repeat(missing)))
        known = missing not in ids
        weights: dict[int, float] = dict.fromkeys(ids if known else [i for i in ids if i >= 0], 1.0)
        if numbers:
            for term in numbers.intersection(terms):
                if term in vocabulary:
                    weights[vocabulary[term]] = self.config.number_weight
        words = tuple(weights)
        # Adjacent pairs by their keys ``left * size + right`` (`_pair_id`), looked up in C loops (a pair's column is
        # at least `size`, never 0: `filter` drops only the pairs no tool has).
        keys = map(add, map(mul, ids, repeat(size)), islice(ids, 1, None))
        weights.update(dict.fromkeys(filter(None, map(self._pair_column.get, keys)), 1.0))
        unknown = () if known else tuple(dict.fromkeys(term for term, i in zip(terms, ids, strict=True) if i < 0))
        return query_terms_of(weights, words, unknown, tuple(stems))

    def term_id(self, term: str) -> int | None:
        """The id of a search term (a stem), or of a two-stem phrase written ``"left right"``, if any tool has it."""
        left, _, right = term.partition(" ")
        if not right:
            return self.vocabulary.get(term)
        left_id, right_id = self.vocabulary.get(left), self.vocabulary.get(right)
        return None if left_id is None or right_id is None else self._pair_id(left_id, right_id)

    def _pair_id(self, left: int, right: int) -> int | None:
        """The column of the adjacent word pair (`left`, `right`), if any tool has it."""
        return self._pair_column.get(left * len(self.vocabulary) + right)

    def scores(self, terms: QueryTerms) -> FloatArray:
        """Score every tool for `terms`; 0 means no term matched."""
        return self.scores_and_ideal(terms)[0]

    def scores_and_ideal(self, terms: QueryTerms) -> tuple[FloatArray, float]:
        """`scores` and `ideal` of `terms` at once: both add up the idf of its words."""
        weights = terms.weights
        if not weights:
            return np.zeros(self.size, dtype=np.float64), 0.0
        total, pairs = self._idf_totals(terms)
        columns, factors = list(weights), list(weights.values())
        if self.config.description_coverage and terms.words:
            scale = self.config.description_coverage * total
            columns += [self._coverage_at + i for i in terms.words]
            factors += [scale * weights[i] for i in terms.words]
        return self._columns.weighted_sum(columns, factors, self.size), self._ideal(total, pairs)

    def ideal(self, terms: QueryTerms) -> float:
        """An upper bound of the score of a tool that matches every word of `terms` well."""
        return self._ideal(*self._idf_totals(terms))

    def _idf_totals(self, terms: QueryTerms) -> tuple[float, float]:
        """The weighted idf of `terms`' words (their own words are distinct), and of its word pairs."""
        weights, idf, vocab = terms.weights, self._idf, len(self.vocabulary)
        total = 0.0  # added in order, as numpy scalars were (no compensated `sum`)
        for i in terms.words:
            total += idf[i] * weights[i]
        return total, sum([idf[i] * w for i, w in weights.items() if i >= vocab])

    def _ideal(self, total: float, pairs: float) -> float:
        cfg = self.config
        return total * (cfg.k1 + 1.0 + cfg.coordination + cfg.description_coverage) + pairs * (cfg.k1 + 1.0)

    def unknown_ideal(self, count: int) -> float:
        """What `count` words no tool has would add to `ideal` if each were as rare as the rarest known word."""
        cfg = self.config
        return count * self._rarest_idf * (cfg.k1 + 1.0 + cfg.coordination + cfg.description_coverage)

    def _tokens(self, fields: list[ToolFields], name: FieldName) -> tuple[IntArray, IntArray]:
        return encode_many(list(map(attrgetter(name), fields)), self.vocabulary)

    def _description_coverage(self, ids: IntArray, counts: IntArray) -> _Columns:
        owner = np.repeat(np.arange(self.size, dtype=np.int64), counts)
        size = max(self.size, 1)
        keys, order, first = _sort_keys(ids * size + owner)
        # Each tool's total adds its distinct terms in the order its text has them, so tools with
        # equal texts up to word choice get bit-equal totals (and stay tied), whatever the term ids.
        in_text = np.sort(order[first])
        totals = np.bincount(owner[in_text], weights=self.idf[ids[in_text]], minlength=self.size)
        totals[np.bincount(owner[in_text], minlength=self.size) == 0] = 1.0
        present = _Columns.from_keys(keys[first], np.empty(int(first.sum())), size=size, width=len(self.vocabulary))
        np.divide(self.idf[present.columns()], totals[present.docs], out=present.values)
        return present


def _number_terms(numbers: str) -> set[str]:
    """The terms (`tokenize`) of standalone numbers joined by spaces.

    In ASCII they are the digit runs: each is one word and its own stem, kept unless it is a stopword.
    """
    if numbers.isascii():
        return set(filterfalse(stopwords().__contains__, _ASCII_DIGITS.findall(numbers)))
    return set(tokenize(numbers))


def _pairs(ids: IntArray, counts: IntArray, vocab: int) -> tuple[IntArray, IntArray]:
    """Adjacent term pairs within each document: (index of the left term, pair key)."""
    if len(ids) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    at = np.flatnonzero(owner[:-1] == owner[1:])
    return at, ids[at] * vocab + ids[at + 1]


def _sort_keys(keys: IntArray) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
    """Sort `keys` stably: the sorted keys, the position each came from, and where each run of equal keys starts."""
    count = max(len(keys), 1)
    if int(keys.max(initial=0)) < (2**63 - count) // count:
        # Appending each key's position makes the keys unique, so the fast (unstable) sort is stable.
        keys, order = np.divmod(np.sort(keys * count + np.arange(len(keys))), count)
    else:
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
    first = np.empty(len(keys), dtype=bool)
    first[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return keys, order, first


@dataclass(frozen=True, slots=True, kw_only=True)
class _Columns:
    """A sparse (tool x term) matrix stored by column, in plain numpy arrays (the CSC layout).

    Term ``j``'s tools are ``docs[indptr[j]:indptr[j + 1]]`` (ascending), with their ``values``.
    """

    indptr: IntArray
    docs: IntArray
    values: FloatArray
    counts: IntArray = field(init=False)
    """How many tools each column has (read on every search: computed once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", np.diff(self.indptr))

    @classmethod
    def from_triples(
        cls, docs: list[IntArray], cols: list[IntArray], vals: list[FloatArray], *, size: int, width: int
    ) -> _Columns:
        """Sum (doc, column, value) triples into one entry per (doc, column); repeats add in the order given."""
        if not docs:
            return cls(indptr=np.zeros(width + 1, np.int64), docs=np.empty(0, np.int64), values=np.empty(0))
        size = max(size, 1)
        keys, order, first = _sort_keys(np.concatenate(cols) * size + np.concatenate(docs))
        values = np.bincount(np.cumsum(first) - 1, weights=np.concatenate(vals)[order])
        return cls.from_keys(keys[first], values.astype(np.float64, copy=False), size=size, width=width)

    @classmethod
    def from_keys(cls, keys: IntArray, values: FloatArray, *, size: int, width: int) -> _Columns:
        """Entries from their sorted, distinct keys ``column * size + doc`` and their values."""
        columns, docs = np.divmod(keys, size)
        indptr = np.zeros(width + 1, np.int64)
        np.cumsum(np.bincount(columns, minlength=width), out=indptr[1:])
        return cls(indptr=indptr, docs=docs, values=values)

    def columns(self) -> IntArray:
        """The column of every entry."""
        return np.repeat(np.arange(len(self.indptr) - 1, dtype=np.int64), self.counts)

    def followed_by(self, other: _Columns) -> _Columns:
        """One matrix of this one's columns, then `other`'s (other's column ``j`` becomes ``width + j``)."""
        indptr = np.concatenate([self.indptr, other.indptr[1:] + self.indptr[-1]])
        return _Columns(
            indptr=indptr,
            docs=np.concatenate([self.docs, other.docs]),
            values=np.concatenate([self.values, other.values]),
        )

    def weighted_sum(self, columns: list[int], weights: list[float], size: int) -> FloatArray:
        """The sum of `columns`, each times its weight, as one dense vector over the `size` tools.

        A tool's entries add in the order of `columns` (so the result does not depend on how they are gathered).
        """
        picked = np.array(columns, dtype=np.int64)
        # Array methods (`take`, `repeat`) rather than numpy's functions and fancy indexing: a search makes about a
        # dozen of these calls on small arrays, where the call itself is most of the cost.
        lengths = self.counts.take(picked)
        ends = lengths.cumsum()
        count = int(ends[-1]) if len(ends) else 0
        if not count:
            return np.zeros(size, dtype=np.float64)
        at = (self.indptr.take(picked) - ends + lengths).repeat(lengths)
        at += np.arange(count)
        values = self.values.take(at)
        values *= np.array(weights, dtype=np.float64).repeat(lengths)
        # With weights, `bincount` sums in float64 (its stub says int).
        return cast(FloatArray, np.bincount(self.docs.take(at), weights=values, minlength=size))
