"""The window's colours: the platform's palette by default, so a dark desktop theme carries over, or, when asked
(`trove gui --theme dark|light`, or TROVE_THEME), Qt's Fusion style with a dark or light palette of Trove's own.

Widgets draw with palette roles only (tests/gui/test_theme.py checks the contrast of the roles they use). What a
widget needs beyond a role lives here: a secondary text colour that stays readable when a theme leaves
PlaceholderText too faint, and the WCAG contrast ratio the tests measure with.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QStyleFactory, QWidget

from desktop_app.core.log import get_logger

log = get_logger("ui")

THEMES = ("system", "light", "dark")
THEME_ENV = "TROVE_THEME"
READABLE = 4.5  # WCAG AA for body text: what every text colour must reach against its background
Role, Group = QPalette.ColorRole, QPalette.ColorGroup

# A dark palette in the spirit of the common dark desktop themes (GNOME's Adwaita dark, KDE's Breeze Dark):
# every text role well above READABLE on Window and Base, the disabled text still readable (a hint, not a smudge).
_DARK = {Role.Window: "#202124", Role.WindowText: "#e8eaed", Role.Base: "#181818", Role.AlternateBase: "#242526",
         Role.Text: "#e8eaed", Role.Button: "#2d2e30", Role.ButtonText: "#e8eaed", Role.BrightText: "#ffffff",
         Role.Highlight: "#8ab4f8", Role.HighlightedText: "#202124", Role.Link: "#8ab4f8",
         Role.LinkVisited: "#c58af9", Role.PlaceholderText: "#9aa0a6", Role.ToolTipBase: "#2d2e30",
         Role.ToolTipText: "#e8eaed", Role.Light: "#3c4043", Role.Midlight: "#323336", Role.Mid: "#5f6368",
         Role.Dark: "#111111", Role.Shadow: "#000000"}
_DARK_DISABLED = {Role.WindowText: "#9aa0a6", Role.Text: "#9aa0a6", Role.ButtonText: "#9aa0a6",
                  Role.Highlight: "#5f6368", Role.HighlightedText: "#e8eaed"}


def dark_palette() -> QPalette:
    """Trove's dark palette (for `--theme dark`, and for a dark desktop whose style would draw light)."""
    palette = QPalette()
    for role, colour in _DARK.items():
        palette.setColor(role, QColor(colour))
    for role, colour in _DARK_DISABLED.items():
        palette.setColor(Group.Disabled, role, QColor(colour))
    return palette


def light_palette() -> QPalette:
    """Fusion's own light palette (for `--theme light`, whatever the desktop's theme), with a selection dark enough
    for its white text (Fusion's #308cc6 gives 3.7:1) and a muted grey for second lines (Fusion leaves it black)."""
    style = QStyleFactory.create("Fusion")
    palette = style.standardPalette() if style is not None else QPalette()
    for group in (Group.Active, Group.Inactive):
        palette.setColor(group, Role.Highlight, QColor("#1967d2"))
        palette.setColor(group, Role.HighlightedText, QColor("#ffffff"))
    palette.setColor(Role.PlaceholderText, QColor("#5f6368"))
    return palette


def requested_theme(value: str | None = None) -> str:
    """The theme asked for: `value` (the command line's), else TROVE_THEME, else "system"; an unknown name is
    logged and read as "system" (a typo in an environment variable must not stop the window from opening)."""
    name = (value or os.environ.get(THEME_ENV) or "system").strip().lower()
    if name not in THEMES:
        log.warning("unknown theme %r (expected one of %s): following the platform", name, ", ".join(THEMES))
        return "system"
    return name


def apply_theme(app: QApplication, theme: str | None = None) -> str:
    """Give `app` the theme asked for (see requested_theme) and return its name.

    "light" and "dark" use the Fusion style, which draws every control from the palette, so the picture is the
    same on every desktop. "system" leaves the platform's style and palette alone, except when the platform says
    its colour scheme is dark while the palette it handed Qt is light (a style that ignores dark mode): then the
    window goes dark with Fusion, and back to the platform's own look when the desktop switches to light.
    """
    name = requested_theme(theme)
    if name == "system":
        follower = PlatformFollower(app)
        follower.on_color_scheme_changed(app.styleHints().colorScheme())
        app.styleHints().colorSchemeChanged.connect(follower.on_color_scheme_changed)
    else:
        app.setStyle("Fusion")
        app.setPalette(dark_palette() if name == "dark" else light_palette())
    return name


class PlatformFollower(QObject):
    """Keeps the window dark while the desktop's colour scheme is, when the platform's palette would not be."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app
        self._replaced: tuple[str, QPalette] | None = None  # the platform's style name and palette, while dark

    def on_color_scheme_changed(self, scheme: Qt.ColorScheme) -> None:
        app = self.app
        if scheme == Qt.ColorScheme.Dark and not is_dark(app.palette()):
            self._replaced = (app.style().name(), QPalette(app.palette()))
            app.setStyle("Fusion")
            app.setPalette(dark_palette())
        elif scheme != Qt.ColorScheme.Dark and self._replaced is not None:
            style, palette = self._replaced
            self._replaced = None
            app.setStyle(style)
            app.setPalette(palette)


def is_dark(palette: QPalette) -> bool:
    """A dark palette draws light text on a dark window."""
    return palette.color(Role.Window).lightnessF() < palette.color(Role.WindowText).lightnessF()


def relative_luminance(colour: QColor) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0 black … 1 white)."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF())


def contrast_ratio(fg: QColor, bg: QColor) -> float:
    """WCAG 2's contrast ratio of text `fg` on `bg`: 1 (the same) … 21 (black on white); 4.5 is readable body text.
    A translucent `fg` (some themes' PlaceholderText) is measured as drawn: blended over `bg`."""
    alpha = fg.alphaF()
    if alpha < 1.0:
        fg = QColor.fromRgbF(*(f * alpha + b * (1 - alpha) for f, b in ((fg.redF(), bg.redF()),
                                                                         (fg.greenF(), bg.greenF()),
                                                                         (fg.blueF(), bg.blueF()))))
    hi, lo = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def secondary_text(palette: QPalette, group: QPalette.ColorGroup = Group.Active,
                   backgrounds: tuple[QPalette.ColorRole, ...] = (Role.Base, Role.Window)) -> QColor:
    """A muted text colour for second lines and hints (a result's folder and page, "Drop folders here"): the
    palette's PlaceholderText when it is readable on every one of `backgrounds`, else Text blended a quarter of the
    way towards the background (some themes leave PlaceholderText unset, or too faint), else Text itself.
    Never the disabled colour: Fusion's light one is 1.6:1 on its window."""
    bgs = [palette.color(group, role) for role in backgrounds]

    def readable(colour: QColor) -> bool:
        return all(contrast_ratio(colour, bg) >= READABLE for bg in bgs)
    placeholder = palette.color(group, Role.PlaceholderText)
    if readable(placeholder):
        return placeholder
    text, bg = palette.color(group, Role.Text), bgs[0]
    mixed = QColor.fromRgbF(*(t * 0.75 + b * 0.25 for t, b in ((text.redF(), bg.redF()), (text.greenF(), bg.greenF()),
                                                              (text.blueF(), bg.blueF()))))
    return mixed if readable(mixed) else text


def set_muted(widget: QWidget, on: bool = True) -> None:
    """Draw `widget`'s text in secondary_text (a hint, a paused folder's name), again whenever the palette changes
    (a desktop switched to dark); off, the widget takes the palette's own text colour again."""
    muter = widget.findChild(_Muter, options=Qt.FindChildOption.FindDirectChildrenOnly)
    if on and muter is None:
        _Muter(widget)
    elif not on and muter is not None:
        widget.removeEventFilter(muter)
        muter.setParent(None)
        muter.deleteLater()
        widget.setPalette(QPalette())  # inherit again


def is_muted(widget: QWidget) -> bool:
    """Whether set_muted is on for `widget`."""
    return widget.findChild(_Muter, options=Qt.FindChildOption.FindDirectChildrenOnly) is not None


class _Muter(QObject):
    """set_muted's watcher: recolours its widget's text on every palette change."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.widget = widget
        self._busy = False
        widget.installEventFilter(self)
        self.recolour()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange) and not self._busy:
            self.recolour()
        return False

    def recolour(self) -> None:
        self._busy = True  # setPalette below sends a PaletteChange of its own
        parent = self.widget.parentWidget()  # the colours around it, not its own (already muted) ones
        around = parent.palette() if parent is not None else QApplication.palette(self.widget)
        palette = self.widget.palette()
        for group in (Group.Active, Group.Inactive, Group.Disabled):
            palette.setColor(group, self.widget.foregroundRole(), secondary_text(around, group))
        self.widget.setPalette(palette)
        self._busy = False
