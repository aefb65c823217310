"""`toolscout report`: summarise an activity log (zero-result queries, loaded tools, errors per upstream)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .._errors import ToolscoutError
from ..catalog import Catalog
from ..observe._internal import summarise

__all__ = ["report_command"]


@click.command("report")
@click.argument("log", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--catalog",
    "catalog_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A catalog file (e.g. from `toolscout catalog dump`), to list tools no search ever found.",
)
@click.option("--top", type=click.IntRange(1, 1000), default=10, show_default=True, help="Rows per section.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def report_command(log: Path, catalog_file: Path | None, top: int, as_json: bool) -> None:
    """Summarise the activity LOG of a gateway (`toolscout serve ... --log-format json`, or its activity file).

    Lists the queries that found nothing (what catalog authors should fix), the most loaded and
    called tools, tools no search found, error rates per upstream and refusals.
    """
    names: list[str] = []
    if catalog_file is not None:
        try:
            names = [tool.name for tool in Catalog.from_file(str(catalog_file))]
        except ToolscoutError as exc:
            raise click.ClickException(str(exc)) from None
    with log.open(encoding="utf-8", errors="replace") as lines:
        report = summarise(lines, catalog=names)
    click.echo(json.dumps(report.to_json(), indent=2) if as_json else report.to_text(top=top))
