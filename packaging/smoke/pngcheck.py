"""Check that a screenshot is a real picture of the window: a PNG of the expected size that is not blank.

    python3 packaging/smoke/pngcheck.py SHOT.png 1400x860

Standard library only (the smoke test runs it with the system's python3, outside the venv). Prints one line:
the size, the number of distinct colours and the share of the most common one; exits 1 when the file is not a
PNG, has another size, or is blank (fewer than 16 colours, or one colour covering more than 97% of the pixels:
an unmapped or black window grabs as a flat rectangle).
"""

from __future__ import annotations

import struct
import sys
import zlib
from collections import Counter

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path: str) -> tuple[int, int, int, list[bytes]]:
    """(width, height, bytes per pixel, unfiltered rows) of an 8-bit, non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour, _c, _f, interlace = header
    if depth != 8 or interlace or colour not in CHANNELS:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((x + p) & 0xFF for x, p in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                upleft = prev[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + _paeth(left, prev[i], upleft)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: pngcheck.py SHOT.png WIDTHxHEIGHT", file=sys.stderr)
        return 2
    path, want = argv[1], tuple(int(n) for n in argv[2].lower().split("x"))
    try:
        width, height, bpp, rows = read_png(path)
    except (OSError, ValueError, zlib.error, struct.error) as exc:
        print(f"{path}: {exc}")
        return 1
    colours: Counter[bytes] = Counter()
    for row in rows[::2]:  # every other row: plenty to tell a window from a flat rectangle
        colours.update(row[i:i + bpp] for i in range(0, len(row), bpp * 2))
    top = colours.most_common(1)[0][1] / sum(colours.values())
    print(f"{width}x{height}, {len(colours)} colours, the most common covers {top:.0%}")
    if (width, height) != want:
        print(f"{path}: expected {want[0]}x{want[1]}")
        return 1
    if len(colours) < 16 or top > 0.97:
        print(f"{path}: the picture is blank")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
