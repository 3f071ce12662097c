"""The server side of SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677, channel binding tls-server-end-point, RFC 5929)
as PostgreSQL speaks it, checked against the verifier PostgreSQL stores (pg_authid.rolpassword).

Used by the TLS front (front.py), which ends TLS for a PostgreSQL build without it. Standard library only: the
front runs as a small script, without importing Trove.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

MECHANISM = "SCRAM-SHA-256-PLUS"


class ScramError(Exception):
    """The client's messages are malformed or its proof is wrong."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def parse_verifier(verifier: str | None, mock_salt: bytes | None = None) -> tuple[int, bytes, bytes, bytes]:
    """`SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>` -> (iterations, salt, stored key, server key).
    None or another kind of password: a random verifier nobody can match, with `mock_salt` (the same for the same
    name at every try, as a real role's salt is: a salt that changed would say the role is missing)."""
    try:
        assert verifier is not None and verifier.startswith("SCRAM-SHA-256$")
        head, keys = verifier[len("SCRAM-SHA-256$"):].split("$")
        iterations, salt = head.split(":")
        stored, server = keys.split(":")
        return int(iterations), base64.b64decode(salt), base64.b64decode(stored), base64.b64decode(server)
    except (AssertionError, ValueError):
        return 4096, mock_salt or secrets.token_bytes(16), secrets.token_bytes(32), secrets.token_bytes(32)


def end_point_hash(cert_der: bytes) -> bytes:
    """tls-server-end-point channel binding data: the certificate's hash (SHA-256 for our ECDSA-SHA256 cert)."""
    return hashlib.sha256(cert_der).digest()


class ScramExchange:
    """One SCRAM-SHA-256-PLUS exchange: first() answers the client's first message, final() checks its proof
    and returns the server's final message."""

    def __init__(self, verifier: str | None, binding: bytes, mock_salt: bytes | None = None) -> None:
        self.iterations, self.salt, self.stored_key, self.server_key = parse_verifier(verifier, mock_salt)
        self.binding = binding
        self.nonce = ""
        self.client_first_bare = ""
        self.server_first = ""
        self.gs2_header = ""

    def first(self, client_first: str) -> str:
        """client-first-message -> server-first-message."""
        parts = client_first.split(",", 2)
        if len(parts) != 3 or not parts[0].startswith("p=tls-server-end-point"):
            raise ScramError("channel binding tls-server-end-point is required")
        self.gs2_header = parts[0] + "," + parts[1] + ","
        self.client_first_bare = parts[2]
        attrs = dict(a.split("=", 1) for a in self.client_first_bare.split(",") if "=" in a)
        if not attrs.get("r"):
            raise ScramError("no client nonce")
        self.nonce = attrs["r"] + _b64(secrets.token_bytes(18))
        self.server_first = f"r={self.nonce},s={_b64(self.salt)},i={self.iterations}"
        return self.server_first

    def final(self, client_final: str) -> str:
        """client-final-message -> server-final-message (ScramError when the proof or binding is wrong)."""
        without_proof, _, proof_part = client_final.rpartition(",p=")
        attrs = dict(a.split("=", 1) for a in without_proof.split(",") if "=" in a)
        expected_c = _b64(self.gs2_header.encode() + self.binding)
        if not hmac.compare_digest(attrs.get("c", ""), expected_c):
            raise ScramError("channel binding does not match this server's certificate")
        if attrs.get("r") != self.nonce:
            raise ScramError("nonce mismatch")
        try:
            proof = base64.b64decode(proof_part, validate=True)
        except ValueError:
            raise ScramError("malformed proof") from None
        auth = f"{self.client_first_bare},{self.server_first},{without_proof}".encode()
        signature = hmac.new(self.stored_key, auth, hashlib.sha256).digest()
        if len(proof) != len(signature):
            raise ScramError("malformed proof")
        client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=True))
        if not hmac.compare_digest(hashlib.sha256(client_key).digest(), self.stored_key):
            raise ScramError("wrong password")
        return "v=" + _b64(hmac.new(self.server_key, auth, hashlib.sha256).digest())
