# Allocation APIs beyond kmalloc and the page allocator: the
# allocprof_cov_test module calls vmalloc, kvmalloc, string and user-copy
# helpers, mempool, rhashtable, kfifo, devm and DMA APIs (the DMA buffers
# from CMA on kernels with DMA_CMA), each from its own line,
# and tells which /proc/allocinfo row (file:line [allocprof_cov_test])
# must show which bytes and calls (see the module for what a row
# counts).  Checked: rows exact while alive (zero when profiling is
# switched off), the rhashtable row following a resize done by its
# worker, zero after free, and nothing charged inside the allocators: the
# charged rows there (only the plain kstrdup() etc. functions, called by
# files without linux/alloc_tag.h, may have some) do not change.  Without
# /proc/allocinfo (never, or profiling compiled out) the APIs are still
# called and freed, and only the row checks are skipped.

have_module "allocation API coverage" allocprof_cov_test || return 0

cv_proc=/proc/allocprof_cov_test
cv_on=0
[ -e /proc/allocinfo ] && cv_on=$(cat /proc/sys/vm/mem_profiling)

# cv_bad ZERO: expected rows that differ (ZERO=1 or profiling off: 0 0).
cv_bad() {
	if [ "$1" = 1 ] || [ "$cv_on" != 1 ]; then
		rows_differ allocprof_cov_test 1
	else
		rows_differ allocprof_cov_test 0
	fi
}

# cv_check DESC ZERO [TRIES]: retry once a second (for RCU-freed tables).
cv_check() {
	_try=${3:-1}
	while _bad=$(cv_bad "$2") && [ -n "$_bad" ] && [ "$_try" -gt 1 ]; do
		sleep 1
		_try=$((_try - 1))
	done
	t_eq "$1" "" "$_bad"
}

# Rows of the allocators' own nested calls: all use _noprof variants now.
cv_internal_rows() {
	grep -E ' func:(vm_area_alloc_pages|__vmalloc_area_node|__vmalloc_node(_range)?(_noprof)?|kvmalloc_node(_noprof)?|kstrn?dup(_const)?(_noprof)?|kmemdup(_nul)?(_noprof)?|k?v?asprintf(_const)?(_noprof)?|v?memdup_user(_nul)?(_noprof)?|strndup_user(_noprof)?|mempool_(init_node|create_node|resize|alloc|kmalloc|alloc_slab|alloc_pages)(_noprof)?|bucket_table_alloc|nested_table_alloc|nested_bucket_table_alloc|__kfifo_alloc(_noprof)?|__dma_direct_alloc_pages|dma_common_alloc_pages|cma_alloc_aligned|dmam_alloc_attrs(_noprof)?)( total_calls:[0-9]+ total_bytes:[0-9]+ failed:[0-9]+ requested:[0-9]+)? *$' \
		/proc/allocinfo 2>/dev/null | awk '$1 != 0 || $2 != 0'
}

load_test_module allocprof_cov_test || return 0
cv_internal=$(cv_internal_rows)
# The user-copy helpers copy the command, which must end with a NUL.
t_check "allocation APIs called" sh -c "printf 'alloc\\000' >$cv_proc"
t_check "allocprof_cov_test covers the APIs ($(wc -l <$cv_proc))" \
	[ "$(wc -l <$cv_proc)" -ge 55 ]
if [ ! -e /proc/allocinfo ]; then
	t_skip "allocation API rows" "no /proc/allocinfo (never, or profiling not built)"
else
	cv_check "API rows exact after allocation" 0
	if [ "$cv_on" = 1 ]; then
		cv_vm=$(awk '$4 == "vmalloc" { print $1 }' $cv_proc)
		cv_vm=$(grep " $cv_vm \[" /proc/allocinfo | awk '{ print $1, $2 }')
		t_eq "vmalloc of 3 pages: 3 pages and a page array ($cv_vm)" \
			"$(awk '$4 == "vmalloc" { print $2, $3 }' $cv_proc)" "$cv_vm"
	fi
	t_check "rhashtable grown by its worker" sh -c "echo grow >$cv_proc"
	cv_check "rhashtable row follows the resize" 0 10
	t_eq "nothing charged inside the allocators" "$cv_internal" \
		"$(cv_internal_rows)"
fi
t_check "allocation APIs freed" sh -c "echo free >$cv_proc"
if [ -e /proc/allocinfo ]; then
	cv_check "API rows zero after free" 1 5
fi
t_check "allocation APIs called again" sh -c "printf 'alloc\\000' >$cv_proc"
if [ -e /proc/allocinfo ]; then
	cv_check "API rows exact after reallocation" 0
fi
t_check "allocprof_cov_test unloads" rmmod allocprof_cov_test
t_eq "no unload warning when nothing is left" "" \
	"$(dmesg | grep 'module allocprof_cov_test unloaded with' | head -1)"
