#!/usr/bin/env bash
# Build Trove's one-folder app with PyInstaller (dist/trove/) and, on Linux, the tarball users download
# (dist/trove-<version>-linux-<arch>.tar.xz: the folder plus trove.desktop, the icon and install.sh).
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
# The Python code (the executable's PYZ archive) is stored, not zlib-compressed: 17 -> 41 MiB in the folder, but
# the tarball and the .deb compress it with xz to 10 MiB where zlib's 17 stayed 16 (6 MiB less to download).
PYINSTALLER_ZLIB_COMPRESSION_LEVEL="${PYINSTALLER_ZLIB_COMPRESSION_LEVEL:-0}" \
    "$PY" -m PyInstaller "${args[@]}" packaging/trove.spec
# llama-cpp-python's wheel carries each library twice (libggml.so and libggml.so.0, ...: wheels cannot hold
# symlinks); the second copy becomes a link to the first (6 MB).
for so in dist/trove/_internal/llama_cpp/lib/*.so; do
    if [[ -f "$so.0" && ! -L "$so.0" ]] && cmp -s "$so" "$so.0"; then ln -sf "$(basename "$so")" "$so.0"; fi
done
echo "== built in $((SECONDS - start))s: $(du -sm dist/trove | cut -f1) MB; largest parts (MB):"
# (sed reads all of sort's output: `head` would close the pipe early, and pipefail would stop the build on SIGPIPE)
du -sm dist/trove/trove dist/trove/_internal/* | sort -rn | sed -n '1,15s,dist/trove/,    ,p'

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

# xz by default: model weights and libraries compress ~10% better than with gzip, and every tar reads it.
# TROVE_TARBALL=zst (zstd -19 --long) or gz (gzip -6, pigz when installed) for the others.
kind="${TROVE_TARBALL:-xz}"
case "$kind" in
    xz) comp=(xz -6 -T"$(nproc)") ;;
    zst) comp=(zstd -q -19 --long=27 -T"$(nproc)") ;;
    gz) comp=(gzip -6); command -v pigz >/dev/null && comp=(pigz -6) ;;
    *) echo "build.sh: TROVE_TARBALL must be xz, zst or gz" >&2; exit 1 ;;
esac
tarball="dist/$name.tar.$kind"
echo "== $tarball (${comp[*]})"
rm -f dist/"$name".tar.*
start=$SECONDS
tar -C dist --owner=0 --group=0 --sort=name --transform "s,^trove,$name," -cf - trove | "${comp[@]}" >"$tarball"
echo "== $tarball: $(( ($(stat -c %s "$tarball") + 1048575) / 1048576 )) MiB in $((SECONDS - start))s" \
     "(folder $(du -sm "$app" | cut -f1) MiB)"
