"""Titles by fixed rules: Markdown front matter (YAML or TOML) before the first heading."""

from __future__ import annotations

import pytest

from desktop_app.core.text.titles import markdown_title


@pytest.mark.parametrize(("text", "title"), [
    ("---\ntitle: 'Front Matter Title'\ndate: 2024\n---\n# Heading\n", "Front Matter Title"),
    ('+++\ntitle = "Hugo Page"\n+++\nbody', "Hugo Page"),
    ("---\nauthor: x\n---\n# The Heading\nbody", "The Heading"),
    ("# Plain heading\ntext", "Plain heading"),
    ("no title at all", ""),
])
def test_markdown_title(text, title):
    assert markdown_title(text) == title
