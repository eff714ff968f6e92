//! The patent's worked examples as plain data, with every intermediate
//! state that 003-notes.md §5, §6 and §4.1 list (expectations written from
//! the notes, not from this code's output).

use super::dataflow::{solve, Config, Record, State, UseRule};
use super::intervals::IntervalSet;
use super::model::{Access, Def, DescId, Program, Range, Ref};
use crate::analysis::dominators::DomTree;
use crate::cfg::Cfg;

fn ir(n: u32) -> Def {
    Def::Access(n - 1)
}

fn rec(defs: &[u32], kill: &[(u64, u64)], is_kill: bool) -> Record {
    let mut k = IntervalSet::new();
    for &r in kill {
        k.insert(r);
    }
    Record { defs: defs.iter().map(|&n| ir(n)).collect(), kill: k, is_kill }
}

fn state(entries: &[(DescId, Record)]) -> State {
    entries.iter().cloned().collect()
}

fn def(r: Ref) -> Access {
    Access { use_: None, def: Some(r), predicated: false }
}

fn use_(r: Ref) -> Access {
    Access { use_: Some(r), def: None, predicated: false }
}

fn straight_line(p: &mut Program, accesses: Vec<Access>) -> (Cfg, DomTree) {
    p.blocks = vec![Vec::new()];
    for a in accesses {
        p.push_access(0, a);
    }
    let cfg = Cfg::from_successors(vec![vec![]]);
    let dom = DomTree::dominators(&cfg);
    (cfg, dom)
}

#[test]
fn example_1() {
    let mut p = Program::default();
    let a = p.add_object("a", Some(65));
    let md1 = p.desc(a, Range::Exact(0, 31));
    let md2 = p.desc(a, Range::Exact(0, 15));
    let md3 = p.desc(a, Range::Exact(16, 31));
    let md4 = p.desc(a, Range::Exact(0, 64));
    use Ref::Must as M;
    let (cfg, dom) = straight_line(&mut p, vec![def(M(md1)), use_(M(md1)), def(M(md2)), use_(M(md1)), def(M(md3)), use_(M(md4))]);

    let s = solve(&p, &cfg, &dom, Config::PATENT);
    assert_eq!(s.after[0], Some(state(&[(md1, rec(&[1], &[], false))])), "after ir1");
    assert_eq!(s.after[2], Some(state(&[(md1, rec(&[1], &[(0, 15)], false)), (md2, rec(&[3], &[], false))])), "after ir3");
    assert_eq!(s.after[4], Some(state(&[(md2, rec(&[3], &[], false)), (md3, rec(&[5], &[], false))])), "after ir5: md1 deleted");
    assert_eq!(s.use_defs[1], Some(vec![ir(1)]));
    assert_eq!(s.use_defs[3], Some(vec![ir(1), ir(3)]));
    assert_eq!(s.use_defs[5], Some(vec![ir(3), ir(5)]));
    assert_eq!(s.def_uses()[0], vec![1, 3], "ir1 -> ir2, ir4");
    assert_eq!(s.def_uses()[2], vec![3, 5], "ir3 -> ir4, ir6");
    assert_eq!(s.def_uses()[4], vec![5], "ir5 -> ir6");

    // Sound rules: the same chains, and bytes [32,64] of ir6 come from entry.
    let s = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(s.use_defs[1], Some(vec![ir(1)]));
    assert_eq!(s.use_defs[3], Some(vec![ir(1), ir(3)]));
    assert_eq!(s.use_defs[5], Some(vec![Def::Entry, ir(3), ir(5)]));
    // Byte by byte, as the text explains ir4 ("ir1 defined [16,31] and ir3
    // defined [0,15]") and ir6 (md2 by ir3, md3 by ir5, the rest of md4 from
    // before).
    assert_eq!(s.use_bytes[1], Some(vec![((0, 31), vec![ir(1)])]));
    assert_eq!(s.use_bytes[3], Some(vec![((0, 15), vec![ir(3)]), ((16, 31), vec![ir(1)])]));
    assert_eq!(s.use_bytes[5], Some(vec![((0, 15), vec![ir(3)]), ((16, 31), vec![ir(5)]), ((32, 64), vec![Def::Entry])]));
    assert_eq!(solve(&p, &cfg, &dom, Config::PATENT).use_bytes[3], None, "per-byte sets are the sound rules' only");
}

#[test]
fn example_2() {
    let mut p = Program::default();
    let a = p.add_object("a", None);
    let b = p.add_object("b", Some(64));
    let md1 = p.desc(a, Range::Exact(0, 31));
    let md2 = p.desc(a, Range::Inexact);
    let md3 = p.desc(b, Range::Exact(0, 31));
    let md4 = p.desc(b, Range::Exact(0, 63));
    let _ = md3;
    use Ref::Must as M;
    let pred = Access { use_: None, def: Some(M(md1)), predicated: true };
    let (cfg, dom) =
        straight_line(&mut p, vec![def(M(md1)), def(M(md2)), use_(M(md2)), def(Ref::May(vec![a, b])), pred, use_(Ref::May(vec![a, b]))]);
    let s = solve(&p, &cfg, &dom, Config::PATENT);
    assert_eq!(s.after[0], Some(state(&[(md1, rec(&[1], &[], false))])), "after ir1");
    assert_eq!(s.after[1], Some(state(&[(md1, rec(&[1], &[], true)), (md2, rec(&[2], &[], false))])), "after ir2");
    let after4 = state(&[(md1, rec(&[1], &[], true)), (md2, rec(&[2], &[], false)), (md4, rec(&[4], &[], false))]);
    assert_eq!(s.after[3], Some(after4), "after ir4: only md4 created (603, 604)");
    let after5 = state(&[(md1, rec(&[1, 5], &[], true)), (md2, rec(&[2], &[], false)), (md4, rec(&[4], &[], false))]);
    assert_eq!(s.after[4], Some(after5), "after ir5: predicated, added");
    assert_eq!(s.use_defs[2], Some(vec![ir(1), ir(2)]));
    assert_eq!(s.use_defs[5], Some(vec![ir(1), ir(2), ir(4), ir(5)]));

    let s = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(s.use_defs[2], Some(vec![Def::Entry, ir(1), ir(2)]), "a's other bytes are entry's");
    assert_eq!(s.use_defs[5], Some(vec![Def::Entry, ir(1), ir(2), ir(4), ir(5)]));
}

/// The φ example of [0062–0064]: {ir1, ir2} kill {[1,127]} and {ir3, ir4}
/// kill {[32,63]} meet as {ir1, ir2, ir3, ir4} kill {[32,63]}.
#[test]
fn join_unites_definitions_and_intersects_kill_sets() {
    let mut p = Program::default();
    let a = p.add_object("a", Some(128));
    let md1 = p.desc(a, Range::Exact(0, 127));
    let k1 = p.desc(a, Range::Exact(1, 127));
    let k2 = p.desc(a, Range::Exact(32, 63));
    // entry -> left, right -> join
    let cfg = Cfg::from_successors(vec![vec![1, 2], vec![3], vec![3], vec![]]);
    let dom = DomTree::dominators(&cfg);
    p.blocks = vec![Vec::new(); 4];
    let pred = |d| Access { use_: None, def: Some(Ref::Must(d)), predicated: true };
    p.push_access(1, def(Ref::Must(md1))); // ir1
    p.push_access(1, pred(md1)); // ir2
    p.push_access(1, def(Ref::Must(k1))); // ir3 kills [1,127] of md1
    p.push_access(2, def(Ref::Must(md1))); // ir4
    p.push_access(2, pred(md1)); // ir5
    p.push_access(2, def(Ref::Must(k2))); // ir6 kills [32,63]
    p.push_access(3, use_(Ref::Must(md1))); // ir7
    for config in [Config::PATENT, Config::SOUND] {
        let s = solve(&p, &cfg, &dom, config);
        let left = s.block_out[1].as_ref().unwrap();
        assert_eq!(left[&md1], rec(&[1, 2], &[(1, 127)], false));
        assert_eq!(s.block_out[2].as_ref().unwrap()[&md1], rec(&[4, 5], &[(32, 63)], false));
        let join = s.block_out[3].as_ref().unwrap();
        assert_eq!(join[&md1], rec(&[1, 2, 4, 5], &[(32, 63)], false), "{config:?}");
        assert_eq!(join[&k1], rec(&[3], &[], false));
        assert_eq!(join[&k2], rec(&[6], &[], false));
        assert_eq!(s.use_defs[6], Some(vec![ir(1), ir(2), ir(3), ir(4), ir(5), ir(6)]));
    }
}

/// Notes A6 / the 408 shortcut: a smaller store on one side of a join, whose
/// kill the join intersected away, is missed by the patent's use rule.
#[test]
fn patent_use_rule_misses_what_the_sound_one_keeps() {
    let mut p = Program::default();
    let a = p.add_object("a", Some(32));
    let whole = p.desc(a, Range::Exact(0, 31));
    let small = p.desc(a, Range::Exact(0, 3));
    let cfg = Cfg::from_successors(vec![vec![1, 2], vec![3], vec![3], vec![]]);
    let dom = DomTree::dominators(&cfg);
    p.blocks = vec![Vec::new(); 4];
    p.push_access(0, def(Ref::Must(whole))); // ir1
    p.push_access(1, def(Ref::Must(whole))); // ir2
    p.push_access(2, def(Ref::Must(small))); // ir3: bytes 0..3 on the right
    p.push_access(3, use_(Ref::Must(whole))); // ir4
    let patent = solve(&p, &cfg, &dom, Config::PATENT);
    assert_eq!(patent.use_defs[3], Some(vec![ir(1), ir(2)]), "ir3 missed");
    let sound = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(sound.use_defs[3], Some(vec![ir(1), ir(2), ir(3)]));
}

/// Fig. 4 against Fig. 5 (clauses a6, a8) on an exact use with no record of
/// its own (405 -> 406): ir1 defines md1 [0,31], ir2 defines md2 [0,15] and
/// puts [0,15] in md1's kill set; ir3 uses md5 [0,7]. Fig. 4 (413) drops md1,
/// whose overlap [0,7] is killed: {ir2}. Fig. 5 (501) takes every may-use
/// descriptor's definitions: {ir1, ir2}.
#[test]
fn fig5_skips_the_kill_test() {
    let mut p = Program::default();
    let a = p.add_object("a", Some(32));
    let md1 = p.desc(a, Range::Exact(0, 31));
    let md2 = p.desc(a, Range::Exact(0, 15));
    let md5 = p.desc(a, Range::Exact(0, 7));
    use Ref::Must as M;
    let (cfg, dom) = straight_line(&mut p, vec![def(M(md1)), def(M(md2)), use_(M(md5))]);
    let fig4 = solve(&p, &cfg, &dom, Config::PATENT);
    let fig5 = solve(&p, &cfg, &dom, Config { use_rule: UseRule::Fig5, ..Config::PATENT });
    assert_eq!(fig4.after[1], Some(state(&[(md1, rec(&[1], &[(0, 15)], false)), (md2, rec(&[2], &[], false))])));
    assert_eq!(fig4.use_defs[2], Some(vec![ir(2)]));
    assert_eq!(fig5.use_defs[2], Some(vec![ir(1), ir(2)]));
}

/// A loop fill on plain data: entry (ir1 defines all of `a`) -> loop (ir2,
/// an inexact store) -> exit (ir3 uses `a`), and a second way into the exit
/// that skips the loop. Only the edge from the loop kills ir1.
#[test]
fn a_fill_kills_on_its_exit_edge_only() {
    let mut p = Program::default();
    let a = p.add_object("a", Some(16));
    let whole = p.desc(a, Range::Exact(0, 15));
    let some = p.desc(a, Range::Inexact);
    // 0 -> 1 | 2, 1 -> 1 | 3, 2 -> 3; block 3 uses.
    let cfg = Cfg::from_successors(vec![vec![1, 2], vec![1, 3], vec![3], vec![]]);
    let dom = DomTree::dominators(&cfg);
    p.blocks = vec![Vec::new(); 4];
    p.push_access(0, def(Ref::Must(whole))); // ir1
    p.push_access(1, def(Ref::Must(some))); // ir2
    p.push_access(3, use_(Ref::Must(whole))); // ir3
    let no_fill = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(no_fill.use_defs[2], Some(vec![ir(1), ir(2)]));
    p.fills.push(super::model::Fill { from: 1, to: 3, desc: whole, defs: vec![1] });
    let s = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(s.use_defs[2], Some(vec![ir(1), ir(2)]), "the path through block 2 still brings ir1");
    // Without the other way in, ir1 is gone.
    let cfg = Cfg::from_successors(vec![vec![1], vec![1, 3], vec![], vec![]]);
    let dom = DomTree::dominators(&cfg);
    let s = solve(&p, &cfg, &dom, Config::SOUND);
    assert_eq!(s.use_defs[2], Some(vec![ir(2)]));
    assert_eq!(s.use_bytes[2], Some(vec![((0, 15), vec![ir(2)])]));
    let exit = s.block_out[3].as_ref().unwrap();
    assert_eq!(exit.get(&whole), Some(&rec(&[2], &[], false)));
    assert_eq!(exit.get(&some), None, "the inexact record is covered by the fill");
    // Off: as before; the patent's rules have no fills.
    let off = solve(&p, &cfg, &dom, Config { fills: false, ..Config::SOUND });
    assert_eq!(off.use_defs[2], Some(vec![ir(1), ir(2)]));
    assert_eq!(solve(&p, &cfg, &dom, Config::PATENT).use_defs[2], Some(vec![ir(1), ir(2)]));
}

/// Loops in LLVM IR: which fill, and what. Expectations from reading the
/// loops (the bytes each writes), not from this code's output.
mod from_ir {
    use super::super::{fills, MemDeps};
    use super::Config;
    use crate::analysis::dominators::DomTree;
    use crate::function_cfg::FunctionCfg;
    use crate::ir::{data_layout_of, parse_ir};
    use inkwell::context::Context;

    /// `@f`'s fills as (object name, intervals).
    fn fills_of(body: &str) -> Vec<(String, Vec<(u64, u64)>)> {
        let ctx = Context::create();
        let ir = format!("@g = global [16 x i32] zeroinitializer\n@h = global [4 x [8 x i16]] zeroinitializer\n{body}");
        let m = parse_ir(&ctx, "t.ll", ir.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{ir}"));
        crate::ir::verify(&m).unwrap();
        let f = m.get_function("f").unwrap();
        let fc = FunctionCfg::new(f);
        let dom = DomTree::dominators(&fc.cfg);
        let td = data_layout_of(f);
        fills::find(&fc, &dom, &td)
            .into_iter()
            .map(|x| (x.root.print().split(' ').next().unwrap().to_string(), x.bytes.runs().to_vec()))
            .collect()
    }

    /// `for (i = START; i PRED BOUND; i += STEP) g[i] = i;` in clang's
    /// rotated form: the test comes after the store.
    fn rotated(start: i64, step: i64, pred: &str, bound: i64) -> String {
        format!(
            "define void @f() {{
entry:
  br label %loop
loop:
  %i = phi i64 [ {start}, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds i32, ptr @g, i64 %i
  %v = trunc i64 %i to i32
  store i32 %v, ptr %p
  %n = add nsw i64 %i, {step}
  %c = icmp {pred} i64 %n, {bound}
  br i1 %c, label %loop, label %exit
exit:
  ret void
}}"
        )
    }

    #[test]
    fn canonical_forward_and_reverse_fills() {
        let whole = vec![("@g".to_string(), vec![(0, 63)])];
        assert_eq!(fills_of(&rotated(0, 1, "slt", 16)), whole);
        assert_eq!(fills_of(&rotated(0, 1, "ne", 16)), whole);
        assert_eq!(fills_of(&rotated(15, -1, "sge", 0)), whole, "i from 15 down to 0");
        // Part of the array: a fill of those bytes.
        assert_eq!(fills_of(&rotated(0, 1, "slt", 15)), vec![("@g".to_string(), vec![(0, 59)])], "i < N-1");
        assert_eq!(fills_of(&rotated(1, 1, "slt", 16)), vec![("@g".to_string(), vec![(4, 63)])], "from 1");
        // Stride 2 over 16 elements: 8 pieces, more than MAX_PIECES.
        assert_eq!(fills_of(&rotated(0, 2, "slt", 16)), vec![]);
        // Stride 2 over 8 elements, 4 pieces of 4 bytes.
        assert_eq!(fills_of(&rotated(0, 2, "slt", 8)), vec![("@g".to_string(), vec![(0, 3), (8, 11), (16, 19), (24, 27)])]);
        // Out of the array (i <= 16): undefined behaviour; no fill claimed.
        assert_eq!(fills_of(&rotated(0, 1, "sle", 16)), vec![]);
    }

    /// Stride 2 with two stores, `g[2i]` and `g[2i+1]` for `i < 8`: together
    /// the whole array.
    #[test]
    fn two_interleaved_stores_fill() {
        let ir = "define void @f() {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %e = shl i64 %i, 1
  %o = or disjoint i64 %e, 1
  %pe = getelementptr inbounds i32, ptr @g, i64 %e
  store i32 0, ptr %pe
  %po = getelementptr inbounds i32, ptr @g, i64 %o
  store i32 1, ptr %po
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 8
  br i1 %c, label %loop, label %exit
exit:
  ret void
}";
        assert_eq!(fills_of(ir), vec![("@g".to_string(), vec![(0, 63)])]);
    }

    /// A top-tested loop (`while`): the last test leaves before the body.
    #[test]
    fn top_tested_loop_fills() {
        let ir = "define void @f() {
entry:
  %a = alloca [8 x i8]
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %n, %body ]
  %c = icmp ult i32 %i, 8
  br i1 %c, label %body, label %exit
body:
  %x = zext i32 %i to i64
  %p = getelementptr [8 x i8], ptr %a, i64 0, i64 %x
  store i8 1, ptr %p
  %n = add i32 %i, 1
  br label %head
exit:
  ret void
}";
        assert_eq!(fills_of(ir), vec![("%a".to_string(), vec![(0, 7)])]);
    }

    /// Not fills: the trip count is an argument, the store is conditional,
    /// the loop may break early.
    #[test]
    fn unknown_trip_counts_conditions_and_breaks_do_not_fill() {
        let arg = "define void @f(i64 %n0) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds i32, ptr @g, i64 %i
  store i32 0, ptr %p
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, %n0
  br i1 %c, label %loop, label %exit
exit:
  ret void
}";
        assert_eq!(fills_of(arg), vec![]);
        let cond = "define void @f(i1 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %latch ]
  br i1 %k, label %st, label %latch
st:
  %p = getelementptr inbounds i32, ptr @g, i64 %i
  store i32 0, ptr %p
  br label %latch
latch:
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 16
  br i1 %c, label %loop, label %exit
exit:
  ret void
}";
        assert_eq!(fills_of(cond), vec![]);
        let brk = "define void @f(i1 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %latch ]
  %p = getelementptr inbounds i32, ptr @g, i64 %i
  store i32 0, ptr %p
  br i1 %k, label %exit, label %latch
latch:
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 16
  br i1 %c, label %loop, label %exit
exit:
  ret void
}";
        assert_eq!(fills_of(brk), vec![]);
        // A buffer argument has no size: no fill of it (see fills.rs).
        let buffer = "define void @f(ptr noalias %b) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds i32, ptr %b, i64 %i
  store i32 0, ptr %p
  %n = add nsw i64 %i, 1
  %c = icmp slt i64 %n, 16
  br i1 %c, label %loop, label %exit
exit:
  ret void
}";
        assert_eq!(fills_of(buffer), vec![]);
        // An exit test 40 doublings deep, each using the one before twice:
        // walked as a tree it would take 2^40 steps; the step cap gives up.
        let mut chain = String::from("  %d0 = add i64 %i, %i\n");
        for k in 1..40 {
            chain += &format!("  %d{k} = add i64 %d{}, %d{}\n", k - 1, k - 1);
        }
        let deep = format!(
            "define void @f() {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  %p = getelementptr inbounds i32, ptr @g, i64 %i
  store i32 0, ptr %p
  %n = add nsw i64 %i, 1
{chain}  %c = icmp ne i64 %d39, 0
  br i1 %c, label %loop, label %exit
exit:
  ret void
}}"
        );
        assert_eq!(fills_of(&deep), vec![]);
    }

    /// `for r < 4: for c < 8: h[r][c] = 0`: the inner loop alone writes a
    /// row that depends on `r` (no fill); the outer one the whole array. With
    /// `c < 7` each row misses its last element: four pieces.
    #[test]
    fn nested_fill_of_a_2d_array() {
        let nest = |inner: i64| {
            format!(
                "define void @f() {{
entry:
  br label %outer
outer:
  %r = phi i64 [ 0, %entry ], [ %rn, %olatch ]
  br label %inner
inner:
  %c = phi i64 [ 0, %outer ], [ %cn, %inner ]
  %p = getelementptr inbounds [4 x [8 x i16]], ptr @h, i64 0, i64 %r, i64 %c
  store i16 7, ptr %p
  %cn = add nuw nsw i64 %c, 1
  %ic = icmp ult i64 %cn, {inner}
  br i1 %ic, label %inner, label %olatch
olatch:
  %rn = add nuw nsw i64 %r, 1
  %oc = icmp ult i64 %rn, 4
  br i1 %oc, label %outer, label %exit
exit:
  ret void
}}"
            )
        };
        assert_eq!(fills_of(&nest(8)), vec![("@h".to_string(), vec![(0, 63)])]);
        assert_eq!(fills_of(&nest(7)), vec![("@h".to_string(), vec![(0, 13), (16, 29), (32, 45), (48, 61)])]);
    }

    /// The chains: a `memset` before a fill reaches nothing after it; the
    /// load after the loop depends on the loop's store only.
    #[test]
    fn the_use_after_a_fill_depends_on_the_loop_only() {
        let ir = "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
define i32 @f(i64 %k) {
entry:
  %a = alloca [16 x i32]
  call void @llvm.memset.p0.i64(ptr %a, i8 0, i64 64, i1 false)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %x = zext i32 %i to i64
  %p = getelementptr inbounds nuw i32, ptr %a, i64 %x
  store i32 %i, ptr %p
  %n = add nuw nsw i32 %i, 1
  %c = icmp samesign ult i32 %i, 15
  br i1 %c, label %loop, label %exit
exit:
  %q = getelementptr inbounds i32, ptr %a, i64 %k
  %v = load i32, ptr %q
  ret i32 %v
}";
        let ctx = Context::create();
        let m = parse_ir(&ctx, "t.ll", ir.as_bytes()).unwrap();
        let f = m.get_function("f").unwrap();
        let fc = FunctionCfg::new(f);
        let dom = DomTree::dominators(&fc.cfg);
        let md = MemDeps::compute(&fc, &dom, Config::SOUND);
        use super::super::model::Def;
        // #1 memset, #2 store, #3 load.
        assert_eq!(md.solution.use_defs[2], Some(vec![Def::Access(1)]));
        assert!(md.solution.def_uses()[0].is_empty(), "the memset is read by nothing");
        let without = MemDeps::compute(&fc, &dom, Config { fills: false, ..Config::SOUND });
        assert_eq!(without.solution.use_defs[2], Some(vec![Def::Access(0), Def::Access(1)]));
    }
}
