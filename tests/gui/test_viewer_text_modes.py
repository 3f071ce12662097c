"""The viewer's text modes on a real library: Markdown rendered with the passage and the quote highlighted on the
characters they are (the markup gone from between them), code in a monospace font with the file's own line numbers
beside the passage, and the mapping through Markdown rendering for every kind of block (a mark markup would swallow
falls back to the source shown as text)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontDatabase, QTextCursor

from desktop_app.ui.safe_document import SafeTextDocument
from desktop_app.ui.viewer.dock import viewer_of
from desktop_app.ui.viewer.text_views import render_markdown

GUIDE = ("---\ntitle: Keeper's guide\n---\n\n# Keeper's guide\n\n## The lamp\n\n"
         "Trim the wick each evening. The **brass burner** must be polished with a *soft* cloth before the "
         "`lamp oil` is poured, and the [log book](https://example.org/log) signed.\n\n"
         "> Never leave the lamp room while the lens turns.\n\n"
         "1. Check the clockwork.\n2. Wind the weights.\n\n```\nweights = wind(turns=40)\n```\n")
QUOTE = "The **brass burner** must be polished with a *soft* cloth"
SHOWN_QUOTE = "The brass burner must be polished with a soft cloth"


def code_lines() -> list[str]:
    lines = [f"def step_{i}(tide, wind):\n    return tide * {i} + wind  # harbour arithmetic line {i}"
             for i in range(1, 160)]
    lines.insert(120, "def lantern_glass_rotation(speed):\n    return speed / 12  # the lens turns twice a minute")
    return "\n".join(lines).split("\n")


@pytest.fixture
def text_window(qtbot, make_window, library, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text(GUIDE, encoding="utf-8")
    (docs / "tides.py").write_text("\n".join(code_lines()) + "\n", encoding="utf-8")
    library.add_folder(docs)
    library.sync(wait=True)
    window = make_window()
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.folder_count >= 0 and not window.syncing, timeout=10_000)
    return window, docs


def chunk_of(library, query: str, name: str):
    return next(r for r in library.search(query, top_k=10, mode="keyword") if r.source.endswith(name))


def marked_cursor(view, n: int) -> QTextCursor:
    selections = view.extraSelections()  # held: a cursor of a temporary list is gone with it
    return QTextCursor(selections[n].cursor)


def marked(view, n: int) -> str:
    return marked_cursor(view, n).selectedText().replace("\u2029", "\n")


def test_markdown_is_rendered_with_the_quote_on_its_own_characters(qtbot, text_window):
    window, _docs = text_window
    hit = chunk_of(window.library, "brass burner polished", "guide.md")
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        viewer.show_chunk(int(hit.metadata["chunk_id"]), QUOTE)
    passage = shown.args[0]
    assert passage.text[passage.quote_start:passage.quote_end] == QUOTE  # the source's span, markup and all
    view = viewer.rendered
    assert viewer.shown_text is view
    text = view.toPlainText()
    assert "**" not in text and "`" not in text and "](" not in text and "## " not in text
    assert marked(view, 1) == SHOWN_QUOTE  # the quote: exactly its characters, rendered
    assert view.textCursor().selectedText() == SHOWN_QUOTE  # selected: what copy takes
    assert SHOWN_QUOTE in marked(view, 0) and "Never leave the lamp room" in marked(view, 0)
    cursor = view.document().find("brass burner")
    assert cursor.charFormat().fontWeight() >= 700  # bold, not asterisks
    assert view.document().find("lamp oil").charFormat().fontFixedPitch() or \
        "mono" in view.document().find("lamp oil").charFormat().fontFamilies()[0].lower()
    heading = view.document().find("The lamp").block().blockFormat().headingLevel()
    assert heading == 2
    assert view.document().requested == []  # nothing fetched: the link is text to click, not a resource


def test_code_shows_monospace_with_the_files_line_numbers(qtbot, text_window):
    window, docs = text_window
    hit = chunk_of(window.library, "lantern_glass_rotation", "tides.py")
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000) as shown:
        viewer.show_chunk(int(hit.metadata["chunk_id"]), "the lens turns twice a minute")
    passage = shown.args[0]
    assert passage.whole and passage.start > 0  # not the file's first chunk: the numbers must still be the file's
    view = viewer.text
    assert viewer.shown_text is view and view.numbered and view.gutter.isVisible()
    assert QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family() == view.font().family()
    lines = (docs / "tides.py").read_text(encoding="utf-8").split("\n")
    wanted = lines.index("    return speed / 12  # the lens turns twice a minute") + 1
    quote = marked_cursor(view, 1)
    assert quote.selectedText() == "the lens turns twice a minute"
    assert quote.block().blockNumber() + 1 == wanted
    assert quote.block().text() == lines[wanted - 1]
    assert view.textCursor().selectedText() == "the lens turns twice a minute"
    qtbot.waitUntil(lambda: any(n == wanted for n, _top in view.line_numbers_shown()), timeout=5_000)
    numbers = [n for n, _top in view.line_numbers_shown()]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # the file's lines, in order


def test_a_text_file_has_no_line_numbers(qtbot, text_window, tmp_path):
    window, docs = text_window
    (docs / "plain.txt").write_text("A plain note about the foghorn and its schedule.\n", encoding="utf-8")
    window.library.sync(wait=True)
    hit = chunk_of(window.library, "foghorn schedule", "plain.txt")
    viewer = viewer_of(window)
    with qtbot.waitSignal(viewer.passage_shown, timeout=20_000):
        viewer.show_chunk(int(hit.metadata["chunk_id"]))
    assert viewer.shown_text is viewer.text and not viewer.text.numbered and not viewer.text.gutter.isVisible()


@pytest.mark.parametrize(("start", "end", "shown"), [
    ("# Keeper", "guide\n\n## The", "Keeper's guide\nThe"),  # a heading's "#" stays markup
    ("Check", "Wind the weights.", "Check the clockwork.\nWind the weights."),  # a list
    ("Never", "turns.", "Never leave the lamp room while the lens turns."),  # a block quote
    ("weights =", "40)", "weights = wind(turns=40)"),  # inside a fence
    ("1. Check", "```\nweights", "Check the clockwork.\nWind the weights.\nweights"),  # up to a fence's text
])
def test_offsets_come_through_rendering_for_every_kind_of_block(qapp, start, end, shown):
    document = SafeTextDocument()
    a, b = GUIDE.index(start), GUIDE.index(end) + len(end)
    at = render_markdown(document, GUIDE, [a, b])
    assert at is not None
    assert document.toRawText()[at[0]:at[1]].replace("\u2029", "\n") == shown
    assert "\ue000" not in document.toRawText() and "\ue001" not in document.toRawText()


def test_an_offset_markup_would_swallow_falls_back(qapp):
    document = SafeTextDocument()
    inside_link = GUIDE.index("example.org")
    assert render_markdown(document, GUIDE, [inside_link, inside_link + 5]) is None
    assert render_markdown(document, "text with a \ue000 mark", [0, 4]) is None
