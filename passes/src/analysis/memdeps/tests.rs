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
