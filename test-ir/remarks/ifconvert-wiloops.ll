; Remarks of simt-ifconvert (each divergent branch converted, with the cost
; model's figures, or kept, with why) and of simt-wiloops-version (each
; work-item loop versioned, or not, with why). The expectations follow from
; the IR: @cheap's diamond computes two values with no memory access (its
; predicated form is no longer than either path), @costly's arm holds a
; guarded store and a long chain that a lane not taking it would pay for,
; and @call's arm calls an unknown function, which no predicate can guard.
;
; RUN: %simt-opt -passes=simt-ifconvert -pass-remarks=simt-ifconvert -pass-remarks-missed=simt-ifconvert -disable-output %s 2>&1 | FileCheck %s --check-prefix=IFC
; IFC-DAG: remark: <unknown>:0:0: cheap: divergent branch in %entry converted: 2 blocks,
; IFC-DAG: remark: <unknown>:0:0: costly: divergent branch in %entry kept: costs more predicated ({{[0-9]+}} warp-instructions) than branchy, by the never-worse rule
; IFC-DAG: remark: <unknown>:0:0: call: divergent branch in %entry kept: it holds
;
; Only what was asked for: passed remarks alone, none without a flag.
; RUN: %simt-opt -passes=simt-ifconvert -pass-remarks=simt-ifconvert -disable-output %s 2>&1 | FileCheck %s --check-prefix=PASSED --implicit-check-not=kept
; PASSED: cheap: divergent branch in %entry converted
; RUN: %simt-opt -passes=simt-ifconvert -disable-output %s 2>&1 | count 0
;
; YAML, as LLVM writes it.
; RUN: %simt-opt -passes=simt-ifconvert -pass-remarks-output=%t.yaml -pass-remarks-filter=simt-ifconvert -disable-output %s
; RUN: FileCheck %s --check-prefix=YAML --input-file=%t.yaml
; YAML: --- !Passed
; YAML-NEXT: Pass: {{ *}}simt-ifconvert
; YAML-NEXT: Name: {{ *}}Converted
; YAML-NEXT: Function: {{ *}}cheap
;
; simt-wiloops-version after the work-item loops: the loop of @cheap (no
; guard to version on beyond the bounds) and why a loop is left.
; RUN: %simt-opt -passes='simt-wiloops<local-size=64>,simt-wiloops-version' -pass-remarks=simt-wiloops-version -pass-remarks-missed=simt-wiloops-version -disable-output %examples/saxpy.ll 2>&1 | FileCheck %s --check-prefix=VER
; VER: remark: <unknown>:0:0: simt_wg_{{.*}}: work-item loop %{{[a-z0-9.]+}}: versioned on 1 guard(s)

target triple = "spir64-unknown-unknown"

declare i64 @_Z12get_local_idj(i32)
declare void @opaque(i32)

define spir_kernel void @cheap(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %odd = trunc i64 %lid to i1
  br i1 %odd, label %then, label %else
then:
  %a = mul i64 %lid, 3
  br label %join
else:
  %b = add i64 %lid, 7
  br label %join
join:
  %v = phi i64 [ %a, %then ], [ %b, %else ]
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %lid
  store i64 %v, ptr addrspace(1) %p
  ret void
}

define spir_kernel void @costly(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %rare = icmp eq i64 %lid, 5
  br i1 %rare, label %then, label %join
then:
  %a = mul i64 %lid, 3
  %b = mul i64 %a, %a
  %c = xor i64 %b, %a
  %d = mul i64 %c, %b
  %p = getelementptr i64, ptr addrspace(1) %out, i64 %lid
  store i64 %d, ptr addrspace(1) %p
  br label %join
join:
  ret void
}

define spir_kernel void @call(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %odd = trunc i64 %lid to i1
  br i1 %odd, label %then, label %join
then:
  call void @opaque(i32 1)
  br label %join
join:
  ret void
}
