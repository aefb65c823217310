"""The `toolscout` command line: a thin layer over the library."""

from ._main import main

__all__ = ["main"]
