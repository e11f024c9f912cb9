#!/usr/bin/env bash
# Install the Debian tools `make package` / `make package-test` need, if any is missing.
# Non-interactive apt-get as root; otherwise say what to install and stop.
set -euo pipefail
declare -A need=(
    [dpkg-deb]=dpkg-dev [fakeroot]=fakeroot [desktop-file-validate]=desktop-file-utils
    [appstreamcli]=appstream [lintian]=lintian [rsvg-convert]=librsvg2-bin
    [makensis]=nsis [xvfb-run]=xvfb [qemu-x86_64]=qemu-user [setpriv]=util-linux
    [objdump]=binutils [shellcheck]=shellcheck
)
missing=()
for tool in "${!need[@]}"; do
    command -v "$tool" >/dev/null || missing+=("${need[$tool]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "please install: ${missing[*]} (e.g. sudo apt-get install ${missing[*]})" >&2
    exit 1
fi
