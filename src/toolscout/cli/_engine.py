"""What `toolscout search` and `toolscout eval` share: catalog loading, mode choice, the searcher."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import click

from .._errors import ToolscoutError
from .._settings import ScoutSettings
from ..catalog import Catalog
from ..search import SearchIndex, SearchMode, build_searcher
from ..search._internal import engine_names, engine_query_mode, resolve_search_mode

__all__ = [
    "SAMPLE",
    "build_for_mode",
    "default_mode",
    "load_catalog",
    "mode_option",
    "sample_or_path",
    "settings",
    "warnings_on_stderr",
]

SAMPLE = "sample"
"""The CATALOG (and QUERIES) argument that names the sample data packaged with toolscout."""


def load_catalog(source: str) -> Catalog:
    """Load the catalog file `source`, or the packaged sample catalog for ``"sample"``.

    Raises:
        click.ClickException: The file is missing or malformed (one line, no traceback).
    """
    path = sample_or_path(source, "sample_catalog.json")
    try:
        return Catalog.from_file(path)
    except ToolscoutError as exc:
        if _is_gateway_config(path):
            raise click.ClickException(
                f"{path} is a gateway config (mcpServers), not a tool catalog: "
                f"write its tools to a catalog with `toolscout catalog dump {path} -o catalog.json`, then pass that"
            ) from None
        raise click.ClickException(str(exc)) from None


def _is_gateway_config(path: Path) -> bool:
    """Whether `path` looks like a gateway config: an object with ``mcpServers`` (JSON or YAML)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if path.suffix in (".yaml", ".yml"):
        return re.search(r"^mcpServers\s*:", text, re.MULTILINE) is not None
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "mcpServers" in value


def sample_or_path(source: str | Path, packaged: str) -> Path:
    """Return the packaged data file `packaged` when `source` is ``"sample"`` and no such local file exists."""
    path = Path(source)
    if str(source) != SAMPLE or path.exists():
        return path
    candidate = resources.files("toolscout") / "data" / packaged
    if not candidate.is_file():
        raise click.ClickException(f"this toolscout build ships no sample data ({packaged}); pass a file")
    return Path(str(candidate))


def settings() -> ScoutSettings:
    """The library settings from the environment (``TOOLSCOUT_*``), as ``tool_search`` would use them.

    Raises:
        click.ClickException: A variable has a bad value (one line naming it).
    """
    try:
        return ScoutSettings()
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None


def default_mode() -> str:
    """The mode ``tool_search`` would run in: ``search_mode``, with ``auto`` hybrid when an embedder is installed."""
    configured = settings()
    return resolve_search_mode(configured.search_mode, configured.embeddings)


mode_option = click.option(
    "--mode",
    type=click.Choice(engine_names()),
    default=None,
    help="Search mode [default: the engine tool_search uses: TOOLSCOUT_SEARCH_MODE, else hybrid when "
    "toolscout[semantic] is installed, else lexical].",
)
"""The shared ``--mode`` option; None means `default_mode()`."""


def build_for_mode(catalog: Catalog, mode: str) -> SearchIndex:
    """What ``tool_search`` searches, with engine `mode` (the settings from the environment): `build_searcher`.

    Hybrid embeds the catalog first (when the embedding model cannot be loaded, the search layer logs a
    warning and hybrid queries run lexically); the pipeline's stages (exact names, sentence parts, a
    configured reranker) run as in ``tool_search``.
    """
    note = (
        f"toolscout: building the {mode} index of {len(catalog)} tools "
        "(hybrid embeds them the first time, then reads them from its cache)..."
    )
    with _said_if_slow(note):
        return build_searcher(settings(), catalog, mode=mode)


def query_mode(mode: str) -> SearchMode:
    """The ``mode`` engine `mode`'s index is searched with (``regex`` for the regex engine)."""
    return engine_query_mode(mode)


_SLOW_BUILD_S = 1.0
"""A build slower than this (an index embedding its catalog on an empty cache) gets a line on stderr."""


@contextmanager
def _said_if_slow(note: str) -> Iterator[None]:
    """Print `note` on stderr once the block has run `_SLOW_BUILD_S`, so a long wait is not silent."""
    timer = threading.Timer(_SLOW_BUILD_S, lambda: click.echo(note, err=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


class _StderrWarning(logging.Handler):
    """Shows a log record as one ``Warning:`` line on the current stderr (no traceback)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"Warning: {record.getMessage()}", err=True)


@contextmanager
def warnings_on_stderr() -> Iterator[None]:
    """While active, toolscout's log warnings (e.g. hybrid falling back to lexical) print as one stderr line."""
    logger = logging.getLogger("toolscout")
    handler = _StderrWarning(logging.WARNING)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
