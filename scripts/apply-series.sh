#!/bin/bash
# Make DIR (default build/series) a copy of the pristine source with
# patches/series applied by 'patch -p1'.  Reused while neither the source
# version nor any patch changed.  On failure, names the patch and the hunks.
set -eu
. "$(dirname "$0")/lib.sh"

dir=${1:-$BUILD/series}
"$ROOT/scripts/source.sh"
version=$(source_version)
based=$(cat "$ROOT/patches/BASE" 2>/dev/null || echo unknown)
msg "linux-source-6.1 $version (series last refreshed on $based)"
[ "$version" = "$based" ] || msg "note: the source differs from patches/BASE; 'make tree' and review with git range-diff"

stamp=$( (echo "$version"; cat "$ROOT/patches/series"
	for p in $(series_patches); do cat "$ROOT/patches/$p" 2>/dev/null; done) | sha1sum | cut -c1-16)
[ "$(cat "$dir/.allocprof-stamp" 2>/dev/null)" = "$stamp" ] && exit 0

rm -rf "$dir"
# Hard links: patch replaces the files it changes, the pristine copy stays.
cp -al "$PRISTINE" "$dir"
for p in $(series_patches); do
	[ -f "$ROOT/patches/$p" ] || die "patches/$p does not apply: listed in patches/series but missing"
	if ! out=$(cd "$dir" && patch -p1 --batch --forward --fuzz=0 --no-backup-if-mismatch <"$ROOT/patches/$p" 2>&1); then
		echo "$out" | grep -E 'patching file|FAILED|can.t find|malformed|Reversed' | sed 's/^/    /' >&2
		rm -rf "$dir"
		die "patches/$p does not apply"
	fi
done
echo "$stamp" >"$dir/.allocprof-stamp"
msg "$dir: $(series_patches | wc -l) patches applied"
