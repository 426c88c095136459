# A module whose exit function frees with kfree_rcu(), kvfree_rcu() and
# call_rcu() (allocprof_rcu_test), loaded and unloaded many times: the
# unload waits for those frees, so there is no leak warning, no row of
# the module is left, and the module area (VmallocUsed) is back where it
# was.  Reports what a cycle costs (the wait is part of rmmod).
# allocprof.churn=N sets the cycles (default 30).

if [ ! -f "$MODDIR/allocprof_rcu_test.ko" ]; then
	t_skip "module cycles freeing through RCU" "no test module"
	return 0
fi
# With profiling off for the boot nothing judges a module at unload, so
# nothing waits, and the module's call_rcu() callback would outlive it.
if [ ! -r /proc/allocinfo ]; then
	t_skip "module cycles freeing through RCU" "profiling off for this boot (never)"
	return 0
fi

rc_n=$(cmdline_value allocprof.churn 30)
rc_vm() { awk '$1 == "VmallocUsed:" { print $2 }' /proc/meminfo; }
rc_warn0=$(dmesg | grep -c 'module allocprof_rcu_test unloaded with')

# One cycle first, so that one-time allocations (kernfs, sysfs caches)
# are not counted as growth.
insmod "$MODDIR/allocprof_rcu_test.ko" && rmmod allocprof_rcu_test
rc_base=$(rc_vm)
rc_t0=$(cut -d' ' -f1 /proc/uptime)
rc_bad="" rc_rows=0 i=0
while [ $i -lt "$rc_n" ]; do
	i=$((i + 1))
	insmod "$MODDIR/allocprof_rcu_test.ko" || { rc_bad="$rc_bad insmod($i)"; break; }
	rmmod allocprof_rcu_test || { rc_bad="$rc_bad rmmod($i)"; break; }
	grep -q '\[allocprof_rcu_test\]' /proc/allocinfo && rc_rows=$((rc_rows + 1))
done
rc_t1=$(cut -d' ' -f1 /proc/uptime)
rc_grow=$(($(rc_vm) - rc_base))

t_eq "$rc_n load/unload cycles of a module freeing through RCU at exit" "" "$rc_bad"
t_eq "no leak warning for frees queued at exit" 0 \
	$(($(dmesg | grep -c 'module allocprof_rcu_test unloaded with') - rc_warn0))
t_eq "no row of the module left after any unload" 0 "$rc_rows"
t_check "module memory returned: VmallocUsed grew ${rc_grow} kB over $rc_n cycles" \
	[ "$rc_grow" -lt 64 ]
echo "# module cycle with RCU frees at exit: $(awk -v a="$rc_t0" -v b="$rc_t1" -v n="$rc_n" \
	'BEGIN { printf "%.0f ms", (b - a) * 1000 / n }') per insmod+rmmod (guest time, TCG)"
