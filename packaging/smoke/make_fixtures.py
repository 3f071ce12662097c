"""Make the four small documents packaging/smoke_test.sh indexes with the frozen app (run once; the outputs are
committed, so the smoke test needs no Python of its own):

    .venv/bin/python packaging/smoke/make_fixtures.py

Each file carries one word no other file has, which keyword and hybrid search must find in it:

| file | word | made with |
|---|---|---|
| `notes.txt` | marmalade | plain UTF-8 |
| `report.pdf` | zeppelin | a hand-written one-page PDF (Helvetica text object): real text, no OCR needed |
| `letter.docx` | quokka | python-docx |
| `sign.png` | LIGHTHOUSE | Pillow, black text on white: only OCR can read it (the PNG has no text chunk) |
| `riverside.txt` | แม่น้ำ (river) | Thai without spaces: found only if ICU's word breaks (icu4py) work |
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "docs"


def text_file(path: Path) -> None:
    path.write_text("Grandmother's marmalade needs Seville oranges, sugar and a long slow boil.\n\n"
                    "Pour it into warm jars and seal them while hot.\n", encoding="utf-8")


def thai_file(path: Path) -> None:
    # "A small café by the river opens early every morning": one run of Thai letters, no spaces.
    path.write_text("ร้านกาแฟเล็กๆริมแม่น้ำเปิดตั้งแต่เช้าตรู่ทุกวัน\n", encoding="utf-8")


def pdf_file(path: Path) -> None:
    """A valid one-page PDF with a text object, written byte by byte (offsets computed for the xref table)."""
    lines = ["The zeppelin crossed the Atlantic in four days.", "Its hull held hydrogen in sixteen gas cells."]
    stream = "BT /F1 14 Tf 72 720 Td 18 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))


def docx_file(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Field trip", level=1)
    document.add_paragraph("On Rottnest Island we photographed a quokka smiling beside the ferry jetty.")
    document.core_properties.author = "Trove smoke test"
    document.save(str(path))


def png_file(path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    font_path = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")
    font = ImageFont.truetype(str(font_path), 56) if font_path.is_file() else ImageFont.load_default(size=56)
    image = Image.new("L", (760, 220), 255)
    draw = ImageDraw.Draw(image)
    draw.text((40, 40), "LIGHTHOUSE", font=font, fill=0)
    draw.text((40, 120), "keeper log", font=font, fill=0)
    image.save(path, optimize=True)


def main() -> int:
    OUT.mkdir(exist_ok=True)
    text_file(OUT / "notes.txt")
    pdf_file(OUT / "report.pdf")
    docx_file(OUT / "letter.docx")
    png_file(OUT / "sign.png")
    thai_file(OUT / "riverside.txt")
    for path in sorted(OUT.iterdir()):
        print(f"{path.stat().st_size:>7} {path.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
