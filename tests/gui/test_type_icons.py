"""Every document type has a badge and a name in the window's type filter; memory results have badges of their own."""

from __future__ import annotations

from desktop_app.core.ingest.filetypes import DOCUMENT_TYPES
from desktop_app.ui.search.type_icons import MEMORY_LABELS, TYPE_LABELS, TYPE_NAMES, result_icon, type_icon


def test_every_type_has_a_badge_and_a_name(qapp):
    assert set(TYPE_LABELS) == set(DOCUMENT_TYPES) == set(TYPE_NAMES)
    for kind in DOCUMENT_TYPES:
        assert not type_icon(kind, 32).isNull()


def test_memory_results_have_their_own_badges_not_the_unknown_type(qapp):
    unknown = type_icon("").cacheKey()
    fact, chat = result_icon({"memory": {"kind": "fact"}}), result_icon({"memory": {"kind": "history"}})
    assert len({fact.cacheKey(), chat.cacheKey(), unknown}) == 3 and not fact.isNull() and not chat.isNull()
    assert set(MEMORY_LABELS.values()) == {"FACT", "CHAT"}
    # a document passage found by memory search ("Both") keeps its file type's badge
    assert result_icon({"memory": {"kind": "document"}, "type": "pdf"}).cacheKey() == type_icon("pdf").cacheKey()
