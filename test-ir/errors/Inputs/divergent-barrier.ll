; Work-items 5.. of each work-group skip the barrier.
target triple = "spir64"
define spir_kernel void @bad(ptr addrspace(1) %out) {
entry:
  %lid = call i64 @_Z12get_local_idj(i32 0)
  %c = icmp ult i64 %lid, 5
  br i1 %c, label %sync, label %done
sync:
  call void @_Z7barrierj(i32 1)
  br label %done
done:
  ret void
}
declare i64 @_Z12get_local_idj(i32)
declare void @_Z7barrierj(i32) convergent
