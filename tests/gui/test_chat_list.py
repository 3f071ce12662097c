"""The chat pane's column of past chats: wide enough for a typical title (it was drawn about 120 px wide, so a
title of four or five words was cut short), keeping its width when the pane grows, and opening the chat clicked."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_the_chat_column_fits_a_question_and_keeps_its_width_when_the_pane_grows(qtbot, make_window, library,
                                                                                 tmp_path):
    (tmp_path / "docs").mkdir()
    library.add_folder(tmp_path / "docs")  # a library with a folder: the panes, not the empty state
    window = make_window()
    window.resize(1360, 820)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.splitter, timeout=5000)
    chats = window.chat_pane.chats
    title = chats.fontMetrics().horizontalAdvance("Why is Venus so hot?")  # the old 120 px cut this one short
    qtbot.waitUntil(lambda: chats.width() > 0, timeout=5000)
    assert chats.width() >= title + 2 * chats.frameWidth()
    right, body = window.chat_pane.splitters
    before = body.sizes()
    folders, search, chat = window.splitter.sizes()
    window.splitter.setSizes([folders, search - 200, chat + 200])  # the person drags the chat pane wider
    qtbot.waitUntil(lambda: body.sizes()[1] > before[1], timeout=5000)
    assert body.sizes()[0] == before[0]  # the room went to the transcript


def test_the_library_chats_are_listed_the_current_one_selected_and_a_click_names_it(qtbot, window, library):
    chats = window.chat_pane.chats
    venus = library.chat.new_chat("How hot is Venus?")
    untitled = library.chat.new_chat()
    chats.reload(lambda: venus)
    qtbot.waitUntil(lambda: chats.count() == 2, timeout=5000)
    titles = {chats.item(i).data(Qt.ItemDataRole.UserRole): chats.item(i).text() for i in range(2)}
    assert titles == {venus: "How hot is Venus?", untitled: "(untitled)"}
    assert chats.currentItem().data(Qt.ItemDataRole.UserRole) == venus
    with qtbot.waitSignal(chats.chat_chosen) as chosen:
        chats.itemClicked.emit(chats.currentItem())
    assert chosen.args == [venus]
