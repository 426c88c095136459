#!/bin/bash
# Extract Debian's linux-source-6.1 once into build/src (the pristine copy).
set -eu
. "$(dirname "$0")/lib.sh"

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
