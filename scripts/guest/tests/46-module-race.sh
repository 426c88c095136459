# rmmod racing with frees of the module's leftovers: every cycle
# allocprof_test hands its pages to allocprof_keeper, and the keeper
# frees them one by one, half a millisecond apart, from a writer running
# beside the rmmod of allocprof_test, so that frees land before, during
# and after the unload judges the module and keeps its tags.  The
# alloc_tag_uncharge event is on (each free reads the tag's strings) and,
# with numa=fake=2, so is the per-node breakdown.  Run on the KASAN
# kernel (KASAN_VMALLOC), where a read of a released tag is a report
# that fails the boot.  Checked here: every cycle loads, drains and
# unloads, some unloads find leftovers (the race ran), uncharge events
# name the module, and its rows are released.
# allocprof.churn=N sets the cycles (default 30).

if [ ! -r /proc/allocinfo ]; then
	t_skip "rmmod racing with frees of leftovers" "no /proc/allocinfo"
	return 0
fi
have_module "rmmod racing with frees of leftovers" allocprof_test || return 0
have_module "rmmod racing with frees of leftovers" allocprof_keeper || return 0
if [ "$(nproc)" -lt 2 ]; then
	t_skip "rmmod racing with frees of leftovers" "one CPU"
	return 0
fi

mr_n=$(cmdline_value allocprof.churn 30)
mr_ev=/sys/kernel/tracing/events/alloc_tag/alloc_tag_uncharge
[ -d /sys/kernel/tracing/events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mr_trace=0
if [ -d $mr_ev ]; then
	echo 'module == "allocprof_test"' >$mr_ev/filter &&
		echo 1 >$mr_ev/enable && mr_trace=1
	: >/sys/kernel/tracing/trace
fi

mr_warn0=$(dmesg | grep -c 'module allocprof_test unloaded with')
insmod "$MODDIR/allocprof_keeper.ko"
mr_bad="" i=0
while [ $i -lt "$mr_n" ]; do
	i=$((i + 1))
	insmod "$MODDIR/allocprof_test.ko" || { mr_bad="$mr_bad insmod($i)"; break; }
	echo stash >/proc/allocprof_test || mr_bad="$mr_bad stash($i)"
	echo drain >/proc/allocprof_keeper &
	mr_dr=$!
	rmmod allocprof_test || { mr_bad="$mr_bad rmmod($i)"; wait $mr_dr; break; }
	wait $mr_dr || mr_bad="$mr_bad drain($i)"
done
rmmod allocprof_keeper

t_eq "$mr_n cycles of rmmod beside frees of its leftovers" "" "$mr_bad"
# The race must be run, not only set up: some unloads must find the
# drain still freeing (the rest may find it done).
mr_hit=$(($(dmesg | grep -c 'module allocprof_test unloaded with') - mr_warn0))
if [ "$(cat /proc/sys/vm/mem_profiling)" = 1 ]; then
	t_check "the race was hit: $mr_hit of $mr_n unloads found leftovers not yet freed" \
		[ "$mr_hit" -ge 1 ]
fi
if [ $mr_trace = 0 ]; then
	t_skip "uncharge events during the cycles" "no alloc_tag_uncharge event"
else
	echo 0 >$mr_ev/enable && echo 0 >$mr_ev/filter
	if [ "$(cat /proc/sys/vm/mem_profiling)" = 1 ]; then
		t_check "uncharge events of the module recorded during the cycles" \
			grep -q 'alloc_tag_uncharge:.*module=allocprof_test' /sys/kernel/tracing/trace
	else
		t_skip "uncharge events during the cycles" "profiling off, nothing charged"
	fi
	: >/sys/kernel/tracing/trace
fi
wait_rows_gone allocprof_test
t_eq "no allocprof_test rows left once everything is freed" 0 \
	"$(grep -c '\[allocprof_test\]' /proc/allocinfo)"
