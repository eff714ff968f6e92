#!/usr/bin/env python3
"""block-ratio.py IN.ll OUT.ll MAX: succeed iff OUT has at most MAX times the
basic blocks of IN (counted in function bodies: the entry block, unlabelled or
not, and every label), printing both counts.

For passes whose output must stay within a constant factor of their input
(simt-wiloops' linear form), where FileCheck can only count fixed patterns.
"""
import re
import sys

LABEL = re.compile(r"^([-$.\w]+|\"[^\"]*\"):")


def blocks(path):
    n, in_body, first = 0, False, False
    for line in open(path, encoding="utf-8"):
        if line.startswith("define "):
            in_body, first = True, True
        elif in_body and line.startswith("}"):
            in_body = False
        elif in_body and line.strip() and not line.lstrip().startswith(";"):
            if LABEL.match(line):
                n += 1
            elif first:
                n += 1  # an unlabelled entry block
            first = False
    return n


if len(sys.argv) != 4:
    sys.exit("usage: block-ratio.py IN.ll OUT.ll MAX")
src, out, limit = blocks(sys.argv[1]), blocks(sys.argv[2]), float(sys.argv[3])
print(f"blocks: {src} in, {out} out ({out / max(src, 1):.2f}x, at most {limit}x)")
if out > limit * src:
    sys.exit(1)
