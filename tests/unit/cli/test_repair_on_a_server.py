"""`trove repair` is for the library file on this computer: on a server library it says so and touches nothing."""

from __future__ import annotations

import json

import pytest

from desktop_app.cli import main

URL = "postgresql://trove:secret@127.0.0.1:1/trove"  # never connected to


@pytest.mark.parametrize("how", ["--db", "TROVE_DB", "settings"])
def test_repair_refuses_a_server_library_in_one_line(tmp_path, monkeypatch, capsys, how):
    monkeypatch.delenv("TROVE_DB", raising=False)
    (tmp_path / "library.db").write_bytes(b"not a database")  # would be moved aside by a repair
    args = ["--home", str(tmp_path), "repair", "--force"]
    if how == "--db":
        args = ["--db", URL, *args]
    elif how == "TROVE_DB":
        monkeypatch.setenv("TROVE_DB", URL)
    else:
        (tmp_path / "settings.json").write_text(json.dumps({"server_url": URL}), encoding="utf-8")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "on a server" in err and "secret" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["library.db"] + (["settings.json"] if how == "settings"
                                                                           else [])
