#!/bin/sh
# Builds dist/lightbox-<version>.zip: the plugin folder `lightbox/` at the zip's root, as
# WordPress's Plugins › Add New › Upload Plugin expects. The version is the plugin header's.
# Needs Info-ZIP zip (Debian's `zip`).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ \* Version: *//p' lightbox/lightbox.php)
[ -n "$version" ] || { echo "no Version: header in lightbox/lightbox.php" >&2; exit 1; }
grep -q "^Stable tag: $version\$" lightbox/readme.txt || { echo "readme.txt's Stable tag is not $version" >&2; exit 1; }
grep -q "define( 'LIGHTBOX_VERSION', '$version' );" lightbox/lightbox.php || { echo "LIGHTBOX_VERSION is not $version" >&2; exit 1; }
mkdir -p dist
out="dist/lightbox-$version.zip"
rm -f "$out"
# -X: no extra file attributes (uid/gid), so the archive depends only on the files.
zip -q -r -X "$out" lightbox -x '*.DS_Store'
echo "$out"
