# Demoting a huge page that the buddy allocator gave hugetlb (2 MiB to
# 64 KiB on arm64 with 4 KiB pages) splits its one charge into one charge
# of each smaller huge page, each freed as a block of its own when the
# smaller pool shrinks: the row of alloc_buddy_huge_page() keeps its
# bytes, counts one call per piece, and comes back to where it was.
# Gigantic pages (alloc_gigantic_page) are demoted in 49-page-paths.sh.

if [ ! -e /proc/allocinfo ] || [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "hugetlb demotion of buddy pages" "profiling not enabled"
	return 0
fi

# hd_pair: "FROM TO" in kB for the first huge page size of at most 4 MiB
# (a buddy block) that demotes to a smaller one.
hd_pair() {
	for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
		[ -w "$d/demote" ] && [ -r "$d/demote_size" ] || continue
		from=${d##*hugepages-}
		from=${from%kB}
		to=$(cat "$d/demote_size")
		to=${to%kB}
		if [ "$from" -le 4096 ] && [ "$to" -lt "$from" ]; then
			echo "$from $to"
			return 0
		fi
	done
	return 1
}

hd_expect() {
	_try=5
	while [ "$(func_row alloc_buddy_huge_page)" != "$2" ] && [ "$_try" -gt 1 ]; do
		sleep 1
		_try=$((_try - 1))
	done
	t_eq "$1" "$2" "$(func_row alloc_buddy_huge_page)"
}

if ! pair=$(hd_pair); then
	t_skip "hugetlb demotion of buddy pages" "no huge page size of a buddy block demotes here"
	return 0
fi
set -- $pair
hd_from=/sys/kernel/mm/hugepages/hugepages-${1}kB
hd_to=/sys/kernel/mm/hugepages/hugepages-${2}kB
hd_pieces=$(($1 / $2))
hd_base=$(func_row alloc_buddy_huge_page)
hd_n0=$(cat $hd_to/nr_hugepages)
hd_f0=$(cat $hd_from/nr_hugepages)
echo $((hd_f0 + 1)) >$hd_from/nr_hugepages
if [ "$(cat $hd_from/nr_hugepages)" != $((hd_f0 + 1)) ]; then
	t_skip "hugetlb demotion of buddy pages" "no free ${1} kB block"
	return 0
fi
hd_add() { echo "$hd_base" | awk -v b="$1" -v c="$2" '{ print $1 + b, $2 + c }'; }
hd_expect "${1} kB huge page charged as one call" "$(hd_add $(($1 * 1024)) 1)"
echo 1 >$hd_from/demote
t_eq "demoted to $hd_pieces pages of ${2} kB" "$hd_f0 $((hd_n0 + hd_pieces))" \
	"$(cat $hd_from/nr_hugepages) $(cat $hd_to/nr_hugepages)"
hd_expect "demoted pieces charged as one call each" \
	"$(hd_add $(($1 * 1024)) $hd_pieces)"
echo "$hd_n0" >$hd_to/nr_hugepages
hd_expect "demoted pieces uncharged when freed" "$hd_base"
