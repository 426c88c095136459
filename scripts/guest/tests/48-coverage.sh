# Coverage report: after a small workload (module load and unload, files
# on tmpfs, fork and exec, pipe traffic), print how much of the memory in
# use /proc/allocinfo accounts for:
#   tags     rows of /proc/allocinfo
#   tracked  sum of their bytes
#   used     MemTotal - MemFree - Buffers - Cached - SReclaimable from
#            /proc/meminfo (kernel and anonymous memory, without page
#            cache and tmpfs, which profiling charges to their own lines)
# and check that no debug check fired (always none without DEBUG).

if [ ! -e /proc/allocinfo ] || [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "coverage report" "profiling not in use"
	return 0
fi

cv_dir=/tmp/allocprof-coverage
mkdir -p $cv_dir
mount -t tmpfs none $cv_dir 2>/dev/null
for i in 1 2 3 4 5 6 7 8; do
	head -c 65536 /dev/zero >$cv_dir/f$i
done
i=0
while [ $i -lt 50 ]; do
	/bin/true
	i=$((i + 1))
done
head -c 1048576 /dev/zero | cat >/dev/null
if [ -f "$MODDIR/allocprof_percpu_test.ko" ]; then
	insmod "$MODDIR/allocprof_keeper.ko" && rmmod allocprof_keeper
fi

cv_tags=$(tail -n +3 /proc/allocinfo | grep -c .)
cv_bytes=$(tail -n +3 /proc/allocinfo | awk '{ s += $1 } END { printf "%d", s }')
cv_used=$(awk '/^(MemTotal|MemFree|Buffers|Cached|SReclaimable):/ { v[$1] = $2 }
	END { printf "%d", (v["MemTotal:"] - v["MemFree:"] - v["Buffers:"] - v["Cached:"] - v["SReclaimable:"]) * 1024 }' /proc/meminfo)
t_check "coverage: $cv_tags tags" [ "$cv_tags" -gt 0 ]
t_check "coverage: $((cv_bytes / 1024)) KiB tracked in /proc/allocinfo" [ "$cv_bytes" -gt 0 ]
t_info "coverage: $((cv_used / 1024)) KiB used (MemTotal - MemFree - Buffers - Cached - SReclaimable), tracked/used $((cv_bytes * 100 / (cv_used + 1)))%"
# allocprof.debugneg=1 boots trigger one on purpose (46-debug-negative.sh)
cv_want=0
cmdline_has allocprof.debugneg=1 && cv_want=1
cv_warn=$(dmesg | grep -cE 'alloc_tag: (allocation without tag|reference to .* set twice|freeing an object without)')
t_eq "coverage: $cv_warn debug check warnings after the workload" $cv_want "$cv_warn"
umount $cv_dir 2>/dev/null
rm -rf $cv_dir
