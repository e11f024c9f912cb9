#!/usr/bin/env bash
# Validate the .deb's desktop entry and AppStream metainfo, and run lintian (no errors allowed).
set -euo pipefail
deb=$(realpath "$1")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
desktop-file-validate "$tmp"/usr/share/applications/*.desktop
appstreamcli validate --no-net --pedantic "$tmp"/usr/share/metainfo/*.metainfo.xml
lintian --fail-on error --suppress-tags-from-file /dev/null "$deb" | tee "$tmp/lintian.txt" | tail -n 20
echo "lintian: $(grep -c '^E:' "$tmp/lintian.txt" || true) errors, $(grep -c '^W:' "$tmp/lintian.txt" || true) warnings"
