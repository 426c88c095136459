#!/bin/bash
# Run every kunit/*.kunitconfig with kunit.py on UML, out of tree, and print
# one TAP line per KUnit case.
# Environment: SRC (source tree, default build/linux), JOBS.
set -eu
. "$(dirname "$0")/lib.sh"

src=${SRC:-$TREE}
[ -x "$src/tools/testing/kunit/kunit.py" ] || die "no source tree at $src: run 'make tree'"
n=0 failed=0
for cfg in "$ROOT"/kunit/*.kunitconfig; do
	[ -f "$cfg" ] || continue
	name=$(basename "$cfg" .kunitconfig)
	out=$BUILD/kunit/$(basename "$src")-$name
	mkdir -p "$out"
	log=$out/kunit.log
	status=0
	(cd "$src" && ./tools/testing/kunit/kunit.py run --kunitconfig="$cfg" \
		--build_dir="$out" --jobs="$JOBS" --timeout=300 \
		--make_options="CC=ccache gcc") >"$log" 2>&1 || status=$?
	cases=$(sed -nE 's/^\[[0-9:]+\] \[(PASSED|FAILED|SKIPPED|CRASHED)\] (.*)$/\1 \2/p' "$log")
	while read -r verdict case; do
		[ -n "$verdict" ] || continue
		n=$((n + 1))
		case "$verdict" in
		PASSED) echo "ok $n - kunit $name: $case" ;;
		SKIPPED) echo "ok $n - kunit $name: $case # SKIP" ;;
		*) failed=$((failed + 1)); echo "not ok $n - kunit $name: $case # $verdict" ;;
		esac
	done <<<"$cases"
	if [ "$status" != 0 ] || [ -z "$cases" ]; then
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n - kunit $name: kunit.py run # exit $status, log $log"
		tail -n 30 "$log" >&2
	fi
done
echo "1..$n"
[ "$failed" = 0 ]
