"""`toolscout usage list|export|forget`: the learned pairs (search request -> tool) an operator controls."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import click

from .._errors import ToolscoutError
from .._settings import LearningSettings
from ..learning import UsageStore
from ..learning._internal import UsageBounds, export_pairs, open_usage_store

__all__ = ["usage_group"]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., None])

_SOURCE = (
    click.argument("config", required=False, type=click.Path(dir_okay=False, exists=True, path_type=Path)),
    click.option("--store", "spec", help="The usage store itself: a file path (SQLite), sqlite:///path, redis://..."),
)


def _source(command: F) -> F:
    """Add the CONFIG argument and the --store option."""
    for decorate in reversed(_SOURCE):
        command = decorate(command)
    return command


@click.group("usage")
def usage_group() -> None:
    """The pairs learned from use (search request -> the tool then called), per learning scope.

    The store is the one CONFIG's `toolscout.learning.store` (else its session store, `toolscout.store`, whose
    default is sessions.sqlite3 in the data dir) names, or --store.
    """


@usage_group.command("list")
@click.option("--scope", help="Only this learning scope's pairs.")
@click.option("--tool", help="Only this tool's pairs.")
@_source
def list_command(config: Path | None, spec: str | None, scope: str | None, tool: str | None) -> None:
    """Print the pairs, one a line: scope, tool, time (UTC), missed, found or used (no search led to it), request."""
    with _opened(config, spec) as store:
        pairs = _read(lambda: export_pairs(store, scope, tool=tool))
    for pair in pairs:
        when = datetime.fromtimestamp(pair.at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        kind = "used" if not pair.request else "missed" if pair.missed else "found"
        click.echo(f"{pair.scope}\t{pair.tool}\t{when}\t{kind}\t{json.dumps(pair.request, ensure_ascii=False)}")
    click.echo(f"{len(pairs)} pairs", err=True)


@usage_group.command("export")
@click.option("--scope", help="Only this learning scope's pairs.")
@click.option("--tool", help="Only this tool's pairs.")
@_source
def export_command(config: Path | None, spec: str | None, scope: str | None, tool: str | None) -> None:
    """Write the pairs as JSON lines (scope, request, tool, session, at, missed, first) to stdout."""
    with _opened(config, spec) as store:
        pairs = _read(lambda: export_pairs(store, scope, tool=tool))
    for pair in pairs:
        click.echo(json.dumps(pair.to_json(), ensure_ascii=False))


@usage_group.command("forget")
@click.option("--scope", help="Forget this learning scope's pairs.")
@click.option("--all", "every", is_flag=True, help="Forget the pairs of every scope.")
@click.option("--tool", help="Forget only this tool's pairs (in --scope, or with --all in every scope).")
@_source
def forget_command(config: Path | None, spec: str | None, scope: str | None, every: bool, tool: str | None) -> None:
    """Delete pairs: a scope's (--scope) or every scope's (--all), only a tool's with --tool."""
    if (scope is None) == (not every):
        raise click.UsageError("give --scope SCOPE or --all (one of them)")
    with _opened(config, spec) as store:
        gone = _read(lambda: store.forget(scope, tool=tool))
    click.echo(f"forgot {gone} pairs")


@contextmanager
def _opened(config: Path | None, spec: str | None) -> Iterator[UsageStore]:
    if (config is None) == (spec is None):
        raise click.UsageError("give CONFIG or --store (one of them)")
    learning = LearningSettings()
    if config is not None:
        from ..gateway import load_config

        try:
            settings = load_config(config).settings
        except ToolscoutError as exc:
            raise click.ClickException(str(exc)) from None
        learning, spec = settings.learning, settings.usage_store_spec()
    assert spec is not None
    if spec == "memory":
        raise click.ClickException("a memory store lives in its process only; name a file or a Redis URL")
    try:
        store = open_usage_store(spec, UsageBounds.from_settings(learning))
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        yield store
    finally:
        store.close()


def _read(run: Callable[[], T]) -> T:
    try:
        return run()
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
