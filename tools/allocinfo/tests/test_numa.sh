#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocinfo --numa on per-node files (/proc/allocinfo_numa copies).
# Usage: test_numa.sh ALLOCINFO-BINARY.  One TAP line per case; expected
# numbers come from the fixture through awk, not from allocinfo.
A=$1
F=tests/fixtures/numa.txt
. "${0%/*}/tap.sh"
# fixture: bytes and calls of LOC on NODE, "0 0" if it has no row there
want() {
	awk -v loc="$1" -v node="node:$2" '$3 == loc && $0 ~ (" " node "( |$)") { b += $1; c += $2 }
		END { print b + 0, c + 0 }' "$F"
}
# output --csv: bytes and calls of LOC on NODE
got() {
	awk -F, -v f="${1%:*}" -v l="${1##*:}" -v node="$2" \
		'$1 == f && $2 == l && $5 == node { print $6, $7 }' "$T/out"
}

run --numa -b --csv "$F"
check "csv: exit 0" [ "$rc" = 0 ]
check "csv: one line per call site and node (3 x 3 + header)" \
	[ "$(wc -l <"$T/out" | tr -d ' ')" = 10 ]
bad=""
for loc in mm/slub.c:1234 drivers/foo/bar.c:77 lib/idr.c:42; do
	for node in 0 1 2; do
		[ "$(got $loc $node)" = "$(want $loc $node)" ] ||
			bad="$bad $loc/$node: '$(got $loc $node)' != '$(want $loc $node)'"
	done
done
check "csv: every node's bytes and calls equal the fixture's rows" [ -z "$bad" ]

# the metrics formats: one sample per call site and node, the fixture's
# numbers, zero where a site has no row for a node
for fmt in prometheus openmetrics; do
	run --numa --$fmt "$F"
	bad=""
	for loc in mm/slub.c:1234 drivers/foo/bar.c:77 lib/idr.c:42; do
		for node in 0 1 2; do
			g=$(awk -v f="file=\"${loc%:*}\"" -v l="line=\"${loc##*:}\"" -v n="node=\"$node\"" '
				index($0, f) && index($0, l) && index($0, n) && /^allocinfo_node_bytes\{/ { b = $NF }
				index($0, f) && index($0, l) && index($0, n) && /^allocinfo_node_calls\{/ { c = $NF }
				END { print b, c }' "$T/out")
			[ "$g" = "$(want $loc $node)" ] || bad="$bad $loc/$node: '$g' != '$(want $loc $node)'"
		done
	done
	check "$fmt: per-node samples equal the fixture's rows" eval '[ $rc = 0 ] && [ -z "$bad" ] && [ $(grep -c "^allocinfo_node_bytes{" "$T/out") = 9 ]'
done
# the families of the read: totals over every call site of the file,
# whatever the filters and -n show; a live file's switch
val() { awk -v k="$1" '$1 == k { print $2; f = 1 } END { if (!f) print "none" }' "$T/out"; }
sums=$(awk '/^ *[0-9]/ { b += $1; c += $2 } END { print b, c }' "$F")
for args in "" "--module foo" "-n 1"; do
	run --numa --prometheus $args "$F"
	check "prometheus ${args:-whole}: read success, 3 sites, the file's totals" eval '[ $rc = 0 ] &&
		[ "$(val allocinfo_read_success)" = 1 ] && [ "$(val allocinfo_call_sites)" = 3 ] &&
		[ "$(val allocinfo_total_bytes) $(val allocinfo_total_calls)" = "$sums" ] &&
		[ "$(val allocinfo_malformed_lines)" = 0 ] && ! grep -q "^allocinfo_profiling" "$T/out"'
done
run --numa --prometheus --module foo "$F"
check "prometheus --module foo: only foo's node samples" eval '[ $(grep -c "^allocinfo_node_bytes{" "$T/out") = 3 ] && ! grep "^allocinfo_node_bytes{" "$T/out" | grep -qv foo'
if command -v promtool >/dev/null; then
	check "prometheus: promtool check metrics" eval 'promtool check metrics <"$T/out" >/dev/null 2>&1'
else
	ok "prometheus: promtool check metrics # SKIP no promtool"
fi
P=$T/proc
mkdir -p "$P/sys/vm"
echo 1 >"$P/sys/vm/mem_profiling"
cp "$F" "$P/allocinfo_numa"
: >"$P/allocinfo"
ALLOCINFO_PROC_ROOT=$P timeout 60 "$A" --numa --prometheus >"$T/out" 2>"$T/err"; rc=$?
check "prometheus live: the switch and the time of the read" eval '[ $rc = 0 ] &&
	[ "$(val allocinfo_profiling_enabled)" = 1 ] && [ "$(val allocinfo_last_success_timestamp_seconds)" != none ] &&
	[ "$(val allocinfo_call_sites)" = 3 ]'
rm "$P/allocinfo_numa"
ALLOCINFO_PROC_ROOT=$P timeout 60 "$A" --numa --openmetrics >"$T/out" 2>"$T/err"; rc=$?
check "openmetrics live file missing: exit 1, not_found, # EOF" eval '[ $rc = 1 ] &&
	[ "$(val allocinfo_read_success)" = 0 ] && [ "$(val allocinfo_read_error{reason=\"not_found\"})" = 1 ] &&
	[ "$(tail -1 "$T/out")" = "# EOF" ] && ! grep -q "^allocinfo_node_bytes" "$T/out"'
run --numa --prometheus tests/fixtures/v2.txt
check "prometheus: a file that is not per node: exit 1, format" eval '[ $rc = 1 ] &&
	[ "$(val allocinfo_read_error{reason=\"format\"})" = 1 ] && [ "$(val allocinfo_read_success)" = 0 ]'
printf 'allocinfo - version: 2.0\n 1 1 a.c:1 func:f node:x\n 2 1 b.c:1 func:g node:0\n' >"$T/bad1.txt"
run --numa --prometheus "$T/bad1.txt"
check "prometheus: a row without a valid node is a malformed line" eval '[ $rc = 0 ] &&
	[ "$(val allocinfo_malformed_lines)" = 1 ] && [ "$(val allocinfo_call_sites)" = 1 ]'
run --numa --prometheus --strict "$T/bad1.txt"
check "prometheus --strict: the read fails as malformed, exit 3" eval '[ $rc = 3 ] &&
	[ "$(val allocinfo_read_error{reason=\"malformed\"})" = 1 ] && ! grep -q "^allocinfo_node_bytes" "$T/out"'
run --numa -b "$F"
check "table: node columns" eval 'head -1 "$T/out" | grep -q "BYTES *CALLS *NODE0 *NODE1 *NODE2 *LOCATION"'
total=$(awk '$3 == "mm/slub.c:1234" { b += $1; c += $2 } END { print b, c }' "$F")
check "table: merged row is the sum over nodes" \
	eval 'grep "mm/slub.c:1234" "$T/out" | awk "{ print \$1, \$2 }" | grep -qx "$total"'
check "table: largest site first" eval 'sed -n 2p "$T/out" | grep -q "drivers/foo/bar.c:77"'
check "table: footer" grep -q '^-- 3 call sites (3 shown) on 3 nodes' "$T/out"

run --numa -b --module foo "$F"
check "filter: --module keeps one site" eval '[ $(grep -c "^ *[0-9]" "$T/out") = 1 ] && grep -q foo_init "$T/out"'
run --numa -n 1 "$F"
check "limit: -n 1" grep -q '(1 shown)' "$T/out"
run --numa --sort calls -b "$F"
check "sort: --sort calls" eval 'sed -n 2p "$T/out" | grep -q foo_init && sed -n 4p "$T/out" | grep -q idr_alloc'
cat "$F" | timeout 60 "$A" --numa -b --csv - >"$T/b" 2>"$T/err"
run --numa -b --csv "$F"
check "source: - reads stdin" cmp -s "$T/out" "$T/b"
# rows as the kernel now ends them, a blank before the newline
sed -E '/^ *[-0-9]/s/$/ /' "$F" | timeout 60 "$A" --numa -b --csv - >"$T/b" 2>"$T/err"
check "source: rows ending in a blank read alike" eval 'cmp -s "$T/out" "$T/b" && ! [ -s "$T/err" ]'

# a file that is not per node is the wrong input (1), not a malformed one
run --numa tests/fixtures/v2.txt
check "error: file without node:N pairs exits 1" eval '[ $rc = 1 ] && grep -q "not a per-node file" "$T/err"'
run --numa --strict tests/fixtures/v1.txt
check "error: file without node:N pairs exits 1 with --strict too" eval '[ $rc = 1 ] && grep -q "not a per-node file" "$T/err"'
# a bad row of a per-node file is a malformed line: warned and skipped,
# fatal (3) with --strict
printf 'allocinfo - version: 2.0\n 1 1 a.c:1 func:f node:x\n 2 1 b.c:1 func:g node:0\n' >"$T/bad.txt"
run --numa "$T/bad.txt"
check "malformed: invalid node warned, row skipped, exit 0" eval '[ $rc = 0 ] && grep -q "bad.txt:2: invalid node .x." "$T/err" && grep -q "b.c:1" "$T/out" && ! grep -q "a.c:1" "$T/out"'
run --numa --strict "$T/bad.txt"
check "malformed: invalid node with --strict exits 3" eval '[ $rc = 3 ] && grep -q "invalid node" "$T/err"'
printf 'allocinfo - version: 2.0\n 1 1 a.c:1 func:f node:99999\n 2 1 b.c:1 func:g node:1\n 3 1 c.c:1 func:h\n' >"$T/bad.txt"
run --numa --strict "$T/bad.txt"
check "malformed: node id out of range, row without node" eval '[ $rc = 3 ] && grep -q "bad.txt:2: invalid node" "$T/err" && grep -q "bad.txt:4: row without node:N" "$T/err"'
ALLOCINFO_PROC_ROOT=$T run --numa
check "error: no live per-node file" eval '[ $rc = 1 ] && grep -q "single node" "$T/err"'
run --numa -s rate "$F"
check "usage: --numa with -s rate" eval '[ $rc = 2 ] && grep -q "top" "$T/err"'
run --numa --prometheus -o "$T/numa.prom" "$F"
check "output: -o FILE" eval '[ $rc = 0 ] && ! [ -s "$T/out" ] && grep -q "^allocinfo_node_bytes{" "$T/numa.prom"'
run --numa --json "$F"
check "usage: --numa with --json" eval '[ $rc = 2 ] && grep -q "openmetrics or --prometheus" "$T/err"'
run --numa -g module "$F"
check "usage: --numa with --group" [ "$rc" = 2 ]
run top --numa "$F"
check "usage: --numa with a subcommand" [ "$rc" = 2 ]
mkdir -p "$T/proc" && cp "$F" "$T/proc/allocinfo_numa"
ALLOCINFO_PROC_ROOT=$T/proc run --numa -b --csv
check "live: reads PROC_ROOT/allocinfo_numa" eval '[ $rc = 0 ] && [ "$(got lib/idr.c:42 2)" = "$(want lib/idr.c:42 2)" ]'

tap_done
