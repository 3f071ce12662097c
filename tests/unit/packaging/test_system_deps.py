"""packaging/system_deps.sh, the step `make test`, `make run` and `.ci/run` take first: silent when every package
is installed, installs the missing ones as root or through password-less sudo, otherwise one line naming the
apt-get command and a non-zero exit. The fakes (dpkg, id, sudo, apt-get on PATH) choose the machine; the last tests
run the script against this machine's real dpkg."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).parents[3]
SCRIPT = ROOT / "packaging" / "system_deps.sh"

FAKES = {
    # prints a status only for the packages FAKE_INSTALLED names, as dpkg -s does
    "dpkg": """case " $FAKE_INSTALLED " in *" $2 "*) printf 'Package: %s\\nStatus: install ok installed\\n' "$2";;
               *) echo "dpkg-query: package '$2' is not installed" >&2; exit 1;; esac""",
    "id": 'echo "$FAKE_UID"',
    "uname": "echo Linux",
    # password-less only when FAKE_SUDO=yes; then it runs the command, as root would
    "sudo": """[ "$FAKE_SUDO" = yes ] || { echo "sudo: a password is required" >&2; exit 1; }
               [ "$1" = -n ] && shift; echo "sudo $*" >> "$FAKE_LOG"; exec "$@" """,
    "apt-get": 'echo "apt-get $* (DEBIAN_FRONTEND=${DEBIAN_FRONTEND:-})" >> "$FAKE_LOG"',
}
PYTHONS = {"with-venv": "exit 0", "without-venv": "exit 1"}  # `python3.11 -c "import ensurepip, venv"`


def every_package() -> list[str]:
    return subprocess.run(["bash", str(SCRIPT), "--list"], capture_output=True, text=True, check=True).stdout.split()


def run(tmp_path: Path, *, installed: list[str], uid: int, sudo: bool = False, python: str = "with-venv",
        venv_exists: bool = False) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    fakes = tmp_path / "bin"
    fakes.mkdir(exist_ok=True)
    for name, body in FAKES.items():
        (fakes / name).write_text(f"#!/bin/sh\n{body}\n")
        (fakes / name).chmod(0o755)
    for kind, body in PYTHONS.items():
        (tmp_path / kind).mkdir(exist_ok=True)
        (tmp_path / kind / "python3.11").write_text(f"#!/bin/sh\n{body}\n")
        (tmp_path / kind / "python3.11").chmod(0o755)
    venv = tmp_path / "venv"
    if venv_exists:
        (venv / "bin").mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / "with-venv" / "python3.11", venv / "bin" / "python")
    log = tmp_path / "calls.log"
    log.unlink(missing_ok=True)
    env = {"PATH": f"{fakes}:/usr/bin:/bin", "FAKE_INSTALLED": " ".join(installed), "FAKE_UID": str(uid),
           "FAKE_SUDO": "yes" if sudo else "no", "FAKE_LOG": str(log), "PYTHON": str(tmp_path / python / "python3.11"),
           "VENV": str(venv)}
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    return done, log.read_text().splitlines() if log.exists() else []


def test_everything_installed_is_silent_and_installs_nothing(tmp_path):
    for uid in (0, 1000):
        done, calls = run(tmp_path, installed=every_package(), uid=uid)
        assert (done.returncode, done.stdout, done.stderr, calls) == (0, "", "", [])


def test_as_root_the_missing_packages_are_installed_with_apt_get(tmp_path):
    present = [p for p in every_package() if p not in ("libxcb-cursor0", "xvfb")]
    done, calls = run(tmp_path, installed=present, uid=0)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "system_deps: installing libxcb-cursor0 xvfb\n"
    install = "apt-get install -y -qq --no-install-recommends libxcb-cursor0 xvfb"
    assert calls == ["apt-get update -qq (DEBIAN_FRONTEND=)", f"{install} (DEBIAN_FRONTEND=noninteractive)"]


def test_with_password_less_sudo_they_are_installed_through_sudo(tmp_path):
    present = [p for p in every_package() if p != "iproute2"]
    done, calls = run(tmp_path, installed=present, uid=1000, sudo=True)
    assert done.returncode == 0, done.stderr
    assert calls == ["sudo true", "sudo apt-get update -qq", "apt-get update -qq (DEBIAN_FRONTEND=)",
                     "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iproute2",
                     "apt-get install -y -qq --no-install-recommends iproute2 (DEBIAN_FRONTEND=noninteractive)"]


def test_without_root_or_sudo_one_line_names_the_command_and_the_exit_is_non_zero(tmp_path):
    present = [p for p in every_package() if p not in ("cmake", "libxcb-icccm4", "libxcb-keysyms1")]
    done, calls = run(tmp_path, installed=present, uid=1000, sudo=False)
    assert done.returncode == 1 and done.stdout == "" and calls == []
    assert done.stderr == ("Trove needs these system packages first: "
                           "sudo apt-get install -y cmake libxcb-icccm4 libxcb-keysyms1\n")


def test_pythons_venv_package_is_asked_for_only_while_there_is_no_venv_and_python_cannot_make_one(tmp_path):
    present = [p for p in every_package() if p != "python3.11-venv"]
    done, _ = run(tmp_path, installed=present, uid=1000, python="without-venv")
    assert done.returncode == 1 and done.stderr.endswith("sudo apt-get install -y python3.11-venv\n")
    for ok in ({"python": "with-venv"}, {"python": "without-venv", "venv_exists": True}):
        done, calls = run(tmp_path, installed=present, uid=1000, **ok)  # type: ignore[arg-type]
        assert (done.returncode, done.stderr, calls) == (0, "", [])


def test_the_readme_names_every_package_in_its_one_apt_get_line():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [line] = [ln for ln in readme.splitlines() if "apt-get install" in ln and "libxcb-cursor0" in ln]
    assert sorted(line.split("apt-get install", 1)[1].split()) == sorted(every_package())


def test_make_test_make_run_and_ci_take_this_step_first():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("test", "run"):
        assert re.search(rf"^{target}: system-deps setup$", makefile, re.MULTILINE), target
    assert "packaging/system_deps.sh" in makefile
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index("make system-deps") < ci.index("make setup") < ci.index("make test")
    assert "apt-get" not in "\n".join(ci)  # one list of packages, in the script


def test_on_this_machine_the_real_dpkg_decides_what_is_missing(tmp_path):
    """The real dpkg, and as a user who may not install: silent exactly when dpkg-query calls every package
    installed, else the line names exactly the ones it does not."""
    if shutil.which("dpkg-query") is None:  # not Debian: the script says it checks nothing, and goes on
        done = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "no dpkg here" in done.stderr
        return
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for name, body in (("id", "echo 1000"), ("sudo", "exit 1")):
        (fakes / name).write_text(f"#!/bin/sh\n{body}\n")
        (fakes / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{fakes}:{os.environ['PATH']}", "VENV": str(ROOT / ".venv")}
    wanted = [p for p in every_package() if not p.endswith("-venv")]  # .venv exists: the venv package is moot
    status = {p: subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout
              for p in wanted}
    missing = [p for p in wanted if status[p] != "install ok installed"]
    done = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)
    if missing:
        assert done.returncode == 1
        assert done.stderr == f"Trove needs these system packages first: sudo apt-get install -y {' '.join(missing)}\n"
    else:
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
