//! `-mcpu=NAME` must name a processor LLVM knows for the target.
//!
//! LLVM accepts any CPU name: for one it does not know, building the
//! subtarget prints `'sm_999' is not a recognized processor for this target
//! (ignoring processor)` on stderr and goes on with the generic processor,
//! so `simt-opt -mcpu=sm_999` exited 0 after 12 such warnings with PTX that
//! ptxas rejects, and a misspelt x86 CPU silently lost its features. An
//! unknown CPU is now a usage error naming the nearest valid name and, for
//! targets with few, all of them.
//!
//! How: LLVM's C API cannot ask whether a CPU is valid
//! (`MCSubtargetInfo::isCPUStringValid` is C++ only). So the target machine
//! is built once with stderr (descriptor 2) redirected to a temporary file,
//! and the file is searched for LLVM's message; building it for the CPU
//! `help` prints the valid names the same way (`llc -mcpu=help`). The
//! message's wording has been LLVM's since 2011 (`MCSubtargetInfo.cpp`);
//! should it change, the check lets every CPU through, as before, and the
//! test of this module fails.
//!
//! Limits: LLVM prints the help once per process, so only the first unknown
//! CPU of a process gets the list (simt-opt stops at the first). While stderr is redirected (one target-machine build) anything
//! another thread prints there is lost; simt-opt checks before it starts
//! any. Only simt-opt checks: the GPU engine passes the device's own `sm_`,
//! which a newer GPU than LLVM knows may not match, and generic PTX still
//! runs there.

use crate::diag::ToolError;
use crate::lower::TargetSpec;
use inkwell::targets::{CodeModel, RelocMode, Target, TargetTriple};
use inkwell::OptimizationLevel;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;

/// Above this many valid names the error gives the nearest only.
const LIST_AT_MOST: usize = 60;

/// Checks `spec.cpu` for `triple`: fine when empty, `help`, `native` on x86-64, or a
/// processor the target knows; a usage error otherwise. Triples without a
/// code generator here are not checked (there is no target machine to use
/// the CPU).
pub fn check(triple: &str, spec: &TargetSpec) -> Result<(), ToolError> {
    let cpu = spec.cpu.as_str();
    let arch = triple.split('-').next().unwrap_or("");
    // `help` is LLVM's: it prints the list, as in llc.
    if cpu.is_empty() || cpu == "help" || (cpu == "native" && arch == "x86_64") || !matches!(arch, "x86_64" | "nvptx64" | "nvptx") {
        return Ok(());
    }
    let t = TargetTriple::create(triple);
    let Ok(target) = Target::from_triple(&t) else { return Ok(()) };
    let build = |cpu: &str| {
        let tm = target.create_target_machine(&t, cpu, "", OptimizationLevel::Default, RelocMode::PIC, CodeModel::Default);
        drop(tm);
    };
    let Ok(((), printed)) = with_stderr_captured(|| build(cpu)) else { return Ok(()) };
    if !printed.contains(&format!("'{cpu}' is not a recognized processor for this target")) {
        return Ok(());
    }
    let valid = with_stderr_captured(|| build("help")).map(|((), text)| cpu_names(&text)).unwrap_or_default();
    let mut message = format!("error: -mcpu={cpu} is not a processor of target '{triple}'");
    // Nearest by edit distance, then by the longest shared prefix (sm_999:
    // sm_90 before sm_89).
    let shared = |v: &str| v.bytes().zip(cpu.bytes()).take_while(|(a, b)| a == b).count();
    if let Some(near) = valid.iter().min_by_key(|v| (strsim::levenshtein(v, cpu), std::cmp::Reverse(shared(v)))) {
        message += &format!("; did you mean '{near}'?");
    }
    if valid.len() <= LIST_AT_MOST && !valid.is_empty() {
        message += &format!(" (valid: {})", valid.join(", "));
    } else if !valid.is_empty() {
        message += &format!(" ({} valid names; `llc -mtriple={triple} -mcpu=help` lists them)", valid.len());
    }
    Err(ToolError::Usage(message))
}

/// The CPU names of LLVM's `-mcpu=help` text: the first word of each line
/// after `Available CPUs for this target:` up to the blank line that ends
/// the list.
fn cpu_names(help: &str) -> Vec<String> {
    let Some(start) = help.find("Available CPUs for this target:") else { return Vec::new() };
    let mut lines = help[start..].lines().skip(1).skip_while(|l| l.trim().is_empty());
    let mut names = Vec::new();
    for line in lines.by_ref() {
        match line.split_whitespace().next() {
            Some(name) => names.push(name.to_string()),
            None => break,
        }
    }
    names
}

/// Runs `f` with descriptor 2 pointing at a temporary file; returns what was
/// written there.
fn with_stderr_captured<T>(f: impl FnOnce() -> T) -> std::io::Result<(T, String)> {
    let mut file = tempfile::tempfile()?;
    let _ = std::io::stderr().flush();
    // SAFETY: dup of descriptor 2 has no memory-safety preconditions; the copy is closed below.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors are open: `file`'s, and 2 (saved above).
    if unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: `saved` is our own descriptor from dup above.
        unsafe { libc::close(saved) };
        return Err(e);
    }
    let value = f();
    // SAFETY: `saved` is open (dup above); dup2 puts the original stderr back on 2, then our copy is closed.
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    let mut text = String::new();
    file.rewind()?;
    file.read_to_string(&mut text)?;
    Ok((value, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(cpu: &str) -> TargetSpec {
        TargetSpec { cpu: cpu.into(), ..TargetSpec::default() }
    }

    #[test]
    fn unknown_cpus_are_errors_and_known_ones_pass() {
        crate::llvm_init::init();
        let e = check("nvptx64-nvidia-cuda", &spec("sm_999")).unwrap_err().to_string();
        assert!(
            e.starts_with("error: -mcpu=sm_999 is not a processor of target 'nvptx64-nvidia-cuda'; did you mean 'sm_90'? (valid: "),
            "{e}"
        );
        assert!(e.contains("sm_70") && e.contains("sm_80"), "{e}");
        // LLVM prints the help once per process: the list is the first
        // check's only (the catalogue runs x86's in a process of its own).
        let e = check("x86_64-unknown-linux-gnu", &spec("skylakke")).unwrap_err().to_string();
        assert!(e.starts_with("error: -mcpu=skylakke is not a processor of target 'x86_64-unknown-linux-gnu'"), "{e}");
        for (triple, cpu) in [
            ("nvptx64-nvidia-cuda", "sm_70"),
            ("x86_64-unknown-linux-gnu", "skylake"),
            ("x86_64-unknown-linux-gnu", "native"),
            ("x86_64-unknown-linux-gnu", ""),
            ("spir64-unknown-unknown", "anything"),
        ] {
            assert!(check(triple, &spec(cpu)).is_ok(), "{triple} {cpu}");
        }
    }

    #[test]
    fn help_text_is_read_to_the_blank_line() {
        let help = "Available CPUs for this target:\n\n  sm_20  - Select the sm_20 processor.\n  sm_90a - Select.\n\nAvailable features for this target:\n\n  ptx60 - Use PTX version 6.0.\n";
        assert_eq!(cpu_names(help), vec!["sm_20", "sm_90a"]);
        assert!(cpu_names("nothing").is_empty());
    }
}
