"""Regenerate resources/sample_docs/solar-system.pdf (three pages, so search results show page numbers).

Run: .venv/bin/python resources/tools/make_sample_pdf.py
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

PAGES = [
    ("The Solar System at a glance",
     "The Solar System formed about 4.6 billion years ago from the collapse of a cloud of gas and dust. "
     "The Sun holds 99.86 percent of its mass. Eight planets orbit the Sun: the four rocky inner planets "
     "Mercury, Venus, Earth and Mars, and the four giant outer planets Jupiter, Saturn, Uranus and Neptune. "
     "Between Mars and Jupiter lies the asteroid belt; beyond Neptune, the Kuiper belt holds icy bodies "
     "such as the dwarf planet Pluto.\n\n"
     "Distances in the Solar System are measured in astronomical units (AU). One AU is the mean distance "
     "from Earth to the Sun, about 150 million kilometres. Light from the Sun takes about 8 minutes and "
     "20 seconds to reach Earth."),
    ("The inner planets",
     "Mercury is the smallest planet and the closest to the Sun; a year there lasts only 88 Earth days. "
     "Venus is the hottest planet, with a surface temperature of about 465 degrees Celsius, because its "
     "thick carbon dioxide atmosphere traps heat in a runaway greenhouse effect. Earth is the only planet "
     "known to have liquid water on its surface and life. Mars is a cold desert world with the largest "
     "volcano in the Solar System, Olympus Mons, about 22 kilometres high.\n\n"
     "The inner planets are called terrestrial planets because they have solid, rocky surfaces. They have "
     "few moons: Earth has one and Mars has two small ones, Phobos and Deimos."),
    ("The giant planets",
     "Jupiter is the largest planet: more than 1,300 Earths would fit inside it. Its Great Red Spot is a "
     "storm larger than Earth that has raged for centuries. Saturn is famous for its bright rings, made "
     "mostly of water ice. Jupiter and Saturn are gas giants, composed mainly of hydrogen and helium.\n\n"
     "Uranus and Neptune are ice giants, rich in water, ammonia and methane ices. Uranus rotates on its "
     "side, with an axial tilt of about 98 degrees, probably after an ancient collision. Neptune has the "
     "fastest winds measured in the Solar System, above 2,000 kilometres per hour. All four giant planets "
     "have ring systems and many moons; Saturn and Jupiter each have more than ninety."),
]


def build(out: Path) -> None:
    pdf = FPDF(unit="mm", format=(148, 210))
    pdf.set_title("The Solar System")
    pdf.set_author("Trove sample documents")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))  # fixed, so rebuilding changes nothing
    for title, body in PAGES:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(0, 9, title)
        pdf.ln(3)
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, body)
    pdf.output(str(out))


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[1] / "sample_docs" / "solar-system.pdf"
    build(target)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
