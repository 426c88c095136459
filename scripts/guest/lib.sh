# Guest-side test helpers, sourced by /init before each tests/*.sh file.
# Every result is one line on the console that the host turns into TAP:
#   @@T ok <description>
#   @@T not ok <description> # <why>
#   @@T skip <description> # <reason>
# Keep descriptions free of '#'.

t_ok() { echo "@@T ok $*"; }
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

# Directory where test modules (.ko) were placed by the host.
MODDIR=/modules
