#!/usr/bin/env bash
# The .deb upgrade path keeps a person's library: install the previous release's .deb, index, upgrade to this one,
# search (issue 49):
#
#   bash packaging/linux/deb_upgrade_test.sh PREVIOUS [THIS.deb]        (root, or sudo without a password)
#
#   PREVIOUS  the previous release's .deb, or a git ref of it (a tag or commit): then this script builds that
#             release's .deb in a git worktree with `make package`, its Debian version repacked as <version>~prev so apt sees
#             an upgrade (this takes as long as `make package`, twice the disk)
#   THIS.deb  default: the newest dist/trove_*.deb (`make package`)
#
#   old       `apt-get install ./PREVIOUS.deb`; as a user with an empty HOME, `trove index` the sample documents;
#             `trove search` finds the bread document; the library's counts and its database's checksum are kept
#   upgrade   `apt-get install ./THIS.deb` over it: dpkg lists the new version; the library folder was not touched by
#             the package (same files, same bytes) before the new Trove first opens it
#   new       `trove search` (keyword, then hybrid) finds the bread document; when the schema changed, after the first
#             command library.db.before-upgrade holds the old database, every table and row (the snapshot before a
#             migration: SQLite's online backup);
#             `trove stats --json` counts the same documents and chunks; `trove repair` says the database is sound
# Exits non-zero on the first failure; the package is removed on the way out, the user's library is left in WORK.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
previous="${1:-}"
this="${2:-$(ls -t "$ROOT"/dist/trove_*.deb 2>/dev/null | head -n1 || true)}"
[[ -n "$previous" ]] || { echo "FAIL: name the previous release: a .deb file or a git ref (tag or commit)"; exit 1; }
[[ -f "$this" ]] || { echo "FAIL: no .deb of this version (make package makes dist/trove_<version>_<arch>.deb)"; exit 1; }
this="$(cd "$(dirname "$this")" && pwd)/$(basename "$this")"
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    sudo -n true 2>/dev/null || { echo "FAIL: installing a .deb needs root (or sudo without a password)"; exit 1; }
    SUDO=(sudo -n)
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/trove-deb-upgrade.XXXXXX")"
chmod 755 "$WORK"
worktree=""
cleanup() {
    if dpkg -s trove >/dev/null 2>&1; then
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q trove >/dev/null 2>&1 || true
    fi
    [[ -n "$worktree" ]] && git -C "$ROOT" worktree remove --force "$worktree" >/dev/null 2>&1 || true
    [[ "${TROVE_SMOKE_KEEP:-0}" == 1 ]] && echo "kept $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT
passed=0
ok() { echo "  ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; exit 1; }
show() { [[ -s "$1" ]] && { echo "--- $1"; tail -n 30 "$1"; }; return 0; }
install_deb() {
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        --allow-downgrades "$1" >"$WORK/$2.log" 2>&1 || { show "$WORK/$2.log"; fail "apt-get install ./$(basename "$1")"; }
}

if [[ ! -f "$previous" ]]; then
    echo "== build the previous release ($previous) in a worktree"
    worktree="$WORK/previous-src"
    git -C "$ROOT" worktree add --detach "$worktree" "$previous" >"$WORK/worktree.log" 2>&1 \
        || { show "$WORK/worktree.log"; fail "git worktree add $previous"; }
    make -C "$worktree" package >"$WORK/previous-build.log" 2>&1 || { show "$WORK/previous-build.log"; fail "make package at $previous"; }
    built="$(ls -t "$worktree"/dist/trove_*.deb | head -n1)"
    # Its version lowered to <version>~prev so apt sees an upgrade. Not in pyproject.toml (`~` is no PEP 440
    # version, pip refuses it): the built package is unpacked, its control file's Version changed, and packed again.
    dpkg-deb -R "$built" "$WORK/previous-deb" && sed -i 's/^Version: \(.*\)$/Version: \1~prev/' "$WORK/previous-deb/DEBIAN/control"
    previous="$WORK/$(basename "${built%.deb}")~prev.deb"
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$WORK/previous-deb" "$previous" >"$WORK/repack.log" 2>&1 \
        || { show "$WORK/repack.log"; fail "repack $(basename "$built") as ~prev"; }
    rm -rf "$WORK/previous-deb"
    ok "built $(basename "$previous") from $(git -C "$ROOT" rev-parse --short "${1}")"
fi
previous="$(cd "$(dirname "$previous")" && pwd)/$(basename "$previous")"

# ---------------------------------------------------------------------------------------------- the old release
USER_HOME="$WORK/home"
mkdir -p "$USER_HOME"
LIBRARY="$USER_HOME/.local/share/Trove"
as_user() {  # the installed command in a minimal environment (no TROVE_HOME: the default library place)
    local name="$1"; shift
    env -i HOME="$USER_HOME" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="$WORK" trove "$@" \
        >"$WORK/$name.out" 2>"$WORK/$name.err" || { show "$WORK/$name.err"; fail "trove $*"; }
}
# What a database holds, whatever its pages' layout: every table's schema and rows (virtual tables by their schema;
# their shadow tables hold their rows). The snapshot before a migration is SQLite's online backup, a copy of the
# content, not of the file's bytes.
content_hash() {
    python3 - "$1" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
digest = hashlib.sha256()
for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"):
    digest.update(repr((name, sql)).encode())
    if not (sql or "").upper().startswith("CREATE VIRTUAL"):
        for row in sorted((repr(r) for r in db.execute(f'SELECT * FROM "{name}"'))):
            digest.update(row.encode())
print(digest.hexdigest())
PY
}
count() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$2" | head -n1; }
echo "== install the previous release $(basename "$previous")"
install_deb "$previous" install-old
old_version="$(dpkg-query -W -f='${Version}' trove)"
ok "apt-get install: trove $old_version"
DOCS=/opt/trove/_internal/resources/sample_docs
cp -r "$DOCS" "$WORK/docs"  # the documents stay where the library saw them, whatever the packages do
chmod -R a+rX "$WORK/docs"
as_user index-old index "$WORK/docs" --json
grep -Eq '"files_indexed": [1-9]' "$WORK/index-old.out" || fail "the previous release indexed no files"
as_user search-old search --mode keyword "sourdough starter" --json
grep -q sourdough "$WORK/search-old.out" || fail "the previous release's search misses the bread document"
as_user stats-old stats --json
docs_before="$(count documents "$WORK/stats-old.out")"; chunks_before="$(count chunks "$WORK/stats-old.out")"
db_before="$(sha256sum "$LIBRARY/library.db" | cut -c1-64)"
content_before="$(content_hash "$LIBRARY/library.db")"
library_before="$(cd "$LIBRARY" && find . -type f -printf '%P %s\n' | sort | sha256sum | cut -c1-16)"
ok "trove $old_version indexed the sample documents ($docs_before documents, $chunks_before chunks) and finds sourdough"

# ---------------------------------------------------------------------------------------------- upgrade
echo "== upgrade to $(basename "$this")"
install_deb "$this" install-new
new_version="$(dpkg-query -W -f='${Version}' trove)"
[[ "$new_version" != "$old_version" ]] || fail "the version did not change ($new_version)"
ok "apt-get install over it: trove $old_version -> $new_version"
library_after="$(cd "$LIBRARY" && find . -type f -printf '%P %s\n' | sort | sha256sum | cut -c1-16)"
[[ "$library_before" == "$library_after" && "$(sha256sum "$LIBRARY/library.db" | cut -c1-64)" == "$db_before" ]] \
    || fail "the package upgrade changed the user's library"
ok "the upgrade left ~/.local/share/Trove as it was (same files, same bytes)"

# ---------------------------------------------------------------------------------------------- the new release
# the first command of the new Trove migrates (when the schema changed); the start after that drops the snapshot
as_user search-new-keyword search --mode keyword "sourdough starter" --json
grep -q sourdough "$WORK/search-new-keyword.out" || fail "after the upgrade, keyword search misses the bread document"
if [[ -f "$LIBRARY/library.db.before-upgrade" ]]; then  # the schema changed: the snapshot is the old file
    [[ "$(content_hash "$LIBRARY/library.db.before-upgrade")" == "$content_before" ]] \
        || fail "library.db.before-upgrade does not hold the previous release's database"
    ok "the schema was upgraded; library.db.before-upgrade holds the old database, every table and row (trove repair --rollback)"
else
    ok "same schema: no migration ran, no snapshot was needed"
fi
as_user search-new-hybrid search --mode hybrid "sourdough starter" --json
grep -q sourdough "$WORK/search-new-hybrid.out" || fail "after the upgrade, hybrid search misses the bread document"
ok "trove $new_version search (keyword, hybrid) -> the sourdough document"
as_user stats-new stats --json
[[ "$(count documents "$WORK/stats-new.out")" == "$docs_before" ]] || fail "document count changed on upgrade"
[[ "$(count chunks "$WORK/stats-new.out")" == "$chunks_before" ]] || fail "chunk count changed on upgrade"
ok "the same $docs_before documents and $chunks_before chunks after the upgrade"
as_user repair repair
grep -q "the library database is fine" "$WORK/repair.out" || fail "trove repair: $(head -n1 "$WORK/repair.out")"
ok "trove repair: $(head -n1 "$WORK/repair.out")"
echo "deb upgrade test: $passed passed, 0 failed"
