"""The countable bars of issue 38 ("one shape"), measured on the tree this runs from.

    .venv/bin/python bench/shape.py     # prints one line per bar, as JSON

- gateway floors: the longest chain of imports between the gateway's units (`gateway/__init__.py`, its private
  face `_internal`, each room, `_server`, `_compose`), counted in units; upward arrows: imports from a unit
  to one above it in the rooms contract of `pyproject.toml` (import-linter's second `layers` contract);
- pinned public names (`tests/public_api.json`) and private-face names (`tests/internal_api.json`);
- auth schemes: the modules of `gateway/_identity/_schemes` and how many of them registered a scheme.
"""

from __future__ import annotations

import json
import pkgutil
import tomllib
from functools import cache
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
GATEWAY = "toolscout.gateway"


def rooms_order() -> list[str]:
    """The gateway's units, top first, as the rooms contract lists them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    return next(c["layers"] for c in contracts if c.get("containers") == [GATEWAY])  # type: ignore[no-any-return]


def unit_of(module: str) -> str:
    """The gateway unit a module belongs to (``__init__`` for the package itself)."""
    rest = module.removeprefix(GATEWAY).lstrip(".")
    return rest.split(".")[0] if rest else "__init__"


def floors() -> dict[str, object]:
    """The longest import chain between the gateway's units, and the imports pointing up the contract."""
    graph = grimp.build_graph("toolscout")
    edges: set[tuple[str, str]] = set()
    for importer in graph.modules:
        if importer == GATEWAY or importer.startswith(GATEWAY + "."):
            for imported in graph.find_modules_directly_imported_by(importer):
                if imported.startswith(GATEWAY + ".") and unit_of(importer) != unit_of(imported):
                    edges.add((unit_of(importer), unit_of(imported)))
    below: dict[str, set[str]] = {}
    for importer, imported in edges:
        below.setdefault(importer, set()).add(imported)

    @cache
    def depth(unit: str) -> int:
        return 1 + max((depth(lower) for lower in below.get(unit, ())), default=0)

    order = rooms_order()
    upward = sorted(f"{a} -> {b}" for a, b in edges if a in order and b in order and order.index(a) > order.index(b))
    units = {unit for edge in edges for unit in edge}
    return {"gateway_floors": max(depth(unit) for unit in units), "upward_arrows": len(upward), "upward": upward}


def names() -> dict[str, int]:
    """How many names the public faces and the private faces pin."""
    public = json.loads((ROOT / "tests" / "public_api.json").read_text(encoding="utf-8"))
    internal = json.loads((ROOT / "tests" / "internal_api.json").read_text(encoding="utf-8"))
    return {
        "public_names": sum(len(v) for v in public.values()),
        "internal_names": sum(len(v) for v in internal.values()),
    }


def auth_schemes() -> dict[str, int]:
    """The modules of the schemes package, and how many of them registered a scheme (no list names them)."""
    from toolscout.gateway._identity import _schemes
    from toolscout.gateway._identity._grants import registered_schemes

    modules = {f"{_schemes.__name__}.{m.name}" for m in pkgutil.iter_modules(_schemes.__path__)}
    homes = {scheme.settings.__module__ for scheme in registered_schemes()}
    homes |= {getattr(scheme.factory, "__module__", "") for scheme in registered_schemes()}
    return {"scheme_modules": len(modules), "scheme_modules_registered": len(modules & homes)}


def main() -> None:
    for figures in (floors(), names(), auth_schemes()):
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
