"""`trove mcp` over stdio, driven by the MCP SDK's own client against a real library (MiniLM, SQLite, a PDF)."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading

import anyio

from tests.integration.mcp.conftest import DOCS
from tests.integration.mcp.support import ROOT, SERVER_ENV, START_TIMEOUT, over_stdio, structured, trove_command

READ_TOOLS = {"search", "read_passage", "read_document", "ask", "list_folders", "library_status", "search_memory"}


def test_the_tools_are_listed_with_schemas_and_descriptions_and_none_writes_by_default(library_home):
    async def session(client):
        return (await client.list_tools()).tools

    tools = {t.name: t for t in over_stdio(library_home, session)}
    assert set(tools) == READ_TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 40, tool.name
        assert tool.input_schema["type"] == "object" and tool.annotations.read_only_hint is True
    search = tools["search"].input_schema
    assert search["required"] == ["query"]
    assert set(search["properties"]) == {"query", "mode", "k", "folders", "types", "languages"}
    assert search["properties"]["mode"]["enum"] == ["hybrid", "keyword", "semantic"]
    assert search["properties"]["k"]["maximum"] == 50


def test_the_writing_tools_are_offered_only_when_turned_on(library_home):
    async def session(client):
        return {t.name for t in (await client.list_tools()).tools}

    assert over_stdio(library_home, session, "--allow-writes") == READ_TOOLS | {"add_folder", "remember"}


def test_search_finds_the_file_and_page_and_the_passage_reads_back(library_home, docs):
    async def session(client):
        found = structured(await client.call_tool("search", {"query": "what colour is the lighthouse", "k": 3}))
        best = found["results"][0]
        passage = structured(await client.call_tool("read_passage", {"passage_id": best["passage_id"]}))
        document = structured(await client.call_tool("read_document", {"path": best["path"]}))
        keyword = structured(await client.call_tool("search", {"query": "sourdough", "mode": "keyword",
                                                                "types": ["markdown"]}))
        missing = await client.call_tool("read_document", {"path": str(ROOT / "README.md")})
        unknown = await client.call_tool("read_passage", {"passage_id": 10**9})
        return best, passage, document, keyword, missing, unknown

    best, passage, document, keyword, missing, unknown = over_stdio(library_home, session)
    assert best["path"] == str(docs / "korrin.pdf") and best["page"] == 2 and best["place"] == "p. 2"
    assert "crimson" in best["snippet"] and best["score"] > 0
    assert passage["path"] == best["path"] and passage["page"] == 2 and "Elsa Varga" in passage["text"]
    assert [part["page"] for part in document["parts"]] == [1, 2] and document["next_start"] is None
    assert "Finances were stable" in document["parts"][0]["text"]
    assert [r["path"] for r in keyword["results"]] == [str(docs / "bread.md")]
    assert missing.is_error and "Not an indexed document" in missing.content[0].text  # a file Trove never indexed
    assert unknown.is_error and "No passage" in unknown.content[0].text


def test_ask_answers_with_a_quote_and_its_citation_or_refuses_with_the_closest_passages(library_home, docs):
    async def session(client):
        answered = structured(await client.call_tool("ask", {"question": "Who invented the Zorblax reactor?"}))
        refused = structured(await client.call_tool("ask", {"question": "How many moons does Neptune have?"}))
        return answered, refused

    answered, refused = over_stdio(library_home, session)
    assert answered["refused"] is False
    quote = answered["quote"]
    assert quote["path"] == str(docs / "reactor.txt")
    assert quote["text"] in DOCS["reactor.txt"]  # verbatim from the document: Trove chose it, not the model
    assert quote["text"] in answered["answer"]
    assert [c["path"] for c in answered["citations"]] == [str(docs / "reactor.txt")]
    assert answered["citations"][0]["passage_id"] is not None
    assert refused["refused"] is True and refused["quote"] is None and refused["citations"] == []
    assert isinstance(refused["closest_passages"], list)
    assert all(p["path"].startswith(str(docs)) for p in refused["closest_passages"])


def test_document_text_reaches_the_assistant_defused_and_labelled_as_data(library_home, docs):
    async def session(client):
        found = structured(await client.call_tool("search", {"query": "llama inventory north paddock", "k": 1}))
        passage = structured(await client.call_tool("read_passage",
                                                     {"passage_id": found["results"][0]["passage_id"]}))
        return found, passage

    found, passage = over_stdio(library_home, session)
    hit = found["results"][0]
    assert hit["path"] == str(docs / "planted.txt")
    for text in (hit["snippet"], passage["text"]):
        assert "<|im_start|>" not in text and "< |im_start|>" in text  # as the prompt path breaks it
        assert "\x1b" not in text and "\x07" not in text and "\\x1b]0;owned\\x07" in text
    assert "data" in found["note"] and "instructions" in found["note"]


def test_folders_status_and_documents_as_resources(library_home, docs):
    async def session(client):
        folders = structured(await client.call_tool("list_folders", {}))
        status = structured(await client.call_tool("library_status", {}))
        listed = (await client.list_resources()).resources
        pdf = next(r for r in listed if r.title == str(docs / "korrin.pdf"))
        read = (await client.read_resource(pdf.uri)).contents
        return folders, status, listed, pdf, read

    folders, status, listed, pdf, read = over_stdio(library_home, session)
    assert [f["path"] for f in folders["folders"]] == [str(docs)] and folders["folders"][0]["documents"] == 4
    assert status["documents"] == 4 and status["passages_waiting_for_vectors"] == 0 and status["engine"] == "sqlite"
    assert len(listed) == 4 and all(str(r.uri).startswith("trove://document/") for r in listed)
    text = read[0].text
    assert text.startswith(f"[Source: {docs / 'korrin.pdf'}]") and "[p. 2] The lighthouse" in text


def test_stdout_carries_only_protocol_messages_and_logs_go_to_a_file(library_home):
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "raw-test", "version": "0"}}}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    server = subprocess.Popen(trove_command(library_home, "mcp"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**SERVER_ENV, "PATH": "/usr/bin:/bin"})
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    stdin, stdout = server.stdin, server.stdout
    lines: queue.Queue[str] = queue.Queue()

    def read_stdout() -> None:
        for line in stdout:
            lines.put(line)

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    try:
        # Each request waits for its reply before the next is sent and stdin closes only after the
        # last reply: a server may drop requests still in flight when its input ends.
        stdin.write(json.dumps(hello) + "\n")
        stdin.flush()
        first = lines.get(timeout=START_TIMEOUT)
        stdin.write(json.dumps(initialized) + "\n" + json.dumps(listing) + "\n")
        stdin.flush()
        second = lines.get(timeout=START_TIMEOUT)
        stdin.close()
        assert server.wait(timeout=START_TIMEOUT) == 0, server.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    reader.join(timeout=10)
    assert lines.empty()  # nothing else reached stdout: no banner, no log line, no progress bar
    messages = [json.loads(line) for line in (first, second)]  # every line is a JSON-RPC message
    assert [m.get("id") for m in messages] == [1, 2] and all(m["jsonrpc"] == "2.0" for m in messages)
    assert {t["name"] for t in messages[1]["result"]["tools"]} == READ_TOOLS
    assert (library_home / "logs" / "mcp.log").is_file()


def test_with_writes_turned_on_the_assistant_can_remember_a_fact_and_add_a_folder(library_home, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(library_home, home)  # its own copy: the other tests' library stays as it was
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "ferry.txt").write_text("The Quillan ferry carries bicycles for free on Sundays.", encoding="utf-8")

    async def session(client):
        remembered = structured(await client.call_tool("remember", {"key": "favourite ferry",
                                                                    "value": "the noon boat to Harrowgate"}))
        recalled = structured(await client.call_tool("search_memory", {"query": "favourite ferry"}))
        added = structured(await client.call_tool("add_folder", {"path": str(extra)}))
        with anyio.fail_after(START_TIMEOUT):  # the server indexes it in the background: wait for that state
            while structured(await client.call_tool("library_status", {}))["documents"] < 5:
                await anyio.sleep(0.2)
        found = structured(await client.call_tool("search", {"query": "Quillan ferry bicycles", "mode": "keyword"}))
        return remembered, recalled, added, found

    remembered, recalled, added, found = over_stdio(home, session, "--allow-writes")
    assert remembered["action"] == "added" and "ferry" in remembered["key"]
    assert any("noon boat" in hit["text"] for hit in recalled["results"])
    assert added["added"] == str(extra)
    assert found["results"][0]["path"] == str(extra / "ferry.txt")
