# Lifetime counts (CONFIG_MEM_ALLOC_PROFILING_STATS): the
# allocprof_stats_test module, built only for kernels with the option,
# allocates and frees from one line, fails a kmalloc() on another and
# holds objects from a third.  Checked: every row carries total_calls:,
# total_bytes:, failed: and requested: after the function, the test
# lines show exact counts (requested: too when some held objects are
# left uncharged), and kernels without the option print no such pairs.

if [ ! -e /proc/allocinfo ]; then
	t_skip "lifetime counts" "no /proc/allocinfo (profiling not built or never)"
	return 0
fi
if [ ! -f "$MODDIR/allocprof_stats_test.ko" ]; then
	t_eq "no lifetime counts without MEM_ALLOC_PROFILING_STATS" 0 \
		"$(grep -c ' total_calls:' /proc/allocinfo)"
	return 0
fi

t_eq "every row ends in the lifetime counts" "" "$(awk 'NR > 2 &&
	!/^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+ (\[[^]]+\] )?func:[^ ]+ total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+( accurate:no)? $/' \
	/proc/allocinfo | head -2)"
t_eq "header stays 2.0" "allocinfo - version: 2.0" "$(head -1 /proc/allocinfo)"
# Slack is counted only for objects charged: requested: never exceeds
# total_bytes:, also for rows whose objects found no vector (accurate:no,
# as the debug-vecfail boot makes them).
t_eq "requested: at most total_bytes:" "" "$(awk 'NR > 2 {
		for (i = 5; i <= NF; i++) {
			if ($i ~ /^total_bytes:/) { t = $i; sub(/.*:/, "", t) }
			if ($i ~ /^requested:/) { r = $i; sub(/.*:/, "", r) }
		}
		if (length(r) > length(t) || (length(r) == length(t) && r > t)) print
	}' /proc/allocinfo | head -2)"
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "lifetime counts of a test module" "profiling switched off"
	return 0
fi

sp=/proc/allocprof_stats_test
# sp_row KIND: the counts of the module's row for that line, as
# "bytes calls total_calls total_bytes failed requested"
sp_row() {
	loc=$(awk -v k="$1" '$1 == k { print $2 }' $sp)
	grep " $loc \[allocprof_stats_test\] func:" /proc/allocinfo |
		sed -E 's/ [a-z_]+:/ /g' | awk '{ print $1, $2, $6, $7, $8, $9 }'
}
# sp_expect KIND: what sp_row must print after the runs so far
sp_expect() {
	awk -v k="$1" '$1 == "churn" && k == "churn" { n = $3 * $4; print 0, 0, n, n * $6, 0, n * $5 }
		$1 == "fail" && k == "fail" { print 0, 0, 0, 0, $3, 0 }' $sp
}

load_test_module allocprof_stats_test || return 0
t_eq "churn line: 10 allocations, 1280 bytes, 1000 requested" \
	"$(sp_expect churn)" "$(sp_row churn)"
t_eq "failing kmalloc counted once at its line" "$(sp_expect fail)" \
	"$(sp_row fail)"
echo run >$sp
t_eq "churn line after a second run" "$(sp_expect churn)" "$(sp_row churn)"
t_eq "failures after a second run" "$(sp_expect fail)" "$(sp_row fail)"

# Objects held from one line.  Where the boot flags the obj_exts-* caches
# for failslab (debug-vecfail), they are allocated from a task whose slab
# vectors fail, so that some are not charged (the row goes accurate:no):
# requested: must count the charged ones only, as total_bytes: does.
sp_vecfail=$(cat /sys/kernel/slab/obj_exts-*/failslab 2>/dev/null | grep -c 1)
sp_fs=/sys/kernel/debug/failslab
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
sp_failing=0
if [ "$sp_vecfail" -gt 0 ] && [ ! -d $sp_fs ]; then
	t_fail "held line: vectors made to fail" "obj_exts-* flagged for failslab, but no $sp_fs"
	echo hold >$sp
elif [ "$sp_vecfail" -gt 0 ]; then
	sp_failing=1
	fault_set failslab task-filter=Y cache-filter=Y ignore-gfp-wait=N \
		verbose=0 interval=1 times=-1 space=0 probability=100
	sh -c "echo 1 >/proc/self/make-it-fail && echo hold >$sp"
	fault_set failslab probability=0
else
	echo hold >$sp
fi
set -- $(awk '$1 == "hold" { print $3, $4, $5 }' $sp)
sp_n=$1 sp_size=$2 sp_class=$3
set -- $(sp_row hold)
sp_c=${2:-0}
t_eq "held line: $sp_c of $sp_n objects charged, requested: $sp_size bytes each" \
	"$((sp_c * sp_class)) $sp_c $sp_c $((sp_c * sp_class)) 0 $((sp_c * sp_size))" \
	"$(sp_row hold)"
if [ "$sp_failing" = 1 ]; then
	t_check "held line: objects without a vector left uncharged ($sp_c of $sp_n charged)" \
		[ "$sp_c" -lt "$sp_n" ]
else
	t_eq "held line: every object charged" "$sp_n" "$sp_c"
fi
echo release >$sp
t_eq "held line after release" \
	"0 0 $sp_c $((sp_c * sp_class)) 0 $((sp_c * sp_size))" "$(sp_row hold)"
t_check "allocprof_stats_test unloads" rmmod allocprof_stats_test
