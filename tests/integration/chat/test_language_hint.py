"""`trove ask` in Thai over an English library read by MiniLM (the real model): the answer comes with the line
saying the search model reads English only and which one to choose; an English question gets none."""

from __future__ import annotations

import json

import pytest

from desktop_app.cli import main
from tests.integration.chat.conftest import CHAT_SETTINGS
from tests.support.scripted import ScriptedChatServer

THAI = "ใครเป็นผู้คิดค้นเครื่องปฏิกรณ์ซอร์แบล็กซ์"


@pytest.fixture
def server():
    with ScriptedChatServer("Dr. Mira Quell invented it [1].") as s:
        yield s


@pytest.fixture
def minilm_home(tmp_path, docs_dir, capsys, server):
    home = tmp_path / "home"
    home.mkdir()
    settings = {**CHAT_SETTINGS, "embedder": "minilm", "chat_backend": "openai", "openai_base_url": server.base_url}
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    assert main(["--home", str(home), "index", str(docs_dir)]) == 0
    capsys.readouterr()
    return home


def test_a_thai_question_is_told_the_model_reads_english_only(minilm_home, capsys):
    assert main(["--home", str(minilm_home), "ask", THAI]) == 0
    err = capsys.readouterr().err
    assert "English-only" in err and "Thai" in err and "multilingual-e5-small" in err
    assert main(["--home", str(minilm_home), "ask", THAI, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "English-only" in data["hint"] and "Thai" in data["hint"]


def test_an_english_question_gets_no_hint(minilm_home, capsys):
    assert main(["--home", str(minilm_home), "ask", "Who invented the Zorblax reactor?", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hint"] == "" and data["quote"]["source"].endswith("reactor.txt")
