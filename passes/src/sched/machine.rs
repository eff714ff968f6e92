//! Machine models for the modulo scheduler and the bundlers, a small TOML
//! file each (`passes/machines/NAME.toml`, documented there with their
//! sources, compiled into the binary; `SIMT_MACHINES=DIR` or a path reads
//! others at run time), as LLVM builds its scheduling models from TableGen.
//!
//! A model says: how many bundles issue per cycle; the templates (a bundle's
//! slot kinds in order; a template with a stop inside, or a reserved one, is
//! kept for listing but never used inside a cycle); which slot kinds each unit
//! kind of op may occupy; per-cycle caps by unit kind (issue ports); the
//! latency and unit kind of each machine-independent op class; and the slot
//! priorities of ORC's linear bundler (the baseline of seed 002).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The kind of functional unit an op needs (IA-64: A, I, M, F, B, L).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UnitKind(pub u8);

/// The kind of a bundle slot (IA-64: M, I, F, B, LX).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotKind(pub u8);

/// Index into [`Machine::templates`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TemplateId(pub u8);

#[derive(Clone, Debug)]
pub struct Template {
    pub name: String,
    pub slots: Vec<SlotKind>,
    /// A stop inside the bundle (`MI_I`): it would end the cycle mid-bundle.
    pub stop: bool,
    pub reserved: bool,
}

impl Template {
    /// Whether the template may carry ops of one cycle.
    pub fn usable(&self) -> bool {
        !self.stop && !self.reserved && !self.slots.is_empty()
    }
}

/// An op class's unit kind and result latency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassInfo {
    pub unit: UnitKind,
    pub latency: u32,
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub name: String,
    pub bundles_per_cycle: usize,
    /// Whether an empty slot of a bundle is a NOP (IA-64) or nothing (Hexagon).
    pub fill_nops: bool,
    pub unit_names: Vec<String>,
    pub slot_names: Vec<String>,
    /// Per unit kind: the slot kinds it may occupy.
    pub unit_slots: Vec<Vec<SlotKind>>,
    /// Per unit kind: at most this many per cycle.
    pub caps: Vec<Option<u32>>,
    pub templates: Vec<Template>,
    pub classes: BTreeMap<String, ClassInfo>,
    /// ORC's bundler: per slot index, slot kinds tried for an op, in order.
    pub linear_slot_priority: Vec<Vec<SlotKind>>,
    /// ORC's bundler: per slot index, NOP kinds tried for an empty slot.
    pub linear_nop_priority: Vec<Vec<SlotKind>>,
    /// ORC's bundler: per slot kind, at most this many ops in slots of that
    /// kind per cycle (its own dispersal rule, not the automaton's caps).
    pub linear_slot_caps: Vec<Option<u32>>,
    /// Pairs of op classes instruction selection fuses into one op.
    pub fusions: Vec<Fusion>,
}

/// An op of class `producer` whose one use is an op of class `consumer`
/// (add/sub/and/or/xor, or a select choosing between the two operands of
/// the compare it is conditioned on: a min or max) issues as one op of class
/// `fused` (Hexagon's `Rx += mpyi(Rs,Rt)`, `Rx ^= asl(Rs,#u5)`,
/// `Rx += add(Rs,Rt)`, `Rd = sfmin(Rs,Rt)`). `producer_ops`/`consumer_ops`,
/// when given, narrow the pair to those IR mnemonics (`add`, `fcmp`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fusion {
    pub producer: String,
    pub consumer: String,
    pub fused: String,
    #[serde(default)]
    pub producer_ops: Vec<String>,
    #[serde(default)]
    pub consumer_ops: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    #[error("{path}: {message}")]
    Bad { path: String, message: String },
    #[error("unknown machine '{name}' (no {tried}); known: {known}")]
    Unknown { name: String, tried: String, known: String },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMachine {
    name: String,
    bundles_per_cycle: usize,
    nops: String,
    units: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    caps: BTreeMap<String, u32>,
    templates: Vec<RawTemplate>,
    classes: BTreeMap<String, RawClass>,
    linear: RawLinear,
    #[serde(default)]
    fuse: Vec<Fusion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTemplate {
    name: String,
    slots: Vec<String>,
    #[serde(default)]
    stop: bool,
    #[serde(default)]
    reserved: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClass {
    unit: String,
    latency: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLinear {
    slot_priority: Vec<Vec<String>>,
    nop_priority: Vec<Vec<String>>,
    #[serde(default)]
    slot_caps: BTreeMap<String, u32>,
}

/// The models shipped with simt, compiled into the binary: an installed
/// `simt-opt` needs no source tree (it read `passes/machines/` at run time,
/// so a binary built before a model's format changed failed on the new file).
const SHIPPED: &[(&str, &str)] =
    &[("hexagon", include_str!("../../machines/hexagon.toml")), ("itanium2", include_str!("../../machines/itanium2.toml"))];

/// `SIMT_MACHINES`: a folder of models that replaces the shipped ones.
pub fn machines_dir() -> Option<PathBuf> {
    std::env::var_os("SIMT_MACHINES").map(PathBuf::from)
}

impl Machine {
    /// `NAME` (a shipped model, or one in `SIMT_MACHINES`) or a path to a
    /// `.toml` file.
    pub fn load(name_or_path: &str) -> Result<Machine, MachineError> {
        let as_path = Path::new(name_or_path);
        let path = if name_or_path.ends_with(".toml") || name_or_path.contains('/') {
            as_path.to_path_buf()
        } else if let Some(dir) = machines_dir() {
            dir.join(format!("{name_or_path}.toml"))
        } else {
            return match SHIPPED.iter().find(|(n, _)| *n == name_or_path) {
                Some((n, text)) => Machine::parse(text, &format!("passes/machines/{n}.toml")),
                None => Err(MachineError::Unknown {
                    name: name_or_path.to_string(),
                    tried: "such model shipped".into(),
                    known: known_machines().join(", "),
                }),
            };
        };
        let text = std::fs::read_to_string(&path).map_err(|_| MachineError::Unknown {
            name: name_or_path.to_string(),
            tried: path.display().to_string(),
            known: known_machines().join(", "),
        })?;
        Machine::parse(&text, &path.display().to_string())
    }

    /// Parses a model; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Machine, MachineError> {
        let bad = |message: String| MachineError::Bad { path: path.to_string(), message };
        let raw: RawMachine = toml::from_str(text).map_err(|e| bad(e.to_string().trim_end().to_string()))?;
        let fill_nops = match raw.nops.as_str() {
            "fill" => true,
            "none" => false,
            other => return Err(bad(format!("nops = '{other}': expected \"fill\" or \"none\""))),
        };
        if raw.bundles_per_cycle == 0 {
            return Err(bad("bundles_per_cycle must be at least 1".into()));
        }
        let unit_names: Vec<String> = raw.units.keys().cloned().collect();
        if unit_names.is_empty() || unit_names.len() > 16 {
            return Err(bad(format!("{} unit kinds: expected 1 to 16", unit_names.len())));
        }
        let mut slot_names: Vec<String> = Vec::new();
        let slot = |s: &str, slot_names: &mut Vec<String>| -> SlotKind {
            match slot_names.iter().position(|n| n == s) {
                Some(i) => SlotKind(i as u8),
                None => {
                    slot_names.push(s.to_string());
                    SlotKind((slot_names.len() - 1) as u8)
                }
            }
        };
        let mut templates = Vec::new();
        for t in &raw.templates {
            let slots = t.slots.iter().map(|s| slot(s, &mut slot_names)).collect();
            templates.push(Template { name: t.name.clone(), slots, stop: t.stop, reserved: t.reserved });
        }
        if templates.len() > 255 {
            return Err(bad("more than 255 templates".into()));
        }
        let known_slot = |s: &str, slot_names: &[String], what: &str| -> Result<SlotKind, MachineError> {
            slot_names
                .iter()
                .position(|n| n == s)
                .map(|i| SlotKind(i as u8))
                .ok_or_else(|| bad(format!("{what}: slot kind '{s}' is in no template (slot kinds: {})", slot_names.join(", "))))
        };
        let mut unit_slots = Vec::new();
        for (u, slots) in &raw.units {
            let ks: Result<Vec<_>, _> = slots.iter().map(|s| known_slot(s, &slot_names, &format!("units.{u}"))).collect();
            let ks = ks?;
            if ks.is_empty() {
                return Err(bad(format!("units.{u}: no slot kinds")));
            }
            unit_slots.push(ks);
        }
        let unit = |u: &str, what: &str| -> Result<UnitKind, MachineError> {
            unit_names
                .iter()
                .position(|n| n == u)
                .map(|i| UnitKind(i as u8))
                .ok_or_else(|| bad(format!("{what}: unknown unit kind '{u}' (units: {})", unit_names.join(", "))))
        };
        let mut caps = vec![None; unit_names.len()];
        for (u, &c) in &raw.caps {
            if c == 0 {
                return Err(bad(format!("caps.{u} = 0: every unit kind must be able to issue")));
            }
            caps[unit(u, "caps")?.0 as usize] = Some(c);
        }
        let mut classes = BTreeMap::new();
        for (c, info) in &raw.classes {
            if info.latency > super::ddg::MAX_LATENCY {
                return Err(bad(format!("classes.{c}: latency {} is over the limit of {}", info.latency, super::ddg::MAX_LATENCY)));
            }
            classes.insert(c.clone(), ClassInfo { unit: unit(&info.unit, &format!("classes.{c}"))?, latency: info.latency });
        }
        let prio = |rows: &[Vec<String>], what: &str| -> Result<Vec<Vec<SlotKind>>, MachineError> {
            rows.iter().map(|row| row.iter().map(|s| known_slot(s, &slot_names, what)).collect()).collect()
        };
        let linear_slot_priority = prio(&raw.linear.slot_priority, "linear.slot_priority")?;
        let linear_nop_priority = prio(&raw.linear.nop_priority, "linear.nop_priority")?;
        let mut linear_slot_caps = vec![None; slot_names.len()];
        for (k, &c) in &raw.linear.slot_caps {
            if c == 0 {
                return Err(bad(format!("linear.slot_caps.{k} = 0: a slot kind must be able to hold an op")));
            }
            linear_slot_caps[known_slot(k, &slot_names, "linear.slot_caps")?.0 as usize] = Some(c);
        }
        let m = Machine {
            name: raw.name,
            bundles_per_cycle: raw.bundles_per_cycle,
            fill_nops,
            unit_names,
            slot_names,
            unit_slots,
            caps,
            templates,
            classes,
            linear_slot_priority,
            linear_nop_priority,
            linear_slot_caps,
            fusions: raw.fuse,
        };
        for f in &m.fusions {
            for c in [&f.producer, &f.consumer, &f.fused] {
                if !m.classes.contains_key(c) {
                    return Err(bad(format!("fuse: unknown op class '{c}'")));
                }
            }
        }
        let widest = m.templates.iter().filter(|t| t.usable()).map(|t| t.slots.len()).max().unwrap_or(0);
        if widest == 0 {
            return Err(bad("no usable template".into()));
        }
        if m.linear_slot_priority.len() < widest || m.linear_nop_priority.len() < widest {
            return Err(bad(format!("linear priorities must cover all {widest} slots of the widest template")));
        }
        if widest * m.bundles_per_cycle > 16 {
            return Err(bad("more than 16 slots per cycle".into()));
        }
        for (u, slots) in m.unit_slots.iter().enumerate() {
            let placeable = m.templates.iter().filter(|t| t.usable()).any(|t| t.slots.iter().any(|s| slots.contains(s)));
            if !placeable {
                return Err(bad(format!("unit kind '{}' fits no usable template", m.unit_names[u])));
            }
        }
        Ok(m)
    }

    pub fn unit(&self, name: &str) -> Option<UnitKind> {
        self.unit_names.iter().position(|n| n == name).map(|i| UnitKind(i as u8))
    }

    pub fn unit_name(&self, u: UnitKind) -> &str {
        &self.unit_names[u.0 as usize]
    }

    pub fn slot_name(&self, s: SlotKind) -> &str {
        &self.slot_names[s.0 as usize]
    }

    pub fn template(&self, t: TemplateId) -> &Template {
        &self.templates[t.0 as usize]
    }

    pub fn accepts(&self, u: UnitKind, s: SlotKind) -> bool {
        self.unit_slots[u.0 as usize].contains(&s)
    }

    pub fn cap(&self, u: UnitKind) -> Option<u32> {
        self.caps[u.0 as usize]
    }

    pub fn num_units(&self) -> usize {
        self.unit_names.len()
    }

    /// Usable templates, in model order.
    pub fn usable_templates(&self) -> impl Iterator<Item = TemplateId> + '_ {
        self.templates.iter().enumerate().filter(|(_, t)| t.usable()).map(|(i, _)| TemplateId(i as u8))
    }
}

/// The models by name: the shipped ones, or those in `SIMT_MACHINES`.
pub fn known_machines() -> Vec<String> {
    let Some(dir) = machines_dir() else { return SHIPPED.iter().map(|(n, _)| n.to_string()).collect() };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".toml")).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_models_load() {
        let it = Machine::load("itanium2").unwrap();
        assert_eq!(it.bundles_per_cycle, 2);
        assert_eq!(it.templates.len(), 16);
        assert_eq!(it.usable_templates().count(), 10);
        let a = it.unit("A").unwrap();
        assert!(it.accepts(a, SlotKind(it.slot_names.iter().position(|s| s == "M").unwrap() as u8)));
        let hx = Machine::load("hexagon").unwrap();
        assert_eq!(hx.bundles_per_cycle, 1);
        assert!(!hx.fill_nops);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = Machine::parse("name = \"x\"\nbundles_per_cycle = \"two\"\n", "m.toml").unwrap_err().to_string();
        assert!(e.starts_with("m.toml: ") && e.contains("line 2"), "{e}");
        let e = Machine::load("no-such-machine").unwrap_err().to_string();
        assert!(e.contains("itanium2") && e.contains("hexagon"), "{e}");
        // A class latency over the limit, in an otherwise good model.
        let (path, text) = ("itanium2.toml", SHIPPED.iter().find(|(n, _)| *n == "itanium2").unwrap().1.to_string());
        let (class, latency) = Machine::parse(&text, path).unwrap().classes.into_iter().next().map(|(c, i)| (c, i.latency)).unwrap();
        let from = format!("latency = {latency}");
        assert!(text.contains(&from));
        let e = Machine::parse(&text.replacen(&from, "latency = 4294967295", 1), "m.toml").unwrap_err().to_string();
        assert!(e.contains("latency 4294967295 is over the limit of 1000"), "{e} ({class})");
    }
}
