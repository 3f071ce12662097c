"""Closed sets are enums: a Notice's level and a model's origin, whether given as members or their strings."""

from __future__ import annotations

import json

import pytest

from desktop_app.core.events import Notice, NoticeLevel


def test_a_level_string_becomes_the_member_and_still_reads_as_the_string():
    notice = Notice("error", "could not read a file")
    assert notice.level is NoticeLevel.ERROR and notice.level == "error"
    assert f"{notice.level}: {notice.message}" == "error: could not read a file"
    assert json.dumps({"level": notice.level}) == '{"level": "error"}'


def test_a_level_outside_the_set_is_a_bug():
    with pytest.raises(ValueError, match="'fatal'"):
        Notice("fatal", "no such level")


def test_a_model_origin_is_a_closed_set_and_a_row_outside_it_is_skipped(tmp_path):
    from desktop_app.core.chat.models.manager import BUNDLED, ModelManager, ModelOrigin
    from desktop_app.core.settings import Settings

    assert BUNDLED is ModelOrigin.BUNDLED and json.dumps(BUNDLED) == '"bundled"'
    (tmp_path / "models.json").write_text(json.dumps({"models": [
        {"name": "odd", "path": str(tmp_path / "odd.gguf"), "origin": "borrowed"},
        {"name": "listy", "path": str(tmp_path / "l.gguf"), "origin": ["local"]},
        {"name": "mine", "path": str(tmp_path / "mine.gguf"), "origin": "local"}]}), encoding="utf-8")
    settings = Settings(embedder="hash")
    entries = ModelManager(tmp_path, lambda: settings, lambda **_: settings).entries()
    named = {e.name: e for e in entries}
    assert "odd" not in named and "listy" not in named
    assert named["mine"].origin is ModelOrigin.LOCAL


def test_a_progress_phase_is_a_closed_set_and_its_json_is_the_string():
    from dataclasses import asdict

    from desktop_app.core.events import IndexProgress, ProgressPhase

    event = IndexProgress("keyword", files_queued=3)
    assert event.phase is ProgressPhase.KEYWORD and event.phase in ("keyword", "scan")
    assert json.loads(json.dumps(asdict(event)))["phase"] == "keyword"
    with pytest.raises(ValueError, match="'keywords'"):
        IndexProgress("keywords")
