#!/usr/bin/env python3
"""Generate an LLVM IR module with one CUDA-style kernel of about N basic blocks.

    scripts/gen-cfg.py N [--seed S] [--no-switch] [--barriers K] [-o out.ll]
    scripts/gen-cfg.py N --diamonds|--returns [-o out.ll]   (worst cases, see below)

The control flow is structured the way compiled kernels are: nested counted
loops (while and do-while shapes) with `break` and `continue` edges, if/else
diamonds, if-then triangles, switches with fall-through cases, early returns.
Branch conditions mix the thread index (divergent branches, so the uniformity
analysis has work to do), loop counters and loaded values (uniform or not). The
output is deterministic for a given N and seed, and is valid IR (`opt
-passes=verify` accepts it). Block count is N give or take a few blocks.

--barriers K also ends every K-th block (the K-th, 2K-th, ... in layout order)
with a work-group barrier, `__syncthreads()` as clang emits it for nvptx64
(`call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)`), before its
terminator. The CFG is the one without --barriers, so barriers land under
loops and divergent branches alike: a compile-time workload for
`simt-wiloops` (many regions), not a kernel to run (work-items would reach
different barriers).

--diamonds writes a chain of divergent if/else diamonds instead, --returns a
chain of divergent early returns (`if (tid < i) return;`): not realistic, but
cases where every branch is divergent, for the uniformity analysis's scaling. The benchmark (scripts/bench-analyses) uses both; the
generator is also handy for making a big CFG by hand.
"""
import argparse
import random
import sys

MAX_DEPTH = 7  # nesting of constructs; real kernels rarely go deeper


class Gen:
    def __init__(self, n, seed, switches=True, barriers=0):
        self.switches = switches
        self.barriers = barriers  # a barrier every this many blocks; 0: none
        self.rng = random.Random(seed * 1_000_003 + n)
        self.target = n
        self.blocks = []       # finished blocks: list of text lines
        self.cur = None        # label of the open block
        self.body = []         # its instructions so far
        self.nlabel = 0
        self.nval = 0

    # -- plumbing ---------------------------------------------------------------
    def label(self, kind):
        self.nlabel += 1
        return f"{kind}{self.nlabel}"

    def val(self):
        self.nval += 1
        return f"%v{self.nval}"

    def start(self, label):
        assert self.cur is None
        self.cur, self.body = label, []

    def finish(self, term):
        # Placed by count, not by the random generator, so the CFG and its
        # values are the same with or without barriers.
        if self.barriers and (len(self.blocks) + 1) % self.barriers == 0:
            self.body.append("call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)")
        self.blocks.append([f"{self.cur}:"] + [f"  {i}" for i in self.body] + [f"  {term}"])
        self.cur = None

    def emitted(self):
        return len(self.blocks) + (1 if self.cur is not None else 0)

    def left(self):
        return self.target - self.emitted()

    # -- instructions -----------------------------------------------------------
    def work(self, ivs):
        """A few instructions of straight-line work: load, arithmetic, store."""
        r = self.rng
        idx = r.choice(["%tid64", "%gid64"] + [f"{iv}.64" for iv in ivs[-2:]])
        g, x, y = self.val(), self.val(), self.val()
        self.body.append(f"{g} = getelementptr inbounds i32, ptr %in, i64 {idx}")
        self.body.append(f"{x} = load i32, ptr {g}, align 4")
        op = r.choice(["add", "mul", "xor", "sub"])
        other = r.choice(["%tid", "%n"] + ivs[-1:] + [str(r.randint(1, 99))])
        self.body.append(f"{y} = {op} i32 {x}, {other}")
        o = self.val()
        self.body.append(f"{o} = getelementptr inbounds i32, ptr %out, i64 {idx}")
        self.body.append(f"store i32 {y}, ptr {o}, align 4")

    def cond(self, ivs):
        """An i1 condition: divergent (thread index), loop-counter or data based."""
        r = self.rng
        c = self.val()
        kind = r.random()
        if kind < 0.3:
            self.body.append(f"{c} = icmp slt i32 %tid, {r.randint(1, 255)}")
        elif kind < 0.5 and ivs:
            self.body.append(f"{c} = icmp eq i32 {r.choice(ivs)}, {r.randint(0, 7)}")
        else:
            g, x = self.val(), self.val()
            base = r.choice(["%in", "%flags"])
            idx = "%tid64" if base == "%in" else str(r.randint(0, 63))
            self.body.append(f"{g} = getelementptr inbounds i32, ptr {base}, i64 {idx}")
            self.body.append(f"{x} = load i32, ptr {g}, align 4")
            self.body.append(f"{c} = icmp sgt i32 {x}, {r.randint(-50, 50)}")
        return c

    # -- structure --------------------------------------------------------------
    def region(self, budget, depth, loops, ivs):
        """Emit constructs into the open block until about `budget` more blocks
        exist. Leaves a block open for the caller to terminate."""
        end = self.emitted() + budget
        while self.emitted() < end:
            room = end - self.emitted()
            self.construct(room, depth, loops, ivs)

    def sub(self, room):
        """Blocks to give a nested region: mostly small, now and then large."""
        r = self.rng
        if room <= 2:
            return 1
        if r.random() < 0.15:
            return r.randint(1, room)
        return r.randint(1, max(1, min(room, 12)))

    def construct(self, room, depth, loops, ivs):
        r = self.rng
        deep = depth >= MAX_DEPTH
        p = r.random()
        if room < 4 or (deep and p < 0.6) or p < 0.12:
            # straight-line block
            self.work(ivs)
            nxt = self.label("bb")
            self.finish(f"br label %{nxt}")
            self.start(nxt)
        elif p < 0.20 and loops:
            # break / continue out of the innermost (sometimes an outer) loop
            latch, exit_ = loops[-1] if r.random() < 0.8 else r.choice(loops)
            c = self.cond(ivs)
            nxt = self.label("bb")
            tgt = exit_ if r.random() < 0.5 else latch
            self.finish(f"br i1 {c}, label %{tgt}, label %{nxt}")
            self.start(nxt)
        elif p < 0.24:
            # early return
            c = self.cond(ivs)
            ret, nxt = self.label("ret"), self.label("bb")
            self.finish(f"br i1 {c}, label %{ret}, label %{nxt}")
            self.start(ret)
            self.work(ivs)
            self.finish("ret void")
            self.start(nxt)
        elif p < 0.44:
            # if/else diamond
            c = self.cond(ivs)
            t, e, j = self.label("then"), self.label("else"), self.label("join")
            self.finish(f"br i1 {c}, label %{t}, label %{e}")
            inner = max(0, room - 3)
            self.start(t)
            self.region(self.sub(inner) - 1, depth + 1, loops, ivs)
            self.finish(f"br label %{j}")
            self.start(e)
            self.region(self.sub(inner) - 1, depth + 1, loops, ivs)
            self.finish(f"br label %{j}")
            self.start(j)
        elif p < 0.56:
            # if-then triangle
            c = self.cond(ivs)
            t, j = self.label("then"), self.label("join")
            self.finish(f"br i1 {c}, label %{t}, label %{j}")
            self.start(t)
            self.region(self.sub(room - 2) - 1, depth + 1, loops, ivs)
            self.finish(f"br label %{j}")
            self.start(j)
        elif p < 0.66 and self.switches:
            # switch with 2..6 cases, some falling through to the next
            k = r.randint(2, 6)
            g, x = self.val(), self.val()
            src = r.choice(["%tid", "%n"] + ivs[-1:])
            self.body.append(f"{x} = and i32 {src}, 7")
            cases = [self.label("case") for _ in range(k)]
            dflt, j = self.label("default"), self.label("join")
            arms = " ".join(f"i32 {i}, label %{l}" for i, l in enumerate(cases))
            self.finish(f"switch i32 {x}, label %{dflt} [ {arms} ]")
            inner = max(0, room - k - 2)
            for i, l in enumerate(cases):
                self.start(l)
                self.region(self.sub(inner // k + 1) - 1, depth + 1, loops, ivs)
                fall = i + 1 < k and r.random() < 0.25
                self.finish(f"br label %{cases[i + 1] if fall else j}")
            self.start(dflt)
            self.work(ivs)
            self.finish(f"br label %{j}")
            self.start(j)
        else:
            self.loop(room, depth, loops, ivs)

    def loop(self, room, depth, loops, ivs):
        """A counted loop: `for (i = 0; i < n; i++)` (test at the header) or a
        do-while (test at the latch). The body may break and continue."""
        r = self.rng
        pre = self.cur
        h, latch, x = self.label("loop"), self.label("latch"), self.label("exit")
        iv = self.val()
        nxt = self.val()
        bound = r.choice(["%n", str(r.randint(2, 64)), "%tid"])
        self.finish(f"br label %{h}")
        self.start(h)
        self.body.append(f"{iv} = phi i32 [ 0, %{pre} ], [ {nxt}, %{latch} ]")
        self.body.append(f"{iv}.64 = zext i32 {iv} to i64")
        body_budget = self.sub(max(1, room - 3))
        inner_loops = loops + [(latch, x)]
        inner_ivs = ivs + [iv]
        if r.random() < 0.7:
            # while / for: header tests, body, latch
            c = self.val()
            self.body.append(f"{c} = icmp slt i32 {iv}, {bound}")
            b = self.label("body")
            self.finish(f"br i1 {c}, label %{b}, label %{x}")
            self.start(b)
            self.region(body_budget - 1, depth + 1, inner_loops, inner_ivs)
            self.finish(f"br label %{latch}")
            self.start(latch)
            self.body.append(f"{nxt} = add nuw nsw i32 {iv}, 1")
            self.finish(f"br label %{h}")
        else:
            # do-while: the header is the first body block, the latch tests
            self.region(body_budget - 1, depth + 1, inner_loops, inner_ivs)
            self.finish(f"br label %{latch}")
            self.start(latch)
            self.body.append(f"{nxt} = add nuw nsw i32 {iv}, 1")
            c = self.val()
            self.body.append(f"{c} = icmp slt i32 {nxt}, {bound}")
            self.finish(f"br i1 {c}, label %{h}, label %{x}")
        self.start(x)

    def module(self):
        self.start("entry")
        self.body += [
            "%ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()",
            "%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()",
            "%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
            "%base = mul i32 %ctaid, %ntid",
            "%gid = add i32 %base, %tid",
            "%tid64 = zext i32 %tid to i64",
            "%gid64 = zext i32 %gid to i64",
        ]
        # top level: keep adding constructs until the target is reached
        while self.left() > 1:
            self.region(self.left() - 1, 0, [], [])
        self.work([])
        self.finish("ret void")
        out = [
            f"; {self.emitted()} basic blocks, generated by scripts/gen-cfg.py",
            'target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"',
            'target triple = "nvptx64-nvidia-cuda"',
            "",
            "define ptx_kernel void @kernel(ptr noalias %in, ptr noalias %out, ptr noalias %flags, i32 %n) {",
        ]
        for b in self.blocks:
            out += b
        out += [
            "}",
            "",
            "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()",
            "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()",
            "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        ]
        if self.barriers:
            out += [
                "declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #0",
                "",
                "attributes #0 = { convergent nocallback nounwind }",
            ]
        out.append("")
        return "\n".join(out)


def diamonds(n):
    """A worst case rather than a realistic kernel: a chain of about n/4
    if/else diamonds, each branching on the thread index (so each is a
    divergent branch with a phi at its join)."""
    k = max(1, (n - 2) // 4)
    out = [
        f"; {4 * k + 2} basic blocks, generated by scripts/gen-cfg.py --diamonds",
        'target triple = "nvptx64-nvidia-cuda"',
        "",
        "define ptx_kernel void @kernel(ptr noalias %out) {",
        "entry:",
        "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "  br label %d0",
    ]
    for i in range(k):
        out += [
            f"d{i}:", f"  %c{i} = icmp slt i32 %tid, {i % 1024}", f"  br i1 %c{i}, label %t{i}, label %e{i}",
            f"t{i}:", f"  br label %j{i}",
            f"e{i}:", f"  br label %j{i}",
            f"j{i}:", f"  %x{i} = phi i32 [ {i}, %t{i} ], [ %tid, %e{i} ]",
            f"  store i32 %x{i}, ptr %out, align 4", f"  br label %d{i + 1}",
        ]
    out += [f"d{k}:", "  ret void", "}", "", "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()", ""]
    return "\n".join(out)


def returns(n):
    """A worst case rather than a realistic kernel: a chain of about n/2
    guard clauses `if (tid < i) return;`, each a divergent branch whose
    immediate post-dominator is the function's (virtual) exit."""
    k = max(1, (n - 2) // 2)
    out = [
        f"; {2 * k + 2} basic blocks, generated by scripts/gen-cfg.py --returns",
        'target triple = "nvptx64-nvidia-cuda"',
        "",
        "define ptx_kernel void @kernel(ptr noalias %out) {",
        "entry:",
        "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "  br label %b0",
    ]
    for i in range(k):
        out += [
            f"b{i}:", f"  store i32 {i}, ptr %out, align 4", f"  %c{i} = icmp slt i32 %tid, {i % 1024}",
            f"  br i1 %c{i}, label %r{i}, label %b{i + 1}",
            f"r{i}:", "  ret void",
        ]
    out += [f"b{k}:", "  ret void", "}", "", "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="about how many basic blocks")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-switch", action="store_true",
                    help="no switch instructions (their share goes to loops)")
    ap.add_argument("--diamonds", action="store_true",
                    help="instead: a chain of divergent if/else diamonds (a worst case for uniformity)")
    ap.add_argument("--returns", action="store_true",
                    help="instead: a chain of divergent early returns (another worst case)")
    ap.add_argument("--barriers", type=int, default=0, metavar="K",
                    help="a work-group barrier in every K-th block (not with --diamonds/--returns)")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    if a.n < 1:
        ap.error("N must be at least 1")
    if a.barriers < 0 or (a.barriers and (a.diamonds or a.returns)):
        ap.error("--barriers K takes K >= 1, and only for the structured kernels")
    sys.setrecursionlimit(10000)
    if a.diamonds:
        text = diamonds(a.n)
    elif a.returns:
        text = returns(a.n)
    else:
        text = Gen(a.n, a.seed, switches=not a.no_switch, barriers=a.barriers).module()
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
