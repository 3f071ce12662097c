"""settings.json is checked field by field: a bad value is named and replaced by its default, never a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_app.core.settings import Settings, SettingsError, read_settings, save_settings
from tests.support.runner import assert_one_line_error, run_trove, write_settings

json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                         max_size=3), max_leaves=6)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([f.name for f in Settings.__dataclass_fields__.values()] + ["unknown"]),
                       json_values, max_size=6))
def test_any_json_object_gives_usable_settings(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("s") / "settings.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    got, problems = read_settings(path)
    assert isinstance(got, Settings) and got.chunk_overlap < got.chunk_size
    for problem in problems:
        assert problem.startswith("settings.json: ") and "\n" not in problem


def test_a_wrong_type_names_the_field_and_keeps_the_default(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"excluded_patterns": 5, "chunk_size": "big", "top_k": 7}), encoding="utf-8")
    got, problems = read_settings(path)
    assert got.excluded_patterns == Settings().excluded_patterns and got.chunk_size == 512 and got.top_k == 7
    assert problems == ["settings.json: excluded_patterns must be a list of text patterns, not 5; using the default",
                        'settings.json: chunk_size must be a whole number, not "big"; using the default']


def test_malformed_json_is_reported_and_kept(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"chunk_size": 300,', encoding="utf-8")
    got, problems = read_settings(path)
    assert got == Settings() and len(problems) == 1 and "not valid JSON" in problems[0]
    save_settings(path, got.with_changes(top_k=3))
    assert (tmp_path / "settings.json.bad").read_text(encoding="utf-8") == '{"chunk_size": 300,'


def test_invalid_changes_raise_a_known_error_naming_the_field():
    with pytest.raises(SettingsError, match="chunk_size must be at least 1"):
        Settings().with_changes(chunk_size=0)
    with pytest.raises(SettingsError, match="chunk_overlap .* must be smaller than chunk_size"):
        Settings().with_changes(chunk_overlap=600)
    with pytest.raises(SettingsError, match="no such setting: chunk_sise"):
        Settings().with_changes(chunk_sise=3)
    assert Settings(excluded_patterns=["*.log"]).excluded_patterns == ("*.log",)


def test_the_cli_says_what_is_wrong_and_still_works(tmp_path):
    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("settings heron", encoding="utf-8")
    write_settings(home, excluded_patterns=5)
    run = run_trove(home, "index", str(docs))
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert "trove: settings.json: excluded_patterns must be a list of text patterns, not 5" in run.stderr
    (home / "settings.json").write_text("{oops", encoding="utf-8")
    search = run_trove(home, "search", "heron", "--mode", "keyword")
    assert search.returncode == 0 and "a.txt" in search.stdout and "not valid JSON" in search.stderr
    assert_one_line_error(run_trove(home, "index", str(docs), "--chunk-size", "0"), "chunk_size must be at least 1")
