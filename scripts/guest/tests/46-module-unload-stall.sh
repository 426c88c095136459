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

# us_round: unload allocprof_rcu_test while allocprof_unload_hold holds
# its grace periods, load allocprof_oneliner_test meanwhile; sets us_rc,
# us_load_ms, us_unload_ms, us_during, us_held.
us_round() {
	insmod "$MODDIR/allocprof_rcu_test.ko" || return 1
	insmod "$MODDIR/allocprof_unload_hold.ko" hold_ms="$us_hold" || return 1
	rm -f /tmp/us_unloaded
	us_t0=$(us_now)
	(rmmod allocprof_rcu_test; us_now >/tmp/us_unloaded) &
	# Load once the unload holds (it is then inside
	# codetag_unload_module()), on the unload's CPU: the holder spins on
	# the other without yielding it (a kernel without preemption).
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
	us_held=$(us_state)
	us_load_ms=$(((us_t2 - us_t1) * 10))
	us_unload_ms=$(((us_t3 - us_t0) * 10))
	rmmod allocprof_oneliner_test 2>/dev/null
	rmmod allocprof_unload_hold
}

# A load that waits for the unload's locks waits every time.  Every grace
# period is held, so a load that waits for one of its own waits too:
# allocprof_unload_hold rules out the one cause seen (the kprobe
# optimizer), and up to three rounds keep any other from counting.  A
# round whose holder was not scheduled within the second the probe gives
# it (a vCPU that the loaded host did not run) held nothing and is run
# again too.
us_round_nr=0
while [ $us_round_nr -lt 3 ]; do
	us_round_nr=$((us_round_nr + 1))
	if ! us_round; then
		t_fail "module load during an unload" "allocprof_rcu_test or allocprof_unload_hold does not load"
		return 0
	fi
	[ "$us_held" = held ] && [ "$us_rc" = 0 ] &&
		[ $us_load_ms -lt $((us_hold / 2)) ] && break
done
t_eq "the unload held its grace periods" held "$us_held"
t_check "the unload waited for them: $us_unload_ms ms, $us_hold ms held" \
	[ $us_unload_ms -ge $((us_hold * 8 / 10)) ]
t_eq "a module loads while it waits" 0 "$us_rc"
t_eq "the load ended before the unload" yes "$us_during"
t_check "the load did not wait for the unload: $us_load_ms ms (round $us_round_nr of at most 3)" \
	[ $us_load_ms -lt $((us_hold / 2)) ]
