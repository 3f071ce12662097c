"""Row blocks: whole rows, the header on top of each, every row kept once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.ingest.extract_rows import PageBuilder
from desktop_app.core.ingest.formats.sheets import add_sheet, extract_csv, row_blocks, row_text

cell = st.text(alphabet="abc xyz0123", max_size=12)


@given(st.lists(st.lists(cell, min_size=1, max_size=5), min_size=1, max_size=120),
       st.integers(min_value=1, max_value=50), st.integers(min_value=1, max_value=30))
def test_every_block_starts_with_the_header_and_no_row_is_lost(rows, block_words, block_rows):
    numbered = list(enumerate(rows, start=1))
    lines = [row_text(r) for _, r in numbered if row_text(r)]
    blocks = list(row_blocks(numbered, block_words, block_rows))
    if not lines:
        assert blocks == []
        return
    header, body = lines[0], lines[1:]
    assert all(text.split("\n")[0] == header for text, _, _ in blocks)
    kept = [line for text, _, _ in blocks for line in text.split("\n")[1:]]
    assert kept == body
    assert all(first <= last for _, first, last in blocks)


def test_labels_name_the_sheet_and_rows():
    builder = PageBuilder()
    rows = [(1, ["Item", "Cost"])] + [(n, [f"thing{n}", str(n)]) for n in range(2, 150)]
    add_sheet(builder, rows, "Budget")
    doc = builder.build("t", "xlsx")
    assert doc.pages[0].label == "sheet Budget rows 2-61"
    assert doc.pages[-1].label.startswith("sheet Budget rows ")
    assert all(doc.page_text(p).startswith("Item | Cost\n") for p in doc.pages)


def test_csv_delimiter_is_sniffed_and_rows_numbered_as_a_spreadsheet_shows_them():
    text = "name;value\n" + "".join(f"n{i};{i}\n" for i in range(2, 100)) + "wombat;7\n"
    doc = extract_csv(text, "data", ".csv")
    last = doc.pages[-1]
    assert "wombat | 7" in doc.page_text(last)
    assert last.label.endswith("-100") or last.label == "row 100"
