//! Kernel sources where IR is expected (`src/source.rs`): `.cl` and `.cu`
//! files are compiled with clang-22 as `test-ir/kernels/regen` compiles the
//! corpus, `-D`/`-I`/`-cl-std`/`--keep-ir` reach clang, and clang's errors
//! reach the user with the tool's own error line.

mod common;

use common::{kernels_dir, simt_run};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn simt_opt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simt-opt")).args(args).output().expect("simt-opt runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every corpus source gives, through `simt-opt SRC`, the module its committed
/// `.ll` holds (compared by `llvm-diff`, which ignores value numbering and
/// use-list order): the tools compile sources exactly as the corpus was made.
#[test]
fn corpus_sources_compile_to_the_corpus_modules() {
    let tmp = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for entry in std::fs::read_dir(kernels_dir()).unwrap() {
        let src = entry.unwrap().path();
        let ll = match src.extension().and_then(|e| e.to_str()) {
            Some("cl") => src.with_extension("ll"),
            Some("cu") => PathBuf::from(format!("{}.ll", src.display())),
            _ => continue,
        };
        let out = tmp.path().join("out.ll");
        let o = simt_opt(&[src.to_str().unwrap(), "-S", "-o", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", src.display(), stderr(&o));
        let diff = Command::new("/usr/lib/llvm-22/bin/llvm-diff").arg(&out).arg(&ll).output().expect("llvm-diff runs");
        assert!(diff.status.success(), "{} differs from {}:\n{}", src.display(), ll.display(), String::from_utf8_lossy(&diff.stderr));
        compared += 1;
    }
    assert!(compared >= 20, "only {compared} sources found");
}

#[test]
fn defines_includes_language_version_and_kept_ir_reach_clang() {
    let tmp = tempfile::tempdir().unwrap();
    let inc = tmp.path().join("inc");
    std::fs::create_dir(&inc).unwrap();
    std::fs::write(inc.join("bias.h"), "#define BIAS 11\n").unwrap();
    let src = tmp.path().join("k.cl");
    // CL_VERSION_2_0 is defined under -cl-std=CL2.0, not under CL1.2.
    std::fs::write(
        &src,
        "#include \"bias.h\"\n#if __OPENCL_C_VERSION__ >= 200\n#error wrong version\n#endif\n\
         __kernel void k(__global int *o) { o[get_global_id(0)] = SCALE * (int)get_global_id(0) + BIAS; }\n",
    )
    .unwrap();
    let keep = tmp.path().join("kept");
    let (src_s, inc_s, keep_s) = (src.to_str().unwrap(), inc.to_str().unwrap(), keep.to_str().unwrap());
    let o = simt_opt(&[src_s, "-DSCALE=7", "-I", inc_s, "-cl-std=CL1.2", "--keep-ir", keep_s, "-S", "-o", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ir = String::from_utf8_lossy(&o.stdout);
    assert!(ir.contains("mul nsw i32 %3, 7") && ir.contains("add nsw i32 %4, 11"), "{ir}");
    assert!(std::fs::read_to_string(keep.join("k.ll")).unwrap().contains("spir_kernel void @k("));
    // Without -cl-std=CL1.2 the #error fires.
    let o = simt_opt(&[src_s, "-DSCALE=7", "-I", inc_s, "-S", "-o", "-"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn clang_errors_name_the_source_and_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("bad.cl");
    std::fs::write(&src, "__kernel void k(__global int *o) { o[0] = UNDEFINED; }\n").unwrap();
    let o = simt_opt(&[src.to_str().unwrap(), "-S", "-o", "-"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("bad.cl:1:43: error: use of undeclared identifier 'UNDEFINED'"), "{e}");
    assert!(e.contains(&format!("simt-opt: error: {}: clang-22 could not compile it", src.display())), "{e}");
}

#[test]
fn cl_std_on_a_cuda_source_is_a_usage_error() {
    let cu = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-ir/examples/saxpy.cu");
    let o = simt_opt(&[cu.to_str().unwrap(), "-cl-std=CL1.2", "-S", "-o", "-"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("-cl-std applies to OpenCL C"));
}

/// `simt-run k.cl` runs what `simt-run k.ll` runs.
#[test]
fn simt_run_takes_a_source() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("dump");
    let launch = |file: &str, extra: &[&str]| {
        simt_run()
            .arg(kernels_dir().join(file))
            .args(["--kernel", "saxpy", "--global", "1024", "--local", "64", "--arg", "i32:1000", "--arg", "f32:2"])
            .args(["--arg", "buf:f32:1024=rand:1", "--arg", "buf:f32:1024=ramp"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = launch("saxpy.cl", &["--dump", dump.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = launch("saxpy.ll", &["--compare", dump.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("2 buffer(s) match"), "{}", stderr(&o));
}

/// `simt-run`'s `-D`/`-cl-std` reach clang (clang's own spelling
/// `-cl-std=CL1.2` included), and `--keep-ir` keeps the module.
#[test]
fn simt_run_passes_source_options_to_clang() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("k.cl");
    std::fs::write(
        &src,
        "#if __OPENCL_C_VERSION__ >= 200\n#error wrong version\n#endif\n\
         __kernel void k(__global int *o) { o[get_global_id(0)] = SCALE * (int)get_global_id(0); }\n",
    )
    .unwrap();
    let (dump, keep) = (tmp.path().join("dump"), tmp.path().join("kept"));
    let o = simt_run()
        .arg(&src)
        .args(["-D", "SCALE=5", "-cl-std=CL1.2", "--keep-ir", keep.to_str().unwrap()])
        .args(["--global", "8", "--local", "4", "--arg", "buf:i32:8", "--dump", dump.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let got: Vec<i32> =
        std::fs::read(dump.join("arg0.bin")).unwrap().chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got, (0..8).map(|i| 5 * i).collect::<Vec<_>>());
    assert!(keep.join("k.ll").exists());
}
