; simt-warp-exchange's helpers (see warp_exchange.rs): the writing and the
; reading side of each warp function, through the per-warp buffer. `%phase`
; is the warp's exchange phase (`simt.warp.phase`, which `simt-wiloops`
; flips at every warp barrier): a lane writes row `phase & 1` before the
; barrier and reads row `(phase ^ 1) & 1`, the one its warp wrote, after.
; `%n` is the lanes the warp has (32, or fewer in the last warp of a block
; whose size is not a multiple of 32); lanes at or past `%n` do not exist
; and never take part. Defined external so that the linker takes them all;
; the pass makes them internal once linked and inlines them.
;
; A row is 96 slots of 8 bytes; lane l's 32-bit operand is i32 element
; 32 + l of it, a 64-bit one i64 element 32 + l. The 32 elements before and
; after the lanes are padding: a shuffle up or down reads element
; 32 + lane -/+ delta whether or not that lane exists (and keeps its own
; value if not), an address affine in the lane, so that the lane loop reads
; it with one vector load rather than a gather. Votes and matches read the
; 32 slots as one vector; the reduction's loop has a trip count of 32, so
; LLVM unrolls or vectorises it.

@simt.warp.xbuf = addrspace(3) global [2 x [96 x i64]] undef, align 64

; The row of phase `%phase`.
define ptr addrspace(3) @simt.warp.row(ptr addrspace(3) %bufs, i32 %phase) alwaysinline {
  %par = and i32 %phase, 1
  %par64 = zext i32 %par to i64
  %row = getelementptr inbounds [96 x i64], ptr addrspace(3) %bufs, i64 %par64
  ret ptr addrspace(3) %row
}

; The row written before the barrier this phase started at.
define ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase) alwaysinline {
  %prev = xor i32 %phase, 1
  %row = call ptr addrspace(3) @simt.warp.row(ptr addrspace(3) %bufs, i32 %prev)
  ret ptr addrspace(3) %row
}

; Lane `%lane`'s 32-bit slot of `%row`.
define ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 %lane) alwaysinline {
  %at = add nsw i32 %lane, 32
  %at64 = sext i32 %at to i64
  %slot = getelementptr inbounds i32, ptr addrspace(3) %row, i64 %at64
  ret ptr addrspace(3) %slot
}

define ptr addrspace(3) @simt.warp.slot64(ptr addrspace(3) %row, i32 %lane) alwaysinline {
  %at = add nsw i32 %lane, 32
  %at64 = sext i32 %at to i64
  %slot = getelementptr inbounds i64, ptr addrspace(3) %row, i64 %at64
  ret ptr addrspace(3) %slot
}

define void @simt.warp.put32(ptr addrspace(3) %bufs, i32 %phase, i32 %lane, i32 %v) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.row(ptr addrspace(3) %bufs, i32 %phase)
  %slot = call ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 %lane)
  store i32 %v, ptr addrspace(3) %slot
  ret void
}

define void @simt.warp.put64(ptr addrspace(3) %bufs, i32 %phase, i32 %lane, i64 %v) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.row(ptr addrspace(3) %bufs, i32 %phase)
  %slot = call ptr addrspace(3) @simt.warp.slot64(ptr addrspace(3) %row, i32 %lane)
  store i64 %v, ptr addrspace(3) %slot
  ret void
}

; The lanes that exist, as a mask.
define i32 @simt.warp.active(i32 %n) alwaysinline {
  %n64 = zext i32 %n to i64
  %one = shl i64 1, %n64
  %m = sub i64 %one, 1
  %r = trunc i64 %m to i32
  ret i32 %r
}

; Lanes in the warp `warp` of a block of `nx*ny*nz` work-items.
define i32 @simt.warp.count(i32 %nx, i32 %ny, i32 %nz, i32 %warp) alwaysinline {
  %xy = mul i32 %nx, %ny
  %all = mul i32 %xy, %nz
  %base = shl i32 %warp, 5
  %left = sub i32 %all, %base
  %r = call i32 @llvm.umin.i32(i32 %left, i32 32)
  ret i32 %r
}

; shfl.sync (PTX ISA): `%mode` 0 idx, 1 up, 2 down, 3 bfly; `%b` the lane,
; delta or xor mask; `%c` the clamp (bits 0-4) and segment mask (bits 8-12).
; A source lane out of range gives the lane its own value (PTX); so does one
; that does not exist (past a partial warp's end: undefined in CUDA, this
; choice is the emulator's too). The source lane `%j` lies in -31..62, in
; the row's padding where it is no lane: both slots are read, one kept.
define i32 @simt.warp.shfl(ptr addrspace(3) %bufs, i32 %phase, i32 %mode, i32 %lane, i32 %n, i32 %b, i32 %c) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase)
  %bv = and i32 %b, 31
  %segs = lshr i32 %c, 8
  %seg = and i32 %segs, 31
  %nseg = xor i32 %seg, -1
  %min = and i32 %lane, %seg
  %clamp = and i32 %c, 31
  %clampns = and i32 %clamp, %nseg
  %max = or i32 %min, %clampns
  %bvns = and i32 %bv, %nseg
  %ix = or i32 %min, %bvns
  %ixok = icmp sle i32 %ix, %max
  %up = sub i32 %lane, %bv
  %upok = icmp sge i32 %up, %max
  %dn = add i32 %lane, %bv
  %dnok = icmp sle i32 %dn, %max
  %bf = xor i32 %lane, %bv
  %bfok = icmp sle i32 %bf, %max
  %is1 = icmp eq i32 %mode, 1
  %is2 = icmp eq i32 %mode, 2
  %is3 = icmp eq i32 %mode, 3
  %j1 = select i1 %is1, i32 %up, i32 %ix
  %ok1 = select i1 %is1, i1 %upok, i1 %ixok
  %j2 = select i1 %is2, i32 %dn, i32 %j1
  %ok2 = select i1 %is2, i1 %dnok, i1 %ok1
  %j = select i1 %is3, i32 %bf, i32 %j2
  %ok = select i1 %is3, i1 %bfok, i1 %ok2
  %exists = icmp ult i32 %j, %n
  %take = and i1 %ok, %exists
  %from = call ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 %j)
  %theirs = load i32, ptr addrspace(3) %from
  %own = call ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 %lane)
  %mine = load i32, ptr addrspace(3) %own
  %v = select i1 %take, i32 %theirs, i32 %mine
  ret i32 %v
}

; The 32 lanes' 32-bit slots of `%row`, as one vector: a vote or a match
; over them is a compare per lane and a bitcast of the <32 x i1> to the
; mask (a movmsk on x86), where a loop over the slots, once per lane, left
; 32 extracts, selects and ors after SLP (issue 24).
define <32 x i32> @simt.warp.slots32(ptr addrspace(3) %row) alwaysinline {
  %first = call ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 0)
  %all = load <32 x i32>, ptr addrspace(3) %first, align 4
  ret <32 x i32> %all
}

; The lanes (of those that exist) whose slot's low bit is set.
define i32 @simt.warp.ballot(ptr addrspace(3) %row, i32 %n) alwaysinline {
  %all = call <32 x i32> @simt.warp.slots32(ptr addrspace(3) %row)
  %bits = trunc <32 x i32> %all to <32 x i1>
  %mask = bitcast <32 x i1> %bits to i32
  %active = call i32 @simt.warp.active(i32 %n)
  %r = and i32 %mask, %active
  ret i32 %r
}

; vote.sync: `%mode` 0 ballot (the ballot within `%mask`), 1 all, 2 any,
; 3 uni, over the existing lanes named by `%mask`.
define i32 @simt.warp.vote(ptr addrspace(3) %bufs, i32 %phase, i32 %mode, i32 %n, i32 %mask) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase)
  %ballot = call i32 @simt.warp.ballot(ptr addrspace(3) %row, i32 %n)
  %active = call i32 @simt.warp.active(i32 %n)
  %members = and i32 %mask, %active
  %yes = and i32 %ballot, %members
  %all = icmp eq i32 %yes, %members
  %none = icmp eq i32 %yes, 0
  %any = xor i1 %none, true
  %uni = or i1 %none, %all
  %is1 = icmp eq i32 %mode, 1
  %is2 = icmp eq i32 %mode, 2
  %is3 = icmp eq i32 %mode, 3
  %b1 = select i1 %is1, i1 %all, i1 %any
  %b2 = select i1 %is3, i1 %uni, i1 %b1
  %bool = zext i1 %b2 to i32
  %ballotm = and i32 %ballot, %mask
  %is0 = icmp eq i32 %mode, 0
  %r = select i1 %is0, i32 %ballotm, i32 %bool
  ret i32 %r
}

; match.any.sync: the existing lanes named by `%mask` whose value equals `%v`.
define i32 @simt.warp.match32(ptr addrspace(3) %bufs, i32 %phase, i32 %n, i32 %mask, i32 %v) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase)
  %all = call <32 x i32> @simt.warp.slots32(ptr addrspace(3) %row)
  %one = insertelement <32 x i32> poison, i32 %v, i64 0
  %vs = shufflevector <32 x i32> %one, <32 x i32> poison, <32 x i32> zeroinitializer
  %eq = icmp eq <32 x i32> %all, %vs
  %hits = bitcast <32 x i1> %eq to i32
  %active = call i32 @simt.warp.active(i32 %n)
  %named = and i32 %mask, %active
  %r = and i32 %hits, %named
  ret i32 %r
}

define i32 @simt.warp.match64(ptr addrspace(3) %bufs, i32 %phase, i32 %n, i32 %mask, i64 %v) alwaysinline {
  %row = call ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase)
  %first = call ptr addrspace(3) @simt.warp.slot64(ptr addrspace(3) %row, i32 0)
  %all = load <32 x i64>, ptr addrspace(3) %first, align 8
  %one = insertelement <32 x i64> poison, i64 %v, i64 0
  %vs = shufflevector <32 x i64> %one, <32 x i64> poison, <32 x i32> zeroinitializer
  %eq = icmp eq <32 x i64> %all, %vs
  %hits = bitcast <32 x i1> %eq to i32
  %active = call i32 @simt.warp.active(i32 %n)
  %named = and i32 %mask, %active
  %r = and i32 %hits, %named
  ret i32 %r
}

; redux.sync over the existing lanes named by `%mask` (their identity when
; none is): `%mode` 0 add, 1 min, 2 max, 3 umin, 4 umax, 5 and, 6 or, 7 xor.
define i32 @simt.warp.redux(ptr addrspace(3) %bufs, i32 %phase, i32 %mode, i32 %n, i32 %mask) alwaysinline {
entry:
  %row = call ptr addrspace(3) @simt.warp.written(ptr addrspace(3) %bufs, i32 %phase)
  %is1 = icmp eq i32 %mode, 1
  %is2 = icmp eq i32 %mode, 2
  %is3 = icmp eq i32 %mode, 3
  %is5 = icmp eq i32 %mode, 5
  %i1 = select i1 %is1, i32 2147483647, i32 0
  %i2 = select i1 %is2, i32 -2147483648, i32 %i1
  %i3 = select i1 %is3, i32 -1, i32 %i2
  %init = select i1 %is5, i32 -1, i32 %i3
  br label %loop
loop:
  %l = phi i32 [ 0, %entry ], [ %l1, %next ]
  %acc = phi i32 [ %init, %entry ], [ %acc1, %next ]
  %bitm = lshr i32 %mask, %l
  %named = and i32 %bitm, 1
  %exists = icmp ult i32 %l, %n
  %isnamed = icmp ne i32 %named, 0
  %takes = and i1 %isnamed, %exists
  br i1 %takes, label %take, label %next
take:
  %slot = call ptr addrspace(3) @simt.warp.slot32(ptr addrspace(3) %row, i32 %l)
  %w = load i32, ptr addrspace(3) %slot
  switch i32 %mode, label %add [ i32 1, label %smin
                                 i32 2, label %smax
                                 i32 3, label %umin
                                 i32 4, label %umax
                                 i32 5, label %and
                                 i32 6, label %or
                                 i32 7, label %xor ]
add:
  %r0 = add i32 %acc, %w
  br label %next
smin:
  %r1 = call i32 @llvm.smin.i32(i32 %acc, i32 %w)
  br label %next
smax:
  %r2 = call i32 @llvm.smax.i32(i32 %acc, i32 %w)
  br label %next
umin:
  %r3 = call i32 @llvm.umin.i32(i32 %acc, i32 %w)
  br label %next
umax:
  %r4 = call i32 @llvm.umax.i32(i32 %acc, i32 %w)
  br label %next
and:
  %r5 = and i32 %acc, %w
  br label %next
or:
  %r6 = or i32 %acc, %w
  br label %next
xor:
  %r7 = xor i32 %acc, %w
  br label %next
next:
  %acc1 = phi i32 [ %acc, %loop ], [ %r0, %add ], [ %r1, %smin ], [ %r2, %smax ], [ %r3, %umin ], [ %r4, %umax ], [ %r5, %and ], [ %r6, %or ], [ %r7, %xor ]
  %l1 = add nuw nsw i32 %l, 1
  %more = icmp ult i32 %l1, 32
  br i1 %more, label %loop, label %done
done:
  ret i32 %acc1
}

declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
