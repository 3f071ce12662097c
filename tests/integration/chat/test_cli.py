"""`trove ask` and `trove chats` through cli.main, on a real library home and the real GGUF."""

from __future__ import annotations

import json

import pytest

from desktop_app.cli import main
from tests.integration.chat.conftest import CHAT_SETTINGS


@pytest.fixture
def home(tmp_path, docs_dir, capsys):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps(CHAT_SETTINGS), encoding="utf-8")
    assert main(["--home", str(home), "index", str(docs_dir)]) == 0
    capsys.readouterr()
    return home


def test_ask_streams_the_answer_then_the_sources(home, docs_dir, capsys):
    assert main(["--home", str(home), "ask", "Who invented the Zorblax reactor?", "--max-tokens", "32"]) == 0
    out = capsys.readouterr().out
    answer, _, sources = out.partition("\nSources:\n")
    assert "Quell" in answer
    lines = sources.strip().splitlines()
    assert lines[0] == f"[1] {docs_dir / 'reactor.txt'}"
    assert all(line.startswith("[") and "bread.md" not in line for line in lines)


def test_pdf_sources_show_the_page(home, docs_dir, capsys):
    assert main(["--home", str(home), "ask", "What colour is the lighthouse on Korrin Island?", "-k", "2",
                 "--max-tokens", "16"]) == 0
    sources = capsys.readouterr().out.partition("\nSources:\n")[2].splitlines()
    assert f"{docs_dir / 'korrin.pdf'} (p. 2)" in sources[0]


def test_no_context_prints_no_sources_and_chats_lists_the_sessions(home, capsys):
    assert main(["--home", str(home), "ask", "Say hi.", "--no-context", "--max-tokens", "8"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() and "Sources:" not in captured.out and "(chat 1;" in captured.err
    assert main(["--home", str(home), "ask", "Who invented it then?", "--chat", "1", "--max-tokens", "8"]) == 0
    capsys.readouterr()
    assert main(["--home", str(home), "chats"]) == 0
    listing = capsys.readouterr().out.strip().splitlines()
    assert len(listing) == 1 and "4 messages" in listing[0] and "Say hi." in listing[0]
    assert main(["--home", str(home), "chats", "--show", "1"]) == 0
    assert capsys.readouterr().out.startswith("user: Say hi.")


def test_errors_are_one_line(home, capsys, tmp_path):
    assert main(["--home", str(home), "ask", "x", "--model", str(tmp_path / "missing.gguf")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("trove: Chat model file not found") and "\n" not in err
    assert main(["--home", str(home), "ask", "x", "--chat", "99"]) == 1
    assert capsys.readouterr().err.strip() == "trove: No chat with id 99."
