"""The deterministic extractors: self-statements and breadcrumbs (never raise on any string)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.memory.breadcrumbs import MAX_CRUMBS, breadcrumbs
from desktop_app.core.memory.extract import extract_statements, slug


def pairs(text: str) -> list[tuple[str, str]]:
    return [(s.key, s.value) for s in extract_statements(text)]


def test_remember_that_is_explicit_and_parsed_into_a_key():
    [s] = extract_statements("Remember that the staging port is 8099.")
    assert (s.key, s.value, s.explicit) == ("staging_port", "8099", True)


def test_my_x_is_y_and_preferences():
    assert pairs("My editor is neovim. I prefer dark mode.") == [("editor", "neovim"),
                                                                 ("preference_dark_mode", "dark mode")]
    assert pairs("My thesis is on coral bleaching") == [("thesis", "on coral bleaching")]
    assert pairs("my preferred language is Thai") == [("preferred_language", "Thai")]
    assert pairs("I prefer tabs for indentation") == [("indentation", "tabs")]
    assert pairs("I use vim for writing code") == [("writing_code", "vim")]


def test_instructions():
    [s] = extract_statements("Always answer in British English.")
    assert (s.key, s.value, s.category) == ("answer_language", "British English", "instruction")
    assert pairs("Please never use emojis.") == [("never_use_emojis", "never use emojis")]


def test_a_correction_is_marked_and_trailing_now_dropped():
    [s] = extract_statements("Actually, my editor is helix now.")
    assert (s.key, s.value, s.correction) == ("editor", "helix", True)


def test_the_x_is_y_only_for_value_like_statements():
    assert pairs("the staging port is 8099") == [("staging_port", "8099")]
    assert pairs("The weather is nice today.") == []


def test_questions_negations_and_hypotheticals_are_not_facts():
    assert pairs("What is my editor?") == []
    assert pairs("my car is not red") == []
    assert pairs("If my budget is 100 what then") == []


def test_fixed_keys():
    assert pairs("I live in Leeds.") == [("location", "Leeds")]
    assert pairs("I work at Acme Ltd.") == [("employer", "Acme Ltd")]
    assert pairs("Call me Sam.") == [("name", "Sam")]


def test_thai_and_arabic_statements():
    [thai] = extract_statements("จำไว้ว่า พอร์ตของเซิร์ฟเวอร์คือ 8099")
    assert thai.explicit and thai.value == "พอร์ตของเซิร์ฟเวอร์คือ 8099" and thai.key.startswith("note_")
    [arabic] = extract_statements("تذكر أن رقم المنفذ هو 8099")
    assert arabic.explicit and "8099" in arabic.value
    assert pairs("ภาษาของฉันคือภาษาไทย") == [("ภาษา", "ภาษาไทย")]


def test_slug():
    assert slug("My Dog's name") == "dog_name"
    assert slug("the Staging  Port") == "staging_port"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_extractors_never_raise(text):
    for s in extract_statements(text):
        assert s.key and s.value
    crumbs = breadcrumbs(text)
    assert len(crumbs) <= MAX_CRUMBS
    assert all(len(value) >= 2 for _, value in crumbs)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["my ", "editor ", "is ", "remember that ", "the port ", "8099", ". ", "? ", "\n",
                                 "ไทย", "عربي", "`x`", '"', "http://a.b/c ", "#12 "]), max_size=40))
def test_extractors_never_raise_on_statement_fragments(parts):
    text = "".join(parts)
    extract_statements(text)
    breadcrumbs(text)


def test_breadcrumbs_kinds_in_order():
    text = ('The staging port is 8099, see https://x.example.com/a?b=1 and run `make deploy`; ticket PROJ-123 and '
            '#4512 cost $1,200.50 in /etc/nginx/sites-enabled/app.conf, id deploy_prod, "ship it by friday"')
    assert breadcrumbs(text) == [
        ("port", "8099"), ("url", "https://x.example.com/a?b=1"), ("command", "make deploy"),
        ("ticket", "PROJ-123"), ("ticket", "#4512"), ("amount", "$1,200.50"),
        ("path", "/etc/nginx/sites-enabled/app.conf"), ("identifier", "deploy_prod"), ("quote", "ship it by friday")]


def test_breadcrumbs_in_other_scripts_and_repeats():
    assert breadcrumbs("พอร์ต 8099 และ 8099") == [("number", "8099")]
    assert breadcrumbs('المنفذ 8099 "نص جديد"') == [("number", "8099"), ("quote", "نص جديد")]
    assert breadcrumbs("") == []
