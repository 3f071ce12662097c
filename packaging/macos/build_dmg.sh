#!/usr/bin/env bash
# macOS: build dist/Trove.app with the spec's BUNDLE step, then wrap it in dist/Trove-<version>.dmg.
# Run on a Mac (arm64 or x86_64; the .app is for the architecture it was built on) from the repository root,
# with the venv set up as in packaging/README.md. Uses create-dmg (`brew install create-dmg`) when present,
# else plain hdiutil. Signing and notarisation are optional (set CODESIGN_IDENTITY / NOTARY_PROFILE).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PY:-.venv/bin/python}"
version="$("$PY" -c 'import re; print(re.search(r"^version\s*=\s*\"([^\"]+)\"", open("pyproject.toml").read(), re.M).group(1))')"

"$PY" -m PyInstaller --noconfirm --workpath build/pyinstaller --distpath dist packaging/trove.spec
app=dist/Trove.app
[[ -d "$app" ]] || { echo "no $app: the spec builds the .app only on macOS" >&2; exit 1; }

# Smoke check before packaging: the bundled CLI must run.
"$app/Contents/MacOS/trove" --version

if [[ -n "${CODESIGN_IDENTITY:-}" ]]; then
    # Hardened runtime; onnxruntime, OpenCV and llama.cpp load their own dylibs, which this signs with the app.
    codesign --deep --force --options runtime --timestamp \
        --entitlements packaging/macos/entitlements.plist --sign "$CODESIGN_IDENTITY" "$app"
fi

dmg="dist/Trove-$version.dmg"
rm -f "$dmg"
if command -v create-dmg >/dev/null; then
    create-dmg --volname "Trove $version" --window-size 540 360 --icon-size 96 \
        --icon "Trove.app" 140 170 --app-drop-link 400 170 --hide-extension "Trove.app" "$dmg" "$app"
else
    staging="$(mktemp -d)"
    cp -R "$app" "$staging/"
    ln -s /Applications "$staging/Applications"
    hdiutil create -volname "Trove $version" -srcfolder "$staging" -ov -format UDZO "$dmg"
    rm -rf "$staging"
fi

if [[ -n "${CODESIGN_IDENTITY:-}" && -n "${NOTARY_PROFILE:-}" ]]; then
    codesign --sign "$CODESIGN_IDENTITY" --timestamp "$dmg"
    xcrun notarytool submit "$dmg" --keychain-profile "$NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
fi
echo "built $dmg"
