#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --version names the version, the source revision and the rdma-core the tool runs on.
source "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
want_ver=$(sed -nE "s/^ *version *: *'([^']+)'.*/\1/p" "$src/meson.build" | head -n 1)
[ -n "$want_ver" ] || fail "no version in meson.build"
rev=unknown
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
	rev=$(git -C "$src" describe --always --abbrev=12 2>/dev/null)
fi
# The libibverbs this process would load: libibverbs.so.1.14.44.0 is rdma-core 44.0.
lib=$(readlink -f "$(ldconfig -p | awk '/libibverbs\.so\.1 /{print $NF; exit}')")
rc=$(sed -nE 's/.*\.so\.[0-9]+\.[0-9]+\.([0-9]+\.[0-9]+)$/\1/p' <<<"$lib")
[ -n "$rc" ] || fail "cannot tell rdma-core's version from '$lib'"
for tool in socket_bw rc_write_bw rc_write_lat; do
	for flag in --version -V; do
		out=$("$RB_BUILD/src/$tool" "$flag" 2>&1) || fail "$tool $flag exited $?"
		first=$(head -n 1 <<<"$out")
		[[ $first == "$tool (rdmabench) $want_ver, revision $rev"* ]] ||
			fail "$tool $flag: '$first' (want version $want_ver, revision $rev)"
		grep -qx "rdma-core $rc at run time (built against [0-9.]*)" <<<"$out" ||
			fail "$tool $flag: no 'rdma-core $rc at run time' line in: $out"
	done
	echo "ok: $first"
done
pass "--version on every tool"
