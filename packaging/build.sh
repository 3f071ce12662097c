#!/usr/bin/env bash
# Build Trove's one-folder app with PyInstaller (dist/trove/) and, on Linux, the tarball users download
# (dist/trove-<version>-linux-<arch>.tar.gz: the folder plus trove.desktop, the icon and install.sh).
#
#   bash packaging/build.sh            # what `make package` runs
#   TROVE_CLEAN=1 bash packaging/build.sh   # also drop PyInstaller's analysis cache (build/pyinstaller)
#   TROVE_NO_TARBALL=1 bash packaging/build.sh
#
# Needs the project's venv with the `package` extra (pyinstaller). Windows and macOS: see packaging/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PY="${PY:-$ROOT/.venv/bin/python}"
[[ -x "$PY" ]] || PY="$(command -v python3)"
"$PY" -c "import PyInstaller" 2>/dev/null || { echo "build.sh: PyInstaller is missing: pip install -e '.[package]'" >&2; exit 1; }

args=(--noconfirm --workpath build/pyinstaller --distpath dist)
[[ "${TROVE_CLEAN:-0}" == 1 ]] && args+=(--clean)

echo "== PyInstaller ($("$PY" -m PyInstaller --version)) -> dist/trove"
start=$SECONDS
"$PY" -m PyInstaller "${args[@]}" packaging/trove.spec
echo "== built in $((SECONDS - start))s: $(du -sm dist/trove | cut -f1) MB; largest parts (MB):"
# (sed reads all of sort's output: `head` would close the pipe early, and pipefail would stop the build on SIGPIPE)
du -sm dist/trove/trove dist/trove/_internal/* | sort -rn | sed -n '1,10s,dist/trove/,    ,p'

[[ "$(uname -s)" == Linux && "${TROVE_NO_TARBALL:-0}" != 1 ]] || exit 0

version="$("$PY" -c 'import re,sys; print(re.search(r"^version\s*=\s*\"([^\"]+)\"", open("pyproject.toml").read(), re.M).group(1))')"
name="trove-$version-linux-$(uname -m)"
app=dist/trove

# Desktop integration files sit at the top of the folder, beside the executable.
cp resources/trove.desktop "$app/trove.desktop"
cp resources/icons/trove.png "$app/trove.png"
cp packaging/linux/install.sh "$app/install.sh"
cp packaging/linux/README.txt "$app/README.txt"
chmod +x "$app/install.sh" "$app/trove"

echo "== $name.tar.gz"
gz=(gzip -6)
command -v pigz >/dev/null && gz=(pigz -6)
rm -f "dist/$name.tar.gz"
tar -C dist --owner=0 --group=0 --transform "s,^trove,$name," -cf - trove | "${gz[@]}" >"dist/$name.tar.gz"
echo "== dist/$name.tar.gz: $(du -m "dist/$name.tar.gz" | cut -f1) MB (folder $(du -sm "$app" | cut -f1) MB)"
