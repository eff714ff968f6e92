#!/usr/bin/env python3
"""closed-stdout.py CMD ARGS...: run CMD with stdout the write end of a pipe
whose read end is already closed, as `CMD | head -0` would be once head has
gone, but without the race; exit with CMD's exit code (128+N for signal N)."""
import os
import subprocess
import sys

r, w = os.pipe()
os.close(r)
code = subprocess.run(sys.argv[1:], stdout=w).returncode
sys.exit(128 - code if code < 0 else code)
