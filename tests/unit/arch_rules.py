#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The tree's architecture rules, checked (suite unit).

usage: arch_rules.py SOURCE_ROOT LIBRARY_ARCHIVE
       arch_rules.py --write-readme SOURCE_ROOT   (the room table's counts made the tree's)

  faces     an include across rooms (src/lib/ROOM/, or a tool's folder) names the
            room's face, ROOM/ROOM.h
  tools     the library branches on no tool: no string literal in src/lib code is a
            tool's name
  guards    a header's include guard names its path: RB_STEM_H in the library
            (RB_ROOM_FACE_H for a face), RB_TOOL_STEM_H in a tool's folder
  symbols   every global symbol the library archive defines starts with rb_
  readme    src/README.md's room table gives each room's files and lines as the tree has them
  messages  frame numbers: the library's below RB_MSG_TOOL_FIRST, a tool's from it up,
            each number once in the project
  sizes     no source file above 600 lines, no function above 120
  steps     a step's end is the bandwidth engine's: outside oob/ and run/bwstep.c no
            code sends, takes or holds a DONE itself

Prints each broken rule's findings and exits 1 when any rule is broken.
"""
import glob
import os
import re
import subprocess
import sys

ROOMS = ["base", "host", "gpu", "oob", "measure", "verbs", "report", "run", "fabric"]
TOOLS = ["rc_write_bw", "rc_write_lat", "fifo_pingpong", "socket_bw", "rdma_doctor"]
MAX_FILE, MAX_FUNC = 600, 120


def sources(root, ext="[ch]"):
    return sorted(glob.glob(os.path.join(root, "src", "**", "*." + ext), recursive=True))


def rel(root, f):
    return os.path.relpath(f, root)


def owner(path):
    """The room (src/lib/ROOM/...) or the tool folder (src/TOOL/...) a file is in."""
    parts = path.split(os.sep)
    return parts[2] if parts[1] == "lib" else parts[1]


def strip_comments(text):
    """C comments blanked (line count kept); string literals stay."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def rule_faces(root):
    bad = []
    for f in sources(root):
        r = rel(root, f)
        for n, line in enumerate(open(f), 1):
            m = re.match(r'\s*#\s*include\s+"(\w+)/([\w.]+)"', line)
            if m and m.group(1) in ROOMS and m.group(1) != owner(r) and m.group(2) != m.group(1) + ".h":
                bad.append(f"{r}:{n}: includes {m.group(1)}/{m.group(2)}, not the face {m.group(1)}/{m.group(1)}.h")
    return bad


def rule_tools(root):
    bad = []
    for f in sources(root):
        r = rel(root, f)
        if not r.startswith(os.path.join("src", "lib")):
            continue
        code = strip_comments(open(f).read())
        for n, line in enumerate(code.split("\n"), 1):
            for lit in re.findall(r'"([^"\\]*)"', line):
                if lit in TOOLS:
                    bad.append(f'{r}:{n}: the library names the tool "{lit}" in its code')
    return bad


def want_guard(r):
    parts = r.split(os.sep)
    stem = os.path.splitext(parts[-1])[0].upper()
    if parts[1] == "lib":
        return f"RB_{parts[2].upper()}_FACE_H" if parts[-1] == parts[2] + ".h" else f"RB_{stem}_H"
    return f"RB_{parts[1].upper()}_{stem}_H"


def rule_guards(root):
    bad = []
    for f in sources(root, "h"):
        r = rel(root, f)
        m = re.search(r"#ifndef\s+(\w+)\s*\n#define\s+(\w+)", open(f).read())
        got = m.group(1) if m and m.group(1) == m.group(2) else None
        if got != want_guard(r):
            bad.append(f"{r}: include guard {got}, expected {want_guard(r)}")
    return bad


def rule_symbols(archive):
    try:
        out = subprocess.run(["nm", "-g", "--defined-only", archive], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return [f"{archive}: nm failed: {e}"]
    bad = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBRV" and not p[2].startswith("rb_"):
            bad.append(f"{os.path.basename(archive)}: global symbol {p[2]} lacks the rb_ prefix")
    return sorted(set(bad))


def kilo(lines):
    return f"{lines / 1000:.1f} K"


def room_counts(root, room):
    files = sorted(glob.glob(os.path.join(root, "src", "lib", room, "*.[ch]")))
    return f"{len(files)}, {kilo(sum(sum(1 for _ in open(f)) for f in files))}"


def rule_readme(root, write=False):
    path = os.path.join(root, "src", "README.md")
    text = open(path).read()
    bad = []
    for room in ROOMS:
        want = room_counts(root, room)
        row = re.compile(r"^(\| `" + room + r"/` \| )([^|]*)( \|)", re.M)
        m = row.search(text)
        if not m:
            bad.append(f"src/README.md: no row for the room {room}/")
        elif m.group(2).strip() != want:
            bad.append(f"src/README.md: {room}/ says '{m.group(2).strip()}', the tree has '{want}' "
                       "(tests/unit/arch_rules.py --write-readme .)")
            text = row.sub(lambda x: x.group(1) + want + x.group(3), text)
    if write:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return bad


def rule_messages(root):
    wire = open(os.path.join(root, "src", "lib", "oob", "wire.h")).read()
    first = int(re.search(r"#define RB_MSG_TOOL_FIRST\s+(\d+)", wire).group(1))
    end = int(re.search(r"#define RB_MSG_TYPE_END\s+(\d+)", wire).group(1))
    seen, bad = {}, []
    for f in sources(root, "h"):
        r = rel(root, f)
        lib = r.startswith(os.path.join("src", "lib"))
        for name, num in re.findall(r"\b([A-Z]+_MSG_[A-Z_]+)\s*=\s*(\d+)", strip_comments(open(f).read())):
            num = int(num)
            if num in seen:
                bad.append(f"{r}: {name} = {num}, the number of {seen[num]}")
            seen[num] = name
            if lib and not 0 < num < first:
                bad.append(f"{r}: the library's {name} = {num}, outside 1..{first - 1}")
            if not lib and not first <= num < end:
                bad.append(f"{r}: a tool's {name} = {num}, outside {first}..{end - 1}")
    return bad


def functions(text):
    """(name, first line, lines) of each function defined at the file's top level."""
    lines, out = text.split("\n"), []
    start = name = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            j = i - 1
            while j > 0 and not re.match(r"^[A-Za-z_].*\(", lines[j]):
                j -= 1
            m = re.search(r"(\w+)\s*\(", lines[j])
            start, name = j, m.group(1) if m else "?"
        elif line == "}" and start is not None:
            out.append((name, start + 1, i - start + 1))
            start = None
    return out


def rule_sizes(root):
    bad = []
    for f in sources(root):
        r = rel(root, f)
        text = open(f).read()
        n = text.count("\n")
        if n > MAX_FILE:
            bad.append(f"{r}: {n} lines, more than {MAX_FILE}")
        for name, line, size in functions(text) if f.endswith(".c") else []:
            if size > MAX_FUNC:
                bad.append(f"{r}:{line}: {name}() is {size} lines, more than {MAX_FUNC}")
    return bad


def rule_steps(root):
    bad = []
    allowed = (os.path.join("src", "lib", "oob") + os.sep, os.path.join("src", "lib", "run", "bwstep.c"))
    for f in sources(root):
        r = rel(root, f)
        if r.startswith(allowed):
            continue
        code = strip_comments(open(f).read())
        for n, line in enumerate(code.split("\n"), 1):
            m = re.search(r"\b(rb_stepend_(?:send|take|accept|hold)|RB_MSG_DONE)\b", line)
            if m:
                bad.append(f"{r}:{n}: {m.group(1)} outside the bandwidth engine (run/bwstep.h)")
    return bad


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write-readme":
        rule_readme(sys.argv[2], write=True)
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    root, archive = sys.argv[1], sys.argv[2]
    rules = [("faces", rule_faces(root)), ("tools", rule_tools(root)), ("guards", rule_guards(root)),
             ("symbols", rule_symbols(archive)), ("readme", rule_readme(root)),
             ("messages", rule_messages(root)), ("sizes", rule_sizes(root)), ("steps", rule_steps(root))]
    broken = 0
    for name, bad in rules:
        print(f"{name:9} {'ok' if not bad else f'{len(bad)} broken'}")
        for b in bad:
            print("  " + b)
        broken += bool(bad)
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
