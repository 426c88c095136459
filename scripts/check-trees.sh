#!/bin/bash
# Try the series on kernel.org's own 6.1.y trees, as Debian ships them
# (linux_6.1.N.orig.tar.xz: kernel.org's tree minus non-free files,
# without Debian's patches): fetch every 6.1.y that Debian's index lists
# with 'apt-get source --download-only' through a private sources list and
# state directory, apply the series to each with 'patch -p1 --fuzz=0'
# (a --dry-run first; a patch that needs fuzz is then applied with it, one
# that rejects hunks as far as it goes, so that later patches are judged
# too), build the prof kernel of the newest tree and of the one released
# nearest to a year before it (of those without a rejected hunk), and
# boot them with a few guest tests.  Prints a table, names the oldest
# 6.1.y the series applies to without fuzz, writes build/trees/report.md.
# Fails when the newest tree fetched does not apply without fuzz, or a
# kernel built here does not build or boot.
#
# Usage: check-trees.sh [6.1.N...]   (default: every 6.1.y in the index)
# Environment: PATCHES (series and patches, default patches/) or REV (the
# series as committed in that revision), BUILDS (trees to build, 0-2,
# default 2), BOOT (0: no boot), JOBS.
# Everything lives in build/trees: apt/ (sources.list, lists, cache),
# dl/ (the downloads, kept), 6.1.N/ (src: the tree, extracted once;
# series: a hard-linked copy with the series applied; apply.txt: a line a
# patch; kernel/prof; boot/).  Results are reused while the series, the
# kernel fragments and the guest tests are unchanged.  With less than
# 20 GB free, trees that were not built are removed after the run.
set -eu
. "$(dirname "$0")/lib.sh"

patches=${PATCHES:-$ROOT/patches}
work=$BUILD/trees
label=${patches#"$ROOT"/}
if [ -n "${REV:-}" ]; then
	rev=$(git -C "$ROOT" rev-parse --short "$REV")
	patches=$work/rev-$rev/patches label="patches/ as committed in $rev"
	[ -d "$patches" ] || { mkdir -p "${patches%/*}"; git -C "$ROOT" archive "$rev" patches | tar -x -C "${patches%/*}"; }
elif [ "$label" = patches ]; then
	label="patches/ at $(git -C "$ROOT" rev-parse --short HEAD)"
	[ -z "$(git -C "$ROOT" status --porcelain -- patches)" ] || label="$label, with uncommitted changes"
fi
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/dl"
cat >"$work/apt/sources.list" <<'EOF'
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security bookworm-security main
EOF
apt_opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
msg "updating the private apt index in $work/apt"
apt-get -qq "${apt_opts[@]}" update >"$work/apt/update.log" 2>&1 || {
	cat "$work/apt/update.log" >&2; die "apt-get update failed"; }
# 6.1.N -> its last Debian revision (all share linux_6.1.N.orig.tar.xz).
debver=$(apt-cache "${apt_opts[@]}" showsrc linux | sed -n 's/^Version: \(6\.1\.[0-9]*-.*\)/\1/p' |
	sort -V | awk -F- '{ v[$1] = $0 } END { for (k in v) print k, v[k] }' | sort -V)
[ -n "$debver" ] || die "no 6.1.y source of linux in the index"
versions=${*:-$(echo "$debver" | cut -d' ' -f1)}

sum() { find "$@" -type f | sort | xargs cat | sha1sum | cut -c1-16; }
series_list=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$patches/series")
apply_stamp=$(cd "$patches" && echo "$series_list" | xargs cat series "$ROOT/scripts/check-trees.sh" | sha1sum | cut -c1-16)
kernel_stamp=$apply_stamp-$(sum "$ROOT/scripts/configs" "$ROOT/scripts/build-kernel.sh")
boot_stamp=$kernel_stamp-$(sum "$ROOT/scripts/guest" "$ROOT/scripts/boot-test.sh" "$ROOT/scripts/mkinitramfs.sh")
cmdline="kunit.filter_glob=alloc_tag* allocprof.tests=00-*,40-*"

# apply T: the series onto T/series (extracting T/src once); a line a
# patch in T/apply.txt: PATCH, STATUS (clean, offset, fuzz or reject),
# the hunks that need fuzz or fail, the offsets, tab-separated.
pp() { (cd "$t/series" && patch -p1 --batch --forward --no-backup-if-mismatch "$@" <"$patches/$p" 2>&1); }
apply() {
	local t=$1 p out st detail
	if [ ! -f "$t/src/Makefile" ]; then
		msg "${t##*/}: extracting ${t##*/}.orig.tar.xz"
		rm -rf "$t/src" "$t/src.tmp"
		mkdir -p "$t/src.tmp"
		tar -C "$t/src.tmp" --strip-components=1 -xJf "$work/dl/linux_${t##*/}.orig.tar.xz"
		mv "$t/src.tmp" "$t/src"
	fi
	# Objects built from an earlier copy may be newer than the files
	# they came from: a new copy is built from scratch (ccache).
	rm -rf "$t/series" "$t/apply.txt" "$t/kernel"
	cp -al "$t/src" "$t/series"
	for p in $series_list; do
		if out=$(pp --dry-run --fuzz=0); then
			pp --fuzz=0 >/dev/null
			st=clean
			! echo "$out" | grep -q offset || st=offset
		else
			st=reject
			! out=$(pp --dry-run) || st=fuzz
			pp >/dev/null || true
		fi
		# Hunks that moved, needed fuzz or failed, by file.
		detail=$(echo "$out" | awk '
			/^\|\+\+\+ b\// { f = substr($2, 3) }
			/^(patching|checking) file / { f = $3 }
			/^Hunk #.*\(offset / { n++; o = $(NF - 1); if (o < 0) o = -o; if (o > max) max = o }
			/^Hunk #.*(FAILED|with fuzz)/ { h = $2
				if (match($0, /fuzz [0-9]+/)) h = h " " substr($0, RSTART, RLENGTH)
				bad[f] = bad[f] sep[f] h; sep[f] = "," }
			/Reversed \(or previously applied\)/ { bad[f] = "reversed or already applied" }
			/would create the file/ { sub(/,$/, "", $6); bad[$6] = "already exists" }
			/No file to patch/ { bad[f] = "file missing" }
			END { for (f in bad) printf "%s%s %s", s++ ? "; " : "", f, bad[f]
				printf "\t"; if (n) printf "offsets in %d hunks, up to %d lines", n, max }')
		printf '%s\t%s\t%s\n' "$p" "$st" "$detail" >>"$t/apply.txt"
	done
	echo "$apply_stamp" >"$t/apply.stamp"
}

# verdict T: the tree's worst patch status.
verdict() {
	local s
	for s in reject fuzz offset clean; do
		! cut -f2 "$1/apply.txt" | grep -qx $s || { echo $s; return; }
	done
}

# 1. Fetch, extract once, apply.
avail=""
for v in $versions; do
	t=$work/$v dv=$(echo "$debver" | awk -v v="$v" '$1 == v { print $2 }')
	[ -n "$dv" ] || die "$v: no such 6.1.y in the index"
	mkdir -p "$t"
	orig=$work/dl/linux_$v.orig.tar.xz
	if [ ! -f "$orig" ] || [ ! -f "$work/dl/linux_$dv.fetched" ]; then
		if ! (cd "$work/dl" && apt-get -q "${apt_opts[@]}" source --download-only "linux=$dv") >"$t/fetch.log" 2>&1; then
			msg "$v: not fetched ($(grep -m1 '^E:' "$t/fetch.log" | cut -c1-120))"
			echo "not in the archive ($(grep -m1 -o '[0-9]\{3\} *Not Found\|^E: .*' "$t/fetch.log"))" >"$t/missing"
			continue
		fi
		touch "$work/dl/linux_$dv.fetched"
	fi
	rm -f "$t/missing"
	[ -s "$t/date" ] || tar --full-time -tvJf "$orig" 2>/dev/null | awk '{ print $4; exit }' >"$t/date"
	[ "$(cat "$t/apply.stamp" 2>/dev/null)" = "$apply_stamp" ] || apply "$t"
	avail="$avail$v"$'\n'
	msg "$v ($(cat "$t/date")): $(verdict "$t")"
done
[ -n "$avail" ] || die "no tree could be fetched"

# 2. Build (and boot) the newest tree and the one released nearest to a
# year before it, of those without a rejected hunk (with fuzz, if need
# be, as plain 'patch -p1' would apply them).
newest=$(echo "$avail" | sort -V | tail -1)
target=$(($(date -d "$(cat "$work/$newest/date")" +%s) - 365 * 86400))
older=$(for v in $avail; do
	if [ "$v" = "$newest" ] || [ "$(verdict "$work/$v")" = reject ]; then continue; fi
	d=$(($(date -d "$(cat "$work/$v/date")" +%s) - target))
	echo "${d#-} $v"
done | sort -n | awk 'NR == 1 { print $2 }')
case ${BUILDS:-2} in 0) built="" ;; 1) built=$newest ;; *) built="$newest $older" ;; esac
status=0
for v in $built; do
	t=$work/$v k=$work/$v/kernel/prof
	[ "$(verdict "$t")" != reject ] || continue
	[ -d "$t/series" ] || apply "$t"	# removed for lack of disk
	if [ "$(cat "$k/.check-trees-stamp" 2>/dev/null)" != "$kernel_stamp" ] || [ ! -f "$k/.allocprof-built" ]; then
		msg "$v: building prof"
		start=$SECONDS
		rm -f "$t/boot.txt"
		if SRC=$t/series KOUT=$t/kernel "$ROOT/scripts/build-kernel.sh" prof >"$t/build.log" 2>&1; then
			echo "built in $((SECONDS - start)) s" >"$t/build.txt"
			echo "$kernel_stamp" >"$k/.check-trees-stamp"
		else
			echo "FAILED (${k#"$ROOT"/}/build.log)" >"$t/build.txt"
			tail -20 "$t/build.log" >&2
		fi
	fi
	grep -q '^built' "$t/build.txt" || { status=1; continue; }
	[ "${BOOT:-1}" = 1 ] || continue
	if [ "$(head -1 "$t/boot.txt" 2>/dev/null)" != "$boot_stamp" ]; then
		msg "$v: booting prof ($cmdline)"
		start=$SECONDS
		BUILD=$t "$ROOT/scripts/boot-test.sh" --cmdline "$cmdline" prof "$k" >"$t/boot.tap" 2>"$t/boot.err" || true
		printf '%s\n%s of %s checks passed in %s s\n' "$boot_stamp" "$(grep -c '^ok' "$t/boot.tap")" \
			"$(grep -c '^\(not \)\{0,1\}ok' "$t/boot.tap")" $((SECONDS - start)) >"$t/boot.txt"
	fi
	! grep -q '^not ok' "$t/boot.tap" || status=1
done

# 3. Report.
# oldest STATUS...: the oldest tree whose verdict is one of them, and the
# oldest from which every newer tree's is.
oldest() {
	local ok v from=""
	ok=$(for v in $avail; do case " $* " in *" $(verdict "$work/$v") "*) echo "$v" ;; esac; done | sort -V)
	for v in $(echo "$avail" | sort -Vr); do
		echo "$ok" | grep -qx "$v" || break
		from=$v
	done
	[ -z "$ok" ] || echo "${ok%%$'\n'*}${from:+, and every tree from $from on}"
}
report=$work/report.md
{
	echo "# The series on kernel.org's 6.1.y trees"
	echo
	echo "Series: $label, $(echo "$series_list" | wc -w) patches; trees: Debian's"
	echo "linux_6.1.N.orig.tar.xz (kernel.org's tree without its non-free files),"
	echo "applied with patch -p1 --fuzz=0; boots: $cmdline ('make check-trees')."
	echo
	echo "| tree | released | applies with --fuzz=0 | patches that do not: hunks needing fuzz or failing | prof kernel | boot |"
	echo "|---|---|---|---|---|---|"
	for v in $versions; do
		t=$work/$v
		if [ -f "$t/missing" ]; then
			echo "| $v | | listed, $(tr -s ' ' <"$t/missing") | | | |"
			continue
		fi
		case $(verdict "$t") in
		clean) a="yes, exactly" ;;
		offset) a="yes, $(grep -c $'\toffset\t' "$t/apply.txt") patches at offsets" ;;
		fuzz) a="no: $(grep -c $'\tfuzz\t' "$t/apply.txt") need fuzz" ;;
		*) a="no: $(grep -c $'\treject\t' "$t/apply.txt") reject, $(grep -c $'\tfuzz\t' "$t/apply.txt") need fuzz" ;;
		esac
		bad=$(awk -F'\t' '$2 == "fuzz" || $2 == "reject" { printf "%s%s %s (%s)", sep, substr($1, 1, 3), $2, $3; sep = "; " }' "$t/apply.txt")
		b="" bt=""
		if echo "$built" | grep -qw "$v"; then
			b=$(cat "$t/build.txt" 2>/dev/null || echo "not built: hunks rejected")
			[ "$(head -1 "$t/boot.txt" 2>/dev/null)" != "$boot_stamp" ] || bt=$(sed -n 2p "$t/boot.txt")
		fi
		echo "| $v | $(cat "$t/date") | $a | ${bad:--} | ${b:--} | ${bt:--} |"
	done
	echo
	o=$(oldest clean offset)
	echo "Oldest 6.1.y the series applies to without fuzz: ${o:-none of the $(echo "$avail" | grep -c .) trees fetched}."
	o=$(oldest clean offset fuzz)
	echo "Oldest it applies to with fuzz but no rejected hunk (plain patch -p1): ${o:-none}."
	echo "Newest tree fetched: $newest; built: ${built:-none}."
	echo
	echo "Patches that do not apply as they are, and where:"
	echo
	for p in $series_list; do
		r=$(for v in $(echo "$avail" | sort -V); do
			awk -F'\t' -v p="$p" -v v="$v" '$1 == p && $2 ~ /fuzz|reject/ { printf "%s %s, ", v, $2 }' "$work/$v/apply.txt"
		done)
		[ -z "$r" ] || echo "- $p: ${r%, }"
	done
} >"$report"
cat "$report"
msg "report: $report"

# Trees that were not built go when the disk runs short; their results stay.
if [ "$(df -BG --output=avail "$work" | tail -1 | tr -dc 0-9)" -lt 20 ]; then
	for v in $avail; do echo "$built" | grep -qw "$v" || rm -rf "$work/$v/src" "$work/$v/series"; done
fi
case $(verdict "$work/$newest") in clean | offset) ;; *) status=1 ;; esac
exit "$status"
