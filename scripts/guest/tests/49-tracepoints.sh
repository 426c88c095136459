# alloc_tag trace events: with alloc_tag:alloc_tag_charge and
# alloc_tag_uncharge enabled and filtered on a test module, freeing and
# reallocating everything its control file lists must produce events
# whose bytes and calls, summed per source line (charges minus
# uncharges), are exactly the rows the module expects: pages (split and
# exact blocks included), slab objects and per-CPU areas.  A filter on
# one line keeps only that line's events, and a disabled event records
# nothing.

tp_dir=/sys/kernel/tracing
[ -d $tp_dir/events ] || mount -t tracefs nodev $tp_dir 2>/dev/null
if [ ! -d $tp_dir/events/alloc_tag/alloc_tag_charge ]; then
	t_skip "alloc_tag trace events" "no tracefs or no alloc_tag events"
	return 0
fi
if [ ! -e /proc/modules ] || [ ! -f "$MODDIR/allocprof_slab_test.ko" ]; then
	t_skip "alloc_tag trace events" "no module support or modules not built"
	return 0
fi

tp_on=$(cat /proc/sys/vm/mem_profiling 2>/dev/null || echo never)

# tp_set ENABLE FILTER: set both events; fails if the filter is refused.
# The filter is set before enabling and cleared after disabling, so
# that nothing unfiltered is ever recorded.
tp_set() {
	for _e in alloc_tag_charge alloc_tag_uncharge; do
		_d=$tp_dir/events/alloc_tag/$_e
		if [ "$1" = 1 ]; then
			echo "$2" >"$_d/filter" && echo 1 >"$_d/enable" || return 1
		else
			echo 0 >"$_d/enable" && echo "$2" >"$_d/filter" || return 1
		fi
	done
}

# tp_sums SIGN: "file:line bytes calls" per line, charges counted with
# SIGN (1 or -1) and uncharges with -SIGN, from the trace buffer.
tp_sums() {
	awk -v s="$1" '/alloc_tag_(un)?charge:/ {
		for (i = 1; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		sg = /alloc_tag_charge:/ ? s : -s
		k = v["file"] ":" v["line"]
		b[k] += sg * v["bytes"]
		c[k] += sg * v["calls"]
	}
	END { for (k in b) print k, b[k], c[k] }' $tp_dir/trace
}

# tp_check DESC ROWS SIGN: the sums match every row of ROWS (the
# module's list).
tp_check() {
	_bad=$(echo "$2" | while read -r loc bytes calls api; do
		[ "$tp_on" = 1 ] || { bytes=0; calls=0; }
		got=$(tp_sums "$3" | awk -v l="$loc" '$1 == l { print $2, $3 }')
		[ -n "$got" ] || got="0 0"
		[ "$got" = "$bytes $calls" ] ||
			echo "$api: $loc expected '$bytes $calls' got '$got'"
	done | head -3)
	t_eq "$1" "" "$_bad"
}

# tp_module MODULE [KEEPER]: free and reallocate under tracing.
tp_module() {
	[ -n "${2:-}" ] && insmod "$MODDIR/$2.ko"
	if ! insmod "$MODDIR/$1.ko"; then
		t_fail "$1 loads for tracing" "insmod failed"
		return 0
	fi
	# Free first: 'alloc' then frees nothing, and its events must charge
	# exactly what is listed afterwards.
	echo free >/proc/"$1"
	echo >$tp_dir/trace
	t_check "$1: filter on the module accepted" tp_set 1 "module == \"$1\""
	echo alloc >/proc/"$1"
	tp_set 0 0
	_rows=$(cat /proc/"$1")
	tp_check "$1: charge events match the rows" "$_rows" 1
	echo >$tp_dir/trace
	tp_set 1 "module == \"$1\""
	echo free >/proc/"$1"
	tp_set 0 0
	tp_check "$1: uncharge events match the freed rows" "$_rows" -1
	rmmod "$1"
	[ -n "${2:-}" ] && rmmod "$2"
	return 0
}

echo 0 >$tp_dir/tracing_on
echo 1 >$tp_dir/tracing_on
tp_module allocprof_test allocprof_keeper
tp_module allocprof_slab_test
tp_module allocprof_percpu_test allocprof_keeper

# One call site by line number; nothing recorded while disabled.
insmod "$MODDIR/allocprof_slab_test.ko"
tp_line=$(awk 'NR == 1 { n = split($1, a, ":"); print a[n] }' /proc/allocprof_slab_test)
echo >$tp_dir/trace
t_check "filter on one line accepted" \
	tp_set 1 "module == \"allocprof_slab_test\" && line == $tp_line"
echo alloc >/proc/allocprof_slab_test
tp_set 0 0
tp_lines=$(awk '/alloc_tag_(un)?charge:/ { for (i = 1; i <= NF; i++)
	if ($i ~ /^line=/) print $i }' $tp_dir/trace | sort -u | tr '\n' ' ')
if [ "$tp_on" = 1 ]; then
	t_eq "line filter keeps one call site" "line=$tp_line " "$tp_lines"
else
	t_eq "no events while profiling is off" "" "$tp_lines"
fi
echo >$tp_dir/trace
echo alloc >/proc/allocprof_slab_test
echo free >/proc/allocprof_slab_test
t_eq "disabled events record nothing" 0 \
	"$(grep -c 'alloc_tag_' $tp_dir/trace)"
rmmod allocprof_slab_test
