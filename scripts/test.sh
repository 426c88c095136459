#!/bin/bash
# make test: every test layer of design.md section 4 that exists, each
# printing TAP (kept in build/results/), then one line 'N passed, N failed'.
# Kernels and KUnit are built from build/series: the pristine source with
# patches/series applied by check-series, so what is tested is what is
# committed, whatever build/linux holds.
set -u
. "$(dirname "$0")/lib.sh"

results=$BUILD/results
rm -rf "$results"
mkdir -p "$results"
export SRC=$BUILD/series KOUT=$BUILD/test/kernel

layer() { # layer NAME CMD...: run, keep TAP, and fail the layer if it says nothing
	local name=$1 status=0
	shift
	msg "test layer: $name"
	"$@" 2>"$results/$name.err" | tee "$results/$name.tap" || status=$?
	[ "$status" = 0 ] || tail -n 40 "$results/$name.err" >&2
	if [ "$status" != 0 ] && ! grep -q '^not ok' "$results/$name.tap"; then
		echo "not ok - $name: exited with status $status" | tee -a "$results/$name.tap"
	fi
	return 0
}

if [ -f "$ROOT/tools/allocinfo/Makefile" ]; then
	layer tools make -s -C "$ROOT/tools/allocinfo" test
fi
layer series "$ROOT/scripts/check-series.sh"
if [ -f "$SRC/.allocprof-stamp" ]; then
	layer config env COUT="$BUILD/test/deb-config" "$ROOT/scripts/config.sh" --tap
	layer kunit "$ROOT/scripts/kunit.sh"
	layer boot "$ROOT/scripts/boot-tests.sh"
fi

cat "$results"/*.tap >"$results/all.tap"
skipped=$(grep -cE '^ok .*# SKIP' "$results/all.tap")
passed=$(($(grep -c '^ok' "$results/all.tap") - skipped))
failed=$(grep -c '^not ok' "$results/all.tap")
if [ "$failed" != 0 ]; then
	echo
	echo "Failed:"
	grep '^not ok' "$results/all.tap" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
