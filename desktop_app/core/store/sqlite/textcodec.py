"""The text boundary of every connection: strings go in through `pathnames.to_db`, come out through `from_db`.

A file name with an undecodable byte is a Python `str` holding a lone surrogate, which SQLite cannot bind
("surrogates not allowed"). Doing the escaping here, for every parameter and every text value read, keeps
the rest of Trove working with real OS paths, and keeps the stored text valid UTF-8. Text without a
surrogate or the escape character (all but a handful of file names) passes through untouched; the cost is a
Python call per statement and per text value (bench/index_keyword.py measures it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import sqlean as sqlite3

from desktop_app.core.pathnames import ESC, from_db, to_db


def encode_params(params: Any) -> Any:
    """Parameters with every str made bindable; the same object when nothing needed it (the usual case)."""
    if isinstance(params, dict):
        return {k: to_db(v) if isinstance(v, str) else v for k, v in params.items()}
    if not any(type(p) is str and not p.isascii() for p in params):
        return params
    return tuple(to_db(p) if isinstance(p, str) else p for p in params)


def text_from_db(raw: bytes) -> str:
    """A text value as read: UTF-8 (a damaged byte becomes U+FFFD instead of an error), then un-escaped."""
    text = raw.decode("utf-8", "replace")
    return from_db(text) if ESC in text else text


class CodecConnection(sqlite3.Connection):
    """A sqlean connection whose parameters pass through `encode_params` (pair it with `text_from_db`)."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return super().execute(sql, encode_params(parameters))

    def executemany(self, sql: str, seq: Iterable[Any], /) -> sqlite3.Cursor:
        return super().executemany(sql, (encode_params(p) for p in seq))
