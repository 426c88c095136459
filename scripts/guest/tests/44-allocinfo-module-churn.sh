# /proc/allocinfo read in 1-byte and 4 KiB pieces while a tagged module is
# loaded and unloaded in a loop: every read keeps the format, lists the
# built-in call sites exactly as a quiet read does, and never repeats a
# module row.

if [ ! -r /proc/allocinfo ] || [ ! -f "$MODDIR/allocprof_slab_test.ko" ]; then
	t_skip "allocinfo reads during module churn" "no /proc/allocinfo or no test module"
	return 0
fi

# Built-in call sites: file:line and function, without the counters.
ch_sites() { awk 'NR > 2 && !/\[/ { print $3, $4 }' "$1"; }

cat /proc/allocinfo >/tmp/ch_ref
rm -f /tmp/ch_stop
(
	n=0
	while [ ! -e /tmp/ch_stop ]; do
		insmod "$MODDIR/allocprof_slab_test.ko" && rmmod allocprof_slab_test && n=$((n + 1))
	done
	echo $n >/tmp/ch_cycles
) &

ch_bad=""
for bs in 1 4096 1 4096 1; do
	dd if=/proc/allocinfo of=/tmp/ch_read bs=$bs 2>/dev/null
	head -n 1 /tmp/ch_read | grep -qx 'allocinfo - version: 2.0' || ch_bad="$ch_bad header($bs)"
	awk 'NR > 2 && !/^ *-?[0-9]+ +[0-9]+ [^ ]+:[0-9]+( \[[^]]+\])? func:[^ ]+( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)?( accurate:no)? $/ { bad = 1 }
		END { exit bad }' /tmp/ch_read || ch_bad="$ch_bad row-format($bs)"
	[ "$(ch_sites /tmp/ch_read)" = "$(ch_sites /tmp/ch_ref)" ] || ch_bad="$ch_bad builtin-sites($bs)"
	[ -z "$(awk 'NR > 2 && /\[/ { print $3, $4, $5 }' /tmp/ch_read | sort | uniq -d)" ] ||
		ch_bad="$ch_bad duplicate-rows($bs)"
done
touch /tmp/ch_stop
wait
t_eq "allocinfo reads consistent during $(cat /tmp/ch_cycles) module load/unload cycles" "" "$ch_bad"
t_check "module loaded and unloaded during the reads" [ "$(cat /tmp/ch_cycles)" -gt 0 ]
t_eq "no module rows left after the churn" "" "$(grep '\[allocprof_slab_test\]' /proc/allocinfo)"
