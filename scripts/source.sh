#!/bin/bash
# Extract Debian's linux-source-6.1 once into build/src (the pristine copy).
# --peer: Debian's linux-source-6.12 into build/peer instead (make bench
# PEER=1), and print the tree's path.
set -eu
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" = --peer ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz tree=$BUILD/peer/linux-source-6.12
	[ -r "$tarball" ] || die "$tarball missing: run 'PEER=1 make deps'"
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	if [ "$(cat "$BUILD/peer/.version" 2>/dev/null)" != "$version" ] || [ ! -d "$tree" ]; then
		msg "extracting linux-source-6.12 $version into $tree"
		rm -rf "$BUILD/peer"
		mkdir -p "$BUILD/peer"
		tar -C "$BUILD/peer" -xf "$tarball"
		echo "$version" >"$BUILD/peer/.version"
	fi
	echo "$tree"
	exit 0
fi
[ -r "$SOURCE_TARBALL" ] || die "$SOURCE_TARBALL missing: run 'make deps'"
stamp=$BUILD/src/.version
version=$(source_version)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ] && [ -d "$PRISTINE" ]; then
	msg "pristine source: linux-source-6.1 $version (already extracted)"
	exit 0
fi
msg "extracting linux-source-6.1 $version into $PRISTINE"
rm -rf "$PRISTINE"
mkdir -p "$BUILD/src"
tar -C "$BUILD/src" -xf "$SOURCE_TARBALL"
echo "$version" >"$stamp"
