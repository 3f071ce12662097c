"""Each format is registered once (kind, suffixes, badge, display name, cost class); the tables are its views."""

from __future__ import annotations

from pathlib import Path, PurePath

import pytest

from desktop_app.core.index.indexer import cost_order
from desktop_app.core.ingest.discover import Found
from desktop_app.core.ingest.filetypes import (
    DOCUMENT_TYPES,
    FORMAT_TYPES,
    Format,
    FormatRegistry,
    cost_class,
    file_type,
)


def test_every_registered_suffix_reads_as_its_kind():
    for fmt in FormatRegistry.all():
        assert fmt.badge and fmt.name and fmt.suffixes, fmt.kind
        for suffix in fmt.suffixes:
            assert file_type(PurePath(f"a{suffix}")) == fmt.kind == FormatRegistry.kind_of_suffix(suffix), suffix
    assert DOCUMENT_TYPES == tuple(f.kind for f in FormatRegistry.all())
    assert set(FORMAT_TYPES.values()) | {"html", "markdown", "text", "code"} == set(DOCUMENT_TYPES)


def test_a_suffix_belongs_to_one_format():
    with pytest.raises(ValueError, match=r"\.pdf"):
        FormatRegistry.register(Format(kind="pdf-copy", suffixes=(".pdf",), badge="P", name="P"))
    assert FormatRegistry.get("pdf-copy") is None


def test_cost_classes_order_the_keyword_phase():
    kinds = ("text", "markdown", "code", "html", "docx", "email", "pdf")
    assert [cost_class(k) for k in kinds] == [0, 0, 0, 0, 1, 1, 2]
    assert cost_class("not-a-kind") == 1
    found = [Found(Path(n), size, 0) for n, size in (("b.pdf", 1), ("a.docx", 5), ("c.md", 9), ("d.txt", 2))]
    assert [f.path.name for f in sorted(found, key=cost_order)] == ["d.txt", "c.md", "a.docx", "b.pdf"]
