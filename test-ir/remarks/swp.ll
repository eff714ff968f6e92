; Remarks of simt-swp: @saxpy's loop (one block, counter of step 1 tested
; against an invariant bound, a multiply-add chain of several cycles) is
; pipelined; @stride2's is left, its counter stepping by 2; @until_zero's
; exit test compares with a value loaded in the loop.
; RUN: rm -f %t.yaml
; RUN: %simt-opt -passes='simt-swp<machine=itanium2>' -pass-remarks=simt-swp -pass-remarks-missed=simt-swp -disable-output %s 2>&1 | FileCheck %s --check-prefix=TEXT
; TEXT: remark: <unknown>:0:0: saxpy: loop %loop pipelined with II {{[1-9][0-9]*}} ({{[2-9]|[1-9][0-9]+}} stages)
; TEXT-NEXT: remark: <unknown>:0:0: stride2: loop %loop not pipelined: exit test is not on a counter of step 1
; TEXT-NEXT: remark: <unknown>:0:0: until_zero: loop %loop not pipelined: bound varies in the loop
;
; Passed remarks alone: no missed ones.
; RUN: %simt-opt -passes='simt-swp<machine=itanium2>' -pass-remarks=swp -disable-output %s 2>&1 | FileCheck %s --check-prefix=PASSED --implicit-check-not=remark:
; PASSED: remark: <unknown>:0:0: saxpy: loop %loop pipelined with II
;
; No flag, no remark (and a pattern that names another pass, none either).
; RUN: %simt-opt -passes='simt-swp<machine=itanium2>' -disable-output %s 2>&1 | count 0
; RUN: %simt-opt -passes='simt-swp<machine=itanium2>' -pass-remarks=memfwd -pass-remarks-missed=inline -disable-output %s 2>&1 | count 0
;
; The YAML file holds every remark, in LLVM's layout, without printing any.
; RUN: %simt-opt -passes='simt-swp<machine=itanium2>' -pass-remarks-output=%t.yaml -disable-output %s 2>&1 | count 0
; RUN: FileCheck %s --check-prefix=YAML < %t.yaml
; YAML:      --- !Passed
; YAML-NEXT: Pass:            simt-swp
; YAML-NEXT: Name:            Pipelined
; YAML-NEXT: Function:        saxpy
; YAML-NEXT: Args:
; YAML-NEXT:   - Function:        saxpy
; YAML-NEXT:   - String:          ': loop '
; YAML-NEXT:   - Loop:            '%loop'
; YAML-NEXT:   - String:          ' pipelined with II '
; YAML-NEXT:   - II:              '{{[0-9]+}}'
; YAML-NEXT:   - String:          ' ('
; YAML-NEXT:   - Stages:          '{{[0-9]+}}'
; YAML-NEXT:   - String:          ' stages)'
; YAML-NEXT: ...
; YAML-NEXT: --- !Missed
; YAML-NEXT: Pass:            simt-swp
; YAML-NEXT: Name:            NotPipelined
; YAML-NEXT: Function:        stride2
; YAML:        - Reason:          exit test is not on a counter of step 1
; YAML:      --- !Missed
; YAML:      Function:        until_zero
; YAML:        - Reason:          bound varies in the loop
; LLVM's own reader takes the file.
; RUN: llvm-remarkutil yaml2bitstream %t.yaml -o %t.bitstream
; RUN: llvm-remarkutil count --group-by=function %t.yaml | FileCheck %s --check-prefix=COUNT
; COUNT-DAG: saxpy,1
; COUNT-DAG: stride2,1
; COUNT-DAG: until_zero,1
;
; A file that cannot be made is an error naming it (exit 1), as opt's.
; RUN: not %simt-opt -passes='simt-swp<machine=itanium2>' -pass-remarks-output=%t.nodir/r.yaml -disable-output %s 2>&1 | FileCheck %s --check-prefix=NOFILE
; NOFILE: simt-opt: {{.*}}.nodir/r.yaml: error: No such file or directory
;
; The same through opt with the plugin: the remarks go through LLVM's
; diagnostics, so opt's own flags print them and its YAML stream is the same.
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-swp<machine=itanium2>' -pass-remarks=simt-swp -pass-remarks-missed=simt-swp -disable-output %s 2>&1 | FileCheck %s --check-prefix=TEXT
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-swp<machine=itanium2>' -pass-remarks=swp -disable-output %s 2>&1 | FileCheck %s --check-prefix=PASSED --implicit-check-not=remark:
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-swp<machine=itanium2>' -disable-output %s 2>&1 | count 0
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-swp<machine=itanium2>' -pass-remarks-output=%t.opt.yaml -disable-output %s
; RUN: diff %t.yaml %t.opt.yaml

define void @saxpy(ptr noalias %x, ptr noalias %y, float %a, i32 %n) {
entry:
  %nz = icmp sgt i32 %n, 0
  br i1 %nz, label %pre, label %exit

pre:
  br label %loop

loop:
  %i = phi i32 [ 0, %pre ], [ %i.next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %py = getelementptr inbounds float, ptr %y, i32 %i
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  store float %s, ptr %py
  %i.next = add nsw i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %done

done:
  br label %exit

exit:
  ret void
}

define void @stride2(ptr noalias %x, ptr noalias %y, float %a, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i32 %i
  %py = getelementptr inbounds float, ptr %y, i32 %i
  %vx = load float, ptr %px
  %m = fmul float %a, %vx
  store float %m, ptr %py
  %i.next = add nsw i32 %i, 2
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

define void @until_zero(ptr noalias %x, ptr noalias %y) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds i32, ptr %x, i32 %i
  %py = getelementptr inbounds i32, ptr %y, i32 %i
  %v = load i32, ptr %px
  %w = mul i32 %v, 3
  store i32 %w, ptr %py
  %i.next = add nsw i32 %i, 1
  %c = icmp slt i32 %i.next, %v
  br i1 %c, label %loop, label %exit

exit:
  ret void
}
