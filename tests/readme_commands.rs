//! Every command in README.md's `sh` blocks runs and succeeds, in order, in
//! a fresh folder that sees the repository's `test-ir/` (so the README
//! cannot drift from the tools). The two `scripts/` commands are left out:
//! `scripts/test` is what runs this test, and `scripts/example` builds a
//! release of its own (it runs the same tools on the same kernel).

use std::path::Path;
use std::process::Command;

/// The commands of the README's `sh` blocks: comments dropped, `\`
/// continuations joined.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = match line.find("  #") {
            Some(i) => &line[..i],
            None => line,
        }
        .trim_end();
        match code.strip_suffix('\\') {
            Some(head) => pending += head,
            None => {
                pending += code;
                let c = std::mem::take(&mut pending).trim().to_string();
                if !c.is_empty() {
                    commands.push(c);
                }
            }
        }
    }
    commands
}

#[test]
fn every_readme_command_works() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_simt-opt")).parent().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("test-ir"), dir.path().join("test-ir")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let commands: Vec<String> = readme_commands().into_iter().filter(|c| !c.starts_with("scripts/")).collect();
    assert!(commands.len() >= 8, "README commands: {commands:?}");
    for c in commands {
        let out = Command::new("bash").arg("-c").arg(&c).current_dir(dir.path()).env("PATH", &path).output().unwrap();
        assert!(out.status.success(), "README command failed ({}): {c}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    }
}
