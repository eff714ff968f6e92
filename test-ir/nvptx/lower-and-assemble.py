#!/usr/bin/env python3
"""lower-and-assemble.py SIMT_OPT PTXAS OUTDIR KERNELDIR: lower every kernel
.ll (OpenCL *.ll through simt-to-nvptx, CUDA *.cu.ll as they are) to PTX for
sm_70, sm_80 and sm_90 and assemble each with ptxas; print one line per
failure and a summary. Exit 1 on any failure."""
import glob
import os
import subprocess
import sys

simt_opt, ptxas, out, kernels = sys.argv[1:5]
ok = total = 0
for ll in sorted(glob.glob(os.path.join(kernels, "*.ll"))):
    name = os.path.basename(ll)
    if name.startswith("invalid"):
        continue  # a deliberately wrong kernel, tested elsewhere
    cuda = name.endswith(".cu.ll")
    passes = "default<O2>" if cuda else "always-inline,simt-lower-ocl-builtins,simt-to-nvptx,default<O2>"
    for sm in ("sm_70", "sm_80", "sm_90"):
        total += 1
        ptx = os.path.join(out, f"{name}.{sm}.ptx")
        lower = subprocess.run([simt_opt, f"-passes={passes}", f"-mcpu={sm}", "--filetype=asm", ll, "-o", ptx],
                               capture_output=True, text=True)
        if lower.returncode != 0:
            print(f"FAIL lower {name} {sm}: {lower.stderr.strip()}")
            continue
        asm = subprocess.run([ptxas, f"-arch={sm}", ptx, "-o", ptx + ".cubin"], capture_output=True, text=True)
        if asm.returncode != 0:
            print(f"FAIL ptxas {name} {sm}: {asm.stderr.strip()}")
            continue
        ok += 1
print(f"ptxas accepted {ok} of {total}")
sys.exit(0 if ok == total else 1)
