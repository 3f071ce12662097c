"""`trove ask` and `trove chats` on a real library home: the command line against a scripted OpenAI-compatible
server on loopback (deterministic output), and once against the real GGUF (only what any CPU must do)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from desktop_app.cli import main
from tests.support.scripted import ScriptedChatServer, last_user


@pytest.fixture
def server():
    with ScriptedChatServer("Dr. Mira Quell invented it [1].") as s:
        yield s


def test_ask_streams_the_answer_then_the_sources(home, docs_dir, capsys, server):
    assert main(["--home", str(home), "ask", "Who invented the Zorblax reactor?", "--max-tokens", "32"]) == 0
    out = capsys.readouterr().out
    answer, _, sources = out.partition("\nSources:\n")
    quote, _, generated = answer.strip().partition("\n\n")  # the quote first, then the model's answer
    assert generated == "Dr. Mira Quell invented it [1]."
    assert quote.endswith(" [1]") and quote.removesuffix(" [1]") in (docs_dir / "reactor.txt").read_text()
    assert sources.strip().splitlines() == [f"[1] {docs_dir / 'reactor.txt'}"]  # only the cited passage
    request = server.requests[-1]
    assert request["max_tokens"] == 32 and request["stream"] is True
    assert "Dr. Mira Quell" in last_user(request["messages"])


def test_the_quote_is_cited_with_its_page_and_an_abstention_lists_the_closest_passages(home, docs_dir, capsys, server):
    server.reply = "It is crimson."
    assert main(["--home", str(home), "ask", "What colour is the lighthouse on Korrin Island?", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The lighthouse on Korrin Island is painted crimson")
    assert out.partition("\nSources:\n")[2].splitlines() == [f"[1] {docs_dir / 'korrin.pdf'} (p. 2)"]


def test_json_output(home, capsys, server):
    assert main(["--home", str(home), "ask", "Who invented the Zorblax reactor?", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["generation"] == "Dr. Mira Quell invented it [1]." and data["generation_shown"]
    assert data["text"] == f"{data['quote']['text']} [1]\n\n{data['generation']}" and data["citations"][0]["n"] == 1
    assert data["quote"]["n"] == 1 and data["quote"]["source"].endswith("reactor.txt") and not data["abstained"]
    assert data["citations"][0]["path"].endswith("reactor.txt") and len(data["passages"]) >= 1


def test_no_context_prints_no_sources_and_chats_lists_the_sessions(home, capsys, server):
    server.reply = "Hi there."
    assert main(["--home", str(home), "ask", "Say hi.", "--no-context", "--max-tokens", "8"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "Hi there." and "(chat 1;" in captured.err
    assert main(["--home", str(home), "ask", "Who invented it then?", "--chat", "1", "--max-tokens", "8"]) == 0
    capsys.readouterr()
    roles = [m["role"] for m in server.requests[-1]["messages"]]
    assert roles[0] == "system" and roles[-3:] == ["user", "assistant", "user"]  # the first turn is replayed
    assert server.requests[-1]["messages"][-3]["content"] == "Say hi."
    assert main(["--home", str(home), "chats"]) == 0
    listing = capsys.readouterr().out.strip().splitlines()
    assert len(listing) == 1 and "4 messages" in listing[0] and "Say hi." in listing[0]
    assert main(["--home", str(home), "chats", "--show", "1"]) == 0
    assert capsys.readouterr().out.startswith("user: Say hi.\nassistant: Hi there.")


def test_a_trove_process_streams_to_stdout(home, docs_dir, server):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-m", "desktop_app", "--home", str(home), "ask", "Who invented the Zorblax reactor?"],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("The Zorblax reactor was invented by Dr. Mira Quell")  # the quote first
    assert out.stdout.endswith(f" [1]\n\nDr. Mira Quell invented it [1].\n\nSources:\n[1] {docs_dir / 'reactor.txt'}\n")


def test_errors_are_one_line(home, capsys, tmp_path):
    assert main(["--home", str(home), "ask", "x", "--model", str(tmp_path / "missing.gguf")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("trove: Chat model file not found") and "\n" not in err
    assert main(["--home", str(home), "ask", "x", "--chat", "99"]) == 1
    assert capsys.readouterr().err.strip() == "trove: No chat with id 99."


def test_the_real_model_answers_from_the_command_line(home, docs_dir, capsys, gguf):
    """The bundled GGUF through `trove ask --model`: exit 0, something streamed, sources from the library."""
    assert (
        main(
            ["--home", str(home), "ask", "Who invented the Zorblax reactor?", "--model", str(gguf), "--max-tokens", "8"]
        )
        == 0
    )
    out = capsys.readouterr().out
    answer, _, sources = out.partition("\nSources:\n")
    assert answer.strip()
    lines = sources.strip().splitlines()
    assert lines and all(line.startswith("[") and str(docs_dir) in line for line in lines)


def test_ask_in_keeps_to_the_chosen_files_and_folders(home, docs_dir, capsys, server, tmp_path):
    question = "Who invented the Zorblax reactor, and how long does the sourdough loaf bake?"
    assert main(["--home", str(home), "ask", question, "--json"]) == 0
    everywhere = {p["source"] for p in json.loads(capsys.readouterr().out)["passages"]}
    assert str(docs_dir / "reactor.txt") in everywhere and everywhere != {str(docs_dir / "bread.md")}
    assert main(["--home", str(home), "ask", question, "--in", str(docs_dir / "bread.md"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["source"] for p in data["passages"]} == {str(docs_dir / "bread.md")}
    assert "Quell" not in last_user(server.requests[-1]["messages"])
    assert main(["--home", str(home), "ask", "Who invented the Zorblax reactor?", "--in", str(docs_dir), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passages"][0]["source"] == str(docs_dir / "reactor.txt")
    assert main(["--home", str(home), "ask", "x", "--in", str(tmp_path / "nowhere")]) == 1
    assert capsys.readouterr().err.startswith("trove: No such file or folder")


def test_summarize_a_short_document_in_one_step(home, docs_dir, capsys, server):
    server.reply = "A reactor invented in 1987."
    assert main(["--home", str(home), "summarize", str(docs_dir / "reactor.txt")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "A reactor invented in 1987.\n"
    assert "step 1 of 1" in captured.err and "1 model calls" in captured.err
    assert "The Zorblax reactor was invented" in last_user(server.requests[-1]["messages"])


def test_summarize_a_document_longer_than_the_window_maps_then_reduces(home, capsys, server, tmp_path):
    long_dir = tmp_path / "long"
    long_dir.mkdir()
    sections = [f"Section {i}. " + f"The harbour of town {i} trades in salt, wool and timber. " * 40 for i in range(12)]
    (long_dir / "chronicle.txt").write_text("\n\n".join(sections), encoding="utf-8")
    assert main(["--home", str(home), "index", str(long_dir)]) == 0
    capsys.readouterr()
    server.reply = "Part summary."
    assert main(["--home", str(home), "summarize", str(long_dir / "chronicle.txt"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    prompts = [last_user(r["messages"]) for r in server.requests]
    assert data["rounds"] >= 2 and data["calls"] == len(prompts) and data["text"] == "Part summary."
    assert prompts[0].startswith("Summarise this part of the document chronicle.txt") and "Section 0." in prompts[0]
    assert prompts[-1].startswith("These are summaries of consecutive parts")
    assert main(["--home", str(home), "summarize", str(tmp_path / "not-indexed.txt")]) == 1
    assert capsys.readouterr().err.startswith("trove: Not an indexed document")


def test_chats_show_prints_a_compaction_summary(home, capsys, server):
    assert main(["--home", str(home), "ask", "Say hi.", "--no-context"]) == 0
    from desktop_app.core.library import Library

    with Library(home) as lib:
        lib.chat.store.add_summary(1, 1, "Q: Say hi. A: Hello.\nQ: Who? A: Quell.")
    capsys.readouterr()
    assert main(["--home", str(home), "chats", "--show", "1"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("summary: Q: Say hi. A: Hello.\n    Q: Who? A: Quell.\n")
