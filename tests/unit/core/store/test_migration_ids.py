"""Migrations are append-only: ids contiguous from 1 in file order, named by their functions, and a released
migration's body is never edited (its checksum is kept here). A new migration adds a line to RELEASED."""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap

import pytest

from desktop_app.core.errors import BugError
from desktop_app.core.store import migration as registry_module
from desktop_app.core.store.migration import MigrationRegistry
from desktop_app.core.store.postgres import migrations as postgres_migrations
from desktop_app.core.store.sqlite import migrations as sqlite_migrations

ENGINES = {"sqlite": sqlite_migrations, "postgres": postgres_migrations}
# engine -> id -> (name, checksum of the function's code: its DDL and calls, not its comments or layout)
RELEASED: dict[str, dict[int, tuple[str, str]]] = {
    "sqlite": {
        1: ("core", "f2be7b3405877e53"),
        2: ("vectors", "77fb81cb2f44689e"),
        3: ("chats", "a04239467b705e5b"),
        4: ("message_passages", "5175456ecd6b0ebd"),
        5: ("vector_windows", "4fb320ef13e32c24"),
        6: ("keyword_fields", "ff78be991984b630"),
        7: ("page_labels_and_ocr", "7c7dcfc0b5638039"),
        8: ("documents_inside_files", "7d89d396ecd8c435"),
        9: ("memory", "c13831c49d349555"),
        10: ("keyword_generation", "1887085a7036600a"),
        11: ("document_counts", "a7a32ab2ac786bd4"),
        12: ("document_dates_and_tags", "48ca098df0fa7e76"),
        13: ("documents_not_read", "16a8be4a0e3b12b8"),
        14: ("ocr_words", "1b68440b4c3526ca"),
        15: ("wikilinks_and_document_generation", "70320437d911035b"),
        16: ("keyword_generation_of_dates_and_tags", "4f794d7480a1a080"),
    },
    "postgres": {
        1: ("core", "e1fbda7121343237"),
        2: ("vectors", "6c0975d8ca4ba7d5"),
        3: ("chats", "b16d777384490edc"),
        4: ("title_trigrams", "038c6b6bdd8f3a4f"),
        5: ("text_pipeline_ocr_parts", "b784255dcd6001ff"),
        6: ("permissions", "1499e96c9fad359e"),
        7: ("memory", "4db2ca0391e506c6"),
        8: ("document_counts", "fc9f179f6b494bf2"),
        9: ("side_generations", "ad6f184341230add"),
        10: ("pinned_search_paths", "47e8a708c91abad0"),
        11: ("people_not_groups_private_chats", "a57c840b9e667c05"),
        12: ("memory_forgot_through", "d61a5dbe7f36f2c2"),
        13: ("plain_meta_values", "adc2435966df0c0e"),
        14: ("document_dates_and_tags", "dc1d73ad2b0359f0"),
        15: ("documents_not_read", "8571a768dbc37056"),
        16: ("ocr_words", "bcd8d8eb866807f3"),
        17: ("wikilinks", "060f547855020203"),
    },
}


def checksum(fn) -> str:
    """sha256 (16 hex digits) of the function's code without its decorators and docstring (neither is DDL)."""
    node = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    assert isinstance(node, ast.FunctionDef)
    node.decorator_list.clear()
    if ast.get_docstring(node) is not None:
        node.body = node.body[1:]
    return hashlib.sha256(ast.unparse(node).encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_ids_are_contiguous_and_follow_the_function_names(engine):
    entries = ENGINES[engine].MIGRATIONS
    assert [mid for mid, _, _ in entries] == list(range(1, len(entries) + 1))
    assert all(fn.__name__ == f"m{mid:03d}_{name}" for mid, name, fn in entries)
    assert ENGINES[engine].SCHEMA_VERSION == len(entries)


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_no_released_migration_was_edited_or_removed(engine):
    current = {mid: (name, checksum(fn)) for mid, name, fn in ENGINES[engine].MIGRATIONS}
    for mid, recorded in RELEASED[engine].items():
        assert mid in current, f"{engine} migration {mid} was removed: migrations are append-only"
        assert current[mid] == recorded, (f"{engine} migration {mid:03d}_{recorded[0]} was edited: add a new "
                                          "migration instead (it runs on libraries that already have this one)")
    new = {mid: value for mid, value in current.items() if mid not in RELEASED[engine]}
    assert not new, f"record the new {engine} migration(s) in RELEASED: {new}"


def test_the_registry_refuses_a_gap_a_repeat_and_a_bad_name():
    registry = MigrationRegistry()

    def m001_first(conn): ...

    def m003_skips(conn): ...

    def add_column(conn): ...

    registry(m001_first)
    for wrong in (m001_first, m003_skips, add_column):
        with pytest.raises(BugError):
            registry(wrong)
    assert registry.entries == [(1, "first", m001_first)] and registry.version == 1
    assert registry_module.MigrationRegistry is MigrationRegistry
