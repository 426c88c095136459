# The user guide's three one-liners for one call site (bpftrace: bytes
# and calls per process; bpftrace: size histogram; perf: stacks), run as
# written there (/oneliners, taken from the guide by mktools.sh) with
# only the call site swapped for allocprof_oneliner_test's line and a
# known process driving it.  Checked exactly: the one process with the
# module's bytes and calls, one histogram bucket per size class with its
# object count, and perf's samples naming the process and the module's
# allocating function.  Runs in boots with allocprof.tools=1, which get
# the host's perf and bpftrace; skipped elsewhere.

if [ ! -f /oneliners ] || ! command -v bpftrace >/dev/null ||
	! command -v perf >/dev/null; then
	if cmdline_has allocprof.tools=1; then
		t_fail "one-liners: perf and bpftrace in the guest" "missing with allocprof.tools=1"
	elif [ "$(uname -m)" != x86_64 ]; then
		t_skip "one-liners" "x86_64 only: the host's perf and bpftrace are x86_64 programs"
	else
		t_skip "one-liners" "no perf and bpftrace in this boot"
	fi
	return 0
fi
ol_tp=/sys/kernel/tracing
[ -d $ol_tp/events ] || mount -t tracefs nodev $ol_tp 2>/dev/null
if [ ! -d $ol_tp/events/alloc_tag/alloc_tag_charge ] || [ ! -e /proc/sys/kernel/perf_event_paranoid ]; then
	t_fail "one-liners: kernel with alloc_tag events and perf events" "missing"
	return 0
fi
have_module "one-liners" allocprof_oneliner_test || return 0
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "one-liners" "profiling switched off"
	return 0
fi

load_test_module allocprof_oneliner_test || return 0
ctl=/proc/allocprof_oneliner_test
echo alloc >$ctl	# the file names the line once it ran
echo free >$ctl
read -r ol_file ol_line ol_func ol_bytes ol_calls <$ctl
# The one process that allocates there, known by name and pid.
printf '#!/bin/sh\necho $$ >/tmp/ol-drive.pid\necho alloc >%s\necho free >%s\n' \
	$ctl $ctl >/tmp/ol-drive.sh
chmod +x /tmp/ol-drive.sh

# bpftrace takes no string literal over 63 bytes: for a longer file name,
# as this module's absolute path is, the guide says to filter on the
# module instead.
ol_site="str(args->file) == \"$ol_file\""
[ ${#ol_file} -lt 64 ] || ol_site='str(args->module) == "allocprof_oneliner_test"'

# ol_cmd N: one-liner N of the guide, on this call site, listening while
# /tmp/ol-drive.sh runs: bpftrace -c (which wants an ELF binary, so the
# script runs under sh), perf's workload instead of sleep 10.
ol_cmd() {
	sed -n "$1p" /oneliners | sed -e "s|seq_buf_alloc|$ol_func|g" \
		-e "s|str(args->file) == \"fs/seq_file.c\"|$ol_site|" \
		-e "s|line == 38 |line == $ol_line |" \
		-e "s|^bpftrace .*|& -c '/bin/sh /tmp/ol-drive.sh'|" -e "s|-- sleep 10 |-- /tmp/ol-drive.sh |"
}

# ol_run N DESC: run one-liner N in /tmp, output in /tmp/ol-N.out, and
# log the command, how long it took and its output.
ol_run() {
	_c=$(ol_cmd "$1")
	rm -f /tmp/ol-drive.pid
	_t0=$(cut -d. -f1 /proc/uptime)
	_st=0
	(cd /tmp && eval "timeout 120 $_c") >/tmp/ol-"$1".out 2>&1 || _st=$?
	echo "one-liner $1 ($(($(cut -d. -f1 /proc/uptime) - _t0)) s, status $_st): $_c"
	sed 's/^/    /' /tmp/ol-"$1".out
	t_eq "$2" 0 "$_st"
}

# 1: bytes and calls per process.
ol_run 1 "one-liner 1 (bpftrace, per process) runs"
ol_pid=$(cat /tmp/ol-drive.pid 2>/dev/null)
t_eq "one-liner 1: bytes of the one driving process" \
	"@bytes[sh, $ol_pid]: $ol_bytes" "$(grep '^@bytes\[' /tmp/ol-1.out)"
t_eq "one-liner 1: calls of the one driving process" \
	"@calls[sh, $ol_pid]: $ol_calls" "$(grep '^@calls\[' /tmp/ol-1.out)"

# 2: the size histogram; its non-empty buckets as "low count", bpftrace
# printing 1024 as 1K.  A size class falls in the bucket of the power of
# two at or below it.
ol_run 2 "one-liner 2 (bpftrace, size histogram) runs"
ol_want=$(awk '$1 == "size" { b = 1; while (b * 2 <= $2) b *= 2; print b, $3 }' $ctl)
ol_got=$(awk '/^\[/ && $3 > 0 { v = substr($1, 2); sub(/,$/, "", v)
	if (v ~ /K$/) v *= 1024; else if (v ~ /M$/) v *= 1048576
	print v + 0, $3 }' /tmp/ol-2.out)
t_eq "one-liner 2: one bucket per size with its objects" "$ol_want" "$ol_got"

# 3: perf's samples and stacks.
ol_run 3 "one-liner 3 (perf record and report) runs"
t_eq "one-liner 3: one sample per call" "$ol_calls" \
	"$(awk '/^# Samples: .* of event .alloc_tag:alloc_tag_charge.$/ { print $3 }' /tmp/ol-3.out)"
t_eq "one-liner 3: all samples from the driving process" ol-drive.sh \
	"$(awk '/^ +[0-9.]+% +[0-9.]+% / { print $3 }' /tmp/ol-3.out | sort -u | tr '\n' ' ' | sed 's/ $//')"
t_eq "one-liner 3: every stack passes through $ol_func" 1 \
	"$(grep -cE "^ +100\.00% +[0-9.]+% +ol-drive\.sh +\[k\] $ol_func *\$" /tmp/ol-3.out)"

t_check "allocprof_oneliner_test unloads" rmmod allocprof_oneliner_test
