# Stacks of armed call sites (CONFIG_MEM_ALLOC_PROFILING_STACKS): the
# allocprof_stacks_test module allocates from one line through two
# callers.  Armed through vm.mem_profiling_stacks, the line's entry in
# /proc/allocinfo_stacks splits its /proc/allocinfo row exactly by the
# two callers, and returns to zero when the objects are freed.  Also:
# bad writes get their errors, only root arms and reads, at most 8 sites
# are armed, and unloading a module disarms its sites.  A stack through a
# module that is unloaded while its objects live (allocprof_keeper holds
# them) is listed by its frames' names, also after another module loads,
# perhaps at the same address; never as bare addresses.  So is a stack
# through a module's init code, which is freed while the module stays.

ctl=/proc/sys/vm/mem_profiling_stacks
if [ ! -e /proc/allocinfo ]; then
	t_skip "stacks of armed call sites" "no /proc/allocinfo (profiling not built or never)"
	return 0
fi
if [ ! -e $ctl ]; then
	t_eq "no stacks file without MEM_ALLOC_PROFILING_STACKS" no \
		"$([ -e /proc/allocinfo_stacks ] && echo yes || echo no)"
	return 0
fi
have_module "stacks of armed call sites" allocprof_stacks_test || return 0
if [ "$(cat /proc/sys/vm/mem_profiling)" != 1 ]; then
	t_skip "stacks of armed call sites" "profiling switched off"
	return 0
fi

# st_write VALUE: write VALUE to the control, print the shell's error
st_write() {
	sh -c "echo '$1' >$ctl" 2>&1 | sed 's/.*: //'
}

# st_split SITE: "caller bytes calls" for each caller of SITE's live
# stacks, then "unrecorded", "total" and "complete" of SITE
st_split() {
	awk -v site="$1" '
	function flush() { if (who != "") { b[who] += sb; c[who] += sc }; who = "" }
	$1 == "site" { flush(); cur = ($4 == site)
		if (cur) { tb = $2; tc = $3
			for (i = 5; i <= NF; i++) if ($i ~ /^complete:/) comp = $i }
		next }
	!cur { next }
	$1 == "unrecorded" { flush(); ub = $2; uc = $3; next }
	$1 == "stack" { flush(); sb = $2; sc = $3; who = "other"; first = 1; next }
	who != "" && first && /stacks_caller_one/ { who = "stacks_caller_one"; first = 0 }
	who != "" && first && /stacks_caller_two/ { who = "stacks_caller_two"; first = 0 }
	END { flush()
		for (w in b) print w, b[w], c[w]
		print "unrecorded", ub + 0, uc + 0
		print "total", tb + 0, tc + 0
		print comp }' /proc/allocinfo_stacks | sort
}

load_test_module allocprof_stacks_test || return 0
sf=/proc/allocprof_stacks_test
site=$(awk '$1 == "site" { print $2 }' $sf)
t_check "the test line is a row of /proc/allocinfo" \
	grep -q " $site \[allocprof_stacks_test\] func:stacks_helper" /proc/allocinfo

t_eq "nothing armed at boot" "" "$(cat $ctl)"
t_eq "arming the test line" "" "$(st_write "$site")"
t_eq "the armed line is listed" "$site" "$(cat $ctl)"
t_eq "arming it again: busy" "Device or resource busy" "$(st_write "$site")"
t_check "allocations through both callers" sh -c "echo alloc >$sf"

expect=$( (awk '$1 ~ /^stacks_caller/ { print $1, $2, $3 }' $sf
	echo "unrecorded 0 0"
	awk '$1 ~ /^stacks_caller/ { b += $2; c += $3 } END { print "total", b, c }' $sf
	echo complete:yes) | sort)
split=$(st_split "$site")
t_eq "the stacks split the row by caller, exactly" "$expect" "$split"
t_eq "the row of /proc/allocinfo is the sum" \
	"$(echo "$split" | awk '$1 == "total" { print $2, $3 }')" \
	"$(grep " $site \[allocprof_stacks_test\] func:" /proc/allocinfo | awk '{ print $1, $2 }')"
t_check "stacks are listed largest first" awk -v site="$site" '
	$1 == "site" { cur = ($4 == site); last = -1; next }
	cur && $1 == "stack" { if (last >= 0 && $2 > last) bad = 1; last = $2 }
	END { exit bad }' /proc/allocinfo_stacks

echo free >$sf
t_eq "no live stack after free" "complete:yes
total 0 0
unrecorded 0 0" "$(st_split "$site")"

# Errors, and nothing changes for them
t_eq "no colon: invalid" "Invalid argument" "$(st_write nonsense)"
t_eq "line 0: invalid" "Invalid argument" "$(st_write mm/slub.c:0)"
t_eq "line not a number: invalid" "Invalid argument" "$(st_write mm/slub.c:x1)"
t_eq "unknown line: no such entry" "No such file or directory" "$(st_write no/such.c:12)"
t_eq "disarming what is not armed: no such entry" "No such file or directory" \
	"$(st_write -no/such.c:12)"
t_eq "still only the test line armed" "$site" "$(cat $ctl)"
t_eq "only root reads the stacks" EACCES "$(aiq unpriv /proc/allocinfo_stacks)"
t_eq "only root arms" EACCES "$(aiq unpriv $ctl w)"

# At most 8 armed: seven more lines of vmlinux fit, the eighth does not
others=$(awk 'NR > 2 && $3 ~ /\.c:[0-9]+$/ && $4 ~ /^func:/ { print $3 }' /proc/allocinfo |
	sort | uniq -u | head -8)
n=0
for o in $others; do
	n=$((n + 1))
	[ $n -le 7 ] && st_write "$o" >/dev/null
done
t_eq "eight lines armed" 8 "$(wc -w <$ctl)"
t_eq "a ninth: no space" "No space left on device" "$(st_write "$(echo "$others" | tail -1)")"
for o in $others; do st_write "-$o" >/dev/null; done
t_eq "disarmed all but the test line" "$site" "$(cat $ctl)"

# Unloading the module disarms its line and forgets it
echo alloc >$sf
t_check "allocprof_stacks_test unloads" rmmod allocprof_stacks_test
t_eq "the module's line is disarmed" "" "$(cat $ctl)"
t_eq "no site of the module listed" 0 \
	"$(grep -c '\[allocprof_stacks_test\]' /proc/allocinfo_stacks)"
t_eq "no unload warning" "" \
	"$(dmesg | grep 'module allocprof_stacks_test unloaded with' | head -1)"

# st_frames SITE: the frames of SITE's listed stacks
st_frames() {
	awk -v site="$1" '$1 == "site" { cur = ($4 == site); next }
		cur && /^\t/' /proc/allocinfo_stacks
}

have_module "stacks through a gone module" allocprof_keeper || return 0
load_test_module allocprof_keeper || return 0
load_test_module allocprof_stacks_test || return 0
st_write "$site" >/dev/null
t_check "allocations, handed to allocprof_keeper" \
	sh -c "echo alloc >$sf && echo stash >$sf"
t_check "allocprof_stacks_test unloads, its objects kept" rmmod allocprof_stacks_test
gone=$(st_frames "$site")
t_check "the gone module's stacks are still listed" [ -n "$gone" ]
t_eq "no frame listed as a bare address" "" \
	"$(echo "$gone" | grep -E '^[[:space:]]*(0x)?[0-9a-f]+$')"
t_check "its frames by name, with the module's" sh -c \
	"echo '$gone' | grep -q 'stacks_caller_one+0x[0-9a-f]*/0x[0-9a-f]* \[allocprof_stacks_test\]'"
load_test_module allocprof_cov_test &&
	t_eq "the same frames while another module is loaded" "$gone" "$(st_frames "$site")"
rmmod allocprof_cov_test 2>/dev/null
echo free >/proc/allocprof_keeper
wait_rows_gone allocprof_stacks_test
t_eq "the gone module's site goes with its last object" 0 \
	"$(grep -c '\[allocprof_stacks_test\]' /proc/allocinfo_stacks)"
t_check "allocprof_keeper unloads" rmmod allocprof_keeper

# A stack through a module's init function, whose code is freed once the
# module is live: allocprof_stacks_test's init creates its proc file,
# allocated in vmlinux's __proc_create(), which is armed beforehand.
# Listed with the init function's name, not a bare address, once that
# code is gone.
proc_sites=$(awk 'NR > 2 { for (i = 4; i <= NF; i++) if ($i == "func:__proc_create") print $3 }' \
	/proc/allocinfo)
for o in $proc_sites; do st_write "$o" >/dev/null; done
if ! load_test_module allocprof_stacks_test; then
	for o in $proc_sites; do st_write "-$o" >/dev/null; done
	return 0
fi
init_frames=$(for o in $proc_sites; do st_frames "$o"; done)
t_check "a stack through the module's freed init code, by name" sh -c \
	"echo '$init_frames' | grep -q 'allocprof_stacks_test_init+0x[0-9a-f]*/0x[0-9a-f]* \[allocprof_stacks_test\]'"
t_eq "no frame of it listed as a bare address" "" \
	"$(echo "$init_frames" | grep -E '^[[:space:]]*(0x)?[0-9a-f]+$')"
for o in $proc_sites; do st_write "-$o" >/dev/null; done
t_check "allocprof_stacks_test unloads" rmmod allocprof_stacks_test
