//! The analysis cache hands out analyses of the CFG as it is now: changing a
//! function's edges behind the cache's back must not yield stale answers.

use inkwell::context::Context;
use inkwell::values::{AnyValue, AsValueRef};
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::cfg::BlockId;
use simt_passes::ir::parse_ir;
use simt_passes::pass::Preserved;

const IR: &str = r#"
define void @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  ret void
}
"#;

#[test]
fn recomputes_after_cfg_change_and_reuses_otherwise() {
    let ctx = Context::create();
    let m = parse_ir(&ctx, "cache.ll", IR.as_bytes()).unwrap();
    let f = m.get_function("f").unwrap();
    let mut cache = AnalysisCache::new();

    assert_eq!(cache.get(f).dom().idom(3), Some(0), "join is dominated by entry only");
    assert_eq!(cache.get(f).postdom().ipdom(BlockId(0)), Some(BlockId(3)));
    assert_eq!(cache.recomputations(), 1);
    cache.get(f);
    assert_eq!(cache.recomputations(), 1, "unchanged CFG: cached analyses reused");

    // Redirect b -> a instead of b -> join: now a dominates nothing new, but
    // join's only predecessor is a, so idom(join) = a.
    let builder = ctx.create_builder();
    let bb_a = f.get_basic_blocks()[1];
    let bb_b = f.get_basic_blocks()[2];
    // SAFETY: the terminator is a live instruction of `f`, which `m` keeps
    // alive; a `br` has no users, and its handle is not used after this.
    unsafe { llvm_sys::core::LLVMInstructionEraseFromParent(bb_b.get_terminator().unwrap().as_value_ref()) };
    builder.position_at_end(bb_b);
    builder.build_unconditional_branch(bb_a).unwrap();

    let fa = cache.get(f);
    assert_eq!(fa.dom().idom(3), Some(1), "stale dominator tree handed out");
    assert_eq!(fa.postdom().ipdom(BlockId(2)), Some(BlockId(1)));
    assert_eq!(cache.recomputations(), 2);
}

/// `verify` (the `SIMT_VERIFY_ANALYSES` mode) sees a cached uniformity that a
/// change of instructions made stale, and accepts one that is still right.
#[test]
fn verify_catches_a_stale_uniformity() {
    use simt_passes::transform::testing::LIAR_INPUT as KERNEL;
    let ctx = Context::create();
    let m = parse_ir(&ctx, "stale.ll", KERNEL.as_bytes()).unwrap();
    let f = m.get_function("k").unwrap();
    let mut cache = AnalysisCache::new();
    let insts: Vec<_> = f.get_first_basic_block().unwrap().get_instructions().collect();
    let (tid, x) = (insts[0], insts[1]);
    assert!(!cache.get(f).uniformity().is_divergent(x), "n + 1 is uniform");
    cache.get(f).dom();
    assert_eq!(cache.verify(&m, Preserved::all()), Ok(()), "nothing changed");

    // %x = add i32 %tid, 1: divergent now, but the cache was not told.
    assert!(x.set_operand(0, tid.as_any_value_enum().into_int_value()));
    let err = cache.verify(&m, Preserved::all()).expect_err("a stale uniformity must be reported");
    assert!(err.contains("uniformity") && err.contains("'k'"), "{err}");

    cache.invalidate(Preserved::cfg_analyses());
    assert_eq!(cache.verify(&m, Preserved::cfg_analyses()), Ok(()), "the dominator tree is still right");
    assert!(cache.get(f).uniformity().is_divergent(x));
    assert_eq!(cache.verify(&m, Preserved::cfg_analyses()), Ok(()));
}
