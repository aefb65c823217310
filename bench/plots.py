"""Plots of the committed bench results: recall per system, and latency against catalog size.

.venv/bin/python bench/plots.py   # reads bench/results/*.json, writes retrieval.png and speed.png
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RESULTS = Path(__file__).resolve().parent / "results"
OURS = "#1f6feb"
OTHERS = ("#9aa4ae", "#6e7781", "#c9a227", "#bf5a36", "#8250df")


def recall_bars() -> Path:
    data = json.loads((RESULTS / "retrieval.json").read_text(encoding="utf-8"))
    rows = data["systems"]
    metrics = ("R@1", "R@5", "R@10", "MRR@10")
    width = 0.8 / len(rows)
    fig, ax = plt.subplots(figsize=(10, 4.8))
    others = iter(OTHERS)
    for i, row in enumerate(rows):
        ours = str(row["system"]).startswith("toolscout")
        color = OURS if row["system"] == "toolscout hybrid" else "#58a6ff" if ours else next(others)
        xs = [m + (i - (len(rows) - 1) / 2) * width for m in range(len(metrics))]
        bars = ax.bar(xs, [row[m] for m in metrics], width, label=row["system"], color=color)
        ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
    ax.set_xticks(range(len(metrics)), metrics)
    ax.set_ylim(0, 1.22)  # headroom for the legend above the bars
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("score")
    meta = data["meta"]
    ax.set_title(f"Tool retrieval on pooled BFCL ({meta['catalog_tools']:,} tools, {meta['queries']:,} queries)")
    ax.legend(fontsize=8, ncols=4, loc="upper center")
    fig.tight_layout()
    path = RESULTS / "retrieval.png"
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def latency_lines() -> Path:
    rows = json.loads((RESULTS / "speed.json").read_text(encoding="utf-8"))["timings"]
    engines = list(dict.fromkeys(row["engine"] for row in rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    colors = iter(OTHERS)
    for engine in engines:
        mine = [row for row in rows if row["engine"] == engine]
        sizes = [row["tools"] for row in mine]
        color = OURS if engine.startswith("toolscout") else next(colors)
        left.plot(sizes, [row["p50_ms"] for row in mine], marker="o", label=engine, color=color)
        right.plot(sizes, [row["build_s"] for row in mine], marker="o", label=engine, color=color)
    for ax, title, unit in ((left, "query latency (p50)", "ms"), (right, "index build", "s")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([1000, 3000, 10000], ["1k", "3k", "10k"])
        ax.set_xlabel("tools in catalog")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="major", alpha=0.3)
    left.legend(fontsize=8)
    fig.tight_layout()
    path = RESULTS / "speed.png"
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def main() -> None:
    for make in (recall_bars, latency_lines):
        print(make())


if __name__ == "__main__":
    main()
