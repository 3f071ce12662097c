#!/usr/bin/env bash
# Open the frozen app's window on a real X server (Xvfb, Qt's xcb platform), see the window mapped, and check
# the screenshot it takes of itself.
#
#   bash packaging/smoke/xcb_window.sh OUT.png LOG [NAME=VALUE ...] /path/to/trove gui --sample --screenshot OUT.png
#
# The command runs under `xvfb-run` with `env -i`, the NAME=VALUE pairs given, DISPLAY/XAUTHORITY from xvfb-run and
# QT_QPA_PLATFORM=xcb. While it runs, `xwininfo` must find a viewable top-level window titled "Trove" on the
# X server; the command must exit 0; OUT.png must be a non-blank 1400x860 PNG (packaging/smoke/pngcheck.py).
# stdout/stderr of the app go to LOG; one line per finding goes to stdout. Exits non-zero on the first failure.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"

if [[ "${1:-}" != --inside ]]; then
    command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is not installed (apt-get install xvfb)"; exit 1; }
    command -v xwininfo >/dev/null || { echo "FAIL: xwininfo is not installed (apt-get install x11-utils)"; exit 1; }
    exec xvfb-run -a -s "-screen 0 1600x1000x24 -nolisten tcp" bash "$0" --inside "$@"
fi
shift
png="$1" log="$2"
shift 2
rm -f "$png"

env -i DISPLAY="$DISPLAY" XAUTHORITY="${XAUTHORITY:-}" QT_QPA_PLATFORM=xcb "$@" >"$log" 2>&1 &
app=$!
seen=""
for _ in $(seq 1 2400); do  # up to 240 s for the window to map (the app imports Qt and opens the library first)
    # Every top-level window titled Trove, not `xwininfo -name`'s first: Qt also makes unmapped 1x1 helper windows
    # that carry the application's name, and the first match may be one of them.
    for id in $(xwininfo -root -children 2>/dev/null | awk '/"Trove"/ { print $1 }'); do
        if info="$(xwininfo -id "$id" 2>/dev/null)" && grep -q "Map State: IsViewable" <<<"$info"; then
            seen="$(awk -F': *' '/Width:/ { w = $2 } /Height:/ { h = $2 } END { print w "x" h }' <<<"$info")"
            break 2
        fi
    done
    kill -0 "$app" 2>/dev/null || break
    sleep 0.1
done
if [[ -z "$seen" ]]; then
    kill "$app" 2>/dev/null || true
    wait "$app" 2>/dev/null || true
    echo "FAIL: no viewable window titled Trove appeared on the X server (xcb)"
    tail -n 20 "$log"
    exit 1
fi
echo "  window mapped on Xvfb by the xcb platform plugin: 'Trove', ${seen}"
rc=0
wait "$app" || rc=$?
if [[ $rc -ne 0 ]]; then
    echo "FAIL: the app exited with status $rc"
    tail -n 20 "$log"
    exit 1
fi
if grep -Eq "qt\.qpa\.(xcb|plugin).*(cannot|could not|failed)" "$log"; then
    echo "FAIL: Qt reported an xcb problem:"; grep -E "qt\.qpa" "$log" | head -n 5; exit 1
fi
echo "  exited 0 after writing its screenshot"
python3 "$HERE/pngcheck.py" "$png" 1400x860 | sed 's/^/  screenshot: /'
exit "${PIPESTATUS[0]}"
