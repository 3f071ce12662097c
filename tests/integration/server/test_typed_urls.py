"""A postgresql:// URL a person types (--db, $TROVE_DB, settings) gets the TLS of the library they joined, and a
plain-text sslmode to another computer is refused before anything is sent (the session's real server)."""

from __future__ import annotations

import itertools
import os
from urllib.parse import parse_qsl, urlsplit

import pytest

from desktop_app.core.library import Library
from desktop_app.core.server import joining
from desktop_app.core.server.invite import decode
from desktop_app.core.server.tls import make_ca
from desktop_app.core.settings import Settings
from desktop_app.core.store.postgres.access import roles
from desktop_app.core.store.postgres.connect import ServerTrustError

_names = itertools.count(1)


def test_a_typed_url_to_a_joined_library_gets_its_pinned_ca_and_verify_full(pg_server, tmp_path):
    name = f"typed{os.getpid()}_{next(_names)}"
    invite = pg_server.invite(name)
    home = tmp_path / "desk"
    joining.join(home, invite)
    port = decode(invite).port
    typed = f"postgresql://{roles.role_name(name)}@127.0.0.1:{port}/trove"  # no TLS parameters, no password

    hardened = joining.typed_url(home, typed)
    params = dict(parse_qsl(urlsplit(hardened).query))
    pin = home / "team" / f"127.0.0.1-{port}-trove"
    assert params["sslmode"] == "verify-full" and params["sslrootcert"] == str(pin / "ca.crt")
    assert params["channel_binding"] == "require" and params["passfile"] == str(pin / "pgpass")
    assert joining.check(hardened) == roles.role_name(name)
    # a weaker sslmode typed for a pinned library is replaced by the pin's
    weak = dict(parse_qsl(urlsplit(joining.typed_url(home, typed + "?sslmode=require")).query))
    assert weak["sslmode"] == "verify-full"

    lib = Library(home, settings=Settings(embedder="hash"), db=typed)  # the facade makes the same URL
    try:
        assert "sslmode=verify-full" in lib.store.url and str(pin / "ca.crt") in lib.store.url  # type: ignore[attr-defined]
    finally:
        lib.close()

    (pin / "ca.crt").write_bytes(make_ca("impostor")[0])  # the pin now names another CA: the server fails it
    with pytest.raises(ServerTrustError) as err:
        joining.check(joining.typed_url(home, typed))
    assert "the CA in your invite did not sign" in str(err.value)


def test_a_plain_text_sslmode_to_another_computer_is_one_line_and_loopback_is_left_alone(tmp_path):
    for mode in ("disable", "allow", "prefer"):
        with pytest.raises(ServerTrustError) as err:
            joining.typed_url(tmp_path, f"postgresql://alice@192.0.2.10:5432/trove?sslmode={mode}")
        text = str(err.value)
        assert "\n" not in text and f"sslmode={mode}" in text and "plain text" in text
        with pytest.raises(ServerTrustError):
            Library(tmp_path, settings=Settings(embedder="hash"),
                    db=f"postgresql://alice@192.0.2.10/trove?sslmode={mode}")
    local = "postgresql://alice@127.0.0.1:5432/trove?sslmode=disable"  # this computer, nothing joined: unchanged
    assert joining.typed_url(tmp_path, local) == local
    verified = "postgresql://alice@192.0.2.10/trove?sslmode=verify-full"
    assert joining.typed_url(tmp_path, verified) == verified
