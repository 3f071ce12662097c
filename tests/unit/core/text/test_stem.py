"""The index and the query must stem alike: PyStemmer's C Porter and the pure-Python Snowball one agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

import Stemmer
from snowballstemmer.porter_stemmer import PorterStemmer

from desktop_app.core.text import stem

SAMPLES = Path(__file__).resolve().parents[4] / "resources" / "sample_docs"


def words() -> list[str]:
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in SAMPLES.glob("*") if p.suffix != ".pdf")
    extra = "running runs ran generalizations connective relational hopefully conditional digitizer oscillators"
    return sorted({w for w in re.findall(r"[a-z]+", (text + " " + extra).lower()) if len(w) > 2})


def test_the_c_and_python_porter_stemmers_agree():
    c, py = Stemmer.Stemmer("porter"), PorterStemmer()
    sample = words()
    assert len(sample) > 300
    assert [c.stemWord(w) for w in sample] == [py.stemWord(w) for w in sample]


def test_the_pipeline_stems_with_the_c_build():
    assert type(stem._new_porter()).__module__ == "Stemmer"
    assert stem.stem("generalizations") == PorterStemmer().stemWord("generalizations") == "gener"
    assert json.dumps(stem.stem("running")) == '"run"'
