"""Unit tests mirror the package: tests/unit/core/<pkg>/ holds the tests of desktop_app/core/<pkg>/, so a reader
finds a module's tests by its path, and a test does not stay behind when its module moves into a sub-package.

Three checks, each listing every offender: every test folder names a real package; a test named for a module sits
in that module's folder; a test imports something of its folder's package, and not only of one sub-package's.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[3]
UNIT = ROOT / "tests" / "unit"

# tests/unit/<top>/ -> the folder whose code it tests (None: tests of the whole tree, no code of their own).
TOPS: dict[str, str | None] = {"core": "desktop_app/core", "cli": "desktop_app/cli", "ui": "desktop_app/ui",
                               "mcp": "desktop_app/mcp", "bench": "bench", "packaging": "packaging",
                               "layout": None}

# Tests that import nothing of their folder's package, with the reason they live where they do.
IMPORT_EXCEPTIONS = {
    "core/memory/test_forget_and_remember.py": "memory's remember and forget, driven through chat's memory step on "
                                               "the memory fixture of this folder's conftest",
    "core/ocr/test_lazy_import.py": "imports the OCR package in a child process, to see what importing it loads",
}


def unmirrored_folders(unit: Path, roots: dict[str, str | None], root: Path) -> list[str]:
    """Test folders below `unit` whose code folder (by `roots`) does not exist, or is not a Python package."""
    bad = []
    for folder in sorted(p for p in unit.rglob("*") if p.is_dir() and p.name != "__pycache__"):
        top, *rest = folder.relative_to(unit).parts
        if top not in roots:
            bad.append(f"{folder.relative_to(unit)}: no entry in TOPS for tests/unit/{top}/")
            continue
        code = roots[top]
        if code is None:
            continue
        target = root / code / Path(*rest)
        if not target.is_dir() or (code.startswith("desktop_app") and not (target / "__init__.py").is_file()):
            bad.append(f"{folder.relative_to(unit)}: {target.relative_to(root)} is not a package")
    return bad


def misplaced_by_name(unit: Path, core: Path) -> list[str]:
    """Tests named test_<module>.py whose module is not in their mirrored folder but in a sub-package of it."""
    bad = []
    for test in sorted(unit.rglob("test_*.py")):
        rel = test.parent.relative_to(unit)
        folder = core / rel
        name = test.stem.removeprefix("test_") + ".py"
        if (folder / name).exists() or not folder.is_dir():
            continue
        homes = sorted(str(p.parent.relative_to(core)) for p in folder.rglob(name) if "__pycache__" not in p.parts)
        if homes:
            bad.append(f"{test.relative_to(unit)} -> {homes[0]}/")
    return bad


def imported_modules(test: Path, root: Path) -> set[str]:
    """Dotted names of the modules a test imports (`from pkg import mod` counts as pkg.mod when mod is a module)."""
    found = set()
    for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                path = root.joinpath(*node.module.split("."), alias.name)
                is_module = path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
                found.add(f"{node.module}.{alias.name}" if is_module else node.module)
    return found


def misplaced_by_imports(unit: Path, root: Path, package: str) -> list[str]:
    """Tests below `unit` (mirroring `package`) that import nothing of their folder's package, or whose imports of
    it all lie inside sub-packages (such a test belongs in one of them)."""
    code = root.joinpath(*package.split("."))
    bad = []
    for test in sorted(unit.rglob("test_*.py")):
        rel = test.parent.relative_to(unit).parts
        own = ".".join((package, *rel))
        tails = [m.removeprefix(own).lstrip(".").split(".") for m in imported_modules(test, root)
                 if m == own or m.startswith(own + ".")]
        where = test.relative_to(unit.parent).as_posix()
        if not tails:
            bad.append(f"{where}: imports nothing of {own}")
            continue
        in_sub = [t for t in tails if len(t) >= 2 and (code.joinpath(*rel, t[0]) / "__init__.py").is_file()]
        if len(in_sub) == len(tails):
            bad.append(f"{where}: imports only {sorted({t[0] for t in in_sub})} of {own}")
    return bad


def test_each_unit_test_folder_names_a_package():
    assert unmirrored_folders(UNIT, TOPS, ROOT) == []


def test_a_test_named_for_a_module_sits_in_that_modules_folder():
    assert misplaced_by_name(UNIT / "core", ROOT / "desktop_app" / "core") == []


def test_a_test_sits_in_the_folder_of_the_package_it_imports():
    found = misplaced_by_imports(UNIT / "core", ROOT, "desktop_app.core")
    listed = set(IMPORT_EXCEPTIONS)
    assert [line for line in found if line.split(":")[0] not in listed] == []
    assert listed - {line.split(":")[0] for line in found} == set(), "an exception was fixed: remove it"


def test_the_checks_catch_a_misplaced_test(tmp_path):
    # A small tree with each mistake once: a folder with no package, a test left above its module's sub-package,
    # and a test importing only a sub-package's module.
    code = tmp_path / "app" / "core"
    for package in ("", "chat", "chat/models"):
        (code / package).mkdir(parents=True, exist_ok=True)
        (code / package / "__init__.py").write_text("")
    (code / "chat" / "service.py").write_text("")
    (code / "chat" / "models" / "catalog.py").write_text("")
    unit = tmp_path / "unit"
    (unit / "core" / "chat").mkdir(parents=True)
    (unit / "core" / "gone").mkdir()
    (unit / "core" / "chat" / "test_catalog.py").write_text("from app.core.chat.models.catalog import x\n")
    (unit / "core" / "chat" / "test_service.py").write_text("from app.core.chat import service\n")

    assert unmirrored_folders(unit, {"core": "app/core"}, tmp_path) == ["core/gone: app/core/gone is not a package"]
    assert misplaced_by_name(unit / "core", code) == ["chat/test_catalog.py -> chat/models/"]
    assert misplaced_by_imports(unit / "core", tmp_path, "app.core") == [
        "core/chat/test_catalog.py: imports only ['models'] of app.core.chat"]
