#!/bin/bash
# make test: the post-mortem reader against a dump of a running guest.
# Boots KDIR (a kernel with the postmortem fragment: debug information,
# the vmcoreinfo note, fw_cfg, /proc/kcore) with allocprof.mode=postmortem, which
# loads and unloads test modules and prints /proc/allocinfo; the host then
# stops the guest, dumps it with QEMU's dump-guest-memory -p, and checks
# that tools/allocinfo/core/allocinfo-core gives the guest's rows, per-node
# rows and stacks from the dump, that allocinfo --core reads it, that bad
# input gets its error (a kernel without profiling, from a vmlinux with its
# tag type renamed), that the same dump compressed and filtered by
# makedumpfile, as kdump writes vmcores (scripts/postmortem-vmcore.py lays
# it out as /proc/vmcore for it), gives the same output, that the reader
# run inside a guest reads its live /proc/kcore, that a dump
# without a module's strings keeps its rows unresolved
# (scripts/postmortem-cut.py), and that the dump of a guest that panicked
# out of memory names the line that held it.
# Prints TAP.  Logs and the dump stay in build/postmortem/.
#
# Usage: postmortem-test.sh KDIR
set -eu
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: postmortem-test.sh KDIR}
log=$BUILD/postmortem
reader=$ROOT/tools/allocinfo/core/allocinfo-core
tool=$ROOT/tools/allocinfo/build/allocinfo
rm -rf "$log"
mkdir -p "$log"
n=0
tap() { # ok|fail DESC [WHY]
	n=$((n + 1))
	if [ "$1" = ok ]; then echo "ok $n - postmortem: $2"; else echo "not ok $n - postmortem: $2 # $3"; fi
}
finish() { echo "1..$n"; exit 0; }

if ! /usr/bin/python3 -c 'import drgn' 2>/dev/null; then
	tap fail "drgn for Python 3" "python3-drgn is not installed: run 'make deps'"
	finish
fi
use_arch "$(kernel_arch "$kdir")"
initrd=$kdir/initramfs.cpio.gz
[ -f "$initrd" ] || "$ROOT/scripts/mkinitramfs.sh" "$kdir" "$initrd"

# dump NAME MEM WATCH PATTERN CMDLINE...: boot the guest into build/
# postmortem/NAME/, the monitor on a pair of pipes, results on the
# second port; once its WATCH log (console or results) shows PATTERN,
# stop it at once (the guest, idle or halted, changes few counters
# meanwhile), dump it to NAME/vmcore and quit.
dump() {
	local d=$log/$1 mem=$2 watch=$3 pat=$4 waited=0 qemu
	shift 4
	mkdir -p "$d"
	mkfifo "$d/mon.in" "$d/mon.out"
	cat "$d/mon.out" >"$d/monitor.log" &
	timeout 600 "$QEMU" -nodefaults -display none -no-reboot -m "$mem" \
		-smp 2,sockets=2,cores=1,threads=1 -device vmcoreinfo \
		-monitor "pipe:$d/mon" -kernel "$kdir/$KIMAGE" -initrd "$initrd" \
		-serial "file:$d/console.log" -serial "file:$d/results.log" \
		-append "console=ttyS0 tsc=reliable kunit.filter_glob=none allocprof.mode=postmortem qemu_fw_cfg.ioport=0x0c@0x510:0:1:4 $*" \
		</dev/null >"$d/qemu.log" 2>&1 &
	qemu=$!
	exec 3>"$d/mon.in"
	until grep -q "$pat" "$d/$watch.log" 2>/dev/null; do
		if ! kill -0 $qemu 2>/dev/null || [ $waited -ge 3000 ]; then
			echo quit >&3
			exec 3>&-
			wait $qemu || true
			return 1
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	printf 'stop\ndump-guest-memory -p %s\nquit\n' "$d/vmcore" >&3
	exec 3>&-
	wait $qemu || true
	[ -s "$d/vmcore" ]
}

if dump live 512 results '^@@DUMP' panic=-1 numa=fake=2 sysctl.vm.mem_profiling=1; then
	tap ok "dump-guest-memory -p of a running guest: $(($(stat -c %s "$log/live/vmcore") >> 20)) MiB"
else
	tap fail "dump-guest-memory -p of a running guest" "no dump (logs in $log/live)"
	finish
fi
core=$log/live/vmcore

# The guest's own reads, without the serial line's carriage returns.
tr -d '\r' <"$log/live/results.log" | awk -v d="$log" '
	/^@@ALLOCINFO$/ { f = d "/guest.txt"; next }
	/^@@ALLOCINFO_NUMA$/ { f = d "/guest-numa.txt"; next }
	/^@@ALLOCINFO_STACKS$/ { f = d "/guest-stacks.txt"; next }
	/^@@/ { f = ""; next }
	f { print > f }'

# A row without its counts: the call site and its key:value pairs.
site_of() {
	sed -E 's/^ *-?[0-9]+ +[0-9]+ //; s/ total_calls:.* requested:[0-9]+//; s/ +$//' "$1"
}

# The call sites that opening and reading the files itself uses: their
# file, dentry, inode, path name and seq_file, the slab pages those come
# from (mm/slub.c's other rows are compared), and the buffer that
# /proc/allocinfo_stacks lists sites in; and the anonymous pages of the
# shell's heap or stack, which its spin loop may grow by a page after the
# reads, depending on where they left them.
read_path='fs/(file_table|seq_file|namei|dcache)\.c:|fs/proc/|func:alloc_slab_page |func:stacks_show |func:do_anonymous_page '

# compare NAME GUEST CORE: every row equal, but for those of the reads'
# own open files, which the guest closed before it was dumped.
compare() {
	local what=$1 guest=$2 core=$3 rows drift other
	rows=$(($(wc -l <"$guest") - 2))
	if ! cmp -s <(head -2 "$guest") <(head -2 "$core"); then
		tap fail "$what: header" "$(head -2 "$core" | tr '\n' '|')"
		return
	fi
	drift=$(diff "$guest" "$core" | grep -c '^<' || true)
	other=$(diff "$guest" "$core" | grep '^[<>]' | grep -Ev "$read_path" || true)
	if [ -z "$other" ]; then
		tap ok "$what: $rows rows equal, but $drift of the reads' own files and the shell's pages"
	else
		tap fail "$what: rows equal" "$(echo "$other" | head -4 | tr '\n' '|')"
	fi
}

st=0
/usr/bin/python3 "$reader" "$core" "$kdir/vmlinux" >"$log/core.txt" 2>"$log/core.err" || st=$?
if [ $st = 0 ]; then
	tap ok "allocinfo-core reads the dump"
	if diff <(site_of "$log/guest.txt") <(site_of "$log/core.txt") | grep -q '^[<>] .*:[0-9]* .*func:'; then
		tap fail "allocinfo: the same call sites in the same order" \
			"$(diff <(site_of "$log/guest.txt") <(site_of "$log/core.txt") | head -4 | tr '\n' '|')"
	else
		tap ok "allocinfo: the same $(($(wc -l <"$log/guest.txt") - 2)) call sites in the same order"
	fi
	compare allocinfo "$log/guest.txt" "$log/core.txt"
	grep -q '\[allocprof_test\] .* unloaded:yes $' "$log/core.txt" &&
		grep '\[allocprof_test\]' "$log/core.txt" | grep -qv 'unloaded:yes $' &&
		tap ok "rows of a loaded module and of an unloaded one that holds pages" ||
		tap fail "module rows" "no loaded and unloaded:yes rows of allocprof_test"
	# The armed site's row, its stacks' counters included, is compared
	# above; here, that it held what the guest allocated through it.
	if grep -q 'func:stacks_helper' "$log/guest.txt"; then
		grep 'func:stacks_helper' "$log/core.txt" | grep -qv '^ *0 *0 ' &&
			tap ok "the armed call site's row holds its stacks' charges" ||
			tap fail "the armed call site's row" "no charge on stacks_helper's row"
	fi
else
	tap fail "allocinfo-core reads the dump" "status $st: $(head -c 300 "$log/core.err")"
fi
if [ -f "$log/guest-numa.txt" ]; then
	st=0
	/usr/bin/python3 "$reader" --numa "$core" "$kdir/vmlinux" >"$log/core-numa.txt" 2>"$log/core-numa.err" || st=$?
	if [ $st = 0 ]; then
		compare allocinfo_numa "$log/guest-numa.txt" "$log/core-numa.txt"
	else
		tap fail "allocinfo-core --numa" "status $st: $(head -c 300 "$log/core-numa.err")"
	fi
fi

if [ -f "$log/guest-stacks.txt" ]; then
	st=0
	/usr/bin/python3 "$reader" --stacks "$core" "$kdir/vmlinux" >"$log/core-stacks.txt" \
		2>"$log/core-stacks.err" || st=$?
	if [ $st = 0 ] && cmp -s "$log/guest-stacks.txt" "$log/core-stacks.txt" &&
		grep -q '^stack ' "$log/core-stacks.txt"; then
		tap ok "allocinfo_stacks: the armed site's $(grep -c '^stack ' "$log/core-stacks.txt") stacks, symbols and all, as the guest printed them"
	else
		tap fail "allocinfo-core --stacks" "status $st: $(head -c 200 "$log/core-stacks.err") $(diff "$log/guest-stacks.txt" "$log/core-stacks.txt" | head -4 | tr '\n' '|')"
	fi
fi

# allocinfo --core: the command reads the dump as it reads a saved file.
if [ -x "$tool" ]; then
	st=0
	ALLOCINFO_CORE_READER=$reader "$tool" --core "$core" --vmlinux "$kdir/vmlinux" -a \
		>"$log/tool-core.txt" 2>"$log/tool-core.err" || st=$?
	"$tool" -a -f "$log/core.txt" >"$log/tool-file.txt" 2>&1 || true
	if [ $st = 0 ] && cmp -s "$log/tool-core.txt" "$log/tool-file.txt"; then
		tap ok "allocinfo --core VMCORE --vmlinux VMLINUX shows the dump's rows"
	else
		tap fail "allocinfo --core" "status $st: $(head -c 300 "$log/tool-core.err")"
	fi
else
	tap fail "allocinfo --core" "no $tool (make -C tools/allocinfo)"
fi

# Bad input: each gets its exit status and a message naming the problem.
bad() { # DESC STATUS PATTERN ARG...
	local desc=$1 want=$2 pat=$3 st=0 msg
	shift 3
	msg=$(/usr/bin/python3 "$reader" "$@" 2>&1 >/dev/null) || st=$?
	msg=$(printf '%s' "$msg" | tr '\n' ' ')
	if [ $st = "$want" ] && printf '%s' "$msg" | grep -qE "$pat"; then
		tap ok "$desc: status $st, '$msg'"
	else
		tap fail "$desc" "status $st (want $want), '$msg'"
	fi
}
bad "no arguments" 1 "arguments are required"
bad "a missing dump" 2 "no such file" "$log/none" "$kdir/vmlinux"
bad "a file that is no core" 2 "no core: not a kernel core dump" "$kdir/vmlinux" "$kdir/vmlinux"
printf 'makedumpfile\0\0\0\0' >"$log/vmcore.flat"
bad "a flattened makedumpfile dump" 2 "flattened makedumpfile dump.*makedumpfile -R" \
	"$log/vmcore.flat" "$kdir/vmlinux"
head -c $(($(stat -c %s "$core") / 8)) "$core" >"$log/vmcore.truncated"
bad "a truncated dump" 2 "lacks memory|not a kernel core dump" "$log/vmcore.truncated" "$kdir/vmlinux"
# Another kernel's vmlinux: this one with a byte of its build ID changed.
cp "$kdir/vmlinux" "$log/vmlinux.other"
/usr/bin/python3 - "$log/vmlinux.other" "$(readelf -n "$kdir/vmlinux" | awk '/Build ID:/ { print $3; exit }')" <<'PY'
import sys
path, build_id = sys.argv[1], bytes.fromhex(sys.argv[2])
at = open(path, "rb").read().index(build_id)
with open(path, "r+b") as f:
    f.seek(at)
    f.write(bytes([build_id[0] ^ 0xFF]))
PY
bad "a vmlinux that does not match the dump" 2 "does not match the dump" "$core" "$log/vmlinux.other"
rm -f "$log/vmlinux.other"
objcopy --strip-debug "$kdir/vmlinux" "$log/vmlinux.nodebug"
bad "a vmlinux without debug information" 2 "no debug information" "$core" "$log/vmlinux.nodebug"
rm -f "$log/vmlinux.nodebug" "$log/vmcore.truncated" "$log/vmcore.flat"
# A kernel built without profiling: this vmlinux with alloc_tag_cttype
# renamed in its symbols and debug information, so that it has none.
/usr/bin/python3 - "$kdir/vmlinux" "$log/vmlinux.noprof" <<'PY'
import sys
image = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(image.replace(b"alloc_tag_cttype\0", b"alloc_tag_cttypX\0"))
PY
bad "a vmlinux of a kernel without profiling" 3 "no allocation profiling" "$core" "$log/vmlinux.noprof"
rm -f "$log/vmlinux.noprof"

# kdump's own format: the dump laid out as a capture kernel's /proc/vmcore,
# then compressed and filtered by makedumpfile as kdump setups run it
# (-c -d 31: zlib, without free, cache, user and zero pages).
if command -v makedumpfile >/dev/null; then
	st=0
	/usr/bin/python3 "$ROOT/scripts/postmortem-vmcore.py" "$core" "$log/vmcore.elf" &&
		makedumpfile -c -d 31 "$log/vmcore.elf" "$log/vmcore.kdump" >"$log/makedumpfile.log" 2>&1 ||
		st=$?
	rm -f "$log/vmcore.elf"
	if [ $st = 0 ] && [ -s "$log/vmcore.kdump" ]; then
		size=$(($(stat -c %s "$log/vmcore.kdump") >> 10))
		for view in "" --numa --stacks; do
			want=$log/core${view:+-${view#--}}.txt
			[ -f "$want" ] || continue
			st=0
			/usr/bin/python3 "$reader" $view "$log/vmcore.kdump" "$kdir/vmlinux" \
				>"$log/kdump${view:+-${view#--}}.txt" 2>"$log/kdump.err" || st=$?
			if [ $st = 0 ] && cmp -s "$want" "$log/kdump${view:+-${view#--}}.txt"; then
				tap ok "a kdump-compressed vmcore (makedumpfile -c -d 31, $size KiB)${view:+ $view}: what the ELF dump gives"
			else
				tap fail "a kdump-compressed vmcore${view:+ $view}" "status $st: $(head -c 300 "$log/kdump.err")"
			fi
		done
		head -c $(($(stat -c %s "$log/vmcore.kdump") / 2)) "$log/vmcore.kdump" >"$log/vmcore.kdump-half"
		bad "a truncated kdump-compressed dump" 2 "lacks memory|truncated" \
			"$log/vmcore.kdump-half" "$kdir/vmlinux"
		rm -f "$log/vmcore.kdump-half"
	else
		tap fail "makedumpfile -c -d 31 of the dump" "status $st: $(tail -3 "$log/makedumpfile.log" | tr '\n' ' ')"
	fi
else
	tap fail "a kdump-compressed vmcore" "makedumpfile is not installed: run 'make deps'"
fi

# /proc/kcore: the reader inside a guest, on its live kernel.  What the
# host's Python and drgn open to read the dump above (strace), the ELF
# interpreter, the reader and the vmlinux go into a second initramfs
# archive after the guest's; the guest runs the reader, then reads
# /proc/allocinfo itself.  Its counters move between the two (the reader
# allocates), but the call sites must be the same, and the test modules'
# rows, which nothing touches meanwhile, equal.
kcore_payload() { # OUT
	local stage=$log/kcore-root f target
	rm -rf "$stage"
	mkdir -p "$stage"
	strace -f -qq -e trace=file -o "$log/reader.strace" \
		/usr/bin/python3 "$reader" "$core" "$kdir/vmlinux" >/dev/null || return 1
	{
		# The system's files only: not the dump, the vmlinux or the reader.
		grep -v ENOENT "$log/reader.strace" | grep -o '"/[^"]*"' | tr -d '"' |
			awk -v root="$ROOT/" -v build="$BUILD/" '/^\/(usr|lib|lib64|etc)\// &&
				index($0, root) != 1 && index($0, build) != 1' | sort -u
		readelf -l /usr/bin/python3 | sed -n 's/.*interpreter: \(.*\)]/\1/p'
	} | while read -r f; do
		# Symbolic links stay links, with what they point to.
		while [ -f "$f" ]; do
			mkdir -p "$stage${f%/*}"
			cp -P "$f" "$stage$f"
			[ -L "$f" ] || break
			target=$(readlink "$f")
			case $target in /*) f=$target ;; *) f=${f%/*}/$target ;; esac
		done
	done
	cp "$reader" "$stage/allocinfo-core"
	cp "$kdir/vmlinux" "$stage/vmlinux"
	(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$1"
	rm -rf "$stage"
}
if ! command -v strace >/dev/null; then
	tap fail "allocinfo-core on a live /proc/kcore" "strace is not installed: run 'make deps'"
elif kcore_payload "$log/kcore.cpio.gz"; then
	d=$log/kcore
	mkdir -p "$d"
	cat "$initrd" "$log/kcore.cpio.gz" >"$d/initrd.cpio.gz"
	rm -f "$log/kcore.cpio.gz"
	timeout 900 "$QEMU" -nodefaults -display none -no-reboot -m 512 \
		-smp 2,sockets=2,cores=1,threads=1 -kernel "$kdir/$KIMAGE" -initrd "$d/initrd.cpio.gz" \
		-serial "file:$d/console.log" -serial "file:$d/results.log" \
		-append "console=ttyS0 tsc=reliable panic=-1 kunit.filter_glob=none allocprof.mode=postmortem allocprof.postmortem=kcore sysctl.vm.mem_profiling=1" \
		</dev/null >"$d/qemu.log" 2>&1 || true
	rm -f "$d/initrd.cpio.gz"
	tr -d '\r' <"$d/results.log" | awk -v d="$d" '
		/^@@KCORE$/ { f = d "/core.txt"; next }
		/^@@KCORE_STATUS / { print $2 > (d "/status"); f = ""; next }
		/^@@ALLOCINFO$/ { f = d "/guest.txt"; next }
		/^@@KCORE_ERR$/ { f = d "/core.err"; next }
		/^@@/ { f = ""; next }
		f { print > f }'
	st=$(cat "$d/status" 2>/dev/null || echo none)
	modrows='\[allocprof_(test|keeper|stacks_test)\]'
	if [ "$st" != 0 ]; then
		tap fail "allocinfo-core on a live /proc/kcore" "status $st: $(head -c 300 "$d/core.err" 2>/dev/null)"
	elif ! cmp -s <(site_of "$d/guest.txt") <(site_of "$d/core.txt"); then
		tap fail "allocinfo-core on a live /proc/kcore: the guest's call sites" \
			"$(diff <(site_of "$d/guest.txt") <(site_of "$d/core.txt") | head -4 | tr '\n' '|')"
	elif ! grep -Eq "$modrows" "$d/core.txt" ||
		! cmp -s <(grep -E "$modrows" "$d/guest.txt") <(grep -E "$modrows" "$d/core.txt"); then
		tap fail "allocinfo-core on a live /proc/kcore: the test modules' rows" \
			"$(diff <(grep -E "$modrows" "$d/guest.txt") <(grep -E "$modrows" "$d/core.txt") | head -4 | tr '\n' '|')"
	else
		tap ok "allocinfo-core on a guest's live /proc/kcore: its $(($(wc -l <"$d/core.txt") - 2)) call sites, and the test modules' $(grep -Ec "$modrows" "$d/core.txt") rows equal"
	fi
else
	tap fail "allocinfo-core on a live /proc/kcore" "no reader payload (strace of the reader failed)"
fi

# A dump that lacks a module's strings: its rows stay, counts and all,
# named by line and module.
st=0
page=$(/usr/bin/python3 "$ROOT/scripts/postmortem-cut.py" "$core" "$kdir/vmlinux" \
	"$log/vmcore.cut" allocprof_test 2>"$log/cut.err") &&
	/usr/bin/python3 "$reader" "$log/vmcore.cut" "$kdir/vmlinux" >"$log/core-cut.txt" \
		2>"$log/core-cut.err" || st=$?
if [ -f "$log/core.txt" ]; then
	# What the full dump's rows become without the strings.
	sed -E '/ unloaded:yes $/!s#^( *-?[0-9]+ +[0-9]+ )[^ ]+:([0-9]+) \[allocprof_test\] func:[^ ]+#\1unresolved:\2 [allocprof_test] func:unresolved#' \
		"$log/core.txt" >"$log/core-cut.want"
	unresolved=$(grep -c '^ *-\?[0-9]* *[0-9]* unresolved:' "$log/core-cut.txt" || true)
	if [ -n "$page" ] && [ $st = 0 ] && [ "$unresolved" -gt 0 ] &&
		cmp -s "$log/core-cut.want" "$log/core-cut.txt"; then
		tap ok "a dump without allocprof_test's strings (page $page): its $unresolved rows unresolved, counts kept, the rest equal"
	else
		tap fail "a dump without a module's strings" "status $st, page '$page' $(head -c 200 "$log/cut.err" "$log/core-cut.err" 2>/dev/null) $(diff "$log/core-cut.want" "$log/core-cut.txt" | head -4 | tr '\n' '|')"
	fi
fi
rm -f "$log/vmcore.cut"

# A kernel that kept no profile: the same one booted with profiling off
# for good (vm.mem_profiling=never, this kernel's default).
if dump never 256 results '^@@DUMP' panic=-1; then
	bad "a dump of a kernel booted with profiling never" 3 "off for good" "$log/never/vmcore" "$kdir/vmlinux"
else
	tap fail "a dump of a kernel booted with profiling never" "no dump (logs in $log/never)"
fi
rm -f "$log/never/vmcore"

# Post-mortem of a guest that ran out of memory: a tmpfs filled until the
# OOM killer, which kills no tmpfs page, gives up and vm.panic_on_oom
# panics.  The largest row of the dump is the culprit line, the first that
# the OOM report listed among the top call sites, with what it held then.
if dump oom 256 console 'Kernel panic - not syncing' panic=0 sysctl.vm.mem_profiling=1 \
	allocprof.postmortem=oom; then
	st=0
	/usr/bin/python3 "$reader" "$log/oom/vmcore" "$kdir/vmlinux" >"$log/oom/core.txt" \
		2>"$log/oom/core.err" || st=$?
	tr -d '\r' <"$log/oom/console.log" | sed -n '/Memory allocations, top/,$p' |
		sed -n '2p' | sed -E 's/^\[[ 0-9.]+\] (alloc_tag: )?//' >"$log/oom/report-top"
	top=$(sed -E 's/^ *-?[0-9]+ +[0-9]+ //' "$log/oom/report-top")
	culprit=$(tail -n +3 "$log/oom/core.txt" | sort -g | tail -1)
	if [ $st = 0 ] && [ -n "$top" ] && [ "$(site_of <(echo "$culprit"))" = "$top" ]; then
		tap ok "the dump of an out-of-memory panic names the OOM report's top call site: $top"
	else
		tap fail "the dump of an out-of-memory panic names the culprit" \
			"status $st, report '$top', dump '$culprit'"
	fi
	rm -f "$log/oom/vmcore"
else
	tap fail "a dump after an out-of-memory panic" "no panic or no dump (logs in $log/oom)"
fi
finish
