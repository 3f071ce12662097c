"""No flat folder: a package of more than ~20 modules groups them in sub-packages by what they do (#44), so a
newcomer finds the piece by its folder's name. Folders still waiting for their split are listed with the plan; the
list only shrinks (a folder that has been split must leave it)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).parents[3] / "desktop_app"
MAX_FLAT = 20
# folder -> the split it is waiting for
WAITING = {
}


def flat_folders(root: Path = PACKAGE) -> dict[str, int]:
    """Package folder (relative to `root`) -> its module count, for every one over MAX_FLAT with no sub-package."""
    found = {}
    for folder in [root, *sorted(p for p in root.rglob("*") if p.is_dir())]:
        if not (folder / "__init__.py").is_file():
            continue
        modules = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        packages = [p for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
        if len(modules) > MAX_FLAT and not packages:
            found[folder.relative_to(root).as_posix() or "."] = len(modules)
    return found


def test_no_flat_folder_over_20_modules_but_those_waiting_for_their_split():
    assert set(flat_folders()) - set(WAITING) == set()


def test_a_folder_that_was_split_leaves_the_waiting_list():
    assert set(WAITING) - set(flat_folders()) == set()


def test_the_check_sees_a_flat_folder_and_passes_one_with_sub_packages(tmp_path):
    for name in ("flat", "grouped"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        for i in range(MAX_FLAT + 1):
            (tmp_path / name / f"m{i}.py").write_text("")
    (tmp_path / "grouped" / "part").mkdir()
    (tmp_path / "grouped" / "part" / "__init__.py").write_text("")
    assert flat_folders(tmp_path) == {"flat": MAX_FLAT + 1}
