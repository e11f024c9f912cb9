#!/usr/bin/env bash
# Install the Debian tools `make package-windows` / `make package-windows-test` need, if any is
# missing: Wine (64- and 32-bit: wineboot needs both), mingw-w64 for llama.cpp and the Wine
# prefix's stand-ins, NSIS, Xvfb and xdotool / ImageMagick for the window's screenshot.
# Non-interactive apt-get as root; otherwise say what to install and stop.
set -euo pipefail
declare -A need=(
    [wine]=wine [/usr/lib/wine/wine64]=wine64 [/usr/lib/wine/wine]=wine32:i386 [ntlm_auth]=winbind
    [x86_64-w64-mingw32-g++-posix]=g++-mingw-w64-x86-64-posix [makensis]=nsis
    [xvfb-run]=xvfb [xdotool]=xdotool [import]=imagemagick [cmake]=cmake [ninja]=ninja-build
)
missing=()
for tool in "${!need[@]}"; do
    command -v "$tool" >/dev/null || [ -x "$tool" ] || missing+=("${need[$tool]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "please install: ${missing[*]} (after: sudo dpkg --add-architecture i386)" >&2
    exit 1
fi
