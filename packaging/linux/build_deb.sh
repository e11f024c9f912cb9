#!/usr/bin/env bash
# Turn the PyInstaller onedir (dist/quire) into quire_<version>_<arch>.deb and a .tar.gz.
#   packaging/linux/build_deb.sh DIST_DIR OUT_DIR VERSION
# The .deb installs the app under /opt/quire, puts `quire` on PATH (/usr/bin symlink) and adds a
# desktop entry, hicolor icons and AppStream metainfo. Removing it never touches user data
# (~/.local/share/Quire): the package owns no file there.
set -euo pipefail
dist=$(realpath "$1"); out=$(realpath -m "$2"); version=$3
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
app_id=app.quire.Quire
arch=$(dpkg --print-architecture)
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"  # the package's ./ : mktemp makes it 0700
mkdir -p "$out"

# The program: a read-only copy of the onedir.
install -d "$stage/opt" "$stage/usr/bin"
cp -a "$dist" "$stage/opt/quire"
ln -s /opt/quire/quire "$stage/usr/bin/quire"

# Desktop integration.
install -D -m 644 "$here/$app_id.desktop" "$stage/usr/share/applications/$app_id.desktop"
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -u +%F)/" "$here/$app_id.metainfo.xml" \
    > "$stage/tmp-metainfo.xml"
install -D -m 644 "$stage/tmp-metainfo.xml" "$stage/usr/share/metainfo/$app_id.metainfo.xml"
rm "$stage/tmp-metainfo.xml"
icons=$stage/usr/share/icons/hicolor
install -D -m 644 "$root/resources/icons/quire.svg" "$icons/scalable/apps/$app_id.svg"
for size in 16 24 32 48 64 128 256 512; do
    install -d "$icons/${size}x${size}/apps"
    rsvg-convert -w "$size" -h "$size" "$root/resources/icons/quire.svg" \
        -o "$icons/${size}x${size}/apps/$app_id.png"
done

# Debian metadata.
doc=$stage/usr/share/doc/quire
install -D -m 644 "$here/copyright" "$doc/copyright"
printf 'quire (%s) unstable; urgency=medium\n\n  * Release %s.\n\n -- The Quire developers <packaging@quire.app>  %s\n' \
    "$version" "$version" "$(date -u -R)" | gzip -9n > "$doc/changelog.gz"
chmod 644 "$doc/changelog.gz"
install -D -m 644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/quire"
find "$stage/opt/quire" -type d -exec chmod 755 {} +
find "$stage/opt/quire" -type f -exec chmod go-w {} +
# Shared libraries are mapped, never executed: no execute bit (lintian shared-library-is-executable).
find "$stage/opt/quire" -type f -name '*.so*' -exec chmod 644 {} +
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
install -d "$stage/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
    -e "s/@DEPENDS@/$(tr '\n' ' ' < "$here/depends" | sed 's/ *$//')/" \
    "$here/control.in" > "$stage/DEBIAN/control"

deb=$out/quire_${version}_${arch}.deb
fakeroot_cmd=(); [ "$(id -u)" = 0 ] || fakeroot_cmd=(fakeroot)
# xz -6 by default (smallest download); DEB_COMPRESS=gzip DEB_LEVEL=1 for quick local checks.
"${fakeroot_cmd[@]}" dpkg-deb --root-owner-group -Z"${DEB_COMPRESS:-xz}" -z"${DEB_LEVEL:-6}" \
    --build "$stage" "$deb" >/dev/null
tarball=$out/quire-${version}-linux-$(uname -m).tar.gz
tar -C "$(dirname "$dist")" --owner=0 --group=0 -cf - "$(basename "$dist")" | gzip -"${TAR_LEVEL:-6}" > "$tarball"
echo "$deb"
echo "$tarball"
