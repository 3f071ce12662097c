""".ci/vulture_whitelist.py names real things: a name it lists by its module (`html_text._VisibleText.handle_data`)
must exist there, so a class that moves takes its whitelist entry with it instead of leaving a stale one behind.
Entries written `_.name` are bare names (framework hooks matched anywhere) and are not resolved."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).parents[3]
WHITELIST = ROOT / ".ci" / "vulture_whitelist.py"


def imported_names(tree: ast.Module) -> dict[str, object]:
    names: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parent = importlib.import_module(node.module)
            for alias in node.names:
                try:
                    names[alias.asname or alias.name] = importlib.import_module(f"{node.module}.{alias.name}")
                except ModuleNotFoundError:
                    names[alias.asname or alias.name] = getattr(parent, alias.name)
    return names


def dotted_entries(tree: ast.Module) -> list[list[str]]:
    """Every `a.b.c` the whitelist writes as an expression, as ["a", "b", "c"] (not the `_.x` ones)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "parent", None), ast.Attribute):
            parts, inner = [node.attr], node.value
            while isinstance(inner, ast.Attribute):
                parts.insert(0, inner.attr)
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id != "_":
                found.append([inner.id, *parts])
    return found


def exists(obj: object, parts: list[str]) -> bool:
    for part in parts:
        if hasattr(obj, part):
            obj = getattr(obj, part)
        else:  # a dataclass field without a class-level default
            return part in getattr(obj, "__dataclass_fields__", {}) or part in getattr(obj, "__annotations__", {})
    return True


def parse() -> ast.Module:
    tree = ast.parse(WHITELIST.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node  # type: ignore[attr-defined]
    return tree


def test_every_name_the_whitelist_lists_by_its_module_exists_there():
    tree = parse()
    names = imported_names(tree)
    entries = dotted_entries(tree)
    assert len(entries) > 20
    stale = [".".join(e) for e in entries if e[0] not in names or not exists(names[e[0]], e[1:])]
    assert not stale, f".ci/vulture_whitelist.py names what is not there any more: {stale}"


def test_a_moved_name_is_seen():
    tree = ast.parse("from desktop_app.core.ingest import extract\nextract._VisibleText.handle_data\n")
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node  # type: ignore[attr-defined]
    [entry] = dotted_entries(tree)
    assert entry == ["extract", "_VisibleText", "handle_data"]
    assert not exists(imported_names(tree)["extract"], entry[1:])
