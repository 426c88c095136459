# SPDX-License-Identifier: GPL-2.0
# TAP helpers shared by the command-line test scripts.  Sourced after A
# (the allocinfo binary) is set; makes the scratch folder $T, removed on
# exit.  Scripts end with tap_done.
T=$(mktemp -d /tmp/allocinfo-test.XXXXXX)
# Debian's python3 (DEPS), which starts in a tenth of the time of a
# wrapper such as pyenv's shim; any python3 otherwise
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
trap 'rm -rf "$T"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -s "$T/err" ] && sed 's/^/#   stderr: /' "$T/err" | head -5
	[ -s "$T/out" ] && sed 's/^/#   stdout: /' "$T/out" | head -8
}
check() { name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
# every run is bounded: a regression must fail, not hang the suite
run() { timeout 60 "$A" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
tap_done() {
	echo "1..$n"
	[ $failed = 0 ]
}
