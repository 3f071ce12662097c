"""`trove` as a user runs it: a real subprocess, exit codes, JSON output."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path


def trove(home, *args, env_extra=None):
    env = {**os.environ, "TROVE_EMBEDDER": "hash", "HF_HUB_OFFLINE": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "desktop_app", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, timeout=300)


def test_index_twice_then_edit_then_delete(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"f{i}.txt").write_text(f"document number {i} about llamas{i}", encoding="utf-8")
    home = tmp_path / "home"

    first = json.loads(trove(home, "index", str(docs), "--json").stdout)
    assert (first["indexed"], first["unchanged"], first["failed"]) == (6, 0, 0)
    assert first["chunks"] == 6 and first["seconds"] >= 0

    second = json.loads(trove(home, "index", str(docs), "--json").stdout)
    assert (second["indexed"], second["unchanged"], second["bytes"]) == (0, 6, 0)  # nothing was even read

    edited = docs / "f3.txt"
    edited.write_text("now about alpacas instead", encoding="utf-8")
    os.utime(edited, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    third = json.loads(trove(home, "index", str(docs), "--json").stdout)
    assert (third["indexed"], third["unchanged"]) == (1, 5)
    hits = json.loads(trove(home, "search", "alpacas", "--mode", "keyword", "--json").stdout)
    assert [Path(h["source"]).name for h in hits] == ["f3.txt"]
    assert set(hits[0]) == {"content", "score", "source", "metadata"}
    assert json.loads(trove(home, "search", "llamas3", "--mode", "keyword", "--json").stdout) == []

    edited.unlink()
    fourth = json.loads(trove(home, "index", str(docs), "--json").stdout)
    assert fourth["removed"] == 1
    assert json.loads(trove(home, "search", "alpacas", "--json").stdout) == []
    stats = json.loads(trove(home, "stats", "--json").stdout)
    assert stats["documents"] == 5 and stats["chunks"] == 5


def test_stats_folders_remove_and_exit_codes(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    (docs / "ok.md").write_text("# fine\n\nfine words", encoding="utf-8")
    home = tmp_path / "home"
    assert trove(home, "index", str(docs)).returncode == 0
    stats = trove(home, "stats")
    assert stats.returncode == 0 and "bad.pdf" in stats.stdout and "corrupt" in stats.stdout
    assert str(docs) in trove(home, "folders").stdout

    missing = trove(home, "index", str(tmp_path / "missing"))
    assert missing.returncode == 1
    assert "Not a folder" in missing.stderr and "Traceback" not in missing.stderr

    usage = trove(home, "search")
    assert usage.returncode == 2

    assert trove(home, "remove", str(docs)).returncode == 0
    assert json.loads(trove(home, "stats", "--json").stdout)["documents"] == 0
    assert trove(home, "remove", str(docs)).returncode == 1


def test_newer_schema_opens_read_only_untouched(tmp_path):
    home = tmp_path / "home"
    assert trove(home, "stats").returncode == 0
    from desktop_app.core.store.sqlite.connect import connect

    conn = connect(home / "library.db")
    conn.execute("INSERT INTO migrations (id, name, applied_at) VALUES (999, 'from_the_future', 0)")
    conn.close()
    before = (home / "library.db").read_bytes()
    result = trove(home, "stats")
    assert result.returncode == 0
    assert result.stderr.startswith("trove: This library was written by a newer Trove (schema 999;")
    assert "read-only here" in result.stderr and "Traceback" not in result.stderr
    refused = trove(home, "index", str(tmp_path))
    assert refused.returncode == 1 and "newer Trove" in refused.stderr
    assert (home / "library.db").read_bytes() == before


def test_locked_database_is_a_clear_message(tmp_path):
    home = tmp_path / "home"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("locked out", encoding="utf-8")
    assert trove(home, "stats").returncode == 0
    from desktop_app.core.store.sqlite.connect import connect

    holder = connect(home / "library.db")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        result = trove(home, "index", str(docs), env_extra={"TROVE_BUSY_TIMEOUT_MS": "200"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 1
    assert "locked" in result.stderr and "Traceback" not in result.stderr


def test_help_is_fast_and_does_not_import_torch():
    code = ("import sys, desktop_app.cli as c\n"
            "try:\n    c.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('torch' in sys.modules, 'PySide6' in sys.modules, 'llama_cpp' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "False False False"


def test_broken_embedding_model_is_reported_not_hidden(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("still keyword searchable", encoding="utf-8")
    home = tmp_path / "home"
    broken = tmp_path / "no-model-here"
    broken.mkdir()
    env = {"TROVE_EMBEDDER": "minilm", "TROVE_EMBED_MODEL_DIR": str(broken)}
    result = trove(home, "index", str(docs), env_extra=env)
    assert result.returncode == 1
    assert "semantic indexing failed" in result.stderr and "embedding model files are missing" in result.stderr
    stats = json.loads(trove(home, "stats", "--json", env_extra=env).stdout)
    assert "missing" in stats["embedding_error"] and stats["documents"] == 1
    hits = json.loads(trove(home, "search", "keyword", "--mode", "keyword", "--json", env_extra=env).stdout)
    assert [Path(h["source"]).name for h in hits] == ["a.txt"]
    hybrid = json.loads(trove(home, "search", "keyword", "--json", env_extra=env).stdout)
    assert [Path(h["source"]).name for h in hybrid] == ["a.txt"]  # falls back to keywords, no crash
    semantic = trove(home, "search", "keyword", "--mode", "semantic", env_extra=env)
    assert semantic.returncode == 1 and "missing" in semantic.stderr and "Traceback" not in semantic.stderr


def test_gui_paths_are_added_before_the_window_opens(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("dropped on the launcher", encoding="utf-8")
    home = tmp_path / "home"
    shot = tmp_path / "shot.png"
    result = trove(home, "gui", str(docs / "a.txt"), "--screenshot", str(shot),
                   env_extra={"QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 0, result.stderr
    assert shot.stat().st_size > 10_000
    folders = json.loads(trove(home, "folders", "--json").stdout)
    assert [f["path"] for f in folders] == [str(docs.resolve())]
