#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# allocinfo growth on snapshot files: which samples make a series (known
# times, one boot), what it warns about, and which sites are leak suspects.
# Usage: test_growth.sh ALLOCINFO-BINARY...  Every case runs against each
# binary given (the second and later named by their file, as "asan: ").
# One TAP line per case.  The fixtures (tests/fixtures/growth) are
# snapshots of one kernel, 60 s apart unless said otherwise:
#   steady-1..3    foo_req_alloc 4 KiB, 8 KiB, 12 KiB: steady growth
#   onestep-1..3   ring_alloc 64 KiB, 128 KiB, 128 KiB (one allocation that
#                  stayed); kmalloc_noprof -16, -8, 0 (per-CPU transients)
#   modules-1..5   foo_req_alloc gone after the 3rd (module unloaded),
#                  bar_buf_alloc gone in the 3rd only (unloaded, loaded
#                  again), baz_alloc from the 3rd on (loaded), each rising
#   boot-a1,a2     boot A; boot-b1..b3 boot B, an hour later: __d_alloc
#                  1 MiB, 2 MiB | 3 MiB x3; alloc_inode 64 KiB x2 | 16, 32,
#                  48 KiB
#   same-1,2       saved in the same second, same-3 60 s later: idr_get_free
#                  4, 8, 12 KiB; foo_req_alloc 4, 8, 8 KiB; tmp_alloc 100,
#                  200, then gone
#   undated.txt    a copy without a header; badepoch.txt "# epoch: yesterday"
F=tests/fixtures/growth
A=$1
. "${0%/*}/tap.sh"
has() { grep -q -e "$1" "$T/out"; }
errhas() { grep -q -e "$1" "$T/err"; }
# the CSV row of FUNC in the output, without the slope and mono columns
row() { awk -F, -v f="$1" '$8 == f || $6 == f { sub(/^[^,]*,[^,]*,/, ""); print }' "$T/out"; }
verdict() { awk -F, -v f="$1" '($8 == f || $6 == f) { print $NF }' "$T/out"; }
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$T/out"; }
BA=5b0e1f7c-2d4a-4c1e-9a53-0c7d8e2f6a11
BB=c94d3a20-8f61-4b7e-b2d5-7e1a9f03c4d8

cases() {
	p=$1	# prefix of the case names

	# ---- the verdict -----------------------------------------------------
	run growth --csv "$F/steady-1.txt" "$F/steady-2.txt" "$F/steady-3.txt"
	check "${p}steady growth over three snapshots is a leak suspect, exit 4" eval '[ $rc = 4 ] &&
		grep -qx "68.3,1.00,4096,12288,3,drivers/foo/bar.c,77,foo_req_alloc,foo,leak-suspect" "$T/out" &&
		[ $(grep -c leak-suspect "$T/out") = 1 ] &&
		errhas "^allocinfo[-a-z]*: 1 leak suspect: a call site that rose in most intervals and never fell$"'
	run growth --csv "$F/onestep-1.txt" "$F/onestep-2.txt" "$F/onestep-3.txt"
	check "${p}one rise and a flat in three snapshots is growing, not a leak suspect: exit 0" eval '[ $rc = 0 ] &&
		[ "$(row ring_alloc)" = "65536,131072,3,drivers/net/ring.c,40,ring_alloc,ringdrv,growing" ] &&
		! errhas "leak suspect"'
	check "${p}a negative count rising to zero holds nothing: growing, not a leak suspect" \
		eval '[ "$(row kmalloc_noprof)" = "-16,0,3,./include/linux/slab.h,600,kmalloc_noprof,vmlinux,growing" ]'
	run growth --csv "$F"/modules-1.txt "$F"/modules-2.txt "$F"/modules-3.txt "$F"/modules-4.txt "$F"/modules-5.txt
	check "${p}modules: a site gone from the newest snapshot is not listed" eval '[ -z "$(row foo_req_alloc)" ]'
	check "${p}modules: a site unloaded and loaded again in between is growing, not a leak suspect" \
		eval '[ "$(row bar_buf_alloc)" = "4096,16384,4,drivers/bar/main.c,30,bar_buf_alloc,bar,growing" ]'
	check "${p}modules: a site loaded later that rises in every sample since is a leak suspect" eval '[ $rc = 4 ] &&
		[ "$(row baz_alloc)" = "4096,12288,3,drivers/baz/core.c,55,baz_alloc,baz,leak-suspect" ] &&
		errhas ": 1 leak suspect: a call site"'
	run growth -g module --csv "$F"/modules-1.txt "$F"/modules-2.txt "$F"/modules-3.txt "$F"/modules-4.txt "$F"/modules-5.txt
	check "${p}modules -g module: only the group loaded later and rising is a leak suspect" eval '[ $rc = 4 ] &&
		[ "$(verdict baz)" = leak-suspect ] && [ "$(verdict bar)" = growing ] && [ -z "$(verdict foo)" ] &&
		errhas ": 1 leak suspect: a group that"'

	# ---- different boots -------------------------------------------------
	"$A" diff "$F/boot-a2.txt" "$F/boot-b1.txt" 2>"$T/differr" >/dev/null
	run growth --csv "$F/boot-a1.txt" "$F/boot-a2.txt" "$F/boot-b1.txt" "$F/boot-b2.txt"
	check "${p}boots: warns as diff does, naming the snapshots either side of the reboot" eval '
		grep -qx "allocinfo[-a-z]*: warning: .*boot-a2.txt and .*boot-b1.txt come from different boots (boot_id $BA vs $BB): call sites and counters are not comparable" "$T/err" &&
		[ "$(grep "different boots" "$T/err")" = "$(grep "different boots" "$T/differr")" ]'
	check "${p}boots: only the snapshots of the last boot make the series, and it says so" eval '
		errhas "^allocinfo[-a-z]*: warning: counters do not carry over a reboot: growth uses only the 2 snapshots of the last boot (boot_id $BB) and leaves out 2$" &&
		[ "$(row alloc_inode)" = "16384,32768,2,fs/inode.c,265,alloc_inode,vmlinux,growing" ]'
	check "${p}boots: no leak suspect across a reboot (1 MiB, 2 MiB | 3 MiB, 3 MiB): exit 0" eval '[ $rc = 0 ] &&
		[ -z "$(row __d_alloc)" ] && ! errhas "leak suspect"'
	run growth --csv "$F/boot-a1.txt" "$F/boot-a2.txt" "$F/boot-b1.txt" "$F/boot-b2.txt" "$F/boot-b3.txt"
	check "${p}boots: steady growth within the last boot is a leak suspect" eval '[ $rc = 4 ] &&
		[ "$(row alloc_inode)" = "16384,49152,3,fs/inode.c,265,alloc_inode,vmlinux,leak-suspect" ] &&
		[ -z "$(row __d_alloc)" ] && errhas "uses only the 3 snapshots of the last boot"'
	cp "$T/out" "$T/sorted"
	run growth --csv "$F/boot-b3.txt" "$F/boot-a1.txt" "$F/boot-b1.txt" "$F/boot-a2.txt" "$F/boot-b2.txt"
	check "${p}boots: the last boot is the newest snapshot's, in whatever order they are given" eval '[ $rc = 4 ] && cmp -s "$T/out" "$T/sorted" &&
		errhas "boot-a2.txt and .*boot-b1.txt come from different boots"'
	run growth --csv --min-calls 40 --min-bytes 40000 "$F/boot-b3.txt" "$F/boot-a1.txt" "$F/boot-b1.txt" "$F/boot-a2.txt" "$F/boot-b2.txt"
	check "${p}boots: --min-calls and --min-bytes test the newest snapshot, not the last given" eval '[ $rc = 4 ] &&
		[ "$(verdict alloc_inode)" = leak-suspect ]'
	run growth --json "$F/boot-a1.txt" "$F/boot-a2.txt" "$F/boot-b1.txt" "$F/boot-b2.txt" "$F/boot-b3.txt"
	check "${p}boots: JSON counts the samples used" eval '[ "$(jget "d[\"samples\"], d[\"suspects\"]")" = "3 1" ]'
	grep -v "^# boot_id:" "$F/boot-b2.txt" >"$T/b2-noboot.txt"
	run growth --csv "$F/boot-a1.txt" "$F/boot-a2.txt" "$F/boot-b1.txt" "$T/b2-noboot.txt" "$F/boot-b3.txt"
	check "${p}boots: a snapshot of unknown boot stays (boot ids are compared when known)" eval '[ $rc = 4 ] &&
		cmp -s "$T/out" "$T/sorted" && errhas "uses only the 3 snapshots of the last boot .* leaves out 2$"'
	run growth "$F/boot-a1.txt" "$F/boot-a2.txt" "$F/boot-b1.txt"
	check "${p}boots: one snapshot of the last boot is too few: exit 1, no output" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] &&
		errhas "^allocinfo[-a-z]*: only 1 snapshot is of the last boot: growth needs at least 2 samples of one boot$"'

	# ---- samples of one second -------------------------------------------
	run growth --csv "$F/same-1.txt" "$F/same-2.txt" "$F/same-3.txt"
	check "${p}same second: warns, naming the snapshots" eval '
		errhas "^allocinfo[-a-z]*: warning: .*same-1.txt and .*same-2.txt have the same epoch (1795600800): saved in the same second, they are taken in the order given, with no time between them$"'
	check "${p}same second: a rise in no time is not steady growth: one rise and a flat is growing" \
		eval '[ "$(verdict foo_req_alloc)" = growing ]'
	check "${p}same second: the snapshots are taken in the order given" eval '[ $rc = 4 ] &&
		[ "$(verdict idr_get_free)" = leak-suspect ]'
	check "${p}same second: no rate from a site seen only within one second, no inf or nan" eval '
		[ -z "$(row tmp_alloc)" ] && ! grep -qi "inf\|nan" "$T/out"'
	run growth --json "$F/same-2.txt" "$F/same-1.txt" "$F/same-3.txt"
	check "${p}same second: in the other order, nothing is a leak suspect: exit 0" eval '[ $rc = 0 ] &&
		[ "$(jget "d[\"suspects\"], \" \".join(r[\"verdict\"] for r in d[\"rows\"])")" = "0 growing growing" ] &&
		errhas "same-2.txt and .*same-1.txt have the same epoch"'
	run growth "$F/same-1.txt" "$F/same-2.txt"
	check "${p}same second: snapshots all of one second are an error, exit 1" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] &&
		errhas "^allocinfo[-a-z]*: all 2 snapshots have the same epoch (1795600800): growth needs samples taken at different times$"'

	# ---- unknown times ---------------------------------------------------
	run growth --csv "$F/steady-1.txt" "$F/steady-2.txt" "$F/steady-3.txt"
	cp "$T/out" "$T/steady"
	run growth --csv "$F/steady-1.txt" "$F/undated.txt" "$F/steady-2.txt" "$F/steady-3.txt"
	check "${p}unknown time: a snapshot without an epoch among dated ones is left out, and it says so" eval '[ $rc = 4 ] &&
		cmp -s "$T/out" "$T/steady" &&
		errhas "^allocinfo[-a-z]*: warning: .*undated.txt has no valid epoch: the time it was taken is unknown, so it is left out (3 of the 4 snapshots have one)$"'
	run growth --csv "$F/steady-1.txt" "$F/steady-2.txt" "$F/badepoch.txt" "$F/steady-3.txt"
	check "${p}unknown time: an epoch that is no number is one unknown" eval '[ $rc = 4 ] && cmp -s "$T/out" "$T/steady" &&
		errhas "^allocinfo[-a-z]*: warning: .*badepoch.txt: epoch .yesterday. is not a number of seconds$" &&
		errhas "badepoch.txt has no valid epoch"'
	run growth "$F/undated.txt" "$F/steady-1.txt"
	check "${p}unknown time: one dated snapshot is too few: exit 1" eval '[ $rc = 1 ] && ! [ -s "$T/out" ] &&
		errhas "^allocinfo[-a-z]*: only 1 snapshot has a valid epoch: growth needs at least 2 samples taken at known times$"'
	run growth "$F/../v1.txt" "$F/../v1-later.txt"
	check "${p}unknown time: snapshots without an epoch are taken in order 1 s apart, with a warning" eval '[ $rc = 0 ] &&
		has "^-- 3 growing call sites (3 shown) over 2 samples" &&
		errhas "^allocinfo[-a-z]*: warning: no snapshot has a valid epoch: the times they were taken are unknown, so they are taken in the order given, 1 second apart (-d sets the spacing)$"'
	run growth -d 60 "$F/../v1.txt" "$F/../v1-later.txt"
	check "${p}unknown time: -d gives the spacing, without a warning" eval '[ $rc = 0 ] && ! [ -s "$T/err" ] &&
		has "^ *34.1KiB .*foo_init"'

	# ---- live sampling ---------------------------------------------------
	run growth -c 3 -d 0.1 "$F/steady-3.txt"
	check "${p}live: samples within one second have their own times: no warning" eval '[ $rc = 0 ] && ! [ -s "$T/err" ] &&
		has "^-- 0 growing call sites (0 shown) over 3 samples"'
}

for bin in "$@"; do
	A=$bin
	if [ "$bin" = "$1" ]; then cases ""; else cases "${bin##*/}: "; fi
done
tap_done
