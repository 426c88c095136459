# Per-CPU accounting: the allocprof_percpu_test module allocates through
# alloc_percpu, alloc_percpu_gfp, __alloc_percpu and __alloc_percpu_gfp,
# each from its own line, and tells which /proc/allocinfo row
# (file:line [allocprof_percpu_test]) must show which bytes (size times
# possible CPUs) and calls.  Its areas are small, so they come from the
# first chunk.  Checked: rows exact while alive, zero after free, and
# unloading the module with areas still allocated (held by
# allocprof_keeper) warns, hides the rows and keeps the later
# free safe.

if [ ! -e /proc/allocinfo ]; then
	t_skip "per-CPU accounting" "no /proc/allocinfo (profiling not built or never)"
	return 0
fi
have_module "per-CPU accounting" allocprof_percpu_test || return 0

pc_proc=/proc/allocprof_percpu_test
pc_on=$(cat /proc/sys/vm/mem_profiling)

t_check "allocprof_keeper loads" insmod "$MODDIR/allocprof_keeper.ko"
load_test_module allocprof_percpu_test || return 0
t_check "allocprof_percpu_test covers the per-CPU APIs ($(wc -l <$pc_proc))" \
	[ "$(wc -l <$pc_proc)" -ge 6 ]
# Bytes are size x possible CPUs, counted here from sysfs, not taken
# from the module: the row itself must say so.
pc_possible=$(tr ',' '\n' </sys/devices/system/cpu/possible |
	awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }')
pc_line=$(awk '$4 == "__alloc_percpu" { print $1 }' $pc_proc)
pc_row=$(grep " $pc_line \[allocprof_percpu_test\]" /proc/allocinfo | awk '{ print $1, $2 }')
if [ "$pc_on" = 1 ]; then
	t_eq "__alloc_percpu(100) charged 100 x $pc_possible possible CPUs" \
		"$((100 * pc_possible)) 1" "$pc_row"
fi
rows_exact "per-CPU rows exact after allocation" allocprof_percpu_test 0

echo free >$pc_proc
rows_exact "per-CPU rows zero after free" allocprof_percpu_test 1
echo alloc >$pc_proc
rows_exact "per-CPU rows exact after reallocation" allocprof_percpu_test 0

t_check "areas handed to allocprof_keeper" sh -c "echo stash >$pc_proc"
t_check "allocprof_percpu_test unloads with live areas" rmmod allocprof_percpu_test
pc_warn=$(dmesg | grep -c 'module allocprof_percpu_test unloaded with [0-9]* bytes')
if [ "$pc_on" = 1 ]; then
	t_eq "one unload warning naming the module" 1 "$pc_warn"
else
	t_eq "no unload warning when nothing was charged" 0 "$pc_warn"
fi
t_eq "rows of the unloaded module all marked unloaded:yes" 0 \
	"$(grep '\[allocprof_percpu_test\]' /proc/allocinfo | grep -vc ' unloaded:yes $')"
t_check "kept areas freed after unload" sh -c 'echo free >/proc/allocprof_keeper'
t_eq "keeper holds nothing" 0 "$(cat /proc/allocprof_keeper)"
wait_rows_gone allocprof_percpu_test
t_eq "module rows released after the last free" 0 \
	"$(grep -c '\[allocprof_percpu_test\]' /proc/allocinfo)"
t_check "allocprof_keeper unloads" rmmod allocprof_keeper
t_check "allocinfo readable after all" sh -c 'cat /proc/allocinfo >/dev/null'
