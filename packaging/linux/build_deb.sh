#!/usr/bin/env bash
# Build dist/trove_<version>_<arch>.deb from the PyInstaller folder (dist/trove, made by packaging/build.sh).
#
#   bash packaging/linux/build_deb.sh [APP_DIR]
#
# What the package installs:
#   /opt/trove/                          the app folder (trove + _internal/)
#   /usr/bin/trove                       a link to /opt/trove/trove (the CLI; `trove gui` opens the window)
#   /usr/share/applications/trove.desktop   menu entry; MimeType=inode/directory puts "Open with Trove" on folders
#   /usr/share/icons/hicolor/256x256/apps/trove.png
#   /usr/share/doc/trove/copyright
# dpkg's triggers (desktop-file-utils, hicolor-icon-theme) refresh the menu, MIME and icon caches; there are no
# maintainer scripts. The user's library (~/.local/share/Trove, or $TROVE_HOME) and cache are never part of the
# package, so `apt-get remove` / `purge` leave them.
#
# The X11/xcb client libraries the bundle would otherwise carry from the build machine are left out and named in
# Depends instead: apt installs the system's copies (a fresh Debian lacks libxcb-cursor0, libxcb-icccm4,
# libxcb-keysyms1 ...; see issue 25), and Qt then uses the same libxcb/libX11 as the rest of the desktop.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
APP="${1:-$ROOT/dist/trove}"
[[ -x "$APP/trove" ]] || { echo "build_deb.sh: no app at $APP (run packaging/build.sh first)" >&2; exit 1; }
command -v dpkg-deb >/dev/null || { echo "build_deb.sh: dpkg-deb is missing" >&2; exit 1; }

version="$(sed -n 's/^version *= *"\([^"]*\)".*/\1/p' "$ROOT/pyproject.toml" | head -n1)"
arch="$(dpkg --print-architecture)"
stage="$ROOT/build/deb/trove_${version}_${arch}"
out="$ROOT/dist/trove_${version}_${arch}.deb"

# Bundled copies of system libraries that Depends provides (sonames at the top of _internal/).
SYSTEM_LIBS=(
    'libX11.so.6' 'libX11-xcb.so.1' 'libXau.so.6' 'libXdmcp.so.6' 'libxcb.so.1' 'libxcb-*.so.*'
    'libxkbcommon.so.0' 'libxkbcommon-x11.so.0'
)
DEPENDS="libc6 (>= 2.34), libgl1, libegl1, libfontconfig1, libfreetype6, libdbus-1-3, libglib2.0-0,
 libx11-6, libx11-xcb1, libxcb1, libxcb-cursor0, libxcb-glx0, libxcb-icccm4, libxcb-image0, libxcb-keysyms1,
 libxcb-randr0, libxcb-render0, libxcb-render-util0, libxcb-shape0, libxcb-shm0, libxcb-sync1, libxcb-util1,
 libxcb-xfixes0, libxcb-xkb1, libxkbcommon0, libxkbcommon-x11-0"
RECOMMENDS="libwayland-client0, libwayland-cursor0, libwayland-egl1, xdg-utils"

rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/opt" "$stage/usr/bin" "$stage/usr/share/applications" \
    "$stage/usr/share/icons/hicolor/256x256/apps" "$stage/usr/share/doc/trove"
# The tarball's desktop-integration extras (install.sh, README.txt, the top-level .desktop/.png) are not needed.
cp -a "$APP" "$stage/opt/trove"
rm -f "$stage/opt/trove/install.sh" "$stage/opt/trove/README.txt" "$stage/opt/trove/trove.desktop" \
    "$stage/opt/trove/trove.png"
dropped=0
for pattern in "${SYSTEM_LIBS[@]}"; do
    for lib in "$stage"/opt/trove/_internal/$pattern; do
        [[ -e "$lib" ]] || continue
        rm -f "$lib"; dropped=$((dropped + 1))
    done
done
ln -s /opt/trove/trove "$stage/usr/bin/trove"
sed -e 's|^Exec=.*|Exec=/usr/bin/trove gui %F|' -e 's|^TryExec=.*||' "$ROOT/resources/trove.desktop" \
    >"$stage/usr/share/applications/trove.desktop"
install -m 644 "$ROOT/resources/icons/trove.png" "$stage/usr/share/icons/hicolor/256x256/apps/trove.png"
cat >"$stage/usr/share/doc/trove/copyright" <<'EOF'
Trove: MIT licensed. /opt/trove/_internal holds Python, Qt (LGPL-3.0, PySide6), SQLite, ICU, onnxruntime,
llama.cpp, PDFium and the other libraries and model files listed in the project's packaging/README.md, each
under its own licence.
EOF
find "$stage" -type d -exec chmod 755 {} +
chmod -R u+rw,go+r,go-w "$stage"

size_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<EOF
Package: trove
Version: $version
Architecture: $arch
Maintainer: Trove developers <trove@localhost>
Installed-Size: $size_kb
Section: utils
Priority: optional
Depends: $DEPENDS
Recommends: $RECOMMENDS
Homepage: https://example.invalid/trove
Description: local-first desktop knowledge base
 Search (keyword and semantic, in every script) and chat with the documents in
 your folders, on this computer: text, PDF, Office and OpenDocument files,
 e-books, mail and images (OCR). Bundles its embedding, OCR and chat models;
 nothing is downloaded. Run "trove gui" or open Trove from the menu.
EOF

echo "== $(basename "$out"): $(( size_kb / 1024 )) MiB installed, $dropped bundled X11/xcb libraries left to Depends"
rm -f "$out"
# xz: what every dpkg reads (zstd needs dpkg >= 1.21.18 and apt >= 2.3). TROVE_DEB_COMPRESS=none makes a quick
# uncompressed package for testing the install/remove cycle on a busy machine.
nice -n "${TROVE_NICE:-0}" dpkg-deb --root-owner-group -Z"${TROVE_DEB_COMPRESS:-xz}" -z6 --threads-max=2 \
    --build "$stage" "$out" >/dev/null
echo "== $out: $(( ($(stat -c %s "$out") + 1048575) / 1048576 )) MiB"
