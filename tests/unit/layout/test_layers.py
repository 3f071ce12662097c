"""The core's layers, checked from its source: an import never runs up a layer (a lower layer importing a higher one
means the value it needs sits in the wrong place; the fix is to move the value down, not to import up).

Layers, lowest first. A module may import its own layer and those below; every part of desktop_app/core is in
exactly one, so a new module has to be placed on purpose."""

from __future__ import annotations

from tests.unit.layout.test_imports import graph

LAYERS: tuple[frozenset[str], ...] = tuple(frozenset(names.split()) for names in (
    "types errors log redact events paths pathnames machine",  # values and plumbing every part uses
    "text embed",  # the text pipeline, the embedders
    "settings",  # validated against the embedders' names
    "ingest",  # files to text and spans
    "ocr",  # page images to text (reads what ingest renders)
    "store",  # both engines and their rows
    "server",  # running a team server and joining one (the engine's role and database SQL stays in store)
    "folders read_only search",  # what the store's rows mean to a person
    "index ledger",  # keeping the store in step with the disk
    "watch memory",  # live sync; conversation memory (recall reads search and the index)
    "chat",  # answers
    "library library_derived library_tools backup team_backup viewer viewer_image viewer_memory viewer_ocr viewer_pdf "
    "viewer_rows viewer_text open_check shutdown",  # the facade and what it composes
))
# (from, to, why) imports up a layer that are known and allowed until they are moved
EXCEPTIONS: set[tuple[str, str, str]] = set()  # none today: page rendering moved into ingest (#44)


def part(module: str) -> str | None:
    """The part of the core a module belongs to (`desktop_app.core.store.sqlite.x` -> "store"), None outside it."""
    bits = module.split(".")
    return bits[2] if len(bits) > 2 and bits[:2] == ["desktop_app", "core"] else None


def layer_of() -> dict[str, int]:
    return {name: i for i, names in enumerate(LAYERS) for name in names}


def up_arrows(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(from part, to part) of every import from a lower layer into a higher one."""
    level = layer_of()
    found = set()
    for module, targets in edges.items():
        a = part(module)
        for target in targets:
            b = part(target)
            if a and b and a != b and level[a] < level[b]:
                found.add((a, b))
    return found


def test_every_part_of_the_core_has_a_layer():
    parts = {p for m in graph() if (p := part(m))}
    assert parts - set(layer_of()) == set(), "place the new part in LAYERS"
    assert set(layer_of()) - parts == set(), "LAYERS names a part that is gone"
    assert sum(len(n) for n in LAYERS) == len(layer_of()), "a part is in two layers"


def test_no_import_runs_up_a_layer():
    allowed = {(a, b) for a, b, _why in EXCEPTIONS}
    assert up_arrows(graph()) - allowed == set()


def test_every_listed_exception_is_still_needed():
    allowed = {(a, b) for a, b, _why in EXCEPTIONS}
    assert allowed - up_arrows(graph()) == set(), "an exception was fixed: remove it from EXCEPTIONS"


def test_the_check_sees_an_import_up_a_layer():
    edges = {"desktop_app.core.store.sqlite.memory.facts": {"desktop_app.core.memory.rows"},
             "desktop_app.core.memory.raw": {"desktop_app.core.store.base"}}
    assert up_arrows(edges) == {("store", "memory")}
