"""Closed sets are enums: a Notice's level is a NoticeLevel whether given as a member or its string."""

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
