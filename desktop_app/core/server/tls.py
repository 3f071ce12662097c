"""The server's own certificate authority and TLS certificate (made at init with the `cryptography` package).

The CA (ECDSA P-256, ten years) is made once per server and never leaves DATA/tls except as its certificate,
which invites carry: a desktop pins it (`sslrootcert`), so a server that did not get its certificate from
this CA -- another machine on the address, or the server set up again -- is refused. The server certificate
is re-issued from the same CA whenever it lacks a name clients use, so clients never need a new invite for it.
Every file is 0600 and belongs to the server's user.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import socket
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from desktop_app.core.server.process import write_private

CA_YEARS = 10
SERVER_DAYS = 5 * 365
RENEW_DAYS = 30
WILDCARDS = ("0.0.0.0", "::", "*", "")


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def make_ca(label: str) -> tuple[bytes, bytes]:
    """A new CA: (certificate PEM, private key PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    name = _name(f"Trove CA {label}"[:64])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=365 * CA_YEARS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def _alt_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def make_server_cert(ca_pem: bytes, ca_key_pem: bytes, names: list[str]) -> tuple[bytes, bytes]:
    """A server certificate for `names` (host names and addresses) signed by the CA: (cert PEM, key PEM)."""
    ca = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(names[0][:64])).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
            .add_extension(x509.SubjectAlternativeName([_alt_name(n) for n in names]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def cert_names(cert_pem: bytes) -> set[str]:
    """The names and addresses a certificate is valid for."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    try:
        alt = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    return {str(n) for n in alt.get_values_for_type(x509.DNSName)} | {
        str(a) for a in alt.get_values_for_type(x509.IPAddress)}


def needs_renewal(cert_pem: bytes, names: list[str]) -> bool:
    """The certificate lacks one of `names` or expires within RENEW_DAYS."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(days=RENEW_DAYS)
    return bool(set(names) - cert_names(cert_pem)) or cert.not_valid_after_utc < soon


def pem_to_der(pem: bytes) -> bytes:
    return x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)


def der_to_pem(der: bytes) -> bytes:
    return x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM)


def fingerprint(pem: bytes) -> str:
    """SHA-256 of the certificate, as people compare them (AB:CD:…)."""
    digest = hashlib.sha256(pem_to_der(pem)).hexdigest().upper()
    return ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))


def server_names(listen: str, extra: tuple[str, ...] = ()) -> list[str]:
    """What the server certificate must name: the listen address(es), this machine's names, loopback."""
    names: list[str] = []
    hostname = socket.gethostname()
    for name in [*(a.strip() for a in listen.split(",")), *extra, hostname, socket.getfqdn(), "localhost",
                 "127.0.0.1", "::1"]:
        if name and name not in WILDCARDS and name not in names:
            names.append(name)
    return names


class ServerTLS:
    """The CA (DATA/tls/ca.key, DATA/ca.crt) and the server's certificate (pgdata/server.crt, server.key)."""

    def __init__(self, data: Path, cluster: Path) -> None:
        self.ca_cert = data / "ca.crt"
        self.ca_key = data / "tls" / "ca.key"
        self.cert = cluster / "server.crt"
        self.key = cluster / "server.key"

    def ensure(self, names: list[str], user: str | None) -> bool:
        """Make the CA (first time) and a server certificate covering `names`; True when a file changed."""
        from desktop_app.core.server.process import own

        changed = False
        if not self.ca_key.exists() or not self.ca_cert.exists():
            self.ca_key.parent.mkdir(exist_ok=True)
            # The CA stays ours (root's, as root): neither PostgreSQL nor the front needs its key.
            own(self.ca_key.parent, None, reach=False)
            ca_pem, ca_key_pem = make_ca(socket.gethostname())
            write_private(self.ca_key, ca_key_pem, None)
            write_private(self.ca_cert, ca_pem, None)
            changed = True
        if changed or not self.cert.exists() or needs_renewal(self.cert.read_bytes(), names):
            if self.cert.exists():  # keep the names clients were already given (an invite's --host)
                names = names + sorted(cert_names(self.cert.read_bytes()) - set(names))
            cert_pem, key_pem = make_server_cert(self.ca_cert.read_bytes(), self.ca_key.read_bytes(), names)
            write_private(self.key, key_pem, user)
            write_private(self.cert, cert_pem, user)
            changed = True
        return changed

    def ca_pem(self) -> bytes:
        return self.ca_cert.read_bytes()
