#!/usr/bin/env bash
# Try the Windows installer under Wine as a person would (`make package-windows-test`): a fresh
# Wine prefix (packaging/windows/wine_prefix.sh), silent per-user install, the installed
# quire-cli.exe's --self-test, index / search --json / ask --json on Czech, German and English
# notes with the output piped (every line valid UTF-8 JSON, the text intact), the window under
# Xvfb with a screenshot that is not blank, then the silent uninstall, which must keep
# %LOCALAPPDATA%\Quire (the index).
#
#   packaging/windows/smoke_wine.sh dist/Quire-<version>-setup.exe [SCRATCH_DIR]
set -euo pipefail
setup=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(realpath -m "${2:-build/windows/smoke}")
rm -rf "$scratch"
mkdir -p "$scratch"
# The prefix lives outside the source tree: its z: drive links to /, which a tree walk follows.
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
WINEPREFIX=$(mktemp -d)/wine
trap 'wineserver --kill 2>/dev/null || true; rm -rf "$(dirname "$WINEPREFIX")"' EXIT
export LC_ALL=C.UTF-8 HF_HUB_OFFLINE=1
unset QUIRE_HOME  # the installed app keeps its data where a user's would be
step() { printf '\n== %s (%s s)\n' "$1" "$SECONDS"; }
fail() { echo "smoke_wine: FAILED: $1" >&2; exit 1; }
# Python under Wine fails writing to a regular file (WinError 6): everything goes through cat.
cli() { wine "$app\\quire-cli.exe" "$@" 2> >(cat >>"$scratch/stderr.txt") | cat; }

step "fresh Wine prefix"
"$here/wine_prefix.sh" "$WINEPREFIX"
local_appdata="$WINEPREFIX/drive_c/users/$(id -un)/AppData/Local"
[ -d "$local_appdata" ] || fail "no $local_appdata"
installed="$local_appdata/Programs/Quire"
data="$local_appdata/Quire"

step "silent install: $(basename "$setup") ($(stat -c %s "$setup") bytes)"
start=$SECONDS
wine "$setup" /S
wineserver --wait
[ -f "$installed/quire-cli.exe" ] || fail "nothing installed in $installed"
echo "installed in $((SECONDS - start)) s: $(du -sm "$installed" | cut -f1) MiB"
app=$(winepath -w "$installed")

step "quire-cli.exe --self-test"
cli --self-test >"$scratch/selftest.json" || { cat "$scratch"/*.txt; fail "self-test"; }
python3 - "$scratch/selftest.json" <<'PY' || fail "self-test"
import json, sys
report = json.loads(open(sys.argv[1], encoding="utf-8").read())
passed = [name for name, check in report["checks"].items() if check.get("ok")]
print(f"self-test: {len(passed)}/{len(report['checks'])} passed")
print("vector worker:", report["checks"].get("vector_worker"))  # spawned on Windows
print("chat model:", report["checks"].get("chat_model"))
analyzer = report["checks"].get("analyzer", {})
print("analyzer:", analyzer)  # PDFs, Word files and web pages analyzed in its process
if analyzer.get("worker") != "spawn":
    sys.exit(f"the analyzer's process did not start: {analyzer}")
ocr = report["checks"].get("ocr", {})
print("ocr:", ocr)  # the bundled scanned page read in the extraction worker, the HEIF photo
if not (ocr.get("ok") and ocr.get("engine", "").startswith("Tesseract 5")):
    sys.exit(f"OCR did not read the bundled scanned page: {ocr}")
if "libde265" not in ocr.get("heif", ""):
    sys.exit(f"the bundled HEIF photo was not decoded: {ocr}")
sys.exit(0 if report["ok"] else f"self-test failed: {json.dumps(report, ensure_ascii=False)}")
PY

step "index, search --json and ask --json on Czech, German and English notes, piped"
notes="$scratch/notes"
mkdir -p "$notes"
printf '# Kolo\n\nVýměna řetězu na kole: povolte osu, nasaďte nový řetěz a dotáhněte matice.\n' \
    >"$notes/kolo.md"
printf '# Tomaten\n\nTomaten brauchen im Sommer täglich Wasser; Größe und Süße kommen von der Sonne.\n' \
    >"$notes/garten.md"
printf '# Backups\n\nThe backup script copies the photos folder to the laptop every night.\n' \
    >"$notes/backup.md"
cli index "$(winepath -w "$notes")" >"$scratch/index.txt" || { cat "$scratch"/*.txt; fail index; }
cat "$scratch/index.txt"
cli search "výměna řetězu" --json >"$scratch/search_cs.jsonl" || fail "search (cs)"
cli search "Wie viel Wasser brauchen Tomaten?" --json >"$scratch/search_de.jsonl" || fail "search"
cli ask "Jak se dělá výměna řetězu na kole?" --json >"$scratch/ask.jsonl" || fail "ask"
python3 - "$scratch" <<'PY' || fail "output is not UTF-8 JSON with the notes' text"
import json, sys
from pathlib import Path
scratch = Path(sys.argv[1])
expect = {"search_cs.jsonl": "Výměna řetězu na kole", "search_de.jsonl": "Größe und Süße",
          "ask.jsonl": "řetěz"}
for name, text in expect.items():
    raw = (scratch / name).read_bytes().decode("utf-8")  # strict: fails on any other encoding
    lines = [json.loads(line) for line in raw.splitlines() if line.strip()]
    assert lines and text in raw, (name, raw[:400])
    print(f"{name}: {len(lines)} JSON line(s), UTF-8, has {text!r}")
done = [e for e in (json.loads(line) for line in (scratch / "ask.jsonl").open(encoding="utf-8"))
        if e.get("type") == "done"]
print("ask: " + json.dumps(done[-1] if done else "no done event", ensure_ascii=False)[:300])
PY

step "a German question over the sample notes' English bread recipe, with the default models"
cp -r "$here/../../resources/sample_notes" "$scratch/sample_notes"
cli index "$(winepath -w "$scratch/sample_notes")" >"$scratch/index-samples.txt" \
    || { cat "$scratch"/*.txt; fail "index (sample notes)"; }
cli ask "Wie viel Salz kommt in das Sauerteigbrot?" --json --max-tokens 48 \
    >"$scratch/ask-de.jsonl" || fail "ask (de)"
tail -n 1 "$scratch/ask-de.jsonl" | head -c 400; echo
head -n 1 "$scratch/ask-de.jsonl" | grep -q '"path": "recipes/bread.md"' \
    || fail "the German question did not find bread.md"
tail -n 1 "$scratch/ask-de.jsonl" | grep -q '10 g' || fail "the answer lacks the salt"

step "the window (Quire.exe) under Xvfb"
shot="$scratch/window.png"
found="$scratch/window.txt"
# Wine's desktop process started by the steps above has no display: end it, so that the window
# gets one started under Xvfb.
wineserver --kill
wineserver --wait
# The window must be Quire's own: a visible window titled exactly "Quire", as large as the main
# window opens (an error box such as "Failed to start embedded python interpreter!" carries the
# app's name too, but is small). Its geometry is written down, then the window is captured.
# shellcheck disable=SC2016  # expanded by the inner shell, from its arguments
xvfb-run -a -s "-screen 0 1280x800x24" bash -c '
    wine "$1\\Quire.exe" >/dev/null 2>&1 &
    if timeout 300 xdotool search --sync --onlyvisible --name "^Quire$" >/dev/null; then
        sleep 10  # after the first paint; then the largest window of that title is kept
        for wid in $(xdotool search --onlyvisible --name "^Quire$"); do
            xdotool getwindowgeometry --shell "$wid" | tr "\n" " "; echo
        done | awk "{for (i = 1; i <= NF; i++) { split(\$i, kv, \"=\"); v[kv[1]] = kv[2] }
                     print v[\"WIDTH\"] * v[\"HEIGHT\"], \$0}" \
            | sort -n | tail -n 1 | cut -d" " -f2- | tr " " "\n" >"$3"
        import -window root "$2"
    fi
    wineserver --kill' _ "$app" "$shot" "$found" || true
[ -s "$found" ] || fail "no visible window titled Quire appeared"
# shellcheck disable=SC1090  # WIDTH and HEIGHT from xdotool
. "$found"
echo "window: ${WIDTH}x${HEIGHT}"
if [ "${WIDTH:-0}" -lt 640 ] || [ "${HEIGHT:-0}" -lt 400 ]; then
    fail "the window titled Quire is ${WIDTH:-?}x${HEIGHT:-?}: an error box, not Quire's window"
fi
[ -s "$shot" ] || fail "no screenshot"
colours=$(convert "$shot" -format %k info:)
echo "screenshot: $shot, $colours colours"
[ "$colours" -gt 16 ] || fail "the screenshot is blank"

step "silent uninstall keeps %LOCALAPPDATA%\\Quire"
wine "$installed/Uninstall Quire.exe" /S
wineserver --wait
[ ! -e "$installed/quire-cli.exe" ] || fail "quire-cli.exe still installed"
ls "$data"/*.sqlite* >/dev/null 2>&1 || fail "the index in $data is gone"
echo "uninstalled; kept in %LOCALAPPDATA%\\Quire: $(cd "$data" && echo *)"
step "smoke_wine: passed"
