"""Light and dark: with Trove's dark (or light) palette, every text the window shows on the sample library — labels,
buttons, the welcome questions and links, the search box and its results, the chat, the folder rows and bars, the
badges — is readable on what it is drawn on (WCAG contrast ratio ≥ 4.5, from the palette colours each widget uses),
and "system" follows the desktop's colour scheme when it switches."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QLabel,
    QLineEdit,
    QMenuBar,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QTextEdit,
    QWidget,
)

from desktop_app.ui.search.result_delegate import row_colours
from desktop_app.ui.search.type_icons import LABEL_COLOUR, MEMORY_COLOURS, TYPE_COLOURS, UNKNOWN_COLOUR
from desktop_app.ui.theme import (
    READABLE,
    PlatformFollower,
    apply_theme,
    contrast_ratio,
    dark_palette,
    is_dark,
    is_muted,
    requested_theme,
    secondary_text,
    set_muted,
)
from tests.gui.gui_helpers import SAMPLE_DOCS, add_and_sync, search

Role, Group = QPalette.ColorRole, QPalette.ColorGroup


@pytest.fixture
def restore_theme(qapp):
    """Put the application's style and palette back after the test (the other tests draw with the default)."""
    style, palette = qapp.style().name(), QPalette(qapp.palette())
    yield qapp
    qapp.setStyle(style)
    qapp.setPalette(palette)


def _background(widget: QWidget, group: QPalette.ColorGroup) -> QColor:
    """The colour behind `widget`'s text: a raised button's face, else the first ancestor that fills its background
    (a scroll area's viewport, the welcome view), else the window's."""
    w: QWidget | None = widget
    while w is not None:
        if (isinstance(w, QPushButton) and not w.isFlat() and w is not widget) or isinstance(w, QComboBox):
            return w.palette().color(group, Role.Button)
        if w.autoFillBackground() or w.isWindow():
            return w.palette().color(group, w.backgroundRole())
        w = w.parentWidget()
    return widget.palette().color(group, Role.Window)


def drawn_pairs(widget: QWidget) -> list[tuple[str, QColor, QColor]]:
    """(what, text colour, background colour) for each text `widget` draws, from the palette roles its style uses."""
    pal = widget.palette()
    group = Group.Active if widget.isEnabled() else Group.Disabled
    if isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractItemView)):
        return [("text", pal.color(group, Role.Text), pal.color(group, Role.Base))]
    if isinstance(widget, QProgressBar):  # the label over the groove, and over the filled part
        return [("bar", pal.color(group, Role.Text), pal.color(group, Role.Base)),
                ("bar filled", pal.color(group, Role.HighlightedText), pal.color(group, Role.Highlight))]
    if isinstance(widget, (QComboBox, QPushButton)) and not (isinstance(widget, QPushButton) and widget.isFlat()):
        return [("button", pal.color(group, Role.ButtonText), pal.color(group, Role.Button))]
    if isinstance(widget, QPushButton):  # flat: a link drawn on what is behind it
        return [("link", pal.color(group, Role.ButtonText), _background(widget.parentWidget(), group))]
    return [("label", pal.color(group, widget.foregroundRole()), _background(widget, group))]


def shows_text(widget: QWidget) -> bool:
    if isinstance(widget, QLabel):
        return bool(widget.text())
    if isinstance(widget, QAbstractButton):
        return bool(widget.text()) or bool(widget.findChildren(QLabel))
    return isinstance(widget, (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractItemView, QComboBox, QProgressBar,
                               QMenuBar))


def unreadable(window: QWidget) -> list[str]:
    """Every text of the window's visible widgets below READABLE (enabled controls; a disabled button may look
    disabled, a disabled or muted label is a hint and must still read)."""
    bad = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not widget.isVisibleTo(window) or not shows_text(widget):
            continue
        if not widget.isEnabled() and not isinstance(widget, QLabel):
            continue
        for what, fg, bg in drawn_pairs(widget):
            ratio = contrast_ratio(fg, bg)
            if ratio < READABLE:
                bad.append(f"{type(widget).__name__} {widget.objectName() or widget.__class__.__name__} {what}: "
                           f"{fg.name()} on {bg.name()} = {ratio:.2f}")
    return bad


def checked_widgets(window: QWidget) -> int:
    return sum(1 for w in window.findChildren(QWidget) if w.isVisibleTo(window) and shows_text(w))


def first_run(qtbot, window, sample_folder) -> None:
    """The sample library indexed, the welcome questions shown, a search's results listed and selected."""
    add_and_sync(qtbot, window, sample_folder, SAMPLE_DOCS)
    qtbot.waitUntil(lambda: len(window.chat_pane.welcome.buttons) == 3
                    and window.chat_pane.welcome.library.isVisibleTo(window), timeout=30_000)
    assert search(qtbot, window, "planets")  # results, the first one selected


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_every_text_of_the_first_run_is_readable_in_the_theme(restore_theme, qtbot, window, sample_folder, theme):
    assert apply_theme(restore_theme, theme) == theme
    assert restore_theme.style().name() == "fusion" and is_dark(restore_theme.palette()) == (theme == "dark")
    first_run(qtbot, window, sample_folder)
    window.folders_panel.hint.show()  # "Drop folders here": a muted hint, shown on an empty list
    assert is_dark(window.palette()) == (theme == "dark")
    assert unreadable(window) == []
    assert checked_widgets(window) > 30  # the welcome, the search pane, the folders, the chat, the status bar
    view = window.search_panel.view
    for selected in (False, True):  # result rows: the delegate's colours on the view's Base or the selection
        text, second = row_colours(view.palette(), Group.Active, selected)
        bg = view.palette().color(Group.Active, Role.Highlight if selected else Role.Base)
        assert contrast_ratio(text, bg) >= READABLE and contrast_ratio(second, bg) >= READABLE


def test_a_dark_desktop_turns_the_window_dark_and_back(restore_theme, qtbot, window, sample_folder):
    """The system theme with a style that draws light on a dark desktop: the follower goes dark, and back."""
    first_run(qtbot, window, sample_folder)
    light = QPalette(restore_theme.palette())
    assert not is_dark(light)
    follower = PlatformFollower(restore_theme)
    follower.on_color_scheme_changed(Qt.ColorScheme.Dark)
    assert is_dark(restore_theme.palette()) and restore_theme.style().name() == "fusion"
    qtbot.waitUntil(lambda: is_dark(window.palette()), timeout=5000)  # widgets hear of it from a posted event
    assert is_dark(window.chat_pane.welcome.palette())
    link = window.chat_pane.welcome.better  # a link re-reads the palette's link colour when it changes
    assert link.palette().color(Role.ButtonText) == dark_palette().color(Role.Link)
    assert unreadable(window) == []
    follower.on_color_scheme_changed(Qt.ColorScheme.Light)
    assert restore_theme.palette().color(Role.Window) == light.color(Role.Window)
    qtbot.waitUntil(lambda: not is_dark(window.palette()), timeout=5000)
    assert link.palette().color(Role.ButtonText) == light.color(Role.Link)
    follower.on_color_scheme_changed(Qt.ColorScheme.Light)  # light already: nothing to undo
    assert restore_theme.palette().color(Role.Window) == light.color(Role.Window)


def test_the_theme_asked_for(monkeypatch, caplog):
    monkeypatch.delenv("TROVE_THEME", raising=False)
    assert requested_theme() == "system" and requested_theme("dark") == "dark"
    monkeypatch.setenv("TROVE_THEME", "Light")
    assert requested_theme() == "light" and requested_theme("dark") == "dark"  # the command line wins
    monkeypatch.setenv("TROVE_THEME", "solarized")
    assert requested_theme() == "system" and "unknown theme 'solarized'" in caplog.text


def test_a_muted_hint_stays_readable_where_the_disabled_colour_is_not(restore_theme, qtbot):
    restore_theme.setPalette(QPalette(QColor("#efefef")))  # a light palette whose disabled text is faint
    holder = QWidget()
    qtbot.addWidget(holder)
    hint = QLabel("Drop folders here", holder)
    disabled = restore_theme.palette().color(Group.Disabled, Role.WindowText)
    window_colour = restore_theme.palette().color(Role.Window)
    assert contrast_ratio(disabled, window_colour) < READABLE  # what setEnabled(False) used to draw
    set_muted(hint)
    assert is_muted(hint) and contrast_ratio(hint.palette().color(Role.WindowText), window_colour) >= READABLE
    restore_theme.setPalette(dark_palette())  # the desktop turns dark: the hint follows (from a posted event)
    qtbot.waitUntil(lambda: is_dark(holder.palette()), timeout=5000)
    muted = hint.palette().color(Role.WindowText)
    assert muted != restore_theme.palette().color(Role.WindowText)  # muted still, not the plain text colour
    assert contrast_ratio(muted, dark_palette().color(Role.Window)) >= READABLE
    set_muted(hint, False)
    qtbot.waitUntil(lambda: not is_muted(hint), timeout=5000)
    assert not is_muted(hint) and hint.palette().color(Role.WindowText) == dark_palette().color(Role.WindowText)


def test_secondary_text_falls_back_when_the_placeholder_is_too_faint():
    palette = dark_palette()
    palette.setColor(Role.PlaceholderText, QColor("#303030"))  # a theme's placeholder, nearly the Base colour
    muted = secondary_text(palette)
    assert muted != palette.color(Role.Text) and contrast_ratio(muted, palette.color(Role.Base)) >= READABLE


def test_every_badge_label_is_readable_on_its_colour():
    colours = {**TYPE_COLOURS, **{f"memory {k}": v for k, v in MEMORY_COLOURS.items()}, "unknown": UNKNOWN_COLOUR}
    low = {k: round(contrast_ratio(QColor(LABEL_COLOUR), QColor(v)), 2) for k, v in colours.items()}
    assert {k: r for k, r in low.items() if r < READABLE} == {}
