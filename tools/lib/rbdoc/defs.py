# SPDX-License-Identifier: BSD-2-Clause
"""The one reader of the suite's definition files, with each format's rules as data.

  format  files                    read by             a line
  sweep   bench/sweeps/*.sweep     tools/sweep         KEY = VALUE
  plan    bench/campaign/*.plan    tools/campaign      KEY = VALUE, or [TOOL] opening a section
  cmp     bench/defs/*.cmp         bench/vs_reference  KEY VALUE
  scale   bench/defs/scale*.def    bench/scale         KEY=VALUE, the value one shell word

What they share: one setting a line (no continuation lines); '#' starts a comment
wherever it stands, inside quotes too; blank lines and comments are skipped; the key
and the value are stripped of spaces, and a value is never empty (a scale value ""
is the shell's empty word, not an empty value). In a format with sections, [NAME]
alone on a line opens one, and the file needs one at least.

What each has of its own is a Format below: the keys allowed (at the top and in a
section), each key's type (what it allows and what it reads to), whether a line sets
the key (the last one wins) or adds to its list, the keys required and the defaults.
read() gives a plain dict (the sections as a list of dicts under "sections"); a file
that breaks a rule raises DefError, whose text names the file, the line, the bad
value and what is allowed.

  python3 -m rbdoc.defs scale FILE

prints a scale definition as shell assignments, every key (an optional one with its
default), for bench/scale to eval; a bad file: why on stderr, exit 2.
"""
import re
import shlex
import sys


class DefError(ValueError):
    """A definition file that cannot be read or breaks its format's rules."""


class Type:
    """What a value may be: ALLOWED says it in words (for errors); READ(text) gives the
    value, or raises ValueError (with a detail, or none) when the text is not allowed."""

    def __init__(self, allowed, read):
        self.allowed = allowed
        self.read = read


class Key:
    """A key of a format. HOW a line of it counts: "set" (the last line wins), "add"
    (its value, a list, is added to the key's list) or "append" (its value is one more
    item of the key's list). REQUIRED: the file must set it (a list: not leave it
    empty). DEFAULT: a "set" key's value when no line sets it (a list starts empty)."""

    def __init__(self, type, how="set", required=False, default=None):
        self.type = type
        self.how = how
        self.required = required
        self.default = default


class Format:
    """A definition format. SEPARATOR between the key and the value: "=", or None for
    spaces. KEYS: {name: Key} at the top of the file. SECTIONS: the Type of a
    section's name, or None for a format without sections; SECTION_KEYS the keys
    inside one, SECTION the name its name goes by (a key of each section's dict). WORD:
    what the format calls a key, in errors. READER: the program that reads it."""

    def __init__(self, reader, separator, keys, sections=None, section_keys=None, section="section", word="key"):
        self.reader = reader
        self.separator = separator
        self.keys = keys
        self.sections = sections
        self.section_keys = section_keys or {}
        self.section = section
        self.word = word


# ---------------------------------------------------------------- types
def integer(low, high=None):
    """A decimal integer from LOW (to HIGH), read as an int."""
    allowed = "an integer >= %d" % low if high is None else "an integer %d..%d" % (low, high)

    def read(text):
        if not text.isdecimal() or int(text) < low or (high is not None and int(text) > high):
            raise ValueError()
        return int(text)
    return Type(allowed, read)


def choice(names, why=""):
    """One of NAMES (WHY, if any, added to the list in errors)."""
    def read(text):
        if text not in names:
            raise ValueError()
        return text
    return Type(", ".join(names) + why, read)


def _on_off(text):
    if text not in ("on", "off"):
        raise ValueError()
    return text == "on"


def _sizes(text):
    sizes = text.replace(",", " ").split()
    if not sizes:
        raise ValueError()
    return sizes


def _vary(text):
    words = shlex.split(text)
    if len(words) < 2:
        raise ValueError()
    return (words[0], words[1:])


def _case(text):
    parts = [p.strip() for p in text.split(";")]
    head = parts[0].split()
    if len(parts) != 3 or len(head) != 2:
        raise ValueError()
    return {"label": head[0], "size": head[1], "ours": shlex.split(parts[1]), "anchor": shlex.split(parts[2])}


TEXT = Type("any text", str)
WORDS = Type("names separated by spaces", str.split)
SIZES = Type("sizes separated by spaces or commas", _sizes)
ARGS = Type("arguments, quoted as in a shell", shlex.split)
VARY = Type("an option, then one value or more", _vary)
ON_OFF = Type("on, off", _on_off)
CASE = Type("LABEL SIZE ; OURS ARGS ; ANCHOR ARGS", _case)


def shell_word(pattern, allowed, many=False):
    """One shell word ("1 4 16", 4096, ""), read as the text the shell makes of it:
    a word matching PATTERN, or with MANY any number of them separated by spaces."""
    def read(text):
        words = shlex.split(text)
        if len(words) != 1:
            raise ValueError("one shell word: quote it")
        parts = words[0].split()
        if (len(parts) != 1 and not many) or not all(re.fullmatch(pattern, p) for p in parts):
            raise ValueError()
        return words[0]
    return Type(allowed, read)


# ---------------------------------------------------------------- the formats
# A plan's [TOOL]: the tools whose servers rdma_doctor --serve runs, at its port + N.
SERVED = {"rc_write_bw": 1, "socket_bw": 2}
# A .cmp's ours, anchor and metric (and which way the metric is better).
OURS = ("rc_write_bw", "rc_write_lat", "socket_bw", "fifo_pingpong")
ANCHORS = ("ib_write_bw", "ib_write_lat", "iperf3") + OURS
METRICS = {"bw_avg_gbps": "higher", "msg_rate_mpps": "higher", "lat_p50_us": "lower"}

INT = shell_word(r"[0-9]+", "an integer")
INTS = shell_word(r"[0-9]+", "integers separated by spaces", many=True)

FORMATS = {
    "sweep": Format("tools/sweep", "=", {
        "tools": Key(WORDS, "add", required=True),
        "sizes": Key(SIZES, "add", required=True),
        "vary": Key(VARY, "append"),
        "flag": Key(ARGS, "add"),
        "args": Key(ARGS, "add"),
    }),
    "plan": Format("tools/campaign", "=", {
        "repeat": Key(integer(1, 100), default=1),
        "duration": Key(integer(1, 100), default=2),
    }, sections=choice(SERVED, ": the tools rdma_doctor --serve runs servers for"), section="tool", section_keys={
        "sizes": Key(SIZES, "add", required=True),
        "vary": Key(VARY, "append"),
        "flag": Key(ARGS, "add"),
        "args": Key(ARGS, "add"),
        "verify": Key(ON_OFF, default=True),
    }),
    "cmp": Format("bench/vs_reference", None, {
        "name": Key(TEXT, required=True),
        "ours": Key(choice(OURS), required=True),
        "anchor": Key(choice(ANCHORS), required=True),
        "metric": Key(choice(METRICS), required=True),
        "rounds": Key(integer(1), default=5),
        "case": Key(CASE, "append", required=True),
    }, word="directive"),
    "scale": Format("bench/scale", "=", {
        "name": Key(shell_word(r"[A-Za-z0-9_.-]+", "a name for results/NAME-DATE.csv"), required=True),
        "size": Key(INT, required=True),
        "iters": Key(INT, required=True),
        "qps": Key(INTS, required=True),
        "depths": Key(INTS, required=True),
        "qps_depth": Key(INT, required=True),
        "depth_sweep": Key(INTS, required=True),
        "repeats": Key(INT, required=True),
        "rc_args": Key(shell_word(r"[^'\"$`\\]+", "rc_write_bw options, no quotes, $, ` or \\", many=True),
                       default=""),
        "fifo_points": Key(shell_word(r"[0-9]+x[0-9]+", "QxT points separated by spaces", many=True), default=""),
        "lat_points": Key(shell_word(r"[0-9]+[A-Za-z]*x[0-9]+", "SIZExN points separated by spaces", many=True),
                          default=""),
    }),
}


# ---------------------------------------------------------------- the reader
def lines(path):
    """(line number, text) of each line of the file at PATH that holds more than a
    comment, the comment cut off and the text stripped."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise DefError("cannot read %s: %s" % (path, e.strerror)) from None
    except UnicodeDecodeError:
        raise DefError("cannot read %s: not text" % path) from None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield no, line


def _start(keys):
    """A dict with each key's value before the first line: a list's [], a default."""
    start = {}
    for name, key in keys.items():
        if key.how != "set":
            start[name] = []
        elif key.default is not None:
            start[name] = key.default
    return start


def _value(type, name, text, at):
    if not text:
        raise DefError("%s: invalid %s '' (allowed: %s)" % (at, name, type.allowed))
    try:
        return type.read(text)
    except ValueError as e:
        why = "; %s" % e if str(e) else ""
        raise DefError("%s: invalid %s '%s' (allowed: %s%s)" % (at, name, text, type.allowed, why)) from None


def _missing(keys, got):
    """The first required key of KEYS that GOT lacks (or has empty), or None."""
    return next((k for k, key in keys.items() if key.required and got.get(k, []) == []), None)


def read(fmt, path):
    """The definition file at PATH, of format FMT (a name in FORMATS), as a dict."""
    f = FORMATS[fmt]
    top = _start(f.keys)
    sections = []  # (line number, the section's dict)
    form = "'KEY = VALUE'" if f.separator == "=" else "'KEY VALUE'"
    if f.sections:
        form += " or '[%s]'" % f.section.upper()
    for no, line in lines(path):
        at = "%s:%d" % (path, no)
        if f.sections and line.startswith("[") and line.endswith("]"):
            here = _start(f.section_keys)
            here[f.section] = _value(f.sections, f.section, line[1:-1].strip(), at)
            sections.append((no, here))
            continue
        if f.separator:
            key, sep, text = (s.strip() for s in line.partition(f.separator))
        else:  # "KEY VALUE": the key ends at the first space; a key alone has an empty value
            key, _, text = line.partition(" ")
            sep, text = " ", text.strip()
        if not sep or not key:
            raise DefError("%s: expected %s, got '%s'" % (at, form, line))
        keys, into, where = f.keys, top, ""
        if sections:
            keys, into = f.section_keys, sections[-1][1]
            where = " in [%s]" % into[f.section]
        elif f.sections:
            where = " before the first [%s]" % f.section.upper()
        if key not in keys:
            raise DefError("%s: unknown %s '%s'%s (allowed: %s)" % (at, f.word, key, where, ", ".join(keys)))
        value = _value(keys[key].type, key, text, at)
        if keys[key].how == "set":
            into[key] = value
        elif keys[key].how == "add":
            into[key] += value
        else:
            into[key].append(value)
    missing = _missing(f.keys, top)
    if missing:
        raise DefError("%s: no '%s' line" % (path, missing))
    if f.sections:
        if not sections:
            raise DefError("%s: no [%s] section (allowed: %s)" % (path, f.section.upper(), f.sections.allowed))
        for no, here in sections:
            missing = _missing(f.section_keys, here)
            if missing:
                raise DefError("%s:%d: no '%s' line in [%s]" % (path, no, missing, here[f.section]))
        top["sections"] = [here for _, here in sections]
    return top


def main(argv):
    """python3 -m rbdoc.defs scale FILE: FILE's settings as shell assignments."""
    if len(argv) != 2 or argv[0] != "scale":
        print("usage: python3 -m rbdoc.defs scale FILE", file=sys.stderr)
        return 2
    try:
        d = read(argv[0], argv[1])
    except DefError as e:
        print("%s: %s" % (FORMATS[argv[0]].reader, e), file=sys.stderr)
        return 2
    for key in FORMATS[argv[0]].keys:
        print("%s=%s" % (key, shlex.quote(d[key])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
