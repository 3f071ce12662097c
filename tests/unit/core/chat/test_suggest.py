"""Suggested first questions, from a real small SQLite library (its stored titles and chunk text)."""

from __future__ import annotations

import shutil

import pytest

from desktop_app.core.chat.suggest import (
    MAX_TITLE,
    SampledDocument,
    key_terms,
    sample_documents,
    shown_title,
    suggest_questions,
)
from desktop_app.core.library import Library
from desktop_app.core.settings import Settings
from desktop_app.resources import sample_docs_dir

SOURDOUGH = ("Sourdough needs a lively starter. Feed the starter flour and water; a starter that doubles is ready. "
             "The dough rests overnight, and the starter gives the bread its sour taste.")
VENUS = ("Venus is the hottest planet. Its thick atmosphere of carbon dioxide traps heat: the atmosphere "
         "presses ninety times harder than Earth's, and the clouds are sulphuric acid.")
FIRST_AID = ("For a burn, cool the burn under running water for twenty minutes. Never put ice on a burn. "
             "Cover the burn loosely with cling film.")


@pytest.fixture
def library(tmp_path):
    lib = Library(tmp_path / "home", settings=Settings(embedder="hash"))
    yield lib
    lib.close()


def index(library, folder, files: dict[str, str]):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    library.add_folder(folder)
    library.sync(wait=False)


def test_three_questions_from_three_documents_titles_and_key_terms(library, tmp_path):
    index(library, tmp_path / "docs", {"sourdough-bread.txt": SOURDOUGH, "venus.md": "# Our hot neighbour\n\n" + VENUS,
                                       "first_aid.txt": FIRST_AID})
    suggestions = library.suggested_questions()
    assert len(suggestions) == 3
    assert len({s.path for s in suggestions}) == 3  # one per document
    by_title = {s.title: s for s in suggestions}
    assert by_title["sourdough bread"].term == "starter"  # said four times, in no other document
    assert by_title["first aid"].term == "burn"
    assert by_title["Our hot neighbour"].term == "atmosphere"  # the Markdown heading is the stored title
    assert suggestions[0].question == f"What does “{suggestions[0].title}” say about {suggestions[0].term}?"
    assert suggestions[1].question == f"What do my documents say about “{suggestions[1].term}”?"
    for s in suggestions:  # each question finds the document it came from
        assert library.search(s.question, top_k=3, mode="keyword")[0].source == s.path


def test_a_term_common_to_every_document_loses_to_a_rare_one():
    docs = [SampledDocument("a", "/a.txt", "kettle kettle kettle teapot teapot"),
            SampledDocument("b", "/b.txt", "kettle kettle kettle saucer saucer")]
    assert [term for term, _ in key_terms(docs)[0]][:2] == ["teapot", "kettle"]


def test_the_written_form_is_kept_and_a_sentence_capital_dropped():
    docs = [SampledDocument("x", "/x.txt", "Starters rise. The starters bubble. Venus shines; Venus is hot.")]
    terms = [term for term, _ in key_terms(docs)[0]]
    assert "starters" in terms and "Venus" in terms


def test_one_document_gives_its_next_terms(library, tmp_path):
    index(library, tmp_path / "one", {"bread.txt": SOURDOUGH + " Flour and flour. Dough again."})
    suggestions = library.suggested_questions()
    assert [s.term for s in suggestions] == ["starter", "flour", "dough"]
    assert len({s.question for s in suggestions}) == 3


def test_chinese_and_thai_libraries_get_words_and_questions_in_their_language(library, tmp_path):
    zh = "光合作用是植物利用阳光制造养分的过程。光合作用需要叶绿素。叶绿素吸收阳光，光合作用产生氧气。"
    th = "แมวเป็นสัตว์เลี้ยงที่นิยม แมวชอบนอนหลับ แมวกินปลา และแมวเล่นกับเจ้าของ"
    index(library, tmp_path / "intl", {"植物.txt": zh, "สัตว์.txt": th})
    by_path = {s.path.rsplit("/", 1)[-1]: s for s in library.suggested_questions()}
    assert by_path["植物.txt"].term in {"光合作用", "光合", "叶绿素", "阳光"}
    assert by_path["สัตว์.txt"].term == "แมว"
    questions = {s.question for s in by_path.values()}
    assert any("关于“" in q for q in questions) and any("เอกสาร" in q for q in questions)


def test_an_empty_library_and_a_document_without_words(library, tmp_path):
    assert library.suggested_questions() == []
    index(library, tmp_path / "nums", {"numbers.txt": "12 34 56 78 90 12 34"})
    [only] = library.suggested_questions()
    assert only.term == "" and only.question == "What is “numbers” about?"


def test_the_sample_library_gets_three_questions(library, tmp_path):
    shutil.copytree(sample_docs_dir(), tmp_path / "sample")
    library.add_folder(tmp_path / "sample")
    library.sync(wait=False)
    docs = sample_documents(library.store)
    assert len(docs) == 7 and all(d.text for d in docs)
    suggestions = suggest_questions(docs)
    assert len(suggestions) == 3 and all(s.term for s in suggestions)


def test_long_titles_are_cut_and_kept_on_one_line():
    title = shown_title("A " * 80 + "\nsecond line", "/x.txt")
    assert len(title) <= MAX_TITLE and "\n" not in title and title.endswith("…")
    assert shown_title("", "/docs/my_notes-2024.txt") == "my notes 2024"


def test_a_team_library_on_postgresql_gets_the_same_questions(tmp_path, pg_url):
    files = {"sourdough-bread.txt": SOURDOUGH, "venus.txt": VENUS, "first_aid.txt": FIRST_AID}
    with Library(tmp_path / "pg-home", settings=Settings(embedder="hash"), db=pg_url) as team:
        index(team, tmp_path / "shared", files)
        on_server = team.suggested_questions()
    with Library(tmp_path / "lite-home", settings=Settings(embedder="hash")) as embedded:
        index(embedded, tmp_path / "shared", files)
        assert [s.question for s in on_server] == [s.question for s in embedded.suggested_questions()]
    assert len(on_server) == 3
