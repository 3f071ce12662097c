"""core.log.configure: the one console setup of a Trove process."""

from __future__ import annotations

import io
import logging

from desktop_app.core.log import configure, get_logger


def test_configure_redacts_and_follows_verbose(monkeypatch):
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    quiet, loud = io.StringIO(), io.StringIO()
    configure(stream=quiet)
    get_logger("server").info("started postgresql://a:pw1@h/x")
    get_logger("server").warning("lost postgresql://a:pw2@h/x")
    configure(verbose=True, stream=loud)  # replaces the first console handler
    get_logger("server").info("back at postgresql://a:pw3@h/x")
    assert quiet.getvalue() == "WARNING trove.server: lost postgresql://a:***@h/x\n"
    assert loud.getvalue() == "INFO trove.server: back at postgresql://a:***@h/x\n"
    assert len(root.handlers) == 1


def test_a_host_that_routes_logs_itself_is_left_alone(monkeypatch):
    root = logging.getLogger()
    host = logging.StreamHandler(io.StringIO())
    monkeypatch.setattr(root, "handlers", [host])
    monkeypatch.setattr(root, "level", logging.ERROR)
    configure(verbose=True, stream=io.StringIO())
    assert root.handlers == [host] and root.level == logging.ERROR
