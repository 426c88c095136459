# Allocation failures: fail_page_alloc from order 1 and (when the boot
# flagged the cache with slub_debug=A,allocprof_stress) failslab on the
# allocprof_stress cache, both limited to one task (task-filter +
# /proc/self/make-it-fail), fail about half of those allocations while
# the module allocates and holds objects of every kind.  Checked:
# failures happened, every module row equals exactly the objects that
# were allocated and are held, and 0 0 after they are freed.  When the
# boot flagged the obj_exts-* caches instead (slub_debug=A,obj_exts-*),
# failslab fails only the slab reference vectors: objects are allocated
# but not charged, and their row must say accurate:no (kernels printing
# version 2.0).  The 6.1 failslab sysfs file is read-only, hence the
# boot parameter.

st_proc=/proc/allocprof_stress
fi_dbg=/sys/kernel/debug
mount -t debugfs debugfs $fi_dbg 2>/dev/null
if [ ! -d $fi_dbg/failslab ] || [ ! -d $fi_dbg/fail_page_alloc ]; then
	t_skip "fault injection" "kernel without failslab/fail_page_alloc"
	return 0
fi
if [ ! -r /proc/allocinfo ] || [ ! -f "$MODDIR/allocprof_stress.ko" ] ||
	[ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "fault injection" "no /proc/allocinfo, stress module or profiling off"
	return 0
fi

fi_off() {
	fault_set failslab probability=0
	fault_set fail_page_alloc probability=0
}
# fi_hold N [KIND]: allocate and hold N objects of each kind (or of KIND)
# from a task whose allocations may fail.
fi_hold() {
	sh -c "echo 1 >/proc/self/make-it-fail && echo 'hold $*' >$st_proc"
}
# fi_rows: "kind live bytes | row bytes row calls" mismatches.
fi_mismatch() {
	awk '$1 == "site" { print $2, $3, $4, $5 }' $st_proc | while read -r k l live bytes; do
		row=$(grep ":$l \[allocprof_stress\] func:" /proc/allocinfo)
		if [ -z "$row" ]; then
			case $k in vmalloc | percpu) continue ;; esac
			echo "$k: no row"
			continue
		fi
		set -- $row
		# A vmalloc area is three calls: its two pages and its page array.
		calls=$live
		[ "$k" = vmalloc ] && calls=$((live * 3))
		[ "$1 $2" = "$bytes $calls" ] || echo "$k: held $live ($bytes bytes, $calls calls), row '$1 $2'"
	done
}

insmod "$MODDIR/allocprof_stress.ko" || { t_fail "allocprof_stress loads" "insmod failed"; return 0; }
fi_vec=$(cat /sys/kernel/slab/obj_exts-*/failslab 2>/dev/null | grep -c 1)
fi_cache=$(cat /sys/kernel/slab/allocprof_stress/failslab 2>/dev/null || echo 0)
fault_set failslab task-filter=Y cache-filter=Y ignore-gfp-wait=N verbose=0 \
	interval=1 times=-1 space=0 probability=0
fault_set fail_page_alloc task-filter=Y ignore-gfp-wait=N ignore-gfp-highmem=N \
	verbose=0 interval=1 times=-1 space=0 min-order=1 probability=50
# Never together with failing vectors, which would make rows inaccurate.
[ "$fi_cache" = 1 ] && [ "$fi_vec" = 0 ] && fault_set failslab probability=50

fi_n=200
fi_hold $fi_n
fi_off
fi_live() { awk -v k="$1" '$1 == "site" && $2 == k { print $4 }' $st_proc; }
fi_c=$(fi_live cache) fi_p1=$(fi_live page1) fi_p2=$(fi_live page2)
if [ "$fi_cache" = 1 ] && [ "$fi_vec" = 0 ]; then
	t_check "failslab failed some cache objects ($fi_c of $fi_n allocated)" \
		[ "$fi_c" -gt 0 -a "$fi_c" -lt $fi_n ]
else
	t_skip "failslab on the allocprof_stress cache" "boot without slub_debug=A,allocprof_stress"
fi
t_check "fail_page_alloc failed some pages (order 1: $fi_p1, order 2: $fi_p2 of $fi_n)" \
	[ "$fi_p1" -lt $fi_n -a "$fi_p2" -lt $fi_n ]
t_eq "order-0 pages not failed (min-order=1)" "$fi_n" "$(fi_live page0)"
t_eq "module rows equal the objects allocated and held ($(awk '/^failed/ { print $2 }' $st_proc) failures)" \
	"" "$(fi_mismatch | head -3)"
echo release >$st_proc
t_eq "module rows 0 0 after release" "" "$(fi_mismatch | head -3)"

# Vectors fail: objects allocated, uncharged, row flagged.
if [ "$fi_vec" = 0 ]; then
	t_skip "accurate:no marker" "boot without slub_debug=A,obj_exts-*"
elif [ "$(head -n 1 /proc/allocinfo)" != "allocinfo - version: 2.0" ]; then
	t_skip "accurate:no marker" "kernel prints $(head -n 1 /proc/allocinfo)"
else
	fault_set failslab probability=100
	fi_n=1000
	fi_hold $fi_n cache
	fi_off
	fi_line=$(awk '$1 == "site" && $2 == "cache" { print $3 }' $st_proc)
	fi_row=$(grep ":$fi_line \[allocprof_stress\] func:" /proc/allocinfo)
	t_eq "every cache object allocated without its vector" $fi_n "$(fi_live cache)"
	t_check "cache row undercounts ($(echo "$fi_row" | awk '{ print $2 }') of $fi_n charged)" \
		[ "$(echo "$fi_row" | awk '{ print $2 }')" -lt $fi_n ]
	t_check "cache row marked accurate:no" sh -c "echo '$fi_row' | grep -q ' accurate:no \$'"
	t_eq "no other module row marked" 1 "$(grep '\[allocprof_stress\].* accurate:no $' /proc/allocinfo | wc -l)"
	echo release >$st_proc
	t_eq "cache row back to 0 0 after release, still marked" "0 0 accurate:no" \
		"$(grep ":$fi_line \[allocprof_stress\] func:" /proc/allocinfo | awk '{ print $1, $2, $NF }')"
fi
t_check "allocprof_stress unloads" rmmod allocprof_stress
t_check "allocinfo readable after fault injection" sh -c 'cat /proc/allocinfo >/dev/null'
