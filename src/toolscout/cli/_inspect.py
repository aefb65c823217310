"""`toolscout inspect`: what a catalog costs with and without deferral."""

from __future__ import annotations

import json

import click

from .._cost import measure_cost
from .._tokens import default_token_counter
from ._engine import load_catalog

__all__ = ["inspect_command"]


@click.command("inspect")
@click.argument("catalog")
@click.option("--core", "core", multiple=True, metavar="NAME", help="A core tool (never deferred); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def inspect_command(catalog: str, core: tuple[str, ...], as_json: bool) -> None:
    """Show a catalog's token cost: all schemas in full vs the first turn in bridge and reveal styles.

    CATALOG is a catalog JSON file, or `sample` for the catalog shipped with toolscout.
    """
    report = measure_cost(load_catalog(catalog), core=core, counter=default_token_counter())
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    click.echo(f"tools                      {report.tools}")
    click.echo(f"all schemas in full        {report.full_tokens:>8} tokens")
    click.echo(f"first turn, bridge style   {report.bridge_tokens:>8} tokens  (saving {report.saving:.1%})")
    click.echo(f"first turn, reveal style   {report.reveal_tokens:>8} tokens")
    click.echo(f"first turn, reveal + stubs {report.stub_tokens:>8} tokens")
    click.echo(
        f"guidance + catalog listing {report.guidance_tokens:>8} tokens  (listing level: {report.listing_level})"
    )
    if report.offload_budget_tokens is not None:
        click.echo(
            f"offload budget per result  {report.offload_budget_tokens:>8} tokens  "
            f"(offload tools: {report.offload_tools_tokens} tokens)"
        )
    click.echo(f"token estimate             {report.counter}")
    click.echo("")
    click.echo(f"{'namespace':<24} {'tools':>6} {'tokens':>8}")
    for item in report.namespaces:
        click.echo(f"{item.namespace or '(none)':<24} {item.tools:>6} {item.full_tokens:>8}")
