"""No module reads another's private attributes: what other modules need is public.

Rule: an attribute access ``x._name`` is allowed when ``x`` is ``self`` or ``cls``, or when
``_name`` is defined (assigned, or a def/class) in the same module. Anything else reaches into
another module's internals and must go through a public method or property instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolscout
from tests.conftest import parse_python

ROOT = Path(toolscout.__path__[0])
NAMEDTUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make"})


def defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def foreign_private_accesses(path: Path) -> list[str]:
    tree = parse_python(path.read_text(encoding="utf-8"))
    own = defined_names(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        if node.attr in own or node.attr in NAMEDTUPLE_API:
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
    return found


def test_no_module_reads_another_modules_private_attributes() -> None:
    offences = [line for path in sorted(ROOT.rglob("*.py")) for line in foreign_private_accesses(path)]
    assert offences == []
