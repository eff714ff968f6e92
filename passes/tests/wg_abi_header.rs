//! `test-ir/aot/simt_wg.h` against the one definition of the work-group ABI
//! in `passes/src/wg_abi.rs`: the file must be what [`wg_abi::c_header`]
//! generates (`SIMT_BLESS=1` rewrites it, like the corpus' `regen`), and a C
//! compiler must lay the struct out at the offsets of the Rust `#[repr(C)]`
//! struct (`_Static_assert` on `offsetof`).

use simt_passes::wg_abi::{self, Scalar, CTX_FIELDS};
use std::path::PathBuf;
use std::process::Command;

fn header_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test-ir/aot/simt_wg.h")
}

#[test]
fn the_header_is_generated_from_the_table() {
    let want = wg_abi::c_header();
    if std::env::var_os("SIMT_BLESS").is_some() {
        std::fs::write(header_path(), &want).expect("write simt_wg.h");
    }
    let have = std::fs::read_to_string(header_path()).expect("read simt_wg.h");
    assert!(have == want, "test-ir/aot/simt_wg.h is out of date with passes/src/wg_abi.rs: run this test with SIMT_BLESS=1");
}

#[test]
fn a_c_compiler_agrees_with_the_table() {
    let mut c = String::from("#include <stddef.h>\n#include \"simt_wg.h\"\n");
    for f in CTX_FIELDS {
        let size = match f.scalar {
            Scalar::U32 => 4,
            Scalar::U64 | Scalar::Ptr => 8,
        } * f.array.unwrap_or(1);
        c += &format!(
            "_Static_assert(offsetof(struct simt_wg_ctx, {n}) == {o}, \"{n} at {o}\");\n\
             _Static_assert(sizeof(((struct simt_wg_ctx *)0)->{n}) == {size}, \"{n} is {size} bytes\");\n",
            n = f.name,
            o = f.offset
        );
    }
    c += &format!(
        "_Static_assert(sizeof(struct simt_wg_ctx) == {}, \"size\");\nSIMT_WG_DECLARE(k)\n",
        std::mem::size_of::<wg_abi::WgContext>()
    );
    let dir = std::env::temp_dir().join(format!("simt-wg-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("check.c");
    std::fs::write(&file, &c).unwrap();
    let include = header_path().parent().unwrap().to_path_buf();
    let out = Command::new("cc").arg("-std=c11").arg("-fsyntax-only").arg("-I").arg(&include).arg(&file).output().expect("run cc");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "cc rejected the layout:\n{}\n{c}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_table_is_the_rust_struct() {
    // Offsets come from offset_of!, so only the order and the sizes can drift.
    let ends: Vec<usize> = CTX_FIELDS.windows(2).map(|w| w[1].offset).collect();
    assert!(ends.windows(2).all(|w| w[0] < w[1]), "fields in order");
    assert_eq!(CTX_FIELDS.len(), wg_abi::field::GLOBAL_SIZE as usize + 1);
    assert_eq!(CTX_FIELDS[wg_abi::field::ERROR as usize].offset, 100);
    assert_eq!(wg_abi::barrier_table_len(2), 4);
    assert_eq!(wg_abi::exit_id(2), 3);
}
