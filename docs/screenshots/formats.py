"""Render docs/screenshots/search-formats.png: one search over many formats, each result with its type badge and
its place (slide, chapter, sheet rows, message, cells), and an image read by OCR with its OCR mark.

Run from the repository root, under a display or Xvfb:
    xvfb-run -a -s "-screen 0 1400x900x24" \
        .venv/bin/python docs/screenshots/formats.py docs/screenshots/search-formats.png

The files are written with the same libraries the tests use (tests/support/sample_docs.py); the image is rendered text
that the OCR phase reads before the window opens.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from desktop_app.ui.app import run_gui  # noqa: E402
from tests.support import sample_docs as sd  # noqa: E402

WORD = "pangolin"


def write_folder(docs: Path) -> None:
    docs.mkdir()
    sd.write_pptx(docs / "conservation-talk.pptx", [("Why it matters", "Habitat loss"), ("Threats", "Trade routes"),
                                                    ("Pangolin", f"The {WORD} is the most trafficked mammal.")])
    sd.write_epub(docs / "field-guide.epub", [("Dawn", "Birds wake early."), ("Noon", "Lizards bask."),
                                              ("Night", f"The {WORD} forages at night for ants and termites.")],
                  title="Field guide")
    sd.write_xlsx(docs / "sightings.xlsx", {"Sightings": [["site", "species", "count"]]
                                            + [[f"north {i}", "deer", i] for i in range(70)]
                                            + [["ridge", WORD, 3]]})
    sd.write_mbox(docs / "field-team.mbox", [
        sd.make_email("Schedule", "Meeting moved to Friday."),
        sd.make_email("Camera trap results", f"Two {WORD} sightings near the ridge camera."),
    ])
    sd.write_ipynb(docs / "analysis.ipynb", [("markdown", "# Population analysis"),
                                             ("code", "import pandas as pd"),
                                             ("code", f"df = pd.read_csv('{WORD}_counts.csv')")])
    sd.write_odt(docs / "grant-proposal.odt", ["Summary", f"We will radio-tag {WORD} populations."],
                 title="Grant proposal")
    sd.write_text_image(docs / "whiteboard.png", ["Survey plan", f"Tag one {WORD} per site"])


def main(out: str) -> int:
    with tempfile.TemporaryDirectory(prefix="trove-formats-") as tmp:
        docs, home = Path(tmp) / "docs", Path(tmp) / "home"
        write_folder(docs)
        from desktop_app.core.library import Library

        with Library(home) as library:  # every phase done before the window opens, OCR included
            library.add_folder(docs)
            library.sync(wait=True)
            library.wait_idle(600)
        return run_gui(home=home, screenshot=out, query=WORD)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots/search-formats.png"))
