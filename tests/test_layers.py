"""The layers docs/ARCHITECTURE.md draws, checked on the import graph (import-linter, grimp)."""

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def test_imports_point_one_way_downwards() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_settings_never_import_search() -> None:
    graph = grimp.build_graph("toolscout")
    chains = graph.find_shortest_chains(importer="toolscout._settings", imported="toolscout.search")
    assert not chains


FACE = "_internal"
"""The one private module of a package that other toolscout packages may import: its private face."""


def _owner_of_private(module: str) -> str | None:
    """The package a private module is private to: the one right above its last ``_part``."""
    parts = module.split(".")
    private = [index for index, part in enumerate(parts[1:], start=1) if part.startswith("_")]
    return ".".join(parts[: private[-1]]) if private else None


def _part_of(home: str, owner: str) -> bool:
    """Whether package `home` is `owner` or one of its private sub-packages (the gateway's rooms)."""
    if home == owner:
        return True
    inner = home.removeprefix(owner + ".")
    return inner != home and all(part.startswith("_") for part in inner.split("."))


def private_imports_across_packages(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """(importer, imported) for each import of a package's `_module` from outside that package, other than its face.

    A package's private sub-packages are part of it (``gateway._http`` may import ``gateway._server`` and
    ``gateway._upstream``), but their own modules are theirs alone (``gateway._upstream._pool`` is for
    ``gateway._upstream``); a public sub-package is another package (``search.embeddings``).
    """
    packages = {module.rsplit(".", 1)[0] for module in graph.modules}
    found = []
    for importer in sorted(graph.modules):
        home = importer if importer in packages else importer.rsplit(".", 1)[0]
        for imported in graph.find_modules_directly_imported_by(importer):
            owner = _owner_of_private(imported)
            if owner not in (None, "toolscout") and not _part_of(home, owner) and imported != f"{owner}.{FACE}":
                found.append((importer, imported))
    return found


def test_no_module_imports_another_packages_private_modules() -> None:
    found = private_imports_across_packages(grimp.build_graph("toolscout"))
    assert found == [], f"import these from the package or its {FACE} face instead:\n" + "\n".join(
        f"{a} -> {b}" for a, b in found
    )


def test_the_private_face_is_the_only_private_module_another_package_may_import() -> None:
    graph = grimp.ImportGraph()
    for module in (
        "toolscout",
        "toolscout.a",
        "toolscout.a._x",
        "toolscout.a._internal",
        "toolscout.a._room",
        "toolscout.a._room._z",
        "toolscout.b",
        "toolscout.b._y",
    ):
        graph.add_module(module)
    graph.add_import(importer="toolscout.b._y", imported="toolscout.a._internal")
    graph.add_import(importer="toolscout.b._y", imported="toolscout.a._x")
    graph.add_import(importer="toolscout.b._y", imported="toolscout.a._room._z")
    graph.add_import(importer="toolscout.a._internal", imported="toolscout.a._x")
    graph.add_import(importer="toolscout.a._internal", imported="toolscout.a._room")
    graph.add_import(importer="toolscout.a._room._z", imported="toolscout.a._x")
    graph.add_import(importer="toolscout.a._x", imported="toolscout.a._room._z")

    assert sorted(private_imports_across_packages(graph)) == [
        ("toolscout.a._x", "toolscout.a._room._z"),
        ("toolscout.b._y", "toolscout.a._room._z"),
        ("toolscout.b._y", "toolscout.a._x"),
    ]
