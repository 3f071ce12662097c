"""The package's shape, checked from its source: no import cycles, a headless core, SQL only in the store engines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).parents[3] / "desktop_app"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """Every desktop_app module this file imports, at module level or inside functions. `from pkg import sub`
    of a submodule depends on the submodule; `from pkg import name` of anything else depends on pkg itself."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("desktop_app"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("desktop_app"):
            subs = {f"{node.module}.{a.name}" for a in node.names}
            found.update(subs & modules)
            if subs - modules:
                found.add(node.module)
    return found


def graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {t for t in imports_of(path, set(modules)) if t in modules and t != name}
        # importing a.b.c runs a/__init__ and a/b/__init__ too, but those edges are the package's own business:
        # a cycle through an __init__ that only re-exports is still a cycle, so keep them
        edges[name] = targets
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_is_read_from_the_real_package():
    edges = graph()
    assert "desktop_app.core.library" in edges["desktop_app.cli.common"]
    assert "desktop_app.core.store.base" in edges["desktop_app.core.index.indexer"]


def test_no_import_cycles():
    assert find_cycle(graph()) is None, " -> ".join(find_cycle(graph()) or [])


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_core_never_imports_qt():
    offenders = [module_name(p) for p in (PACKAGE / "core").rglob("*.py")
                 if any(t.startswith("PySide6") for t in _all_imports(p))]
    assert offenders == []


def _all_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


SQL = re.compile(r"\.execute(many)?\(|executescript\(")
ENGINES = (PACKAGE / "core" / "store" / "sqlite", PACKAGE / "core" / "store" / "postgres")


def test_sql_lives_only_in_the_store_engines():
    outside = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
               if SQL.search(p.read_text(encoding="utf-8")) and not any(e in p.parents for e in ENGINES)]
    assert outside == []


# The UI calls the core through the facade: the Library (core/library.py) and the functions that need no open
# library (core/library_tools.py). Beside those it may import only value types: what the facade's calls take and
# return, and the pure helpers that format them. docs/ui.md says so.
UI_FACADE = {"desktop_app.core", "desktop_app.core.library", "desktop_app.core.library_tools"}
UI_VALUE_TYPES = {
    "desktop_app.core.errors",  # KnownError and its kinds
    "desktop_app.core.events",  # IndexProgress, Notice and their enums
    "desktop_app.core.types",  # RetrievalResult
    "desktop_app.core.settings",  # Settings
    "desktop_app.core.store.rows",  # Share (parse_share), FolderState
    "desktop_app.core.viewer_rows",  # PassageText, PdfPage, Box: what library.viewer returns
    "desktop_app.core.store.ledger_rows",  # LedgerQuery, LedgerRow, FileState: what library.ledger takes and returns
    "desktop_app.core.memory.rows",  # MemoryHit
    "desktop_app.core.log",  # get_logger and the redacting formatter (the log is the core's, the handlers the UI's)
    "desktop_app.core.pathnames",  # display_path, clean_text: how a stored path is shown
    "desktop_app.core.text.language",  # LANGUAGE_NAMES, detect_language, RIGHT_TO_LEFT (not the text pipeline itself)
    "desktop_app.core.text.markup",  # strip_markup, plain_spans: a passage's Markdown/HTML shown as text (pure)
    "desktop_app.core.chat.conversation",  # Conversation, Exchange, Ending: the chat pane's headless model
    "desktop_app.core.chat.models.catalog",  # CatalogEntry, CATALOG, recommend, format_bytes
    "desktop_app.core.chat.models.download",  # DownloadProgress, DownloadCancelled
    "desktop_app.core.ingest.filetypes",  # FormatRegistry: each format's badge and display name
    "desktop_app.core.search.query_language",  # parse_query, Chip, without_chip: the query's parts as chips (pure)
    "desktop_app.core.search.query_edit",  # set_group, group_values: the filters menu's edits of the query (pure)
}


def ui_core_imports() -> dict[str, set[str]]:
    """UI module -> the desktop_app.core modules it imports that are neither the facade nor a value type."""
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    found = {}
    for path in sorted((PACKAGE / "ui").rglob("*.py")):
        core = {t for t in imports_of(path, modules) if t == "desktop_app.core" or t.startswith("desktop_app.core.")}
        if extra := core - UI_FACADE - UI_VALUE_TYPES:
            found[module_name(path)] = extra
    return found


def test_ui_imports_only_the_facade_and_value_types():
    assert ui_core_imports() == {}


def test_every_listed_value_type_module_is_still_imported_by_the_ui():
    """A module the UI stopped importing leaves the list, so the list says what the UI needs today."""
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    used = set().union(*(imports_of(p, modules) for p in (PACKAGE / "ui").rglob("*.py")))
    assert UI_VALUE_TYPES - used == set()


def test_the_ui_import_check_sees_a_reach_past_the_facade(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from desktop_app.core.library import Library\nfrom desktop_app.core.events import Notice\n"
                     "def f():\n    from desktop_app.core.store.postgres.probe import check_server\n",
                     encoding="utf-8")
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    assert imports_of(probe, modules) - UI_FACADE - UI_VALUE_TYPES == {"desktop_app.core.store.postgres.probe"}
    assert all(m in modules for m in UI_FACADE | UI_VALUE_TYPES), "every allowed module exists"
