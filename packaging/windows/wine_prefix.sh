#!/usr/bin/env bash
# Make a Wine prefix ready to run (and build) Quire for Windows: `wineboot`, then stand-ins for
# the two system libraries Windows 10 has and Wine 8 lacks (packaging/windows/standins/: ICU for
# Qt >= 6.7, bcryptprimitives for Rust-built extensions). Nothing else: what the app needs
# beyond Windows itself must be in the installer.
#
#   packaging/windows/wine_prefix.sh DIR
set -euo pipefail
prefix=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
export WINEPREFIX=$prefix WINEARCH=win64 WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono / Gecko download prompts
mkdir -p "$prefix"
wineboot --init >/dev/null 2>&1
wineserver --wait
system32="$prefix/drive_c/windows/system32"
[ -d "$system32" ] || { echo "wine_prefix: wineboot made no $system32" >&2; exit 1; }
x86_64-w64-mingw32-gcc -O2 -shared -o "$system32/icuuc.dll" "$here/standins/icuuc.c"
x86_64-w64-mingw32-gcc -O2 -shared -o "$system32/bcryptprimitives.dll" \
    "$here/standins/bcryptprimitives.c" -ladvapi32
echo "wine_prefix: $prefix ready ($(wine --version), stand-ins: icuuc.dll, bcryptprimitives.dll)"
