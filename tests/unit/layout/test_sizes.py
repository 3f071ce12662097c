"""Sizes: a report of smells, and a ceiling nothing may pass.

A class over 250 lines or a function over 60 is a smell to look at, not a failure: a hard gate at those sizes taught
the code to fit the number (constants renamed, methods moved to a one-line property) instead of splitting by
responsibility (#44). `make lint` prints the report (`python tests/unit/layout/test_sizes.py`), largest first.
What fails is a ceiling well past the smell: a class over 400 lines anywhere in desktop_app, a function over 100;
such a piece holds several jobs, whatever its names say.

A size counts every line from the `def`/`class` line to the last line of the body (docstring and comments
included, decorators not). Each test lists every offender, so one run shows the whole job.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[3] / "desktop_app"
SMELL_CLASS = 250  # reported
SMELL_FUNCTION = 60
CEILING_CLASS = 400  # failed
CEILING_FUNCTION = 100
CLASSES = (ast.ClassDef,)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
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


def offenders(under: str, kinds: tuple[type, ...], limit: int, skip: set[str] = frozenset(),
              root: Path = PACKAGE) -> dict[str, int]:
    """'<module>:<name>' -> lines, for everything of `kinds` over `limit` lines below `root`/`under`."""
    out: dict[str, int] = {}
    for path in sorted((root / under).rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where in skip:
            continue
        for name, lines in sizes(ast.parse(path.read_text(encoding="utf-8")), kinds):
            if lines > limit:
                out[f"{where}:{name}"] = lines
    return out


def smells(root: Path = PACKAGE) -> list[str]:
    """The report: every class over SMELL_CLASS and function over SMELL_FUNCTION lines, largest first."""
    found = {**offenders(".", CLASSES, SMELL_CLASS, root=root),
             **offenders(".", FUNCTIONS, SMELL_FUNCTION, MIGRATION_MODULES, root=root)}
    return [f"{lines:>5}  {name}" for name, lines in sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))]


def test_no_class_in_desktop_app_over_the_ceiling():
    assert offenders(".", CLASSES, CEILING_CLASS) == {}


def test_no_function_in_desktop_app_over_the_ceiling():
    assert offenders(".", FUNCTIONS, CEILING_FUNCTION, MIGRATION_MODULES) == {}


def test_the_report_lists_smells_largest_first_and_passes_the_rest(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(70))
    (tmp_path / "big.py").write_text(f"class Big:\n    def long(self):\n{body}\n\n\ndef short():\n    pass\n")
    (tmp_path / "small.py").write_text("class Small:\n    pass\n")
    assert smells(tmp_path) == ["   71  big.py:Big.long"]
    huge = "\n".join(f"    def m{i}(self):\n        return {i}\n" for i in range(90))
    (tmp_path / "huge.py").write_text(f"class Huge:\n{huge}")
    assert smells(tmp_path)[0] == "  270  huge.py:Huge" and len(smells(tmp_path)) == 2


def test_the_count_sees_methods_nested_functions_and_classes():
    body = "\n".join(f"        x{i} = {i}" for i in range(60))
    tree = ast.parse(f"class Big:\n    def long(self):\n        def inner():\n            pass\n{body}\n")
    measured = dict(sizes(tree, (ast.FunctionDef, ast.ClassDef)))
    assert measured == {"Big": 64, "Big.long": 63, "Big.long.inner": 2}


def test_migrations_are_the_only_exemption_and_exist():
    for where in MIGRATION_MODULES:
        assert (PACKAGE / where).is_file()


if __name__ == "__main__":
    lines = smells()
    print(f"size smells (classes over {SMELL_CLASS} lines, functions over {SMELL_FUNCTION}; failing only past "
          f"{CEILING_CLASS} / {CEILING_FUNCTION}): {len(lines)}")
    print("\n".join(lines))
