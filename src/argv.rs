//! LLVM tools take long options with one dash (`-passes=…`, `-mtriple=…`) as
//! well as two. clap wants two, so known long names written with one dash are
//! rewritten before parsing, and `-O0`…`-O3`, `-Os`, `-Oz` become
//! `--opt-level=N`.

/// Rewrites `args` (without the program name) for clap.
pub fn normalize(args: impl IntoIterator<Item = String>, long_names: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest_are_files = false;
    for a in args {
        if rest_are_files || a == "-" || !a.starts_with('-') || a.starts_with("--") {
            rest_are_files |= a == "--";
            out.push(a);
            continue;
        }
        let body = &a[1..];
        let name = body.split('=').next().unwrap_or(body);
        if let Some(level) = body.strip_prefix('O').filter(|l| matches!(*l, "0" | "1" | "2" | "3" | "s" | "z")) {
            out.push(format!("--opt-level={level}"));
        } else if name.len() > 1 && long_names.contains(&name) {
            out.push(format!("-{a}"));
        } else {
            out.push(a);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_dash_long_options() {
        let got = normalize(
            ["-passes=dce", "-S", "-o", "x.ll", "-O2", "--mcpu=sm_90", "-", "-print-after-all", "-Ox", "-Oz"].map(String::from),
            &["passes", "print-after-all"],
        );
        assert_eq!(
            got,
            vec!["--passes=dce", "-S", "-o", "x.ll", "--opt-level=2", "--mcpu=sm_90", "-", "--print-after-all", "-Ox", "--opt-level=z"]
        );
    }
}
