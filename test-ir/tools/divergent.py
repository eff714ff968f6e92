#!/usr/bin/env python3
"""Keeps the divergence verdicts of a uniformity printout, in one form.

Works on LLVM's `print<uniformity>` and simt's `print<simt-uniformity>`.
Kept, each prefixed with its function so that the same text in two
functions is not confused:

- instruction lines, `DIVERGENT:   <instruction>` in both printers;
- divergent arguments, which LLVM lists as `  DIVERGENT: <type> %a` under
  `DIVERGENT ARGUMENTS:` and simt as `  DIVERGENT ARGUMENT: %a`; both
  become `ARGUMENT %a`, sorted by name and put before the function's
  instructions (LLVM's order of the arguments is not their position).

Everything else (block headers, cycle lists, simt's summary lines) is
dropped. Instruction lines keep their order (both printers walk blocks in
layout order and instructions in block order); blanks around them are
stripped. Unlike `grep`, an empty result is not an error (but input with
no printout at all is).
"""
import re
import sys

HEADER = re.compile(r"^(?:UniformityInfo|simt-uniformity) for function '(.*)':$")


def main():
    fn = None
    seen = False
    in_llvm_args = False
    args, insts = [], []

    def flush():
        for a in sorted(args):
            print(f"{fn}: ARGUMENT {a}")
        for i in insts:
            print(f"{fn}: {i}")
        args.clear()
        insts.clear()

    for raw in sys.stdin:
        line = raw.rstrip()
        m = HEADER.match(line)
        if m:
            flush()
            fn, seen, in_llvm_args = m.group(1), True, False
            continue
        text = line.strip()
        if text == "DIVERGENT ARGUMENTS:":
            in_llvm_args = True
            continue
        if in_llvm_args:
            m = re.match(r"^DIVERGENT: \S.* (%\S+)$", text)
            if m and not text.startswith("DIVERGENT:   "):
                args.append(m.group(1))
                continue
            in_llvm_args = False
        m = re.match(r"^DIVERGENT ARGUMENT: (%\S+)$", text)
        if m:
            args.append(m.group(1))
            continue
        if text.startswith("DIVERGENT:"):
            insts.append(text)
    flush()
    if not seen:
        sys.exit("divergent.py: no uniformity printout on stdin")


if __name__ == "__main__":
    main()
