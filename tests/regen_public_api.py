"""Regenerate the public API snapshot: ``.venv/bin/python -m tests.regen_public_api``.

`public_api.json` holds the ``__all__`` of the package root and of every public sub-package; the test
compares it exactly, so adding, removing or renaming a public name shows up in review.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from pathlib import Path

import toolscout

SNAPSHOT = Path(__file__).with_name("public_api.json")


def public_packages() -> list[str]:
    """The package root and every sub-package whose dotted name has no private part, sorted."""
    found = (
        name
        for _, name, is_package in pkgutil.walk_packages(toolscout.__path__, "toolscout.")
        if is_package and not any(part.startswith("_") for part in name.split("."))
    )
    return ["toolscout", *sorted(found)]


def collect() -> dict[str, list[str]]:
    """Each public package's ``__all__``, as it is now."""
    return {name: list(getattr(importlib.import_module(name), "__all__", [])) for name in public_packages()}


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(collect(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
