#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The C sources keep to .clang-format: clang-format --dry-run finds nothing to change
# in any .c or .h file of src/ and tests/. It names each file that differs and the
# command that fixes it. tools/bootstrap --test installs clang-format. Each of them
# also opens with the project's SPDX license line (LICENSE), and every script carries it.
top=$1
command -v clang-format >/dev/null || { echo "FAIL: clang-format is missing (tools/bootstrap --test installs it)"; exit 1; }
cd "$top" || exit 1
mapfile -t files < <(find src tests -name '*.[ch]' -not -path '*/regress/*' | sort)
bad=() unlicensed=()
for f in "${files[@]}"; do
	clang-format --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
	IFS= read -r first <"$f"
	[ "$first" = "/* SPDX-License-Identifier: BSD-2-Clause */" ] || unlicensed+=("$f")
done
if ((${#unlicensed[@]})); then
	printf 'FAIL: %d of %d files do not open with "/* SPDX-License-Identifier: BSD-2-Clause */":\n' \
		"${#unlicensed[@]}" "${#files[@]}"
	printf '  %s\n' "${unlicensed[@]}"
	exit 1
fi
# The scripts too: every executable script (#!) under tools/, bench/ and tests/ and every
# sourced one (lib.sh and the like, rbdoc's modules, bench definitions) names the licence
# in its first lines.
mapfile -t scripts < <(git ls-files tools bench tests | grep -v '/regress/' | while read -r f; do
	[ -f "$f" ] || continue
	case $f in
	*lib.sh | */common.sh | */fabric.sh | */slurm.sh | tools/lib/*.py | *.def) echo "$f" ;;
	*) [ "$(head -c 2 "$f")" = '#!' ] && echo "$f" ;;
	esac
done)
noline=()
for f in "${scripts[@]}"; do
	head -n 3 "$f" | grep -qx '# SPDX-License-Identifier: BSD-2-Clause' || noline+=("$f")
done
if ((${#noline[@]})); then
	printf 'FAIL: %d of %d scripts lack "# SPDX-License-Identifier: BSD-2-Clause" in their first 3 lines:\n' \
		"${#noline[@]}" "${#scripts[@]}"
	printf '  %s\n' "${noline[@]}"
	exit 1
fi
if ((${#bad[@]})); then
	printf 'FAIL: %d of %d files differ from .clang-format:\n' "${#bad[@]}" "${#files[@]}"
	printf '  %s\n' "${bad[@]}"
	echo "fix: clang-format -i ${bad[*]}"
	exit 1
fi
echo "PASS: all ${#files[@]} C files keep to .clang-format and carry the SPDX line, and so do ${#scripts[@]} scripts"
