"""The public surface: every public package exports exactly its public names, in one sorted `__all__`."""

import importlib
import json
import types

import pytest

import toolscout
from tests.regen_public_api import SNAPSHOT, collect, public_packages

PACKAGES = public_packages()[1:]


def public_names(module: types.ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if (not name.startswith("_") or name == "__version__") and not isinstance(value, types.ModuleType)
    }


@pytest.mark.parametrize("name", ["toolscout", *(p for p in PACKAGES if p not in ("toolscout.integrations",))])
def test_a_public_package_exports_exactly_its_public_names_sorted(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=str.casefold)
    assert set(exported) == public_names(module) - {"annotations"}


def test_every_package_has_an_init_module() -> None:
    root = toolscout.__path__[0]
    import os

    for folder, _, files in os.walk(root):
        if any(file.endswith(".py") for file in files):
            assert "__init__.py" in files, folder


def test_the_public_names_are_the_committed_snapshot() -> None:
    committed = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert collect() == committed, "public API changed: review it, then `python -m tests.regen_public_api`"
