"""Errors are translated where they happen (the store engines), so the CLI's entry point catches KnownError (and
an interrupt) only, and knows no engine's exceptions."""

from __future__ import annotations

import ast
from pathlib import Path

CLI_MAIN = Path(__file__).parents[3] / "desktop_app" / "cli" / "__init__.py"


def caught_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            kinds = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            names.update(ast.unparse(k) if k is not None else "bare except" for k in kinds)
    return names


def test_the_cli_entry_point_handles_known_errors_only():
    tree = ast.parse(CLI_MAIN.read_text(encoding="utf-8"))
    assert caught_names(tree) <= {"KnownError", "KeyboardInterrupt"}
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m for m in imported if m.startswith("desktop_app.core.store")}


def test_the_check_sees_a_catch_all():
    assert "Exception" in caught_names(ast.parse("try:\n    pass\nexcept (KnownError, Exception):\n    pass\n"))
