//! Per-object bounds: every `__local` variable, every `local:` argument and
//! every private array (`alloca`) of every work-item is a region of its own,
//! so an index that runs off one array into the next one of the same memory
//! is out of bounds, as it is for buffer arguments.
//!
//! A tagged address (`memory`) carries its region in its top bits, and every
//! pointer derived from it (GEPs, phis, selects, a round trip through memory
//! or through a 64-bit integer) keeps them: the region *is* the provenance
//! that Oclgrind tracks per pointer value (its `Memory` gives each
//! allocation its own buffer number in the address's top bits). An access
//! is checked against the region its address names, so a pointer one past
//! the end that is computed but not dereferenced, or one selected between
//! two arrays, is never reported.
//!
//! An object region is an alias: it maps a slice of its memory's one buffer
//! (a work-group's local memory, a work-item's private memory), so zeroing,
//! the ABI's layout of local memory and the host engine's results stay as
//! they were. The shadow-memory checks and the reports of races and
//! uninitialised reads see the canonical address ([`ObjectLayout::canon`]:
//! the memory's own region and the offset in it).
//!
//! Region numbers, after those of the program (parameters, local memory,
//! globals, then one region per static `__local` variable of non-zero
//! size, then one private region per work-item): one per pointer-typed
//! `local:` argument, then `items × allocas` private arrays, work-item by
//! work-item.
//!
//! Limits: the dynamic shared memory of `simt-to-nvptx` (its `__local`
//! arguments are i32 offsets from one variable) and zero-sized `__local`
//! variables (`extern __shared__`) stay checked against the whole of local
//! memory; private arrays too when the launch would need more than
//! [`MAX_OBJECT_REGIONS`] of them. A 32-bit shared pointer turned into an
//! integer gives its offset in its object, not in local memory.

use super::memory::ADDR_BITS;
use super::program::{addr, Program, Sk};
use super::regions::Regions;

/// The most regions given to private arrays in one launch (16 bytes of
/// region table each); beyond, a work-item's private arrays share its
/// private region, as before per-object bounds.
pub const MAX_OBJECT_REGIONS: u64 = 1 << 20;

/// What an object region holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// `Program::local_vars()[k]`.
    LocalVar(usize),
    /// The `local:` argument of parameter `param`.
    LocalArg { param: usize },
    /// Private array `index` (`Program::allocas()[index]`) of work-item `item`.
    Alloca { item: u64, index: usize },
}

/// Where the objects of one launch are.
#[derive(Clone, Debug)]
pub struct ObjectLayout {
    /// Pointer-typed `local:` arguments: parameter, offset in local memory,
    /// bytes; argument `k` is region `first_local_arg + k`.
    local_args: Vec<(usize, u64, u64)>,
    first_local_arg: u64,
    /// The first private array's region, when they have their own.
    first_alloca: Option<u64>,
    nallocas: u64,
    items: u64,
    first_private: u64,
    local_region: u32,
    /// Static `__local` variables' regions: `local_vars[k]` is
    /// `var_regions[k]` (0: none, checked against all of local memory).
    var_regions: Vec<u32>,
    /// Regions in all.
    total: u64,
}

impl ObjectLayout {
    /// The layout for `p` run with `items` work-items per work-group;
    /// `local_args` are the launch's `local:` arguments (parameter, offset
    /// in local memory, bytes).
    pub fn new(p: &Program, items: u64, local_args: &[(usize, u64, u64)]) -> ObjectLayout {
        let first_private = p.first_private_region() as u64;
        let local_args: Vec<_> = local_args.iter().copied().filter(|&(i, _, _)| p.params()[i].sk == Sk::P).collect();
        let first_local_arg = first_private + items;
        let after_args = first_local_arg + local_args.len() as u64;
        let nallocas = p.allocas().len() as u64;
        let arrays = items.saturating_mul(nallocas);
        let first_alloca = (nallocas > 0 && arrays <= MAX_OBJECT_REGIONS).then_some(after_args);
        let total = after_args + first_alloca.map_or(0, |_| arrays);
        ObjectLayout {
            local_args,
            first_local_arg,
            first_alloca,
            nallocas,
            items,
            first_private,
            local_region: p.local_region(),
            var_regions: p.local_var_regions().to_vec(),
            total,
        }
    }

    /// Regions the launch needs in all.
    pub fn total_regions(&self) -> u64 {
        self.total
    }

    /// Maps every object region onto its slice of local or private memory
    /// (which must be mapped already).
    pub fn map(&self, p: &Program, mem: &mut Regions<'_>) {
        let local = self.local_region as usize;
        for (&(_, start, size), &r) in p.local_vars().iter().zip(&self.var_regions) {
            if r != 0 {
                mem.map_alias(r as usize, local, start, size);
            }
        }
        for (k, &(_, start, size)) in self.local_args.iter().enumerate() {
            mem.map_alias((self.first_local_arg + k as u64) as usize, local, start, size);
        }
        if let Some(first) = self.first_alloca {
            for item in 0..self.items {
                for (k, a) in p.allocas().iter().enumerate() {
                    let r = first + item * self.nallocas + k as u64;
                    mem.map_alias(r as usize, (self.first_private + item) as usize, a.off, a.size);
                }
            }
        }
    }

    /// The value a `local:` argument's parameter gets: its own region when
    /// the parameter is a pointer.
    pub fn local_arg_value(&self, param: usize) -> Option<u64> {
        let k = self.local_args.iter().position(|&(i, _, _)| i == param)?;
        Some(addr((self.first_local_arg + k as u64) as u32, 0))
    }

    /// The base of work-item `item`'s private arrays (array `k` is this
    /// plus `k`), or `None` when they share its private region.
    #[inline(always)]
    pub fn alloca_base(&self, item: u64) -> Option<u64> {
        self.first_alloca.map(|f| f + item * self.nallocas)
    }

    /// Private arrays per work-item.
    #[inline(always)]
    pub fn nallocas(&self) -> u64 {
        self.nallocas
    }

    /// What object region `r` holds, if it is one.
    pub fn object(&self, r: u64) -> Option<Object> {
        if let Some(k) = self.var_regions.iter().position(|&v| v != 0 && v as u64 == r) {
            return Some(Object::LocalVar(k));
        }
        if r >= self.first_local_arg && r < self.first_local_arg + self.local_args.len() as u64 {
            return Some(Object::LocalArg { param: self.local_args[(r - self.first_local_arg) as usize].0 });
        }
        let first = self.first_alloca?;
        if r >= first && r < self.total {
            let k = r - first;
            return Some(Object::Alloca { item: k / self.nallocas, index: (k % self.nallocas) as usize });
        }
        None
    }

    /// For an object region, the memory's region and the object's offset
    /// in it.
    pub fn canon(&self, p: &Program, r: u64) -> Option<(u32, u64)> {
        Some(match self.object(r)? {
            Object::LocalVar(k) => (self.local_region, p.local_vars()[k].1),
            Object::LocalArg { param } => (self.local_region, self.local_args.iter().find(|a| a.0 == param)?.1),
            Object::Alloca { item, index } => ((self.first_private + item) as u32, p.allocas()[index].off),
        })
    }

    /// Per region, the canonical region and the offset to add: the checker's
    /// table (identity for every region that is not an object's).
    pub fn canon_table(&self, p: &Program) -> Vec<(u32, u64)> {
        (0..self.total).map(|r| self.canon(p, r).unwrap_or((r as u32, 0))).collect()
    }

    /// A private pointer relative to work-item `item`'s own private memory,
    /// for comparing pointers across lanes: (region relative to the item's
    /// first, offset), or `None` for any other pointer.
    pub fn relative_private(&self, v: u64, item: u64) -> Option<(u64, u64)> {
        let r = v >> ADDR_BITS;
        let off = v & super::memory::OFF_MASK;
        if r >= self.first_private && r < self.first_private + self.items {
            return Some((r.wrapping_sub(self.first_private + item), off));
        }
        let base = self.alloca_base(item)?;
        (r >= self.first_alloca? && r < self.total).then(|| (r.wrapping_sub(base) | 1 << 63, off))
    }
}
