"""Credentials out of anything shown or logged: a connection URL's password, `?password=` in its query string, and
`password=` in key/value conninfo, replaced by ***. Used by the log formatter (core/log.py), every message that
names a server, and the CLI; pure string functions, no engine imported."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# `password=…` in a URL's query string or in key/value conninfo (quoted or not)
_PASSWORD_PARAM = re.compile(r"(?i)(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)")


def redact(url: str) -> str:
    """The connection string with any password replaced by ***, safe to log and show: the URL's user:password,
    `?password=` in its query, and `password=` in key/value conninfo."""
    url = _PASSWORD_PARAM.sub(r"\1***", url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://…"
    if parts.password is None or "@" not in parts.netloc:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return parts._replace(netloc=f"{user}:***@{hostport}").geturl()
