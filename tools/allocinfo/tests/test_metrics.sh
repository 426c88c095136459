#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The metrics formats as a fleet's monitoring uses them, and contrib/.
# Usage: test_metrics.sh ALLOCINFO-BINARY [SANITIZER-BUILD]
#
#  - the read, profiling and total families: values from the fixtures
#    (awk sums), the live file through ALLOCINFO_PROC_ROOT (each state of
#    vm.mem_profiling), and each way a read fails: a well-formed
#    exposition that says why, the documented exit status, -o replaced,
#    the time of the last success carried over from the file replaced;
#  - occurrence labels that are the tag's own, whatever --nonzero, -n,
#    the sort order and the filters let through;
#  - contrib/: promtool check rules and test rules (and that the rule
#    tests fail when an alert is broken), systemd-analyze verify on the
#    service and timer as make install writes them, and the service's
#    ExecStart run in a scratch directory: an atomic replacement.
# promtool (Debian's prometheus), prometheus_client and systemd-analyze
# are in DEPS; without one its checks are TAP SKIPs.
A=$1
ASAN=$2
F=tests/fixtures
C=contrib
. "${0%/*}/tap.sh"
has() { grep -q -e "$1" "$T/out"; }
errhas() { grep -q -e "$1" "$T/err"; }
# value of a sample: val NAME_AND_LABELS (the text before the blank)
val() { awk -v k="$1" 'substr($0, 1, length(k) + 1) == k " " { print $2; f = 1 } END { if (!f) print "none" }' "$T/out"; }
awksum() { awk -v c="$1" 'f && $1 ~ /^-?[0-9]+$/ { s += $c; n++ } /^allocinfo - version:/ { f = 1 } END { printf "%.0f %d\n", s, n }' "$2"; }
# one-hot: the enumeration NAME has label L=V at 1 and every other at 0
onehot() {
	awk -v n="$1" -v l="$2" -v v="$3" '
		index($0, n "{" l "=\"") == 1 {
			seen++
			want = index($0, n "{" l "=\"" v "\"}") == 1 ? 1 : 0
			if ($2 != want) bad = 1
			if (want) hit = 1
		}
		END { exit !(seen > 1 && hit && !bad) }' "$T/out"
}
live() { ALLOCINFO_PROC_ROOT=$P timeout 60 "$A" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
promok() {
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" >"$T/prom.log" 2>&1 || { sed 's/^/#   promtool: /' "$T/prom.log" | head -5; return 1; }
	fi
}
OMPY=
for py in "$PY" python3; do
	if command -v "$py" >/dev/null && "$py" -c 'import prometheus_client' 2>/dev/null; then OMPY=$py; break; fi
done
# the OpenMetrics parser of Prometheus's Python client reads FILE
omok() {
	[ -z "$OMPY" ] && return 0
	"$OMPY" - "$1" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fams = list(text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()))
assert fams, "no families"
PY
}
# structure both flavours share: every family has HELP and TYPE before its
# samples, families are not repeated, every sample belongs to the family
# above it; checked without promtool too
structok() {
	awk '
		/^# (HELP|TYPE|UNIT) / {
			fam = $3; sub(/_info$/, "", fam)
			if (fam != cur) { if (fam in done) bad = "repeated " fam; done[fam] = 1; cur = fam }
			meta[$2 " " fam] = 1
			next
		}
		/^# EOF$/ { eof = NR; next }
		/^#/ { bad = "comment " $0 }
		/^[a-z]/ {
			name = $1; sub(/\{.*/, "", name); base = name; sub(/_info$/, "", base)
			if (base != cur || !meta["HELP " cur] || !meta["TYPE " cur]) bad = "sample " $0
			if ($NF !~ /^-?[0-9]+(\.[0-9]+)?$/) bad = "value " $0
		}
		END { if (bad) { print "# " bad; exit 1 } }' "$1"
}

SUM=$(awksum 1 "$F/v1.txt")
TB=${SUM% *}
NS=${SUM#* }
TC=$(awksum 2 "$F/v1.txt")
TC=${TC% *}

# ---- the source's families on a file -----------------------------------
run --prometheus "$F/v1.txt"
check "file: allocinfo_read_success 1, every read_error reason 0" eval '[ $rc = 0 ] && [ "$(val allocinfo_read_success)" = 1 ] && [ $(grep -c "^allocinfo_read_error{reason=\"[a-z_]*\"} 0$" "$T/out") = 6 ]'
check "file: call sites and totals equal the fixture's (awk: $NS sites, $TB bytes, $TC calls)" eval '[ "$(val allocinfo_call_sites)" = "$NS" ] && [ "$(val allocinfo_total_bytes)" = "$TB" ] && [ "$(val allocinfo_total_calls)" = "$TC" ] && [ "$(val allocinfo_malformed_lines)" = 0 ]'
check "file: no profiling switch or read time for a saved copy" eval '! has "^allocinfo_profiling" && ! has "^allocinfo_last_success"'
check "file: HELP and TYPE for every new family" eval '( for m in read_success read_error malformed_lines call_sites total_bytes total_calls; do grep -q "^# HELP allocinfo_$m " "$T/out" && grep -q "^# TYPE allocinfo_$m gauge$" "$T/out" || exit 1; done )'
check "file: the output's structure" structok "$T/out"
for opts in "-n 1" "--nonzero" "--module ^foo$" "--min-bytes 1M" "-g module" "-s +bytes -n 2" "-x --func foo_init"; do
	run --prometheus $opts "$F/v1.txt"
	check "file: totals over every row whatever $opts outputs" eval '[ $rc = 0 ] && [ "$(val allocinfo_call_sites)" = "$NS" ] && [ "$(val allocinfo_total_bytes)" = "$TB" ] && [ "$(val allocinfo_total_calls)" = "$TC" ]'
done
run --openmetrics "$F/v1.txt"
check "openmetrics: UNIT of the totals, EOF last" eval 'has "^# UNIT allocinfo_total_bytes bytes$" && [ "$(tail -1 "$T/out")" = "# EOF" ] && [ "$(val allocinfo_total_bytes)" = "$TB" ]'
check "openmetrics: the parser reads it" omok "$T/out"
run --prometheus "$F/malformed/bad-rows.txt"
nm=$("$A" --json "$F/malformed/bad-rows.txt" 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["malformed"])')
check "file: malformed lines skipped are counted ($nm), the read succeeds" eval '[ $rc = 0 ] && [ "$nm" -gt 0 ] && [ "$(val allocinfo_malformed_lines)" = "$nm" ] && [ "$(val allocinfo_read_success)" = 1 ]'

# ---- the live file: the switch and the time ----------------------------
P=$T/proc
mkdir -p "$P/sys/vm"
cp "$F/v1.txt" "$P/allocinfo"
echo 1 >"$P/sys/vm/mem_profiling"
t0=$(date +%s)
live --prometheus
t1=$(date +%s)
ts=$(val allocinfo_last_success_timestamp_seconds)
check "live: vm.mem_profiling 1 is enabled" eval '[ $rc = 0 ] && [ "$(val allocinfo_profiling_enabled)" = 1 ] && onehot allocinfo_profiling_state state enabled'
check "live: last success is the time of this read" eval '[ "$ts" != none ] && [ "$ts" -ge "$t0" ] && [ "$ts" -le "$t1" ]'
check "live: totals of the live file" eval '[ "$(val allocinfo_total_bytes)" = "$TB" ] && [ "$(val allocinfo_read_success)" = 1 ]'
check "live: promtool check metrics" promok "$T/out"
echo 0 >"$P/sys/vm/mem_profiling"
live --prometheus
check "live: vm.mem_profiling 0 with /proc/allocinfo is disabled" eval '[ $rc = 0 ] && [ "$(val allocinfo_profiling_enabled)" = 0 ] && onehot allocinfo_profiling_state state disabled'
echo never >"$P/sys/vm/mem_profiling"
live --prometheus
check "live: vm.mem_profiling never is never" eval '[ $rc = 0 ] && [ "$(val allocinfo_profiling_enabled)" = 0 ] && onehot allocinfo_profiling_state state never'
echo 2 >"$P/sys/vm/mem_profiling"
live --prometheus
check "live: any other value is unknown" eval '[ $rc = 0 ] && onehot allocinfo_profiling_state state unknown'
rm "$P/sys/vm/mem_profiling"
live --openmetrics
check "live: no sysctl is absent (openmetrics too)" eval '[ $rc = 0 ] && onehot allocinfo_profiling_state state absent && [ "$(val allocinfo_profiling_enabled)" = 0 ] && omok "$T/out"'

# ---- failed reads: well-formed, say why, exit status kept ---------------
# fail NAME RC REASON ARGS...: the output says REASON, has no rows and no
# totals, is accepted by promtool, and the exit status is RC
fail() {
	what=$1 want=$2 reason=$3
	shift 3
	check "failure: $what: exit $want, read_success 0, reason $reason, no rows or totals" eval '[ $rc = $want ] && [ "$(val allocinfo_read_success)" = 0 ] && onehot allocinfo_read_error reason $reason && ! has "^allocinfo_bytes" && ! has "^allocinfo_total" && ! has "^allocinfo_call_sites" && [ -s "$T/err" ]'
	check "failure: $what: well-formed (structure, promtool)" eval 'structok "$T/out" && promok "$T/out"'
}
run --prometheus "$T/no-such-file.txt"
fail "missing file" 1 not_found
check "failure: missing file: the message names the file" errhas "no-such-file.txt"
run --strict --prometheus "$F/malformed/bad-rows.txt"
fail "malformed with --strict" 3 malformed
check "failure: malformed with --strict: lines counted ($nm)" eval '[ "$(val allocinfo_malformed_lines)" = "$nm" ]'
run --strict --prometheus "$F/malformed/bad-stats.txt"
fail "malformed lifetime counts with --strict" 3 malformed
run --prometheus "$F/malformed/v3.txt"
fail "unsupported version" 1 format
run --prometheus "$F/malformed/no-header.txt"
fail "not an allocinfo file" 1 format
run --prometheus --max-input 64 "$F/v1.txt"
fail "larger than --max-input" 1 too_large
run --openmetrics "$T/no-such-file.txt"
check "failure: openmetrics: EOF last, the parser reads it" eval '[ $rc = 1 ] && [ "$(tail -1 "$T/out")" = "# EOF" ] && omok "$T/out" && structok "$T/out"'
# unreadable: as root through setpriv (root reads a 0000 file)
chmod 0644 "$P/allocinfo"
cp "$F/v1.txt" "$T/secret.txt"
chmod 0400 "$T/secret.txt"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	cp "$A" "$T/allocinfo-copy" && chmod 755 "$T/allocinfo-copy"
	timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$T/allocinfo-copy" --prometheus "$T/secret.txt" >"$T/out" 2>"$T/err"; rc=$?
	fail "unreadable file" 1 permission
elif [ "$(id -u)" != 0 ]; then
	run --prometheus "$T/secret.txt"
	fail "unreadable file" 1 permission
else
	ok "failure: unreadable file # SKIP no setpriv"
	ok "failure: unreadable file: well-formed # SKIP no setpriv"
fi
rm "$P/allocinfo"
echo 1 >"$P/sys/vm/mem_profiling"
live --prometheus
fail "live file missing (kernel without profiling)" 1 not_found
check "failure: live: the switch is still reported, no time without a previous file" eval '[ "$(val allocinfo_profiling_enabled)" = 1 ] && ! has "^allocinfo_last_success"'
echo 0 >"$P/sys/vm/mem_profiling"
live --prometheus
check "failure: live: sysctl 0 without /proc/allocinfo is never" eval '[ $rc = 1 ] && onehot allocinfo_profiling_state state never'

# ---- -o on failure: replaced, the last success carried over -------------
mkdir -p "$T/tf"
cp "$F/v1.txt" "$P/allocinfo"
echo 1 >"$P/sys/vm/mem_profiling"
live --prometheus -o "$T/tf/allocinfo.prom"
cp "$T/tf/allocinfo.prom" "$T/good.prom"
prev=$(awk '$1 == "allocinfo_last_success_timestamp_seconds" { print $2 }' "$T/good.prom")
# an earlier time, so that carrying it over cannot pass for a new read
sed -i "s/^allocinfo_last_success_timestamp_seconds .*/allocinfo_last_success_timestamp_seconds 1000000000/" "$T/tf/allocinfo.prom"
rm "$P/allocinfo"
live --prometheus -o "$T/tf/allocinfo.prom"
cp "$T/tf/allocinfo.prom" "$T/out"
check "-o failure: the file says the failure, exit 1, nothing on stdout" eval '[ $rc = 1 ] && [ "$(val allocinfo_read_success)" = 0 ] && onehot allocinfo_read_error reason not_found && ! has "^allocinfo_bytes"'
check "-o failure: the last success carried over from the file replaced" eval '[ -n "$prev" ] && [ "$(val allocinfo_last_success_timestamp_seconds)" = 1000000000 ]'
check "-o failure: no temporary left" eval '[ "$(ls "$T/tf")" = allocinfo.prom ]'
live --prometheus -o "$T/tf/allocinfo.prom"
cp "$T/tf/allocinfo.prom" "$T/out"
check "-o failure twice: still carried (from a failure's own file)" eval '[ $rc = 1 ] && [ "$(val allocinfo_last_success_timestamp_seconds)" = 1000000000 ]'
rm "$T/tf/allocinfo.prom"
live --prometheus -o "$T/tf/allocinfo.prom"
cp "$T/tf/allocinfo.prom" "$T/out"
check "-o failure without a previous file: no last success" eval '[ $rc = 1 ] && ! has "^allocinfo_last_success" && [ "$(val allocinfo_read_success)" = 0 ]'
echo "allocinfo_last_success_timestamp_seconds 12x" >"$T/tf/allocinfo.prom"
live --prometheus -o "$T/tf/allocinfo.prom"
cp "$T/tf/allocinfo.prom" "$T/out"
check "-o failure: a bad previous value is not carried" eval '[ $rc = 1 ] && ! has "^allocinfo_last_success"'
mkfifo "$T/tf/fifo"
timeout 10 cat "$T/tf/fifo" >"$T/fromfifo" &
rp=$!
live --prometheus -o "$T/tf/fifo"
wait $rp
check "-o failure to a FIFO: written, never read for a previous value" eval '[ $rc = 1 ] && [ -p "$T/tf/fifo" ] && grep -q "^allocinfo_read_success 0$" "$T/fromfifo"'
cp "$F/v1.txt" "$P/allocinfo"
live --openmetrics -o "$T/tf/allocinfo.om"
check "-o success: openmetrics to a file" eval '[ $rc = 0 ] && [ "$(tail -1 "$T/tf/allocinfo.om")" = "# EOF" ] && grep -q "^allocinfo_last_success_timestamp_seconds [0-9]*$" "$T/tf/allocinfo.om"'
sed -i "s/^allocinfo_last_success_timestamp_seconds .*/allocinfo_last_success_timestamp_seconds 1000000001/" "$T/tf/allocinfo.om"
rm "$P/allocinfo"
live --openmetrics -o "$T/tf/allocinfo.om"
cp "$T/tf/allocinfo.om" "$T/out"
check "-o failure: openmetrics carries the time over too" eval '[ $rc = 1 ] && [ "$(val allocinfo_last_success_timestamp_seconds)" = 1000000001 ] && [ "$(tail -1 "$T/out")" = "# EOF" ]'

# ---- occurrence: the tag's own number ----------------------------------
# a.c:1 is on three rows (0, 300 and 200 bytes), b.c:2 on two; the
# occurrence of a row is its place among its location's rows in the file
printf 'allocinfo - version: 1.0\n 0 0 a.c:1 func:f\n 300 3 a.c:1 func:f\n 100 1 b.c:2 [m] func:g\n 200 2 a.c:1 func:f\n 50 1 b.c:2 [m] func:g\n 7 1 c.c:3 func:h\n' >"$T/dup.txt"
"$A" --prometheus -a "$T/dup.txt" 2>/dev/null | grep "^allocinfo_bytes{" | sort >"$T/full"
check "occurrence: in the order of the file" eval 'grep -qx "allocinfo_bytes{file=\"a.c\",line=\"1\",func=\"f\",module=\"vmlinux\"} 0" "$T/full" && grep -qx "allocinfo_bytes{file=\"a.c\",line=\"1\",func=\"f\",module=\"vmlinux\",occurrence=\"1\"} 300" "$T/full" && grep -qx "allocinfo_bytes{file=\"a.c\",line=\"1\",func=\"f\",module=\"vmlinux\",occurrence=\"2\"} 200" "$T/full" && grep -qx "allocinfo_bytes{file=\"b.c\",line=\"2\",func=\"g\",module=\"m\",occurrence=\"1\"} 50" "$T/full"'
# every series a narrower run outputs is the one the full run has for that row
for opts in "--nonzero" "-n 1" "-n 2 -s +bytes" "--min-bytes 150" "--func ^f$" "-x --module m" "--exclude-file ^a" "-s calls -n 3" "--nonzero -n 2 -s -line"; do
	"$A" --prometheus $opts "$T/dup.txt" 2>/dev/null | grep "^allocinfo_bytes{" | sort >"$T/part"
	check "occurrence: $opts keeps each row's series" eval '[ -s "$T/part" ] && [ -z "$(comm -23 "$T/part" "$T/full")" ]'
done
"$A" --openmetrics --nonzero "$T/dup.txt" 2>/dev/null >"$T/out"
check "occurrence: --nonzero: the 300-byte row stays occurrence 1 (openmetrics)" has '^allocinfo_calls{file="a.c",line="1",func="f",module="vmlinux",occurrence="1"} 3$'
# the fixture: mm/slub.c:1234 twice (8192, then 4096 bytes); the five
# smallest rows hold the second only, which keeps its number
run --prometheus -s +bytes -n 5 "$F/v1.txt"
check "occurrence: v1.txt, -s +bytes -n 5: the second mm/slub.c:1234 is occurrence 1" eval '[ $rc = 0 ] && has "^allocinfo_bytes{file=\"mm/slub.c\",line=\"1234\",func=\"alloc_slab_page\",module=\"vmlinux\",occurrence=\"1\"} 4096$" && ! has "^allocinfo_bytes{file=\"mm/slub.c\",line=\"1234\",func=\"alloc_slab_page\",module=\"vmlinux\"}"'
run --prometheus --max-bytes 5000 --file slub "$F/v1.txt"
check "occurrence: with --max-bytes (exit 4) as well" eval '[ $rc = 4 ] && has "occurrence=\"1\"} 4096$"'

# ---- contrib: alerting rules --------------------------------------------
if command -v promtool >/dev/null; then
	check "rules: promtool check rules" eval 'promtool check rules "$C/allocinfo.rules.yml" >"$T/err" 2>&1'
	check "rules: promtool test rules (each alert fires and does not)" eval 'promtool test rules "$C/allocinfo.rules.test.yml" >"$T/err" 2>&1'
	alerts=$(sed -n 's/^ *- alert: *//p' "$C/allocinfo.rules.yml")
	check "rules: growth, limit, read failure, staleness and profiling alerts" eval '[ "$(echo $alerts)" = "AllocinfoSiteGrowing AllocinfoSiteOverLimit AllocinfoReadFailing AllocinfoStale AllocinfoProfilingOff" ]'
	# the tests can fail: an alert that never fires, or always fires, breaks them
	mkdir -p "$T/rules"
	cp "$C/allocinfo.rules.test.yml" "$T/rules/"
	for a in $alerts; do
		for e in "vector(0) > 1" "vector(1)"; do
			awk -v a="$a" -v e="$e" '
				/^ *- alert: / { cur = $3 }
				cur == a && /^ *expr: / { sub(/expr: .*/, "expr: " e) }
				{ print }' "$C/allocinfo.rules.yml" >"$T/rules/allocinfo.rules.yml"
			promtool test rules "$T/rules/allocinfo.rules.test.yml" >/dev/null 2>&1 && break
			e=
		done
		check "rules: the tests fail when $a never fires or always fires" [ -z "$e" ]
	done
	for f in v1.txt v2-stats.txt; do
		cp "$F/$f" "$P/allocinfo"
		live --prometheus
		check "rules: promtool check metrics on live --prometheus of $f" eval '[ $rc = 0 ] && promok "$T/out"'
	done
	live --prometheus -g dir:1
	check "rules: promtool check metrics on a grouped output" eval '[ $rc = 0 ] && promok "$T/out"'
else
	for c in "check rules" "test rules" "the five alerts" "tests that can fail" "check metrics"; do
		ok "rules: $c # SKIP no promtool (Debian package prometheus)"
	done
fi

# ---- contrib: the service and its timer ---------------------------------
U=$C/allocinfo-textfile.service
check "service: default directory is Debian's textfile directory" grep -qx 'Environment=ALLOCINFO_TEXTFILE_DIR=/var/lib/prometheus/node-exporter' "$U"
check "service: ExecStart writes with -o into the directory (a rename there)" grep -q '^ExecStart=/usr/local/bin/allocinfo --prometheus .* -o ${ALLOCINFO_TEXTFILE_DIR}/allocinfo.prom$' "$U"
check "timer: starts the service every minute, enabled by timers.target" eval 'grep -qx "OnUnitActiveSec=1min" "$C/allocinfo-textfile.timer" && grep -qx "WantedBy=timers.target" "$C/allocinfo-textfile.timer"'
# the units as make install writes them (ExecStart of BINDIR)
make -s --no-print-directory install PREFIX=/usr DESTDIR="$T/dest" >"$T/inst.log" 2>&1
I=$T/dest/usr/lib/systemd/system
check "install: units in UNITDIR, ExecStart of BINDIR; rules in DATADIR" eval '[ -f "$I/allocinfo-textfile.timer" ] && grep -q "^ExecStart=/usr/bin/allocinfo --prometheus " "$I/allocinfo-textfile.service" && [ -f "$T/dest/usr/share/allocinfo/allocinfo.rules.yml" ] && [ "$(stat -c %a "$I/allocinfo-textfile.service")" = 644 ]'
mkdir -p "$T/units"
case $A in /*) abs=$A ;; *) abs=$PWD/$A ;; esac
sed "s|^ExecStart=/usr/bin/allocinfo |ExecStart=$abs |" "$I/allocinfo-textfile.service" >"$T/units/allocinfo-textfile.service"
cp "$I/allocinfo-textfile.timer" "$T/units/"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no "$T/units/allocinfo-textfile.service" "$T/units/allocinfo-textfile.timer" >"$T/err" 2>&1; vrc=$?
	check "service: systemd-analyze verify, no warning" eval '[ $vrc = 0 ] && ! [ -s "$T/err" ]'
	sed 's/^Type=oneshot/Type=oneshoot/' "$T/units/allocinfo-textfile.service" >"$T/units/bad.service"
	check "service: (verify catches a bad unit)" eval '[ -n "$(systemd-analyze verify --man=no "$T/units/bad.service" 2>&1)" ]'
else
	ok "service: systemd-analyze verify # SKIP no systemd-analyze (Debian package systemd)"
	ok "service: (verify catches a bad unit) # SKIP no systemd-analyze"
fi
# ExecStart as systemd runs it: the unit's Environment= (the directory
# replaced by a scratch one), ${VAR} one word, $VAR split at blanks
execstart() {
	ALLOCINFO_OPTS=$(sed -n 's/^Environment=ALLOCINFO_OPTS=//p' "$T/units/allocinfo-textfile.service")
	ALLOCINFO_TEXTFILE_DIR=$T/textfile
	cmd=$(sed -n 's/^ExecStart=//p' "$T/units/allocinfo-textfile.service")
	eval "set -- $cmd"
	ALLOCINFO_PROC_ROOT=$P timeout 60 $WRAP "$@" >"$T/out" 2>"$T/err"
}
WRAP=
mkdir -p "$T/textfile"
cp "$F/v2-kv.txt" "$P/allocinfo"
echo 1 >"$P/sys/vm/mem_profiling"
echo "old" >"$T/textfile/allocinfo.prom"
ln "$T/textfile/allocinfo.prom" "$T/old-link"
execstart; src=$?
cp "$T/textfile/allocinfo.prom" "$T/svc.prom"
ALLOCINFO_PROC_ROOT=$P "$A" --prometheus $ALLOCINFO_OPTS 2>/dev/null | grep -v "^allocinfo_last_success" >"$T/want"
check "service: ExecStart writes the metrics, exit 0, nothing on stdout" eval '[ $src = 0 ] && ! [ -s "$T/out" ] && grep -v "^allocinfo_last_success" "$T/svc.prom" | cmp -s - "$T/want" && grep -q "^allocinfo_read_success 1$" "$T/svc.prom"'
check "service: a new file renamed over the old (a link to the old one keeps it)" eval '[ "$(cat "$T/old-link")" = old ] && [ "$(stat -c %i "$T/old-link")" != "$(stat -c %i "$T/textfile/allocinfo.prom")" ]'
check "service: no temporary left" eval '[ "$(ls "$T/textfile")" = allocinfo.prom ]'
# how it writes: a new file beside the target (not *.prom, which the
# collector would read half-written), created exclusively, then renamed
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
	WRAP="strace -f -qq -e trace=openat,open,creat,rename,renameat,renameat2 -o $T/strace.log"
	execstart; src=$?
	WRAP=
	d=$(echo "$T/textfile" | sed 's/[.[\*^$]/\\&/g')
	check "service: writes allocinfo.prom.tmpPID beside it (O_EXCL) and renames it over allocinfo.prom" eval '[ $src = 0 ] && grep -Eq "open(at)?\((AT_FDCWD, )?\"$d/allocinfo\.prom\.tmp[0-9]+\", O_WRONLY\|O_CREAT\|O_EXCL" "$T/strace.log" && grep -Eq "rename(at2?)?\(.*\"$d/allocinfo\.prom\.tmp[0-9]+\", .*\"$d/allocinfo\.prom\"(, [A-Z_0-9]+)?\) = 0" "$T/strace.log" && ! grep -E "\"$d/allocinfo\.prom\", O_WRONLY" "$T/strace.log" | grep -q .'
else
	ok "service: writes a temporary beside the target and renames it # SKIP no strace (Debian package strace)"
fi
check "service: readable by the collector (0644 under UMask=0022)" eval '( umask 022; execstart ) && [ "$(stat -c %a "$T/textfile/allocinfo.prom")" = 644 ]'
last=$(awk '$1 == "allocinfo_last_success_timestamp_seconds" { print $2 }' "$T/textfile/allocinfo.prom")
rm "$P/allocinfo"
execstart; src=$?
cp "$T/textfile/allocinfo.prom" "$T/out"
check "service: a failed read writes its failure, exit 1, last success kept" eval '[ $src = 1 ] && [ "$(val allocinfo_read_success)" = 0 ] && onehot allocinfo_read_error reason not_found && [ -n "$last" ] && [ "$(val allocinfo_last_success_timestamp_seconds)" = "$last" ] && promok "$T/out"'

# ---- the sanitizer build on the new paths -------------------------------
if [ -n "$ASAN" ] && [ -x "$ASAN" ]; then
	bad=
	cp "$F/v1.txt" "$P/allocinfo"
	for args in "--prometheus $T/dup.txt" "--openmetrics --nonzero -n 2 $T/dup.txt" "--prometheus -g module $F/v2-kv.txt" \
		"--prometheus $T/no-such-file.txt" "--strict --openmetrics $F/malformed/bad-rows.txt" \
		"--prometheus --max-input 64 $F/v1.txt" "--prometheus -o $T/tf/asan.prom" "--prometheus -a $T/dup.txt"; do
		ALLOCINFO_PROC_ROOT=$P ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1 \
			timeout 60 "$ASAN" $args >/dev/null 2>"$T/err"
		case $? in 99|124|134) bad="$bad [$args]"; sed 's/^/#   /' "$T/err" | head -10 ;; esac
	done
	check "sanitizers: no report on the metrics paths" [ -z "$bad" ]
else
	ok "sanitizers: no report on the metrics paths # SKIP no sanitizer build given"
fi

tap_done
