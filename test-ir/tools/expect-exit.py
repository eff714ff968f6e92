#!/usr/bin/env python3
"""expect-exit.py CODE -- CMD ARGS...: run CMD, succeed iff it exits with CODE.

lit's `not` only says "failed"; the tools promise exit 1 for errors and 2 for
usage mistakes, and a signal (a crash) must never count as either.
"""
import subprocess
import sys

want = int(sys.argv[1])
assert sys.argv[2] == "--", "usage: expect-exit.py CODE -- CMD..."
got = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
if got != want:
    sys.exit(f"expected exit code {want}, got {got}: {' '.join(sys.argv[3:])}")
