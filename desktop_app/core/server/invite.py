"""Invites: what a new desktop needs to join a team library, in one short string.

`trove1:` + base64url(JSON, a zero byte, the server's CA certificate in DER). The JSON has the server's host,
port and database, the person's name, a one-time token (the role's password until the invite is accepted; the
role's VALID UNTIL ends it at `expires`) and that date; the desktop pins the CA. Accepting (`trove join`)
replaces the token with a password only the desktop knows, so a second use of the same invite is refused by
the server itself.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from dataclasses import dataclass

from desktop_app.core.errors import KnownError

PREFIX = "trove1:"
# What an invite's fields may hold: whoever wrote it could put terminal escapes, URL or pgpass syntax in them, and
# they are printed, put in a URL and written to the password file. A host name or an IP address (v6 bare, as
# `trove server invite` writes it), a database name without control or URL characters, a person's name.
_HOST = re.compile(r"[A-Za-z0-9._\-:]{1,253}")
_DATABASE = re.compile(r"[A-Za-z0-9_\-]{1,63}")
_PERSON = re.compile(r"[a-z0-9_]{1,40}")


class InviteError(KnownError):
    """An invite that is malformed, expired, already used or revoked."""


@dataclass(frozen=True)
class Invite:
    host: str
    port: int
    database: str
    person: str
    token: str
    ca_der: bytes
    expires: float  # seconds since the epoch

    def expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.expires


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def encode(invite: Invite) -> str:
    """The invite as one line to paste."""
    body = {"h": invite.host, "p": invite.port, "d": invite.database, "u": invite.person, "t": invite.token,
            "e": int(invite.expires)}
    return PREFIX + _b64(json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\0" + invite.ca_der)


def decode(text: str) -> Invite:
    """An invite from its string (surrounding whitespace and line breaks from a mail are ignored)."""
    text = "".join(text.split())
    if not text.startswith(PREFIX):
        raise InviteError(f"This is not a Trove invite (it starts with {PREFIX!r}; `trove server invite NAME` "
                          "prints one).")
    try:
        head, _, ca_der = _unb64(text[len(PREFIX):]).partition(b"\0")
        body = json.loads(head)
        if not ca_der:
            raise ValueError("no certificate")
        made = Invite(host=str(body["h"]), port=int(body["p"]), database=str(body["d"]), person=str(body["u"]),
                      token=str(body["t"]), ca_der=ca_der, expires=float(body["e"]))
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InviteError("This invite is damaged or incomplete: copy the whole line again.") from None
    if not (_HOST.fullmatch(made.host) and _DATABASE.fullmatch(made.database) and _PERSON.fullmatch(made.person)
            and 0 < made.port < 65536 and made.token.isprintable()):
        raise InviteError("This invite holds a server, library or person name no Trove server writes: it was not "
                          "made by `trove server invite`; ask its administrator for a new one.")
    return made


def expired_message(invite: Invite) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(invite.expires))
    return (f"This invite for {invite.person!r} expired on {when}: ask the server's administrator for a new one "
            f"(`trove server rotate {invite.person}`).")


def refused_message(invite: Invite) -> str:
    return (f"The server refused this invite for {invite.person!r}: it was already used, has expired or was "
            f"revoked. Ask the server's administrator for a new one (`trove server rotate {invite.person}`).")
