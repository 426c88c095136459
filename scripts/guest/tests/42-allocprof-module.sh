# Module allocation rows: the allocprof_test module allocates through each
# annotated page allocator entry point and tells which /proc/allocinfo
# row (file:line [allocprof_test]) must show which bytes and calls.
# __free_pages() of a block whose first page someone else holds leaves
# only that page charged.  Then: freeing zeroes the rows, and unloading
# the module while its pages are still allocated (held by
# allocprof_keeper) warns once, hides its rows and keeps a later free
# safe.

if [ ! -e /proc/allocinfo ]; then
	t_skip "allocprof_test module rows" "no /proc/allocinfo"
	return 0
fi
have_module "allocprof_test module rows" allocprof_test || return 0

am_on=$(cat /proc/sys/vm/mem_profiling)

t_check "allocprof_keeper loads" insmod "$MODDIR/allocprof_keeper.ko"
load_test_module allocprof_test || return 0
t_check "allocprof_test covers the page APIs ($(wc -l </proc/allocprof_test))" \
	[ "$(wc -l </proc/allocprof_test)" -ge 12 ]
rows_exact "module rows exact after allocation" allocprof_test 0
t_check "module rows carry [allocprof_test]" grep -q " \[allocprof_test\] func:" /proc/allocinfo

t_check "block freed while its first page is held" sh -c 'echo hold >/proc/allocprof_test'
rows_exact "module rows exact with a held first page" allocprof_test 0
echo free >/proc/allocprof_test
rows_exact "module rows zero after free" allocprof_test 1
echo alloc >/proc/allocprof_test
rows_exact "module rows exact after reallocation" allocprof_test 0

t_check "allocprof_test unloads after freeing" rmmod allocprof_test
t_eq "no unload warning when nothing is left" "" \
	"$(dmesg | grep 'module allocprof_test unloaded with' | head -1)"
t_eq "module rows gone after unload" 0 "$(grep -c '\[allocprof_test\]' /proc/allocinfo)"

# Unload with live allocations.
t_check "allocprof_test loads again" insmod "$MODDIR/allocprof_test.ko"
rows_exact "module rows exact after reload" allocprof_test 0
t_check "pages handed to allocprof_keeper" sh -c 'echo stash >/proc/allocprof_test'
t_check "allocprof_test unloads with live pages" rmmod allocprof_test
am_warn=$(dmesg | grep -c 'module allocprof_test unloaded with [0-9]* bytes')
if [ "$am_on" = 1 ]; then
	t_eq "one unload warning naming the module" 1 "$am_warn"
else
	t_eq "no unload warning when nothing was charged" 0 "$am_warn"
fi
if [ "$am_on" = 1 ]; then
	t_check "rows of the unloaded module still listed, with bytes" \
		awk '/\[allocprof_test\]/ && $1 > 0 { n++ } END { exit !n }' /proc/allocinfo
	t_eq "every row of the unloaded module marked unloaded:yes" 0 \
		"$(grep '\[allocprof_test\]' /proc/allocinfo | grep -vc ' unloaded:yes $')"
else
	t_eq "no row of the module after unload when nothing was charged" 0 \
		"$(grep -c '\[allocprof_test\]' /proc/allocinfo)"
fi
t_check "kept pages freed after unload" sh -c 'echo free >/proc/allocprof_keeper'
t_eq "keeper holds nothing" 0 "$(cat /proc/allocprof_keeper)"
wait_rows_gone allocprof_test
t_eq "rows of the unloaded module released after its last free" 0 \
	"$(grep -c '\[allocprof_test\]' /proc/allocinfo)"
if [ "$am_on" = 1 ]; then
	t_eq "one release message naming the module" 1 \
		"$(dmesg | grep -c 'module allocprof_test: the last of its allocations was freed')"
fi
t_check "allocprof_keeper unloads" rmmod allocprof_keeper
t_check "allocinfo readable after all" sh -c 'cat /proc/allocinfo >/dev/null'
