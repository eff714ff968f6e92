//! Seed 000's run side with a good program order: after `simt-rpo-layout`
//! and `simt-converge`, the markers policy issues no more warp-instructions
//! than IPDOM reconvergence on structured kernels (where clang's layout alone
//! cost a few), and computes the same buffers.

use std::process::Command;

fn tool(name: &str) -> &'static str {
    match name {
        "opt" => env!("CARGO_BIN_EXE_simt-opt"),
        _ => env!("CARGO_BIN_EXE_simt-run"),
    }
}

fn warp_instructions(module: &str, kernel: &str, launch: &[&str], policy: &str, extra: &[&str]) -> u64 {
    let out = Command::new(tool("run"))
        .args([module, "--kernel", kernel])
        .args(launch)
        .args(["--engine", "emu", "--policy", policy, "--stats", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["warp_instructions"].as_u64().expect("warp_instructions")
}

#[test]
fn markers_never_worse_than_ipdom_after_rpo_layout() {
    let cases: [(&str, &str, Vec<&str>); 2] = [
        (
            "reduction.ll",
            "reduce_sum",
            vec![
                "--global",
                "4096",
                "--local",
                "256",
                "--arg",
                "buf:f32:16384=rand:5",
                "--arg",
                "buf:f32:16",
                "--arg",
                "local:f32:256",
                "--arg",
                "u32:16384",
            ],
        ),
        (
            "histogram.ll",
            "histogram256",
            vec!["--global", "1024", "--local", "256", "--arg", "buf:u8:65536=rand:10", "--arg", "u32:65536", "--arg", "buf:u32:256"],
        ),
    ];
    for (file, kernel, launch) in cases {
        let dir = tempfile::tempdir().unwrap();
        let marked = dir.path().join("marked.ll");
        let original = format!("test-ir/kernels/{file}");
        let st =
            Command::new(tool("opt")).args(["-passes=simt-rpo-layout,simt-converge", "-S", &original, "-o"]).arg(&marked).status().unwrap();
        assert!(st.success());
        let dump = dir.path().join("ipdom");
        let d = dump.to_str().unwrap();
        let ipdom = warp_instructions(&original, kernel, &launch, "ipdom", &["--dump", d]);
        let markers = warp_instructions(marked.to_str().unwrap(), kernel, &launch, "markers", &["--compare", d]);
        assert!(markers <= ipdom, "{file}: markers {markers} > ipdom {ipdom}");
    }
}
