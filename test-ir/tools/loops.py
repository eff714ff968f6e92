#!/usr/bin/env python3
"""Normalises LLVM's `print<loops>` and simt's `print<simt-loops>` output.

Each `Loop at depth N containing: %h<header>,%b<latch><exiting>,...` line
becomes

    <function>: depth N: header %h: <tagged blocks, sorted>

and the lines are sorted: the two tools list a loop's blocks in different
orders (LLVM in discovery order, simt in layout order) and nest the loops
differently on the page. simt's extra `exits:` lines are dropped; its
`Irreducible cycle` lines are kept (LLVM's print<loops> has none), so a
comparison file that unexpectedly has one shows up as a difference, unless
`--ignore-irreducible` is given.
"""
import re
import sys

LLVM_HEADER = re.compile(r"^Loop info for function '(.*)':$")
SIMT_HEADER = re.compile(r"^simt-loops for function '(.*)':$")
LOOP = re.compile(r"Loop at depth (\d+) containing: (.*)$")


def main():
    ignore_irreducible = "--ignore-irreducible" in sys.argv[1:]
    out = []
    fn = None
    seen = False
    # LLVM does not end its last loop line with a newline, so the next
    # function's header can be glued to it: split those apart first.
    text = sys.stdin.read()
    text = re.sub(r"(?<!\n)(Loop at depth|Loop info for function|simt-loops for function)", r"\n\1", text)
    for raw in text.splitlines():
        line = raw.strip()
        m = LLVM_HEADER.match(line) or SIMT_HEADER.match(line)
        if m:
            fn = m.group(1)
            seen = True
            continue
        if fn is None or not line or line.startswith("exits:"):
            continue
        m = LOOP.match(line)
        if not m:
            if ignore_irreducible and line.startswith("Irreducible cycle"):
                continue
            out.append(f"{fn}: {line}")
            continue
        depth, items = m.group(1), m.group(2).split(",")
        header = [i for i in items if "<header>" in i]
        hname = header[0].split("<")[0] if header else "?"
        out.append(f"{fn}: depth {depth}: header {hname}: {' '.join(sorted(items))}")
    if not seen:
        sys.exit("loops.py: no loop info printout on stdin")
    for line in sorted(out):
        print(line)


if __name__ == "__main__":
    main()
