; Remarks of simt-memfwd and simt-memdse: @fwd reads back as one i64 the two
; halves it just stored (one load forwarded, not through a phi), which leaves
; its two stores to the alloca dead for simt-memdse; @dse stores to
; @g twice with nothing reading between (the first is dead) and to an alloca
; nobody reads (dead); @keep's store and load cannot go and say nothing.
; RUN: rm -f %t.yaml
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -pass-remarks='simt-mem' -disable-output %s 2>&1 | FileCheck %s --check-prefix=TEXT --implicit-check-not=remark:
; TEXT:      remark: <unknown>:0:0: fwd: forwarded 1 loads (0 through a phi)
; TEXT-NEXT: remark: <unknown>:0:0: fwd: removed 2 dead stores
; TEXT-NEXT: remark: <unknown>:0:0: dse: removed 2 dead stores
;
; Each pass's own pattern picks only its remarks.
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -pass-remarks='^simt-memdse$' -disable-output %s 2>&1 | FileCheck %s --check-prefix=DSE --implicit-check-not=remark:
; DSE:      remark: <unknown>:0:0: fwd: removed 2 dead stores
; DSE-NEXT: remark: <unknown>:0:0: dse: removed 2 dead stores
;
; No flag: nothing printed; <stats> still prints its counts, as before.
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -disable-output %s 2>&1 | count 0
; RUN: %simt-opt -passes='simt-memfwd<stats>,simt-memdse<stats>' -disable-output %s 2>&1 | FileCheck %s --check-prefix=STATS --implicit-check-not=remark:
; STATS: simt-memfwd: 'fwd': forwarded 1 loads (0 through a phi)
; STATS: simt-memdse: 'fwd': removed 2 dead stores
; STATS: simt-memdse: 'dse': removed 2 dead stores
;
; YAML, filtered to one pass by -pass-remarks-filter.
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -pass-remarks-output=%t.yaml -disable-output %s
; RUN: FileCheck %s --check-prefix=YAML < %t.yaml
; YAML:      --- !Passed
; YAML-NEXT: Pass:            simt-memfwd
; YAML-NEXT: Name:            LoadsForwarded
; YAML-NEXT: Function:        fwd
; YAML-NEXT: Args:
; YAML-NEXT:   - Function:        fwd
; YAML-NEXT:   - String:          ': forwarded '
; YAML-NEXT:   - NumLoads:        '1'
; YAML:      --- !Passed
; YAML-NEXT: Pass:            simt-memdse
; YAML-NEXT: Name:            DeadStoresRemoved
; YAML-NEXT: Function:        fwd
; YAML:      --- !Passed
; YAML-NEXT: Pass:            simt-memdse
; YAML-NEXT: Name:            DeadStoresRemoved
; YAML-NEXT: Function:        dse
; YAML:        - NumStores:       '2'
; YAML-NEXT:   - String:          ' dead stores'
; YAML-NEXT: ...
; YAML-NOT:  ---
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -pass-remarks-output=%t.yaml -pass-remarks-filter=memdse -disable-output %s
; RUN: FileCheck %s --check-prefix=FILTER --implicit-check-not=simt-memfwd < %t.yaml
; FILTER: Pass:            simt-memdse
;
; The same through opt with the plugin, LLVM's instcombine after (it
; has nothing to remark here).
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-memfwd,simt-memdse,instcombine' -pass-remarks='simt-mem' -disable-output %s 2>&1 | FileCheck %s --check-prefix=TEXT --implicit-check-not=remark:
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-memfwd,simt-memdse' -disable-output %s 2>&1 | count 0
; RUN: %simt-opt -passes='simt-memfwd,simt-memdse' -pass-remarks-output=%t.yaml -disable-output %s
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-memfwd,simt-memdse' -pass-remarks-output=%t.opt.yaml -disable-output %s
; RUN: diff %t.yaml %t.opt.yaml
; RUN: %opt -load-pass-plugin=%simt_plugin -passes='simt-memfwd,simt-memdse' -pass-remarks-output=%t.opt.yaml -pass-remarks-filter=memdse -disable-output %s
; RUN: FileCheck %s --check-prefix=FILTER --implicit-check-not=simt-memfwd < %t.opt.yaml

target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"

@g = global i32 0

define i64 @fwd(i32 %a, i32 %b) {
  %p = alloca i64
  store i32 %a, ptr %p
  %p4 = getelementptr i8, ptr %p, i64 4
  store i32 %b, ptr %p4
  %v = load i64, ptr %p
  ret i64 %v
}

define void @dse(i32 %x) {
  %l = alloca i32
  store i32 %x, ptr %l
  store i32 1, ptr @g
  store i32 %x, ptr @g
  ret void
}

define i32 @keep(ptr %p, ptr %r) {
  store i32 3, ptr %p
  %v = load i32, ptr %r
  ret i32 %v
}
