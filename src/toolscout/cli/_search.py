"""`toolscout search`: rank a catalog's tools for one query, or for every line of a JSONL file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .._errors import SearchError
from ..search import SearchIndex, SearchResult
from ..search._internal import QueryFileError, load_queries
from ._engine import build_for_mode, default_mode, load_catalog, mode_option, query_mode, warnings_on_stderr

__all__ = ["search"]


@click.command("search")
@click.argument("catalog")
@click.argument("query", required=False)
@click.option(
    "--queries",
    "queries_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help='JSONL file of {"id": ..., "query": ...} lines; prints one JSON line per input line.',
)
@click.option("--limit", "-n", type=click.IntRange(min=1), default=5, show_default=True, help="Most hits per query.")
@mode_option
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON instead of a table (--queries always prints JSON lines)."
)
def search(
    catalog: str, query: str | None, queries_file: Path | None, limit: int, mode: str | None, as_json: bool
) -> None:
    """Search CATALOG (a tool catalog JSON file, or `sample`) for QUERY.

    With --json the answer is {"query": ..., "hits": [{"name", "score", "namespace"}, ...]}.
    With --queries FILE.jsonl the catalog is indexed once and every input line
    {"id": ..., "query": ...} gets one output line {"id": ..., "hits": [...]}.

    \b
    Examples:
      toolscout search tools.json "weather forecast for a city"
      toolscout search tools.json "^github_" --mode regex --json
      toolscout search tools.json --queries requests.jsonl --limit 10
    """  # noqa: D301 - click needs a real \b (backspace) line to keep the examples unwrapped
    if (query is None) == (queries_file is None):
        raise click.UsageError("give either a QUERY or --queries FILE.jsonl, not both or neither")
    if query is not None and not query.strip():
        raise click.UsageError('QUERY is empty: give a few keywords, e.g. "create an issue"')
    run_mode = mode or default_mode()
    with warnings_on_stderr():
        if queries_file is not None:
            _search_file(catalog, queries_file, limit=limit, mode=run_mode)
        else:
            assert query is not None
            result = _run(build_for_mode(load_catalog(catalog), run_mode), query, limit=limit, mode=run_mode)
            if as_json:
                payload = {"query": result.query, "mode": result.mode, **_payload(result)}
                click.echo(json.dumps(payload, ensure_ascii=False))
            else:
                _print_table(result)


def _search_file(catalog: str, queries_file: Path, *, limit: int, mode: str) -> None:
    try:
        items = load_queries(queries_file)
    except QueryFileError as exc:
        raise click.ClickException(str(exc)) from None
    index = build_for_mode(load_catalog(catalog), mode)
    for item in items:
        result = _run(index, item.query, limit=limit, mode=mode, label=f"query {item.id!r}")
        click.echo(json.dumps({"id": item.id, **_payload(result)}, ensure_ascii=False))


def _run(index: SearchIndex, query: str, *, limit: int, mode: str, label: str = "") -> SearchResult:
    try:
        return index.search(query, limit=limit, mode=query_mode(mode))
    except SearchError as exc:
        raise click.ClickException(f"{label}: {exc}" if label else str(exc)) from None


def _payload(result: SearchResult) -> dict[str, object]:
    hits = [{"name": hit.name, "score": round(hit.score, 4), "namespace": hit.namespace} for hit in result.hits]
    return {"hits": hits, "suggestions": list(result.suggestions)}


def _print_table(result: SearchResult) -> None:
    if not result.hits:
        click.echo(f"No tool matches {result.query!r} ({result.mode}).")
        if result.suggestions:
            click.echo(f"Nearest names: {', '.join(result.suggestions)}")
        return
    width = max(len(hit.name) for hit in result.hits)
    click.echo(f"{'#':>3}  {'name':<{width}}  {'score':>8}  namespace")
    for rank, hit in enumerate(result.hits, start=1):
        click.echo(f"{rank:>3}  {hit.name:<{width}}  {hit.score:>8.3f}  {hit.namespace or '-'}")
    shown = len(result.hits)
    more = f", {result.total - shown} more above the floor" if result.total > shown else ""
    click.echo(f"{shown} hit{'s' if shown != 1 else ''} ({result.mode}{more})")
