# A module unload waits for grace periods and queued frees before it
# drops the module's tags; module loads must not wait with it (udev loads
# hundreds at boot).  allocprof_unload_hold holds back every grace period
# the unload of allocprof_rcu_test starts once it drops the tags (not the
# one free_module() waits for under module_mutex before that), for
# allocprof.hold_ms (default 2500) milliseconds.  Checked: the unload did
# wait that long, and a module loaded meanwhile did not wait for it.

# allocprof_unload_hold is built for kernels with kprobes.
have_module "module load during an unload" allocprof_unload_hold || return 0
if [ ! -r /proc/allocinfo ]; then
	t_skip "module load during an unload" "profiling off for this boot (never): an unload waits for nothing"
	return 0
fi
if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 2 ]; then
	t_skip "module load during an unload" "one CPU: the holder would hold the unload's CPU"
	return 0
fi

# At least a second, so that a load that waits stands out of TCG's noise;
# at most 10, within the boot's timeout.
us_hold=$(cmdline_value allocprof.hold_ms 2500)
[ "$us_hold" -ge 1000 ] 2>/dev/null || us_hold=1000
[ "$us_hold" -le 10000 ] || us_hold=10000
us_now() { cut -d' ' -f1 /proc/uptime | tr -d .; }	# centiseconds
us_state() { head -n 1 /proc/allocprof_unload_hold; }
t_check "allocprof_rcu_test loads" insmod "$MODDIR/allocprof_rcu_test.ko"
load_test_module allocprof_unload_hold hold_ms="$us_hold" || return 0
rm -f /tmp/us_unloaded
us_t0=$(us_now)
(rmmod allocprof_rcu_test; us_now >/tmp/us_unloaded) &
# Load once the unload holds (it is then inside codetag_unload_module()),
# on the unload's CPU: the holder spins on the other without yielding it
# (a kernel without preemption), which says nothing about the unload.
i=0
while [ "$(us_state)" = armed ] && [ $i -lt 200 ]; do
	usleep 10000
	i=$((i + 1))
done
us_cpu=$(sed -n 2p /proc/allocprof_unload_hold)
us_t1=$(us_now)
taskset -c "${us_cpu:-0}" insmod "$MODDIR/allocprof_oneliner_test.ko"
us_rc=$?
us_t2=$(us_now)
[ -e /tmp/us_unloaded ] && us_during=no || us_during=yes
wait
us_t3=$(cat /tmp/us_unloaded)
t_eq "the unload held its grace periods" held "$(us_state)"
t_check "the unload waited for them: $(((us_t3 - us_t0) * 10)) ms, $us_hold ms held" \
	[ $(((us_t3 - us_t0) * 10)) -ge $((us_hold * 8 / 10)) ]
t_eq "a module loads while it waits" 0 "$us_rc"
t_eq "the load ended before the unload" yes "$us_during"
t_check "the load did not wait for the unload: $(((us_t2 - us_t1) * 10)) ms" \
	[ $(((us_t2 - us_t1) * 10)) -lt $((us_hold / 2)) ]
rmmod allocprof_oneliner_test 2>/dev/null
t_check "allocprof_unload_hold unloads" rmmod allocprof_unload_hold
