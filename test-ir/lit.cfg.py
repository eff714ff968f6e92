# lit configuration for simt's IR tests. Run with LLVM 22's lit:
#   /usr/lib/llvm-22/bin/lit -sv test-ir
import os
import sys

import lit.formats

config.name = "simt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll", ".test", ".ddg"]
config.excludes = ["Inputs", "tools", "examples"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

root = os.path.dirname(config.test_source_root)
simt_bin = os.environ.get("SIMT_BIN", os.path.join(root, "target", "debug"))
llvm_bin = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([simt_bin, llvm_bin, os.environ.get("PATH", "")])
# scripts/test sets it: every pipeline recomputes its cached analyses after
# each pass and compares (a stale analysis is a test failure).
if "SIMT_VERIFY_ANALYSES" in os.environ:
    config.environment["SIMT_VERIFY_ANALYSES"] = os.environ["SIMT_VERIFY_ANALYSES"]

config.substitutions.append(("%simt-opt", os.path.join(simt_bin, "simt-opt")))
config.substitutions.append(("%opt", os.path.join(llvm_bin, "opt")))
# simt's passes as an LLVM pass plugin (crate plugin/, a workspace member that
# `cargo build --workspace` builds), for `opt -load-pass-plugin=%simt_plugin`.
config.substitutions.append(("%simt_plugin", os.path.join(simt_bin, "libsimt_plugin.so")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tools", os.path.join(config.test_source_root, "tools")))
# ptxas from scripts/setup (PyPI nvidia-cuda-nvcc-cu12); SIMT_PTXAS overrides.
ptxas = os.environ.get("SIMT_PTXAS", os.path.join(root, ".tools", "bin", "ptxas"))
config.substitutions.append(("%ptxas", ptxas))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "examples")))
