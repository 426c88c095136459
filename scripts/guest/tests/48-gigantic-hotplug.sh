# A gigantic page on memory whose struct pages are not one array: with
# classic SPARSEMEM every hot-added section gets a struct page array of
# its own, so stepping page + i through a 1 GiB page walks off the first
# section's array into whatever lies after it.  The boot keeps memory
# above the range back (mem=), this test hot-adds it through
# /sys/devices/system/memory/probe from the top down (so that each
# section's array is allocated after, and so apart from, the one of the
# section above it), checks that each GiB of the range crosses arrays,
# and has hugetlb allocate and free a gigantic
# page there: alloc_contig_pages() charges it page by page, hugetlb merges
# that into one charge of its head page and splits it again to free it,
# walking every struct page, so its row must take 1 GiB in one call and
# give all of it back.  allocprof.probe=START-END (physical addresses) names the range;
# boots without it skip.  The memory stays online for the later tests.

gh_range=$(cmdline_value allocprof.probe "")
gh_mem=/sys/devices/system/memory
gh_g=/sys/kernel/mm/hugepages/hugepages-1048576kB
if [ -z "$gh_range" ]; then
	t_skip "gigantic page on hot-added memory" "no allocprof.probe= range"
	return 0
fi
if [ ! -w $gh_mem/probe ] || [ ! -w $gh_g/nr_hugepages ]; then
	t_skip "gigantic page on hot-added memory" "no memory probe or no 1 GiB pages"
	return 0
fi
if [ "$(cat /proc/sys/vm/mem_profiling 2>/dev/null)" != 1 ]; then
	t_skip "gigantic page on hot-added memory" "profiling not enabled"
	return 0
fi
have_module "gigantic page on hot-added memory" allocprof_memmap_test || return 0

gh_start=$((${gh_range%-*}))
gh_end=$((${gh_range#*-}))
gh_bs=$((0x$(cat $gh_mem/block_size_bytes)))

gh_bad=""
gh_addr=$((gh_end - gh_bs))
while [ $gh_addr -ge $gh_start ]; do
	printf '0x%x\n' $gh_addr >$gh_mem/probe || gh_bad="$gh_bad probe($gh_addr)"
	gh_addr=$((gh_addr - gh_bs))
done
gh_addr=$gh_start
while [ $gh_addr -lt $gh_end ]; do
	echo online_kernel >$gh_mem/memory$((gh_addr / gh_bs))/state ||
		gh_bad="$gh_bad online($gh_addr)"
	gh_addr=$((gh_addr + gh_bs))
done
t_eq "$(((gh_end - gh_start) >> 20)) MiB hot-added and online" "" "$gh_bad"

# Each aligned GiB, where a gigantic page may go, must cross arrays: the
# order of the probes makes that likely, not certain (a section's array
# may still follow its neighbour's), so at least one seam each.
gh_seams="" gh_ok=0 gh_addr=$gh_start
while [ $((gh_addr + (1 << 30))) -le $gh_end ]; do
	gh_b=? gh_s=error
	if insmod "$MODDIR/allocprof_memmap_test.ko" start=$gh_addr end=$((gh_addr + (1 << 30))); then
		read -r _ gh_b _ gh_s </proc/allocprof_memmap_test
		rmmod allocprof_memmap_test
	fi
	gh_seams="$gh_seams $gh_s/$gh_b"
	case "$gh_ok $gh_s" in 0\ [1-9]* | 1\ [1-9]*) gh_ok=1 ;; *) gh_ok=2 ;; esac
	gh_addr=$((gh_addr + (1 << 30)))
done
t_eq "every GiB added crosses struct page arrays (seams:$gh_seams)" 1 "$gh_ok"

# gh_normal_free: free pages of the Normal zone, all of which the
# hot-added memory holds.
gh_normal_free() {
	awk '$1 == "Node" { z = $4 } z == "Normal" && $1 == "pages" && $2 == "free" { n += $3 }
		END { print n + 0 }' /proc/zoneinfo
}

gh_base=$(func_row alloc_gigantic_page)
gh_free0=$(gh_normal_free)
echo 1 >$gh_g/nr_hugepages
if [ "$(cat $gh_g/nr_hugepages)" != 1 ]; then
	t_fail "gigantic page allocated on hot-added memory" "hugetlb found no free GiB"
	return 0
fi
# 1 GiB is 262144 pages; the rest of the system moves a few hundred.
t_check "the gigantic page came from the added memory" \
	test $((gh_free0 - $(gh_normal_free))) -gt 250000
t_eq "gigantic page charged as one call" \
	"$(echo "$gh_base" | awk -v b=$((1 << 30)) '{ print $1 + b, $2 + 1 }')" \
	"$(func_row alloc_gigantic_page)"
echo 0 >$gh_g/nr_hugepages
t_eq "gigantic page freed: its row back to where it was" "$gh_base" "$(func_row alloc_gigantic_page)"
