"""A big file must not hold the semantic phase: progress names the file it is on with the time left, a folder's
semantic phase can be paused, and big logs, CSV exports and mailboxes stay keyword-only (keyword_only_mb)."""

from __future__ import annotations

import json

from desktop_app.core.events import IndexProgress
from desktop_app.core.index.semantic_scope import is_log_name, keyword_only_kind
from tests.support.runner import run_trove, trove_env, write_settings


def log_lines(n: int, word: str) -> str:
    return "\n".join(f"2024-05-01T12:00:{i % 60:02d}Z ERROR {word} host=db{i % 7} req={i:06x} timeout"
                     for i in range(n))


def make_folder(root):
    root.mkdir()
    (root / "big.log").write_text(log_lines(4000, "wombat"))  # ~300 KB: over the test's 0.1 MB
    (root / "small.log").write_text(log_lines(50, "numbat"))
    (root / "export.csv").write_text("id,animal\n" + "\n".join(f"{i},bilby" for i in range(20000)))  # ~200 KB
    (root / "notes.txt").write_text("the quokka is a small marsupial " * 30)
    return root


def vectors_per_file(lib) -> dict[str, tuple[int, int]]:
    """file name -> (chunks, chunks with vectors)."""
    pending = {row.id for row in lib.store.pending_chunks(10**6)}
    rows = lib.store.chunk_rows(list(range(1, 10**5)))
    out: dict[str, tuple[int, int]] = {}
    for row in rows.values():
        name = row.path.rsplit("/", 1)[-1]
        chunks, embedded = out.get(name, (0, 0))
        out[name] = (chunks + 1, embedded + (row.chunk_id not in pending))
    return out


def test_big_logs_and_csv_stay_keyword_only_and_progress_names_the_file(make_library, tmp_path):
    folder = make_folder(tmp_path / "server")
    lib = make_library(keyword_only_mb=0.1)
    events: list[IndexProgress] = []
    lib.bus.subscribe(lambda e: events.append(e) if isinstance(e, IndexProgress) and e.phase == "semantic" else None)
    lib.add_folder(folder)
    lib.sync()
    per_file = vectors_per_file(lib)
    assert per_file["big.log"][1] == 0 and per_file["export.csv"][1] == 0, per_file  # keyword-only
    assert per_file["small.log"][0] == per_file["small.log"][1] > 0, per_file
    assert per_file["notes.txt"][0] == per_file["notes.txt"][1] > 0, per_file
    assert lib.search("wombat", mode="keyword") and lib.search("bilby", mode="keyword")
    named = [e for e in events if e.current_file]
    assert named and all(e.current_file.startswith(str(folder)) for e in named)
    assert {e.current_file.rsplit("/", 1)[-1] for e in named} <= {"small.log", "notes.txt"}
    last = events[-1]
    assert last.chunks_embedded == last.chunks_total  # the keyword-only chunks are not counted as work left
    lib.update_settings(keyword_only_mb=0)  # 0: every file gets vectors
    lib.sync()
    assert all(chunks == embedded for chunks, embedded in vectors_per_file(lib).values())


def test_a_paused_folder_waits_and_resumes(make_library, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, word in ((one, "quoll"), (two, "dunnart")):
        folder.mkdir()
        for i in range(3):
            (folder / f"{word}{i}.txt").write_text(f"a note about the {word} number {i} " * 20)
    lib = make_library()
    lib.add_folder(one)
    lib.add_folder(two)
    lib.set_semantic_paused(two, True)
    lib.sync()
    per_file = vectors_per_file(lib)
    assert all(per_file[f"quoll{i}.txt"][1] > 0 for i in range(3))
    assert all(per_file[f"dunnart{i}.txt"][1] == 0 for i in range(3))
    assert lib.search("dunnart", mode="keyword")  # keyword search is untouched
    lib.set_semantic_paused(two, False)
    lib.wait_idle()
    assert all(chunks == embedded for chunks, embedded in vectors_per_file(lib).values())


def test_the_cli_progress_names_the_file_the_semantic_phase_is_on(tmp_path):
    folder = make_folder(tmp_path / "server")
    home = tmp_path / "home"
    write_settings(home, keyword_only_mb=0.1)
    run = run_trove(home, "index", str(folder), "--json-events", env=trove_env())
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    semantic = [e for e in events if e.get("phase") == "semantic" and e.get("current_file")]
    assert semantic and all(e["current_file"].endswith(("small.log", "notes.txt")) for e in semantic), semantic


def test_which_kinds_a_size_can_make_keyword_only():
    assert is_log_name("/var/log/app.log") and is_log_name("/x/app.log.1") and not is_log_name("/x/login.txt")
    assert keyword_only_kind("/x/a.csv", "csv") and keyword_only_kind("/x/box.mbox", "email")
    assert not keyword_only_kind("/x/a.txt", "text") and not keyword_only_kind("/x/a.pdf", "pdf")
