# Page paths outside plain alloc/free keep charges exact (kernels with
# compaction, THP and hugetlb, see scripts/configs/mm-paths.config):
#  - huge tmpfs folios (mm/shmem.c:shmem_alloc_hugefolio) keep their row
#    through compaction, which migrates them, and through truncation,
#    which splits a huge folio and frees the pieces past the new end;
#  - hugetlb pool pages are charged to alloc_buddy_huge_page() while in
#    the pool, also across compaction, and uncharged when the pool shrinks.
# Deltas of the rows are checked exactly, with the expected values taken
# from /proc/meminfo (the kernel may fall back to small pages).

if [ ! -e /proc/allocinfo ] || [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "page paths" "profiling not enabled"
	return 0
fi
if [ ! -e /proc/sys/vm/compact_memory ]; then
	t_skip "page paths" "kernel without compaction, THP and hugetlb"
	return 0
fi

# pp_row FUNC: "bytes calls" of the row of FUNC, 0 0 if none.
pp_row() {
	awk -v f="func:$1" '{ for (i = 3; i <= NF; i++) if ($i == f) { b += $1; c += $2 } }
		END { print b + 0, c + 0 }' /proc/allocinfo
}

# pp_add BASE BYTES CALLS: BASE ("bytes calls") plus a delta.
pp_add() {
	echo "$1" | awk -v b="$2" -v c="$3" '{ print $1 + b, $2 + c }'
}

pp_meminfo() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# pp_expect DESC FUNC EXPECTED: retry while freed pages drain.
pp_expect() {
	_try=5
	while [ "$(pp_row "$2")" != "$3" ] && [ "$_try" -gt 1 ]; do
		echo 1 >/proc/sys/vm/drop_caches
		sleep 1
		_try=$((_try - 1))
	done
	t_eq "$1" "$3" "$(pp_row "$2")"
}

pp_compact() {
	echo 1 >/proc/sys/vm/compact_memory
}

pp_hf=shmem_alloc_hugefolio
pp_dir=/tmp/page-paths
mkdir -p $pp_dir
if ! mount -t tmpfs -o huge=always,size=16m none $pp_dir 2>/dev/null; then
	t_skip "huge tmpfs" "no huge=always tmpfs"
else
	pp_base=$(pp_row $pp_hf)
	pp_huge0=$(pp_meminfo ShmemHugePages)
	dd if=/dev/zero of=$pp_dir/f bs=1M count=4 2>/dev/null
	pp_kb=$(($(pp_meminfo ShmemHugePages) - pp_huge0))
	if [ "$pp_kb" -le 0 ]; then
		# Also when the page cache cannot hold PMD-sized folios
		# (tinyconfig's BASE_SMALL xarray limits the folio order).
		t_skip "huge tmpfs folios" "kernel allocated no huge tmpfs folio"
	else
		pp_full=$(pp_add "$pp_base" $((pp_kb * 1024)) $((pp_kb / 2048)))
		pp_expect "huge tmpfs folios charged ($pp_kb kB)" $pp_hf "$pp_full"
		t_check "compaction runs" pp_compact
		pp_expect "huge tmpfs row exact after compaction" $pp_hf "$pp_full"
		# Truncating to 1 MiB splits the first huge folio.
		dd if=/dev/zero of=$pp_dir/f bs=1M count=0 seek=1 2>/dev/null
		echo 1 >/proc/sys/vm/drop_caches
		if [ "$(pp_meminfo ShmemHugePages)" = "$pp_huge0" ]; then
			pp_part=$(pp_add "$pp_base" 1048576 $((1048576 / 4096)))
		else
			pp_part=$(pp_add "$pp_base" 2097152 1)
		fi
		pp_expect "huge tmpfs row exact after split by truncate" $pp_hf "$pp_part"
		t_check "compaction runs after split" pp_compact
		pp_expect "split pieces exact after compaction" $pp_hf "$pp_part"
	fi
	rm -f $pp_dir/f
	umount $pp_dir
	pp_expect "huge tmpfs row back to its base" $pp_hf "$pp_base"
fi

pp_nr=/proc/sys/vm/nr_hugepages
if [ ! -w $pp_nr ]; then
	t_skip "hugetlb pool" "no hugetlb"
	return 0
fi
pp_bh=alloc_buddy_huge_page
pp_base=$(pp_row $pp_bh)
pp_n0=$(cat $pp_nr)
echo $((pp_n0 + 2)) >$pp_nr
pp_n=$(($(cat $pp_nr) - pp_n0))
pp_size=$(($(pp_meminfo Hugepagesize) * 1024))
pp_pool=$(pp_add "$pp_base" $((pp_n * pp_size)) $pp_n)
pp_expect "hugetlb pool of $pp_n pages charged" $pp_bh "$pp_pool"
t_check "compaction runs with a hugetlb pool" pp_compact
pp_expect "hugetlb pool row exact after compaction" $pp_bh "$pp_pool"
echo "$pp_n0" >$pp_nr
pp_expect "hugetlb pool pages uncharged when freed" $pp_bh "$pp_base"
