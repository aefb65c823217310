"""Point imports of a package's internal names at its private face: ``python scripts/use_faces.py [PATH ...]``.

A name in a package's private face (``tests/internal_api.json``) is no longer importable from the package
itself. This rewrites every ``from toolscout.<package> import ...`` (absolute, or relative inside
``src/toolscout``) that names one into an import from ``<package>._internal``, in the files under PATH
(default: src, tests, bench, train), e.g. after merging a branch written before a name moved. Then run
``ruff check --fix`` and ``ruff format`` on the files it lists.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
FACE = "._internal"


def face_names() -> dict[str, frozenset[str]]:
    """Each package with a private face, and the names in it."""
    faces = json.loads((ROOT / "tests" / "internal_api.json").read_text(encoding="utf-8"))
    return {face.removesuffix(FACE): frozenset(names) for face, names in faces.items()}


def imported_module(path: Path, node: ast.ImportFrom) -> str | None:
    """The dotted module `node` imports from (relative imports resolved for files under ``src``)."""
    if node.level == 0:
        return node.module
    if not path.is_relative_to(SRC):
        return None
    package = list(path.relative_to(SRC).parts)[:-1]  # a module's package, or an __init__'s own
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def rewrite(path: Path, faces: dict[str, frozenset[str]]) -> bool:
    """Split the imports of `path` that name face names; whether it changed."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ImportFrom):
            continue
        internal = faces.get(imported_module(path, node) or "", frozenset())
        moved = [alias for alias in node.names if alias.name in internal]
        if not moved:
            continue
        kept = [alias for alias in node.names if alias.name not in internal]
        indent = lines[node.lineno - 1][: node.col_offset]
        source = "." * node.level + (node.module or "")
        face = source + FACE if node.module else source + FACE.lstrip(".")

        def line(module: str, aliases: list[ast.alias], indent: str = indent) -> str:
            names = ", ".join(alias.name + (f" as {alias.asname}" if alias.asname else "") for alias in aliases)
            return f"{indent}from {module} import {names}\n"

        replacement = [line(source, kept)] * bool(kept) + [line(face, moved)]
        edits.append((node.lineno - 1, node.end_lineno or node.lineno, replacement))
    for start, end, replacement in sorted(edits, reverse=True):
        lines[start:end] = replacement
    if edits:
        path.write_text("".join(lines), encoding="utf-8")
    return bool(edits)


def main(paths: list[str]) -> None:
    """Rewrite the files under `paths` and list those it changed."""
    faces = face_names()
    for folder in paths or ["src", "tests", "bench", "train"]:
        for path in sorted((ROOT / folder).rglob("*.py")) if (ROOT / folder).is_dir() else [ROOT / folder]:
            if rewrite(path, faces):
                print(path.relative_to(ROOT))


if __name__ == "__main__":
    main(sys.argv[1:])
