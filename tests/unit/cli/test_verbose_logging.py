"""`trove -v` logs through core.log.configure, the window's formatter: a server URL's password never reaches stderr."""

from __future__ import annotations

import logging

import pytest

from desktop_app.cli import main
from desktop_app.core.log import get_logger

URL = "postgresql://u:secret@h/db"


def bare_root(monkeypatch) -> None:
    """The root logger as a plain process starts with it: no handler. Called in the test itself, because pytest
    puts its capture handler on the root logger as the test starts (and it is put back afterwards)."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)


def logging_command(args, library) -> int:
    """Stands in for a command's work: what Trove and a third-party library might log on the way."""
    get_logger("db").info("connecting to %s", URL)
    logging.getLogger("somelib.pool").warning("pool for %s is full", URL)
    return 0


@pytest.mark.parametrize("verbose", [True, False])
def test_trove_v_prints_log_lines_with_their_passwords_redacted(monkeypatch, capsys, tmp_path, verbose):
    bare_root(monkeypatch)
    monkeypatch.setattr("desktop_app.cli.repair.cmd_repair", logging_command)  # a command that needs no library
    assert main([*(["-v"] if verbose else []), "--home", str(tmp_path), "repair"]) == 0
    err = capsys.readouterr().err
    assert "secret" not in err
    assert "WARNING somelib.pool: pool for postgresql://u:***@h/db is full" in err
    info = "INFO trove.db: connecting to postgresql://u:***@h/db"
    assert (info in err) is verbose  # -v: what Trove does; without it, warnings only


def test_running_twice_in_one_process_prints_each_line_once(monkeypatch, capsys, tmp_path):
    bare_root(monkeypatch)
    monkeypatch.setattr("desktop_app.cli.repair.cmd_repair", logging_command)
    for _ in range(2):
        assert main(["-v", "--home", str(tmp_path), "repair"]) == 0
    assert capsys.readouterr().err.count("connecting to") == 2
