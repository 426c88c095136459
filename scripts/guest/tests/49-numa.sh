# Per-NUMA-node breakdown: the allocprof_numa_test module allocates pages
# and kmalloc objects on each node (node N gets N + 1 of each) from two
# known lines and tells which /proc/allocinfo_numa row (file:line
# [allocprof_numa_test] ... node:N) must show which bytes and calls.
# Checked: rows exact while the objects live, the sum over the nodes
# equal to the /proc/allocinfo row, no rows left after freeing.

# A NUMA kernel on one node keeps the breakdown (and its cost) off.
if [ -d /sys/devices/system/node/node0 ] && [ ! -d /sys/devices/system/node/node1 ] &&
	[ -e /proc/allocinfo ]; then
	t_eq "no /proc/allocinfo_numa on a single node" "" \
		"$(ls /proc/allocinfo_numa 2>/dev/null)"
fi
if [ ! -e /proc/allocinfo_numa ]; then
	t_skip "per-node breakdown" "no /proc/allocinfo_numa (one node, or NUMA not built)"
	return 0
fi
if [ ! -d /sys/devices/system/node/node1 ]; then
	t_skip "per-node breakdown" "no second node online"
	return 0
fi
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "per-node breakdown" "profiling switched off"
	return 0
fi
have_module "per-node breakdown" allocprof_numa_test || return 0

nt_proc=/proc/allocprof_numa_test
t_eq "allocinfo_numa header" "allocinfo - version: 2.0" \
	"$(head -1 /proc/allocinfo_numa)"

# nt_check DESC ZERO: every expected node row; ZERO=1 expects no row.
nt_check() {
	_bad=$(while read -r loc node bytes calls api; do
		[ "$2" = 1 ] && { bytes=0; calls=0; }
		got=$(grep -E " $loc \[allocprof_numa_test\] func:[^ ]+ node:$node( |\$)" \
			/proc/allocinfo_numa | awk '{ print $1, $2 }')
		[ "$bytes $calls" = "0 0" ] && [ -z "$got" ] && continue
		[ "$got" = "$bytes $calls" ] ||
			echo "$api: $loc node $node expected '$bytes $calls' got '$got'"
	done <$nt_proc | head -3)
	t_eq "$1" "" "$_bad"
}

# Sum of the node rows of each test line against its /proc/allocinfo row.
nt_sums() {
	for loc in $(awk '{ print $1 }' $nt_proc | sort -u); do
		nodes=$(grep " $loc \[allocprof_numa_test\]" /proc/allocinfo_numa |
			awk '{ b += $1; c += $2 } END { print b + 0, c + 0 }')
		total=$(grep " $loc \[allocprof_numa_test\]" /proc/allocinfo |
			awk '{ print $1, $2 }')
		[ "$nodes" = "$total" ] || echo "$loc: nodes '$nodes' allocinfo '$total'"
	done
}

t_check "allocprof_numa_test loads" insmod "$MODDIR/allocprof_numa_test.ko"
t_check "allocate on every node" sh -c "echo alloc >$nt_proc"
t_check "two test lines on at least two nodes" \
	[ "$(awk '$3 != 0' $nt_proc | wc -l)" -ge 4 ]
nt_check "per-node rows exact after allocation" 0
t_eq "node rows add up to the allocinfo rows" "" "$(nt_sums)"
echo free >$nt_proc
nt_check "no per-node rows after free" 1
t_eq "allocinfo rows zero after free" "" "$(nt_sums)"
echo alloc >$nt_proc
nt_check "per-node rows exact after reallocation" 0
t_check "allocprof_numa_test unloads" rmmod allocprof_numa_test
t_eq "module rows gone after unload" 0 \
	"$(grep -c '\[allocprof_numa_test\]' /proc/allocinfo_numa)"
