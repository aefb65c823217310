"""Files shipped with toolscout: the sample catalog and its labelled query set."""

from __future__ import annotations

import pathlib
from importlib import resources

__all__ = ["sample_catalog_path", "sample_queries_path"]


def sample_catalog_path() -> pathlib.Path:
    """Return the path of the sample catalog (``{"tools": [...]}``, 133 tools over 14 namespaces)."""
    return _packaged("sample_catalog.json")


def sample_queries_path() -> pathlib.Path:
    """Return the path of the sample query set (JSONL lines of ``{"id", "query", "gold"}``).

    Lines whose ``gold`` list is empty are requests no sample tool can serve (abstention checks).
    """
    return _packaged("sample_queries.jsonl")


def _packaged(name: str) -> pathlib.Path:
    # toolscout installs as a directory (wheel or editable), never as a zip, so the resource is a real file.
    return pathlib.Path(str(resources.files(__name__) / name))
