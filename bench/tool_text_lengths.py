"""How long the texts toolscout embeds are, in the model's tokens, against the lengths training and search read.

Training reads a tool's text (`tool_text`) to 64 tokens (``python -m train fit``'s default); the embedder reads
up to 256. This counts, for the pooled BFCL catalog and the packaged sample catalog, the share of tool texts
longer than each, with the tokenizer's own truncation and padding turned off.

    .venv/bin/python bench/tool_text_lengths.py   # -> results/tool_text_lengths.md
"""

from __future__ import annotations

from pathlib import Path

from bfcl import load_bfcl
from tokenizers import Tokenizer

from toolscout import Catalog
from toolscout.data import sample_catalog_path
from toolscout.search.embeddings._internal import tool_text
from toolscout.search.embeddings._onnx import find_tokenizer

RESULTS = Path(__file__).resolve().parent / "results"
LIMITS = (64, 96, 128, 256)


def main() -> None:
    tokenizer = Tokenizer.from_file(str(find_tokenizer()))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    lines = [
        "Token lengths of the tool texts toolscout embeds (`bench/tool_text_lengths.py`).",
        "",
        "| catalog | tools | median | p90 | max | " + " | ".join(f"> {limit}" for limit in LIMITS) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(LIMITS),
    ]
    for name, catalog in (
        ("BFCL, pooled", load_bfcl().catalog),
        ("sample", Catalog.from_file(sample_catalog_path())),
    ):
        lengths = sorted(len(tokenizer.encode(tool_text(tool)).ids) for tool in catalog)
        count = len(lengths)
        shares = " | ".join(f"{sum(length > limit for length in lengths) / count:.1%}" for limit in LIMITS)
        lines.append(
            f"| {name} | {count} | {lengths[count // 2]} | {lengths[int(count * 0.9)]} | {lengths[-1]} | {shares} |"
        )
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "tool_text_lengths.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
