# Module load/unload cycles with and without live allocations left
# behind: every other cycle allocprof_test hands its pages to
# allocprof_keeper before it is unloaded, and the keeper frees them
# after the unload (the free then uncharges tags of a module that is
# gone).  A reader parses /proc/allocinfo all along.  Checked: every
# cycle loads and unloads, one unload warning per cycle with leftovers,
# rows of an unloaded module only while it has leftovers, all marked
# unloaded:yes, and released after the last free; every read well
# formed, and the kernel log clean (the harness).  Where page references
# are tag indices, a loaded module takes indices and every one comes back
# once its call sites are released.  allocprof.churn=N sets the cycles
# (default 30).

if [ ! -r /proc/allocinfo ] || [ ! -f "$MODDIR/allocprof_test.ko" ] ||
	[ ! -f "$MODDIR/allocprof_keeper.ko" ]; then
	t_skip "module cycles with leftovers" "no /proc/allocinfo or no test module"
	return 0
fi

ml_n=$(cmdline_value allocprof.churn 30)
ml_on=$(cat /proc/sys/vm/mem_profiling)
ml_warn0=$(dmesg | grep -c 'module allocprof_test unloaded with')

cat >/tmp/ml.awk <<'AWK'
NR == 1 && !/^allocinfo - version: [12]\.0$/ { bad = 1 }
NR == 2 && !/^# +<size> +<calls> <tag info>$/ { bad = 1 }
NR > 2 && !/^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+( \[[^] ]+\])? func:[^ ]+( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)?( accurate:no)?( unloaded:yes)? $/ { bad = 1 }
END { print (bad || NR < 3) ? "bad" : "ok" }
AWK
rm -f /tmp/ml_stop
(
	while [ ! -e /tmp/ml_stop ]; do
		cat /proc/allocinfo >/tmp/ml_snap && awk -f /tmp/ml.awk /tmp/ml_snap
	done >/tmp/ml_reads
) &
ml_rd=$!

ml_idx0=$(page_ref_indices_used)
insmod "$MODDIR/allocprof_keeper.ko"
ml_bad="" ml_left=0 i=0 ml_idx_loaded=""
while [ $i -lt "$ml_n" ]; do
	i=$((i + 1))
	insmod "$MODDIR/allocprof_test.ko" || { ml_bad="$ml_bad insmod($i)"; break; }
	[ -n "$ml_idx_loaded" ] || ml_idx_loaded=$(page_ref_indices_used)
	if [ $((i % 2)) = 1 ]; then
		echo stash >/proc/allocprof_test || ml_bad="$ml_bad stash($i)"
		ml_left=$((ml_left + 1))
	fi
	rmmod allocprof_test || { ml_bad="$ml_bad rmmod($i)"; break; }
	grep '\[allocprof_test\]' /proc/allocinfo | grep -qv ' unloaded:yes $' &&
		ml_bad="$ml_bad unmarked-rows-after-unload($i)"
	echo free >/proc/allocprof_keeper || ml_bad="$ml_bad keeper-free($i)"
done
touch /tmp/ml_stop
wait $ml_rd
rmmod allocprof_keeper

t_eq "$ml_n load/unload cycles, $ml_left with leftovers freed after unload" "" "$ml_bad"
ml_warn=$(($(dmesg | grep -c 'module allocprof_test unloaded with') - ml_warn0))
[ "$ml_on" = 1 ] || ml_left=0
t_eq "one unload warning per cycle with leftovers" "$ml_left" "$ml_warn"
t_check "allocinfo read during the cycles ($(wc -l </tmp/ml_reads) reads)" \
	[ "$(wc -l </tmp/ml_reads)" -gt 0 ]
t_eq "every read during the cycles well formed" 0 "$(grep -c bad /tmp/ml_reads)"
wait_rows_gone allocprof_test
t_eq "no allocprof_test rows left once everything is freed" 0 \
	"$(grep -c '\[allocprof_test\]' /proc/allocinfo)"
if [ -n "$ml_idx0" ]; then
	wait_rows_gone allocprof_keeper
	t_check "loaded modules take tag indices ($ml_idx0, then $ml_idx_loaded)" \
		[ "${ml_idx_loaded:-0}" -gt "$ml_idx0" ]
	t_eq "every tag index comes back after $ml_n cycles" "$ml_idx0" \
		"$(page_ref_indices_used)"
fi
