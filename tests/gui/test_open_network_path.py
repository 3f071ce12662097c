"""A colleague's network path is refused before anything touches it: on Windows a stat of \\\\host\\share makes the
system sign in to that host with the person's NTLM hash, so not even os.path.exists may run on it."""

from __future__ import annotations

import os

import pytest

from desktop_app.ui import open_file


@pytest.mark.parametrize("path", ["\\\\host\\share\\report.pdf", "//host/share/report.pdf"])
def test_a_network_path_is_refused_without_a_stat(monkeypatch, path):
    touched, refused, opened = [], [], []

    def spy(name):
        def record(target, *args, **kwargs):
            touched.append((name, str(target)))
            raise AssertionError(f"{name} touched {target}")
        return record

    previous = open_file.set_refuser(lambda message, folder: refused.append((message, folder)))
    before = open_file.set_opener(lambda p, page: opened.append(p) or True)
    try:
        with monkeypatch.context() as m:
            for name in ("stat", "lstat", "access", "listdir"):
                m.setattr(os, name, spy(name))
            m.setattr(os.path, "exists", spy("exists"))
            m.setattr(os.path, "realpath", spy("realpath"))
            assert open_file.open_path(path, 3, machine="alice-desk") is False
    finally:
        open_file.set_refuser(previous)
        open_file.set_opener(before)
    assert touched == [] and opened == []
    assert len(refused) == 1 and "network server" in refused[0][0] and refused[0][1] is None
