"""What a cross-encoder the size of the packaged model would cost per candidate, against embedding the request alone.

A cross-encoder reads the request and a tool's text together, one pass per candidate. This times the packaged int8
model (the same 6-layer network a MiniLM cross-encoder would be) on 200 BFCL tuning requests alone and on each request
joined to a tool's text (``tool_text``, as hybrid search embeds tools), interleaved in one process, and reports both
p50s and their ratio; a reranker over the top N adds about N such passes to every search.

    .venv/bin/python bench/rerank_cost.py
    .venv/bin/python bench/rerank_cost.py --model build/model/cross/model.onnx  # a trained cross-encoder

With ``--model``, it also times that cross-encoder (``python -m train cross``) scoring ten tools for each request in
one batch, as the ``cross-encoder`` reranker does over a search's top 10, interleaved with the rest.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bfcl import TUNING_CATEGORIES, load_bfcl

from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import CrossEncoderReranker, shared_embedder, tool_text

REQUESTS = 200


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="also time this cross-encoder over ten tools per request")
    args = parser.parse_args(argv)
    data = load_bfcl(TUNING_CATEGORIES)
    embedder = shared_embedder(EmbeddingSettings(backend="onnx"))
    requests = [query.query for query in data.queries[:REQUESTS]]
    pairs = [f"{request} [SEP] {tool_text(tool)}" for request, tool in zip(requests, data.catalog, strict=False)]
    for text in requests[:10] + pairs[:10]:  # warm-up
        embedder.embed_query(text)
    alone: list[float] = []
    paired: list[float] = []
    for request, pair in zip(requests, pairs, strict=True):
        for text, times in ((request, alone), (pair, paired)):
            started = time.perf_counter()
            embedder.embed_query(text)
            times.append((time.perf_counter() - started) * 1000)
    if args.model is not None:
        reranker = CrossEncoderReranker(args.model)
        tools = list(data.catalog)
        reranked: list[float] = []
        for number, request in enumerate(requests):
            top = tools[number * 10 % len(tools) :][:10]
            started = time.perf_counter()
            reranker.rerank(request, top)
            reranked.append((time.perf_counter() - started) * 1000)
            for text, times in ((request, alone), (pairs[number], paired)):
                started = time.perf_counter()
                embedder.embed_query(text)
                times.append((time.perf_counter() - started) * 1000)
        print(f"{args.model}: ten tools p50 {statistics.median(reranked):.2f} ms", end="; ")
        interleaved = statistics.median(alone[-len(requests) :])
        print(f"ratio {statistics.median(reranked) / interleaved:.2f} to the request alone")
    request_ms, pair_ms = statistics.median(alone), statistics.median(paired)
    print(f"{embedder.model_id}: request alone p50 {request_ms:.2f} ms, request + tool text p50 {pair_ms:.2f} ms")
    print(f"ratio {pair_ms / request_ms:.2f}; reranking the top 10 adds about {10 * pair_ms:.0f} ms per search")


if __name__ == "__main__":
    main(sys.argv[1:])
