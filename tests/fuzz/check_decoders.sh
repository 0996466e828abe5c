#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Keeps the fuzz targets' list of decoders honest: every function named *_decode
# defined in src/ must live in a file the targets compile with coverage (FILE
# arguments: tests/fuzz/meson.build's lists, and any src .c a target #includes)
# and be called by a target (a tests/fuzz/*.c among the FILE arguments).
#
#   check_decoders.sh SOURCE_ROOT FILE...
#
# A new decoder fails this until a target reaches it: add its file to fuzz_lib in
# tests/fuzz/meson.build and call it from a target (fuzz_wire.c for a payload).
set -u
root=$1
shift
cd "$root" || exit 1

declare -A built=()
targets=()
for f in "$@"; do
	built[$f]=1
	[[ $f == tests/fuzz/* ]] && targets+=("$f")
done
# A target that #includes a library file ("coord.c") compiles it itself.
while read -r inc; do
	for d in src/lib src/*; do
		[[ -f $d/$inc ]] && built[$d/$inc]=1
	done
done < <(sed -n 's/^#include "\([a-z_0-9]*\.c\)".*/\1/p' "${targets[@]}")

fail=0 n=0 names=()
# Definitions: a line that starts with a type, names NAME_decode( and does not end in ';'.
while IFS=: read -r file _ name; do
	n=$((n + 1))
	names+=("$name")
	if [[ -z ${built[$file]:-} ]]; then
		echo "FAIL: $name ($file): $file is not compiled into the fuzz targets (fuzz_lib in tests/fuzz/meson.build)"
		fail=1
	fi
	if ! grep -qw -- "$name" "${targets[@]}"; then
		echo "FAIL: $name ($file): no fuzz target calls it (${targets[*]})"
		fail=1
	fi
done < <(grep -rnE --include='*.c' '^[a-z][a-z_0-9 *]*[ *][a-z_0-9]+_decode\(' src | grep -v ';[[:space:]]*$' |
	sed -E 's/^([^:]+):([0-9]+):[a-z_0-9 *]*[ *]([a-z_0-9]+_decode)\(.*/\1:\2:\3/' | sort -u)

if ((n == 0)); then
	echo "FAIL: found no *_decode function under $root/src: the pattern in $0 is stale"
	exit 1
fi
((fail)) && exit 1
echo "PASS: all $n decoders in src/ are compiled into a fuzz target and called by one: ${names[*]}"
