; The passes' names and options: listed by -print-passes; a wrong option is a
; usage error naming the valid ones, and nothing runs.
; RUN: %simt-opt -print-passes | FileCheck %s --check-prefix=LIST
; RUN: not %simt-opt -passes='simt-converge<divergent>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: not %simt-opt -passes='simt-strip-markers<all>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=STRIP
; RUN: not %simt-opt -passes='print<simt-convergence>,simt-converge<intrinsics=1>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=VALUE
; RUN: %python %tools/expect-exit.py 1 -- %simt-opt -passes='simt-converge<bogus>' -disable-output %s
; RUN: %simt-opt -passes='simt-converge<intrinsics;divergent-only>' -disable-output %s

; LIST: print<simt-convergence>
; LIST: simt-converge
; LIST-NEXT: <divergent-only>:
; LIST-NEXT: <intrinsics>:
; LIST: simt-strip-markers
; BAD: error: pass 'simt-converge': unknown or invalid option 'divergent' (expected divergent-only, intrinsics)
; STRIP: error: pass 'simt-strip-markers': takes no options, got 'all'
; VALUE-NOT: simt-convergence for function
; VALUE: error: pass 'simt-converge': unknown or invalid option 'intrinsics'

define void @f() {
  ret void
}
