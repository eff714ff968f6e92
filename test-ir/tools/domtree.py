#!/usr/bin/env python3
"""Normalises dominator / post-dominator tree printouts to sorted lines.

Reads, on stdin, either LLVM's `opt -passes='print<domtree>'` /
`print<postdomtree>` output or simt's `print<simt-domtree>` /
`print<simt-postdomtree>` output, and writes one line per block:

    <function>: idom %b = %a        (domtree; the root gets <root>)
    <function>: ipdom %b = %c       (postdomtree; LLVM's <<exit node>> -> <exit>)

sorted, so `diff` compares the two trees and nothing else.

LLVM leaves blocks unreachable from the entry out of the dominator tree;
simt prints them as `<unreachable>`. Those lines are dropped here (other
tests check them). Any other simt line (e.g. `infinite-loop roots:`) is kept,
so it shows up as a difference.
"""
import re
import sys

LLVM_HEADER = re.compile(r"^(Post)?DominatorTree for function: (.*)$")
SIMT_HEADER = re.compile(r"^simt-(post)?domtree for function '(.*)':$")
LLVM_NODE = re.compile(r"^\s*\[(\d+)\]\s+(.*?)\s+\{[-0-9]+,[-0-9]+\} \[\d+\]\s*$")


def main():
    out = []
    fn = None
    post = False
    stack = []  # stack[level-1] = block name at that tree level
    simt = False
    seen = False
    for raw in sys.stdin:
        line = raw.rstrip("\n")
        m = LLVM_HEADER.match(line)
        if m:
            post, fn, simt, stack = bool(m.group(1)), m.group(2), False, []
            seen = True
            continue
        m = SIMT_HEADER.match(line)
        if m:
            post, fn, simt = bool(m.group(1)), m.group(2), True
            seen = True
            continue
        if fn is None:
            continue
        kw = "ipdom" if post else "idom"
        if simt:
            text = line.strip()
            if not text:
                continue
            if text.endswith("= <unreachable>"):
                continue
            out.append(f"{fn}: {text}")
            continue
        m = LLVM_NODE.match(line)
        if not m:
            continue
        level, name = int(m.group(1)), m.group(2)
        if name == "<<exit node>>":
            name = "<exit>"
        del stack[level - 1:]
        stack.append(name)
        if name == "<exit>":
            continue
        if level == 1:
            parent = "<root>"
        else:
            parent = stack[level - 2]
        out.append(f"{fn}: {kw} {name} = {parent}")
    if not seen:
        sys.exit("domtree.py: no dominator tree printout on stdin")
    for line in sorted(out):
        print(line)


if __name__ == "__main__":
    main()
