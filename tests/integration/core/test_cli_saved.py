"""`trove saved list | add | rename | remove` and `trove search --saved NAME`, as a person runs them (subprocesses
over a real library): a saved query with filters runs as typed, typed words narrow it, mistakes are one line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.core.test_cli import trove


def names(proc) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return sorted(Path(r["source"]).name for r in json.loads(proc.stdout))


def test_save_list_run_rename_and_remove_a_search(tmp_path):
    docs = tmp_path / "docs"
    (docs / "Invoices").mkdir(parents=True)
    (docs / "launch.md").write_text("---\ndate: 2024-03-14\ntags: [launch]\n---\nThe lighthouse launch plan.\n",
                                    encoding="utf-8")
    (docs / "Invoices" / "acme.txt").write_text("Invoice 2023-11-02\nLighthouse lamp repairs.\n", encoding="utf-8")
    (docs / "Invoices" / "globex.txt").write_text("Invoice 2024-06-01\nLighthouse paint.\n", encoding="utf-8")
    home = tmp_path / "home"
    assert trove(home, "index", str(docs)).returncode == 0

    listed = trove(home, "saved", "list")
    assert listed.returncode == 0 and "no saved searches" in listed.stdout
    added = trove(home, "saved", "add", "Bills", "folder:Invoices lighthouse")
    assert added.returncode == 0 and "saved “Bills”: folder:Invoices lighthouse" in added.stdout
    assert trove(home, "saved", "add", "Launch", "tag:launch").returncode == 0
    listed = trove(home, "saved", "list", "--json")
    assert json.loads(listed.stdout) == [{"name": "Bills", "query": "folder:Invoices lighthouse"},
                                         {"name": "Launch", "query": "tag:launch"}]

    search = ("search", "--mode", "keyword", "--json")
    assert names(trove(home, *search, "--saved", "bills")) == ["acme.txt", "globex.txt"]
    assert names(trove(home, *search, "--saved", "Bills", "after:2024")) == ["globex.txt"]  # typed words narrow it
    assert names(trove(home, *search, "--saved", "Launch")) == ["launch.md"]

    taken = trove(home, "saved", "add", "bills", "anything")
    assert taken.returncode == 1 and taken.stderr.strip() == "trove: There is already a saved search called “Bills”."
    assert trove(home, "saved", "add", "bills", "paint", "--replace").returncode == 0
    assert names(trove(home, *search, "--saved", "Bills")) == ["globex.txt"]
    assert trove(home, "saved", "rename", "Bills", "Paint").returncode == 0
    assert trove(home, "saved", "remove", "launch").stdout.strip() == "removed “Launch”"
    assert [s["name"] for s in json.loads(trove(home, "saved", "list", "--json").stdout)] == ["Paint"]

    missing = trove(home, *search, "--saved", "Launch")
    assert missing.returncode == 1 and missing.stderr.strip() == "trove: No saved search called “Launch”."
    nothing = trove(home, "search")
    assert nothing.returncode == 2 and "--saved NAME" in nothing.stderr
