"""Whole-library questions: which questions the rule takes (and which it leaves to the usual path), the filters
it reads from the words, and the amounts it reads from a document (issue 48)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_app.core.chat.collection_question import Operation, read_question
from desktop_app.core.chat.collection_values import amounts_in, document_amount, parse_number, totals

TODAY = dt.date(2026, 12, 6)


@pytest.mark.parametrize(("question", "op", "kinds", "terms", "start", "end"), [
    ("How many invoices did we get from Acme in March 2026?", Operation.COUNT, ("invoice",), ("Acme",),
     dt.date(2026, 3, 1), dt.date(2026, 4, 1)),
    ("List the meetings tagged #budget this year", Operation.LIST, ("meeting",), (), dt.date(2026, 1, 1),
     dt.date(2027, 1, 1)),
    ("What is the total of the invoices from Northwind?", Operation.TOTAL, ("invoice",), ("Northwind",), None, None),
    ("How much did we pay Globex in Q1 2026?", Operation.TOTAL, ("invoice", "receipt"), ("Globex",),
     dt.date(2026, 1, 1), dt.date(2026, 4, 1)),
    ("Which e-mails did we receive from Initech since January 2026?", Operation.LIST, ("mail",), ("Initech",),
     dt.date(2026, 1, 1), None),
    ("Count the bills between Jan 2026 and March 2026", Operation.COUNT, ("invoice",), (), dt.date(2026, 1, 1),
     dt.date(2026, 4, 1)),
    ("What's the sum of Initech's invoices before 2025-06?", Operation.TOTAL, ("invoice",), ("Initech",), None,
     dt.date(2025, 6, 1)),
    ("list meeting notes tagged ops from last month", Operation.LIST, ("meeting",), (), dt.date(2026, 11, 1),
     dt.date(2026, 12, 1)),
])
def test_a_whole_library_question_is_read_with_its_filters(question, op, kinds, terms, start, end):
    read = read_question(question, TODAY)
    assert read is not None
    assert (read.operation, read.kinds, read.terms) == (op, kinds, terms)
    assert (read.dates.start, read.dates.end) == (start, end)


def test_tags_and_types_become_query_language_filters():
    assert "tag:budget" in read_question("List the meetings tagged #budget", TODAY).query.split()
    assert "tag:travel" in read_question("How many notes tagged with travel?", TODAY).query.split()
    assert "type:email" in read_question("How many mails mention Acme?", TODAY).query.split()
    typed = read_question("Count the documents type:pdf after:2026-03", TODAY)
    assert {"type:pdf", "after:2026-03"} <= set(typed.query.split())


@pytest.mark.parametrize("question", [
    "How many people attended the budget meeting?",  # something inside one document
    "How many file types does Trove read?",
    "How many minutes did the launch meeting last?",
    "Which meeting decided the launch date?",
    "What did the meeting notes say about hiring?",
    "What is the total weight of the reactor?",
    "How much does the licence cost?",
    "What is the capital of France?",
    "Summarise the invoices decision in decisions.md",
    "",
])
def test_other_questions_take_the_usual_path(question):
    assert read_question(question, TODAY) is None


@given(st.text(max_size=200))
def test_any_text_is_read_without_raising(text):
    read_question(text, TODAY)


@pytest.mark.parametrize(("line", "value", "currency"), [
    ("Total due: EUR 1,234.50", "1234.50", "EUR"), ("Grand total: 4.011,48 €", "4011.48", "EUR"),
    ("Amount due: $10,327.02 within 30 days.", "10327.02", "USD"), ("TOTAL: 9,213.18 GBP", "9213.18", "GBP"),
    ("Consulting hours    3     EUR 120.00", "120.00", "EUR"), ("CHF 1 250,00", "1250.00", "CHF"),
])
def test_an_amount_is_read_with_its_currency(line, value, currency):
    [amount] = amounts_in(line)
    assert (amount.value, amount.currency) == (Decimal(value), currency)


def test_numbers_without_a_currency_are_not_amounts():
    assert amounts_in("Invoice INV-26042 dated 2026-03-04, 3 items, page 12") == []
    assert parse_number("1.234,50") == parse_number("1,234.50") == Decimal("1234.50")


def test_a_document_amount_is_its_labelled_total_else_its_only_amount_else_none():
    invoice = "Item A  €10.00\nItem B  €20.00\nSubtotal: €30.00\nVAT: €6.00\nTotal: €36.00\n"
    assert document_amount(invoice).value == Decimal("36.00")
    assert document_amount("The quote comes to USD 2,300.00 before tax.").value == Decimal("2300.00")
    assert document_amount("We spent $5 on tea and $6 on cake.") is None


def test_totals_are_per_currency():
    amounts = amounts_in("€10.00 and $5.50 and EUR 2.25")
    assert totals(amounts) == {"EUR": Decimal("12.25"), "USD": Decimal("5.50")}


def test_the_table_quotes_cells_literally_and_totals_each_currency_apart():
    from desktop_app.core.chat.collection import Collected, CollectionRow
    from desktop_app.core.chat.collection_answer import chat_answer

    question = read_question("What is the total of the invoices from Acme?", TODAY)
    eur, usd = amounts_in("Total: EUR 10.50")[0], amounts_in("Total: $2.00")[0]
    rows = (CollectionRow("/lib/a|b_c.txt", "A", "2026-01-02", "Total: EUR 10.50", "Total: EUR 10.50", 1, None, "",
                          eur),
            CollectionRow("/lib/d.md", "D", "", "Total: $2.00", "Total: $2.00", 2, None, "", usd),
            CollectionRow("/lib/e.md", "E", "2026-02-01", "no amount", "no amount", 3))
    answer = chat_answer(Collected(question, rows, 7, sums=totals([eur, usd])), chat_id=1)
    lines = answer.text.splitlines()
    assert lines[0] == "**3** invoices mentioning “Acme” (7 documents read)."
    assert "| [1] | 2026-01-02 | a\\|b\\_c.txt | EUR 10.50 | Total: EUR 10.50 |" in lines
    assert "| [3] | 2026-02-01 | e.md | — | no amount |" in lines
    assert lines[-1] == ("**Total: EUR 10.50 + USD 2.00** over 2 invoices; 1 without a single total amount, not added"
                         " (currencies are never added together).")
    assert [(c.n, c.path, c.chunk_id) for c in answer.citations] == [(1, "/lib/a|b_c.txt", 1), (2, "/lib/d.md", 2),
                                                                      (3, "/lib/e.md", 3)]
    assert [r["amount"] for r in answer.rows] == ["10.50", "2.00", None]


def test_a_quoted_cell_shows_the_documents_markdown_as_text():
    from desktop_app.core.chat.collection import Collected, CollectionRow
    from desktop_app.core.chat.collection_answer import chat_answer

    question = read_question("List the invoices from Acme.", TODAY)
    usd = amounts_in("Total: $2.00")[0]
    evidence = "## Invoice 7\n**Total:** $2.00 for `widgets`"
    rows = (CollectionRow("/lib/d.md", "D", "2026-01-02", evidence, evidence, 2, None, "", usd),)
    text = chat_answer(Collected(question, rows, 1, sums=totals([usd])), chat_id=1).text
    row = next(line for line in text.splitlines() if line.startswith("| [1]"))
    assert row.endswith("| Invoice 7 Total: $2.00 for widgets |"), row
