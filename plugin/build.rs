//! Compiles the C++ half of the plugin (src/shim.cpp) against LLVM 22's
//! headers, with the flags `llvm-config-22 --cxxflags` gives (the same
//! `-D` switches and C++ standard libLLVM was built with; a mismatch there
//! breaks the ABI silently). `LLVM_CONFIG` names another llvm-config.

use std::process::Command;

fn main() {
    let llvm_config = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-22".into());
    println!("cargo:rerun-if-changed=src/shim.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    let out = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|e| panic!("cannot run '{llvm_config}' for LLVM 22's C++ flags: {e}"));
    assert!(out.status.success(), "'{llvm_config} --cxxflags' failed: {}", String::from_utf8_lossy(&out.stderr));
    let flags = String::from_utf8(out.stdout).expect("llvm-config prints ASCII");
    let mut build = cc::Build::new();
    build.cpp(true).file("src/shim.cpp").warnings(false);
    for flag in flags.split_whitespace() {
        build.flag(flag);
    }
    build.compile("simt_plugin_shim");
}
