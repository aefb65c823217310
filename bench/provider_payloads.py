"""First-turn payload per provider and disclosure style, next to sending every schema in full.

For each provider API and style (bridge, reveal, native variants) this renders the first request
of a session (deferral on, no core tools) and reports:

- ``request``: tokens of the toolscout-owned request fields as sent (tools array + guidance);
- ``context``: tokens the model reads before any search (deferred definitions left out the way
  the provider does: Anthropic hides them, OpenAI's hosted search shows a deferred function's
  name and description and only a namespace's name and description);
- both as a ratio of the same provider's "everything in full" request (mode off).

Usage: .venv/bin/python bench/provider_payloads.py [CATALOG ...]   (default: sample)
Writes bench/results/provider_payloads.{json,md}.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toolscout import Catalog, ScoutSettings, ToolScout, default_token_counter
from toolscout.cli._engine import load_catalog
from toolscout.providers import anthropic, gemini, openai_chat, openai_responses
from toolscout.providers._measure import measure_rendering

RESULTS = Path(__file__).parent / "results"
VARIANTS = [
    ("openai-chat", "bridge", None),
    ("openai-chat", "reveal", None),
    ("openai-responses", "bridge", None),
    ("openai-responses", "native", "hosted"),
    ("openai-responses", "native", "client"),
    ("anthropic", "bridge", None),
    ("anthropic", "reveal", None),
    ("anthropic", "native", "hybrid"),
    ("anthropic", "native", "bm25"),
    ("gemini", "bridge", None),
    ("gemini", "reveal", None),
]


def render(catalog: Catalog, provider: str, style: str, search: str | None, *, mode: str = "on"):
    client_style = "reveal" if style == "reveal" else "bridge"
    settings = ScoutSettings(mode=mode, style=client_style)  # type: ignore[arg-type]
    session = ToolScout(catalog, settings=settings).session("bench")
    if provider == "anthropic":
        return anthropic.render(session, style=style, search=search or "hybrid")  # type: ignore[arg-type]
    if provider == "openai-responses":
        return openai_responses.render(session, style=style, search=search or "hosted")  # type: ignore[arg-type]
    if provider == "openai-chat":
        return openai_chat.render(session, style=style)  # type: ignore[arg-type]
    return gemini.render(session, style=style, max_declarations=None)  # type: ignore[arg-type]


def measure(source: str) -> list[dict[str, object]]:
    catalog = load_catalog(source)
    counter = default_token_counter()
    rows: list[dict[str, object]] = []
    for provider, style, search in VARIANTS:
        full = measure_rendering(render(catalog, provider, "bridge", None, mode="off"), counter)
        size = measure_rendering(render(catalog, provider, style, search), counter)
        rows.append(
            {
                "catalog": Path(source).name,
                "tools": len(catalog),
                "provider": provider,
                "style": style + (f" ({search})" if search else ""),
                "full_tokens": full.request_tokens,
                "request_tokens": size.request_tokens,
                "context_tokens": size.context_tokens,
                "request_ratio": round(size.request_tokens / full.request_tokens, 3),
                "context_ratio": round(size.context_tokens / full.request_tokens, 3),
                "declared": size.declared,
                "deferred": size.deferred,
                "counter": counter.name,
            }
        )
    return rows


def main(argv: list[str]) -> int:
    rows = [row for source in (argv or ["sample"]) for row in measure(source)]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "provider_payloads.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    head = "| catalog | provider | style | all in full | sent | read up front | sent / full | read / full | declared |"
    lines = [head, "|---|---|---|---:|---:|---:|---:|---:|---|"]
    lines += [
        f"| {row['catalog']} ({row['tools']}) | {row['provider']} | {row['style']} | {row['full_tokens']} | "
        f"{row['request_tokens']} | {row['context_tokens']} | {row['request_ratio']:.3f} | "
        f"{row['context_ratio']:.3f} | {row['declared']} ({row['deferred']} deferred) |"
        for row in rows
    ]
    lines.append(f"\nTokens: {rows[0]['counter']}. Tools array + guidance; first turn, deferral on, no core tools.")
    table = "\n".join(lines) + "\n"
    (RESULTS / "provider_payloads.md").write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
