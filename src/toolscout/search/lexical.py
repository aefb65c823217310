"""Fielded BM25 (BM25F) over a tool catalog, precomputed into one sparse matrix.

Each field (name, namespace, description, parameter names, parameter descriptions, enum
values) has a weight and a length normalisation. Term frequencies are combined across fields
before saturation, as in BM25F (Robertson, Zaragoza & Taylor, "Simple BM25 extension to
multiple weighted fields", CIKM 2004; Zaragoza et al., "Microsoft Cambridge at TREC-13", 2004):

    tf~(d, t) = sum_f  w_f * tf_f(d, t) / (1 - b_f + b_f * len_f(d) / avglen_f)
    score(d, q) = sum_{t in q}  idf(t) * tf~ * (k1 + 1) / (k1 + tf~)
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

Every ``(tool, term)`` score is computed at build time (the "eager" scoring of bm25s), so a
query only sums a few sparse columns. A second matrix scores how much of a tool's *name* the
query covers (idf-weighted), which separates a tool named after the request from tools that
merely mention its words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..catalog import ToolSpec
from .fields import FIELD_NAMES, FieldName, tool_fields
from .tokenize import tokenize, tokenize_many, words

__all__ = ["LexicalConfig", "LexicalIndex"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def _default_weights() -> dict[FieldName, float]:
    return {
        "name": 3.0,
        "namespace": 1.0,
        "description": 1.0,
        "param_names": 0.6,
        "param_descriptions": 0.25,
        "enums": 0.25,
    }


def _default_b() -> dict[FieldName, float]:
    return {
        "name": 0.3,
        "namespace": 0.0,
        "description": 0.6,
        "param_names": 0.5,
        "param_descriptions": 0.75,
        "enums": 0.75,
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class LexicalConfig:
    """Tuning of the lexical ranking (defaults tuned on the BFCL tuning categories)."""

    weights: Mapping[FieldName, float] = field(default_factory=_default_weights)
    """Weight of each field's term frequency (a name hit outweighs a description hit)."""
    b: Mapping[FieldName, float] = field(default_factory=_default_b)
    """Length normalisation of each field (0: none, 1: full)."""
    k1: float = 1.2
    """Term-frequency saturation."""
    name_coverage: float = 0.0
    """Bonus for covering the tool's name, as a share of the query's best possible term score."""


class LexicalIndex:
    """Precomputed BM25F scores of every term of every tool.

    Built once per catalog; `scores` is read-only and safe to call from several threads.
    """

    def __init__(self, tools: Sequence[ToolSpec], *, config: LexicalConfig | None = None) -> None:
        """Index `tools` (their order defines the document ids)."""
        self.config = config or LexicalConfig()
        self.size = len(tools)
        fields = [tool_fields(tool) for tool in tools]
        self.vocabulary: dict[str, int] = {}
        tokenized = {name: self._term_ids([f.text(name) for f in fields]) for name in FIELD_NAMES}
        vocab_size = len(self.vocabulary)
        per_field = {name: self._counts(ids, counts, vocab_size) for name, (ids, counts) in tokenized.items()}
        combined = sp.csr_matrix((self.size, vocab_size), dtype=np.float64)
        for name, (counts, lengths) in per_field.items():
            weight = self.config.weights.get(name, 0.0)
            if weight == 0.0 or counts.nnz == 0:
                continue
            b = self.config.b.get(name, 0.75)
            average = lengths.mean() or 1.0
            norm = weight / (1.0 - b + b * lengths / average)
            combined = combined + sp.csr_matrix(counts.multiply(norm[:, None]))
        combined.sum_duplicates()
        df = np.bincount(combined.indices, minlength=vocab_size).astype(np.float64)
        self.idf: FloatArray = np.log1p((self.size - df + 0.5) / (df + 0.5))
        k1 = self.config.k1
        tf = combined.data
        combined.data = self.idf[combined.indices] * tf * (k1 + 1.0) / (k1 + tf)
        self._scores = combined.tocsc()
        self._coverage = self._name_coverage(per_field["name"][0])
        self.name_words: frozenset[str] = frozenset(w for f in fields for w in words(f"{f.name} {f.namespace}"))

    def term_ids(self, query: str) -> tuple[dict[int, float], list[str]]:
        """Map the query's terms to term ids with their counts; also return the terms not in the catalog."""
        known: dict[int, float] = {}
        unknown: list[str] = []
        for term in tokenize(query):
            term_id = self.vocabulary.get(term)
            if term_id is None:
                unknown.append(term)
            else:
                known[term_id] = known.get(term_id, 0.0) + 1.0
        return known, unknown

    def scores(self, terms: Mapping[int, float]) -> FloatArray:
        """Score every tool for weighted query terms (id -> weight); 0 means no term matched."""
        out = np.zeros(self.size, dtype=np.float64)
        if not terms:
            return out
        ids = np.fromiter(terms.keys(), dtype=np.int64, count=len(terms))
        weights = np.fromiter(terms.values(), dtype=np.float64, count=len(terms))
        out += self._sum_columns(self._scores, ids, weights)
        if self.config.name_coverage:
            ideal = float(np.dot(self.idf[ids], weights)) * (self.config.k1 + 1.0)
            coverage = self._sum_columns(self._coverage, ids, np.ones_like(weights))
            out += self.config.name_coverage * ideal * np.minimum(coverage, 1.0) * (out > 0)
        return out

    def ideal(self, terms: Mapping[int, float]) -> float:
        """The best score any tool could reach for these terms (for relevance floors)."""
        if not terms:
            return 0.0
        ids = np.fromiter(terms.keys(), dtype=np.int64, count=len(terms))
        weights = np.fromiter(terms.values(), dtype=np.float64, count=len(terms))
        base = float(np.dot(self.idf[ids], weights)) * (self.config.k1 + 1.0)
        return base * (1.0 + self.config.name_coverage)

    def _term_ids(self, texts: list[str]) -> tuple[IntArray, IntArray]:
        terms, counts = tokenize_many(texts)
        vocabulary = self.vocabulary
        for term in set(terms).difference(vocabulary):
            vocabulary[term] = len(vocabulary)
        ids = np.fromiter(map(vocabulary.__getitem__, terms), dtype=np.int64, count=len(terms))
        return ids, np.asarray(counts, dtype=np.int64)

    def _counts(self, ids: IntArray, counts: IntArray, vocab_size: int) -> tuple[sp.csr_matrix, FloatArray]:
        docs = np.repeat(np.arange(self.size, dtype=np.int64), counts)
        matrix = sp.csr_matrix((np.ones(len(ids)), (docs, ids)), shape=(self.size, vocab_size))
        return matrix, counts.astype(np.float64)

    def _name_coverage(self, name_counts: sp.csr_matrix) -> sp.csc_matrix:
        presence = sp.csr_matrix(name_counts, copy=True)
        presence.sum_duplicates()
        presence.data = self.idf[presence.indices]
        totals = np.asarray(presence.sum(axis=1)).ravel()
        totals[totals == 0] = 1.0
        return sp.csr_matrix(presence.multiply(1.0 / totals[:, None])).tocsc()

    def _sum_columns(self, matrix: sp.csc_matrix, ids: IntArray, weights: FloatArray) -> FloatArray:
        starts = matrix.indptr[ids]
        ends = matrix.indptr[ids + 1]
        rows = np.concatenate([matrix.indices[s:e] for s, e in zip(starts, ends, strict=True)])
        values = np.concatenate(
            [matrix.data[s:e] * w for s, e, w in zip(starts, ends, weights, strict=True)]
        )
        return np.bincount(rows, weights=values, minlength=self.size)
