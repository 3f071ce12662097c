"""The chat pane: ask questions answered from the library, streamed, with clickable citations."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.core.chat.conversation import Conversation, Request
from desktop_app.core.log import get_logger
from desktop_app.ui.chat.answer_view import shown_exchange
from desktop_app.ui.chat.ask_box import AskBox
from desktop_app.ui.chat.chat_list import ChatList
from desktop_app.ui.chat.header import ChatHeader
from desktop_app.ui.chat.scope_bar import ScopeBar
from desktop_app.ui.chat.sources_panel import SourcesPanel
from desktop_app.ui.chat.transcript import ChatTranscript
from desktop_app.ui.chat.welcome import WelcomeView
from desktop_app.ui.tasks import TaskRunner
from desktop_app.ui.window.changes import ChangeKind, LibraryChanged

log = get_logger("ui")

RENDER_MS = 50  # re-render a streaming answer at most 20 times a second, however fast tokens come


class ChatPane(QWidget):
    """Chats with the library: past chats, the transcript, the passages of the current answer, the input. A view
    of `conversation` (core/chat/conversation.py), which holds the exchanges and the request in flight.

    Signals:
        answer_started(str): a question was sent.
        answer_finished(object): a ChatAnswer arrived (also after Stop, with cancelled=True).
        answer_failed(str): asking raised (message).
        model_changed(str): the user picked another model file (path).
        scope_changed(object): the files and folders questions are limited to (a tuple; empty for everything).
        summary_finished(object): a Summary arrived (also after Stop, with cancelled=True).
        suggestions_shown(object): the welcome state shows these suggested questions (a list of Suggestion).
        models_requested(): the person asked for a better model (the window opens the Models dialog).
    """

    answer_started = Signal(str)
    answer_finished = Signal(object)
    answer_failed = Signal(str)
    model_changed = Signal(str)
    scope_changed = Signal(object)
    summary_finished = Signal(object)
    suggestions_shown = Signal(object)
    models_requested = Signal()

    def __init__(self, library, tasks: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.chat = library.chat  # created here, on the UI thread, so two workers never race to make it
        self.tasks = tasks
        self.conversation = Conversation()
        self.viewer: Callable[[int, str], object] | None = None  # opens (chunk id, quote) in the window's viewer
        self.scope: tuple[str, ...] = ()
        self.header = ChatHeader(library, tasks)
        self.model_label, self.model_button, self.new_button = (self.header.model_label, self.header.model_button,
                                                                 self.header.new_button)
        self.header.new_button.clicked.connect(self.on_new_chat_clicked)
        self.header.model_changed.connect(self.model_changed.emit)
        self.header.failed.connect(self.answer_failed.emit)
        body = self._build_body()
        self.header.model_shown.connect(self.welcome.set_model)
        self.scope_bar = ScopeBar()
        self.scope_bar.cleared.connect(self.clear_scope)
        self.scope_label, self.scope_clear = self.scope_bar.label, self.scope_bar.clear
        self.ask_box = AskBox()
        self.input, self.use_context = self.ask_box.input, self.ask_box.use_context
        self.send_button, self.stop_button = self.ask_box.send_button, self.ask_box.stop_button
        self.ask_box.send_requested.connect(self.on_send_requested)
        self.ask_box.stop_requested.connect(self.stop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.header)
        layout.addWidget(body, 1)
        layout.addWidget(self.scope_bar)
        layout.addWidget(self.ask_box)
        self._render_timer = QTimer(self, singleShot=True, interval=RENDER_MS)
        self._render_timer.timeout.connect(self.on_render_timeout)
        QShortcut(QKeySequence("Ctrl+N"), self, self.on_new_chat_clicked)
        self.set_scope(())
        self.refresh_model()
        self.refresh_chats()
        self._render()

    # ---- building ------------------------------------------------------------------------------

    def _build_body(self) -> QSplitter:
        """Past chats on the left; the welcome state or transcript above the passages on the right."""
        self.chats = ChatList(self.chat, self.tasks)
        self.chats.chat_chosen.connect(self.open_chat)
        self.transcript = ChatTranscript()
        self.transcript.citation_clicked.connect(self.on_citation_clicked)
        self.transcript.generation_toggled.connect(self.on_generation_toggled)
        self.sources = SourcesPanel()
        self.welcome = WelcomeView()  # an empty chat: questions drawn from the library, and the model note
        self.welcome.question_clicked.connect(self.ask)
        self.welcome.models_requested.connect(self.models_requested.emit)
        self.talk = QStackedWidget()
        self.talk.setObjectName("chatTalk")
        self.talk.addWidget(self.welcome)
        self.talk.addWidget(self.transcript)
        right = QSplitter(Qt.Orientation.Vertical)
        right.setObjectName("chatSplit")
        right.addWidget(self.talk)
        right.addWidget(self.sources)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setObjectName("chatBodySplit")
        body.addWidget(self.chats)
        body.addWidget(right)
        body.setStretchFactor(0, 0)  # a wider pane widens the talk, not the list of titles
        body.setStretchFactor(1, 1)
        body.setSizes([self.chats.sizeHint().width(), right.sizeHint().width()])
        self.splitters = (right, body)
        return body

    # ---- state ---------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.conversation.busy

    @property
    def chat_id(self) -> int | None:
        return self.conversation.chat_id

    @property
    def tokens_received(self) -> int:
        return self.conversation.tokens_received

    def _set_busy(self, busy: bool) -> None:
        self.ask_box.set_busy(busy)
        self.header.model_button.setEnabled(not busy)

    def on_library_changed(self, change: LibraryChanged) -> None:
        """Settings changed (another default model, or its settings): show the model questions will use."""
        if change.kind is ChangeKind.SETTINGS:
            self.refresh_model()

    def refresh_model(self) -> None:
        """Show the model questions will use (the header, and the welcome state's model note)."""
        self.header.refresh()

    def refresh_suggestions(self) -> None:
        """Draw the welcome state's questions from the library again (after indexing), off the UI thread."""
        self.tasks.run(self.library.suggested_questions, self.on_suggestions,
                       lambda exc: log.warning("suggested questions: %s", exc))

    def on_suggestions(self, suggestions) -> None:
        self.welcome.set_questions(suggestions)
        self.suggestions_shown.emit(suggestions)

    def refresh_chats(self) -> None:
        self.chats.reload(lambda: self.chat_id)

    # ---- asking --------------------------------------------------------------------------------

    def ask(self, question: str) -> bool:
        """Send a question (as if typed). False when empty or an answer is still streaming."""
        question = question.strip()
        started = self._begin(question) if question else None
        if started is None:
            return False
        request, cancel = started.id, started.cancel
        chat, chat_id, use_context, scope = self.chat, self.chat_id, self.use_context.isChecked(), self.scope

        def work(report):  # the quote (chosen before the first token) and each token's text, in order
            return chat.ask(question, chat_id=chat_id, use_context=use_context, cancel=cancel, scope=scope,
                            on_token=lambda t: report(t.text), on_quote=report)
        self.tasks.run(work, lambda answer: self.on_answer(request, answer),
                       lambda exc: self.on_answer_error(request, exc), lane="chat",
                       on_progress=lambda item: self.on_streamed(request, item))
        self.answer_started.emit(question)
        return True

    def set_scope(self, paths) -> None:
        """Answer the next questions only from these files and folders (empty: the whole library)."""
        self.scope = tuple(str(p) for p in paths)
        self.scope_bar.show_scope(self.scope)
        self.scope_changed.emit(self.scope)
        if self.scope:
            self.input.setFocus()

    def clear_scope(self) -> None:
        self.set_scope(())

    def summarize(self, path: str) -> bool:
        """Summarise one document in the transcript, with progress; Stop ends it. False while an answer streams."""
        started = self._begin(f"Summarise {os.path.basename(path)}", note="starting…")
        if started is None:
            return False
        request, cancel = started.id, started.cancel
        library = self.library
        self.tasks.run(lambda report: library.summarize(path, cancel=cancel, on_progress=report),
                       lambda summary: self.on_summary(request, summary),
                       lambda exc: self.on_answer_error(request, exc), lane="chat",
                       on_progress=lambda p: self.on_summary_progress(request, p.done, p.total))
        return True

    def _begin(self, question: str, note: str = "") -> Request | None:
        """The one prologue of a question or summary: the conversation's new request (None while busy), shown."""
        started = self.conversation.begin(question, note)
        if started is not None:
            self._render()
            self._set_busy(True)
        return started

    def on_summary_progress(self, request: int, done: int, total: int) -> None:
        if self.conversation.progress(request, done, total):
            self._render()

    def on_summary(self, request: int, summary) -> None:
        if self.conversation.summarized(request, summary):
            self._set_busy(False)
            self._render()
            self.summary_finished.emit(summary)

    def stop(self) -> None:
        """Ask the streaming answer to stop (the worker checks the event between tokens)."""
        self.conversation.stop()

    def on_streamed(self, request: int, item) -> None:
        """A token's text or the answer's Quote, from the worker (on the UI thread, in the order they were made)."""
        if isinstance(item, str):
            self.on_token(request, item)
        else:
            self.on_quote(request, item)

    def on_token(self, request: int, text: str) -> None:
        if self.conversation.token(request, text) and not self._render_timer.isActive():
            self._render_timer.start()

    def on_quote(self, request: int, quote) -> None:
        if self.conversation.quote(request, quote):
            self._render()

    def on_render_timeout(self) -> None:
        if self.busy:
            self._render()

    def on_answer(self, request: int, answer) -> None:
        if not self.conversation.answered(request, answer):
            return
        self._set_busy(False)
        self._render_timer.stop()
        self.sources.set_passages(answer.passages, tuple(c.n for c in answer.citations), answer.quote,
                                  [m for m in answer.memory if m.get("context")])
        if answer.quote is not None and not answer.abstained:
            self.sources.select(answer.quote.n)  # the quote, highlighted in its passage
        self._render()
        self.transcript.scroll_to_exchange(len(self.conversation.exchanges) - 1)
        self.refresh_chats()
        self.answer_finished.emit(answer)

    def on_answer_error(self, request: int, exc: BaseException) -> None:
        if not self.conversation.failed(request, exc):
            return
        self._set_busy(False)
        log.warning("chat failed: %s", exc)
        self._render()
        self.answer_failed.emit(str(exc))

    def _render(self) -> None:
        exchanges = self.conversation.exchanges
        self.transcript.set_exchanges([shown_exchange(i, e) for i, e in enumerate(exchanges)])
        self.talk.setCurrentWidget(self.transcript if exchanges else self.welcome)

    # ---- citations -----------------------------------------------------------------------------

    def on_citation_clicked(self, answer: int, n: int) -> None:
        """Show that answer's passages and select passage n; open it (and its quote) in the viewer pane."""
        sources = self.conversation.sources(answer)
        if sources is not None:
            self.sources.set_passages(*sources)
            self.sources.select(n)
            passage, quote = next((p for p in sources[0] if p.n == n), None), sources[2]
            if self.viewer is not None and passage is not None and passage.chunk_id is not None \
                    and passage.kind == "document":  # a remembered fact has no document to open
                self.viewer(passage.chunk_id, quote.text if quote is not None and quote.n == n else "")

    def on_generation_toggled(self, answer: int) -> None:
        """Show or hide a hidden model answer under its quote."""
        if self.conversation.toggle(answer):
            self._render()

    # ---- chats ---------------------------------------------------------------------------------

    def new_chat(self) -> None:
        self.conversation.clear()  # tokens still in flight from the old answer are ignored
        self._set_busy(False)
        self.sources.set_passages(())
        self._render()
        self.chats.clearSelection()
        self.input.setFocus()

    def open_chat(self, chat_id: int) -> None:
        """Load a past chat's messages (off the UI thread) and show them."""
        if self.busy:
            return
        chat = self.chat
        self.tasks.run(lambda: chat.messages(chat_id), lambda msgs: self.on_messages(chat_id, msgs),
                       lambda exc: self.answer_failed.emit(str(exc)))

    def on_messages(self, chat_id: int, messages) -> None:
        self.new_chat()
        self.conversation.load(chat_id, messages)
        last = self.conversation.sources(len(self.conversation.exchanges) - 1)
        if last is not None:
            self.sources.set_passages(*last)
        self._render()

    def set_model_path(self, path: str) -> None:
        """Use another GGUF file (saved in the library's settings); the next question loads it."""
        self.header.set_model_path(path)

    # ---- slots ---------------------------------------------------------------------------------

    def on_send_requested(self, text: str) -> None:
        if self.ask(text):
            self.input.clear()

    def on_new_chat_clicked(self) -> None:
        self.new_chat()
