#!/usr/bin/env bash
# Install Trove for the current user from the unpacked folder: a `trove` command in ~/.local/bin, a menu
# entry and an icon. The app itself stays in this folder (move the folder first if you want it elsewhere).
#
#   ./install.sh            install (or update the paths after moving the folder)
#   ./install.sh --uninstall
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
BIN="$HOME/.local/bin"
DESKTOP="$DATA/applications/trove.desktop"
ICON="$DATA/icons/hicolor/256x256/apps/trove.png"

if [[ "${1:-}" == --uninstall ]]; then
    rm -f "$DESKTOP" "$ICON"
    [[ -L "$BIN/trove" ]] && rm -f "$BIN/trove"
    command -v update-desktop-database >/dev/null && update-desktop-database "$DATA/applications" || true
    echo "Trove's menu entry, icon and command link removed (this folder and your library are untouched)."
    exit 0
fi

mkdir -p "$BIN" "$(dirname "$DESKTOP")" "$(dirname "$ICON")"
ln -sfn "$HERE/trove" "$BIN/trove"
install -m 644 "$HERE/trove.png" "$ICON"
# The menu entry starts this folder's executable by its full path, so it works without ~/.local/bin on PATH.
sed -e "s|^Exec=.*|Exec=\"$HERE/trove\" gui|" -e "s|^TryExec=.*||" "$HERE/trove.desktop" >"$DESKTOP"
chmod 644 "$DESKTOP"
command -v update-desktop-database >/dev/null && update-desktop-database "$(dirname "$DESKTOP")" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q "$DATA/icons/hicolor" 2>/dev/null || true
echo "Installed: 'trove' command ($BIN/trove), menu entry ($DESKTOP), icon."
case ":$PATH:" in *":$BIN:"*) ;; *) echo "Note: $BIN is not on your PATH; add it to run 'trove' from a terminal.";; esac
