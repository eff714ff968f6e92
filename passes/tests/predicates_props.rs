//! Property tests for the RK predicates (`analysis/predicates.rs`), checked
//! by executing them: on random acyclic CFGs (several exits, switches,
//! unstructured joins), every entry-to-exit path is run through the
//! linearised predicate code the analysis describes, and each block's guard
//! must be true exactly when the path visits the block.
//!
//! The linearised code follows the analysis's reading of the blog (seed 004
//! notes §3, interpretation B): registers start undefined except those Augment
//! K initialises to false; a define of p from edge x→y in K(p) is guarded by
//! R(x): with one K entry it writes `p = (x took y)` when the guard holds and
//! nothing otherwise; with several it is `p |= guard ∧ (x took y)`, reading
//! p. Reading an undefined register fails the test (Augment K too small);
//! blocks off the path take every possible successor, since their branch
//! conditions are garbage in the linearised code.

use proptest::prelude::*;
use simt_passes::analysis::control_deps::ControlDeps;
use simt_passes::analysis::post_dominators::PostDomTree;
use simt_passes::analysis::predicates::{PredId, Predicates};
use simt_passes::cfg::{BlockId, Cfg};
use std::collections::BTreeMap;

/// Acyclic graphs: edges only go forward in layout order; blocks with no
/// successors return.
fn acyclic_cfg() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (2usize..14).prop_flat_map(|n| {
        let block = proptest::collection::vec(1u32..6, 0..=3);
        proptest::collection::vec(block, n).prop_map(move |blocks| {
            blocks
                .into_iter()
                .enumerate()
                .map(|(b, offs)| {
                    if b + 1 == n {
                        return Vec::new();
                    }
                    let mut l: Vec<u32> = offs.into_iter().map(|o| (b as u32 + o).min(n as u32 - 1)).collect();
                    if l.is_empty() && b < 2 {
                        l.push(b as u32 + 1);
                    }
                    l
                })
                .collect()
        })
    })
}

/// Every path from the entry to an exit.
fn paths(cfg: &Cfg) -> Vec<Vec<BlockId>> {
    let mut out = Vec::new();
    let mut stack = vec![vec![cfg.entry()]];
    while let Some(p) = stack.pop() {
        let last = *p.last().unwrap();
        if cfg.succs(last).is_empty() {
            out.push(p);
            continue;
        }
        for &s in cfg.succs(last) {
            let mut q = p.clone();
            q.push(s);
            stack.push(q);
        }
        if out.len() > 400 {
            break;
        }
    }
    out
}

/// Runs the linearised predicate code on `path`; `off_path(x)` is the
/// successor an unvisited block x "takes". Returns each block's guard value.
fn run(
    cfg: &Cfg,
    preds: &Predicates,
    init_false: &[PredId],
    path: &[BlockId],
    off_path: &dyn Fn(BlockId) -> BlockId,
) -> Result<BTreeMap<BlockId, bool>, String> {
    let mut taken: BTreeMap<BlockId, BlockId> = path.windows(2).map(|w| (w[0], w[1])).collect();
    let mut regs: BTreeMap<PredId, Option<bool>> = preds.predicates().map(|p| (p, None)).collect();
    regs.insert(PredId::TRUE, Some(true));
    for &p in init_false {
        regs.insert(p, Some(false));
    }
    let mut guards = BTreeMap::new();
    for &x in preds.order() {
        let g = preds.r(x);
        let guard = regs[&g].ok_or_else(|| format!("{g} read undefined as the guard of {x}"))?;
        guards.insert(x, guard);
        if cfg.succs(x).is_empty() {
            continue;
        }
        let to = *taken.entry(x).or_insert_with(|| off_path(x));
        for p in preds.defined_in(x).collect::<Vec<_>>() {
            for e in preds.k(p).iter().filter(|e| e.from == x) {
                let term = guard && to == e.to;
                if preds.k(p).len() > 1 {
                    let old = regs[&p].ok_or_else(|| format!("OR define of {p} in {x} reads it undefined"))?;
                    regs.insert(p, Some(old || term));
                } else if guard {
                    regs.insert(p, Some(term));
                }
            }
        }
    }
    Ok(guards)
}

fn check(raw: Vec<Vec<u32>>) -> Result<(), TestCaseError> {
    let cfg = Cfg::from_successors(raw);
    let cd = ControlDeps::compute(&cfg, &PostDomTree::compute(&cfg));
    let preds = Predicates::compute(&cfg, &cd);
    // Properties 1 and 2: one predicate per block, shared exactly by blocks
    // with the same control dependences.
    for &a in cfg.rpo() {
        for &b in cfg.rpo() {
            prop_assert_eq!(preds.r(a) == preds.r(b), cd.of(a) == cd.of(b), "{} {}", a, b);
        }
        prop_assert_eq!(preds.r(a) == PredId::TRUE, cd.of(a).is_empty());
    }
    for path in paths(&cfg) {
        for choice in 0..2usize {
            let off = |x: BlockId| {
                let s = cfg.succs(x);
                s[if choice == 0 { 0 } else { s.len() - 1 }]
            };
            let guards = run(&cfg, &preds, preds.init_false(), &path, &off).map_err(TestCaseError::fail)?;
            for (b, g) in guards {
                prop_assert_eq!(g, path.contains(&b), "block {} on path {:?}", b, path);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
    #[test]
    fn guards_match_paths_on_acyclic_cfgs(raw in acyclic_cfg()) {
        check(raw)?;
    }
}

/// The notes' nested if (§4): without Augment K's p2, p3 = false the path
/// B0 → B4 reads B2's guard undefined, so the initialisation is needed.
#[test]
fn nested_if_needs_augment_k() {
    let cfg = Cfg::from_successors(vec![vec![1, 4], vec![2, 3], vec![4], vec![4], vec![]]);
    let cd = ControlDeps::compute(&cfg, &PostDomTree::compute(&cfg));
    let preds = Predicates::compute(&cfg, &cd);
    assert_eq!(preds.init_false(), &[PredId(2), PredId(3)]);
    check(cfg.successor_lists()).unwrap();
    let b0_b4 = [BlockId(0), BlockId(4)];
    let err = run(&cfg, &preds, &[], &b0_b4, &|x| cfg.succs(x)[0]).unwrap_err();
    assert!(err.contains("read undefined"), "{err}");
}
