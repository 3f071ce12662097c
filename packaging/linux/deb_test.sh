#!/usr/bin/env bash
# Install the .deb on this machine, use it the way a person would, and remove it:
#
#   bash packaging/linux/deb_test.sh [dist/trove_<version>_<arch>.deb]      (root, or sudo without a password)
#
#   install   `apt-get install --no-install-recommends ./trove_….deb` (apt resolves Depends: the xcb/GL libraries Qt
#             needs; Recommends, the Wayland client libraries and xdg-utils, are not pulled in); /usr/bin/trove,
#             the menu entry (MimeType inode/directory: "Open with Trove" on folders) and the icon are in place,
#             and the bundled copies of the X11/xcb libraries are not (the system's are used)
#   use       as a user with an empty HOME (the library goes to ~/.local/share/Trove): `trove index` the sample
#             documents, `trove search` (keyword and hybrid) finds the bread document
#   window    `trove gui --query ... --screenshot` under xvfb-run on xcb (packaging/smoke/xcb_window.sh): a viewable
#             window titled Trove, exit 0, a non-blank 1400x860 screenshot (copied to dist/deb-xcb.png)
#   remove    `apt-get remove -y trove`: /opt/trove, /usr/bin/trove and the menu entry are gone; the user's library
#             (its folder and database) is still there, unchanged
# Exits non-zero on the first failure; the package is removed on the way out whatever happened.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
deb="${1:-$(ls -t "$ROOT"/dist/trove_*.deb 2>/dev/null | head -n1 || true)}"
[[ -f "$deb" ]] || { echo "FAIL: no .deb (bash packaging/linux/build_deb.sh makes dist/trove_<version>_<arch>.deb)"; exit 1; }
deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    sudo -n true 2>/dev/null || { echo "FAIL: installing a .deb needs root (or sudo without a password)"; exit 1; }
    SUDO=(sudo -n)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/trove-deb.XXXXXX")"
chmod 755 "$WORK"
installed_by_us=0
cleanup() {
    if [[ $installed_by_us -eq 1 ]] && dpkg -s trove >/dev/null 2>&1; then
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q trove >/dev/null 2>&1 || true
    fi
    [[ "${TROVE_SMOKE_KEEP:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
passed=0
ok() { echo "  ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; exit 1; }
show() { [[ -s "$1" ]] && { echo "--- $1"; tail -n 30 "$1"; }; return 0; }

echo "== install $(basename "$deb") ($(( ($(stat -c %s "$deb") + 1048575) / 1048576 )) MiB)"
if dpkg -s trove >/dev/null 2>&1; then echo "  (note: a trove package was installed before; it is replaced)"; fi
installed_by_us=1
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" >"$WORK/install.log" 2>&1 \
    || { show "$WORK/install.log"; fail "apt-get install ./$(basename "$deb")"; }
[[ "$(dpkg-query -W -f='${Status}' trove)" == "install ok installed" ]] || fail "dpkg does not list trove as installed"
ok "apt-get install: $(dpkg-query -W -f='${Package} ${Version} (${Installed-Size} KiB)' trove)"
[[ -L /usr/bin/trove && "$(readlink /usr/bin/trove)" == /opt/trove/trove ]] || fail "/usr/bin/trove is not the link"
[[ -x /opt/trove/trove && -d /opt/trove/_internal ]] || fail "/opt/trove is incomplete"
desktop=/usr/share/applications/trove.desktop
grep -q '^Exec=/usr/bin/trove gui %F' "$desktop" || fail "the menu entry does not start /usr/bin/trove"
grep -q '^MimeType=.*inode/directory' "$desktop" || fail "the menu entry does not offer itself for folders"
[[ -f /usr/share/icons/hicolor/256x256/apps/trove.png ]] || fail "no icon"
if command -v update-desktop-database >/dev/null; then  # dpkg's trigger ran it: folders list Trove
    grep -q 'inode/directory=.*trove.desktop' /usr/share/applications/mimeinfo.cache || fail "mimeinfo.cache lacks Trove"
fi
ok "/usr/bin/trove -> /opt/trove/trove; menu entry with MimeType=inode/directory; hicolor icon"
! ls /opt/trove/_internal/libxcb-cursor.so.0 /opt/trove/_internal/libX11.so.6 >/dev/null 2>&1 \
    || fail "the package carries its own libxcb/libX11"
for pkg in libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libgl1; do
    [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == "install ok installed" ]] || fail "$pkg was not installed"
done
ok "Qt's xcb libraries come from the system (libxcb-cursor0, libxcb-icccm4, libxcb-keysyms1, libxkbcommon-x11-0, libgl1)"

# ---------------------------------------------------------------------------------------------- use it
USER_HOME="$WORK/home"
mkdir -p "$USER_HOME"
LIBRARY="$USER_HOME/.local/share/Trove"
as_user() {  # the installed command in a minimal environment (no TROVE_HOME: the default library place)
    local name="$1"; shift
    env -i HOME="$USER_HOME" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$WORK" trove "$@" \
        >"$WORK/$name.out" 2>"$WORK/$name.err" || { show "$WORK/$name.err"; fail "trove $*"; }
}
[[ "$(command -v trove)" == /usr/bin/trove ]] || fail "trove is not /usr/bin/trove on PATH"
as_user version --version
ok "trove --version: $(cat "$WORK/version.out")"
DOCS=/opt/trove/_internal/resources/sample_docs
as_user index index "$DOCS" --json
grep -Eq '"files_indexed": [1-9]' "$WORK/index.out" || fail "indexed no files"
grep -q '"failed": 0' "$WORK/index.out" || fail "some documents failed to index"
[[ -d "$LIBRARY" ]] || fail "the library is not in ~/.local/share/Trove"
ok "trove index $DOCS: $(grep -m1 -o '"files_indexed": [0-9]*' "$WORK/index.out"), 0 failed, library in ~/.local/share/Trove"
for mode in keyword hybrid; do
    as_user "search-$mode" search --mode "$mode" "sourdough starter" --json
    grep -q sourdough "$WORK/search-$mode.out" || fail "$mode search misses the bread document"
done
ok "trove search (keyword, hybrid) -> the sourdough document"

echo "== the window (xvfb-run, xcb)"
bash "$ROOT/packaging/smoke/xcb_window.sh" "$WORK/deb.png" "$WORK/gui.log" HOME="$USER_HOME" PATH=/usr/bin:/bin \
    LANG=C.UTF-8 TMPDIR="$WORK" /usr/bin/trove --home "$LIBRARY" gui --query "sourdough starter" \
    --screenshot "$WORK/deb.png" || fail "the installed app's window on xcb"
cp "$WORK/deb.png" "$ROOT/dist/deb-xcb.png"
ok "the installed app opened its window on xcb and searched; screenshot -> dist/deb-xcb.png"

# ---------------------------------------------------------------------------------------------- remove
before="$(cd "$LIBRARY" && find . -type f -printf '%P %s\n' | sort | sha256sum | cut -c1-16)"
files=$(find "$LIBRARY" -type f | wc -l)
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q trove >"$WORK/remove.log" 2>&1 \
    || { show "$WORK/remove.log"; fail "apt-get remove -y trove"; }
installed_by_us=0
dpkg -s trove >/dev/null 2>&1 && [[ "$(dpkg-query -W -f='${Status}' trove)" == *" installed" ]] \
    && fail "trove is still installed"
[[ ! -e /opt/trove && ! -e /usr/bin/trove && ! -e "$desktop" ]] || fail "files are left after removal"
ok "apt-get remove: /opt/trove, /usr/bin/trove and the menu entry are gone"
after="$(cd "$LIBRARY" && find . -type f -printf '%P %s\n' | sort | sha256sum | cut -c1-16)"
[[ "$before" == "$after" && $files -gt 0 ]] || fail "the user's library changed on removal"
ok "the user's library is still there: $files files in ~/.local/share/Trove, unchanged"
echo "deb test: $passed passed, 0 failed"
