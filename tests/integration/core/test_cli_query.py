"""`trove search` speaks the query language: filters, phrases, exclusions, dates and tags from the files
themselves, and a malformed part searched as words (exit 0, never an error)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.core.test_cli import trove


def names(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return sorted(Path(hit["source"]).name for hit in json.loads(result.stdout))


def test_trove_search_with_the_query_language(tmp_path):
    docs = tmp_path / "docs"
    (docs / "Invoices").mkdir(parents=True)
    (docs / "launch.md").write_text("---\ndate: 2024-03-14\ntags: [launch]\n---\nThe lighthouse launch plan, "
                                    "final version.\n", encoding="utf-8")
    (docs / "Invoices" / "acme.txt").write_text("Invoice 2023-11-02\nLighthouse lamp repairs, draft.\n",
                                                encoding="utf-8")
    (docs / "notes.txt").write_text("Lighthouse keeper notes without a date.\n", encoding="utf-8")
    home = tmp_path / "home"
    assert trove(home, "index", str(docs)).returncode == 0

    def search(query):
        return names(trove(home, "search", query, "--mode", "keyword", "--json"))

    assert search("lighthouse") == ["acme.txt", "launch.md", "notes.txt"]
    assert search("lighthouse tag:launch") == ["launch.md"]
    assert search("lighthouse tag:invoices") == ["acme.txt"]  # a folder name is a tag
    assert search("lighthouse date:2023-11") == ["acme.txt"]  # the date in its first line
    assert search("lighthouse before:2024-04 type:md") == ["launch.md"]
    assert search("lighthouse -draft file:.txt") == ["notes.txt"]
    assert search('"launch plan"') == ["launch.md"]
    assert search("after:banana lighthouse") == ["acme.txt", "launch.md", "notes.txt"]  # words, not a filter
    printed = trove(home, "search", "lighthouse type:md")
    assert printed.returncode == 0 and "launch.md" in printed.stdout and "acme.txt" not in printed.stdout
    stats = trove(home, "stats")
    assert "dated documents: 2 (2023-11-02 to 2024-03-14; others by modified day)" in stats.stdout
    assert "tags: launch 1" in stats.stdout
