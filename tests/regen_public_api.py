"""Regenerate the API snapshots: ``.venv/bin/python -m tests.regen_public_api``.

`public_api.json` holds the ``__all__`` of the package root and of every public sub-package: the names users
call. The test compares it exactly, so adding, removing or renaming a public name shows up in review.

`internal_api.json` holds the ``__all__`` of each package's private face (its ``_internal`` module): what other
toolscout packages use of it and users do not. That list may only shrink: regenerating keeps only the names
already committed, so a name another package newly needs is added to the file by hand, in review.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
from pathlib import Path

import toolscout

SNAPSHOT = Path(__file__).with_name("public_api.json")
INTERNAL_SNAPSHOT = Path(__file__).with_name("internal_api.json")
FACE = "_internal"


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


def collect_faces() -> dict[str, list[str]]:
    """Each public package's private face's ``__all__``, as it is now (packages without one are left out)."""
    faces = {}
    for name in public_packages():
        if importlib.util.find_spec(f"{name}.{FACE}") is not None:
            faces[f"{name}.{FACE}"] = list(importlib.import_module(f"{name}.{FACE}").__all__)
    return faces


def committed_faces() -> dict[str, list[str]]:
    """The committed private faces' names."""
    loaded: dict[str, list[str]] = json.loads(INTERNAL_SNAPSHOT.read_text(encoding="utf-8"))
    return loaded


def shrunk_faces() -> dict[str, list[str]]:
    """The faces as they are now, less any name the committed snapshot does not hold (they may only shrink)."""
    committed = committed_faces() if INTERNAL_SNAPSHOT.exists() else None
    return {
        face: [name for name in names if committed is None or name in committed.get(face, ())]
        for face, names in collect_faces().items()
        if committed is None or face in committed
    }


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(collect(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    INTERNAL_SNAPSHOT.write_text(json.dumps(shrunk_faces(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT} and {INTERNAL_SNAPSHOT}")
