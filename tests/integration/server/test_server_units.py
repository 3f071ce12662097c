"""The server's pieces without a server: pg_hba.conf, invites, redaction, the password file, certificates."""

from __future__ import annotations

import json
import os
import time

import pytest

from desktop_app.core.redact import redact
from desktop_app.core.server import joining
from desktop_app.core.server.hba import HBA, AllowError, parse_allow
from desktop_app.core.server.invite import PREFIX, Invite, InviteError, decode, encode
from desktop_app.core.server.tls import (
    cert_names,
    der_to_pem,
    make_ca,
    make_server_cert,
    needs_renewal,
    pem_to_der,
)
from desktop_app.core.store.postgres.access.front import Front
from desktop_app.core.store.postgres.access.roles import RoleError, role_name
from desktop_app.core.store.postgres.connect import translate_connect_error


def rules(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_allow_parses_and_normalises_networks():
    assert parse_allow("10.1.2.3, 192.168.1.77/24,10.1.2.3/32") == ("10.1.2.3/32", "192.168.1.0/24")
    assert parse_allow("fd00::5/64") == ("fd00::/64",)
    assert parse_allow(None) == parse_allow("none") == parse_allow("") == ()
    assert parse_allow("127.0.0.1") == ()  # loopback is always there
    with pytest.raises(AllowError, match="not an address or a network"):
        parse_allow("10.0.0.0/24,office")


def test_postgres_admits_only_its_private_socket_and_the_front_only_the_allowed_networks(tmp_path):
    lines = rules(HBA)
    assert lines == [["local", "all", "all", "trust"]]  # no host rule: PostgreSQL listens on no TCP port
    ca_pem, ca_key = make_ca("t")
    cert, key = make_server_cert(ca_pem, ca_key, ["127.0.0.1"])
    (tmp_path / "c.pem").write_bytes(cert)
    (tmp_path / "k.pem").write_bytes(key)
    conf = {"listen": "127.0.0.1", "port": 1, "socket_dir": str(tmp_path), "cert": str(tmp_path / "c.pem"),
            "key": str(tmp_path / "k.pem"), "allow": list(parse_allow("10.231.0.2,192.168.1.0/24,fd00::/64"))}
    (tmp_path / "front.json").write_text(json.dumps(conf))
    front = Front(str(tmp_path / "front.json"))
    for host in ("127.0.0.1", "127.3.4.5", "::1", "10.231.0.2", "192.168.1.200", "::ffff:192.168.1.9", "fd00::7"):
        assert front.admits(host), host
    for host in ("10.231.0.3", "192.168.2.1", "8.8.8.8", "fd01::1", "::ffff:10.0.0.1"):
        assert not front.admits(host), host
    conf["allow"] = []  # a new --allow list is read on the next connection, no restart
    (tmp_path / "front.json").write_text(json.dumps(conf))
    os.utime(tmp_path / "front.json", (time.time() + 5, time.time() + 5))
    front.refresh()
    assert not front.admits("10.231.0.2") and front.admits("127.0.0.1")


def invite(**changes) -> Invite:
    ca_pem, _key = make_ca("test")
    fields = {"host": "10.231.0.1", "port": 5432, "database": "trove", "person": "alice",
              "token": "tok-" + "x" * 20, "ca_der": pem_to_der(ca_pem), "expires": time.time() + 3600}
    return Invite(**{**fields, **changes})


def test_an_invite_round_trips_and_stays_short():
    made = invite()
    text = encode(made)
    assert text.startswith(PREFIX) and "\n" not in text and len(text) < 900
    back = decode("  " + text[:40] + "\n" + text[40:] + "\n")  # pasted from a mail, wrapped
    assert back == Invite(**{**made.__dict__, "expires": float(int(made.expires))})
    assert not back.expired() and back.expired(now=made.expires + 1)


@pytest.mark.parametrize("bad", ["postgresql://trove@host/db", PREFIX + "not-base64!!", PREFIX + "e30"])
def test_a_damaged_invite_is_one_line(bad):
    with pytest.raises(InviteError) as err:
        decode(bad)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("field, value", [
    ("host", "evil\x1b]0;pwned\x07.example"), ("host", "h@x:1/db?sslmode=disable"), ("host", "a\nb"),
    ("database", "trove?sslmode=disable"), ("database", "lib\x1b[2J"), ("person", "Alice\x9b31m"),
    ("person", "a:b"), ("token", "tok\x1b[0m"), ("port", 0)])
def test_an_invite_with_escapes_or_url_syntax_in_a_field_is_refused(field, value):
    with pytest.raises(InviteError, match="not made by `trove server invite`") as err:
        decode(encode(invite(**{field: value})))
    assert "\x1b" not in str(err.value) and "\n" not in str(err.value)
    assert decode(encode(invite(host="fe80::1"))).host == "fe80::1"  # IPv6, bare, is a host


def test_an_expired_invite_is_refused_before_any_connection(tmp_path):
    old = encode(invite(expires=time.time() - 60, host="192.0.2.1"))  # TEST-NET: nothing is ever sent there
    with pytest.raises(InviteError, match="expired on .*trove server rotate alice"):
        joining.join(tmp_path, old)
    assert not list(tmp_path.rglob("pgpass"))


def test_person_names_become_role_names():
    assert role_name("Alice") == role_name("trove_p_alice") == "trove_p_alice"
    for bad in ("", "a b", "x" * 41, "bob;drop", "é"):
        with pytest.raises(RoleError):
            role_name(bad)


@pytest.mark.parametrize(("raw", "shown"), [
    ("postgresql://trove:s3cret@host:5432/db?sslmode=verify-full", "postgresql://trove:***@host:5432/db?sslmode=verify-full"),
    ("postgresql://trove@host/db?password=s3cret&sslmode=require", "postgresql://trove@host/db?password=***&sslmode=require"),
    ("host=h user=trove password=s3cret dbname=db", "host=h user=trove password=*** dbname=db"),
    ("host=h password = 's3 cret\\'x' dbname=db", "host=h password = *** dbname=db"),
    ("host=h sslpassword=s3cret", "host=h sslpassword=***"),
    ("postgresql://u:p%40ss@h/db", "postgresql://u:***@h/db"),
    ("postgresql://trove@host/db?passfile=/home/a/team/pgpass", "postgresql://trove@host/db?passfile=/home/a/team/pgpass"),
])
def test_redact_hides_every_form_of_password(raw, shown):
    assert redact(raw) == shown
    assert "s3" not in redact(raw) and "p%40ss" not in redact(raw)


class FakeError(Exception):
    sqlstate = None


@pytest.mark.parametrize(("libpq", "says"), [
    ("server does not support SSL, but SSL was required", "does not offer TLS"),
    ('connection to server at "10.0.0.1", port 5432 failed: SSL error: certificate verify failed',
     "CA in your invite did not sign"),
    ('server certificate for "other" does not match host name "10.0.0.1"', "CA in your invite did not sign"),
    ('FATAL:  no pg_hba.conf entry for host "10.231.9.2", user "trove_p_a", database "trove", SSL encryption',
     "--allow 10.231.9.2/32"),
    ('FATAL:  pg_hba.conf rejects connection for host "10.0.0.2", user "u", database "d", no encryption',
     "accepts only TLS"),
    ('authentication method requirement "scram-sha-256" failed: server requested a cleartext password',
     "only SCRAM with channel binding"),
    ('FATAL:  role "trove_p_bob" is not permitted to log in', "no longer lets this person sign in"),
    ("connection to server at 10.0.0.1 port 5432 failed: Connection timed out", "firewall may block"),
])
def test_connection_failures_are_one_line_each(libpq, says):
    known = translate_connect_error(FakeError(libpq), "postgresql://u:pw@10.0.0.1:5432/trove")
    assert says in str(known) and "\n" not in str(known) and ":pw@" not in str(known)


def test_the_password_file_round_trips_odd_characters(tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    made = invite(host="h", database="db:1")
    passfile = folder / "pgpass"
    line = ":".join(joining._pgpass_field(f) for f in ("h", "5432", "db:1", "trove_p_alice", "pa:ss\\w"))
    joining._write_private(passfile, (line + "\n").encode())
    assert passfile.stat().st_mode & 0o777 == 0o600
    url = joining.library_url(made, folder / "ca.crt", passfile)
    assert "passfile=" in url and "sslmode=verify-full" in url and "channel_binding=require" in url
    assert redact(url) == url  # nothing secret in it
    full = joining.url_with_password(url)
    assert "passfile" not in full and full.startswith("postgresql://trove_p_alice:pa%3Ass%5Cw@h:5432/db%3A1?")


def test_the_server_certificate_names_its_addresses_and_is_renewed_for_new_ones():
    ca_pem, ca_key = make_ca("office")
    cert, _key = make_server_cert(ca_pem, ca_key, ["10.231.0.1", "office-server", "localhost", "::1"])
    assert cert_names(cert) == {"10.231.0.1", "office-server", "localhost", "::1"}
    assert not needs_renewal(cert, ["10.231.0.1", "localhost"])
    assert needs_renewal(cert, ["10.231.0.1", "192.168.1.5"])
    assert pem_to_der(der_to_pem(pem_to_der(ca_pem))) == pem_to_der(ca_pem)


def test_an_unknown_role_gets_the_same_salt_at_every_try_as_a_real_one_does(tmp_path):
    from desktop_app.core.store.postgres.access.scram import ScramExchange

    ca_pem, ca_key = make_ca("t")
    cert, key = make_server_cert(ca_pem, ca_key, ["127.0.0.1"])
    (tmp_path / "c.pem").write_bytes(cert)
    (tmp_path / "k.pem").write_bytes(key)
    conf = {"listen": "127.0.0.1", "port": 1, "socket_dir": str(tmp_path), "cert": str(tmp_path / "c.pem"),
            "key": str(tmp_path / "k.pem"), "allow": []}
    (tmp_path / "front.json").write_text(json.dumps(conf))

    def salt_shown(front: Front, user: str) -> str:
        exchange = ScramExchange(None, front.binding, front.mock_salt(user))  # what authenticate() builds
        return exchange.first("p=tls-server-end-point,,n=,r=clientnonce").split(",s=")[1].split(",")[0]

    first, restarted = Front(str(tmp_path / "front.json")), Front(str(tmp_path / "front.json"))
    ghost = salt_shown(first, "trove_p_ghost")
    assert ghost == salt_shown(first, "trove_p_ghost") == salt_shown(restarted, "trove_p_ghost")
    assert salt_shown(first, "trove_p_ghost") != salt_shown(first, "trove_p_other")
