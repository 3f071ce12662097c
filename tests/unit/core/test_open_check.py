"""Opening a search result: only a document under one of this machine's own folders (links resolved), never a
network path or a program. Real files and links in a temporary folder."""

from __future__ import annotations

import os

import pytest

from desktop_app.core.open_check import folder_to_show, is_program, is_unc, refusal


@pytest.fixture
def roots(tmp_path):
    library = tmp_path / "library"
    (library / "notes").mkdir(parents=True)
    (library / "notes" / "plan.txt").write_text("the plan")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "secret.txt").write_text("not in the library")
    return [str(library)]


def test_a_document_in_a_library_folder_opens(roots):
    assert refusal(os.path.join(roots[0], "notes", "plan.txt"), roots) is None
    assert refusal(os.path.join(roots[0], "notes"), roots) is None
    assert refusal(roots[0], roots) is None


def test_a_path_outside_this_machines_folders_is_refused(roots, tmp_path):
    reason = refusal(str(tmp_path / "elsewhere" / "secret.txt"), roots)
    assert reason and "not in one of this computer's library folders" in reason
    assert refusal("/etc/passwd", roots) is not None
    assert refusal(roots[0] + "-lookalike/plan.txt", roots) is not None  # a sibling that shares the prefix


def test_dot_dots_and_links_are_resolved_before_the_check(roots, tmp_path):
    escaped = os.path.join(roots[0], "notes", "..", "..", "elsewhere", "secret.txt")
    assert refusal(escaped, roots) is not None
    link = os.path.join(roots[0], "notes", "innocent.txt")
    os.symlink(tmp_path / "elsewhere" / "secret.txt", link)
    reason = refusal(link, roots)
    assert reason and "it leads to" in reason and "secret.txt" in reason
    inner = os.path.join(roots[0], "alias.txt")
    os.symlink(os.path.join(roots[0], "notes", "plan.txt"), inner)
    assert refusal(inner, roots) is None  # a link that stays inside is fine


@pytest.mark.parametrize("path", [r"\\fileserver\share\report.docx", "//fileserver/share/report.docx",
                                  r"\\?\UNC\fileserver\share\x.pdf"])
def test_network_paths_are_refused(path, roots):
    assert is_unc(path)
    reason = refusal(path, roots)
    assert reason and "network server" in reason
    assert folder_to_show(path, roots) is None


@pytest.mark.parametrize("name", ["setup.exe", "run.BAT", "x.ps1", "launcher.desktop", "tool.sh", "a.lnk",
                                  "installer.msi", "script.vbs", "app.jar"])
def test_programs_are_refused_even_in_a_library_folder(roots, name):
    path = os.path.join(roots[0], "notes", name)
    with open(path, "w") as f:
        f.write("echo hi")
    reason = refusal(path, roots)
    assert reason and "program or script" in reason
    assert folder_to_show(path, roots) == os.path.join(os.path.realpath(roots[0]), "notes")


def test_an_executable_file_that_starts_like_a_program_is_refused_whatever_its_name(roots):
    path = os.path.join(roots[0], "notes", "report.pdf")
    with open(path, "wb") as f:
        f.write(b"\x7fELF\x02\x01\x01")
    assert not is_program(path)  # not executable: a viewer would only show it
    os.chmod(path, 0o755)
    assert is_program(path) and refusal(path, roots) is not None
    plain = os.path.join(roots[0], "notes", "plan.txt")
    os.chmod(plain, 0o755)  # files on shares often carry x bits: a text file still opens
    assert refusal(plain, roots) is None


def test_no_folder_is_offered_outside_the_library(roots, tmp_path):
    assert folder_to_show(str(tmp_path / "elsewhere" / "secret.txt"), roots) is None
    assert folder_to_show(os.path.join(roots[0], "notes", "plan.txt"), roots) == os.path.join(
        os.path.realpath(roots[0]), "notes")
