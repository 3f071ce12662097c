"""Bytes become document text in one module: core/text/decode.py. Nothing else guesses an encoding, reads a byte
order mark or sniffs for a binary, so every format reads a file the same way."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[3] / "desktop_app"
HOME = "core/text/decode.py"
# XML has its own rules for its encoding (BOM, then the declaration); the entity check must read a member the
# way the XML parser will, not the way a person's text file is guessed.
XML_RULES = "core/ingest/xmlguard.py"
DETECTORS = {"charset_normalizer", "chardet", "cchardet", "ftfy"}
DECODER_NAMES = {"decode_text", "decode_bytes", "choose_encoding", "sniff_encoding", "detect_encoding",
                 "guess_encoding", "looks_binary", "is_binary"}
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


def decoder_parts(tree: ast.AST) -> list[str]:
    """What in a module's source is a text decoder's work, each as a short description with its line."""
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"{line}: imports {n}" for n in names if n.split(".")[0] in DETECTORS]
        elif isinstance(node, ast.FunctionDef) and node.name in DECODER_NAMES:
            found.append(f"{line}: defines {node.name}()")
        elif isinstance(node, ast.Attribute) and (node.attr.startswith("BOM") or node.attr == "getincrementaldecoder"):
            found.append(f"{line}: uses codecs.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes) and node.value.startswith(BOMS):
            found.append(f"{line}: a byte order mark literal")
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) and node.left.value == b"\x00"
              and isinstance(node.ops[0], ast.In)):
            found.append(f"{line}: sniffs for NUL bytes")
    return found


def offenders() -> dict[str, list[str]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        parts = decoder_parts(ast.parse(path.read_text(encoding="utf-8")))
        if where == XML_RULES:
            parts = [p for p in parts if "codecs." not in p]  # its BOM table and incremental decoder, nothing else
        if parts and where != HOME:
            out[where] = parts
    return out


def test_only_one_module_defines_a_text_decoder():
    assert offenders() == {}


def test_the_home_is_what_the_check_recognises():
    """The check would see a decoder: it sees every kind of part in the one real decoder."""
    parts = " ".join(decoder_parts(ast.parse((PACKAGE / HOME).read_text(encoding="utf-8"))))
    for kind in ("imports charset_normalizer", "defines decode_text()", "defines looks_binary()",
                 "uses codecs.BOM_UTF8", "uses codecs.getincrementaldecoder", "sniffs for NUL bytes"):
        assert kind in parts


def test_the_check_finds_a_second_decoder_and_a_bom_literal():
    second = ast.parse('def decode_bytes(raw):\n    if raw.startswith(b"\\xff\\xfe"):\n        pass\n'
                       '    return b"\\x00" in raw\n')
    parts = " ".join(decoder_parts(second))
    assert "defines decode_bytes()" in parts and "byte order mark" in parts and "NUL" in parts
