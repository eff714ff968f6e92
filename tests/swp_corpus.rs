//! `simt-swp` on every corpus kernel, proven by running: for each launch of
//! the corpus (`tests/corpus`) and each machine model, the module after
//! `simt-swp` (and after `simt-ifconvert` then `simt-swp`, which makes more
//! loop bodies single blocks) must compute, on the host engine and on the
//! SIMT emulator, exactly the buffers the original computes on the host.
//! Launches whose module no loop of which was pipelined are not run again.
//! (This found that `simt-wiloops` shared, in one slot per work-group, the
//! address of a private array across a barrier: region_private after
//! `simt-swp` on the host; fixed by `PrivateAddresses` in wiloops.)

mod corpus;

use std::path::Path;
use std::process::{Command, Output};

fn simt_run(module: &Path, launch: &corpus::Launch, extra: &[&str]) -> Output {
    let (_, global, local, args) = *launch;
    corpus::simt_run(module, global, local, args, extra)
}

#[test]
fn pipelined_corpus_loops_compute_what_the_originals_compute() {
    let tmp = tempfile::tempdir().unwrap();
    let mut pipelined = 0;
    for launch in corpus::LAUNCHES {
        let file = launch.0;
        let original = corpus::dir().join(file);
        let reference = |engine: &str| tmp.path().join(format!("{file}.{engine}.ref"));
        let mut have_reference = false;
        for pipeline in ["simt-swp<machine=itanium2>", "simt-swp<machine=hexagon>", "simt-ifconvert,simt-swp<machine=hexagon>"] {
            let out = tmp.path().join("swp.ll");
            let o = Command::new(env!("CARGO_BIN_EXE_simt-opt"))
                .env("SIMT_SWP_NOTES", "1")
                .args(["-passes", pipeline, "-S", "-o"])
                .arg(&out)
                .arg(&original)
                .output()
                .unwrap();
            let notes = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{file} {pipeline}: {notes}");
            let loops = notes.lines().filter(|l| l.contains(": pipelined")).count();
            if loops == 0 {
                continue;
            }
            pipelined += loops;
            for engine in ["host", "emu"] {
                if !have_reference {
                    let r = simt_run(&original, launch, &["--engine", engine, "--dump", reference(engine).to_str().unwrap()]);
                    assert!(r.status.success(), "{file}: {}", String::from_utf8_lossy(&r.stderr));
                }
                let r = simt_run(&out, launch, &["--engine", engine, "--compare", reference(engine).to_str().unwrap()]);
                assert!(r.status.success(), "{file} after {pipeline} on {engine}: {}", String::from_utf8_lossy(&r.stderr));
            }
            have_reference = true;
        }
    }
    // matmul's tile loop and live_across_barriers' copy loops at least.
    assert!(pipelined >= 4, "only {pipelined} corpus loops pipelined");
}
