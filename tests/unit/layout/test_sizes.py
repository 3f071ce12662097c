"""Small pieces: no class in desktop_app/core over 250 lines, no function anywhere in desktop_app over 60.

A size counts every line from the `def`/`class` line to the last line of the body (docstring and comments
included, decorators not). Each test lists every offender, so one run shows the whole job.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[3] / "desktop_app"
MAX_CLASS = 250
MAX_FUNCTION = 60
# A migration may not be edited: the checksum in tests/unit/core/store/test_migration_ids.py covers the function's
# code (its DDL and calls), so moving its SQL into a constant would read as an edited migration. Migrations are
# exempt by module, not by name, so a long function anywhere else still fails.
MIGRATION_MODULES = {"core/store/sqlite/migrations.py", "core/store/postgres/migrations.py"}


def sizes(tree: ast.AST, kinds: tuple[type, ...]) -> list[tuple[str, int]]:
    """(qualified name, lines) of every node of `kinds` in a module, nested ones included."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if isinstance(child, kinds):
                    found.append((name, (child.end_lineno or child.lineno) - child.lineno + 1))
                name += "."
            visit(child, name)

    visit(tree, "")
    return found


def offenders(under: str, kinds: tuple[type, ...], limit: int, skip: set[str] = frozenset()) -> dict[str, int]:
    """'<module>:<name>' -> lines, for everything of `kinds` over `limit` lines below desktop_app/`under`."""
    out: dict[str, int] = {}
    for path in sorted((PACKAGE / under).rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where in skip:
            continue
        for name, lines in sizes(ast.parse(path.read_text(encoding="utf-8")), kinds):
            if lines > limit:
                out[f"{where}:{name}"] = lines
    return out


def test_no_class_in_the_core_over_250_lines():
    assert offenders("core", (ast.ClassDef,), MAX_CLASS) == {}


def test_no_function_in_desktop_app_over_60_lines():
    found = offenders(".", (ast.FunctionDef, ast.AsyncFunctionDef), MAX_FUNCTION, MIGRATION_MODULES)
    assert found == {}


def test_the_count_sees_methods_nested_functions_and_classes():
    body = "\n".join(f"        x{i} = {i}" for i in range(60))
    tree = ast.parse(f"class Big:\n    def long(self):\n        def inner():\n            pass\n{body}\n")
    measured = dict(sizes(tree, (ast.FunctionDef, ast.ClassDef)))
    assert measured == {"Big": 64, "Big.long": 63, "Big.long.inner": 2}


def test_migrations_are_the_only_exemption_and_exist():
    for where in MIGRATION_MODULES:
        assert (PACKAGE / where).is_file()
