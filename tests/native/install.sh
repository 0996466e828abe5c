#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# meson install --destdir: the tools, the rdmabench-* scripts (each finds its library in
# the installed tree and says its own name), the man pages. Then, in a mount namespace
# where libibverbs, librdmacm and libpmix are hidden (an empty file bound over each),
# the installed socket_bw runs a verified loopback pair and says what --all-pairs lacks,
# while the installed rc_write_bw cannot start (so the hiding is real).
source "$(dirname "$0")/lib.sh"

# hidden BINDIR: the part inside the namespace (this script, run again by unshare).
hidden() {
	local bin=$1 f n=0
	: >"$T/empty"
	# Every copy the loader or dlopen could find: the cache's entries and the build's
	# libpmix (a private directory on Debian), resolved.
	while read -r f; do
		mount --bind "$T/empty" "$f" || fail "cannot hide $f"
		n=$((n + 1))
	done < <({
		ldconfig -p | awk '$1 ~ /^lib(ibverbs|rdmacm|pmix)\.so/ {print $NF}'
		f=$(pkg-config --variable=libdir pmix 2>/dev/null) && ls "$f"/libpmix.so* 2>/dev/null
	} | xargs -r readlink -f | sort -u)
	((n >= 2)) || fail "found no libibverbs or librdmacm to hide in 'ldconfig -p'"
	echo "hidden: $n files"

	! "$bin/rc_write_bw" --version >"$T/rc.out" 2>"$T/rc.err" ||
		fail "rc_write_bw started with libibverbs hidden: the hiding does not work"
	expect_grep "$T/rc.err" "libibverbs\.so"
	echo "ok: rc_write_bw cannot start: $(head -n 1 "$T/rc.err")"

	"$bin/socket_bw" --version >"$T/ver.out" 2>"$T/ver.err" || fail "socket_bw --version exited $?"
	expect_grep "$T/ver.out" "^rdma-core none at run time"
	SB=$bin/socket_bw
	pair -n 50 -s 4K,64K --verify --csv "$T/r.csv"
	expect_rc "client" "$CRC" 0
	expect_rc "server" "$SRC" 0
	python3 - "$T/r.csv" <<'PY' || fail "the pair's rows are wrong"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["size_bytes"]) for r in rows] == [4096, 65536], rows
assert all(int(r["bytes"]) == 50 * int(r["size_bytes"]) for r in rows), rows
PY
	echo "ok: socket_bw pair: 4K and 64K, 50 messages each, verified"
	# --all-pairs alone needs libpmix: one line that names it, exit 2.
	PMIX_RANK=0 expect_usage "$SB" "libpmix\.so\.2.*cannot be loaded|PMIx was not found" --all-pairs -n 10
}

if [ "${1:-}" = --hidden ]; then
	hidden "$2"
	pass "socket_bw without rdma-core and PMIx"
fi

command -v meson >/dev/null || fail "no meson on PATH"
meson install --no-rebuild --destdir "$T/dest" -C "$RB_BUILD" >"$T/install.out" 2>"$T/install.err" ||
	fail "meson install exited $?"
bin=$(dirname "$(find "$T/dest" -path '*/bin/socket_bw' -type f | head -n 1)")
[ -x "$bin/socket_bw" ] || fail "no bin/socket_bw under $T/dest"
for t in rc_write_bw rc_write_lat socket_bw fifo_pingpong rdma_doctor; do
	[ -x "$bin/$t" ] || fail "$t not installed in $bin"
done
for page in man1/rc_write_bw.1 man1/rc_write_lat.1 man1/socket_bw.1 man1/fifo_pingpong.1 man1/rdma_doctor.1 \
	man7/rdmabench-faults.7 man7/rdmabench-fabric.7 man7/rdmabench-documents.7; do
	[ -n "$(find "$T/dest" -path "*/man/$page")" ] || fail "man page $page not installed"
done
for s in demo test bootstrap softroce sweep plot compare campaign; do
	[ ! -e "$bin/$s" ] || fail "tools/$s installed as $s: a project script, or a name that clashes"
done

# Each script from the installed tree: a copy elsewhere, found on PATH, its library beside it.
for s in sweep plot compare campaign; do
	[ -x "$bin/rdmabench-$s" ] || fail "rdmabench-$s not installed in $bin"
	(cd "$T" && env -u RB_BUILD PYTHONDONTWRITEBYTECODE=1 PATH="$bin:/usr/bin:/bin" \
		"rdmabench-$s" --help) >"$T/$s.out" 2>"$T/$s.err" || fail "rdmabench-$s --help exited $?"
	expect_grep "$T/$s.out" "^usage: rdmabench-$s "
done
echo "ok: $(cd "$bin" && echo *) in $bin; the scripts answer --help"

# socket_bw needs neither rdma-core nor PMIx to start.
readelf -d "$bin/socket_bw" | grep NEEDED >"$T/needed.out"
! grep -E "lib(ibverbs|rdmacm|pmix)" "$T/needed.out" || fail "socket_bw links $(grep -oE 'lib(ibverbs|rdmacm|pmix)[^]]*' "$T/needed.out" | xargs)"
ns=(unshare -m)
[ "$(id -u)" -eq 0 ] || ns=(unshare -r -m)
if ! "${ns[@]}" true 2>"$T/unshare.err"; then
	echo "SKIP: installed and checked, but no mount namespace here to hide the libraries: $(cat "$T/unshare.err")"
	exit 77
fi
"${ns[@]}" bash "$0" --hidden "$bin" || fail "socket_bw with the libraries hidden (above)"
pass "meson install: tools, scripts, man pages; socket_bw runs without rdma-core and PMIx"
