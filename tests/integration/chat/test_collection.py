"""Whole-library answers end to end (issue 48): a small generated company library (tests/support/collection_library.py)
indexed with the real MiniLM on real SQLite and on the real PostgreSQL, asked through Library.ask. A count, a list and
a total are exact against the generator's own records, every row cites a stored passage of its own document, and a
plain question still goes to the model (the real bundled GGUF) the usual way.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from tests.integration.chat.conftest import N_CTX, N_THREADS, RecordingRuntime
from tests.support.collection_library import make_records, write_library

SETTINGS = {"embedder": "minilm", "n_ctx": N_CTX, "n_threads": N_THREADS, "temperature": 0.0,
            "answer_reserve_tokens": 32, "context_top_k": 3, "max_context_tokens": 400}


@pytest.fixture(scope="module")
def records():
    return make_records(seed=7, invoices=16, meetings=8, mails=6, reports=2)


@pytest.fixture
def company(tmp_path, records) -> Path:
    root = tmp_path / "company"
    write_library(root, records)
    return root


def built(home: Path, root: Path, minilm, db: str | None = None) -> Library:
    lib = Library(home, settings=Settings(**SETTINGS), embedder=minilm, db=db)
    lib.add_folder(root)
    lib.sync(wait=True)
    return lib


def cited(answer, root: Path) -> list[str]:
    return sorted(Path(c.path).relative_to(root).as_posix() for c in answer.citations)


def assert_every_row_cited(lib: Library, answer) -> None:
    """One citation per table row, each naming a stored chunk of its own document that holds the quoted line."""
    rows = [line for line in answer.text.splitlines() if line.startswith("| [")]
    assert [int(r.split("]")[0][3:]) for r in rows] == [c.n for c in answer.citations] == list(
        range(1, len(rows) + 1))
    passages = {p.n: p for p in answer.passages}
    for c in answer.citations:
        passage = passages[c.n]
        assert passage.source == c.path
        assert passage.content in [text for _, text in lib.document_chunks(c.path)]
        assert " ".join(c.snippet.removesuffix("…").split()) in " ".join(passage.content.split())
        if c.chunk_id is not None:
            assert lib.store.chunk_rows([c.chunk_id])[c.chunk_id].text == passage.content


def biggest_vendor(records) -> str:
    invoices = [v for r in records if "invoice" in r.kinds for v in r.mentions]
    return max(sorted(set(invoices)), key=invoices.count)


def check_count_list_total(lib: Library, root: Path, records) -> None:
    vendor = biggest_vendor(records)
    invoices = [r for r in records if "invoice" in r.kinds and vendor in r.mentions]
    assert len(invoices) >= 3  # the fixture gives the question something to count

    count = lib.ask(f"How many invoices did we get from {vendor}?")
    assert cited(count, root) == sorted(r.path for r in invoices)
    assert count.text.startswith(f"**{len(invoices)}** invoices")
    assert_every_row_cited(lib, count)

    total = lib.ask(f"What is the total of the invoices from {vendor}?")
    expected = sum((r.amount for r in invoices), Decimal("0"))
    assert cited(total, root) == sorted(r.path for r in invoices)
    assert f"**Total: {invoices[0].currency} {expected:,.2f}**" in total.text
    assert_every_row_cited(lib, total)

    tag = "budget"
    year = max(r.date.year for r in records if "meeting" in r.kinds and tag in r.tags)
    meetings = [r for r in records if "meeting" in r.kinds and tag in r.tags and r.date.year == year]
    listed = lib.ask(f"List the meetings tagged #{tag} in {year}.")
    assert cited(listed, root) == sorted(r.path for r in meetings) and meetings
    assert_every_row_cited(lib, listed)
    assert listed.refused is False and listed.generation == ""  # the model was never asked


def test_a_count_a_list_and_a_total_are_exact_and_cited_on_sqlite(tmp_path, company, records, minilm):
    lib = built(tmp_path / "home", company, minilm)
    try:
        check_count_list_total(lib, company, records)
        vendor = biggest_vendor(records)
        mailed = [r.path for r in records if "invoice" in r.kinds and vendor in r.mentions and "mail" in r.kinds]
        scoped = lib.ask(f"How many invoices did we get from {vendor}?", scope=(str(company / "mail"),))
        assert mailed and cited(scoped, company) == sorted(mailed)  # `--in` / a scope narrows the documents read
        stored = lib.chat.messages(lib.chat.list_chats()[0].id)
        assert stored[-1].role == "assistant" and "| [1] |" in stored[-1].content  # kept in the chat like any answer
    finally:
        lib.close()


def test_a_count_a_list_and_a_total_are_exact_and_cited_on_postgresql(tmp_path, company, records, minilm, pg_url):
    lib = built(tmp_path / "home", company, minilm, db=pg_url)
    try:
        check_count_list_total(lib, company, records)
    finally:
        lib.close()


def test_a_plain_question_goes_the_usual_path_with_the_model(tmp_path, company, records, minilm):
    lib = built(tmp_path / "home", company, minilm)
    runtimes: list[RecordingRuntime] = []

    def factory(settings, model_path):
        from desktop_app.core.chat.models.files import resolve_model_path

        runtimes.append(RecordingRuntime(resolve_model_path(model_path, settings.model_path), n_ctx=settings.n_ctx,
                                         n_threads=settings.n_threads))
        return runtimes[-1]

    from desktop_app.core.chat.service import ChatService

    lib._chat = ChatService(lib.store, lib._retrieve_for_chat, lambda: lib.settings, runtime_factory=factory)
    try:
        plain = lib.ask("Who follows up on the open invoice?", ask_model=True)
        assert runtimes and runtimes[0].sent  # the model was asked, with the top passages
        assert len(plain.passages) <= SETTINGS["context_top_k"] and "| [1] |" not in plain.text
        lib.chat.whole_library = False  # today's path, for bench/collection.py's baseline
        vendor = biggest_vendor(records)
        sent = len(runtimes[0].sent)
        counted = lib.ask(f"How many invoices did we get from {vendor}?", ask_model=True)
        assert len(runtimes[0].sent) == sent + 1 and "| [1] |" not in counted.text
    finally:
        lib.close()


def test_trove_ask_prints_the_table_and_its_sources_and_json_gives_the_rows(tmp_path, company, records, minilm, capsys):
    from desktop_app.cli import main

    home = tmp_path / "home"
    built(home, company, minilm).close()
    (home / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
    vendor = biggest_vendor(records)
    assert main(["--home", str(home), "ask", f"List the invoices from {vendor}."]) == 0
    out = capsys.readouterr().out
    n = sum(1 for r in records if "invoice" in r.kinds and vendor in r.mentions)
    assert "|  | Date | Document | Quoted |" in out and out.count("\n| [") == n
    sources = out.split("Sources:")[1].strip().splitlines()
    assert len(sources) == n and all(line.startswith(f"[{i}] {company}") for i, line in enumerate(sources, 1))
    assert main(["--home", str(home), "ask", f"What is the total of the invoices from {vendor}?", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    invoices = [r for r in records if "invoice" in r.kinds and vendor in r.mentions]
    assert sorted(Path(r["path"]).relative_to(company).as_posix() for r in rows) == sorted(r.path for r in invoices)
    assert sum(Decimal(r["amount"]) for r in rows) == sum((r.amount for r in invoices), Decimal("0"))
