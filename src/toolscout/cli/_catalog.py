"""`toolscout catalog ...`: build catalog files from live MCP servers."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from .._errors import ToolscoutError

__all__ = ["catalog_group"]


@click.group("catalog")
def catalog_group() -> None:
    """Build catalog files from MCP servers."""


@catalog_group.command("dump")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="The catalog JSON file to write.",
)
@click.option(
    "--strict", is_flag=True, help="Fail (write nothing) if any server fails or any tool is left out or missed."
)
@click.option("-v", "--verbose", is_flag=True, help="Also log each repaired or left-out tool.")
def dump_command(config: Path, output: Path, strict: bool, verbose: bool) -> None:
    """Connect to every server in CONFIG and write all their tools to a catalog file.

    CONFIG is an `mcpServers` JSON file as MCP clients use (or TOML with the same keys). Tools
    are named `server__tool`, with the server as namespace. A server that fails is reported
    and skipped; the command fails only when every server fails, or with --strict.
    """
    # Imported here: the MCP stack takes a while to import and other commands do not need it.
    import anyio

    from ..gateway import load_config
    from ..gateway._internal import dump_catalog

    logging.basicConfig(level=logging.WARNING if verbose else logging.ERROR, format="%(levelname)s %(message)s")
    try:
        loaded = load_config(config)
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    if not loaded.enabled_servers():
        raise click.ClickException(f"{config}: every server is disabled; nothing to dump")
    result = anyio.run(dump_catalog, loaded)
    width = max(len(report.name) for report in result.servers)
    for report in result.servers:
        if report.error is not None:
            click.echo(f"  {report.name:<{width}}  FAILED  {report.error}")
            continue
        notes = []
        if report.repaired:
            notes.append(f"{len(report.repaired)} {_plural(len(report.repaired), 'schema')} normalized")
        if report.problems:
            left_out = ", ".join(problem.tool or "(unnamed)" for problem in report.problems)
            notes.append(f"left out: {left_out}")
        if not report.complete:
            notes.append("incomplete: its pages never end")
        suffix = f"  ({'; '.join(notes)})" if notes else ""
        click.echo(f"  {report.name:<{width}}  {report.tools:>4} {_plural(report.tools, 'tool')}{suffix}")
    ok = len(result.servers) - len(result.failed)
    if ok == 0:
        raise click.ClickException("every server failed; nothing written")
    if strict and (result.failed or any(report.problems or not report.complete for report in result.servers)):
        raise click.ClickException("--strict: a server failed or a tool was left out; nothing written")
    result.write(output)
    total = len(result.catalog)
    click.echo(f"wrote {total} {_plural(total, 'tool')} from {ok} of {len(result.servers)} servers to {output}")


def _plural(number: int, noun: str) -> str:
    return noun if number == 1 else f"{noun}s"
