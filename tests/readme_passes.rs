//! The README's pass table and printer list say what `simt-opt -print-passes`
//! says: the same passes, each with its seed and its options, and nothing
//! else. Both come from the passes' own declarations (`DeclaredPass`), so a
//! pass added without its README row, or a row for a pass that is gone, fails
//! here.

use std::collections::BTreeMap;

/// Pass name → (seed, options).
type PassTable = BTreeMap<String, (String, Vec<String>)>;

/// name → (seed, options), from `-print-passes`.
fn listed() -> (PassTable, Vec<String>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_simt-opt")).arg("-print-passes").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut passes: PassTable = BTreeMap::new();
    let mut printers = Vec::new();
    let mut last = None;
    for line in text.lines().skip(1) {
        let t = line.trim();
        if let Some(opt) = t.strip_prefix('<') {
            let opt = opt.split(">:").next().unwrap().to_string();
            passes.get_mut(last.as_ref().expect("an option after its pass")).unwrap().1.push(opt);
            continue;
        }
        let name = t.split_whitespace().next().unwrap().to_string();
        if name.starts_with("print<") {
            printers.push(name);
            continue;
        }
        let seed = t.split("[seed ").nth(1).map_or("–".to_string(), |r| r[..r.find(']').unwrap()].to_string());
        passes.insert(name.clone(), (seed, Vec::new()));
        last = Some(name);
    }
    (passes, printers)
}

/// The same from README.md's "### Passes" table and "Printers:" sentence.
fn documented() -> (PassTable, Vec<String>) {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let table = &readme[readme.find("### Passes").expect("a pass table")..];
    let mut passes = BTreeMap::new();
    for row in table.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2) {
        // Cells split at `|` but not at `\|` (a `|` inside a cell, as
        // Markdown writes it), which stands for `|`.
        let row = row.replace("\\|", "\u{0}");
        let cells: Vec<String> = row.split('|').map(|c| c.trim().replace('\u{0}', "|")).collect();
        let first = cells[1].trim_matches('`');
        let (name, opts) = match first.split_once("[<") {
            Some((n, rest)) => (n, rest.trim_end_matches(">]").split(';').map(String::from).collect()),
            None => (first, Vec::new()),
        };
        passes.insert(name.to_string(), (cells[2].to_string(), opts));
    }
    let sentence = &readme[readme.find("Printers:").expect("a printer list")..];
    let sentence = &sentence[..sentence.find(".\n").unwrap()];
    let printers = sentence.split('`').skip(1).step_by(2).map(String::from).collect();
    (passes, printers)
}

#[test]
fn readme_pass_table_matches_print_passes() {
    let (passes, mut printers) = listed();
    let (doc_passes, mut doc_printers) = documented();
    assert!(passes.len() >= 8, "-print-passes lists the passes: {passes:?}");
    assert_eq!(doc_passes, passes, "README.md's pass table (left) against -print-passes (right)");
    printers.sort();
    doc_printers.sort();
    assert_eq!(doc_printers, printers, "README.md's printers against -print-passes");
}
