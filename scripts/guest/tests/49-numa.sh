# Per-NUMA-node breakdown: the allocprof_numa_test module allocates pages
# and kmalloc objects on each node (node N gets N + 1 of each) from two
# known lines and tells which /proc/allocinfo_numa row (file:line
# [allocprof_numa_test] ... node:N) must show which bytes and calls.
# Checked: rows exact while the objects live, the sum over the nodes
# equal to the /proc/allocinfo row, no rows left after freeing.

# The breakdown is asked for at boot (mem_profiling_numa=1); without it,
# as servers boot, or on one node, it stays off: no file, no counters,
# no shared write.  A bad value is reported and leaves it off.
nt_asked=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^mem_profiling_numa=//p' | tail -1)
if [ -e /proc/allocinfo ] && [ "$nt_asked" != 1 ]; then
	t_eq "no /proc/allocinfo_numa unless asked for at boot" "" \
		"$(ls /proc/allocinfo_numa 2>/dev/null)"
	if [ -n "$nt_asked" ] && [ "$nt_asked" != 0 ]; then
		t_eq "bad mem_profiling_numa= reported" 1 \
			"$(dmesg | grep -c "mem_profiling_numa=$nt_asked: invalid value, expected 0 or 1")"
	fi
fi
if [ -d /sys/devices/system/node/node0 ] && [ ! -d /sys/devices/system/node/node1 ] &&
	[ -e /proc/allocinfo ]; then
	t_eq "no /proc/allocinfo_numa on a single node" "" \
		"$(ls /proc/allocinfo_numa 2>/dev/null)"
fi
if [ "$nt_asked" = 1 ] && [ -d /sys/devices/system/node/node1 ] &&
	[ -e /proc/allocinfo ]; then
	t_eq "the boot log says the breakdown is on" 1 \
		"$(dmesg | grep -c 'alloc_tag: per-node breakdown on, [0-9]* nodes')"
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

# A whole anonymous THP moved to the other node with move_pages() (held
# by /bin/thp, see scripts/guest/bin/thp.c): migration hands the charge to
# the new huge page, so its /proc/allocinfo row stays exact and its
# 2 MiB and one call move from one node's row to the other's.
# nt_func_rows FUNC: "bytes calls" of FUNC's rows in /proc/allocinfo, then
# on node 0 and node 1.
nt_func_rows() {
	for f in /proc/allocinfo "node:0" "node:1"; do
		if [ "$f" = /proc/allocinfo ]; then
			grep " func:$1\( \|\$\)" /proc/allocinfo
		else
			grep " func:$1 $f\( \|\$\)" /proc/allocinfo_numa
		fi | awk '{ b += $1; c += $2 } END { printf "%d %d ", b, c }'
	done
}

# nt_plus BASE NODE BYTES CALLS: BASE (from nt_func_rows) plus BYTES in
# CALLS calls, in all and on node NODE.
nt_plus() {
	echo "$1" | awk -v n="$2" -v b="$3" -v c="$4" '{
		$1 += b; $2 += c; $(3 + 2 * n) += b; $(4 + 2 * n) += c
		printf "%d %d %d %d %d %d ", $1, $2, $3, $4, $5, $6 }'
}

# The THP row, and BASE plus one 2 MiB call on NODE
nt_thp_rows() { nt_func_rows do_huge_pmd_anonymous_page; }
nt_thp_expect() { nt_plus "$1" "$2" 2097152 1; }

nt_thp_move() {
	thp_usable "THP moved between nodes" || return 0
	thp_base=$(nt_thp_rows)
	thp_kb=$(meminfo_kb AnonHugePages)
	thp_start 1
	thp_from=$(thp_ask node 0) || thp_from=none
	if [ "$thp_reply" != ready ] || [ -z "${thp_from##*[!0-9]*}" ]; then
		t_fail "THP helper runs" "thp said '$thp_reply', node '$thp_from'"
	elif [ "$(($(meminfo_kb AnonHugePages) - thp_kb))" != 2048 ]; then
		t_skip "THP moved between nodes" "kernel allocated no anonymous huge page"
	else
		thp_to=$((1 - thp_from))
		t_eq "THP charged on node $thp_from" \
			"$(nt_thp_expect "$thp_base" "$thp_from")" "$(nt_thp_rows)"
		t_eq "move_pages() moves the THP to node $thp_to" ok \
			"$(thp_ask move 0 "$thp_to" || echo died)"
		thp_now=$(thp_ask node 0) || thp_now=none
		t_eq "THP now on node $thp_to" "$thp_to" "$thp_now"
		t_eq "THP still one huge page" 2048 "$(($(meminfo_kb AnonHugePages) - thp_kb))"
		t_eq "THP row exact, its charge moved to node $thp_to" \
			"$(nt_thp_expect "$thp_base" "$thp_to")" "$(nt_thp_rows)"
	fi
	thp_stop
	t_eq "thp helper unmaps everything and exits" 0 $?
	t_eq "THP rows back to their base" "$thp_base" "$(nt_thp_rows)"
}

nt_thp_move

# A gigantic hugetlb page from alloc_contig_pages(), one charge of its
# head page, moved to the other node's boot-time gigantic page, which
# nobody charged (boot test debug-gigantic-numa: hugepages=1 with
# numa=fake=2): the charge moves with the data, and once both pool pages
# are freed neither node's row keeps bytes the other lost.
# The rows of run-time gigantic pages, and BASE plus one gigantic page on
# NODE
nt_giga_rows() { nt_func_rows alloc_gigantic_page; }
nt_giga_on() { nt_plus "$1" "$2" 1073741824 1; }

nt_giga_move() {
	ng=hugepages/hugepages-1048576kB
	ng_to=
	for n in 0 1; do
		[ "$(cat /sys/devices/system/node/node$n/$ng/free_hugepages 2>/dev/null)" = 1 ] && ng_to=$n
	done
	if [ ! -x /bin/thp ] || [ -z "$ng_to" ]; then
		t_skip "gigantic page moved between nodes" "no free boot-time gigantic page"
		return 0
	fi
	ng_from=$((1 - ng_to))
	ngf=/sys/devices/system/node/node$ng_from/$ng
	ngt=/sys/devices/system/node/node$ng_to/$ng
	ng_base=$(nt_giga_rows)
	echo 1 >"$ngf/nr_hugepages"
	if [ "$(cat "$ngf/free_hugepages")" != 1 ]; then
		t_skip "gigantic page moved between nodes" "no free GiB on node $ng_from"
		return 0
	fi
	t_eq "gigantic page charged as one call on node $ng_from" \
		"$(nt_giga_on "$ng_base" $ng_from)" "$(nt_giga_rows)"
	thp_start -g $ng_from
	t_eq "a mapping gets node $ng_from's gigantic page" "ready $ng_from" \
		"$thp_reply $(thp_ask node 0 || echo died)"
	t_eq "move_pages() moves it to node $ng_to's boot-time page" ok \
		"$(thp_ask move 0 $ng_to || echo died)"
	t_eq "its charge moved to node $ng_to" \
		"$(nt_giga_on "$ng_base" $ng_to)" "$(nt_giga_rows)"
	thp_stop
	t_eq "thp -g unmaps and exits" 0 $?
	echo 0 >"$ngf/nr_hugepages"
	echo 0 >"$ngt/nr_hugepages"
	t_eq "both gigantic pages freed: rows back to their base on each node" \
		"$ng_base" "$(nt_giga_rows)"
}

nt_giga_move
