#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocinfo stacks: the kernel's /proc/allocinfo_stacks parsed, and shown
# as a table (IEC units or -b), --json or --folded; saved copies (-f),
# the live arm-wait-read-disarm cycle on a stand-in /proc, malformed
# input, errors and usage errors.  Outputs are compared byte for byte
# with what the fixtures (tests/fixtures/stacks, in the kernel's format
# of lib/alloc_tag_stacks.c) must give.
# Usage: test_stacks.sh ALLOCINFO [ALLOCINFO-ASAN FUZZ-DRIVER]: with the
# sanitizer build, it also gives the same outputs, and survives mutated
# inputs with only the documented exit statuses.
A=$1
ASAN=$2
FUZZ=$3
F=tests/fixtures/stacks
. "${0%/*}/tap.sh"
has() { grep -q -e "$1" "$T/out"; }
errhas() { grep -q -e "$1" "$T/err"; }
# same NAME: stdout equals standard input, exit 0 and nothing on stderr
same() {
	cat >"$T/want"
	if [ "$rc" = 0 ] && ! [ -s "$T/err" ] && cmp -s "$T/want" "$T/out"; then
		ok "$1"
	else
		nok "$1"
		diff "$T/want" "$T/out" | head -20 | sed 's/^/#   /'
	fi
}
# stderr equals standard input
same_err() {
	cat >"$T/want"
	if cmp -s "$T/want" "$T/err"; then ok "$1"; else nok "$1"; diff "$T/want" "$T/err" | head -20 | sed 's/^/#   /'; fi
}

# ---- the table -----------------------------------------------------------
run stacks -f "$F/kernfs.txt"
same "table: IEC units, stacks largest first, ties as listed, unrecorded last" <<'EOF'
fs/kernfs/dir.c:614 __kernfs_new_node: 908.8KiB in 7270 calls, armed, complete
   BYTES CALLS  AVG  STACK
  2.4KiB    19 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     __kernfs_create_file+0x27/0x90
                     sysfs_add_file_mode_ns+0xba/0xe6
                     internal_create_group+0x25f/0x2c8
                     mod_sysfs_setup+0x3d9/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    768B     6 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     __kernfs_create_file+0x27/0x90
                     sysfs_add_file_mode_ns+0xba/0xe6
                     sysfs_create_file_ns+0x63/0x6a
                     mod_sysfs_setup+0x191/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    256B     2 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     __kernfs_create_file+0x27/0x90
                     sysfs_add_bin_file_mode_ns+0x65/0x90
                     sysfs_create_bin_file+0x61/0x90
                     mod_sysfs_setup+0x4d5/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    128B     1 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     kernfs_create_dir_ns+0x22/0x60
                     sysfs_create_dir_ns+0x72/0xa0
                     kobject_add_internal+0xc3/0x1c7
                     kobject_init_and_add+0x6c/0x98
                     mod_sysfs_setup+0x8e/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    128B     1 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     kernfs_create_dir_ns+0x22/0x60
                     sysfs_create_dir_ns+0x72/0xa0
                     kobject_add_internal+0xc3/0x1c7
                     kobject_add+0x7e/0xb0
                     kobject_create_and_add+0x4c/0x8c
                     mod_sysfs_setup+0x12a/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    128B     1 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     kernfs_create_dir_ns+0x22/0x60
                     sysfs_create_dir_ns+0x72/0xa0
                     kobject_add_internal+0xc3/0x1c7
                     kobject_add+0x7e/0xb0
                     kobject_create_and_add+0x4c/0x8c
                     mod_sysfs_setup+0x153/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    128B     1 128B  __kernfs_new_node.constprop.0+0xc0/0x204
                     kernfs_new_node+0x3f/0x5b
                     kernfs_create_dir_ns+0x22/0x60
                     sysfs_create_dir_ns+0x72/0xa0
                     kobject_add_internal+0xc3/0x1c7
                     kobject_init_and_add+0x6c/0x98
                     internal_create_group+0x9a/0x2c8
                     mod_sysfs_setup+0x3d9/0x5aa
                     load_module+0x18c2/0x1a9c
                     __do_sys_finit_module+0x9e/0xf0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
904.9KiB  7239 128B  [unrecorded]
-- 7 stacks (7 shown)
EOF

run stacks -b -n 2 -f "$F/kernfs.txt"
same "table: -b raw bytes, -n 2 the largest two, the others summed" <<'EOF'
fs/kernfs/dir.c:614 __kernfs_new_node: 930560 bytes in 7270 calls, armed, complete
 BYTES CALLS AVG  STACK
  2432    19 128  __kernfs_new_node.constprop.0+0xc0/0x204
                  kernfs_new_node+0x3f/0x5b
                  __kernfs_create_file+0x27/0x90
                  sysfs_add_file_mode_ns+0xba/0xe6
                  internal_create_group+0x25f/0x2c8
                  mod_sysfs_setup+0x3d9/0x5aa
                  load_module+0x18c2/0x1a9c
                  __do_sys_finit_module+0x9e/0xf0
                  do_syscall_64+0x3b/0x90
                  entry_SYSCALL_64_after_hwframe+0x63/0xcd
   768     6 128  __kernfs_new_node.constprop.0+0xc0/0x204
                  kernfs_new_node+0x3f/0x5b
                  __kernfs_create_file+0x27/0x90
                  sysfs_add_file_mode_ns+0xba/0xe6
                  sysfs_create_file_ns+0x63/0x6a
                  mod_sysfs_setup+0x191/0x5aa
                  load_module+0x18c2/0x1a9c
                  __do_sys_finit_module+0x9e/0xf0
                  do_syscall_64+0x3b/0x90
                  entry_SYSCALL_64_after_hwframe+0x63/0xcd
926592  7239 128  [unrecorded]
-- 7 stacks (2 shown), the other 5 hold 768 bytes in 6 calls
EOF

run stacks -n 1 -f "$F/driver.txt"
same "table: sites in the kernel's order, module, missed charges, a draining site" <<'EOF'
drivers/net/ethernet/intel/e1000e/netdev.c:652 e1000_alloc_rx_buffers [e1000e]: 1.2MiB in 40 calls, armed, incomplete: 3 charges missed
  BYTES CALLS     AVG  STACK
 1.1MiB    35 32.0KiB  e1000_alloc_rx_buffers+0x1a4/0x3a0 [e1000e]
                       e1000_configure+0x4bd/0x4f0 [e1000e]
                       e1000e_open+0x10f/0x5a0 [e1000e]
                       __dev_open+0xf3/0x1c0
                       __dev_change_flags+0x1a3/0x220
                       dev_change_flags+0x21/0x60
                       do_setlink+0x35c/0x1190
                       __rtnl_newlink+0x5e0/0x9e0
                       rtnl_newlink+0x44/0x70
                       rtnetlink_rcv_msg+0x159/0x3d0
                       netlink_rcv_skb+0x4e/0x100
                       netlink_unicast+0x23b/0x360
                       netlink_sendmsg+0x24e/0x4b0
                       sock_sendmsg+0x5f/0x70
                       __sys_sendto+0x11c/0x180
                       __x64_sys_sendto+0x24/0x30
                       do_syscall_64+0x3b/0x90
                       entry_SYSCALL_64_after_hwframe+0x63/0xcd
96.0KiB     3 32.0KiB  [unrecorded]
-- 2 stacks (1 shown), the other holds 64.0KiB in 2 calls

mm/util.c:135 kmemdup: 12.0KiB in 3 calls, disarmed, draining, complete
 BYTES CALLS    AVG  STACK
8.0KiB     2 4.0KiB  kmemdup+0x1d/0x40
                     stacks_caller_one+0x9/0x10 [allocprof_stacks_test]
                     stacks_write+0x5e/0x90 [allocprof_stacks_test]
                     proc_reg_write+0x53/0xa0
                     vfs_write+0xc7/0x3c0
                     ksys_write+0x5f/0xe0
                     do_syscall_64+0x3b/0x90
                     entry_SYSCALL_64_after_hwframe+0x63/0xcd
    0B     0      -  [unrecorded]
-- 2 stacks (1 shown), the other holds 4.0KiB in 1 call
EOF

run stacks -f "$F/edge.txt"
same "table: 64-bit extremes, zero and negative bytes, a stack without frames" <<'EOF'
./include/linux/slab.h:600 kmalloc: 8.0EiB in 18446744073709551615 calls, armed, complete
  BYTES                CALLS    AVG  STACK
 8.0EiB 18446744073709551615     0B  kmalloc+0x10/0x20
                                     big_user+0x22/0x80
 4.0KiB                    3 1.3KiB  kmalloc+0x10/0x20
                                     tie_user+0x44/0x80
 4.0KiB                    1 4.0KiB  (no frames)
     0B                    2     0B  kmalloc+0x10/0x20
                                     zero_size_user+0x11/0x80
    -8B                    1    -8B  kmalloc+0x10/0x20
                                     neg_user+0x33/0x80
-4.0KiB                    0      -  [unrecorded]
-- 5 stacks (5 shown)
EOF

# a site line of the series before its bounded capture: no missed:N
run stacks -f "$F/no-missed.txt"
same "table: a capture without missed:N, a site without stacks" <<'EOF'
drv/a.c:12 helper [m]: 2.0KiB in 8 calls, armed, complete
 BYTES CALLS  AVG  STACK
1.2KiB     5 256B  helper+0x10/0x20 [m]
                   caller_two+0x9/0x10 [m]
  768B     3 256B  helper+0x10/0x20 [m]
                   caller_one+0x9/0x10 [m]
    0B     0    -  [unrecorded]
-- 2 stacks (2 shown)

mm/b.c:3 other: 64B in 1 call, armed, incomplete
BYTES CALLS AVG  STACK
  64B     1 64B  [unrecorded]
-- 0 stacks (0 shown)
EOF

# 25 stacks: the table shows 20 unless -n or -a says otherwise
{
	echo "allocinfo_stacks - version: 1.0"
	echo "site 33000 50 mm/many.c:9 func:many armed:yes complete:yes missed:0"
	echo "unrecorded 500 25"
	i=1
	while [ $i -le 25 ]; do
		printf 'stack %d 1\n\tmany+0x1/0x2\n\tcaller_%02d+0x1/0x2\n' $((i * 100)) $i
		i=$((i + 1))
	done
} >"$T/many.txt"
run stacks -f "$T/many.txt"
check "table: 20 stacks by default, the rest summed in the footer" eval '[ $rc = 0 ] && [ $(grep -c "^ *[0-9.]*[KM]*i*B  *1 " "$T/out") = 20 ] && has "^-- 25 stacks (20 shown), the other 5 hold 1.5KiB in 5 calls\$" && sed -n 3p "$T/out" | grep -q "2.4KiB .* many+0x1/0x2"'
run stacks -a -f "$T/many.txt"
check "table: -a shows all 25" eval '[ $rc = 0 ] && has "^-- 25 stacks (25 shown)\$" && has "caller_01+"'
run stacks --json -f "$T/many.txt"
check "json: every stack by default" eval '[ $rc = 0 ] && has "\"count\":25,\"shown\":25,"'

# ---- JSON ------------------------------------------------------------------
run stacks --json -f "$F/driver.txt"
same "json: one object per site, frames as arrays, numbers as numbers" <<'EOF'
{"version":"1.0","count":2,"malformed":0,"sites":[
{"file":"drivers/net/ethernet/intel/e1000e/netdev.c","line":652,"func":"e1000_alloc_rx_buffers","module":"e1000e","bytes":1310720,"calls":40,"armed":true,"complete":false,"missed":3,"unrecorded":{"bytes":98304,"calls":3},"count":2,"shown":2,"stacks":[
{"bytes":1146880,"calls":35,"avg":32768,"frames":["e1000_alloc_rx_buffers+0x1a4/0x3a0 [e1000e]","e1000_configure+0x4bd/0x4f0 [e1000e]","e1000e_open+0x10f/0x5a0 [e1000e]","__dev_open+0xf3/0x1c0","__dev_change_flags+0x1a3/0x220","dev_change_flags+0x21/0x60","do_setlink+0x35c/0x1190","__rtnl_newlink+0x5e0/0x9e0","rtnl_newlink+0x44/0x70","rtnetlink_rcv_msg+0x159/0x3d0","netlink_rcv_skb+0x4e/0x100","netlink_unicast+0x23b/0x360","netlink_sendmsg+0x24e/0x4b0","sock_sendmsg+0x5f/0x70","__sys_sendto+0x11c/0x180","__x64_sys_sendto+0x24/0x30","do_syscall_64+0x3b/0x90","entry_SYSCALL_64_after_hwframe+0x63/0xcd"]},
{"bytes":65536,"calls":2,"avg":32768,"frames":["e1000_alloc_rx_buffers+0x1a4/0x3a0 [e1000e]","e1000_clean_rx_irq+0x2f1/0x3e0 [e1000e]","e1000e_poll+0x8c/0x2c0 [e1000e]","__napi_poll+0x2b/0x1b0","net_rx_action+0x260/0x330","__do_softirq+0xd8/0x2a6","irq_exit_rcu+0x8b/0xb0","common_interrupt+0x86/0xa0","asm_common_interrupt+0x22/0x40"]}]},
{"file":"mm/util.c","line":135,"func":"kmemdup","module":"vmlinux","bytes":12288,"calls":3,"armed":false,"complete":true,"missed":0,"unrecorded":{"bytes":0,"calls":0},"count":2,"shown":2,"stacks":[
{"bytes":8192,"calls":2,"avg":4096,"frames":["kmemdup+0x1d/0x40","stacks_caller_one+0x9/0x10 [allocprof_stacks_test]","stacks_write+0x5e/0x90 [allocprof_stacks_test]","proc_reg_write+0x53/0xa0","vfs_write+0xc7/0x3c0","ksys_write+0x5f/0xe0","do_syscall_64+0x3b/0x90","entry_SYSCALL_64_after_hwframe+0x63/0xcd"]},
{"bytes":4096,"calls":1,"avg":4096,"frames":["kmemdup+0x1d/0x40","xfs_attr_shortform_getvalue+0x8e/0x110 [xfs 7b5e0d0cf7bb2c0a4bb7d2b1c0e8e5f5b1a3c9d2]","0xffffffffc0a3f2b4","bpf_prog_run_generic_xdp+0x110/0x3a0","ret_from_fork+0x1f/0x30"]}]}
]}
EOF
# what the fixture says, computed from it with awk: each site's total is
# its stacks plus its unrecorded line
run stacks --json -f "$F/kernfs.txt"
want=$(awk '$1 == "site" { print $2, $3 } $1 == "unrecorded" { print $2, $3 }
	$1 == "stack" { b += $2; c += $3; n++ } END { print n, b, c }' "$F/kernfs.txt" | tr '\n' ' ')
py='import json,sys
d = json.load(open(sys.argv[1])); s = d["sites"][0]
print(s["bytes"], s["calls"], s["unrecorded"]["bytes"], s["unrecorded"]["calls"], len(s["stacks"]),
      sum(t["bytes"] for t in s["stacks"]), sum(t["calls"] for t in s["stacks"]), end=" ")
assert s["bytes"] == s["unrecorded"]["bytes"] + sum(t["bytes"] for t in s["stacks"])
assert [t["bytes"] for t in s["stacks"]] == sorted((t["bytes"] for t in s["stacks"]), reverse=True)'
got=$("$PY" -c "$py" "$T/out" 2>&1)
check "json: loads; counts equal an awk sum of the fixture, largest first" [ "$got" = "$want" ]
run stacks --json -f "$F/edge.txt"
same "json: 64-bit extremes as numbers, zero and negative bytes, no frames" <<'EOF'
{"version":"1.0","count":1,"malformed":0,"sites":[
{"file":"./include/linux/slab.h","line":600,"func":"kmalloc","module":"vmlinux","bytes":9223372036854775807,"calls":18446744073709551615,"armed":true,"complete":true,"missed":0,"unrecorded":{"bytes":-4096,"calls":0},"count":5,"shown":5,"stacks":[
{"bytes":9223372036854775807,"calls":18446744073709551615,"avg":0,"frames":["kmalloc+0x10/0x20","big_user+0x22/0x80"]},
{"bytes":4096,"calls":3,"avg":1365,"frames":["kmalloc+0x10/0x20","tie_user+0x44/0x80"]},
{"bytes":4096,"calls":1,"avg":4096,"frames":[]},
{"bytes":0,"calls":2,"avg":0,"frames":["kmalloc+0x10/0x20","zero_size_user+0x11/0x80"]},
{"bytes":-8,"calls":1,"avg":-8,"frames":["kmalloc+0x10/0x20","neg_user+0x33/0x80"]}]}
]}
EOF
run stacks --json -n 1 -f "$F/no-missed.txt"
same "json: -n 1, missed null in a capture without it" <<'EOF'
{"version":"1.0","count":2,"malformed":0,"sites":[
{"file":"drv/a.c","line":12,"func":"helper","module":"m","bytes":2048,"calls":8,"armed":true,"complete":true,"missed":null,"unrecorded":{"bytes":0,"calls":0},"count":2,"shown":1,"stacks":[
{"bytes":1280,"calls":5,"avg":256,"frames":["helper+0x10/0x20 [m]","caller_two+0x9/0x10 [m]"]}]},
{"file":"mm/b.c","line":3,"func":"other","module":"vmlinux","bytes":64,"calls":1,"armed":true,"complete":false,"missed":null,"unrecorded":{"bytes":64,"calls":1},"count":0,"shown":0,"stacks":[]}
]}
EOF

# names are bytes from the kernel: quotes, backslashes, control characters,
# bytes that are not UTF-8, UTF-8
printf 'allocinfo_stacks - version: 1.0\nsite 64 1 a"b.c:7 func:f\001\377 armed:yes complete:yes missed:0\nunrecorded 0 0\nstack 64 1\n\tf\001\377+0x1/0x2\n\tsemi;colon\\back+0x3/0x4 [m"q]\n\tcaf\303\251+0x5/0x6\n' >"$T/esc.txt"
run stacks --json -f "$T/esc.txt"
same "json: strings escaped, bytes that are not UTF-8 as \\xNN" <<'EOF'
{"version":"1.0","count":1,"malformed":0,"sites":[
{"file":"a\"b.c","line":7,"func":"f\u0001\\xff","module":"vmlinux","bytes":64,"calls":1,"armed":true,"complete":true,"missed":0,"unrecorded":{"bytes":0,"calls":0},"count":1,"shown":1,"stacks":[
{"bytes":64,"calls":1,"avg":64,"frames":["f\u0001\\xff+0x1/0x2","semi;colon\\back+0x3/0x4 [m\"q]","café+0x5/0x6"]}]}
]}
EOF
check "json: escaped names load" "$PY" -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["sites"][0]["stacks"][0]["frames"][1] == "semi;colon\\back+0x3/0x4 [m\"q]"' "$T/out"
run stacks -f "$T/esc.txt"
same "table: control characters as ?, bytes that are not UTF-8 as \\xNN" <<'EOF'
a"b.c:7 f?\xff: 64B in 1 call, armed, complete
BYTES CALLS AVG  STACK
  64B     1 64B  f?\xff+0x1/0x2
                 semi;colon\back+0x3/0x4 [m"q]
                 café+0x5/0x6
   0B     0   -  [unrecorded]
-- 1 stack (1 shown)
EOF

# ---- folded ----------------------------------------------------------------
run stacks --folded -f "$F/kernfs.txt"
same "folded: callers root first, the site's function (a clone's frame) as the leaf, bytes" <<'EOF'
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;internal_create_group;sysfs_add_file_mode_ns;__kernfs_create_file;kernfs_new_node;__kernfs_new_node 2432
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;sysfs_create_file_ns;sysfs_add_file_mode_ns;__kernfs_create_file;kernfs_new_node;__kernfs_new_node 768
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;sysfs_create_bin_file;sysfs_add_bin_file_mode_ns;__kernfs_create_file;kernfs_new_node;__kernfs_new_node 256
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;kobject_init_and_add;kobject_add_internal;sysfs_create_dir_ns;kernfs_create_dir_ns;kernfs_new_node;__kernfs_new_node 128
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;kobject_create_and_add;kobject_add;kobject_add_internal;sysfs_create_dir_ns;kernfs_create_dir_ns;kernfs_new_node;__kernfs_new_node 128
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;kobject_create_and_add;kobject_add;kobject_add_internal;sysfs_create_dir_ns;kernfs_create_dir_ns;kernfs_new_node;__kernfs_new_node 128
entry_SYSCALL_64_after_hwframe;do_syscall_64;__do_sys_finit_module;load_module;mod_sysfs_setup;internal_create_group;kobject_init_and_add;kobject_add_internal;sysfs_create_dir_ns;kernfs_create_dir_ns;kernfs_new_node;__kernfs_new_node 128
[unrecorded];__kernfs_new_node 926592
EOF
check "folded: the weights add up to the site's bytes" eval '[ "$(awk "{ s += \$NF } END { print s }" "$T/out")" = 930560 ]'
run stacks --folded -f "$F/driver.txt"
same "folded: modules, build ids and bare addresses; [unrecorded] only when it holds bytes" <<'EOF'
entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_sendto;__sys_sendto;sock_sendmsg;netlink_sendmsg;netlink_unicast;netlink_rcv_skb;rtnetlink_rcv_msg;rtnl_newlink;__rtnl_newlink;do_setlink;dev_change_flags;__dev_change_flags;__dev_open;e1000e_open;e1000_configure;e1000_alloc_rx_buffers 1146880
asm_common_interrupt;common_interrupt;irq_exit_rcu;__do_softirq;net_rx_action;__napi_poll;e1000e_poll;e1000_clean_rx_irq;e1000_alloc_rx_buffers 65536
[unrecorded];e1000_alloc_rx_buffers 98304
entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_write;vfs_write;proc_reg_write;stacks_write;stacks_caller_one;kmemdup 8192
ret_from_fork;bpf_prog_run_generic_xdp;0xffffffffc0a3f2b4;xfs_attr_shortform_getvalue;kmemdup 4096
EOF
run stacks --format folded -n 1 -f "$F/driver.txt"
same "folded: -n 1 keeps each site's largest stack and its unrecorded" <<'EOF'
entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_sendto;__sys_sendto;sock_sendmsg;netlink_sendmsg;netlink_unicast;netlink_rcv_skb;rtnetlink_rcv_msg;rtnl_newlink;__rtnl_newlink;do_setlink;dev_change_flags;__dev_change_flags;__dev_open;e1000e_open;e1000_configure;e1000_alloc_rx_buffers 1146880
[unrecorded];e1000_alloc_rx_buffers 98304
entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_write;vfs_write;proc_reg_write;stacks_write;stacks_caller_one;kmemdup 8192
EOF
run stacks --folded -f "$F/edge.txt"
same "folded: stacks of no or negative bytes left out, a frameless stack is its leaf" <<'EOF'
big_user;kmalloc 9223372036854775807
tie_user;kmalloc 4096
kmalloc 4096
EOF
run stacks --folded -f "$T/esc.txt"
printf 'caf\303\251;semi_colon\\back;f\001\377 64\n' >"$T/w"
same "folded: ';' and blanks in names become '_'" <"$T/w"

# ---- sources -----------------------------------------------------------------
"$A" stacks --json -f "$F/driver.txt" >"$T/a" 2>/dev/null
timeout 60 "$A" stacks --json -f - <"$F/driver.txt" >"$T/out" 2>"$T/err"; rc=$?
same "source: -f - reads standard input" <"$T/a"
run stacks --json -f "$F/driver.txt" mm/util.c:135
same "source: FILE:LINE picks one site of a saved copy" <<'EOF'
{"version":"1.0","count":1,"malformed":0,"sites":[
{"file":"mm/util.c","line":135,"func":"kmemdup","module":"vmlinux","bytes":12288,"calls":3,"armed":false,"complete":true,"missed":0,"unrecorded":{"bytes":0,"calls":0},"count":2,"shown":2,"stacks":[
{"bytes":8192,"calls":2,"avg":4096,"frames":["kmemdup+0x1d/0x40","stacks_caller_one+0x9/0x10 [allocprof_stacks_test]","stacks_write+0x5e/0x90 [allocprof_stacks_test]","proc_reg_write+0x53/0xa0","vfs_write+0xc7/0x3c0","ksys_write+0x5f/0xe0","do_syscall_64+0x3b/0x90","entry_SYSCALL_64_after_hwframe+0x63/0xcd"]},
{"bytes":4096,"calls":1,"avg":4096,"frames":["kmemdup+0x1d/0x40","xfs_attr_shortform_getvalue+0x8e/0x110 [xfs 7b5e0d0cf7bb2c0a4bb7d2b1c0e8e5f5b1a3c9d2]","0xffffffffc0a3f2b4","bpf_prog_run_generic_xdp+0x110/0x3a0","ret_from_fork+0x1f/0x30"]}]}
]}
EOF
run stacks -f "$F/driver.txt" mm/util.c:136
check "source: a FILE:LINE the copy does not list is an error" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] && errhas "^allocinfo: mm/util.c:136: no stacks listed in tests/fixtures/stacks/driver.txt\$"'
run stacks --folded -o "$T/flame.folded" -f "$F/kernfs.txt"
check "source: -o FILE" eval '[ $rc = 0 ] && ! [ -s "$T/out" ] && [ $(wc -l <"$T/flame.folded") = 8 ] && grep -q "^\[unrecorded\];__kernfs_new_node 926592\$" "$T/flame.folded"'
# comments before the version line, CRLF, blanks at line ends and between
# lines, a later 1.x version, a key:value pair of a later kernel
printf '# saved by hand\n\nallocinfo_stacks - version: 1.1.5\r\nsite 1024 2 a.c:1 func:f armed:yes complete:yes missed:0 stacks:64 \r\nunrecorded 0 0\r\n\r\nstack 1024 2 \r\n\tf+0x1/0x2 \r\n\tg+0x3/0x4\r\n\n' >"$T/crlf.txt"
run stacks --folded -f "$T/crlf.txt"
echo 'g;f 1024' >"$T/w"
same "source: comments, CRLF, trailing blanks, version 1.1.5, unknown pairs" <"$T/w"
printf 'allocinfo_stacks - version: 1.0\n' >"$T/none.txt"
run stacks -f "$T/none.txt"
echo '-- no call site armed or draining' >"$T/w"
same "source: nothing armed, table" <"$T/w"
run stacks --json -f "$T/none.txt"
printf '{"version":"1.0","count":0,"malformed":0,"sites":[\n]}\n' >"$T/w"
same "source: nothing armed, json" <"$T/w"
run stacks --folded -f "$T/none.txt"
same "source: nothing armed, folded" </dev/null

# ---- errors ------------------------------------------------------------------
run stacks -f "$T/no-such-file"
check "error: a missing file" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] && errhas "no-such-file: No such file or directory"'
run stacks -f "$T"
check "error: a directory" eval '[ $rc = 1 ] && errhas "Is a directory"'
: >"$T/empty.txt"
run stacks -f "$T/empty.txt"
check "error: an empty file" eval '[ $rc = 1 ] && errhas "empty.txt: empty\$"'
run stacks -f tests/fixtures/v1.txt
check "error: /proc/allocinfo is not a stacks file" eval '[ $rc = 1 ] && errhas "v1.txt: not an allocinfo_stacks file"'
printf '\n# only comments\n' >"$T/comments.txt"
run stacks -f "$T/comments.txt"
check "error: no version line" eval '[ $rc = 1 ] && errhas "not an allocinfo_stacks file (no version line)"'
printf 'allocinfo_stacks - version: 2.0\nsite 1 1 a.c:1 func:f armed:yes complete:yes missed:0\n' >"$T/v2.txt"
run stacks -f "$T/v2.txt"
check "error: an unsupported major version" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] && errhas "unsupported format version 2.0 (this allocinfo reads allocinfo_stacks 1.x)"'
run stacks --max-input 1M -f /dev/zero
check "error: /dev/zero ends at --max-input" eval '[ $rc = 1 ] && errhas "/dev/zero: input too large: more than 1.0MiB"'
{ printf 'allocinfo_stacks - version: 1.0\nsite 1 1 a.c:1 func:f armed:yes complete:yes missed:0\nunrecorded 0 0\nstack 1 1\n'; yes '	x'; } |
	timeout 60 "$A" stacks --max-input 100K -f - >"$T/out" 2>"$T/err"; rc=$?
check "error: an endless stack ends at twice --max-input of memory" eval '[ $rc = 1 ] && errhas "<stdin>: input too large: its rows would take more than 200.0KiB of memory"'
# an endless line: kept to its first 64 KiB, reported, the rest read on
{ printf 'allocinfo_stacks - version: 1.0\nsite 2 1 a.c:1 func:f armed:yes complete:yes missed:0\nunrecorded 0 0\nstack 2 1\n\tf+0x1/0x2\n\t'; head -c 200000 /dev/zero | tr '\0' g; printf '\n\th+0x1/0x2\nsite 1 1 b.c:2 func:b armed:yes complete:yes missed:0\nunrecorded 1 1\n'; } >"$T/long.txt"
run stacks --folded -f "$T/long.txt"
check "malformed: a line of 200,000 bytes is skipped, the rest read" eval '[ $rc = 0 ] && [ "$(cat "$T/out")" = "$(printf "h;f 2\n[unrecorded];b 1")" ] && errhas "long.txt:6: malformed line: longer than 65536 bytes"'
printf 'allocinfo_stacks - version: 1.0\nsite 9 1 a.c:1 func:f armed:yes complete:yes missed:0\000\nunrecorded 0 0\nstack 9 1\n\tcaller+0x1/0x2\nsite 1 1 b.c:2 func:b armed:yes complete:yes missed:0\nunrecorded 1 1\n' >"$T/nul.txt"
run stacks --folded -f "$T/nul.txt"
check "malformed: a site line with a NUL byte takes its entry with it" eval '[ $rc = 0 ] && [ "$(cat "$T/out")" = "[unrecorded];b 1" ] && errhas "nul.txt:2: malformed line: a NUL byte" && [ $(wc -l <"$T/err") = 2 ]'

# every kind of malformed line, named with its number; the good sites shown
run stacks -b -f "$F/malformed.txt"
cp "$T/err" "$T/err.keep"
same_err "malformed: each bad line named with its number and reason" <<'EOF'
allocinfo: tests/fixtures/stacks/malformed.txt:2: malformed line: a stack line before any site line
allocinfo: tests/fixtures/stacks/malformed.txt:6: malformed line: a frame outside a stack
allocinfo: tests/fixtures/stacks/malformed.txt:10: malformed line: a second unrecorded line for one site
allocinfo: tests/fixtures/stacks/malformed.txt:11: malformed line: not a site, unrecorded, stack or frame line
allocinfo: tests/fixtures/stacks/malformed.txt:12: malformed line: calls: expected an unsigned decimal count
allocinfo: tests/fixtures/stacks/malformed.txt:14: malformed line: bytes: expected a signed decimal count
allocinfo: tests/fixtures/stacks/malformed.txt:15: malformed line: more than BYTES CALLS after the keyword
allocinfo: tests/fixtures/stacks/malformed.txt:16: malformed line: site bytes: expected a signed decimal count
allocinfo: tests/fixtures/stacks/malformed.txt:20: malformed line: expected one armed:yes or armed:no
allocinfo: tests/fixtures/stacks/malformed.txt:21: malformed line: expected [MODULE] after FILE:LINE
allocinfo: tests/fixtures/stacks/malformed.txt:22: malformed line: expected func:NAME
allocinfo: tests/fixtures/stacks/malformed.txt:23: malformed line: expected FILE:LINE after the counts
allocinfo: tests/fixtures/stacks/malformed.txt:24: malformed line: a site without its unrecorded line
allocinfo: tests/fixtures/stacks/malformed.txt: 13 malformed lines skipped
EOF
: >"$T/err"
same "malformed: the good sites shown, an unknown unrecorded as -, exit 0" <<'EOF'
mm/a.c:10 fa: 1024 bytes in 4 calls, armed, complete
BYTES CALLS AVG  STACK
  512     2 256  fa+0x5/0x10
                 caller_a+0x9/0x20
  512     2 256  [unrecorded]
-- 1 stack (1 shown)

mm/g.c:60 fg [gmod]: 2048 bytes in 3 calls, armed, incomplete: 1 charge missed
BYTES CALLS AVG  STACK
 2048     3 682  fg+0x1/0x2 [gmod]
                 g_caller+0x3/0x4 [gmod]
    -     -   -  [unrecorded]
-- 1 stack (1 shown)
EOF
run stacks --json -f "$F/malformed.txt"
check "malformed: json counts them, unrecorded null" eval '[ $rc = 0 ] && has "\"malformed\":13," && has "\"missed\":1,\"unrecorded\":null,"'
run stacks --strict -f "$F/malformed.txt"
check "malformed: fatal with --strict (3), nothing printed" eval '[ $rc = 3 ] && ! [ -s "$T/out" ] && errhas "13 malformed lines skipped (fatal with --strict)"'
{ echo "allocinfo_stacks - version: 1.0"; i=0; while [ $i -lt 70 ]; do echo "bogus $i"; i=$((i + 1)); done; } >"$T/bogus.txt"
run stacks -f "$T/bogus.txt"
check "malformed: the first 64 named, then how many more" eval '[ $rc = 0 ] && [ $(grep -c "malformed line:" "$T/err") = 64 ] && errhas "bogus.txt: ... and 6 more malformed lines" && errhas "bogus.txt: 70 malformed lines skipped"'

# ---- usage -------------------------------------------------------------------
usage() {
	name=$1
	msg=$2
	shift 2
	run "$@"
	check "usage: $name" eval '[ $rc = 2 ] && ! [ -s "$T/out" ] && errhas "$msg"'
}
usage "--csv" "stacks prints a table, --json or --folded" stacks --csv -f "$F/kernfs.txt"
usage "--prometheus" "stacks prints a table, --json or --folded" stacks --prometheus -f "$F/kernfs.txt"
usage "--group" "--group does not apply" stacks -g module -f "$F/kernfs.txt"
usage "a filter" "the filters do not apply" stacks --module e1000e -f "$F/driver.txt"
usage "-s" "-s does not apply" stacks -s calls -f "$F/kernfs.txt"
usage "-d with -f" "a saved copy (-f) has no wait" stacks -d 5 -f "$F/kernfs.txt"
usage "two FILE:LINEs" "at most one FILE:LINE" stacks -f "$F/kernfs.txt" a.c:1 b.c:2
usage "no FILE:LINE, no -f" "stacks takes one FILE:LINE (or -f FILE, a saved copy)" stacks -d 0
usage "FILE:LINE required" "'nocolon' is not a FILE:LINE as /proc/allocinfo prints them (a saved copy of /proc/allocinfo_stacks is read with -f)" stacks -d 0 nocolon
usage "line 0" "is not a FILE:LINE" stacks -f "$F/kernfs.txt" a.c:0
usage "a line that is no number" "is not a FILE:LINE" stacks -f "$F/kernfs.txt" a.c:1x

# ---- live: arm, wait, read, disarm -----------------------------------------
# A stand-in /proc: the control file is a plain file, so it holds the last
# command written.
P=$T/proc
mkdir -p "$P/sys/vm"
: >"$P/sys/vm/mem_profiling_stacks"
cp "$F/no-missed.txt" "$P/allocinfo_stacks"
live() { ALLOCINFO_PROC_ROOT=$P timeout 20 "$A" stacks "$@" >"$T/out" 2>"$T/err"; rc=$?; }
ctl() { cat "$P/sys/vm/mem_profiling_stacks"; }
live -d 0 drv/a.c:12
same "live: the armed site's entry, parsed, as a table" <<'EOF'
drv/a.c:12 helper [m]: 2.0KiB in 8 calls, armed, complete
 BYTES CALLS  AVG  STACK
1.2KiB     5 256B  helper+0x10/0x20 [m]
                   caller_two+0x9/0x10 [m]
  768B     3 256B  helper+0x10/0x20 [m]
                   caller_one+0x9/0x10 [m]
    0B     0    -  [unrecorded]
-- 2 stacks (2 shown)
EOF
check "live: disarms what it armed" [ "$(ctl)" = -drv/a.c:12 ]
: >"$P/sys/vm/mem_profiling_stacks"
live -d 0 --folded mm/b.c:3
echo '[unrecorded];other 64' >"$T/w"
same "live: --folded" <"$T/w"
: >"$P/sys/vm/mem_profiling_stacks"
live -d 0.2 -v --json drv/a.c:12
check "live: -d and -v, --json" eval '[ $rc = 0 ] && has "\"shown\":2" && errhas "recording the stacks of drv/a.c:12 for 0.2 s" && [ "$(ctl)" = -drv/a.c:12 ]'
live -d 0 drv/a.c:99
check "live: a site not listed is an error" eval '[ $rc = 1 ] && errhas "drv/a.c:99: no stacks listed\$" && [ "$(ctl)" = -drv/a.c:99 ]'
ALLOCINFO_PROC_ROOT=$T/nowhere timeout 20 "$A" stacks -d 0 drv/a.c:12 >"$T/out" 2>"$T/err"; rc=$?
check "live: a kernel without stacks is named" eval '[ $rc = 1 ] && errhas "this kernel cannot record stacks"'
printf 'garbage\n' >"$P/allocinfo_stacks"
live -d 0 drv/a.c:12
check "live: a file of another format is refused, and disarmed" eval '[ $rc = 1 ] && errhas "not an allocinfo_stacks file" && [ "$(ctl)" = -drv/a.c:12 ]'
rm "$P/allocinfo_stacks"
live -d 0 drv/a.c:12
check "live: a missing stacks file is named, and disarmed" eval '[ $rc = 1 ] && errhas "allocinfo_stacks: No such file or directory" && [ "$(ctl)" = -drv/a.c:12 ]'
printf 'allocinfo_stacks - version: 1.0\nsite 1 1 drv/a.c:12 func:f armed:yes complete:yes missed:0\nunrecorded 1 1\n' >"$P/allocinfo_stacks"
: >"$P/sys/vm/mem_profiling_stacks"
ALLOCINFO_PROC_ROOT=$P timeout 20 "$A" stacks -d 30 --folded drv/a.c:12 >"$T/out" 2>"$T/err" &
sleep 1
kill -INT $!
wait $!; rc=$?
check "live: interrupted, it shows and disarms" eval '[ $rc = 0 ] && [ "$(cat "$T/out")" = "[unrecorded];f 1" ] && [ "$(ctl)" = -drv/a.c:12 ]'
# without root: the kernel's control is root's, its list mode 0400
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T" "$P" "$P/sys" "$P/sys/vm"
	cp "$A" "$T/allocinfo-copy" && chmod 755 "$T/allocinfo-copy"
	chmod 0600 "$P/sys/vm/mem_profiling_stacks"
	nobody() { ALLOCINFO_PROC_ROOT=$P timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups "$T/allocinfo-copy" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
	nobody stacks -d 0 drv/a.c:12
	check "live: arming without root says it needs root" eval '[ $rc = 1 ] && errhas "cannot arm drv/a.c:12: arming needs root"'
	chmod 0666 "$P/sys/vm/mem_profiling_stacks"
	chmod 0400 "$P/allocinfo_stacks"
	nobody stacks -d 0 drv/a.c:12
	check "live: a list it cannot read: mode 0400, needs root; disarmed" eval '[ $rc = 1 ] && errhas "allocinfo_stacks: permission denied: the file is mode 0400, reading it needs root" && [ "$(ctl)" = -drv/a.c:12 ]'
	cp "$F/kernfs.txt" "$T/private.txt" && chmod 0600 "$T/private.txt"
	nobody stacks -f "$T/private.txt"
	check "error: a saved copy it may not read" eval '[ $rc = 1 ] && errhas "private.txt: Permission denied"'
	chmod 0644 "$P/allocinfo_stacks"
else
	ok "live: arming without root says it needs root # SKIP not root or no setpriv"
	ok "live: a list it cannot read: mode 0400, needs root; disarmed # SKIP not root or no setpriv"
	ok "error: a saved copy it may not read # SKIP not root or no setpriv"
fi

# ---- the sanitizer build -------------------------------------------------
if [ -n "$ASAN" ] && [ -x "$ASAN" ]; then
	: >"$T/out"
	: >"$T/err"
	export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1
	bad=""
	for f in "$F"/*.txt "$T/esc.txt" "$T/many.txt" "$T/crlf.txt" "$T/long.txt" "$T/nul.txt"; do
		for opts in "" "-b -n 1" "--json" "--folded"; do
			timeout 60 "$A" stacks $opts -f "$f" >"$T/a" 2>"$T/ae"; ra=$?
			timeout 60 "$ASAN" stacks $opts -f "$f" >"$T/b" 2>"$T/be"; rb=$?
			sed 's/^allocinfo-asan:/allocinfo:/' "$T/be" >"$T/bn"
			if [ $ra != $rb ] || ! cmp -s "$T/a" "$T/b" || ! cmp -s "$T/ae" "$T/bn"; then
				bad="$bad $f/$opts:$rb"
			fi
		done
	done
	check "asan: every fixture in every format alike, no sanitizer report" [ -z "$bad" ]
	[ -z "$bad" ] || echo "# $bad"

	# mutated inputs: only exit statuses 0, 1 and 3, no sanitizer report
	if [ -x "$FUZZ" ]; then
		mkdir -p "$T/cf"
		"$FUZZ" dump "$T/cf" 300 "$F"/*.txt "$T/esc.txt" "$T/crlf.txt" >/dev/null
		for opts in "" "-b -n 2 --strict" "--json" "--folded -n 3" "--json mm/util.c:135"; do
			bad=""
			for f in "$T"/cf/*.txt; do
				timeout 30 "$ASAN" stacks $opts -f "$f" >/dev/null 2>"$T/cf.err"
				rc=$?
				case $rc in 0|1|3) ;; *) bad="$f: exit $rc"; sed 's/^/#   /' "$T/cf.err" | head -20; break ;; esac
			done
			check "fuzz: stacks $opts on 300 mutated files: exit 0, 1 or 3 only" [ -z "$bad" ]
			[ -z "$bad" ] || echo "# $bad"
		done
	else
		ok "fuzz: mutated files # SKIP no fuzz-driver"
	fi
else
	ok "asan: every fixture in every format alike # SKIP no sanitizer build given"
fi

tap_done
