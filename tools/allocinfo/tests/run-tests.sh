#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run every allocinfo test suite and merge their TAP into one stream:
# each case becomes one "ok N - suite: name" / "not ok N - suite: name"
# line, numbered across suites.  A suite that exits non-zero without a
# failing case (a crash, a sanitizer report) adds a "not ok" of its own.
# Ends with the plan and "N passed, N failed"; exits 1 if anything failed.
# Usage: run-tests.sh BUILD-DIR
B=${1:-build}
T=$(mktemp -d /tmp/allocinfo-tests.XXXXXX)
trap 'rm -rf "$T"' EXIT
num=0
pass=0
fail=0

suite() {
	name=$1
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	awk -v start="$num" -v suite="$name" -v rc="$rc" -v errf="$T/err" '
		/^(not )?ok[ \t]/ {
			bad = /^not ok/
			line = $0
			sub(/^(not )?ok[ \t]+[0-9]*[ \t]*(-[ \t]*)?/, "", line)
			n++
			if (bad) f++; else p++
			printf "%sok %d - %s: %s\n", bad ? "not " : "", start + n, suite, line
			next
		}
		/^#/ && f && !/^# (not )?ok - / { print }
		END {
			if (rc != 0 && f == 0) {
				n++; f++
				printf "not ok %d - %s: exited with status %d\n", start + n, suite, rc
				while ((getline l < errf) > 0 && shown++ < 20)
					print "#   " l
			}
			printf "%d %d\n", p, f > "/dev/stderr"
		}' "$T/out" 2>"$T/count"
	set -- $(cat "$T/count")
	pass=$((pass + $1))
	fail=$((fail + $2))
	num=$((num + $1 + $2))
}

export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
suite lib "$B/test_lib"
suite lib-asan "$B/test_lib-asan"
suite shared "$B/test_so"
suite cli sh tests/test_cli.sh "$B/allocinfo" "$B/gen"
suite cli-asan sh tests/test_cli.sh "$B/allocinfo-asan" "$B/gen"
suite numa sh tests/test_numa.sh "$B/allocinfo"
suite numa-asan sh tests/test_numa.sh "$B/allocinfo-asan"
suite growth sh tests/test_growth.sh "$B/allocinfo" "$B/allocinfo-asan"
suite metrics sh tests/test_metrics.sh "$B/allocinfo" "$B/allocinfo-asan"
suite stacks sh tests/test_stacks.sh "$B/allocinfo" "$B/allocinfo-asan" "$B/fuzz-driver"
suite fuzz "$B/fuzz-driver" 10 2000000 tests/fixtures/*.txt tests/fixtures/malformed/*.txt

# the command itself on mutated inputs: no crash, no sanitizer report, and
# only the documented exit statuses (4: a check found something)
clifuzz() {
	mkdir -p "$T/cf"
	"$B/fuzz-driver" dump "$T/cf" 150 tests/fixtures/*.txt tests/fixtures/malformed/*.txt || return 1
	printf 'allocinfo - version: 2.0\n9223372036854775807 18446744073709551615 a.c:1 func:f\n9223372036854775807 18446744073709551615 a.c:1 func:f k:v\n-9223372036854775808 18446744073709551615 b.c:4294967295 [m] func:g\n' >"$T/cf/extreme.txt"
	k=0
	for opts in "-a" "--json --strict" "--csv -g dir:2" "--prometheus --max-bytes 1M" "--folded -s avg,-line" "diff -g dir:1 --json --fail-above 1K tests/fixtures/v1.txt" "growth tests/fixtures/v1.txt" "--numa --csv"; do
		bad=0
		for f in "$T"/cf/*.txt; do
			ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1 \
				timeout 30 "$B/allocinfo-asan" $opts "$f" >/dev/null 2>"$T/cf.err"
			rc=$?
			case $rc in 0|1|3|4) ;; *) bad=1; echo "# $opts $f: exit $rc"; sed 's/^/#   /' "$T/cf.err" | head -20; break ;; esac
		done
		k=$((k + 1))
		if [ $bad = 0 ]; then echo "ok $k - allocinfo $opts on 151 mutated files"; else echo "not ok $k - allocinfo $opts on 151 mutated files"; fi
	done
}
suite cli-fuzz clifuzz

libfuzzer() {
	if [ ! -x "$B/fuzz-libfuzzer" ]; then
		echo "ok 1 - libFuzzer run # SKIP clang -fsanitize=fuzzer not available"
		return 0
	fi
	mkdir -p "$T/corpus"
	cp tests/fixtures/*.txt tests/fixtures/malformed/*.txt "$T/corpus/"
	if "$B/fuzz-libfuzzer" -max_total_time=15 -seed=1 -print_final_stats=1 \
		"$T/corpus" >"$T/lf.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/lf.log")
		echo "ok 1 - libFuzzer 15 s: $runs inputs, no crash or broken invariant"
	else
		echo "not ok 1 - libFuzzer found a failure"
		tail -30 "$T/lf.log" | sed 's/^/# /'
		return 1
	fi
}
suite libfuzzer libfuzzer

packaging() {
	k=0
	t() { k=$((k + 1)); if eval "$2"; then echo "ok $k - $1"; else echo "not ok $k - $1"; fi; }
	d=$T/dest
	"$B/allocinfo" --csv tests/fixtures/v1.txt >"$T/dyn.csv"
	make -s --no-print-directory install PREFIX=/opt/ai DESTDIR="$d" >"$T/inst.log" 2>&1
	t "make install PREFIX DESTDIR" '[ -x "$d/opt/ai/bin/allocinfo" ] && [ -f "$d/opt/ai/lib/liballocinfo.a" ] && [ -f "$d/opt/ai/include/allocinfo.h" ] && [ -f "$d/opt/ai/share/man/man3/liballocinfo.3" ]'
	t "shared library soname" 'objdump -p "$B/liballocinfo.so.1" | grep -q "SONAME *liballocinfo.so.1$"'
	t "only allocinfo_ symbols exported" '! nm -D --defined-only "$B/liballocinfo.so.1" | awk "\$2 == \"T\" { print \$3 }" | grep -v "^allocinfo_" | grep -q .'
	t "pkg-config file" '[ "$(PKG_CONFIG_PATH=$d/opt/ai/lib/pkgconfig pkg-config --libs --cflags liballocinfo | tr -s " " | sed "s/ $//")" = "-I/opt/ai/include -L/opt/ai/lib -lallocinfo" ]'
	printf '#include <allocinfo.h>\nint main(void){struct allocinfo_list *l=allocinfo_list_new();int r=allocinfo_list_read_buffer(l,"allocinfo - version: 1.0\\n",25);allocinfo_list_free(l);return r;}\n' >"$T/u.c"
	t "static library links a program via the installed header" 'cc -std=c11 -I"$d/opt/ai/include" "$T/u.c" "$d/opt/ai/lib/liballocinfo.a" -o "$T/u" && "$T/u"'
	MANWIDTH=200 man -l man/liballocinfo.3 2>/dev/null | sed -n '/^EXAMPLES/,/^SEE ALSO/p' |
		sed -e '1,3d' -e '$d' -e 's/^       //' >"$T/example.c"
	t "liballocinfo(3) example compiles against the installed library" 'grep -q "^int main" "$T/example.c" && cc -std=c11 -Wall -Wextra -Werror -I"$d/opt/ai/include" "$T/example.c" "$d/opt/ai/lib/liballocinfo.a" -o "$T/example"'
	make -s --no-print-directory static >"$T/static.log" 2>&1
	t "make static: a static binary that runs" '! objdump -p "$B/allocinfo-static" | grep -q NEEDED && "$B/allocinfo-static" --csv tests/fixtures/v1.txt | cmp -s - "$T/dyn.csv"'
	for m in man/allocinfo.1 man/liballocinfo.3; do
		t "man page $m renders without warnings" '[ -z "$(MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)" ] && MANWIDTH=80 man -l "$m" 2>/dev/null | grep -q "^NAME"'
	done
}
suite packaging packaging

echo "1..$num"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
