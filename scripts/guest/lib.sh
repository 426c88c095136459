# Guest-side test helpers, sourced by /init before each tests/*.sh file.
# Every result is one line on the console that the host turns into TAP:
#   @@T ok <description>
#   @@T not ok <description> # <why>
#   @@T skip <description> # <reason>
# Keep descriptions free of '#'.  t_info lines are not results: what a
# test measured for the log (results.log), counted nowhere.

t_ok() { echo "@@T ok $*"; }
t_info() { echo "@@I $*"; }
t_fail() { echo "@@T not ok $1 # ${2:-failed}"; }
t_skip() { echo "@@T skip $1 # ${2:-skipped}"; }

# t_check DESC CMD [ARG...]: ok when CMD exits 0.
t_check() {
	_d=$1
	shift
	if _out=$("$@" 2>&1); then
		t_ok "$_d"
	else
		t_fail "$_d" "$(echo "$* -> $_out" | tr '\n#' ' _' | cut -c1-200)"
	fi
}

# t_eq DESC EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then
		t_ok "$1"
	else
		t_fail "$1" "expected '$2', got '$3'"
	fi
}

# cmdline_has WORD: the kernel command line contains WORD.
cmdline_has() {
	case " $(cat /proc/cmdline) " in *" $1 "*) return 0 ;; esac
	return 1
}

# cmdline_value KEY DEFAULT: the value of the last KEY=value word of the
# kernel command line, or DEFAULT.
cmdline_value() {
	_val=$2
	for _w in $(cat /proc/cmdline); do
		case "$_w" in "$1"=*) _val=${_w#*=} ;; esac
	done
	echo "$_val"
}

# Directory where test modules (.ko) were placed by the host.
MODDIR=/modules

# The profiling state this boot should have: 1, 0 or never.  A valid
# sysctl.vm.mem_profiling= on the command line decides; otherwise the
# kernel's default, which the boot-test matrix states as allocprof.default=
# for kernels built without MEM_ALLOC_PROFILING_ENABLED_BY_DEFAULT.
mem_profiling_boot() {
	_state=1
	for _w in $(cat /proc/cmdline); do
		case "$_w" in allocprof.default=*) _state=${_w#*=} ;; esac
	done
	for _w in $(cat /proc/cmdline); do
		case "$_w" in
		sysctl.vm.mem_profiling=*)
			_v=$(mem_profiling_value "${_w#*=}")
			[ -z "$_v" ] || _state=$_v
			;;
		esac
	done
	echo "$_state"
}

# mem_profiling_value VALUE: 1, 0 or never for a sysctl.vm.mem_profiling=
# value the kernel takes (anything starting with never, or a boolean as
# kstrtobool() reads its first characters, optionally followed by
# ",compressed"); nothing for an invalid one.
mem_profiling_value() {
	case "$1" in
	never*) echo never; return 0 ;;
	[yYtT1]* | [oO][nN]*) _mpv=1 ;;
	[nNfF0]* | [oO][fF]*) _mpv=0 ;;
	*) return 0 ;;
	esac
	case "$1" in *,*) [ "${1#*,}" = compressed ] || return 0 ;; esac
	echo $_mpv
}

# have_module DESC NAME: true if module NAME was built for this kernel and
# can be loaded, else reports DESC as skipped.
have_module() {
	[ -e /proc/modules ] && [ -f "$MODDIR/$2.ko" ] && return 0
	t_skip "$1" "no module support or module $2 not built"
	return 1
}

# load_test_module NAME [PARAM...]: load test module NAME with PARAMs;
# false, and reported, when its control file /proc/NAME did not appear.
load_test_module() {
	_mod=$1
	shift
	t_check "$_mod loads" insmod "$MODDIR/$_mod.ko" "$@"
	[ -e "/proc/$_mod" ] && return 0
	t_fail "$_mod proc file" "missing"
	return 1
}

# page_refs_expected: where this boot must keep page references: page_ext
# when the command line asks for it (mem_profiling_page_ref=, the last
# valid value wins), else the kernel's pinned form, allocprof.refs=
# (address, index or page_ext: boot-test.sh passes the refs= word of the
# kernel's line in scripts/configs/kernels); empty where nothing is pinned.
page_refs_expected() {
	_asked="" _pin=""
	for _w in $(cat /proc/cmdline); do
		case "$_w" in
		mem_profiling_page_ref=auto | mem_profiling_page_ref=flags | \
			mem_profiling_page_ref=page_ext) _asked=${_w#*=} ;;
		allocprof.refs=*) _pin=${_w#*=} ;;
		esac
	done
	if [ "$_asked" = page_ext ]; then echo page_ext; else echo "$_pin"; fi
}

# page_ref_indices_used: the tag indices page references use now
# (vm.mem_profiling_page_refs), empty where references are not indices.
page_ref_indices_used() {
	sed -n 's/^flags form=index .* used=\([0-9]*\) .*/\1/p' \
		/proc/sys/vm/mem_profiling_page_refs 2>/dev/null
}

# wait_rows_gone MODULE: wait (up to 20 s) until /proc/allocinfo lists no
# row of MODULE: the tags of an unloaded module that left objects behind
# are released a few seconds after the last of those is freed.
wait_rows_gone() {
	_t=0
	while [ $_t -lt 40 ] && grep -q "\[$1\]" /proc/allocinfo 2>/dev/null; do
		sleep 0.5
		_t=$((_t + 1))
	done
}

# rows_exact DESC MODULE ZERO: every row test module MODULE lists is exact
# in /proc/allocinfo; ZERO=1, or profiling switched off, expects 0 0.
rows_exact() {
	_zero=$3
	[ "$(cat /proc/sys/vm/mem_profiling)" = 1 ] || _zero=1
	t_eq "$1" "" "$(rows_differ "$2" "$_zero")"
}

# rows_differ MODULE ZERO: print (at most three of) the rows that test
# module MODULE lists in /proc/MODULE ("file:line bytes calls api") that
# /proc/allocinfo does not show exactly; ZERO=1 expects "0 0" instead.
rows_differ() {
	# One read of each file and one awk: a process per row costs
	# seconds under emulation, for dozens of rows.
	cat /proc/allocinfo >/tmp/rows_differ.info
	awk -v mod="[$1]" -v zero="$2" '
		FILENAME == ARGV[1] { loc[++n] = $1; want[n] = zero == 1 ? "0 0" : $2 " " $3
			api[n] = $4; next }
		$4 == mod && $5 ~ /^func:/ { rows[$3]++; got[$3] = $1 " " $2 }
		END {
			for (i = 1; i <= n && bad < 3; i++) {
				l = loc[i]
				if (rows[l] == 1 && got[l] == want[i])
					continue
				printf "%s: %s expected '\''%s'\'' got '\''%s'\'' (%d rows)\n",
					api[i], l, want[i], got[l], rows[l]
				bad++
			}
		}' "/proc/$1" /tmp/rows_differ.info
	rm -f /tmp/rows_differ.info
}

# func_row FUNC: "bytes calls" of FUNC's rows in /proc/allocinfo, summed;
# 0 0 if none.
func_row() {
	awk -v f="func:$1" '{ for (i = 3; i <= NF; i++) if ($i == f) { b += $1; c += $2 } }
		END { print b + 0, c + 0 }' /proc/allocinfo
}

# meminfo_kb KEY: the kB value of KEY in /proc/meminfo.
meminfo_kb() {
	awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo
}

# The /bin/thp helper (scripts/guest/bin/thp.c), which holds anonymous
# THPs and acts on them on command.
thp_enabled=/sys/kernel/mm/transparent_hugepage/enabled

# thp_usable DESC: true when the kernel has THP and /bin/thp exists, else
# reports DESC as skipped.
thp_usable() {
	if [ ! -w $thp_enabled ] || [ ! -x /bin/thp ]; then
		t_skip "$1" "kernel without THP, or no /bin/thp in the initramfs"
		return 1
	fi
}

# thp_start ARG...: set THP to madvise and start /bin/thp ARG... (N, or
# -g NODE), its input on fd 3 and its output on fd 4; thp_reply is its
# first line ("ready", or "died").
thp_start() {
	thp_mode=$(sed 's/.*\[\(.*\)\].*/\1/' $thp_enabled)
	echo madvise >$thp_enabled
	mkfifo /tmp/thp.in /tmp/thp.out
	thp "$@" </tmp/thp.in >/tmp/thp.out &
	thp_pid=$!
	exec 3>/tmp/thp.in 4</tmp/thp.out
	read -r thp_reply <&4 || thp_reply=died
}

# thp_ask CMD...: send a command to /bin/thp and print its answer; false
# if it died (the write runs in a subshell, which a broken pipe kills
# alone).
thp_ask() {
	(echo "$*" >&3) 2>/dev/null && read -r _thp_answer <&4 && echo "$_thp_answer"
}

# thp_stop: end /bin/thp's input, wait for it, restore the THP mode;
# returns the helper's exit status.
thp_stop() {
	exec 3>&- 4<&-
	wait $thp_pid
	_thp_status=$?
	rm -f /tmp/thp.in /tmp/thp.out
	echo "$thp_mode" >$thp_enabled
	return $_thp_status
}

# fault_set NAME KEY=VALUE...: set attributes of the fault injection
# capability NAME (failslab, fail_page_alloc) in debugfs, mounted.
fault_set() {
	_d=/sys/kernel/debug/$1
	shift
	for _kv in "$@"; do
		echo "${_kv#*=}" >"$_d/${_kv%%=*}"
	done
}
