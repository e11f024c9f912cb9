#!/usr/bin/env bash
# Check the .deb as a user would meet it: unpack it into a scratch root (dpkg-deb -x), make the
# install folder read-only, then with a fresh HOME, no QUIRE_HOME, no network (unshare -n) and
# no Python on PATH run the installed app: --self-test, index + search the bundled sample
# notes, ask with the bundled model, open the window offscreen, and refuse a newer database.
#   packaging/linux/package_test.sh dist/quire_<version>_<arch>.deb
set -euo pipefail
deb=$(realpath "$1")
scratch=$(mktemp -d /tmp/quire-package-test.XXXXXX)
cleanup() { chmod -R u+w "$scratch" 2>/dev/null || true; rm -rf "$scratch"; }
trap cleanup EXIT
dpkg-deb -x "$deb" "$scratch/root"
app=$scratch/root/opt/quire
[ "$(readlink "$scratch/root/usr/bin/quire")" = /opt/quire/quire ] || { echo "no /usr/bin/quire"; exit 1; }
chmod -R a-w "$app"                                  # the installed app must never write here
touch "$scratch/installed"                           # anything in $app newer than this = written
mkdir -p "$scratch/bin" "$scratch/home"
ln -s "$app/quire" "$scratch/bin/quire"              # what /usr/bin/quire is on a real install
home=$scratch/home
notes=$app/_internal/desktop_app/_resources/sample_notes

# A user's session: an unprivileged user (root would ignore the read-only install), nothing
# inherited from this shell, only `quire` on PATH, and no network (a new, empty net namespace).
if [ "$(id -u)" = 0 ]; then
    chmod 755 "$scratch"; chown -R 65534:65534 "$home"
    user=(unshare -n setpriv --reuid=65534 --regid=65534 --clear-groups --)
else
    echo "warning: not root, so the read-only install is only checked by modification times"
    user=(unshare -rn)
fi
as_user() {
    "${user[@]}" env -i HOME="$home" PATH="$scratch/bin" LANG=C.UTF-8 \
        XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" \
        XDG_CACHE_HOME="$home/.cache" TMPDIR="$home" QT_QPA_PLATFORM=offscreen "$@"
}
step() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "no Python on the user's PATH"
if as_user /bin/sh -c 'command -v python3 || command -v python'; then fail "python on PATH"; fi

step "quire --version"
as_user quire --version

step "network is really off"
as_user /bin/sh -c 'exec 3<>/dev/tcp/1.1.1.1/80' 2>/dev/null && fail "network reachable"
echo "no route out"

step "quire --self-test"
as_user quire --self-test > "$scratch/selftest.json" || { cat "$scratch/selftest.json"; fail "self-test"; }
grep -q '"ok": true' "$scratch/selftest.json" && head -c 400 "$scratch/selftest.json"; echo
# The extractor's workers fork from a fork server in the frozen app too (not a fallback).
grep -q '"worker": "forkserver"' "$scratch/selftest.json" || fail "extractor worker not forked"
# Passage vectors come from the vector worker process, started the same way.
python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))["checks"]["vector_worker"]; \
sys.exit(0 if v["where"] == "worker" and v["started_by"] == "forkserver" else f"vector worker: {v}")' \
    "$scratch/selftest.json" || fail "vectors not computed in the worker process"
# PDFs, Word files and web pages are analyzed in the analyzer's process, started the same way.
python3 -c 'import json, sys; a = json.load(open(sys.argv[1]))["checks"]["analyzer"]; \
sys.exit(0 if a["worker"] == "forkserver" else f"analyzer: {a}")' \
    "$scratch/selftest.json" || fail "the analyzer's process did not fork from the fork server"
# The chat model answers from its own process (as the window runs it), started the same way.
python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["checks"]["chat_model"]; \
sys.exit(0 if c["started_by"] == "forkserver" else f"chat model: {c}")' \
    "$scratch/selftest.json" || fail "the chat model's process did not fork from the fork server"
# OCR read the bundled scanned page in the extraction worker, with the shipped languages, and
# the bundled phone photo (HEIF) was decoded.
python3 -c 'import json, sys; o = json.load(open(sys.argv[1]))["checks"]["ocr"]; print("ocr:", o); \
sys.exit(0 if o["engine"].startswith("Tesseract 5") and o["languages"] == ["ces", "deu", "eng"] \
and "libde265" in o["heif"] else f"ocr: {o}")' "$scratch/selftest.json" \
    || fail "OCR did not read the bundled scanned page, or the HEIF photo"

step "index + search the bundled sample notes"
as_user quire index "$notes"
as_user quire search --json "how long to bake sourdough bread" > "$scratch/search.json"
head -c 300 "$scratch/search.json"; echo
grep -q 'bread.md' "$scratch/search.json" || fail "sample search did not find bread.md"
# The PDF goes through the extractor's worker in the frozen app.
as_user quire search --json "Word documents saved web pages" > "$scratch/search-pdf.json"
grep -q 'quire-guide.pdf' "$scratch/search-pdf.json" || fail "the sample PDF was not indexed"

step "quire ask --json with the bundled model"
as_user quire ask --json --max-tokens 48 "How long does the sourdough bake?" > "$scratch/ask.jsonl"
tail -n 2 "$scratch/ask.jsonl" | head -c 600; echo
grep -q '"type": *"done"\|"event": *"done"\|"done"' "$scratch/ask.jsonl" || fail "ask did not finish"

step "the default models answer a German question from an English note"
grep -q '"model": "multilingual-e5-small' "$scratch/selftest.json" || fail "no multilingual model"
as_user quire ask --json --max-tokens 48 "Wie viel Salz kommt in das Sauerteigbrot?" \
    > "$scratch/ask-de-default.jsonl"
tail -n 1 "$scratch/ask-de-default.jsonl" | head -c 400; echo
head -n 1 "$scratch/ask-de-default.jsonl" | grep -q '"path": "recipes/bread.md"' \
    || fail "the German question did not find bread.md with the default models"
tail -n 1 "$scratch/ask-de-default.jsonl" | grep -q '10 g' || fail "the answer lacks the salt"

step "the multilingual model chosen as the index's own answers it too"
multi=$home/multilingual  # its own home, the model chosen as Settings saves it
mkdir -p "$multi"
echo '{"embedding_model": "multilingual-e5-small"}' > "$multi/settings.json"
[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$multi"
as_user /usr/bin/env QUIRE_HOME="$multi" quire index "$notes"
as_user /usr/bin/env QUIRE_HOME="$multi" quire ask --json --max-tokens 48 \
    "Wie viel Salz kommt in das Sauerteigbrot?" > "$scratch/ask-de.jsonl"
tail -n 1 "$scratch/ask-de.jsonl" | head -c 400; echo
head -n 1 "$scratch/ask-de.jsonl" | grep -q '"path": "recipes/bread.md"' \
    || fail "the German question did not find bread.md"
tail -n 1 "$scratch/ask-de.jsonl" | grep -q '10 g' || fail "the answer lacks the salt"

step "the window opens offscreen on a copy of the sample notes"
as_user quire --sample-notes --smoke | tee "$scratch/smoke.json"
grep -q '"visible": true' "$scratch/smoke.json" || fail "window not shown"
[ -f "$home/.local/share/Quire/sample_notes/welcome.md" ] || fail "sample notes not copied"

step "the user's data lives under HOME, nothing was written into the install"
ls "$home/.local/share/Quire"
changed=$(find "$app" -newer "$scratch/installed" -print -quit)
[ -z "$changed" ] || fail "the app wrote into its install folder: $changed"

step "installing again over the installed app upgrades in place and keeps the user's index"
notes_before=$(as_user quire status --json | grep -o '"notes": *[0-9]*' | head -n 1)
chmod -R u+w "$app" && dpkg-deb -x "$deb" "$scratch/root" && chmod -R a-w "$app"
notes_after=$(as_user quire status --json | grep -o '"notes": *[0-9]*' | head -n 1)
echo "before: $notes_before, after: $notes_after"
[ -n "$notes_before" ] && [ "$notes_before" = "$notes_after" ] || fail "the index changed"
as_user quire search --json "how long to bake sourdough bread" | grep -q 'bread.md' \
    || fail "search after the upgrade did not find bread.md"

step "a database from a newer Quire is refused clearly and left as it was"
db=$home/.local/share/Quire/quire.sqlite
[ -f "$db" ] || fail "no database at $db"
# The harness (not the user's session) plays the newer version, with the build machine's Python.
python3 - "$db" <<'PY'
import sqlite3, sys
with sqlite3.connect(sys.argv[1]) as conn:
    conn.execute("INSERT INTO migrations VALUES ('9999_from_a_newer_quire', 0)")
PY
before=$(sha256sum "$db")
set +e; as_user quire status > "$scratch/newer.out" 2>&1; code=$?; set -e
cat "$scratch/newer.out"
[ "$code" = 3 ] || fail "expected exit 3 for a newer database, got $code"
grep -q "newer version of Quire" "$scratch/newer.out" || fail "unclear message"
[ "$(sha256sum "$db")" = "$before" ] || fail "the newer database was modified"

printf '\npackage-test: all checks passed for %s\n' "$(basename "$deb")"
