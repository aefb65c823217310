"""Fielded BM25 (BM25F) over a tool catalog, precomputed into sparse matrices.

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
query only sums a few sparse columns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..catalog import ToolSpec
from ._fields import FIELD_NAMES, FieldName, ToolFields, tool_fields
from ._tokenize import encode_many, tokenize

__all__ = ["LexicalConfig", "LexicalIndex", "QueryTerms"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_STANDALONE_NUMBER = re.compile(r"(?<![\w.])[-+$€£]?\d+(?:[.,:/]\d+)*%?(?![\w])")


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


@dataclass(frozen=True, slots=True, kw_only=True)
class LexicalConfig:
    """Tuning of the lexical ranking (defaults tuned on BFCL's tuning categories, see bench/)."""

    weights: Mapping[FieldName, float] = field(default_factory=_weights)
    """Weight of a word hit in each field (a name hit outweighs a description hit)."""
    phrase_weights: Mapping[FieldName, float] = field(default_factory=_phrase_weights)
    """Weight of an adjacent-word-pair hit in each field; fields left out get no pairs."""
    b: Mapping[FieldName, float] = field(default_factory=_b)
    """Length normalisation of each field (0: none, 1: full)."""
    k1: float = 1.05
    """Term-frequency saturation."""
    coordination: float = 0.72
    """Weight of the unsaturated idf of each matched query word."""
    description_coverage: float = 0.35
    """Weight of the share of the tool's description the query covers."""
    number_weight: float = 0.35
    """Weight of a number standing alone in the query ("error 404") that some tool's text contains
    (0.35 measured best of 0.2/0.35/0.5/1.0 on BFCL and the sample requests together)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryTerms:
    """A query mapped onto the index's vocabulary."""

    weights: Mapping[int, float]
    """Term id (words and word pairs) -> weight."""
    words: tuple[int, ...]
    """The ids of the single-word terms (a subset of `weights`)."""
    unknown: tuple[str, ...]
    """Query words (stemmed) that no tool contains."""


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
        self._pair_keys, slots = np.unique(keys, return_inverse=True)
        pair_columns = np.split(vocab + slots, np.cumsum([len(keys) for _, keys in pairs.values()])[:-1])
        width = vocab + len(self._pair_keys)
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
        tf = _matrix(docs, cols, vals, (n, width))
        df = np.bincount(tf.indices, minlength=width).astype(np.float64)
        self.idf: FloatArray = np.log1p((n - df + 0.5) / (df + 0.5))
        idf_of = self.idf[tf.indices]
        saturated = idf_of * tf.data * (cfg.k1 + 1.0) / (cfg.k1 + tf.data)
        saturated += cfg.coordination * idf_of * (tf.indices < vocab)
        self._scores = sp.csr_matrix((saturated, tf.indices, tf.indptr), shape=(n, width)).tocsc()
        self._coverage = self._description_coverage(*tokens["description"])

    def query_terms(self, query: str) -> QueryTerms:
        """Map `query` onto the vocabulary: word ids, adjacent-pair ids, and the unknown words."""
        vocabulary = self.vocabulary
        terms = tokenize(query)
        # A number standing alone ("error 404", "2024") counts only when some tool's text has it.
        numbers = set(tokenize(" ".join(_STANDALONE_NUMBER.findall(query))))
        if numbers:
            terms = [term for term in terms if term not in numbers or term in vocabulary] or terms
        ids = np.fromiter((vocabulary.get(term, -1) for term in terms), dtype=np.int64, count=len(terms))
        weights: dict[int, float] = dict.fromkeys(ids[ids >= 0].tolist(), 1.0)
        for term in numbers.intersection(terms):
            weights[vocabulary[term]] = self.config.number_weight
        words = tuple(weights)
        if len(ids) > 1 and len(self._pair_keys):
            vocab = len(vocabulary)
            both = (ids[:-1] >= 0) & (ids[1:] >= 0)
            keys = ids[:-1][both] * vocab + ids[1:][both]
            slots = np.minimum(np.searchsorted(self._pair_keys, keys), len(self._pair_keys) - 1)
            found = slots[self._pair_keys[slots] == keys]
            weights.update(dict.fromkeys((vocab + found).tolist(), 1.0))
        unknown = tuple(dict.fromkeys(term for term, i in zip(terms, ids.tolist(), strict=True) if i < 0))
        return QueryTerms(weights=weights, words=words, unknown=unknown)

    def scores(self, terms: QueryTerms) -> FloatArray:
        """Score every tool for `terms`; 0 means no term matched."""
        if not terms.weights:
            return np.zeros(self.size, dtype=np.float64)
        out = _sum_columns(self._scores, terms.weights, self.size)
        if self.config.description_coverage and terms.words:
            word_weights = {i: terms.weights[i] for i in terms.words}
            total = sum(self.idf[i] * w for i, w in word_weights.items())
            out += self.config.description_coverage * total * _sum_columns(self._coverage, word_weights, self.size)
        return out

    def ideal(self, terms: QueryTerms) -> float:
        """An upper bound of the score of a tool that matches every word of `terms` well."""
        cfg = self.config
        total = sum(float(self.idf[i]) * terms.weights[i] for i in terms.words)
        pairs = sum(float(self.idf[i]) * w for i, w in terms.weights.items() if i >= len(self.vocabulary))
        return total * (cfg.k1 + 1.0 + cfg.coordination + cfg.description_coverage) + pairs * (cfg.k1 + 1.0)

    def _tokens(self, fields: list[ToolFields], name: FieldName) -> tuple[IntArray, IntArray]:
        return encode_many(list(map(attrgetter(name), fields)), self.vocabulary)

    def _description_coverage(self, ids: IntArray, counts: IntArray) -> sp.csc_matrix:
        owner = np.repeat(np.arange(self.size, dtype=np.int64), counts)
        present = _matrix([owner], [ids], [np.ones(len(ids))], (self.size, len(self.vocabulary)))
        present.data = self.idf[present.indices]
        per_tool = np.diff(present.indptr)
        rows = np.repeat(np.arange(self.size, dtype=np.int64), per_tool)
        totals = np.bincount(rows, weights=present.data, minlength=self.size)
        totals[per_tool == 0] = 1.0
        present.data /= np.repeat(totals, per_tool)
        return present.tocsc()


def _pairs(ids: IntArray, counts: IntArray, vocab: int) -> tuple[IntArray, IntArray]:
    """Adjacent term pairs within each document: (index of the left term, pair key)."""
    if len(ids) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    at = np.flatnonzero(owner[:-1] == owner[1:])
    return at, ids[at] * vocab + ids[at + 1]


def _matrix(
    docs: list[IntArray], cols: list[IntArray], vals: list[FloatArray], shape: tuple[int, int]
) -> sp.csr_matrix:
    """Sum (doc, col, value) triples into a CSR matrix with sorted, unique entries."""
    if not docs:
        return sp.csr_matrix(shape, dtype=np.float64)
    matrix = sp.csr_matrix((np.concatenate(vals), (np.concatenate(docs), np.concatenate(cols))), shape=shape)
    matrix.sum_duplicates()
    return matrix


def _sum_columns(matrix: sp.csc_matrix, weights: Mapping[int, float], size: int) -> FloatArray:
    """Sum the weighted columns `weights` (column -> weight) of a CSC matrix into one dense row vector."""
    columns = np.fromiter(weights.keys(), dtype=np.int64, count=len(weights))
    starts = matrix.indptr[columns].astype(np.int64)
    lengths = matrix.indptr[columns + 1] - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(size, dtype=np.float64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    scale = np.repeat(np.fromiter(weights.values(), dtype=np.float64, count=len(weights)), lengths)
    summed = np.bincount(matrix.indices[offsets], weights=matrix.data[offsets] * scale, minlength=size)
    return summed.astype(np.float64, copy=False)
