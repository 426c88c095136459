#!/bin/bash
# Build installable Debian kernel packages (make bindeb-pkg) from the
# patched tree with the config scripts/config.sh makes: Debian's own 6.1
# config plus the profiling options, unless BASE is given.
#
# Usage: deb.sh [BASE]
# Environment: as for config.sh; LOCALVERSION (default -allocprof), JOBS.
# The .deb files land in the parent of COUT (default build/deb/).
set -eu
. "$(dirname "$0")/lib.sh"

"$ROOT/scripts/config.sh" "$@"
src=${SRC:-$TREE}
[ -z "${SRC:-}" ] && [ -f "$BUILD/series/.allocprof-stamp" ] && src=$BUILD/series
out=${COUT:-$BUILD/deb/linux}
msg "building Debian packages in ${out%/*} (a full distribution kernel: hours on 2 cores)"
start=$(date +%s)
make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" \
	LOCALVERSION="${LOCALVERSION:--allocprof}" bindeb-pkg >"$out/deb.log" 2>&1 || {
	tail -30 "$out/deb.log" >&2
	die "bindeb-pkg failed (log: $out/deb.log)"
}
ls -1 "${out%/*}"/*.deb
msg "make deb took $(( ($(date +%s) - start) / 60 )) min"
