# Allocation storms: allocprof_stress runs a thread on every online CPU
# that allocates pages, kmalloc objects (every size class and one large),
# kmem_cache objects, vmalloc areas and percpu chunks and hands each to
# the next CPU's thread, which frees it.  While it runs, a reader parses
# /proc/allocinfo again and again.  Checked: every sample well formed,
# module rows never below -(threads x queue length) objects, rows back
# at exactly 0 0 afterwards; then the same with vm.mem_profiling toggled
# during the storm and a final storm with profiling on throughout.
#
# Why a bound at all: counters are per CPU and a read sums them one CPU
# after the other.  An object allocated on CPU A after the reader summed
# A, and freed on CPU B before the reader got to B, is missing from the
# sum but its free is not, so the sum can be transiently negative.
# Only frees running during one row's summation can do that; with the
# storm's bounded queues those are the objects in flight, at most
# threads x queue length, unless the reading vCPU stalls in mid-sum.
#
# Drift from toggling: an object charged while profiling was on and freed
# while it is off is still uncharged (free paths test
# mem_alloc_profiling_used(), which stays true), and an object allocated
# while off carries no reference and is not uncharged.  So the expected
# drift is none: the rows must be exactly 0 0 after the toggle storm too.
# allocprof.stress_ms=MS sets the storm length (default 1000 ms).

st_proc=/proc/allocprof_stress
if [ ! -r /proc/allocinfo ] || [ ! -f "$MODDIR/allocprof_stress.ko" ]; then
	t_skip "allocation storm" "no /proc/allocinfo or no stress module"
	return 0
fi
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "allocation storm" "profiling switched off"
	return 0
fi

st_ms=$(cmdline_value allocprof.stress_ms 1000)

# st_get KEY: a value from the module's report.
st_get() { awk -v k="$1" '$1 == k { print $2 }' $st_proc; }
# st_rows: the module's rows as "bytes calls line".
st_rows() {
	awk '/ \[allocprof_stress\] func:/ { n = split($3, a, ":"); print $1, $2, a[n] }' /proc/allocinfo
}

# One sample: "bad minbytes mincalls rows"; calls are printed unsigned,
# so a small negative sum shows as 2^64 - k (2^64 ends in ...9551616).
cat >/tmp/st_sample.awk <<'AWK'
NR == 1 { if ($0 !~ /^allocinfo - version: [12]\.0$/) bad = 1; next }
NR == 2 { if ($0 !~ /^# +<size> +<calls> <tag info>$/) bad = 1; next }
!/^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+( \[[^] ]+\])? func:[^ ]+( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)?( accurate:no)? $/ { bad = 1 }
/ \[allocprof_stress\] func:/ {
	c = $2
	if (length(c) >= 19 && c + 0 > 9e18)
		c = -((9551616 - substr(c, length(c) - 6) + 10000000) % 10000000)
	if ($1 + 0 < minb) minb = $1 + 0
	if (c + 0 < minc) minc = c + 0
	rows++
}
END { if (NR < 3) bad = 1; print bad + 0, minb + 0, minc + 0, rows + 0 }
AWK

# st_reader OUT: sample until /tmp/st_stop exists, one line a sample.
st_reader() {
	: >"$1"
	while [ ! -e /tmp/st_stop ]; do
		cat /proc/allocinfo >/tmp/st_snap 2>/dev/null || { echo "1 0 0 0" >>"$1"; continue; }
		awk -f /tmp/st_sample.awk /tmp/st_snap >>"$1"
	done
}

# st_storm NAME MS [toggle]: one storm with the reader (and the toggler)
# running; prints nothing, leaves figures in /tmp/st_NAME.*.
st_storm() {
	rm -f /tmp/st_stop "/tmp/st_$1.toggles"
	st_reader "/tmp/st_$1.samples" &
	_rd=$!
	_tg=
	if [ "${3:-}" = toggle ]; then
		(
			n=0
			while [ ! -e /tmp/st_stop ]; do
				echo $((n % 2)) >/proc/sys/vm/mem_profiling
				n=$((n + 1))
				echo "$n" >"/tmp/st_$1.toggles"
				usleep 20000
			done
		) &
		_tg=$!
	fi
	# A toggle storm lasts until it saw a few toggles, up to 30 rounds:
	# each toggle patches code on every CPU, slow under emulation, and
	# the toggler competes for the CPUs with the storm's threads (a cold
	# make test once saw 2 toggles in 8 rounds on 4 vCPUs).
	_round=0
	while :; do
		echo "run $2" >$st_proc && echo wait >$st_proc
		_round=$((_round + 1))
		[ -n "$_tg" ] && [ $_round -lt 30 ] &&
			[ "$(cat "/tmp/st_$1.toggles" 2>/dev/null || echo 0)" -lt 4 ] ||
			break
	done
	touch /tmp/st_stop
	wait $_rd $_tg
	[ -z "$_tg" ] || echo 1 >/proc/sys/vm/mem_profiling
}

# st_report NAME DESC: t_ok/t_fail lines for the finished storm NAME.
st_report() {
	_s=/tmp/st_$1.samples
	shift
	_thr=$(st_get threads) _ql=$(st_get queue_len)
	_al=$(st_get allocs) _fr=$(st_get frees)
	t_check "$1: storm allocated ($_al allocs, $_fr frees, $(st_get failed) failed, $_thr threads)" \
		[ "$_al" -gt 0 ]
	t_eq "$1: every allocation freed" "$_al" "$_fr"
	if [ "$_thr" -gt 1 ]; then
		t_eq "$1: every free on another CPU than its allocation" 0 "$(st_get same_cpu_frees)"
	fi
	_n=$(wc -l <"$_s")
	t_check "$1: allocinfo read during the storm ($_n reads)" [ "$_n" -gt 0 ]
	t_eq "$1: every sample well formed" 0 "$(awk '$1 != 0' "$_s" | wc -l)"
	_minc=$(awk 'BEGIN { m = 0 } $3 < m { m = $3 } END { print m }' "$_s")
	_minb=$(awk 'BEGIN { m = 0 } $2 < m { m = $2 } END { print m }' "$_s")
	_neg=$(awk '$3 < 0 || $2 < 0' "$_s" | wc -l)
	t_check "$1: rows never below -threads*queue_len=-$((_thr * _ql)) calls (min calls $_minc, min bytes $_minb, $_neg negative samples)" \
		[ "$_minc" -ge $((-_thr * _ql)) ]
	t_check "$1: bytes never below -(threads*queue_len*16 KiB)" \
		[ "$_minb" -ge $((-_thr * _ql * 16384)) ]
	t_eq "$1: module rows 0 0 after the storm" "" "$(st_rows | awk '$1 != 0 || $2 != 0')"
}

t_check "allocprof_stress loads" insmod "$MODDIR/allocprof_stress.ko"
[ -e $st_proc ] || return 0

# vmalloc and percpu rows exist only where those allocators charge the caller.
for k in vmalloc percpu; do
	_l=$(awk -v k=$k '$1 == "site" && $2 == k { print $3 }' $st_proc)
	if st_rows | grep -q " $_l\$"; then
		t_ok "$k charged to the module's row (line $_l)"
	else
		t_skip "$k storm rows" "not charged to the caller on this kernel"
	fi
done

st_storm plain "$st_ms"
st_report plain "storm ${st_ms}ms"

if echo 1 >/proc/sys/vm/mem_profiling 2>/dev/null; then
	st_storm toggle "$st_ms" toggle
	st_report toggle "toggle storm"
	t_check "vm.mem_profiling toggled during the storm ($(cat /tmp/st_toggle.toggles) writes)" \
		[ "$(cat /tmp/st_toggle.toggles)" -ge 4 ]
	st_storm final "$((st_ms / 2))"
	st_report final "storm after toggling"
else
	t_skip "toggle storm" "vm.mem_profiling read-only on this kernel"
fi

t_check "allocprof_stress unloads" rmmod allocprof_stress
t_eq "no unload warning for allocprof_stress" "" \
	"$(dmesg | grep 'module allocprof_stress unloaded with' | head -1)"
