# The ioctls of /proc/allocinfo (upstream's ABI, linux/alloc_tag.h),
# through the aiq helper: an unfiltered walk lists the text file's call
# sites in its order; each filter selects what the text file filtered the
# same way holds; a module's rows read the same bytes and calls both
# ways; the content id changes when a module loads and unloads, and a
# walk goes on across both, each call site once; bad
# requests get their errors; only root opens the file.  The allocinfo
# command reads exact-name and size queries through the ioctls and gets
# the rows the text gives.  And the
# read-only vm.mem_profiling_compressed says whether page references are
# packed in page flags, as the kernel log does.

qc=/proc/sys/vm/mem_profiling_compressed
if [ -e /proc/sys/vm/mem_profiling ]; then
	# From the form pinned for this kernel, not from what it logged;
	# booted never (no /proc/allocinfo), nothing is packed.
	case "$(page_refs_expected)" in
	address | index) qc_want=1 ;;
	page_ext) qc_want=0 ;;
	*) qc_want="a form pinned by allocprof.refs=" ;;
	esac
	[ -e /proc/allocinfo ] || qc_want=0
	t_eq "vm.mem_profiling_compressed says where page references are" \
		"$qc_want" "$(cat $qc 2>/dev/null)"
	t_check "vm.mem_profiling_compressed is read-only" \
		sh -c "! echo 1 >$qc 2>/dev/null"
fi

if [ ! -r /proc/allocinfo ]; then
	t_skip "allocinfo ioctls" "no /proc/allocinfo"
	return 0
fi
if ! command -v aiq >/dev/null || { aiq id >/dev/null 2>&1; [ $? = 2 ]; }; then
	t_skip "allocinfo ioctls" "aiq helper not built with linux/alloc_tag.h"
	return 0
fi

# qi_text: "file:line module function bytes calls" of each text row, the
# names cut to their last 63 characters as the ioctls give them, module
# "-" for vmlinux.
qi_text() {
	awk 'function tail(s) { return length(s) > 63 ? substr(s, length(s) - 62) : s }
	NR > 2 {
		mod = "-"; fn = $4
		if ($4 ~ /^\[/) { mod = substr($4, 2, length($4) - 2); fn = $5 }
		sub(/^func:/, "", fn)
		n = split($3, fl, ":"); line = fl[n]
		file = substr($3, 1, length($3) - length(line) - 1)
		print tail(file) ":" line, tail(mod), tail(fn), $1, $2
	}' /proc/allocinfo
}
qi_ids() { awk '{ print $3, $4, $5 }'; }

aiq rows >/tmp/qi_all 2>/tmp/qi_err
t_eq "unfiltered walk succeeds" "" "$(cat /tmp/qi_err)"
qi_text >/tmp/qi_txt
t_eq "unfiltered walk: every call site of the text file, in order" \
	"$(awk '{ print $1, $2, $3 }' /tmp/qi_txt | md5sum)" \
	"$(qi_ids </tmp/qi_all | md5sum)"
t_check "unfiltered walk: $(wc -l </tmp/qi_all) call sites" [ "$(wc -l </tmp/qi_all)" -gt 100 ]

for qf in mm/slub.c mm/page_alloc.c lib/kobject.c; do
	qi_want=$(awk -v f="$qf" 'index($1, f ":") == 1 { print $1, $2, $3 }' /tmp/qi_txt)
	t_eq "file filter $qf: $(echo "$qi_want" | grep -c .) call sites, as in the text" \
		"$qi_want" "$(aiq rows -F "$qf" | qi_ids)"
done
qi_fn=$(awk 'NR == 1 { print $3 }' /tmp/qi_txt)
t_eq "function filter $qi_fn: as in the text" \
	"$(awk -v f="$qi_fn" '$3 == f { print $1, $2, $3 }' /tmp/qi_txt)" \
	"$(aiq rows -f "$qi_fn" | qi_ids)"
qi_at=$(awk 'NR == 10 { print $1 }' /tmp/qi_txt)
t_eq "file and line filter ${qi_at}: that call site alone" "$qi_at" \
	"$(aiq rows -F "${qi_at%:*}" -l "${qi_at##*:}" | awk '{ print $3 }')"
t_eq "accurate and inaccurate call sites add up to all" "$(wc -l </tmp/qi_all)" \
	$(($(aiq rows -a 0 | wc -l) + $(aiq rows -a 1 | wc -l)))
t_eq "the accurate field agrees with the filter on it" "" \
	"$(aiq rows -a 1 | awk '$6 != 0')$(aiq rows -a 0 | awk '$6 != 1')"
t_eq "position 5 of a file filter is its 6th call site" \
	"$(aiq rows -F mm/slub.c | sed -n 6p | qi_ids)" \
	"$(aiq rows -F mm/slub.c -p 5 | head -1 | qi_ids)"
t_eq "vmlinux call sites: module filter on the empty name" \
	"$(awk '$2 == "-"' /tmp/qi_txt | wc -l)" "$(aiq rows -m '' | wc -l)"

aiq errors >/tmp/qi_errs
t_eq "bad requests get upstream's errors" \
	"unknown-mask-bit EINVAL
unterminated-name EINVAL
min-above-max EINVAL
pos-past-end ENOENT
no-match ENOENT
bad-pointer EFAULT
unknown-command ENOTTY
next-at-end ENOENT, then ok
get-at-no-match-in-walk ENOENT, next ENOENT
get-at-past-end-in-walk ENOENT, next ok (the second row)" "$(cat /tmp/qi_errs)"
t_eq "only root opens /proc/allocinfo" EACCES "$(aiq unpriv)"

if have_module "allocinfo ioctls on module rows" allocprof_test; then
	qi_id0=$(aiq id)
	aiq across 20 "insmod $MODDIR/allocprof_test.ko" >/tmp/qi_across
	qi_rc=$?
	qi_id1=$(aiq id)
	t_eq "a walk across a module load: the text's call sites after it, once each" \
		"$(qi_text | awk '{ print $1, $2, $3 }' | md5sum) 0" \
		"$(qi_ids </tmp/qi_across | md5sum) $qi_rc"
	t_check "content id changes when a module loads ($qi_id0 -> $qi_id1)" \
		[ "$qi_id0" != "$qi_id1" ]
	t_eq "content id stays while nothing loads" "$qi_id1" "$(aiq id)"
	qi_mod=$(qi_text | awk '$2 == "allocprof_test" { print $1, $2, $3, $4, $5 }')
	t_eq "module filter: rows, bytes and calls as in the text" "$qi_mod" \
		"$(aiq rows -m allocprof_test | awk '{ print $3, $4, $5, $1, $2 }')"
	qi_min=$(echo "$qi_mod" | awk '{ print $4 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	t_eq "module and minimum size filters ($qi_min bytes)" \
		"$(echo "$qi_mod" | awk -v m="$qi_min" '$4 >= m' | wc -l)" \
		"$(aiq rows -m allocprof_test -s "$qi_min" | wc -l)"
	t_eq "module and size range filters ($qi_min bytes exactly)" \
		"$(echo "$qi_mod" | awk -v m="$qi_min" '$4 == m' | wc -l)" \
		"$(aiq rows -m allocprof_test -s "$qi_min" -S "$qi_min" | wc -l)"
	if command -v allocinfo >/dev/null; then
		qi_q="-a -b --csv -x --module allocprof_test"
		# The ioctls carry names of up to 63 characters: a module built
		# under a longer path is read as text.
		qi_flen=$(awk '$4 == "[allocprof_test]" { sub(/:[0-9]+$/, "", $3); print length($3); exit }' /proc/allocinfo)
		qi_how="through the query ioctls"
		[ "$qi_flen" -lt 63 ] || qi_how="as text"
		# shellcheck disable=SC2086
		allocinfo -v $qi_q >/tmp/qi_tool 2>/tmp/qi_v
		t_eq "allocinfo -x --module reads $qi_how (file name of $qi_flen characters)" \
			"$qi_how" "$(sed -n 's/.*: read //p' /tmp/qi_v)"
		# the columns the ioctls carry: bytes, calls, avg, file, line,
		# function, module (not the lifetime counts of a stats kernel)
		# shellcheck disable=SC2086
		t_eq "allocinfo -x --module: rows, bytes and calls as in the text" \
			"$(allocinfo --text $qi_q | cut -d, -f1-7)" "$(cut -d, -f1-7 /tmp/qi_tool)"
		# shellcheck disable=SC2086
		t_eq "allocinfo -x --module --min-bytes $qi_min: as in the text" \
			"$(allocinfo --text $qi_q --min-bytes "$qi_min" | cut -d, -f1-7)" \
			"$(allocinfo $qi_q --min-bytes "$qi_min" | cut -d, -f1-7)"
		t_check "allocinfo: the module's rows ($(grep -c , /tmp/qi_tool)) are there" \
			[ "$(grep -c , /tmp/qi_tool)" -gt 2 ]
	fi
	echo free >/proc/allocprof_test
	aiq across 1 "rmmod allocprof_test" -m allocprof_test >/tmp/qi_across
	qi_rc=$?
	t_eq "a walk of a module's rows ends when the module unloads under it" \
		"$(echo "$qi_mod" | awk 'NR == 1 { print $1, $2, $3 }') 0" \
		"$(qi_ids </tmp/qi_across) $qi_rc"
	t_check "content id changes when a module unloads" [ "$(aiq id)" != "$qi_id1" ]
	t_eq "no rows of the unloaded module" "" "$(aiq rows -m allocprof_test)"
fi
if command -v allocinfo >/dev/null; then
	# bytes move while the guest runs: the call sites, in file order
	qi_sites() { allocinfo -a -b --csv -s file,line,func "$@" | cut -d, -f4-7; }
	for qf in mm/slub.c mm/page_alloc.c; do
		t_eq "allocinfo -x --file $qf: the call sites of the text" \
			"$(qi_sites --text -x --file $qf)" "$(qi_sites --ioctl -x --file $qf)"
	done
	t_eq "allocinfo --file '^mm/slub\\.c\$' is an exact name for the ioctls" \
		"through the query ioctls" \
		"$(allocinfo -v --file '^mm/slub\.c$' 2>&1 >/dev/null | sed -n 's/.*: read //p')"
	t_eq "allocinfo --file with a regular expression reads the text" "as text" \
		"$(allocinfo -v --file 'mm/slub' 2>&1 >/dev/null | sed -n 's/.*: read //p')"
	t_eq "allocinfo --ioctl with no filter: every call site" "$(wc -l </tmp/qi_all)" \
		"$(allocinfo --ioctl -a --csv | sed 1d | wc -l)"
fi
echo "# allocinfo ioctl walk for one file vs reading the text file: $(aiq time 20 -F mm/slub.c)"
