"""Memory that obeys, from the command line (issue 42), on a real library home with a scripted OpenAI-compatible
server on loopback that records every request: a "remember" request is acknowledged with what was stored and never
reaches the model; `trove memory forget WORD` forgets by a word of the key or names the keys there are; after
`trove memory forget --all` the next question cannot show the old turn, and chats from before it are never saved
into memory again (only turns added after it)."""

from __future__ import annotations

import pytest

from desktop_app.cli import main
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import ScriptedChatServer


@pytest.fixture
def server():
    with ScriptedChatServer("I cannot say.") as s:
        yield s


def trove(home, capsys, *args) -> tuple[int, str]:
    code = main(["--home", str(home), *args])
    return code, capsys.readouterr().out


def test_a_remember_request_is_acknowledged_with_what_was_stored_without_the_model(home, capsys, server):
    code, out = trove(home, capsys, "ask", "Remember that my locker code is 4417.")
    assert code == 0 and out.strip() == "Remembered: locker code → 4417."
    assert server.requests == []  # the model was never asked
    code, out = trove(home, capsys, "memory", "list")
    assert code == 0 and "locker_code → 4417" in out
    code, out = trove(home, capsys, "ask", "Actually, remember that my locker code is 5521.")
    assert out.strip() == "Remembered: locker code → 5521 (was 4417)." and server.requests == []


def test_forget_by_a_word_of_the_key_or_hear_which_keys_there_are(home, capsys):
    trove(home, capsys, "ask", "Remember that my locker code is 4417.")
    trove(home, capsys, "memory", "add", "editor", "neovim")
    code, out = trove(home, capsys, "memory", "forget", "cupboard")
    assert code == 1 and out.strip() == "no remembered fact matches 'cupboard'; the keys are: editor, locker_code"
    code, out = trove(home, capsys, "memory", "forget", "locker")
    assert code == 0 and out.strip() == "forgot locker_code → 4417"
    _, out = trove(home, capsys, "memory", "list")
    assert "locker" not in out and "editor → neovim" in out


def test_after_forget_all_the_next_question_cannot_show_the_old_turn(home, capsys, server):
    trove(home, capsys, "ask", "Remember that my locker code is 4417.")
    code, out = trove(home, capsys, "memory", "forget", "--all")
    assert code == 0 and out.startswith("forgot every fact")
    code, out = trove(home, capsys, "ask", "What is my locker code?")
    assert code == 0 and "4417" not in out and "Remember that" not in out and "[turn" not in out
    _, out = trove(home, capsys, "memory", "search", "locker code")
    assert out.strip() == "no results"  # the quiet chat was not saved into memory again
    _, out = trove(home, capsys, "ask", "Which memory holds my locker code?", "--json")
    assert "4417" not in out
    with Library(home=home, settings=Settings(**CHAT_SETTINGS)) as lib:
        assert lib.memory.chunk_sql.chat_chunks(1) == [] and lib.memory.list() == []
        kept = [c for chat in lib.chat.list_chats() for c in lib.memory.chunk_sql.chat_chunks(chat.id)]
        assert all("4417" not in c.text for c in kept)
    # talking on in the old chat: only the new turn may be kept, never the forgotten one
    trove(home, capsys, "ask", "Remember that my bike is blue.", "--chat", "1")
    trove(home, capsys, "ask", "Which trains leave from platform nine?")
    with Library(home=home, settings=Settings(**CHAT_SETTINGS)) as lib:
        kept = lib.memory.chunk_sql.chat_chunks(1)
        assert [(c.first_turn, c.last_turn) for c in kept] == [(2, 2)] and "4417" not in kept[0].text
        assert "bike is blue" in kept[0].text
