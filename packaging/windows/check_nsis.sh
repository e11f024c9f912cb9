#!/usr/bin/env bash
# Compile quire.nsi with makensis against a dummy payload: a syntax and logic check on Linux.
# The real installer is built on a Windows runner (.github/workflows/package.yml).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/payload/_internal"
printf 'dummy' > "$tmp/payload/Quire.exe"
printf 'dummy' > "$tmp/payload/quire-cli.exe"
printf 'dummy' > "$tmp/payload/_internal/base_library.zip"
version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$here/../../desktop_app/__init__.py")
makensis -V2 -WX -DVERSION="$version" -DPAYLOAD="$tmp/payload" -DOUTFILE="$tmp/Quire-check.exe" \
    "$here/quire.nsi"
echo "makensis: compiled $(stat -c %s "$tmp/Quire-check.exe") bytes against a dummy payload"
