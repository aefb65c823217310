"""The public surface: every public package exports exactly its public names, in one sorted `__all__`."""

import importlib
import json
import types

import pytest

import toolscout
from tests.regen_public_api import SNAPSHOT, collect, collect_faces, committed_faces, public_packages

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


PUBLIC_NAMES_CEILING = 160
"""The most names all public packages may pin together (160 when the users' surface was cut from 354)."""


def test_the_public_surface_stays_under_its_ceiling() -> None:
    pinned = sum(len(names) for names in collect().values())
    assert pinned <= PUBLIC_NAMES_CEILING, f"{pinned} public names, over the ceiling of {PUBLIC_NAMES_CEILING}"


@pytest.mark.parametrize("face", sorted(collect_faces()))
def test_a_private_face_exports_exactly_its_names_none_of_them_public(face: str) -> None:
    module = importlib.import_module(face)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=str.casefold)
    assert set(exported) == public_names(module) - {"annotations"}
    package = importlib.import_module(face.rsplit(".", 1)[0])
    assert not set(exported) & set(package.__all__), "a name is either the users' or the private face's"


def test_the_private_faces_only_shrink() -> None:
    committed = committed_faces()
    grown = {
        face: sorted(set(names) - set(committed.get(face, ())))
        for face, names in collect_faces().items()
        if set(names) - set(committed.get(face, ()))
    }
    assert not grown, (
        f"new names in private faces: {grown}. A name users call goes in the package's __all__; one only other "
        "toolscout packages need is added to tests/internal_api.json by hand, in review."
    )
    assert collect_faces() == committed, "a private face shrank: record it with `python -m tests.regen_public_api`"
