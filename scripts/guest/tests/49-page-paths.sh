# Page paths outside plain alloc/free keep charges exact (kernels with
# compaction, THP, hugetlb and zram, see scripts/configs/mm-paths.config):
#  - huge tmpfs folios (mm/shmem.c:shmem_alloc_hugefolio) keep their row
#    through compaction and through truncation, which splits a huge folio
#    and frees the pieces past the new end;
#  - anonymous THPs (mm/huge_memory.c:do_huge_pmd_anonymous_page), held by
#    /bin/thp, keep their row when cut pieces split them and the pieces
#    move in compaction;
#  - zsmalloc pages (mm/zsmalloc.c:alloc_zspage) of a zram device and
#    balloon pages (mm/balloon_compaction.c:balloon_page_alloc) keep their
#    row when compaction migrates them through movable_ops;
#  - hugetlb pool pages are charged to alloc_buddy_huge_page() while in
#    the pool, also across compaction, and uncharged when the pool shrinks;
#    a gigantic page (alloc_gigantic_page), one call while in the pool,
#    demoted to 2 MiB pages keeps its bytes, as one call per 2 MiB page.
# Deltas of the rows are checked exactly, with the expected values taken
# from /proc/meminfo or the device's statistics where the kernel chooses.

if [ ! -e /proc/allocinfo ] || [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "page paths" "profiling not enabled"
	return 0
fi
if [ ! -e /proc/sys/vm/compact_memory ]; then
	t_skip "page paths" "kernel without compaction, THP and hugetlb"
	return 0
fi

# pp_add BASE BYTES CALLS: BASE ("bytes calls") plus a delta.
pp_add() {
	echo "$1" | awk -v b="$2" -v c="$3" '{ print $1 + b, $2 + c }'
}

# pp_total FUNC: "bytes calls" ever charged to FUNC's row (total_bytes:
# and total_calls: of CONFIG_MEM_ALLOC_PROFILING_STATS), empty without.
pp_total() {
	awk -v f="func:$1" '{ m = 0; for (i = 3; i <= NF; i++) if ($i == f) m = 1 }
		m { for (i = 3; i <= NF; i++) {
			if ($i ~ /^total_bytes:/) { b += substr($i, 13); n = 1 }
			if ($i ~ /^total_calls:/) c += substr($i, 13) } }
		END { if (n) print b, c }' /proc/allocinfo
}

# pp_expect DESC FUNC EXPECTED: retry while freed pages drain (dropping
# caches also runs the shrinker that splits partly unmapped THPs).
pp_expect() {
	_try=5
	while [ "$(func_row "$2")" != "$3" ] && [ "$_try" -gt 1 ]; do
		echo 3 >/proc/sys/vm/drop_caches
		sleep 1
		_try=$((_try - 1))
	done
	t_eq "$1" "$3" "$(func_row "$2")"
}

# pp_compact: compact every zone.  Where the kernel counts migrations
# (VM_EVENT_COUNTERS, see mm-paths.config), the end of this file checks
# that the compactions moved pages: one may find a zone with nothing to
# move, but rows checked after compactions that never moved a page
# would prove nothing.
pp_migrated() {
	awk '$1 == "pgmigrate_success" { print $2 }' /proc/vmstat
}
pp_migrated0=$(pp_migrated)
pp_compact() {
	echo 1 >/proc/sys/vm/compact_memory
}

pp_tmpfs() {
	pp_hf=shmem_alloc_hugefolio
	pp_dir=/tmp/page-paths
	mkdir -p $pp_dir
	if ! mount -t tmpfs -o huge=always,size=16m none $pp_dir 2>/dev/null; then
		t_skip "huge tmpfs" "no huge=always tmpfs"
		return 0
	fi
	pp_base=$(func_row $pp_hf)
	pp_huge0=$(meminfo_kb ShmemHugePages)
	dd if=/dev/zero of=$pp_dir/f bs=1M count=4 2>/dev/null
	pp_kb=$(($(meminfo_kb ShmemHugePages) - pp_huge0))
	if [ "$pp_kb" -le 0 ]; then
		# Also when the page cache cannot hold PMD-sized folios:
		# BASE_SMALL limits MAX_PAGECACHE_ORDER to 7.
		t_skip "huge tmpfs folios" "kernel allocated no huge tmpfs folio"
	else
		pp_full=$(pp_add "$pp_base" $((pp_kb * 1024)) $((pp_kb / 2048)))
		pp_expect "huge tmpfs folios charged ($pp_kb kB)" $pp_hf "$pp_full"
		t_check "compaction runs" pp_compact
		pp_expect "huge tmpfs row exact after compaction" $pp_hf "$pp_full"
		# Truncating to 1 MiB splits the first huge folio.
		dd if=/dev/zero of=$pp_dir/f bs=1M count=0 seek=1 2>/dev/null
		echo 1 >/proc/sys/vm/drop_caches
		# The first folio split into 256 charged pieces, or kept whole.
		if [ "$(meminfo_kb ShmemHugePages)" = "$pp_huge0" ]; then
			pp_left="1048576 256"
		else
			pp_left="2097152 1"
		fi
		pp_part=$(pp_add "$pp_base" $pp_left)
		pp_expect "huge tmpfs row exact after split by truncate (+$pp_left)" \
			$pp_hf "$pp_part"
		t_check "compaction runs after split" pp_compact
		pp_expect "split pieces exact after compaction" $pp_hf "$pp_part"
	fi
	rm -f $pp_dir/f
	umount $pp_dir
	pp_expect "huge tmpfs row back to its base" $pp_hf "$pp_base"
}

# pp_thp_cmd CMD I OFF LEN: have /bin/thp cut LEN KiB at OFF KiB into its
# huge page I.
pp_thp_cmd() {
	[ "$(thp_ask "$@")" = ok ]
}

# Four anonymous THPs; then cuts split three of them: huge page 0 loses
# its second half to munmap() and huge page 1 its first 512 KiB to
# MADV_DONTNEED (both split, their pieces stay charged as 4 KiB calls and
# the cut ones are uncharged); mprotect() of 4 KiB of huge page 2 splits
# only its mapping (one 2 MiB call still); huge page 3 stays whole.
pp_anon_thp() {
	thp_usable "anonymous THP" || return 0
	pp_ah=do_huge_pmd_anonymous_page
	pp_base=$(func_row $pp_ah)
	pp_huge0=$(meminfo_kb AnonHugePages)
	thp_start 4
	pp_kb=$(($(meminfo_kb AnonHugePages) - pp_huge0))
	if [ "$thp_reply" != ready ]; then
		t_fail "anonymous THP helper runs" "thp said '$thp_reply'"
	elif [ "$pp_kb" = 0 ]; then
		t_skip "anonymous THP" "kernel allocated no anonymous huge page"
	else
		pp_full=$(pp_add "$pp_base" $((pp_kb * 1024)) $((pp_kb / 2048)))
		pp_expect "anonymous THPs charged ($pp_kb kB)" $pp_ah "$pp_full"
		t_eq "four anonymous THPs" 8192 "$pp_kb"
		t_check "THPs cut by munmap, MADV_DONTNEED, mprotect" eval \
			"pp_thp_cmd munmap 0 1024 1024 && pp_thp_cmd dontneed 1 0 512 &&
			pp_thp_cmd protect 2 1024 4"
		pp_kb=$(($(meminfo_kb AnonHugePages) - pp_huge0))
		t_eq "one THP still mapped by its PMD" 2048 "$pp_kb"
		# The deferred split shrinker splits the partly unmapped ones.
		echo 2 >/proc/sys/vm/drop_caches
		# 1 MiB + 1.5 MiB of pieces, 2 MiB under a split PMD, the rest.
		pp_part=$(pp_add "$pp_base" $(((1024 + 1536 + 2048 + pp_kb) * 1024)) \
			$((256 + 384 + 1 + pp_kb / 2048)))
		pp_expect "anonymous THP row exact after split" $pp_ah "$pp_part"
		t_check "compaction runs with split THPs" pp_compact
		pp_expect "split THP pieces exact after compaction" $pp_ah "$pp_part"
	fi
	thp_stop
	t_eq "thp helper unmaps everything and exits" 0 $?
	pp_expect "anonymous THP row back to its base" $pp_ah "$pp_base"
}

# A zram device holds the busybox binary (pages of varied compressibility)
# in zsmalloc pages, one call each; compaction migrates them with their
# owner's movable_ops, which must not lose their charges.
pp_zsmalloc() {
	pp_zram=/sys/block/zram0
	if [ ! -e $pp_zram/disksize ]; then
		t_skip "zsmalloc pages" "kernel without zram"
		return 0
	fi
	pp_zs=alloc_zspage
	pp_base=$(func_row $pp_zs)
	echo 8M >$pp_zram/disksize
	dd if=/bin/busybox of=/dev/zram0 bs=64k conv=fsync 2>/dev/null
	pp_used=$(awk '{ print $3 }' $pp_zram/mm_stat)
	pp_full=$(pp_add "$pp_base" "$pp_used" $((pp_used / 4096)))
	pp_expect "zsmalloc pages charged ($pp_used bytes)" $pp_zs "$pp_full"
	t_check "compaction runs with zspages" pp_compact
	pp_expect "zsmalloc row exact after compaction" $pp_zs "$pp_full"
	echo 1 >$pp_zram/reset
	pp_expect "zsmalloc row back to its base after reset" $pp_zs "$pp_base"
}

# The allocprof_balloon_test module inflates a balloon of 4096 pages from
# balloon_page_alloc(); compaction migrates some of them through the
# balloon's movable_ops, whose copies must keep the charge.
pp_balloon() {
	pp_bt=allocprof_balloon_test
	have_module "balloon pages" $pp_bt || return 0
	load_test_module $pp_bt || return 0
	pp_ba=balloon_page_alloc
	pp_base=$(func_row $pp_ba)
	t_check "balloon inflates" sh -c "echo inflate >/proc/$pp_bt"
	pp_full=$(pp_add "$pp_base" $((4096 * 4096)) 4096)
	pp_expect "balloon pages charged" $pp_ba "$pp_full"
	t_check "compaction runs with a balloon" pp_compact
	# Compaction may leave the balloon where it is (the end of this file
	# checks that compactions moved pages at all).
	pp_moved=$(awk '{ print $2 }' /proc/$pp_bt)
	if [ "${pp_moved:-0}" -gt 0 ]; then
		t_ok "compaction migrated $pp_moved balloon pages"
	else
		t_skip "balloon pages migrated" "compaction moved none of them"
	fi
	pp_expect "balloon row exact after compaction" $pp_ba "$pp_full"
	t_check "balloon deflates" sh -c "echo deflate >/proc/$pp_bt"
	pp_expect "balloon row back to its base" $pp_ba "$pp_base"
	t_check "$pp_bt unloads" rmmod $pp_bt
}

pp_hugetlb() {
	pp_nr=/proc/sys/vm/nr_hugepages
	if [ ! -w $pp_nr ]; then
		t_skip "hugetlb pool" "no hugetlb"
		return 0
	fi
	pp_bh=alloc_buddy_huge_page
	pp_base=$(func_row $pp_bh)
	pp_n0=$(cat $pp_nr)
	echo $((pp_n0 + 2)) >$pp_nr
	pp_n=$(($(cat $pp_nr) - pp_n0))
	pp_size=$(($(meminfo_kb Hugepagesize) * 1024))
	pp_pool=$(pp_add "$pp_base" $((pp_n * pp_size)) $pp_n)
	pp_expect "hugetlb pool of $pp_n pages charged" $pp_bh "$pp_pool"
	t_check "compaction runs with a hugetlb pool" pp_compact
	pp_expect "hugetlb pool row exact after compaction" $pp_bh "$pp_pool"
	echo "$pp_n0" >$pp_nr
	pp_expect "hugetlb pool pages uncharged when freed" $pp_bh "$pp_base"
}

# A gigantic page from alloc_contig_pages(), charged page by page, is one
# charge of its head page while hugetlb holds it; demoting it to 2 MiB
# pages splits that into one call per 2 MiB page, each freed as one block
# when the 2 MiB pool shrinks.  Needs
# CONTIG_ALLOC, a CPU with 1 GiB pages and a free, aligned GiB.
pp_demote() {
	pp_g=/sys/kernel/mm/hugepages/hugepages-1048576kB
	pp_h=/sys/kernel/mm/hugepages/hugepages-2048kB
	if [ ! -w $pp_g/demote ] || [ ! -w $pp_h/nr_hugepages ]; then
		t_skip "hugetlb demotion" "no gigantic pages at run time"
		return 0
	fi
	pp_gg=alloc_gigantic_page
	pp_base=$(func_row $pp_gg)
	pp_t0=$(pp_total $pp_gg)
	pp_n0=$(cat $pp_h/nr_hugepages)
	echo 1 >$pp_g/nr_hugepages
	if [ "$(cat $pp_g/nr_hugepages)" != 1 ]; then
		t_skip "hugetlb demotion" "no free GiB for a gigantic page"
		return 0
	fi
	pp_expect "gigantic page charged as one call" $pp_gg \
		"$(pp_add "$pp_base" $((1 << 30)) 1)"
	echo 1 >$pp_g/demote
	t_eq "gigantic page demoted to 512 huge pages" "0 $((pp_n0 + 512))" \
		"$(cat $pp_g/nr_hugepages) $(cat $pp_h/nr_hugepages)"
	pp_expect "demoted pages charged as one call each" $pp_gg \
		"$(pp_add "$pp_base" $((1 << 30)) 512)"
	echo "$pp_n0" >$pp_h/nr_hugepages
	pp_expect "demoted pages uncharged when freed" $pp_gg "$pp_base"
	# Demotion allocates nothing: one gigantic page ever charged.
	[ -z "$pp_t0" ] || t_eq "lifetime counts of one gigantic page" \
		"$(pp_add "$pp_t0" $((1 << 30)) $((1 << 18)))" "$(pp_total $pp_gg)"
}

pp_tmpfs
pp_anon_thp
pp_zsmalloc
pp_balloon
pp_hugetlb
pp_demote

if [ -z "$pp_migrated0" ]; then
	t_skip "compaction moved pages" "no pgmigrate_success without VM_EVENT_COUNTERS"
else
	t_check "compaction moved pages ($(($(pp_migrated) - pp_migrated0)))" \
		[ "$(pp_migrated)" -gt "$pp_migrated0" ]
fi
