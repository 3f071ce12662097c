#!/usr/bin/env bash
# The Debian/Ubuntu packages `make run` and `make test` need, checked before anything else runs: silent when all
# are installed; installed with apt-get when this user may (root, or sudo without a password); otherwise one line
# naming the exact apt-get command, and a non-zero exit, so pytest never starts on a machine that will fail it.
# `.ci/run` calls it too (through `make system-deps`). `--list` prints every package, as the README's line names them.
# Without dpkg (macOS, other Linux distributions) nothing is checked: the targets then say what they lack themselves.
set -euo pipefail

PYTHON=${PYTHON:-python3.11}
VENV=${VENV:-.venv}
# llama-cpp-python compiles from source during `make setup`
BUILD="build-essential cmake"
# Qt's X11 (xcb) platform plugin: the window (`make run`) and tests/reliability/test_xcb_check.py, which loads it
# (the libraries desktop_app/ui/xcb_check.py maps to packages)
QT="libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-randr0 libxcb-shape0
    libxcb-sync1 libxcb-xfixes0 libxcb-shm0 libxcb-xkb1 libxcb-util1 libx11-xcb1 libxkbcommon-x11-0 libegl1 libgl1
    libfontconfig1"
# Xvfb and xauth: the window on a real X server (packaging/smoke); iproute2: the two-machine test's namespaces;
# bindfs (a passthrough FUSE filesystem) and fuse3: the network-drive test mounts a library folder through FUSE
TESTS="xvfb xauth iproute2 fuse3 bindfs"
VENV_PACKAGE="$(basename "$PYTHON")-venv"

if [ "${1:-}" = "--list" ]; then
    echo $VENV_PACKAGE $BUILD $QT $TESTS
    exit 0
fi

case "$(uname -s)" in Linux) ;; *) exit 0 ;; esac
if ! command -v dpkg >/dev/null 2>&1; then
    echo "system_deps: no dpkg here; install your distribution's equivalents of: $VENV_PACKAGE" $BUILD $QT $TESTS >&2
    exit 0
fi

wanted="$BUILD $QT $TESTS"
# Python's venv module (Debian splits it out) matters only until .venv exists; a pyenv or python.org Python has it
if [ ! -x "$VENV/bin/python" ] && ! "$PYTHON" -c "import ensurepip, venv" >/dev/null 2>&1; then
    wanted="$VENV_PACKAGE $wanted"
fi

missing=""
for package in $wanted; do
    # dpkg -s also knows removed packages whose config files remain: only "install ok installed" counts
    dpkg -s "$package" 2>/dev/null | grep -qx "Status: install ok installed" || missing="$missing $package"
done
missing=${missing# }
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    as_root=(sudo -n)
else
    echo "Trove needs these system packages first: sudo apt-get install -y $missing" >&2
    exit 1
fi
echo "system_deps: installing $missing"
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
