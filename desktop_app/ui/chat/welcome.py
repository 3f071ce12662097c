"""What an empty chat shows: three questions drawn from the library, and which model answers (and how to get a
better one). Every label is plain text: the questions quote document titles, the note a model file's name."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from desktop_app.core.library_tools import bundled_model_path
from desktop_app.core.text.language import LANGUAGE_NAMES
from desktop_app.core.types import ChatBackend
from desktop_app.ui.safe_document import make_plain, plain_tooltip
from desktop_app.ui.search.type_icons import TYPE_NAMES
from desktop_app.ui.units import counted, format_bytes

NO_QUESTIONS = "Questions drawn from your documents appear here once a folder is indexed."


def model_note(info) -> str:
    """“Answers come from SmolLM2-135M (98 MB, bundled).” for a ModelInfo (None: no model)."""
    if info is None:
        return "No chat model is set up yet: get one to have your questions answered."
    if info.backend == ChatBackend.OPENAI:
        return f"Answers come from {info.name} on {info.path}."
    bundled = bundled_model_path()
    details = [format_bytes(info.size_bytes)] if info.size_bytes else []
    if bundled is not None and str(bundled) == info.path:
        details.append("bundled")
    return f"Answers come from {info.name}" + (f" ({', '.join(details)})." if details else ".")


def library_line(stats: dict) -> str:
    """“Your library: 7 documents (3 Markdown, 2 Text, 1 HTML and 1 PDF), in English and Thai.” from Library.stats()
    (its per-format document counts and per-language chunk counts, most first)."""
    documents = int(stats.get("documents") or 0)
    if not documents:
        return ""
    count = counted(documents, "document")
    kinds = [f"{n} {TYPE_NAMES[kind]}" for kind, n in stats.get("formats") or [] if kind in TYPE_NAMES]
    if kinds:
        count += f" ({spoken_list(kinds)})"
    names = [LANGUAGE_NAMES.get(code, code) for code, _n in stats.get("languages") or [] if code != "und"]
    return f"Your library: {count}, in {spoken_list(names)}." if names else f"Your library: {count}."


def spoken_list(items: Sequence[str], most: int = 4) -> str:
    """“a”, “a and b”, “a, b and c”; past `most` items, “a, b, c, d and 2 more”."""
    shown = list(items[:most]) + ([f"{len(items) - most} more"] if len(items) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


class LinkButton(QPushButton):
    """A flat button drawn as a link: underlined, in the palette's link colour, again whenever the palette changes
    (a style sheet's palette(link) is read once, so a theme switched to dark would keep the light blue)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._following = False
        self.setFlat(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        font = self.font()
        font.setUnderline(True)
        self.setFont(font)
        self._follow_palette()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._follow_palette()

    def _follow_palette(self) -> None:
        if self._following:
            return  # setPalette below sends a PaletteChange of its own
        self._following = True
        palette = self.palette()
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            palette.setColor(group, QPalette.ColorRole.ButtonText, palette.color(group, QPalette.ColorRole.Link))
        self.setPalette(palette)
        self._following = False


class QuestionButton(QPushButton):
    """A button whose text wraps (a QPushButton's own text never does) and is shown exactly as written."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = text
        self.setObjectName("welcomeQuestion")
        self.setAccessibleName(text)
        self.label = QLabel(text, wordWrap=True)
        make_plain(self.label)  # no "&" mnemonics, no HTML: a title is shown as it is
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._box = QHBoxLayout(self)
        margin = self.fontMetrics().height() // 2
        self._box.setContentsMargins(margin, margin // 2, margin, margin // 2)
        self._box.addWidget(self.label)
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._box.totalHeightForWidth(width)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self._box.totalSizeHint()


class WelcomeView(QWidget):
    """An empty chat: a heading, up to three question buttons and the model note with “Get a better model…”.

    Signals:
        question_clicked(str): the person picked a question (its text).
        models_requested(): the person wants the Models dialog.
        team_requested(): the person wants to share the library with a team (Settings: the team library).
    """

    question_clicked = Signal(str)
    models_requested = Signal()
    team_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatWelcome")
        self.setBackgroundRole(QPalette.ColorRole.Base)  # the transcript's colour: the pane does not jump
        self.setAutoFillBackground(True)
        title = QLabel("Ask your documents", wordWrap=True)  # wrapping: the pane's minimum width stays the transcript's
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        title.setFont(font)
        self.intro = QLabel(NO_QUESTIONS, wordWrap=True)
        self.intro.setObjectName("welcomeIntro")
        self.library = QLabel(wordWrap=True)  # the library's size and languages, once something is indexed
        self.library.setObjectName("welcomeLibrary")
        self.library.setVisible(False)
        self.questions_box = QVBoxLayout()
        self.buttons: list[QuestionButton] = []
        self.note = QLabel(model_note(None), wordWrap=True)
        self.note.setObjectName("modelNote")
        # the window's text colour, not a muted role: a theme that leaves PlaceholderText unset makes it unreadable
        make_plain(self.intro, self.note, self.library)
        self.better = LinkButton("Get a better model…")
        self.better.setObjectName("betterModel")
        self.better.setToolTip("The catalog of chat models, sized to this computer's memory; "
                               "nothing is downloaded until you choose one")
        self.better.clicked.connect(self.models_requested.emit)
        note_row = QVBoxLayout()  # the link under the note: side by side they would widen the pane's minimum
        note_row.setSpacing(0)
        note_row.addWidget(self.note)
        note_row.addWidget(self.better, 0, Qt.AlignmentFlag.AlignLeft)
        self.team = LinkButton("Share this library with a team…")
        self.team.setObjectName("shareWithTeam")
        self.team.setToolTip("Put the library on a team server, or join one with an invite (Settings)")
        self.team.clicked.connect(self.team_requested.emit)
        note_row.addWidget(self.team, 0, Qt.AlignmentFlag.AlignLeft)
        layout = QVBoxLayout(self)
        margin = self.fontMetrics().height() // 2
        layout.setContentsMargins(margin, margin, margin, margin)
        layout.addWidget(title)
        layout.addWidget(self.library)
        layout.addWidget(self.intro)
        layout.addLayout(self.questions_box)
        layout.addStretch(1)
        layout.addLayout(note_row)

    def set_questions(self, suggestions: Sequence) -> None:
        """Show these Suggestions as buttons (none: say where questions will come from)."""
        if [s.question for s in suggestions] == [b.question for b in self.buttons] and self.buttons:
            return  # drawn again after indexing, unchanged: keep the buttons (no flicker, focus stays)
        for button in self.buttons:
            self.questions_box.removeWidget(button)
            button.deleteLater()
        self.buttons = []
        for suggestion in suggestions:
            button = QuestionButton(suggestion.question, self)
            button.setToolTip(plain_tooltip(f"From {suggestion.title}", path=True))
            button.clicked.connect(lambda _checked=False, q=suggestion.question: self.question_clicked.emit(q))
            self.questions_box.addWidget(button)
            self.buttons.append(button)
        self.intro.setText("Try a question drawn from your documents, or type your own below:" if suggestions
                           else NO_QUESTIONS)

    def set_model(self, info) -> None:
        """Say which model answers (a ModelInfo, or None when there is none)."""
        self.note.setText(model_note(info))
        self.note.setToolTip(plain_tooltip(info.path, path=True) if info is not None else "")

    def set_library(self, stats: dict) -> None:
        """Say what the library holds (Library.stats(): its document count, formats and languages)."""
        text = library_line(stats)
        self.library.setText(text)
        self.library.setVisible(bool(text))
