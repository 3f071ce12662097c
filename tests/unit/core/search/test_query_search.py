"""How a parsed query narrows the filters menu's Filters (pure: the engines' side is tests/integration/store/
test_store_query_filters.py)."""

from __future__ import annotations

import datetime as dt
import os

from desktop_app.core.search.query_language import parse_query
from desktop_app.core.search.query_search import query_filters
from desktop_app.core.store.rows import Filters

TODAY = dt.date(2024, 6, 15)


def narrowed(query: str, base: Filters | None = None) -> Filters | None:
    return query_filters(parse_query(query, today=TODAY), base)


def test_no_filter_anywhere_is_none():
    assert narrowed("just words -and \"a phrase\"") is None


def test_typed_filters_become_store_filters():
    f = narrowed("x type:md lang:th tag:Work folder:Invoices folder:Bills file:Report last month")
    assert f is not None
    assert (f.types, f.langs, f.tags) == (("markdown",), ("th",), ("work",))
    assert f.path_has == ((f"{os.sep}invoices{os.sep}", f"{os.sep}bills{os.sep}"), ("report",))
    assert (f.date_from, f.date_to) == ("2024-05-01", "2024-06-01")
    assert f.by_document() and f


def test_the_menu_and_the_query_narrow_each_other():
    menu = Filters(folder_ids=(3,), types=("pdf", "docx"), date_from="2024-01-01", date_to="2024-12-01")
    f = narrowed("x type:docx after:2024-03 before:2025", menu)
    assert f is not None and f.folder_ids == (3,) and f.types == ("docx",)
    assert (f.date_from, f.date_to) == ("2024-03-01", "2024-12-01")
    nothing = narrowed("x type:md", menu)
    assert nothing is not None and nothing.types == ("\x00none",)  # both asked, none in common: no document


def test_an_empty_date_range_matches_nothing_and_is_no_error():
    f = narrowed("x after:2025 before:2024")
    assert f is not None and f.date_from == f.date_to == "2025-01-01"
