"""The text boundary of every server connection: strings go in through `to_server`, come back through `from_db`.

The same contract as the SQLite engine's textcodec: a file name with an undecodable byte is a `str` holding a
lone surrogate, which no UTF-8 database can store, so `pathnames.to_db` escapes it reversibly on the way in
and `from_db` restores it on the way out. PostgreSQL also refuses NUL in text (SQLite keeps it): NUL is
dropped on the way in, since nothing Trove stores means anything by it. Both happen in psycopg's adapters,
registered on each connection, for every parameter and every text value read, and for the strings inside
JSON values (chat citations hold paths). Text without a surrogate, NUL or the escape character passes as is.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg.types.json import set_json_dumps, set_json_loads
from psycopg.types.string import StrBinaryDumper, StrDumperUnknown, TextBinaryLoader, TextLoader

from desktop_app.core.pathnames import ESC, from_db, to_db


def to_server(text: str) -> str:
    """A text PostgreSQL can store: lone surrogates escaped (reversibly), NUL characters dropped."""
    if text.isascii():
        return text.replace("\x00", "") if "\x00" in text else text
    return to_db(text).replace("\x00", "")


def _from_server(text: str) -> str:
    return from_db(text) if ESC in text else text


def map_strings(value: Any, fn: Any) -> Any:
    """`value` (parsed JSON) with `fn` applied to every string in it, keys included."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, dict):
        return {map_strings(k, fn): map_strings(v, fn) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [map_strings(v, fn) for v in value]
    return value


class _TextDumper(StrDumperUnknown):
    def dump(self, obj: str) -> bytes:
        return super().dump(to_server(obj))  # type: ignore[return-value]


class _BinaryTextDumper(StrBinaryDumper):
    def dump(self, obj: str) -> bytes:
        return super().dump(to_server(obj))  # type: ignore[return-value]


class _TextLoader(TextLoader):
    def load(self, data: Any) -> Any:
        text = super().load(data)
        return _from_server(text) if isinstance(text, str) else text


class _BinaryTextLoader(TextBinaryLoader):
    def load(self, data: Any) -> Any:
        text = super().load(data)
        return _from_server(text) if isinstance(text, str) else text


def _dumps(value: Any) -> str:
    return json.dumps(map_strings(value, to_server))


def _loads(data: str | bytes) -> Any:
    return map_strings(json.loads(data), _from_server)


def register_text_codec(conn: psycopg.Connection) -> None:
    """Make every str parameter and text value of `conn` go through the boundary above."""
    adapters = conn.adapters
    adapters.register_dumper(str, _BinaryTextDumper)
    adapters.register_dumper(str, _TextDumper)  # registered last: the default, as psycopg's own default is
    for name in ("text", "varchar", "name"):
        adapters.register_loader(name, _TextLoader)
        adapters.register_loader(name, _BinaryTextLoader)
    set_json_dumps(_dumps, conn)
    set_json_loads(_loads, conn)
