//! The analysis cache hands out analyses of the CFG as it is now: changing a
//! function's edges behind the cache's back must not yield stale answers.

use inkwell::context::Context;
use inkwell::values::AsValueRef;
use simt_passes::analysis::cache::AnalysisCache;
use simt_passes::cfg::BlockId;
use simt_passes::ir::parse_ir;

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
    unsafe { llvm_sys::core::LLVMInstructionEraseFromParent(bb_b.get_terminator().unwrap().as_value_ref()) };
    builder.position_at_end(bb_b);
    builder.build_unconditional_branch(bb_a).unwrap();

    let fa = cache.get(f);
    assert_eq!(fa.dom().idom(3), Some(1), "stale dominator tree handed out");
    assert_eq!(fa.postdom().ipdom(BlockId(2)), Some(BlockId(1)));
    assert_eq!(cache.recomputations(), 2);
}
