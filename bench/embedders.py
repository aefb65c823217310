"""The ONNX embedder against the torch one, and hybrid against lexical query latency, in one run.

    .venv/bin/python bench/bfcl.py                  # once: the BFCL catalog (2,963 real tools)
    .venv/bin/python bench/embedders.py [--tools N] # -> results/embedders.md

Each backend embeds the same N tool texts (default 3,000: the BFCL catalog, padded with
renamed copies) in a fresh process with an empty embedding cache, so the cold figure
includes importing the backend and loading its model. Both use the same CPU threads (the ONNX
default: half the CPUs). The query rows time `tool_search`'s engine on that catalog: lexical
and hybrid (query embedding plus fusion) p50/p95 over the BFCL requests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bfcl import load_bfcl

from toolscout import Catalog, ToolSpec
from toolscout.search.embeddings._dense import tool_text

OUT = Path(__file__).parent / "results" / "embedders.md"
BACKENDS = ("onnx", "sentence-transformers")


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


def worker(backend: str, size: int, threads: int) -> None:
    """Embed `size` tool texts with `backend` in this process; print the timings as JSON."""
    started = time.perf_counter()
    from toolscout.search._engines import get_embedder
    from toolscout.search.embeddings._settings import EmbeddingSettings

    embedder = get_embedder(backend, EmbeddingSettings(threads=threads))
    if backend == "sentence-transformers":
        import torch

        torch.set_num_threads(threads)  # documents run on torch's process-wide threads
    loaded = time.perf_counter()
    texts = [tool_text(tool) for tool in catalog_of(size)]
    embedded_at = time.perf_counter()
    embedder.embed_documents(texts)
    done = time.perf_counter()
    print(json.dumps({"load_s": loaded - started, "embed_s": done - embedded_at, "total_s": done - started}))


def queries(size: int, count: int) -> dict[str, dict[str, float]]:
    """p50/p95 milliseconds of lexical and hybrid queries on the `size`-tool catalog."""
    from toolscout.search._background import BackgroundHybrid
    from toolscout.search.embeddings._settings import EmbeddingSettings

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
    parser.add_argument("--worker", nargs=2, metavar=("BACKEND", "SIZE"))
    args = parser.parse_args()
    from toolscout.search.embeddings._onnx import default_threads

    threads = args.threads or default_threads()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), threads)
        return
    results = {}
    for backend in BACKENDS:
        run = subprocess.run(
            [sys.executable, __file__, "--worker", backend, str(args.tools), "--threads", str(threads)],
            check=True,
            capture_output=True,
            text=True,
        )
        results[backend] = json.loads(run.stdout.strip().splitlines()[-1])
        print(backend, results[backend], flush=True)
    latency = queries(args.tools, args.queries)
    onnx, torch = results["onnx"], results["sentence-transformers"]
    lines = [
        f"Embedding {args.tools:,} BFCL tool texts, {threads} thread(s), empty cache, one run "
        f"(`.venv/bin/python bench/embedders.py --tools {args.tools}`):",
        "",
        "| backend | load s | embed s | tools/s | cold total s |",
        "|---|---:|---:|---:|---:|",
    ]
    for backend in BACKENDS:
        row = results[backend]
        lines.append(
            f"| {backend} | {row['load_s']:.2f} | {row['embed_s']:.1f} | {args.tools / row['embed_s']:.0f} "
            f"| {row['total_s']:.1f} |"
        )
    lines += [
        "",
        f"ONNX vs torch: embedding {torch['embed_s'] / onnx['embed_s']:.2f}× faster, "
        f"cold start to last vector {torch['total_s'] / onnx['total_s']:.2f}× faster, "
        f"loading {torch['load_s'] / onnx['load_s']:.1f}× faster.",
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
