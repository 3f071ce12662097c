"""Every document type has a badge and a name in the window's type filter."""

from __future__ import annotations

from desktop_app.core.ingest.filetypes import DOCUMENT_TYPES
from desktop_app.ui.type_icons import TYPE_LABELS, TYPE_NAMES, type_icon


def test_every_type_has_a_badge_and_a_name(qapp):
    assert set(TYPE_LABELS) == set(DOCUMENT_TYPES) == set(TYPE_NAMES)
    for kind in DOCUMENT_TYPES:
        assert not type_icon(kind, 32).isNull()
