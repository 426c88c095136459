#!/bin/bash
# One job of make test (see test.sh): run CMD with its TAP on stdout kept in
# build/results/NAME.tap (RESULTS overrides the folder) and its stderr in NAME.err, note when it started
# and ended in NAME.time, and print the TAP when it is done.  A command
# that fails without a 'not ok' line of its own gets one, so that nothing
# fails silently.
#
# Usage: job.sh NAME CMD [ARG...]
set -u
. "$(dirname "$0")/lib.sh"

name=${1:?usage: job.sh NAME CMD...}
shift
results=${RESULTS:-$BUILD/results}
mkdir -p "$results"
start=$(date +%s)
status=0
"$@" >"$results/$name.tap" 2>"$results/$name.err" || status=$?
if [ "$status" != 0 ] && ! grep -q '^not ok' "$results/$name.tap"; then
	echo "not ok - $name: exited with status $status (log $results/$name.err)" >>"$results/$name.tap"
	tail -n 30 "$results/$name.err" >&2
fi
echo "$start $(date +%s)" >"$results/$name.time"
echo "==> $name: $(grep -c '^ok' "$results/$name.tap") ok, $(grep -c '^not ok' "$results/$name.tap") not ok, $(($(date +%s) - start)) s"
grep -E '^(not )?ok' "$results/$name.tap" | sed 's/^/    /'
exit 0
