"""docs/team-library.md's threat model names a test for every line: each named test exists, in the file named."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[3]
DOC = ROOT / "docs" / "team-library.md"
PREFIXES = {"S": "tests/integration/server", "P": "tests/integration/store", "M": "tests/integration/memory",
            "R": "tests/reliability"}
CITED = re.compile(r"`([SPMR])/([A-Za-z0-9_]+\.py)::(test_[A-Za-z0-9_]+)`")


def threat_model_rows() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Threat model", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| who")]


def test_every_line_of_the_threat_model_names_tests_that_exist():
    rows = threat_model_rows()
    assert len(rows) >= 10
    for row in rows:
        cited = CITED.findall(row)
        assert cited, f"no test named for: {row[:80]}"
        for prefix, module, name in cited:
            path = ROOT / PREFIXES[prefix] / module
            assert path.is_file(), path
            functions = {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                         if isinstance(n, ast.FunctionDef)}
            assert name in functions, f"{module} has no {name}"
