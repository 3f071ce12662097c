"""Who may connect, from where, and how.

On the network (the TLS front, front.py): TLS and a SCRAM password with channel binding only, from loopback
and exactly the networks given with `--allow`; without TLS, or from anywhere else, refused. PostgreSQL itself
listens on no TCP port; its pg_hba.conf admits only its Unix socket, whose folder is made fresh (mkdtemp) at
every start, belongs to the server's user with mode 0700 and is checked before use: only the front (which has
signed the person in already) and `trove server` on this machine can reach it, so `trust` there reaches
nobody else. No rule anywhere admits a network without TLS and a password.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

from desktop_app.core.errors import KnownError
from desktop_app.core.server.process import write_private

LOOPBACK = ("127.0.0.1/32", "::1/128")
HBA = """# Written by `trove server start` and replaced at every start.
# PostgreSQL listens on no TCP port: only its Unix socket, in a folder only the server's user can enter (0700).
# Network clients reach it through Trove's TLS front, which admits loopback and the --allow networks over TLS
# with a SCRAM password and channel binding, and refuses everything else.
local   all  all  trust
"""


class AllowError(KnownError):
    """An --allow value that is not a network."""


def parse_allow(text: str | None) -> tuple[str, ...]:
    """`10.0.0.0/24,192.168.1.7` -> the networks, normalised; "none" or "" -> loopback only."""
    if text is None or text.strip().lower() in ("", "none"):
        return ()
    networks: list[str] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            net = str(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise AllowError(f"--allow: {part!r} is not an address or a network (e.g. 192.168.1.0/24)") from None
        if net not in networks and net not in LOOPBACK:
            networks.append(net)
    return tuple(networks)


def write_hba(cluster: Path, user: str | None) -> bool:
    """Write the cluster's pg_hba.conf; True when it changed."""
    path = cluster / "pg_hba.conf"
    try:
        if path.read_text(encoding="utf-8") == HBA:
            return False
    except OSError:
        pass
    write_private(path, HBA.encode("utf-8"), user)
    return True
